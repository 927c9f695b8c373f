//! `run-check hooks install`: the read-only git hooks installed
//! (`tooling/hooks.rs`), a line per hook on stdout.

use std::path::Path;

use crate::cli::{HooksArgs, HooksCommand};
use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

pub(crate) fn hooks(args: &HooksArgs) -> Result<i32, Error> {
    let HooksCommand::Install(args) = &args.command;
    let shown = args.worktree.as_deref().unwrap_or(Path::new("."));
    let worktree = crate::paths::worktree(Some(shown))?;
    let baseline = args.baseline.as_deref();
    let out = crate::tooling::hooks::install(&worktree, shown, &args.hooks, args.force, baseline)?;
    Output::Stdout.write(out.as_bytes())?;
    Ok(exit_code::PASS)
}
