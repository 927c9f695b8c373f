//! The subcommands, each a short pipeline over the library stages. Human
//! output (progress, banner, warnings) goes to stderr; reports go to stdout or
//! the `--out` file.

mod check;
mod fix;
mod list;
mod progress;
mod validate;

pub(crate) use check::check;
pub(crate) use fix::fix;
pub(crate) use list::list;
pub(crate) use validate::validate;

use std::path::{Path, PathBuf};

use crate::cli::Location;
use crate::config::{self, Config};
use crate::error::Error;

/// The worktree (canonical) and the loaded config.
fn locate(location: &Location) -> Result<(PathBuf, Config), Error> {
    let worktree = crate::cli::worktree(location.worktree.as_deref())?;
    let config = load_config(location, &worktree)?;
    Ok((worktree, config))
}

/// The config `location` names (by default `checks.toml` in the worktree).
fn load_config(location: &Location, worktree: &Path) -> Result<Config, Error> {
    let (path, display) = match &location.config {
        Some(path) => (path.clone(), path.clone()),
        None => {
            let path = worktree.join("checks.toml");
            let display = match &location.worktree {
                Some(dir) => dir.join("checks.toml"),
                None => PathBuf::from("checks.toml"),
            };
            (path, display)
        }
    };
    config::load(&path, &display, location.config.is_some())
}

fn relative(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
