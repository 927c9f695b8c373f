//! The command line (docs/cli.md) and the evidence (docs/evidence.md): `--help`,
//! `--version`, usage errors, `check` as the default, `--only`/`--skip`,
//! `list`, `validate`, `--worktree`, `--out`, the text report and every field
//! of the evidence JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{FAILING, Test, bin, check, git};

/// Three checks: `fast-one` in both modes, `strict-one` (strict, the
/// default) needing it, `fast-missing` (fast only) whose program is nowhere.
const TWO_MODES: &str = r#"[settings]
allow = ["true", "echo", "no-such-program-xyz"]

[[check]]
name = "fast-one"
run = ["true"]
modes = ["fast", "strict"]

[[check]]
name = "strict-one"
run = ["echo", "hello world"]
timeout = "90s"
needs = ["fast-one"]

[[check]]
name = "fast-missing"
run = ["no-such-program-xyz", "--flag"]
modes = ["fast"]

[[fix]]
name = "noop"
run = ["true"]
"#;

/// Two passing checks.
const PASSING: &str = r#"[settings]
allow = ["true", "echo"]

[[check]]
name = "a"
run = ["true"]

[[check]]
name = "b"
run = ["echo", "hi"]
"#;

/// A check that leaves `ran-marker` behind when it runs.
const MARKER: &str = r#"[settings]
allow = ["touch"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]
"#;

/// The absolute path `which` finds for `program`.
/// The real path of `program` on PATH, as evidence and `list` record it
/// (every symlink followed: docs/checks-toml.md).
fn which(program: &str) -> String {
    let found = which::which(program).unwrap_or_else(|e| panic!("{program} not on PATH: {e}"));
    dunce::canonicalize(found).unwrap().display().to_string()
}

/// The names of the checks in an evidence document, in order.
fn names(evidence: &Value) -> Vec<&str> {
    evidence["checks"]
        .as_array()
        .expect("checks array")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect()
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().expect("canonicalize")
}

/// Lower-case hex sha256 of a file.
fn sha256_hex(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

// ---- help, version, usage errors ----

#[test]
fn help_lists_check_options_and_subcommands() {
    let run = Test::new().args(&["--help"]).run().success();
    for word in [
        "--mode",
        "--format",
        "--out",
        "--only",
        "--skip",
        "--jobs",
        "--no-fail-fast",
        "--quiet",
        "--config",
        "--worktree",
    ] {
        assert!(
            run.stdout.contains(word),
            "--help lacks `{word}`:\n{}",
            run.stdout
        );
    }
    let commands: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for command in ["check", "list", "validate"] {
        assert!(
            commands.contains(&command),
            "no `{command}` in {commands:?}"
        );
    }
}

#[test]
fn version_prints_the_semver() {
    let run = Test::new().args(&["--version"]).run().success();
    assert_eq!(run.stdout, "run-check 0.1.0\n");
}

/// The MCP server, a program of its own, answers `--version` as run-check
/// does (exit 0, its name and version on stdout), and so does `run-check
/// mcp --version`, which never starts a server.
#[test]
fn the_mcp_server_prints_its_version() {
    let server = PathBuf::from(env!("CARGO_BIN_EXE_run-check-mcp"));
    let version = format!("run-check-mcp {}\n", env!("CARGO_PKG_VERSION"));
    for (program, args) in [
        (&server, &["--version"][..]),
        (&server, &["-V"][..]),
        (&bin(), &["mcp", "--version"][..]),
    ] {
        let output = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), version, "{args:?}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--bogus"])
        .run()
        .status(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(run.stderr.contains("--bogus"), "{}", run.stderr);
}

#[test]
fn unknown_mode_is_a_usage_error() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--mode", "bogus"])
        .run()
        .status(2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(run.stderr.contains("bogus"), "{}", run.stderr);
}

// ---- check: default subcommand, filters ----

/// The evidence on stdout of run-check run in `test`'s worktree with exactly
/// `args`, without what differs from run to run (times, argv).
fn stable_evidence(test: &Test, args: &[&str]) -> Value {
    let output = Command::new(bin())
        .args(args)
        .current_dir(test.path())
        .stdin(Stdio::null())
        .output()
        .expect("spawn run-check");
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    let mut evidence: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    evidence["meta"]["timestamp"] = Value::Null;
    evidence["meta"]["argv"] = Value::Null;
    evidence["summary"]["duration_ms"] = Value::Null;
    for check in evidence["checks"].as_array_mut().expect("checks") {
        check["duration_ms"] = Value::Null;
        check["started_ms"] = Value::Null;
    }
    evidence
}

#[test]
fn check_subcommand_equals_the_bare_form() {
    let test = Test::new().config(FAILING);
    assert_eq!(
        stable_evidence(&test, &["check", "--format", "json"]),
        stable_evidence(&test, &["--format", "json"])
    );
}

#[test]
fn only_runs_just_the_named_checks() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--format", "json", "--only", "b"])
        .run()
        .success();
    let evidence = run.json_stdout();
    assert_eq!(names(&evidence), ["b"]);
    assert_eq!(evidence["meta"]["commands"], json!(["echo hi"]));
    assert_eq!(evidence["summary"]["total"], 1);
}

#[test]
fn only_is_repeatable() {
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json", "--only", "bad", "--only", "ok"])
        .run()
        .status(1);
    assert_eq!(names(&run.json_stdout()), ["ok", "bad"]);
}

#[test]
fn only_an_unknown_name_is_an_error_and_runs_nothing() {
    let run = Test::new()
        .config(MARKER)
        .args(&["--only", "unknown"])
        .run()
        .status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr_lines(),
        ["error: --only `unknown`: no check of that name in checks.toml"]
    );
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
}

#[test]
fn skip_an_unknown_name_is_an_error() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--skip", "nope"])
        .run()
        .status(2);
    assert_eq!(
        run.stderr_lines(),
        ["error: --skip `nope`: no check of that name in checks.toml"]
    );
}

#[test]
fn skip_leaves_out_the_named_check() {
    // Skipping the failing check makes the run pass.
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json", "--skip", "bad"])
        .run()
        .success();
    let evidence = run.json_stdout();
    assert_eq!(names(&evidence), ["ok"]);
    assert_eq!(evidence["meta"]["commands"], json!(["true"]));
}

#[test]
fn mode_selects_the_checks() {
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["--mode", "strict", "--format", "json"])
        .run()
        .success();
    let evidence = run.json_stdout();
    assert_eq!(evidence["mode"], "strict");
    assert_eq!(names(&evidence), ["fast-one", "strict-one"]);

    // Fast mode: the missing program is an `error` status, not a config error.
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["--mode", "fast", "--format", "json"])
        .run()
        .status(2);
    let evidence = run.json_stdout();
    assert_eq!(evidence["mode"], "fast");
    assert_eq!(names(&evidence), ["fast-one", "fast-missing"]);
    assert_eq!(check(&evidence, "fast-missing")["status"], "error");
}

// ---- list ----

#[test]
fn list_prints_the_checks_of_the_mode_with_resolved_programs() {
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["list"])
        .run()
        .success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with("fast-one "), "{}", lines[0]);
    assert!(
        lines[0].contains(&format!("[{}]", which("true"))),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("strict-one "), "{}", lines[1]);
    assert!(
        lines[1].contains(&format!("[{}]", which("echo"))),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("echo 'hello world'"), "{}", lines[1]);
    assert!(lines[1].contains("needs fast-one"), "{}", lines[1]);
    assert!(!run.stdout.contains("fast-missing"));
    assert!(Path::new(&which("true")).is_absolute());

    let run = run.test.args(&["--mode", "fast"]).run().success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].starts_with("fast-one "), "{}", lines[0]);
    assert!(lines[1].starts_with("fast-missing "), "{}", lines[1]);
    assert!(!run.stdout.contains("strict-one"));
}

#[test]
fn list_shows_a_missing_program_as_not_found() {
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["list", "--mode", "fast"])
        .run()
        .success();
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("fast-missing "))
        .expect("fast-missing listed");
    assert!(line.contains("NOT FOUND"), "{line}");
    assert!(line.contains("no-such-program-xyz"), "{line}");
}

#[test]
fn list_json_is_an_array_of_planned_checks() {
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["list", "--format", "json"])
        .run()
        .success();
    let rows = run.json_stdout();
    let rows = rows.as_array().expect("an array");
    assert_eq!(rows.len(), 2);
    let fast = &rows[0];
    assert_eq!(fast["name"], "fast-one");
    assert_eq!(fast["command"], json!(["true"]));
    assert_eq!(fast["program"], which("true"));
    assert_eq!(fast["timeout_ms"], 600_000);
    assert_eq!(fast["needs"], json!([]));
    let strict = &rows[1];
    assert_eq!(strict["name"], "strict-one");
    assert_eq!(strict["command"], json!(["echo", "hello world"]));
    assert_eq!(strict["program"], which("echo"));
    assert_eq!(strict["timeout_ms"], 90_000);
    assert_eq!(strict["needs"], json!(["fast-one"]));

    let run = run.test.args(&["--mode", "fast"]).run().success();
    let rows = run.json_stdout();
    let missing = &rows.as_array().expect("an array")[1];
    assert_eq!(missing["name"], "fast-missing");
    assert_eq!(missing["command"], json!(["no-such-program-xyz", "--flag"]));
    assert_eq!(missing["program"], Value::Null);
}

#[test]
fn list_and_validate_run_no_check() {
    for subcommand in ["list", "validate"] {
        let run = Test::new()
            .config(MARKER)
            .args(&[subcommand])
            .run()
            .success();
        assert!(
            !run.test.path().join("ran-marker").exists(),
            "{subcommand} ran a check"
        );
    }
}

// ---- validate ----

#[test]
fn validate_a_valid_config() {
    let run = Test::new()
        .config(TWO_MODES)
        .args(&["validate"])
        .run()
        .success();
    assert_eq!(run.stdout, "checks.toml: valid (3 checks, 1 fix)\n");
}

#[test]
fn validate_an_invalid_config() {
    let run = Test::new()
        .config("[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"t\"\nrun = [\"false\"]\n")
        .args(&["validate"])
        .run()
        .status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr_lines(),
        [
            "error: checks.toml:6:7: `run` of check `t`: program `false` is not in `settings.allow`; \
             add it there to allow it"
        ]
    );
}

// ---- --worktree, --out, text report ----

#[cfg(unix)]
#[test]
fn worktree_from_another_directory() {
    let test = Test::new().config(
        r#"[settings]
allow = ["pwd"]

[[check]]
name = "in-worktree"
run = ["pwd"]
"#,
    );
    // Another cwd with its own (decoy) checks.toml and a symlink to the
    // worktree, so the --worktree given is relative and not canonical.
    let elsewhere = Test::new().config(
        "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"decoy\"\nrun = [\"true\"]\n",
    );
    std::os::unix::fs::symlink(test.path(), elsewhere.path().join("wt")).expect("symlink");
    let mut command = test.command();
    command
        .current_dir(elsewhere.path())
        .args(["--worktree", "wt", "--format", "json"]);
    let output = command.output().expect("spawn run-check");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let evidence: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(names(&evidence), ["in-worktree"]);
    let worktree = canonical(test.path()).display().to_string();
    assert_eq!(evidence["meta"]["worktree"], worktree.as_str());
    assert_eq!(
        evidence["meta"]["cwd"],
        canonical(elsewhere.path()).display().to_string()
    );
    assert_eq!(evidence["meta"]["config"]["path"], "wt/checks.toml");
    assert_eq!(
        evidence["meta"]["config"]["sha256"],
        sha256_hex(&test.path().join("checks.toml"))
    );
    // The check ran in the worktree.
    assert_eq!(
        check(&evidence, "in-worktree")["stdout_excerpt"],
        format!("{worktree}\n")
    );
}

#[test]
fn out_writes_the_report_to_a_file() {
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    assert_eq!(run.stdout, "", "stdout gets nothing with --out");
    let evidence = run.json_file("ev.json");
    let banner = evidence["summary"]["banner"].as_str().expect("banner");
    assert_eq!(banner, "1 of 2 checks failed: bad");
    assert_eq!(run.stderr_lines().last(), Some(&banner));
    // Only the report is new: no temp file is left beside it.
    let mut names: Vec<String> = std::fs::read_dir(run.test.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".git", "checks.toml", "ev.json"]);
}

#[test]
fn out_replaces_an_existing_file_and_works_for_text() {
    let run = Test::new()
        .config(PASSING)
        .file("reports/summary.txt", "old report\n")
        .args(&["--out", "reports/summary.txt"])
        .run()
        .success();
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr_lines().last(), Some(&"All checks passed!"));
    let report = std::fs::read_to_string(run.test.path().join("reports/summary.txt")).unwrap();
    assert!(!report.contains("old report"), "{report}");
    assert_eq!(report.lines().last(), Some("All checks passed!"));
    let names: Vec<_> = std::fs::read_dir(run.test.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["summary.txt"]);
}

/// The command for `test` with its umask set to `mask` in the child.
#[cfg(unix)]
fn with_umask(test: &Test, mask: u32) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = test.command();
    // SAFETY: umask(2) is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(move || {
            libc::umask(mask as libc::mode_t);
            Ok(())
        });
    }
    command
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o7777
}

#[cfg(unix)]
#[test]
fn out_files_follow_the_umask_and_keep_an_existing_mode() {
    let test = Test::new()
        .config(PASSING)
        .args(&["--format", "json", "--out", "new.json"]);
    let output = with_umask(&test, 0o027).output().expect("spawn");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(mode(&test.path().join("new.json")), 0o640, "0666 & !027");

    let test = Test::new()
        .config(PASSING)
        .file("kept.json", "secret\n")
        .args(&["--format", "json", "--out", "kept.json"]);
    let kept = test.path().join("kept.json");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let output = with_umask(&test, 0o002).output().expect("spawn");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(mode(&kept), 0o600, "an existing file keeps its mode");
    assert!(
        std::fs::read_to_string(&kept)
            .unwrap()
            .contains("\"summary\"")
    );
}

#[cfg(unix)]
#[test]
fn init_writes_checks_toml_under_the_umask() {
    let test = Test::bare()
        .file(
            "Cargo.toml",
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
        )
        .args(&["init"]);
    let output = with_umask(&test, 0o077).output().expect("spawn");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(mode(&test.path().join("checks.toml")), 0o600, "0666 & !077");
}

#[cfg(unix)]
#[test]
fn out_to_dev_null_writes_in_place_and_keeps_the_device() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let before = std::fs::metadata("/dev/null").expect("stat /dev/null");
    assert!(before.file_type().is_char_device());
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json", "--out", "/dev/null"])
        .run()
        .status(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr_lines().last(),
        Some(&"1 of 2 checks failed: bad")
    );
    // Not replaced by a regular file (the tests run as root, which could).
    let after = std::fs::metadata("/dev/null").expect("stat /dev/null");
    assert!(after.file_type().is_char_device(), "{after:?}");
    assert_eq!(
        (after.rdev(), after.ino(), after.mode()),
        (before.rdev(), before.ino(), before.mode())
    );
}

#[cfg(unix)]
#[test]
fn out_to_dev_stdout_reaches_the_pipe() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--format", "json", "--out", "/dev/stdout"])
        .run()
        .success();
    let evidence = run.json_stdout();
    assert_eq!(evidence["summary"]["banner"], "All checks passed!");
}

#[cfg(unix)]
#[test]
fn out_to_a_fifo_is_written_in_place() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let outside = tempfile::tempdir().unwrap();
    let fifo = outside.path().join("report.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .expect("open the FIFO")
                .read_to_string(&mut text)
                .expect("read the FIFO");
            text
        })
    };
    let fifo_arg = fifo.display().to_string();
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json", "--out", &fifo_arg])
        .run()
        .status(1);
    let text = reader.join().expect("reader");
    let evidence: Value = serde_json::from_str(&text).expect("JSON through the FIFO");
    assert_eq!(evidence["summary"]["banner"], "1 of 2 checks failed: bad");
    assert_eq!(run.stdout, "");
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(meta.file_type().is_fifo(), "still a FIFO");
    // Nothing was created beside it.
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn out_through_a_symlink_replaces_its_target_and_keeps_the_link() {
    let outside = tempfile::tempdir().unwrap();
    let runs = outside.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    std::fs::write(runs.join("one.json"), "old\n").unwrap();
    let link = outside.path().join("latest.json");
    std::os::unix::fs::symlink("runs/one.json", &link).unwrap();
    let dangling = outside.path().join("next.json");
    std::os::unix::fs::symlink("runs/two.json", &dangling).unwrap();
    for (path, target) in [(&link, "runs/one.json"), (&dangling, "runs/two.json")] {
        let arg = path.display().to_string();
        let run = Test::new()
            .config(PASSING)
            .args(&["--format", "json", "--out", &arg])
            .run()
            .success();
        assert_eq!(run.stdout, "");
        assert_eq!(std::fs::read_link(path).unwrap(), Path::new(target));
        let text = std::fs::read_to_string(outside.path().join(target)).unwrap();
        let evidence: Value = serde_json::from_str(&text).expect("the target is the report");
        assert_eq!(evidence["summary"]["banner"], "All checks passed!");
    }
    let mut names: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["one.json", "two.json"], "no temp file is left");
}

#[test]
fn text_report_ends_with_the_banner() {
    let run = Test::new().config(PASSING).run().success();
    assert_eq!(run.stdout.lines().last(), Some("All checks passed!"));
    let run = Test::new().config(FAILING).run().status(1);
    assert_eq!(run.stdout.lines().last(), Some("1 of 2 checks failed: bad"));
    assert!(run.stdout.contains("bad"), "{}", run.stdout);
}

#[test]
fn quiet_prints_no_progress() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--quiet", "--format", "json"])
        .run()
        .success();
    assert_eq!(run.stderr, "All checks passed!\n");
    let run = Test::new().config(PASSING).args(&["-q"]).run().success();
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout.lines().last(), Some("All checks passed!"));
}

// ---- the evidence document ----

/// Asserts that `value` has the dotted `path` (the value may be null).
#[track_caller]
fn assert_has(value: &Value, path: &str) {
    let mut at = value;
    for key in path.split('.') {
        at = at
            .as_object()
            .and_then(|o| o.get(key))
            .unwrap_or_else(|| panic!("evidence lacks `{path}`:\n{value:#}"));
    }
}

#[test]
fn evidence_has_every_field_of_spec_section_6() {
    let run = Test::new()
        .config(FAILING)
        .args(&["--format", "json"])
        .run()
        .status(1);
    let evidence = run.json_stdout();
    for path in [
        "schema_version",
        "meta.tool.name",
        "meta.tool.version",
        "meta.timestamp",
        "meta.platform.os",
        "meta.platform.arch",
        "meta.platform.os_version",
        "meta.platform.cpus",
        "meta.platform.memory_bytes",
        "meta.cwd",
        "meta.worktree",
        "meta.git.commit",
        "meta.git.branch",
        "meta.git.dirty",
        "meta.config.path",
        "meta.config.sha256",
        "meta.task",
        "meta.argv",
        "meta.commands",
        "mode",
        "summary.all_checks_passed",
        "summary.banner",
        "summary.duration_ms",
        "summary.total",
        "summary.passed",
        "summary.failed",
        "summary.errored",
        "summary.skipped",
        "summary.exit_code",
        "checks",
        "diagnostics",
        "contracts.read_only",
        "contracts.task",
        "contracts.change_budget",
    ] {
        assert_has(&evidence, path);
    }
    let checks = evidence["checks"].as_array().expect("checks array");
    assert_eq!(checks.len(), 2);
    for entry in checks {
        for key in [
            "name",
            "status",
            "command",
            "program",
            "dimension",
            "exit_code",
            "duration_ms",
            "timed_out",
            "stdout_excerpt",
            "stderr_excerpt",
            "stdout_bytes",
            "stderr_bytes",
            "excerpt_truncated",
            "artifacts",
            "diagnostics_count",
            "score",
            "skip_reason",
            "error",
            "data",
        ] {
            assert_has(entry, key);
        }
    }

    // Values that do not depend on the machine.
    assert_eq!(evidence["schema_version"], 1);
    assert_eq!(
        evidence["meta"]["tool"],
        json!({"name": "run-check", "version": "0.1.0"})
    );
    assert_eq!(evidence["mode"], "strict");
    assert_eq!(evidence["meta"]["task"], Value::Null);
    let timestamp = evidence["meta"]["timestamp"].as_str().expect("timestamp");
    assert!(timestamp.ends_with('Z'), "{timestamp}");
    chrono::DateTime::parse_from_rfc3339(timestamp).expect("RFC 3339 timestamp");
    let platform = &evidence["meta"]["platform"];
    assert_eq!(platform["os"], std::env::consts::OS);
    assert_eq!(platform["arch"], std::env::consts::ARCH);
    assert!(platform["cpus"].as_u64().expect("cpus") >= 1);
    assert!(platform["memory_bytes"].as_u64().expect("memory_bytes") > 0);
    let here = canonical(run.test.path()).display().to_string();
    assert_eq!(evidence["meta"]["cwd"], here.as_str());
    assert_eq!(evidence["meta"]["worktree"], here.as_str());
    let argv = evidence["meta"]["argv"].as_array().expect("argv");
    assert_eq!(argv[1..], [json!("--format"), json!("json")]);

    let summary = &evidence["summary"];
    assert_eq!(summary["all_checks_passed"], false);
    assert_eq!(summary["banner"], "1 of 2 checks failed: bad");
    assert!(summary["duration_ms"].is_u64());
    assert_eq!(
        [
            &summary["total"],
            &summary["passed"],
            &summary["failed"],
            &summary["errored"]
        ],
        [&json!(2), &json!(1), &json!(1), &json!(0)]
    );
    assert_eq!(summary["skipped"], 0);
    assert_eq!(summary["exit_code"], 1);

    let bad = check(&evidence, "bad");
    assert_eq!(bad["status"], "fail");
    assert_eq!(bad["command"], json!(["false"]));
    assert_eq!(bad["program"], which("false"));
    assert_eq!(bad["dimension"], "quality");
    assert_eq!(bad["exit_code"], 1);
    assert_eq!(bad["timed_out"], false);
    assert_eq!(bad["data"], json!({}));
    assert_eq!(check(&evidence, "ok")["status"], "pass");
    assert_eq!(evidence["diagnostics"], json!([]));
}

#[test]
fn evidence_git_and_config_identity() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--format", "json"])
        .run()
        .success();
    let evidence = run.json_stdout();
    let git_facts = &evidence["meta"]["git"];
    let head = git(run.test.path(), &["rev-parse", "HEAD"]);
    assert_eq!(git_facts["commit"], head.trim());
    assert_eq!(git_facts["branch"], "main");
    // checks.toml is untracked.
    assert_eq!(git_facts["dirty"], true);
    assert_eq!(evidence["meta"]["config"]["path"], "checks.toml");
    assert_eq!(
        evidence["meta"]["config"]["sha256"],
        sha256_hex(&run.test.path().join("checks.toml"))
    );

    // Committed, the worktree is clean and HEAD moves.
    git(run.test.path(), &["add", "checks.toml"]);
    git(run.test.path(), &["commit", "-q", "-m", "checks"]);
    let run = run.test.run().success();
    let evidence = run.json_stdout();
    let head = git(run.test.path(), &["rev-parse", "HEAD"]);
    assert_eq!(evidence["meta"]["git"]["commit"], head.trim());
    assert_eq!(evidence["meta"]["git"]["dirty"], false);

    // Nor does run-check's own report make it dirty: `dirty` is the state
    // before the run, when the `--out` file does not exist yet.
    let run = run.test.args(&["--out", "ev.json"]).run().success();
    assert_eq!(run.json_file("ev.json")["meta"]["git"]["dirty"], false);
}

#[test]
fn evidence_git_facts_are_null_outside_git() {
    let run = Test::bare()
        .config(PASSING)
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(
        run.json_stdout()["meta"]["git"],
        json!({"commit": null, "branch": null, "dirty": null})
    );
}

#[test]
fn evidence_commands_are_exactly_the_executed_ones() {
    let run = Test::new()
        .config(
            r#"[settings]
allow = ["true", "false", "echo", "no-such-program-xyz"]

[[check]]
name = "ok"
run = ["true"]

[[check]]
name = "spaced"
run = ["echo", "hello world"]

[[check]]
name = "bad"
run = ["false"]

[[check]]
name = "after-bad"
run = ["echo", "never"]
needs = ["bad"]

[[check]]
name = "missing"
run = ["no-such-program-xyz"]

[[check]]
name = "left-out"
run = ["echo", "left out"]

[[check]]
name = "fast-only"
run = ["echo", "fast"]
modes = ["fast"]
"#,
        )
        .args(&["--format", "json", "--skip", "left-out"])
        .run()
        .status(2);
    let evidence = run.json_stdout();
    assert_eq!(
        names(&evidence),
        ["ok", "spaced", "bad", "after-bad", "missing"]
    );
    assert_eq!(check(&evidence, "after-bad")["status"], "skip");
    assert_eq!(check(&evidence, "missing")["status"], "error");
    assert_eq!(
        evidence["meta"]["commands"],
        json!(["true", "echo 'hello world'", "false"])
    );
}

/// `--out /proc/self/fd/N` is run-check's own descriptor N: a number that
/// names no open descriptor (or -1) is a one-line error naming the path,
/// exit 2, before any check runs; never a panic, nor a handle made of a
/// number that is not open.
#[cfg(target_os = "linux")]
#[test]
fn an_out_descriptor_that_is_not_open_is_an_error() {
    for fd in ["-1", "977"] {
        let out = format!("/proc/self/fd/{fd}");
        let run = Test::new().config(FAILING).args(&["--out", &out]).run();
        assert_eq!(run.code, Some(2), "{fd}: {}", run.stderr);
        let lines = run.stderr_lines();
        assert_eq!(lines.len(), 1, "{fd}: {}", run.stderr);
        assert!(lines[0].contains(&out), "{fd}: {}", run.stderr);
    }
}
