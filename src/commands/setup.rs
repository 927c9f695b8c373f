//! The commands that set a repository up: `init` writes the starter
//! checks.toml (`tooling/init/`), `hooks install` the read-only git hooks
//! (`tooling/hooks.rs`); each says on stdout what it wrote.

use std::path::{Path, PathBuf};

use crate::cli::{HooksArgs, HooksCommand, InitArgs};
use crate::error::Error;

use super::printed;

pub(crate) fn init(args: &InitArgs) -> Result<i32, Error> {
    let worktree = crate::paths::worktree(args.worktree.as_deref())?;
    let display = match &args.worktree {
        Some(dir) => dir.join("checks.toml"),
        None => PathBuf::from("checks.toml"),
    };
    printed(crate::tooling::init::write(&worktree, &display)?)
}

pub(crate) fn hooks(args: &HooksArgs) -> Result<i32, Error> {
    let HooksCommand::Install(args) = &args.command;
    let shown = args.worktree.as_deref().unwrap_or(Path::new("."));
    let worktree = crate::paths::worktree(Some(shown))?;
    let baseline = args.baseline.as_deref();
    printed(crate::tooling::hooks::install(
        &worktree,
        shown,
        &args.hooks,
        args.force,
        baseline,
    )?)
}
