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
