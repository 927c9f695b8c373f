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
            // A path that a check it needs may build is looked up again
            // when the check starts (docs/checks-toml.md).
            let later = match !check.needs.is_empty() && plan::is_path(check) {
                true => {
                    " yet (it is looked up when the check starts: a check it needs may build it)"
                }
                false => "",
            };
            eprintln!("warning: check `{}`: {why}{later}", check.name);
        }
    }
    for fix in &config.fixes {
        resolver.cwd(&config, &worktree, fix)?;
        if let (Err(why), _) = resolver.check_program(&config, &worktree, fix)? {
            eprintln!("warning: fix `{}`: {why}", fix.name);
        }
    }
    if let Some(note) = cache_note(&config) {
        eprintln!("{note}");
    }
    printed(format!(
        "{}: valid ({}, {})\n",
        config.path.display(),
        plural(config.checks.len(), "check"),
        plural(config.fixes.len(), "fix")
    ))
}

/// A note for a config with `cache = true` checks: strict mode (the
/// default, the gate) takes no result out of the local store unless
/// `--cache` is given, which a user who opted in would not guess from the
/// key alone (docs/cache.md, "When a run reads and writes").
fn cache_note(config: &crate::config::Config) -> Option<String> {
    let cached: Vec<String> = config
        .checks
        .iter()
        .filter(|c| c.cache.is_some())
        .map(|c| format!("`{}`", c.name))
        .collect();
    (!cached.is_empty()).then(|| {
        format!(
            "note: `cache = true` ({}): strict mode, the default, reads the local store only \
             with `--cache` (a fast run reads it always; docs/cache.md)",
            cached.join(", ")
        )
    })
}
