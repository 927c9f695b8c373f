//! The judge's INPUT: an evidence document (docs/evidence.md) or an aggregator
//! input (detected by its `security_result` field), read by the one reader
//! of each (`run-check-documents`: `Evidence` as every command reads it,
//! `verdict::AggregatorInput`). Every problem is one error naming the file
//! and the JSON path of the first problem found.
//!
//! The reader leaves one rule of an aggregator input to the judge: issue ids
//! are unique ([`read`] checks it after reading). `tech_stack.quality_thresholds`
//! and `tech_stack.weights` are kept as given and read by `thresholds::resolve`
//! (an unknown key is an error: a misspelt threshold must not be ignored).

use serde_json::{Map, Value};

use run_check_documents::evidence::Evidence;
use run_check_documents::read::{self, Problem};
pub(crate) use run_check_documents::verdict::AggregatorInput;

/// What the judge reads.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// An evidence document.
    Evidence(Box<Evidence>),
    /// An aggregator input.
    Aggregator(Box<AggregatorInput>),
}

/// Reads `value` as evidence or as aggregator input.
pub(crate) fn read(value: Value) -> Result<Source, Problem> {
    if value.get("security_result").is_some() {
        let input: AggregatorInput = read::from_value(value)?;
        unique_ids(&input)?;
        Ok(Source::Aggregator(Box::new(input)))
    } else if value.get("checks").is_some() || value.get("schema_version").is_some() {
        Ok(Source::Evidence(Box::new(Evidence::from_value(value)?)))
    } else {
        // Not an object, else neither document.
        read::from_value::<Map<String, Value>>(value).and(Err(Problem::at(
            "$",
            "expected an evidence document (with `checks`) or an aggregator input \
             (with `security_result`)",
        )))
    }
}

/// An id names one issue (`priority_order`, `must_fix`): a repeated one is
/// an error at its second use.
fn unique_ids(input: &AggregatorInput) -> Result<(), Problem> {
    let mut ids = std::collections::HashSet::new();
    for (dimension, result) in input.results() {
        for (i, issue) in result.issues.iter().enumerate() {
            if let Some(id) = &issue.id
                && !ids.insert(id.as_str())
            {
                let path = format!("$.{}_result.issues[{i}].id", dimension.as_str());
                return Err(Problem::at(path, format!("duplicate issue id {id:?}")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
