//! `run-check vote` (docs/vote.md): aggregates reviewers' votes
//! on which candidate to eliminate into one result — weighted tallies, the
//! eliminated candidates and survivors, the consensus level, conflicts and the
//! reasons given.
//!
//! The input (a file, or `-` for stdin) is read into
//! `run_check_documents::vote::VoteInput`, the rules its schema cannot say
//! are checked ([`VoteInput::check`]), and the first problem is an error
//! (exit 2) naming the file and the JSON path, e.g. `in.json:
//! $.votes[2].evaluator_id: duplicate evaluator id "e1" (first at
//! $.votes[0])`. A valid input is aggregated ([`aggregate()`]) and the vote
//! output is printed on stdout as pretty JSON (exit 0).

pub(crate) mod aggregate;

use std::path::PathBuf;

use clap::Args;
use run_check_documents::vote::VoteInput;

use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

use aggregate::aggregate;

/// `vote` options.
#[derive(Debug, Args)]
pub(crate) struct VoteArgs {
    /// The vote input JSON; `-` for stdin
    pub(crate) input: PathBuf,
}

/// Runs `run-check vote`: reads and checks the input, aggregates it and
/// prints the result on stdout.
pub(crate) fn run(args: &VoteArgs) -> Result<i32, Error> {
    let (name, bytes) = crate::bounded::read_input(&args.input, "read vote input")?;
    let input: VoteInput = crate::json_input::typed(&name, &bytes)?;
    input
        .check()
        .map_err(|problem| crate::json_input::from_problem(&name, problem))?;
    let result = aggregate(&input);
    Output::Stdout.write(run_check_documents::pretty(&result).as_bytes())?;
    Ok(exit_code::PASS)
}
