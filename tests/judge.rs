//! `run-check judge` (docs/judge.md) through the real binary: evidence from
//! real check runs judged over recorded rounds (iteration, trend, stall,
//! PASS), aggregator input, markdown, decisions, config lookup, concurrent
//! `--record`, and bad input (exit 2, one stderr line naming the file and
//! the JSON path or history line). Every verdict printed is validated
//! against `run-check schema verdict`.
//!
//! Evidence and history live in `runs/`, ignored by git: strict mode
//! verifies the checks leave the worktree unchanged, and the checks read
//! their exit codes from `runs/` so that each round can differ.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use run_check::testing::complete;

use crate::support::{Test, bin, git};

/// Four checks, one per concern: `audit` (security, critical) and `lint`
/// (quality, medium) exit with the number in `runs/audit` / `runs/lint`.
const CONFIG: &str = r#"[settings]
allow = ["sh", "true", "false"]

[[check]]
name = "audit"
run = ["sh", "-c", "exit $(cat runs/audit)"]
dimension = "security"
severity = "critical"

[[check]]
name = "unit"
run = ["true"]

[[check]]
name = "lint"
run = ["sh", "-c", "exit $(cat runs/lint)"]
severity = "medium"

[[check]]
name = "bench"
run = ["true"]
dimension = "performance"
"#;

/// A committed repository with `config` and `runs/` ignored.
fn repo(config: &str) -> Test {
    let test = Test::new()
        .config(config)
        .file(".gitignore", "runs/\n")
        .file("runs/.keep", "");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test
}

/// What one command printed.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}\n{}", self.stdout, self.stderr))
    }

    #[track_caller]
    fn status(self, code: i32) -> Ran {
        assert_eq!(
            self.code,
            Some(code),
            "--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

fn output(output: Output) -> Ran {
    Ran {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs run-check with `args` in `dir`.
fn run_check(dir: &Path, args: &[&str]) -> Ran {
    output(
        Command::new(bin())
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .expect("spawn run-check"),
    )
}

/// `run-check judge ARGS` in `dir`; a printed JSON verdict is checked against
/// the verdict schema.
fn judge(dir: &Path, args: &[&str]) -> Ran {
    let mut all = vec!["judge"];
    all.extend_from_slice(args);
    let ran = run_check(dir, &all);
    if ran.code != Some(2) && !args.contains(&"markdown") {
        assert_schema_valid(&ran.json());
    }
    ran
}

#[track_caller]
fn assert_schema_valid(verdict: &Value) {
    let validator = jsonschema::draft202012::new(&crate::support::schema("verdict"))
        .expect("the verdict schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(verdict)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{verdict:#}\n{errors:#?}");
    // The verdict's type reads what the judge wrote, and writes it back.
    let read: run_check_documents::verdict::Verdict =
        serde_json::from_value(verdict.clone()).expect("the verdict type reads a verdict");
    assert_eq!(&serde_json::to_value(read).unwrap(), verdict);
}

/// Sets the exit codes of `audit` and `lint`, runs the checks into
/// `runs/<out>.json` and returns run-check's exit code.
fn round(dir: &Path, audit: i32, lint: i32, out: &str) -> Option<i32> {
    std::fs::write(dir.join("runs/audit"), audit.to_string()).unwrap();
    std::fs::write(dir.join("runs/lint"), lint.to_string()).unwrap();
    let path = format!("runs/{out}.json");
    run_check(dir, &["--quiet", "--format", "json", "--out", &path]).code
}

/// Writes `value` as JSON to `path` in `dir`.
fn write_json(dir: &Path, path: &str, value: &Value) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// The reference judge's input example.
fn aggregator_example() -> Value {
    json!({
        "iteration": 1,
        "tech_stack": {
            "language": "Python",
            "framework": "FastAPI",
            "quality_thresholds": {"security_min": 85, "max_high_issues": 2},
            "weights": {"security": 0.4, "quality": 0.35, "performance": 0.25}
        },
        "security_result": {"passed": false, "score": 75, "issues": [{
            "severity": "Critical", "type": "SQL_INJECTION", "file": "src/db.py", "line": 42,
            "description": "string-built SQL query",
            "suggestion": "cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))",
            "tech_stack_hint": "use SQLAlchemy"
        }]},
        "quality_result": {"passed": true, "score": 85, "issues": [
            {"severity": "High", "type": "NO_TYPES", "file": "src/api.py", "line": 7,
             "description": "untyped handler"},
            {"severity": "Medium", "type": "LONG_FN", "file": "src/api.py", "line": 90,
             "description": "function too long"}
        ]},
        "performance_result": {"passed": true, "score": 90, "issues": []},
        "previous_scores": [65, 72]
    })
}

#[test]
fn evidence_rounds_iterate_stall_and_pass_with_a_recorded_history() {
    let test = repo(CONFIG);
    let dir = test.path();
    let history = ["runs/h.jsonl", "--record"];
    let judge_round = |ev: &str| {
        let mut args = vec![ev, "--history"];
        args.extend_from_slice(&history);
        judge(dir, &args)
    };

    // Round 1: audit and lint fail. security 0, quality (100 + 0) / 2 = 50,
    // performance 100: overall 0*0.4 + 50*0.35 + 100*0.25 = 42.5.
    assert_eq!(round(dir, 1, 1, "ev1"), Some(1));
    let v = judge_round("runs/ev1.json").status(1).json();
    assert_eq!(v["iteration"], 1);
    assert_eq!(
        v["scores"],
        json!({"security": 0.0, "quality": 50.0, "performance": 100.0})
    );
    assert_eq!(v["overall_score"], 42.5);
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(v["progress"]["trend"], "first");
    assert_eq!(
        v["issue_counts"],
        json!({"critical": 1, "high": 0, "medium": 1, "low": 0})
    );
    assert_eq!(v["issues"]["critical"][0]["id"], "SEC-001");
    assert_eq!(
        v["issues"]["critical"][0]["fingerprint"],
        "audit:unknown:unknown"
    );
    assert_eq!(v["issues"]["medium"][0]["id"], "QA-001");
    assert_eq!(
        v["feedback_for_code_writer"]["priority_order"],
        json!(["SEC-001", "QA-001"])
    );
    assert_eq!(
        v["next_action"],
        "Fix SEC-001 (Critical) and run the checks again"
    );
    assert_eq!(v["decision"]["decision"], "REWORK");
    assert_eq!(v["decision"]["next_agent"], "IMPLEMENTER");

    // Round 2: audit fixed: 100*0.4 + 50*0.35 + 100*0.25 = 82.5 (+40, improving);
    // quality 50 < 80 still fails.
    assert_eq!(round(dir, 0, 1, "ev2"), Some(1));
    let v = judge_round("runs/ev2.json").status(1).json();
    assert_eq!(v["iteration"], 2);
    assert_eq!(v["overall_score"], 82.5);
    assert_eq!(
        v["progress"],
        json!({
            "previous_score": 42.5, "current_score": 82.5, "improvement": 40.0,
            "trend": "improving", "stall_warning": false, "stall_type": null,
            "persistent_issues": ["QA-001"], "oscillation_detected": false,
            "regression_detected": false, "regressions": [], "failed_dimensions": ["quality"]
        })
    );
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(
        v["feedback_for_code_writer"]["summary"],
        "to pass: raise quality from 50 to 80"
    );

    // Round 3: unchanged: +0 is stable with a stall warning, but one flat
    // round is not yet a stall (stall_rounds 2).
    assert_eq!(round(dir, 0, 1, "ev3"), Some(1));
    let v = judge_round("runs/ev3.json").status(1).json();
    assert_eq!(v["iteration"], 3);
    assert_eq!(v["progress"]["trend"], "stable");
    assert_eq!(v["progress"]["stall_warning"], true);
    assert_eq!(v["recommendation"], "ITERATE");

    // Round 4: a second flat round: STALLED_SCORE.
    assert_eq!(round(dir, 0, 1, "ev4"), Some(1));
    let v = judge_round("runs/ev4.json").status(1).json();
    assert_eq!(v["iteration"], 4);
    assert_eq!(v["recommendation"], "STALLED");
    assert_eq!(v["progress"]["stall_type"], "STALLED_SCORE");

    // Without --record nothing is appended: judging again is still round 5.
    let v = judge(dir, &["runs/ev4.json", "--history", "runs/h.jsonl"])
        .status(1)
        .json();
    assert_eq!(v["iteration"], 5);
    assert_eq!(
        v["recommendation"], "FAIL_MAX_ITERATIONS",
        "iteration == max_iterations"
    );

    // Round 5 (the last allowed): everything passes; PASS takes precedence
    // over FAIL_MAX_ITERATIONS; exit 0.
    assert_eq!(round(dir, 0, 0, "ev5"), Some(0));
    let v = judge_round("runs/ev5.json").status(0).json();
    assert_eq!(v["iteration"], 5);
    assert_eq!(v["passed"], true);
    assert_eq!(v["overall_score"], 100.0);
    assert_eq!(v["recommendation"], "PASS");
    assert_eq!(v["progress"]["improvement"], 17.5);
    assert_eq!(v["decision"]["decision"], "PASS");
    assert_eq!(v["decision"]["next_agent"], "FINISH");
    assert_eq!(
        v["feedback_for_code_writer"]["iteration_budget"],
        json!({"current": 5, "max": 5, "remaining": 0})
    );

    // The history holds the 5 recorded verdicts, one per line, each valid.
    let text = std::fs::read_to_string(dir.join("runs/h.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 5);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["iteration"], i + 1);
        assert_schema_valid(line);
    }
    assert_eq!(
        git(dir, &["status", "--porcelain"]),
        "",
        "judge wrote only in runs/"
    );
}

#[test]
fn fail_max_iterations_from_the_config_the_evidence_was_made_with() {
    let test = repo(&format!("{CONFIG}\n[judge]\nmax_iterations = 2\n"));
    let dir = test.path();
    assert_eq!(round(dir, 1, 0, "ev"), Some(1));
    let args = ["runs/ev.json", "--history", "runs/h.jsonl", "--record"];
    let v = judge(dir, &args).status(1).json();
    assert_eq!(
        (v["iteration"].clone(), v["recommendation"].clone()),
        (json!(1), json!("ITERATE"))
    );
    assert_eq!(v["thresholds_used"]["max_iterations"], 2);
    let v = judge(dir, &args).status(1).json();
    assert_eq!(v["iteration"], 2);
    assert_eq!(v["recommendation"], "FAIL_MAX_ITERATIONS");
    assert_eq!(v["route"]["next"], "USER");
    assert_eq!(v["decision"]["next_agent"], "USER");
    assert_eq!(v["next_action"], v["route"]["action"]);
    assert!(
        v["next_action"].as_str().unwrap().starts_with(
            "Ask a person to decide how to go on (more iterations, a smaller task, or stop): \
             iteration 2 of 2 did not pass"
        ),
        "{}",
        v["next_action"]
    );
    // The same evidence judged from another folder reads the same config:
    // the one it names, not the current directory's.
    let elsewhere = Test::bare().config("[judge]\nmax_iterations = 9\n");
    let evidence = dir.join("runs/ev.json");
    let v = judge(elsewhere.path(), &[evidence.to_str().unwrap()])
        .status(1)
        .json();
    assert_eq!(v["thresholds_used"]["max_iterations"], 2);
    assert_eq!(
        v["config_used"]["path"],
        dir.join("checks.toml").display().to_string()
    );
}

#[test]
fn config_lookup_explicit_recorded_and_defaults() {
    // Evidence that names no config that exists: the judge's defaults
    // (docs/cli.md: judge needs no checks.toml), whatever the current
    // directory holds.
    let ev = complete(&json!({"checks": [{"name": "a", "status": "pass"}], "diagnostics": []}));
    let test = Test::bare().config("[judge]\nquality_min = 90\n");
    write_json(test.path(), "ev.json", &ev);
    let v = judge(test.path(), &["ev.json"]).status(0).json();
    assert_eq!(
        v["thresholds_used"],
        json!({"security_min": 85.0, "quality_min": 80.0, "performance_min": 80.0,
               "overall_min": 80.0, "max_critical_issues": 0, "max_high_issues": 2,
               "max_iterations": 5, "stall_threshold": 5.0, "stall_rounds": 2})
    );
    assert_eq!(v["config_used"], Value::Null);
    // Only quality was scored: it carries the whole weight.
    assert_eq!(
        v["weights_used"],
        json!({"security": 0.0, "quality": 1.0, "performance": 0.0})
    );

    // Evidence of a real run: its config (the recorded sha256) applies,
    // from any directory.
    let test = repo(&format!("{CONFIG}\n[judge]\nquality_min = 90\n"))
        .file("other.toml", "[judge]\nquality_min = 95\n")
        .file("bad.toml", "[judge]\nquality_mn = 90\n");
    let dir = test.path();
    assert_eq!(round(dir, 0, 0, "ev"), Some(0));
    let v = judge(dir, &["runs/ev.json"]).status(0).json();
    assert_eq!(v["thresholds_used"]["quality_min"], 90.0);
    let sha = run_check_documents::read::from_slice::<Value>(
        &std::fs::read(dir.join("runs/ev.json")).unwrap(),
    )
    .unwrap()["meta"]["config"]["sha256"]
        .clone();
    assert_eq!(
        v["config_used"],
        json!({"path": dir.join("checks.toml").display().to_string(), "sha256": sha})
    );
    // ... unless --config names another file.
    let v = judge(dir, &["runs/ev.json", "--config", "other.toml"])
        .status(0)
        .json();
    assert_eq!(v["thresholds_used"]["quality_min"], 95.0);
    assert_eq!(v["config_used"]["path"], "other.toml");
    // A config edited since the run is not the one it was made with: the
    // defaults, not the edited thresholds.
    std::fs::write(
        dir.join("checks.toml"),
        format!("{CONFIG}\n[judge]\nquality_min = 10\n"),
    )
    .unwrap();
    let v = judge(dir, &["runs/ev.json"]).status(0).json();
    assert_eq!(v["thresholds_used"]["quality_min"], 80.0);
    assert_eq!(v["config_used"], Value::Null);
    // A broken --config is an error, not ignored.
    let ran = judge(dir, &["runs/ev.json", "--config", "bad.toml"]).status(2);
    assert!(ran.stderr.starts_with("error: bad.toml:"), "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    let ran = judge(dir, &["runs/ev.json", "--config", "missing.toml"]).status(2);
    assert_eq!(
        ran.stderr,
        "error: missing.toml: no such file (named by --config)\n"
    );
}

#[test]
fn aggregator_input_is_taken_as_given() {
    let test = Test::bare();
    write_json(test.path(), "in.json", &aggregator_example());
    let v = judge(test.path(), &["in.json"]).status(1).json();
    // 75*0.4 + 85*0.35 + 90*0.25 = 30 + 29.75 + 22.5 = 82.25; security 75 < 85.
    assert_eq!(v["iteration"], 1, "the input's iteration field");
    assert_eq!(v["overall_score"], 82.25);
    assert_eq!(
        v["scores"],
        json!({"security": 75.0, "quality": 85.0, "performance": 90.0})
    );
    assert_eq!(v["passed"], false);
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(
        v["issue_counts"],
        json!({"critical": 1, "high": 1, "medium": 1, "low": 0})
    );
    assert_eq!(
        v["issues"]["critical"][0],
        json!({
            "id": "SEC-001", "source": "security-reviewer", "severity": "Critical",
            "type": "SQL_INJECTION", "file": "src/db.py", "line": 42,
            "description": "string-built SQL query",
            "suggestion": "cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))",
            "tech_stack_hint": "use SQLAlchemy", "fingerprint": "SQL_INJECTION:src/db.py:42"
        })
    );
    assert_eq!(v["issues"]["high"][0]["id"], "QA-001");
    assert_eq!(v["issues"]["medium"][0]["id"], "QA-002");
    assert_eq!(
        v["feedback_for_code_writer"]["must_fix"],
        json!([{"id": "SEC-001", "file": "src/db.py", "line": 42,
                "action": "Fix SQL_INJECTION: string-built SQL query",
                "code_hint": "cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))"}])
    );
    assert_eq!(
        v["feedback_for_code_writer"]["score_gap"],
        json!({"security": 10.0, "quality": 0.0, "performance": 0.0, "overall": 0.0})
    );
    // previous_scores [65, 72]: 72 -> 82.25 is +10.25.
    assert_eq!(v["progress"]["previous_score"], 72.0);
    assert_eq!(v["progress"]["improvement"], 10.25);
    assert_eq!(v["progress"]["trend"], "improving");
    assert_eq!(v["decision"]["decision"], "REWORK");
    assert_eq!(
        v["decision"]["reason"],
        "below the minimum: security; more critical issues than `max_critical_issues`; \
         `passed` false in security_result"
    );

    // Without `iteration`: len(previous_scores) + 1 = 3; the recorded rounds
    // follow previous_scores.
    let mut input = aggregator_example();
    input.as_object_mut().unwrap().remove("iteration");
    write_json(test.path(), "in.json", &input);
    let args = ["in.json", "--history", "h.jsonl", "--record"];
    let v = judge(test.path(), &args).status(1).json();
    assert_eq!(v["iteration"], 3);
    let v = judge(test.path(), &args).status(1).json();
    assert_eq!(v["iteration"], 4);
    assert_eq!(v["progress"]["previous_score"], 82.25, "the recorded round");
    assert_eq!(v["progress"]["trend"], "stable");
    // 72 -> 82.25 -> 82.25 -> 82.25: two flat improvements.
    let v = judge(test.path(), &args).status(1).json();
    assert_eq!(v["iteration"], 5);
    assert_eq!(v["recommendation"], "FAIL_MAX_ITERATIONS");

    // The same input read from stdin.
    let mut child = Command::new(bin())
        .args(["judge", "-"])
        .current_dir(test.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(aggregator_example().to_string().as_bytes())
        .unwrap();
    let ran = output(child.wait_with_output().unwrap()).status(1);
    assert_eq!(ran.json()["overall_score"], 82.25);
}

#[test]
fn aggregator_input_thresholds_and_weights_override_judge_key_by_key() {
    let test = Test::bare().config("[judge]\nsecurity_min = 70\noverall_min = 90\n");
    let mut input = aggregator_example();
    input["tech_stack"]["quality_thresholds"] =
        json!({"overall_min": 80, "max_critical_issues": 1, "max_high_issues": 1});
    input["tech_stack"]["weights"] = json!({"security": 0.2, "quality": 0.55});
    write_json(test.path(), "in.json", &input);
    let v = judge(test.path(), &["in.json", "--config", "checks.toml"])
        .status(0)
        .json();
    assert_eq!(v["thresholds_used"]["security_min"], 70.0, "[judge]");
    assert_eq!(
        v["thresholds_used"]["overall_min"], 80.0,
        "input over [judge]"
    );
    assert_eq!(v["thresholds_used"]["quality_min"], 80.0, "default");
    // 75*0.2 + 85*0.55 + 90*0.25 = 15 + 46.75 + 22.5 = 84.25
    assert_eq!(
        v["weights_used"],
        json!({"security": 0.2, "quality": 0.55, "performance": 0.25})
    );
    assert_eq!(v["overall_score"], 84.25);
    assert_eq!(v["recommendation"], "PASS");
}

#[test]
fn markdown_renders_the_feedback_layout() {
    let test = Test::bare();
    write_json(test.path(), "in.json", &aggregator_example());
    let ran = judge(test.path(), &["in.json", "--format", "markdown"]).status(1);
    let md = ran.stdout;
    let expected = "\
# Verdict: ITERATE (iteration 1/5)

To pass: fix 1 Critical issue (at most 0 allowed); raise security from 75 to 85

## Issues to fix

### Critical (must fix)
1. **[SQL_INJECTION]** - src/db.py:42 (SEC-001)
   - Problem: string-built SQL query
   - Fix: cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))
   - Hint: use SQLAlchemy

### High (should fix)
1. **[NO_TYPES]** - src/api.py:7 (QA-001)
   - Problem: untyped handler

### Medium (may fix)
1. **[LONG_FN]** - src/api.py:90 (QA-002)
   - Problem: function too long

## Current state
- Iteration: 1/5
- Overall score: 72 → 82.25 (+10.25) (improving)
- Security: 75, Quality: 85, Performance: 90
- Checks: REWORK (below the minimum: security; more critical issues than `max_critical_issues`; `passed` false in security_result)

## Next step
**IMPLEMENTER** (the implementer)

Fix SEC-001 (Critical), QA-001 (High) and run the checks again

Why: not passed yet, and no stall
";
    assert_eq!(md, expected);
}

#[test]
fn decisions_environment_and_infrastructure_from_real_runs() {
    let config = r#"[settings]
allow = ["sh", "no-such-program-zz"]

[[check]]
name = "slow"
run = ["sh", "-c", "sleep 5"]
timeout = "300ms"
"#;
    let test = repo(config);
    let dir = test.path();
    assert_eq!(
        run_check(
            dir,
            &["--quiet", "--format", "json", "--out", "runs/ev.json"]
        )
        .code,
        Some(1)
    );
    let args = ["runs/ev.json", "--history", "runs/h.jsonl", "--record"];
    // A timeout is a failure of the code (the gate and the retry tracker
    // say so too): REWORK, for the implementer.
    let v = judge(dir, &args).status(1).json();
    assert_eq!(
        v["decision"],
        json!({
            "decision": "REWORK",
            "blocked": [],
            "next_agent": "IMPLEMENTER",
            "reason": "1 of 1 checks failed: slow"
        })
    );
    assert_eq!(v["route"]["next"], "IMPLEMENTER");

    // A check killed by a signal run-check did not send: infrastructure.
    // Run the validation again once ...
    let test = repo(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"k\"\nrun = [\"sh\", \"-c\", \"kill -9 $$\"]\n",
    );
    let dir = test.path();
    let ran = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    );
    assert_eq!(ran.code, Some(2));
    let v = judge(dir, &args).status(1).json();
    assert_eq!(
        v["decision"],
        json!({
            "decision": "BLOCKED",
            "blocked": [{"check": "k", "category": "infrastructure", "reason": "killed by SIGKILL (9)"}],
            "next_agent": "VALIDATE",
            "reason": "blocked: k (infrastructure: killed by SIGKILL (9))"
        })
    );
    // Nothing was scored: a blocked round is no regression.
    assert_eq!(v["overall_score"], Value::Null);
    // ... and escalate to the user on the 2nd consecutive block.
    let v = judge(dir, &args).status(1).json();
    assert_eq!(v["decision"]["next_agent"], "USER");
    assert_eq!(v["route"]["next"], "USER");

    // A program that is not found: environment, USER.
    let test = repo(
        "[settings]\nallow = [\"no-such-program-zz\"]\n\n[[check]]\nname = \"gone\"\nrun = [\"no-such-program-zz\"]\n",
    );
    let dir = test.path();
    assert_eq!(
        run_check(
            dir,
            &["--quiet", "--format", "json", "--out", "runs/ev.json"]
        )
        .code,
        Some(2)
    );
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    assert_eq!(v["decision"]["decision"], "BLOCKED");
    assert_eq!(v["decision"]["blocked"][0]["category"], "environment");
    assert_eq!(v["decision"]["next_agent"], "USER");
}

/// Starts `n` concurrent `judge INPUT --history runs/h.jsonl --record` in
/// `dir` and asserts each exits `code`.
fn concurrent_records(dir: &Path, input: &str, n: usize, code: i32) {
    let children: Vec<_> = (0..n)
        .map(|_| {
            Command::new(bin())
                .args(["judge", input, "--history", "runs/h.jsonl", "--record"])
                .current_dir(dir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn concurrent_records_leave_every_line_intact() {
    const N: usize = 24;
    let test = Test::bare();
    let dir = test.path();
    write_json(dir, "runs/in.json", &aggregator_example());
    concurrent_records(dir, "runs/in.json", N, 1);
    let text = std::fs::read_to_string(dir.join("runs/h.jsonl")).unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("an intact JSON line"))
        .collect();
    assert_eq!(lines.len(), N, "no line lost");
    for line in &lines {
        assert_schema_valid(line);
        assert_eq!(line["overall_score"], 82.25);
        assert_eq!(line["iteration"], 1, "the input's own iteration field");
    }
}

#[test]
fn concurrent_evidence_records_get_distinct_iterations() {
    const N: usize = 24;
    let test = Test::bare();
    let dir = test.path();
    write_json(
        dir,
        "runs/ev.json",
        &complete(&json!({"checks": [{"name": "a", "status": "fail"}], "diagnostics": []})),
    );
    concurrent_records(dir, "runs/ev.json", N, 1);
    let text = std::fs::read_to_string(dir.join("runs/h.jsonl")).unwrap();
    let mut iterations: Vec<u64> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("an intact JSON line");
            v["iteration"].as_u64().expect("an iteration")
        })
        .collect();
    iterations.sort_unstable();
    assert_eq!(
        iterations,
        (1..=N as u64).collect::<Vec<_>>(),
        "each judge saw every earlier line"
    );
}

/// Asserts exit 2, nothing on stdout and exactly `line` on stderr.
#[track_caller]
fn rejected(ran: Ran, line: &str) {
    let ran = ran.status(2);
    assert_eq!(ran.stdout, "");
    assert_eq!(ran.stderr, format!("{line}\n"));
}

#[test]
fn bad_inputs_are_one_line_errors_with_the_json_path() {
    let test = Test::bare();
    let dir = test.path();
    let case = |value: Value, line: &str| {
        write_json(dir, "in.json", &value);
        rejected(judge(dir, &["in.json"]), line);
    };
    let without = |mut doc: Value, pointer: &str, key: &str| {
        doc.pointer_mut(pointer)
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove(key);
        doc
    };
    case(
        without(complete(&json!({})), "", "checks"),
        "error: in.json: $.checks: missing required field",
    );
    case(
        complete(&json!({"checks": [{"name": "a", "status": "passed"}]})),
        "error: in.json: $.checks[0].status: expected one of \"pass\", \"fail\", \"error\", \"skip\", found \"passed\"",
    );
    case(
        without(
            complete(&json!({"diagnostics": [{"check": "a", "severity": "error"}]})),
            "/diagnostics/0",
            "message",
        ),
        "error: in.json: $.diagnostics[0].message: missing required field",
    );
    case(
        json!({"checks": []}),
        "error: in.json: $.schema_version: missing required field",
    );
    case(
        json!({"votes": []}),
        "error: in.json: $: expected an evidence document (with `checks`) or an aggregator \
         input (with `security_result`)",
    );
    let mut input = aggregator_example();
    input["quality_result"]["score"] = json!("85");
    case(
        input,
        "error: in.json: $.quality_result.score: expected a number, found string",
    );
    let mut input = aggregator_example();
    input["security_result"]["issues"][0]
        .as_object_mut()
        .unwrap()
        .remove("severity");
    case(
        input,
        "error: in.json: $.security_result.issues[0].severity: missing required field",
    );
    let mut input = aggregator_example();
    input["tech_stack"]["weights"] = json!({"security": 0.5});
    case(
        input,
        "error: in.json: $.tech_stack.weights: the merged weights (security 0.5, quality 0.35, \
         performance 0.25) sum to 1.1, not 1.0 (±0.001)",
    );
    // Not JSON at all.
    std::fs::write(dir.join("in.json"), "{\"checks\": [}").unwrap();
    rejected(
        judge(dir, &["in.json"]),
        "error: in.json:1:13: invalid JSON: expected value",
    );
    // A missing input file.
    let ran = judge(dir, &["nope.json"]).status(2);
    assert!(
        ran.stderr
            .starts_with("error: failed to read judge input `nope.json`: "),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.stderr.lines().count(), 1);
    // --record needs --history.
    let ran = judge(dir, &["in.json", "--record"]).status(2);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    // An issue id names one issue.
    let mut input = aggregator_example();
    input["quality_result"]["issues"][0]["id"] = json!("X-1");
    input["quality_result"]["issues"][1]["id"] = json!("X-1");
    case(
        input,
        "error: in.json: $.quality_result.issues[1].id: duplicate issue id \"X-1\"",
    );
    // Bad input writes nothing, not even the history's folder.
    let mut input = aggregator_example();
    input["tech_stack"]["weights"] = json!({"security": 0.5});
    write_json(dir, "in.json", &input);
    judge(dir, &["in.json", "--history", "h/rounds.jsonl", "--record"]).status(2);
    assert!(!dir.join("h").exists());
}

#[test]
fn whole_floats_are_integers_and_record_creates_the_historys_folder() {
    let test = Test::bare();
    let dir = test.path();
    // JavaScript and Python write 2 as 2.0 when it is a float.
    let mut input = aggregator_example();
    input["iteration"] = json!(2.0);
    input["tech_stack"]["quality_thresholds"] = json!({"security_min": 70, "max_high_issues": 1.0});
    write_json(dir, "in.json", &input);
    let v = judge(
        dir,
        &["in.json", "--history", "runs/a/rounds.jsonl", "--record"],
    )
    .status(1)
    .json();
    assert_eq!(v["iteration"], 2);
    assert_eq!(v["thresholds_used"]["max_high_issues"], 1);
    let history = std::fs::read_to_string(dir.join("runs/a/rounds.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 1);
    input["iteration"] = json!(2.5);
    write_json(dir, "in.json", &input);
    rejected(
        judge(dir, &["in.json"]),
        "error: in.json: $.iteration: expected a non-negative integer, found number 2.5",
    );
}

#[test]
fn a_run_that_modified_the_worktree_never_passes_the_judge() {
    let test = repo(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"echo hi > new.txt\"]\n",
    );
    let dir = test.path();
    let code = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    )
    .code;
    assert_eq!(code, Some(1));
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    // Every check passed and scored 100: only the modification stands in
    // the way, as a Critical issue.
    assert_eq!(v["scores"]["quality"], 100.0);
    assert_eq!(v["passed"], false);
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(v["issue_counts"]["critical"], 1);
    let issue = &v["issues"]["critical"][0];
    assert_eq!(
        (&issue["type"], &issue["file"], &issue["source"]),
        // The only check that ran is named as the writer.
        (&json!("read-only"), &json!("new.txt"), &json!("writer"))
    );
    assert_eq!(v["decision"]["decision"], "REWORK");
}

#[test]
fn an_unreadable_history_line_is_named_and_nothing_is_appended() {
    let test = Test::bare();
    let dir = test.path();
    write_json(dir, "in.json", &aggregator_example());
    let args = ["in.json", "--history", "h.jsonl", "--record"];
    judge(dir, &args).status(1);
    judge(dir, &args).status(1);
    let good = std::fs::read_to_string(dir.join("h.jsonl")).unwrap();
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();

    // A torn second line.
    let torn = format!("{}\n{}\n", lines[0], &lines[1][..40]);
    std::fs::write(dir.join("h.jsonl"), &torn).unwrap();
    let ran = judge(dir, &args);
    assert_eq!(ran.code, Some(2));
    assert!(
        ran.stderr
            .starts_with("error: h.jsonl: line 2: invalid JSON: EOF while parsing"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("h.jsonl")).unwrap(),
        torn,
        "unchanged"
    );

    // A well-formed line of the wrong type.
    lines[1] = lines[1].replacen("\"overall_score\":82.25", "\"overall_score\":\"82.25\"", 1);
    std::fs::write(dir.join("h.jsonl"), lines.join("\n") + "\n").unwrap();
    rejected(
        judge(dir, &args),
        "error: h.jsonl: line 2: $.overall_score: expected a number, found string",
    );
    // Also without --record.
    rejected(
        judge(dir, &["in.json", "--history", "h.jsonl"]),
        "error: h.jsonl: line 2: $.overall_score: expected a number, found string",
    );
    // A blank line in the middle.
    std::fs::write(
        dir.join("h.jsonl"),
        format!("{}\n\n{}\n", lines[0], lines[0]),
    )
    .unwrap();
    rejected(
        judge(dir, &args),
        "error: h.jsonl: line 2: empty line (each line must be one verdict)",
    );
}

#[test]
fn the_verdict_schema_rejects_a_wrong_type() {
    let test = Test::bare();
    write_json(test.path(), "in.json", &aggregator_example());
    let mut v = judge(test.path(), &["in.json"]).status(1).json();
    let validator = jsonschema::validator_for(&crate::support::schema("verdict")).unwrap();
    assert!(validator.is_valid(&v));
    v["overall_score"] = json!("82.25");
    assert!(!validator.is_valid(&v));
    v["overall_score"] = json!(82.25);
    v["progress"]["trend"] = json!(3);
    assert!(!validator.is_valid(&v));
    v["progress"]["trend"] = json!("improving");
    v["decision"].as_object_mut().unwrap().remove("next_agent");
    assert!(!validator.is_valid(&v));
}

/// Issue reproduction: a run that exited 1 with quality exactly 80 and one
/// High issue used to be a judge PASS. A red gate is never a PASS.
#[test]
fn a_red_gate_is_never_a_pass_whatever_the_scores() {
    let test = repo(
        "[settings]\nallow = [\"true\", \"false\"]\n\n\
         [[check]]\nname = \"a\"\nrun = [\"true\"]\n\n[[check]]\nname = \"b\"\nrun = [\"true\"]\n\n\
         [[check]]\nname = \"c\"\nrun = [\"true\"]\n\n[[check]]\nname = \"d\"\nrun = [\"true\"]\n\n\
         [[check]]\nname = \"unit\"\nrun = [\"false\"]\n",
    );
    let dir = test.path();
    let ran = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    );
    assert_eq!(ran.code, Some(1));
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    // quality (4 * 100 + 0) / 5 = 80, at its minimum; one High issue of the
    // two allowed; overall 80: every score gate holds, the gate does not.
    assert_eq!(v["overall_score"], 80.0);
    assert_eq!(
        v["issue_counts"],
        json!({"critical": 0, "high": 1, "medium": 0, "low": 0})
    );
    assert_eq!(v["passed"], false);
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(v["decision"]["decision"], "REWORK");
    assert_eq!(v["route"]["next"], "IMPLEMENTER");
    assert_eq!(v["decision"]["next_agent"], "IMPLEMENTER");
    assert_eq!(
        v["next_action"],
        "Fix QA-001 (High) and run the checks again"
    );
}

/// Issue reproduction: with `--jobs 1` the verification names the check
/// that wrote, and its finding used to count as that check's High issue.
#[test]
fn a_write_blamed_on_a_check_is_critical() {
    let test = repo(
        "[settings]\nallow = [\"sh\", \"true\"]\n\n[[check]]\nname = \"ok\"\nrun = [\"true\"]\n\n\
         [[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"echo hi > new.txt\"]\n",
    );
    let dir = test.path();
    let ran = run_check(
        dir,
        &[
            "--quiet",
            "--jobs",
            "1",
            "--format",
            "json",
            "--out",
            "runs/ev.json",
        ],
    );
    assert_eq!(ran.code, Some(1));
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    assert_eq!(v["issue_counts"]["high"], 0);
    assert_eq!(v["issue_counts"]["critical"], 1, "{:#}", v["issues"]);
    let issue = &v["issues"]["critical"][0];
    assert_eq!(
        (&issue["type"], &issue["file"]),
        (&json!("read-only"), &json!("new.txt"))
    );
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(v["route"]["next"], "IMPLEMENTER");
}

/// A candidate that weakened its own gate goes to a person, whatever its
/// checks say.
#[test]
fn a_changed_gate_routes_to_the_user() {
    let test = repo(
        "[settings]\nallow = [\"true\", \"false\"]\n\n[[check]]\nname = \"unit\"\nrun = [\"false\"]\n",
    );
    let dir = test.path();
    std::fs::write(
        dir.join("checks.toml"),
        "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"unit\"\nrun = [\"true\"]\n",
    )
    .unwrap();
    let ran = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    );
    assert_eq!(ran.code, Some(0), "the weakened gate passes");
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    assert_eq!(v["recommendation"], "ITERATE");
    assert_eq!(v["issues"]["critical"][0]["type"], "gate-changed");
    assert_eq!(v["issues"]["critical"][0]["file"], "checks.toml");
    assert_eq!(v["route"]["next"], "USER");
    assert_eq!(v["route"]["reason"], "the gate itself changed: checks.toml");
}

/// An agent's PHASE_RESULT that claims success in a red run is a Medium
/// `self-report` issue.
#[test]
fn a_false_success_claim_is_a_self_report_issue() {
    let test = repo(
        "[settings]\nallow = [\"sh\", \"false\"]\n\n[[check]]\nname = \"unit\"\nrun = [\"false\"]\n\n\
         [[check]]\nname = \"phase\"\nrun = [\"sh\", \"-c\", \"printf 'PHASE_RESULT:\\\\n- status: completed\\\\n'\"]\nparser = \"phase-result\"\n",
    );
    let dir = test.path();
    let ran = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    let medium = &v["issues"]["medium"];
    assert_eq!(medium.as_array().unwrap().len(), 1, "{v:#}");
    assert_eq!(medium[0]["type"], "self-report");
    assert_eq!(medium[0]["source"], "phase");
}

/// Ids follow the problem across recorded rounds, and `--record` works
/// with `--format markdown` (the history line is the JSON verdict).
#[test]
fn ids_follow_fingerprints_and_record_prints_markdown() {
    let test = repo(CONFIG);
    let dir = test.path();
    let args = |ev: &'static str| {
        [
            ev,
            "--history",
            "runs/h.jsonl",
            "--record",
            "--format",
            "markdown",
        ]
    };
    // Round 1: audit and lint fail: SEC-001 (audit), QA-001 (lint).
    assert_eq!(round(dir, 1, 1, "ev1"), Some(1));
    let md = run_check(dir, &[&["judge"][..], &args("runs/ev1.json")].concat());
    assert_eq!(md.code, Some(1));
    assert!(md.stdout.starts_with('#'), "{}", md.stdout);
    // Round 2: only lint fails: it keeps QA-001.
    assert_eq!(round(dir, 0, 1, "ev2"), Some(1));
    run_check(dir, &[&["judge"][..], &args("runs/ev2.json")].concat());
    // Round 3: audit fails again. Its fingerprint was not in the last
    // recorded round (round 2), so it is new and takes the next number no
    // round used: SEC-002 (SEC-001 named it in round 1, and names nothing
    // else ever after).
    assert_eq!(round(dir, 1, 1, "ev3"), Some(1));
    let v = judge(dir, &["runs/ev3.json", "--history", "runs/h.jsonl"])
        .status(1)
        .json();
    assert_eq!(v["issues"]["medium"][0]["id"], "QA-001");
    assert_eq!(v["issues"]["critical"][0]["id"], "SEC-002");
    let text = std::fs::read_to_string(dir.join("runs/h.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "two recorded JSON lines");
    assert_eq!(lines[1]["issues"]["medium"][0]["id"], "QA-001");
    assert_eq!(lines[1]["issues"]["critical"], json!([]));
}

/// `--state`: a failure point past `max_retries` routes as the retry
/// tracker decides.
#[test]
fn a_retry_state_past_its_limit_routes_to_subtask() {
    let test = repo(&format!("{CONFIG}\n[retry]\nmax_retries = 1\n"));
    let dir = test.path();
    let task = json!({"id": "T-9", "title": "t", "description": "d", "risk": "low",
        "parallel_count": 1, "acceptance": {"commands": ["run-check --mode strict --format json"],
        "criteria": "c"}, "estimated_loc": 10, "files_involved": ["src/a.rs"],
        "public_contracts_touched": "N/A"});
    write_json(dir, "runs/task.json", &task);
    std::fs::write(dir.join("runs/audit"), "0").unwrap();
    std::fs::write(dir.join("runs/lint"), "1").unwrap();
    let ran = run_check(
        dir,
        &[
            "--quiet",
            "--task",
            "runs/task.json",
            "--format",
            "json",
            "--out",
            "runs/ev.json",
        ],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let record = [
        "retry",
        "record",
        "--task",
        "T-9",
        "--phase",
        "verify",
        "--subagent",
        "c1",
        "--evidence",
        "runs/ev.json",
        "--state",
        "runs/state.json",
        "--config",
        "checks.toml",
    ];
    // 1 retry of max_retries 1: RETRY, the route is the judge's own.
    assert_eq!(run_check(dir, &record).code, Some(0));
    let with_state = [
        "runs/ev.json",
        "--state",
        "runs/state.json",
        "--phase",
        "verify",
        "--subagent",
        "c1",
    ];
    let v = judge(dir, &with_state).status(1).json();
    assert_eq!(v["route"]["next"], "IMPLEMENTER");
    // 2 of 1: past the limit, a FAIL: SUBTASK.
    assert_eq!(run_check(dir, &record).code, Some(1));
    let v = judge(dir, &with_state).status(1).json();
    assert_eq!(v["route"]["next"], "SUBTASK");
    assert_eq!(v["decision"]["next_agent"], "SUBTASK");
    assert_eq!(
        v["route"]["reason"],
        "failure point T-9/verify/c1 failed 2 times, more than max_retries 1"
    );
    // Another failure point of the same state is not past its limit.
    let mut other = with_state;
    other[6] = "c2";
    assert_eq!(
        judge(dir, &other).status(1).json()["route"]["next"],
        "IMPLEMENTER"
    );
}

#[cfg(unix)]
#[test]
fn a_changed_file_the_scan_did_not_read_is_a_high_issue() {
    let test = repo(
        "[[check]]\nname = \"anti-cheat\"\ndimension = \"security\"\n\
         scan = { paths = [\"src/**\"], rules = [\"secrets\"] }\n",
    );
    let dir = test.path();
    let outside = tempfile::tempdir().unwrap();
    let key = format!("AKIA{}", "Z3X8C1V6B9N2M5Q7");
    std::fs::write(outside.path().join("key.py"), format!("KEY = \"{key}\"\n")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("key.py"), dir.join("src/old.py")).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "a link out of the worktree"]);
    // The change hides a key from the scan two ways it cannot read.
    std::os::unix::fs::symlink(outside.path().join("key.py"), dir.join("src/key.py")).unwrap();
    let made = Command::new("mkfifo").arg(dir.join("src/pipe.py")).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let ran = run_check(
        dir,
        &["--quiet", "--format", "json", "--out", "runs/ev.json"],
    );
    // The scan fails on both (docs/diagnostics.md).
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let v = judge(dir, &["runs/ev.json"]).status(1).json();
    let mut high: Vec<(&str, &str, &str)> = v["issues"]["high"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["type"].as_str().unwrap(),
                i["file"].as_str().unwrap(),
                i["source"].as_str().unwrap(),
            )
        })
        .collect();
    // Each changed file is one issue: the scan's own `scan-skipped`
    // diagnostic, not a second one from `data.skipped` with the same
    // fingerprint; the base's link is no issue.
    high.sort();
    assert_eq!(
        high,
        [
            ("scan-skipped", "src/key.py", "anti-cheat"),
            ("scan-skipped", "src/pipe.py", "anti-cheat"),
        ]
    );
    assert_eq!(v["passed"], false);
    assert_ne!(v["route"]["next"], "FINISH");
}

/// Two checks that compile the same code print the same gcc warning (real
/// output shape, read by the gcc parser), and a third check fails: `judge
/// --format text` (the format `candidates` also takes) lists one issue for
/// the warning naming both checks, issues in priority order with ids
/// ascending down each list, and exits 1.
#[test]
fn judge_text_lists_one_issue_per_problem_with_ids_in_order() {
    let config = r#"version = 1
[settings]
allow = ["sh"]

[[check]]
name = "build"
run = ["sh", "-c", "echo \"src/z.c:9:5: warning: unused variable 'tmp' [-Wunused-variable]\" >&2"]
parser = "gcc"

[[check]]
name = "test"
run = ["sh", "-c", "echo \"src/z.c:9:5: warning: unused variable 'tmp' [-Wunused-variable]\" >&2"]
parser = "gcc"

[[check]]
name = "lint"
run = ["sh", "-c", "printf 'src/b.c:4:1: warning: late [-Wlate]\\nsrc/a.c:2:1: warning: early [-Wearly]\\n' >&2; exit 1"]
parser = "gcc"
"#;
    let test = Test::new().config(config);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    let dir = test.path().to_path_buf();
    let ran = run_check(&dir, &["--format", "json", "--out", "ev.json"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let verdict = judge(&dir, &["ev.json"]).json();
    let medium: Vec<(&str, &str, &str)> = verdict["issues"]["medium"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap(),
                i["source"].as_str().unwrap(),
                i["file"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        medium,
        [
            ("QA-002", "lint", "src/a.c"),
            ("QA-003", "lint", "src/b.c"),
            ("QA-004", "build, test", "src/z.c"),
        ],
        "{verdict}"
    );
    let text = run_check(&dir, &["judge", "ev.json", "--format", "text"]);
    assert_eq!(text.code, Some(1), "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines[0].starts_with("ITERATE (iteration 1/5): "),
        "{}",
        text.stdout
    );
    assert_eq!(lines[1], "High (1):", "{}", text.stdout);
    assert!(
        lines[2].starts_with("  QA-001 (no file) [lint] check `lint` failed"),
        "{}",
        text.stdout
    );
    let medium_at = lines.iter().position(|l| *l == "Medium (3):").unwrap();
    assert_eq!(
        lines[medium_at + 1..medium_at + 4],
        [
            "  QA-002 src/a.c:2 [-Wearly] early (lint)",
            "  QA-003 src/b.c:4 [-Wlate] late (lint)",
            "  QA-004 src/z.c:9 [-Wunused-variable] unused variable 'tmp' (build, test)",
        ],
        "{}",
        text.stdout
    );
    assert!(
        lines.last().unwrap().starts_with("Next: IMPLEMENTER: "),
        "{}",
        text.stdout
    );
}
