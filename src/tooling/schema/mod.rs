//! JSON Schemas (draft 2020-12) of the documents run-check reads and writes,
//! and `run-check schema NAME`, which prints them.
//!
//! The evidence and task schemas are derived from their types
//! (`run-check-documents` crate), as `schemas/NAME.json` is committed.
//! checks.toml's (for editors: Taplo / Even Better TOML read JSON Schema) is
//! still written by hand here, following the raw structs of `config`; the verdict, vote and retry-state schemas live
//! with their commands (`judge`, `vote`, `retry`). Those hand-written
//! schemas are self-contained (no `$ref`), so editors with partial `$ref`
//! support still complete every key; where one cannot say what the loader
//! says, it is the more permissive of the two. Nothing here reads or
//! writes a file.

mod blocks;
mod checks;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

pub(crate) use checks::checks;
pub(crate) use run_check_documents::schema::DIALECT;

/// The JSON Schema of the evidence document, derived from its type
/// (`run_check_documents::evidence::Evidence`).
pub(crate) fn evidence() -> Value {
    run_check_documents::schema::derive::<crate::run::evidence::Evidence>("evidence")
}

/// The schema names `by_name` knows, in the order `run-check schema` lists them.
pub(crate) const NAMES: &[&str] = &[
    "evidence",
    "verdict",
    "vote-input",
    "vote-output",
    "task",
    "retry-state",
    "checks",
];

/// `run-check schema` options.
#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// The schema to print
    #[arg(value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(NAMES))]
    pub(crate) name: String,
}

/// Runs `run-check schema NAME`: prints the schema, pretty, on stdout.
pub(crate) fn run(args: &SchemaArgs) -> Result<i32, Error> {
    let schema = by_name(&args.name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown schema `{}` (expected one of: {})",
            args.name,
            NAMES.join(", ")
        ))
    })?;
    Output::Stdout.write(pretty(&schema).as_bytes())?;
    Ok(exit_code::PASS)
}

/// The schema called `name`, one of [`NAMES`].
pub(crate) fn by_name(name: &str) -> Option<Value> {
    match name {
        "evidence" => Some(evidence()),
        "task" => run_check_documents::schema::by_name("task"),
        "checks" => Some(checks()),
        "verdict" => Some(crate::aggregate::judge::verdict_schema()),
        "vote-input" => Some(crate::aggregate::vote::input_schema()),
        "vote-output" => Some(crate::aggregate::vote::output_schema()),
        "retry-state" => Some(crate::aggregate::retry::state_schema()),
        _ => None,
    }
}

/// A schema as `run-check schema` prints it and as `checks.schema.json` and
/// `schemas/NAME.json` are committed: two-space indentation, keys sorted, a
/// final newline.
pub(crate) fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
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
        for &name in NAMES {
            let schema = by_name(name).unwrap();
            assert_eq!(schema["$schema"], DIALECT, "{name}");
            assert!(schema["title"].is_string(), "{name}");
            if let Err(err) = jsonschema::meta::validate(&schema) {
                panic!("{name}: {err}");
            }
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(by_name("verdict-x"), None);
    }
}
