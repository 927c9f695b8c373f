//! The last snapshot of a worktree no check touched is taken without a
//! second `git status`: change times prove git would list the same
//! (src/run/snapshot/settled.rs). Each test here plays a check that hides a
//! change from that proof, where git looks but the first listing showed
//! nothing: an empty folder, a folder of ignored files, deep below one, a
//! tracked file rewritten with its mtime put back, a file named like
//! run-check's own temporary file beside the report. Each must still fail
//! the run, naming the path; the untouched worktree passes with one
//! `git status` in the whole run (Linux: change times are trusted there).
//! And a limit on processes that refuses the snapshots' threads leaves
//! the run verified, not crashed.

use std::path::Path;

use crate::readonly::assert_modified;
use crate::support::{Run, Test, git};

/// A repository with tracked files in two folders (committed), an empty
/// folder, a folder holding only ignored files (two levels deep), an
/// ignored `build/` folder and an untracked file; `*.o` and `build/` are
/// ignored.
fn repo() -> Test {
    let test = Test::new()
        .file("src/a.py", "print(1)\n")
        .file("src/lib/b.py", "print(2)\n")
        .file(".gitignore", "*.o\nbuild/\nev.json\n")
        .file("objs/x.o", "object\n")
        .file("objs/deep/down/y.o", "object\n")
        .file("notes.txt", "untracked\n")
        .file("build/old.bin", "output\n");
    std::fs::create_dir_all(test.path().join("empty")).unwrap();
    git(test.path(), &["add", "src", ".gitignore"]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test
}

/// `git` on the PATH of the gate, logging each git subcommand to `log`
/// before running the real git.
fn logging_git(test: Test, log: &Path) -> Test {
    let real = which::which("git").unwrap();
    let bin = test.path().join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case $a in status|rev-parse|config|ls-files) echo $a >> '{}';; esac; done\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    let path = bin.join("git");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let old = std::env::var("PATH").unwrap_or_default();
    let test = test.file(".git/info/exclude", ".bin/\n");
    test.env("PATH", &format!("{}:{old}", bin.display()))
}

fn run(test: Test, script: &str) -> Run {
    test.config(&format!(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"{script}\"]\n"
    ))
    .args(&["--mode", "strict", "--format", "json", "--out", "ev.json"])
    .run()
}

#[test]
fn an_untouched_worktree_is_verified_with_one_git_status() {
    let side = tempfile::tempdir().unwrap();
    let log = side.path().join("git.log");
    // Ignored output written into a folder ignored as a whole, and a read
    // of every file: no change.
    let run = run(
        logging_git(repo(), &log),
        "echo out > build/o.bin && mkdir build/sub && cat src/a.py notes.txt > /dev/null",
    );
    assert_verified_with_one_status(&run, &log);
}

/// The run passed, verified, nothing modified, and the logging git saw
/// one `git status` in it.
fn assert_verified_with_one_status(run: &Run, log: &Path) {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    let asked = std::fs::read_to_string(log).unwrap();
    let statuses = asked.lines().filter(|l| *l == "status").count();
    assert_eq!(statuses, 1, "git subcommands asked:\n{asked}");
}

#[test]
fn a_file_created_in_an_empty_folder_fails_the_run() {
    let run = run(repo(), "echo x > empty/new.txt");
    assert_modified(&run, &["empty/new.txt"]);
}

#[test]
fn a_file_created_beside_ignored_files_fails_the_run() {
    let run = run(repo(), "echo x > objs/new.c");
    assert_modified(&run, &["objs/new.c"]);
}

#[test]
fn a_file_created_deep_below_a_folder_of_ignored_files_fails_the_run() {
    let run = run(repo(), "echo x > objs/deep/down/new.c");
    assert_modified(&run, &["objs/deep/down/new.c"]);
}

#[test]
fn a_tracked_file_rewritten_with_its_mtime_put_back_fails_the_run() {
    let run = run(repo(), &rewrite_keeping_mtime("src/lib/b.py", "print(3)"));
    assert_modified(&run, &["src/lib/b.py"]);
}

/// A check's script that rewrites `path` with the line `line` and sets its
/// mtime back. `line` is as long as the file's own, so the size stays too
/// and only the change time can show the rewrite.
fn rewrite_keeping_mtime(path: &str, line: &str) -> String {
    format!(
        "cp -p {path} /tmp/.keep-$$ && echo '{line}' > {path} && touch -r /tmp/.keep-$$ {path} && rm /tmp/.keep-$$"
    )
}

#[test]
fn a_file_named_like_run_checks_own_temporary_file_fails_the_run() {
    let run = run(repo(), "echo x > .run-check-1-forged.tmp");
    assert_modified(&run, &[".run-check-1-forged.tmp"]);
}

#[test]
fn an_untracked_file_edited_in_place_fails_the_run() {
    let run = run(repo(), "echo more >> notes.txt");
    assert_modified(&run, &["notes.txt"]);
}

/// [`repo`] with 15,000 more tracked files in 150 folders: an index over
/// 1 MiB, where the last snapshot's proof runs beside the git state's read
/// and the scan for FIFOs, on threads of their own.
fn large_repo() -> Test {
    let test = repo();
    for d in 0..150 {
        let dir = test.path().join(format!("gen/d{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f:02}.txt")), format!("{d} {f}\n")).unwrap();
        }
    }
    git(test.path(), &["add", "gen"]);
    git(test.path(), &["commit", "-q", "-m", "many"]);
    let index = std::fs::metadata(test.path().join(".git/index")).unwrap();
    assert!(index.len() > 1 << 20, "index of {} bytes", index.len());
    test
}

#[test]
fn a_large_untouched_worktree_is_verified_with_one_git_status() {
    let side = tempfile::tempdir().unwrap();
    let log = side.path().join("git.log");
    let run = run(
        logging_git(large_repo(), &log),
        "cat gen/d042/f07.txt src/a.py > /dev/null",
    );
    assert_verified_with_one_status(&run, &log);
}

#[test]
fn in_a_large_worktree_a_tracked_file_rewritten_with_its_mtime_put_back_fails_the_run() {
    let run = run(
        large_repo(),
        &rewrite_keeping_mtime("gen/d149/f99.txt", "149 98"),
    );
    assert_modified(&run, &["gen/d149/f99.txt"]);
}

/// The proof lstats the index's files as the first git state listed them:
/// a check that takes a file out of the index, leaving the file as it
/// was, changes nothing the proof looks at, but the index's meaning, which
/// brings git's listing back.
#[test]
fn in_a_large_worktree_a_file_taken_out_of_the_index_fails_the_run() {
    let run = run(large_repo(), "git rm -q --cached gen/d007/f03.txt");
    assert_modified(&run, &[".git/index", "gen/d007/f03.txt"]);
}

#[test]
fn in_a_large_worktree_a_fifo_planted_among_the_refs_fails_the_run() {
    let run = run(large_repo(), "mkfifo .git/refs/heads/trap");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    let modified = ev["contracts"]["read_only"]["modified"].to_string();
    assert!(modified.contains("refs/heads/trap"), "{modified}");
}

/// A check can read the name of run-check's temporary report file in the
/// folder and rename a file of its own over it: the report is then not
/// written (exit 2, nothing at `--out`), never the check's bytes in its
/// place.
#[test]
fn a_file_renamed_over_the_reports_temporary_file_is_not_written_as_the_report() {
    let run = run(
        repo(),
        "sleep 0.3; for t in .run-check-*.tmp; do printf forged > x.o; mv x.o $t; done",
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("its temporary file was replaced by another file during the run"),
        "{}",
        run.stderr
    );
    let dir = run.test.path();
    assert!(!dir.join("ev.json").exists(), "a report was written");
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".run-check-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The snapshots start up to 20 threads to `lstat` many files; a
/// container's limit on processes can refuse some. The run then goes on
/// with fewer (a refused thread leaves its share to the others), never a
/// panic. RLIMIT_NPROC binds an unprivileged user only: the run is made
/// as `nobody` (no other process of its own), with room for the run's
/// own git processes but not for the threads.
#[test]
fn a_limit_on_processes_leaves_the_snapshot_to_fewer_threads() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only root can make the run as an unprivileged user");
        return;
    }
    let test = repo();
    for d in 0..40 {
        let dir = test.path().join(format!("data/u{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..500 {
            std::fs::write(dir.join(format!("f{f:03}.txt")), "x\n").unwrap();
        }
    }
    let test = test.config(
        "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"trivial\"\nrun = [\"true\"]\n",
    );
    // The binary, where `nobody` may run it.
    let exe = test.path().join(".bin/run-check");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    std::fs::copy(crate::support::bin(), &exe).unwrap();
    let test = test.file(".git/info/exclude", ".bin/\n");
    let owned = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(test.path())
        .status()
        .unwrap();
    assert!(owned.success());
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(["prlimit", "--nproc=6"])
        .arg(&exe)
        .args(["--mode", "strict", "--format", "json", "--out", "ev.json"])
        .current_dir(test.path())
        .env("HOME", test.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let ev: serde_json::Value =
        serde_json::from_slice(&std::fs::read(test.path().join("ev.json")).unwrap()).unwrap();
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
}
