//! The retry state file of `run-check retry`: failure points (task, phase,
//! subagent) with their retry counts, latest evidence and attempt history.
//! Field order here is the order in the JSON; every object is closed and
//! every field required.

use std::collections::BTreeSet;

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};

use crate::int;
use crate::read::{self, Problem};

/// Version of the state format; a file with another version is an error.
pub const SCHEMA_VERSION: u32 = 1;

/// The phase of a failure point (docs/retry.md).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
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

    /// The phase called `word`.
    pub fn from_word(word: &str) -> Option<Phase> {
        match word {
            "verify" => Some(Phase::Verify),
            "fix" => Some(Phase::Fix),
            _ => None,
        }
    }
}

/// What the caller should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

    /// Every word, in order.
    pub const WORDS: [&str; 4] = ["RETRY", "SUBTASK", "BLOCKED", "RESOLVED"];

    /// The decision called `word`.
    pub fn from_word(word: &str) -> Option<Decision> {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

    /// Every word, in order.
    pub const WORDS: [&str; 4] = ["retrying", "subtask", "blocked", "resolved"];

    /// The status called `word`.
    pub fn from_word(word: &str) -> Option<PointStatus> {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
        match i32::try_from(code) {
            Ok(crate::exit_code::PASS) => Some(Outcome::Pass),
            Ok(crate::exit_code::FAIL) => Some(Outcome::Fail),
            Ok(crate::exit_code::ERROR) => Some(Outcome::Error),
            Ok(crate::exit_code::INTERRUPTED) => Some(Outcome::Interrupted),
            _ => None,
        }
    }

    /// The evidence exit code of this outcome.
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Pass => crate::exit_code::PASS,
            Outcome::Fail => crate::exit_code::FAIL,
            Outcome::Error => crate::exit_code::ERROR,
            Outcome::Interrupted => crate::exit_code::INTERRUPTED,
        }
    }
}

/// The summary of one evidence document kept in the state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = outcome_is_the_exit_code)]
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
    #[serde(deserialize_with = "int::de")]
    #[schemars(extend("enum" = [0, 1, 2, 130]))]
    pub exit_code: i32,
    /// What the exit code means.
    pub outcome: Outcome,
    /// `meta.timestamp` of the evidence (when the checks ran).
    pub timestamp: String,
}

/// One `record` call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    /// 1-based number of the record at this point.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub attempt: u64,
    /// When `record` ran (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    pub recorded_at: String,
    /// The decision it returned.
    pub decision: Decision,
    /// `retry_count` after it.
    #[serde(deserialize_with = "int::de")]
    pub retry_count: u64,
    /// The limit it applied.
    #[serde(deserialize_with = "int::de")]
    pub max_retries: u32,
    /// The evidence it recorded.
    pub evidence: EvidenceSummary,
}

/// One failure point: `task_id + phase + subagent`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// The task: not blank, no control characters.
    #[serde(deserialize_with = "name")]
    #[schemars(regex(
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    ))]
    pub task_id: String,
    /// `verify` or `fix`.
    pub phase: Phase,
    /// The subagent: not blank, no control characters.
    #[serde(deserialize_with = "name")]
    #[schemars(regex(
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    ))]
    pub subagent: String,
    /// Where it stands after the latest record.
    pub status: PointStatus,
    /// Failing records since the point was created or reset.
    #[serde(deserialize_with = "int::de")]
    pub retry_count: u64,
    /// The limit the latest record applied.
    #[serde(deserialize_with = "int::de")]
    pub max_retries: u32,
    /// The summary of the latest evidence.
    pub last_evidence: EvidenceSummary,
    /// Every record, oldest first.
    pub attempts: Vec<Attempt>,
}

/// A failure point is due a lesson once it has failed this many times.
pub const LESSON_DUE_AT: u64 = 2;

impl Point {
    /// The sort key: task, phase (verify before fix), subagent.
    pub fn key(&self) -> (&str, Phase, &str) {
        (&self.task_id, self.phase, &self.subagent)
    }

    /// Whether the point is due a lesson: it failed [`LESSON_DUE_AT`] times
    /// or more, whatever its status (a point resolved after two failures
    /// is the lesson most worth writing).
    pub fn lesson_due(&self) -> bool {
        self.retry_count >= LESSON_DUE_AT
    }
}

/// Failure points (task_id + phase + subagent) with their retry counts, latest evidence and attempt history, written by `run-check retry record`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check retry state")]
pub struct State {
    /// Format version.
    #[serde(deserialize_with = "version")]
    #[schemars(extend("const" = 1))]
    pub schema_version: u32,
    /// Sorted by task_id, phase (verify before fix), subagent. A failure point appears at most once (checked by the reader; not expressible here).
    pub points: Vec<Point>,
}

/// What `run-check retry record --format json` prints: the decision of this record and the failure point after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check retry record output")]
#[schemars(transform = no_lesson_unless_due)]
pub struct RecordOutput {
    /// What to do next.
    pub decision: Decision,
    /// Failing records at this point since it was created or reset.
    #[serde(deserialize_with = "int::de")]
    pub retry_count: u64,
    /// The limit this record applied.
    #[serde(deserialize_with = "int::de")]
    pub max_retries: u32,
    /// The task.
    pub task_id: String,
    /// `verify` or `fix`.
    pub phase: Phase,
    /// The subagent.
    pub subagent: String,
    /// Where the point stands after this record.
    pub status: PointStatus,
    /// This record's number at the point (1-based).
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub attempt: u64,
    /// The summary of the evidence just recorded.
    pub last_evidence: EvidenceSummary,
    /// Whether the point is due a lesson: `retry_count` is 2 or more after this record (a resolved point too).
    pub lesson_due: bool,
    /// The lesson file of the point (`record --lessons DIR`), written by this record or kept from an earlier one; null without `--lessons` or when no lesson is due.
    #[serde(deserialize_with = "read::nullable")]
    pub lesson: Option<String>,
}

impl RecordOutput {
    /// The output of a record that returned `decision` and left `point`;
    /// `lesson` is the lesson file of the point, when one was written or kept.
    pub fn new(decision: Decision, point: &Point, lesson: Option<String>) -> RecordOutput {
        RecordOutput {
            decision,
            retry_count: point.retry_count,
            max_retries: point.max_retries,
            task_id: point.task_id.clone(),
            phase: point.phase,
            subagent: point.subagent.clone(),
            status: point.status,
            attempt: point.attempts.last().map_or(1, |a| a.attempt),
            last_evidence: point.last_evidence.clone(),
            lesson_due: point.lesson_due(),
            lesson,
        }
    }
}

/// What `run-check retry status --format json` prints: the failure points (of one task with `--task`), sorted as in the state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check retry status output")]
pub struct StatusOutput {
    /// The failure points.
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
        crate::pretty(self).into_bytes()
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

fn version<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    int::version(deserializer, SCHEMA_VERSION, "state")
}

fn name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    check_name(&text).map_err(serde::de::Error::custom)?;
    Ok(text)
}

impl Outcome {
    /// The word used in the state file.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
            Outcome::Interrupted => "interrupted",
        }
    }
}

/// A record that is not due a lesson names none.
fn no_lesson_unless_due(schema: &mut Schema) {
    schema.insert(
        "if".into(),
        json!({"properties": {"lesson_due": {"const": false}}}),
    );
    schema.insert(
        "then".into(),
        json!({"properties": {"lesson": {"type": "null"}}}),
    );
}

/// The outcome is the one of the exit code.
fn outcome_is_the_exit_code(schema: &mut Schema) {
    let cases: Vec<Value> = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::Error,
        Outcome::Interrupted,
    ]
    .into_iter()
    .map(|o| {
        json!({"properties": {
            "exit_code": {"const": o.exit_code()},
            "outcome": {"const": o.as_str()},
        }})
    })
    .collect();
    schema.insert("oneOf".into(), Value::Array(cases));
}

impl State {
    /// Reads a state from a parsed value: its shape, then [`State::check`].
    pub fn from_value(value: Value) -> Result<State, Problem> {
        let state: State = read::from_value(value)?;
        state.check()?;
        Ok(state)
    }

    /// The rules a type cannot hold: a failure point appears once; each
    /// evidence summary's outcome is that of its exit code.
    pub fn check(&self) -> Result<(), Problem> {
        let mut seen = BTreeSet::new();
        for (i, point) in self.points.iter().enumerate() {
            let path = format!("$.points[{i}]");
            if !seen.insert(point.key()) {
                return Err(Problem::at(
                    path,
                    format!(
                        "duplicate failure point (task `{}`, phase `{}`, subagent `{}`)",
                        point.task_id,
                        point.phase.as_str(),
                        point.subagent
                    ),
                ));
            }
            point
                .last_evidence
                .check(&format!("{path}.last_evidence"))?;
            for (j, attempt) in point.attempts.iter().enumerate() {
                let path = format!("{path}.attempts[{j}]");
                if attempt.attempt == 0 {
                    return Err(Problem::at(
                        format!("{path}.attempt"),
                        "must be at least 1, found 0",
                    ));
                }
                attempt.evidence.check(&format!("{path}.evidence"))?;
            }
        }
        Ok(())
    }
}

impl EvidenceSummary {
    fn check(&self, path: &str) -> Result<(), Problem> {
        let code = self.exit_code;
        match Outcome::from_exit_code(i64::from(code)) {
            None => Err(Problem::at(
                format!("{path}.exit_code"),
                format!("expected 0, 1, 2 or 130, found {code}"),
            )),
            Some(outcome) if outcome != self.outcome => Err(Problem::at(
                format!("{path}.outcome"),
                format!(
                    "{:?} does not match exit_code {code}",
                    self.outcome.as_str()
                ),
            )),
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(retry_count: u64, status: PointStatus) -> Point {
        let evidence = EvidenceSummary {
            path: "/abs/ev.json".into(),
            banner: "1 of 1 checks failed: a".into(),
            failed_checks: vec!["a".into()],
            errored_checks: vec![],
            exit_code: 1,
            outcome: Outcome::Fail,
            timestamp: "2026-11-21T23:59:00Z".into(),
        };
        Point {
            task_id: "T-1".into(),
            phase: Phase::Verify,
            subagent: "a".into(),
            status,
            retry_count,
            max_retries: 3,
            last_evidence: evidence.clone(),
            attempts: vec![Attempt {
                attempt: 1,
                recorded_at: "2026-11-22T00:00:00Z".into(),
                decision: Decision::Retry,
                retry_count,
                max_retries: 3,
                evidence,
            }],
        }
    }

    #[test]
    fn a_lesson_is_due_from_the_second_failure_resolved_or_not() {
        assert!(!point(0, PointStatus::Resolved).lesson_due());
        assert!(!point(1, PointStatus::Retrying).lesson_due());
        assert!(point(2, PointStatus::Retrying).lesson_due());
        assert!(point(2, PointStatus::Resolved).lesson_due());
        assert!(point(u64::MAX, PointStatus::Subtask).lesson_due());
    }

    #[test]
    fn the_record_output_carries_the_lesson() {
        let out = RecordOutput::new(Decision::Retry, &point(1, PointStatus::Retrying), None);
        assert_eq!((out.lesson_due, out.lesson), (false, None));
        let out = RecordOutput::new(
            Decision::Resolved,
            &point(2, PointStatus::Resolved),
            Some("lessons/x.md".into()),
        );
        assert!(out.lesson_due);
        assert_eq!(out.lesson.as_deref(), Some("lessons/x.md"));
        // The two fields come last, in this order.
        let text = crate::pretty(&out);
        let at = |field: &str| text.find(&format!("\n  \"{field}\":")).unwrap();
        assert!(at("last_evidence") < at("lesson_due") && at("lesson_due") < at("lesson"));
        let value = serde_json::to_value(&out).unwrap();
        let back: RecordOutput = crate::read::from_value(value.clone()).unwrap();
        assert_eq!(back, out);
        // Both fields are required: `lesson` is null, never absent.
        let mut absent = value;
        absent.as_object_mut().unwrap().remove("lesson");
        let problem = crate::read::from_value::<RecordOutput>(absent).unwrap_err();
        assert_eq!(problem.to_string(), "$.lesson: missing required field");
    }
}
