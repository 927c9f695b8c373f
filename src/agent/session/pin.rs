//! A session's record in the platform's state folder ([`super::place`]),
//! keyed by the session id: where the session is pinned (its repository,
//! the directory the gate runs in and its checks.toml, the base commit),
//! found from any later event whatever its `cwd`, and the mirror of its
//! digest chain ([`super::chain`]). It is written by the hook only, at the
//! end of each event, after the session's own files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::chain::Chain;
use super::place;
use super::state::write_atomic;

/// The record's format.
const VERSION: u32 = 1;

/// A session's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Mirror {
    pub(super) version: u32,
    /// The repository's git directory (absolute): the session folder is
    /// `<git_dir>/run-check/agent/<session>/`.
    pub(super) git_dir: PathBuf,
    /// The directory the gate runs in: the one holding the session's
    /// checks.toml, found at the session's start.
    pub(super) worktree: PathBuf,
    /// The session's checks.toml.
    pub(super) config: PathBuf,
    /// The commit `HEAD` named at the session's start.
    pub(super) base: Option<String>,
    /// run-check removed the session's folder itself (an idle session).
    #[serde(default)]
    pub(super) pruned: bool,
    /// The mirror of the session's chain.
    pub(super) chain: Chain,
}

impl Mirror {
    pub(super) fn new(git_dir: &Path, worktree: &Path, base: Option<String>) -> Mirror {
        Mirror {
            version: VERSION,
            git_dir: git_dir.to_path_buf(),
            worktree: worktree.to_path_buf(),
            config: worktree.join("checks.toml"),
            base,
            pruned: false,
            chain: Chain::default(),
        }
    }
}

/// The record's path for the session `name` (a file name already), or
/// why there is none.
pub(super) fn path(name: &str) -> Result<PathBuf, String> {
    place::mirrors()
        .map(|dir| dir.join(format!("{name}.json")))
        .ok_or_else(|| {
            "no state folder outside the repository can be named (neither XDG_STATE_HOME nor \
             a home folder is set)"
                .to_string()
        })
}

/// The record of the session `name`: `Ok(None)` when it has none, or when
/// its repository is gone (the record outlived it); `Err` when it cannot
/// be read or is not the hook's.
pub(super) fn read(name: &str) -> Result<Option<Mirror>, String> {
    let path = path(name)?;
    let mirror: Mirror = match crate::bounded::read_regular(&path, crate::bounded::SESSION) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|err| format!("its mirror {} is not the hook's ({err})", path.display()))?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(format!(
                "its mirror {} cannot be read ({err})",
                path.display()
            ));
        }
    };
    Ok(mirror.git_dir.is_dir().then_some(mirror))
}

/// Writes the record of the session `name`.
pub(super) fn write(name: &str, mirror: &Mirror) -> Result<(), String> {
    let path = path(name)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| format!("cannot create the state folder {}: {err}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(mirror).unwrap_or_default() + "\n";
    write_atomic(&path, text.as_bytes()).map_err(|why| {
        format!(
            "cannot write the session's mirror {}: {why}",
            path.display()
        )
    })
}

/// Marks the records of `names`, sessions of `git_dir` whose folders
/// run-check removed, as pruned: when one comes back it starts again
/// without being taken for tampered with. Best effort.
pub(super) fn pruned(names: &[String], git_dir: &Path) {
    for name in names {
        if let Ok(Some(mut mirror)) = read(name)
            && mirror.git_dir == git_dir
        {
            mirror.pruned = true;
            let _ = write(name, &mirror);
        }
    }
}

/// A record untouched this long is removed when a session starts: its
/// session is long over (run-check removes an idle session's folder after
/// 14 days, and a session that comes back later starts again anyway).
const RECORD_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(60 * 24 * 60 * 60);

/// Removes the records no event has written for [`RECORD_MAX_AGE`], so
/// the state folder stays bounded. Best effort; only regular `.json`
/// files are looked at.
pub(super) fn sweep() {
    let Some(dir) = place::mirrors() else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let old = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age > RECORD_MAX_AGE);
        let json = entry.path().extension().is_some_and(|e| e == "json");
        if old && json {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
