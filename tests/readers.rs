//! One evidence reader: judge, merge, retry, report and a run's `--timings`
//! read the same document the same way. A whole number written as a float
//! (`0.0`) is an integer; a fraction, an unknown field or a missing one is
//! the same one-line error in all five, naming the file and the JSON path.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Test, bin};

/// The real evidence of a passing run with one check (its config
/// committed: an uncommitted gate is a changed one, which the judge never
/// passes).
fn real_evidence() -> (Test, Value) {
    let test = Test::new().config(
        "version = 1\n[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"ok\"\nrun = [\"true\"]\n",
    );
    crate::support::git(test.path(), &["add", "checks.toml"]);
    crate::support::git(test.path(), &["commit", "-q", "-m", "gate"]);
    let run = test
        .args(&["--format", "json", "--out", "ev.json", "--quiet"])
        .run()
        .status(0);
    let evidence = run.json_file("ev.json");
    (Test::bare(), evidence)
}

/// Exit code and stderr of each reader (judge, merge, retry record,
/// report, a sharded run's `--timings`) of `file` in `dir`.
fn read_by_all(dir: &Path, file: &str) -> Vec<(&'static str, Option<i32>, String)> {
    // The run timed by `file` gates a folder of its own with one passing check.
    std::fs::create_dir_all(dir.join("gate")).unwrap();
    std::fs::write(
        dir.join("gate/checks.toml"),
        "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"ok\"\nrun = [\"true\"]\n",
    )
    .unwrap();
    let commands: [(&str, Vec<&str>); 5] = [
        ("judge", vec!["judge", file]),
        ("merge", vec!["merge", file]),
        (
            "retry",
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
                file,
                "--state",
                "state.json",
            ],
        ),
        ("report", vec!["report", file, "--format", "json"]),
        (
            "--timings",
            vec![
                "--shard",
                "1/1",
                "--timings",
                file,
                "--worktree",
                "gate",
                "--quiet",
                "--out",
                "gate.json",
            ],
        ),
    ];
    commands
        .into_iter()
        .map(|(name, args)| {
            let out = Command::new(bin())
                .args(args)
                .current_dir(dir)
                .output()
                .expect("run-check runs");
            (
                name,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect()
}

#[test]
fn a_whole_number_as_a_float_is_an_integer_for_every_reader() {
    let (test, mut evidence) = real_evidence();
    evidence["checks"][0]["exit_code"] = json!(0.0);
    evidence["summary"]["exit_code"] = json!(0.0);
    evidence["summary"]["total"] = json!(1.0);
    std::fs::write(test.path().join("ev.json"), evidence.to_string()).unwrap();
    for (reader, code, stderr) in read_by_all(test.path(), "ev.json") {
        assert_eq!(code, Some(0), "{reader}: {stderr}");
    }
}

#[test]
fn bad_evidence_is_the_same_error_in_every_reader() {
    let (test, evidence) = real_evidence();
    let cases: [(&str, &str, Value, &str); 4] = [
        (
            "/checks/0",
            "exit_code",
            json!(0.5),
            "error: ev.json: $.checks[0].exit_code: expected an integer, found number 0.5",
        ),
        (
            "/checks/0",
            "exit_codes",
            json!(0),
            "error: ev.json: $.checks[0].exit_codes: unknown field (expected name, status, \
             command, program, dimension, severity, exit_code, duration_ms, timed_out, \
             stdout_excerpt, stderr_excerpt, stdout_bytes, stderr_bytes, excerpt_truncated, \
             artifacts, diagnostics_count, diagnostics_dropped, score, skip_reason, error, \
             data, leaked, config_line, started_ms, flaky, attempts, attempt_log, \
             baseline_suppressed, cache or remote)",
        ),
        (
            "",
            "mode",
            json!("quick"),
            "error: ev.json: $.mode: expected one of \"fast\", \"strict\", found \"quick\"",
        ),
        (
            "/summary",
            "exit_code",
            Value::Null,
            "error: ev.json: $.summary.exit_code: missing required field",
        ),
    ];
    for (parent, key, value, expected) in cases {
        let mut bad = evidence.clone();
        let object = bad.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        if value.is_null() {
            object.remove(key);
        } else {
            object.insert(key.into(), value);
        }
        std::fs::write(test.path().join("ev.json"), bad.to_string()).unwrap();
        for (reader, code, stderr) in read_by_all(test.path(), "ev.json") {
            assert_eq!(code, Some(2), "{reader}: {stderr}");
            assert_eq!(stderr, format!("{expected}\n"), "{reader}");
        }
        assert!(!test.path().join("state.json").exists());
    }
}

#[test]
fn evidence_of_an_earlier_version_reads_with_its_defaults() {
    let (test, mut evidence) = real_evidence();
    crate::support::first_version(&mut evidence);
    std::fs::write(test.path().join("ev.json"), evidence.to_string()).unwrap();
    for (reader, code, stderr) in read_by_all(test.path(), "ev.json") {
        assert_eq!(code, Some(0), "{reader}: {stderr}");
    }
    let merged = Command::new(bin())
        .args(["merge", "ev.json"])
        .current_dir(test.path())
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(merged["checks"][0]["severity"], "high");
    assert_eq!(merged["checks"][0]["diagnostics_dropped"], 0);
    assert_eq!(merged["checks"][0]["leaked"], json!([]));
    assert_eq!(merged["checks"][0]["config_line"], Value::Null);
    assert_eq!(merged["checks"][0]["started_ms"], Value::Null);
    assert_eq!(merged["checks"][0]["flaky"], false);
    assert_eq!(merged["checks"][0]["attempts"], 1);
    assert_eq!(merged["checks"][0]["attempt_log"], json!([]));
    assert_eq!(merged["checks"][0]["baseline_suppressed"], 0);
    assert_eq!(merged["summary"]["baseline"], Value::Null);
    assert_eq!(merged["contracts"]["gate"], Value::Null);
}
