//! Nothing under the git directory is opened unless it is a regular file
//! or a directory: FIFOs a check plants where a hook, `config.worktree` or
//! a ref belongs never block the gate's snapshot and are changes; a later
//! run says which file git would block on instead of hanging; and a git
//! process blocked on a FIFO among the objects (beyond what run-check
//! looks at first) still ends with the gate on SIGTERM. Each run is
//! waited for with a generous bound, so a hang fails the test instead of
//! hanging it.

use std::process::Child;
use std::time::Duration;

use serde_json::json;

use crate::support::{Run, Test, git, wait_until};

/// Long enough for any loaded machine; a hang is forever.
const BOUND: Duration = Duration::from_secs(30);

/// Waits for `child` to end (killed and a failure after [`BOUND`]).
#[track_caller]
fn ended(mut child: Child, test: Test) -> Run {
    let mut status = None;
    wait_until(BOUND, || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the gate hung: still running after {BOUND:?}");
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: Duration::ZERO,
        test,
    }
}

/// A committed repository whose one check runs `script` in `sh`.
fn repo(script: &str) -> Test {
    let config = format!(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"{script}\"]\n"
    );
    let test = Test::new()
        .file("src/a.py", "print(1)\n")
        .file(".gitignore", "ev.json\n")
        .config(&config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test.args(&["--format", "json", "--out", "ev.json"])
}

fn run(test: Test) -> Run {
    let child = test.command().spawn().unwrap();
    ended(child, test)
}

#[test]
fn fifos_planted_under_the_git_directory_are_changes_and_block_nothing() {
    let test = repo(
        "git config extensions.worktreeConfig true && mkfifo .git/hooks/pre-push .git/config.worktree .git/refs/heads/planted",
    );
    let run = run(test);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["checks"][0]["status"], "pass");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        json!([
            ".git/config",
            ".git/config.worktree",
            ".git/hooks/pre-push",
            "refs/heads/planted"
        ])
    );
    // The next run cannot ask git (it would block on the FIFO): an error
    // that names it, not a hang, and not a run that takes the worktree
    // for one outside git.
    let run = self::run(run.test.again().args(&["--format", "json"]));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("config.worktree` is a fifo"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_fifo_at_a_loose_ref_alone_is_a_change_and_the_next_run_names_it() {
    let run = run(repo("mkfifo .git/refs/heads/planted"));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        json!(["refs/heads/planted"])
    );
    let run = self::run(run.test.again().args(&["--format", "json"]));
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("refs/heads/planted` is a fifo"),
        "{}",
        run.stderr
    );
}

/// The check puts a FIFO in place of HEAD's commit object and edits a
/// tracked file, so the last snapshot asks `git status` (an untouched
/// worktree would be proven unchanged without git), which opens the object
/// (run-check does not look at objects first). That git blocks; SIGTERM to
/// the gate kills it, and the gate ends as an interrupted run (130) with
/// its evidence.
#[test]
fn sigterm_ends_a_gate_whose_git_blocks_on_a_fifo_among_the_objects() {
    let side = tempfile::tempdir().unwrap();
    let marker = side.path().join("planted");
    let test = repo(&format!(
        "c=$(git rev-parse HEAD) && o=.git/objects/$(echo $c | cut -c1-2)/$(echo $c | cut -c3-) && rm -f $o && mkfifo $o && echo 2 >> src/a.py && touch '{}'",
        marker.display()
    ));
    let child = test.command().spawn().unwrap();
    assert!(
        wait_until(BOUND, || marker.exists()),
        "the check never planted its FIFO"
    );
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let run = ended(child, test);
    assert_eq!(run.code, Some(130), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["exit_code"], 130);
}
