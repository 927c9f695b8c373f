//! Config + command line → Plan: which checks this run executes, in which
//! order, with resolved facts (absolute program paths from `which`, effective
//! timeouts, absolute working directories, `needs` as indices). Building a plan
//! spawns nothing, so `list` and policy checks are free of side effects.

mod resolve;
mod shard;
mod shell;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobSet, GlobSetBuilder};

use crate::config::{CheckConfig, CheckKind, Config, Mode, git_args};
use crate::error::Error;

pub(crate) use resolve::{AtStart, Resolver, Unusable, at_start, is_path, resolve_program};
pub(crate) use shard::{Shard, Sharding, Timings};

/// What to select from the config.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    pub(crate) mode: Mode,
    /// `--only` names (empty: all).
    pub(crate) only: Vec<String>,
    /// `--skip` names.
    pub(crate) skip: Vec<String>,
    /// `--jobs`, overriding `settings.jobs`.
    pub(crate) jobs: Option<usize>,
    /// `--no-fail-fast`.
    pub(crate) no_fail_fast: bool,
    /// Fast mode's changed files (worktree-relative); `None`: no filtering.
    pub(crate) changed: Option<Vec<String>>,
    /// `--shard K/N` (and `--timings`): run only shard K (1-based) of N.
    pub(crate) shard: Option<Sharding>,
}

impl Selection {
    /// Every check of `mode`: no `--only`, `--skip`, `--shard` or changed
    /// files, the settings' jobs, fail-fast as the mode has it.
    pub(crate) fn all(mode: Mode) -> Selection {
        Selection {
            mode,
            only: Vec::new(),
            skip: Vec::new(),
            jobs: None,
            no_fail_fast: false,
            changed: None,
            shard: None,
        }
    }
}

/// A resolved run.
#[derive(Debug)]
pub(crate) struct Plan<'c> {
    pub(crate) mode: Mode,
    /// Absolute, canonical worktree.
    pub(crate) worktree: PathBuf,
    /// Effective parallelism (at least 1).
    pub(crate) jobs: usize,
    /// Stop launching after the first failure (fast mode unless --no-fail-fast).
    pub(crate) fail_fast: bool,
    /// A flaky check (failed, then passed on a retry) fails: strict mode
    /// under `settings.flaky = "fail"`.
    pub(crate) flaky_fails: bool,
    /// Bytes kept from each end of each stream.
    pub(crate) excerpt_bytes: usize,
    /// The selected checks, in file order.
    pub(crate) checks: Vec<PlannedCheck<'c>>,
    /// With `--shard`: the shard, and every check selected before sharding
    /// (in file order), so `merge` can restore the order.
    pub(crate) shard: Option<(Shard, Vec<String>)>,
    /// With `--timings`: the file as named on the command line.
    pub(crate) timings: Option<String>,
    /// `--baseline`: the diagnostics of an earlier evidence, which do not
    /// fail a check (set after `build`).
    pub(crate) baseline: Option<crate::run::baseline::Baseline>,
    /// Remote checks running at once (`[remote] jobs`), on top of `jobs`.
    pub(crate) remote_jobs: usize,
    /// Environment variables no check's process gets (`CacheSettings::secrets`).
    pub(crate) scrub: Vec<String>,
    /// `[remote] token_env`: scrubbed from every check but given to the
    /// remote client.
    pub(crate) remote_token: Option<String>,
}

/// One selected check with its resolved facts.
#[derive(Debug)]
pub(crate) struct PlannedCheck<'c> {
    /// The check as configured.
    pub(crate) config: &'c CheckConfig,
    /// The program's real path (canonical, every symlink resolved: what the
    /// evidence records), or why it could not be found.
    pub(crate) program: Result<PathBuf, String>,
    /// The path to execute (and `argv[0]`) when it is not `program`: a
    /// listed path or a PATH entry that reaches its file through a symlink
    /// runs by that path, as a shell would run it, so a virtualenv's
    /// `bin/python` finds its `pyvenv.cfg` and a multi-call program
    /// (rustup's `cargo`, busybox's `grep`) sees the name it was called by.
    pub(crate) exec: Option<PathBuf>,
    /// Effective timeout.
    pub(crate) timeout: Duration,
    /// Absolute working directory.
    pub(crate) cwd: PathBuf,
    /// Indices (in `Plan::checks`) of the selected checks this one needs.
    pub(crate) needs: Vec<usize>,
    /// Why the check is skipped before it starts (fast mode's `paths`).
    pub(crate) skip: Option<String>,
    /// Its result found in the result cache: it does not start (set after
    /// `build`, by `cache::begin`).
    pub(crate) hit: Option<Box<Cached>>,
    /// Its evidence's `cache` field when it is not a hit (`off` unless
    /// `cache::begin` made its key).
    pub(crate) cache: run_check_documents::evidence::CacheUse,
    /// Sent to the Remote Execution cluster (set after `build`, by
    /// `run::remote::begin`).
    pub(crate) remote: Option<crate::remote::Assigned>,
    /// A program path in the worktree that was not there when the run
    /// began, of a check with `needs`: one of its needs may build it
    /// (`target/release/tool`), so it is looked up when the check starts,
    /// under these `settings.allow` rules (`at_start`), not an error now.
    pub(crate) later: Option<Vec<String>>,
}

impl PlannedCheck<'_> {
    /// The check's name.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// The argv as configured (empty for scan checks).
    pub(crate) fn argv(&self) -> &[String] {
        match &self.config.kind {
            CheckKind::Run(argv) => argv,
            CheckKind::Scan(_) => &[],
        }
    }
}

/// A hit: the stored entry, its diagnostics, and the `cache` field.
#[derive(Debug, Clone)]
pub(crate) struct Cached {
    pub(crate) record: run_check_documents::evidence::CheckRecord,
    pub(crate) diagnostics: Vec<run_check_documents::evidence::Diagnostic>,
}

/// The variables no check gets: the cache's token, and the remote
/// cluster's (which only `run-check-remote` is given).
fn secrets(config: &Config) -> Vec<String> {
    let mut names = config.cache.secrets();
    if let Some(name) = config.remote.as_ref().and_then(|r| r.token_env.as_ref())
        && !names.contains(name)
    {
        names.push(name.clone());
    }
    names
}

/// Logical CPUs, at least 1.
pub(crate) fn logical_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Builds the plan of `selection` over `config` in `worktree` (canonical).
pub(crate) fn build<'c>(
    config: &'c Config,
    worktree: &Path,
    selection: &Selection,
) -> Result<Plan<'c>, Error> {
    names_known(config, selection)?;
    let selected: Vec<&CheckConfig> = config
        .checks
        .iter()
        .filter(|c| c.modes.contains(&selection.mode))
        .filter(|c| selection.only.is_empty() || selection.only.contains(&c.name))
        .filter(|c| !selection.skip.contains(&c.name))
        .collect();
    let (selected, shard) = shard::select(selected, selection.shard.as_ref());
    let mut checks = Vec::with_capacity(selected.len());
    let mut resolver = Resolver::default();
    for check in &selected {
        let cwd = resolver.cwd(config, worktree, check)?;
        // A need that is not selected in this run orders nothing.
        let needs: Vec<usize> = check
            .needs
            .iter()
            .filter_map(|need| selected.iter().position(|c| &c.name == need))
            .collect();
        let (program, exec) = resolver.check_program(config, worktree, check)?;
        let later = (program.is_err() && !needs.is_empty() && is_path(check))
            .then(|| config.settings.allow.clone());
        let skip = match &selection.changed {
            Some(changed) => match resolver.paths(config, check)? {
                Some(set) if !changed.iter().any(|f| set.is_match(f)) => {
                    Some(no_match_reason(&check.path_globs))
                }
                _ => None,
            },
            None => None,
        };
        checks.push(PlannedCheck {
            config: check,
            program,
            exec,
            timeout: check.timeout.unwrap_or(config.settings.timeout),
            cwd,
            needs,
            skip,
            hit: None,
            cache: Default::default(),
            remote: None,
            later,
        });
    }
    let jobs = match selection.jobs.unwrap_or(config.settings.jobs) {
        0 => logical_cpus(),
        n => n,
    };
    // `[remote] jobs` (docs/remote.md): a remote check waits on the
    // cluster, not on this machine's CPUs, so it has slots of its own.
    let remote_jobs = match config.remote.as_ref().and_then(|r| r.jobs) {
        None => jobs,
        Some(0) => logical_cpus(),
        Some(n) => n,
    };
    Ok(Plan {
        mode: selection.mode,
        worktree: worktree.to_path_buf(),
        jobs,
        remote_jobs,
        fail_fast: selection.mode == Mode::Fast && !selection.no_fail_fast,
        flaky_fails: selection.mode == Mode::Strict
            && config.settings.flaky == crate::config::FlakyPolicy::Fail,
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard,
        timings: selection
            .shard
            .as_ref()
            .and_then(|s| s.timings.as_ref())
            .map(|t| t.path.clone()),
        baseline: None,
        scrub: secrets(config),
        remote_token: config.remote.as_ref().and_then(|r| r.token_env.clone()),
    })
}

/// Checks that every `--only` and `--skip` name is a check, and that an
/// `--only` check runs in the selected mode.
fn names_known(config: &Config, selection: &Selection) -> Result<(), Error> {
    for (flag, names) in [("--only", &selection.only), ("--skip", &selection.skip)] {
        for name in names {
            let Some(check) = config.checks.iter().find(|c| &c.name == name) else {
                return Err(Error::Usage(format!(
                    "{flag} `{name}`: no check of that name in {}",
                    config.path.display()
                )));
            };
            // Asking for a check the mode leaves out would run nothing and
            // pass; skipping one is harmless, so `--skip` stays accepted.
            if flag == "--only" && !check.modes.contains(&selection.mode) {
                let modes: Vec<&str> = check.modes.iter().map(|m| m.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--only `{name}`: the check does not run in {} mode (its modes: {})",
                    selection.mode.as_str(),
                    if modes.is_empty() {
                        "none".to_string()
                    } else {
                        modes.join(", ")
                    }
                )));
            }
        }
    }
    Ok(())
}

/// The plan of `run-check fix`: the `[[fix]]` commands (all, or those named
/// by `only`), one at a time in file order — they write, so never in parallel.
pub(crate) fn build_fixes<'c>(
    config: &'c Config,
    worktree: &Path,
    only: &[String],
) -> Result<Plan<'c>, Error> {
    for name in only {
        if !config.fixes.iter().any(|f| &f.name == name) {
            return Err(Error::Usage(format!(
                "--only `{name}`: no fix of that name in {}",
                config.path.display()
            )));
        }
    }
    let mut checks = Vec::new();
    let mut resolver = Resolver::default();
    for fix in config
        .fixes
        .iter()
        .filter(|f| only.is_empty() || only.contains(&f.name))
    {
        let (program, exec) = resolver.check_program(config, worktree, fix)?;
        checks.push(PlannedCheck {
            config: fix,
            program,
            exec,
            timeout: fix.timeout.unwrap_or(config.settings.timeout),
            cwd: resolver.cwd(config, worktree, fix)?,
            needs: Vec::new(),
            skip: None,
            hit: None,
            cache: Default::default(),
            remote: None,
            later: None,
        });
    }
    Ok(Plan {
        mode: Mode::Strict,
        worktree: worktree.to_path_buf(),
        jobs: 1,
        remote_jobs: 1,
        fail_fast: false,
        flaky_fails: false,
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard: None,
        timings: None,
        baseline: None,
        scrub: secrets(config),
        remote_token: config.remote.as_ref().and_then(|r| r.token_env.clone()),
    })
}

/// Fast mode's skip reason: the first three globs of `paths`, the rest
/// counted (`+12 more`), so the line stays readable.
fn no_match_reason(globs: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut shown = globs[..globs.len().min(SHOWN)].join(", ");
    if globs.len() > SHOWN {
        shown.push_str(&format!(", +{} more", globs.len() - SHOWN));
    }
    format!("no changed file matches `paths` ({shown})")
}

/// The path a listed program with a separator names: absolute as written,
/// else relative to the worktree (`/` and `\` both separate,
/// docs/checks-toml.md, so a config written on Windows (`.\scripts\lint.sh`) runs elsewhere
/// too).
fn listed_path(program: &str, worktree: &Path) -> PathBuf {
    if Path::new(program).is_absolute() {
        return PathBuf::from(program);
    }
    let mut path = worktree.to_path_buf();
    path.extend(
        program
            .split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != "."),
    );
    path
}

#[cfg(test)]
mod tests;
