//! Fast mode's change filter (docs/running.md): a check with `paths` runs only
//! when a changed file (tracked changes against `--changed-since`, staged,
//! untracked-not-ignored) matches; else it is `skip` with the reason.

use serde_json::Value;

use crate::support::{Test, check, git};

const CONFIG: &str = r#"
[settings]
allow = ["true"]

[[check]]
name = "rust"
run = ["true"]
modes = ["fast"]
paths = ["src/**/*.rs", "Cargo.toml"]

[[check]]
name = "docs"
run = ["true"]
modes = ["fast"]
paths = ["docs/**"]

[[check]]
name = "always"
run = ["true"]
modes = ["fast"]

[[check]]
name = "after-docs"
run = ["true"]
modes = ["fast"]
needs = ["docs"]
"#;

/// A repository with committed src/a.rs, docs/guide.md and checks.toml.
fn repo() -> Test {
    let test = Test::new()
        .config(CONFIG)
        .file("src/a.rs", "fn a() {}\n")
        .file("docs/guide.md", "# guide\n")
        .file(".gitignore", "ev.json\nbuild/\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test
}

fn statuses(ev: &Value) -> Vec<(String, String)> {
    ev["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().into(),
                c["status"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn fast(test: Test, extra: &[&str]) -> Value {
    let run = test
        .args(&["--mode", "fast", "--format", "json"])
        .args(extra)
        .run()
        .success();
    run.json_stdout()
}

#[test]
fn only_checks_whose_paths_match_a_changed_file_run() {
    let test = repo().file("src/a.rs", "fn a() { }\n");
    let ev = fast(test, &[]);
    assert_eq!(
        statuses(&ev),
        [
            ("rust".into(), "pass".into()),
            ("docs".into(), "skip".into()),
            ("always".into(), "pass".into()),
            // A need skipped for lack of a change is no failure.
            ("after-docs".into(), "pass".into()),
        ]
    );
    assert_eq!(
        check(&ev, "docs")["skip_reason"],
        "no changed file matches `paths` (docs/**)"
    );
    assert_eq!(
        ev["meta"]["changes"],
        serde_json::json!({"base": "HEAD", "files_changed": 1, "files": ["src/a.rs"], "note": null})
    );
}

#[test]
fn paths_read_like_scan_paths_dot_slash_and_directories() {
    // `./src/**` is `src/**`, and a directory (`src`, `docs/`) selects
    // everything below it, as in `scan.paths`; before, these never matched.
    let config = r#"
[settings]
allow = ["true"]

[[check]]
name = "dotslash"
run = ["true"]
modes = ["fast"]
paths = ["./src/**"]

[[check]]
name = "dir"
run = ["true"]
modes = ["fast"]
paths = ["src"]

[[check]]
name = "dirslash"
run = ["true"]
modes = ["fast"]
paths = ["./docs/"]
"#;
    let test = repo().config(config);
    git(test.path(), &["commit", "-q", "-am", "config"]);
    let ev = fast(test.file("src/deep/b.rs", "fn b() {}\n"), &[]);
    assert_eq!(
        statuses(&ev),
        [
            ("dotslash".into(), "pass".into()),
            ("dir".into(), "pass".into()),
            ("dirslash".into(), "skip".into()),
        ]
    );
    assert_eq!(
        check(&ev, "dirslash")["skip_reason"],
        "no changed file matches `paths` (./docs/)"
    );
}

#[test]
fn untracked_and_staged_files_count_and_ignored_ones_do_not() {
    let test = repo()
        .file("docs/new.md", "new\n")
        .file("build/out.rs", "ignored\n");
    let ev = fast(test, &[]);
    assert_eq!(check(&ev, "docs")["status"], "pass");
    assert_eq!(check(&ev, "rust")["status"], "skip");

    let test = repo().file("Cargo.toml", "[package]\n");
    git(test.path(), &["add", "Cargo.toml"]);
    let ev = fast(test, &[]);
    assert_eq!(check(&ev, "rust")["status"], "pass");
    assert_eq!(check(&ev, "docs")["status"], "skip");
}

#[test]
fn changed_since_compares_against_an_older_revision() {
    let test = repo().file("docs/guide.md", "# guide, edited\n");
    git(test.path(), &["commit", "-q", "-am", "docs"]);
    // Against HEAD nothing changed; against HEAD~1 the docs did.
    let ev = fast(test, &[]);
    assert_eq!(check(&ev, "docs")["status"], "skip");
    let test = repo().file("docs/guide.md", "# guide, edited\n");
    git(test.path(), &["commit", "-q", "-am", "docs"]);
    let ev = fast(test, &["--changed-since", "HEAD~1"]);
    assert_eq!(check(&ev, "docs")["status"], "pass");
    assert_eq!(check(&ev, "rust")["status"], "skip");
}

#[test]
fn a_missing_revision_is_an_error_before_anything_runs() {
    let run = repo()
        .args(&[
            "--mode",
            "fast",
            "--changed-since",
            "no-such-rev",
            "--out",
            "ev.json",
        ])
        .run()
        .status(2);
    assert_eq!(
        run.stderr,
        "error: --changed-since `no-such-rev`: no such revision in this repository\n"
    );
    assert!(!run.test.path().join("ev.json").exists());
}

#[test]
fn outside_git_every_check_runs_and_the_evidence_says_why() {
    let test = Test::bare().config(CONFIG).env(
        "GIT_CEILING_DIRECTORIES",
        std::env::temp_dir().to_str().unwrap(),
    );
    let ev = fast(test, &[]);
    assert!(
        statuses(&ev).iter().all(|(_, s)| s == "pass"),
        "{:?}",
        statuses(&ev)
    );
    assert_eq!(
        ev["meta"]["changes"]["note"],
        "not a git repository: every check runs"
    );
}

#[test]
fn strict_mode_ignores_paths() {
    let strict = CONFIG.replace("modes = [\"fast\"]", "modes = [\"strict\"]");
    let run = repo().config(&strict).args(&["--format", "json"]).run();
    // checks.toml was rewritten but not committed: that is fine for strict.
    let ev = run.json_stdout();
    assert!(
        statuses(&ev).iter().all(|(_, s)| s == "pass"),
        "{:?}",
        statuses(&ev)
    );
    assert_eq!(ev["meta"]["changes"], Value::Null);
}

#[test]
fn a_worktree_below_the_top_level_sees_only_its_own_changes() {
    // A monorepo package: a change beside it neither runs its checks nor
    // appears in `meta.changes`.
    let config = "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"py\"\nrun = [\"true\"]\n\
                  modes = [\"fast\"]\npaths = [\"*.py\"]\n";
    let test = Test::new().file("pkg/a/checks.toml", config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    let test = test.file("elsewhere.py", "x\n").file("pkg/other.py", "x\n");
    let ev = fast(test, &["--worktree", "pkg/a"]);
    assert_eq!(check(&ev, "py")["status"], "skip");
    assert_eq!(ev["meta"]["changes"]["files"], serde_json::json!([]));

    let test = Test::new().file("pkg/a/checks.toml", config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    git(test.path(), &["commit", "-q", "--allow-empty", "-m", "two"]);
    let test = test
        .file("elsewhere.py", "x\n")
        .file("pkg/a/mine.py", "x\n");
    // By the status (base HEAD) and by `git diff` (another base) alike.
    for base in ["HEAD", "HEAD~1"] {
        let run = test_run(&test, &["--worktree", "pkg/a", "--changed-since", base]);
        assert_eq!(check(&run, "py")["status"], "pass");
        assert_eq!(
            run["meta"]["changes"]["files"],
            serde_json::json!(["mine.py"])
        );
    }
}

/// Runs fast mode in `test` without consuming it.
fn test_run(test: &Test, extra: &[&str]) -> Value {
    let output = test
        .command()
        .args(["--mode", "fast", "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_report_a_run_replaces_is_no_changed_file() {
    // The previous run's `--out` file (not ignored here) does not make a
    // check on `*.json` run.
    let config = "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"json\"\nrun = [\"true\"]\n\
                  modes = [\"fast\"]\npaths = [\"*.json\"]\n";
    let test = Test::new().config(config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    let test = test.file("run-check.json", "{}\n");
    let run = test
        .args(&[
            "--mode",
            "fast",
            "--format",
            "json",
            "--out",
            "run-check.json",
        ])
        .run()
        .success();
    let ev = run.json_file("run-check.json");
    assert_eq!(check(&ev, "json")["status"], "skip");
    assert_eq!(ev["meta"]["changes"]["files"], serde_json::json!([]));
}

#[test]
fn strict_mode_rejects_a_missing_changed_since_revision_too() {
    let run = repo()
        .args(&["--changed-since", "origin/mian", "--out", "ev.json"])
        .run()
        .status(2);
    assert_eq!(
        run.stderr,
        "error: --changed-since `origin/mian`: no such revision in this repository\n"
    );
    assert!(!run.test.path().join("ev.json").exists());
    // One that exists is fine (and so is the default, HEAD).
    let test = repo();
    git(test.path(), &["commit", "-q", "--allow-empty", "-m", "two"]);
    let _ = test
        .args(&["--changed-since", "HEAD~1", "-q"])
        .run()
        .success();
}

#[test]
fn an_edit_hidden_by_assume_unchanged_or_skip_worktree_is_a_change() {
    // `git status` and `git diff` trust the flag and do not see the edit.
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let test = repo();
        git(test.path(), &["update-index", flag, "src/a.rs"]);
        let test = test.file("src/a.rs", "fn a() { hidden() }\n");
        let ev = fast(test, &[]);
        assert_eq!(check(&ev, "rust")["status"], "pass", "{flag}");
        assert_eq!(
            ev["meta"]["changes"]["files"],
            serde_json::json!(["src/a.rs"])
        );
        // Flagged and untouched: no change.
        let test = repo();
        git(test.path(), &["update-index", flag, "src/a.rs"]);
        let ev = fast(test, &[]);
        assert_eq!(check(&ev, "rust")["status"], "skip", "{flag}");
    }
    // A skip-worktree file absent from a sparse checkout is not a change.
    let test = repo();
    git(
        test.path(),
        &["update-index", "--skip-worktree", "src/a.rs"],
    );
    std::fs::remove_file(test.path().join("src/a.rs")).unwrap();
    let ev = fast(test, &[]);
    assert_eq!(check(&ev, "rust")["status"], "skip");
}

/// Right after `init` (the gate committed, nothing changed), fast mode
/// skips every check: it still passes, but says plainly that nothing ran,
/// why, and what runs them, so the pass banner is not read as a verified
/// pass.
#[test]
fn a_fast_run_that_ran_nothing_says_so() {
    let test = Test::new()
        .config(
            "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"rust\"\nrun = [\"true\"]\n\
             modes = [\"fast\"]\npaths = [\"src/**/*.rs\"]\n\n[[check]]\nname = \"docs\"\n\
             run = [\"true\"]\nmodes = [\"fast\"]\npaths = [\"docs/**\"]\n",
        )
        .file("src/a.rs", "fn a() {}\n")
        .file("docs/guide.md", "# guide\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    let run = test.args(&["--mode", "fast"]).run().success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    let n = lines.len();
    assert!(n >= 3, "{}", run.stdout);
    assert_eq!(
        lines[n - 3],
        "Nothing ran: all 2 checks were skipped (no changed file matches their `paths`); \
         `run-check --mode strict` runs every check",
        "{}",
        run.stdout
    );
    assert_eq!(lines[n - 1], "All checks passed!");
    // One changed file runs a check: no such line, but the pass says how
    // many ran and how many were skipped, in the report and, when the
    // report is not text on stdout, above the banner on stderr.
    let test = run.test.again().file("src/b.rs", "fn b() {}\n");
    let run = test.args(&["--mode", "fast"]).run().success();
    assert!(!run.stdout.contains("Nothing ran"), "{}", run.stdout);
    let partly = "Only 1 of 2 checks ran: 1 skipped (no changed file matches its `paths`); \
                  `run-check --mode strict` runs every check";
    let lines: Vec<&str> = run.stdout.lines().collect();
    let n = lines.len();
    assert_eq!(lines[n - 3], partly, "{}", run.stdout);
    assert_eq!(lines[n - 1], "All checks passed!");
    let run = run
        .test
        .again()
        .args(&["--mode", "fast", "--format", "json"])
        .run()
        .success();
    let err: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        err[err.len() - 2..],
        [partly, "All checks passed!"],
        "{}",
        run.stderr
    );
}

/// Right after init in a project whose tool checks watch `paths`, fast
/// mode runs only the secrets scan: the pass says which tool checks were
/// skipped and why, not to add checks that are there (in the report on
/// stdout and, under `--format json`, above the banner on stderr); with
/// the tool check strict-only (a Make project's `make test`), it says to
/// add a fast check or run strict.
#[test]
fn a_fast_run_where_only_the_scan_ran_names_the_skipped_tools() {
    let test = Test::new()
        .config(
            "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"rust\"\nrun = [\"true\"]\n\
             modes = [\"fast\", \"strict\"]\npaths = [\"src/**/*.rs\"]\n\n[[check]]\n\
             name = \"secrets\"\nscan = { rules = [\"secrets\"] }\nmodes = [\"fast\", \"strict\"]\n",
        )
        .file("src/a.rs", "fn a() {}\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    let line = "No tool ran: only the scan `secrets` ran; the one check that runs a tool was \
                skipped (no changed file matches their `paths`); `run-check --mode strict` runs \
                every check";
    let run = test.args(&["--mode", "fast"]).run().success();
    assert!(run.stdout.lines().any(|l| l == line), "{}", run.stdout);
    assert!(!run.stdout.contains("add checks"), "{}", run.stdout);
    let run = run
        .test
        .again()
        .args(&["--mode", "fast", "--format", "json"])
        .run()
        .success();
    let err: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        err[err.len() - 2..],
        [line, "All checks passed!"],
        "{}",
        run.stderr
    );
    let test = run.test.again().config(
        "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"test\"\nrun = [\"true\"]\n\
         modes = [\"strict\"]\n\n[[check]]\nname = \"secrets\"\nscan = { rules = [\"secrets\"] }\n\
         modes = [\"fast\", \"strict\"]\n",
    );
    let run = test.args(&["--mode", "fast"]).run().success();
    assert!(
        run.stdout.contains(
            "No tool ran: only the scan `secrets` ran; no check built, linted or tested the code \
             (add checks that run the project's tools to checks.toml, or run `run-check --mode strict`)"
        ),
        "{}",
        run.stdout
    );
}
