//! The files of an agent session (`<git-dir>/run-check/agent/<session>/`)
//! are in reach of the code under test and of the agent's shell. Each is
//! read with a bound and only when it is a regular file: a link to
//! `/dev/zero` or a FIFO planted as `state.json`, `history.jsonl` or a
//! round's evidence never hangs the hook or `agent feedback`, nor drives
//! either through gigabytes. (Before, a `state.json` linked to /dev/zero
//! drove `agent feedback` to 2.1 GB, and a FIFO blocked the hook until the
//! agent killed it.)

#![cfg(unix)]

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::support::{Test, bin, git, state_home, wait_until};

/// `lint` fails, located, while `app.py` holds `BAD`.
const CHECKS: &str = "[settings]\nallow = [\"python3\"]\n\n[[check]]\nname = \"lint\"\n\
                      run = [\"python3\", \"-c\", \"import sys; bad = 'BAD' in open('app.py').read(); \
                      bad and print('app.py:1: E1 bad'); sys.exit(bad)\"]\n";

/// Starts the claude-named hook for `event` in `dir`'s repository.
fn start_hook(dir: &Path, event: &str) -> Child {
    let mut child = Command::new(bin())
        .args(["agent", "hook", "claude", event])
        .current_dir(dir)
        .env("XDG_STATE_HOME", state_home(dir))
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({"session_id": "s1", "cwd": dir, "hook_event_name": event,
                       "stop_hook_active": false, "source": "startup"});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child
}

/// Waits for `child` (at most a minute: a hang is the failure) and returns
/// its stdout and stderr; kills it and panics when it hangs.
#[track_caller]
fn finished(mut child: Child, what: &str) -> (Option<i32>, String, String) {
    let mut status = None;
    let ended = wait_until(Duration::from_secs(60), || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    if !ended {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} hangs on a planted session file");
    }
    let output = child.wait_with_output().unwrap();
    (
        status.and_then(|s| s.code()),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A repository with one red stop recorded in session `s1`; its folder.
fn session() -> (Test, std::path::PathBuf) {
    let test = Test::new().config(CHECKS).file("app.py", "x = 1\n");
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-qm", "project"]);
    finished(start_hook(test.path(), "SessionStart"), "SessionStart");
    std::fs::write(test.path().join("app.py"), "x = 'BAD'\n").unwrap();
    let (_, stdout, _) = finished(start_hook(test.path(), "Stop"), "Stop");
    assert!(stdout.contains("\"block\""), "{stdout}");
    let dir = test.path().join(".git/run-check/agent/s1");
    assert!(dir.join("state.json").is_file() && dir.join("round-1.json").is_file());
    (test, dir)
}

fn fifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

fn feedback(dir: &Path) -> Child {
    Command::new(bin())
        .args(["agent", "feedback"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_state_linked_to_dev_zero_or_a_fifo_is_never_read() {
    let (test, dir) = session();
    std::fs::remove_file(dir.join("state.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("state.json")).unwrap();
    let (code, _, stderr) = finished(feedback(test.path()), "agent feedback");
    assert_eq!(code, Some(2), "no session with a readable state: {stderr}");
    let (_, stdout, stderr) = finished(start_hook(test.path(), "Stop"), "the hook");
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_ok(),
        "{stdout}"
    );
    // A file the hook wrote that is not one any more: the session is not
    // trusted, which the reply says.
    assert!(stdout.contains("not a regular file"), "{stdout} {stderr}");

    fifo(&dir.join("state.json"));
    let (code, _, stderr) = finished(feedback(test.path()), "agent feedback");
    assert_eq!(code, Some(2), "{stderr}");
    let (_, stdout, stderr) = finished(start_hook(test.path(), "Stop"), "the hook");
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_ok(),
        "{stdout}"
    );
    // A file the hook wrote that is not one any more: the session is not
    // trusted, which the reply says.
    assert!(stdout.contains("not a regular file"), "{stdout} {stderr}");
}

#[test]
fn a_fifo_as_the_history_or_the_round_never_blocks() {
    let (test, dir) = session();
    fifo(&dir.join("history.jsonl"));
    let (_, stdout, stderr) = finished(start_hook(test.path(), "Stop"), "the hook");
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_ok(),
        "{stdout}"
    );
    assert!(stdout.contains("`history.jsonl`"), "{stdout} {stderr}");

    // The newest round replaced by a FIFO: `agent feedback` does not open it.
    let (test, dir) = session();
    fifo(&dir.join("round-1.json"));
    let (code, _, stderr) = finished(feedback(test.path()), "agent feedback");
    assert_eq!(code, Some(2), "{stderr}");
}
