//! `run-check init`: the starter checks.toml written (`tooling/init/`),
//! what was found on stdout.

use std::path::PathBuf;

use crate::cli::InitArgs;
use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

pub(crate) fn init(args: &InitArgs) -> Result<i32, Error> {
    let worktree = crate::paths::worktree(args.worktree.as_deref())?;
    let display = match &args.worktree {
        Some(dir) => dir.join("checks.toml"),
        None => PathBuf::from("checks.toml"),
    };
    let out = crate::tooling::init::write(&worktree, &display)?;
    Output::Stdout.write(out.as_bytes())?;
    Ok(exit_code::PASS)
}
