//! The result cache (docs/cache.md), by mutation: a check that counts its
//! runs in a file outside the worktree runs once, then hits; each single
//! change of what its key holds makes it run again, and a change outside
//! its inputs does not. Only clean passes are stored; `--no-cache`, strict
//! mode without `--cache`, and a damaged or forged entry never give a hit.
//! The store lives in a temp folder (`XDG_CACHE_HOME`).

#![cfg(unix)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tempfile::TempDir;

use crate::support::{Test, check, git};

/// A temp worktree whose checks count their runs in `side/counter-NAME`,
/// with the store in `side/cache`.
struct Case {
    test: Option<Test>,
    side: TempDir,
}

/// `count.sh NAME [EXIT]`: appends a line to the counter of NAME, prints a
/// gcc-style diagnostic when it fails, exits EXIT (default 0).
const COUNT: &str = "#!/bin/sh\necho run >> \"$COUNTERS/counter-$1\"\nif [ \"${2:-0}\" != 0 ]; then echo 'src/a.rs:1:1: error: broken'; fi\nexit \"${2:-0}\"\n";

impl Case {
    /// A committed repository with src/a.rs, README.md, count.sh and
    /// version.sh, and `config` as checks.toml.
    fn new(config: &str) -> Case {
        let side = tempfile::Builder::new()
            .prefix("run-check-cache-")
            .tempdir()
            .expect("tempdir");
        std::fs::write(side.path().join("version.txt"), "tool 1.0\n").expect("version");
        let version = format!(
            "#!/bin/sh\ncat '{}'\n",
            side.path().join("version.txt").display()
        );
        let test = Test::new()
            .config(config)
            .file("src/a.rs", "fn a() {}\n")
            .file("README.md", "# readme\n")
            .file(".gitignore", "ev.json\n")
            .script("count.sh", COUNT)
            .script("version.sh", &version)
            .env(
                "XDG_CACHE_HOME",
                &side.path().join("cache").display().to_string(),
            )
            .env("COUNTERS", &side.path().display().to_string());
        git(test.path(), &["add", "."]);
        git(test.path(), &["commit", "-q", "-m", "base"]);
        Case {
            test: Some(test),
            side,
        }
    }

    fn path(&self) -> &Path {
        self.test.as_ref().expect("test").path()
    }

    fn cache_dir(&self) -> PathBuf {
        self.side.path().join("cache").join("run-check").join("v1")
    }

    /// How many times check `name` ran.
    fn runs(&self, name: &str) -> usize {
        std::fs::read_to_string(self.side.path().join(format!("counter-{name}")))
            .map_or(0, |text| text.lines().count())
    }

    /// Runs run-check with `args` (JSON evidence on stdout), expecting
    /// `code`; returns the evidence.
    #[track_caller]
    fn run(&mut self, args: &[&str], env: &[(&str, &str)], code: i32) -> Value {
        let mut test = self.test.take().expect("test").again();
        for (name, value) in env {
            test = test.env(name, value);
        }
        let run = test
            .args(&["--format", "json"])
            .args(args)
            .run()
            .status(code);
        let evidence = run.json_stdout();
        // The environment given here is for this run only.
        let mut test = run.test;
        if !env.is_empty() {
            test = rebuild_env(test, env.len());
        }
        self.test = Some(test);
        evidence
    }

    /// Writes a file of the worktree.
    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.path().join(path), text).expect("write");
    }

    /// Runs `run-check ARGS` in the worktree (not a check run); its stdout.
    #[track_caller]
    fn command(&mut self, args: &[&str]) -> String {
        let test = self.test.take().expect("test").again();
        let output = test.command().args(args).output().expect("spawn");
        self.test = Some(test);
        assert!(
            output.status.success(),
            "run-check {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

/// `test` without its last `n` environment variables.
fn rebuild_env(test: Test, n: usize) -> Test {
    test.drop_env(n)
}

/// The cache field of check `name`.
fn cache_of<'a>(evidence: &'a Value, name: &str) -> &'a Value {
    &check(evidence, name)["cache"]
}

const COUNTER: &str = r#"
[settings]
allow = ["./count.sh", "./version.sh"]

[[check]]
name = "counted"
run = ["./count.sh", "counted"]
modes = ["fast", "strict"]
cache = true
inputs = ["src/**"]
env_keys = ["CACHE_TEST_FLAG"]
version = ["./version.sh"]
timeout = "10s"
parser = "none"
env = { SETTING = "1" }
"#;

#[test]
fn a_passing_check_runs_once_then_hits() {
    let mut case = Case::new(COUNTER);
    let first = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 1);
    let cache = cache_of(&first, "counted");
    assert_eq!(cache["status"], "miss", "{cache}");
    let key = cache["key"].as_str().expect("key").to_string();
    assert_eq!(key.len(), 64);

    let second = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 1, "a hit does not run the check");
    let entry = check(&second, "counted");
    assert_eq!(entry["status"], "pass");
    let cache = &entry["cache"];
    assert_eq!(cache["status"], "hit", "{cache}");
    assert_eq!(cache["key"], key.as_str());
    assert_eq!(cache["source"], "local");
    let head = git(case.path(), &["rev-parse", "HEAD"]);
    assert_eq!(cache["stored_by"]["commit"], head.trim());
    assert!(
        cache["stored_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert_eq!(
        cache["duration_ms"],
        check(&first, "counted")["duration_ms"],
        "the duration of the run that stored it"
    );
    assert_eq!(entry["attempts"], 0, "it did not start in this run");
    assert_eq!(second["summary"]["exit_code"], 0);
    assert!(second["meta"]["commands"].as_array().unwrap().is_empty());
    // Both documents are evidence every reader takes: the schema, and the
    // judge, `merge` and `report` read a hit as the pass it stored.
    let schema = crate::support::schema("evidence");
    let validator = jsonschema::validator_for(&schema).expect("schema");
    for evidence in [&first, &second] {
        let errors: Vec<String> = validator
            .iter_errors(evidence)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    let file = case.side.path().join("hit.json");
    std::fs::write(&file, serde_json::to_vec(&second).unwrap()).unwrap();
    let file = file.display().to_string();
    let verdict: Value = serde_json::from_str(&case.command(&["judge", &file])).unwrap();
    assert_eq!(verdict["decision"]["decision"], "PASS", "{verdict}");
    let merged = case.side.path().join("merged.json").display().to_string();
    case.command(&["merge", &file, "--out", &merged]);
    let merged: Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
    assert_eq!(cache_of(&merged, "counted")["status"], "hit");
    let markdown = case.command(&["report", &file, "--format", "markdown"]);
    assert!(markdown.contains("CACHED (local"), "{markdown}");
    let html = case.command(&["report", &file, "--format", "html"]);
    assert!(html.contains("CACHED (local"), "html");

    // The key `cache key` prints is the run's, and lists each input.
    let printed: Value = serde_json::from_str(&case.command(&["cache", "key", "counted"])).unwrap();
    assert_eq!(printed["key"], key.as_str());
    let inputs = printed["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1, "{inputs:?}");
    // The document holds the list by its sha256: the list printed beside
    // it is the one hashed, written canonically.
    let listed = serde_json::to_vec(&printed["inputs"]).unwrap();
    assert_eq!(printed["document"]["inputs"]["files"], 1);
    assert_eq!(
        printed["document"]["inputs"]["sha256"],
        hex(&Sha256::digest(&listed))
    );
    assert_eq!(inputs[0]["path"], "src/a.rs");
    assert_eq!(inputs[0]["mode"], "100644");
    let blob = git(case.path(), &["rev-parse", "HEAD:src/a.rs"]);
    assert_eq!(
        inputs[0]["hash"],
        blob.trim(),
        "a clean file is its blob id"
    );
    assert_eq!(printed["document"]["version"]["stdout"], "tool 1.0\n");
    assert!(
        !case.command(&["cache", "key", "counted"]).contains("\"1\""),
        "env values are hashed, not printed"
    );
}

/// One change of what the key holds, made after the check was stored.
type Mutation = (
    &'static str,
    fn(&mut Case) -> Vec<(&'static str, &'static str)>,
);

#[test]
fn each_change_of_the_key_runs_the_check_again() {
    let mutations: [Mutation; 10] = [
        ("an input file's content", |c| {
            c.write("src/a.rs", "fn a() { }\n");
            vec![]
        }),
        ("a new untracked input", |c| {
            c.write("src/new.rs", "fn new() {}\n");
            vec![]
        }),
        ("a tracked file's mode", |c| {
            use std::os::unix::fs::PermissionsExt;
            let path = c.path().join("src/a.rs");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            vec![]
        }),
        ("an env_keys value", |_| vec![("CACHE_TEST_FLAG", "2")]),
        ("the check's run", |c| {
            let config = COUNTER.replace(
                r#"run = ["./count.sh", "counted"]"#,
                r#"run = ["./count.sh", "counted", "0"]"#,
            );
            c.write("checks.toml", &config);
            vec![]
        }),
        ("the check's env", |c| {
            c.write(
                "checks.toml",
                &COUNTER.replace(r#"SETTING = "1""#, r#"SETTING = "2""#),
            );
            vec![]
        }),
        ("the check's timeout", |c| {
            c.write(
                "checks.toml",
                &COUNTER.replace(r#"timeout = "10s""#, r#"timeout = "11s""#),
            );
            vec![]
        }),
        ("the check's parser", |c| {
            c.write(
                "checks.toml",
                &COUNTER.replace(r#"parser = "none""#, r#"parser = "gcc""#),
            );
            vec![]
        }),
        ("the program file's content", |c| {
            c.write("count.sh", &format!("{COUNT}# changed\n"));
            vec![]
        }),
        ("the version output", |c| {
            std::fs::write(c.side.path().join("version.txt"), "tool 1.1\n").unwrap();
            vec![]
        }),
    ];
    for (what, mutate) in mutations {
        let mut case = Case::new(COUNTER);
        let flag = [("CACHE_TEST_FLAG", "1")];
        case.run(&["--mode", "fast"], &flag, 0);
        case.run(&["--mode", "fast"], &flag, 0);
        assert_eq!(case.runs("counted"), 1, "{what}: stored, then a hit");
        let mut env = mutate(&mut case);
        if env.is_empty() {
            env = flag.to_vec();
        }
        let evidence = case.run(&["--mode", "fast"], &env, 0);
        assert_eq!(case.runs("counted"), 2, "{what}: must run again");
        assert_eq!(cache_of(&evidence, "counted")["status"], "miss", "{what}");
    }
}

#[test]
fn a_change_outside_the_inputs_still_hits() {
    let mut case = Case::new(COUNTER);
    case.run(&["--mode", "fast"], &[], 0);
    case.write("README.md", "# changed\n");
    case.write("notes.txt", "untracked, not an input\n");
    let evidence = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 1);
    assert_eq!(cache_of(&evidence, "counted")["status"], "hit");
    // Committing the input keeps its key: a dirty file is keyed by the
    // blob id a commit gives it.
    case.write("src/a.rs", "fn a() { 1 }\n");
    case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 2);
    git(case.path(), &["commit", "-qam", "edit"]);
    let evidence = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 2, "a commit of the same content hits");
    assert_eq!(cache_of(&evidence, "counted")["status"], "hit");
}

#[test]
fn only_clean_passes_are_stored() {
    let config = r#"
[settings]
allow = ["./count.sh", "./slow.sh", "./flaky.sh"]

[[check]]
name = "failing"
run = ["./count.sh", "failing", "1"]
modes = ["fast", "strict"]
parser = "gcc"
cache = true

[[check]]
name = "slow"
run = ["./slow.sh"]
modes = ["fast", "strict"]
timeout = "300ms"
cache = true

[[check]]
name = "flaky"
run = ["./flaky.sh"]
modes = ["fast", "strict"]
retries = 1
cache = true
"#;
    let mut case = Case::new(config);
    let slow = "#!/bin/sh\necho run >> \"$COUNTERS/counter-slow\"\nexec sleep 5\n";
    // Fails when its counter has an odd number of lines: every run fails
    // once, then passes on its retry.
    let flaky = "#!/bin/sh\necho run >> \"$COUNTERS/counter-flaky\"\n[ $(wc -l < \"$COUNTERS/counter-flaky\") -gt $(( $(wc -l < \"$COUNTERS/counter-flaky\") / 2 * 2 )) ] && exit 1\nexit 0\n";
    case.write("slow.sh", slow);
    case.write("flaky.sh", flaky);
    for script in ["slow.sh", "flaky.sh"] {
        use std::os::unix::fs::PermissionsExt;
        let path = case.path().join(script);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    git(case.path(), &["add", "."]);
    git(case.path(), &["commit", "-qm", "scripts"]);
    let first = case.run(&["--mode", "fast", "--no-fail-fast"], &[], 1);
    assert_eq!(check(&first, "failing")["status"], "fail");
    assert_eq!(check(&first, "slow")["timed_out"], true);
    assert_eq!(check(&first, "flaky")["flaky"], true);
    assert_eq!(check(&first, "flaky")["status"], "pass");
    let second = case.run(&["--mode", "fast", "--no-fail-fast"], &[], 1);
    for name in ["failing", "slow", "flaky"] {
        assert_eq!(cache_of(&second, name)["status"], "miss", "{name}");
    }
    assert_eq!(case.runs("failing"), 2);
    assert_eq!(case.runs("slow"), 2);
    assert_eq!(case.runs("flaky"), 4, "two attempts per run");

    // A failure the baseline knows passes, and is not stored either.
    let baseline = case.side.path().join("baseline.json");
    std::fs::write(&baseline, serde_json::to_vec(&first).unwrap()).unwrap();
    let baseline = baseline.display().to_string();
    let args = [
        "--mode",
        "fast",
        "--only",
        "failing",
        "--baseline",
        &baseline,
    ];
    let suppressed = case.run(&args, &[], 0);
    assert_eq!(check(&suppressed, "failing")["status"], "pass");
    assert_eq!(check(&suppressed, "failing")["baseline_suppressed"], 1);
    let again = case.run(&args, &[], 0);
    assert_eq!(cache_of(&again, "failing")["status"], "miss");
    assert_eq!(case.runs("failing"), 4);
    assert!(
        !case.cache_dir().join("ac").exists()
            || std::fs::read_dir(case.cache_dir().join("ac"))
                .unwrap()
                .count()
                == 0,
        "nothing was stored"
    );
}

#[test]
fn no_cache_runs_everything_and_strict_mode_reads_only_with_cache() {
    let mut case = Case::new(COUNTER);
    case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 1);

    let off = case.run(&["--mode", "fast", "--no-cache"], &[], 0);
    assert_eq!(case.runs("counted"), 2);
    assert_eq!(
        cache_of(&off, "counted"),
        &serde_json::json!({"status": "off"})
    );

    let strict = case.run(&[], &[], 0);
    assert_eq!(
        case.runs("counted"),
        3,
        "strict mode does not read the local store"
    );
    assert_eq!(cache_of(&strict, "counted")["status"], "miss");

    let cached = case.run(&["--cache"], &[], 0);
    assert_eq!(case.runs("counted"), 3, "--cache reads it in strict mode");
    assert_eq!(cache_of(&cached, "counted")["status"], "hit");
    assert_eq!(cached["contracts"]["read_only"]["verified"], true);
}

/// The store's files: (pointer, blob) of the one entry stored.
fn only_entry(case: &Case) -> (PathBuf, PathBuf) {
    let ac: Vec<PathBuf> = std::fs::read_dir(case.cache_dir().join("ac"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(ac.len(), 1, "{ac:?}");
    let digest = std::fs::read_to_string(&ac[0]).unwrap();
    let blob = case.cache_dir().join("cas").join(digest.trim());
    assert!(blob.is_file());
    (ac[0].clone(), blob)
}

#[test]
fn a_damaged_entry_is_a_miss() {
    let mut case = Case::new(COUNTER);
    case.run(&["--mode", "fast"], &[], 0);
    let (pointer, blob) = only_entry(&case);
    let whole = std::fs::read(&blob).unwrap();

    // Truncated: its sha256 is no longer its name.
    std::fs::write(&blob, &whole[..whole.len() / 2]).unwrap();
    let evidence = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 2);
    assert_eq!(cache_of(&evidence, "counted")["status"], "miss");

    // The run stored it again; now the pointer is garbage.
    let (pointer2, _) = only_entry(&case);
    assert_eq!(pointer, pointer2);
    std::fs::write(&pointer, "not a digest\n").unwrap();
    case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 3);

    // An edited blob renamed to its new sha256: valid JSON, the right
    // hash, but it no longer says `pass`.
    let (pointer, blob) = only_entry(&case);
    let mut entry: Value = serde_json::from_slice(&std::fs::read(&blob).unwrap()).unwrap();
    entry["check"]["status"] = "fail".into();
    entry["check"]["exit_code"] = 1.into();
    plant(&case, &pointer, &entry);
    case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 4);

    // Not JSON at all, under its own sha256.
    let garbage = b"\x00\xff garbage";
    let digest = hex(&Sha256::digest(garbage));
    std::fs::write(case.cache_dir().join("cas").join(&digest), garbage).unwrap();
    std::fs::write(&pointer, format!("{digest}\n")).unwrap();
    let evidence = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 5);
    assert_eq!(cache_of(&evidence, "counted")["status"], "miss");
}

/// Writes `entry` as a blob under its sha256 and points `pointer` at it,
/// as a forger with write access to the store would.
fn plant(case: &Case, pointer: &Path, entry: &Value) {
    let bytes = serde_json::to_vec(entry).unwrap();
    let digest = hex(&Sha256::digest(&bytes));
    std::fs::write(case.cache_dir().join("cas").join(&digest), &bytes).unwrap();
    std::fs::write(pointer, format!("{digest}\n")).unwrap();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_forged_entry_does_not_turn_a_strict_gate_green() {
    // `victim` fails; `good` passes and is stored. A forger copies good's
    // pass under victim's key.
    let config = r#"
[settings]
allow = ["./count.sh"]

[[check]]
name = "good"
run = ["./count.sh", "good"]
modes = ["fast", "strict"]
cache = true

[[check]]
name = "victim"
run = ["./count.sh", "victim", "1"]
modes = ["fast", "strict"]
cache = true
"#;
    let mut case = Case::new(config);
    case.run(&["--no-fail-fast", "--mode", "fast"], &[], 1);
    let (good_pointer, good_blob) = only_entry(&case);
    let victim: Value = serde_json::from_str(&case.command(&["cache", "key", "victim"])).unwrap();
    let victim_key = victim["key"].as_str().unwrap();
    let victim_pointer = case.cache_dir().join("ac").join(victim_key);

    // Replayed: good's own blob under victim's key names the wrong key
    // and check, so it is a miss even in fast mode.
    std::fs::copy(&good_pointer, &victim_pointer).unwrap();
    let replayed = case.run(&["--no-fail-fast", "--mode", "fast"], &[], 1);
    assert_eq!(check(&replayed, "victim")["status"], "fail");
    assert_eq!(case.runs("victim"), 2);

    // Forged whole (the right key, name and hash, written by something
    // that runs as the user): strict mode does not read the local store.
    let mut forged: Value = serde_json::from_slice(&std::fs::read(&good_blob).unwrap()).unwrap();
    forged["key"] = victim_key.into();
    forged["check"]["name"] = "victim".into();
    forged["check"]["command"] = serde_json::json!(["./count.sh", "victim", "1"]);
    plant(&case, &victim_pointer, &forged);
    let strict = case.run(&[], &[], 1);
    assert_eq!(check(&strict, "victim")["status"], "fail");
    assert_eq!(cache_of(&strict, "victim")["status"], "miss");
    assert_eq!(case.runs("victim"), 3);
    // Fast mode trusts the local store, as it trusts the worktree
    // (docs/THREAT_MODEL.md, "Result cache"): the forgery is a hit there.
    let fast = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(cache_of(&fast, "victim")["status"], "hit");
    assert_eq!(case.runs("victim"), 3);
}

#[test]
fn stats_clean_and_a_run_without_cached_checks() {
    let mut case = Case::new(COUNTER);
    case.run(&["--mode", "fast"], &[], 0);
    let stats: Value = serde_json::from_str(&case.command(&["cache", "stats"])).unwrap();
    assert_eq!(stats["entries"], 1);
    assert_eq!(stats["blobs"], 1);
    assert!(stats["bytes"].as_u64().unwrap() > 0);
    assert!(
        stats["dir"]
            .as_str()
            .unwrap()
            .starts_with(&case.side.path().display().to_string())
    );
    case.command(&["cache", "clean"]);
    let stats: Value = serde_json::from_str(&case.command(&["cache", "stats"])).unwrap();
    assert_eq!(stats["entries"], 0);
    case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(case.runs("counted"), 2, "an emptied store is a miss");

    // A run whose checks are not cached never touches the store.
    let mut plain = Case::new(
        "[settings]\nallow = [\"./count.sh\"]\n\n[[check]]\nname = \"plain\"\nrun = [\"./count.sh\", \"plain\"]\nmodes = [\"fast\", \"strict\"]\n",
    );
    let evidence = plain.run(&["--mode", "fast"], &[], 0);
    assert_eq!(
        cache_of(&evidence, "plain"),
        &serde_json::json!({"status": "off"})
    );
    plain.run(&[], &[], 0);
    assert!(
        !plain.side.path().join("cache").exists(),
        "no store was made"
    );
}

#[test]
fn the_text_report_shows_a_hit_as_cached() {
    let mut case = Case::new(COUNTER);
    case.run(&["--mode", "fast"], &[], 0);
    let test = case.test.take().unwrap().again();
    let run = test.args(&["--mode", "fast"]).run().success();
    assert!(run.stdout.contains("CACHED"), "{}", run.stdout);
    assert!(run.stdout.contains("local"), "{}", run.stdout);
}

#[test]
fn concurrent_runs_share_the_store() {
    let mut case = Case::new(COUNTER);
    let test = case
        .test
        .take()
        .unwrap()
        .again()
        .args(&["--mode", "fast", "--format", "json"]);
    let children: Vec<std::process::Child> = (0..3)
        .map(|_| test.command().spawn().expect("spawn"))
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("wait");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    case.test = Some(test);
    let ran = case.runs("counted");
    assert!((1..=3).contains(&ran), "{ran}");
    let evidence = case.run(&["--mode", "fast"], &[], 0);
    assert_eq!(cache_of(&evidence, "counted")["status"], "hit");
    assert_eq!(
        case.runs("counted"),
        ran,
        "the entry any of them stored is whole"
    );
}

#[test]
fn validate_notes_that_strict_mode_reads_the_store_only_with_cache() {
    let run = Test::new()
        .config(COUNTER)
        .args(&["validate"])
        .run()
        .success();
    assert_eq!(
        run.stderr_lines(),
        [
            "warning: check `counted`: program `./count.sh` not found in the worktree",
            "note: `cache = true` (`counted`): strict mode, the default, reads the local store \
             only with `--cache` (a fast run reads it always; docs/cache.md)"
        ]
    );
    // Without a cached check, no note.
    let plain = Test::new()
        .config("[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"t\"\nrun = [\"true\"]\n")
        .args(&["validate"])
        .run()
        .success();
    assert_eq!(plain.stderr, "");
}
