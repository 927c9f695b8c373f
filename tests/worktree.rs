//! The default `--worktree`: the nearest directory holding `checks.toml`,
//! from the current directory up to the top level of its git worktree, else
//! the current directory (docs/cli.md). `--worktree` and `--config` win.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support::{Test, git};

/// A config whose one check, `name`, runs `true`.
fn config(name: &str) -> String {
    format!("[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"{name}\"\nrun = [\"true\"]\n")
}

/// Runs run-check with `args` in `dir` (relative to the test's directory).
fn run_in(test: &Test, dir: &str, args: &[&str]) -> Output {
    let mut command = test.command();
    command.current_dir(test.path().join(dir)).args(args);
    command.output().expect("spawn run-check")
}

/// The evidence of a run that must have passed.
#[track_caller]
fn passed(output: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn names(evidence: &Value) -> Vec<&str> {
    evidence["checks"]
        .as_array()
        .expect("checks array")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect()
}

fn canonical(path: &Path) -> String {
    dunce::canonicalize(path)
        .expect("canonicalize")
        .display()
        .to_string()
}

fn sha256_hex(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `meta.config.path`, resolved from `meta.cwd` as the judge does, is the
/// config file `expected`.
#[track_caller]
fn config_resolves(evidence: &Value, expected: &Path) {
    let meta = &evidence["meta"];
    let named = PathBuf::from(meta["cwd"].as_str().expect("cwd"))
        .join(meta["config"]["path"].as_str().expect("config path"));
    assert_eq!(canonical(&named), canonical(expected));
    assert_eq!(meta["config"]["sha256"], sha256_hex(expected).as_str());
}

/// The error of a run with no config found: exit 2, `checks.toml` named.
#[track_caller]
fn no_config(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: checks.toml: no such file (create checks.toml in the worktree or pass --config PATH)"
    );
}

#[test]
fn a_subdirectory_gates_the_repository() {
    let test = Test::new()
        .config(&config("root"))
        .file("src/deep/file.txt", "x\n");
    let output = run_in(&test, "src/deep", &["--format", "json"]);
    let evidence = passed(&output);
    assert_eq!(names(&evidence), ["root"]);
    assert_eq!(
        evidence["meta"]["worktree"],
        canonical(test.path()).as_str()
    );
    assert_eq!(
        evidence["meta"]["cwd"],
        canonical(&test.path().join("src/deep")).as_str()
    );
    let expected = Path::new("..").join("..").join("checks.toml");
    assert_eq!(
        evidence["meta"]["config"]["path"],
        expected.display().to_string().as_str()
    );
    config_resolves(&evidence, &test.path().join("checks.toml"));
    // list and validate find the same config.
    let output = run_in(&test, "src/deep", &["validate"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{}: valid (1 check, 0 fixes)\n", expected.display())
    );
    let output = run_in(&test, "src/deep", &["list", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let plan: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(plan[0]["name"], "root");
}

#[cfg(unix)]
#[test]
fn the_checks_run_at_the_found_root() {
    let test = Test::new()
        .config("[settings]\nallow = [\"pwd\"]\n\n[[check]]\nname = \"where\"\nrun = [\"pwd\"]\n")
        .file("a/b/.keep", "");
    let evidence = passed(&run_in(&test, "a/b", &["--format", "json"]));
    assert_eq!(
        evidence["checks"][0]["stdout_excerpt"],
        format!("{}\n", canonical(test.path()))
    );
}

#[test]
fn a_package_with_its_own_config_gates_the_package() {
    let test = Test::new()
        .config(&config("root"))
        .file("packages/web/checks.toml", &config("web"))
        .file("packages/web/src/main.txt", "x\n");
    let package = test.path().join("packages/web");
    for dir in ["packages/web/src", "packages/web"] {
        let evidence = passed(&run_in(&test, dir, &["--format", "json"]));
        assert_eq!(names(&evidence), ["web"], "from {dir}");
        assert_eq!(evidence["meta"]["worktree"], canonical(&package).as_str());
        config_resolves(&evidence, &package.join("checks.toml"));
    }
    // Beside the package, the repository's config.
    let evidence = passed(&run_in(&test, "packages", &["--format", "json"]));
    assert_eq!(names(&evidence), ["root"]);
    assert_eq!(evidence["meta"]["config"]["path"], {
        let path = Path::new("..").join("checks.toml");
        path.display().to_string()
    });
}

#[test]
fn outside_git_only_the_current_directory() {
    let test = Test::bare()
        .config(&config("parent"))
        .file("sub/file.txt", "x\n");
    no_config(&run_in(&test, "sub", &["--format", "json"]));
    no_config(&run_in(&test, "sub", &["validate"]));
    // In the directory itself, as before.
    let evidence = passed(&run_in(&test, ".", &["--format", "json"]));
    assert_eq!(names(&evidence), ["parent"]);
}

#[test]
fn a_config_above_the_top_level_is_not_taken() {
    // An attacker's folder holding a repository: its checks.toml must not
    // gate the repository, from the top or below it.
    let test = Test::bare()
        .config(&config("attacker"))
        .file("repo/sub/file.txt", "x\n");
    git(&test.path().join("repo"), &["init", "-q", "-b", "main"]);
    no_config(&run_in(&test, "repo/sub", &["--format", "json"]));
    no_config(&run_in(&test, "repo", &["--format", "json"]));
    no_config(&run_in(&test, "repo/sub", &["list"]));
}

#[test]
fn a_linked_worktree_is_its_own_top_level() {
    // A linked worktree's `.git` is a file; the main worktree's config,
    // the directory above, is not the linked worktree's.
    let test = Test::new().config(&config("main"));
    git(test.path(), &["add", "checks.toml"]);
    git(test.path(), &["commit", "-q", "-m", "config"]);
    git(
        test.path(),
        &["worktree", "add", "-q", "linked", "-b", "other"],
    );
    std::fs::create_dir_all(test.path().join("linked/sub")).expect("mkdir");
    std::fs::write(test.path().join("linked/checks.toml"), config("linked")).expect("write");
    let evidence = passed(&run_in(&test, "linked/sub", &["--format", "json"]));
    assert_eq!(names(&evidence), ["linked"]);
    let linked = test.path().join("linked");
    assert_eq!(evidence["meta"]["worktree"], canonical(&linked).as_str());
    std::fs::remove_file(linked.join("checks.toml")).expect("remove");
    no_config(&run_in(&test, "linked/sub", &["--format", "json"]));
}

#[test]
fn worktree_and_config_win() {
    let test = Test::new()
        .config(&config("root"))
        .file("pkg/checks.toml", &config("pkg"))
        .file("sub/file.txt", "x\n");
    // --worktree: its checks.toml, whatever the current directory holds.
    let evidence = passed(&run_in(
        &test,
        "pkg",
        &["--worktree", "..", "--format", "json"],
    ));
    assert_eq!(names(&evidence), ["root"]);
    assert_eq!(
        evidence["meta"]["worktree"],
        canonical(test.path()).as_str()
    );
    // --config alone: the worktree stays the current directory.
    let evidence = passed(&run_in(
        &test,
        "sub",
        &["--config", "../pkg/checks.toml", "--format", "json"],
    ));
    assert_eq!(names(&evidence), ["pkg"]);
    assert_eq!(
        evidence["meta"]["worktree"],
        canonical(&test.path().join("sub")).as_str()
    );
    assert_eq!(evidence["meta"]["config"]["path"], "../pkg/checks.toml");
    config_resolves(&evidence, &test.path().join("pkg/checks.toml"));
}
