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
    // docs/checks-toml.md: a path containing `/` or `\` is resolved relative to
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

/// The real path of `program` on PATH (every symlink followed).
#[cfg(unix)]
fn real_on_path(program: &str) -> std::path::PathBuf {
    dunce::canonicalize(which::which(program).expect("on PATH")).unwrap()
}

/// An allowed `./lint.sh` that is a symlink to the system
/// shell runs a shell the whitelist never listed (and the evidence said
/// `lint.sh`). Refused before anything runs, naming the check and target.
#[cfg(unix)]
#[test]
fn an_allowed_script_that_links_to_a_shell_is_a_config_error() {
    let test = Test::new().config(
        r#"[settings]
allow = ["touch", "./lint.sh"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]

[[check]]
name = "lint"
run = ["./lint.sh", "-c", "touch pwned"]
"#,
    );
    std::os::unix::fs::symlink(which::which("sh").unwrap(), test.path().join("lint.sh")).unwrap();
    let run = test.run().status(2);
    assert_eq!(
        run.stderr_lines(),
        [format!(
            "error: checks.toml:9:1: `run` of check `lint`: program `./lint.sh` is a symlink to \
             the shell `{}`, which `settings.allow` does not list (a shell runs only when it is \
             itself listed)",
            real_on_path("sh").display()
        )]
    );
    assert_eq!(run.stdout, "");
    assert!(!run.test.path().join("ran-marker").exists());
    assert!(!run.test.path().join("pwned").exists());
    // `validate` and `list` refuse it too.
    for command in ["validate", "list"] {
        let output = run.test.command().arg(command).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("is a symlink to"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// A copy of a shell inside the worktree, reached through a symlink with
/// an innocent name, is still a shell: refused unless listed.
#[cfg(unix)]
#[test]
fn a_link_to_a_shell_copied_into_the_worktree_is_refused() {
    let test = Test::new().config(
        r#"[settings]
allow = ["./lint.sh"]

[[check]]
name = "lint"
run = ["./lint.sh", "-c", "true"]
"#,
    );
    std::fs::create_dir(test.path().join("bin")).unwrap();
    std::fs::copy(real_on_path("sh"), test.path().join("bin/bash")).unwrap();
    std::os::unix::fs::symlink("bin/bash", test.path().join("lint.sh")).unwrap();
    let real = dunce::canonicalize(test.path()).unwrap().join("bin/bash");
    let run = test.run().status(2);
    assert_eq!(
        run.stderr_lines(),
        [format!(
            "error: checks.toml:5:1: `run` of check `lint`: program `./lint.sh` is a symlink to \
             the shell `{}`, which `settings.allow` does not list (a shell runs only when it is \
             itself listed)",
            real.display()
        )]
    );
}

/// A symlink inside the worktree to another file of the worktree runs by
/// the listed path (its `$0`), as a shell would run it, and the evidence's
/// `program` is the real path, not the link.
#[cfg(unix)]
#[test]
fn a_program_link_runs_by_its_listed_path_and_is_recorded_as_its_target() {
    let test = Test::new()
        .config(
            r#"[settings]
allow = ["./lint.sh"]

[[check]]
name = "lint"
run = ["./lint.sh"]
"#,
        )
        .script("scripts/real-lint.sh", "#!/bin/sh\necho \"linted as $0\"\n");
    std::os::unix::fs::symlink("scripts/real-lint.sh", test.path().join("lint.sh")).unwrap();
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "lint"]);
    let worktree = dunce::canonicalize(test.path()).unwrap();
    let run = test.args(&["--format", "json"]).run().success();
    let ev = run.json_stdout();
    let lint = check(&ev, "lint");
    assert_eq!(
        lint["program"],
        worktree.join("scripts/real-lint.sh").to_str().unwrap()
    );
    assert_eq!(
        lint["stdout_excerpt"],
        format!("linted as {}\n", worktree.join("lint.sh").display())
    );
}

/// A bare name found on PATH through a symlink (rustup's `cargo`,
/// `python3` -> `python3.11`, `sh` -> `dash`) is recorded as its real path
/// but still runs by its PATH name; a listed shell name may lead to
/// another shell.
#[cfg(unix)]
#[test]
fn a_bare_name_is_recorded_real_and_run_by_name() {
    let run = Test::new()
        .config(
            r#"[settings]
allow = ["sh"]

[[check]]
name = "name"
run = ["sh", "-c", "echo \"$0\""]
"#,
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    let name = check(&ev, "name");
    assert_eq!(name["program"], real_on_path("sh").to_str().unwrap());
    assert_eq!(
        name["stdout_excerpt"],
        format!("{}\n", which::which("sh").unwrap().display())
    );
}

/// `cwd` is resolved again when the check starts. A check
/// (run first through `needs`) turns `target/esc`, absent when the config
/// loaded, into a symlink out of the worktree; the check with that `cwd` is
/// `error`, not run: its marker never appears outside.
#[cfg(unix)]
#[test]
fn a_cwd_turned_into_an_escape_by_an_earlier_check_is_an_error() {
    let outside = tempfile::tempdir().unwrap();
    let outside_real = dunce::canonicalize(outside.path()).unwrap();
    let test = Test::new()
        .config(&format!(
            r#"[settings]
allow = ["ln", "touch"]

[[check]]
name = "prepare"
run = ["ln", "-s", "{}", "target/esc"]

[[check]]
name = "escape"
run = ["touch", "escaped-marker"]
cwd = "target/esc"
needs = ["prepare"]
"#,
            outside_real.display()
        ))
        .file(".gitignore", "target/\n")
        .file("target/.keep", "");
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "ignore target"]);
    let run = test.args(&["--format", "json"]).run().status(2);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "prepare")["status"], "pass");
    let escape = check(&ev, "escape");
    assert_eq!(escape["status"], "error");
    assert_eq!(
        escape["error"],
        format!(
            "`cwd` `target/esc` resolves to `{}` when the check starts, outside the worktree \
             (an earlier check changed it); not run",
            outside_real.display()
        )
    );
    assert_eq!(escape["exit_code"], serde_json::Value::Null);
    assert!(
        !outside.path().join("escaped-marker").exists(),
        "it ran outside"
    );
    assert!(!run.test.path().join("escaped-marker").exists());
}

/// The same for a path program: an earlier check replaces `./lint.sh` with
/// a symlink to a shell; the check that runs it is `error`, not run.
#[cfg(unix)]
#[test]
fn a_program_replaced_by_a_symlink_by_an_earlier_check_is_an_error() {
    let test = Test::new()
        .config(
            r#"[settings]
allow = ["ln", "./lint.sh"]

[[check]]
name = "swap"
run = ["ln", "-sf", "/bin/sh", "lint.sh"]

[[check]]
name = "lint"
run = ["./lint.sh", "-c", "touch pwned"]
needs = ["swap"]
"#,
        )
        .script("lint.sh", "#!/bin/sh\necho lint\n");
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "lint"]);
    let run = test.args(&["--format", "json"]).run();
    assert!(matches!(run.code, Some(1 | 2)), "{}", run.stderr);
    let ev = run.json_stdout();
    let lint = check(&ev, "lint");
    assert_eq!(lint["status"], "error");
    let error = lint["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!(
            "program `./lint.sh` resolves to `{}` when the check starts, not `{}`",
            real_on_path("sh").display(),
            dunce::canonicalize(run.test.path())
                .unwrap()
                .join("lint.sh")
                .display()
        )),
        "{error}"
    );
    assert!(!run.test.path().join("pwned").exists(), "the shell ran");
}

/// A link out of the worktree to a program that is not a shell runs (a
/// virtualenv's `python`); an earlier check that re-points it at a shell
/// in an ignored folder, where the read-only contract does not look, does
/// not get the shell run: the check is `error`, not run.
#[cfg(unix)]
#[test]
fn a_link_out_of_the_worktree_re_pointed_at_a_shell_by_an_earlier_check_is_an_error() {
    let outside = tempfile::tempdir().unwrap();
    let tool = dunce::canonicalize(outside.path()).unwrap().join("tool");
    std::fs::write(&tool, "#!/bin/sh\necho tool ran\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let test = Test::new()
        .config(
            r#"[settings]
allow = ["ln", "./env/bin/tool"]

[[check]]
name = "first"
run = ["./env/bin/tool"]

[[check]]
name = "swap"
run = ["ln", "-sf", "/bin/sh", "env/bin/tool"]
needs = ["first"]

[[check]]
name = "second"
run = ["./env/bin/tool", "-c", "touch pwned"]
needs = ["swap"]
"#,
        )
        .file(".gitignore", "env/\n");
    std::fs::create_dir_all(test.path().join("env/bin")).unwrap();
    std::os::unix::fs::symlink(&tool, test.path().join("env/bin/tool")).unwrap();
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "env"]);
    let run = test.args(&["--format", "json"]).run().status(2);
    let ev = run.json_stdout();
    let first = check(&ev, "first");
    assert_eq!(first["status"], "pass");
    assert_eq!(first["program"], tool.to_str().unwrap());
    assert_eq!(first["stdout_excerpt"], "tool ran\n");
    assert_eq!(check(&ev, "swap")["status"], "pass");
    let second = check(&ev, "second");
    assert_eq!(second["status"], "error");
    assert_eq!(
        second["error"],
        format!(
            "program `./env/bin/tool` resolves to `{}` when the check starts, not `{}` as when \
             the run began (an earlier check replaced it); not run",
            real_on_path("sh").display(),
            tool.display()
        )
    );
    assert_eq!(second["exit_code"], serde_json::Value::Null);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    assert!(!run.test.path().join("pwned").exists(), "the shell ran");
}

/// `jobs` and `--jobs` at the top of their range run
/// (no more workers than checks, no overflow); `--jobs` past `usize` and a
/// negative `jobs` are errors naming the flag or key.
#[test]
fn huge_job_counts_run_and_out_of_range_ones_are_refused() {
    let config = "[settings]\njobs = 9223372036854775807\nallow = [\"true\"]\n\
                  [[check]]\nname = \"a\"\nrun = [\"true\"]\n\
                  [[check]]\nname = \"b\"\nrun = [\"true\"]\nneeds = [\"a\"]\n\
                  [[check]]\nname = \"c\"\nrun = [\"true\"]\n";
    let run = Test::new()
        .config(config)
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(run.json_stdout()["summary"]["passed"], 3);
    let run = Test::new()
        .config(config)
        .args(&["--jobs", &usize::MAX.to_string(), "--format", "json"])
        .run()
        .success();
    assert_eq!(run.json_stdout()["summary"]["passed"], 3);
    let run = Test::new()
        .config(config)
        .args(&["--jobs", "18446744073709551616"])
        .run()
        .status(2);
    assert!(run.stderr.contains("--jobs"), "{}", run.stderr);
    let run = Test::new()
        .config("[settings]\njobs = -1\n")
        .run()
        .status(2);
    assert_eq!(
        run.stderr_lines(),
        ["error: checks.toml:2:8: settings.jobs: invalid value: integer `-1`, expected usize"]
    );
}

/// A program that a check it `needs` builds: `build/tool` is not there when
/// the run begins, so it is looked up when `run` starts (it was `error`
/// "not found" before anything ran). The build output folder is ignored,
/// so the run stays read-only.
#[cfg(unix)]
#[test]
fn a_program_that_a_needed_check_builds_runs() {
    let test = Test::new()
        .config(
            r#"[settings]
allow = ["sh", "./build/tool"]

[[check]]
name = "build"
run = ["sh", "-c", "mkdir -p build && printf '#!/bin/sh\necho built tool ran\n' > build/tool && chmod +x build/tool"]

[[check]]
name = "run"
run = ["./build/tool"]
needs = ["build"]
"#,
        )
        .file(".gitignore", "build/\n");
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "tool"]);
    let validate = test.args(&["validate"]).run().success();
    assert_eq!(
        validate.stderr_lines(),
        [
            "warning: check `run`: program `./build/tool` not found in the worktree yet (it is \
          looked up when the check starts: a check it needs may build it)"
        ]
    );
    let run = validate
        .test
        .again()
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "run")["status"], "pass", "{ev}");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    assert!(
        check(&ev, "run")["stdout_excerpt"]
            .as_str()
            .is_some_and(|s| s.contains("built tool ran")),
        "{ev}"
    );
}

/// Without a need that could build it, a missing path program is `error`
/// at once (as it was), and so is one that the need did not build, when
/// the check starts.
#[cfg(unix)]
#[test]
fn a_program_nothing_builds_is_still_an_error() {
    let test = Test::new().config(
        r#"[settings]
allow = ["true", "./build/tool", "./other/tool"]

[[check]]
name = "alone"
run = ["./other/tool"]

[[check]]
name = "build"
run = ["true"]

[[check]]
name = "run"
run = ["./build/tool"]
needs = ["build"]
"#,
    );
    let run = test.args(&["--format", "json"]).run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "alone")["status"], "error");
    assert_eq!(
        check(&ev, "alone")["error"],
        "program `./other/tool` not found in the worktree"
    );
    assert_eq!(check(&ev, "run")["status"], "error");
    assert_eq!(
        check(&ev, "run")["error"],
        "program `./build/tool` not found in the worktree when the check started, after \
         the checks it needs ran"
    );
}
