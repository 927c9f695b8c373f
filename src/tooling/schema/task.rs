//! The JSON Schema of the task contract (`--task`, docs/task.md): types
//! only; its limits are violations reported in the evidence, not schema
//! errors.

use serde_json::{Value, json};

use super::DIALECT;
use super::blocks::{count, string, strings};

/// The JSON Schema of the task contract (`--task`, docs/task.md). It checks
/// types only, and accepts exactly the files `--task` loads (`2.0` is an
/// integer to both): broken limits (`estimated_loc` over 400, more than 10
/// `files_involved`, `parallel_count` outside 1..5, no strict JSON gate in
/// `acceptance.commands`, blank strings) are violations listed in
/// `contracts.task`, not schema errors.
pub(crate) fn task() -> Value {
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
        "description": "A task contract (docs/task.md). Every field is required; unknown fields are allowed and kept. Limits (estimated_loc ≤ 400, files_involved ≤ 10, parallel_count 1..5, a `run-check --mode strict --format json` acceptance command, non-blank strings) are checked by run-check and reported as violations, not here.",
        "properties": {
            "id": string("Stable reference, e.g. `T-2026-02-02-001`."),
            "title": string("One-line title."),
            "description": string("What to do and why (one intent)."),
            "risk": {"enum": crate::run::task::RISKS, "description": "`low`, `medium` or `high`."},
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
            "base": {"type": "string", "minLength": 1, "pattern": "\\S", "description": "Optional: the git revision the change budget and `contracts.gate` are measured against when `--changed-since` is not given (e.g. the commit the task started from), so committed work counts."},
        },
        "required": [
            "id", "title", "description", "risk", "parallel_count", "acceptance",
            "estimated_loc", "files_involved", "public_contracts_touched",
        ],
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{Value, json};

    fn valid() -> Value {
        json!({
            "id": "T-1",
            "title": "t",
            "description": "d",
            "risk": "low",
            "parallel_count": 1,
            "acceptance": {
                "commands": ["run-check --mode strict --format json"],
                "criteria": "summary.all_checks_passed = true",
            },
            "estimated_loc": 120,
            "files_involved": ["src/a.rs"],
            "public_contracts_touched": "N/A",
        })
    }

    /// The schema accepts exactly the task files `--task` loads (limits
    /// are violations, not errors, so they pass both).
    #[test]
    fn the_schema_and_the_loader_agree() {
        let validator = jsonschema::draft202012::new(&super::task()).unwrap();
        let cases: Vec<(&str, Value)> = vec![
            ("/parallel_count", json!(2.0)),
            ("/parallel_count", json!(9)),
            ("/parallel_count", json!(1.5)),
            ("/parallel_count", json!("2")),
            ("/estimated_loc", json!(100.0)),
            ("/estimated_loc", json!(1e30)),
            ("/estimated_loc", json!(u64::MAX)),
            ("/estimated_loc", json!(-1)),
            ("/estimated_loc", json!(-1.0)),
            ("/estimated_loc", json!(0.5)),
            ("/risk", json!("High")),
            ("/acceptance/criteria", json!([])),
            ("/acceptance/criteria", json!([1])),
            ("/acceptance/commands", json!("x")),
            ("/files_involved", json!(vec!["f"; 11])),
            ("/public_contracts_touched", json!([])),
            ("/public_contracts_touched", json!(null)),
            ("/title", json!("")),
            ("/owner", json!({"kept": true})),
            ("/base", json!("v1.2")),
            ("/base", json!("")),
            ("/base", json!("  ")),
            ("/base", json!(7)),
            ("/base", json!(null)),
        ];
        for (pointer, value) in cases {
            let mut task = valid();
            let (parent, name) = pointer.rsplit_once('/').unwrap();
            task.pointer_mut(parent).unwrap()[name] = value.clone();
            let schema_ok = validator.is_valid(&task);
            let loaded =
                crate::run::task::from_slice(Path::new("t.json"), task.to_string().as_bytes());
            assert_eq!(
                schema_ok,
                loaded.is_ok(),
                "{pointer} = {value}: schema {schema_ok}, loader {loaded:?}"
            );
        }
        // The big integer as a planner writes it, not through f64.
        let text = valid().to_string().replace(
            "\"estimated_loc\":120",
            "\"estimated_loc\":1000000000000000000000000000000",
        );
        let task: Value = serde_json::from_str(&text).unwrap();
        assert!(validator.is_valid(&task));
        assert!(crate::run::task::from_slice(Path::new("t.json"), text.as_bytes()).is_ok());
    }
}
