//! A real agent loop driven end to end through the binary (docs/agent-loop.md):
//! a small Python project in git, three candidate worktrees of one task
//! with different defects, three rounds of `run-check candidates`, and per
//! round the route, recommendation, stall type, retry decision, issue ids
//! and ranking of `index.json`, each computed by hand below.
//!
//! The project: `calc.py` has a bug (`add` subtracts); the task is to fix
//! it (`files_involved: ["calc.py"]`, based on `main`). Its gate
//! (checks.toml, `[retry] max_retries = 2`, the judge's defaults):
//! - `unit`: `python3 -B -m unittest -q`, quality, severity high;
//! - `cheats`: the built-in scan `placeholder-asserts` over `test_*.py`,
//!   security, severity critical.
//!
//! No check is performance, so its weight is shared out (judge rule
//! "null dimensions"): security 0.4 / 0.75, quality 0.35 / 0.75. Hence:
//! - security 100, quality 0: 100 * 0.4 / 0.75 = 53.333… → 53.33
//! - security 0, quality 100: 100 * 0.35 / 0.75 = 46.666… → 46.67
//! - both 100: 100; quality alone scored (100): 100.
//!
//! The candidates (each gated by its own checks.toml, so a weakened one is
//! seen as a changed gate):
//! - `c1` "a failing test": `add` multiplies (6 != 5), and stays so.
//! - `c2` "a cheat caught by a scan": round 1 replaces the assertion by
//!   `self.assertTrue(True)`; round 2 restores it and fixes `add`.
//! - `c3` "a weakened checks.toml and a change over budget": round 1 fixes
//!   `add`, drops the `cheats` check from its checks.toml and adds a
//!   450-line data file; round 2 restores checks.toml but breaks `add`
//!   again; round 3 fixes it (the data file stays).

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{bin, git};

const CHECKS: &str = r#"version = 1

[settings]
allow = ["python3"]

[[check]]
name = "unit"
run = ["python3", "-B", "-m", "unittest", "-q"]
severity = "high"

[[check]]
name = "cheats"
scan = { paths = ["test_*.py"], rules = ["placeholder-asserts"] }
dimension = "security"
severity = "critical"

[retry]
max_retries = 2
"#;

/// `CHECKS` without the `cheats` check: what c3 weakens its gate to.
fn weakened() -> String {
    let (before, after) = CHECKS.split_once("[[check]]\nname = \"cheats\"").unwrap();
    let (_, rest) = after.split_once("[retry]").unwrap();
    format!("{before}[retry]{rest}")
}

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n";
const TEST: &str = "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";

struct Loop {
    dir: TempDir,
}

impl Loop {
    /// The repository `repo/` (branch `main`), the task, and the three
    /// candidate worktrees beside it.
    fn new() -> Loop {
        let python = Command::new("python3").arg("--version").output();
        assert!(
            python.is_ok_and(|o| o.status.success()),
            "this test runs a real Python project: python3 must be on PATH"
        );
        let dir = tempfile::Builder::new()
            .prefix("run-check-loop-")
            .tempdir()
            .unwrap();
        let l = Loop { dir };
        let repo = l.path("repo");
        std::fs::create_dir(&repo).unwrap();
        for (file, text) in [
            ("checks.toml", CHECKS),
            ("calc.py", BUGGY),
            ("test_calc.py", TEST),
        ] {
            std::fs::write(repo.join(file), text).unwrap();
        }
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let task = json!({
            "id": "T-1", "title": "Fix add", "description": "add(2, 3) must be 5",
            "risk": "medium", "parallel_count": 3,
            "acceptance": {"commands": ["run-check --mode strict --format json"],
                           "criteria": ["add adds"]},
            "estimated_loc": 20, "files_involved": ["calc.py"],
            "public_contracts_touched": "N/A", "base": "main"
        });
        std::fs::write(l.path("task.json"), task.to_string()).unwrap();
        for c in ["c1", "c2", "c3"] {
            let path = l.path(c);
            git(
                &repo,
                &["worktree", "add", "-q", "--detach", path.to_str().unwrap()],
            );
        }
        l
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `text` to `file` of candidate `c`.
    fn write(&self, c: &str, file: &str, text: &str) {
        std::fs::write(self.path(c).join(file), text).unwrap();
    }

    /// One round: `run-check candidates` over the three worktrees.
    fn round(&self, expected_exit: i32) -> Value {
        let out: Output = Command::new(bin())
            .args([
                "candidates",
                "--task",
                "task.json",
                "--runs",
                "runs",
                "--jobs",
                "2",
                "--format",
                "json",
                "c1",
                "c2",
                "c3",
            ])
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(expected_exit),
            "--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let index: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(index, self.json("runs/T-1/index.json"));
        index
    }

    fn json(&self, path: &str) -> Value {
        let text = std::fs::read_to_string(self.path(path)).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Candidate `c`'s verdict of the last round, after the checks every
    /// verdict must pass: one next step, said the same way everywhere.
    fn verdict(&self, c: &str) -> Value {
        let v = self.json(&format!("runs/T-1/{c}/verdict.json"));
        assert_eq!(v["decision"]["next_agent"], v["route"]["next"], "{c}");
        assert_eq!(v["next_action"], v["route"]["action"], "{c}");
        v
    }

    fn feedback(&self, c: &str) -> String {
        std::fs::read_to_string(self.path(&format!("runs/T-1/{c}/feedback.md"))).unwrap()
    }
}

/// (id, rank, passed, overall score, route, retry decision, lines changed)
/// of each candidate of an index, in rank order.
type Row = (String, u64, bool, Value, String, String, u64);

fn rows(index: &Value) -> Vec<Row> {
    index["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["rank"].as_u64().unwrap(),
                c["passed"].as_bool().unwrap(),
                c["overall_score"].clone(),
                c["route"]["next"].as_str().unwrap().to_string(),
                c["retry_decision"].as_str().unwrap().to_string(),
                c["loc_changed"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn row(id: &str, rank: u64, passed: bool, score: f64, route: &str, retry: &str, loc: u64) -> Row {
    (
        id.into(),
        rank,
        passed,
        json!(score),
        route.into(),
        retry.into(),
        loc,
    )
}

/// The ids and fingerprints of a verdict's issues, most severe first.
fn ids(v: &Value) -> Vec<(String, String)> {
    ["critical", "high", "medium", "low"]
        .iter()
        .flat_map(|s| v["issues"][s].as_array().unwrap().clone())
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["fingerprint"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pair(id: &str, fingerprint: &str) -> (String, String) {
    (id.into(), fingerprint.into())
}

#[test]
fn three_candidates_over_three_rounds_of_the_loop() {
    let l = Loop::new();
    let cheat = "placeholder-asserts/python-assert-true:test_calc.py:8";

    // ---- Round 1 ----
    l.write("c1", "calc.py", "def add(a, b):\n    return a * b\n");
    l.write(
        "c2",
        "test_calc.py",
        &TEST.replace("self.assertEqual(add(2, 3), 5)", "self.assertTrue(True)"),
    );
    l.write("c3", "calc.py", FIXED);
    l.write("c3", "checks.toml", &weakened());
    l.write("c3", "data.txt", &"row\n".repeat(450));
    let index = l.round(1);
    assert_eq!(
        (&index["task_id"], &index["round"]),
        (&json!("T-1"), &json!(1))
    );
    // c1: unit fails (quality 0), cheats passes (security 100): 53.33. One
    //     High issue (the failed check), within max_high_issues 2, but
    //     quality 0 < 80: ITERATE (iteration 1 of 5, no earlier round);
    //     rule 8: IMPLEMENTER. Retry: 1 failure of max_retries 2: RETRY.
    //     Lines: calc.py, 1 added + 1 removed = 2.
    // c2: the cheat passes unit (quality 100) and fails the scan (security
    //     0): 46.67, one Critical issue > max_critical_issues 0: ITERATE,
    //     IMPLEMENTER, RETRY. Lines: test_calc.py, 2.
    // c3: its own checks run: unit passes, no security check: quality 100
    //     alone, 100. But checks.toml changed against `main` and the task
    //     does not involve it: a Critical `gate-changed` issue, so not
    //     passed: ITERATE, and rule 3 (a changed gate) → USER before rule 4
    //     (its budget is exceeded too). Its gate exited 0: RESOLVED.
    //     Lines: checks.toml 6 removed, calc.py 2, data.txt 450 = 458.
    // Ranking: nobody passed; by score: c3 100, c1 53.33, c2 46.67.
    assert_eq!(
        rows(&index),
        [
            row("c3", 1, false, 100.0, "USER", "RESOLVED", 458),
            row("c1", 2, false, 53.33, "IMPLEMENTER", "RETRY", 2),
            row("c2", 3, false, 46.67, "IMPLEMENTER", "RETRY", 2),
        ]
    );
    let v1 = l.verdict("c1");
    assert_eq!(
        (
            &v1["recommendation"],
            &v1["progress"]["stall_type"],
            &v1["iteration"]
        ),
        (&json!("ITERATE"), &Value::Null, &json!(1))
    );
    assert_eq!(ids(&v1), [pair("QA-001", "unit:unknown:unknown")]);
    assert_eq!(
        v1["route"]["action"],
        "Fix QA-001 (High) and run the checks again"
    );
    // The feedback quotes the failed test's assertion.
    let feedback = l.feedback("c1");
    assert!(feedback.contains("AssertionError: 6 != 5"), "{feedback}");
    assert!(
        feedback.contains("self.assertEqual(add(2, 3), 5)"),
        "{feedback}"
    );
    let v2 = l.verdict("c2");
    assert_eq!(v2["recommendation"], "ITERATE");
    assert_eq!(ids(&v2), [pair("SEC-001", cheat)]);
    let feedback = l.feedback("c2");
    assert!(
        feedback
            .contains("**[placeholder-asserts/python-assert-true]** - test_calc.py:8 (SEC-001)")
            && feedback.contains("assert on the behaviour under test"),
        "{feedback}"
    );
    let v3 = l.verdict("c3");
    assert_eq!(
        (&v3["recommendation"], &v3["passed"], &v3["overall_score"]),
        (&json!("ITERATE"), &json!(false), &json!(100.0))
    );
    assert_eq!(
        ids(&v3),
        [pair("QA-001", "gate-changed:checks.toml:unknown")]
    );
    assert_eq!(
        v3["route"]["reason"],
        "the gate itself changed: checks.toml"
    );
    let evidence = l.json("runs/T-1/c3/run-check.json");
    assert_eq!(evidence["summary"]["exit_code"], 0);
    assert_eq!(evidence["contracts"]["change_budget"]["exceeded"], true);
    assert!(
        l.feedback("c3")
            .contains("**USER** (a person, who must decide)")
    );

    // ---- Round 2 ----
    l.write("c2", "test_calc.py", TEST);
    l.write("c2", "calc.py", FIXED);
    l.write("c3", "checks.toml", CHECKS);
    l.write("c3", "calc.py", "def add(a, b):\n    return b - a\n");
    let index = l.round(0);
    assert_eq!(index["round"], 2);
    // c1: unchanged, 53.33 again: improvement 0 (stable, stall_warning),
    //     but STALLED_SCORE needs 2 earlier scored rounds: ITERATE,
    //     IMPLEMENTER. Its issue's fingerprint was in round 1: QA-001
    //     again. Retry: 2 failures, not past 2: RETRY.
    // c2: every check passes, 100, no issue: PASS → FINISH; RESOLVED.
    //     Lines: calc.py only, 2.
    // c3: checks.toml restored (no gate change), cheats passes (security
    //     100), unit fails (quality 0): 53.33. Quality fell from 100 to 0
    //     (> 10 points): STALLED_REGRESSION (iteration 2, the other stalls
    //     need more rounds). Rule 4 before rule 7: the change (2 files,
    //     calc.py 2 + data.txt 450 = 452 lines > 400) is over budget →
    //     SUBTASK. The failed check's fingerprint is new, and QA-001 named
    //     round 1's gate change: QA-002. Retry: first failure: RETRY.
    // Ranking: c2 passed; c1 and c3 tie at 53.33, fewer lines first.
    assert_eq!(
        rows(&index),
        [
            row("c2", 1, true, 100.0, "FINISH", "RESOLVED", 2),
            row("c1", 2, false, 53.33, "IMPLEMENTER", "RETRY", 2),
            row("c3", 3, false, 53.33, "SUBTASK", "RETRY", 452),
        ]
    );
    let v1 = l.verdict("c1");
    assert_eq!(
        (
            &v1["recommendation"],
            &v1["progress"]["trend"],
            &v1["progress"]["stall_warning"]
        ),
        (&json!("ITERATE"), &json!("stable"), &json!(true))
    );
    assert_eq!(ids(&v1), [pair("QA-001", "unit:unknown:unknown")]);
    assert_eq!(v1["progress"]["persistent_issues"], json!(["QA-001"]));
    let v2 = l.verdict("c2");
    assert_eq!(
        (
            &v2["recommendation"],
            &v2["iteration"],
            &v2["progress"]["trend"]
        ),
        (&json!("PASS"), &json!(2), &json!("improving"))
    );
    assert_eq!(v2["progress"]["improvement"], 53.33);
    let v3 = l.verdict("c3");
    assert_eq!(
        (&v3["recommendation"], &v3["progress"]["stall_type"]),
        (&json!("STALLED"), &json!("STALLED_REGRESSION"))
    );
    assert_eq!(
        v3["progress"]["regressions"],
        json!([{"dimension": "quality", "previous": 100.0, "current": 0.0, "drop": 100.0}])
    );
    assert_eq!(ids(&v3), [pair("QA-002", "unit:unknown:unknown")]);
    assert_eq!(
        v3["route"]["reason"],
        "the change exceeds its budget (2 files changed, at most 10; 452 lines changed, at most 400)"
    );

    // ---- Round 3 ----
    l.write("c3", "calc.py", FIXED);
    let index = l.round(0);
    assert_eq!(index["round"], 3);
    // c1: unchanged: 3 failures, past max_retries 2: the retry tracker
    //     says SUBTASK. The judge: improvements 0 and 0, each < 5 over
    //     stall_rounds 2 rounds: STALLED_SCORE; rule 5 (the retry state)
    //     comes before rule 7: SUBTASK. Still QA-001.
    // c2: unchanged, PASS, FINISH, RESOLVED.
    // c3: every check passes, 100: PASS. Rule 2 before rule 4: over its
    //     budget, it still finishes; RESOLVED.
    // Ranking: c2 and c3 passed with 100: fewer lines first (2 < 452).
    assert_eq!(
        rows(&index),
        [
            row("c2", 1, true, 100.0, "FINISH", "RESOLVED", 2),
            row("c3", 2, true, 100.0, "FINISH", "RESOLVED", 452),
            row("c1", 3, false, 53.33, "SUBTASK", "SUBTASK", 2),
        ]
    );
    let v1 = l.verdict("c1");
    assert_eq!(
        (
            &v1["recommendation"],
            &v1["progress"]["stall_type"],
            &v1["iteration"]
        ),
        (&json!("STALLED"), &json!("STALLED_SCORE"), &json!(3))
    );
    assert_eq!(
        v1["route"]["reason"],
        "failure point T-1/verify/c1 failed 3 times, more than max_retries 2"
    );
    assert_eq!(ids(&v1), [pair("QA-001", "unit:unknown:unknown")]);
    assert_eq!(l.verdict("c3")["recommendation"], "PASS");

    // Every round left one verdict per candidate in its history, and the
    // retry state counted every failure.
    for c in ["c1", "c2", "c3"] {
        let text = std::fs::read_to_string(l.path(&format!("runs/T-1/{c}/history.jsonl"))).unwrap();
        let iterations: Vec<u64> = text
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line).unwrap()["iteration"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(iterations, [1, 2, 3], "{c}");
    }
    let state = l.json("runs/T-1/retry-state.json");
    let counts: Vec<(String, u64)> = state["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["subagent"].as_str().unwrap().to_string(),
                p["retry_count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("c1".to_string(), 3),
            ("c2".to_string(), 1),
            ("c3".to_string(), 1)
        ]
    );
}
