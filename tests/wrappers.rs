//! The wrappers at the repository root: run-check.sh passes every argument and
//! the exit code through, the Makefile is a thin frontend over it, and
//! run-check.ps1 parses (checked with tree-sitter's PowerShell grammar, since
//! no PowerShell runs here).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::json;

use crate::support::{FAILING, Test, bin, repo_root};

/// Runs `<repo>/run-check.sh ARGS` in the worktree of `test` with
/// `RUN_CHECK_BIN` set to `bin_path`.
fn wrapper_with(test: &Test, bin_path: &Path, args: &[&str]) -> Output {
    Command::new(repo_root().join("run-check.sh"))
        .args(args)
        .current_dir(test.path())
        .env("RUN_CHECK_BIN", bin_path)
        .env_remove("RUN_CHECK_WRAPPER_ACTIVE")
        .stdin(Stdio::null())
        .output()
        .expect("spawn run-check.sh")
}

/// Runs run-check.sh with the binary under test.
fn wrapper(test: &Test, args: &[&str]) -> Output {
    wrapper_with(test, &bin(), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn sh_wrapper_passes_a_failure_through() {
    let test = Test::new().config(FAILING);
    let output = wrapper(&test, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert_eq!(stdout.lines().last(), Some("1 of 2 checks failed: bad"));
}

#[test]
fn sh_wrapper_passes_success_and_error_through() {
    let test = Test::new().config(FAILING);
    let output = wrapper(&test, &["--only", "ok"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let output = wrapper(&test, &["--config", "missing.toml"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
}

#[test]
fn sh_wrapper_passes_version_through() {
    let output = wrapper(&Test::new(), &["--version"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "run-check 0.1.0\n");
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn sh_wrapper_keeps_an_argument_with_spaces_whole() {
    let test = Test::new().config(FAILING);
    let output = wrapper(&test, &["--only", "x y"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "error: --only `x y`: no check of that name in checks.toml\n"
    );
}

#[test]
fn sh_wrapper_passes_every_argument_unchanged() {
    let test = Test::new().config(FAILING);
    let args = ["--format", "json", "--only", "ok", "--jobs", "1", "--quiet"];
    let output = wrapper(&test, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let evidence: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let argv = evidence["meta"]["argv"].as_array().expect("argv");
    assert_eq!(argv[1..], json!(args).as_array().unwrap()[..]);
}

#[test]
fn sh_wrapper_rejects_a_bad_run_check_bin() {
    let test = Test::new().config(FAILING);
    let missing = test.path().join("no-such-binary");
    let output = wrapper_with(&test, &missing, &["--version"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        format!(
            "run-check.sh: RUN_CHECK_BIN={} is not an executable file\n",
            missing.display()
        )
    );
}

#[test]
fn makefile_targets_call_the_sh_wrapper() {
    if which::which("make").is_err() {
        crate::support::missing("make is not on PATH");
        return;
    }
    for (target, expected) in [
        ("check", "./run-check.sh --format json --only 'x y'"),
        (
            "check-fast",
            "./run-check.sh --mode fast --format json --only 'x y'",
        ),
        (
            "check-strict",
            "./run-check.sh --mode strict --format json --only 'x y'",
        ),
        ("fix", "./run-check.sh fix --format json --only 'x y'"),
    ] {
        let output = Command::new("make")
            .args(["-n", "-s", target, "ARGS=--format json --only 'x y'"])
            .current_dir(repo_root())
            .stdin(Stdio::null())
            .output()
            .expect("spawn make");
        assert!(
            output.status.success(),
            "make -n {target}: {}",
            text(&output.stderr)
        );
        assert_eq!(
            text(&output.stdout),
            format!("{expected}\n"),
            "make -n {target}"
        );
    }
}

/// The python of a venv with tree-sitter and its PowerShell grammar, made (or
/// reused) by scripts/ps1-venv.sh under target/. Panics with the script's
/// own message when it cannot be set up: this test is never skipped.
fn ps1_python() -> PathBuf {
    let root = repo_root();
    let output = Command::new("bash")
        .arg(root.join("scripts/ps1-venv.sh"))
        .arg(root.join("target/ps1-venv"))
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("spawn bash scripts/ps1-venv.sh");
    assert!(
        output.status.success(),
        "scripts/ps1-venv.sh could not set up the tree-sitter venv that checks \
         run-check.ps1 (it needs python3 >= 3.10 with venv, and PyPI on first use); \
         exit {:?}:\n{}",
        output.status.code(),
        text(&output.stderr)
    );
    let python = PathBuf::from(text(&output.stdout).trim());
    assert!(
        python.is_file(),
        "ps1-venv.sh printed no python: {python:?}"
    );
    python
}

/// Runs scripts/ps1_syntax.py on `file`.
fn ps1_syntax(file: &Path) -> Output {
    let root = repo_root();
    Command::new(ps1_python())
        .arg(root.join("scripts/ps1_syntax.py"))
        .arg(file)
        .current_dir(&root)
        .stdin(Stdio::null())
        .output()
        .expect("spawn ps1_syntax.py")
}

#[test]
fn ps1_wrapper_parses() {
    let output = ps1_syntax(&repo_root().join("run-check.ps1"));
    assert_eq!(
        output.status.code(),
        Some(0),
        "run-check.ps1 has syntax errors:\n{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert_eq!(text(&output.stdout), "");
}

#[test]
fn ps1_syntax_check_catches_a_missing_brace() {
    let source = std::fs::read_to_string(repo_root().join("run-check.ps1")).expect("read ps1");
    // Drop the first line that only closes a block.
    let mut dropped = false;
    let broken: String = source
        .lines()
        .filter(|line| {
            let drop = !dropped && line.trim_end() == "}";
            dropped |= drop;
            !drop
        })
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(dropped, "run-check.ps1 has no line holding only `}}`");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("broken.ps1");
    std::fs::write(&file, broken).expect("write broken.ps1");

    let output = ps1_syntax(&file);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        text(&output.stderr)
    );
    let first = stdout.lines().next().expect("one problem line");
    let located = regex::Regex::new(&format!(
        r"^{}:\d+:\d+: syntax error",
        regex::escape(&file.display().to_string())
    ))
    .unwrap();
    assert!(located.is_match(first), "not FILE:LINE:COL: {first}");
}

/// run-check.sh copied into a user's Cargo project, with no run-check to
/// find: it never builds that project (a `cargo` on PATH that records
/// being run stays unrun) and says in one line how to install run-check;
/// exit 2.
#[cfg(unix)]
#[test]
fn sh_wrapper_copied_into_another_cargo_project_does_not_build_it() {
    let test = Test::new()
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        )
        .file("src/main.rs", "fn main() {}\n")
        .script(
            "fakebin/cargo",
            "#!/bin/sh\ntouch \"$(dirname \"$0\")/../cargo-ran\"\nexit 0\n",
        );
    std::fs::copy(
        repo_root().join("run-check.sh"),
        test.path().join("run-check.sh"),
    )
    .unwrap();
    let path = format!("{}:/usr/bin:/bin", test.path().join("fakebin").display());
    let output = Command::new(test.path().join("run-check.sh"))
        .arg("--version")
        .current_dir(test.path())
        .env("PATH", &path)
        .env_remove("RUN_CHECK_BIN")
        .env_remove("RUN_CHECK_WRAPPER_ACTIVE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(!test.path().join("cargo-ran").exists());
    assert!(!test.path().join("target").exists());
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("run-check.sh: no run-check binary found")
            && stderr.contains("install run-check")
            && stderr.contains("RUN_CHECK_BIN"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
