//! Every config error of docs/checks-toml.md (and bad input): exit 2, one
//! `error: ` line on stderr naming the file (and the line and key where the
//! contract asks for them), nothing on stdout, no check run, no report file
//! and no stray temp file left behind.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{Run, Test};

/// A valid check that must never run: every config below carries it, so a
/// `ran-marker` file in the worktree proves a check ran despite the error.
/// These six lines open most configs here; the text appended after them
/// starts with a blank line 7, so its first table is on line 8.
const MARKER: &str = r#"[settings]
allow = ["touch"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]
"#;

/// What the single stderr line must be.
#[derive(Clone, Copy)]
enum Line<'a> {
    /// Exactly this line.
    Is(&'a str),
    /// A line starting with this (the rest lists alternatives that grow with
    /// the schema, or quotes a third-party message).
    StartsWith(&'a str),
}

/// The names in `dir` (not recursive).
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("read worktree")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// Asserts exit 2, empty stdout and exactly one stderr line matching `line`.
#[track_caller]
fn assert_error_line(run: &Run, line: Line<'_>) {
    assert_eq!(
        run.code,
        Some(2),
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.stdout, "", "stdout must be empty on a config error");
    let lines = run.stderr_lines();
    assert_eq!(lines.len(), 1, "exactly one stderr line:\n{}", run.stderr);
    match line {
        Line::Is(expected) => assert_eq!(lines[0], expected),
        Line::StartsWith(prefix) => assert!(
            lines[0].starts_with(prefix),
            "stderr line\n  {}\ndoes not start with\n  {prefix}",
            lines[0]
        ),
    }
}

/// Runs `test` twice, plain and with `--out ev.json`: both must fail with the
/// one `line`, run no check, and leave the worktree exactly as it was (no
/// `ran-marker`, no `ev.json`, no temp file).
#[track_caller]
fn rejects(test: Test, line: Line<'_>) {
    let before = entries(test.path());
    let run = test.run();
    assert_error_line(&run, line);
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
    assert_eq!(entries(run.test.path()), before, "the worktree changed");

    let run = run.test.args(&["--out", "ev.json"]).run();
    assert_error_line(&run, line);
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
    assert!(
        !run.test.path().join("ev.json").exists(),
        "ev.json was written"
    );
    assert_eq!(entries(run.test.path()), before, "the worktree changed");
}

/// [`MARKER`] followed by `rest`.
fn with_marker(rest: &str) -> Test {
    Test::new().config(&format!("{MARKER}{rest}"))
}

#[test]
fn the_marker_check_does_run_in_a_valid_config() {
    // The guard for every test below: without the error, the marker appears.
    // (Exit 0 or 1: read-only verification may count the marker as a change.)
    let run = with_marker("").run();
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    assert!(run.test.path().join("ran-marker").exists());
}

#[test]
fn malformed_toml() {
    rejects(
        with_marker("\n[[check]\nname = \"t\"\n"),
        Line::Is("error: checks.toml:8:9: unclosed array table, expected `]`"),
    );
}

#[test]
fn missing_default_checks_toml() {
    rejects(
        Test::new(),
        Line::Is(
            "error: checks.toml: no such file (create checks.toml in the worktree or pass --config PATH)",
        ),
    );
}

#[test]
fn missing_config_path_does_not_fall_back_to_checks_toml() {
    // A valid checks.toml is right there; `--config` names another file.
    rejects(
        with_marker("").args(&["--config", "other.toml"]),
        Line::StartsWith("error: other.toml: no such file"),
    );
}

#[test]
fn unknown_top_level_key() {
    rejects(
        Test::new().config(&format!("bogus = 1\n{MARKER}")),
        Line::StartsWith(
            "error: checks.toml:1:1: unknown field `bogus`, expected one of `version`",
        ),
    );
}

#[test]
fn unknown_key_in_settings() {
    rejects(
        Test::new().config(
            r#"[settings]
allow = ["touch"]
jobz = 1

[[check]]
name = "marker"
run = ["touch", "ran-marker"]
"#,
        ),
        Line::StartsWith("error: checks.toml:3:1: unknown field `jobz`, expected one of `jobs`"),
    );
}

#[test]
fn unknown_key_in_check() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ntimeot = \"1s\"\n"),
        Line::StartsWith("error: checks.toml:11:1: unknown field `timeot`, expected one of `name`"),
    );
}

#[test]
fn duplicate_check_names() {
    rejects(
        with_marker("\n[[check]]\nname = \"marker\"\nrun = [\"touch\", \"x\"]\n"),
        Line::Is("error: checks.toml:9:8: check.name: duplicate check name `marker`"),
    );
}

#[test]
fn unknown_need() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nneeds = [\"nope\"]\n"),
        Line::Is("error: checks.toml:9:1: `needs` of check `t`: unknown check `nope`"),
    );
}

#[test]
fn needs_cycle() {
    rejects(
        with_marker(
            r#"
[[check]]
name = "a"
run = ["touch", "x"]
needs = ["c"]

[[check]]
name = "b"
run = ["touch", "x"]
needs = ["a"]

[[check]]
name = "c"
run = ["touch", "x"]
needs = ["b"]
"#,
        ),
        Line::Is("error: checks.toml:9:1: `needs` of check `a`: cycle: a -> c -> b -> a"),
    );
}

#[test]
fn a_check_needing_itself() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nneeds = [\"t\"]\n"),
        Line::Is("error: checks.toml:11:10: `needs` of check `t`: a check cannot need itself"),
    );
}

#[test]
fn bad_duration_of_a_check() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ntimeout = \"5x\"\n"),
        Line::Is(
            "error: checks.toml:11:11: `timeout` of check `t`: invalid duration `5x`: unknown unit `x` \
             (use ms, s, m, h or d) (e.g. \"500ms\", \"90s\", \"2m\", \"1h\", \"7d\")",
        ),
    );
}

#[test]
fn bad_duration_in_settings() {
    rejects(
        Test::new().config(
            r#"[settings]
allow = ["touch"]
timeout = "5x"

[[check]]
name = "marker"
run = ["touch", "ran-marker"]
"#,
        ),
        Line::StartsWith("error: checks.toml:3:11: settings.timeout: invalid duration `5x`: "),
    );
}

#[test]
fn bad_glob_in_paths() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\npaths = [\"src/[\"]\n"),
        Line::Is(
            "error: checks.toml:11:10: `paths` of check `t`: invalid glob `src/[`: \
             unclosed character class; missing ']'",
        ),
    );
}

#[test]
fn bad_glob_in_gate_files() {
    rejects(
        with_marker("\n[gate]\nfiles = [\"tools/**\", \"tools/[\"]\n"),
        Line::Is(
            "error: checks.toml:9:22: gate.files: invalid glob `tools/[`: \
             unclosed character class; missing ']'",
        ),
    );
    rejects(
        with_marker("\n[gate]\nfiles = [\"../tools/**\"]\n"),
        Line::Is(
            "error: checks.toml:9:10: gate.files: `../tools/**` leaves the worktree with `..`; \
             patterns are relative to the worktree",
        ),
    );
    rejects(
        with_marker("\n[gate]\nfiles = \"tools/**\"\n"),
        Line::StartsWith("error: checks.toml:9:"),
    );
}

#[test]
fn a_pattern_that_can_never_match_is_refused() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\npaths = [\"/src/**\"]\n"),
        Line::Is(
            "error: checks.toml:11:10: `paths` of check `t`: `/src/**` is absolute; patterns are \
             relative to the worktree (e.g. `src/**`)",
        ),
    );
    rejects(
        with_marker(
            "\n[[check]]\nname = \"s\"\nscan = { paths = [\"../src\"], rules = [\"secrets\"] }\n",
        ),
        Line::Is(
            "error: checks.toml:10:19: `scan.paths` of check `s`: `../src` leaves the worktree \
             with `..`; patterns are relative to the worktree",
        ),
    );
    rejects(
        with_marker(
            "\n[[check]]\nname = \"a\"\nrun = [\"touch\", \"x\"]\nartifacts = [\"../out/junit.xml\"]\n",
        ),
        Line::Is(
            "error: checks.toml:11:14: `artifacts` of check `a`: `../out/junit.xml` leaves the \
             worktree with `..`; patterns are relative to the worktree",
        ),
    );
}

#[test]
fn a_check_table_instead_of_an_array_of_tables() {
    rejects(
        Test::new().config("[settings]\nallow = [\"touch\"]\n[check]\nname = \"t\"\nrun = [\"touch\", \"ran-marker\"]\n"),
        Line::Is("error: checks.toml:3:1: check: must be an array of tables: write [[check]]"),
    );
}

#[test]
fn a_check_without_a_name() {
    rejects(
        with_marker("\n[[check]]\nrun = [\"touch\", \"x\"]\n"),
        Line::Is("error: checks.toml:8:1: check: missing field `name`"),
    );
}

#[test]
fn paths_too_large_for_the_regex_engine() {
    // Each glob parses; together they exceed the regex engine's size limit.
    // Compiling is deferred to the runs that match changed files (and to
    // `validate`), which still report it as the check's config error.
    let globs: Vec<String> = (0..30_000).map(|i| format!("a{i}*?[a-z]")).collect();
    let config = format!(
        "[settings]\nallow = [\"touch\"]\n\n\
         [[check]]\nname = \"marker\"\nrun = [\"touch\", \"ran-marker\"]\nmodes = [\"fast\"]\n\n\
         [[check]]\nname = \"big\"\nrun = [\"touch\", \"x\"]\nmodes = [\"fast\"]\npaths = [\"{{{}}}/**\"]\n",
        globs.join(",")
    );
    let line = Line::StartsWith("error: checks.toml:10:1: `paths` of check `big`: ");
    // The uncommitted checks.toml is the changed file fast mode matches.
    rejects(Test::new().config(&config).args(&["--mode", "fast"]), line);
    let run = Test::new().config(&config).args(&["validate"]).run();
    assert_error_line(&run, line);
}

#[test]
fn bad_regex_in_score() {
    rejects(
        with_marker(
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nscore = { regex = '(' }\n",
        ),
        // The rest is the regex crate's own wording.
        Line::StartsWith(
            "error: checks.toml:11:19: `score.regex` of check `t`: invalid regex `(`: ",
        ),
    );
}

#[test]
fn bad_regex_in_matcher() {
    rejects(
        with_marker(
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\n\n\
             [[check.matcher]]\nregex = '(?P<message>['\n",
        ),
        Line::StartsWith(
            "error: checks.toml:13:9: `matcher.regex` of check `t`: invalid regex `(?P<message>[`: ",
        ),
    );
}

#[test]
fn both_run_and_scan() {
    rejects(
        with_marker(
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nscan = { rules = [\"secrets\"] }\n",
        ),
        Line::Is(
            "error: checks.toml:10:7: `run` of check `t`: has both `run` and `scan`; keep one",
        ),
    );
}

#[test]
fn neither_run_nor_scan() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nmodes = [\"strict\"]\n"),
        Line::Is("error: checks.toml:9:8: check `t`: has neither `run` nor `scan`"),
    );
}

#[test]
fn program_not_in_allow() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"rm\", \"-f\", \"ran-marker\"]\n"),
        Line::Is(
            "error: checks.toml:10:7: `run` of check `t`: program `rm` is not in `settings.allow`; \
             add it there to allow it",
        ),
    );
}

#[test]
fn a_path_program_must_be_listed_as_written() {
    // `tool.sh` is listed, `./tool.sh` is not: the whitelist compares as written.
    rejects(
        Test::new()
            .config(
                r#"[settings]
allow = ["touch", "tool.sh"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]

[[check]]
name = "t"
run = ["./tool.sh"]
"#,
            )
            .script("tool.sh", "#!/bin/sh\ntouch ran-marker\n"),
        Line::Is(
            "error: checks.toml:10:7: `run` of check `t`: program `./tool.sh` is not in \
             `settings.allow`; add it there to allow it",
        ),
    );
}

#[test]
fn a_shell_runs_only_when_itself_listed() {
    // `touch` is listed, so the whitelist is not empty; `sh` is not.
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"sh\", \"-c\", \"touch ran-marker\"]\n"),
        Line::Is(
            "error: checks.toml:10:7: `run` of check `t`: program `sh` is not in `settings.allow` \
             (a shell runs only when it is itself listed); add it there to allow it",
        ),
    );
}

#[test]
fn unknown_parser() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nparser = \"nope\"\n"),
        Line::StartsWith(
            "error: checks.toml:11:10: check.parser: unknown variant `nope`, expected one of `auto`",
        ),
    );
}

#[test]
fn unknown_parser_names_the_key() {
    let run =
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\nparser = \"nope\"\n")
            .run()
            .status(2);
    assert!(run.stderr.contains("parser"), "{}", run.stderr);
}

#[test]
fn judge_weights_not_summing_to_one() {
    rejects(
        with_marker("\n[judge]\nweights = { security = 0.5, quality = 0.5, performance = 0.5 }\n"),
        Line::Is("error: checks.toml:9:1: judge.weights: weights sum to 1.5, not 1.0 (±0.001)"),
    );
}

#[test]
fn cwd_that_leaves_the_worktree() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncwd = \"../x\"\n"),
        Line::Is("error: checks.toml:11:7: `cwd` of check `t`: may not leave the worktree"),
    );
}

#[test]
fn absolute_cwd() {
    rejects(
        with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncwd = \"/tmp\"\n"),
        Line::Is(
            "error: checks.toml:11:7: `cwd` of check `t`: must be relative to the worktree, not absolute",
        ),
    );
}

/// A worktree whose check `t` has `cwd = "esc"`, a symlink to a directory
/// outside it, and that directory (kept alive by the caller).
#[cfg(unix)]
fn symlink_escape() -> (Test, tempfile::TempDir) {
    let outside = tempfile::tempdir().expect("tempdir");
    let test = with_marker("\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncwd = \"esc\"\n");
    std::os::unix::fs::symlink(outside.path(), test.path().join("esc")).expect("symlink");
    (test, outside)
}

#[cfg(unix)]
#[test]
fn cwd_that_escapes_through_a_symlink() {
    let (test, outside) = symlink_escape();
    let real = outside.path().canonicalize().expect("canonical");
    rejects(
        test,
        Line::Is(&format!(
            "error: checks.toml:9:1: `cwd` of check `t`: resolves to {}, outside the worktree",
            real.display()
        )),
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn list_rejects_a_cwd_escaping_through_a_symlink() {
    let (test, _outside) = symlink_escape();
    let run = test.args(&["list"]).run();
    assert_error_line(
        &run,
        Line::StartsWith("error: checks.toml:9:1: `cwd` of check `t`: resolves to "),
    );
}

#[cfg(unix)]
#[test]
fn validate_rejects_a_cwd_escaping_through_a_symlink() {
    let (test, _outside) = symlink_escape();
    let run = test.args(&["validate"]).run();
    assert_error_line(
        &run,
        Line::StartsWith("error: checks.toml:9:1: `cwd` of check `t`: resolves to "),
    );
}

#[test]
fn non_utf8_checks_toml() {
    let test = Test::new();
    let mut bytes = MARKER.as_bytes().to_vec();
    bytes.extend_from_slice(b"# caf\xe9\n");
    std::fs::write(test.path().join("checks.toml"), &bytes).expect("write checks.toml");
    rejects(
        test,
        Line::Is(&format!(
            "error: checks.toml: not valid UTF-8 (invalid byte at offset {})",
            MARKER.len() + 5
        )),
    );
}

#[test]
fn out_in_a_missing_directory() {
    let run = with_marker("").args(&["--out", "nodir/ev.json"]).run();
    assert_error_line(
        &run,
        Line::Is("error: --out `nodir/ev.json`: directory `nodir` does not exist"),
    );
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
    assert!(!run.test.path().join("nodir").exists());
}

#[test]
fn out_in_a_missing_directory_names_the_out_path() {
    let run = with_marker("")
        .args(&["--out", "nodir/ev.json"])
        .run()
        .status(2);
    let line = run.stderr_lines()[0];
    assert!(line.contains("nodir/ev.json"), "{line}");
    assert!(!line.contains(".tmp"), "{line}");
}

#[test]
fn out_naming_a_directory() {
    let test = with_marker("").file("sub/keep", "");
    let run = test.args(&["--out", "sub"]).run();
    assert_error_line(
        &run,
        Line::Is("error: --out `sub` is a directory; name a file"),
    );
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
    assert_eq!(
        entries(&run.test.path().join("sub")),
        BTreeSet::from(["keep".to_string()])
    );
}

/// An `env` key that makes the allowed program load other
/// code is a config error naming the key, before anything runs. Here an
/// allowed `git` would preload a shared object of the worktree.
#[test]
fn ld_preload_on_an_allowed_git_is_refused() {
    rejects(
        Test::new().config(
            r#"[settings]
allow = ["touch", "git"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]

[[check]]
name = "status"
run = ["git", "status"]
env = { LD_PRELOAD = "./evil.so" }
"#,
        ),
        Line::Is(
            "error: checks.toml:11:9: `env` of check `status`: `LD_PRELOAD` may make the \
             program load other code (the dynamic loader loads libraries it names); list it \
             in `settings.allow_env` to allow it",
        ),
    );
}

/// `GIT_CONFIG_COUNT`/`KEY_0`/`VALUE_0` set
/// `core.fsmonitor`, a command git runs through a shell on `git status`.
#[test]
fn git_config_from_the_environment_is_refused() {
    rejects(
        Test::new().config(
            r#"[settings]
allow = ["touch", "git"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]

[[check]]
name = "status"
run = ["git", "status"]

[check.env]
GIT_CONFIG_VALUE_0 = "touch ran-marker; false"
GIT_CONFIG_KEY_0 = "core.fsmonitor"
GIT_CONFIG_COUNT = "1"
"#,
        ),
        Line::Is(
            "error: checks.toml:15:1: `env` of check `status`: `GIT_CONFIG_COUNT` may make the \
             program load other code (git runs programs or reads configuration it names); list \
             it in `settings.allow_env` to allow it",
        ),
    );
}

/// Keys are compared ignoring case (Windows reads `Path` as `PATH`), and a
/// `[[fix]]`'s `env` obeys the same rule.
#[test]
fn a_code_loading_key_in_any_case_and_in_a_fix_is_refused() {
    rejects(
        with_marker(
            "\n[[fix]]\nname = \"f\"\nrun = [\"touch\", \"x\"]\nenv = { Path = \"./bin\" }\n",
        ),
        Line::Is(
            "error: checks.toml:11:9: `env` of fix `f`: `Path` may make the program load other \
             code (programs are looked up on it, also by the program's own children); list it \
             in `settings.allow_env` to allow it",
        ),
    );
}

/// `settings.allow_env` lets a listed key through: the check runs and the
/// program sees it (here git reads `user.name` from the environment).
#[test]
fn allow_env_lets_a_listed_key_through() {
    let run = Test::new()
        .config(
            r#"[settings]
allow = ["git"]
allow_env = ["GIT_CONFIG_COUNT", "git_config_key_0", "GIT_CONFIG_VALUE_0"]

[[check]]
name = "name"
run = ["git", "config", "user.name"]
env = { GIT_CONFIG_COUNT = "1", GIT_CONFIG_KEY_0 = "user.name", GIT_CONFIG_VALUE_0 = "From Env" }
"#,
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    let name = crate::support::check(&ev, "name");
    assert_eq!(name["status"], "pass");
    assert_eq!(name["stdout_excerpt"], "From Env\n");
}

/// The repository's own checks.toml sets RUSTFLAGS for its Windows check
/// and so must list it: it validates.
#[test]
fn the_repository_checks_toml_validates() {
    let root = crate::support::repo_root();
    let run = Test::bare()
        .args(&[
            "validate",
            "--config",
            root.join("checks.toml").to_str().unwrap(),
            "--worktree",
            root.to_str().unwrap(),
        ])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

/// A timeout that once validated, then overflowed
/// `Instant + Duration` in a worker (a panic, a hang, a zombie, no output;
/// `fix` exited 101) is a config error of `check`, `validate`, `list` and
/// `fix` alike: exit 2 and one line naming the key.
#[test]
fn an_overflowing_timeout_is_a_config_error_of_every_command() {
    for (timeout, line) in [
        ("2562047788015215h", 3),
        ("18446744073709551615s", 3),
        ("8d", 3),
    ] {
        let config = format!(
            "[settings]\nallow = [\"touch\"]\ntimeout = \"{timeout}\"\n\n[[check]]\nname = \"marker\"\n\
             run = [\"touch\", \"ran-marker\"]\n\n[[fix]]\nname = \"f\"\nrun = [\"touch\", \"fixed\"]\n"
        );
        let expected = format!(
            "error: checks.toml:{line}:11: settings.timeout: invalid duration `{timeout}`: longer \
             than the maximum of 7d (e.g. \"500ms\", \"90s\", \"2m\", \"1h\", \"7d\")"
        );
        rejects(Test::new().config(&config), Line::Is(&expected));
        for command in [
            &["validate"][..],
            &["list"],
            &["fix"],
            &["check", "--mode", "strict"],
        ] {
            let run = Test::new().config(&config).args(command).run();
            assert_error_line(&run, Line::Is(&expected));
            assert!(!run.test.path().join("ran-marker").exists());
            assert!(!run.test.path().join("fixed").exists());
        }
    }
    // In a check and in a fix, the key is theirs.
    rejects(
        with_marker(
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ntimeout = \"18446744073709551615ms\"\n",
        ),
        Line::Is(
            "error: checks.toml:11:11: `timeout` of check `t`: invalid duration \
             `18446744073709551615ms`: longer than the maximum of 7d (e.g. \"500ms\", \"90s\", \
             \"2m\", \"1h\", \"7d\")",
        ),
    );
    let run = with_marker("\n[[fix]]\nname = \"f\"\nrun = [\"touch\", \"x\"]\ntimeout = \"0ms\"\n")
        .args(&["fix"])
        .run();
    assert_error_line(
        &run,
        Line::Is(
            "error: checks.toml:11:11: `timeout` of fix `f`: invalid duration `0ms`: must be at \
             least 1ms (e.g. \"500ms\", \"90s\", \"2m\", \"1h\", \"7d\")",
        ),
    );
}

/// A config whose only programs are `touch` (the marker check) and `git`,
/// with one check `attack` that runs `program` with `args` (and `env`):
/// the `run` of `attack` is line 10, its name line 9.
fn git_attack(program: &str, args: &[&str], env: &str) -> String {
    let run: Vec<String> = std::iter::once(program)
        .chain(args.iter().copied())
        .map(|word| serde_json::to_string(word).unwrap())
        .collect();
    format!(
        "[settings]\nallow = [\"touch\", {program}]\n\n[[check]]\nname = \"marker\"\n\
         run = [\"touch\", \"ran-marker\"]\n\n[[check]]\nname = \"attack\"\nrun = [{}]\n{env}",
        run.join(", "),
        program = serde_json::to_string(program).unwrap()
    )
}

/// A form of the attack: git's arguments, the check's `env` as TOML, the
/// environment of the control run, what the error line says after the
/// check's name, and whether the control run shows git running a program.
type GitForm<'a> = (
    &'a [&'a str],
    &'a str,
    &'a [(&'a str, &'a str)],
    &'a str,
    bool,
);

/// Runs `git args` directly (with `env`) in a fresh repository and says
/// whether it created `attack-marker`: the control that shows a form is a
/// real attack on this git, not a string that happens to be refused.
fn runs_a_program_directly(args: &[&str], env: &[(&str, &str)]) -> bool {
    let control = Test::new();
    let mut git = std::process::Command::new("git");
    git.args(args)
        .current_dir(control.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (name, value) in env {
        git.env(name, value);
    }
    let _ = git.status();
    control.path().join("attack-marker").exists()
}

/// `git` arguments that make git run another program are a config
/// error naming the check, with only git listed: each form is refused
/// before anything runs (no marker, no report), and the forms that this
/// git runs on its own do create the marker when run directly.
#[test]
fn git_arguments_that_run_a_program_are_refused() {
    let forms: &[GitForm<'_>] = &[
        (
            &["-c", "alias.x=!sh -c 'touch attack-marker'", "x"],
            "",
            &[],
            "`-c alias.x=!sh -c 'touch attack-marker'` makes git run `sh -c 'touch \
             attack-marker'` through `sh -c`",
            true,
        ),
        // Section and variable names in any case, as git reads them.
        (
            &["-c", "Alias.X=!mkdir attack-marker", "x"],
            "",
            &[],
            "`-c Alias.X=!mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &["--config-env=alias.x=ATTACK", "x"],
            "env = { ATTACK = \"!mkdir attack-marker\" }\n",
            &[("ATTACK", "!mkdir attack-marker")],
            "`--config-env=alias.x=ATTACK` gives `alias.x` the value of an environment variable",
            true,
        ),
        (
            &["--config-env", "core.pager=ATTACK", "log"],
            "",
            &[],
            "`--config-env core.pager=ATTACK` gives `core.pager`",
            false,
        ),
        // An alias without `!` is git arguments, read by the same rule.
        (
            &[
                "-c",
                "alias.x=ls-remote --upload-pack='mkdir attack-marker' .",
                "x",
            ],
            "",
            &[],
            "`--upload-pack=mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &["ls-remote", "--upl=mkdir attack-marker", "."],
            "",
            &[],
            "`--upl=mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &[
                "clone",
                "-q",
                "-u",
                "mkdir attack-marker",
                "--no-local",
                ".",
                "copy",
            ],
            "",
            &[],
            "`-u mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &[
                "-c",
                "core.editor=mkdir attack-marker",
                "commit",
                "--allow-empty",
            ],
            "",
            &[],
            "`-c core.editor=mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &[
                "-c",
                "core.sshCommand=mkdir attack-marker",
                "ls-remote",
                "ssh://host/repo",
            ],
            "",
            &[],
            "`-c core.sshCommand=mkdir attack-marker` makes git run `mkdir`",
            true,
        ),
        (
            &[
                "-c",
                "protocol.ext.allow=always",
                "ls-remote",
                "ext::mkdir attack-marker",
            ],
            "",
            &[],
            "`-c protocol.ext.allow=always` lets a URL run any command",
            true,
        ),
        // Harmless without a terminal, still a program.
        (
            &["-c", "core.pager=mkdir attack-marker", "log"],
            "",
            &[],
            "`-c core.pager=mkdir attack-marker` makes git run `mkdir`",
            false,
        ),
        (
            &["-c", "core.fsmonitor=mkdir attack-marker", "status"],
            "",
            &[],
            "`-c core.fsmonitor=mkdir attack-marker` makes git run `mkdir`",
            false,
        ),
        (
            &["-c", "core.hooksPath=.hooks", "status"],
            "",
            &[],
            "`-c core.hooksPath=.hooks` makes git run the hooks of the folder it names",
            false,
        ),
        (
            &["-c", "filter.f.clean=mkdir attack-marker", "status"],
            "",
            &[],
            "`-c filter.f.clean=mkdir attack-marker` makes git run `mkdir`",
            false,
        ),
        (
            &["-c", "diff.d.TEXTCONV=mkdir", "log", "-p"],
            "",
            &[],
            "`-c diff.d.TEXTCONV=mkdir` makes git run `mkdir`",
            false,
        ),
        (
            &["-c", "merge.m.driver=mkdir %A", "merge", "HEAD"],
            "",
            &[],
            "`-c merge.m.driver=mkdir %A` makes git run `mkdir %A` through `sh -c`",
            false,
        ),
        (
            &["-c", "credential.helper=!mkdir attack-marker", "fetch"],
            "",
            &[],
            "`-c credential.helper=!mkdir attack-marker` makes git run `mkdir`",
            false,
        ),
        (
            &["-c", "gpg.program=mkdir", "log", "--show-signature"],
            "",
            &[],
            "`-c gpg.program=mkdir` makes git run `mkdir`",
            false,
        ),
        (
            &["--exec-path=.bin", "status"],
            "",
            &[],
            "`--exec-path=.bin` makes git run its own commands from the folder it names",
            false,
        ),
    ];
    for (args, check_env, control_env, shown, runs) in forms {
        if *runs {
            assert!(
                runs_a_program_directly(args, control_env),
                "{args:?} runs no program on this git: not an attack"
            );
        }
        rejects(
            Test::new().config(&git_attack("git", args, check_env)),
            Line::StartsWith(&format!(
                "error: checks.toml:10:7: `run` of check `attack`: {shown}"
            )),
        );
    }
}

/// The whole line for the issue's form, and the same refusal for git
/// named by an absolute path, by a `./git` symlink (both read by name when
/// the config loads) and by a link with another name (`./tools/vcs`, read
/// by its real file when the plan resolves it: the check's line).
#[cfg(unix)]
#[test]
fn git_is_recognised_by_its_path_and_through_a_symlink() {
    let attack = ["-c", "alias.x=!sh -c 'touch attack-marker'", "x"];
    let why = "`-c alias.x=!sh -c 'touch attack-marker'` makes git run `sh -c 'touch \
               attack-marker'` through `sh -c`, and `settings.allow` does not list `sh` (an \
               allowed git runs only listed programs)";
    let git = which::which("git").unwrap();
    rejects(
        Test::new().config(&git_attack(git.to_str().unwrap(), &attack, "")),
        Line::Is(&format!(
            "error: checks.toml:10:7: `run` of check `attack`: {why}"
        )),
    );
    let test = Test::new().config(&git_attack("./git", &attack, ""));
    std::os::unix::fs::symlink(&git, test.path().join("git")).unwrap();
    rejects(
        test,
        Line::Is(&format!(
            "error: checks.toml:10:7: `run` of check `attack`: {why}"
        )),
    );
    let test = Test::new().config(&git_attack("./tools/vcs", &attack, ""));
    std::fs::create_dir(test.path().join("tools")).unwrap();
    std::os::unix::fs::symlink(&git, test.path().join("tools/vcs")).unwrap();
    rejects(
        test,
        Line::Is(&format!(
            "error: checks.toml:9:1: `run` of check `attack`: {why}"
        )),
    );
}

/// What the rule lets through: a program-running argument whose program
/// is itself listed runs (here `mkdir`, and `sh` for a shell command), and
/// harmless `-c` keys, a non-`!` alias and `core.pager=cat` pass.
#[test]
fn a_git_argument_naming_a_listed_program_runs() {
    let test = Test::new()
        .config(
            r#"[settings]
allow = ["git", "mkdir", "sh"]

[[check]]
name = "listed"
run = ["git", "-c", "alias.made=!mkdir made", "made"]

[[check]]
name = "shell"
run = ["git", "-c", "alias.x=!sh -c 'mkdir made-by-sh'", "x"]

[[check]]
name = "harmless"
run = ["git", "-c", "core.quotePath=false", "-c", "core.pager=cat", "-c", "core.fsmonitor=false", "-c", "alias.st=status --short", "st"]
"#,
        )
        .file(".gitignore", "made/\nmade-by-sh/\n");
    crate::support::git(test.path(), &["add", "-A"]);
    crate::support::git(test.path(), &["commit", "-qm", "config"]);
    let run = test.args(&["--format", "json"]).run().success();
    let ev = run.json_stdout();
    for name in ["listed", "shell", "harmless"] {
        assert_eq!(crate::support::check(&ev, name)["status"], "pass", "{name}");
    }
    assert!(
        run.test.path().join("made").is_dir(),
        "the listed program ran"
    );
    assert!(
        run.test.path().join("made-by-sh").is_dir(),
        "the listed shell ran"
    );
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
}

#[test]
fn result_cache_keys_are_checked() {
    // Lines 7..: the check `t` table opens on line 8.
    let cases: [(&str, &str); 6] = [
        (
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ninputs = [\"src/**\"]\n",
            "error: checks.toml:11:11: `inputs` of check `t`: applies only to a cached check; add `cache = true` or remove it",
        ),
        (
            "\n[[check]]\nname = \"t\"\nscan = { rules = [\"secrets\"] }\ncache = true\n",
            "error: checks.toml:11:9: `cache` of check `t`: a `scan` check reads the files against the base revision, which no key holds; only a check with `run` can be cached",
        ),
        (
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncache = true\nartifacts = [\"x\"]\n",
            "error: checks.toml:11:9: `cache` of check `t`: a cached check that is not run writes no `artifacts`, and run-check does not restore them; drop `artifacts` or `cache`",
        ),
        (
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncache = true\nversion = [\"cargo\", \"--version\"]\n",
            "error: checks.toml:12:11: `version` of check `t`: program `cargo` is not in `settings.allow`; add it there to allow it",
        ),
        (
            "\n[[check]]\nname = \"t\"\nrun = [\"touch\", \"x\"]\ncache = true\nenv_keys = [\"A\", \"A\"]\n",
            "error: checks.toml:12:18: `env_keys` of check `t`: `A` is listed twice",
        ),
        (
            "\n[cache]\ndir = \"relative/cache\"\n",
            "error: checks.toml:9:7: cache.dir: `relative/cache`: must be an absolute path or start with `~/` (a store inside the worktree would be one of its files)",
        ),
    ];
    for (rest, line) in cases {
        rejects(with_marker(rest), Line::Is(line));
    }
    rejects(
        with_marker("\n[cache]\nremote = \"ftp://host/x\"\n"),
        Line::StartsWith(
            "error: checks.toml:9:10: cache.remote: must be an http:// or https:// URL",
        ),
    );
}

#[test]
fn max_blocks_above_the_agents_own_cap() {
    rejects(
        with_marker("\n[agent]\nmax_blocks = 9\n"),
        Line::Is(
            "error: checks.toml:9:14: agent.max_blocks: must be between 0 and 8: Claude Code and \
             GitHub Copilot end a turn after 8 consecutive blocks themselves, so a larger bound \
             is never reached",
        ),
    );
}

#[test]
fn agent_timeout_above_an_hour() {
    rejects(
        with_marker("\n[agent]\ntimeout = \"61m\"\n"),
        Line::Is(
            "error: checks.toml:9:11: agent.timeout: `61m` is longer than \"1h\", the most an \
             agent is left waiting for its stop hook",
        ),
    );
    rejects(
        with_marker("\n[agent]\ntimeout = \"soon\"\n"),
        Line::StartsWith("error: checks.toml:9:11: agent.timeout: invalid duration `soon`"),
    );
}
