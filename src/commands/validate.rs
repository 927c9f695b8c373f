//! `run-check validate`.

use crate::cli::Location;
use crate::config::CheckKind;
use crate::error::Error;
use crate::output::plural;
use crate::run::plan::{self};

use super::{locate, printed};

/// `run-check validate`: the config is loaded and checked; nothing runs.
pub(crate) fn validate(location: &Location) -> Result<i32, Error> {
    let (worktree, config) = locate(location)?;
    let mut resolver = plan::Resolver::default();
    for check in &config.checks {
        resolver.cwd(&config, &worktree, check)?;
        resolver.paths(&config, check)?;
        if let CheckKind::Run(_) = &check.kind
            && let (Err(why), _) = resolver.check_program(&config, &worktree, check)?
        {
            eprintln!("warning: check `{}`: {why}", check.name);
        }
    }
    for fix in &config.fixes {
        resolver.cwd(&config, &worktree, fix)?;
        if let (Err(why), _) = resolver.check_program(&config, &worktree, fix)? {
            eprintln!("warning: fix `{}`: {why}", fix.name);
        }
    }
    printed(format!(
        "{}: valid ({}, {})\n",
        config.path.display(),
        plural(config.checks.len(), "check"),
        plural(config.fixes.len(), "fix")
    ))
}
