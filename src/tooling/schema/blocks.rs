//! The typed leaves, with a description, of the hand-written task schema.

use serde_json::{Value, json};

pub(super) fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// A non-negative integer.
pub(super) fn count(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": description})
}

pub(super) fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}
