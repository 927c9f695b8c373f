//! What the hook does when its gate does not give a whole verdict, or the
//! input is not its agent's (docs/agents.md): `[agent] timeout` stops a
//! slow gate, a gate the code under test kills or whose round file it
//! blocks holds the agent once, Cursor's aborted stop sent to the
//! claude-named hook is not gated; and `agent install` writes each agent's
//! own timeout field from `[agent] timeout`. Driven with the helpers of
//! tests/agent_hooks.rs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::agent_hooks::{
    AGENTS, CHECKS, CLAUDE, Reply, hook, hook_raw, input, project, state_dir, write,
};
use crate::support::{Test, bin, git};

/// How long a hook with a 3 s deadline is given before the test calls it
/// stuck: its gate's check sleeps 60 s, so a hook that waits for it
/// never answers in time.
const OUTER: Duration = Duration::from_secs(45);

/// A project whose checks are `slow` (`sleep 60`) and, with `failing`, the
/// lint of tests/agent_hooks.rs on an `app.py` with a BUG marker; the hook
/// stops its gate after 3 s.
fn slow_project(failing: bool) -> Test {
    let mut checks = "[settings]\nallow = [\"python3\", \"sleep\"]\n\n[agent]\ntimeout = \"3s\"\n\
                      new_only = false\n\n[[check]]\nname = \"slow\"\nrun = [\"sleep\", \"60\"]\n"
        .to_string();
    if failing {
        checks.push_str("\n[[check]]\nname = \"lint\"\nrun = [\"python3\", \"lint.py\"]\n");
    }
    project(&checks, "x = 1  # BUG\n")
}

/// The Claude Code stop of session `session` in `dir`, answered within
/// [`OUTER`] or the test fails.
fn stop_within(dir: &Path, session: &str) -> Reply {
    let dir: PathBuf = dir.to_path_buf();
    let session = session.to_string();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let reply = hook(CLAUDE, CLAUDE.stop, &dir, &session, false);
        let _ = send.send(reply);
    });
    match receive.recv_timeout(OUTER) {
        Ok(reply) => reply,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("the hook did not answer: its gate was not stopped at `[agent] timeout`")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the hook call failed"),
    }
}

#[test]
fn a_gate_past_its_deadline_blocks_on_what_finished_and_names_what_did_not() {
    let test = slow_project(true);
    hook(CLAUDE, CLAUDE.start, test.path(), "late", false);
    let stop = stop_within(test.path(), "late");
    let reason = stop
        .blocked(CLAUDE)
        .unwrap_or_else(|| panic!("not blocked: {stop:?}"));
    assert!(
        reason.contains("app.py:1: [lint E1] found a BUG marker"),
        "{reason}"
    );
    assert!(
        reason.contains("1 of 2 checks did not finish within `[agent] timeout` (3s): slow"),
        "{reason}"
    );
    let told = stop.json["systemMessage"].as_str().unwrap_or_default();
    assert!(told.contains("raise `[agent] timeout`"), "{told}");
    assert!(
        told.contains("`timeout` in .claude/settings.json"),
        "{told}"
    );
}

#[test]
fn a_gate_past_its_deadline_with_no_failure_lets_go_and_tells_the_user() {
    let test = slow_project(false);
    hook(CLAUDE, CLAUDE.start, test.path(), "late", false);
    let stop = stop_within(test.path(), "late");
    assert_eq!(stop.blocked(CLAUDE), None, "{stop:?}");
    let told = stop
        .told(CLAUDE)
        .unwrap_or_else(|| panic!("a silent pass: {stop:?}"));
    assert!(
        told.contains("1 of 1 checks did not finish within `[agent] timeout` (3s): slow"),
        "{told}"
    );
    assert!(told.contains("the agent may stop"), "{told}");
    assert!(
        told.contains("`timeout` in .claude/settings.json"),
        "{told}"
    );
}

/// Two stops in a row whose gate `check` kills or blocks: the first blocks
/// with the reason, the second lets the agent go and tells the user.
#[track_caller]
fn dies_twice(test: &Test, session: &str) {
    let dir = test.path();
    hook(CLAUDE, CLAUDE.start, dir, session, false);
    let first = hook(CLAUDE, CLAUDE.stop, dir, session, false);
    let reason = first
        .blocked(CLAUDE)
        .unwrap_or_else(|| panic!("let go by a gate that died: {first:?}"));
    assert!(
        reason.starts_with("the gate could not finish: "),
        "{reason}"
    );
    let second = hook(CLAUDE, CLAUDE.stop, dir, session, true);
    assert_eq!(second.blocked(CLAUDE), None, "{second:?}");
    let told = second
        .told(CLAUDE)
        .unwrap_or_else(|| panic!("let go silently: {second:?}"));
    assert!(told.contains("the gate could not finish"), "{told}");
    assert!(told.contains("a second time in a row"), "{told}");
    assert!(!state_dir(test, session).join("round-1.json").is_file());
}

#[test]
fn a_gate_its_check_kills_blocks_once_then_lets_go_and_tells_the_user() {
    // The check finds its gate as its parent and kills it.
    let checks = format!(
        "{}\n[[check]]\nname = \"killer\"\nrun = [\"python3\", \"kill.py\"]\n",
        CHECKS
    );
    let test = project(&checks, "x = 1  # BUG\n");
    write(
        &test,
        "kill.py",
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    );
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "killer"]);
    dies_twice(&test, "killed");
    let told = hook(CLAUDE, CLAUDE.stop, test.path(), "killed", false);
    assert!(told.blocked(CLAUDE).is_some(), "counted afresh: {told:?}");
}

#[test]
fn a_folder_where_the_round_file_goes_blocks_and_the_next_stop_names_it_to_the_user() {
    // The check puts folders where the hook copies the gate's evidence.
    let checks = format!(
        "{}\n[[check]]\nname = \"planter\"\nrun = [\"python3\", \"plant.py\"]\n",
        CHECKS
    );
    let test = project(&checks, "x = 1  # BUG\n");
    write(
        &test,
        "plant.py",
        "import os\nfor n in range(1, 4):\n    \
         os.makedirs(f\".git/run-check/agent/planted/round-{n}.json/x\", exist_ok=True)\n",
    );
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "planter"]);
    let dir = test.path();
    hook(CLAUDE, CLAUDE.start, dir, "planted", false);
    let first = hook(CLAUDE, CLAUDE.stop, dir, "planted", false);
    let reason = first
        .blocked(CLAUDE)
        .unwrap_or_else(|| panic!("let go by a gate that died: {first:?}"));
    assert!(
        reason.starts_with("the gate could not finish: "),
        "{reason}"
    );
    // The folder left where the hook writes is not the hook's: the next
    // stop is no silent pass either; the session's digest chain names it,
    // blocks, and tells the user.
    let second = hook(CLAUDE, CLAUDE.stop, dir, "planted", true);
    let told = second
        .told(CLAUDE)
        .unwrap_or_else(|| panic!("let go silently: {second:?}"));
    assert!(
        told.contains("`round-1.json` was not written by the hook"),
        "{told}"
    );
    assert!(second.blocked(CLAUDE).is_some(), "{second:?}");
}

#[test]
fn cursor_s_aborted_stop_through_the_claude_hook_is_not_gated_and_answered_as_claude() {
    let cursor = AGENTS[1];
    let test = project(CHECKS, "x = 1  # BUG\n");
    for status in ["aborted", "error"] {
        let mut value = input(cursor, "stop", test.path(), "cur-abort", false);
        value["status"] = json!(status);
        let reply = hook_raw("claude", "Stop", value.to_string().as_bytes());
        reply.assert_clean();
        assert_eq!(reply.json, json!({}), "{status}: {reply:?}");
        assert_eq!(reply.code, Some(0));
        assert!(!state_dir(&test, "cur-abort").join("round-1.json").exists());
    }
    // Completed, it is gated, and the block is Claude Code's.
    let value = input(cursor, "stop", test.path(), "cur-abort", false);
    let reply = hook_raw("claude", "Stop", value.to_string().as_bytes());
    assert_eq!(reply.json["decision"], "block", "{reply:?}");
    assert!(reply.json.get("followup_message").is_none(), "{reply:?}");
}

/// Where each agent's file keeps the timeout of run-check's stop entry.
fn stop_timeout(root: &Path, agent: &str) -> Value {
    let read = |path: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
    };
    match agent {
        "claude" => {
            read(".claude/settings.json")["hooks"]["Stop"][0]["hooks"][0]["timeout"].clone()
        }
        "codex" => read(".codex/hooks.json")["hooks"]["Stop"][0]["hooks"][0]["timeout"].clone(),
        "cursor" => read(".cursor/hooks.json")["hooks"]["stop"][0]["timeout"].clone(),
        _ => read(".github/hooks/run-check.json")["hooks"]["agentStop"][0]["timeoutSec"].clone(),
    }
}

#[test]
fn install_writes_each_agents_timeout_as_agent_timeout_plus_a_minute() {
    let files = [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".cursor/hooks.json",
        ".github/hooks/run-check.json",
    ];
    let test = Test::new().config("[agent]\ntimeout = \"2m\"\n");
    let install = || {
        let output = Command::new(bin())
            .args(["agent", "install", "claude", "cursor", "codex", "copilot"])
            .current_dir(test.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{err}");
        files.map(|f| std::fs::read(test.path().join(f)).unwrap())
    };
    let first = install();
    for agent in AGENTS {
        assert_eq!(stop_timeout(test.path(), agent.name), 180, "{agent:?}");
    }
    // Cursor's session start (the first prompt) runs the gate too.
    let cursor: Value = serde_json::from_slice(&first[2]).unwrap();
    assert_eq!(cursor["hooks"]["beforeSubmitPrompt"][0]["timeout"], 180);
    assert_eq!(install(), first, "a second install changes no byte");

    write(&test, "checks.toml", "[agent]\ntimeout = \"1h\"\n");
    install();
    for agent in AGENTS {
        assert_eq!(stop_timeout(test.path(), agent.name), 3660, "{agent:?}");
    }
    // Without the key: the default, 9 minutes, so 600 s.
    write(&test, "checks.toml", "[agent]\n");
    install();
    for agent in AGENTS {
        assert_eq!(stop_timeout(test.path(), agent.name), 600, "{agent:?}");
    }
}
