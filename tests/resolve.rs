//! What a run selects and resolves before anything starts: `--only` and
//! `--skip` against the mode, and how a `run[0]` path resolves (`..`, `\`).

use crate::support::{Test, check};

const MODES: &str = r#"
[settings]
allow = ["true"]

[[check]]
name = "quick"
run = ["true"]
modes = ["fast"]

[[check]]
name = "slow"
run = ["true"]
"#;

#[test]
fn only_a_check_the_mode_does_not_run_is_a_usage_error() {
    // Before, this ran nothing and passed.
    let run = Test::new()
        .config(MODES)
        .args(&["--mode", "fast", "--only", "slow"])
        .run()
        .status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr_lines(),
        ["error: --only `slow`: the check does not run in fast mode (its modes: strict)"]
    );
}

#[test]
fn skip_of_a_check_the_mode_does_not_run_is_accepted() {
    let run = Test::new()
        .config(MODES)
        .args(&["--mode", "fast", "--skip", "slow", "--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "quick")["status"], "pass");
    assert_eq!(ev["checks"].as_array().unwrap().len(), 1);
}

#[cfg(unix)]
#[test]
fn a_program_above_the_worktree_is_recorded_without_dot_dot() {
    // Still whitelisted as written; the recorded path is canonical.
    let outer = Test::bare()
        .script("tool.sh", "#!/bin/sh\necho outside\n")
        .file(
            "wt/checks.toml",
            "[settings]\nallow = [\"../tool.sh\"]\n[[check]]\nname = \"a\"\nrun = [\"../tool.sh\"]\n",
        );
    let expected = dunce::canonicalize(outer.path()).unwrap().join("tool.sh");
    let run = outer
        .args(&["--worktree", "wt", "--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "a")["program"], expected.to_str().unwrap());
}

#[cfg(unix)]
#[test]
fn a_backslash_separates_a_program_path_on_every_platform() {
    // SPEC section 3: a path containing `/` or `\` is resolved relative to
    // the worktree, so a config written on Windows runs here too.
    let test = Test::new()
        .config(
            r#"[settings]
allow = ['.\scripts\lint.sh']
[[check]]
name = "lint"
run = ['.\scripts\lint.sh']
"#,
        )
        .script("scripts/lint.sh", "#!/bin/sh\necho linted\n");
    let expected = dunce::canonicalize(test.path())
        .unwrap()
        .join("scripts/lint.sh");
    let run = test.args(&["--format", "json"]).run().success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "lint")["program"], expected.to_str().unwrap());
}
