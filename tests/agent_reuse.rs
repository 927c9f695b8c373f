//! Results a stop reuses (docs/agents.md, "Results a stop reuses"): a
//! cached check whose key is unchanged since an earlier stop of the same
//! session is not run again (`cache.source` `"session"`), and it runs
//! again whenever its input, the config, its program or the git settings
//! changed since the stop that recorded its pass; a forged record makes
//! the session untrusted before it is read. Each check run is counted in
//! a file outside the worktree.

#![cfg(unix)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::agent_hooks::{CLAUDE, Reply, hook_with, input, state_dir};
use crate::support::{Test, git, state_home};

/// A check keyed on `src/**`, run by a script of the worktree that counts
/// its runs in `COUNT` and fails on a `BUG` marker.
const CHECKS: &str = r#"[settings]
allow = ["./count.sh"]

[agent]
max_chars = 1000

[[check]]
name = "count"
run = ["./count.sh"]
cache = true
inputs = ["src/**"]
parser = "none"
"#;

/// A committed project and the side folder (the run counter, the local
/// store).
fn project() -> (Test, TempDir) {
    let side = tempfile::Builder::new()
        .prefix("run-check-reuse-")
        .tempdir()
        .unwrap();
    let count = side.path().join("count");
    let script = format!(
        "#!/bin/sh\necho run >> '{}'\nif grep -q BUG src/a.txt; then echo 'src/a.txt: BUG'; exit 1; fi\n",
        count.display()
    );
    let test = Test::new()
        .config(CHECKS)
        .file("src/a.txt", "one\n")
        .file(".gitignore", "ev.json\n")
        .script("count.sh", &script);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "project"]);
    (test, side)
}

/// How many times the check ran.
fn runs(side: &TempDir) -> usize {
    std::fs::read_to_string(side.path().join("count"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// One event of Claude Code's session `session`, the local store in the
/// side folder.
fn event(test: &Test, side: &TempDir, name: &str, session: &str) -> Reply {
    let stdin = input(CLAUDE, name, test.path(), session, false).to_string();
    let home = state_home(test.path());
    let cache: PathBuf = side.path().join("cache");
    hook_with(
        CLAUDE.name,
        name,
        stdin.as_bytes(),
        &std::env::temp_dir(),
        &[("XDG_STATE_HOME", &home), ("XDG_CACHE_HOME", &cache)],
    )
}

/// The `cache` of the check in the session's latest round.
fn latest_cache(test: &Test, session: &str) -> Value {
    let dir = state_dir(test, session);
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.join("state.json")).unwrap()).unwrap();
    let round = dir.join(format!("round-{}.json", state["rounds"]));
    let evidence: Value = serde_json::from_slice(&std::fs::read(round).unwrap()).unwrap();
    evidence["checks"][0]["cache"].clone()
}

/// A stop that runs the check (one more run, not a session hit).
#[track_caller]
fn stop_runs(test: &Test, side: &TempDir, session: &str, why: &str) {
    let before = runs(side);
    event(test, side, "Stop", session);
    assert_eq!(runs(side), before + 1, "{why}: the check ran again");
    assert_ne!(latest_cache(test, session)["source"], "session", "{why}");
}

/// A stop that reuses the earlier stop's pass.
#[track_caller]
fn stop_reuses(test: &Test, side: &TempDir, session: &str) {
    let before = runs(side);
    let reply = event(test, side, "Stop", session);
    assert_eq!(reply.blocked(CLAUDE), None, "{reply:?}");
    assert_eq!(runs(side), before, "reused, not run");
    let cache = latest_cache(test, session);
    assert_eq!(cache["status"], "hit", "{cache}");
    assert_eq!(cache["source"], "session", "{cache}");
}

fn append(path: &Path, text: &str) {
    let mut now = std::fs::read_to_string(path).unwrap();
    now.push_str(text);
    std::fs::write(path, now).unwrap();
}

#[test]
fn a_pass_is_reused_only_while_input_config_program_and_git_settings_are_unchanged() {
    let (test, side) = project();
    let dir = test.path();
    event(&test, &side, "SessionStart", "s");
    stop_runs(&test, &side, "s", "the first stop");
    stop_reuses(&test, &side, "s");

    std::fs::write(dir.join("src/a.txt"), "two\n").unwrap();
    stop_runs(&test, &side, "s", "an input changed");
    stop_reuses(&test, &side, "s");

    append(&dir.join("checks.toml"), "# a comment\n");
    stop_runs(&test, &side, "s", "the config changed");
    stop_reuses(&test, &side, "s");

    append(&dir.join("count.sh"), "# the program changed\n");
    stop_runs(&test, &side, "s", "the program changed");
    stop_reuses(&test, &side, "s");

    git(dir, &["config", "core.autocrlf", "input"]);
    stop_runs(&test, &side, "s", "a git setting changed");
    stop_reuses(&test, &side, "s");

    // Another session's stop does not reuse this one's passes.
    event(&test, &side, "SessionStart", "other");
    stop_runs(&test, &side, "other", "another session");
}

#[test]
fn a_pass_forged_into_the_session_folder_is_never_reused() {
    let (test, side) = project();
    let dir = test.path();
    event(&test, &side, "SessionStart", "f");
    stop_runs(&test, &side, "f", "the first stop");
    let results = state_dir(&test, "f").join("results.json");
    let recorded: Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();

    // The defect, gated once: its key is in the round's evidence.
    std::fs::write(dir.join("src/a.txt"), "BUG\n").unwrap();
    let reply = event(&test, &side, "Stop", "f");
    assert!(reply.blocked(CLAUDE).is_some(), "{reply:?}");
    let red_key = latest_cache(&test, "f")["key"].clone();

    // The agent's shell writes the earlier pass under the red key.
    let mut forged = recorded.clone();
    forged["entries"][0]["key"] = red_key;
    std::fs::write(&results, forged.to_string()).unwrap();
    let before = runs(&side);
    let reply = event(&test, &side, "Stop", "f");
    let reason = reply.blocked(CLAUDE).expect("blocked");
    assert!(reason.contains("session is not trusted"), "{reason}");
    assert!(reason.contains("results.json"), "{reason}");
    // Started again: the next stop runs the check and is held to it.
    let reply = event(&test, &side, "Stop", "f");
    assert!(reply.blocked(CLAUDE).is_some(), "{reply:?}");
    assert_eq!(runs(&side), before + 1);
    assert_ne!(latest_cache(&test, "f")["source"], "session");
}
