//! Runs a `Plan`: at most `jobs` checks at a time, started in file order as
//! their `needs` finish, with fail-fast and cancellation. Process handling is
//! in `process`; platform tree-killing behind the same names in `unix` and
//! `windows`. A pool of at most `jobs` worker threads runs the checks, each
//! worker reused from check to check; with `--jobs 1` the scheduler's own
//! thread runs them. A gate lent a jobs pool by `candidates` (`crate::jobs`)
//! runs its first check on its implicit token and holds a token of the pool
//! for each further check running at once ([`Tokens`]).

pub(crate) mod alone;
mod child;
#[cfg(target_os = "linux")]
mod clone;
pub(crate) mod contain;
pub(crate) mod process;
#[cfg(target_os = "linux")]
mod reaper;
mod remote;

#[cfg(unix)]
#[path = "unix.rs"]
mod platform;
#[cfg(windows)]
#[path = "windows.rs"]
mod platform;

use std::sync::{Mutex, mpsc};
use std::time::Duration;

use crate::config::CheckKind;
use crate::parse::{Collector, Parsed};
use crate::run::artifacts::{self, Collected};
use crate::run::excerpt::Excerpt;
use crate::run::plan::{Plan, PlannedCheck};
use crate::signal::Cancel;
use contain::Containment;
use process::End;
use run_check_documents::evidence::{Attempt, Diagnostic, Leaked, Status};

pub(crate) use run_check_documents::evidence::INTERRUPTED;
/// Skip reason of checks not started after a failure in fast mode.
pub(crate) const FAIL_FAST: &str = "fail-fast";

/// The outcome of one planned check.
#[derive(Debug)]
pub(crate) struct CheckResult {
    /// pass / fail / error / skip.
    pub(crate) status: Status,
    /// The process's exit code, when it exited.
    pub(crate) exit_code: Option<i32>,
    /// Wall time.
    pub(crate) duration: Duration,
    /// Killed for running past its timeout.
    pub(crate) timed_out: bool,
    /// Captured stdout (None when nothing ran).
    pub(crate) stdout: Option<Excerpt>,
    /// Captured stderr (None when nothing ran).
    pub(crate) stderr: Option<Excerpt>,
    /// Why it was skipped.
    pub(crate) skip_reason: Option<String>,
    /// Why it errored (one line).
    pub(crate) error: Option<String>,
    /// Whether a process was started (its command belongs in `meta.commands`).
    pub(crate) spawned: bool,
    /// What the output parsers found, stdout's then stderr's.
    pub(crate) parsed: Vec<Parsed>,
    /// Artifacts recorded after the check ended.
    pub(crate) artifacts: Collected,
    /// A skip that is no failure (fast mode found nothing to check): checks
    /// that need this one still run.
    pub(crate) benign_skip: bool,
    /// The processes it left behind (killed, or kept by `leave_running`).
    pub(crate) leaked: Vec<Leaked>,
    /// When it started (its process or its scan); None when it did not.
    pub(crate) started: Option<std::time::Instant>,
    /// Its diagnostics `--baseline` knows (docs/baseline.md).
    pub(crate) baseline_suppressed: usize,
    /// Failed, then passed on a retry (docs/checks-toml.md, `retries`).
    pub(crate) flaky: bool,
    /// Every attempt when it ran more than once, else empty.
    pub(crate) attempt_log: Vec<Attempt>,
    /// Taken from the result cache: the check did not run.
    pub(crate) cached: Option<Box<crate::run::plan::Cached>>,
    /// Where it ran when it is `remote = true` (docs/remote.md).
    pub(crate) remote: Option<run_check_documents::evidence::RemoteUse>,
}

impl CheckResult {
    pub(crate) fn skipped(reason: impl Into<String>) -> CheckResult {
        CheckResult {
            status: Status::Skip,
            exit_code: None,
            duration: Duration::ZERO,
            timed_out: false,
            stdout: None,
            stderr: None,
            skip_reason: Some(reason.into()),
            error: None,
            spawned: false,
            parsed: Vec::new(),
            artifacts: Collected::default(),
            benign_skip: false,
            leaked: Vec::new(),
            started: None,
            baseline_suppressed: 0,
            flaky: false,
            attempt_log: Vec::new(),
            cached: None,
            remote: None,
        }
    }

    /// How many times it was started: 0 when it never was.
    pub(crate) fn attempts(&self) -> u32 {
        match self.started {
            None => 0,
            Some(_) => u32::try_from(self.attempt_log.len())
                .unwrap_or(u32::MAX)
                .max(1),
        }
    }

    fn errored(reason: impl Into<String>) -> CheckResult {
        CheckResult {
            status: Status::Error,
            error: Some(reason.into()),
            skip_reason: None,
            ..CheckResult::skipped("")
        }
    }

    /// Whether checks that need this one may run: it passed, or fast mode
    /// skipped it for lack of a relevant change.
    fn lets_dependants_run(&self) -> bool {
        self.status == Status::Pass || self.benign_skip
    }
}

/// Progress reported while the plan runs.
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// A check started (its process, or its scan).
    Started(&'a PlannedCheck<'a>),
    /// A check ended (or was skipped or could not start).
    Finished(&'a PlannedCheck<'a>, &'a CheckResult),
    /// A check's attempt failed and it starts again (`retries`): the
    /// failed attempt, and the number of the one that starts (2 or more).
    Retrying(&'a PlannedCheck<'a>, &'a Attempt, u32),
}

/// Runs every check of `plan`; returns one result per planned check, in plan
/// order. Reports progress through `on_event` (called from this thread only).
/// Scans compare with `base` (`scan::Base`: the run's base revision).
pub(crate) fn run_plan(
    plan: &Plan<'_>,
    base: Option<&dyn crate::scan::Base>,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Vec<CheckResult> {
    let mut schedule = Schedule::new(plan);
    let (tx, rx) = mpsc::channel::<Message>();
    let mut tokens = match plan.jobs {
        1 => None,
        _ => crate::jobs::inherited().map(|client| Tokens::start(client, &tx)),
    };
    let contain = Containment::new(plan.checks.iter().map(|c| c.config.leave_running));
    let contain = &contain;

    // Checks to run, by plan index; the workers take them in turn. The
    // sender moves into the scope and drops when its closure returns, which
    // ends the workers.
    let (job_tx, jobs) = mpsc::channel::<usize>();
    let jobs = Mutex::new(jobs);
    std::thread::scope(|scope| {
        let job_tx = job_tx;
        let mut workers = 0usize;
        let mut start = |i: usize, running: usize, on_event: &mut dyn FnMut(Event<'_>)| {
            if plan.jobs == 1 && plan.remote_jobs == 1 {
                // Nothing to overlap: a hand-off to a worker would only
                // cost two thread wake-ups.
                let run = run_check(i, (plan, base), cancel, contain, &mut |a, n| {
                    on_event(Event::Retrying(&plan.checks[i], a, n));
                });
                let _ = tx.send(Message::Done(i, run));
                return;
            }
            // A worker per running check at most, started when every
            // worker is busy, reused after.
            if workers < running {
                workers += 1;
                let (tx, jobs) = (tx.clone(), &jobs);
                scope.spawn(move || work((plan, base), cancel, contain, jobs, &tx));
            }
            let _ = job_tx.send(i);
        };
        loop {
            if schedule.stop_reason.is_none() && cancel.is_cancelled() {
                schedule.stop_reason = Some(INTERRUPTED);
            }
            let waiting = schedule.launch(tokens.as_mut(), on_event, &mut start);
            if let Some(tokens) = &mut tokens {
                tokens.keep(schedule.running);
                tokens.ask(waiting.min(plan.jobs.saturating_sub(schedule.running)));
            }
            if schedule.running + schedule.remote_running == 0 {
                // Nothing runs and nothing more can be launched (or we stopped):
                // needs are acyclic, so a pending check would have been ready.
                if schedule.stop_reason.is_some() || schedule.started.iter().all(|&s| s) {
                    break;
                }
                continue;
            }
            let Ok(message) = rx.recv() else { break };
            if let Some((i, result)) = ended(message, plan, tokens.as_mut(), on_event) {
                schedule.finished(i, result, on_event);
            }
        }
    });
    // Pending requests are abandoned and held tokens go back to the pool.
    drop(tokens);

    // Whatever any check left is gone now (but what `leave_running` kept),
    // before the last snapshot is taken.
    completed(
        plan,
        schedule.results,
        contain.finish(),
        schedule.stop_reason,
        on_event,
    )
}

/// Hands check `i` to a worker (or runs it), `running` checks running.
type Start<'s> = &'s mut dyn FnMut(usize, usize, &mut dyn FnMut(Event<'_>));

/// The scheduler's state: which checks started, which ended and how, how
/// many run, and why launching stopped.
struct Schedule<'p, 'a> {
    plan: &'p Plan<'a>,
    results: Vec<Option<CheckResult>>,
    started: Vec<bool>,
    /// Checks before this one have all started: the launch scan starts
    /// here (200 checks in a row would otherwise scan 20,000 entries).
    first: usize,
    running: usize,
    /// Remote checks running: their slots are `plan.remote_jobs`, and
    /// they hold no token of the jobs pool (the cluster does their work).
    remote_running: usize,
    /// Some check runs on the cluster: a launch scan goes on past a full
    /// set of local slots.
    any_remote: bool,
    stop_reason: Option<&'static str>,
}

impl<'p, 'a> Schedule<'p, 'a> {
    fn new(plan: &'p Plan<'a>) -> Self {
        let n = plan.checks.len();
        Schedule {
            plan,
            results: (0..n).map(|_| None).collect(),
            started: vec![false; n],
            first: 0,
            running: 0,
            remote_running: 0,
            any_remote: plan.checks.iter().any(on_cluster),
            stop_reason: None,
        }
    }

    /// Launches ready checks in file order while slots (and tokens of the
    /// jobs pool) are free, unless stopped: a check whose need failed is
    /// skipped, one with a result before it starts gets it, any other goes
    /// to `start`. Returns how many ready checks wait for a token.
    fn launch(
        &mut self,
        mut tokens: Option<&mut Tokens>,
        on_event: &mut dyn FnMut(Event<'_>),
        start: Start<'_>,
    ) -> usize {
        let (plan, n) = (self.plan, self.started.len());
        let mut waiting = 0usize;
        if self.stop_reason.is_some() {
            return waiting;
        }
        while self.first < n && self.started[self.first] {
            self.first += 1;
        }
        for i in self.first..n {
            if self.started[i] {
                continue;
            }
            let check = &plan.checks[i];
            if let Some(result) = failed_need(check, plan, &self.results) {
                self.started[i] = true;
                on_event(Event::Finished(check, &result));
                self.results[i] = Some(result);
                continue;
            }
            if check.needs.iter().any(|&d| self.results[d].is_none()) {
                continue;
            }
            let remote = on_cluster(check);
            if remote {
                if self.remote_running >= plan.remote_jobs {
                    continue;
                }
            } else if self.running >= plan.jobs {
                // With no remote slots free either, nothing later starts.
                if self.any_remote {
                    continue;
                }
                break;
            }
            if !remote
                && let Some(tokens) = &mut tokens
                && (waiting > 0 || !tokens.allow(self.running))
            {
                // Counted, so that as many tokens are asked for.
                waiting += 1;
                continue;
            }
            self.started[i] = true;
            if let Some(result) = immediate_result(check) {
                self.record(i, result, on_event);
                if self.stop_reason.is_some() {
                    break;
                }
                continue;
            }
            on_event(Event::Started(check));
            if remote {
                self.remote_running += 1;
            } else {
                self.running += 1;
            }
            start(i, self.running + self.remote_running, on_event);
        }
        waiting
    }

    /// Started check `i` ended with `result`: one fewer runs.
    fn finished(&mut self, i: usize, result: CheckResult, on_event: &mut dyn FnMut(Event<'_>)) {
        if on_cluster(&self.plan.checks[i]) {
            self.remote_running -= 1;
        } else {
            self.running -= 1;
        }
        self.record(i, result, on_event);
    }

    /// Check `i` ended with `result`: reported, and in fast mode a failure
    /// stops further launches.
    fn record(&mut self, i: usize, result: CheckResult, on_event: &mut dyn FnMut(Event<'_>)) {
        on_event(Event::Finished(&self.plan.checks[i], &result));
        if self.plan.fail_fast && result.status.is_failure() && self.stop_reason.is_none() {
            self.stop_reason = Some(FAIL_FAST);
        }
        self.results[i] = Some(result);
    }
}

/// Whether `check` runs on the `[remote]` cluster (not one that
/// `--remote=auto` runs here).
fn on_cluster(check: &PlannedCheck<'_>) -> bool {
    check.remote.as_ref().is_some_and(|a| a.fallback.is_none())
}

/// The check that `message` says ended, and its result; a retry is
/// reported, a token of the jobs pool kept.
fn ended(
    message: Message,
    plan: &Plan<'_>,
    tokens: Option<&mut Tokens>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Option<(usize, CheckResult)> {
    match message {
        Message::Done(i, result) => return Some((i, result)),
        Message::Retrying(i, attempt, next) => {
            on_event(Event::Retrying(&plan.checks[i], &attempt, next));
        }
        Message::Token(token) => {
            if let Some(tokens) = tokens {
                tokens.arrived(token);
            }
        }
    }
    None
}

/// A skip of `check` when one of its needs ended so that dependants do not
/// run.
fn failed_need(
    check: &PlannedCheck<'_>,
    plan: &Plan<'_>,
    results: &[Option<CheckResult>],
) -> Option<CheckResult> {
    let (d, need) = check.needs.iter().find_map(|&d| {
        let need = results[d].as_ref()?;
        (!need.lets_dependants_run()).then_some((d, need.status))
    })?;
    let reason = format!(
        "needs `{}`, which ended `{}`",
        plan.checks[d].name(),
        need.as_str()
    );
    Some(CheckResult::skipped(reason))
}

/// Every check's result, in plan order, with what its processes left
/// behind (`leaked`); a check that never ended is skipped for `stop_reason`.
fn completed(
    plan: &Plan<'_>,
    results: Vec<Option<CheckResult>>,
    leaked: Vec<Vec<Leaked>>,
    stop_reason: Option<&'static str>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Vec<CheckResult> {
    let reason = stop_reason.unwrap_or(INTERRUPTED);
    results
        .into_iter()
        .zip(&plan.checks)
        .zip(leaked)
        .map(|((result, check), leaked)| {
            let mut result = result.unwrap_or_else(|| {
                // A check that fail-fast (or an interruption) kept from
                // starting still reports its missing program: a new user
                // learns every tool to install from the first run, not
                // one tool per run.
                // A program left for a need to build counts too, when it
                // is still not there: the need never got to build it.
                let result = missing_program(check)
                    .or_else(|| never_built(check, &plan.worktree))
                    .unwrap_or_else(|| CheckResult::skipped(reason));
                on_event(Event::Finished(check, &result));
                result
            });
            result.leaked.extend(leaked);
            result
        })
        .collect()
}

/// What the scheduler waits for: a check's end, or a token of the jobs pool.
#[allow(
    clippy::large_enum_variant,
    reason = "a result moves once over the channel, as it did before tokens; boxing would allocate per check"
)]
enum Message {
    /// Check `i` ended.
    Done(usize, CheckResult),
    /// Check `i` failed an attempt and starts attempt `u32` (`retries`).
    Retrying(usize, Attempt, u32),
    /// A token the scheduler asked the pool for.
    Token(std::io::Result<jobserver::Acquired>),
}

/// The tokens of the jobs pool this process holds (make's rule: the first
/// running check runs on the process's implicit token, each further one
/// holds a token). They are asked for by the jobserver crate's helper
/// thread, which hands them over on the scheduler's channel, so the
/// scheduler never blocks on the pool and still sees every check's end.
struct Tokens {
    client: jobserver::Client,
    /// Asks the pool; `None` once the pool failed (then one check at a
    /// time: the implicit token is never over budget).
    helper: Option<jobserver::HelperThread>,
    held: Vec<jobserver::Acquired>,
    /// Asked for, not yet arrived.
    asked: usize,
}

impl Tokens {
    fn start(client: &jobserver::Client, tx: &mpsc::Sender<Message>) -> Tokens {
        let tx = tx.clone();
        let helper = client
            .clone()
            .into_helper_thread(move |token| {
                let _ = tx.send(Message::Token(token));
            })
            .ok();
        Tokens {
            client: client.clone(),
            helper,
            held: Vec::new(),
            asked: 0,
        }
    }

    /// Whether one more check may start while `running` run: a token is
    /// held for it, or one is free in the pool now (taken without waiting
    /// where the platform can).
    fn allow(&mut self, running: usize) -> bool {
        if running == 0 || running <= self.held.len() {
            return true;
        }
        if self.helper.is_none() {
            return false;
        }
        match self.client.try_acquire() {
            Ok(Some(token)) => {
                self.held.push(token);
                true
            }
            _ => false,
        }
    }

    /// Makes sure `wanted` tokens are being asked for.
    fn ask(&mut self, wanted: usize) {
        if let Some(helper) = &self.helper {
            while self.asked < wanted {
                helper.request_token();
                self.asked += 1;
            }
        }
    }

    fn arrived(&mut self, token: std::io::Result<jobserver::Acquired>) {
        self.asked = self.asked.saturating_sub(1);
        match token {
            Ok(token) => self.held.push(token),
            // A broken pool: no more tokens, one check at a time.
            Err(_) => self.helper = None,
        }
    }

    /// Gives back the tokens `running` checks do not need.
    fn keep(&mut self, running: usize) {
        self.held.truncate(running.saturating_sub(1));
    }
}

/// A worker: runs the checks it is handed until there are no more.
fn work(
    (plan, base): (&Plan<'_>, Option<&dyn crate::scan::Base>),
    cancel: &Cancel,
    contain: &Containment,
    jobs: &Mutex<mpsc::Receiver<usize>>,
    results: &mpsc::Sender<Message>,
) {
    loop {
        let next = match jobs.lock() {
            Ok(jobs) => jobs.recv(),
            Err(_) => return,
        };
        let Ok(i) = next else { return };
        let result = run_check(i, (plan, base), cancel, contain, &mut |a, n| {
            let _ = results.send(Message::Retrying(i, a.clone(), n));
        });
        if results.send(Message::Done(i, result)).is_err() {
            return;
        }
    }
}

/// The result of a check that does not start: skipped by fast mode's
/// `paths`, or its program was not found.
fn immediate_result(check: &PlannedCheck<'_>) -> Option<CheckResult> {
    if let Some(reason) = &check.skip {
        return Some(CheckResult {
            benign_skip: true,
            ..CheckResult::skipped(reason.clone())
        });
    }
    if let Some(hit) = &check.hit {
        // A hit is the pass it stored; checks that need it run.
        return Some(CheckResult {
            status: Status::Pass,
            skip_reason: None,
            cached: Some(hit.clone()),
            ..CheckResult::skipped("")
        });
    }
    missing_program(check)
}

/// The error of a check that never started whose program was left to be
/// looked up when it started (a need may build it) and is still not in
/// the worktree now: reported with the error of the run's start, so the
/// first run names every missing program. `None` when it is there now or
/// for any other check.
fn never_built(check: &PlannedCheck<'_>, worktree: &std::path::Path) -> Option<CheckResult> {
    let (Some(allow), Err(why), [program, ..]) = (&check.later, &check.program, check.argv())
    else {
        return None;
    };
    match crate::run::plan::resolve_program(program, worktree, allow) {
        Ok(_) => None,
        Err(_) => Some(CheckResult::errored(why.clone())),
    }
}

/// The error of a check whose program was not found and that fast mode's
/// `paths` did not skip; `None` for any other check.
fn missing_program(check: &PlannedCheck<'_>) -> Option<CheckResult> {
    match (&check.skip, &check.config.kind, &check.program) {
        // A program a need may build is looked up when the check starts.
        (None, CheckKind::Run(_), Err(_)) if check.later.is_some() => None,
        (None, CheckKind::Run(_), Err(why)) => Some(CheckResult::errored(why.clone())),
        _ => None,
    }
}

/// What a check's runner is told of a failed attempt before the next
/// starts (its number).
type Retrying<'r> = &'r mut dyn FnMut(&Attempt, u32);

/// Runs check `i` (a process or a built-in scan) and classifies its end.
fn run_check(
    i: usize,
    (plan, base): (&Plan<'_>, Option<&dyn crate::scan::Base>),
    cancel: &Cancel,
    contain: &Containment,
    retrying: Retrying<'_>,
) -> CheckResult {
    let check = &plan.checks[i];
    let started = std::time::Instant::now();
    let result = match &check.config.kind {
        CheckKind::Scan(scan) => settled(run_scan(scan, plan, base), check, plan),
        CheckKind::Run(_) => run_attempts(i, plan, cancel, contain, started, retrying),
    };
    CheckResult {
        started: Some(started),
        ..result
    }
}

/// Appends a check's diagnostics (stdout, stderr, then artifacts), capped at
/// `MAX_PER_CHECK` in all, with files made worktree-relative. Returns how
/// many were dropped.
pub(crate) fn collect_diagnostics(
    check: &PlannedCheck<'_>,
    result: &CheckResult,
    worktree: &std::path::Path,
    out: &mut Vec<Diagnostic>,
) -> u64 {
    let mut dropped: u64 = result.parsed.iter().map(|p| p.dropped).sum();
    let found = result
        .parsed
        .iter()
        .flat_map(|p| &p.found)
        .chain(&result.artifacts.found);
    // Scan findings are worktree-relative already; tool output is relative
    // to the directory the tool ran in.
    let base = match check.config.kind {
        CheckKind::Scan(_) => worktree,
        CheckKind::Run(_) => check.cwd.as_path(),
    };
    let mut kept = 0;
    for f in found {
        if kept == crate::parse::MAX_PER_CHECK {
            dropped += 1;
            continue;
        }
        kept += 1;
        let mut diagnostic = f.clone();
        diagnostic.check = check.name().to_string();
        diagnostic.file = f
            .file
            .as_deref()
            .map(|file| crate::parse::relativize(file, base, worktree));
        if on_cluster(check)
            && let Some(file) = &diagnostic.file
            && let Some(mapped) = crate::remote::report::worker_path(file, worktree)
        {
            diagnostic.file = Some(mapped);
        }
        out.push(diagnostic);
    }
    dropped
}

/// `result` judged against the `--baseline`, when there is one
/// (docs/baseline.md): a check that failed only for what the baseline
/// explains passes. It must have failed by its exit (no timeout, no
/// signal) as it did in the baseline (the same exit code, no failure its
/// output reports without a location that the baseline's run did not
/// report), have at least one diagnostic, all of them old, and have
/// dropped none over the cap (those might be new). When the diagnostics
/// alone would excuse it but the rest does not, a diagnostic says what is
/// new, so the feedback names it.
fn settled(mut result: CheckResult, check: &PlannedCheck<'_>, plan: &Plan<'_>) -> CheckResult {
    let Some(baseline) = &plan.baseline else {
        return result;
    };
    let mut diagnostics = Vec::new();
    let dropped = collect_diagnostics(check, &result, &plan.worktree, &mut diagnostics);
    let old = baseline.mark(&mut diagnostics);
    result.baseline_suppressed = old;
    if result.status == Status::Fail
        && !result.timed_out
        && dropped == 0
        && old > 0
        && old == diagnostics.len()
    {
        let outputs = [&result.stdout, &result.stderr].map(|e| e.as_ref().map(|e| e.render()));
        let outputs: Vec<&str> = outputs.iter().flatten().map(String::as_str).collect();
        match baseline.unexplained(check.name(), result.exit_code, &outputs, &check.cwd) {
            None => result.status = Status::Pass,
            Some(new) => result.parsed.push(Parsed {
                found: vec![Diagnostic {
                    severity: run_check_documents::evidence::DiagSeverity::Error,
                    rule: Some(crate::run::baseline::UNEXPLAINED.to_string()),
                    message: format!("failed for what the baseline does not explain: {new}"),
                    ..Diagnostic::default()
                }],
                ..Parsed::default()
            }),
        }
    }
    result
}

/// One start of process check `i`, judged against the `--baseline` (a
/// failure for old diagnostics only is a pass, not retried).
fn attempt(i: usize, plan: &Plan<'_>, cancel: &Cancel, contain: &Containment) -> CheckResult {
    let check = &plan.checks[i];
    if let Some(assigned) = check.remote.as_ref().filter(|a| a.fallback.is_none()) {
        // The program and `cwd` are the worker's: nothing here to resolve.
        let start = crate::run::plan::AtStart {
            cwd: check.cwd.clone(),
            program: None,
        };
        let mut result = run_process(check, plan, cancel, &start, (contain, i));
        remote::apply(&mut result, assigned);
        return settled(result, check, plan);
    }
    // docs/checks-toml.md: `cwd` and a path program are resolved again now
    // (a program a need builds, for the first time).
    let result = match crate::run::plan::at_start(check, &plan.worktree) {
        Ok(start) => run_process(check, plan, cancel, &start, (contain, i)),
        Err(why) => CheckResult::errored(why),
    };
    let mut result = settled(result, check, plan);
    result.remote = check
        .remote
        .as_ref()
        .map(crate::remote::report::fallen_back);
    result
}

/// Process check `i`, started at `started`, run again while it fails
/// (exit or timeout; not an error, and not once the run is cancelled) and
/// has `retries` left. The result is the last attempt's, with every
/// attempt logged when there was more than one, `leaked` of them all, and
/// the duration from the first start to the last end. A pass after a
/// failure is flaky: `pass`, or `fail` when the plan says so.
fn run_attempts(
    i: usize,
    plan: &Plan<'_>,
    cancel: &Cancel,
    contain: &Containment,
    started: std::time::Instant,
    retrying: Retrying<'_>,
) -> CheckResult {
    let retries = plan.checks[i].config.retries;
    let mut log = Vec::new();
    let mut leaked = Vec::new();
    let mut spawned = false;
    loop {
        let mut result = attempt(i, plan, cancel, contain);
        spawned |= result.spawned;
        leaked.append(&mut result.leaked);
        let retry =
            result.status == Status::Fail && log.len() < retries as usize && !cancel.is_cancelled();
        if retry || !log.is_empty() {
            log.push(Attempt {
                exit_code: result.exit_code,
                duration_ms: crate::time::millis(result.duration),
                timed_out: result.timed_out,
            });
        }
        if let Some(failed) = log.last().filter(|_| retry) {
            let next = u32::try_from(log.len() + 1).unwrap_or(u32::MAX);
            retrying(failed, next);
            continue;
        }
        if log.len() > 1 {
            result.flaky = result.status == Status::Pass;
            if result.flaky && plan.flaky_fails {
                result.status = Status::Fail;
            }
            result.duration = started.elapsed();
        }
        result.spawned = spawned;
        result.leaked = leaked;
        result.attempt_log = log;
        return result;
    }
}

/// A built-in scan: no process; fails on any error-level finding. What
/// the change adds is weighed against `base` (docs/diagnostics.md).
fn run_scan(
    scan: &crate::config::ScanConfig,
    plan: &Plan<'_>,
    base: Option<&dyn crate::scan::Base>,
) -> CheckResult {
    let started = std::time::Instant::now();
    let strict = plan.mode == crate::config::Mode::Strict;
    let result = crate::scan::run(scan, &plan.worktree, crate::scan::Context { base, strict });
    let failed = result
        .found
        .iter()
        .any(|f| f.severity == run_check_documents::evidence::DiagSeverity::Error);
    CheckResult {
        status: if failed { Status::Fail } else { Status::Pass },
        duration: started.elapsed(),
        skip_reason: None,
        parsed: vec![Parsed {
            // docs/evidence.md: a scan's `data` counts the findings its
            // `run-check: allow` comments silenced, those on new ones, and
            // lists the files it did not read.
            data: Some(result.data()),
            found: result.found,
            dropped: result.dropped,
            ..Parsed::default()
        }],
        ..CheckResult::skipped("")
    }
}

/// Runs one process check and classifies its end into a status.
fn run_process(
    check: &PlannedCheck<'_>,
    plan: &Plan<'_>,
    cancel: &Cancel,
    start: &crate::run::plan::AtStart,
    contain: (&Containment, usize),
) -> CheckResult {
    let cwd = start.cwd.as_path();
    let (program, exec) = match (&start.program, &check.program) {
        (Some(found), _) => (found.real.as_path(), found.exec.as_deref()),
        (None, Ok(planned)) => (planned.as_path(), check.exec.as_deref()),
        // `at_start` looks up a program left for later or errs, and
        // `immediate_result` handles any other missing program.
        (None, Err(why)) => return CheckResult::errored(why.clone()),
    };
    // A remote check's process is the cluster's client (docs/remote.md).
    let client = check.remote.as_ref().filter(|a| a.fallback.is_none());
    let client_args = client.map(remote::client_args).unwrap_or_default();
    // The client is given the cluster's token; no check is.
    let token = plan.remote_token.as_deref();
    let kept: Vec<String> = match client {
        Some(_) => plan
            .scrub
            .iter()
            .filter(|n| Some(n.as_str()) != token)
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let spec = child::Spec {
        program: match client {
            Some(assigned) => &assigned.client,
            None => exec.unwrap_or(program),
        },
        args: match client {
            Some(_) => &client_args,
            None => &check.argv()[1..],
        },
        cwd,
        env: &check.config.env,
        remove: if client.is_some() { &kept } else { &plan.scrub },
        timeout: match client {
            Some(_) => check.timeout.saturating_add(crate::remote::MARGIN),
            None => check.timeout,
        },
        excerpt_bytes: plan.excerpt_bytes,
        contain: Some(contain),
        leave_running: check.config.leave_running,
    };
    let collectors = std::array::from_fn(|_| {
        Collector::new(check.config).map(|c| c.within(cwd, &plan.worktree))
    });
    let outcome = process::run(&spec, collectors, cancel);
    let parsed = [outcome.stdout_parsed, outcome.stderr_parsed]
        .into_iter()
        .flatten()
        .collect();
    let artifacts = if outcome.end == End::Interrupted {
        Collected::default()
    } else {
        artifacts::collect(&check.config.artifacts, &plan.worktree)
    };
    let mut result = CheckResult {
        status: Status::Error,
        skip_reason: None,
        duration: outcome.duration,
        stdout: Some(outcome.stdout),
        stderr: Some(outcome.stderr),
        spawned: true,
        parsed,
        artifacts,
        leaked: outcome.leaked,
        ..CheckResult::skipped("")
    };
    match outcome.end {
        End::Exited(code) => {
            result.exit_code = Some(code);
            result.status = if code == 0 {
                Status::Pass
            } else {
                Status::Fail
            };
        }
        End::TimedOut => {
            result.status = Status::Fail;
            result.timed_out = true;
        }
        End::Interrupted => {
            result.status = Status::Skip;
            result.skip_reason = Some(INTERRUPTED.into());
        }
        End::Signaled(signal) => result.error = Some(format!("killed by {signal}")),
        End::Failed(why) => {
            result.spawned = false;
            result.error = Some(why);
        }
    }
    result
}
