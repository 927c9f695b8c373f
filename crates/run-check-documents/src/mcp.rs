//! The structured results of the tools of `run-check mcp`, one type a
//! tool: the server writes its `structuredContent` from them and declares
//! each tool's `outputSchema` as the schema derived from them
//! ([`output_schema`]), so a client can know and check what it reads.
//!
//! A result names a problem as the feedback does (where it is: `path:line
//! (check rule)`, else `check NAME`), never by the judge's issue ids
//! (`QA-001`): the model reading it never sees those ids.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::evidence::{DiagSeverity, Mode, Status};
use crate::int;
use crate::read;
use crate::verdict::{DecisionKind, NextAgent, Recommendation, StallType};

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [&str; 4] = ["run_checks", "list_checks", "check_output", "judge"];

/// The `outputSchema` of the tool `name` (one of [`TOOLS`]): the JSON
/// Schema (draft 2020-12) derived from its result's type, with `$id`
/// `https://run-check.dev/schema/mcp/NAME.json`.
pub fn output_schema(name: &str) -> Option<Value> {
    let id = format!("mcp/{name}");
    match name {
        "run_checks" => Some(crate::schema::derive::<RunChecksResult>(&id)),
        "list_checks" => Some(crate::schema::derive::<ListChecksResult>(&id)),
        "check_output" => Some(crate::schema::derive::<CheckOutputResult>(&id)),
        "judge" => Some(crate::schema::derive::<JudgeResult>(&id)),
        _ => None,
    }
}

/// The gate's verdict as its banner says it, from its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum GateStatus {
    /// Exit code 0.
    Pass,
    /// Exit code 1.
    Fail,
    /// Exit code 2 (or any other code but 0, 1 and 130).
    Error,
    /// Exit code 130.
    Interrupted,
}

impl GateStatus {
    /// The status of a run that exited `code`.
    pub fn of_exit_code(code: i32) -> GateStatus {
        match code {
            crate::exit_code::PASS => GateStatus::Pass,
            crate::exit_code::FAIL => GateStatus::Fail,
            crate::exit_code::INTERRUPTED => GateStatus::Interrupted,
            _ => GateStatus::Error,
        }
    }
}

/// `route`: the judge's one next step, its action naming problems by
/// where they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Who acts next.
    pub next: NextAgent,
    /// Which rule decided, in one line.
    pub reason: String,
    /// What to do, in one sentence; each problem named as the feedback names it (`path:line (check rule)`, else `check NAME`), never by an issue id.
    pub action: String,
}

/// `run_checks`: one run of the gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunChecksResult {
    /// PASS, FAIL, ERROR or INTERRUPTED: the gate's exit code as a word.
    pub status: GateStatus,
    /// The gate's exit code: 0 PASS, 1 FAIL, 2 ERROR, 130 interrupted.
    #[serde(deserialize_with = "int::de")]
    #[schemars(extend("enum" = [0, 1, 2, 130]))]
    pub exit_code: i32,
    /// The checks, failed ones first, as many as fit the feedback's size.
    pub checks: Vec<CheckResult>,
    /// Checks left out of `checks`.
    #[serde(deserialize_with = "int::de")]
    pub checks_omitted: u64,
    /// The new diagnostics of the failed checks (and of the read-only verification), as many as fit the feedback's size.
    pub diagnostics: Vec<Problem>,
    /// Diagnostics left out of `diagnostics`.
    #[serde(deserialize_with = "int::de")]
    pub diagnostics_omitted: u64,
    /// The path of the run's full evidence.
    pub evidence: String,
    /// The judge's next step; absent when the judge could not judge the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub route: Option<Route>,
}

/// One check of `run_checks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckResult {
    /// The check's name in checks.toml.
    pub name: String,
    /// pass, fail, error or skip.
    pub status: Status,
    /// How long it ran.
    #[serde(deserialize_with = "int::de")]
    pub duration_ms: u64,
}

/// One located problem of `run_checks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// The check that reported it.
    pub check: String,
    /// File, relative to the worktree when inside it.
    #[serde(deserialize_with = "read::nullable")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(deserialize_with = "int::opt")]
    pub line: Option<u64>,
    /// 1-based column.
    #[serde(deserialize_with = "int::opt")]
    pub column: Option<u64>,
    /// The diagnostic's severity.
    pub severity: DiagSeverity,
    /// The tool's rule or code.
    #[serde(deserialize_with = "read::nullable")]
    pub rule: Option<String>,
    /// The first line of what is wrong, in the tool's words.
    pub message: String,
}

/// `list_checks`: the checks a mode runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListChecksResult {
    /// The mode listed.
    pub mode: Mode,
    /// Its checks, in checks.toml's order, as many as fit the feedback's size.
    pub checks: Vec<ListedCheck>,
    /// Checks left out of `checks`.
    #[serde(deserialize_with = "int::de")]
    pub checks_omitted: u64,
}

/// How a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// A whitelisted command.
    Run,
    /// A built-in scan.
    Scan,
}

/// One check of `list_checks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListedCheck {
    /// The check's name in checks.toml.
    pub name: String,
    /// run or scan.
    pub kind: CheckKind,
    /// Its argv as configured (empty for a scan).
    pub command: Vec<String>,
    /// The checks it needs.
    pub needs: Vec<String>,
    /// Why its program was not found; null when it was (or for a scan).
    #[serde(deserialize_with = "read::nullable")]
    pub program_error: Option<String>,
}

/// The stream `check_output` read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// The check's standard output.
    Stdout,
    /// The check's standard error.
    Stderr,
}

/// `check_output`: the last lines of one check's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckOutputResult {
    /// The check's name.
    pub check: String,
    /// Its status in the last run.
    pub status: Status,
    /// The stream shown.
    pub stream: Stream,
    /// Lines shown in the text.
    #[serde(deserialize_with = "int::de")]
    pub lines_shown: u64,
    /// Lines of the stream the evidence kept.
    #[serde(deserialize_with = "int::de")]
    pub lines_total: u64,
    /// Bytes the check wrote on the stream.
    #[serde(deserialize_with = "int::de")]
    pub bytes: u64,
    /// Lines were left out (by the run's excerpt or by the text's bound).
    pub truncated: bool,
}

/// `judge`: the judge's verdict on the last run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeResult {
    /// The round, counted over this server's runs of the same checks.
    #[serde(deserialize_with = "int::de")]
    pub iteration: u32,
    /// Every gate of the verdict passed.
    pub passed: bool,
    /// PASS, ITERATE, FAIL_MAX_ITERATIONS or STALLED.
    pub recommendation: Recommendation,
    /// PASS, REWORK or BLOCKED.
    pub decision: DecisionKind,
    /// Why the recommendation is STALLED; null otherwise.
    #[serde(deserialize_with = "read::nullable")]
    pub stall_type: Option<StallType>,
    /// The next step.
    pub route: Route,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_with_its_id() {
        for name in TOOLS {
            let schema = output_schema(name).unwrap();
            // MCP: an outputSchema's root is an object schema.
            assert_eq!(schema["type"], "object", "{name}");
            assert_eq!(schema["$schema"], crate::schema::DIALECT);
            assert_eq!(
                schema["$id"],
                format!("https://run-check.dev/schema/mcp/{name}.json")
            );
        }
        assert_eq!(output_schema("sh"), None);
    }

    #[test]
    fn a_status_per_exit_code() {
        let words: Vec<GateStatus> = [0, 1, 2, 130, 3]
            .into_iter()
            .map(GateStatus::of_exit_code)
            .collect();
        assert_eq!(
            serde_json::to_value(words).unwrap(),
            serde_json::json!(["PASS", "FAIL", "ERROR", "INTERRUPTED", "ERROR"])
        );
    }
}
