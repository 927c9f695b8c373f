//! Read-only verification (SPEC section 5): a check that changes the
//! worktree fails the run with `Workspace modified by checks`, one
//! `read-only` diagnostic per path and `contracts.read_only.modified`;
//! ignored output never counts; the `--out` file never counts.

use serde_json::Value;

use crate::support::{Test, check, git};

const ALLOW: &str = "[settings]\nallow = [\"sh\", \"true\"]\n";

/// A repository with a committed `tracked.txt`, `dirty.txt` (modified but not
/// committed) and a `.gitignore` ignoring `build/`.
fn repo() -> Test {
    let test = Test::new()
        .file("tracked.txt", "tracked\n")
        .file("dirty.txt", "committed\n")
        .file(".gitignore", "build/\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "files"]);
    test.file("dirty.txt", "dirty before the run\n")
}

fn run_with(test: Test, script: &str, extra: &[&str]) -> crate::support::Run {
    test.config(&format!(
        "{ALLOW}[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"{script}\"]\nmodes = [\"fast\", \"strict\"]\n\
         [[check]]\nname = \"ok\"\nrun = [\"true\"]\nmodes = [\"fast\", \"strict\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"])
    .args(extra)
    .run()
}

fn read_only_diagnostics(ev: &Value) -> Vec<(String, String, String)> {
    ev["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "read-only")
        .map(|d| {
            (
                d["check"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[track_caller]
fn assert_modified(run: &crate::support::Run, paths: &[&str]) -> Value {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "Workspace modified by checks");
    assert_eq!(ev["summary"]["all_checks_passed"], false);
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!(paths)
    );
    // The checks themselves passed: the run fails on the modification alone.
    assert_eq!(check(&ev, "writer")["status"], "pass");
    ev
}

#[test]
fn editing_a_tracked_file_fails_the_run() {
    // The writer runs long enough (1 s) for a snapshot of its own.
    let run = run_with(
        repo(),
        "sleep 1; echo changed >> tracked.txt",
        &["--jobs", "1"],
    );
    let ev = assert_modified(&run, &["tracked.txt"]);
    // One check at a time: the culprit is named.
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "writer".into(),
            "tracked.txt".into(),
            "changed by check `writer`".into()
        )]
    );
}

#[test]
fn editing_an_already_dirty_file_fails_the_run() {
    let run = run_with(repo(), "echo more >> dirty.txt", &["--jobs", "1"]);
    assert_modified(&run, &["dirty.txt"]);
}

#[test]
fn creating_an_untracked_file_fails_the_run() {
    let run = run_with(repo(), "mkdir -p new && echo x > new/file.txt", &[]);
    let ev = assert_modified(&run, &["new/file.txt"]);
    let diags = read_only_diagnostics(&ev);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].1, "new/file.txt");
    assert!(diags[0].2.starts_with("created"), "{diags:?}");
}

#[test]
fn deleting_a_file_fails_the_run() {
    let run = run_with(repo(), "sleep 1; rm tracked.txt", &["--jobs", "1"]);
    let ev = assert_modified(&run, &["tracked.txt"]);
    assert_eq!(read_only_diagnostics(&ev)[0].2, "deleted by check `writer`");
}

#[test]
fn writing_only_into_an_ignored_directory_passes() {
    let run = run_with(
        repo(),
        "mkdir -p build && echo out > build/artifact.bin",
        &[],
    )
    .success();
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(
        ev["contracts"]["read_only"],
        serde_json::json!({"verified": true, "modified": [], "error": null})
    );
    // The --out file (untracked, not ignored) did not count either.
    assert!(run.test.path().join("ev.json").exists());
}

#[test]
fn a_previous_out_file_does_not_count_when_rewritten() {
    let test = repo().file("ev.json", "{}\n");
    let run = run_with(test, "true", &[]).success();
    assert_eq!(
        run.json_file("ev.json")["summary"]["all_checks_passed"],
        true
    );
}

#[test]
fn fast_mode_verifies_only_when_asked() {
    let run = run_with(repo(), "echo x > created.txt", &["--mode", "fast"]).success();
    let ev = run.json_file("ev.json");
    assert_eq!(ev["contracts"]["read_only"]["verified"], false);

    let run = run_with(
        repo(),
        "echo x > created.txt",
        &["--mode", "fast", "--verify-read-only"],
    );
    assert_modified(&run, &["created.txt"]);
}

#[test]
fn outside_git_every_unignored_file_counts() {
    let test = Test::bare()
        .file(".gitignore", "cache/\n")
        .file("kept.txt", "k\n");
    let run = run_with(
        test,
        "mkdir -p cache target && echo 1 > cache/x && echo 2 > target/y && echo 3 >> kept.txt",
        &[],
    );
    assert_modified(&run, &["kept.txt"]);
}

#[test]
fn quick_checks_run_one_at_a_time_are_blamed_as_a_group() {
    // Both checks take milliseconds: no snapshot between them (it would cost
    // more than the checks), so the blame names both.
    let run = run_with(repo(), "echo changed >> tracked.txt", &["--jobs", "1"]);
    let ev = assert_modified(&run, &["tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "run-check".into(),
            "tracked.txt".into(),
            "changed by one of the checks `writer`, `ok`".into()
        )]
    );
}

#[test]
fn parallel_checks_are_not_blamed_individually() {
    let run = run_with(repo(), "echo changed >> tracked.txt", &["--jobs", "2"]);
    let ev = assert_modified(&run, &["tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "run-check".into(),
            "tracked.txt".into(),
            "changed while the checks ran".into()
        )]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn files_named_in_bytes_that_are_not_utf8_are_verified() {
    use std::os::unix::ffi::OsStrExt;
    let name = |bytes: &[u8]| std::ffi::OsStr::from_bytes(bytes).to_os_string();
    let test = repo();
    std::fs::write(test.path().join(name(b"data\xff.txt")), "a\n").unwrap();
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "data"]);
    // Dirty (tracked) and untracked before the run: both are listed by
    // `git status`, and both are hashed under their real names.
    std::fs::write(test.path().join(name(b"data\xff.txt")), "a\ndirty\n").unwrap();
    std::fs::write(test.path().join(name(b"note\xfe.txt")), "n\n").unwrap();
    let run = run_with(test, "for f in data* note*; do echo more >> $f; done", &[]);
    assert_modified(&run, &["data\u{fffd}.txt", "note\u{fffd}.txt"]);
}

/// `repo()` with an untracked nested repository `vendor/lib` holding
/// `file.txt` and a `.gitignore` of its own.
fn repo_with_nested_clone() -> Test {
    let test = repo()
        .file("vendor/lib/file.txt", "a\n")
        .file("vendor/lib/.gitignore", "*.log\n");
    git(&test.path().join("vendor/lib"), &["init", "-q"]);
    test
}

#[test]
fn a_change_inside_an_untracked_nested_repository_fails_the_run() {
    // `git status` lists the nested repository as one entry, `vendor/lib/`;
    // the tree under it is hashed.
    let run = run_with(
        repo_with_nested_clone(),
        "echo more >> vendor/lib/file.txt; echo new > vendor/lib/new.txt",
        &[],
    );
    assert_modified(&run, &["vendor/lib/"]);
    // Its own ignored files and its `.git` do not count.
    let _ = run_with(
        repo_with_nested_clone(),
        "echo x > vendor/lib/out.log; git -C vendor/lib add file.txt",
        &[],
    )
    .success();
}

#[test]
fn a_change_inside_an_already_dirty_submodule_fails_the_run() {
    let source = Test::new().file("f.txt", "a\n").file("g.txt", "b\n");
    git(source.path(), &["add", "."]);
    git(source.path(), &["commit", "-q", "-m", "s"]);
    let test = repo();
    let url = source.path().to_str().unwrap();
    git(
        test.path(),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            "sub",
        ],
    );
    git(test.path(), &["commit", "-q", "-m", "submodule"]);
    // Dirty before the run: one `S.M.` entry, the same after the check.
    let test = test.file("sub/f.txt", "a\ndirty\n");
    let run = run_with(test, "echo more >> sub/g.txt", &[]);
    assert_modified(&run, &["sub/"]);
}

#[cfg(unix)]
#[test]
fn run_checks_own_stdout_and_stderr_files_do_not_count() {
    // `run-check >out.txt 2>stderr.log`, and `>all.txt 2>&1`: the progress
    // lines run-check writes there while the checks run are its own.
    let test = repo().config(&format!(
        "{ALLOW}[[check]]\nname = \"ok\"\nrun = [\"true\"]\n"
    ));
    let file = |name: &str| std::fs::File::create(test.path().join(name)).unwrap();
    let status = test
        .command()
        .stdout(file("out.txt"))
        .stderr(file("stderr.log"))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let read = |name: &str| std::fs::read_to_string(test.path().join(name)).unwrap();
    let (out, stderr) = (read("out.txt"), read("stderr.log"));
    assert!(out.ends_with("All checks passed!\n"), "{out}");
    assert!(stderr.contains("PASS ok"), "{stderr}");

    let both = file("all.txt");
    let status = test
        .command()
        .stdout(both.try_clone().unwrap())
        .stderr(both)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let all = read("all.txt");
    assert!(all.ends_with("All checks passed!\n"), "{all}");
}

#[test]
fn untracked_build_output_does_not_count_in_git_either() {
    // No `.gitignore` for them: `target/` and `node_modules/` are build
    // output as outside git; a tracked file there still counts.
    let test = repo().file("target/keep.txt", "kept\n");
    git(test.path(), &["add", "target/keep.txt"]);
    git(test.path(), &["commit", "-q", "-m", "keep"]);
    let run = run_with(
        test,
        "mkdir -p node_modules/m sub/target && echo 1 > node_modules/m/i.js && \
         echo 2 > target/out && echo 3 > sub/target/o && echo 4 >> target/keep.txt",
        &[],
    );
    assert_modified(&run, &["target/keep.txt"]);
}

// The stat rule (SPEC section 5): a listed file is not read again when its
// stat data is unchanged, and nothing a check can do keeps all of it.

#[cfg(unix)]
#[track_caller]
fn assert_unchanged(run: &crate::support::Run) {
    assert_eq!(
        run.json_file("ev.json")["contracts"]["read_only"],
        serde_json::json!({"verified": true, "modified": [], "error": null})
    );
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_found() {
    // Same length, the mtime put back: only the ctime (which no check can
    // set back) and the inode tell.
    let run = run_with(
        repo(),
        "mkdir -p build && touch -r dirty.txt build/stamp && \
         printf 'DIRTY BEFORE THE RUN\\n' > dirty.txt && touch -r build/stamp dirty.txt",
        &[],
    );
    let ev = assert_modified(&run, &["dirty.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev)[0].2,
        "changed while the checks ran"
    );
    assert_eq!(
        std::fs::read_to_string(run.test.path().join("dirty.txt")).unwrap(),
        "DIRTY BEFORE THE RUN\n"
    );
}

#[test]
fn a_file_written_just_before_the_run_and_edited_within_the_same_tick_is_found() {
    // Written a moment before the run (racy: within a clock tick of the
    // first snapshot), then rewritten at once with the same size and mtime.
    let test = repo().file("fresh.txt", "fresh\n");
    let run = run_with(
        test,
        "mkdir -p build && touch -r fresh.txt build/stamp && \
         printf 'FRESH\\n' > fresh.txt && touch -r build/stamp fresh.txt",
        &[],
    );
    assert_modified(&run, &["fresh.txt"]);
}

#[test]
fn touching_or_rewriting_a_listed_file_with_the_same_bytes_counts() {
    // A write is a write: the bytes coming out the same this time does not
    // make the check read-only. A clean tracked file is git's to judge
    // (content against the index), so touching it does not count.
    let test = repo().file("notes.txt", "untracked\n");
    let run = run_with(
        test,
        "touch dirty.txt tracked.txt && printf 'untracked\\n' > notes.txt",
        &[],
    );
    assert_modified(&run, &["dirty.txt", "notes.txt"]);
}

#[cfg(unix)]
#[test]
fn a_mode_change_outside_git_is_found() {
    let test = Test::bare()
        .file("tool.sh", "echo hi\n")
        .file("kept.txt", "k\n");
    let run = run_with(test, "chmod +x tool.sh", &[]);
    let ev = assert_modified(&run, &["tool.sh"]);
    assert!(read_only_diagnostics(&ev)[0].2.starts_with("changed"));
    // And a clean run there passes.
    let test = Test::bare().file("kept.txt", "k\n");
    let run = run_with(test, "true", &[]).success();
    assert_unchanged(&run);
}

/// A repository with `dirs` folders of `per_dir` untracked files each (more
/// than the first snapshot stats one by one), `spare/` ignored.
#[cfg(unix)]
fn many_untracked(dirs: usize, per_dir: usize) -> Test {
    let test = repo().file(".gitignore", "build/\nspare/\n");
    git(test.path(), &["add", ".gitignore"]);
    git(test.path(), &["commit", "-q", "-m", "spare"]);
    for d in 0..dirs {
        let dir = test.path().join(format!("u{d}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..per_dir {
            std::fs::write(dir.join(format!("f{f:03}")), format!("untracked {d}/{f}\n")).unwrap();
        }
    }
    test
}

#[cfg(unix)]
#[test]
fn many_untracked_files_pass_untouched_and_fail_on_every_kind_of_change() {
    let run = run_with(many_untracked(6, 200), "true", &[]).success();
    assert_unchanged(&run);

    // Same size, mtime put back; a mode bit; an identical copy renamed into
    // place; a whole folder swapped for an identical copy made before the
    // run; a temporary file created and removed next to the others.
    let test = many_untracked(6, 200);
    let copy = |from: &str, to: &str| {
        let (from, to) = (test.path().join(from), test.path().join(to));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
        let mtime = std::fs::metadata(&from).unwrap().modified().unwrap();
        let file = std::fs::File::options().write(true).open(&to).unwrap();
        file.set_modified(mtime).unwrap();
    };
    copy("u2/f002", "spare/f002");
    for f in 0..200 {
        copy(&format!("u3/f{f:03}"), &format!("spare/u3/f{f:03}"));
    }
    let run = run_with(
        test,
        "mkdir -p build && touch -r u0/f000 build/stamp && \
         printf 'UNTRACKED 0/0\\n' > u0/f000 && touch -r build/stamp u0/f000 && \
         chmod +x u1/f001 && mv spare/f002 u2/f002 && \
         mv u3 spare/old-u3 && mv spare/u3 u3 && \
         echo t > u4/tmp && rm u4/tmp",
        &[],
    );
    let mut expected = vec![
        "u0/f000".to_string(),
        "u1/f001".to_string(),
        "u2/f002".to_string(),
    ];
    expected.extend((0..200).map(|f| format!("u3/f{f:03}")));
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    let ev = assert_modified(&run, &expected);
    assert!(
        read_only_diagnostics(&ev)
            .iter()
            .all(|(_, _, message)| message.starts_with("changed")),
    );
}
