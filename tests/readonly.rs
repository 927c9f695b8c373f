//! Read-only verification (docs/read-only.md): a check that changes the
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

/// The gate failed on the modification alone (the `writer` check passed),
/// exactly `paths` modified; the evidence is `ev.json`.
#[track_caller]
pub(crate) fn assert_modified(run: &crate::support::Run, paths: &[&str]) -> Value {
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
fn quick_checks_run_one_at_a_time_are_blamed_as_a_group_or_by_change_time() {
    // Both checks take milliseconds: no snapshot between them (it would cost
    // more than the checks). Where change times are trusted (Linux, a local
    // file system) the change names `writer` when it was stamped before
    // `ok` began; `ok` may begin within the tick of the clock that stamps
    // files, and then the group is named: never `ok` alone.
    let run = run_with(repo(), "echo changed >> tracked.txt", &["--jobs", "1"]);
    let ev = assert_modified(&run, &["tracked.txt"]);
    let diagnostics = read_only_diagnostics(&ev);
    let group = (
        "run-check".to_string(),
        "tracked.txt".to_string(),
        "changed by one of the checks `writer`, `ok`".to_string(),
    );
    let writer = (
        "writer".to_string(),
        "tracked.txt".to_string(),
        "changed by check `writer`".to_string(),
    );
    assert!(
        diagnostics == [group.clone()] || (cfg!(target_os = "linux") && diagnostics == [writer]),
        "{diagnostics:?}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_well_before_the_next_check_began_is_told_apart_by_change_time() {
    // `writer` goes on for 100 ms after its write, longer than the tick
    // (1-10 ms) of the clock that stamps files: the change time falls
    // within `writer`'s run only.
    let run = run_with(
        repo(),
        "echo changed >> tracked.txt; sleep 0.1",
        &["--jobs", "1"],
    );
    let ev = assert_modified(&run, &["tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "writer".into(),
            "tracked.txt".into(),
            "changed by check `writer`".into()
        )]
    );
}

#[cfg(target_os = "linux")]
/// Two checks at the default job count: `writer` runs `script` alone
/// (with the `extra` keys), `after` waits on it (`needs`).
fn with_needs(test: Test, script: &str, extra: &str) -> crate::support::Run {
    test.config(&format!(
        "{ALLOW}[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"{script}\"]\n{extra}\
         [[check]]\nname = \"after\"\nneeds = [\"writer\"]\nrun = [\"sh\", \"-c\", \"{AFTER}\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"])
    .run()
}

#[cfg(target_os = "linux")]
/// What `after` runs: until `tracked.txt` holds a line `x` (so a
/// background writer has written before the run ends), at most 20 s.
const AFTER: &str =
    "i=0; while ! grep -qx x tracked.txt && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done";

/// The line of the text report (`run-check report --format text`) that
/// names `path`.
fn text_line(run: crate::support::Run, path: &str) -> String {
    let text = run
        .test
        .again()
        .args(&["report", "ev.json", "--format", "text"])
        .run();
    text.stdout
        .lines()
        .find(|l| l.contains(&format!("modified: {path}")))
        .unwrap_or_else(|| panic!("no line for {path}: {}", text.stdout))
        .trim()
        .to_string()
}

#[cfg(target_os = "linux")]
#[test]
fn a_path_written_while_one_check_ran_alone_is_blamed_on_it_at_the_default_job_count() {
    // `writer` goes on for 100 ms after writing, longer than a tick of the
    // clock that stamps files (1-10 ms): `after` begins after the stamps.
    let run = with_needs(
        repo(),
        "echo x >> tracked.txt; echo y > made.txt; sleep 0.1",
        "",
    );
    let ev = assert_modified(&run, &["made.txt", "tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [
            (
                "writer".into(),
                "made.txt".into(),
                "created by check `writer`".into()
            ),
            (
                "writer".into(),
                "tracked.txt".into(),
                "changed by check `writer`".into()
            )
        ]
    );
    assert_eq!(
        text_line(run, "tracked.txt"),
        "modified: tracked.txt (by check `writer`)"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_at_the_very_end_of_a_need_is_blamed_on_it_not_on_the_check_that_needs_it() {
    // `writer` writes as its last act and `after` (which needs it) is
    // launched at once: within the tick of the clock that stamps files, so
    // the change time alone could be either's. The evidence's own times
    // say `writer` ended before `after` began, and so does the blame.
    let mut test = repo().config(&format!(
        "{ALLOW}[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"echo y > made.txt\"]\n\
         [[check]]\nname = \"after\"\nneeds = [\"writer\"]\nrun = [\"true\"]\n"
    ));
    // Several runs: one alone could land `after`'s launch past the tick.
    for round in 0..5 {
        let run = test.args(&["--format", "json", "--out", "ev.json"]).run();
        let ev = assert_modified(&run, &["made.txt"]);
        let times: Vec<(u64, u64)> = ev["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let start = c["started_ms"].as_u64().expect("started");
                (start, start + c["duration_ms"].as_u64().unwrap())
            })
            .collect();
        assert!(times[0].1 <= times[1].0, "round {round}: {times:?}");
        assert_eq!(
            read_only_diagnostics(&ev),
            [(
                "writer".into(),
                "made.txt".into(),
                "created by check `writer`".into()
            )],
            "round {round}"
        );
        // The text report says what the evidence says.
        let text = run
            .test
            .again()
            .args(&["report", "ev.json", "--format", "text"])
            .run();
        assert!(
            text.stdout
                .contains("modified: made.txt (by check `writer`)"),
            "round {round}: {}",
            text.stdout
        );
        std::fs::remove_file(text.test.path().join("made.txt")).unwrap();
        test = text.test.again();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_deleted_path_is_blamed_on_the_only_check_launched_before_its_folder_changed() {
    let test = repo();
    std::fs::create_dir(test.path().join("sub")).unwrap();
    std::fs::write(test.path().join("sub/gone.txt"), "g\n").unwrap();
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "sub"]);
    let run = with_needs(
        test,
        "rm sub/gone.txt; echo x >> tracked.txt; sleep 0.1",
        "",
    );
    let ev = assert_modified(&run, &["sub/gone.txt", "tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev)[0],
        (
            "writer".into(),
            "sub/gone.txt".into(),
            "deleted by check `writer`".into()
        )
    );
}

#[test]
fn a_path_written_while_two_checks_ran_names_both() {
    // `a` writes only once `b` has started, and `b` ends only once `a` has
    // written: the change falls within both runs, whatever the timing.
    let wait = |file: &str| {
        format!(
            "i=0; while [ ! -e build/{file} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done"
        )
    };
    let a = format!(
        "mkdir -p build; {}; echo changed >> tracked.txt; touch build/written",
        wait("b")
    );
    let b = format!("mkdir -p build; touch build/b; {}", wait("written"));
    let run = repo()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"{a}\"]\n\
             [[check]]\nname = \"b\"\nrun = [\"sh\", \"-c\", \"{b}\"]\n"
        ))
        .args(&["--format", "json", "--out", "ev.json", "--jobs", "2"])
        .run();
    let ev = assert_modified(&run, &["tracked.txt"]);
    let message = match cfg!(target_os = "linux") {
        true => "changed by one of the checks `writer`, `b`",
        false => "changed while the checks ran",
    };
    assert_eq!(
        read_only_diagnostics(&ev),
        [("run-check".into(), "tracked.txt".into(), message.into())]
    );
    // The text report names the checks the run narrowed it to, as the
    // diagnostic does: not `check unknown`.
    let shown = match cfg!(target_os = "linux") {
        true => "modified: tracked.txt (by one of the checks `writer`, `b`)",
        false => "modified: tracked.txt (check unknown)",
    };
    assert_eq!(text_line(run, "tracked.txt"), shown);
}

#[cfg(target_os = "linux")]
#[test]
fn a_process_left_running_cannot_pass_its_write_off_as_another_checks() {
    // `writer` leaves a process that writes while `after` runs alone: the
    // change time falls within `after`'s run only, yet `after` did not
    // write it. A run where a check left processes behind names no one.
    let run = with_needs(
        repo(),
        "(sleep 0.3; echo x >> tracked.txt) > /dev/null 2>&1 &",
        "leave_running = true\n",
    );
    let ev = assert_modified(&run, &["tracked.txt"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "run-check".into(),
            "tracked.txt".into(),
            "changed while the checks ran".into()
        )]
    );
    assert_eq!(
        text_line(run, "tracked.txt"),
        "modified: tracked.txt (check unknown)"
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

/// Adds the repository of `source` to `test` as the submodule `sub`, and
/// commits it.
fn add_submodule(test: &Test, source: &Test) {
    let url = source.path().to_str().unwrap();
    let add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q"];
    let args: Vec<&str> = add.iter().copied().chain([url, "sub"]).collect();
    git(test.path(), &args);
    git(test.path(), &["commit", "-q", "-m", "submodule"]);
}

#[test]
fn a_change_inside_an_already_dirty_submodule_fails_the_run() {
    let source = Test::new().file("f.txt", "a\n").file("g.txt", "b\n");
    git(source.path(), &["add", "."]);
    git(source.path(), &["commit", "-q", "-m", "s"]);
    let test = repo();
    add_submodule(&test, &source);
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

// Git state (docs/read-only.md, 2026-11-25): what a check changes through git
// without leaving a dirty file counts too.

/// A repository with two commits of `a.txt` (`1`, then `2`), a clean
/// worktree, a committer identity in its config and `.gitignore`
/// ignoring `*.json` (the evidence).
fn git_repo() -> Test {
    let test = Test::new()
        .file("a.txt", "1\n")
        .file(".gitignore", "*.json\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "one"]);
    let test = test.file("a.txt", "2\n");
    git(test.path(), &["commit", "-q", "-am", "two"]);
    git(test.path(), &["config", "user.name", "attacker"]);
    git(test.path(), &["config", "user.email", "a@example.com"]);
    test
}

/// Asserts a clean PASS: exit 0, verified, nothing modified.
#[track_caller]
fn assert_passes(run: &crate::support::Run) {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(
        ev["contracts"]["read_only"],
        serde_json::json!({"verified": true, "modified": [], "error": null})
    );
}

/// Runs one strict check `sh -c script` (plus the passing `ok`).
fn attack(test: Test, script: &str) -> crate::support::Run {
    run_with(test, script, &[])
}

#[test]
fn every_git_mutation_fails_the_run_with_what_it_changed() {
    let cases: [(&str, &[&str]); 13] = [
        (
            "echo 3 > a.txt && git commit -qam x",
            &[".git/index", "refs/heads/main"],
        ),
        (
            "git reset -q --hard HEAD~1",
            &[".git/index", "refs/heads/main"],
        ),
        ("git checkout -q HEAD~1", &[".git/HEAD", ".git/index"]),
        ("git checkout -q -b x", &[".git/HEAD", "refs/heads/x"]),
        ("git branch x", &["refs/heads/x"]),
        ("git tag x", &["refs/tags/x"]),
        ("git tag -a -m annotated y", &["refs/tags/y"]),
        ("git config core.hooksPath h", &[".git/config"]),
        (
            "printf '#!/bin/sh\\\\nexit 0\\\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
            &[".git/hooks/pre-commit"],
        ),
        ("git commit -q --allow-empty -m x", &["refs/heads/main"]),
        ("echo 3 > a.txt && git stash -q", &["refs/stash"]),
        ("git notes add -m note", &["refs/notes/commits"]),
        (
            "git update-ref refs/remotes/origin/main HEAD",
            &["refs/remotes/origin/main"],
        ),
    ];
    for (script, expected) in cases {
        let run = attack(git_repo(), script);
        assert_eq!(run.code, Some(1), "{script}: {}", run.stderr);
        let ev = run.json_file("ev.json");
        assert_eq!(
            ev["contracts"]["read_only"]["modified"],
            serde_json::json!(expected),
            "{script}"
        );
        assert_eq!(ev["summary"]["banner"], "Workspace modified by checks");
        assert_eq!(check(&ev, "writer")["status"], "pass", "{script}");
        let files: Vec<String> = read_only_diagnostics(&ev)
            .into_iter()
            .map(|(_, file, _)| file)
            .collect();
        assert_eq!(files, expected, "{script}");
    }
}

#[test]
fn a_hook_made_executable_or_deleted_counts() {
    // A hook written before the run, not executable (so git skips it).
    let test = git_repo();
    std::fs::write(test.path().join(".git/hooks/post-checkout"), "exit 0\n").unwrap();
    let run = attack(
        test,
        "cp .git/hooks/pre-commit.sample .git/hooks/pre-commit; \
         chmod +x .git/hooks/post-checkout; rm .git/hooks/update.sample",
    );
    let ev = assert_modified(
        &run,
        &[
            ".git/hooks/post-checkout",
            ".git/hooks/pre-commit",
            ".git/hooks/update.sample",
        ],
    );
    let kinds: Vec<String> = read_only_diagnostics(&ev)
        .into_iter()
        .map(|(_, _, message)| message.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["changed", "created", "deleted"]);
}

#[test]
fn a_hook_in_the_configured_hooks_path_counts() {
    // core.hooksPath set before the run, to a folder outside the worktree.
    let hooks = tempfile::tempdir().unwrap();
    let hooks_path = dunce::canonicalize(hooks.path()).unwrap();
    let test = git_repo();
    git(
        test.path(),
        &["config", "core.hooksPath", hooks_path.to_str().unwrap()],
    );
    let script = format!("echo 'exit 0' > {}/pre-push", hooks_path.display());
    let run = attack(test, &script);
    let expected = format!("{}/pre-push", hooks_path.display());
    assert_modified(&run, &[expected.as_str()]);
}

#[test]
fn a_pattern_added_to_info_exclude_hides_nothing() {
    let run = attack(
        git_repo(),
        "echo secret.txt >> .git/info/exclude && echo x > secret.txt",
    );
    // The file it hides is named too.
    assert_modified(&run, &[".git/info/exclude", "secret.txt"]);
}

#[test]
fn a_pattern_added_to_the_global_excludes_file_hides_nothing() {
    // core.excludesFile set in the repository's config before the run,
    // naming a file outside the worktree: it is named by its absolute path.
    let outside = tempfile::tempdir().unwrap();
    let excludes = dunce::canonicalize(outside.path()).unwrap().join("ignore");
    std::fs::write(&excludes, "*.log\n").unwrap();
    let test = git_repo();
    git(
        test.path(),
        &["config", "core.excludesFile", excludes.to_str().unwrap()],
    );
    let script = format!(
        "echo secret.txt >> {} && echo x > secret.txt",
        excludes.display()
    );
    let run = attack(test, &script);
    assert_modified(&run, &[excludes.to_str().unwrap(), "secret.txt"]);
}

#[test]
fn flagging_a_file_assume_unchanged_or_skip_worktree_then_editing_it_counts() {
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let script = format!("git update-index {flag} a.txt && echo hidden >> a.txt");
        let run = attack(git_repo(), &script);
        assert_modified(&run, &[".git/index"]);
    }
    // Staged, flagged, and the worktree put back: the staged change shows.
    let run = attack(
        git_repo(),
        "echo 3 > a.txt && git add a.txt && git update-index --assume-unchanged a.txt && echo 2 > a.txt",
    );
    assert_modified(&run, &[".git/index", "a.txt"]);
}

#[test]
fn files_flagged_before_the_run_are_hashed_like_dirty_ones() {
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let test = git_repo();
        git(test.path(), &["update-index", flag, "a.txt"]);
        let run = attack(test, "echo hidden >> a.txt");
        let ev = assert_modified(&run, &["a.txt"]);
        assert!(
            read_only_diagnostics(&ev)[0].2.starts_with("changed "),
            "{ev}"
        );
        // Untouched, they pass.
        let test = git_repo();
        git(test.path(), &["update-index", flag, "a.txt"]);
        assert_passes(&attack(test, "true"));
    }
}

#[test]
fn a_check_running_git_status_passes() {
    // `git status` refreshes the index's cached file times and rewrites it
    // (the files were touched after the index was written, so the refresh
    // has work to do); what is staged is unchanged.
    let test = git_repo().file("b.txt", "b\n");
    git(test.path(), &["add", "b.txt"]);
    git(test.path(), &["commit", "-q", "-m", "b"]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let index = test.path().join(".git/index");
    let before = std::fs::read(&index).unwrap();
    for name in ["a.txt", "b.txt"] {
        let content = std::fs::read(test.path().join(name)).unwrap();
        std::fs::write(test.path().join(name), content).unwrap();
    }
    let run = attack(
        test,
        "git status --porcelain >/dev/null && git diff --quiet",
    )
    .success();
    let ev = run.json_file("ev.json");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    // The refresh did rewrite the index: the test would prove nothing
    // otherwise.
    assert_ne!(std::fs::read(&index).unwrap(), before);
}

#[test]
fn index_versions_are_compared_by_meaning() {
    for version in ["2", "3", "4"] {
        let test = git_repo();
        git(test.path(), &["update-index", "--index-version", version]);
        std::thread::sleep(std::time::Duration::from_millis(1100));
        std::fs::write(test.path().join("a.txt"), "2\n").unwrap();
        assert_passes(&attack(test, "git status --porcelain >/dev/null"));
        let test = git_repo();
        git(test.path(), &["update-index", "--index-version", version]);
        let run = attack(test, "git update-index --skip-worktree a.txt");
        assert_modified(&run, &[".git/index"]);
    }
}

#[test]
fn a_split_index_is_compared_through_git() {
    let test = git_repo();
    git(test.path(), &["update-index", "--split-index"]);
    let run = attack(test, "git rm -q --cached a.txt");
    // The staged deletion shows in `git status` as well.
    assert_modified(&run, &[".git/index", "a.txt"]);
    let test = git_repo();
    git(test.path(), &["update-index", "--split-index"]);
    assert_passes(&attack(test, "git status --porcelain >/dev/null"));
}

#[test]
fn packing_refs_changes_nothing() {
    let test = git_repo();
    git(test.path(), &["tag", "v1"]);
    assert_passes(&attack(test, "git pack-refs --all"));
}

#[test]
fn a_linked_worktree_is_watched_in_its_own_and_the_common_git_directory() {
    let main = git_repo();
    let linked = main.path().join("linked");
    git(
        main.path(),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            linked.to_str().unwrap(),
        ],
    );
    std::fs::write(main.path().join(".git/info/exclude"), "linked/\n").unwrap();
    let config = format!(
        "{ALLOW}[[check]]\nname = \"writer\"\nrun = [\"sh\", \"-c\", \"git commit -q --allow-empty -m x && git tag t\"]\n"
    );
    std::fs::write(linked.join("checks.toml"), config).unwrap();
    let run = std::process::Command::new(crate::support::bin())
        .args(["--format", "json", "--out", "../ev.json"])
        .current_dir(&linked)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let ev: Value =
        serde_json::from_slice(&std::fs::read(main.path().join("ev.json")).unwrap()).unwrap();
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!(["refs/heads/side", "refs/tags/t"])
    );
}

#[test]
fn a_reftable_repository_is_watched_through_git() {
    let test = Test::bare().file("a.txt", "1\n");
    let init = std::process::Command::new("git")
        .args(["init", "-q", "-b", "main", "--ref-format=reftable"])
        .current_dir(test.path())
        .status()
        .unwrap();
    if !init.success() {
        // git before 2.45 has no reftable: nothing to test.
        eprintln!("skipped: this git cannot create a reftable repository");
        return;
    }
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "one"]);
    let run = attack(test.file(".gitignore", "*.json\n"), "git tag x");
    // `.gitignore` and `checks.toml` are untracked before the run: no change.
    assert_modified(&run, &["refs/tags/x"]);
}

// run-check's own temporary files (docs/read-only.md, 2026-11-25).

#[test]
fn concurrent_runs_writing_into_a_tracked_folder_do_not_fail_each_other() {
    // The reports are ignored, the folder is not: each run's temporary
    // `--out` file appears in the others' snapshots.
    let test = Test::new()
        .file("reports/README", "reports\n")
        .file(".gitignore", "reports/*.json\n")
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"slow\"\nrun = [\"sh\", \"-c\", \"sleep 0.5\"]\n"
        ));
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "reports"]);
    let children: Vec<_> = (0..8)
        .map(|i| {
            let out = format!("reports/ev-{i}.json");
            let mut command = test.command();
            command.args(["--format", "json", "--out", &out]);
            command.spawn().unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        let text = std::fs::read_to_string(test.path().join(format!("reports/ev-{i}.json")))
            .unwrap_or_default();
        assert_eq!(
            output.status.code(),
            Some(0),
            "run {i}: {}\n{text}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ev: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            ev["contracts"]["read_only"]["modified"],
            serde_json::json!([])
        );
    }
    // Nothing left behind.
    let left: Vec<_> = std::fs::read_dir(test.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_check_file_named_like_a_run_check_temporary_file_counts() {
    // Named after the live run-check process that runs the check (its
    // parent), and held open by the check's own shell: neither is a file
    // run-check holds open, so both count.
    let run = attack(
        git_repo(),
        "touch .run-check-$PPID-x.tmp; exec 3> .run-check-$$-y.tmp; echo hidden >&3",
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    let modified: Vec<String> = ev["contracts"]["read_only"]["modified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(modified.len(), 2, "{modified:?}");
    assert!(
        modified[0].starts_with(".run-check-") && modified[0].ends_with("-x.tmp"),
        "{modified:?}"
    );
    assert!(
        modified[1].starts_with(".run-check-") && modified[1].ends_with("-y.tmp"),
        "{modified:?}"
    );
}

#[test]
fn a_global_config_change_hides_nothing() {
    // `git config --global core.excludesFile` would hide a new file from
    // the second `git status`: the global config file is watched. The
    // run's HOME is a temp dir, so nothing outside the test is touched.
    let home = tempfile::tempdir().unwrap();
    let home_path = dunce::canonicalize(home.path()).unwrap();
    let test = git_repo()
        .env("HOME", home_path.to_str().unwrap())
        .env("XDG_CONFIG_HOME", home_path.join("xdg").to_str().unwrap());
    let run = attack(
        test,
        "echo secret.txt > $HOME/hide && git config --global core.excludesFile $HOME/hide && \
         echo x > secret.txt",
    );
    let gitconfig = format!("{}/.gitconfig", home_path.display());
    assert_modified(&run, &[gitconfig.as_str(), "secret.txt"]);
}

#[test]
fn a_git_change_is_blamed_on_the_check_that_made_it() {
    // One check at a time, the writer long enough for a snapshot of its own.
    let run = run_with(git_repo(), "sleep 1; git tag x", &["--jobs", "1"]);
    let ev = assert_modified(&run, &["refs/tags/x"]);
    assert_eq!(
        read_only_diagnostics(&ev),
        [(
            "writer".into(),
            "refs/tags/x".into(),
            "created by check `writer`".into()
        )]
    );
}

#[test]
fn a_repository_fsmonitor_hook_is_never_run_by_run_check() {
    // The candidate set `core.fsmonitor` before the run: git would run the
    // hook in run-check's own `git status` and trust its answer. run-check
    // asks git with `core.fsmonitor=false`, so the hook never runs and the
    // edit is found.
    let test = git_repo().script(
        "fsmon.sh",
        "#!/bin/sh\necho ran >> \"$(dirname \"$0\")/.git/fsmonitor-ran\"\nexit 1\n",
    );
    git(test.path(), &["config", "core.fsmonitor", "./fsmon.sh"]);
    let run = attack(test, "echo 3 > a.txt");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!(["a.txt"])
    );
    assert!(!run.test.path().join(".git/fsmonitor-ran").exists());
}

// The stat rule (docs/read-only.md): a listed file is not read again when its
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
    assert!(
        read_only_diagnostics(&ev)[0].2.starts_with("changed "),
        "{ev}"
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

/// `many_untracked` with an empty folder below an untracked one and a
/// folder of ignored files below another: folders no listed file shows.
#[cfg(unix)]
fn many_untracked_with_hidden_folders() -> Test {
    let test = many_untracked(6, 200);
    std::fs::create_dir_all(test.path().join("u0/empty/deeper")).unwrap();
    std::fs::create_dir_all(test.path().join("u1/build")).unwrap();
    std::fs::write(test.path().join("u1/build/obj.o"), "o").unwrap();
    test
}

#[cfg(unix)]
#[test]
fn with_many_untracked_files_a_file_added_anywhere_or_edited_is_found() {
    // With this many untracked files the last snapshot does not list them
    // again when their folders are unchanged (README: read-only
    // verification); each change below must still be found, alone.
    let cases: [(&str, &[&str]); 7] = [
        ("true", &[]),
        ("echo x > u0/empty/deeper/new", &["u0/empty/deeper/new"]),
        ("echo x > new-at-top.txt", &["new-at-top.txt"]),
        ("printf more >> u2/f000", &["u2/f000"]),
        ("ln u3/f000 u3/link", &["u3/f000", "u3/link"]),
        ("mv u1/build u1/plain", &["u1/plain/obj.o"]),
        // Ignored output next to the untracked files is no change.
        ("echo x > u1/build/more.o && mkdir -p u5/build", &[]),
    ];
    for (script, expected) in cases {
        let run = run_with(many_untracked_with_hidden_folders(), script, &[]);
        if expected.is_empty() {
            assert_eq!(run.code, Some(0), "{script}: {}", run.stderr);
            assert_unchanged(&run);
        } else {
            assert_modified(&run, expected);
        }
    }
}

#[cfg(unix)]
#[test]
fn with_many_untracked_files_a_file_added_inside_a_submodule_is_found() {
    // `git status --untracked-files=no` does not look inside submodules:
    // with a submodule in the index, the untracked files are listed again.
    let test = many_untracked(6, 200);
    let source = Test::new().file("lib.txt", "lib\n");
    git(source.path(), &["add", "."]);
    git(source.path(), &["commit", "-q", "-m", "lib"]);
    add_submodule(&test, &source);
    let run = run_with(test, "echo x > sub/new.txt", &[]);
    assert_modified(&run, &["sub/"]);
}

#[cfg(unix)]
#[test]
fn with_many_untracked_files_the_files_an_emptied_exclude_file_reveals_are_named() {
    let test = many_untracked(6, 200);
    let exclude = test.path().join(".git/info/exclude");
    std::fs::create_dir_all(exclude.parent().unwrap()).unwrap();
    std::fs::write(&exclude, "*.secret\n").unwrap();
    std::fs::write(test.path().join("u0/key.secret"), "s").unwrap();
    let run = run_with(test, ": > .git/info/exclude", &[]);
    assert_modified(&run, &[".git/info/exclude", "u0/key.secret"]);
}

/// pytest, mypy and ruff create `.pytest_cache/`, `.mypy_cache/` and
/// `.ruff_cache/`, each hiding itself with a `.gitignore` of `*`: a gate of
/// the real tools passes on a repository whose `.gitignore` does not list
/// them. A self-hiding folder of any other name, as a check would plant
/// it beside a new `conftest.py`, is still a change.
#[test]
fn the_caches_pytest_mypy_and_ruff_hide_are_no_change_other_hiding_folders_are() {
    let Some(python) = crate::support::test_tool("python/bin/python") else {
        return;
    };
    let python = python.to_str().unwrap().to_string();
    let config = format!(
        "[settings]\nallow = [\"{python}\"]\n\
         [[check]]\nname = \"pytest\"\nrun = [\"{python}\", \"-m\", \"pytest\", \"-q\"]\n\
         [[check]]\nname = \"mypy\"\nrun = [\"{python}\", \"-m\", \"mypy\", \"app.py\"]\n\
         [[check]]\nname = \"ruff\"\nrun = [\"{python}\", \"-m\", \"ruff\", \"check\", \".\"]\n"
    );
    let test = Test::new()
        .config(&config)
        .file(
            "app.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        )
        .file(
            "test_app.py",
            "from app import add\n\n\ndef test_add() -> None:\n    assert add(1, 2) == 3\n",
        );
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "project"]);
    let run = test
        .args(&["--format", "json", "--out", "../ev.json"])
        .run();
    let ev: Value =
        serde_json::from_slice(&std::fs::read(run.test.path().join("../ev.json")).unwrap())
            .unwrap();
    assert_eq!(run.code, Some(0), "{}\n{ev}", run.stderr);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    for cache in [".pytest_cache", ".mypy_cache", ".ruff_cache"] {
        assert!(
            run.test.path().join(cache).join(".gitignore").is_file(),
            "{cache} was made"
        );
    }

    // The attacker's version: a new folder that hides itself and what it
    // holds, named like no tool's cache.
    let run = run_with(
        repo(),
        "mkdir -p tests/zz && printf '*\\\\n' > tests/zz/.gitignore && echo x > tests/zz/conftest.py",
        &[],
    );
    assert_modified(&run, &["tests/zz/.gitignore", "tests/zz/conftest.py"]);
}

#[test]
fn a_secret_in_a_changed_path_is_masked_in_every_list_that_shows_it() {
    // A folder named after an AWS key id, made by a check; the check's
    // command (which the evidence shows) assembles the name in two halves.
    let key = format!("AKIA{}", "Q7R2XJ5LMN3P4W6Z");
    let masked = format!("AKIA{}", "*".repeat(16));
    let run = run_with(
        repo(),
        "k=AKIAQ7R2XJ5L && k=${k}MN3P4W6Z && mkdir -p keys/$k && echo x > keys/$k/new.txt",
        &[],
    );
    let shown = format!("keys/{masked}/new.txt");
    let ev = assert_modified(&run, &[&shown]);
    let files: Vec<&Value> = ev["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "read-only")
        .map(|d| &d["file"])
        .collect();
    assert_eq!(files, [&Value::from(shown.as_str())]);
    let evidence = run.test.path().join("ev.json");
    let bytes = std::fs::read_to_string(&evidence).unwrap();
    assert!(!bytes.contains(&key[4..]), "the evidence shows the key");
    assert!(!run.stdout.contains(&key[4..]) && !run.stderr.contains(&key[4..]));
    // The text report and the agent's feedback, made of the evidence.
    for args in [
        vec!["report", evidence.to_str().unwrap(), "--format", "text"],
        vec!["agent", "feedback", evidence.to_str().unwrap()],
    ] {
        let output = std::process::Command::new(crate::support::bin())
            .args(&args)
            .current_dir(run.test.path())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(!out.contains(&key[4..]), "{args:?} shows the key:\n{out}");
        assert!(
            out.contains(&shown),
            "{args:?} does not name {shown}:\n{out}"
        );
    }
}
