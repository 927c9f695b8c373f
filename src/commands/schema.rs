//! `run-check schema NAME`: the schema (`tooling/schema/`), pretty, on
//! stdout.

use crate::cli::SchemaArgs;
use crate::error::Error;
use crate::exit_code;
use crate::output::Output;
use crate::tooling::schema::{by_name, names};

/// Runs `run-check schema NAME`: prints the schema, pretty, on stdout.
pub(crate) fn schema(args: &SchemaArgs) -> Result<i32, Error> {
    let schema = by_name(&args.name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown schema `{}` (expected one of: {})",
            args.name,
            names().collect::<Vec<_>>().join(", ")
        ))
    })?;
    Output::Stdout.write(run_check_documents::pretty(&schema).as_bytes())?;
    Ok(exit_code::PASS)
}
