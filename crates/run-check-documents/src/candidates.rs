//! The index of one round of `run-check candidates` (`index.json`): the
//! candidate worktrees of one task, ranked. Field order here is the order in
//! the JSON; every object is closed and every field required.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::int;
use crate::retry::Decision;
use crate::verdict::Route;

/// `index.json` of `runs/<task_id>/`: this round's candidates in rank order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check candidates index")]
pub struct Index {
    /// The task's `id`.
    #[schemars(length(min = 1))]
    pub task_id: String,
    /// This round of the task in the runs folder, from 1.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub round: u32,
    /// The candidates, best first: passed first, then higher overall score,
    /// then fewer changed lines.
    pub candidates: Vec<Candidate>,
}

/// One candidate of the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    /// The candidate id: its worktree's folder name, or the `ID` of `ID=PATH`.
    #[schemars(length(min = 1))]
    pub id: String,
    /// 1 for the best candidate.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub rank: u32,
    /// Whether the judge passed it (route `FINISH`): its gate passed and
    /// every score gate holds.
    pub passed: bool,
    /// The gate's exit code: 0 PASS, 1 FAIL, 2 ERROR, 130 interrupted.
    #[serde(deserialize_with = "int::de")]
    pub exit_code: i32,
    /// The gate's one-line banner (or the error that stopped it).
    pub banner: String,
    /// The judge's overall score; null when nothing was scored.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
    pub overall_score: Option<f64>,
    /// The judge's route: the candidate's one next step.
    pub route: Route,
    /// The retry tracker's decision for the failure point task + phase + id;
    /// null when no evidence could be recorded.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub retry_decision: Option<Decision>,
    /// Files changed against the task's base; null when not measured.
    #[serde(deserialize_with = "int::opt")]
    pub files_changed: Option<u64>,
    /// Lines added plus removed against the task's base; null when not measured.
    #[serde(deserialize_with = "int::opt")]
    pub loc_changed: Option<u64>,
    /// The candidate's folder of artifacts (`<runs>/<task_id>/<id>`).
    pub dir: String,
}
