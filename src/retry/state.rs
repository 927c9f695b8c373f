//! The retry state file: its types (field order is the order in the JSON),
//! strict reading with JSON paths, its JSON Schema, and the locked
//! read-modify-write that keeps concurrent `record` calls from losing an
//! update. A state file that cannot be read as exactly this shape is an
//! error and is never rewritten.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::json::Obj;
use crate::error::Error;
use crate::json_input::{Problem, parse_document};

/// Version of the state format; a file with another version is an error.
pub const SCHEMA_VERSION: u32 = 1;

/// The phase of a failure point (seed 004 section 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Verifying a candidate.
    Verify,
    /// Fixing the verifier's issues.
    Fix,
}

impl Phase {
    /// The word used in the state file and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Verify => "verify",
            Phase::Fix => "fix",
        }
    }

    fn from_word(word: &str) -> Option<Phase> {
        match word {
            "verify" => Some(Phase::Verify),
            "fix" => Some(Phase::Fix),
            _ => None,
        }
    }
}

/// What the caller should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Decision {
    /// Failed, within the budget: try again.
    Retry,
    /// Failed (FAIL) past the budget: split the task.
    Subtask,
    /// Failed (ERROR or interrupted) past the budget: needs outside help.
    Blocked,
    /// Passed.
    Resolved,
}

impl Decision {
    /// The word used in the state file and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Retry => "RETRY",
            Decision::Subtask => "SUBTASK",
            Decision::Blocked => "BLOCKED",
            Decision::Resolved => "RESOLVED",
        }
    }

    pub(crate) const WORDS: [&str; 4] = ["RETRY", "SUBTASK", "BLOCKED", "RESOLVED"];

    fn from_word(word: &str) -> Option<Decision> {
        [
            Decision::Retry,
            Decision::Subtask,
            Decision::Blocked,
            Decision::Resolved,
        ]
        .into_iter()
        .find(|d| d.as_str() == word)
    }

    /// The status a point has after this decision.
    pub fn status(self) -> PointStatus {
        match self {
            Decision::Retry => PointStatus::Retrying,
            Decision::Subtask => PointStatus::Subtask,
            Decision::Blocked => PointStatus::Blocked,
            Decision::Resolved => PointStatus::Resolved,
        }
    }
}

/// Where a failure point stands: the status after its latest record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PointStatus {
    /// Failing, within the budget.
    Retrying,
    /// Failing past the budget with a FAIL: to be split.
    Subtask,
    /// Failing past the budget with an ERROR or interruption.
    Blocked,
    /// The latest evidence passed.
    Resolved,
}

impl PointStatus {
    /// The word used in the state file and output.
    pub fn as_str(self) -> &'static str {
        match self {
            PointStatus::Retrying => "retrying",
            PointStatus::Subtask => "subtask",
            PointStatus::Blocked => "blocked",
            PointStatus::Resolved => "resolved",
        }
    }

    pub(crate) const WORDS: [&str; 4] = ["retrying", "subtask", "blocked", "resolved"];

    fn from_word(word: &str) -> Option<PointStatus> {
        [
            PointStatus::Retrying,
            PointStatus::Subtask,
            PointStatus::Blocked,
            PointStatus::Resolved,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }
}

/// What one evidence document said, from its `summary.exit_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Exit 0: PASS.
    Pass,
    /// Exit 1: FAIL.
    Fail,
    /// Exit 2: ERROR.
    Error,
    /// Exit 130: the run was interrupted.
    Interrupted,
}

impl Outcome {
    /// The outcome of an evidence exit code; `None` for a code run-check
    /// never writes.
    pub fn from_exit_code(code: i64) -> Option<Outcome> {
        match code {
            0 => Some(Outcome::Pass),
            1 => Some(Outcome::Fail),
            2 => Some(Outcome::Error),
            130 => Some(Outcome::Interrupted),
            _ => None,
        }
    }

    /// The evidence exit code of this outcome.
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::Error => 2,
            Outcome::Interrupted => 130,
        }
    }
}

/// The summary of one evidence document kept in the state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceSummary {
    /// The evidence file, absolute (`-` for stdin).
    pub path: String,
    /// `summary.banner`.
    pub banner: String,
    /// Names of the checks whose status is `fail`, in evidence order.
    pub failed_checks: Vec<String>,
    /// Names of the checks whose status is `error`, in evidence order.
    pub errored_checks: Vec<String>,
    /// `summary.exit_code`.
    pub exit_code: i32,
    /// What the exit code means.
    pub outcome: Outcome,
    /// `meta.timestamp` of the evidence (when the checks ran).
    pub timestamp: String,
}

/// One `record` call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// 1-based number of the record at this point.
    pub attempt: u64,
    /// When `record` ran (RFC 3339, UTC).
    pub recorded_at: String,
    /// The decision it returned.
    pub decision: Decision,
    /// `retry_count` after it.
    pub retry_count: u64,
    /// The limit it applied.
    pub max_retries: u32,
    /// The evidence it recorded.
    pub evidence: EvidenceSummary,
}

/// One failure point: `task_id + phase + subagent`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Point {
    /// The task.
    pub task_id: String,
    /// `verify` or `fix`.
    pub phase: Phase,
    /// The subagent.
    pub subagent: String,
    /// Where it stands after the latest record.
    pub status: PointStatus,
    /// Failing records since the point was created or reset.
    pub retry_count: u64,
    /// The limit the latest record applied.
    pub max_retries: u32,
    /// The summary of the latest evidence.
    pub last_evidence: EvidenceSummary,
    /// Every record, oldest first.
    pub attempts: Vec<Attempt>,
}

impl Point {
    /// The sort key: task, phase (verify before fix), subagent.
    pub fn key(&self) -> (&str, Phase, &str) {
        (&self.task_id, self.phase, &self.subagent)
    }
}

/// The whole state file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct State {
    /// Format version.
    pub schema_version: u32,
    /// Failure points, sorted by task, phase, subagent.
    pub points: Vec<Point>,
}

impl Default for State {
    fn default() -> State {
        State {
            schema_version: SCHEMA_VERSION,
            points: Vec::new(),
        }
    }
}

impl State {
    /// The file's bytes: pretty JSON with a final newline, points sorted.
    pub fn to_bytes(&mut self) -> Vec<u8> {
        self.points.sort_by(|a, b| a.key().cmp(&b.key()));
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text.into_bytes()
    }
}

/// Checks a task id or subagent name: not blank, no control characters
/// (they would break the one-line outputs). Returns what is wrong.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.trim().is_empty() {
        Err("must not be empty")
    } else if name.chars().any(char::is_control) {
        Err("must not contain control characters")
    } else {
        Ok(())
    }
}

// ---- reading ----

/// Reads the state at `path`: a missing file is an empty state; anything
/// that is not exactly a state document is an error naming the file and the
/// JSON path.
pub fn load(path: &Path) -> Result<State, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::JSON) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
        Err(err) => return Err(Error::io("read retry state", path, err)),
    };
    let value = parse_document(path, &bytes)?;
    from_value(&value).map_err(|problem| problem.into_error(path, ""))
}

/// The state in `value`, checked strictly.
pub(crate) fn from_value(value: &Value) -> Result<State, Problem> {
    let root = Obj::of(value, "$")?;
    // The version first: a newer file is reported as such, not as a shape error.
    root.version("state", SCHEMA_VERSION)?;
    root.only(&["schema_version", "points"])?;
    let mut points = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, item) in root.array("points")?.iter().enumerate() {
        let path = format!("$.points[{i}]");
        let point = point(item, &path)?;
        let key = (point.task_id.clone(), point.phase, point.subagent.clone());
        if !seen.insert(key) {
            return Err(Problem::new(
                path,
                format!(
                    "duplicate failure point (task `{}`, phase `{}`, subagent `{}`)",
                    point.task_id,
                    point.phase.as_str(),
                    point.subagent
                ),
            ));
        }
        points.push(point);
    }
    Ok(State {
        schema_version: SCHEMA_VERSION,
        points,
    })
}

fn name(obj: &Obj<'_>, key: &str) -> Result<String, Problem> {
    let text = obj.str(key)?;
    check_name(text).map_err(|why| Problem::new(obj.path(key), why))?;
    Ok(text.to_string())
}

fn max_retries(obj: &Obj<'_>) -> Result<u32, Problem> {
    let n = obj.uint("max_retries")?;
    u32::try_from(n).map_err(|_| Problem::new(obj.path("max_retries"), "out of range"))
}

fn point(value: &Value, path: &str) -> Result<Point, Problem> {
    let obj = Obj::of(value, path)?;
    obj.only(&[
        "task_id",
        "phase",
        "subagent",
        "status",
        "retry_count",
        "max_retries",
        "last_evidence",
        "attempts",
    ])?;
    let task_id = name(&obj, "task_id")?;
    let phase = obj
        .word("phase", &["verify", "fix"])
        .map(|w| Phase::from_word(w).unwrap_or(Phase::Verify))?;
    let subagent = name(&obj, "subagent")?;
    let status = obj
        .word("status", &PointStatus::WORDS)
        .map(|w| PointStatus::from_word(w).unwrap_or(PointStatus::Retrying))?;
    let retry_count = obj.uint("retry_count")?;
    let max_retries = max_retries(&obj)?;
    let last_path = obj.path("last_evidence");
    let last_evidence = evidence(obj.get("last_evidence")?, &last_path)?;
    let attempts_path = obj.path("attempts");
    let attempts = obj
        .array("attempts")?
        .iter()
        .enumerate()
        .map(|(i, item)| attempt(item, &format!("{attempts_path}[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Point {
        task_id,
        phase,
        subagent,
        status,
        retry_count,
        max_retries,
        last_evidence,
        attempts,
    })
}

fn attempt(value: &Value, path: &str) -> Result<Attempt, Problem> {
    let obj = Obj::of(value, path)?;
    obj.only(&[
        "attempt",
        "recorded_at",
        "decision",
        "retry_count",
        "max_retries",
        "evidence",
    ])?;
    let evidence_path = obj.path("evidence");
    // 1-based, as the schema says.
    let number = obj.uint("attempt")?;
    if number == 0 {
        return Err(Problem::new(
            obj.path("attempt"),
            "must be at least 1, found 0",
        ));
    }
    Ok(Attempt {
        attempt: number,
        recorded_at: obj.str("recorded_at")?.to_string(),
        decision: obj
            .word("decision", &Decision::WORDS)
            .map(|w| Decision::from_word(w).unwrap_or(Decision::Retry))?,
        retry_count: obj.uint("retry_count")?,
        max_retries: max_retries(&obj)?,
        evidence: evidence(obj.get("evidence")?, &evidence_path)?,
    })
}

fn evidence(value: &Value, path: &str) -> Result<EvidenceSummary, Problem> {
    let obj = Obj::of(value, path)?;
    obj.only(&[
        "path",
        "banner",
        "failed_checks",
        "errored_checks",
        "exit_code",
        "outcome",
        "timestamp",
    ])?;
    let path_text = obj.str("path")?.to_string();
    let banner = obj.str("banner")?.to_string();
    let failed_checks = obj.strings("failed_checks")?;
    let errored_checks = obj.strings("errored_checks")?;
    let code = obj.int("exit_code")?;
    let outcome = Outcome::from_exit_code(code).ok_or_else(|| {
        Problem::new(
            obj.path("exit_code"),
            format!("expected 0, 1, 2 or 130, found {code}"),
        )
    })?;
    let word = obj.word("outcome", &["pass", "fail", "error", "interrupted"])?;
    if word != outcome_word(outcome) {
        return Err(Problem::new(
            obj.path("outcome"),
            format!("{word:?} does not match exit_code {code}"),
        ));
    }
    Ok(EvidenceSummary {
        path: path_text,
        banner,
        failed_checks,
        errored_checks,
        exit_code: outcome.exit_code(),
        outcome,
        timestamp: obj.str("timestamp")?.to_string(),
    })
}

fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::Interrupted => "interrupted",
    }
}

// ---- writing ----

/// The sidecar lock file of a state file: `STATE.lock` beside it.
pub fn lock_path(state: &Path) -> PathBuf {
    let mut name = state.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    state.with_file_name(name)
}

/// An exclusive lock on a state file, held until dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
}

impl Lock {
    /// Blocks until this process holds the exclusive lock of `state`
    /// (creating the sidecar lock file when needed).
    pub fn acquire(state: &Path) -> Result<Lock, Error> {
        let path = lock_path(state);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|err| Error::io("open lock file", &path, err))?;
        file.lock().map_err(|err| Error::io("lock", &path, err))?;
        Ok(Lock { file })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Closing the handle releases the lock too; unlocking first makes the
        // release explicit and immediate.
        let _ = self.file.unlock();
    }
}

/// Replaces the state file atomically: a temporary file in the same
/// directory, flushed, renamed over it. The caller holds the [`Lock`].
pub fn store(path: &Path, state: &mut State) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp =
        crate::output::atomic_temp(dir, ".retry-state-", path, crate::output::FileKind::Regular)
            .map_err(|err| {
                Error::io("write retry state", path, std::io::Error::from(err.kind()))
            })?;
    temp.write_all(&state.to_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|err| Error::io("write retry state", path, err))?;
    temp.persist(path)
        .map_err(|err| Error::io("replace retry state", path, err.error))?;
    Ok(())
}
