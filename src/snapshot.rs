//! Read-only verification (SPEC section 5): a snapshot of the worktree before
//! the first check and after the last, compared path by path.
//!
//! In a git worktree a snapshot is the `git status` entries (tracked changes,
//! staged or not, and untracked files that are not ignored) with a content
//! hash of each listed file, so a check that edits a clean file, edits an
//! already-dirty file, stages something or creates a file shows up, while
//! ignored build output never does. Outside git it is every file not matched
//! by `.gitignore` (and not under `target/`, `node_modules/` or `.git/`) with
//! size and content hash. Git is asked with `GIT_OPTIONAL_LOCKS=0`, so taking
//! a snapshot never writes the index.
//!
//! Build output counts in neither: an untracked path git lists under a
//! directory named `target` or `node_modules` is left out as the walk leaves
//! those directories out (tracked files there still count). A listed path
//! that is a directory (an untracked nested repository, `? vendor/lib/`, or a
//! submodule with changes, one `S.M.` entry) gets a hash of the tree under
//! it, walked as outside git, so a change inside it is a change. Paths are
//! compared as the file system names them, bytes on Unix, and converted
//! (lossily) only to be shown.

mod git_state;
mod own;
mod temps;

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::evidence::{Diagnostic, ReadOnly};
use crate::git::{Repo, Status};

pub use git_state::{GitChange, GitState, GitWatch};
pub use own::OwnFiles;

/// Build output and dependencies (SPEC section 5): never walked outside git,
/// and their untracked content, which git lists, left out in git too.
const BUILD_OUTPUT: [&str; 2] = ["target", "node_modules"];

/// What a snapshot records of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// git's two-letter status (`".M"`, `"??"`, ...); empty outside git.
    code: String,
    /// The rest of git's record (modes, object names in HEAD and the index),
    /// so re-staging a staged file with other content is a change.
    state: String,
    /// Content hash; `None` for a path that does not exist as a file.
    hash: Option<[u8; 32]>,
    /// The path is a directory and `hash` covers the tree under it.
    tree: bool,
}

/// The state of a worktree at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Worktree-relative paths (absolute when outside the worktree).
    entries: BTreeMap<PathBuf, Entry>,
}

impl Snapshot {
    /// Paths (worktree-relative, `/` separators) that differ between `self`
    /// (before) and `after`, sorted, each with what happened to it.
    pub fn diff(&self, after: &Snapshot) -> Vec<Change> {
        let mut changes: Vec<Change> = Vec::new();
        for (path, entry) in &self.entries {
            match after.entries.get(path) {
                Some(now) if now == entry => {}
                Some(now) => changes.push(Change::new(path, Some(entry), Some(now))),
                None => changes.push(Change::new(path, Some(entry), None)),
            }
        }
        for (path, now) in &after.entries {
            if !self.entries.contains_key(path) {
                changes.push(Change::new(path, None, Some(now)));
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.key.cmp(&b.key)));
        changes
    }

    /// Number of paths recorded.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing was recorded (a clean git worktree).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One path that differs between two snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Worktree-relative path with `/` separators, as shown (a directory
    /// hashed as a tree ends in `/`).
    pub path: String,
    /// `created`, `deleted` or `changed`.
    pub kind: &'static str,
    /// The path as the snapshots recorded it.
    key: PathBuf,
}

impl Change {
    fn new(key: &Path, before: Option<&Entry>, after: Option<&Entry>) -> Change {
        // A listed path with a hash is a file. In git, a path a snapshot
        // does not list is as committed; outside git, it is not there.
        let untracked_or_walked = |entry: &Entry| entry.code.is_empty() || entry.code == "??";
        let kind = match (before, after) {
            (_, Some(now)) if now.hash.is_none() || now.code.contains('D') => "deleted",
            // It was deleted before the checks ran and is a file again.
            (Some(was), _) if was.hash.is_none() => "created",
            (Some(_), Some(_)) => "changed",
            (None, Some(now)) if untracked_or_walked(now) => "created",
            (Some(was), None) if untracked_or_walked(was) => "deleted",
            // A clean tracked file edited or staged, or a dirty one put back
            // as committed.
            _ => "changed",
        };
        let tree = [before, after].into_iter().flatten().any(|e| e.tree);
        Change {
            path: display_path(key, tree),
            kind,
            key: key.to_path_buf(),
        }
    }
}

/// Read-only verification of one run: the first snapshot, the last one, and
/// in between (only when checks run one at a time) snapshots that name the
/// check that changed a path.
///
/// An intermediate snapshot costs a `git status`; taking one after a
/// one-millisecond check would multiply the cost of a run of quick checks
/// (SPEC section 12). So one is taken only after a check that ran at least
/// `ATTRIBUTION_FACTOR` times as long as the first snapshot took; quick
/// checks are grouped with the next snapshot, and a change found then is
/// blamed on "one of the checks `a`, `b`". The overhead stays under
/// 1/`ATTRIBUTION_FACTOR` of the checks' own time.
#[derive(Debug)]
pub struct Verifier {
    snapshotter: Snapshotter,
    before: Snapshot,
    /// How long the first snapshot took.
    cost: Duration,
    /// The latest intermediate snapshot, when attributing.
    last: Option<Snapshot>,
    /// Checks finished since `last`.
    pending: Vec<String>,
    /// Path → the checks one of which changed it.
    culprits: HashMap<String, Vec<String>>,
    /// Absolute paths of files run-check itself creates.
    ignored: Vec<PathBuf>,
    /// run-check's own output files (the report, redirected streams).
    own: OwnFiles,
    /// The git state, when watched: how it is read, the first state and the
    /// latest intermediate one.
    git: Option<(GitWatch, GitState, Option<GitState>)>,
}

/// An intermediate snapshot follows a check that ran this many times as long
/// as a snapshot takes.
pub const ATTRIBUTION_FACTOR: u32 = 10;

impl Verifier {
    /// Starts verification with the first snapshot. In git, `first` is the
    /// run's `git status` and how long it took (the snapshot is made of it,
    /// not asked again); otherwise the snapshot is taken now. `attribute`:
    /// checks run one at a time, so intermediate snapshots can name culprits.
    pub fn start(
        snapshotter: Snapshotter,
        first: Option<(&Status, Duration)>,
        attribute: bool,
    ) -> Result<Verifier, String> {
        let started = Instant::now();
        let (before, status_took) = match first {
            Some((status, took)) => (snapshotter.of_status(status), took),
            None => (snapshotter.take()?, Duration::ZERO),
        };
        Ok(Verifier {
            snapshotter,
            cost: started.elapsed() + status_took,
            last: attribute.then(|| before.clone()),
            before,
            pending: Vec::new(),
            culprits: HashMap::new(),
            ignored: Vec::new(),
            own: OwnFiles::default(),
            git: None,
        })
    }

    /// Also verifies the git state (HEAD, refs, index, config, hooks,
    /// excludes), `before` being the state when the run started.
    pub fn watch_git(&mut self, watch: GitWatch, before: GitState) {
        let last = self.last.is_some().then(|| before.clone());
        self.git = Some((watch, before, last));
    }

    /// A file run-check itself creates in the worktree after the first
    /// snapshot (the report's temporary file): never a change.
    pub fn ignore(&mut self, path: &Path) {
        let path = dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.ignored.push(path);
    }

    /// run-check's own output files: the `--out` file and the files its
    /// stdout and stderr go to (its progress lines) are never a change.
    pub fn ignore_own(&mut self, own: OwnFiles) {
        self.own = own;
    }

    /// The changes from `before` to `after`, less the ignored paths, with
    /// those of the git state from `git_before` to `git_after` (a path
    /// both name, such as a hooks folder inside the worktree, once).
    fn diff(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        git_before: Option<&GitState>,
        git_after: Option<&GitState>,
    ) -> Vec<Change> {
        let mut changes = before.diff(after);
        let worktree = self.snapshotter.worktree();
        changes.retain(|c| {
            let path = worktree.join(&c.key);
            !self.ignored.contains(&path) && !self.own.contains(&path)
        });
        if let (Some((watch, _, _)), Some(was), Some(now)) = (&self.git, git_before, git_after) {
            for change in watch.diff(was, now) {
                if !changes.iter().any(|c| c.path == change.name) {
                    changes.push(Change {
                        key: PathBuf::from(&change.name),
                        path: change.name,
                        kind: change.kind,
                    });
                }
            }
            changes.sort_by(|a, b| a.path.cmp(&b.path));
        }
        changes
    }

    /// Called after check `name` ended (having run for `ran`) while no other
    /// check runs.
    pub fn after_check(&mut self, name: &str, ran: Duration) {
        if self.last.is_none() {
            return;
        }
        self.pending.push(name.to_string());
        if ran >= self.cost * ATTRIBUTION_FACTOR
            && let Ok(now) = self.snapshotter.take()
        {
            let git = self.git.as_ref().map(|(watch, _, _)| watch.again());
            self.blame(&now, git.as_ref());
            self.last = Some(now);
            if let Some((_, _, last)) = &mut self.git {
                *last = git;
            }
        }
    }

    /// Attributes the changes since `last` to the pending checks.
    fn blame(&mut self, now: &Snapshot, git_now: Option<&GitState>) {
        let Some(last) = &self.last else { return };
        let git_last = self.git.as_ref().and_then(|(_, _, last)| last.as_ref());
        for change in self.diff(last, now, git_last, git_now) {
            self.culprits
                .entry(change.path)
                .or_insert_with(|| self.pending.clone());
        }
        self.pending.clear();
    }

    /// Takes the last snapshot and compares: the `contracts.read_only` value
    /// and one `read-only` diagnostic per modified path.
    pub fn finish(mut self) -> (ReadOnly, Vec<Diagnostic>) {
        let after = match self.snapshotter.take() {
            Ok(after) => after,
            Err(why) => {
                let read_only = ReadOnly {
                    verified: false,
                    modified: Vec::new(),
                    error: Some(format!("cannot take the second snapshot: {why}")),
                };
                return (read_only, Vec::new());
            }
        };
        let git_after = self.git.as_ref().map(|(watch, _, _)| watch.again());
        if !self.pending.is_empty() {
            self.blame(&after, git_after.as_ref());
        }
        let git_before = self.git.as_ref().map(|(_, before, _)| before);
        let changes = self.diff(&self.before, &after, git_before, git_after.as_ref());
        let diagnostics = changes
            .iter()
            .map(|change| {
                let (check, by) = match self.culprits.get(&change.path).map(Vec::as_slice) {
                    Some([one]) => (one.clone(), format!("by check `{one}`")),
                    Some(several) if !several.is_empty() => {
                        let names: Vec<String> = several.iter().map(|n| format!("`{n}`")).collect();
                        (
                            "run-check".into(),
                            format!("by one of the checks {}", names.join(", ")),
                        )
                    }
                    _ => ("run-check".into(), "while the checks ran".into()),
                };
                Diagnostic {
                    check,
                    file: Some(change.path.clone()),
                    line: None,
                    column: None,
                    severity: "error".into(),
                    rule: Some("read-only".into()),
                    message: format!("{} {by}", change.kind),
                    suggestion: None,
                }
            })
            .collect();
        let read_only = ReadOnly {
            verified: true,
            modified: changes.into_iter().map(|c| c.path).collect(),
            error: None,
        };
        (read_only, diagnostics)
    }
}

/// How to take snapshots of one worktree, decided once per run.
#[derive(Debug, Clone)]
pub enum Snapshotter {
    /// Through `git status` of the repository holding the worktree.
    Git {
        /// The repository.
        repo: Repo,
        /// The worktree (canonical).
        worktree: PathBuf,
        /// Index entries flagged assume-unchanged or skip-worktree when
        /// the run started (top-level relative): hashed in every snapshot,
        /// as `git status` does not list their edits.
        hidden: Vec<PathBuf>,
    },
    /// By walking the files outside git.
    Walk {
        /// The worktree (canonical).
        worktree: PathBuf,
    },
}

impl Snapshotter {
    /// Git when the worktree is inside a repository, else a walk.
    pub fn new(worktree: &Path, repo: Option<&Repo>) -> Snapshotter {
        let worktree = worktree.to_path_buf();
        match repo {
            Some(repo) => Snapshotter::Git {
                repo: repo.clone(),
                worktree,
                hidden: Vec::new(),
            },
            None => Snapshotter::Walk { worktree },
        }
    }

    /// Also hashes the flagged index entries `hidden` in every snapshot
    /// (in git; nothing is flagged outside it).
    pub fn hiding(mut self, flagged: &[crate::git::Hidden]) -> Snapshotter {
        if let Snapshotter::Git { hidden, .. } = &mut self {
            *hidden = flagged.iter().map(|h| h.path.clone()).collect();
        }
        self
    }

    /// The worktree snapshots are relative to.
    fn worktree(&self) -> &Path {
        match self {
            Snapshotter::Git { worktree, .. } | Snapshotter::Walk { worktree } => worktree,
        }
    }

    /// Takes a snapshot; the error is one line saying why it could not.
    pub fn take(&self) -> Result<Snapshot, String> {
        match self {
            Snapshotter::Git { repo, .. } => Ok(self.of_status(&repo.status()?)),
            Snapshotter::Walk { worktree } => Ok(walk_snapshot(worktree)),
        }
    }

    /// The snapshot of a `git status` taken a moment ago: its entries, each
    /// listed file hashed now. Outside git, a walk.
    pub fn of_status(&self, status: &Status) -> Snapshot {
        let (repo, worktree, hidden) = match self {
            Snapshotter::Git {
                repo,
                worktree,
                hidden,
            } => (repo, worktree, hidden),
            Snapshotter::Walk { worktree } => return walk_snapshot(worktree),
        };
        let flagged = git_state::flagged_entries(status, hidden);
        let listed: Vec<(&crate::git::StatusEntry, PathBuf)> = status
            .entries
            .iter()
            .chain(&flagged)
            .filter(|entry| !(entry.code == "??" && is_build_output(&entry.path)))
            .map(|entry| (entry, repo.toplevel().join(&entry.path)))
            .collect();
        let paths: Vec<&Path> = listed.iter().map(|(_, path)| path.as_path()).collect();
        let hashes = hash_paths(&paths);
        let entries = listed
            .iter()
            .zip(hashes)
            .map(|((entry, absolute), hashed)| {
                let recorded = Entry {
                    code: entry.code.clone(),
                    state: entry.state.clone(),
                    hash: hashed.hash,
                    tree: hashed.tree,
                };
                (key_path(absolute, worktree), recorded)
            })
            .collect();
        let mut snapshot = Snapshot { entries };
        temps::forget_run_check_temps(&mut snapshot, worktree);
        snapshot
    }
}

/// Whether a (top-level relative) path lies under a build output directory.
fn is_build_output(path: &Path) -> bool {
    path.components()
        .any(|c| BUILD_OUTPUT.iter().any(|dir| c.as_os_str() == *dir))
}

/// Files one hashing thread takes at a time.
const HASH_BATCH: usize = 16;

/// What hashing one listed path found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hashed {
    /// Content hash; `None` when the path is not there (or unreadable).
    hash: Option<[u8; 32]>,
    /// The path is a directory; `hash` covers the tree under it.
    tree: bool,
}

/// `hash_path` of every path, in order. A long list is shared out over the
/// logical CPUs (a dirty worktree of big untracked files is hashed twice per
/// run, before the first check and after the last, with nothing else to do
/// meanwhile); a short one is hashed on this thread.
fn hash_paths(paths: &[&Path]) -> Vec<Hashed> {
    // One batch or less stays here without asking for the CPU count (which
    // reads three cgroup files; a clean worktree lists nothing).
    let batches = paths.len().div_ceil(HASH_BATCH);
    let threads = match batches {
        0 | 1 => 1,
        _ => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(batches),
    };
    if threads <= 1 {
        return paths.iter().map(|path| hash_path(path)).collect();
    }
    let next = AtomicUsize::new(0);
    let none = Hashed {
        hash: None,
        tree: false,
    };
    let mut hashes = vec![none; paths.len()];
    let done: Vec<Vec<(usize, Hashed)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(HASH_BATCH, Ordering::Relaxed);
                        if start >= paths.len() {
                            return done;
                        }
                        let end = (start + HASH_BATCH).min(paths.len());
                        done.extend((start..end).map(|i| (i, hash_path(paths[i]))));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
            .collect()
    });
    for (i, hash) in done.into_iter().flatten() {
        hashes[i] = hash;
    }
    hashes
}

/// The key of an absolute path in a snapshot: relative to the worktree
/// (normalised: no trailing `/`), or the absolute path when outside.
fn key_path(path: &Path, worktree: &Path) -> PathBuf {
    match path.strip_prefix(worktree) {
        Ok(rel) => rel.components().collect(),
        Err(_) => path.components().collect(),
    }
}

/// A snapshot key as shown: `/` separators, invalid UTF-8 replaced, a
/// directory hashed as a tree marked with a trailing `/`.
fn display_path(key: &Path, tree: bool) -> String {
    let mut shown = if key.is_absolute() {
        key.display().to_string()
    } else {
        key.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    if tree {
        shown.push('/');
    }
    shown
}

/// The hash of a listed path: its content for a file (the link text for a
/// symlink), the tree under it for a directory.
fn hash_path(path: &Path) -> Hashed {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Hashed {
            hash: Some(tree_hash(path)),
            tree: true,
        },
        Ok(meta) => Hashed {
            hash: hash_with(path, &meta),
            tree: false,
        },
        Err(_) => Hashed {
            hash: None,
            tree: false,
        },
    }
}

/// sha256 of a file's content (of the link text for a symlink); `None` when
/// it is not there or is a directory.
fn hash_file(path: &Path) -> Option<[u8; 32]> {
    hash_with(path, &std::fs::symlink_metadata(path).ok()?)
}

/// `hash_file` of `path`, whose metadata (not following a symlink) is `meta`.
fn hash_with(path: &Path, meta: &std::fs::Metadata) -> Option<[u8; 32]> {
    let mut hasher = Sha256::new();
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).ok()?;
        hasher.update(b"symlink:");
        hasher.update(target.as_os_str().as_encoded_bytes());
    } else if meta.is_file() {
        let mut file = std::fs::File::open(path).ok()?;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    } else {
        return None;
    }
    Some(hasher.finalize().into())
}

/// One hash over the files under `dir` as the walk outside git sees them
/// (`.gitignore` honoured, `.git`, `target/` and `node_modules/` left out,
/// symlinks not followed): each relative path with its content hash, in
/// order, so a file created, deleted or changed anywhere below changes it.
fn tree_hash(dir: &Path) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"tree:");
    for (path, hash) in walk_files(dir) {
        hasher.update(path.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        match hash {
            Some(hash) => hasher.update(hash),
            None => hasher.update(b"unreadable"),
        }
        hasher.update([0]);
    }
    hasher.finalize().into()
}

/// Every file (and symlink) under `root` not matched by a `.gitignore` and
/// not under `.git`, `target/` or `node_modules/`, relative to `root`, with
/// its content hash.
fn walk_files(root: &Path) -> BTreeMap<PathBuf, Option<[u8; 32]>> {
    let files = Mutex::new(BTreeMap::new());
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            // A submodule's `.git` is a file naming its git directory.
            name != ".git"
                && !(entry.file_type().is_some_and(|t| t.is_dir())
                    && BUILD_OUTPUT.contains(&name.as_ref()))
        })
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                if let Ok(entry) = entry {
                    let is_file = entry
                        .file_type()
                        .is_some_and(|t| t.is_file() || t.is_symlink());
                    if is_file {
                        let hash = hash_file(entry.path());
                        let path = key_path(entry.path(), root);
                        if let Ok(mut files) = files.lock() {
                            files.insert(path, hash);
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
    files.into_inner().unwrap_or_default()
}

fn walk_snapshot(worktree: &Path) -> Snapshot {
    let mut snapshot = walk_entries(worktree);
    temps::forget_run_check_temps(&mut snapshot, worktree);
    snapshot
}

fn walk_entries(worktree: &Path) -> Snapshot {
    let entries = walk_files(worktree)
        .into_iter()
        .map(|(path, hash)| {
            let entry = Entry {
                code: String::new(),
                state: String::new(),
                hash,
                tree: false,
            };
            (path, entry)
        })
        .collect();
    Snapshot { entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    fn paths(changes: Vec<Change>) -> Vec<String> {
        changes.into_iter().map(|c| c.path).collect()
    }

    fn kinds(changes: Vec<Change>) -> Vec<(String, &'static str)> {
        changes.into_iter().map(|c| (c.path, c.kind)).collect()
    }

    #[test]
    fn git_snapshots_see_edits_creations_deletions_and_staging() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join("dirty.txt"), "d").unwrap();
        std::fs::write(root.join(".gitignore"), "out/\n").unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "one"]);
        std::fs::write(root.join("dirty.txt"), "dirty before").unwrap();
        let (repo, _) = crate::git::open(&root).unwrap();
        let snap = Snapshotter::new(&root, Some(&repo));
        let before = snap.take().unwrap();
        assert_eq!(before.len(), 1);
        assert_eq!(
            paths(before.diff(&snap.take().unwrap())),
            Vec::<String>::new()
        );

        std::fs::create_dir(root.join("out")).unwrap();
        std::fs::write(root.join("out/ignored.bin"), "x").unwrap();
        assert_eq!(
            paths(before.diff(&snap.take().unwrap())),
            Vec::<String>::new()
        );

        std::fs::write(root.join("dirty.txt"), "dirty, then changed").unwrap();
        std::fs::write(root.join("a.txt"), "edited").unwrap();
        std::fs::create_dir(root.join("new")).unwrap();
        std::fs::write(root.join("new/file.txt"), "n").unwrap();
        assert_eq!(
            kinds(before.diff(&snap.take().unwrap())),
            [
                ("a.txt".to_string(), "changed"),
                ("dirty.txt".to_string(), "changed"),
                ("new/file.txt".to_string(), "created")
            ]
        );
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::remove_dir_all(root.join("new")).unwrap();
        std::fs::write(root.join("dirty.txt"), "dirty before").unwrap();
        git(&root, &["add", "dirty.txt"]);
        // Same content, but now staged: the status code changed.
        assert_eq!(paths(before.diff(&snap.take().unwrap())), ["dirty.txt"]);
        // Staged, then re-staged with other content: the worktree file and
        // the status code are as before, the index is not.
        let staged = snap.take().unwrap();
        std::fs::write(root.join("dirty.txt"), "other").unwrap();
        git(&root, &["add", "dirty.txt"]);
        std::fs::write(root.join("dirty.txt"), "dirty before").unwrap();
        assert_eq!(paths(staged.diff(&snap.take().unwrap())), ["dirty.txt"]);
        std::fs::remove_file(root.join("a.txt")).unwrap();
        let gone = before.diff(&snap.take().unwrap());
        assert_eq!(
            gone[0],
            Change {
                path: "a.txt".into(),
                kind: "deleted",
                key: "a.txt".into(),
            }
        );
    }

    fn entry(code: &str, hash: Option<u8>) -> Entry {
        Entry {
            code: code.into(),
            state: String::new(),
            hash: hash.map(|b| [b; 32]),
            tree: false,
        }
    }

    #[test]
    fn a_change_is_named_by_what_happened_to_the_file() {
        let kind = |before: Option<Entry>, after: Option<Entry>| {
            Change::new(Path::new("p"), before.as_ref(), after.as_ref()).kind
        };
        let cases = [
            // git: a new untracked file; one edited; one removed.
            (None, Some(entry("??", Some(1))), "created"),
            (
                Some(entry("??", Some(1))),
                Some(entry("??", Some(2))),
                "changed",
            ),
            (Some(entry("??", Some(1))), None, "deleted"),
            // git: a clean tracked file edited, staged, deleted.
            (None, Some(entry(".M", Some(1))), "changed"),
            (None, Some(entry("A.", Some(1))), "changed"),
            (None, Some(entry(".D", None)), "deleted"),
            // git: a dirty tracked file edited again, deleted, put back as
            // committed; a deleted one brought back.
            (
                Some(entry(".M", Some(1))),
                Some(entry(".M", Some(2))),
                "changed",
            ),
            (
                Some(entry(".M", Some(1))),
                Some(entry(".D", None)),
                "deleted",
            ),
            (Some(entry(".M", Some(1))), None, "changed"),
            (Some(entry(".D", None)), None, "created"),
            (
                Some(entry(".D", None)),
                Some(entry(".M", Some(2))),
                "created",
            ),
            // git: an untracked file staged as it was.
            (
                Some(entry("??", Some(1))),
                Some(entry("A.", Some(1))),
                "changed",
            ),
            // outside git.
            (None, Some(entry("", Some(1))), "created"),
            (
                Some(entry("", Some(1))),
                Some(entry("", Some(2))),
                "changed",
            ),
            (Some(entry("", Some(1))), None, "deleted"),
        ];
        for (before, after, expected) in cases {
            let what = format!("{before:?} -> {after:?}");
            assert_eq!(kind(before, after), expected, "{what}");
        }
    }

    #[test]
    fn hashing_many_files_keeps_each_hash_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Three batches and a bit: every thread count from 1 up takes part.
        let mut paths: Vec<PathBuf> = (0..3 * HASH_BATCH + 5)
            .map(|i| {
                let path = root.join(format!("f{i:03}"));
                std::fs::write(&path, format!("content {i}")).unwrap();
                path
            })
            .collect();
        std::fs::write(root.join("abc"), "abc").unwrap();
        paths.insert(7, root.join("abc"));
        paths.insert(20, root.join("missing"));
        paths.insert(30, root.to_path_buf());
        let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let hashes = hash_paths(&paths);
        assert_eq!(hashes.len(), paths.len());
        // sha256("abc"), FIPS 180-2's first example.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let hex: String = hashes[7]
            .hash
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, abc);
        assert_eq!((hashes[20].hash, hashes[20].tree), (None, false));
        // The directory: a hash of the tree under it.
        assert_eq!(hashes[30].hash, Some(tree_hash(root)));
        assert!(hashes[30].tree);
        for (i, (path, hashed)) in paths.iter().zip(&hashes).enumerate() {
            if i != 30 {
                assert_eq!(hashed.hash, hash_file(path), "{}", path.display());
            }
        }
    }

    #[test]
    fn a_change_among_many_dirty_files_is_the_only_one_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        for i in 0..4 * HASH_BATCH {
            std::fs::write(root.join(format!("u{i:03}")), format!("{i}")).unwrap();
        }
        let (repo, _) = crate::git::open(&root).unwrap();
        let snap = Snapshotter::new(&root, Some(&repo));
        let before = snap.take().unwrap();
        assert_eq!(before.len(), 4 * HASH_BATCH);
        std::fs::write(root.join("u037"), "edited").unwrap();
        assert_eq!(
            kinds(before.diff(&snap.take().unwrap())),
            [("u037".to_string(), "changed")]
        );
    }

    #[test]
    fn a_verifier_made_of_the_runs_status_ignores_run_checks_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "one"]);
        let (repo, status) = crate::git::open(&root).unwrap();
        let status = status.unwrap();
        let snapshotter = Snapshotter::new(&root, Some(&repo));
        let mut verifier =
            Verifier::start(snapshotter, Some((&status, Duration::ZERO)), false).unwrap();
        std::fs::write(root.join(".report.tmp"), "").unwrap();
        verifier.ignore(&root.join(".report.tmp"));
        std::fs::write(root.join("a.txt"), "changed").unwrap();
        let (read_only, diagnostics) = verifier.finish();
        assert!(read_only.verified);
        assert_eq!(read_only.modified, ["a.txt"]);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].message, "changed while the checks ran");
    }

    #[test]
    fn walk_snapshots_honour_gitignore_and_skip_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        std::fs::write(root.join("keep.txt"), "k").unwrap();
        let snap = Snapshotter::Walk {
            worktree: root.clone(),
        };
        let before = snap.take().unwrap();
        assert_eq!(before.len(), 2);
        std::fs::write(root.join("x.log"), "ignored").unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join("target/debug/out"), "built").unwrap();
        assert_eq!(
            paths(before.diff(&snap.take().unwrap())),
            Vec::<String>::new()
        );
        std::fs::write(root.join("keep.txt"), "changed").unwrap();
        std::fs::remove_file(root.join(".gitignore")).unwrap();
        assert_eq!(
            kinds(before.diff(&snap.take().unwrap())),
            [
                (".gitignore".to_string(), "deleted"),
                ("keep.txt".to_string(), "changed"),
                ("x.log".to_string(), "created")
            ]
        );
    }
}
