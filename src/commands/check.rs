//! `run-check [check]`: the check pipeline.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cli::{CheckArgs, Location};
use crate::config::{CheckKind, Config, Mode};
use crate::error::Error;
use crate::git;
use crate::output::Output;
use crate::run::evidence::{self, ReadOnly};
use crate::run::meta::{self, Meta};
use crate::run::plan::{self, Plan, Selection};
use crate::run::runner::{self, CheckResult, Event};
use crate::run::scan_base::ScanBase;
use crate::run::snapshot::{GitState, GitWatch, OwnFiles, Snapshotter, Verifier};
use crate::run::task::{self, Task};
use crate::run::{cache, changes};
use crate::signal;

use super::progress::Progress;
use super::{config_file, load_config};

/// `run-check [check]`: run the plan, write the evidence, exit 0/1/2/130.
pub(crate) fn check(args: &CheckArgs, argv: Vec<String>) -> Result<i32, Error> {
    let started = Instant::now();
    let timestamp = meta::timestamp();
    // What stdout and stderr are, before anything is written to them.
    let own = OwnFiles::capture(args.out.as_deref());
    let location = args.location.resolved();
    let worktree = crate::paths::worktree(location.worktree.as_deref())?;
    let verify = args.mode == Mode::Strict || args.verify_read_only;
    let (config, mut start) = config_and_git(&location, &worktree, verify)?;
    let mut task = args.task.as_deref().map(task::load).transpose()?;
    let changed = Changed::of(args, task.as_ref(), &start, &worktree, &own)?;
    let mut plan = plan::build(&config, &worktree, &selection(args, &changed)?)?;
    plan.baseline = args.baseline.as_deref().map(baseline).transpose()?;
    // The first snapshot is taken before the keys are made: a key's
    // `version` command runs inside the read-only proof window, as checks
    // do (docs/cache.md).
    let mut verifier = if verify {
        Some(verifier(&mut start, &worktree, &plan, &own)?)
    } else {
        None
    };
    // The handler goes in before the output file exists, so an early Ctrl-C
    // still ends in evidence (every check `interrupted`), never a stray
    // file; and before the keys are made, so that it stops a `version`
    // command too.
    let cancel = signal::install().map_err(Error::Environment)?;
    let cache = cache_session(args, &config, &start, &own, &mut plan);
    let _remote = remote_session(args, &config, &start, &own, &mut plan)?;
    let gate = gate_contract(
        &location,
        (&config, args.baseline.as_deref()),
        &plan,
        &start,
        &changed,
        &own,
    )?;
    if let (Some(task), Some(gate)) = (&mut task, &gate) {
        let violations = task::gate_violations(task, gate);
        task.violations.extend(violations);
    }
    let output = Output::open(args.out.as_deref())?;
    if let (Some(verifier), Some(temp)) = (&mut verifier, output.temp_path()) {
        verifier.ignore(temp);
    }
    // The `text` report on stdout: a terminal's live view leaves the listing
    // to it.
    let report_here = output.is_stdout() && args.format == crate::report::Format::Text;
    // Scans weigh what the change adds against the base of the gate.
    let scan_base = start.in_git().map(|(repo, status)| ScanBase {
        repo,
        status,
        worktree: &plan.worktree,
        base: &changed.base,
        own: &own,
    });
    let scan_base = scan_base.as_ref().map(|b| b as &dyn crate::scan::Base);
    let (results, platform) = run(
        (&plan, scan_base),
        cancel,
        verifier.as_mut(),
        args.quiet,
        report_here,
    );
    let change_budget = changed.budget.as_ref().map(task::budget);
    let facts = Facts {
        timestamp,
        platform,
        argv,
        task: task.as_ref(),
        changed,
    };
    let meta = facts.meta(&config, &plan, &results, &start);
    let (read_only, read_only_diagnostics) = read_only(verifier, &results);
    // Read after the last snapshot: a stop during it (which kills a git
    // blocked on a FIFO) is an interrupted run too.
    let interrupted = cancel.is_cancelled();
    let mut evidence = evidence::assemble(
        &plan,
        &results,
        meta,
        started,
        started.elapsed(),
        interrupted,
        read_only,
        read_only_diagnostics,
    );
    evidence.contracts.task = task.as_ref().map(task::contract);
    evidence.contracts.change_budget = change_budget;
    evidence.contracts.gate = gate;
    // Stored before the evidence is delivered: a remote that fails to
    // store a pass is in the evidence too.
    cache::finish(&cache, &mut evidence);
    let delivery = super::Delivery {
        all_diagnostics: args.all_diagnostics,
        quiet: false,
    };
    super::deliver(output, args.format, &evidence, delivery)?;
    leave_to_exit(start);
    Ok(evidence.summary.exit_code)
}

/// The result cache's part of the run, before the first check starts:
/// keys are made of the worktree as the run's `git status` saw it, and a
/// hit is not started at all.
fn cache_session(
    args: &CheckArgs,
    config: &Config,
    start: &GitStart,
    own: &OwnFiles,
    plan: &mut Plan<'_>,
) -> cache::Session {
    let worktree = plan.worktree.clone();
    cache::begin(
        &cache::key::Facts {
            config,
            worktree: &worktree,
            git: start.in_git(),
            own,
        },
        plan,
        cache::Policy::of(args.mode, args.cache, args.no_cache),
        &reusable(args),
    )
}

/// The remote checks' part of the run (docs/remote.md), after the cache
/// (a hit is not sent): requests written, the cluster asked with
/// `--remote=auto`.
fn remote_session(
    args: &CheckArgs,
    config: &Config,
    start: &GitStart,
    own: &OwnFiles,
    plan: &mut Plan<'_>,
) -> Result<crate::run::remote::Session, Error> {
    if args.remote.is_some() && config.remote.is_none() {
        return Err(Error::Usage(format!(
            "--remote: {} has no `[remote]` table naming a cluster (docs/remote.md)",
            config.path.display()
        )));
    }
    let worktree = plan.worktree.clone();
    Ok(crate::run::remote::begin(
        &cache::key::Facts {
            config,
            worktree: &worktree,
            git: start.in_git(),
            own,
        },
        plan,
        crate::run::remote::Mode::of(args.remote.as_deref(), args.no_remote),
    ))
}

/// The passes the agent hook handed this gate (`--session-results`,
/// with the sha256 its session's chain recorded): none otherwise.
fn reusable(args: &CheckArgs) -> cache::reuse::Reusable {
    match (&args.session_results, &args.session_digest) {
        (Some(path), Some(digest)) => cache::reuse::Reusable::read(path, digest),
        _ => cache::reuse::Reusable::default(),
    }
}

/// A status of many files is left for the process's exit to free (as the
/// snapshots are): freeing it entry by entry costs milliseconds.
fn leave_to_exit(start: GitStart) {
    if start.in_git().is_some_and(|(_, s)| s.entries.len() >= 1000) {
        std::mem::forget(start);
    }
}

/// The read-only verification's result once the run is over (`off`
/// without a verifier).
fn read_only(
    verifier: Option<Verifier>,
    results: &[CheckResult],
) -> (ReadOnly, Vec<evidence::Diagnostic>) {
    let Some(mut verifier) = verifier else {
        return (ReadOnly::off(), Vec::new());
    };
    // Known once the run is over (a check's leftovers are found when a
    // later one ends).
    if results.iter().any(|r| !r.leaked.is_empty()) {
        verifier.processes_left();
    }
    verifier.finish()
}

/// The config, read while git is asked about the worktree. The git
/// processes start here, not on the thread that waits for them: a thread
/// that is not scheduled at once (2 CPUs, the config being parsed) would
/// delay them.
fn config_and_git(
    location: &Location,
    worktree: &Path,
    verify: bool,
) -> Result<(Config, GitStart), Error> {
    let asking = GitStart::begin(worktree, verify);
    let (config, start) = std::thread::scope(|scope| {
        let start = scope.spawn(|| asking.finish());
        let config = load_config(location, worktree);
        (config, start.join())
    });
    let config = config?;
    let start = start.map_err(|_| Error::Internal("asking git failed".into()))??;
    Ok((config, start))
}

/// What changed, against which base: fast mode's files (against
/// `--changed-since`), and the change of a task's budget and
/// `contracts.gate` (against `--changed-since` when given, else the task's
/// `base` (docs/task.md), else `HEAD`).
struct Changed {
    /// `--changed-since`, `HEAD` by default.
    since: String,
    /// The base of the budget and the gate.
    base: String,
    /// The task's change against `base`.
    budget: Option<changes::Changes>,
    /// Fast mode's changed files, or why every check runs.
    fast: Option<(Vec<String>, Option<String>)>,
}

impl Changed {
    fn of(
        args: &CheckArgs,
        task: Option<&Task>,
        start: &GitStart,
        worktree: &Path,
        own: &OwnFiles,
    ) -> Result<Changed, Error> {
        let since = args.changed_since.as_deref().unwrap_or("HEAD");
        let base = args
            .changed_since
            .as_deref()
            .or(task.and_then(|t| t.document.base.as_deref()))
            .unwrap_or("HEAD");
        let git = start.in_git();
        // A task's `base` must exist, even when `--changed-since` overrides it.
        if let (Some(task), Some(file), Some((repo, status))) = (task, &args.task, git)
            && let Some(task_base) = &task.document.base
            && changes::check_base(repo, status, task_base).is_err()
        {
            return Err(task::bad_base(file, task_base));
        }
        let budget = match (task, git) {
            (Some(_), Some((repo, status))) => Some(
                changes::changed(repo, status, worktree, base, own)
                    .map_err(|err| Error::Usage(err.to_string()))?,
            ),
            _ => None,
        };
        let fast = match args.mode {
            Mode::Fast => Some(start.changed_files(worktree, since, own)?),
            Mode::Strict => None,
        };
        // Strict mode compares nothing against `--changed-since` but the
        // gate (and a task's budget), but a revision that does not exist is
        // an ERROR before anything runs. The default, `HEAD`, needs no git
        // process.
        if let (Mode::Strict, None, Some((repo, status))) = (args.mode, task, git)
            && since != "HEAD"
        {
            changes::check_base(repo, status, since)
                .map_err(|err| Error::Usage(err.to_string()))?;
        }
        Ok(Changed {
            since: since.to_string(),
            base: base.to_string(),
            budget,
            fast,
        })
    }
}

/// The checks the arguments select.
fn selection(args: &CheckArgs, changed: &Changed) -> Result<Selection, Error> {
    Ok(Selection {
        mode: args.mode,
        only: args.only.clone(),
        skip: args.skip.clone(),
        jobs: args.jobs,
        no_fail_fast: args.no_fail_fast,
        changed: changed
            .fast
            .as_ref()
            .and_then(|(files, note)| note.is_none().then(|| files.clone())),
        shard: match args.shard.as_deref() {
            Some(text) => Some(plan::Sharding {
                shard: plan::Shard::parse(text).map_err(Error::Usage)?,
                timings: args.timings.as_deref().map(timings).transpose()?,
            }),
            None => None,
        },
    })
}

/// `--timings`: the durations of an earlier evidence, read as every reader
/// reads evidence (`json_input::evidence`).
fn timings(path: &Path) -> Result<plan::Timings, Error> {
    let evidence = crate::json_input::evidence_file(path)?;
    Ok(plan::Timings::of(path.display().to_string(), &evidence))
}

/// `--baseline`: the diagnostics of an earlier evidence, read as every
/// reader reads evidence.
fn baseline(path: &Path) -> Result<crate::run::baseline::Baseline, Error> {
    let evidence = crate::json_input::evidence_file(path)?;
    Ok(crate::run::baseline::Baseline::of(
        path.display().to_string(),
        &evidence,
    ))
}

/// Read-only verification, its first snapshot taken.
fn verifier(
    start: &mut GitStart,
    worktree: &Path,
    plan: &Plan<'_>,
    own: &OwnFiles,
) -> Result<Verifier, Error> {
    let snapshotter = Snapshotter::new(worktree, start.in_git().map(|(repo, _)| repo))
        .hiding(start.in_git().map_or(&[], |(_, status)| &status.hidden))
        .submodules(start.git_state.as_ref().is_none_or(|(_, s)| s.submodules()))
        .settling(start.git_state.as_ref().map(|(_, s)| s), own.out());
    let first = start.in_git().map(|(_, status)| (status, start.took));
    let mut verifier = Verifier::start(snapshotter, first, plan.jobs == 1).map_err(|why| {
        Error::Environment(format!(
            "read-only verification: cannot take the first snapshot: {why}"
        ))
    })?;
    verifier.ignore_own(own.clone());
    if let Some((watch, state)) = start.git_state.take() {
        verifier.watch_git(watch, state);
    }
    Ok(verifier)
}

/// Runs the plan, showing progress; the platform's facts are gathered
/// meanwhile.
fn run(
    (plan, base): (&Plan<'_>, Option<&dyn crate::scan::Base>),
    cancel: &'static signal::Cancel,
    mut verifier: Option<&mut Verifier>,
    quiet: bool,
    report_here: bool,
) -> (Vec<CheckResult>, meta::Platform) {
    std::thread::scope(|scope| {
        let platform = scope.spawn(meta::platform);
        let mut progress = Progress::new(quiet, plan, plan.mode.as_str(), report_here);
        let results = runner::run_plan(plan, base, cancel, &mut |event| {
            // The windows of the checks name a written path's writer by its
            // change time; one check at a time, a snapshot after each does.
            if let (Event::Started(check), Some(verifier)) = (&event, &mut verifier) {
                let needs: Vec<&str> = check.needs.iter().map(|&d| plan.checks[d].name()).collect();
                verifier.check_started(check.name(), &needs);
            }
            if let (Event::Finished(check, result), Some(verifier)) = (&event, &mut verifier)
                && (result.spawned || matches!(check.config.kind, CheckKind::Scan(_)))
                && result.cached.is_none()
            {
                verifier.check_ended(check.name());
                verifier.after_check(check.name(), result.duration);
            }
            progress.show(event)
        });
        progress.finish();
        let platform = platform.join().unwrap_or_else(|_| meta::platform());
        (results, platform)
    })
}

/// The facts of `meta` the run gathered on its way.
struct Facts<'a> {
    timestamp: String,
    platform: meta::Platform,
    argv: Vec<String>,
    task: Option<&'a Task>,
    changed: Changed,
}

impl Facts<'_> {
    fn meta(
        self,
        config: &Config,
        plan: &Plan<'_>,
        results: &[CheckResult],
        start: &GitStart,
    ) -> Meta {
        Meta {
            tool: meta::tool(),
            timestamp: self.timestamp,
            platform: self.platform,
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            worktree: plan.worktree.display().to_string(),
            git: meta::git(start.in_git().map(|(_, status)| status)),
            config: meta::ConfigRef {
                path: config.path.display().to_string(),
                sha256: config.sha256.clone(),
            },
            task: self.task.map(|t| t.document.clone()),
            argv: self.argv,
            commands: plan
                .checks
                .iter()
                .zip(results)
                .filter(|(_, r)| r.spawned)
                .map(|(c, _)| meta::display_command(c.argv()))
                .collect(),
            changes: self.changed.fast.map(|(files, note)| meta::ChangeSet {
                base: self.changed.since,
                files_changed: files.len(),
                files: files.into_iter().take(1000).collect(),
                note,
            }),
            shard: plan.shard.as_ref().map(|(shard, all)| meta::ShardInfo {
                index: shard.index,
                count: shard.count,
                checks_before_sharding: all.clone(),
                timings: plan.timings.clone(),
            }),
            merged_from: None,
        }
    }
}

/// `contracts.gate`: the gate's files (the config when it is inside the
/// worktree, the programs its checks run and the files their arguments
/// name from inside it, a `--baseline` inside it, what `[gate] files`
/// declares) changed against `base`.
/// A `--config` kept outside the worktree still has a gate: what it runs
/// from the worktree. The change is the one the run already knows when it
/// has it (the task's budget, fast mode's files against the same base);
/// else it is asked, which with the base `HEAD` is the run's `git status`
/// (no process). `None` outside git, and against `HEAD` before the first
/// commit.
fn gate_contract(
    location: &Location,
    (config, baseline): (&Config, Option<&Path>),
    plan: &Plan<'_>,
    start: &GitStart,
    changed: &Changed,
    own: &OwnFiles,
) -> Result<Option<crate::run::gate::Gate>, Error> {
    let Some((repo, status)) = start.in_git() else {
        return Ok(None);
    };
    // Before the first commit there is no `HEAD` to compare with: every
    // file is new, so "the gate changed" would say nothing but that.
    if changed.base == "HEAD" && status.commit.is_none() {
        return Ok(None);
    }
    let config_file = config_file(location, &plan.worktree);
    let worktree = plan.worktree.as_path();
    let files = crate::run::gate::files(config, &config_file, worktree, plan, baseline);
    let asked;
    let base = changed.base.as_str();
    // Fast mode's files serve when they are against the same base.
    let fast = changed
        .fast
        .as_ref()
        .filter(|_| changed.since == changed.base);
    let changed: &[String] = match (&changed.budget, fast) {
        (Some(budget), _) => &budget.files,
        (None, Some((files, None))) => files,
        _ => {
            // A glob of `[gate] files` names no list to ask about: every
            // changed file is asked for, and the globs pick among them.
            let among = config.gate.files.is_none().then_some(files.as_slice());
            asked = changes::changed_files_among(repo, status, worktree, base, own, among)
                .map_err(|err| Error::Usage(err.to_string()))?;
            &asked
        }
    };
    let declared = config.gate.files.as_ref();
    let mut gate = crate::run::gate::changed(&files, declared, changed, base);
    // The repository's config relaxing a setting that decides "modified"
    // is a changed gate too: `.git/config` is not versioned, so its base
    // is git's defaults (docs/read-only.md).
    gate.changed.extend(repo.relaxed());
    gate.changed.sort();
    gate.changed.dedup();
    Ok(Some(gate))
}

/// The worktree's git state at the start of a run, asked once before
/// anything else and before run-check creates its own output file: the git
/// facts of `meta`, fast mode's changed files, the task's change budget and
/// the first read-only snapshot all come from it.
struct GitStart {
    /// The repository and its status, or why there is none (git missing,
    /// not a repository).
    git: Result<(git::Repo, git::Status), String>,
    /// How long asking took: what a snapshot costs.
    took: std::time::Duration,
    /// The git state (HEAD, refs, index, ...) at the start, read while the
    /// config loads; its flagged index entries are in the status's
    /// `hidden`.
    git_state: Option<(GitWatch, GitState)>,
}

/// `GitStart` being asked: the git processes started, and when.
struct Asking {
    opening: Result<git::Opening, String>,
    started: Instant,
    /// The worktree (canonical).
    worktree: PathBuf,
    /// Whether the run verifies (and so watches the git state); without,
    /// only the flagged index entries are read (fast mode counts them).
    watch: bool,
}

impl Asking {
    /// Waits for git's answers.
    fn finish(self) -> Result<GitStart, Error> {
        let Asking {
            opening,
            started,
            worktree,
            watch,
        } = self;
        let mut git_state = None;
        // Most of the git state (the config files and hooks hashed) is
        // read while `git status` runs.
        let capture = |repo: &git::Repo, ready: &mut dyn FnMut()| {
            let git_watch = GitWatch::new(repo, &worktree);
            if watch {
                let (state, hidden) = git_watch.capture_then(ready);
                (Some((git_watch, state)), hidden)
            } else {
                (None, git_watch.hidden())
            }
        };
        let git = match opening.and_then(|opening| opening.finish_with(capture)) {
            Ok((repo, Ok(mut status), (state, hidden))) => {
                status.hidden = hidden;
                git_state = state;
                Ok((repo, status))
            }
            Ok((_, Err(why), _)) => {
                return Err(Error::Environment(format!(
                    "cannot read the worktree's git status: {why}"
                )));
            }
            // A repository whose git would block is no worktree outside
            // git: an error, never a walk that watches no git state.
            Err(why) if why.starts_with(git::BLOCKED) => {
                return Err(Error::Environment(why));
            }
            Err(why) => Err(why),
        };
        Ok(GitStart {
            git,
            took: started.elapsed(),
            git_state,
        })
    }
}

impl GitStart {
    /// Starts asking git about `worktree`; `watch`: also what the git
    /// state's verification needs.
    fn begin(worktree: &Path, watch: bool) -> Asking {
        Asking {
            started: Instant::now(),
            opening: git::Opening::start(worktree),
            worktree: worktree.to_path_buf(),
            watch,
        }
    }

    fn in_git(&self) -> Option<(&git::Repo, &git::Status)> {
        self.git.as_ref().ok().map(|(repo, status)| (repo, status))
    }

    /// Fast mode's changed files, or (outside git, where every check runs)
    /// why there are none. A base revision that does not exist is an ERROR.
    fn changed_files(
        &self,
        worktree: &Path,
        base: &str,
        own: &OwnFiles,
    ) -> Result<(Vec<String>, Option<String>), Error> {
        match &self.git {
            Ok((repo, status)) => changes::changed_files(repo, status, worktree, base, own)
                .map(|files| (files, None))
                .map_err(|err| Error::Usage(err.to_string())),
            Err(why) => Ok((Vec::new(), Some(format!("{why}: every check runs")))),
        }
    }
}
