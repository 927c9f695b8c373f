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

use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

pub(crate) use aggregate::{VoteResult, aggregate};
pub(crate) use schema::input_schema;

/// How the standard input is named in messages when the input is `-`.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// `vote` options.
#[derive(Debug, Args)]
pub(crate) struct VoteArgs {
    /// The vote input JSON; `-` for stdin
    pub(crate) input: PathBuf,
}

/// Runs `run-check vote`: reads and validates the input, aggregates it and
/// prints the result on stdout.
pub(crate) fn run(args: &VoteArgs) -> Result<i32, Error> {
    let (name, bytes) = read(&args.input)?;
    let input = input::parse(&name, &bytes)?;
    let result = aggregate(&input);
    Output::Stdout.write(render(&result)?.as_bytes())?;
    Ok(exit_code::PASS)
}

/// The output document as pretty JSON with a final newline.
pub(crate) fn render(result: &VoteResult) -> Result<String, Error> {
    let mut text = serde_json::to_string_pretty(result)
        .map_err(|err| Error::Internal(format!("cannot serialize the vote result: {err}")))?;
    text.push('\n');
    Ok(text)
}

/// The input's bytes and the name messages use for it (`<stdin>` for `-`).
fn read(path: &Path) -> Result<(PathBuf, Vec<u8>), Error> {
    if path.as_os_str() == "-" {
        let name = PathBuf::from(STDIN_NAME);
        let bytes = crate::bounded::read_from(std::io::stdin().lock(), None, crate::bounded::JSON)
            .map_err(|err| Error::io("read vote input", &name, err))?;
        return Ok((name, bytes));
    }
    let bytes = crate::bounded::read(path, crate::bounded::JSON)
        .map_err(|err| Error::io("read vote input", path, err))?;
    Ok((path.to_path_buf(), bytes))
}
