//! `run-check cache key|stats|clean`: the result cache seen from outside a
//! run (docs/cache.md).

use std::path::Path;

use crate::cli::{CacheArgs, CacheCommand, CacheKeyArgs, Location};
use crate::config::Config;
use crate::error::Error;
use crate::run::cache::{self, key};
use crate::run::plan::{self, Selection};
use crate::run::snapshot::{GitWatch, OwnFiles};

use super::printed;

/// `run-check cache ...`.
pub(crate) fn cache(args: &CacheArgs) -> Result<i32, Error> {
    match &args.command {
        CacheCommand::Key(args) => print_key(args),
        CacheCommand::Stats(args) => {
            let (store, dir) = store(&args.location)?;
            printed(super::document(args.format, &store.stats(&dir))?)
        }
        CacheCommand::Clean(location) => {
            let (store, dir) = store(location)?;
            store.clean().map_err(Error::Environment)?;
            let shown = dir.display().to_string();
            let shown = crate::sanitize::for_display(&shown);
            printed(format!("emptied the result cache at {shown}\n"))
        }
    }
}

/// The store the config names, or the platform's default one when there
/// is no config.
fn store(location: &Location) -> Result<(cache::store::Store, std::path::PathBuf), Error> {
    let resolved = location.resolved();
    let worktree = crate::paths::worktree(resolved.worktree.as_deref())?;
    let file = super::config_file(&resolved, &worktree);
    // No checks.toml is no config; a `--config` that is missing is an error.
    let config: Option<Config> = (file.symlink_metadata().is_ok() || resolved.config.is_some())
        .then(|| super::load_config(&resolved, &worktree))
        .transpose()?;
    cache::store_of(config.as_ref()).ok_or_else(|| {
        Error::Environment(
            "no cache folder: set XDG_CACHE_HOME or HOME, or `[cache] dir` in checks.toml".into(),
        )
    })
}

/// `cache key NAME`: the check's key and its document, as a run would make
/// them now (its `version` command runs).
fn print_key(args: &CacheKeyArgs) -> Result<i32, Error> {
    let (worktree, config) = super::locate(&args.location)?;
    let refused = |why: &str| Error::Usage(format!("cache key `{}`: {why}", args.name));
    let file = config.path.display();
    let Some(check) = config.checks.iter().find(|c| c.name == args.name) else {
        return Err(refused(&format!("no check of that name in {file}")));
    };
    if check.cache.is_none() {
        return Err(refused(&format!(
            "the check has no `cache = true` in {file}"
        )));
    }
    let Some(&mode) = check.modes.first() else {
        return Err(refused("the check runs in no mode"));
    };
    let selection = Selection {
        only: vec![args.name.clone()],
        jobs: Some(1),
        no_fail_fast: true,
        ..Selection::all(mode)
    };
    let plan = plan::build(&config, &worktree, &selection)?;
    let (repo, status) = git_status(&worktree)?;
    let own = OwnFiles::capture(None);
    let facts = key::Facts {
        config: &config,
        worktree: &worktree,
        git: repo.as_ref().map(|repo| (repo, &status)),
        own: &own,
    };
    let planned: Vec<&plan::PlannedCheck<'_>> = plan.checks.iter().collect();
    let made = key::keys(&facts, &planned).into_iter().next().flatten();
    let key = match made {
        Some(Ok(key)) => key,
        Some(Err(why)) => {
            return Err(Error::Environment(format!(
                "cache key `{}`: no key can be made: {why}",
                args.name
            )));
        }
        None => return Err(Error::Internal("the check was not planned".into())),
    };
    let shown = serde_json::json!({
        "check": args.name, "key": key.hex, "document": key.document, "inputs": *key.inputs,
    });
    printed(super::document(args.format, &shown)?)
}

/// The repository and its status with the flagged index entries, as a
/// run's start asks them; no repository outside git.
fn git_status(worktree: &Path) -> Result<(Option<crate::git::Repo>, crate::git::Status), Error> {
    let Ok(opening) = crate::git::Opening::start(worktree) else {
        return Ok((None, crate::git::Status::default()));
    };
    match opening.finish_with(|repo, _| GitWatch::new(repo, worktree).hidden()) {
        Ok((repo, Ok(mut status), hidden)) => {
            status.hidden = hidden;
            Ok((Some(repo), status))
        }
        Ok((_, Err(why), _)) => Err(Error::Environment(format!(
            "cannot read the worktree's git status: {why}"
        ))),
        Err(_) => Ok((None, crate::git::Status::default())),
    }
}
