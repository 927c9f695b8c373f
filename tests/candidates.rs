//! `run-check candidates` (docs/candidates.md): three candidate worktrees
//! (one passes, one fails a check, one passes over the task's budget) ranked
//! with every file written; a second round continuing the histories and
//! retry counts; a trusted `--config`, which still watches the scripts it
//! runs from a candidate; two rounds at once losing nothing; bad input
//! (a task without `base` too) writing nothing; the `--jobs` budget shared
//! across the gates; and the attacks on a candidate's verdict: a forged
//! evidence with its gate killed, a baseline regenerated and committed, a
//! gate stopped by its own check (SIGSTOP), a rule file that a trusted
//! config declares with `[gate] files` edited, added or deleted.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{bin, git};

/// The base project: two checks, `feature` (feature.txt exists) and
/// `no-bug` (bug.txt does not).
pub(crate) const CHECKS: &str = r#"[settings]
allow = ["test"]

[[check]]
name = "feature"
run = ["test", "-f", "feature.txt"]

[[check]]
name = "no-bug"
run = ["test", "!", "-f", "bug.txt"]
"#;

/// A folder holding the base repository `repo/`, candidate worktrees beside
/// it, the task and the runs folder.
pub(crate) struct Project {
    dir: TempDir,
}

impl Project {
    /// The base repository (one commit, branch `main`) and the task file.
    pub(crate) fn new(checks: &str) -> Project {
        let dir = tempfile::Builder::new()
            .prefix("run-check-candidates-")
            .tempdir()
            .unwrap();
        let project = Project { dir };
        let repo = project.path("repo");
        std::fs::create_dir(&repo).unwrap();
        std::fs::write(repo.join("checks.toml"), checks).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        project.task("T-7");
        project
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `task.json` with this id and base `main`. The checks name
    /// `feature.txt` and `bug.txt`, which makes them gate files (a file a
    /// check's argument names): the task declares both, so creating them
    /// is no changed gate.
    fn task(&self, id: &str) {
        let task = serde_json::json!({
            "id": id, "title": "Add the feature", "description": "feature.txt",
            "risk": "low", "parallel_count": 3,
            "acceptance": {"commands": ["run-check --mode strict --format json"],
                           "criteria": ["feature.txt exists"]},
            "estimated_loc": 10, "files_involved": ["feature.txt", "bug.txt"],
            "public_contracts_touched": ["N/A"], "base": "main"
        });
        std::fs::write(self.path("task.json"), task.to_string()).unwrap();
    }

    /// A worktree `name` of the repository with these files written.
    fn candidate(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let path = self.path(name);
        git(
            &self.path("repo"),
            &["worktree", "add", "-q", "--detach", path.to_str().unwrap()],
        );
        for (file, text) in files {
            std::fs::write(path.join(file), text).unwrap();
        }
        path
    }

    /// The three candidates of the main test.
    fn three(&self) {
        self.candidate("c-pass", &[("feature.txt", "done\n")]);
        self.candidate("c-fail", &[("feature.txt", "done\n"), ("bug.txt", "bug\n")]);
        self.candidate("c-big", &[("feature.txt", &"line\n".repeat(500))]);
    }

    /// `run-check candidates ARGS` started in the project folder.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(bin());
        command
            .arg("candidates")
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn json(&self, path: &str) -> Value {
        let text =
            std::fs::read_to_string(self.path(path)).unwrap_or_else(|e| panic!("read {path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
    }

    fn lines(&self, path: &str) -> usize {
        std::fs::read_to_string(self.path(path))
            .unwrap()
            .lines()
            .count()
    }

    /// The retry state's points as (subagent, retry_count, attempts).
    fn retries(&self) -> Vec<(String, u64, usize)> {
        let state = self.json("runs/T-7/retry-state.json");
        let mut points: Vec<(String, u64, usize)> = state["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["subagent"].as_str().unwrap().to_string(),
                    p["retry_count"].as_u64().unwrap(),
                    p["attempts"].as_array().unwrap().len(),
                )
            })
            .collect();
        points.sort();
        points
    }
}

#[track_caller]
fn code(output: &Output, expected: i32) {
    assert_eq!(
        output.status.code(),
        Some(expected),
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

const THREE: [&str; 3] = ["c-pass", "c-fail", "c-big"];

#[test]
fn candidates_ranked_with_their_files_and_a_second_round_continues() {
    let p = Project::new(CHECKS);
    p.three();
    let args = ["--task", "task.json", "--format", "json", "--jobs", "4"];
    let out = p.run(&[&args[..], &THREE].concat());
    code(&out, 0);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(index, p.json("runs/T-7/index.json"), "stdout is the index");
    assert_eq!(index["task_id"], "T-7");
    assert_eq!(index["round"], 1);
    let ids: Vec<&str> = index["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c-pass", "c-big", "c-fail"]);
    let c = &index["candidates"];
    assert_eq!(
        (&c[0]["rank"], &c[0]["passed"], &c[0]["exit_code"]),
        (&1.into(), &true.into(), &0.into())
    );
    assert_eq!(c[0]["retry_decision"], "RESOLVED");
    assert_eq!(c[0]["route"]["next"], "FINISH");
    assert_eq!(
        (&c[0]["files_changed"], &c[0]["loc_changed"]),
        (&1.into(), &1.into())
    );
    assert_eq!(c[0]["dir"], "runs/T-7/c-pass");
    // Over the budget: passes its checks, ranks behind on its lines.
    assert_eq!(
        (&c[1]["passed"], &c[1]["loc_changed"]),
        (&true.into(), &500.into())
    );
    let big = p.json("runs/T-7/c-big/run-check.json");
    assert_eq!(big["contracts"]["change_budget"]["exceeded"], true);
    assert_eq!(
        (&c[2]["passed"], &c[2]["exit_code"]),
        (&false.into(), &1.into())
    );
    assert_eq!(c[2]["retry_decision"], "RETRY");
    assert_eq!(c[2]["banner"], "1 of 2 checks failed: no-bug");
    assert_eq!(c[2]["route"]["next"], "IMPLEMENTER");
    assert!(c[2]["overall_score"].as_f64().unwrap() < c[0]["overall_score"].as_f64().unwrap());
    // Every candidate's files.
    for id in THREE {
        for file in [
            "task.json",
            "run-check.json",
            "run-check.txt",
            "changeset.txt",
            "verdict.json",
            "history.jsonl",
            "feedback.md",
        ] {
            assert!(
                p.path(&format!("runs/T-7/{id}/{file}")).is_file(),
                "{id}/{file}"
            );
        }
        assert_eq!(p.lines(&format!("runs/T-7/{id}/history.jsonl")), 1);
        assert_eq!(
            p.json(&format!("runs/T-7/{id}/verdict.json"))["iteration"],
            1
        );
        assert_eq!(
            std::fs::read(p.path(&format!("runs/T-7/{id}/task.json"))).unwrap(),
            std::fs::read(p.path("task.json")).unwrap()
        );
    }
    let report = std::fs::read_to_string(p.path("runs/T-7/c-fail/run-check.txt")).unwrap();
    assert!(
        report.trim_end().ends_with("1 of 2 checks failed: no-bug"),
        "{report}"
    );
    let changeset = std::fs::read_to_string(p.path("runs/T-7/c-fail/changeset.txt")).unwrap();
    assert_eq!(
        changeset,
        "changes against `main`: 2 files, +2 -0\n     +1      -0  bug.txt (untracked)\n     \
         +1      -0  feature.txt (untracked)\n"
    );
    let feedback = std::fs::read_to_string(p.path("runs/T-7/c-fail/feedback.md")).unwrap();
    assert!(feedback.contains("no-bug"), "{feedback}");
    let md = std::fs::read_to_string(p.path("runs/T-7/index.md")).unwrap();
    assert!(md.contains("| 1 | `c-pass` | 0 |"), "{md}");
    assert_eq!(
        p.retries(),
        [
            ("c-big".into(), 0, 1),
            ("c-fail".into(), 1, 1),
            ("c-pass".into(), 0, 1)
        ]
    );
    let state = p.json("runs/T-7/retry-state.json");
    assert!(
        state["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["task_id"] == "T-7" && p["phase"] == "verify")
    );

    // Round 2 (text output): histories and retry counts go on.
    let out = p.run(&[&["--task", "task.json"][..], &THREE].concat());
    code(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("task `T-7`, round 2"), "{text}");
    assert!(
        text.contains("2 of 3 candidates passed; best: c-pass"),
        "{text}"
    );
    assert_eq!(p.json("runs/T-7/index.json")["round"], 2);
    for id in THREE {
        assert_eq!(p.lines(&format!("runs/T-7/{id}/history.jsonl")), 2);
        assert_eq!(
            p.json(&format!("runs/T-7/{id}/verdict.json"))["iteration"],
            2
        );
    }
    assert_eq!(
        p.retries(),
        [
            ("c-big".into(), 0, 2),
            ("c-fail".into(), 2, 2),
            ("c-pass".into(), 0, 2)
        ]
    );
    // No evidence file of a round is left behind.
    let left: Vec<_> = std::fs::read_dir(p.path("runs/T-7/c-pass"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("run-check.round") || name.starts_with(".run-check-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_trusted_config_gates_a_candidate_that_weakened_its_own() {
    let p = Project::new(CHECKS);
    std::fs::write(p.path("trusted.toml"), CHECKS).unwrap();
    // The candidate drops the `no-bug` check from its own checks.toml.
    let weak = CHECKS
        .split("\n[[check]]\nname = \"no-bug\"")
        .next()
        .unwrap();
    p.candidate(
        "weak",
        &[
            ("feature.txt", "x\n"),
            ("bug.txt", "x\n"),
            ("checks.toml", weak),
        ],
    );
    // Gated by its own (weakened) config, its checks pass (exit 0), but a
    // changed gate is a Critical issue: not passed, and a person decides.
    let out = p.run(&["--task", "task.json", "--format", "json", "weak"]);
    code(&out, 1);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let weak_entry = &index["candidates"][0];
    assert_eq!(
        (
            &weak_entry["exit_code"],
            &weak_entry["passed"],
            &weak_entry["route"]["next"]
        ),
        (&json!(0), &json!(false), &json!("USER"))
    );
    assert_eq!(
        weak_entry["route"]["reason"],
        "the gate itself changed: checks.toml"
    );
    let out = p.run(&[
        "--task",
        "task.json",
        "--format",
        "json",
        "--config",
        "trusted.toml",
        "weak",
    ]);
    code(&out, 1);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        index["candidates"][0]["banner"],
        "1 of 2 checks failed: no-bug"
    );
    let evidence = p.json("runs/T-7/weak/run-check.json");
    assert!(
        evidence["meta"]["config"]["path"]
            .as_str()
            .unwrap()
            .ends_with("trusted.toml")
    );
}

#[test]
fn a_candidate_whose_gate_cannot_start_is_an_error_of_its_own() {
    let p = Project::new(CHECKS);
    p.candidate("c-pass", &[("feature.txt", "done\n")]);
    p.candidate("broken", &[("checks.toml", "[settings\n")]);
    let out = p.run(&[
        "--task",
        "task.json",
        "--format",
        "json",
        "c-pass",
        "broken",
    ]);
    code(&out, 0);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let broken = &index["candidates"][1];
    assert_eq!(
        (&broken["id"], &broken["exit_code"]),
        (&"broken".into(), &2.into())
    );
    assert!(
        broken["banner"].as_str().unwrap().contains("checks.toml"),
        "{broken}"
    );
    assert_eq!(broken["retry_decision"], Value::Null);
    assert_eq!(broken["route"]["next"], "USER");
    assert!(p.path("runs/T-7/broken/feedback.md").is_file());
    assert!(!p.path("runs/T-7/broken/verdict.json").exists());
}

#[test]
fn two_rounds_at_once_lose_no_history_line_and_no_retry_count() {
    let p = Project::new(CHECKS);
    p.three();
    let args = [&["--task", "task.json", "--jobs", "2"][..], &THREE].concat();
    let first = p.command(&args).spawn().unwrap();
    let second = p.command(&args).spawn().unwrap();
    for child in [first, second] {
        code(&child.wait_with_output().unwrap(), 0);
    }
    for id in THREE {
        let history =
            std::fs::read_to_string(p.path(&format!("runs/T-7/{id}/history.jsonl"))).unwrap();
        let mut iterations: Vec<u64> = history
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["iteration"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        iterations.sort();
        assert_eq!(iterations, [1, 2], "{id}");
    }
    assert_eq!(
        p.retries(),
        [
            ("c-big".into(), 0, 2),
            ("c-fail".into(), 2, 2),
            ("c-pass".into(), 0, 2)
        ]
    );
    // The index is whole, and the latest round's.
    let index = p.json("runs/T-7/index.json");
    assert_eq!(index["round"], 2);
    assert_eq!(index["candidates"].as_array().unwrap().len(), 3);
}

#[test]
fn bad_input_is_one_line_naming_the_argument_and_writes_nothing() {
    let p = Project::new(CHECKS);
    p.candidate("a", &[]);
    let cases: [(&[&str], &str); 6] = [
        (&["--task", "missing.json", "a"], "missing.json"),
        (&["--task", "task.json", "a", "a"], "candidate `a`"),
        (
            &["--task", "task.json", "x=a", "x=repo"],
            "candidate `x=repo`",
        ),
        (&["--task", "task.json", "../x=a"], "candidate `../x=a`"),
        (
            &["--task", "task.json", "no-such-dir"],
            "candidate `no-such-dir`",
        ),
        (
            &["--task", "task.json", "--config", "nope.toml", "a"],
            "nope.toml",
        ),
    ];
    for (args, named) in cases {
        let out = p.run(args);
        code(&out, 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!p.path("runs").exists(), "{args:?} wrote runs/");
    }
    // A task id that is no folder name never writes outside DIR.
    p.task("../escape");
    let out = p.run(&["--task", "task.json", "--runs", "runs", "a"]);
    code(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("task.json: $.id"), "{stderr}");
    assert!(!p.path("runs").exists() && !p.path("escape").exists());
    // Runs inside a candidate would change what its gate sees.
    p.task("T-7");
    let out = p.run(&["--task", "task.json", "--runs", "a/runs", "a"]);
    code(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--runs `a/runs`"));
    assert!(!p.path("a/runs").exists());
    // Also through a symbolic link to the candidate.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(p.path("a"), p.path("link")).unwrap();
        let out = p.run(&["--task", "task.json", "--runs", "link/runs", "a"]);
        code(&out, 2);
        assert!(!p.path("a/runs").exists());
    }
}

/// A check that records when it ran: `stamp.sh NAME` writes its start and
/// end times (ns) to `LOG/NAME.<pid>` around a 0.3 s sleep.
#[cfg(unix)]
fn stamp_script(log: &std::path::Path) -> String {
    format!(
        "#!/bin/sh\nf={log}/$1.$$\ndate +%s%N > \"$f.start\"\nsleep 0.3\ndate +%s%N > \"$f.end\"\n",
        log = log.display()
    )
}

/// The most stamped intervals of `log` that overlap at any moment.
#[cfg(unix)]
fn most_at_once(log: &std::path::Path) -> (usize, usize) {
    let mut events: Vec<(u128, i32)> = Vec::new();
    let mut runs = 0;
    for entry in std::fs::read_dir(log).unwrap() {
        let path = entry.unwrap().path();
        let time: u128 = std::fs::read_to_string(&path)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            // An end sorts before a start at the same instant.
            Some("start") => {
                events.push((time, 1));
                runs += 1;
            }
            _ => events.push((time, -1)),
        }
    }
    events.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    (usize::try_from(most).unwrap(), runs)
}

#[cfg(unix)]
#[test]
fn the_jobs_budget_is_shared_by_every_gate() {
    use std::os::unix::fs::PermissionsExt;
    let mut checks = String::from("[settings]\nallow = [\"./stamp.sh\"]\n");
    for n in 1..=4 {
        checks.push_str(&format!(
            "\n[[check]]\nname = \"s{n}\"\nrun = [\"./stamp.sh\", \"s{n}\"]\n"
        ));
    }
    let p = Project::new(&checks);
    let log = p.path("log");
    std::fs::create_dir(&log).unwrap();
    // The script is committed, so the candidates change nothing.
    let script = p.path("repo/stamp.sh");
    std::fs::write(&script, stamp_script(&log)).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(&p.path("repo"), &["add", "stamp.sh"]);
    git(&p.path("repo"), &["commit", "-q", "-m", "stamp"]);
    for id in ["a", "b", "c"] {
        p.candidate(id, &[]);
    }
    // --jobs 2: two gates at once, one check each (no pool); --jobs 4:
    // three gates, one token in the pool (without it they could run 6).
    for (jobs, cap) in [("2", 2), ("4", 4)] {
        for entry in std::fs::read_dir(&log).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        let out = p.run(&["--task", "task.json", "--jobs", jobs, "a", "b", "c"]);
        code(&out, 0);
        let (most, runs) = most_at_once(&log);
        assert_eq!(runs, 12, "--jobs {jobs}");
        assert!(most <= cap, "--jobs {jobs}: {most} checks ran at once");
        assert!(most >= 2, "--jobs {jobs}: the budget was not used ({most})");
    }
}

/// SIGTERM to `candidates` reaches its gates, and through them their
/// checks: nothing it started outlives it, and it ends with 130 after
/// writing what finished.
#[cfg(unix)]
#[test]
fn a_stop_signal_stops_every_gate_and_its_checks() {
    let p = Project::new(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"slow\"\n\
         run = [\"sh\", \"-c\", \"echo $$ > \\\"$PIDS/$(basename \\\"$PWD\\\")\\\"; sleep 60\"]\n",
    );
    p.candidate("a", &[]);
    p.candidate("b", &[]);
    let pids = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let child = p
        .command(&["--task", "task.json", "--format", "json", "a", "b"])
        .env("PIDS", pids.path())
        .spawn()
        .unwrap();
    // Both checks are running once both wrote their pid.
    let written = |n: usize| std::fs::read_dir(pids.path()).unwrap().count() >= n;
    while !written(2) {
        assert!(started.elapsed().as_secs() < 30, "the checks never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed().as_secs() < 30, "the gates ran on");
    code(&out, 130);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    for c in index["candidates"].as_array().unwrap() {
        assert_eq!(c["exit_code"], 130, "{c}");
    }
    // The checks are gone (kill with signal 0 probes a pid).
    for entry in std::fs::read_dir(pids.path()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let check = rustix::process::Pid::from_raw(text.trim().parse().unwrap()).unwrap();
        assert!(
            rustix::process::test_kill_process(check).is_err(),
            "check {check:?} outlived candidates"
        );
    }
}

/// docs/baseline.md: with `--baseline` (the evidence of the task's base
/// commit), a candidate that adds no finding passes over the base's old
/// ones, and one that adds a finding fails on it alone.
#[cfg(unix)]
#[test]
fn a_baseline_of_the_base_commit_fails_only_the_candidate_adding_a_finding() {
    use std::os::unix::fs::PermissionsExt;
    let checks = r#"[settings]
allow = ["test", "./lint.sh"]

[[check]]
name = "feature"
run = ["test", "-f", "feature.txt"]

[[check]]
name = "lint"
run = ["./lint.sh"]
parser = "gcc"
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    let lint = "#!/bin/sh\nfound=0\nfor f in *.txt; do\n  grep -n BAD \"$f\" | while IFS=: read -r n text; do echo \"$f:$n:1: error: $text\"; done\n  grep -q BAD \"$f\" && found=1\ndone\nexit $found\n";
    std::fs::write(repo.join("lint.sh"), lint).unwrap();
    std::fs::set_permissions(repo.join("lint.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(repo.join("old.txt"), "BAD one\nfine\nBAD two\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "old findings"]);
    let base = Command::new(bin())
        .args([
            "--worktree",
            repo.to_str().unwrap(),
            "--format",
            "json",
            "--out",
        ])
        .arg(p.path("base.json"))
        .output()
        .unwrap();
    code(&base, 1);
    p.candidate("clean", &[("feature.txt", "done\n")]);
    p.candidate("adds", &[("feature.txt", "done\nBAD three\n")]);
    let out = p.run(&[
        "--task",
        "task.json",
        "--baseline",
        "base.json",
        "--format",
        "json",
        "clean",
        "adds",
    ]);
    code(&out, 0);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = |id: &str| {
        index["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(entry("clean")["passed"], true, "{index:#}");
    assert_eq!(entry("adds")["passed"], false, "{index:#}");
    assert_eq!(entry("adds")["banner"], "1 of 2 checks failed: lint");
    let adds = p.json("runs/T-7/adds/run-check.json");
    let new: Vec<&Value> = adds["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["new"] == true)
        .collect();
    assert_eq!(new.len(), 1, "{adds:#}");
    assert_eq!(new[0]["message"], "BAD three");
    assert!(
        adds["summary"]["baseline"]
            .as_str()
            .unwrap()
            .ends_with("base.json")
    );
    // Without it, the base's old findings fail both.
    let out = p.run(&["--task", "task.json", "--format", "json", "clean", "adds"]);
    code(&out, 1);
}

/// The code under test forges its own verdict: it finds where its gate
/// would write the evidence (an `--out` on the gate's command line, read
/// from `/proc/$PPID/cmdline`, and the paths of `DIR` it can guess),
/// writes a passing evidence there and into the gate's own stdout
/// (reached through `/proc/$PPID/fd/1`), then SIGKILLs the gate. The
/// verdict is the gate's exit status: a gate killed by a signal gives
/// none, and a forged document in its output makes that output no
/// evidence. An honest candidate beside them still passes.
#[cfg(target_os = "linux")]
#[test]
fn a_candidate_that_forges_its_evidence_and_kills_its_gate_is_no_pass() {
    // `feature` fails unless the candidate did the work; `tests` runs the
    // candidate's own test scripts, in the check's shell (`$PPID` is the
    // gate).
    let checks = r#"[settings]
allow = ["test", "sh"]

[[check]]
name = "feature"
run = ["test", "-f", "feature.txt"]

[[check]]
name = "tests"
run = ["sh", "-c", "for t in tests/*.sh; do . \"./$t\" || exit 1; done"]
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    std::fs::create_dir(repo.join("tests")).unwrap();
    std::fs::write(repo.join("tests/true.sh"), "true\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "tests"]);
    p.candidate("honest", &[("feature.txt", "done\n")]);
    // A real passing evidence of this task, for the attackers to replay.
    let out = p.run(&["--task", "task.json", "--format", "json", "honest"]);
    code(&out, 0);
    let forged = p.path("forged.json");
    std::fs::copy(p.path("runs/T-7/honest/run-check.json"), &forged).unwrap();
    let forged_text = std::fs::read_to_string(&forged).unwrap();
    assert!(forged_text.contains("\"exit_code\": 0"), "{forged_text}");

    // Writes the forged evidence everywhere it could count, then (with
    // KILL=1) kills the gate. Each step that worked leaves a mark.
    let attack = r#"gate=$PPID
marks="$FORGED.$(basename "$PWD")"
out=$(tr '\0' '\n' < /proc/$gate/cmdline | sed -n '/^--out$/{n;p;}')
if [ -n "$out" ]; then cp "$FORGED" "$out" && echo out >> "$marks"; fi
for f in ../runs/T-7/"$(basename "$PWD")"/run-check.json ../runs/T-7/"$(basename "$PWD")"/run-check.round-2.json; do
  cp "$FORGED" "$f" && echo guessed >> "$marks"
done
cat "$FORGED" > /proc/$gate/fd/1 && echo stdout >> "$marks"
if [ "$KILL" = 1 ]; then echo kill >> "$marks"; kill -9 $gate; fi
true
"#;
    for (id, kill) in [("killer", "1"), ("forger", "0")] {
        p.candidate(id, &[("tests/attack.sh", attack)]);
        let out = p
            .command(&["--task", "task.json", "--format", "json", "honest", id])
            .env("FORGED", &forged)
            .env("KILL", kill)
            .output()
            .unwrap();
        code(&out, 0);
        let index: Value = serde_json::from_slice(&out.stdout).unwrap();
        let entry = |id: &str| {
            index["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .unwrap()
                .clone()
        };
        let honest = entry("honest");
        assert_eq!(
            (
                &honest["passed"],
                &honest["exit_code"],
                &honest["route"]["next"]
            ),
            (&json!(true), &json!(0), &json!("FINISH")),
            "{index:#}"
        );
        // The attack ran: it wrote into the gate's stdout and the guessed
        // paths (no `--out` is named any more).
        let marks = std::fs::read_to_string(format!("{}.{id}", forged.display())).unwrap();
        let expected = match kill {
            "1" => "guessed\nguessed\nstdout\nkill\n",
            _ => "guessed\nguessed\nstdout\n",
        };
        assert_eq!(marks, expected, "{id}");
        let attacker = entry(id);
        assert_eq!(attacker["passed"], false, "{id}: {attacker:#}");
        assert_eq!(attacker["exit_code"], 2, "{id}: {attacker:#}");
        assert_eq!(attacker["route"]["next"], "USER", "{id}: {attacker:#}");
        assert_eq!(attacker["overall_score"], Value::Null, "{id}");
        assert_eq!(attacker["retry_decision"], Value::Null, "{id}");
        let banner = attacker["banner"].as_str().unwrap();
        let why = match kill {
            "1" => "no verdict: the gate was killed by signal 9 before it finished",
            // Alive, the gate wrote its own evidence after the forged one.
            _ => "no verdict: the gate's output is no evidence: ",
        };
        assert!(banner.starts_with(why), "{id}: {banner}");
        // No evidence and no verdict of the attacker stay in its folder:
        // the forged file it wrote there is removed.
        for file in ["run-check.json", "verdict.json"] {
            assert!(
                !p.path(&format!("runs/T-7/{id}/{file}")).exists(),
                "{id}/{file}"
            );
        }
        let feedback =
            std::fs::read_to_string(p.path(&format!("runs/T-7/{id}/feedback.md"))).unwrap();
        assert!(feedback.contains(why), "{feedback}");
    }
}

/// A trusted `--config` (outside every candidate) whose checks run
/// `scripts/lint.sh` from the candidate, by path and through `sh`: the
/// candidate that rewrites the script to `exit 0`, committed or not, passes
/// its checks (exit 0) but is not passed: the script is one of the gate's
/// files, changed against the task's base.
#[cfg(unix)]
#[test]
fn a_trusted_config_watches_the_scripts_it_runs_from_the_candidate() {
    use std::os::unix::fs::PermissionsExt;
    let checks = r#"[settings]
allow = ["./scripts/lint.sh", "sh"]

[[check]]
name = "lint"
run = ["./scripts/lint.sh"]

[[check]]
name = "lint-sh"
run = ["sh", "scripts/lint.sh"]
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    std::fs::create_dir(repo.join("scripts")).unwrap();
    std::fs::write(
        repo.join("scripts/lint.sh"),
        "#!/bin/sh\necho 'a.txt:1:1: error: bad' ; exit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(
        repo.join("scripts/lint.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "lint"]);
    std::fs::write(p.path("trusted.toml"), checks).unwrap();
    let weakened = "#!/bin/sh\nexit 0\n";
    p.candidate("honest", &[("feature.txt", "done\n")]);
    p.candidate("edited", &[("scripts/lint.sh", weakened)]);
    let committed = p.candidate("committed", &[("scripts/lint.sh", weakened)]);
    git(&committed, &["commit", "-q", "-am", "lint: clean"]);
    let out = p.run(&[
        "--task",
        "task.json",
        "--config",
        "trusted.toml",
        "--format",
        "json",
        "honest",
        "edited",
        "committed",
    ]);
    code(&out, 1);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    for c in index["candidates"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        let evidence = p.json(&format!("runs/T-7/{id}/run-check.json"));
        assert!(
            evidence["meta"]["config"]["path"]
                .as_str()
                .unwrap()
                .ends_with("trusted.toml")
        );
        assert_eq!(c["passed"], false, "{id}: {c:#}");
        if id == "honest" {
            // Its lint fails honestly; nothing of the gate changed.
            assert_eq!(c["exit_code"], 1);
            assert_eq!(
                evidence["contracts"]["gate"],
                json!({"changed": [], "base": "main"})
            );
            continue;
        }
        assert_eq!(
            (&c["exit_code"], &c["banner"]),
            (&json!(0), &json!("All checks passed!")),
            "{id}"
        );
        assert_eq!(
            evidence["contracts"]["gate"],
            json!({"changed": ["scripts/lint.sh"], "base": "main"}),
            "{id}"
        );
        assert_eq!(c["route"]["next"], "USER", "{id}");
        assert_eq!(
            c["route"]["reason"], "the gate itself changed: scripts/lint.sh",
            "{id}"
        );
    }
}

/// A trusted `--config` whose checks reach the candidate's scripts through
/// an indirection: a shell's `-c` string (`scripts/lint.sh --strict`, and
/// `. ./env.sh && lint.sh`, which sources one file and runs another) and
/// `python3 -m tools.lint`. A candidate that makes each pass by editing the
/// file it reaches (`exit 0`, `sys.exit(0)`) passes its checks, but every
/// edited file is a changed gate file: no pass.
#[cfg(unix)]
#[test]
fn a_trusted_configs_shell_strings_and_modules_are_gate_files() {
    let checks = r#"[settings]
allow = ["sh", "python3"]

[[check]]
name = "shell"
run = ["sh", "-c", "scripts/lint.sh --strict"]

[[check]]
name = "sourced"
run = ["sh", "-c", ". ./env.sh && lint.sh"]

[[check]]
name = "module"
run = ["python3", "-m", "tools.lint"]
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    let failing = "#!/bin/sh\necho 'a.txt:1:1: error: bad'\nexit 1\n";
    let files = [
        ("scripts/lint.sh", failing),
        ("lint.sh", failing),
        ("env.sh", "PATH=\"$PWD:$PATH\"\n"),
        ("tools/__init__.py", ""),
        (
            "tools/lint.py",
            "import sys\nprint('a.txt:1:1: error: bad')\nsys.exit(1)\n",
        ),
    ];
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::create_dir_all(repo.join("tools")).unwrap();
    for (file, text) in files {
        std::fs::write(repo.join(file), text).unwrap();
    }
    git(&repo, &["add", "."]);
    git(
        &repo,
        &["update-index", "--chmod=+x", "scripts/lint.sh", "lint.sh"],
    );
    git(&repo, &["commit", "-q", "-m", "lint"]);
    std::fs::write(p.path("trusted.toml"), checks).unwrap();
    let weakened = "#!/bin/sh\nexit 0\n";
    p.candidate("honest", &[("feature.txt", "done\n")]);
    p.candidate(
        "edited",
        &[
            ("scripts/lint.sh", weakened),
            ("lint.sh", weakened),
            ("tools/lint.py", "import sys\nsys.exit(0)\n"),
        ],
    );
    // The file sourced ends the shell before `lint.sh` runs, and the
    // package's `__init__.py` before the module does: neither script is
    // touched.
    p.candidate(
        "sourcing",
        &[
            ("scripts/lint.sh", weakened),
            ("env.sh", "exit 0\n"),
            ("tools/__init__.py", "import sys\nsys.exit(0)\n"),
        ],
    );
    let out = p.run(&[
        "--task",
        "task.json",
        "--config",
        "trusted.toml",
        "--format",
        "json",
        "honest",
        "edited",
        "sourcing",
    ]);
    code(&out, 1);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen = Vec::new();
    for c in index["candidates"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        let evidence = p.json(&format!("runs/T-7/{id}/run-check.json"));
        assert_eq!(c["passed"], false, "{id}: {c:#}");
        let changed = &evidence["contracts"]["gate"]["changed"];
        seen.push((id.to_string(), c["exit_code"].clone(), changed.clone()));
    }
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        seen,
        [
            (
                "edited".to_string(),
                json!(0),
                json!(["lint.sh", "scripts/lint.sh", "tools/lint.py"])
            ),
            ("honest".to_string(), json!(1), json!([])),
            (
                "sourcing".to_string(),
                json!(0),
                json!(["env.sh", "scripts/lint.sh", "tools/__init__.py"])
            ),
        ]
    );
}

/// docs/baseline.md's in-tree baseline, abused: the candidate adds a
/// finding and commits it together with a baseline regenerated over it.
/// Its lint passes by the baseline (exit 0), but the baseline differs from
/// the task's base: a changed gate, not a pass.
#[cfg(unix)]
#[test]
fn a_candidate_that_commits_a_regenerated_baseline_is_no_pass() {
    use std::os::unix::fs::PermissionsExt;
    let checks = r#"[settings]
allow = ["./lint.sh"]

[[check]]
name = "lint"
run = ["./lint.sh"]
parser = "gcc"
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    let lint = "#!/bin/sh\nfound=0\nfor f in *.txt; do\n  grep -n BAD \"$f\" | while IFS=: read -r n text; do echo \"$f:$n:1: error: $text\"; done\n  grep -q BAD \"$f\" && found=1\ndone\nexit $found\n";
    std::fs::write(repo.join("lint.sh"), lint).unwrap();
    std::fs::set_permissions(repo.join("lint.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(repo.join("old.txt"), "BAD one\n").unwrap();
    // The baseline of the base commit, committed as docs/baseline.md says.
    let regenerate = |dir: &std::path::Path| {
        let out = Command::new(bin())
            .args([
                "--format",
                "json",
                "--out",
                "run-check-baseline.json",
                "--quiet",
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        code(&out, 1);
    };
    regenerate(&repo);
    git(&repo, &["add", "."]);
    git(
        &repo,
        &["commit", "-q", "-m", "old findings and their baseline"],
    );
    let honest = p.candidate("honest", &[("feature.txt", "done\n")]);
    let cheat = p.candidate("cheat", &[("feature.txt", "done\nBAD new\n")]);
    regenerate(&cheat);
    git(&cheat, &["add", "."]);
    git(&cheat, &["commit", "-q", "-m", "feature"]);
    for (id, worktree) in [("honest", &honest), ("cheat", &cheat)] {
        let baseline = worktree.join("run-check-baseline.json");
        let out = p.run(&[
            "--task",
            "task.json",
            "--baseline",
            baseline.to_str().unwrap(),
            "--format",
            "json",
            id,
        ]);
        let index: Value = serde_json::from_slice(&out.stdout).unwrap();
        let entry = &index["candidates"][0];
        let evidence = p.json(&format!("runs/T-7/{id}/run-check.json"));
        // Both pass their lint over the baseline's findings (the cheat's
        // has its new one too).
        assert_eq!(entry["exit_code"], 0, "{id}: {entry:#}");
        let old = if id == "honest" { 1 } else { 2 };
        assert_eq!(evidence["checks"][0]["baseline_suppressed"], old, "{id}");
        match id {
            "honest" => {
                code(&out, 0);
                assert_eq!(entry["passed"], true);
                assert_eq!(
                    evidence["contracts"]["gate"],
                    json!({"changed": [], "base": "main"})
                );
            }
            _ => {
                code(&out, 1);
                assert_eq!(
                    evidence["contracts"]["gate"],
                    json!({"changed": ["run-check-baseline.json"], "base": "main"})
                );
                assert_eq!(entry["passed"], false);
                assert_eq!(entry["route"]["next"], "USER");
                assert_eq!(
                    entry["route"]["reason"],
                    "the gate itself changed: run-check-baseline.json"
                );
            }
        }
    }
}

/// `candidates` always measures against the task's base: a task without
/// one is bad input (against each candidate's own HEAD, a committed change
/// would show nothing).
#[test]
fn a_task_without_a_base_is_refused() {
    let p = Project::new(CHECKS);
    p.candidate("a", &[("feature.txt", "done\n")]);
    let mut task = p.json("task.json");
    task.as_object_mut().unwrap().remove("base");
    std::fs::write(p.path("task.json"), task.to_string()).unwrap();
    let out = p.run(&["--task", "task.json", "a"]);
    code(&out, 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: task.json: $.base: `candidates` needs the revision"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    assert!(!p.path("runs").exists());
}

/// Build output left in a candidate's worktree, as a crate whose
/// .gitignore lacks `target/` leaves it: `out/` is not ignored, `ignored/`
/// is. The gate's `build` check writes one file into each.
const BUILDING: &str = r#"[settings]
allow = ["test", "touch"]

[[check]]
name = "feature"
run = ["test", "-f", "feature.txt"]

[[check]]
name = "build"
run = ["touch", "ignored/new.o", "out/new.o"]
"#;

#[test]
fn changeset_budget_and_judge_count_the_same_files_as_the_read_only_verification_ignores() {
    let p = Project::new(BUILDING);
    let repo = p.path("repo");
    std::fs::write(repo.join(".gitignore"), "ignored/\n").unwrap();
    git(&repo, &["add", ".gitignore"]);
    git(&repo, &["commit", "-q", "-m", "ignore"]);
    let c = p.candidate("c-build", &[("feature.txt", "done\n")]);
    // `target/` is not ignored either, but build output never counts (as in
    // the read-only verification): a crate whose .gitignore lacks it.
    for dir in ["out", "ignored", "target/debug"] {
        std::fs::create_dir_all(c.join(dir)).unwrap();
        for n in 1..=3 {
            std::fs::write(c.join(dir).join(format!("old{n}.o")), "obj\n").unwrap();
        }
    }
    let out = p.run(&["--task", "task.json", "--format", "json", "c-build"]);
    code(&out, 1);
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &index["candidates"][0];
    let evidence = p.json("runs/T-7/c-build/run-check.json");
    // The read-only verification: the file the gate wrote where git does
    // not ignore it, and only that one.
    let modified: Vec<&str> = evidence["contracts"]["read_only"]["modified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().or(m.as_str()).unwrap())
        .collect();
    assert_eq!(modified, ["out/new.o"], "{evidence:#}");
    // The change: the candidate's edit and the build output it left that
    // git does not ignore, as the gate found it when it started; not the
    // ignored build output, not what the gate's checks wrote.
    let changeset = std::fs::read_to_string(p.path("runs/T-7/c-build/changeset.txt")).unwrap();
    let listed: Vec<&str> = changeset
        .lines()
        .skip(1)
        .map(|l| {
            l.split("  ")
                .last()
                .unwrap()
                .trim_end_matches(" (untracked)")
        })
        .collect();
    assert_eq!(
        listed,
        ["feature.txt", "out/old1.o", "out/old2.o", "out/old3.o"],
        "{changeset}"
    );
    assert!(
        changeset.starts_with("changes against `main`: 4 files, +4 -0\n"),
        "{changeset}"
    );
    // The budget (which the judge reads) and the index say the same.
    let budget = &evidence["contracts"]["change_budget"];
    assert_eq!(
        (&budget["files_changed"], &budget["loc_changed"]),
        (&json!(4), &json!(4)),
        "{budget}"
    );
    assert_eq!(
        (&entry["files_changed"], &entry["loc_changed"]),
        (&json!(4), &json!(4))
    );
}

/// The entry of candidate `id` in a printed index.
fn entry(index: &Value, id: &str) -> Value {
    index["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no candidate {id}: {index:#}"))
        .clone()
}

/// A candidate's check stops its own gate (`kill -STOP $PPID`): the round
/// does not hang; that gate is ended (resumed, asked to stop) and the
/// candidate is an error without a verdict, while the honest one beside it
/// passes. Stop signals are Unix's.
#[cfg(unix)]
#[test]
fn a_candidate_that_stops_its_gate_is_an_error_and_the_round_goes_on() {
    let checks = r#"[settings]
allow = ["test", "sh"]

[[check]]
name = "feature"
run = ["test", "-f", "feature.txt"]

[[check]]
name = "tests"
run = ["sh", "-c", "for t in tests/*.sh; do . \"./$t\" || exit 1; done"]
"#;
    let p = Project::new(checks);
    let repo = p.path("repo");
    std::fs::create_dir(repo.join("tests")).unwrap();
    std::fs::write(repo.join("tests/true.sh"), "true\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "tests"]);
    p.candidate("honest", &[("feature.txt", "done\n")]);
    // It did the work too, then stops its gate (the check's shell is the
    // gate's child) and leaves a mark that it ran.
    let mark = p.path("stopped.mark");
    let attack = format!("echo stop > '{}'\nkill -STOP $PPID\ntrue\n", mark.display());
    p.candidate(
        "stopper",
        &[("feature.txt", "done\n"), ("tests/attack.sh", &attack)],
    );
    let mut child = p
        .command(&[
            "--task",
            "task.json",
            "--format",
            "json",
            "honest",
            "stopper",
        ])
        .spawn()
        .unwrap();
    // A guard, not a measure: without the fix the round never ends.
    let ended = crate::support::wait_until(std::time::Duration::from_secs(120), || {
        child.try_wait().unwrap().is_some()
    });
    if !ended {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the round hung on the stopped gate");
    }
    let out = child.wait_with_output().unwrap();
    code(&out, 0);
    assert_eq!(std::fs::read_to_string(&mark).unwrap(), "stop\n");
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let honest = entry(&index, "honest");
    assert_eq!(
        (&honest["passed"], &honest["exit_code"]),
        (&json!(true), &json!(0)),
        "{index:#}"
    );
    let stopper = entry(&index, "stopper");
    assert_eq!(
        (
            &stopper["passed"],
            &stopper["exit_code"],
            &stopper["route"]["next"]
        ),
        (&json!(false), &json!(2), &json!("USER")),
        "{index:#}"
    );
    let why = "no verdict: the gate was stopped by SIGSTOP and left stopped, then terminated \
               by the runner before it finished";
    assert_eq!(stopper["banner"], why, "{index:#}");
    let feedback = std::fs::read_to_string(p.path("runs/T-7/stopper/feedback.md")).unwrap();
    assert!(feedback.contains(why), "{feedback}");
    assert!(!p.path("runs/T-7/stopper/verdict.json").exists());
}

/// A trusted `--config` whose lint (`python3 scripts/lint.py`) reads every
/// rule file under `tools/` by itself, named by no argument. Candidates
/// that make it pass by editing a rule, adding one that overrides it, or
/// deleting it pass their checks; with `[gate] files = ["tools/**"]` in
/// that config each is a changed gate (no pass), without it each passes.
#[test]
fn a_trusted_configs_gate_files_catch_a_rule_edited_added_or_deleted() {
    let base = r#"[settings]
allow = ["python3"]

[[check]]
name = "lint"
run = ["python3", "scripts/lint.py"]
"#;
    let lint = "import glob, runpy, sys\nrules = {}\n\
                for f in sorted(glob.glob('tools/*.py')):\n    rules.update(runpy.run_path(f))\n\
                sys.exit(0 if rules.get('OK', True) else 1)\n";
    let p = Project::new(base);
    let repo = p.path("repo");
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::create_dir_all(repo.join("tools")).unwrap();
    std::fs::write(repo.join("scripts/lint.py"), lint).unwrap();
    std::fs::write(repo.join("tools/lint_rules.py"), "OK = False\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "lint"]);
    p.candidate("edited", &[("tools/lint_rules.py", "OK = True\n")]);
    p.candidate("added", &[("tools/zz_override.py", "OK = True\n")]);
    let deleted = p.candidate("deleted", &[]);
    git(&deleted, &["rm", "-q", "tools/lint_rules.py"]);
    git(&deleted, &["commit", "-q", "-m", "rules: drop"]);
    let attackers = [
        ("added", "tools/zz_override.py"),
        ("deleted", "tools/lint_rules.py"),
        ("edited", "tools/lint_rules.py"),
    ];
    for declared in [true, false] {
        let config = match declared {
            true => format!("{base}\n[gate]\nfiles = [\"tools/**\"]\n"),
            false => base.to_string(),
        };
        std::fs::write(p.path("trusted.toml"), config).unwrap();
        let mut args = vec!["--task", "task.json", "--config", "trusted.toml"];
        args.extend(["--format", "json", "added", "deleted", "edited"]);
        let out = p.run(&args);
        code(&out, if declared { 1 } else { 0 });
        let index: Value = serde_json::from_slice(&out.stdout).unwrap();
        for (id, file) in attackers {
            let c = entry(&index, id);
            let evidence = p.json(&format!("runs/T-7/{id}/run-check.json"));
            assert_eq!(c["exit_code"], 0, "{id}: {c:#}");
            let changed: &[&str] = if declared { &[file] } else { &[] };
            assert_eq!(
                evidence["contracts"]["gate"],
                json!({"changed": changed, "base": "main"}),
                "{id} declared={declared}"
            );
            assert_eq!(c["passed"], !declared, "{id}: {c:#}");
            if declared {
                assert_eq!(
                    c["route"]["reason"],
                    format!("the gate itself changed: {file}"),
                    "{id}"
                );
            }
        }
    }
}
