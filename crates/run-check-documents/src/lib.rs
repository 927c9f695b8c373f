//! The JSON documents of run-check, one definition each: the types that
//! write them, read them (with errors naming the JSON path of the first
//! problem, and one integer rule for every input) and derive their JSON
//! Schema (draft 2020-12). An orchestrator that reads run-check's evidence
//! depends on this crate alone, not on the command-line tool.
//!
//! - [`evidence`]: the evidence document of one run (`--format json`).
//! - [`verdict`]: the verdict of `run-check judge`, and its aggregator input.
//! - [`retry`]: the state file of `run-check retry`.
//! - [`candidates`]: the index of a round of `run-check candidates`.
//! - [`vote`]: the input and the output of `run-check vote`.
//! - [`task`]: the task contract of `run-check --task`.
//! - [`mcp`]: the structured results of the tools of `run-check mcp`.
//! - [`exit_code`]: the process exit codes, fixed once published.
//! - [`read`]: reading a document from bytes or a parsed value.
//! - [`int`]: the integer rule of every JSON input (`1.0` is 1).
//! - [`schema`]: the derived schemas by name (`run-check schema NAME`).
//!
//! Nothing here touches files or runs processes.

pub mod candidates;
pub mod evidence;
pub mod exit_code;
pub mod int;
pub mod mcp;
pub mod read;
pub mod retry;
pub mod schema;
pub mod task;
pub mod verdict;
pub mod vote;

/// A document as run-check writes it: pretty JSON (two-space indentation,
/// an object's keys in order) with a final newline.
pub fn pretty<T: serde::Serialize + ?Sized>(value: &T) -> String {
    // Serialising these plain types cannot fail (no map has non-string keys).
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
