//! An agent session the agent cannot move, reset or forge (docs/agents.md,
//! "A pinned session and its digest chain"), each test playing the
//! attacker: the agent's shell (or the code
//! under test) changes the session's files, runs the hook itself, or stops
//! from another directory, while `app.py` holds a defect. Each attack ends
//! in a block, or in a release that tells the user; never in a silent `{}`.
//!
//! The project and the hook runner are tests/agent_hooks.rs's.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::agent_hooks::{
    AGENTS, CHECKS, CLAUDE, Reply, hook, hook_with, input, project, state_dir, write,
};
use crate::support::{Test, bin, git, state_home};

/// `CHECKS` with the session's own baseline (a failure it started with is
/// excused): what the agent attacks to hide a new one.
fn with_baseline() -> String {
    CHECKS.replace("[agent]\n", "[agent]\nnew_only = true\n")
}

/// The block's reason, or a panic naming what the hook answered.
#[track_caller]
fn blocked(reply: &Reply) -> String {
    reply
        .blocked(CLAUDE)
        .unwrap_or_else(|| panic!("let go: {reply:?}"))
}

/// A block for an untrusted session, that the user is told of too.
#[track_caller]
fn untrusted(reply: &Reply, naming: &str) {
    let reason = blocked(reply);
    assert!(reason.contains("session is not trusted"), "{reason}");
    assert!(reason.contains(naming), "{naming}: {reason}");
    let told = reply.told(CLAUDE).expect("the user is told");
    assert!(told.contains("session is not trusted"), "{told}");
}

/// A red stop of `test`'s session `session` is blocked on the lint,
/// counted from nothing (no baseline excuse, no history).
#[track_caller]
fn counted_again(test: &Test, session: &str) {
    let reply = hook(CLAUDE, "Stop", test.path(), session, true);
    let reason = blocked(&reply);
    assert!(
        reason.starts_with("FAIL: 1 of 1 checks failed (lint)"),
        "{reason}"
    );
    assert!(!reason.contains("iteration 6"), "{reason}");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn five_forged_history_lines_do_not_spend_the_agents_iterations() {
    let test = project(CHECKS, "x = 1\n");
    hook(CLAUDE, "SessionStart", test.path(), "hist", false);
    write(&test, "app.py", "x = 1  # BUG\n");
    blocked(&hook(CLAUDE, "Stop", test.path(), "hist", false));
    // Five more rounds, as the judge writes them: the next stop would be
    // iteration 7 of max_iterations 5.
    let history = state_dir(&test, "hist").join("history.jsonl");
    let line = std::fs::read_to_string(&history).unwrap();
    let forged = std::fs::read_to_string(&history).unwrap() + &line.repeat(5);
    std::fs::write(&history, forged).unwrap();
    untrusted(
        &hook(CLAUDE, "Stop", test.path(), "hist", true),
        "history.jsonl",
    );
    counted_again(&test, "hist");
}

#[test]
fn a_baseline_replaced_with_its_sha256_is_seen() {
    let test = project(&with_baseline(), "x = 1\n");
    hook(CLAUDE, "SessionStart", test.path(), "base", false);
    // The agent's defect, then a baseline that holds it: the gate's own
    // evidence now, and its sha256 in state.json.
    write(&test, "app.py", "x = 1  # BUG\n");
    let red = Command::new(bin())
        .args(["--quiet", "--format", "json"])
        .current_dir(test.path())
        .output()
        .unwrap();
    assert_eq!(red.status.code(), Some(1));
    let dir = state_dir(&test, "base");
    std::fs::write(dir.join("baseline.json"), &red.stdout).unwrap();
    let mut state = read_json(&dir.join("state.json"));
    state["baseline_sha256"] = json!(sha256_hex(&red.stdout));
    std::fs::write(dir.join("state.json"), state.to_string()).unwrap();

    untrusted(
        &hook(CLAUDE, "Stop", test.path(), "base", false),
        "baseline.json",
    );
    counted_again(&test, "base");
}

#[test]
fn a_base_moved_past_a_committed_weakened_gate_is_seen() {
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    hook(CLAUDE, "SessionStart", dir, "moved", false);
    write(&test, "app.py", "x = 1  # BUG\n");
    write(
        &test,
        "checks.toml",
        "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"lint\"\nrun = [\"true\"]\n",
    );
    git(dir, &["commit", "-qam", "simplify the lint"]);
    let head = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    let state_path = state_dir(&test, "moved").join("state.json");
    let mut state = read_json(&state_path);
    state["base"] = json!(head);
    std::fs::write(&state_path, state.to_string()).unwrap();

    untrusted(&hook(CLAUDE, "Stop", dir, "moved", false), "state.json");
    // Started again from the base it was pinned to: the weakened gate is
    // a changed gate, and the user is told.
    let reply = hook(CLAUDE, "Stop", dir, "moved", true);
    assert_eq!(reply.blocked(CLAUDE), None, "{reply:?}");
    let told = reply.told(CLAUDE).expect("the user is told");
    assert!(told.contains("checks.toml"), "{told}");
}

#[test]
fn a_deleted_session_folder_and_a_hand_run_session_start_are_seen() {
    let test = project(&with_baseline(), "x = 1\n");
    let dir = test.path();
    hook(CLAUDE, "SessionStart", dir, "gone", false);
    write(&test, "app.py", "x = 1  # BUG\n");
    // The agent's shell: a fresh session, whose baseline holds the defect.
    std::fs::remove_dir_all(state_dir(&test, "gone")).unwrap();
    let start = hook(CLAUDE, "SessionStart", dir, "gone", false);
    assert_eq!(start.blocked(CLAUDE), None, "{start:?}");
    let told = start.told(CLAUDE).expect("told");
    assert!(told.contains("session folder was deleted"), "{told}");
    assert!(
        !state_dir(&test, "gone").join("baseline.json").exists(),
        "no baseline taken over the defect"
    );

    untrusted(
        &hook(CLAUDE, "Stop", dir, "gone", false),
        "session folder was deleted",
    );
    counted_again(&test, "gone");
}

#[test]
fn a_pass_of_a_hand_run_hook_is_never_replayed_to_the_agents_stop() {
    let copilot = AGENTS[3];
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    hook(CLAUDE, "SessionStart", dir, "hand", false);
    // Green: the agent runs Copilot's hook by hand with its session id.
    let green = hook(copilot, copilot.stop, dir, "hand", false);
    assert_eq!(green.json, json!({}), "{green:?}");
    // Red: Claude Code's own Stop within the replay window is gated.
    write(&test, "app.py", "x = 1  # BUG\n");
    let reply = hook(CLAUDE, "Stop", dir, "hand", false);
    let reason = blocked(&reply);
    assert!(reason.contains("app.py:1: [lint E1]"), "{reason}");
}

/// A linked worktree of `test`'s repository in a folder of its own.
fn linked_worktree(test: &Test) -> (tempfile::TempDir, PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let path = parent.path().join("linked");
    git(
        test.path(),
        &["worktree", "add", "-q", "--detach", path.to_str().unwrap()],
    );
    (parent, path)
}

/// Claude Code's Stop of session `session` from `cwd`, with `home` as the
/// state folder and, when given, `CLAUDE_PROJECT_DIR`.
fn stop_from(cwd: &Path, session: &str, home: &Path, project: Option<&Path>) -> Reply {
    let value = input(CLAUDE, "Stop", cwd, session, false);
    let mut env = vec![("XDG_STATE_HOME", home)];
    env.extend(project.map(|p| ("CLAUDE_PROJECT_DIR", p)));
    hook_with("claude", "Stop", value.to_string().as_bytes(), cwd, &env)
}

#[test]
fn a_session_is_gated_where_it_started_whatever_the_stops_cwd() {
    // A sub-package with a checks.toml of its own, that passes.
    let test = project(CHECKS, "x = 1\n");
    let sub = "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"ok\"\nrun = [\"true\"]\n";
    let test = test.file("pkg/checks.toml", sub);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-qm", "pkg"]);
    let (_parent, linked) = linked_worktree(&test);
    let outside = tempfile::tempdir().unwrap();
    let home = state_home(test.path());

    for (i, (cwd, project)) in [
        (test.path().join("pkg"), None),
        (linked.clone(), None),
        (outside.path().to_path_buf(), Some(test.path())),
        (outside.path().to_path_buf(), None),
    ]
    .into_iter()
    .enumerate()
    {
        let session = format!("pinned-{i}");
        hook(CLAUDE, "SessionStart", test.path(), &session, false);
        write(&test, "app.py", "x = 1  # BUG\n");
        let reply = stop_from(&cwd, &session, &home, project);
        let reason = reply
            .blocked(CLAUDE)
            .unwrap_or_else(|| panic!("{}: let go: {reply:?}", cwd.display()));
        assert!(reason.contains("app.py:1: [lint E1]"), "{reason}");
        write(&test, "app.py", "x = 1\n");
    }
}

#[test]
fn before_a_recorded_start_the_project_variable_names_the_repository() {
    // Not the stop's cwd: every failure counts, and the user is told.
    let test = project(CHECKS, "x = 1  # BUG\n");
    let outside = tempfile::tempdir().unwrap();
    let home = state_home(test.path());
    let reply = stop_from(outside.path(), "unstarted", &home, Some(test.path()));
    let reason = blocked(&reply);
    assert!(reason.contains("app.py:1: [lint E1]"), "{reason}");
    let told = reply.told(CLAUDE).expect("told");
    assert!(told.contains("no session start was recorded"), "{told}");
}

#[test]
fn a_state_folder_that_cannot_be_named_lets_the_agent_go_with_the_user_told() {
    let test = project(CHECKS, "x = 1  # BUG\n");
    let value = input(CLAUDE, "Stop", test.path(), "homeless", false);
    let reply = hook_with(
        "claude",
        "Stop",
        value.to_string().as_bytes(),
        test.path(),
        &[
            ("XDG_STATE_HOME", Path::new("relative")),
            ("HOME", Path::new("relative")),
        ],
    );
    assert_eq!(reply.blocked(CLAUDE), None, "{reply:?}");
    let told = reply.told(CLAUDE).expect("told");
    assert!(told.contains("state folder"), "{told}");
}
