//! The JSON Schema of the task contract (`--task`, SPEC section 7): types
//! only; its limits are violations reported in the evidence, not schema
//! errors.

use serde_json::{Value, json};

use super::DIALECT;
use super::blocks::{count, string, strings};

/// The JSON Schema of the task contract (`--task`, SPEC section 7). It checks
/// types only: broken limits (`estimated_loc` over 400, more than 10
/// `files_involved`, `parallel_count` outside 1..5, no strict JSON gate in
/// `acceptance.commands`, blank strings) are violations listed in
/// `contracts.task`, not schema errors.
pub fn task() -> Value {
    let mut schema = task_body();
    schema["$schema"] = json!(DIALECT);
    schema["$id"] = json!("https://run-check.dev/schema/task.json");
    schema["title"] = json!("run-check task contract");
    schema
}

fn string_or_strings(description: &str) -> Value {
    json!({
        "description": description,
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    })
}

pub(super) fn task_body() -> Value {
    json!({
        "type": "object",
        "description": "A task contract (seed 004 section 1). Every field is required; unknown fields are allowed and kept. Limits (estimated_loc ≤ 400, files_involved ≤ 10, parallel_count 1..5, a `run-check --mode strict --format json` acceptance command, non-blank strings) are checked by run-check and reported as violations, not here.",
        "properties": {
            "id": string("Stable reference, e.g. `T-2026-02-02-001`."),
            "title": string("One-line title."),
            "description": string("What to do and why (one intent)."),
            "risk": {"enum": crate::task::RISKS, "description": "`low`, `medium` or `high`."},
            "parallel_count": {"type": "integer", "description": "Parallel candidate implementations (1..5; suggested: low 1, medium 2, high 3-5)."},
            "acceptance": {
                "type": "object",
                "description": "How the task is accepted.",
                "properties": {
                    "commands": strings("Acceptance commands; must include `run-check --mode strict --format json`."),
                    "criteria": string_or_strings("Pass conditions (judged on the JSON evidence)."),
                },
                "required": ["commands", "criteria"],
            },
            "estimated_loc": count("Estimated lines changed (target 100-300, hard limit 400)."),
            "files_involved": strings("Files expected to change (hard limit 10)."),
            "public_contracts_touched": string_or_strings("Public interfaces or contracts changed: `\"N/A\"` if none, a description, or a list."),
        },
        "required": [
            "id", "title", "description", "risk", "parallel_count", "acceptance",
            "estimated_loc", "files_involved", "public_contracts_touched",
        ],
    })
}
