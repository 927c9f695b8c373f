//! `run-check hooks install` and the hook templates: where they go
//! (core.hooksPath), the marker, foreign hooks refused or backed up, and real
//! `git commit` / `git push` runs blocked by a failing gate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{Run, Test, bin, git, repo_root};

/// A checks.toml whose one check fails while `bad.txt` exists.
const GATE: &str = r#"version = 1
[settings]
allow = ["./gate.sh"]

[[check]]
name = "gate"
run = ["./gate.sh"]
modes = ["fast", "strict"]
"#;
const GATE_SH: &str = "#!/bin/sh\nif [ -e bad.txt ]; then echo 'bad.txt:1:1: error: bad file present' >&2; exit 1; fi\necho ok\n";

fn template(name: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("hooks").join(name)).expect("hook template")
}

/// The hook `hooks install` writes when the test binary installs it: the
/// template with the binary's absolute path recorded.
fn installed(name: &str) -> Vec<u8> {
    installed_for(name, &bin())
}

fn installed_for(name: &str, exe: &Path) -> Vec<u8> {
    let exe = exe.canonicalize().unwrap();
    String::from_utf8(template(name))
        .unwrap()
        .replace("@RUN_CHECK_BIN@", exe.to_str().unwrap())
        .replace("@RUN_CHECK_BASELINE@", "")
        .into_bytes()
}

fn install(test: Test, args: &[&str]) -> Run {
    test.args(&["hooks", "install"]).args(args).run()
}

/// git in `dir` with an identity, returning its output whatever the status.
fn git_output(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=run-check-test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env_remove("RUN_CHECK_BIN")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("git")
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

#[cfg(unix)]
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o111 == 0o111
}

#[cfg(not(unix))]
fn executable(_: &Path) -> bool {
    true
}

#[test]
fn installs_both_marked_executable_hooks() {
    let run = install(Test::new().config(GATE), &[]).success();
    let hooks = run.test.path().join(".git/hooks");
    for name in ["pre-commit", "pre-push"] {
        let path = hooks.join(name);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, installed(name), "{name} is the template");
        assert!(
            String::from_utf8_lossy(&bytes)
                .lines()
                .any(|l| l == "# run-check hook v3")
        );
        assert!(executable(&path), "{name} executable");
        assert!(
            run.stdout
                .contains(&format!("{name}: installed {}", path.display())),
            "{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.contains("--mode fast --format json --out"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("warning"), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "the hooks run {}",
            bin().canonicalize().unwrap().display()
        )),
        "{}",
        run.stdout
    );
    // Nothing in the worktree changed.
    assert_eq!(
        git(run.test.path(), &["status", "--porcelain"]),
        "?? checks.toml\n"
    );

    // Reinstalling is idempotent.
    let again = Command::new(bin())
        .args(["hooks", "install"])
        .current_dir(run.test.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(stdout.contains("pre-commit: up to date"), "{stdout}");
    assert!(stdout.contains("pre-push: up to date"), "{stdout}");
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).unwrap(),
        installed("pre-commit")
    );
}

#[test]
fn templates_are_posix_sh() {
    for name in ["pre-commit", "pre-push"] {
        let path = repo_root().join("hooks").join(name);
        let status = Command::new("sh").arg("-n").arg(&path).status().unwrap();
        assert!(status.success(), "sh -n {name}");
        assert!(executable(&path), "the template {name} is executable");
    }
}

#[test]
fn one_hook_can_be_chosen_and_a_missing_config_is_a_warning() {
    let run = install(Test::new(), &["pre-push"]).success();
    let hooks = run.test.path().join(".git/hooks");
    assert!(hooks.join("pre-push").is_file());
    assert!(!hooks.join("pre-commit").exists());
    assert!(
        run.stdout.contains("warning: no checks.toml in"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_foreign_hook_is_refused_then_backed_up_with_force() {
    let test = Test::new()
        .config(GATE)
        .script(".git/hooks/pre-commit", "#!/bin/sh\necho mine\n");
    let run = install(test, &[]).status(2);
    let hooks = run.test.path().join(".git/hooks");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "error: `{}` exists and was not installed by run-check; nothing changed (rerun with --force to move it to `<name>.run-check-backup` and install run-check's)\n",
            hooks.join("pre-commit").display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    assert!(
        !hooks.join("pre-push").exists(),
        "a refusal changes nothing"
    );

    let dir = run.test.path().to_path_buf();
    let forced = Command::new(bin())
        .args(["hooks", "install", "--force"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        forced.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.run-check-backup")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    assert!(executable(&hooks.join("pre-commit.run-check-backup")));
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).unwrap(),
        installed("pre-commit")
    );
    assert_eq!(
        std::fs::read(hooks.join("pre-push")).unwrap(),
        installed("pre-push")
    );
    let stdout = String::from_utf8_lossy(&forced.stdout);
    assert!(
        stdout.contains("pre-commit: moved the existing hook to"),
        "{stdout}"
    );

    // A second foreign hook never replaces the first backup.
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\necho second\n").unwrap();
    let forced = Command::new(bin())
        .args(["hooks", "install", "--force"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.run-check-backup")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.run-check-backup.1")).unwrap(),
        "#!/bin/sh\necho second\n"
    );
}

#[test]
fn an_older_hook_of_ours_is_replaced_without_force() {
    let test = Test::new().config(GATE).script(
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# run-check hook v0\nexit 0\n",
    );
    let run = install(test, &["pre-commit"]).success();
    let hooks = run.test.path().join(".git/hooks");
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).unwrap(),
        installed("pre-commit")
    );
    assert!(!hooks.join("pre-commit.run-check-backup").exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_hook_is_foreign() {
    let test = Test::new()
        .config(GATE)
        .script("mine.sh", "#!/bin/sh\n# run-check hook v1\n");
    std::os::unix::fs::symlink(
        test.path().join("mine.sh"),
        test.path().join(".git/hooks/pre-commit"),
    )
    .unwrap();
    let run = install(test, &[]).status(2);
    let hook = run.test.path().join(".git/hooks/pre-commit");
    assert!(hook.symlink_metadata().unwrap().file_type().is_symlink());
}

#[test]
fn core_hooks_path_is_respected() {
    let test = Test::new().config(GATE);
    git(test.path(), &["config", "core.hooksPath", ".githooks"]);
    let run = install(test, &[]).success();
    let dir = run.test.path();
    assert_eq!(
        std::fs::read(dir.join(".githooks/pre-commit")).unwrap(),
        installed("pre-commit")
    );
    assert!(dir.join(".githooks/pre-push").is_file());
    assert!(!dir.join(".git/hooks/pre-commit").exists());

    // An absolute hooksPath, from a subdirectory.
    let elsewhere = tempfile::tempdir().unwrap();
    let hooks = elsewhere.path().join("shared-hooks");
    git(dir, &["config", "core.hooksPath", hooks.to_str().unwrap()]);
    std::fs::create_dir(dir.join("sub")).unwrap();
    let output = Command::new(bin())
        .args(["hooks", "install", "--worktree", "sub"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(hooks.join("pre-commit").is_file());
    assert!(hooks.join("pre-push").is_file());
}

#[test]
fn outside_git_is_an_error() {
    let run = install(Test::bare(), &[]).status(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("error: `.` is not in a git worktree; hooks need one ("),
        "{}",
        run.stderr
    );
}

/// `--worktree` is read as `check` and `init` read it: a file, or a path
/// that does not exist, is a usage error naming it, before git is asked.
#[test]
fn a_worktree_that_is_not_a_directory_is_an_error() {
    let test = Test::new().file("notes.txt", "x\n");
    let dir = test.path().to_path_buf();
    let run = install(test, &["--worktree", "notes.txt"]).status(2);
    assert_eq!(
        run.stderr,
        "error: --worktree `notes.txt` is not a directory\n"
    );
    assert!(!dir.join(".git/hooks/pre-commit").exists());
    let run = install(Test::bare(), &["--worktree", "missing"]).status(2);
    assert!(
        run.stderr.starts_with("error: --worktree `missing`: "),
        "{}",
        run.stderr
    );
}

/// A repository with the gate committed and the pre-commit hook installed.
fn gated_repository() -> Run {
    let test = Test::new().config(GATE).script("gate.sh", GATE_SH);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    install(test, &["pre-commit"]).success()
}

fn evidence(dir: &Path, hook: &str) -> Value {
    let path = dir.join(".git/run-check").join(format!("{hook}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("hook evidence")).unwrap()
}

/// Commits `bad.txt` (refused), then without it (accepted), with `env` for git.
fn commit_is_gated(dir: &Path, env: &[(&str, &str)]) {
    std::fs::write(dir.join("bad.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let status_before = git(dir, &["status", "--porcelain"]);
    let before = head(dir);
    let refused = git_output(dir, &["commit", "-q", "-m", "bad"], env);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success(),
        "a failing fast check refuses the commit: {stderr}"
    );
    assert!(
        stderr.contains("pre-commit: run-check --mode fast exited 1; commit refused"),
        "{stderr}"
    );
    assert_eq!(head(dir), before);
    // The hook wrote nothing into the worktree or the index.
    assert_eq!(git(dir, &["status", "--porcelain"]), status_before);
    let failed = evidence(dir, "pre-commit");
    assert_eq!(failed["mode"], "fast");
    assert_eq!(failed["summary"]["exit_code"], 1);
    assert_eq!(failed["checks"][0]["status"], "fail");
    assert_eq!(failed["contracts"]["read_only"]["verified"], true);

    git(dir, &["rm", "-q", "--cached", "bad.txt"]);
    std::fs::remove_file(dir.join("bad.txt")).unwrap();
    std::fs::write(dir.join("good.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let accepted = git_output(dir, &["commit", "-q", "-m", "good"], env);
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    assert_ne!(head(dir), before);
    let passed = evidence(dir, "pre-commit");
    assert_eq!(passed["summary"]["all_checks_passed"], true);
    assert_eq!(
        passed["meta"]["changes"]["files"],
        serde_json::json!(["good.txt"])
    );
}

#[test]
fn pre_commit_finds_run_check_through_run_check_bin() {
    let run = gated_repository();
    commit_is_gated(
        run.test.path(),
        &[("RUN_CHECK_BIN", bin().to_str().unwrap())],
    );
}

/// The code under test cannot swap the gate: a worktree's own
/// `run-check.sh` that exits 0 (and a `run-check` on PATH that does) is
/// never what the hook runs; the binary that installed it is, found by the
/// path the hook recorded, with no RUN_CHECK_BIN and no run-check on PATH.
#[cfg(unix)]
#[test]
fn the_hook_runs_the_installing_binary_not_the_worktrees_wrapper() {
    let run = gated_repository();
    let dir = run.test.path();
    let forged = "#!/bin/sh\necho forged >> forged.log\nexit 0\n";
    std::fs::write(dir.join("run-check.sh"), forged).unwrap();
    make_executable(&dir.join("run-check.sh"));
    git(dir, &["add", "run-check.sh"]);
    git(dir, &["commit", "-q", "--no-verify", "-m", "wrapper"]);
    let fake_bin = tempfile::tempdir().unwrap();
    std::fs::write(fake_bin.path().join("run-check"), forged).unwrap();
    make_executable(&fake_bin.path().join("run-check"));
    let path = format!("{}:/usr/bin:/bin", fake_bin.path().display());
    let before = head(dir);
    std::fs::write(dir.join("bad.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let refused = git_output(dir, &["commit", "-q", "-m", "bad"], &[("PATH", &path)]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("pre-commit: run-check --mode fast exited 1; commit refused"),
        "{stderr}"
    );
    assert_eq!(head(dir), before);
    assert!(!dir.join("forged.log").exists(), "the forged gate ran");
    let failed = evidence(dir, "pre-commit");
    assert_eq!(failed["summary"]["exit_code"], 1);
    assert_eq!(failed["checks"][0]["name"], "gate");
    assert_eq!(failed["checks"][0]["status"], "fail");
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A path with a quote is recorded as one shell word; once the installing
/// binary is gone, the hook falls back to run-check on PATH, and without
/// one refuses the commit with the way to mend it.
#[cfg(unix)]
#[test]
fn a_moved_binary_falls_back_to_path_then_refuses() {
    let run = gated_repository();
    let dir = run.test.path();
    let elsewhere = tempfile::tempdir().unwrap();
    let odd = elsewhere.path().join("it's here");
    std::fs::create_dir(&odd).unwrap();
    let copy = odd.join("run-check");
    std::fs::copy(bin(), &copy).unwrap();
    make_executable(&copy);
    let output = Command::new(&copy)
        .args(["hooks", "install", "pre-commit"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let hook = dir.join(".git/hooks/pre-commit");
    assert_eq!(
        std::fs::read(&hook).unwrap(),
        String::from_utf8(installed_for("pre-commit", &copy))
            .unwrap()
            .replace("it's", "it'\\''s")
            .into_bytes()
    );
    // The recorded copy runs (no RUN_CHECK_BIN, nothing on PATH).
    commit_is_gated(dir, &[("PATH", "/usr/bin:/bin")]);

    std::fs::remove_file(&copy).unwrap();
    let bin_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(bin(), bin_dir.path().join("run-check")).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::fs::write(dir.join("more.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let on_path = git_output(dir, &["commit", "-q", "-m", "more"], &[("PATH", &path)]);
    assert!(
        on_path.status.success(),
        "{}",
        String::from_utf8_lossy(&on_path.stderr)
    );
    assert_eq!(
        evidence(dir, "pre-commit")["summary"]["all_checks_passed"],
        true
    );

    // Without any run-check the commit is refused, not waved through.
    std::fs::write(dir.join("last.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let refused = git_output(
        dir,
        &["commit", "-q", "-m", "last"],
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!(
            "pre-commit: run-check not found ({} is gone, no RUN_CHECK_BIN, no run-check on PATH); commit refused (run `run-check hooks install` again",
            copy.canonicalize().unwrap_or(copy.clone()).display()
        )),
        "{stderr}"
    );
}

#[test]
fn the_first_commit_is_gated_like_any_other() {
    let test = Test::bare()
        .config(GATE)
        .script("gate.sh", GATE_SH)
        .file("bad.txt", "x");
    git(test.path(), &["init", "-q", "-b", "main"]);
    let run = install(test, &["pre-commit"]).success();
    let dir = run.test.path();
    git(dir, &["add", "-A"]);
    let binary = bin();
    let env = [("RUN_CHECK_BIN", binary.to_str().unwrap())];
    // No HEAD yet: every file is a change, so the gate runs and refuses.
    let refused = git_output(dir, &["commit", "-q", "-m", "root"], &env);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("commit refused"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    git(dir, &["rm", "-q", "-f", "bad.txt"]);
    let output = git_output(dir, &["commit", "-q", "-m", "root"], &env);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn pre_push_runs_the_strict_gate() {
    let remote = tempfile::tempdir().unwrap();
    let remote_path: PathBuf = remote.path().join("remote.git");
    let status = Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&remote_path)
        .status()
        .unwrap();
    assert!(status.success());
    let strict_only = GATE.replace("modes = [\"fast\", \"strict\"]", "modes = [\"strict\"]");
    let test = Test::new()
        .config(&strict_only)
        .script("gate.sh", GATE_SH)
        .file("bad.txt", "x");
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "work"]);
    git(
        test.path(),
        &["remote", "add", "origin", remote_path.to_str().unwrap()],
    );
    let run = install(test, &[]).success();
    let dir = run.test.path();
    let bin = bin();
    let env = [("RUN_CHECK_BIN", bin.to_str().unwrap())];

    let refused = git_output(dir, &["push", "-q", "origin", "main"], &env);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("pre-push: run-check --mode strict exited 1; push refused"),
        "{stderr}"
    );
    let failed = evidence(dir, "pre-push");
    assert_eq!(failed["mode"], "strict");
    assert_eq!(failed["summary"]["exit_code"], 1);

    git(dir, &["rm", "-q", "-f", "bad.txt"]);
    git(dir, &["commit", "-q", "--no-verify", "-m", "fix"]);
    let pushed = git_output(dir, &["push", "-q", "origin", "main"], &env);
    assert!(
        pushed.status.success(),
        "{}",
        String::from_utf8_lossy(&pushed.stderr)
    );
    assert_eq!(
        evidence(dir, "pre-push")["summary"]["banner"],
        "All checks passed!"
    );
}

/// A gate whose check prints compiler-style diagnostics, read by the `gcc`
/// parser, among other output, and fails.
const DIAGNOSED_GATE: &str = r#"version = 1
[settings]
allow = ["./compile.sh"]

[[check]]
name = "compile"
run = ["./compile.sh"]
parser = "gcc"
modes = ["fast", "strict"]

[[check]]
name = "fine"
run = ["./compile.sh", "ok"]
modes = ["fast", "strict"]
"#;
const COMPILE_SH: &str = "#!/bin/sh
if [ \"$1\" = ok ]; then exit 0; fi
echo 'make: building src/main.c'
echo \"src/main.c: In function 'main':\" >&2
echo \"src/main.c:7:12: error: 'count' undeclared (first use in this function)\" >&2
echo \"src/util.c:3:5: warning: unused variable 'tmp' [-Wunused-variable]\" >&2
exit 1
";

/// A refused commit shows each failed check's diagnostics as the `text`
/// report lists them (file:line:column, severity, rule, message), under the
/// failed check, with the refusal as the last line.
#[test]
fn a_refused_commit_shows_the_failed_checks_diagnostics() {
    let test = Test::new()
        .config(DIAGNOSED_GATE)
        .script("compile.sh", COMPILE_SH);
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    let run = install(test, &["pre-commit"]).success();
    let dir = run.test.path();
    // A stale evidence of an earlier run is never shown.
    std::fs::write(dir.join("new.txt"), "x").unwrap();
    git(dir, &["add", "-A"]);
    let refused = git_output(
        dir,
        &["commit", "-q", "-m", "x"],
        &[
            ("RUN_CHECK_BIN", bin().to_str().unwrap()),
            ("NO_COLOR", "1"),
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    // The run's progress lines come first, then the report.
    let report = lines
        .iter()
        .position(|l| l.starts_with("run-check fast · 2 checks · "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let at = report
        + lines[report..]
            .iter()
            .position(|l| l.starts_with(" FAIL compile "))
            .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        lines[at + 1..at + 3],
        [
            "      src/main.c:7:12: error: 'count' undeclared (first use in this function)",
            "      src/util.c:3:5: warning[-Wunused-variable]: unused variable 'tmp'",
        ],
        "{stderr}"
    );
    let evidence_path = dir.join(".git/run-check/pre-commit.json");
    assert_eq!(
        lines.last().copied(),
        Some(
            format!(
                "pre-commit: run-check --mode fast exited 1; commit refused. Evidence: {} (skip once with --no-verify)",
                evidence_path.display()
            )
            .as_str()
        ),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "{stderr}");

    // A run that writes no evidence (a config that cannot be read) shows no
    // report, not the previous run's.
    std::fs::write(dir.join("checks.toml"), "version = [").unwrap();
    let broken = git_output(
        dir,
        &["commit", "-q", "-m", "x"],
        &[("RUN_CHECK_BIN", bin().to_str().unwrap())],
    );
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert_eq!(broken.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("exited 2; commit refused"), "{stderr}");
    assert!(!stderr.contains("compile"), "{stderr}");
    assert!(!evidence_path.exists());
}

/// A gate adopted on old findings: `lint` reports `legacy.c`'s error
/// always, and `fresh.c`'s once that file exists.
const LEGACY_GATE: &str = r#"version = 1
[settings]
allow = ["./lint.sh"]

[[check]]
name = "lint"
run = ["./lint.sh"]
parser = "gcc"
modes = ["fast", "strict"]
"#;
const LINT_SH: &str = "#!/bin/sh
echo 'legacy.c:4:1: error: implicit declaration of function old_api' >&2
if [ -e fresh.c ]; then echo 'fresh.c:2:5: error: new_api undeclared' >&2; fi
exit 1
";

/// `hooks install --baseline EV.json`: the hook passes the earlier
/// evidence to `--baseline`, so a repository adopting the gate on old
/// findings can commit; a new finding is still refused, and the hook's
/// report names only it. The path is recorded relative to the top level
/// (the repository can move); a file that is not evidence is refused at
/// install time, naming it, and installs nothing.
#[test]
fn a_baseline_lets_old_findings_commit_and_refuses_new_ones() {
    let test = Test::new()
        .config(LEGACY_GATE)
        .script("lint.sh", LINT_SH)
        .file("legacy.c", "int main(void) { return old_api(); }\n");
    let dir = test.path().to_path_buf();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "legacy"]);
    let env = [
        ("RUN_CHECK_BIN", bin().to_str().unwrap().to_string()),
        ("NO_COLOR", "1".to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    // Without a baseline, the old finding refuses any commit.
    let test = install(test, &["pre-commit"]).success().test.again();
    std::fs::write(dir.join("notes.c"), "/* notes */\n").unwrap();
    git(&dir, &["add", "-A"]);
    let refused = git_output(&dir, &["commit", "-q", "-m", "notes"], &env);
    assert_eq!(refused.status.code(), Some(1));

    // The baseline: the gate's evidence today, kept in the repository.
    let test = test
        .args(&["--format", "json", "--out", "gate-baseline.json"])
        .run()
        .status(1)
        .test
        .again();
    std::fs::create_dir(dir.join("sub")).unwrap();
    let broken = Command::new(bin())
        .args(["hooks", "install", "--baseline", "../checks.toml"])
        .current_dir(dir.join("sub"))
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(2), "{broken:?}");
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("checks.toml"), "{stderr}");
    // Nothing changed: the hook has no baseline.
    let hook = std::fs::read_to_string(dir.join(".git/hooks/pre-commit")).unwrap();
    assert!(hook.contains("\nbaseline=''\n"), "{hook}");

    // From a subdirectory, the path is the user's, recorded from the top.
    let installed = Command::new(bin())
        .args([
            "hooks",
            "install",
            "pre-commit",
            "--baseline",
            "../gate-baseline.json",
        ])
        .current_dir(dir.join("sub"))
        .output()
        .unwrap();
    assert_eq!(installed.status.code(), Some(0), "{installed:?}");
    let stdout = String::from_utf8_lossy(&installed.stdout);
    assert!(
        stdout.contains(
            "the hooks pass --baseline gate-baseline.json: only diagnostics it does not have fail"
        ),
        "{stdout}"
    );
    let hook = std::fs::read_to_string(dir.join(".git/hooks/pre-commit")).unwrap();
    assert!(hook.contains("\nbaseline='gate-baseline.json'\n"), "{hook}");

    // Old findings only: the commit goes through.
    let accepted = git_output(&dir, &["commit", "-q", "-m", "notes"], &env);
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    let passed = evidence(&dir, "pre-commit");
    assert_eq!(passed["summary"]["exit_code"], 0, "{passed}");
    assert_eq!(
        passed["summary"]["baseline"],
        dir.canonicalize()
            .unwrap()
            .join("gate-baseline.json")
            .to_str()
            .unwrap()
    );

    // A new finding is refused, and the report names it, not the old one.
    std::fs::write(dir.join("fresh.c"), "int f(void) { return new_api; }\n").unwrap();
    git(&dir, &["add", "-A"]);
    let refused = git_output(&dir, &["commit", "-q", "-m", "fresh"], &env);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("      fresh.c:2:5: error: new_api undeclared"),
        "{stderr}"
    );
    assert!(!stderr.contains("legacy.c:4:1"), "{stderr}");
    drop(test);
}

/// The hook prints the text report, so a failure no located error
/// explains (a real gcc's warnings, then a failing test step of the same
/// `make check`) shows the output's last lines, where the cause is.
#[test]
fn a_refused_commit_shows_the_last_lines_when_no_error_explains_it() {
    let mut test = Test::new();
    for (path, text) in crate::report::WARNED_MAKE {
        test = test.file(path, text);
    }
    let dir = test.path().to_path_buf();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "lib", "--no-verify"]);
    let _test = install(test, &["pre-commit"]).success();
    std::fs::write(dir.join("README"), "sum\n").unwrap();
    git(&dir, &["add", "-A"]);
    let refused = git_output(
        &dir,
        &["commit", "-q", "-m", "readme"],
        &[
            ("RUN_CHECK_BIN", bin().to_str().unwrap()),
            ("NO_COLOR", "1"),
            ("LC_ALL", "C"),
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let ends = stderr
        .find("      no error above explains the exit; the output ends:\n")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        stderr[..ends].contains("warning[-Wunused-variable]"),
        "{stderr}"
    );
    assert!(
        stderr[ends..].contains("      │ not ok 21 - sum(1, 2): expected 3, got 4\n"),
        "{stderr}"
    );
}
