//! A later snapshot that proves git would list what the first one listed,
//! without asking git again: git's own stat rule, kept in memory.
//!
//! What `git status` lists can change only through a change in the
//! worktree: a tracked file written, replaced or removed, or a name created,
//! removed or renamed in some directory. Both set a change time (ctime) that
//! a check cannot set back (`stat.rs` says why), so when, after the checks:
//! - every file of the index has a change time not after the moment
//!   recorded before the checks began (or is missing and was listed by the
//!   first snapshot: deleted, or skip-worktree), and
//! - every directory git looks in for untracked files (those holding index
//!   entries and those above them, those of the listed untracked files, and
//!   every other directory below them: found by their link counts, as in
//!   `tree.rs`) is the same directory with a change time not after that
//!   moment,
//!
//! then no file git compares changed and no name appeared or went anywhere
//! git looks, so its listing is the first snapshot's. The listed files are
//! then looked at again as always (an edit of an untracked or dirty file
//! shows there). Anything else (a changed directory or file, a change of
//! the git state, which `verify.rs` sees first) takes `git status` again;
//! what changed is git's to judge, as a rewrite with the same content is
//! no change to it.
//!
//! One directory is expected to change: the one run-check writes its
//! `--out` report into, where its temporary file appears during the run.
//! Its names are recorded, and a later snapshot accepts it when the only
//! names added are this run's own temporary files (a name removed is a file
//! the first snapshot listed, looked at anyway, or one git ignores).
//!
//! The moment is the first snapshot's clock, or, when the kernel's
//! file-stamping clock is behind it, that clock less a nanosecond: a change
//! made after the first snapshot is then stamped after it without waiting.
//! Used where `tree.rs` is (Linux's local file systems with fine
//! timestamps, the worktree at the repository's top level, no submodules in
//! the index), when the index was read here.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::git_state::Paths;
use super::stat::{self, Clock, DirId, Lstat, Trust};
use super::walk::par_map;
use super::{Entry, Key, bytes, stat_threads, up};
use crate::git::{Repo, path_from_bytes};

/// Beyond this many directories that hold nothing git lists (ignored
/// output, empty folders), asking git again is cheaper than watching them.
const MAX_UNLISTED_DIRS: usize = 4096;

/// What a first snapshot recorded so that a later one can skip `git status`.
#[derive(Debug)]
pub(super) struct Settled {
    /// Nothing not after this moment (nanoseconds since the epoch) changed.
    at: i128,
    /// Every directory watched (worktree-relative), with its identity.
    dirs: Vec<(Vec<u8>, DirId)>,
    /// The directory of the `--out` report, when watched, and its names then
    /// (sorted).
    out: Option<(Vec<u8>, Vec<OsString>)>,
}

/// Records the directories of the worktree git looks in: `tracked` (the
/// folders holding index entries), the folders of `entries` (a first
/// snapshot's, sorted) and those around them, but for the folders an
/// ignore rule matches as a whole (`ignored`: the paths git listed as
/// ignored, sorted, such a folder with a trailing `/`). `out`: the folder
/// of the `--out` report. `None` where this cannot be judged.
pub(super) fn record(
    worktree: &Path,
    tracked: &[Vec<u8>],
    entries: &[(Key, Entry)],
    ignored: &[Key],
    clock: &Clock,
    out: Option<&Path>,
) -> Option<Settled> {
    let at = clock.at.min(stat::stamp_floor() - 1);
    let (owned, trees) = shown_dirs(tracked, entries);
    // A nested repository is hashed as a tree, never watched as a folder.
    let known: Vec<&[u8]> = owned
        .iter()
        .map(Vec::as_slice)
        .filter(|dir| trees.binary_search(dir).is_err())
        .collect();
    let mut shown: std::collections::HashMap<&[u8], u64> = std::collections::HashMap::new();
    for dir in known.iter().filter(|d| !d.is_empty()).chain(&trees) {
        *shown.entry(up(dir)).or_default() += 1;
    }
    let listed =
        |dir: &[u8]| known.binary_search(&dir).is_ok() || trees.binary_search(&dir).is_ok();
    let mut trust = Trust::default();
    let mut queue: Vec<Vec<u8>> = known.iter().map(|d| d.to_vec()).collect();
    let mut dirs = Vec::with_capacity(queue.len());
    let mut unlisted = 0;
    while let Some(dir) = queue.pop() {
        let path = worktree.join(path_from_bytes(&dir));
        let Some((id, changed, links)) = trust.dir_links(&path) else {
            // A folder of a deleted file that is gone: its parent, watched,
            // changes if it comes back.
            if !dir.is_empty() && std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            return None;
        };
        if changed > at {
            return None;
        }
        let subdirs = shown.get(dir.as_slice()).copied().unwrap_or(0);
        if links != 2 + subdirs {
            for mut child in super::tree::child_dirs(&path, &dir)? {
                // A folder an ignore rule matches as a whole: git never
                // looks inside (and a changed rule is a changed file).
                child.push(b'/');
                let whole = ignored.binary_search_by(|k| bytes(k).cmp(&child)).is_ok();
                child.pop();
                if !whole && !listed(&child) {
                    unlisted += 1;
                    if unlisted > MAX_UNLISTED_DIRS {
                        return None;
                    }
                    queue.push(child);
                }
            }
        }
        dirs.push((dir, id));
    }
    dirs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let out = out
        .and_then(|out| out.strip_prefix(worktree).ok())
        .map(|rel| rel.as_os_str().as_encoded_bytes().to_vec())
        .filter(|rel| dirs.binary_search_by(|(d, _)| d.cmp(rel)).is_ok())
        .and_then(|rel| Some((rel.clone(), names(&worktree.join(path_from_bytes(&rel)))?)));
    Some(Settled { at, dirs, out })
}

/// Every folder holding an index entry (`tracked`) or a file `entries`
/// list, those above them and the top (`""`), sorted, each once; and the
/// listed paths hashed as trees (nested repositories), sorted.
fn shown_dirs<'a>(
    tracked: &[Vec<u8>],
    entries: &'a [(Key, Entry)],
) -> (Vec<Vec<u8>>, Vec<&'a [u8]>) {
    let mut owned: Vec<Vec<u8>> = vec![Vec::new()];
    let mut add = |mut dir: &[u8]| {
        while !dir.is_empty() {
            owned.push(dir.to_vec());
            dir = up(dir);
        }
    };
    for dir in tracked {
        add(dir);
    }
    let mut trees: Vec<&[u8]> = Vec::new();
    let mut last: Option<&[u8]> = None;
    for (key, entry) in entries {
        if key.is_absolute() {
            continue;
        }
        let key = bytes(key);
        if entry.seen.tree() {
            trees.push(key.strip_suffix(b"/").unwrap_or(key));
        }
        let dir = up(key);
        if last == Some(dir) {
            continue;
        }
        last = Some(dir);
        add(dir);
    }
    owned.sort_unstable();
    owned.dedup();
    trees.sort_unstable();
    trees.dedup();
    (owned, trees)
}

/// The names in the directory at `path`, sorted.
fn names(path: &Path) -> Option<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(path).ok()? {
        names.push(entry.ok()?.file_name());
    }
    names.sort_unstable();
    Some(names)
}

impl Settled {
    /// Whether git would list now what the first snapshot (`entries`,
    /// sorted; its clock `clock`) listed: see the module documentation.
    /// `own`: run-check's own temporary files (absolute). `index`: the
    /// index's paths as the run's first git state read them, where the
    /// caller compares that state with the one now and asks git again when
    /// the index's meaning (its paths among it) changed; `None`: the index
    /// is read now.
    pub(super) fn holds(
        &self,
        repo: &Repo,
        worktree: &Path,
        entries: &[(Key, Entry)],
        clock: &Clock,
        own: &[PathBuf],
        index: Option<&Paths>,
    ) -> bool {
        if !clock.held() {
            return false;
        }
        let dirs_hold = self.dirs.iter().all(|(dir, id)| {
            let path = worktree.join(path_from_bytes(dir));
            stat::dir_unchanged_at(&path, id, self.at)
                || self.out.as_ref().is_some_and(|(out, before)| {
                    out == dir
                        && stat::dir_id(&path) == Some(*id)
                        && only_own_added(&path, before, own)
                })
        });
        if !dirs_hold {
            return false;
        }
        let read;
        let files = match index {
            Some(paths) => paths,
            None => match super::git_state::index_paths(repo) {
                Some(paths) => {
                    read = paths;
                    &read
                }
                None => return false,
            },
        };
        let listed = |path: &[u8]| {
            entries
                .binary_search_by(|(key, _)| bytes(key).cmp(path))
                .is_ok()
        };
        let unchanged = par_map(
            &files.indices(),
            stat_threads(files.len()),
            || (Lstat::default(), Trust::default()),
            |(lstat, trust), &i| {
                let file = files.get(i);
                let key = as_path(file);
                match lstat.of_key(worktree, &key) {
                    Ok((stat, _)) => {
                        stat.changed() <= self.at
                            && stat.fine()
                            && trust.of_lazy(&stat, || worktree.join(&key))
                    }
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => listed(file),
                    Err(_) => false,
                }
            },
        );
        unchanged.iter().all(|&same| same)
    }
}

/// A git path as a path: borrowed where paths are bytes (Unix), where
/// 50,000 of them are looked at per run.
fn as_path(bytes: &[u8]) -> std::borrow::Cow<'_, Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(path_from_bytes(bytes))
    }
}

/// Whether the directory at `path`, whose names were `before`, has no name
/// now but those and the files of `own`.
fn only_own_added(path: &Path, before: &[OsString], own: &[PathBuf]) -> bool {
    let Some(now) = names(path) else {
        return false;
    };
    now.iter().all(|name| {
        before.binary_search(name).is_ok()
            || own
                .iter()
                .any(|p| p.parent() == Some(path) && p.file_name() == Some(name.as_os_str()))
    })
}
