//! `run-check vote` (docs/vote.md): aggregates reviewers' votes
//! on which candidate to eliminate into one result — weighted tallies, the
//! eliminated candidates and survivors, the consensus level, conflicts and the
//! reasons given.
//!
//! The input (a file, or `-` for stdin) follows the strict vote input
//! contract and is validated strictly ([`input`]); the first problem is an
//! error (exit 2) naming the file and the JSON path, e.g.
//! `in.json: $.votes[2].elimination_decision.confidence: unknown confidence
//! "Certain" (expected High, Medium or Low)`. A valid input is aggregated
//! ([`aggregate()`]) and the output document, the vote output (docs/vote.md),
//! is printed on stdout as pretty JSON (exit 0).
//!
//! [`input_schema`] and [`output_schema`] are the two contracts as JSON Schema
//! (draft 2020-12), for `run-check schema vote-input|vote-output`.

pub(crate) mod aggregate;
pub(crate) mod input;
pub(crate) mod schema;

use std::path::PathBuf;

use clap::Args;

use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

pub(crate) use aggregate::aggregate;
pub(crate) use schema::input_schema;

/// `vote` options.
#[derive(Debug, Args)]
pub(crate) struct VoteArgs {
    /// The vote input JSON; `-` for stdin
    pub(crate) input: PathBuf,
}

/// Runs `run-check vote`: reads and validates the input, aggregates it and
/// prints the result on stdout.
pub(crate) fn run(args: &VoteArgs) -> Result<i32, Error> {
    let (name, bytes) = crate::bounded::read_input(&args.input, "read vote input")?;
    let input = input::parse(&name, &bytes)?;
    let result = aggregate(&input);
    Output::Stdout.write(run_check_documents::pretty(&result).as_bytes())?;
    Ok(exit_code::PASS)
}
