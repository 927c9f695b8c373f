//! `run-check merge`: the shards' evidence read, checked for one split
//! unless `--force`, and merged (`aggregate/merge.rs`).

use crate::aggregate::merge as shards;
use crate::cli::MergeArgs;
use crate::error::Error;
use crate::output::Output;
use crate::report;

/// Runs `run-check merge`; exits with the merged run's exit code.
pub(crate) fn merge(args: &MergeArgs, argv: Vec<String>) -> Result<i32, Error> {
    let mut docs = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        docs.push((path.clone(), crate::json_input::evidence_file(path)?));
    }
    if !args.force {
        shards::consistent(&docs)?;
    }
    let output = Output::open(args.out.as_deref())?;
    let merged = shards::merge(docs, argv)?;
    output.write(&report::render(report::Format::Json, &merged))?;
    if args.out.is_some() {
        eprintln!("{}", merged.summary.banner);
    }
    Ok(merged.summary.exit_code)
}
