//! The commands that set a repository up: `init` writes the starter
//! checks.toml (`tooling/init/`), `hooks install` the read-only git hooks
//! and `hooks uninstall` removes them (`tooling/hooks.rs`); each says on stdout what it wrote.

use std::path::{Path, PathBuf};

use crate::cli::{HooksArgs, HooksCommand, InitArgs};
use crate::error::Error;
use crate::tooling::hooks;

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
    let repo = match &args.command {
        HooksCommand::Install(args) => &args.repo,
        HooksCommand::Uninstall(args) => &args.repo,
    };
    let shown = repo.as_deref().unwrap_or(Path::new("."));
    let worktree = crate::paths::worktree(Some(shown))?;
    printed(match &args.command {
        HooksCommand::Install(args) => hooks::install(
            &worktree,
            shown,
            &hooks::Install {
                hooks: &args.hooks,
                force: args.force,
                baseline: args.baseline.as_deref(),
                dry_run: args.dry_run,
            },
        )?,
        HooksCommand::Uninstall(args) => {
            hooks::uninstall(&worktree, shown, &args.hooks, args.dry_run)?
        }
    })
}
