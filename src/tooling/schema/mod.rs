//! JSON Schemas (draft 2020-12) of the documents run-check reads and writes,
//! which `run-check schema NAME` prints.
//!
//! The documents' schemas are derived from their types
//! (`run-check-documents` crate), as `schemas/NAME.json` are committed; the
//! checks.toml schema (for editors: Taplo / Even Better TOML read JSON
//! Schema) from the structs `config` reads the file with, self-contained
//! (no `$ref`) so that editors with partial `$ref` support still complete
//! every key. Nothing here reads or writes a file.

use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The JSON Schema of checks.toml, derived from `config::RawConfig`, every
/// subschema inline (`for_toml` tidies it).
pub(crate) fn checks() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<crate::config::RawConfig>()
        .to_value();
    schema["$id"] = "https://run-check.dev/schema/checks.json".into();
    for_toml(&mut schema);
    schema
}

/// TOML has no null: an optional key is one that may be absent, so the
/// `null` schemars allows for an `Option` goes from `type`, `anyOf` and
/// `default` (an `anyOf` left with one schema becomes that schema). And a
/// description is the doc comment it comes from without its line breaks.
fn for_toml(schema: &mut Value) {
    let null = Value::from("null");
    if let Some(object) = schema.as_object_mut() {
        if let Some(Value::String(text)) = object.get_mut("description") {
            *text = text.replace('\n', " ");
        }
        if object.get("default") == Some(&Value::Null) {
            object.remove("default");
        }
        if let Some(Value::Array(types)) = object.get_mut("type") {
            types.retain(|t| *t != null);
            if let [only] = types.as_slice() {
                let only = only.clone();
                object.insert("type".into(), only);
            }
        }
        if let Some(Value::Array(any)) = object.get_mut("anyOf") {
            any.retain(|s| s.get("type") != Some(&null));
            if let [Value::Object(only)] = any.as_slice() {
                let only = only.clone();
                object.remove("anyOf");
                for (key, value) in only {
                    object.entry(key).or_insert(value);
                }
            }
        }
    }
    match schema {
        Value::Object(object) => object.values_mut().for_each(for_toml),
        Value::Array(items) => items.iter_mut().for_each(for_toml),
        _ => {}
    }
}

/// The schema names `by_name` knows, in the order `run-check schema` lists
/// them: the documents', then checks.toml's.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    run_check_documents::schema::NAMES
        .iter()
        .copied()
        .chain(["checks"])
}

/// The schema called `name`, one of [`names`].
pub(crate) fn by_name(name: &str) -> Option<Value> {
    match name {
        "checks" => Some(checks()),
        _ => run_check_documents::schema::by_name(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_valid_2020_12_schema() {
        for name in ["evidence", "task", "checks"] {
            let schema = by_name(name).unwrap();
            assert_eq!(
                schema["$id"],
                format!("https://run-check.dev/schema/{name}.json")
            );
        }
        for name in names() {
            let schema = by_name(name).unwrap();
            assert_eq!(
                schema["$schema"],
                run_check_documents::schema::DIALECT,
                "{name}"
            );
            assert!(schema["title"].is_string(), "{name}");
            if let Err(err) = jsonschema::meta::validate(&schema) {
                panic!("{name}: {err}");
            }
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(by_name("verdict-x"), None);
    }
}
