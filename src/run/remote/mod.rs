//! A run's remote checks (docs/remote.md), before and after the runner:
//! `begin` picks the `remote = true` checks to send, writes each one's
//! request for `run-check-remote` in a temp folder of the run (outside the
//! worktree), with the input root as the run's `git status` listed it;
//! with `--remote=auto` it asks the cluster once whether it answers, and
//! runs the checks here when it does not. `outcome` reads what the client
//! reported after the check's process ended.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use globset::GlobSetBuilder;

use crate::remote::Assigned;
use crate::remote::protocol::Request;
use crate::run::cache::key::Facts;
use crate::run::plan::{Plan, PlannedCheck};

/// The client's program name.
pub(crate) const CLIENT: &str = "run-check-remote";

/// `--remote` / `--no-remote` / `--remote=auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `--no-remote`: every check runs here.
    Off,
    /// The default, and `--remote`: `remote = true` checks run on the
    /// cluster; one it cannot run is an error.
    On,
    /// `--remote=auto`: as `On`, but a cluster that does not answer at the
    /// run's start makes them run here, recorded in each.
    Auto,
}

impl Mode {
    /// From the command line's flags.
    pub(crate) fn of(remote: Option<&str>, no_remote: bool) -> Mode {
        match (remote, no_remote) {
            (_, true) => Mode::Off,
            (Some("auto"), _) => Mode::Auto,
            _ => Mode::On,
        }
    }
}

/// The run's temp folder of requests and reports, removed when dropped.
pub(crate) struct Session {
    _dir: Option<tempfile::TempDir>,
}

/// Assigns the selected `remote = true` checks (not skipped, not a cache
/// hit) to the cluster.
pub(crate) fn begin(facts: &Facts<'_>, plan: &mut Plan<'_>, mode: Mode) -> Session {
    let off = Session { _dir: None };
    let Some(settings) = facts.config.remote.as_ref() else {
        return off;
    };
    let wanted: Vec<usize> = (plan.checks.iter().enumerate())
        .filter(|(_, c)| c.config.remote && c.skip.is_none() && c.hit.is_none())
        .map(|(i, _)| i)
        .collect();
    if mode == Mode::Off || wanted.is_empty() {
        return off;
    }
    let dir = match tempfile::Builder::new()
        .prefix("run-check-remote-")
        .tempdir()
    {
        Ok(dir) => dir,
        Err(err) => {
            fail_all(
                plan,
                &wanted,
                settings,
                &format!("cannot make a temp folder: {err}"),
            );
            return off;
        }
    };
    let prepared = client().and_then(|client| {
        let files = crate::run::cache::key::listed(facts)?;
        Ok((client, files))
    });
    let (client, files) = match prepared {
        Ok(prepared) => prepared,
        Err(why) => {
            fail_all(plan, &wanted, settings, &why);
            return Session { _dir: Some(dir) };
        }
    };
    let fallback = if mode == Mode::Auto {
        probe(&client, dir.path(), facts, settings)
    } else {
        None
    };
    if let Some(why) = &fallback {
        eprintln!("run-check: remote: {why}; --remote=auto runs the remote checks here");
    }
    for i in wanted {
        let check = &mut plan.checks[i];
        let request = request_of(facts, settings, check, &files);
        let paths = (
            dir.path().join(format!("{i}.request.json")),
            dir.path().join(format!("{i}.report.json")),
        );
        let written = serde_json::to_vec(&request)
            .map_err(|err| err.to_string())
            .and_then(|bytes| std::fs::write(&paths.0, bytes).map_err(|err| err.to_string()));
        let mut assigned = Assigned {
            client: client.clone(),
            request: paths.0,
            report: paths.1,
            endpoint: settings.endpoint.clone(),
            instance: settings.instance.clone(),
            fallback: fallback.clone(),
        };
        if let Err(why) = written {
            assigned.client = PathBuf::new();
            check.program = Err(format!("cannot write the remote request: {why}"));
        }
        if fallback.is_none() && check.program.is_err() {
            // The program runs on the worker: it need not exist here.
            check.program = Ok(PathBuf::from(&check.argv()[0]));
        }
        check.remote = Some(assigned);
    }
    Session { _dir: Some(dir) }
}

/// Every wanted check errors with `why` (no client, no file list).
fn fail_all(
    plan: &mut Plan<'_>,
    wanted: &[usize],
    settings: &crate::config::RemoteSettings,
    why: &str,
) {
    for &i in wanted {
        plan.checks[i].program = Err(format!("remote: {why}"));
        plan.checks[i].remote = Some(Assigned {
            client: PathBuf::new(),
            request: PathBuf::new(),
            report: PathBuf::new(),
            endpoint: settings.endpoint.clone(),
            instance: settings.instance.clone(),
            fallback: None,
        });
    }
}

/// `run-check-remote` in the folder of the running executable (never one
/// found on PATH).
fn client() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|err| format!("cannot find run-check's own path: {err}"))?;
    let path = exe
        .with_file_name(CLIENT)
        .with_extension(std::env::consts::EXE_EXTENSION);
    if path.is_file() {
        return Ok(path);
    }
    Err(format!(
        "{} is not installed beside {}: install both from the same package \
         (a build with `--no-default-features` has no remote client)",
        path.display(),
        exe.display()
    ))
}

/// The request of `check`: its `run`, `cwd` (relative to the worktree),
/// `env`, timeout and the input root (its `inputs` when it has them).
fn request_of(
    facts: &Facts<'_>,
    settings: &crate::config::RemoteSettings,
    check: &PlannedCheck<'_>,
    files: &[String],
) -> Request {
    let cwd = check
        .cwd
        .strip_prefix(facts.worktree)
        .map(crate::paths::to_slashes)
        .unwrap_or_default();
    Request {
        endpoint: settings.endpoint.clone(),
        instance: settings.instance.clone(),
        token_env: settings.token_env.clone(),
        platform: settings.platform.clone(),
        worktree: facts.worktree.display().to_string(),
        files: inputs(check, files),
        argv: check.argv().to_vec(),
        cwd,
        env: check.config.env.clone().into_iter().collect(),
        timeout_ms: crate::time::millis(check.timeout),
        do_not_cache: check.config.cache.is_none(),
    }
}

/// The files of the input root: those the check's `inputs` match, else
/// all.
fn inputs(check: &PlannedCheck<'_>, files: &[String]) -> Vec<String> {
    let Some(globs) = check.config.cache.as_ref().and_then(|c| c.inputs.as_ref()) else {
        return files.to_vec();
    };
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(glob.clone());
    }
    match builder.build() {
        Ok(set) => files.iter().filter(|f| set.is_match(f)).cloned().collect(),
        Err(_) => files.to_vec(),
    }
}

/// `--remote=auto`: asks the cluster's capabilities once (before any
/// check runs, so no other process is running); `Some(why)` when it does
/// not answer.
fn probe(
    client: &Path,
    dir: &Path,
    facts: &Facts<'_>,
    settings: &crate::config::RemoteSettings,
) -> Option<String> {
    let request = Request {
        endpoint: settings.endpoint.clone(),
        instance: settings.instance.clone(),
        token_env: settings.token_env.clone(),
        platform: Vec::new(),
        worktree: facts.worktree.display().to_string(),
        files: Vec::new(),
        argv: Vec::new(),
        cwd: String::new(),
        env: Vec::new(),
        timeout_ms: 0,
        do_not_cache: true,
    };
    let (request_path, report_path) = (
        dir.join("probe.request.json"),
        dir.join("probe.report.json"),
    );
    let bytes = serde_json::to_vec(&request).ok()?;
    if let Err(err) = std::fs::write(&request_path, bytes) {
        return Some(format!("cannot write the probe: {err}"));
    }
    let status = Command::new(client)
        .arg("probe")
        .arg(&request_path)
        .arg(&report_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if let Err(err) = status {
        return Some(format!("cannot run {}: {err}", client.display()));
    }
    match crate::remote::report::read(&report_path) {
        Ok(report) => report.error,
        Err(why) => Some(why),
    }
}
