//! Unit tests' git: runs git in a test repository with a fixed identity and
//! fails the test when git fails. Compiled only for tests.

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `git -C dir ARGS` with a test identity; panics (failing the test)
/// when git fails.
#[track_caller]
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .stdout(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// The repository holding `worktree` and its status, as a run's start asks
/// them; panics (failing the test) when git cannot answer.
#[track_caller]
pub(crate) fn open(worktree: &Path) -> (crate::git::Repo, Result<crate::git::Status, String>) {
    let (repo, status, ()) = crate::git::Opening::start(worktree)
        .and_then(|opening| opening.finish_with(|_, _| ()))
        .expect("git answers");
    (repo, status)
}
