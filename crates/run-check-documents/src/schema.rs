//! The JSON Schemas (draft 2020-12) of the documents, derived from their
//! types: `run-check schema NAME` prints them, and `schemas/NAME.json` of
//! the repository holds them as committed (a test keeps the two equal).

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde_json::Value;

/// The JSON Schema dialect of every schema here.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The names of the schemas derived here, as `run-check schema` names them.
pub const NAMES: &[&str] = &[
    "evidence",
    "verdict",
    "vote-input",
    "vote-output",
    "task",
    "retry-state",
    "retry-status",
    "retry-record",
    "candidates-index",
];

/// The schema of `T`, as a reader sees the document (fields with a default
/// are optional), with `$id` `https://run-check.dev/schema/NAME.json`.
pub fn derive<T: JsonSchema>(name: &str) -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .with_transform(RecursiveTransform(nullable_fields_are_required))
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert(
        "$id".into(),
        format!("https://run-check.dev/schema/{name}.json").into(),
    );
    schema.to_value()
}

/// Every field without a default is required, `null` or not: serde reads an
/// absent `Option` as `None`, which the types refuse for the fields of a
/// document's first version (`read::nullable`, `int::opt`), and schemars
/// follows serde. A field that may be absent has `#[serde(default)]`, and
/// so a `default` in its schema.
fn nullable_fields_are_required(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let Some(Value::Object(properties)) = object.get("properties") else {
        return;
    };
    let missing: Vec<Value> = properties
        .iter()
        .filter(|(_, property)| property.get("default").is_none())
        // A field of one type that schemars leaves optional is read with a
        // default (`task.base`); a subschema without a type only constrains.
        .filter(|(_, property)| {
            !(object.contains_key("type") && property.get("type").is_some_and(Value::is_string))
        })
        .map(|(name, _)| Value::String(name.clone()))
        .collect();
    let required = object
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(required) = required {
        for name in missing {
            if !required.contains(&name) {
                required.push(name);
            }
        }
    }
}

/// The derived schema called `name`, one of [`NAMES`].
pub fn by_name(name: &str) -> Option<Value> {
    match name {
        "evidence" => Some(derive::<crate::evidence::Evidence>("evidence")),
        "verdict" => Some(derive::<crate::verdict::Verdict>("verdict")),
        "vote-input" => Some(derive::<crate::vote::VoteInput>("vote-input")),
        "vote-output" => Some(derive::<crate::vote::VoteResult>("vote-output")),
        "task" => Some(derive::<crate::task::Task>("task")),
        "retry-state" => Some(derive::<crate::retry::State>("retry-state")),
        "retry-status" => Some(derive::<crate::retry::StatusOutput>("retry-status")),
        "retry-record" => Some(derive::<crate::retry::RecordOutput>("retry-record")),
        "candidates-index" => Some(derive::<crate::candidates::Index>("candidates-index")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schemas committed in the repository are the derived ones.
    #[test]
    fn committed_schemas_are_the_derived_ones() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
        for &name in NAMES {
            let derived = crate::pretty(&by_name(name).unwrap());
            let committed =
                std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap_or_default();
            assert!(
                committed == derived,
                "schemas/{name}.json differs from the schema derived from the types; \
                 regenerate it with `cargo run -q -- schema {name} > schemas/{name}.json`"
            );
        }
    }

    #[test]
    fn every_schema_names_its_dialect_and_id() {
        for &name in NAMES {
            let schema = by_name(name).unwrap();
            assert_eq!(schema["$schema"], DIALECT, "{name}");
            assert_eq!(
                schema["$id"],
                format!("https://run-check.dev/schema/{name}.json")
            );
            assert!(schema["title"].is_string(), "{name}");
        }
        assert_eq!(by_name("nope"), None);
    }
}
