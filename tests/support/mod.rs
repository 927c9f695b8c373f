//! The `Test` builder: a temp git worktree with a checks.toml and fixture
//! files, the real `run-check` binary run in it, and typed access to what it
//! produced (exit code, stdout, stderr, evidence JSON).

#![allow(
    dead_code,
    reason = "each test module uses a different part of the builder"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// The Remote Execution cluster of tests/remote.rs.
pub(crate) mod cluster;

/// A checks.toml with one passing check (`ok`) and one failing (`bad`).
pub(crate) const FAILING: &str = r#"[settings]
allow = ["true", "false"]

[[check]]
name = "ok"
run = ["true"]

[[check]]
name = "bad"
run = ["false"]
"#;

/// The binary under test.
pub(crate) fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_run-check"))
}

/// The state folder (`XDG_STATE_HOME`) the agent hook is given for the
/// repository at `repo`, where it keeps its sessions' records keyed by
/// session id: one per repository, because tests reuse session ids, and
/// removed with it. (A real one is outside every repository.)
pub(crate) fn state_home(repo: &Path) -> PathBuf {
    repo.join(".git").join("test-state-home")
}

/// The repository root (for the wrappers and scripts).
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A test worktree and the command to run in it.
#[must_use]
pub(crate) struct Test {
    dir: TempDir,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Test {
    /// A fresh git repository with one empty commit on `main`.
    pub(crate) fn new() -> Test {
        let test = Test::bare();
        git(test.path(), &["init", "-q", "-b", "main"]);
        git(
            test.path(),
            &["commit", "-q", "--allow-empty", "-m", "init"],
        );
        test
    }

    /// A plain temp directory (not a git repository).
    pub(crate) fn bare() -> Test {
        Test {
            dir: tempfile::Builder::new()
                .prefix("run-check-test-")
                .tempdir()
                .expect("tempdir"),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// The worktree.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes checks.toml.
    pub(crate) fn config(self, text: &str) -> Test {
        self.file("checks.toml", text)
    }

    /// Writes a file (creating directories).
    pub(crate) fn file(self, path: &str, contents: &str) -> Test {
        let full = self.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("create dirs");
        }
        std::fs::write(&full, contents).expect("write file");
        self
    }

    /// Writes an executable script.
    pub(crate) fn script(self, path: &str, contents: &str) -> Test {
        let test = self.file(path, contents);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let full = test.path().join(path);
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        test
    }

    /// Appends arguments.
    pub(crate) fn args(mut self, args: &[&str]) -> Test {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// The same worktree with no arguments, to run again.
    pub(crate) fn again(mut self) -> Test {
        self.args.clear();
        self
    }

    /// Sets an environment variable for run-check.
    pub(crate) fn env(mut self, name: &str, value: &str) -> Test {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Forgets the last `n` environment variables set with [`Test::env`].
    pub(crate) fn drop_env(mut self, n: usize) -> Test {
        let keep = self.env.len().saturating_sub(n);
        self.env.truncate(keep);
        self
    }

    /// The command, ready to spawn in the worktree.
    pub(crate) fn command(&self) -> Command {
        let mut command = Command::new(bin());
        command
            .args(&self.args)
            .current_dir(self.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    /// Runs run-check to completion.
    pub(crate) fn run(self) -> Run {
        let started = Instant::now();
        let output = self.command().output().expect("spawn run-check");
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            elapsed: started.elapsed(),
            test: self,
        }
    }
}

/// What one run of run-check produced.
#[must_use]
pub(crate) struct Run {
    /// Exit code (None when killed by a signal).
    pub(crate) code: Option<i32>,
    /// Captured stdout.
    pub(crate) stdout: String,
    /// Captured stderr.
    pub(crate) stderr: String,
    /// Wall time.
    pub(crate) elapsed: Duration,
    /// The worktree, kept alive.
    pub(crate) test: Test,
}

impl Run {
    /// Asserts the exit code and returns self.
    #[track_caller]
    pub(crate) fn status(self, code: i32) -> Run {
        assert_eq!(
            self.code,
            Some(code),
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts exit 0.
    #[track_caller]
    pub(crate) fn success(self) -> Run {
        self.status(0)
    }

    /// Parses a JSON file of the worktree.
    #[track_caller]
    pub(crate) fn json_file(&self, path: &str) -> Value {
        let text = std::fs::read_to_string(self.test.path().join(path))
            .unwrap_or_else(|e| panic!("read {path}: {e}\n--- stderr\n{}", self.stderr));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
    }

    /// Parses stdout as JSON.
    #[track_caller]
    pub(crate) fn json_stdout(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", self.stdout))
    }

    /// The stderr lines that are not progress lines.
    pub(crate) fn stderr_lines(&self) -> Vec<&str> {
        self.stderr.lines().collect()
    }
}

/// The diagnostics of check `name` in an evidence document, in order.
#[track_caller]
pub(crate) fn diagnostics_of<'a>(evidence: &'a Value, name: &str) -> Vec<&'a Value> {
    evidence["diagnostics"]
        .as_array()
        .expect("diagnostics array")
        .iter()
        .filter(|d| d["check"] == name)
        .collect()
}

/// The status of check `name` in an evidence document.
#[track_caller]
pub(crate) fn status<'a>(evidence: &'a Value, name: &str) -> &'a str {
    check(evidence, name)["status"]
        .as_str()
        .expect("status string")
}

/// `evidence` as the first version of the document had it: without every
/// field added since (docs/evidence.md, "Older evidence"), which readers
/// must read with their defaults.
pub(crate) fn first_version(evidence: &mut Value) {
    for key in ["changes", "shard", "merged_from"] {
        evidence["meta"].as_object_mut().unwrap().remove(key);
    }
    evidence["summary"]
        .as_object_mut()
        .unwrap()
        .remove("baseline");
    evidence["contracts"]
        .as_object_mut()
        .unwrap()
        .remove("gate");
    evidence["contracts"]["read_only"]
        .as_object_mut()
        .unwrap()
        .remove("error");
    for check in evidence["checks"].as_array_mut().unwrap() {
        for key in [
            "severity",
            "diagnostics_dropped",
            "leaked",
            "config_line",
            "started_ms",
            "flaky",
            "attempts",
            "attempt_log",
            "baseline_suppressed",
            "cache",
        ] {
            check.as_object_mut().unwrap().remove(key);
        }
    }
    for diagnostic in evidence["diagnostics"].as_array_mut().unwrap() {
        diagnostic.as_object_mut().unwrap().remove("new");
    }
}

/// The entry of check `name` in an evidence document.
#[track_caller]
pub(crate) fn check<'a>(evidence: &'a Value, name: &str) -> &'a Value {
    evidence["checks"]
        .as_array()
        .expect("checks array")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check `{name}` in evidence"))
}

/// Runs git in `dir` with a fixed identity; panics on failure.
#[track_caller]
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=run-check-test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Asserts that no process whose command line contains `marker` is left.
/// A process run-check killed with SIGKILL is doomed but dies only when the
/// kernel next schedules it, so a loaded machine gets a few seconds (a
/// correctness check, not a timing target).
#[track_caller]
pub(crate) fn assert_no_leftovers(marker: &str) {
    wait_until(Duration::from_secs(10), || {
        live_processes(marker).is_empty()
    });
    let left = live_processes(marker);
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Live (non-zombie) processes whose command line contains `marker` (Linux
/// /proc; elsewhere `ps`).
pub(crate) fn live_processes(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !cmdline.contains(marker) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The state follows the parenthesised command name.
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next());
        if state != Some("Z") {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
pub(crate) fn wait_until(timeout: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` and returns its exit status with the peak resident set
/// size (KiB) of the child's own program, read from `VmHWM` in
/// /proc/PID/status while it runs (polled every 5 ms; the high-water mark only
/// grows, so the last reading before exit is the peak). `wait4`'s `ru_maxrss`
/// is not used: on Linux it also counts what the forking test process had
/// resident at the fork, which says nothing about run-check.
#[cfg(target_os = "linux")]
pub(crate) fn wait_with_peak_rss(
    child: &mut std::process::Child,
) -> (std::process::ExitStatus, u64) {
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_path) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            if let Some(hwm) = hwm {
                peak = peak.max(hwm);
            }
        }
        if let Some(status) = child.try_wait().expect("wait") {
            return (status, peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The JSON Schema `run-check schema NAME` prints (each asked once per test
/// process).
pub(crate) fn schema(name: &str) -> serde_json::Value {
    static PRINTED: std::sync::Mutex<Vec<(String, serde_json::Value)>> =
        std::sync::Mutex::new(Vec::new());
    let mut printed = PRINTED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, schema)) = printed.iter().find(|(n, _)| n == name) {
        return schema.clone();
    }
    let output = std::process::Command::new(bin())
        .args(["schema", name])
        .output()
        .expect("run-check runs");
    assert_eq!(output.status.code(), Some(0), "run-check schema {name}");
    let schema: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("a schema is JSON");
    printed.push((name.to_string(), schema.clone()));
    schema
}

/// The environment variable a developer sets to `1` to skip, rather than
/// fail, the tests whose tool is missing (docs/development.md): without
/// it a missing tool fails its test, so that "passed" means it ran.
pub(crate) const SKIP_MISSING: &str = "RUN_CHECK_TEST_SKIP_MISSING_TOOLS";

/// A test's tool is missing (`why` names it and how to install it): the
/// test fails, unless [`SKIP_MISSING`] is `1`, when it says it is skipped
/// and the caller returns without asserting anything.
#[track_caller]
pub(crate) fn missing(why: &str) {
    if std::env::var(SKIP_MISSING).as_deref() != Ok("1") {
        panic!(
            "{why}; `bash scripts/install-test-tools.sh` installs the test tools \
             (or set {SKIP_MISSING}=1 to skip the tests that need them)"
        );
    }
    eprintln!("SKIPPED (not a pass, {SKIP_MISSING}=1): {why}");
}

/// `program` is a file in a folder of PATH; when it is not,
/// [`missing`] says so (and fails the test unless skipping is asked for).
pub(crate) fn on_path(program: &str) -> bool {
    let search = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&search).any(|dir| dir.join(program).is_file());
    if !found {
        missing(&format!("{program} is not on PATH"));
    }
    found
}

/// A test tool installed by `scripts/install-test-tools.sh` under `.tools/`
/// of the repository; missing: [`missing`].
pub(crate) fn test_tool(relative: &str) -> Option<std::path::PathBuf> {
    let path = crate::support::repo_root().join(".tools").join(relative);
    if path.exists() {
        return Some(path);
    }
    missing(&format!("{} is not installed", path.display()));
    None
}
