//! The JSON Schema (draft 2020-12) of the retry state file, for `run-check
//! schema retry-state`. It says everything `state::load` checks except that a
//! failure point appears at most once, which JSON Schema cannot express.

use serde_json::{Value, json};

use super::state::{Decision, PointStatus, SCHEMA_VERSION};

/// The JSON Schema (draft 2020-12) of the state file, for
/// `run-check schema retry-state`.
pub fn schema() -> Value {
    // Not blank, no control characters: what `check_name` accepts.
    let name = json!({
        "type": "string",
        "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$"
    });
    let count = json!({"type": "integer", "minimum": 0});
    let limit = json!({"type": "integer", "minimum": 0, "maximum": u32::MAX});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://run-check.dev/schema/retry-state.json",
        "title": "run-check retry state",
        "description": "Failure points (task_id + phase + subagent) with their retry counts, latest evidence and attempt history, written by `run-check retry record`.",
        "type": "object",
        "required": ["schema_version", "points"],
        "additionalProperties": false,
        "properties": {
            "schema_version": {"const": SCHEMA_VERSION},
            "points": {
                "description": "Sorted by task_id, phase (verify before fix), subagent. A failure point appears at most once (checked by run-check retry; not expressible here).",
                "type": "array",
                "items": {"$ref": "#/$defs/point"}
            }
        },
        "$defs": {
            "point": {
                "type": "object",
                "required": ["task_id", "phase", "subagent", "status", "retry_count", "max_retries", "last_evidence", "attempts"],
                "additionalProperties": false,
                "properties": {
                    "task_id": name,
                    "phase": {"enum": ["verify", "fix"]},
                    "subagent": name,
                    "status": {"enum": PointStatus::WORDS},
                    "retry_count": count,
                    "max_retries": limit,
                    "last_evidence": {"$ref": "#/$defs/evidence"},
                    "attempts": {"type": "array", "items": {"$ref": "#/$defs/attempt"}}
                }
            },
            "attempt": {
                "type": "object",
                "required": ["attempt", "recorded_at", "decision", "retry_count", "max_retries", "evidence"],
                "additionalProperties": false,
                "properties": {
                    "attempt": {"type": "integer", "minimum": 1},
                    "recorded_at": {"type": "string", "format": "date-time"},
                    "decision": {"enum": Decision::WORDS},
                    "retry_count": count,
                    "max_retries": limit,
                    "evidence": {"$ref": "#/$defs/evidence"}
                }
            },
            "evidence": {
                "type": "object",
                "required": ["path", "banner", "failed_checks", "errored_checks", "exit_code", "outcome", "timestamp"],
                "additionalProperties": false,
                "properties": {
                    "path": {"type": "string"},
                    "banner": {"type": "string"},
                    "failed_checks": {"type": "array", "items": {"type": "string"}},
                    "errored_checks": {"type": "array", "items": {"type": "string"}},
                    "exit_code": {"enum": [0, 1, 2, 130]},
                    "outcome": {"enum": ["pass", "fail", "error", "interrupted"]},
                    "timestamp": {"type": "string"}
                },
                "oneOf": [
                    {"properties": {"exit_code": {"const": 0}, "outcome": {"const": "pass"}}},
                    {"properties": {"exit_code": {"const": 1}, "outcome": {"const": "fail"}}},
                    {"properties": {"exit_code": {"const": 2}, "outcome": {"const": "error"}}},
                    {"properties": {"exit_code": {"const": 130}, "outcome": {"const": "interrupted"}}}
                ]
            }
        }
    })
}
