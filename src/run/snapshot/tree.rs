//! The untracked files of a worktree, proven unlisted-unchanged without a
//! second listing of them (git's untracked-cache idea, kept in memory).
//!
//! A last snapshot asks `git status` again so that a file a check created
//! anywhere shows up. With 200,000 untracked files that second listing is
//! most of a run's cost, and the names it lists can be known otherwise: a
//! directory's change time moves whenever an entry is created, deleted or
//! renamed in it, and cannot be set back without privileges (`stat.rs`).
//! So the first snapshot records, besides git's full listing:
//! - the untracked roots, as `git ls-files --others --directory` lists
//!   them: untracked files of tracked directories, and untracked
//!   directories as one entry each, without looking inside them (cheap);
//! - the identity of every directory under those untracked directories:
//!   those that hold listed files, the folders between, and those that
//!   hold none (empty, or only ignored files), found by reading a
//!   directory only when its link count says it has subdirectories the
//!   listing did not show (directories named `target` and `node_modules`
//!   are left out, as their untracked content never counts).
//!
//! The last snapshot then asks `git status --untracked-files=no` (tracked
//! changes) and the roots again. When the untracked directories are the
//! same, and every recorded directory is the same one with a change time
//! not after the first snapshot began, no untracked name appeared or went
//! anywhere under them; a new file of a tracked directory is a new root.
//! The untracked files are then the first snapshot's (each stat'ed as
//! before, so an edit in place still shows), plus the new roots that are
//! files. Anything else (a directory that changed, a new or vanished
//! untracked directory, a git failure) takes the full second listing.
//!
//! It is used only where it holds: on Linux's local file systems with fine
//! timestamps (as the files left unread), with the worktree at the
//! repository's top level, and without submodules in the index (`git status
//! --untracked-files=no` does not look for untracked files inside them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::stat::{Clock, DirId, Trust};
use super::{BUILD_OUTPUT, Entry, bytes, up};
use crate::git::{Repo, path_from_bytes};

/// The untracked roots: files of tracked directories, untracked
/// directories as one entry (`dir/`), not looked inside.
pub(super) const ROOTS: [&str; 5] = [
    "ls-files",
    "--others",
    "--directory",
    "--exclude-standard",
    "-z",
];

/// Beyond this many directories, the full listing is cheaper to trust.
const MAX_DIRS: usize = 1_000_000;

/// What a first snapshot recorded of the untracked part of the worktree.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    /// The untracked roots, sorted.
    roots: Vec<Vec<u8>>,
    /// Every directory under the untracked directories (worktree-relative)
    /// with its identity.
    dirs: Vec<(Vec<u8>, DirId)>,
}

/// The entries of NUL-separated `out`, sorted.
fn sorted(out: &[u8]) -> Vec<Vec<u8>> {
    let mut entries: Vec<Vec<u8>> = out
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    entries.sort_unstable();
    entries
}

/// Records the untracked part of the worktree of `entries` (a first
/// snapshot's, sorted, of a `git status` that began at `clock`), whose
/// untracked roots are `roots` (asked after that status). `None` when it
/// cannot be judged this way.
pub(super) fn record(
    roots: &[u8],
    worktree: &Path,
    entries: &[(super::Key, Entry)],
    clock: &Clock,
) -> Option<Tree> {
    let roots = sorted(roots);
    // Directories the listing shows: each untracked directory, the folders
    // of the files below it and those between; and the nested repositories
    // git lists as one entry (hashed as trees, not walked).
    let mut known: Vec<&[u8]> = Vec::new();
    let mut trees: Vec<&[u8]> = Vec::new();
    for root in roots.iter().filter(|r| r.ends_with(b"/")) {
        let top = &root[..root.len() - 1];
        let first = entries.partition_point(|(key, _)| bytes(key) < root.as_slice());
        let below = entries[first..]
            .iter()
            .take_while(|(key, _)| bytes(key).starts_with(root));
        let mut last: Option<&[u8]> = None;
        let mut is_tree = false;
        for (key, entry) in below {
            let key = bytes(key);
            if entry.seen.tree() {
                if key == root.as_slice() {
                    is_tree = true;
                    break;
                }
                trees.push(&key[..key.len() - 1]);
            }
            let mut dir = up(key);
            if last == Some(dir) {
                continue;
            }
            last = Some(dir);
            while dir.len() > top.len() {
                known.push(dir);
                dir = up(dir);
            }
        }
        if !is_tree {
            known.push(top);
        }
    }
    known.sort_unstable();
    known.dedup();
    trees.sort_unstable();
    // Subdirectories each known directory has in the listing.
    let mut shown: HashMap<&[u8], u64> = HashMap::new();
    for dir in known.iter().chain(&trees) {
        *shown.entry(up(dir)).or_default() += 1;
    }
    let listed =
        |dir: &[u8]| known.binary_search(&dir).is_ok() || trees.binary_search(&dir).is_ok();
    let mut trust = Trust::default();
    let mut queue: Vec<Vec<u8>> = known.iter().map(|d| d.to_vec()).collect();
    let mut dirs = Vec::with_capacity(queue.len());
    while let Some(dir) = queue.pop() {
        let path = worktree.join(path_from_bytes(&dir));
        let (id, changed, links) = trust.dir_links(&path)?;
        // Changed since the listing began: the listing may not show it.
        if changed > clock.at {
            return None;
        }
        let subdirs = shown.get(dir.as_slice()).copied().unwrap_or(0);
        if links != 2 + subdirs {
            for child in child_dirs(&path, &dir)? {
                if !listed(&child) {
                    queue.push(child);
                }
            }
        }
        dirs.push((dir, id));
        if dirs.len() > MAX_DIRS {
            return None;
        }
    }
    Some(Tree { roots, dirs })
}

/// The subdirectories of the directory `dir` (worktree-relative, `""` for
/// the top) at `path`, as worktree-relative paths; not `.git` (git never
/// looks inside one) nor `BUILD_OUTPUT` (whose untracked files never
/// count). `None` when it cannot be read.
pub(super) fn child_dirs(path: &Path, dir: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut children = Vec::new();
    for found in std::fs::read_dir(path).ok()? {
        let found = found.ok()?;
        if !found.file_type().ok()?.is_dir() {
            continue;
        }
        let name = found.file_name();
        if name == ".git" || BUILD_OUTPUT.iter().any(|b| name == *b) {
            continue;
        }
        let mut child = dir.to_vec();
        if !child.is_empty() {
            child.push(b'/');
        }
        child.extend_from_slice(name.as_encoded_bytes());
        children.push(child);
    }
    Some(children)
}

impl Tree {
    /// The untracked files now: `None` when they must be listed again (a
    /// recorded directory changed, an untracked directory appeared or
    /// went); otherwise the roots that are files the first snapshot did
    /// not list (`entries`). `clock` is the first snapshot's.
    pub(super) fn again(
        &self,
        repo: &Repo,
        worktree: &Path,
        entries: &[(super::Key, Entry)],
        clock: &Clock,
    ) -> Result<Option<Vec<PathBuf>>, String> {
        let roots = sorted(&repo.run(&ROOTS)?);
        fn dirs(roots: &[Vec<u8>]) -> impl Iterator<Item = &Vec<u8>> {
            roots.iter().filter(|r| r.ends_with(b"/"))
        }
        if !dirs(&roots).eq(dirs(&self.roots)) {
            return Ok(None);
        }
        let unchanged = self.dirs.iter().all(|(dir, id)| {
            let path = worktree.join(path_from_bytes(dir));
            super::stat::dir_unchanged(&path, id, clock)
        });
        if !unchanged {
            return Ok(None);
        }
        let listed = |root: &[u8]| {
            entries
                .binary_search_by(|(key, _)| bytes(key).cmp(root))
                .is_ok()
        };
        let new = roots
            .iter()
            .filter(|root| !root.ends_with(b"/") && !listed(root))
            .map(|root| path_from_bytes(root))
            .collect();
        Ok(Some(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_is_the_folder_of_a_file_or_of_a_directory() {
        assert_eq!(up(b"a/b/c.txt"), b"a/b");
        assert_eq!(up(b"a/b/"), b"a");
        assert_eq!(up(b"a"), b"");
        assert_eq!(up(b"a/"), b"");
    }
}
