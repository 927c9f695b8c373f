//! Fast mode's change filter (SPEC section 4): a check with `paths` runs only
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
