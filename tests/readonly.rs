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
