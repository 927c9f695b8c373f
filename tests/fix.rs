//! `run-check fix`: the only command that writes. It runs the
//! `[[fix]]` commands with the same whitelist, timeouts and output handling;
//! a check run never runs a fix.

use crate::support::Test;

const CONFIG: &str = r#"
[settings]
allow = ["sh", "true"]

[[check]]
name = "lint"
run = ["true"]

[[fix]]
name = "format"
run = ["sh", "-c", "echo formatted > formatted.txt"]

[[fix]]
name = "other"
run = ["sh", "-c", "echo other > other.txt"]
"#;

#[test]
fn fix_runs_the_fix_commands_and_checking_never_does() {
    let run = Test::new()
        .config(CONFIG)
        .args(&["--format", "json"])
        .run()
        .success();
    assert!(
        !run.test.path().join("formatted.txt").exists(),
        "a check run ran a fix"
    );

    let run = Test::new().config(CONFIG).args(&["fix"]).run().success();
    assert_eq!(
        std::fs::read_to_string(run.test.path().join("formatted.txt")).unwrap(),
        "formatted\n"
    );
    assert!(run.test.path().join("other.txt").exists());
    assert_eq!(run.stdout, "All 2 fixes succeeded\n");
    assert!(
        run.stderr
            .starts_with("run-check fix: 2 fixes, 1 at a time\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn only_selects_fixes() {
    let run = Test::new()
        .config(CONFIG)
        .args(&["fix", "--only", "other"])
        .run()
        .success();
    assert!(run.test.path().join("other.txt").exists());
    assert!(!run.test.path().join("formatted.txt").exists());
    let run = Test::new()
        .config(CONFIG)
        .args(&["fix", "--only", "nope"])
        .run()
        .status(2);
    assert_eq!(
        run.stderr,
        "error: --only `nope`: no fix of that name in checks.toml\n"
    );
}

#[test]
fn a_failing_fix_is_exit_1_with_its_output() {
    let config = CONFIG.replace("echo other > other.txt", "echo cannot fix this >&2; exit 4");
    let run = Test::new().config(&config).args(&["fix"]).run().status(1);
    assert!(
        run.stderr.contains("--- other ---\ncannot fix this\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "1 of 2 fixes failed: other\n");
    // The other fix still ran.
    assert!(run.test.path().join("formatted.txt").exists());
}

#[test]
fn fixes_obey_the_whitelist() {
    let config = CONFIG.replace(
        "run = [\"sh\", \"-c\", \"echo other > other.txt\"]",
        "run = [\"rm\", \"-rf\", \"x\"]",
    );
    let run = Test::new().config(&config).args(&["fix"]).run().status(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`run` of fix `other`: program `rm` is not in `settings.allow`"),
        "{}",
        run.stderr
    );
    assert!(
        !run.test.path().join("formatted.txt").exists(),
        "a fix ran despite a config error"
    );
}
