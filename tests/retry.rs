//! `run-check retry` (docs/retry.md): every decision and exit code,
//! `[retry] max_retries`, reset, status, 30 concurrent records on one state
//! file, corrupt state left alone, bad evidence, the state file's schema,
//! evidence written by run-check itself, and the lessons of `record
//! --lessons` (named, filled, never overwritten, kept inside their folder).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{Test, bin};

/// What one run of `run-check` printed and returned.
struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Out {
    #[track_caller]
    fn status(self, code: i32) -> Out {
        assert_eq!(
            self.code,
            Some(code),
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", self.stdout))
    }

    /// Asserts exit 2 with exactly one `error:` line on stderr; returns it.
    #[track_caller]
    fn error_line(self) -> String {
        let out = self.status(2);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {:?}", out.stderr);
        assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", out.stdout);
        lines[0].to_string()
    }
}

/// A scratch directory run-check runs in.
struct Dir {
    dir: TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::Builder::new()
                .prefix("run-check-retry-")
                .tempdir()
                .expect("tempdir"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, contents: &str) -> &Dir {
        let full = self.path().join(name);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
        self
    }

    /// Writes evidence with this exit code as `ev/<name>.json`; returns its path.
    fn evidence(&self, name: &str, exit_code: i32) -> String {
        let path = format!("ev/{name}.json");
        self.write(&path, &evidence(exit_code).to_string());
        path
    }

    fn run(&self, args: &[&str]) -> Out {
        run_in(self.path(), args)
    }

    /// `retry record` of point (task T-1, phase verify, subagent) with the
    /// evidence file and `--state state.json`.
    fn record(&self, subagent: &str, evidence: &str) -> Out {
        self.run(&[
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "verify",
            "--subagent",
            subagent,
            "--evidence",
            evidence,
            "--state",
            "state.json",
        ])
    }

    /// [`Dir::record`] with more arguments.
    fn record_with(&self, subagent: &str, evidence: &str, extra: &[&str]) -> Out {
        let mut args = vec![
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "verify",
            "--subagent",
            subagent,
            "--evidence",
            evidence,
            "--state",
            "state.json",
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    fn state(&self) -> Value {
        let text = std::fs::read_to_string(self.path().join("state.json")).expect("state.json");
        serde_json::from_str(&text).expect("state.json is JSON")
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Out {
    let output = command(dir, args).output().expect("spawn run-check");
    Out {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(bin());
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A complete evidence document (docs/evidence.md) of a run that exited
/// `exit_code`: 0 PASS, 1 FAIL (check `test` failed), 2 ERROR (`lint`
/// errored), 130 interrupted.
fn evidence(exit_code: i32) -> Value {
    let (banner, statuses) = match exit_code {
        0 => ("All checks passed!", ["pass", "pass", "pass"]),
        1 => ("1 of 3 checks failed: test", ["pass", "fail", "pass"]),
        2 => ("1 of 3 checks errored: lint", ["pass", "pass", "error"]),
        130 => (
            "Interrupted: 1 of 3 checks finished",
            ["pass", "skip", "skip"],
        ),
        _ => panic!("no such run"),
    };
    let checks: Vec<Value> = ["build", "test", "lint"]
        .iter()
        .zip(statuses)
        .map(|(name, status)| {
            json!({
                "name": name, "status": status, "command": ["cargo", name],
                "program": "/usr/local/bin/cargo", "dimension": "quality", "severity": "high",
                "exit_code": if status == "fail" { json!(101) } else if status == "pass" { json!(0) } else { Value::Null },
                "duration_ms": 12, "timed_out": false,
                "stdout_excerpt": "", "stderr_excerpt": "", "stdout_bytes": 0, "stderr_bytes": 0,
                "excerpt_truncated": false, "artifacts": [], "diagnostics_count": 0,
                "diagnostics_dropped": 0, "score": null,
                "skip_reason": if status == "skip" { json!("interrupted") } else { Value::Null },
                "error": if status == "error" { json!("program not found") } else { Value::Null },
                "data": {}
            })
        })
        .collect();
    let count = |s: &str| statuses.iter().filter(|&&x| x == s).count();
    json!({
        "schema_version": 1,
        "meta": {
            "tool": {"name": "run-check", "version": "0.1.0"},
            "timestamp": "2026-11-21T23:59:00Z",
            "platform": {"os": "linux", "arch": "x86_64", "os_version": "Debian 12", "cpus": 2, "memory_bytes": 1024},
            "cwd": "/abs/cwd", "worktree": "/abs/worktree",
            "git": {"commit": null, "branch": null, "dirty": false},
            "config": {"path": "checks.toml", "sha256": "0".repeat(64)},
            "task": null,
            "argv": ["run-check", "--format", "json"],
            "commands": ["cargo build", "cargo test", "cargo lint"]
        },
        "mode": "strict",
        "summary": {
            "all_checks_passed": exit_code == 0,
            "banner": banner,
            "duration_ms": 36,
            "total": 3, "passed": count("pass"), "failed": count("fail"),
            "errored": count("error"), "skipped": count("skip"),
            "exit_code": exit_code
        },
        "checks": checks,
        "diagnostics": [],
        "contracts": {"read_only": {"verified": true, "modified": []}, "task": null, "change_budget": null}
    })
}

/// The point of `state` with this subagent (task T-1, phase verify).
#[track_caller]
fn point<'a>(state: &'a Value, subagent: &str) -> &'a Value {
    state["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["subagent"] == subagent)
        .unwrap_or_else(|| panic!("no point of subagent {subagent}"))
}

#[track_caller]
fn assert_schema_valid(state: &Value) {
    let validator = jsonschema::draft202012::new(&crate::support::schema("retry-state")).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(state)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{state:#}");
}

// ---- decisions and exit codes ----

#[test]
fn a_fail_is_retried_three_times_then_split_and_the_count_continues() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    for n in 1..=3 {
        let out = dir.record("impl-a", &ev).status(0).json();
        assert_eq!(out["decision"], "RETRY");
        assert_eq!(out["retry_count"], n);
        assert_eq!(out["max_retries"], 3);
        assert_eq!(out["task_id"], "T-1");
        assert_eq!(out["phase"], "verify");
        assert_eq!(out["subagent"], "impl-a");
        assert_eq!(out["status"], "retrying");
        assert_eq!(out["attempt"], n);
    }
    for n in 4..=6 {
        let out = dir.record("impl-a", &ev).status(1).json();
        assert_eq!(out["decision"], "SUBTASK");
        assert_eq!(out["retry_count"], n);
        assert_eq!(out["status"], "subtask");
    }
    let state = dir.state();
    let p = point(&state, "impl-a");
    assert_eq!(p["retry_count"], 6);
    assert_eq!(p["status"], "subtask");
    let attempts = p["attempts"].as_array().unwrap();
    let decisions: Vec<&str> = attempts
        .iter()
        .map(|a| a["decision"].as_str().unwrap())
        .collect();
    assert_eq!(
        decisions,
        ["RETRY", "RETRY", "RETRY", "SUBTASK", "SUBTASK", "SUBTASK"]
    );
    let counts: Vec<u64> = attempts
        .iter()
        .map(|a| a["retry_count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [1, 2, 3, 4, 5, 6]);
    // The latest evidence summary: path, banner, failed checks, exit code, timestamp.
    let last = &p["last_evidence"];
    let expected_path = std::path::absolute(dir.path().join(&ev)).unwrap();
    assert_eq!(last["path"], expected_path.display().to_string());
    assert_eq!(last["banner"], "1 of 3 checks failed: test");
    assert_eq!(last["failed_checks"], json!(["test"]));
    assert_eq!(last["errored_checks"], json!([]));
    assert_eq!(last["exit_code"], 1);
    assert_eq!(last["outcome"], "fail");
    assert_eq!(last["timestamp"], "2026-11-21T23:59:00Z");
    assert_eq!(attempts[5]["evidence"], *last);
}

#[test]
fn an_error_past_the_limit_is_blocked() {
    let dir = Dir::new();
    let error = dir.evidence("error", 2);
    for n in 1..=3 {
        let out = dir.record("impl-a", &error).status(0).json();
        assert_eq!(
            (out["decision"].as_str(), out["retry_count"].as_u64()),
            (Some("RETRY"), Some(n))
        );
    }
    let out = dir.record("impl-a", &error).status(1).json();
    assert_eq!(out["decision"], "BLOCKED");
    assert_eq!(out["retry_count"], 4);
    assert_eq!(out["status"], "blocked");
    assert_eq!(out["last_evidence"]["errored_checks"], json!(["lint"]));
    assert_eq!(out["last_evidence"]["outcome"], "error");
    // Past the limit the latest evidence decides: a FAIL now is SUBTASK...
    let fail = dir.evidence("fail", 1);
    let out = dir.record("impl-a", &fail).status(1).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("SUBTASK"), Some(5))
    );
    // ...and an ERROR again BLOCKED.
    let out = dir.record("impl-a", &error).status(1).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("BLOCKED"), Some(6))
    );
}

#[test]
fn an_interrupted_run_counts_as_a_failure_and_blocks_past_the_limit() {
    let dir = Dir::new();
    let interrupted = dir.evidence("interrupted", 130);
    for _ in 1..=3 {
        let out = dir.record("impl-a", &interrupted).status(0).json();
        assert_eq!(out["decision"], "RETRY");
        assert_eq!(out["last_evidence"]["outcome"], "interrupted");
        assert_eq!(out["last_evidence"]["exit_code"], 130);
    }
    let out = dir.record("impl-a", &interrupted).status(1).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("BLOCKED"), Some(4))
    );
}

#[test]
fn passing_evidence_resolves_the_point_and_keeps_its_count() {
    let dir = Dir::new();
    let (fail, pass) = (dir.evidence("fail", 1), dir.evidence("pass", 0));
    dir.record("impl-a", &fail).status(0);
    dir.record("impl-a", &fail).status(0);
    let out = dir.record("impl-a", &pass).status(0).json();
    assert_eq!(out["decision"], "RESOLVED");
    assert_eq!(out["status"], "resolved");
    assert_eq!(out["retry_count"], 2);
    assert_eq!(out["attempt"], 3);
    assert_eq!(out["last_evidence"]["banner"], "All checks passed!");
    assert_eq!(out["last_evidence"]["outcome"], "pass");
    // A point that passes at once is resolved with no retries.
    let out = dir.record("impl-b", &pass).status(0).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("RESOLVED"), Some(0))
    );
    // Past the limit, a pass still resolves (exit 0).
    for _ in 0..4 {
        dir.record("impl-c", &fail);
    }
    let out = dir.record("impl-c", &pass).status(0).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("RESOLVED"), Some(4))
    );
    // A resolved point that fails again continues its count.
    let out = dir.record("impl-a", &fail).status(0).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("RETRY"), Some(3))
    );
    let out = dir.record("impl-a", &fail).status(1).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("SUBTASK"), Some(4))
    );
}

#[test]
fn record_prints_one_line_with_format_text() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let out = dir
        .run(&[
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "fix",
            "--subagent",
            "impl-a",
            "--evidence",
            &ev,
            "--state",
            "state.json",
            "--format",
            "text",
        ])
        .status(0);
    assert_eq!(
        out.stdout,
        "RETRY: task `T-1`, phase fix, subagent `impl-a`: retry 1 of 3; run again (1 of 3 checks failed: test)\n"
    );
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

// ---- max_retries ----

/// A gate of one failing check and `[retry] max_retries = 1`, run for
/// real: the evidence names this config (path and sha256).
const GATE: &str = "version = 1\n[settings]\nallow = [\"false\"]\n\n[[check]]\nname = \"t\"\nrun = [\"false\"]\n\n[retry]\nmax_retries = 1\n";

#[test]
fn max_retries_comes_from_the_config_the_evidence_was_made_with() {
    let dir = Dir::new();
    dir.write("checks.toml", GATE).write("ev/.keep", "");
    dir.run(&["--quiet", "--format", "json", "--out", "ev/real.json"])
        .status(1);
    let ev = "ev/real.json";
    let out = dir.record("a", ev).status(0).json();
    assert_eq!(
        (out["decision"].as_str(), out["max_retries"].as_u64()),
        (Some("RETRY"), Some(1))
    );
    let out = dir.record("a", ev).status(1).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("SUBTASK"), Some(2))
    );
    // From another directory, with a checks.toml of its own: still the
    // evidence's config, never the current directory's.
    let elsewhere = Dir::new();
    elsewhere.write("checks.toml", "version = 1\n[retry]\nmax_retries = 7\n");
    let absolute = dir.path().join(ev);
    let out = elsewhere
        .record("b", absolute.to_str().unwrap())
        .status(0)
        .json();
    assert_eq!(out["max_retries"], 1);

    // --config wins.
    dir.write("other.toml", "[retry]\nmax_retries = 0\n");
    let out = dir
        .record_with("c", ev, &["--config", "other.toml"])
        .status(1)
        .json();
    assert_eq!(
        (out["decision"].as_str(), out["max_retries"].as_u64()),
        (Some("SUBTASK"), Some(0))
    );

    // A config edited since the run is not the one it was made with: 3.
    dir.write(
        "checks.toml",
        &GATE.replace("max_retries = 1", "max_retries = 9"),
    );
    assert_eq!(dir.record("d", ev).status(0).json()["max_retries"], 3);
    // Evidence whose config is nowhere: 3.
    let ev = dir.evidence("fail", 1);
    assert_eq!(dir.record("e", &ev).status(0).json()["max_retries"], 3);
}

#[test]
fn a_bad_config_is_an_error_and_records_nothing() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    dir.write("bad.toml", "[retry]\nmax_retries = -1\n");
    let line = dir
        .record_with("a", &ev, &["--config", "bad.toml"])
        .error_line();
    assert!(line.starts_with("error: bad.toml:2:15: "), "{line}");
    dir.write("bad.toml", "[retry]\nmax_retry = 5\n");
    let line = dir
        .record_with("a", &ev, &["--config", "bad.toml"])
        .error_line();
    assert!(line.starts_with("error: bad.toml:2:1: "), "{line}");
    assert!(line.contains("max_retry"), "{line}");
    // A broken checks.toml in the current directory is not read at all.
    dir.write("checks.toml", "[retry]\nmax_retry = 5\n");
    assert_eq!(dir.record("a", &ev).status(0).json()["max_retries"], 3);
    std::fs::remove_file(dir.path().join("state.json")).unwrap();
    let line = dir
        .record_with("a", &ev, &["--config", "missing.toml"])
        .error_line();
    assert_eq!(
        line,
        "error: missing.toml: no such file (named by --config)"
    );
    assert!(!dir.path().join("state.json").exists());
}

// ---- status and reset ----

/// Records: T-1 verify impl-b (fail ×2), T-1 verify impl-a (pass),
/// T-1 fix impl-a (error), T-0 verify z (fail), T-2 fix y (fail).
fn populated() -> Dir {
    let dir = Dir::new();
    let (fail, pass, error) = (
        dir.evidence("fail", 1),
        dir.evidence("pass", 0),
        dir.evidence("error", 2),
    );
    let record = |task: &str, phase: &str, subagent: &str, ev: &str| {
        dir.run(&[
            "retry",
            "record",
            "--task",
            task,
            "--phase",
            phase,
            "--subagent",
            subagent,
            "--evidence",
            ev,
            "--state",
            "state.json",
        ])
        .status(0);
    };
    record("T-1", "verify", "impl-b", &fail);
    record("T-1", "verify", "impl-b", &fail);
    record("T-1", "verify", "impl-a", &pass);
    record("T-1", "fix", "impl-a", &error);
    record("T-0", "verify", "z", &fail);
    record("T-2", "fix", "y", &fail);
    dir
}

fn keys(points: &Value) -> Vec<String> {
    points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {} {}",
                p["task_id"].as_str().unwrap(),
                p["phase"].as_str().unwrap(),
                p["subagent"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn status_prints_a_table_by_default_and_json_on_request() {
    let dir = populated();
    let out = dir
        .run(&["retry", "status", "--state", "state.json"])
        .status(0);
    assert_eq!(
        out.stdout,
        "TASK  PHASE   SUBAGENT  STATUS    RETRIES  LAST EVIDENCE\n\
         T-0   verify  z         retrying  1/3      exit 1: 1 of 3 checks failed: test\n\
         T-1   verify  impl-a    resolved  0/3      exit 0: All checks passed!\n\
         T-1   verify  impl-b    retrying  2/3      exit 1: 1 of 3 checks failed: test\n\
         T-1   fix     impl-a    retrying  1/3      exit 2: 1 of 3 checks errored: lint\n\
         T-2   fix     y         retrying  1/3      exit 1: 1 of 3 checks failed: test\n"
    );
    let json = dir
        .run(&[
            "retry",
            "status",
            "--state",
            "state.json",
            "--format",
            "json",
        ])
        .status(0)
        .json();
    assert_eq!(
        json.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["points"]
    );
    assert_eq!(
        keys(&json["points"]),
        [
            "T-0 verify z",
            "T-1 verify impl-a",
            "T-1 verify impl-b",
            "T-1 fix impl-a",
            "T-2 fix y"
        ]
    );
    // Fields in the documented order (serde_json's Value sorts keys, so
    // look at the text).
    let out = dir
        .run(&[
            "retry",
            "status",
            "--state",
            "state.json",
            "--format",
            "json",
        ])
        .status(0);
    let positions: Vec<usize> = [
        "task_id",
        "phase",
        "subagent",
        "status",
        "retry_count",
        "max_retries",
        "last_evidence",
        "attempts",
    ]
    .iter()
    .map(|f| out.stdout.find(&format!("\"{f}\":")).unwrap())
    .collect();
    assert!(positions.is_sorted(), "{}", out.stdout);
    let b = &json["points"][2];
    assert_eq!(b["status"], "retrying");
    assert_eq!(b["retry_count"], 2);
    assert_eq!(b["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(b["last_evidence"]["failed_checks"], json!(["test"]));
    // The same points as the state file, in the same order.
    assert_eq!(json["points"], dir.state()["points"]);

    // Filtered by task.
    let json = dir
        .run(&[
            "retry",
            "status",
            "--state",
            "state.json",
            "--format",
            "json",
            "--task",
            "T-1",
        ])
        .status(0)
        .json();
    assert_eq!(
        keys(&json["points"]),
        ["T-1 verify impl-a", "T-1 verify impl-b", "T-1 fix impl-a"]
    );
    let out = dir
        .run(&["retry", "status", "--state", "state.json", "--task", "T-9"])
        .status(0);
    assert_eq!(
        out.stdout,
        "no failure points of task `T-9` in `state.json`\n"
    );
    // Deterministic: the same state prints the same bytes.
    let again = dir.run(&[
        "retry",
        "status",
        "--state",
        "state.json",
        "--format",
        "json",
    ]);
    let once = dir.run(&[
        "retry",
        "status",
        "--state",
        "state.json",
        "--format",
        "json",
    ]);
    assert_eq!(again.stdout, once.stdout);
}

#[test]
fn status_without_a_state_file_is_empty_and_creates_nothing() {
    let dir = Dir::new();
    let out = dir.run(&["retry", "status"]).status(0);
    assert_eq!(
        out.stdout,
        format!("no failure points in `{}`\n", "runs/retry-state.json")
    );
    let out = dir.run(&["retry", "status", "--format", "json"]).status(0);
    assert_eq!(out.json(), json!({"points": []}));
    let out = dir.run(&["retry", "reset", "--task", "T-1"]).status(0);
    assert_eq!(out.stdout, "reset 0 failure points of task `T-1`\n");
    assert!(dir.names().is_empty(), "{:?}", dir.names());
}

#[test]
fn reset_forgets_one_point_or_a_whole_task() {
    let dir = populated();
    let reset = |args: &[&str]| {
        let mut all = vec!["retry", "reset", "--state", "state.json"];
        all.extend_from_slice(args);
        dir.run(&all).status(0).stdout
    };
    assert_eq!(
        reset(&["--task", "T-1", "--phase", "verify", "--subagent", "impl-b"]),
        "reset 1 failure point of task `T-1`, phase verify, subagent `impl-b`\n"
    );
    assert_eq!(
        keys(&dir.state()["points"]),
        [
            "T-0 verify z",
            "T-1 verify impl-a",
            "T-1 fix impl-a",
            "T-2 fix y"
        ]
    );
    // A reset point starts again from zero.
    let fail = "ev/fail.json";
    let out = dir.record("impl-b", fail).status(0).json();
    assert_eq!(
        (out["retry_count"].as_u64(), out["attempt"].as_u64()),
        (Some(1), Some(1))
    );
    // By subagent across phases.
    assert_eq!(
        reset(&["--task", "T-1", "--subagent", "impl-a"]),
        "reset 2 failure points of task `T-1`, subagent `impl-a`\n"
    );
    assert_eq!(
        keys(&dir.state()["points"]),
        ["T-0 verify z", "T-1 verify impl-b", "T-2 fix y"]
    );
    // The whole task.
    assert_eq!(
        reset(&["--task", "T-1"]),
        "reset 1 failure point of task `T-1`\n"
    );
    assert_eq!(keys(&dir.state()["points"]), ["T-0 verify z", "T-2 fix y"]);
    // Nothing matches: exit 0, the file is not rewritten.
    let before = std::fs::read(dir.path().join("state.json")).unwrap();
    assert_eq!(
        reset(&["--task", "T-1"]),
        "reset 0 failure points of task `T-1`\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("state.json")).unwrap(),
        before
    );
    assert_schema_valid(&dir.state());
}

// ---- concurrency ----

#[test]
fn thirty_concurrent_records_on_three_points_lose_no_update() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let subagents = ["alpha", "beta", "gamma"];
    // Spawn all 30 before waiting for any.
    let children: Vec<(&str, std::process::Child)> = (0..30)
        .map(|i| {
            let subagent = subagents[i % 3];
            let child = command(
                dir.path(),
                &[
                    "retry",
                    "record",
                    "--task",
                    "T-1",
                    "--phase",
                    "verify",
                    "--subagent",
                    subagent,
                    "--evidence",
                    &ev,
                    "--state",
                    "state.json",
                ],
            )
            .spawn()
            .expect("spawn run-check");
            (subagent, child)
        })
        .collect();
    let mut seen: BTreeMap<&str, Vec<(u64, i32)>> = BTreeMap::new();
    for (subagent, child) in children {
        let output = child.wait_with_output().expect("wait");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let out: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr))
        });
        assert_eq!(out["subagent"], subagent);
        seen.entry(subagent).or_default().push((
            out["retry_count"].as_u64().unwrap(),
            output.status.code().unwrap(),
        ));
    }
    for subagent in subagents {
        // Every process saw a different count: the records were serialised.
        let mut got = seen[subagent].clone();
        got.sort();
        let expected: Vec<(u64, i32)> = (1..=10).map(|n| (n, if n <= 3 { 0 } else { 1 })).collect();
        assert_eq!(got, expected, "{subagent}");
    }
    let state = dir.state();
    assert_eq!(state["points"].as_array().unwrap().len(), 3);
    for subagent in subagents {
        let p = point(&state, subagent);
        assert_eq!(p["retry_count"], 10, "{subagent}");
        let attempts = p["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 10, "{subagent}");
        let numbers: Vec<u64> = attempts
            .iter()
            .map(|a| a["attempt"].as_u64().unwrap())
            .collect();
        assert_eq!(numbers, (1..=10).collect::<Vec<_>>());
        assert_eq!(p["status"], "subtask");
    }
    assert_schema_valid(&state);
    // Only the state and its lock file are left: no temporary files.
    assert_eq!(dir.names(), ["ev", "state.json", "state.json.lock"]);
}

// ---- bad input ----

#[test]
fn a_corrupt_state_file_is_reported_and_never_rewritten() {
    let cases: [(&str, &str); 7] = [
        (
            "{\"schema_version\": 1, \"points\": [",
            "state.json:1:33: invalid JSON: EOF while parsing a list",
        ),
        (
            "",
            "state.json:1:1: invalid JSON: EOF while parsing a value",
        ),
        ("[]", "state.json: $: expected an object, found array"),
        (
            "{\"schema_version\": 2, \"points\": []}",
            "state.json: $.schema_version: unsupported state version 2 (this run-check reads version 1)",
        ),
        (
            "{\"points\": []}",
            "state.json: $.schema_version: missing required field",
        ),
        (
            "{\"schema_version\": 1, \"points\": [{\"task_id\": \"T-1\"}]}",
            "state.json: $.points[0].phase: missing required field",
        ),
        (
            "{\"schema_version\": 1, \"points\": {}}",
            "state.json: $.points: expected an array, found object",
        ),
    ];
    for (contents, message) in cases {
        let dir = Dir::new();
        let ev = dir.evidence("fail", 1);
        dir.write("state.json", contents);
        let line = dir.record("a", &ev).error_line();
        assert_eq!(line, format!("error: {message}"), "{contents:?}");
        let line = dir
            .run(&["retry", "status", "--state", "state.json"])
            .error_line();
        assert_eq!(line, format!("error: {message}"));
        let line = dir
            .run(&["retry", "reset", "--task", "T-1", "--state", "state.json"])
            .error_line();
        assert_eq!(line, format!("error: {message}"));
        assert_eq!(
            std::fs::read(dir.path().join("state.json")).unwrap(),
            contents.as_bytes(),
            "state file changed"
        );
        assert_eq!(dir.names(), ["ev", "state.json", "state.json.lock"]);
    }

    // A wrong field deep inside a valid-looking state names its JSON path.
    let dir = populated();
    let mut state = dir.state();
    state["points"][1]["attempts"][0]["retry_count"] = json!("one");
    let text = serde_json::to_string_pretty(&state).unwrap();
    dir.write("state.json", &text);
    let line = dir.record("impl-a", "ev/fail.json").error_line();
    assert_eq!(
        line,
        "error: state.json: $.points[1].attempts[0].retry_count: expected a non-negative integer, found string"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("state.json")).unwrap(),
        text
    );
}

#[test]
fn evidence_that_is_not_evidence_is_an_error_and_changes_nothing() {
    let dir = Dir::new();
    let mut missing = evidence(1);
    missing["summary"]
        .as_object_mut()
        .unwrap()
        .remove("exit_code");
    dir.write("missing.json", &missing.to_string());
    let mut contradicting = evidence(1);
    contradicting["summary"]["all_checks_passed"] = json!(true);
    dir.write("contradicting.json", &contradicting.to_string());
    let mut bad_status = evidence(2);
    bad_status["checks"][2]["status"] = json!("ERROR");
    dir.write("status.json", &bad_status.to_string());
    dir.write("broken.json", "{\"summary\": ");
    dir.write("verdict.json", "{\"verdict\": \"PASS\"}");
    let cases = [
        (
            "missing.json",
            "error: missing.json: $.summary.exit_code: missing required field",
        ),
        (
            "contradicting.json",
            "error: contradicting.json: $.summary.all_checks_passed: is true but summary.exit_code is 1",
        ),
        (
            "status.json",
            "error: status.json: $.checks[2].status: expected one of \"pass\", \"fail\", \"error\", \"skip\", found \"ERROR\"",
        ),
        (
            "broken.json",
            "error: broken.json:1:12: invalid JSON: EOF while parsing a value",
        ),
        (
            "verdict.json",
            "error: verdict.json: $.verdict: unknown field (expected schema_version, meta, \
             mode, summary, checks, diagnostics or contracts)",
        ),
    ];
    for (file, message) in cases {
        assert_eq!(dir.record("a", file).error_line(), message);
    }
    let line = dir.record("a", "nope.json").error_line();
    assert!(
        line.starts_with("error: failed to read evidence `nope.json`: "),
        "{line}"
    );
    // Nothing was created...
    assert!(!dir.path().join("state.json").exists());
    // ...and an existing state is left as it was.
    let ev = dir.evidence("fail", 1);
    dir.record("a", &ev).status(0);
    let before = std::fs::read(dir.path().join("state.json")).unwrap();
    dir.record("a", "missing.json").status(2);
    assert_eq!(
        std::fs::read(dir.path().join("state.json")).unwrap(),
        before
    );
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let base = [
        "retry",
        "record",
        "--evidence",
        ev.as_str(),
        "--state",
        "state.json",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        dir.run(&args)
    };
    let line = with(&["--task", "T", "--phase", "build", "--subagent", "a"]).error_line();
    assert!(
        line.contains("invalid value 'build' for '--phase <PHASE>'"),
        "{line}"
    );
    let line = with(&["--task", "T", "--phase", "verify"]).error_line();
    assert!(line.contains("--subagent <NAME>"), "{line}");
    let line = with(&["--task", " ", "--phase", "verify", "--subagent", "a"]).error_line();
    assert_eq!(line, "error: --task \" \": must not be empty");
    let line = with(&["--task", "T", "--phase", "verify", "--subagent", "a\nb"]).error_line();
    assert_eq!(
        line,
        "error: --subagent \"a\\nb\": must not contain control characters"
    );
    let line = with(&[
        "--task",
        "T",
        "--phase",
        "fix",
        "--subagent",
        "a",
        "--format",
        "yaml",
    ])
    .error_line();
    assert!(line.contains("invalid value 'yaml'"), "{line}");
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    let line = dir
        .run(&[
            "retry",
            "record",
            "--task",
            "T",
            "--phase",
            "fix",
            "--subagent",
            "a",
            "--evidence",
            &ev,
            "--state",
            "dir",
        ])
        .error_line();
    assert_eq!(line, "error: --state `dir` is a directory; name a file");
    let line = dir.run(&["retry", "status", "--state", ""]).error_line();
    assert!(
        line.contains("a value is required for '--state <FILE>'"),
        "{line}"
    );
    let line = dir
        .run(&["retry", "reset", "--state", "state.json"])
        .error_line();
    assert!(line.contains("--task-id <ID>"), "{line}");
    let line = dir.run(&["retry"]).error_line();
    assert!(line.contains("retry"), "{line}");
    assert_eq!(dir.names(), ["dir", "ev"]);
}

// ---- files ----

#[test]
fn the_default_state_file_is_created_with_its_directory_and_stdin_works() {
    let dir = Dir::new();
    let mut child = command(
        dir.path(),
        &[
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "verify",
            "--subagent",
            "a",
            "--evidence",
            "-",
        ],
    )
    .stdin(Stdio::piped())
    .spawn()
    .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(evidence(2).to_string().as_bytes()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(out["decision"], "RETRY");
    assert_eq!(out["last_evidence"]["path"], "-");
    let runs: PathBuf = dir.path().join("runs");
    let mut names: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["retry-state.json", "retry-state.json.lock"]);
    let text = std::fs::read_to_string(runs.join("retry-state.json")).unwrap();
    assert!(text.ends_with("}\n"));
    assert_schema_valid(&serde_json::from_str(&text).unwrap());
}

#[test]
fn the_state_file_matches_the_published_schema() {
    let dir = populated();
    let (fail, error, interrupted) = (
        "ev/fail.json",
        "ev/error.json",
        dir.evidence("interrupted", 130),
    );
    for ev in [fail, fail, fail, error, fail] {
        dir.record("impl-d", ev);
    }
    dir.record("impl-e", &interrupted);
    let state = dir.state();
    assert_eq!(state["schema_version"], 1);
    assert_schema_valid(&state);
    let words: Vec<&str> = state["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    for word in ["retrying", "resolved", "subtask"] {
        assert!(words.contains(&word), "{words:?}");
    }
    // The schema rejects what run-check rejects.
    let validator = jsonschema::draft202012::new(&crate::support::schema("retry-state")).unwrap();
    let mut bad = state.clone();
    bad["points"][0]["phase"] = json!("build");
    assert!(!validator.is_valid(&bad));
    let mut bad = state.clone();
    bad["schema_version"] = json!(2);
    assert!(!validator.is_valid(&bad));
    // The loader and the schema answer alike: attempt 0 is refused by both,
    // a whole number written as a float (1.0) accepted by both.
    let mut bad = state.clone();
    bad["points"][0]["attempts"][0]["attempt"] = json!(0);
    assert!(!validator.is_valid(&bad));
    dir.write("state.json", &bad.to_string());
    assert_eq!(
        dir.run(&["retry", "status", "--state", "state.json"])
            .error_line(),
        "error: state.json: $.points[0].attempts[0].attempt: must be at least 1, found 0"
    );
    let mut whole = state.clone();
    whole["points"][0]["retry_count"] = json!(1.0);
    whole["points"][0]["attempts"][0]["attempt"] = json!(1.0);
    assert!(validator.is_valid(&whole));
    dir.write("state.json", &whole.to_string());
    dir.run(&["retry", "status", "--state", "state.json"])
        .status(0);
}

// ---- evidence written by run-check ----

#[test]
fn evidence_written_by_run_check_drives_the_decisions() {
    // `git` is on PATH wherever the suite runs (the builder needs it); a
    // program that does not exist gives ERROR evidence. Evidence goes to an
    // ignored directory so strict mode's read-only check stays clean.
    let run = Test::new()
        .config(
            r#"version = 1
[settings]
allow = ["git", "run-check-no-such-program"]

[retry]
max_retries = 1

[[check]]
name = "version"
run = ["git", "--version"]

[[check]]
name = "missing-ref"
run = ["git", "rev-parse", "--verify", "--quiet", "refs/heads/no-such-branch"]

[[check]]
name = "absent"
run = ["run-check-no-such-program"]
"#,
        )
        .file(".gitignore", "out/\nruns/\n")
        .file("out/.keep", "")
        .args(&[
            "--format",
            "json",
            "--out",
            "out/fail.json",
            "--only",
            "version",
            "--only",
            "missing-ref",
        ])
        .run()
        .status(1);
    let root = run.test.path();
    run_in(
        root,
        &[
            "--format",
            "json",
            "--out",
            "out/pass.json",
            "--only",
            "version",
        ],
    )
    .status(0);
    run_in(
        root,
        &[
            "--format",
            "json",
            "--out",
            "out/error.json",
            "--only",
            "absent",
        ],
    )
    .status(2);

    let record = |subagent: &str, ev: &str| {
        run_in(
            root,
            &[
                "retry",
                "record",
                "--task",
                "T-9",
                "--phase",
                "verify",
                "--subagent",
                subagent,
                "--evidence",
                ev,
            ],
        )
    };
    let out = record("a", "out/fail.json").status(0).json();
    assert_eq!(out["decision"], "RETRY");
    assert_eq!(out["max_retries"], 1);
    assert_eq!(
        out["last_evidence"]["failed_checks"],
        json!(["missing-ref"])
    );
    assert_eq!(
        out["last_evidence"]["banner"],
        "1 of 2 checks failed: missing-ref"
    );
    let out = record("a", "out/fail.json").status(1).json();
    assert_eq!(out["decision"], "SUBTASK");
    let out = record("a", "out/pass.json").status(0).json();
    assert_eq!(
        (out["decision"].as_str(), out["retry_count"].as_u64()),
        (Some("RESOLVED"), Some(2))
    );
    record("b", "out/error.json").status(0);
    let out = record("b", "out/error.json").status(1).json();
    assert_eq!(out["decision"], "BLOCKED");
    assert_eq!(out["last_evidence"]["errored_checks"], json!(["absent"]));

    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("runs/retry-state.json")).unwrap())
            .unwrap();
    assert_schema_valid(&state);
    // The state lives in an ignored directory: the gate still passes read-only.
    run_in(root, &["--only", "version", "--quiet"]).status(0);
}

/// `record --format json` and `status --format json` print documents with
/// schemas of their own (`run-check schema retry-record|retry-status`):
/// real outputs validate, and a wrong type at each level does not.
#[test]
fn record_and_status_outputs_validate_against_their_schemas() {
    let dir = populated();
    let ev = dir.evidence("again", 1);
    let record = dir.record("impl-b", &ev).status(0).json();
    assert_eq!(
        (&record["lesson_due"], &record["lesson"]),
        (&json!(true), &Value::Null)
    );
    let written = dir
        .record_with("impl-b", &ev, &["--lessons", "lessons"])
        .status(1)
        .json();
    assert!(written["lesson"].is_string(), "{written:#}");
    let status = dir
        .run(&[
            "retry",
            "status",
            "--state",
            "state.json",
            "--format",
            "json",
        ])
        .status(0)
        .json();
    let one_task = dir
        .run(&[
            "retry",
            "status",
            "--state",
            "state.json",
            "--format",
            "json",
            "--task",
            "T-2",
        ])
        .status(0)
        .json();
    assert_eq!(one_task["points"].as_array().unwrap().len(), 1);
    for (name, document, wrong) in [
        (
            "retry-record",
            &record,
            &[
                ("/decision", json!("MAYBE")),
                ("/attempt", json!(0)),
                ("/last_evidence/exit_code", json!("1")),
                ("/last_evidence/failed_checks/0", json!(1)),
                ("/extra", json!(true)),
                ("/lesson_due", json!("yes")),
                ("/lesson", json!(1)),
            ][..],
        ),
        (
            "retry-record",
            &written,
            &[
                ("/lesson", json!(["l.md"])),
                // A record that is not due names no lesson.
                ("/lesson_due", json!(false)),
            ][..],
        ),
        (
            "retry-status",
            &status,
            &[
                ("/points", json!({})),
                ("/points/0/phase", json!("review")),
                ("/points/0/attempts/0/attempt", json!(0)),
                ("/points/0/last_evidence/outcome", json!(1)),
                ("/points/0/extra", json!(1)),
            ][..],
        ),
        ("retry-status", &one_task, &[][..]),
    ] {
        let validator = jsonschema::draft202012::new(&crate::support::schema(name)).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(document)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}\n{document:#}");
        for (pointer, value) in wrong {
            let mut bad = document.clone();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            match bad.pointer_mut(parent).unwrap() {
                Value::Object(object) => {
                    object.insert(key.to_string(), value.clone());
                }
                Value::Array(items) => items[key.parse::<usize>().unwrap()] = value.clone(),
                _ => unreachable!("{pointer}"),
            }
            assert!(
                !validator.is_valid(&bad),
                "{name}: {pointer} = {value} accepted"
            );
        }
    }
    // What status prints is the state's points.
    assert_eq!(status["points"], dir.state()["points"]);
}

// ---- lessons ----

/// Today's UTC date as a lesson's name starts, before and after `f` (a
/// test that runs over midnight accepts either).
fn dates_around<T>(f: impl FnOnce() -> T) -> (T, [String; 2]) {
    let today = || chrono::Utc::now().format("%Y-%m-%d").to_string();
    let before = today();
    let out = f();
    (out, [before, today()])
}

/// FAIL evidence whose diagnostics are those of a hostile check: escapes, a
/// heading and a workflow command in messages, and more than five of them,
/// one of a passing check.
fn evidence_with_diagnostics() -> Value {
    let mut ev = evidence(1);
    let diagnostic = |check: &str, line: u64, message: &str| {
        json!({"check": check, "file": "src/lib.rs", "line": line, "column": null,
               "severity": "error", "rule": null, "message": message, "suggestion": null})
    };
    let mut diagnostics = vec![
        diagnostic("build", 1, "a warning of a passing check"),
        diagnostic(
            "test",
            7,
            "assertion failed \u{1b}[31mleft == right\u{1b}[0m\n## fix\n::error::owned",
        ),
    ];
    for n in 2..=8 {
        diagnostics.push(diagnostic("test", n * 10, &format!("failure {n}")));
    }
    ev["diagnostics"] = Value::Array(diagnostics);
    ev["checks"][1]["diagnostics_count"] = json!(8);
    ev
}

/// The files under `root`, relative, sorted (folders left out).
fn files_under(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

#[track_caller]
fn assert_record_valid(record: &Value) {
    let validator = jsonschema::draft202012::new(&crate::support::schema("retry-record")).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(record)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{record:#}");
}

#[test]
fn a_lesson_is_written_at_the_second_failure_and_never_overwritten() {
    let dir = Dir::new();
    dir.write("ev/fail.json", &evidence_with_diagnostics().to_string());
    let ev = "ev/fail.json";
    let lessons = ["--lessons", "notes/lessons"];
    // Once: not due, nothing written, not even the folder.
    let out = dir.record_with("impl-a", ev, &lessons).status(0).json();
    assert_eq!(
        (&out["lesson_due"], &out["lesson"]),
        (&json!(false), &Value::Null)
    );
    assert_record_valid(&out);
    assert_eq!(dir.names(), ["ev", "state.json", "state.json.lock"]);

    // Twice: due, and written.
    let (out, dates) = dates_around(|| dir.record_with("impl-a", ev, &lessons).status(0).json());
    assert_eq!(out["decision"], "RETRY");
    assert_eq!(out["retry_count"], 2);
    assert_eq!(out["lesson_due"], true);
    assert_record_valid(&out);
    let lesson = out["lesson"].as_str().expect("a lesson path").to_string();
    assert!(
        dates
            .iter()
            .any(|d| lesson == format!("notes/lessons/{d}_T-1-verify-impl-a.md")),
        "{lesson}"
    );
    let text = std::fs::read_to_string(dir.path().join(&lesson)).unwrap();
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "# Lesson: task \"T-1\", phase verify, subagent \"impl-a\"",
            "## symptom",
            "## evidence",
            "## root_cause",
            "## fix",
            "## prevention"
        ]
    );
    let section = |name: &str| -> String {
        let start = text.find(&format!("## {name}\n")).unwrap() + name.len() + 4;
        let end = text[start..]
            .find("\n## ")
            .map_or(text.len(), |i| start + i);
        text[start..end].trim().to_string()
    };
    assert_eq!(
        section("symptom"),
        "1 of 3 checks failed: test\n\n- failed checks: test"
    );
    let ev_path = std::path::absolute(dir.path().join(ev)).unwrap();
    assert_eq!(
        section("evidence"),
        format!(
            "- path: {}\n\
             - exit code: 1 (fail)\n\
             - checks ran at: 2026-11-21T23:59:00Z\n\
             - diagnostics (first 5 of 8):\n\
             \x20 - src/lib.rs:7: assertion failed left == right ## fix \\::error::owned (error, test)\n\
             \x20 - src/lib.rs:20: failure 2 (error, test)\n\
             \x20 - src/lib.rs:30: failure 3 (error, test)\n\
             \x20 - src/lib.rs:40: failure 4 (error, test)\n\
             \x20 - src/lib.rs:50: failure 5 (error, test)",
            ev_path.display()
        )
    );
    for empty in ["root_cause", "fix", "prevention"] {
        assert_eq!(section(empty), "", "{empty}");
    }
    assert!(!text.contains('\u{1b}'));

    // Filled in by hand, then a third and a fourth failure (SUBTASK past
    // the limit): the same lesson is reported and kept as it is.
    let filled = text.replace("## root_cause\n", "## root_cause\n\nA stale cache.\n");
    std::fs::write(dir.path().join(&lesson), &filled).unwrap();
    dir.record_with("impl-a", ev, &lessons).status(0);
    let out = dir.record_with("impl-a", ev, &lessons).status(1).json();
    assert_eq!(out["decision"], "SUBTASK");
    assert_eq!(out["lesson"], lesson.as_str());
    assert_record_valid(&out);
    assert_eq!(
        std::fs::read_to_string(dir.path().join(&lesson)).unwrap(),
        filled
    );
    // One lesson, and no temporary file beside it.
    assert_eq!(
        files_under(&dir.path().join("notes")),
        [lesson.trim_start_matches("notes/")]
    );

    // Due without --lessons: said, not written.
    let out = dir.record("impl-a", ev).status(1).json();
    assert_eq!(
        (&out["lesson_due"], &out["lesson"]),
        (&json!(true), &Value::Null)
    );
    let line = dir
        .record_with("impl-a", ev, &["--format", "text"])
        .status(1)
        .stdout;
    assert!(
        line.ends_with("; lesson due (`--lessons DIR` writes it)\n"),
        "{line}"
    );
    let line = dir
        .record_with(
            "impl-a",
            ev,
            &["--format", "text", "--lessons", "notes/lessons"],
        )
        .status(1)
        .stdout;
    assert!(line.ends_with(&format!("; lesson: `{lesson}`\n")), "{line}");
    assert_eq!(line.lines().count(), 1);
}

#[test]
fn a_point_resolved_after_two_failures_writes_its_lesson_from_the_last_failure() {
    let dir = Dir::new();
    let (fail, error, pass) = (
        dir.evidence("fail", 1),
        dir.evidence("error", 2),
        dir.evidence("pass", 0),
    );
    dir.record("impl-a", &fail).status(0);
    dir.record("impl-a", &error).status(0);
    let out = dir
        .record_with("impl-a", &pass, &["--lessons", "lessons"])
        .status(0)
        .json();
    assert_eq!(out["decision"], "RESOLVED");
    assert_eq!(out["lesson_due"], true);
    assert_record_valid(&out);
    let lesson = out["lesson"].as_str().unwrap();
    let text = std::fs::read_to_string(dir.path().join(lesson)).unwrap();
    assert!(
        text.contains("when the point passed after 2 failed attempts (decision RESOLVED"),
        "{text}"
    );
    assert!(text.contains("## symptom\n\n1 of 3 checks errored: lint\n\n- errored checks: lint\n"));
    assert!(text.contains("- exit code: 2 (error)\n"));
    let absolute = |ev: &str| std::path::absolute(dir.path().join(ev)).unwrap();
    assert!(text.contains(&format!("- path: {}\n", absolute(&error).display())));
    assert!(text.contains(&format!(
        "- passing evidence: {}\n",
        absolute(&pass).display()
    )));
    // A point that passes at once is not due.
    let out = dir
        .record_with("impl-b", &pass, &["--lessons", "lessons"])
        .status(0)
        .json();
    assert_eq!(
        (&out["lesson_due"], &out["lesson"]),
        (&json!(false), &Value::Null)
    );
    assert_eq!(files_under(&dir.path().join("lessons")).len(), 1);
}

/// A task id or subagent is user input: whatever it holds, the lesson is a
/// file directly inside `--lessons` (the folder is deep, so an escape would
/// land inside the test's folder and be seen).
#[test]
fn a_hostile_task_id_stays_inside_the_lessons_directory() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let hostile = [
        ("../../x", "../../y"),
        ("/tmp/abs", "a/../../b"),
        ("..", ".."),
        ("C:\\Windows\\x", "a:b"),
        ("*?<>|\" ", "CON"),
    ];
    for (task, subagent) in hostile {
        for _ in 0..2 {
            let out = dir
                .run(&[
                    "retry",
                    "record",
                    "--task",
                    task,
                    "--phase",
                    "fix",
                    "--subagent",
                    subagent,
                    "--evidence",
                    &ev,
                    "--state",
                    "state.json",
                    "--lessons",
                    "a/b/c/lessons",
                ])
                .status(0)
                .json();
            if out["lesson_due"] == false {
                continue;
            }
            let lesson = PathBuf::from(out["lesson"].as_str().unwrap());
            assert_eq!(
                lesson.parent(),
                Some(Path::new("a/b/c/lessons")),
                "{task:?}"
            );
            let name = lesson.file_name().unwrap().to_str().unwrap();
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
                "{name}"
            );
            let text = std::fs::read_to_string(dir.path().join(&lesson)).unwrap();
            assert_eq!(
                text.lines().next().unwrap(),
                format!("# Lesson: task {task:?}, phase fix, subagent {subagent:?}")
            );
        }
    }
    let files = files_under(dir.path());
    let outside: Vec<&String> = files
        .iter()
        .filter(|f| {
            !f.starts_with("a/b/c/lessons/")
                && !f.starts_with("ev/")
                && !f.starts_with("state.json")
        })
        .collect();
    assert!(outside.is_empty(), "{outside:?}");
    let lessons = files_under(&dir.path().join("a/b/c/lessons"));
    assert_eq!(lessons.len(), hostile.len(), "{lessons:?}");
    assert!(
        lessons
            .iter()
            .any(|l| l.ends_with("_.._.._x-fix-.._.._y.md")),
        "{lessons:?}"
    );
}

#[test]
fn two_points_of_one_file_name_get_two_lessons() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let mut lessons = Vec::new();
    for task in ["T/1", "T/1", "T:1", "T:1", "T/1"] {
        let out = dir
            .run(&[
                "retry",
                "record",
                "--task",
                task,
                "--phase",
                "verify",
                "--subagent",
                "a",
                "--evidence",
                &ev,
                "--state",
                "state.json",
                "--lessons",
                "l",
            ])
            .status(0)
            .json();
        if let Some(path) = out["lesson"].as_str() {
            let name = path.split_once('_').unwrap().1.to_string();
            lessons.push((task, name));
        }
    }
    // T/1's second and third failures find its lesson; T:1's name is T/1's,
    // so its lesson is the second file of the name.
    assert_eq!(
        lessons,
        [
            ("T/1", "T_1-verify-a.md".to_string()),
            ("T:1", "T_1-verify-a_2.md".to_string()),
            ("T/1", "T_1-verify-a.md".to_string()),
        ]
    );
    assert_eq!(files_under(&dir.path().join("l")).len(), 2);
}

#[test]
fn concurrent_records_of_one_point_write_one_whole_lesson() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    let children: Vec<std::process::Child> = (0..8)
        .map(|_| {
            command(
                dir.path(),
                &[
                    "retry",
                    "record",
                    "--task",
                    "T-1",
                    "--phase",
                    "verify",
                    "--subagent",
                    "a",
                    "--evidence",
                    &ev,
                    "--state",
                    "state.json",
                    "--lessons",
                    "lessons",
                ],
            )
            .spawn()
            .expect("spawn run-check")
        })
        .collect();
    let mut paths = std::collections::BTreeSet::new();
    let mut due = 0;
    for child in children {
        let output = child.wait_with_output().expect("wait");
        let out: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        if out["lesson_due"] == true {
            due += 1;
            paths.insert(out["lesson"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(due, 7);
    assert_eq!(paths.len(), 1, "{paths:?}");
    let files = files_under(&dir.path().join("lessons"));
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(dir.path().join(paths.first().unwrap())).unwrap();
    assert!(text.starts_with("# Lesson: task \"T-1\", phase verify, subagent \"a\"\n"));
    assert!(text.ends_with("\n## root_cause\n\n## fix\n\n## prevention\n"));
    // Written at the point's second failure, whichever process that was.
    assert!(text.contains(" after 2 failed attempts "), "{text}");
}

#[test]
fn a_bad_lessons_path_is_an_error_and_writes_nothing() {
    let dir = Dir::new();
    let ev = dir.evidence("fail", 1);
    dir.write("taken", "a file");
    let line = dir
        .record_with("a", &ev, &["--lessons", "taken"])
        .error_line();
    assert_eq!(line, "error: --lessons `taken` is not a directory");
    assert!(!dir.path().join("state.json").exists());
    // A folder that cannot be created, once a lesson is due: the record is
    // not kept either (the state is written after the lesson).
    dir.record("a", &ev).status(0);
    let before = std::fs::read(dir.path().join("state.json")).unwrap();
    let line = dir
        .record_with("a", &ev, &["--lessons", "taken/sub"])
        .error_line();
    assert!(
        line.starts_with("error: failed to create the lessons directory `taken/sub`: "),
        "{line}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("state.json")).unwrap(),
        before
    );
    assert_eq!(
        dir.names(),
        ["ev", "state.json", "state.json.lock", "taken"]
    );
}

/// The text outputs show an evidence's banner as every human report does:
/// a hand-made evidence cannot put terminal escapes on the terminal.
#[test]
fn text_outputs_never_replay_escapes_of_the_evidence() {
    let dir = Dir::new();
    let mut hostile = evidence(1);
    hostile["summary"]["banner"] = Value::String(
        "1 of 3 checks failed: \u{1b}[2J\u{1b}]0;owned\u{7}test\n::error::forged".into(),
    );
    dir.write("ev/hostile.json", &hostile.to_string());
    for args in [
        vec![
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "verify",
            "--subagent",
            "a",
            "--evidence",
            "ev/hostile.json",
            "--state",
            "state.json",
            "--format",
            "text",
        ],
        vec!["retry", "status", "--state", "state.json"],
    ] {
        let out = dir.run(&args).status(0);
        assert!(
            !out.stdout.contains('\u{1b}') && !out.stdout.contains('\u{7}'),
            "{:?}",
            out.stdout
        );
        assert!(!out.stdout.contains("\n::error::"), "{:?}", out.stdout);
        assert!(out.stdout.contains("test"), "{:?}", out.stdout);
    }
}
