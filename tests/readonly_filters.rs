//! Files under a filter (Git LFS, git-crypt) whose index stat data are
//! stale when the gate starts: run-check's git runs no filter, so it lists
//! them as modified, and a check that runs git itself (with the filter)
//! refreshes the index. That is no change of the file; a check that
//! rewrites such a file still is (docs/read-only.md#files-under-a-filter).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Test, check, git};

/// Whether Debian's git-lfs is installed (scripts/install-test-tools.sh
/// installs it). Missing: the test fails (`support::missing`).
fn have_git_lfs() -> bool {
    let found = Command::new("git-lfs")
        .arg("version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        crate::support::missing("git-lfs is not installed");
    }
    found
}

/// A checks.toml of one check, `writer`, running `script` with `sh -c`.
fn config(script: &str) -> String {
    format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"{script}\"]\n"
    )
}

/// Makes the index's stat data of `path` stale (a later mtime and ctime,
/// the same bytes), as a checkout in the index's own second or a `touch`
/// leaves it; a second later, so that no timestamp is racy.
fn stale(root: &Path, path: &str) {
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let status = Command::new("touch").arg(root.join(path)).status().unwrap();
    assert!(status.success());
}

/// A repository whose `data.bin` is a Git LFS file (a real `git lfs
/// install --local` and `git lfs track`), committed.
fn lfs_repo(script: &str) -> Test {
    let test = Test::new();
    let root = test.path();
    git(root, &["lfs", "install", "--local"]);
    git(root, &["lfs", "track", "*.bin"]);
    let test = test
        .file("data.bin", &"large binary payload\n".repeat(200))
        .file(".gitignore", "ev.json\n")
        .config(&config(script));
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "lfs"]);
    // The blob is the LFS pointer, not the file.
    let blob = git(test.path(), &["cat-file", "-p", "HEAD:data.bin"]);
    assert!(blob.starts_with("version https://git-lfs"), "{blob}");
    test.args(&["--mode", "strict", "--format", "json", "--out", "ev.json"])
}

/// The run's evidence, after asserting its exit code and modified list.
#[track_caller]
fn assert_run(run: &crate::support::Run, code: i32, modified: Value) -> Value {
    assert_eq!(run.code, Some(code), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(ev["contracts"]["read_only"]["modified"], modified);
    assert_eq!(check(&ev, "writer")["status"], "pass");
    ev
}

#[test]
fn a_stale_lfs_file_a_check_s_git_refreshes_is_no_change() {
    if !have_git_lfs() {
        return;
    }
    let test = lfs_repo("git status --porcelain");
    stale(test.path(), "data.bin");
    // run-check's git (no filter) sees the smudged file, not the pointer.
    let run = test.run();
    let ev = assert_run(&run, 0, json!([]));
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    // The check's git did refresh the entry: git now calls it clean.
    assert_eq!(git(run.test.path(), &["status", "--porcelain"]), "");
}

#[test]
fn an_lfs_file_a_check_rewrites_is_a_change_even_with_the_same_bytes() {
    if !have_git_lfs() {
        return;
    }
    // The same bytes written back, then git refreshes the entry: the file
    // was written during the run.
    let test = lfs_repo(
        "cat data.bin > /tmp/run-check-lfs-$$ && cat /tmp/run-check-lfs-$$ > data.bin && rm /tmp/run-check-lfs-$$ && git status --porcelain",
    );
    stale(test.path(), "data.bin");
    assert_run(&test.run(), 1, json!(["data.bin"]));
    // Other bytes of the same size, the mtime put back: still a change.
    let test = lfs_repo(
        "touch -r data.bin /tmp/run-check-lfs-t-$$ && printf 'x' | dd of=data.bin bs=1 seek=5 conv=notrunc 2>/dev/null && touch -r /tmp/run-check-lfs-t-$$ data.bin && rm /tmp/run-check-lfs-t-$$ && git status --porcelain",
    );
    stale(test.path(), "data.bin");
    assert_run(&test.run(), 1, json!(["data.bin"]));
}

/// A repository with a git-crypt-like filter: `secret.txt` is stored
/// rot13'd (the blob) and checked out plain (the worktree), the driver in
/// `.git/config` and the attribute in `.gitattributes`, as `git-crypt
/// init` configures it.
fn filter_repo(script: &str) -> Test {
    let test = Test::new();
    let root = test.path();
    git(root, &["config", "filter.crypt.clean", "tr a-z n-za-m"]);
    git(root, &["config", "filter.crypt.smudge", "tr a-z n-za-m"]);
    git(root, &["config", "filter.crypt.required", "true"]);
    let test = test
        .file(".gitattributes", "secret.txt filter=crypt diff=crypt\n")
        .file("secret.txt", "plain text\n")
        .file(".gitignore", "ev.json\n")
        .config(&config(script));
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "crypt"]);
    let blob = git(test.path(), &["cat-file", "-p", "HEAD:secret.txt"]);
    assert_eq!(blob, "cynva grkg\n");
    test.args(&["--mode", "strict", "--format", "json", "--out", "ev.json"])
}

#[test]
fn a_stale_file_under_a_git_crypt_like_filter_refreshed_by_a_check_is_no_change() {
    let test = filter_repo("git status --porcelain");
    stale(test.path(), "secret.txt");
    assert_run(&test.run(), 0, json!([]));
    // And a check that edits it still fails the run.
    let test = filter_repo("echo edited > secret.txt && git status --porcelain");
    stale(test.path(), "secret.txt");
    assert_run(&test.run(), 1, json!(["secret.txt"]));
}
