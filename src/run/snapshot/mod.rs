//! Read-only verification (docs/read-only.md): a snapshot of the worktree before
//! the first check and after the last, compared path by path.
//!
//! In a git worktree a snapshot is the `git status` entries (tracked changes,
//! staged or not, and untracked files that are not ignored) with what can be
//! known of each listed file without trusting git, so a check that edits a
//! clean file, edits an already-dirty file, stages something or creates a
//! file shows up, while ignored build output never does. Outside git it is
//! every file not matched by `.gitignore` (and not under `target/`,
//! `node_modules/` or `.git/`). Git is asked with `GIT_OPTIONAL_LOCKS=0`, so
//! taking a snapshot never writes the index.
//!
//! A listed file is compared by its stat data (`stat.rs`: device, inode,
//! mode, size, mtime, ctime), read and hashed only where the stat data
//! cannot be trusted: when it changed within a clock tick of the first
//! snapshot (racy), on a file system whose clock is not this machine's, or
//! on Windows (no change time). With many untracked files (`UNREAD_MIN` and
//! more) the first snapshot does not even stat them: it records the
//! identity of each one's directory, and the last snapshot finds a file
//! unchanged when its directory is the same and its ctime is not after the
//! first snapshot's clock (a change of any kind sets the ctime to the
//! current time; `stat.rs` says why that holds). So a snapshot costs about
//! one listing of the tree, and the last one stats the files while git
//! lists them.
//!
//! A file whose stat data changed counts as changed even when its bytes are
//! the same: a `touch`, a `chmod` there and back, a rewrite with identical
//! content are writes to the worktree by a check that should not write.
//! (A clean tracked file is git's to judge: git compares its content with
//! the index, so a `touch` of a clean file does not count.)
//!
//! `git status` lists no FIFO, socket or device: in git, a later snapshot
//! looks for those a check created itself, reading only the folders whose
//! entries changed during the run (`special.rs`).
//!
//! Build output counts in neither: an untracked path git lists under a
//! directory named `target` or `node_modules` is left out as the walk leaves
//! those directories out (tracked files there still count). A listed path
//! that is a directory (an untracked nested repository, `? vendor/lib/`, or a
//! submodule with changes, one `S.M.` entry) gets a hash of the tree under
//! it (every file's mode and content), walked as outside git, so a change
//! inside it is a change. Paths are compared as the file system names them,
//! bytes on Unix, and converted (lossily) only to be shown.

mod blame;
mod filtered;
mod git_state;
mod own;
mod settled;
mod snapshotter;
mod special;
mod stat;
mod temps;
mod tree;
mod verify;
mod walk;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::git::{Repo, Status, StatusEntry};
use run_check_documents::evidence::{Diagnostic, ReadOnly};
use stat::{Clock, DirId, Lstat, Stat, Trust};

pub(crate) use git_state::{GitState, GitWatch, IndexEntry, index_entries};
pub(crate) use own::OwnFiles;
pub(crate) use snapshotter::Snapshotter;
pub(crate) use verify::Verifier;

/// Build output and dependencies (docs/read-only.md): never walked outside git,
/// and their untracked content, which git lists, left out in git too.
const BUILD_OUTPUT: [&str; 2] = ["target", "node_modules"];

/// From this many untracked files on, the first snapshot leaves them
/// unread (not even stat'ed) where the clock is trusted: a stat costs about
/// what git's listing of the file costs.
const UNREAD_MIN: usize = 1000;

/// git's two-letter status of a path (`.M`, `??`, ...), two bytes
/// compared as one number: 200,000 entries are compared per run. Nothing
/// (`[0, 0]`) outside git.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Code([u8; 2]);

impl Code {
    /// Outside git.
    const WALKED: Code = Code([0, 0]);

    /// The code git printed (its first two bytes).
    fn of(code: &str) -> Code {
        match code.as_bytes() {
            [a, b, ..] => Code([*a, *b]),
            [a] => Code([*a, 0]),
            [] => Code::WALKED,
        }
    }

    /// Untracked (`??`).
    fn untracked(self) -> bool {
        self.0 == *b"??"
    }

    /// Ignored (`!!`): an ignore or attributes file git ignores, which it
    /// still reads.
    fn ignored(self) -> bool {
        self.0 == *b"!!"
    }

    /// Untracked, ignored, or seen by a walk outside git: a path that is
    /// not there when a snapshot does not list it.
    fn untracked_or_walked(self) -> bool {
        self.untracked() || self.ignored() || self == Code::WALKED
    }

    /// Deleted in the index or the worktree.
    fn deleted(self) -> bool {
        self.0.contains(&b'D')
    }
}

/// What a snapshot records of one path.
#[derive(Debug, Clone)]
struct Entry {
    /// git's two-letter status (`".M"`, `"??"`, ...); empty outside git.
    code: Code,
    /// The rest of git's record (modes, object names in HEAD and the index),
    /// so re-staging a staged file with other content is a change.
    state: String,
    /// What was found at the path.
    seen: Seen,
}

/// What a snapshot found at one listed path.
#[derive(Debug, Clone)]
enum Seen {
    /// Nothing (or nothing that can be looked at).
    Absent,
    /// A file, symlink or other non-directory: its stat data, its content
    /// hash when it had to be read, and (when the first snapshot left it
    /// unread) the identity of its directory.
    File {
        stat: Stat,
        hash: Option<Box<[u8; 32]>>,
        dir: Option<DirId>,
    },
    /// A file the first snapshot left unread: the identity of its
    /// directory. Unchanged while that directory is the same and the file's
    /// ctime is not after the snapshot's clock.
    Unread { dir: DirId },
    /// A directory: the hash of the tree under it.
    Tree([u8; 32]),
}

impl Seen {
    /// Whether `after` (a later snapshot's) shows the same thing as `self`,
    /// seen by a snapshot that began at `clock`.
    fn same(&self, after: &Seen, clock: &Clock) -> bool {
        match (self, after) {
            (Seen::Absent, Seen::Absent) => true,
            (Seen::Tree(a), Seen::Tree(b)) => a == b,
            (
                Seen::File { stat, hash, .. },
                Seen::File {
                    stat: now,
                    hash: now_hash,
                    ..
                },
            ) => {
                stat == now
                    && match (hash, now_hash) {
                        (Some(a), Some(b)) => a == b,
                        (Some(_), None) => false,
                        _ => true,
                    }
            }
            (
                Seen::Unread { dir },
                Seen::File {
                    stat,
                    dir: Some(now_dir),
                    ..
                },
            ) => dir == now_dir && stat.on(dir) && stat.changed() <= clock.at,
            _ => false,
        }
    }

    /// Whether there is nothing at the path.
    fn absent(&self) -> bool {
        matches!(self, Seen::Absent)
    }

    /// Whether the path is a directory hashed as a tree.
    fn tree(&self) -> bool {
        matches!(self, Seen::Tree(_))
    }
}

impl Entry {
    /// Whether `after` records the same state of the path.
    fn same(&self, after: &Entry, clock: &Clock) -> bool {
        self.code == after.code
            && (self.state.is_empty() == after.state.is_empty())
            && (self.state.is_empty() || self.state == after.state)
            && self.seen.same(&after.seen, clock)
    }
}

/// The state of a worktree at one moment.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// Worktree-relative paths (absolute when outside the worktree), one
    /// entry each, sorted by their bytes: two snapshots are compared in
    /// one pass, without hashing 200,000 paths.
    entries: Vec<(Key, Entry)>,
    /// When it began: files it left unread are judged against this.
    clock: Clock,
    /// The untracked part of the worktree as a later snapshot can check it
    /// without listing it again (a first snapshot's, where that holds).
    tree: Option<tree::Tree>,
    /// What lets a later snapshot skip `git status` (a first snapshot's,
    /// where that holds: `settled.rs`).
    settled: Option<Arc<settled::Settled>>,
    /// Whether its untracked files were listed (not taken from a first
    /// snapshot's tree): what the tests of `tree.rs` look at.
    listed_untracked: bool,
    /// The `.gitignore` files it lists (a first snapshot's).
    rules: Vec<Key>,
    /// The ignored paths git listed (`--ignored=matching`), sorted: what a
    /// changed ignore rule newly hides is among those a later snapshot
    /// adds.
    ignored: Vec<Key>,
    /// Whether some file was left unread (judged later by the clock).
    unread: bool,
    /// Not looked at: git could not be asked (a FIFO where it reads), so
    /// this is the first snapshot's copy and no worktree change is found
    /// in it.
    blind: bool,
}

/// A snapshot's path: shared by the snapshots that list it, so a later
/// snapshot that lists what the first one did costs no copy, and two
/// snapshots compare it by address first.
type Key = Arc<Path>;

/// The bytes a snapshot key is sorted by.
fn bytes<K: AsRef<Path> + ?Sized>(key: &K) -> &[u8] {
    key.as_ref().as_os_str().as_encoded_bytes()
}

/// The order of two keys (the same key of two snapshots: at once).
fn order(a: &Key, b: &Key) -> std::cmp::Ordering {
    if Arc::ptr_eq(a, b) {
        std::cmp::Ordering::Equal
    } else {
        bytes(a).cmp(bytes(b))
    }
}

impl Snapshot {
    /// A snapshot of `entries` in any order (of a path listed twice, the
    /// first is kept).
    fn new(mut entries: Vec<(Key, Entry)>, clock: Clock) -> Snapshot {
        // git's listing is mostly sorted already (its tracked part, then its
        // untracked part): a check costs one pass, a sort (without a
        // scratch copy of 200,000 entries) only when needed.
        // Strictly increasing: sorted, and no path twice.
        if !entries.is_sorted_by(|a, b| bytes(&a.0) < bytes(&b.0)) {
            entries.sort_by(|a, b| bytes(&a.0).cmp(bytes(&b.0)));
            entries.dedup_by(|a, b| a.0 == b.0);
        }
        Snapshot {
            entries,
            clock,
            tree: None,
            settled: None,
            listed_untracked: true,
            rules: Vec::new(),
            ignored: Vec::new(),
            unread: false,
            blind: false,
        }
    }

    /// The copy of `self` (a first snapshot) that stands for a later one
    /// not taken: nothing in the worktree is found changed against it.
    fn blind(&self) -> Snapshot {
        Snapshot {
            blind: true,
            ..self.clone()
        }
    }

    /// A snapshot of `entries` sorted by key, each key once.
    fn sorted(entries: Vec<(Key, Entry)>, clock: Clock) -> Snapshot {
        debug_assert!(entries.is_sorted_by(|a, b| bytes(&a.0) < bytes(&b.0)));
        let mut snapshot = Snapshot::new(Vec::new(), clock);
        snapshot.entries = entries;
        snapshot
    }

    /// What was recorded of `key`.
    fn get(&self, key: &Path) -> Option<&Entry> {
        self.entries
            .binary_search_by(|(k, _)| bytes(k).cmp(bytes(key)))
            .ok()
            .map(|i| &self.entries[i].1)
    }

    /// Paths (worktree-relative, `/` separators) that differ between `self`
    /// (before) and `after`, sorted, each with what happened to it.
    pub(crate) fn diff(&self, after: &Snapshot) -> Vec<Change> {
        let mut changes: Vec<Change> = Vec::new();
        let (mut was, mut now) = (
            self.entries.iter().peekable(),
            after.entries.iter().peekable(),
        );
        loop {
            let order = match (was.peek(), now.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some((a, _)), Some((b, _))) => order(a, b),
            };
            match order {
                std::cmp::Ordering::Less => {
                    if let Some((key, entry)) = was.next() {
                        changes.push(Change::new(key, Some(entry), None));
                    }
                }
                std::cmp::Ordering::Greater => {
                    if let Some((key, entry)) = now.next() {
                        changes.push(Change::new(key, None, Some(entry)));
                    }
                }
                std::cmp::Ordering::Equal => {
                    if let (Some((key, entry)), Some((_, later))) = (was.next(), now.next())
                        && !entry.same(later, &self.clock)
                    {
                        changes.push(Change::new(key, Some(entry), Some(later)));
                    }
                }
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.key.cmp(&b.key)));
        changes
    }

    /// Number of paths recorded.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether a `.gitignore` file is not recorded as `reference` recorded
    /// it (changed, created or gone): those `reference` lists, and `more`
    /// (the ones this snapshot found beside them). A few lookups, not a
    /// pass over every entry.
    fn ignore_rules_differ(&self, reference: &Snapshot, more: &[Key]) -> bool {
        reference
            .rules
            .iter()
            .chain(more)
            .any(|rule| match (reference.get(rule), self.get(rule)) {
                (Some(was), Some(now)) => !was.same(now, &reference.clock),
                (None, None) => false,
                _ => true,
            })
    }

    /// Records the FIFOs, sockets and devices `found` (keys and stat
    /// data) as untracked files, which `git status` does not list: a path
    /// it lists already (a tracked file replaced by a FIFO) stays as git
    /// lists it.
    fn add_specials(&mut self, found: Vec<(PathBuf, stat::Stat)>) {
        for (key, stat) in found {
            let Err(at) = self
                .entries
                .binary_search_by(|(k, _)| bytes(k).cmp(bytes(&key)))
            else {
                continue;
            };
            let entry = Entry {
                code: Code(*b"??"),
                state: String::new(),
                seen: Seen::File {
                    stat,
                    hash: None,
                    dir: None,
                },
            };
            self.entries.insert(at, (Key::from(key), entry));
        }
    }
}

/// One path that differs between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Worktree-relative path with `/` separators, as shown (a directory
    /// hashed as a tree ends in `/`).
    pub(crate) path: String,
    /// `created`, `deleted` or `changed`.
    pub(crate) kind: &'static str,
    /// The path as the snapshots recorded it.
    key: PathBuf,
    /// Whether `key` is a path whose change time can name its writer (not
    /// a name of the git state such as `.git/index`).
    timed: bool,
}

impl Change {
    fn new(key: &Path, before: Option<&Entry>, after: Option<&Entry>) -> Change {
        // In git, a path a snapshot does not list is as committed; outside
        // git, it is not there.
        let untracked_or_walked = |entry: &Entry| entry.code.untracked_or_walked();
        let kind = match (before, after) {
            (_, Some(now)) if now.seen.absent() || now.code.deleted() => "deleted",
            // It was deleted before the checks ran and is a file again.
            (Some(was), _) if was.seen.absent() => "created",
            (Some(_), Some(_)) => "changed",
            (None, Some(now)) if untracked_or_walked(now) => "created",
            (Some(was), None) if untracked_or_walked(was) => "deleted",
            // A clean tracked file edited or staged, or a dirty one put back
            // as committed.
            _ => "changed",
        };
        let tree = [before, after].into_iter().flatten().any(|e| e.seen.tree());
        Change {
            path: display_path(key, tree),
            kind,
            key: key.to_path_buf(),
            timed: true,
        }
    }
}

/// Whether `key` names a `.gitignore` file.
fn is_rule(key: &Path) -> bool {
    bytes(key).ends_with(b".gitignore") && key.file_name().is_some_and(|n| n == ".gitignore")
}

/// `worktree` joined with a snapshot key (worktree-relative, or absolute
/// outside it), as `Path::join` does, without its component-wise checks:
/// one call per listed file.
fn at_key(worktree: &Path, key: &Path) -> PathBuf {
    if key.is_absolute() || worktree.as_os_str().is_empty() {
        return worktree.join(key);
    }
    let mut path = OsString::with_capacity(worktree.as_os_str().len() + 1 + key.as_os_str().len());
    path.push(worktree.as_os_str());
    if !worktree.as_os_str().as_encoded_bytes().ends_with(b"/") {
        path.push(std::path::MAIN_SEPARATOR_STR);
    }
    path.push(key.as_os_str());
    PathBuf::from(path)
}

/// The folder holding `path` (`/`-separated bytes; a directory's own
/// trailing `/` aside): empty at the top.
fn up(path: &[u8]) -> &[u8] {
    let path = path.strip_suffix(b"/").unwrap_or(path);
    path.rsplitn(2, |&b| b == b'/').nth(1).unwrap_or_default()
}

/// The folder of a snapshot key (empty for the worktree itself).
fn parent_of(key: &Path) -> &Path {
    key.parent().unwrap_or(Path::new(""))
}

/// The bytes of a key's folder, cheaply (to tell one folder from the next):
/// up to the last separator.
fn parent_bytes(key: &Path) -> &[u8] {
    let key = bytes(key);
    let separator = |b: &u8| *b == b'/' || (cfg!(windows) && *b == b'\\');
    match key.iter().rposition(separator) {
        Some(end) => &key[..end],
        None => &[],
    }
}

/// The number of logical CPUs.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Files one thread looks at, at least, when many are `lstat`ed: git's own
/// figure for its threaded `lstat`s of the index (`preload-index.c`).
const STAT_THREAD_COST: usize = 500;

/// At most this many threads `lstat` files, as in git.
const MAX_STAT_THREADS: usize = 20;

/// Threads to `lstat` `files` files with: as `git status` does, one per
/// [`STAT_THREAD_COST`] files up to [`MAX_STAT_THREADS`], whatever the
/// number of CPUs (never fewer than that). A thread spends its time in the
/// kernel's path lookups, or with a cold cache waiting for the disk, so
/// threads beyond the CPUs hide those waits; and on a machine busy with
/// other work, the CPUs are shared by thread, so a snapshot with as many
/// threads as git gets the share git gets (two threads beside one busy
/// process had one CPU between them; twenty had most of both).
fn stat_threads(files: usize) -> usize {
    (files / STAT_THREAD_COST)
        .clamp(1, MAX_STAT_THREADS)
        .max(cpus())
}

/// Whether a (top-level relative) path lies under a build output directory
/// (`target/`, `node_modules/`): untracked files there never count as a
/// change, here or in the change budget.
pub(crate) fn is_build_output(path: &Path) -> bool {
    // Git's paths are `/`-separated (on Windows too): no component parsing
    // for 200,000 of them.
    path.as_os_str()
        .as_encoded_bytes()
        .split(|&b| b == b'/' || (cfg!(windows) && b == b'\\'))
        .any(|part| BUILD_OUTPUT.iter().any(|dir| part == dir.as_bytes()))
}

/// The key of an absolute path in a snapshot: relative to the worktree
/// (normalised: no trailing `/`), or the absolute path when outside.
fn key_path(path: &Path, worktree: &Path) -> OsString {
    let key: PathBuf = match path.strip_prefix(worktree) {
        Ok(rel) => rel.components().collect(),
        Err(_) => path.components().collect(),
    };
    key.into_os_string()
}

/// A snapshot key as shown: `/` separators, invalid UTF-8 replaced, a
/// directory hashed as a tree marked with a trailing `/`.
fn display_path(key: &Path, tree: bool) -> String {
    let mut shown = if key.is_absolute() {
        key.display().to_string()
    } else {
        crate::paths::to_slashes(key)
    };
    if tree {
        shown.push('/');
    }
    shown
}

#[cfg(test)]
mod tests;
