//! Statuses and exit codes of the check run (docs/cli.md, docs/evidence.md): pass,
//! fail, error and skip, `needs`, modes, fail-fast, stdin, env, cwd.

use crate::support::{Test, check};

const ALLOW: &str = r#"
[settings]
allow = ["sh", "true", "false", "cat", "pwd", "touch", "test", "./tool.sh", "no-such-program-zz", "no-such-linter-zz", "./bin/no-such-tool"]
"#;

fn config(checks: &str) -> String {
    format!("{ALLOW}{checks}")
}

#[test]
fn all_pass_is_exit_0_with_the_exact_banner() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"a\"\nrun = [\"true\"]\n[[check]]\nname = \"b\"\nrun = [\"sh\", \"-c\", \"echo hi\"]\n",
        ))
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .success();
    assert_eq!(run.stdout, "", "--out leaves stdout empty");
    assert_eq!(run.stderr.lines().last(), Some("All checks passed!"));
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["all_checks_passed"], true);
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(ev["summary"]["exit_code"], 0);
    assert_eq!(ev["summary"]["passed"], 2);
    assert_eq!(ev["mode"], "strict");
    let b = check(&ev, "b");
    assert_eq!(b["status"], "pass");
    assert_eq!(b["exit_code"], 0);
    assert_eq!(b["stdout_excerpt"], "hi\n");
    assert_eq!(b["stdout_bytes"], 3);
    assert_eq!(b["command"], serde_json::json!(["sh", "-c", "echo hi"]));
    // The real path: `sh` is often a symlink (to dash, to bash).
    let sh = dunce::canonicalize(which::which("sh").unwrap()).unwrap();
    assert_eq!(b["program"], sh.to_str().unwrap());
}

#[test]
fn text_report_ends_with_the_banner() {
    let run = Test::new()
        .config(&config("[[check]]\nname = \"a\"\nrun = [\"true\"]\n"))
        .run()
        .success();
    assert_eq!(run.stdout.lines().last(), Some("All checks passed!"));
    assert!(run.stdout.contains(" PASS a"), "{}", run.stdout);
}

#[test]
fn a_failing_check_is_exit_1_and_keeps_both_streams() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"ok\"\nrun = [\"true\"]\n\
             [[check]]\nname = \"bad\"\nrun = [\"sh\", \"-c\", \"echo out; echo err >&2; exit 3\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    assert_eq!(ev["summary"]["all_checks_passed"], false);
    assert_eq!(ev["summary"]["banner"], "1 of 2 checks failed: bad");
    assert_eq!(ev["summary"]["exit_code"], 1);
    let bad = check(&ev, "bad");
    assert_eq!(bad["status"], "fail");
    assert_eq!(bad["exit_code"], 3);
    assert_eq!(bad["stdout_excerpt"], "out\n");
    assert_eq!(bad["stderr_excerpt"], "err\n");
    assert_eq!(bad["timed_out"], false);
    assert_eq!(bad["error"], serde_json::Value::Null);
    assert_eq!(run.stderr.lines().last(), Some("1 of 2 checks failed: bad"));
}

#[test]
fn a_missing_program_is_an_error_status_and_exit_2() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"gone\"\nrun = [\"no-such-program-zz\"]\n\
             [[check]]\nname = \"bad\"\nrun = [\"false\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .status(2);
    let ev = run.json_stdout();
    let gone = check(&ev, "gone");
    assert_eq!(gone["status"], "error");
    assert_eq!(
        gone["error"],
        "program `no-such-program-zz` not found on PATH"
    );
    assert_eq!(gone["program"], serde_json::Value::Null);
    assert_eq!(check(&ev, "bad")["status"], "fail");
    assert_eq!(
        ev["summary"]["banner"],
        "1 of 2 checks failed: bad; 1 of 2 checks errored: gone"
    );
    assert_eq!(
        (
            ev["summary"]["failed"].as_u64(),
            ev["summary"]["errored"].as_u64()
        ),
        (Some(1), Some(1))
    );
    // The missing program was never executed.
    assert_eq!(ev["meta"]["commands"], serde_json::json!(["false"]));
}

#[test]
fn a_failed_need_skips_its_dependants_and_a_passed_one_orders_them() {
    let run = Test::new()
        .file(".gitignore", "made\nmust-not-exist\n")
        .config(&config(
            "[[check]]\nname = \"slow\"\nrun = [\"sh\", \"-c\", \"sleep 0.3; touch made\"]\n\
             [[check]]\nname = \"after\"\nrun = [\"test\", \"-f\", \"made\"]\nneeds = [\"slow\"]\n\
             [[check]]\nname = \"broken\"\nrun = [\"false\"]\n\
             [[check]]\nname = \"dependant\"\nrun = [\"touch\", \"must-not-exist\"]\nneeds = [\"broken\"]\n\
             [[check]]\nname = \"transitive\"\nrun = [\"true\"]\nneeds = [\"dependant\"]\n",
        ))
        .args(&["--format", "json", "--jobs", "4"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "after")["status"], "pass");
    let dependant = check(&ev, "dependant");
    assert_eq!(dependant["status"], "skip");
    assert_eq!(
        dependant["skip_reason"],
        "needs `broken`, which ended `fail`"
    );
    assert_eq!(
        check(&ev, "transitive")["skip_reason"],
        "needs `dependant`, which ended `skip`"
    );
    assert!(!run.test.path().join("must-not-exist").exists());
    assert_eq!(ev["summary"]["skipped"], 2);
    assert_eq!(ev["summary"]["banner"], "1 of 5 checks failed: broken");
}

#[test]
fn a_check_killed_by_a_foreign_signal_is_an_error() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"sig\"\nrun = [\"sh\", \"-c\", \"kill -9 $$\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .status(2);
    let sig = check(&run.json_stdout(), "sig").clone();
    assert_eq!(sig["status"], "error");
    assert_eq!(sig["error"], "killed by SIGKILL (9)");
    assert_eq!(sig["exit_code"], serde_json::Value::Null);
}

#[test]
fn a_program_that_vanishes_before_its_start_is_an_error() {
    // `tool.sh` exists when the plan is made; the first check removes it.
    let run = Test::new()
        .script("tool.sh", "#!/bin/sh\nexit 0\n")
        .config(&config(
            "[[check]]\nname = \"remover\"\nrun = [\"sh\", \"-c\", \"rm tool.sh\"]\n\
             [[check]]\nname = \"tool\"\nrun = [\"./tool.sh\"]\nneeds = [\"remover\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .status(2);
    let ev = run.json_stdout();
    let tool = check(&ev, "tool");
    assert_eq!(tool["status"], "error");
    let error = tool["error"].as_str().unwrap();
    assert!(
        error.starts_with("failed to start `") && error.contains("tool.sh"),
        "{error}"
    );
    assert!(tool["program"].as_str().unwrap().ends_with("/tool.sh"));
}

#[test]
fn a_missing_working_directory_is_an_error() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"c\"\nrun = [\"true\"]\ncwd = \"nope\"\n",
        ))
        .args(&["--format", "json"])
        .run()
        .status(2);
    let error = check(&run.json_stdout(), "c")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.starts_with("working directory `") && error.ends_with("nope` does not exist"),
        "{error}"
    );
}

#[test]
fn cwd_env_and_closed_stdin() {
    let run = Test::new()
        .file("sub/keep", "")
        .config(&config(
            "[[check]]\nname = \"where\"\nrun = [\"pwd\"]\ncwd = \"sub\"\n\
             [[check]]\nname = \"env\"\nrun = [\"sh\", \"-c\", \"printf %s \\\"$GREETING\\\"\"]\nenv = { GREETING = \"hello there\" }\n\
             [[check]]\nname = \"stdin\"\nrun = [\"cat\"]\ntimeout = \"20s\"\n",
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    let root = run.test.path().canonicalize().unwrap();
    assert_eq!(
        check(&ev, "where")["stdout_excerpt"],
        format!("{}\n", root.join("sub").display())
    );
    assert_eq!(check(&ev, "env")["stdout_excerpt"], "hello there");
    // `cat` reads stdin: closed stdin ends it at once with no output.
    assert_eq!(check(&ev, "stdin")["stdout_bytes"], 0);
    assert_eq!(ev["meta"]["worktree"], root.display().to_string());
}

#[test]
fn invalid_utf8_output_is_replaced_not_an_error() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"bytes\"\nrun = [\"sh\", \"-c\", \"printf 'a\\\\377b'\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let bytes = check(&run.json_stdout(), "bytes").clone();
    assert_eq!(bytes["stdout_excerpt"], "a\u{fffd}b");
    assert_eq!(bytes["stdout_bytes"], 3);
}

#[test]
fn modes_select_checks() {
    let checks = config(
        "[[check]]\nname = \"both\"\nrun = [\"true\"]\nmodes = [\"fast\", \"strict\"]\n\
         [[check]]\nname = \"strict-only\"\nrun = [\"true\"]\n\
         [[check]]\nname = \"fast-only\"\nrun = [\"true\"]\nmodes = [\"fast\"]\n",
    );
    let names = |ev: &serde_json::Value| -> Vec<String> {
        ev["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let strict = Test::new()
        .config(&checks)
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(names(&strict.json_stdout()), ["both", "strict-only"]);
    let fast = Test::new()
        .config(&checks)
        .args(&["--mode", "fast", "--format", "json"])
        .run()
        .success();
    let ev = fast.json_stdout();
    assert_eq!(names(&ev), ["both", "fast-only"]);
    assert_eq!(ev["mode"], "fast");
}

#[test]
fn fast_mode_fails_fast_unless_told_not_to() {
    let checks = config(
        "[[check]]\nname = \"first\"\nrun = [\"false\"]\nmodes = [\"fast\"]\n\
         [[check]]\nname = \"second\"\nrun = [\"touch\", \"second-ran\"]\nmodes = [\"fast\"]\n",
    );
    let run = Test::new()
        .config(&checks)
        .args(&["--mode", "fast", "--jobs", "1", "--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "second")["status"], "skip");
    assert_eq!(check(&ev, "second")["skip_reason"], "fail-fast");
    assert!(!run.test.path().join("second-ran").exists());

    let run = Test::new()
        .config(&checks)
        .args(&[
            "--mode",
            "fast",
            "--jobs",
            "1",
            "--no-fail-fast",
            "--format",
            "json",
        ])
        .run()
        .status(1);
    assert_eq!(check(&run.json_stdout(), "second")["status"], "pass");

    // Strict mode never fails fast.
    let strict = checks.replace("[\"fast\"]", "[\"strict\"]");
    let run = Test::new()
        .config(&strict)
        .args(&["--jobs", "1", "--format", "json"])
        .run()
        .status(1);
    assert_eq!(check(&run.json_stdout(), "second")["status"], "pass");
}

/// A new user installs every missing tool after one run: fast mode stops
/// launching after its first failure, yet every check whose program is
/// missing (on PATH or in the worktree, also one waiting on a `needs` that
/// never ran) is reported as an error naming the program, and none of them
/// ran; a check with its program, kept from starting, is still skipped.
#[test]
fn every_missing_program_is_reported_in_the_first_fast_run() {
    let checks = config(
        "[[check]]\nname = \"gone\"\nrun = [\"no-such-program-zz\"]\nmodes = [\"fast\"]\n\
         [[check]]\nname = \"lint\"\nrun = [\"no-such-linter-zz\", \"--check\"]\nmodes = [\"fast\"]\n\
         [[check]]\nname = \"present\"\nrun = [\"touch\", \"present-ran\"]\nmodes = [\"fast\"]\n\
         [[check]]\nname = \"local\"\nrun = [\"./bin/no-such-tool\"]\nmodes = [\"fast\"]\nneeds = [\"present\"]\n",
    );
    for jobs in ["1", "4"] {
        let run = Test::new()
            .config(&checks)
            .args(&["--mode", "fast", "--jobs", jobs, "--format", "json"])
            .run()
            .status(2);
        let ev = run.json_stdout();
        for (name, why) in [
            ("gone", "program `no-such-program-zz` not found on PATH"),
            ("lint", "program `no-such-linter-zz` not found on PATH"),
            (
                "local",
                "program `./bin/no-such-tool` not found in the worktree",
            ),
        ] {
            assert_eq!(check(&ev, name)["status"], "error", "{jobs}: {name}: {ev}");
            assert_eq!(check(&ev, name)["error"], why, "{jobs}: {name}");
        }
        assert_eq!(
            ev["summary"]["banner"], "3 of 4 checks errored: gone, lint, local",
            "{jobs}"
        );
        assert_eq!(check(&ev, "present")["status"], "skip", "{jobs}");
        assert_eq!(check(&ev, "present")["skip_reason"], "fail-fast");
        assert!(!run.test.path().join("present-ran").exists());
        assert_eq!(ev["meta"]["commands"], serde_json::json!([]), "{jobs}");
    }
}

#[test]
fn no_selected_checks_is_a_pass() {
    let run = Test::new()
        .config(&config(
            "[[check]]\nname = \"f\"\nrun = [\"false\"]\nmodes = [\"fast\"]\n",
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(ev["summary"]["total"], 0);
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
}

#[test]
fn outside_git_the_git_facts_are_null() {
    let run = Test::bare()
        .config(&config("[[check]]\nname = \"a\"\nrun = [\"true\"]\n"))
        .env(
            "GIT_CEILING_DIRECTORIES",
            std::env::temp_dir().to_str().unwrap(),
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let git = run.json_stdout()["meta"]["git"].clone();
    assert_eq!(
        git,
        serde_json::json!({"commit": null, "branch": null, "dirty": null})
    );
}
