//! Python virtualenvs, for real: a venv's `bin/python` is a symlink to the
//! base interpreter, outside the worktree, and Python finds the venv (its
//! `pyvenv.cfg`, so its site-packages) only when it is run by the link's own
//! path. run-check runs a listed link by its path, as a shell would
//! (docs/checks-toml.md), and records the real interpreter as `program`.
//! Three placements: a venv inside the worktree (`.venv/bin/python`), one
//! outside it (an absolute path) and one found through PATH (`python`). Each
//! passes on a green suite and fails on a red one with the failing test
//! located. A link to a shell is still refused.
//!
//! pytest comes from the repository's test tools (scripts/install-test-tools.sh):
//! `.tools/python` is a venv pytest was installed into by pip, and
//! `.tools/wheels` holds the wheels a venv made here installs it from.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Test, check, diagnostics_of, git, test_tool};

/// A green suite: one test that passes.
const GREEN: &str = "def test_adds():\n    assert 1 + 1 == 2\n";
/// The same suite turned red: the assertion on line 2 fails.
const RED: &str = "def test_adds():\n    assert 1 + 1 == 3\n";

/// A checks.toml with one `pytest` check run by `python` (listed as is).
fn config(python: &str) -> String {
    format!(
        r#"[settings]
allow = ["{python}"]

[[check]]
name = "pytest"
run = ["{python}", "-m", "pytest", "-p", "no:cacheprovider", "tests"]
parser = "pytest"
"#
    )
}

/// A worktree with `config` and the green suite, committed; what Python
/// and a venv leave (bytecode, `.venv/`) is ignored, as in a real project.
fn project(config: &str) -> Test {
    let test = Test::new()
        .config(config)
        .file(".gitignore", ".venv/\n__pycache__/\n")
        .file("tests/test_math.py", GREEN);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-qm", "suite"]);
    test
}

/// Runs `program args`; panics with its output when it fails.
#[track_caller]
fn run_ok(program: &Path, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        output.status.success(),
        "{} {args:?}\n{}{}",
        program.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The test tools' venv (pytest installed), or `None` when
/// scripts/install-test-tools.sh has not run and skipping is asked for.
fn tools_venv() -> Option<PathBuf> {
    test_tool("python")
}

/// Makes a venv at `dir` with `python -m venv` and installs pytest into it
/// with pip, from the test tools' wheels (offline).
fn make_venv(dir: &Path) -> Option<()> {
    let python = tools_venv()?.join("bin/python");
    let wheels = test_tool("wheels")?;
    let dir = dir.to_str().unwrap();
    run_ok(&python, &["-m", "venv", "--without-pip", dir]);
    run_ok(
        &python,
        &[
            "-m",
            "pip",
            "--python",
            &format!("{dir}/bin/python"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--no-index",
            "--find-links",
            wheels.to_str().unwrap(),
            "pytest",
        ],
    );
    Some(())
}

/// The precondition of every placement: the venv's `python` is a symlink
/// whose real file lies outside the venv (the base interpreter). Returns
/// that real file, which the evidence records.
#[track_caller]
fn base_interpreter(venv: &Path) -> PathBuf {
    let python = venv.join("bin/python");
    let meta = std::fs::symlink_metadata(&python).unwrap();
    assert!(meta.file_type().is_symlink(), "{}", python.display());
    let real = dunce::canonicalize(&python).unwrap();
    assert!(
        !real.starts_with(dunce::canonicalize(venv).unwrap()),
        "{}",
        real.display()
    );
    real
}

/// Runs the gate green, then red, and asserts each: pass with the real
/// interpreter recorded, then a fail located at the failing assertion.
#[track_caller]
fn green_then_red(test: Test, real: &Path, env: &[(&str, &str)]) {
    let mut green = test.args(&["--format", "json"]);
    for (name, value) in env {
        green = green.env(name, value);
    }
    let run = green.run();
    let ev = run.json_stdout();
    let pytest = check(&ev, "pytest");
    assert_eq!(run.code, Some(0), "{}\n{pytest:#}", run.stderr);
    assert_eq!(pytest["status"], "pass");
    assert_eq!(pytest["program"], real.to_str().unwrap());
    let stdout = pytest["stdout_excerpt"].as_str().unwrap();
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert_eq!(ev["contracts"]["read_only"]["modified"], json!([]));

    std::fs::write(run.test.path().join("tests/test_math.py"), RED).unwrap();
    let run = run.test.run().status(1);
    let ev = run.json_stdout();
    let pytest = check(&ev, "pytest");
    assert_eq!(pytest["status"], "fail");
    assert_eq!(pytest["exit_code"], 1);
    assert_eq!(pytest["program"], real.to_str().unwrap());
    let found: Vec<Value> = diagnostics_of(&ev, "pytest")
        .into_iter()
        .map(|d| json!([d["file"], d["line"], d["rule"], d["severity"], d["message"]]))
        .collect();
    assert_eq!(
        found,
        [json!([
            "tests/test_math.py",
            2,
            "tests/test_math.py::test_adds",
            "error",
            "assert (1 + 1) == 3"
        ])]
    );
}

/// `.venv/bin/python -m pytest` with the venv inside the worktree (before:
/// a config error, and listing the target ran the base interpreter, which
/// has no pytest).
#[test]
fn a_venv_inside_the_worktree_runs_pytest_in_its_environment() {
    let test = project(&config(".venv/bin/python"));
    if make_venv(&test.path().join(".venv")).is_none() {
        return;
    }
    let real = base_interpreter(&test.path().join(".venv"));
    green_then_red(test, &real, &[]);
}

/// `/abs/venv/bin/python -m pytest` with the venv outside the worktree
/// (before: the base interpreter ran, silently, and failed with `No module
/// named pytest`).
#[test]
fn a_venv_outside_the_worktree_runs_pytest_by_its_absolute_path() {
    let Some(venv) = tools_venv() else {
        return;
    };
    let python = venv.join("bin/python");
    let real = base_interpreter(&venv);
    let test = project(&config(python.to_str().unwrap()));
    green_then_red(test, &real, &[]);
}

/// `python -m pytest` with the venv's `bin` first on run-check's PATH (a
/// check's `env` cannot set PATH without `allow_env`; an activated venv
/// sets it for the whole shell): runs by the PATH entry, not its target.
#[test]
fn a_venv_first_on_path_runs_pytest_by_the_path_entry() {
    let Some(venv) = tools_venv() else {
        return;
    };
    let real = base_interpreter(&venv);
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let test = project(&config("python"));
    green_then_red(test, &real, &[("PATH", &path)]);
}

/// The attacker's side: a listed `./tools/py` that is a symlink to the
/// system's shell (not listed) is still a config error, whatever it is
/// called, and nothing runs.
#[test]
fn a_listed_link_to_an_unlisted_shell_is_still_a_config_error() {
    let test = Test::new().config(
        r#"[settings]
allow = ["touch", "./tools/py"]

[[check]]
name = "marker"
run = ["touch", "ran-marker"]

[[check]]
name = "py"
run = ["./tools/py", "-c", "touch pwned"]
"#,
    );
    std::fs::create_dir(test.path().join("tools")).unwrap();
    std::os::unix::fs::symlink("/bin/sh", test.path().join("tools/py")).unwrap();
    let sh = dunce::canonicalize("/bin/sh").unwrap();
    let run = test.run().status(2);
    assert_eq!(
        run.stderr_lines(),
        [format!(
            "error: checks.toml:9:1: `run` of check `py`: program `./tools/py` is a symlink to \
             the shell `{}`, which `settings.allow` does not list (a shell runs only when it is \
             itself listed)",
            sh.display()
        )]
    );
    assert_eq!(run.stdout, "");
    assert!(!run.test.path().join("ran-marker").exists(), "a check ran");
    assert!(!run.test.path().join("pwned").exists(), "the shell ran");
}
