//! The building blocks the schemas share: typed leaves with a description,
//! `nullable`, closed objects, and the patterns and enumerations that more
//! than one schema uses.

use serde_json::{Value, json};

pub(super) fn describe(mut schema: Value, description: &str) -> Value {
    schema["description"] = json!(description);
    schema
}

pub(super) fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub(super) fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

/// A non-negative integer.
pub(super) fn count(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": description})
}

pub(super) fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

/// `schema` or null: `null` joins the `type` list, and the `enum` when there is one.
pub(super) fn nullable(mut schema: Value) -> Value {
    if let Some(kind) = schema.get("type").cloned() {
        let mut kinds = match kind {
            Value::Array(kinds) => kinds,
            one => vec![one],
        };
        kinds.push(json!("null"));
        schema["type"] = Value::Array(kinds);
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.push(Value::Null);
    }
    if let Some(Value::String(text)) = schema.get_mut("description") {
        text.push_str(" Null when absent.");
    }
    schema
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_adds_null_to_type_and_enum() {
        assert_eq!(
            nullable(json!({"type": "string"})),
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            nullable(json!({"enum": ["a"], "description": "A."})),
            json!({"enum": ["a", null], "description": "A. Null when absent."})
        );
    }
}
