//! `run-check vote` (docs/vote.md): aggregates reviewers' votes
//! on which candidate to eliminate into one result — weighted tallies, the
//! eliminated candidates and survivors, the consensus level, conflicts and the
//! reasons given.
//!
//! The input (a file, or `-` for stdin) is read into
//! `run_check_documents::vote::VoteInput`, the rules its schema cannot say
//! are checked (`VoteInput::check`), and the first problem is an error
//! (exit 2) naming the file and the JSON path, e.g. `in.json:
//! $.votes[2].evaluator_id: duplicate evaluator id "e1" (first at
//! $.votes[0])`. A valid input is aggregated (`aggregate::aggregate`) and the vote
//! output is printed on stdout as pretty JSON (exit 0).

pub(crate) mod aggregate;
