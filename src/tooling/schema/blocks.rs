//! The building blocks the schemas share: typed leaves with a description,
//! closed objects, and the patterns and enumerations that more than one
//! schema uses.

use serde_json::{Value, json};

pub(super) fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// A closed object: exactly `properties`, of which `required` must be present.
pub(super) fn closed(description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

pub(super) const NAME_PATTERN: &str = "^[A-Za-z0-9_.-]+$";
pub(super) const MODES: [&str; 2] = ["fast", "strict"];
pub(super) const DIMENSIONS: [&str; 3] = ["security", "quality", "performance"];
pub(super) const SEVERITIES: [&str; 4] = ["critical", "high", "medium", "low"];
pub(super) const DIAG_SEVERITIES: [&str; 5] = ["error", "warning", "note", "info", "help"];
