//! `run-check vote`: the input read and checked, then aggregated
//! (`aggregate/vote/`), the result on stdout.

use run_check_documents::vote::VoteInput;

use crate::aggregate::vote::aggregate::aggregate;
use crate::cli::VoteArgs;
use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

/// Runs `run-check vote`: reads and checks the input, aggregates it and
/// prints the result on stdout.
pub(crate) fn vote(args: &VoteArgs) -> Result<i32, Error> {
    let (name, bytes) = crate::bounded::read_input(&args.input, "read vote input")?;
    let input: VoteInput = crate::json_input::typed(&name, &bytes)?;
    input
        .check()
        .map_err(|problem| crate::json_input::from_problem(&name, problem))?;
    let result = aggregate(&input);
    Output::Stdout.write(run_check_documents::pretty(&result).as_bytes())?;
    Ok(exit_code::PASS)
}
