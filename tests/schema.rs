//! The JSON Schemas against real documents: evidence of passing, failing,
//! erroring, fast-mode, sharded, merged and task runs validates; wrong types,
//! missing and misspelled fields do not; task files; the project's own
//! checks.toml and `init`'s outputs against the checks.toml schema.

use serde_json::{Value, json};

use run_check_documents::evidence::{Evidence, Severity};

use crate::support::{Test, bin, repo_root, schema};

/// The names `run-check schema` knows.
const NAMES: &[&str] = &[
    "evidence",
    "verdict",
    "vote-input",
    "vote-output",
    "task",
    "retry-state",
    "retry-status",
    "retry-record",
    "candidates-index",
    "checks",
];

#[track_caller]
fn assert_valid(schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{instance:#}");
}

#[track_caller]
fn assert_invalid(schema: &Value, instance: &Value, why: &str) {
    let validator = jsonschema::validator_for(schema).expect("a valid schema");
    assert!(!validator.is_valid(instance), "{why}: accepted");
}

/// Runs the checks with `--format json --out ev.json`; the run keeps the
/// worktree alive.
#[track_caller]
fn json_run(test: Test, args: &[&str], code: i32) -> crate::support::Run {
    test.args(&["--format", "json", "--out", "ev.json", "--quiet"])
        .args(args)
        .run()
        .status(code)
}

/// Runs the checks with `--format json --out ev.json` and returns the evidence.
#[track_caller]
fn evidence_of(test: Test, args: &[&str], code: i32) -> Value {
    json_run(test, args, code).json_file("ev.json")
}

const MIXED: &str = r#"version = 1
[settings]
allow = ["./ok.sh", "./bad.sh", "./missing.sh", "./phase.sh", "sleep"]
timeout = "20s"

[[check]]
name = "ok"
run = ["./ok.sh"]
modes = ["fast", "strict"]
artifacts = ["report.xml"]
score = { regex = 'coverage: (\d+)%' }

[[check]]
name = "bad"
run = ["./bad.sh"]
modes = ["fast", "strict"]
parser = "gcc"
dimension = "security"
severity = "critical"
paths = ["src/**"]

[[check]]
name = "after-bad"
run = ["./ok.sh"]
needs = ["bad"]

[[check]]
name = "missing"
run = ["./missing.sh"]

[[check]]
name = "phase"
run = ["./phase.sh"]
parser = "phase-result"

[[check]]
name = "slow"
run = ["sleep", "5"]
timeout = "300ms"

[[check]]
name = "scan"
scan = { rules = ["debug-leftovers"] }
"#;

fn mixed() -> Test {
    Test::new()
        .config(MIXED)
        .script(
            "ok.sh",
            "#!/bin/sh\necho 'coverage: 91%'\n",
        )
        .file(
            "report.xml",
            "<testsuite><testcase classname=\"a\" name=\"b\"><failure message=\"boom\"/></testcase></testsuite>",
        )
        .script(
            "bad.sh",
            "#!/bin/sh\necho 'src/a.c:3:7: error: broken [-Wx]' >&2\nexit 3\n",
        )
        .script(
            "phase.sh",
            "#!/bin/sh\necho 'PHASE_RESULT:'\necho '- status: done'\necho '- score: 7'\n",
        )
        .file("src/a.c", "int main() { console.log(1); }\n")
}

#[test]
fn evidence_of_every_status_validates() {
    let evidence = evidence_of(mixed(), &[], 2);
    let statuses: Vec<&str> = evidence["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["pass", "fail", "skip", "error", "pass", "fail", "fail"]
    );
    assert!(!evidence["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(evidence["checks"][0]["score"], 91.0);
    assert_eq!(evidence["checks"][5]["timed_out"], true);
    assert_eq!(evidence["checks"][4]["data"]["status"], "done");
    assert_valid(&schema("evidence"), &evidence);
}

#[test]
fn passing_and_fast_mode_evidence_validates() {
    let test = Test::new()
        .config("[settings]\nallow = [\"./ok.sh\"]\n[[check]]\nname = \"ok\"\nrun = [\"./ok.sh\"]\nmodes = [\"fast\", \"strict\"]\n[[check]]\nname = \"rs\"\nrun = [\"./ok.sh\"]\nmodes = [\"fast\"]\npaths = [\"**/*.rs\"]\n")
        .script("ok.sh", "#!/bin/sh\nexit 0\n");
    let strict = evidence_of(test, &[], 0);
    assert_eq!(strict["summary"]["banner"], "All checks passed!");
    assert_eq!(strict["meta"]["changes"], Value::Null);
    assert_valid(&schema("evidence"), &strict);

    let fast = evidence_of(mixed(), &["--mode", "fast", "--verify-read-only"], 1);
    assert_eq!(fast["mode"], "fast");
    assert!(fast["meta"]["changes"]["files"].is_array());
    assert_valid(&schema("evidence"), &fast);

    // Outside git: every git fact is null.
    let bare = Test::bare()
        .config("[settings]\nallow = [\"./ok.sh\"]\n[[check]]\nname = \"ok\"\nrun = [\"./ok.sh\"]\nmodes = [\"fast\"]\n")
        .script("ok.sh", "#!/bin/sh\nexit 0\n");
    let bare = evidence_of(bare, &["--mode", "fast"], 0);
    assert_eq!(
        bare["meta"]["git"],
        json!({"commit": null, "branch": null, "dirty": null})
    );
    assert!(bare["meta"]["changes"]["note"].is_string());
    assert_valid(&schema("evidence"), &bare);
}

#[test]
fn a_modified_worktree_validates() {
    let test = Test::new()
        .config("[settings]\nallow = [\"./write.sh\"]\n[[check]]\nname = \"write\"\nrun = [\"./write.sh\"]\n")
        .script("write.sh", "#!/bin/sh\necho x > new.txt\n");
    let evidence = evidence_of(test, &[], 1);
    assert_eq!(
        evidence["contracts"]["read_only"]["modified"],
        json!(["new.txt"])
    );
    assert_valid(&schema("evidence"), &evidence);
}

#[test]
fn sharded_and_merged_evidence_validates() {
    let config = "[settings]\nallow = [\"./ok.sh\"]\n".to_string()
        + &(0..6)
            .map(|i| format!("[[check]]\nname = \"c{i}\"\nrun = [\"./ok.sh\"]\n"))
            .collect::<String>();
    let test = Test::new()
        .config(&config)
        .script("ok.sh", "#!/bin/sh\nexit 0\n");
    let run = json_run(test, &["--shard", "1/2"], 0);
    let dir = run.test.path();
    let first = run.json_file("ev.json");
    assert_eq!(first["meta"]["shard"]["count"], 2);
    assert_valid(&schema("evidence"), &first);
    std::fs::rename(dir.join("ev.json"), dir.join("ev1.json")).unwrap();
    let second = std::process::Command::new(bin())
        .args([
            "--shard", "2/2", "--format", "json", "--out", "ev2.json", "--quiet",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(0));
    let merged = std::process::Command::new(bin())
        .args(["merge", "ev1.json", "ev2.json", "--out", "merged.json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        merged.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("merged.json")).unwrap()).unwrap();
    assert_eq!(merged["meta"]["merged_from"].as_array().unwrap().len(), 2);
    assert_valid(&schema("evidence"), &merged);
}

fn task_json() -> Value {
    json!({
        "id": "T-1",
        "title": "Add schemas",
        "description": "So documents can be checked.",
        "risk": "low",
        "parallel_count": 1,
        "acceptance": {
            "commands": ["run-check --mode strict --format json"],
            "criteria": "summary.all_checks_passed = true"
        },
        "estimated_loc": 120,
        "files_involved": ["src/schema.rs"],
        "public_contracts_touched": ["run-check schema"],
        "owner": "extra fields are kept"
    })
}

#[test]
fn task_runs_validate_and_task_files_are_typed() {
    let mut over = task_json();
    over["estimated_loc"] = json!(900);
    over["files_involved"] = json!((0..12).map(|i| format!("f{i}")).collect::<Vec<_>>());
    over["parallel_count"] = json!(9);
    let test = Test::new()
        .config(
            "[settings]\nallow = [\"./ok.sh\"]\n[[check]]\nname = \"ok\"\nrun = [\"./ok.sh\"]\n",
        )
        .script("ok.sh", "#!/bin/sh\nexit 0\n")
        .file("task.json", &task_json().to_string())
        .file("over.json", &over.to_string());
    let run = json_run(test, &["--task", "task.json"], 0);
    let dir = run.test.path();
    let evidence = run.json_file("ev.json");
    assert_eq!(evidence["meta"]["task"]["id"], "T-1");
    assert!(evidence["contracts"]["change_budget"].is_object());
    assert_valid(&schema("evidence"), &evidence);
    assert_valid(&schema("task"), &task_json());

    // Broken limits are violations, not schema errors.
    let output = std::process::Command::new(bin())
        .args(["--task", "over.json", "--format", "json", "--quiet"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let evidence: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(evidence["contracts"]["task"]["valid"], false);
    assert_valid(&schema("evidence"), &evidence);
    assert_valid(&schema("task"), &over);

    for (pointer, value, why) in [
        ("/risk", json!("extreme"), "unknown risk"),
        ("/parallel_count", json!("2"), "a string count"),
        ("/parallel_count", json!(1.5), "a fractional count"),
        ("/estimated_loc", json!(-1), "a negative estimate"),
        (
            "/acceptance/commands",
            json!("run-check --mode strict --format json"),
            "commands as a string",
        ),
        ("/acceptance/criteria", json!(true), "criteria as a boolean"),
        ("/files_involved", json!([1]), "a file as a number"),
        ("/public_contracts_touched", json!(null), "null contracts"),
    ] {
        let mut task = task_json();
        *task.pointer_mut(pointer).unwrap() = value;
        assert_invalid(&schema("task"), &task, why);
        // The loader agrees: an ill-typed task is an ERROR.
        let file = dir.join("ill.json");
        std::fs::write(&file, task.to_string()).unwrap();
        let output = std::process::Command::new(bin())
            .args(["--task", "ill.json", "--quiet"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{why}");
    }
    let mut task = task_json();
    task["acceptance"]
        .as_object_mut()
        .unwrap()
        .remove("criteria");
    assert_invalid(&schema("task"), &task, "missing criteria");
    assert_invalid(&schema("task"), &json!([task_json()]), "an array");
}

#[test]
fn wrong_missing_and_misspelled_fields_are_rejected() {
    let evidence = evidence_of(mixed(), &[], 2);
    let schema = schema("evidence");
    assert_valid(&schema, &evidence);
    // (why, parent pointer, key, new value or None to remove it)
    let cases: [(&str, &str, &str, Option<Value>); 20] = [
        (
            "summary.exit_code as a string",
            "/summary",
            "exit_code",
            Some(json!("0")),
        ),
        (
            "an exit code that does not exist",
            "/summary",
            "exit_code",
            Some(json!(3)),
        ),
        ("a missing summary", "", "summary", None),
        ("a missing checks[].status", "/checks/0", "status", None),
        ("a missing checks[].program", "/checks/0", "program", None),
        (
            "a fractional exit code",
            "/checks/0",
            "exit_code",
            Some(json!(0.5)),
        ),
        (
            "an unknown status",
            "/checks/0",
            "status",
            Some(json!("passed")),
        ),
        (
            "an unknown dimension",
            "/checks/0",
            "dimension",
            Some(json!("speed")),
        ),
        (
            "an unknown diagnostic severity",
            "/diagnostics/0",
            "severity",
            Some(json!("fatal")),
        ),
        ("a misspelled field", "/summary", "exitcode", Some(json!(0))),
        (
            "a misspelled meta field",
            "/meta",
            "comands",
            Some(json!([])),
        ),
        ("an unknown mode", "", "mode", Some(json!("quick"))),
        ("schema_version 2", "", "schema_version", Some(json!(2))),
        (
            "a negative duration",
            "/checks/0",
            "duration_ms",
            Some(json!(-1)),
        ),
        (
            "a skip without a reason",
            "/checks/2",
            "skip_reason",
            Some(Value::Null),
        ),
        (
            "an error without a reason",
            "/checks/3",
            "error",
            Some(Value::Null),
        ),
        (
            "a timeout that is not a failure",
            "/checks/5",
            "status",
            Some(json!("pass")),
        ),
        (
            "a pass banner on a failing run",
            "/summary",
            "banner",
            Some(json!("All checks passed!")),
        ),
        (
            "all_checks_passed on exit 2",
            "/summary",
            "all_checks_passed",
            Some(json!(true)),
        ),
        (
            "a short sha256",
            "/meta/config",
            "sha256",
            Some(json!("abc")),
        ),
    ];
    for (why, parent, key, value) in cases {
        let mut bad = evidence.clone();
        let object = bad.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        match value {
            Some(value) => object.insert(key.to_string(), value),
            None => object.remove(key),
        };
        assert_invalid(&schema, &bad, why);
        // The schema and the reader of every command agree.
        assert!(Evidence::from_value(bad).is_err(), "{why}: read");
    }
    // Documents of earlier run-checks lack the later additions; the schema
    // and the reader accept them, with their defaults.
    let mut older = evidence.clone();
    crate::support::first_version(&mut older);
    assert_valid(&schema, &older);
    let read = Evidence::from_value(older).unwrap();
    assert_eq!(read.checks[0].severity, Severity::High);
    assert_eq!(read.checks[0].diagnostics_dropped, 0);
    assert!(read.checks[0].leaked.is_empty());
    assert_eq!(read.checks[0].config_line, None);
    assert_eq!(read.checks[0].started_ms, None);
    assert!(!read.checks[0].flaky);
    assert_eq!(read.checks[0].attempts, 1);
    assert!(read.checks[0].attempt_log.is_empty());
    assert_eq!(read.checks[0].baseline_suppressed, 0);
    assert_eq!(read.summary.baseline, None);
    assert_eq!(read.contracts.gate, None);
    // 1.0 is an integer as the schema's "integer" says; 1.5 is not.
    let mut whole = evidence.clone();
    whole["checks"][0]["exit_code"] = json!(1.0);
    assert_valid(&schema, &whole);
    assert_eq!(
        Evidence::from_value(whole).unwrap().checks[0].exit_code,
        Some(1)
    );
}

#[test]
fn the_schema_command_prints_each_schema() {
    for &name in NAMES {
        let output = std::process::Command::new(bin())
            .args(["schema", name])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{name}");
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            format!("{:#}\n", printed)
        );
    }
    // The committed schemas are what the command prints.
    for (name, file) in [
        ("checks", "checks.schema.json"),
        ("evidence", "schemas/evidence.json"),
        ("task", "schemas/task.json"),
        ("verdict", "schemas/verdict.json"),
        ("retry-state", "schemas/retry-state.json"),
        ("vote-input", "schemas/vote-input.json"),
        ("retry-status", "schemas/retry-status.json"),
        ("retry-record", "schemas/retry-record.json"),
        ("vote-output", "schemas/vote-output.json"),
    ] {
        let committed = std::fs::read_to_string(repo_root().join(file)).unwrap();
        let output = std::process::Command::new(bin())
            .args(["schema", name])
            .output()
            .unwrap();
        assert!(
            String::from_utf8(output.stdout).unwrap() == committed,
            "{file} differs from `run-check schema {name}`; regenerate it with \
             `cargo run -q --bin run-check -- schema {name} > {file}`"
        );
    }

    let output = std::process::Command::new(bin())
        .args(["schema", "nope"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "error: invalid value 'nope' for '<NAME>' [possible values: {}] (see `run-check schema --help`)\n",
            NAMES.join(", ")
        )
    );
}

#[test]
fn the_projects_checks_toml_validates() {
    let text = std::fs::read_to_string(repo_root().join("checks.toml")).unwrap();
    let value: Value = toml::from_str(&text).unwrap();
    assert_valid(&schema("checks"), &value);
}

#[test]
fn init_outputs_validate() {
    for (name, _) in crate::init::PROJECTS {
        let (value, ..) = crate::init::init(crate::init::project(name));
        assert_valid(&schema("checks"), &value);
    }
}

/// A checks.toml with every key the loader reads, each with a value it
/// accepts.
const EVERY_KEY: &str = r#"
version = 1
[settings]
jobs = 0
timeout = "1m30s"
excerpt_bytes = 8192
allow = ["true", "./scripts/lint.sh"]
allow_env = ["RUSTFLAGS"]
flaky = "fail"
[judge]
security_min = 85
quality_min = 80.5
performance_min = 80
overall_min = 80
max_critical_issues = 0
max_high_issues = 2
max_iterations = 5
stall_threshold = 5
stall_rounds = 2
weights = { security = 0.4, quality = 0.35, performance = 0.25 }
[retry]
max_retries = 3
[[check]]
name = "clippy"
run = ["true", "clippy"]
modes = ["fast", "strict"]
dimension = "security"
severity = "critical"
timeout = "5m"
retries = 2
cwd = "."
env = { CARGO_TERM_COLOR = "never", RUSTFLAGS = "-D warnings" }
paths = ["**/*.rs"]
needs = ["scan"]
parser = "cargo-json"
artifacts = ["target/junit.xml"]
leave_running = true
score = { regex = 'coverage: (\d+)%' }
[[check.matcher]]
regex = '^(?P<message>.+)$'
severity = "warning"
[[check]]
name = "scan"
scan = { paths = ["src/**"], rules = ["skipped-tests", "placeholder-asserts", "secrets", "debug-leftovers"] }
[[check.rule]]
id = "no-dbg"
pattern = 'dbg!\('
message = "remove dbg!"
severity = "note"
[[fix]]
name = "fmt"
run = ["true", "fmt"]
timeout = "2m"
cwd = "."
env = { A = "1" }
"#;

#[test]
fn the_checks_schema_accepts_every_key_the_loader_reads() {
    let run = Test::bare()
        .config(EVERY_KEY)
        .script("scripts/lint.sh", "#!/bin/sh\n")
        .args(&["validate"])
        .run()
        .success();
    assert!(
        run.stdout.starts_with("checks.toml: valid (2 checks"),
        "{}",
        run.stdout
    );
    assert_valid(&schema("checks"), &toml::from_str(EVERY_KEY).unwrap());
}

/// Each document breaks one rule, at one level of the file; the loader
/// (`run-check validate`) refuses it naming the key (or the inline table
/// holding it), and so does the schema.
#[test]
fn the_checks_schema_rejects_what_the_loader_rejects() {
    const RUN: &str = "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"a\"\nrun = [\"true\"]\n";
    const SCAN: &str = "[[check]]\nname = \"a\"\nscan = { rules = [\"secrets\"] }\n";
    const FIX: &str = "[settings]\nallow = [\"true\"]\n[[fix]]\nname = \"f\"\nrun = [\"true\"]\n";
    let cases = [
        ("version = \"1\"\n".to_string(), "version"),
        ("version = 2\n".into(), "version"),
        ("settings = 1\n".into(), "settings"),
        ("[settings]\njob = 1\n".into(), "job"),
        ("[settings]\njobs = \"4\"\n".into(), "jobs"),
        ("[settings]\ntimeout = 10\n".into(), "timeout"),
        ("[settings]\ntimeout = \"10\"\n".into(), "timeout"),
        ("[settings]\nexcerpt_bytes = 0\n".into(), "excerpt_bytes"),
        ("[settings]\nallow = \"true\"\n".into(), "allow"),
        ("[settings]\nallow_env = [\"A=B\"]\n".into(), "allow_env"),
        ("check = [1]\n".into(), "check"),
        ("[[check]]\nname = 1\nrun = [\"true\"]\n".into(), "name"),
        (
            "[[check]]\nname = \"a b\"\nrun = [\"true\"]\n".into(),
            "name",
        ),
        ("[[check]]\nname = \"a\"\n".into(), "run"),
        (format!("{RUN}scan = {{ rules = [\"secrets\"] }}\n"), "scan"),
        ("[[check]]\nname = \"a\"\nrun = []\n".into(), "run"),
        ("[[check]]\nname = \"a\"\nrun = \"true\"\n".into(), "run"),
        (format!("{RUN}modes = \"fast\"\n"), "modes"),
        (format!("{RUN}modes = [\"slow\"]\n"), "slow"),
        (format!("{RUN}dimension = \"speed\"\n"), "speed"),
        (format!("{RUN}severity = 1\n"), "severity"),
        (format!("{RUN}timeout = 5\n"), "timeout"),
        (format!("{RUN}cwd = false\n"), "cwd"),
        (format!("{RUN}env = {{ A = 1 }}\n"), "env"),
        (format!("{RUN}paths = \"src\"\n"), "paths"),
        (format!("{RUN}needs = [1]\n"), "needs"),
        (format!("{RUN}parser = \"json\"\n"), "json"),
        (format!("{RUN}artifacts = {{}}\n"), "artifacts"),
        (format!("{RUN}leave_running = \"yes\"\n"), "leave_running"),
        (format!("{RUN}retries = -1\n"), "retries"),
        (format!("{RUN}retries = 11\n"), "retries"),
        (format!("{RUN}retries = \"1\"\n"), "retries"),
        ("[settings]\nflaky = \"retry\"\n".into(), "flaky"),
        (
            format!("{RUN}[[check.rule]]\nid = \"r\"\npattern = \"p\"\n"),
            "rule",
        ),
        (
            format!("{RUN}[[check.matcher]]\nregex = '(?P<message>.+)'\nseverity = \"fatal\"\n"),
            "fatal",
        ),
        (format!("{RUN}[[check.matcher]]\nregex = 1\n"), "regex"),
        (format!("{RUN}score = {{}}\n"), "regex"),
        (format!("{RUN}score = {{ regex = 1 }}\n"), "score"),
        (
            format!("{RUN}score = {{ regex = '(.)', group = 1 }}\n"),
            "group",
        ),
        (
            "[[check]]\nname = \"a\"\nscan = { rules = \"secrets\" }\n".into(),
            "scan",
        ),
        (
            "[[check]]\nname = \"a\"\nscan = { rules = [\"nope\"] }\n".into(),
            "nope",
        ),
        (
            "[[check]]\nname = \"a\"\nscan = { rules = [\"secrets\"], paths = [1] }\n".into(),
            "scan",
        ),
        (
            "[[check]]\nname = \"a\"\nscan = { rules = [\"secrets\"], x = 1 }\n".into(),
            "x",
        ),
        (format!("{SCAN}[[check.rule]]\nid = \"r\"\n"), "pattern"),
        (
            format!("{SCAN}[[check.rule]]\nid = \"r\"\npattern = \"p\"\nmessage = 1\n"),
            "message",
        ),
        ("judge = 1\n".into(), "judge"),
        ("[judge]\nsecurity_min = \"85\"\n".into(), "security_min"),
        ("[judge]\noverall_min = 101\n".into(), "overall_min"),
        ("[judge]\nmax_iterations = 0\n".into(), "max_iterations"),
        ("[judge]\nmax_high_issues = 1.5\n".into(), "max_high_issues"),
        ("[judge]\nstall_rounds = -1\n".into(), "stall_rounds"),
        (
            "[judge]\nweights = { security = 0.5, quality = 0.5 }\n".into(),
            "performance",
        ),
        (
            "[judge]\nweights = { security = \"1\", quality = 0, performance = 0 }\n".into(),
            "weights",
        ),
        ("retry = []\n".into(), "retry"),
        ("[retry]\nmax_retries = \"3\"\n".into(), "max_retries"),
        ("[retry]\nretries = 3\n".into(), "retries"),
        ("fix = { name = \"f\" }\n".into(), "fix"),
        ("[[fix]]\nname = \"f\"\n".into(), "run"),
        (format!("{FIX}timeout = 5\n"), "timeout"),
        (format!("{FIX}modes = [\"fast\"]\n"), "modes"),
        (format!("{FIX}env = {{ A = [] }}\n"), "env"),
    ];
    let schema = schema("checks");
    for (text, key) in cases {
        let run = Test::bare()
            .config(&text)
            .args(&["validate"])
            .run()
            .status(2);
        assert!(run.stderr.contains(key), "{text}\n{}", run.stderr);
        assert_invalid(&schema, &toml::from_str(&text).unwrap(), &text);
    }
}
