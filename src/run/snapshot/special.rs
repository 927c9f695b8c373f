//! FIFOs, sockets and devices a check leaves in a git worktree
//! (docs/read-only.md).
//!
//! `git status` lists regular files and symlinks only: it skips every other
//! kind of entry, so a FIFO or a socket a check creates is in no listing.
//! The last snapshot looks for them itself, at the cost of one `stat` per
//! folder and no extra process in an ordinary run:
//! - the folders to look at are those holding an index entry or a file the
//!   first snapshot listed (untracked ones included), and every folder
//!   between them and the worktree;
//! - each is stat'ed, and read only when its change time is not before the
//!   moment the checks could begin: creating, removing or renaming an entry
//!   in a folder stamps the folder's change time with the current time,
//!   which cannot be set back without privileges (`stat.rs`);
//! - in a folder read, an entry that is a FIFO, socket, block or character
//!   device and whose own change time is not before that moment is a
//!   change (created, or `chmod`ed, renamed), unless git's ignore rules
//!   ignore it; only then is git asked (`git check-ignore`, one process for
//!   all found);
//! - a subfolder not among those recorded whose change time moved (one a
//!   check created, `mkdir -p src/d && mkfifo src/d/p`) is read the same
//!   way, and its subfolders; `.git`, build output (`target`,
//!   `node_modules`) and folders git listed as ignored are not;
//! - a folder git lists nothing in (an empty one, or one holding only
//!   empty folders) is in no listing either, and a FIFO made in it moves
//!   only its own change time: so a recorded folder whose link count (2
//!   plus its subfolders) says it holds more folders than are recorded is
//!   read too, for its subfolders only, and so is such a subfolder that
//!   holds folders itself, down to the one that moved.
//!
//! Where the file system's clock is not trusted (not a local one on Linux,
//! see `stat.rs`), every recorded folder, and every subfolder of one not
//! recorded, is read: a special file then counts by its own change time
//! against this machine's clock. What this does not see: a special file
//! inside a folder git listed as ignored (ignored like any file there),
//! and a special file that existed before the run and was removed. On a
//! file system whose folders' link count is 1 (btrfs) every recorded
//! folder is read for its subfolders.

use std::path::{Path, PathBuf};

use super::BUILD_OUTPUT;
use super::stat::{self, Lstat, Stat, Trust};
use crate::git::{Repo, path_from_bytes};

/// Where the last snapshot looks for special files, and since when.
#[derive(Debug, Clone)]
pub(super) struct Specials {
    /// Worktree-relative folders (`/`-separated bytes; empty for the
    /// worktree itself), sorted, each once, every folder between them and
    /// the worktree included.
    dirs: Vec<Vec<u8>>,
    /// A moment before anything a check does could be stamped
    /// (nanoseconds since the epoch).
    since: i128,
}

impl Specials {
    /// Specials of `dirs` (folders holding listed files, in any order),
    /// judged from now on: taken once the first snapshot is done and
    /// before any check starts.
    pub(super) fn new(dirs: Vec<Vec<u8>>) -> Specials {
        let mut specials = Specials {
            dirs: Vec::new(),
            since: stat::stamp_floor(),
        };
        specials.add(dirs);
        specials
    }

    /// Also looks at `more` folders (and those between them and the
    /// worktree).
    pub(super) fn add(&mut self, more: Vec<Vec<u8>>) {
        let mut dirs = std::mem::take(&mut self.dirs);
        dirs.extend(more);
        dirs.sort_unstable();
        dirs.dedup();
        let mut all: std::collections::HashSet<&[u8]> =
            std::collections::HashSet::with_capacity(dirs.len() + 1);
        all.insert(&[]);
        for dir in &dirs {
            let mut dir = dir.as_slice();
            // Climb until a folder already known: its own are known too.
            while all.insert(dir) {
                dir = super::up(dir);
            }
        }
        let mut all: Vec<Vec<u8>> = all.into_iter().map(<[u8]>::to_vec).collect();
        all.sort_unstable();
        self.dirs = all;
    }

    /// The number of folders looked at.
    pub(super) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// The folders looked at.
    #[cfg(test)]
    pub(super) fn dirs(&self) -> &[Vec<u8>] {
        &self.dirs
    }

    /// The FIFOs, sockets and devices in `worktree` created or changed
    /// since the checks could begin, as worktree-relative keys with their
    /// stat data, sorted; `ignored_dir` tells a folder git listed as
    /// ignored (its key's bytes). None on Windows, which has no such files
    /// in the worktree.
    pub(super) fn scan(
        &self,
        worktree: &Path,
        ignored_dir: impl Fn(&[u8]) -> bool,
    ) -> Vec<(PathBuf, Stat)> {
        if !cfg!(unix) {
            return Vec::new();
        }
        // Folders are judged by their change time where files are (a local
        // file system on Linux, fine timestamps).
        let trusted = Trust::default().dir_links(worktree).is_some();
        // How many recorded folders each recorded folder holds.
        let mut children: std::collections::HashMap<&[u8], u64> = std::collections::HashMap::new();
        for dir in self.dirs.iter().filter(|dir| !dir.is_empty()) {
            *children.entry(super::up(dir)).or_default() += 1;
        }
        // A recorded folder that did not move is still read when its link
        // count says it holds a folder not recorded: an empty one (git
        // lists none), where a FIFO moves only that folder's change time.
        let mut queue: Vec<(Vec<u8>, bool)> = Vec::new();
        for dir in &self.dirs {
            match stat::dir_links(&at(worktree, dir)) {
                Some((stat, _)) if !trusted || stat.changed() >= self.since => {
                    queue.push((dir.clone(), true));
                }
                Some((_, links))
                    if links < 2
                        || links - 2 > children.get(dir.as_slice()).copied().unwrap_or(0) =>
                {
                    queue.push((dir.clone(), false));
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        let mut lstat = Lstat::default();
        while let Some((dir, read)) = queue.pop() {
            let Ok(entries) = std::fs::read_dir(at(worktree, &dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                let name = name.as_encoded_bytes();
                let mut key = dir.clone();
                if !key.is_empty() {
                    key.push(b'/');
                }
                key.extend_from_slice(name);
                if kind.is_dir() {
                    let skipped = name == b".git"
                        || BUILD_OUTPUT.iter().any(|b| name == b.as_bytes())
                        || self.dirs.binary_search(&key).is_ok()
                        || ignored_dir(&key);
                    if !skipped {
                        match stat::dir_links(&entry.path()) {
                            Some((stat, _)) if !trusted || stat.changed() >= self.since => {
                                queue.push((key, true));
                            }
                            // Not moved itself, but a folder inside may
                            // have; not into a nested repository or a
                            // submodule (its own ignored folders are not
                            // listed here).
                            Some((_, links))
                                if links != 2
                                    && std::fs::symlink_metadata(entry.path().join(".git"))
                                        .is_err() =>
                            {
                                queue.push((key, false));
                            }
                            _ => {}
                        }
                    }
                } else if read
                    && stat::special(&kind)
                    && let Ok((seen, _)) = lstat.of(&entry.path())
                    && seen.changed() >= self.since
                {
                    found.push((path_from_bytes(&key), seen));
                }
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }
}

/// `worktree` joined with a folder's key.
fn at(worktree: &Path, dir: &[u8]) -> PathBuf {
    if dir.is_empty() {
        worktree.to_path_buf()
    } else {
        worktree.join(path_from_bytes(dir))
    }
}

/// The entries of `found` (worktree-relative keys) that git's ignore rules
/// do not ignore, asked of `git check-ignore` in one process when there is
/// any. When git cannot answer, every one counts.
pub(super) fn not_ignored(
    repo: &Repo,
    worktree: &Path,
    found: Vec<(PathBuf, Stat)>,
) -> Vec<(PathBuf, Stat)> {
    if found.is_empty() {
        return found;
    }
    let top = repo.toplevel();
    let asked: Vec<Vec<u8>> = found
        .iter()
        .map(|(key, _)| {
            let path = worktree.join(key);
            let rel = path.strip_prefix(top).unwrap_or(&path);
            rel.as_os_str().as_encoded_bytes().to_vec()
        })
        .collect();
    let Some(ignored) = check_ignore(repo, &asked) else {
        return found;
    };
    found
        .into_iter()
        .zip(&asked)
        .filter(|(_, path)| !ignored.contains(path))
        .map(|(found, _)| found)
        .collect()
}

/// The paths among `paths` (top-level relative) git ignores, as `git
/// check-ignore -z --stdin` answers; `None` when it fails.
fn check_ignore(repo: &Repo, paths: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path);
        input.push(0);
    }
    let (code, stdout) = repo.feed(&["check-ignore", "-z", "--stdin"], input)?;
    // 0: some are ignored; 1: none is.
    if !matches!(code, Some(0) | Some(1)) {
        return None;
    }
    Some(
        stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_between_are_looked_at_too() {
        let specials = Specials::new(vec![b"a/b/c".to_vec(), b"a/d".to_vec(), b"e".to_vec()]);
        let dirs: Vec<&[u8]> = specials.dirs().iter().map(Vec::as_slice).collect();
        assert_eq!(
            dirs,
            [&b""[..], b"a", b"a/b", b"a/b/c", b"a/d", b"e"].to_vec()
        );
    }

    // Linux only: rustix has no `mknodat` for macOS, and there every
    // watched folder is read (its ctimes are not trusted).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_made_after_the_start_is_found_in_a_new_folder_too() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("quiet")).unwrap();
        std::fs::write(root.join("src/a.py"), "x").unwrap();
        let old =
            std::ffi::CString::new(root.join("src/old").as_os_str().as_encoded_bytes()).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            old.as_c_str(),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        // Stamped before the start.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let specials = Specials::new(vec![b"src".to_vec(), b"quiet".to_vec()]);
        assert!(specials.scan(root, |_| false).is_empty());
        std::thread::sleep(std::time::Duration::from_millis(30));
        std::fs::create_dir_all(root.join("src/d")).unwrap();
        let mk = |rel: &str| {
            let path =
                std::ffi::CString::new(root.join(rel).as_os_str().as_encoded_bytes()).unwrap();
            rustix::fs::mknodat(
                rustix::fs::CWD,
                path.as_c_str(),
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o644),
                0,
            )
            .unwrap();
        };
        mk("src/p");
        mk("src/d/q");
        std::fs::write(root.join("src/new.txt"), "regular files are git's").unwrap();
        let found: Vec<PathBuf> = specials
            .scan(root, |_| false)
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        assert_eq!(found, [PathBuf::from("src/d/q"), PathBuf::from("src/p")]);
        // A folder git listed as ignored is not read.
        let found = specials.scan(root, |key| key == b"src/d");
        assert_eq!(found.len(), 1);
    }
}
