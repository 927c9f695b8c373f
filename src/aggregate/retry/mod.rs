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
//! worktree: it writes only the state file the user named (or the default),
//! its lock file and, with `--lessons DIR`, a point's lesson in DIR
//! (`lesson.rs`), written under the same lock.
//!
//! [`record`] is the whole of one record, for the CLI and for a command
//! that records in-process.

mod evidence;
mod lesson;
pub(crate) mod state;

use std::path::Path;

use crate::error::Error;
use run_check_documents::exit_code;
use run_check_documents::retry::RecordOutput;
use state::{Decision, EvidenceSummary, Lock, Outcome, Phase, Point, State};

/// The state file when `--state` is not given (relative to the current
/// directory).
pub(crate) const DEFAULT_STATE: &str = "runs/retry-state.json";
/// `max_retries` when no checks.toml sets `[retry] max_retries`.
pub(crate) const DEFAULT_MAX_RETRIES: u32 = 3;

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

// ---- actions ----

/// One record: the failure point, its evidence and where the state and a
/// due lesson go.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub(crate) task_id: &'a str,
    pub(crate) phase: Phase,
    pub(crate) subagent: &'a str,
    /// Evidence JSON written by `run-check --format json`; `-` for stdin.
    pub(crate) evidence: &'a Path,
    /// The state file, created with its parent directories.
    pub(crate) state: &'a Path,
    /// The limit this record applies (see [`max_retries`]); `None`: the
    /// `[retry]` of the config the evidence was made with, else the default.
    pub(crate) max_retries: Option<u32>,
    /// Where the point's lesson is written when one is due; `None`: nowhere.
    pub(crate) lessons: Option<&'a Path>,
}

/// Records one attempt: reads the evidence, updates its failure point in
/// the state under the state's lock, writes the point's lesson when one is
/// due and `lessons` is given, and returns what `record --format json`
/// prints (the exit code is [`decision_exit_code`] of its decision). Bad
/// input is an error before anything is written.
pub(crate) fn record(request: &Record<'_>) -> Result<RecordOutput, Error> {
    check_name("--task", request.task_id)?;
    check_name("--subagent", request.subagent)?;
    let path = state_path(request.state)?;
    let lessons = request.lessons.map(lessons_dir).transpose()?;
    // The evidence is read before the state is touched: bad input changes
    // nothing.
    let (evidence, diagnostics, recorded) = evidence::load(request.evidence)?;
    let max_retries = match (request.max_retries, recorded) {
        (Some(n), _) => n,
        (None, Some(config)) => limit(&config?),
        (None, None) => DEFAULT_MAX_RETRIES,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io("create the directory of", path, err))?;
    }
    let _lock = Lock::acquire(path)?;
    let mut state = state::load(path)?;
    let now = crate::time::now();
    let recorded_at = crate::time::rfc3339(now);
    let point = apply(
        &mut state,
        (request.task_id, request.phase, request.subagent),
        evidence,
        max_retries,
        recorded_at.clone(),
    );
    let decision = point
        .attempts
        .last()
        .map_or(Decision::Retry, |a| a.decision);
    // The lesson before the state, under the lock: a lesson that cannot be
    // written leaves the state as it was, and two records of one point
    // never write its lesson at once.
    let lesson = match lessons {
        Some(dir) if point.lesson_due() => {
            let text = lesson::render(&point, decision, &recorded_at, &diagnostics);
            let date = now.format("%Y-%m-%d").to_string();
            let written = lesson::write(dir, &date, point.key(), &text)?;
            Some(written.display().to_string())
        }
        _ => None,
    };
    state::store(path, &mut state)?;
    Ok(RecordOutput::new(decision, &point, lesson))
}

/// The points of the state at `state` (only task `task_id`'s when given),
/// sorted by their key.
pub(crate) fn status(task_id: Option<&str>, state: &Path) -> Result<Vec<Point>, Error> {
    if let Some(task_id) = task_id {
        check_name("--task", task_id)?;
    }
    let mut state = state::load(state_path(state)?)?;
    state.points.sort_by(|a, b| a.key().cmp(&b.key()));
    state
        .points
        .retain(|p| task_id.is_none_or(|t| p.task_id == t));
    Ok(state.points)
}

/// Forgets the points of task `task_id` (only those of `phase` and
/// `subagent` when given) in the state at `state`; returns how many.
pub(crate) fn reset(
    task_id: &str,
    phase: Option<Phase>,
    subagent: Option<&str>,
    state: &Path,
) -> Result<usize, Error> {
    check_name("--task", task_id)?;
    if let Some(subagent) = subagent {
        check_name("--subagent", subagent)?;
    }
    let path = state_path(state)?;
    let matches = |p: &Point| {
        p.task_id == task_id
            && phase.is_none_or(|phase| p.phase == phase)
            && subagent.is_none_or(|s| p.subagent == s)
    };
    // No state file: nothing to forget, and nothing (not even a lock file)
    // is created.
    if !path.exists() {
        return Ok(0);
    }
    let _lock = Lock::acquire(path)?;
    let mut state = state::load(path)?;
    let before = state.points.len();
    state.points.retain(|p| !matches(p));
    let removed = before - state.points.len();
    if removed > 0 {
        state::store(path, &mut state)?;
    }
    Ok(removed)
}

// ---- inputs ----

fn check_name(flag: &str, value: &str) -> Result<(), Error> {
    state::check_name(value).map_err(|why| Error::Usage(format!("{flag} {value:?}: {why}")))
}

fn state_path(path: &Path) -> Result<&Path, Error> {
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

/// `--lessons`: a directory, or nothing yet (created when a lesson is due).
fn lessons_dir(path: &Path) -> Result<&Path, Error> {
    if path.as_os_str().is_empty() {
        return Err(Error::Usage("--lessons is empty; name a directory".into()));
    }
    if path.exists() && !path.is_dir() {
        return Err(Error::Usage(format!(
            "--lessons `{}` is not a directory",
            path.display()
        )));
    }
    Ok(path)
}

/// `[retry] max_retries` of a loaded config, else the default.
pub(crate) fn limit(config: &crate::config::Config) -> u32 {
    config.retry.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
}

/// `[retry] max_retries` of `--config` (the whole config validated: a
/// broken one is an error, not a silent default); `None` without it: the
/// record then reads the config the evidence was made with.
pub(crate) fn max_retries(config: Option<&Path>) -> Result<Option<u32>, Error> {
    let Some(path) = config else {
        return Ok(None);
    };
    let config = crate::config::load(path, path, true)?;
    Ok(Some(limit(&config)))
}

// ---- outputs ----

/// `record --format text`: one line, from what `--format json` prints.
pub(crate) fn record_line(out: &RecordOutput) -> String {
    let (count, max) = (out.retry_count, out.max_retries);
    let banner = &out.last_evidence.banner;
    let detail = match out.decision {
        Decision::Retry => format!("retry {count} of {max}; run again ({banner})"),
        Decision::Subtask => format!(
            "failed {count} times, past max_retries {max}; split the task into subtasks ({banner})"
        ),
        Decision::Blocked => {
            let how = if out.last_evidence.outcome == Outcome::Interrupted {
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
    let lesson = match (&out.lesson, out.lesson_due) {
        (Some(path), _) => format!("; lesson: `{path}`"),
        (None, true) => "; lesson due (`--lessons DIR` writes it)".to_string(),
        (None, false) => String::new(),
    };
    format!(
        "{}: task `{}`, phase {}, subagent `{}`: {detail}{lesson}",
        out.decision.as_str(),
        out.task_id,
        out.phase.as_str(),
        out.subagent
    )
}

/// `status --format text`: an aligned table, one row per point.
pub(crate) fn status_text(points: &[&Point], task_id: Option<&str>, path: &Path) -> String {
    if points.is_empty() {
        let of = task_id.map_or(String::new(), |t| format!(" of task `{t}`"));
        return format!("no failure points{of} in `{}`\n", path.display());
    }
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
    crate::output::table(
        [
            "TASK",
            "PHASE",
            "SUBAGENT",
            "STATUS",
            "RETRIES",
            "LAST EVIDENCE",
        ],
        &rows,
    )
}

#[cfg(test)]
mod tests;
