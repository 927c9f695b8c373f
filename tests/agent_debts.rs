//! Debts, not a baseline the agent can reset (docs/agents.md, "Debts"):
//! with the defaults every failure blocks and a session's start runs no
//! gate; what HEAD already fails on is excused only by the committed
//! baseline `agent install` writes; with `new_only = true`, what one
//! session left red is owed by the next one, whatever its id, and after
//! its folder was deleted. The hooks are driven as in tests/agent_hooks.rs.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::agent_hooks::{
    AGENTS, CHECKS, CLAUDE, hook, hook_raw, input, new_only, project, state_dir, write,
};
use crate::support::{Test, bin, git};

/// `run-check ARGS` in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const BASELINE: &str = ".run-check/agent-baseline.json";

#[test]
fn install_on_a_red_head_writes_the_baseline_and_the_key_which_excuse_only_old_failures() {
    let test = project(CHECKS, "a = 1  # BUG\n");
    let dir = test.path();
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).unwrap();

    let (code, out, err) = run(dir, &["agent", "install", "claude", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("would create {BASELINE}")), "{out}");
    assert!(out.contains("would update checks.toml"), "{out}");
    assert!(!dir.join(".run-check").exists() && !dir.join(".claude").exists());
    assert_eq!(read("checks.toml"), CHECKS);

    let (code, out, err) = run(dir, &["agent", "install", "claude"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("created {BASELINE}")), "{out}");
    assert!(out.contains("updated checks.toml"), "{out}");
    assert!(
        out.contains("HEAD is red (1 of 1 checks failed: lint)"),
        "{out}"
    );
    assert!(out.contains("commit"), "{out}");
    // The key under the user's own `[agent]` header, every other byte kept.
    assert_eq!(
        read("checks.toml"),
        CHECKS.replace(
            "[agent]\n",
            "[agent]\nbaseline = \".run-check/agent-baseline.json\"\n"
        )
    );
    let baseline: Value = serde_json::from_str(&read(BASELINE)).unwrap();
    assert_eq!(baseline["summary"]["exit_code"], 1, "{baseline}");
    // Again: HEAD's failures are all in the baseline, no byte changes.
    let written = read(BASELINE);
    let (code, out, _) = run(dir, &["agent", "install", "claude"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("the baseline is unchanged"), "{out}");
    assert_eq!(read(BASELINE), written);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "run-check gate for Claude Code"]);

    // With the defaults (every failure blocks), the old failure lets the
    // agent go, silently; one new failure blocks, and only it is shown.
    hook(CLAUDE, "SessionStart", dir, "s-1", false);
    write(&test, "app.py", "a = 1  # BUG\nb = 2\n");
    let stop = hook(CLAUDE, "Stop", dir, "s-1", false);
    assert_eq!(stop.json, json!({}), "{stop:?}");
    write(&test, "app.py", "a = 1  # BUG\nb = 2  # BUG\n");
    let stop = hook(CLAUDE, "Stop", dir, "s-1", false);
    let reason = stop.blocked(CLAUDE).expect("a new failure blocks");
    assert!(reason.contains("app.py:2: [lint E1]"), "{reason}");
    assert!(!reason.contains("app.py:1:"), "{reason}");

    // The agent regenerates the baseline over its new failure: the gate
    // compares it with the session's base, and the user is told.
    let (code, _, err) = run(dir, &["--quiet", "--format", "json", "--out", BASELINE]);
    assert_eq!(code, Some(1), "{err}");
    let stop = hook(CLAUDE, "Stop", dir, "s-1", false);
    assert_eq!(stop.blocked(CLAUDE), None, "{stop:?}");
    let told = stop.told(CLAUDE).expect("not a silent pass");
    assert!(told.contains(BASELINE), "{told}");

    // Deleted, it excuses nothing: every failure blocks, and the user is told.
    std::fs::remove_file(dir.join(BASELINE)).unwrap();
    let stop = hook(CLAUDE, "Stop", dir, "s-1", false);
    let reason = stop.blocked(CLAUDE).expect("blocked");
    assert!(reason.contains("app.py:1: [lint E1]"), "{reason}");
    let told = stop.told(CLAUDE).unwrap_or_default() + &stop.stderr;
    assert!(told.contains("every failure counts"), "{stop:?}");
}

#[test]
fn install_on_a_green_head_writes_no_baseline() {
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    let (code, out, err) = run(dir, &["agent", "install", "claude"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("HEAD passes the gate: no baseline is needed"),
        "{out}"
    );
    assert!(!dir.join(".run-check").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("checks.toml")).unwrap(),
        CHECKS
    );
    assert_eq!(
        git(dir, &["status", "--porcelain"]),
        "?? .claude/\n",
        "only the hooks are written"
    );
}

/// A check that appends a line to a file outside the worktree each time it
/// runs: the hook's gate ran exactly when the file grew.
const MARK: &str = "import sys\nopen(sys.argv[1], \"a\").write(\"ran\\n\")\n";

#[test]
fn with_the_defaults_a_session_start_runs_no_gate_and_a_red_stop_blocks_on_every_failure() {
    let outside = tempfile::tempdir().unwrap();
    for agent in AGENTS {
        let marker = outside.path().join(format!("{}.log", agent.name));
        let checks = format!(
            "{CHECKS}\n[[check]]\nname = \"mark\"\nrun = [\"python3\", \"mark.py\", {}]\n",
            json!(marker.display().to_string())
        );
        // HEAD already fails (a BUG marker the session did not add).
        let test = project(&checks, "a = 1  # BUG\n").file("mark.py", MARK);
        git(test.path(), &["add", "-A"]);
        git(test.path(), &["commit", "-qm", "mark"]);
        let dir = test.path();
        let start = hook(agent, agent.start, dir, "s-1", false);
        assert_eq!(start.blocked(agent), None, "{agent:?} {start:?}");
        assert!(
            !marker.exists(),
            "{agent:?}: the session start ran the gate"
        );
        assert!(state_dir(&test, "s-1").join("state.json").is_file());
        assert!(!state_dir(&test, "s-1").join("baseline.json").exists());

        let stop = hook(agent, agent.stop, dir, "s-1", false);
        let reason = stop
            .blocked(agent)
            .unwrap_or_else(|| panic!("{agent:?}: an old failure let go: {stop:?}"));
        assert!(reason.contains("app.py:1: [lint E1]"), "{reason}");
        assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ran\n");
    }
}

/// The debts file.
fn debts(test: &Test) -> Value {
    let path = test.path().join(".git/run-check/agent/debts.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn with_new_only_a_failure_left_red_is_owed_by_a_new_session_and_after_its_folder_is_deleted() {
    let test = project(&new_only(), "a = 1  # BUG\n");
    let dir = test.path();
    // Session 1 adds a failure; blocked, it is interrupted with the gate red.
    hook(CLAUDE, "SessionStart", dir, "s-1", false);
    write(&test, "app.py", "a = 1  # BUG\nb = 2  # BUG\n");
    let stop = hook(CLAUDE, "Stop", dir, "s-1", false);
    let reason = stop.blocked(CLAUDE).expect("blocked");
    assert!(
        reason.contains("app.py:2") && !reason.contains("app.py:1:"),
        "{reason}"
    );

    // `/clear` (or `fork`): a new session id over the same work. Its
    // baseline excuses the old failure, not session 1's.
    let mut clear = input(CLAUDE, "SessionStart", dir, "s-2", false);
    clear["source"] = json!("clear");
    let start = hook_raw("claude", "SessionStart", clear.to_string().as_bytes());
    assert_eq!(start.blocked(CLAUDE), None, "{start:?}");
    let stop = hook(CLAUDE, "Stop", dir, "s-2", false);
    let reason = stop.blocked(CLAUDE).expect("session 1's failure is owed");
    assert!(reason.contains("app.py:2: [lint E1]"), "{reason}");
    assert!(!reason.contains("app.py:1:"), "{reason}");

    // The agent's shell deletes the session folders and runs a session
    // start by hand under a new id: the debts are beside the sessions, not
    // in them. (The same id again is tampering: tests/agent_trust.rs.)
    for session in ["s-1", "s-2"] {
        std::fs::remove_dir_all(state_dir(&test, session)).unwrap();
    }
    let by_hand = input(CLAUDE, "SessionStart", dir, "s-4", false);
    let start = hook_raw("claude", "SessionStart", by_hand.to_string().as_bytes());
    assert_eq!(start.blocked(CLAUDE), None, "{start:?}");
    assert!(state_dir(&test, "s-4").join("baseline.json").is_file());
    let stop = hook(CLAUDE, "Stop", dir, "s-4", false);
    let reason = stop.blocked(CLAUDE).expect("still owed");
    assert!(reason.contains("app.py:2: [lint E1]"), "{reason}");
    assert!(!reason.contains("app.py:1:"), "{reason}");

    // Fixed: the passing stop pays every debt; the next session starts
    // owing nothing and passes over the old failure.
    write(&test, "app.py", "a = 1  # BUG\nb = 2\n");
    let stop = hook(CLAUDE, "Stop", dir, "s-4", true);
    assert_eq!(stop.json, json!({}), "{stop:?}");
    assert_eq!(debts(&test)["sessions"], json!({}));
    hook(CLAUDE, "SessionStart", dir, "s-3", false);
    let stop = hook(CLAUDE, "Stop", dir, "s-3", false);
    assert_eq!(stop.json, json!({}), "{stop:?}");
}

#[test]
fn the_agent_baseline_key_is_a_path_inside_the_worktree() {
    for value in [
        "/etc/evidence.json",
        "../outside.json",
        "a/../../outside.json",
        ".git/run-check/b.json",
        "C:/b.json",
        "",
    ] {
        let table = format!("[agent]\nbaseline = {}\n", json!(value));
        let run = Test::new()
            .config(&table)
            .args(&["validate"])
            .run()
            .status(2);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.contains("checks.toml"), "{}", run.stderr);
        assert!(
            run.stderr.contains("agent.baseline"),
            "{value}: {}",
            run.stderr
        );
    }
    let _ = Test::new()
        .config("[agent]\nbaseline = \".run-check/agent-baseline.json\"\n")
        .args(&["validate"])
        .run()
        .status(0);
}
