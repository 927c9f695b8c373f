//! `run-check retry` (docs/retry.md): counts retries
//! per failure point (`task_id + phase + subagent`) in one JSON state file and
//! says when to stop retrying.
//!
//! - `record` reads one evidence document. Passing evidence resolves the
//!   point (`RESOLVED`, exit 0). Failing evidence adds one to `retry_count`
//!   (also past the limit): `RETRY` (exit 0) while `retry_count` ≤
//!   `max_retries`, then `SUBTASK` (exit 1) when that evidence was a FAIL and
//!   `BLOCKED` (exit 1) when it was an ERROR or an interrupted run.
//! - `status` shows the points; `reset` forgets them.
//!
//! Concurrent `record` calls on one state file (parallel candidates) are
//! serialised by an exclusive lock on the sidecar file `STATE.lock`; under
//! it the state is read, changed, written to a temporary file in the same
//! directory and renamed over the state, so no update is lost and a reader
//! never sees half a file. A state file that is not exactly a state document
//! is reported (exit 2) and never rewritten. This module never touches the
//! worktree: it writes only the state file the user named (or the default)
//! and its lock file.

mod evidence;
pub(crate) mod state;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::error::Error;
use crate::exit_code;
use run_check_documents::retry::{RecordOutput, StatusOutput};
use state::{Decision, EvidenceSummary, Lock, Outcome, Phase, Point, State};

/// The state file when `--state` is not given (relative to the current
/// directory).
pub(crate) const DEFAULT_STATE: &str = "runs/retry-state.json";
/// `max_retries` when no checks.toml sets `[retry] max_retries`.
pub(crate) const DEFAULT_MAX_RETRIES: u32 = 3;

/// `retry` options.
#[derive(Debug, Args)]
// A missing action is a one-line usage error naming the actions, not help.
#[command(arg_required_else_help = false, subcommand_required = true)]
pub(crate) struct RetryArgs {
    /// record, status or reset
    #[command(subcommand)]
    pub(crate) action: RetryAction,
}

/// What `retry` does.
#[derive(Debug, Subcommand)]
pub(crate) enum RetryAction {
    /// Record one attempt's evidence for a failure point and print the decision
    /// (exit 0 RETRY/RESOLVED, 1 SUBTASK/BLOCKED)
    Record(RecordArgs),
    /// Show the failure points
    Status(StatusArgs),
    /// Forget failure points of a task
    Reset(ResetArgs),
}

/// Output format of `record` and `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RetryFormat {
    /// JSON on stdout
    Json,
    /// Human-readable lines
    Text,
}

/// The state file option shared by every action.
#[derive(Debug, Args, Clone)]
pub(crate) struct StateArg {
    /// The state file (created by `record`, with its parent directories)
    #[arg(long = "state", value_name = "FILE", default_value = DEFAULT_STATE)]
    pub(crate) path: PathBuf,
}

/// `retry record` options.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// The task id of the failure point
    #[arg(long = "task", value_name = "ID")]
    pub(crate) task_id: String,
    /// The phase of the failure point
    #[arg(long, value_parser = phase())]
    pub(crate) phase: Phase,
    /// The subagent of the failure point
    #[arg(long, value_name = "NAME")]
    pub(crate) subagent: String,
    /// Evidence JSON written by `run-check --format json`; `-` for stdin
    #[arg(long, value_name = "EV.json")]
    pub(crate) evidence: PathBuf,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: RetryFormat,
    /// checks.toml whose `[retry]` table sets `max_retries` [default:
    /// ./checks.toml when present, else 3]
    #[arg(long, value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
}

/// `retry status` options.
#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Only the points of this task
    #[arg(long = "task", value_name = "ID")]
    pub(crate) task_id: Option<String>,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: RetryFormat,
}

/// `retry reset` options.
#[derive(Debug, Args)]
pub(crate) struct ResetArgs {
    /// The task whose points to forget
    #[arg(long = "task", value_name = "ID")]
    pub(crate) task_id: String,
    /// Only the points of this phase
    #[arg(long, value_parser = phase())]
    pub(crate) phase: Option<Phase>,
    /// Only the points of this subagent
    #[arg(long, value_name = "NAME")]
    pub(crate) subagent: Option<String>,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
}

pub(crate) fn run(args: &RetryArgs) -> Result<i32, Error> {
    match &args.action {
        RetryAction::Record(args) => record(args),
        RetryAction::Status(args) => status(args),
        RetryAction::Reset(args) => reset(args),
    }
}

/// `--phase`: `verify` or `fix`.
pub(crate) fn phase() -> impl clap::builder::TypedValueParser<Value = Phase> {
    use clap::builder::{PossibleValue, TypedValueParser};
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("verify").help("Verifying a candidate"),
        PossibleValue::new("fix").help("Fixing the verifier's issues"),
    ])
    .map(|word| Phase::from_word(&word).unwrap_or(Phase::Verify))
}

/// The decision for a record: `outcome` is the recorded evidence's,
/// `retry_count` the count after it.
pub(crate) fn decide(outcome: Outcome, retry_count: u64, max_retries: u32) -> Decision {
    match outcome {
        Outcome::Pass => Decision::Resolved,
        _ if retry_count <= u64::from(max_retries) => Decision::Retry,
        Outcome::Fail => Decision::Subtask,
        Outcome::Error | Outcome::Interrupted => Decision::Blocked,
    }
}

pub(crate) fn decision_exit_code(decision: Decision) -> i32 {
    match decision {
        Decision::Retry | Decision::Resolved => exit_code::PASS,
        Decision::Subtask | Decision::Blocked => exit_code::FAIL,
    }
}

/// Adds one record to `state` and returns the updated point.
pub(crate) fn apply(
    state: &mut State,
    (task_id, phase, subagent): (&str, Phase, &str),
    evidence: EvidenceSummary,
    max_retries: u32,
    recorded_at: String,
) -> Point {
    let index = match state
        .points
        .iter()
        .position(|p| p.key() == (task_id, phase, subagent))
    {
        Some(index) => index,
        None => {
            state.points.push(Point {
                task_id: task_id.to_string(),
                phase,
                subagent: subagent.to_string(),
                status: state::PointStatus::Retrying,
                retry_count: 0,
                max_retries,
                last_evidence: evidence.clone(),
                attempts: Vec::new(),
            });
            state.points.len() - 1
        }
    };
    let point = &mut state.points[index];
    if evidence.outcome != Outcome::Pass {
        point.retry_count = point.retry_count.saturating_add(1);
    }
    let decision = decide(evidence.outcome, point.retry_count, max_retries);
    point.status = decision.status();
    point.max_retries = max_retries;
    point.last_evidence = evidence.clone();
    let number = point
        .attempts
        .last()
        .map_or(0, |a| a.attempt)
        .saturating_add(1);
    point.attempts.push(state::Attempt {
        attempt: number,
        recorded_at,
        decision,
        retry_count: point.retry_count,
        max_retries,
        evidence,
    });
    point.clone()
}

/// Records `evidence` for one failure point in the state file `path`
/// (which must be a file name; its folder must exist), under the state's
/// lock: the decision and the point after it.
pub(crate) fn record_locked(
    path: &Path,
    point: (&str, Phase, &str),
    evidence: EvidenceSummary,
    max_retries: u32,
) -> Result<(Decision, Point), Error> {
    let point = {
        let _lock = Lock::acquire(path)?;
        let mut state = state::load(path)?;
        let point = apply(
            &mut state,
            point,
            evidence,
            max_retries,
            crate::time::timestamp(),
        );
        state::store(path, &mut state)?;
        point
    };
    let decision = point
        .attempts
        .last()
        .map_or(Decision::Retry, |a| a.decision);
    Ok((decision, point))
}

/// The summary the state keeps of `evidence`, read from `path` (recorded
/// as given).
pub(crate) fn summarize(
    evidence: run_check_documents::evidence::Evidence,
    path: &Path,
) -> EvidenceSummary {
    evidence::summarize(evidence, path.display().to_string())
}

// ---- actions ----

fn record(args: &RecordArgs) -> Result<i32, Error> {
    check_name("--task", &args.task_id)?;
    check_name("--subagent", &args.subagent)?;
    let path = state_path(&args.state)?;
    let max_retries = max_retries(args.config.as_deref())?;
    // The evidence is read before the state is touched: bad input changes
    // nothing.
    let evidence = evidence::load(&args.evidence)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io("create the directory of", path, err))?;
    }
    let (decision, point) = record_locked(
        path,
        (&args.task_id, args.phase, &args.subagent),
        evidence,
        max_retries,
    )?;
    let text = match args.format {
        RetryFormat::Json => run_check_documents::pretty(&RecordOutput::new(decision, &point)),
        RetryFormat::Text => format!("{}\n", record_line(decision, &point)),
    };
    print(&text)?;
    Ok(decision_exit_code(decision))
}

fn status(args: &StatusArgs) -> Result<i32, Error> {
    if let Some(task_id) = &args.task_id {
        check_name("--task", task_id)?;
    }
    let path = state_path(&args.state)?;
    let mut state = state::load(path)?;
    state.points.sort_by(|a, b| a.key().cmp(&b.key()));
    let points: Vec<&Point> = state
        .points
        .iter()
        .filter(|p| args.task_id.as_ref().is_none_or(|t| &p.task_id == t))
        .collect();
    let text = match args.format {
        RetryFormat::Json => run_check_documents::pretty(&StatusOutput {
            points: points.into_iter().cloned().collect(),
        }),
        RetryFormat::Text => status_text(&points, args.task_id.as_deref(), path),
    };
    print(&text)?;
    Ok(exit_code::PASS)
}

fn reset(args: &ResetArgs) -> Result<i32, Error> {
    check_name("--task", &args.task_id)?;
    if let Some(subagent) = &args.subagent {
        check_name("--subagent", subagent)?;
    }
    let path = state_path(&args.state)?;
    let matches = |p: &Point| {
        p.task_id == args.task_id
            && args.phase.is_none_or(|phase| p.phase == phase)
            && args.subagent.as_ref().is_none_or(|s| &p.subagent == s)
    };
    // No state file: nothing to forget, and nothing (not even a lock file)
    // is created.
    let removed = if path.exists() {
        let _lock = Lock::acquire(path)?;
        let mut state = state::load(path)?;
        let before = state.points.len();
        state.points.retain(|p| !matches(p));
        let removed = before - state.points.len();
        if removed > 0 {
            state::store(path, &mut state)?;
        }
        removed
    } else {
        0
    };
    let mut what = format!("task `{}`", args.task_id);
    if let Some(phase) = args.phase {
        what.push_str(&format!(", phase {}", phase.as_str()));
    }
    if let Some(subagent) = &args.subagent {
        what.push_str(&format!(", subagent `{subagent}`"));
    }
    let removed = crate::output::plural(removed, "failure point");
    print(&format!("reset {removed} of {what}\n"))?;
    Ok(exit_code::PASS)
}

// ---- inputs ----

fn check_name(flag: &str, value: &str) -> Result<(), Error> {
    state::check_name(value).map_err(|why| Error::Usage(format!("{flag} {value:?}: {why}")))
}

fn state_path(arg: &StateArg) -> Result<&Path, Error> {
    let path = arg.path.as_path();
    if path.as_os_str().is_empty() {
        return Err(Error::Usage("--state is empty; name a file".into()));
    }
    if path.file_name().is_none() || path.is_dir() {
        return Err(Error::Usage(format!(
            "--state `{}` is a directory; name a file",
            path.display()
        )));
    }
    Ok(path)
}

/// `[retry] max_retries` of `--config`, else of ./checks.toml when it
/// exists, else the default. The whole config is validated: a broken
/// checks.toml is an error, not a silent default.
fn max_retries(config: Option<&Path>) -> Result<u32, Error> {
    let config = match config {
        Some(path) => crate::config::load(path, path, true)?,
        None => {
            let path = Path::new("checks.toml");
            if !path.exists() {
                return Ok(DEFAULT_MAX_RETRIES);
            }
            crate::config::load(path, path, false)?
        }
    };
    Ok(config.retry.max_retries.unwrap_or(DEFAULT_MAX_RETRIES))
}

// ---- outputs ----

/// `record --format text`: one line.
fn record_line(decision: Decision, point: &Point) -> String {
    let (count, max) = (point.retry_count, point.max_retries);
    let banner = &point.last_evidence.banner;
    let detail = match decision {
        Decision::Retry => format!("retry {count} of {max}; run again ({banner})"),
        Decision::Subtask => format!(
            "failed {count} times, past max_retries {max}; split the task into subtasks ({banner})"
        ),
        Decision::Blocked => {
            let how = if point.last_evidence.outcome == Outcome::Interrupted {
                "was interrupted"
            } else {
                "errored"
            };
            format!(
                "failed {count} times, past max_retries {max}, and the last run {how}; \
                 mark the task blocked ({banner})"
            )
        }
        Decision::Resolved if count == 0 => "passed".to_string(),
        Decision::Resolved => {
            format!(
                "passed after {}",
                crate::output::plural(count, "failed attempt")
            )
        }
    };
    format!(
        "{}: task `{}`, phase {}, subagent `{}`: {detail}",
        decision.as_str(),
        point.task_id,
        point.phase.as_str(),
        point.subagent
    )
}

/// `status --format text`: an aligned table, one row per point.
fn status_text(points: &[&Point], task_id: Option<&str>, path: &Path) -> String {
    if points.is_empty() {
        let of = task_id.map_or(String::new(), |t| format!(" of task `{t}`"));
        return format!("no failure points{of} in `{}`\n", path.display());
    }
    let header = [
        "TASK",
        "PHASE",
        "SUBAGENT",
        "STATUS",
        "RETRIES",
        "LAST EVIDENCE",
    ]
    .map(String::from);
    let rows: Vec<[String; 6]> = points
        .iter()
        .map(|p| {
            [
                p.task_id.clone(),
                p.phase.as_str().to_string(),
                p.subagent.clone(),
                p.status.as_str().to_string(),
                format!("{}/{}", p.retry_count, p.max_retries),
                format!(
                    "exit {}: {}",
                    p.last_evidence.exit_code, p.last_evidence.banner
                ),
            ]
        })
        .collect();
    let mut widths = [0; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let pad = widths[i] - cell.chars().count();
                line.push_str(cell);
                line.push_str(&" ".repeat(pad + 2));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

fn print(text: &str) -> Result<(), Error> {
    crate::output::Output::Stdout.write(text.as_bytes())
}

#[cfg(test)]
mod tests;
