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
mod git_state;
mod own;
mod special;
mod stat;
mod temps;
mod tree;

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
                stat.same(now)
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
            ) => dir == now_dir && stat.on(dir) && stat.changed() <= clock.at(),
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
    match Arc::ptr_eq(a, b) {
        true => std::cmp::Ordering::Equal,
        false => bytes(a).cmp(bytes(b)),
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
            listed_untracked: true,
            rules: Vec::new(),
            ignored: Vec::new(),
            unread: false,
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

    /// Whether some file was left unread (judged later by the clock).
    fn unread(&self) -> bool {
        self.unread
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

/// The folders (worktree-relative bytes) of the files `snapshot` lists
/// inside the worktree, and of the ignored paths git listed (so a folder
/// holding only ignored files is looked at too; an ignored folder, listed
/// as `build/`, is not itself one of them).
fn listed_dirs(snapshot: &Snapshot) -> Vec<Vec<u8>> {
    let mut dirs: Vec<Vec<u8>> = Vec::new();
    let keys = snapshot.entries.iter().map(|(key, _)| key);
    for key in keys.chain(&snapshot.ignored) {
        if key.is_absolute() {
            continue;
        }
        let whole = bytes(key);
        let path = whole.strip_suffix(b"/").unwrap_or(whole);
        let dir = match path.iter().rposition(|&b| b == b'/') {
            Some(end) => &path[..end],
            None => &[],
        };
        if dirs.last().is_none_or(|last| last.as_slice() != dir) {
            dirs.push(dir.to_vec());
        }
    }
    dirs
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

/// Read-only verification of one run: the first snapshot, the last one, and
/// in between (only when checks run one at a time) snapshots that name the
/// check that changed a path.
///
/// An intermediate snapshot costs a `git status`; taking one after a
/// one-millisecond check would multiply the cost of a run of quick checks
/// (docs/benchmarks.md). So one is taken only after a check that ran at least
/// `ATTRIBUTION_FACTOR` times as long as the first snapshot took; quick
/// checks are grouped with the next snapshot, and a change found then is
/// blamed on "one of the checks `a`, `b`". The overhead stays under
/// 1/`ATTRIBUTION_FACTOR` of the checks' own time.
#[derive(Debug)]
pub(crate) struct Verifier {
    snapshotter: Snapshotter,
    before: Snapshot,
    /// How long the first snapshot took.
    cost: Duration,
    /// Checks run one at a time: intermediate snapshots name culprits.
    attribute: bool,
    /// The latest intermediate snapshot (`None`: `before` is the latest).
    last: Option<Snapshot>,
    /// Checks finished since `last`.
    pending: Vec<String>,
    /// Path → the checks one of which changed it.
    culprits: HashMap<String, Vec<String>>,
    /// When each check ran: names the writer of a path by its change time
    /// when checks overlap (`blame.rs`).
    windows: blame::Windows,
    /// Absolute paths of files run-check itself creates.
    ignored: Vec<PathBuf>,
    /// run-check's own output files (the report, redirected streams).
    own: OwnFiles,
    /// The git state, when watched: how it is read, the first state and the
    /// latest intermediate one.
    git: Option<(GitWatch, GitState, Option<GitState>)>,
    /// In git, where later snapshots look for FIFOs, sockets and devices,
    /// which `git status` never lists (`special.rs`).
    specials: Option<special::Specials>,
}

/// An intermediate snapshot follows a check that ran this many times as long
/// as a snapshot takes.
pub(crate) const ATTRIBUTION_FACTOR: u32 = 10;

impl Verifier {
    /// Starts verification with the first snapshot. In git, `first` is the
    /// run's `git status` and how long it took (the snapshot is made of it,
    /// not asked again); otherwise the snapshot is taken now. `attribute`:
    /// checks run one at a time, so intermediate snapshots can name culprits.
    pub(crate) fn start(
        snapshotter: Snapshotter,
        first: Option<(&Status, Duration)>,
        attribute: bool,
    ) -> Result<Verifier, String> {
        let started = Instant::now();
        let (before, status_took) = match first {
            Some((status, took)) => (snapshotter.first(Some(status), took)?, took),
            None => (snapshotter.first(None, Duration::ZERO)?, Duration::ZERO),
        };
        // Folders of the listed files; those of the tracked ones come with
        // the git state. Taken now: no check has started.
        let specials = match &snapshotter {
            Snapshotter::Git { .. } => Some(special::Specials::new(listed_dirs(&before))),
            Snapshotter::Walk { .. } => None,
        };
        Ok(Verifier {
            specials,
            snapshotter,
            cost: started.elapsed() + status_took,
            attribute,
            last: None,
            before,
            pending: Vec::new(),
            culprits: HashMap::new(),
            windows: blame::Windows::default(),
            ignored: Vec::new(),
            own: OwnFiles::default(),
            git: None,
        })
    }

    /// Also verifies the git state (HEAD, refs, index, config, hooks,
    /// excludes), `before` being the state when the run started.
    pub(crate) fn watch_git(&mut self, watch: GitWatch, before: GitState) {
        if let Some(specials) = &mut self.specials {
            specials.add(watch.worktree_dirs(&before));
        }
        self.git = Some((watch, before, None));
    }

    /// The git state now, when watched.
    fn git_now(&self) -> Option<GitState> {
        self.git.as_ref().map(|(watch, _, _)| watch.again())
    }

    /// A snapshot of the worktree and of the git state now. When the git
    /// state changed (an excludes file among others) and the untracked
    /// files were not listed, they are: files it no longer ignores are
    /// named too.
    fn now(&self) -> Result<(Snapshot, Option<GitState>), String> {
        let (snapshot, specials) = self.again_with_specials();
        let mut snapshot = snapshot?;
        let git = self.git_now();
        let git_changed = match (&self.git, &git) {
            (Some((watch, before, _)), Some(now)) => !watch.diff(before, now).is_empty(),
            _ => false,
        };
        if git_changed && !snapshot.listed_untracked {
            snapshot = self.snapshotter.again_listed(&self.before)?;
        }
        if let Snapshotter::Git { repo, worktree, .. } = &self.snapshotter {
            snapshot.add_specials(special::not_ignored(repo, worktree, specials));
        }
        Ok((snapshot, git))
    }

    /// A later snapshot, and the FIFOs, sockets and devices created since
    /// the checks began (looked for while git lists, when there are many
    /// folders to stat).
    fn again_with_specials(&self) -> (Result<Snapshot, String>, Vec<(PathBuf, stat::Stat)>) {
        let Some(specials) = &self.specials else {
            return (self.snapshotter.again(&self.before), Vec::new());
        };
        let worktree = self.snapshotter.worktree();
        let ignored = &self.before.ignored;
        let ignored_dir = |key: &[u8]| {
            let listed = |wanted: &[u8]| ignored.binary_search_by(|k| bytes(k).cmp(wanted)).is_ok();
            let mut slashed = key.to_vec();
            slashed.push(b'/');
            listed(key) || listed(&slashed)
        };
        let scan = || specials.scan(worktree, ignored_dir);
        if specials.len() < OVERLAP_MIN {
            let snapshot = self.snapshotter.again(&self.before);
            return (snapshot, scan());
        }
        std::thread::scope(|scope| {
            let found = scope.spawn(scan);
            let snapshot = self.snapshotter.again(&self.before);
            let found = found
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (snapshot, found)
        })
    }

    /// The git state of the latest snapshot (intermediate, else the first).
    fn git_last(&self) -> Option<&GitState> {
        self.git
            .as_ref()
            .map(|(_, before, last)| last.as_ref().unwrap_or(before))
    }

    /// A file run-check itself creates in the worktree after the first
    /// snapshot (the report's temporary file): never a change.
    pub(crate) fn ignore(&mut self, path: &Path) {
        let path = dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.ignored.push(path);
    }

    /// run-check's own output files: the `--out` file and the files its
    /// stdout and stderr go to (its progress lines) are never a change.
    pub(crate) fn ignore_own(&mut self, own: OwnFiles) {
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
            !self.ignored.contains(&path) && !self.own.contains(&path) && !in_tool_cache(&c.key)
        });
        // A changed ignore rule: the files it newly hides are changes too
        // (a `.gitignore` hides what is below its folder; the excludes
        // files and the config, what is anywhere).
        let mut scopes: Vec<PathBuf> = changes
            .iter()
            .filter(|c| is_rule(&c.key))
            .map(|c| parent_of(&c.key).to_path_buf())
            .collect();
        let git_changes = match (&self.git, git_before, git_after) {
            (Some((watch, _, _)), Some(was), Some(now)) => {
                let changes = watch.diff(was, now);
                if changes.iter().any(|c| watch.may_hide(&c.name)) {
                    scopes.push(PathBuf::new());
                }
                changes
            }
            _ => Vec::new(),
        };
        if !scopes.is_empty() {
            for key in newly_hidden(before, after, &scopes) {
                if !changes.iter().any(|c| c.key == *key) {
                    changes.push(Change {
                        path: display_path(&key, false),
                        kind: "created",
                        key: key.to_path_buf(),
                        timed: true,
                    });
                }
            }
            changes.sort_by(|a, b| a.path.cmp(&b.path));
        }
        if self.git.is_some() {
            for change in git_changes {
                if !changes.iter().any(|c| c.path == change.name) {
                    changes.push(Change {
                        key: PathBuf::from(&change.name),
                        path: change.name,
                        kind: change.kind,
                        timed: false,
                    });
                }
            }
            changes.sort_by(|a, b| a.path.cmp(&b.path));
        }
        changes
    }

    /// Check `name` is launched now (its process, or its scan).
    pub(crate) fn check_started(&mut self, name: &str) {
        self.windows.started(name);
    }

    /// Check `name` ended now.
    pub(crate) fn check_ended(&mut self, name: &str) {
        self.windows.ended(name);
    }

    /// Some check left processes behind (its `leaked`), which may have
    /// written while another check ran alone: change times name no check.
    pub(crate) fn processes_left(&mut self) {
        self.windows.processes_left();
    }

    /// The checks that may have changed `change`: those the intermediate
    /// snapshots name, narrowed by the change times (`blame.rs`); empty
    /// when neither can tell.
    fn writers(&self, change: &Change) -> Vec<String> {
        let snapshots = self.culprits.get(&change.path).filter(|c| !c.is_empty());
        if let Some([one]) = snapshots.map(Vec::as_slice) {
            return vec![one.clone()];
        }
        let timed = match change.timed {
            true => self
                .windows
                .writer(self.snapshotter.worktree(), &change.key),
            false => blame::Writer::Unknown,
        };
        match (snapshots, timed) {
            (None, blame::Writer::One(one)) => vec![one.to_string()],
            (None, blame::Writer::Several(names)) => {
                names.into_iter().map(str::to_string).collect()
            }
            (Some(named), blame::Writer::One(one)) if named.iter().any(|n| n == one) => {
                vec![one.to_string()]
            }
            (Some(named), blame::Writer::Several(names)) => {
                let both: Vec<String> = named
                    .iter()
                    .filter(|n| names.contains(&n.as_str()))
                    .cloned()
                    .collect();
                if both.is_empty() { named.clone() } else { both }
            }
            (Some(named), _) => named.clone(),
            (None, _) => Vec::new(),
        }
    }

    /// Called after check `name` ended (having run for `ran`) while no other
    /// check runs.
    pub(crate) fn after_check(&mut self, name: &str, ran: Duration) {
        if !self.attribute {
            return;
        }
        self.pending.push(name.to_string());
        if ran >= self.cost * ATTRIBUTION_FACTOR
            && let Ok((now, git_now)) = self.now()
        {
            let last = self.last.as_ref().unwrap_or(&self.before);
            let changes = self.diff(last, &now, self.git_last(), git_now.as_ref());
            self.blame(changes);
            self.last = Some(now);
            if let Some((_, _, last)) = &mut self.git {
                *last = git_now;
            }
        }
    }

    /// Attributes `changes` (since the latest snapshot) to the pending
    /// checks.
    fn blame(&mut self, changes: Vec<Change>) {
        for change in changes {
            self.culprits
                .entry(change.path)
                .or_insert_with(|| self.pending.clone());
        }
        self.pending.clear();
    }

    /// Takes the last snapshot and compares: the `contracts.read_only` value
    /// and one `read-only` diagnostic per modified path.
    pub(crate) fn finish(mut self) -> (ReadOnly, Vec<Diagnostic>) {
        let (after, git_after) = match self.now() {
            Ok(now) => now,
            Err(why) => {
                let read_only = ReadOnly {
                    verified: false,
                    modified: Vec::new(),
                    error: Some(format!("cannot take the second snapshot: {why}")),
                };
                return (read_only, Vec::new());
            }
        };
        let git_before = self.git.as_ref().map(|(_, before, _)| before);
        let changes = self.diff(&self.before, &after, git_before, git_after.as_ref());
        if self.attribute && !self.pending.is_empty() {
            // Without an intermediate snapshot, the changes since the
            // latest one are all of them.
            let since = match &self.last {
                Some(last) => self.diff(last, &after, self.git_last(), git_after.as_ref()),
                None => changes.clone(),
            };
            self.blame(since);
        }
        let diagnostics = changes
            .iter()
            .map(|change| {
                let (check, by) = match self.writers(change).as_slice() {
                    [one] => (one.clone(), format!("by check `{one}`")),
                    several if !several.is_empty() => {
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
                    severity: run_check_documents::evidence::DiagSeverity::Error,
                    rule: Some("read-only".into()),
                    message: format!("{} {by}", change.kind),
                    suggestion: None,
                    new: None,
                }
            })
            .collect();
        let read_only = ReadOnly {
            verified: true,
            modified: changes.into_iter().map(|c| c.path).collect(),
            error: None,
        };
        // Hundreds of thousands of entries cost milliseconds to free, and
        // the process is about to end (its exit frees them at once).
        if after.len() >= UNREAD_MIN {
            std::mem::forget(after);
            std::mem::forget(self);
        }
        (read_only, diagnostics)
    }
}

/// How to take snapshots of one worktree, decided once per run.
#[derive(Debug, Clone)]
pub(crate) enum Snapshotter {
    /// Through `git status` of the repository holding the worktree.
    Git {
        /// The repository.
        repo: Repo,
        /// The worktree (canonical).
        worktree: PathBuf,
        /// Index entries flagged assume-unchanged or skip-worktree when
        /// the run started (top-level relative): looked at in every
        /// snapshot, as `git status` does not list their edits.
        hidden: Vec<PathBuf>,
        /// Whether the index may hold submodules (then every snapshot
        /// lists the untracked files: see `tree.rs`).
        submodules: bool,
    },
    /// By walking the files outside git.
    Walk {
        /// The worktree (canonical).
        worktree: PathBuf,
    },
}

/// From this many reference paths on, the last snapshot stats them while
/// another thread waits for `git status` (a thread costs more than a few
/// stats).
const OVERLAP_MIN: usize = 64;

impl Snapshotter {
    /// Git when the worktree is inside a repository, else a walk.
    pub(crate) fn new(worktree: &Path, repo: Option<&Repo>) -> Snapshotter {
        let worktree = worktree.to_path_buf();
        match repo {
            Some(repo) => Snapshotter::Git {
                repo: repo.clone(),
                worktree,
                hidden: Vec::new(),
                submodules: true,
            },
            None => Snapshotter::Walk { worktree },
        }
    }

    /// Also looks at the flagged index entries `hidden` in every snapshot
    /// (in git; nothing is flagged outside it).
    pub(crate) fn hiding(mut self, flagged: &[crate::git::Hidden]) -> Snapshotter {
        if let Snapshotter::Git { hidden, .. } = &mut self {
            *hidden = flagged.iter().map(|h| h.path.clone()).collect();
        }
        self
    }

    /// Whether the index may hold submodules (`true` unless known not to,
    /// from the run's reading of the index).
    pub(crate) fn submodules(mut self, may: bool) -> Snapshotter {
        if let Snapshotter::Git { submodules, .. } = &mut self {
            *submodules = may;
        }
        self
    }

    /// The worktree snapshots are relative to.
    fn worktree(&self) -> &Path {
        match self {
            Snapshotter::Git { worktree, .. } | Snapshotter::Walk { worktree } => worktree,
        }
    }

    /// The first snapshot, before any check runs: of `status`, a `git
    /// status` that began `ago` (asked now when `None`); outside git, a
    /// walk. Files that changed within a tick of its start are hashed; with
    /// many untracked files, those are left unread, and then this waits (at
    /// most a tick) until a change would be stamped after its start. The
    /// error is one line saying why it could not be taken.
    pub(crate) fn first(&self, status: Option<&Status>, ago: Duration) -> Result<Snapshot, String> {
        let clock = Clock::since(ago);
        let mut snapshot = match self {
            Snapshotter::Git {
                repo,
                worktree,
                hidden,
                submodules,
            } => {
                let asked;
                let status = match status {
                    Some(status) => status,
                    None => {
                        asked = repo.status()?;
                        &asked
                    }
                };
                let mut flagged = git_state::flagged_entries(status, hidden);
                flagged.extend(ignored_rules(status));
                // Many untracked files: their roots are asked meanwhile, so
                // that a later snapshot need not list them (`tree.rs`).
                let untracked = status.entries.iter().filter(|e| e.code == "??").count();
                let roots = !submodules && repo.toplevel() == worktree && untracked >= UNREAD_MIN;
                std::thread::scope(|scope| {
                    let roots = roots.then(|| scope.spawn(|| tree::roots(repo)));
                    let mut snapshot = first_of_status(repo, worktree, status, &flagged, clock);
                    let roots =
                        roots.map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
                    if let Some(Ok(roots)) = roots {
                        snapshot.tree = tree::record(&roots, worktree, &snapshot.entries, &clock);
                    }
                    snapshot
                })
            }
            Snapshotter::Walk { worktree } => {
                Snapshot::new(walk_entries(worktree, None, &clock), clock)
            }
        };
        temps::forget_run_check_temps(&mut snapshot, self.worktree());
        if (snapshot.unread() || snapshot.tree.is_some()) && !snapshot.clock.settle() {
            return Err(
                "the file system's clock did not move on within a second, so \
                        files cannot be judged by their change times"
                    .into(),
            );
        }
        Ok(snapshot)
    }

    /// A later snapshot, compared with `reference` (the first): files the
    /// reference hashed are hashed again; the directories of files it left
    /// unread are identified again. In git, the reference's files are
    /// stat'ed while git lists the worktree. The error is one line saying
    /// why it could not be taken.
    pub(crate) fn again(&self, reference: &Snapshot) -> Result<Snapshot, String> {
        let snapshot = self.again_with(reference, true)?;
        // A changed `.gitignore` may have brought ignored files out: they
        // are listed only by a full listing (the run fails either way; the
        // listing names them all).
        if !snapshot.listed_untracked && snapshot.ignore_rules_differ(reference, &snapshot.rules) {
            return self.again_with(reference, false);
        }
        Ok(snapshot)
    }

    /// [`Snapshotter::again`], the untracked files listed in full.
    fn again_listed(&self, reference: &Snapshot) -> Result<Snapshot, String> {
        self.again_with(reference, false)
    }

    /// [`Snapshotter::again`]; the untracked files are listed again unless
    /// `unlisted` and the reference's tree proves them the same.
    fn again_with(&self, reference: &Snapshot, unlisted: bool) -> Result<Snapshot, String> {
        if reference.unread() && !reference.clock.held() {
            return Err(
                "the system clock was set back during the run, so the untracked \
                        files' timestamps cannot be compared"
                    .into(),
            );
        }
        let clock = Clock::since(Duration::ZERO);
        let (repo, worktree, hidden) = match self {
            Snapshotter::Git {
                repo,
                worktree,
                hidden,
                ..
            } => (repo, worktree, hidden),
            Snapshotter::Walk { worktree } => {
                let entries = walk_entries(worktree, Some(reference), &clock);
                let mut snapshot = Snapshot::new(entries, clock);
                temps::forget_run_check_temps(&mut snapshot, worktree);
                return Ok(snapshot);
            }
        };
        let (dir_of, dirs) = unread_dirs(reference, worktree);
        let look_at = |lstat: &mut Lstat, i: usize| {
            let (key, entry) = &reference.entries[i];
            let dir = dir_of.get(i).and_then(|&d| dirs.get(d)).copied().flatten();
            look_again(lstat, worktree, key, Some(&entry.seen), dir)
        };
        // The untracked files are listed again unless the reference's
        // untracked directories prove them the same (`tree.rs`).
        let list = || -> Result<Listing, String> {
            if let Some(tree) = reference.tree.as_ref().filter(|_| unlisted) {
                let (tracked, untracked) = std::thread::scope(|scope| {
                    let tracked = scope.spawn(|| repo.status_tracked());
                    let untracked =
                        tree.again(repo, worktree, &reference.entries, &reference.clock);
                    let tracked = tracked
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p));
                    (tracked, untracked)
                });
                if let (Ok(tracked), Ok(Some(new))) = (tracked, untracked) {
                    return Ok(Listing::Tracked(tracked, new));
                }
            }
            repo.status().map(Listing::Full)
        };
        // Where the untracked files will be the reference's, each is made
        // whole while it is stat'ed, on every CPU, in the list the snapshot
        // keeps: no list of what was seen to copy from afterwards.
        let whole = reference.tree.is_some() && unlisted;
        let (listing, mut early) = if reference.len() < OVERLAP_MIN {
            (list()?, Early::None)
        } else {
            let indices: Vec<usize> = (0..reference.len()).collect();
            // git lists on one CPU meanwhile; the stats take as long or
            // longer, so they get every CPU and share with git.
            let threads = cpus();
            std::thread::scope(|scope| {
                let listing = scope.spawn(list);
                let early = match whole {
                    true => Early::Made(par_map(&indices, threads, Lstat::default, |lstat, &i| {
                        let (key, entry) = &reference.entries[i];
                        let recorded = Entry {
                            code: entry.code,
                            state: entry.state.clone(),
                            seen: look_at(lstat, i),
                        };
                        (key.clone(), recorded)
                    })),
                    false => {
                        Early::Seen(par_map(&indices, threads, Lstat::default, |lstat, &i| {
                            look_at(lstat, i)
                        }))
                    }
                };
                let listing = listing
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                listing.map(|listing| (listing, early))
            })?
        };
        let same_root = repo.toplevel() == worktree;
        let (status, new) = match listing {
            Listing::Full(status) => (status, None),
            Listing::Tracked(status, new) => (status, Some(new)),
        };
        let mut flagged = git_state::flagged_entries(&status, hidden);
        flagged.extend(ignored_rules(&status));
        let ignored = match new.is_some() {
            true => reference.ignored.clone(),
            false => ignored_keys(repo, worktree, &status),
        };
        let new_untracked = new.iter().flatten().map(|path| crate::git::StatusEntry {
            path: path.clone().into(),
            code: "??".into(),
            state: String::new(),
        });
        let mut listed: Vec<(Key, Entry)> = status
            .entries
            .into_iter()
            .chain(flagged)
            .chain(new_untracked)
            .filter(|entry| !(entry.code == "??" && is_build_output(&entry.path)))
            .map(|entry| {
                let key = key_of(repo, worktree, same_root, &entry);
                let recorded = Entry {
                    code: Code::of(&entry.code),
                    state: entry.state,
                    seen: Seen::Absent,
                };
                (key, recorded)
            })
            .collect();
        let mut lstat = Lstat::default();
        // What was stat'ed while git listed (`early`, by the reference's
        // index), or a look now at what the reference did not know.
        let seen_at =
            |early: &mut Early, lstat: &mut Lstat, key: &Key, known: Option<usize>| match known {
                Some(i) => early.take(i).unwrap_or_else(|| look_at(lstat, i)),
                None => look_again(lstat, worktree, key, None, None),
            };
        let mut snapshot = if new.is_some() {
            // Without a second listing of the untracked files: the
            // reference's, merged in order with the rest (of which the
            // `.gitignore` files are looked at again).
            listed.sort_by(|a, b| bytes(&a.0).cmp(bytes(&b.0)));
            listed.dedup_by(|a, b| a.0 == b.0);
            let rules = listed
                .iter()
                .filter(|(key, _)| is_rule(key))
                .map(|(key, _)| key.clone())
                .collect();
            let untracked = |entry: &Entry| entry.code.untracked() || entry.code.ignored();
            let mut rest = Vec::with_capacity(listed.len());
            for (key, mut entry) in listed {
                let known = reference
                    .entries
                    .binary_search_by(|(k, _)| order(k, &key))
                    .ok();
                // A path in both (a file untracked now and deleted from the
                // index) is kept once, as the reference has it.
                if known.is_some_and(|i| untracked(&reference.entries[i].1)) {
                    continue;
                }
                entry.seen = seen_at(&mut early, &mut lstat, &key, known);
                rest.push((key, entry));
            }
            let mut all = match early {
                Early::Made(made) => made,
                _ => {
                    let mut made = Vec::with_capacity(reference.len());
                    for (i, (key, entry)) in reference.entries.iter().enumerate() {
                        let seen = match untracked(entry) {
                            true => seen_at(&mut early, &mut lstat, key, Some(i)),
                            false => Seen::Absent,
                        };
                        let recorded = Entry {
                            code: entry.code,
                            state: entry.state.clone(),
                            seen,
                        };
                        made.push((key.clone(), recorded));
                    }
                    made
                }
            };
            all.retain(|(_, entry)| untracked(entry));
            // run-check's own report, written meanwhile, is a new root that
            // would be merged in only to be left out again.
            temps::forget_among(&mut rest, worktree);
            merge_into(&mut all, rest);
            // Sorted, each path once, by construction: no pass over
            // 200,000 keys to check it.
            let mut snapshot = Snapshot::sorted(all, clock);
            snapshot.listed_untracked = false;
            snapshot.rules = rules;
            snapshot
        } else {
            let mut snapshot = Snapshot::new(listed, clock);
            // Both lists are sorted: the reference's index of each key is
            // found walking along.
            let mut known = 0;
            for (key, entry) in &mut snapshot.entries {
                while known < reference.len() && order(&reference.entries[known].0, key).is_lt() {
                    known += 1;
                }
                let found = known < reference.len() && reference.entries[known].0 == *key;
                entry.seen = seen_at(&mut early, &mut lstat, key, found.then_some(known));
            }
            snapshot
        };
        snapshot.ignored = ignored;
        temps::forget_run_check_temps(&mut snapshot, worktree);
        Ok(snapshot)
    }
}

/// Merges `rest` (sorted, few) into `all` (sorted, with no key of `rest`),
/// in place: from the back, each entry of `all` after the first of `rest`
/// moved once, no second list of 200,000 entries.
fn merge_into(all: &mut Vec<(Key, Entry)>, mut rest: Vec<(Key, Entry)>) {
    let Some(first) = rest.first() else {
        return;
    };
    let blank = || {
        let key: Key = Arc::from(Path::new(""));
        let entry = Entry {
            code: Code([0; 2]),
            state: String::new(),
            seen: Seen::Absent,
        };
        (key, entry)
    };
    let from = all.partition_point(|(key, _)| bytes(key) < bytes(&first.0));
    let mut taken = all.len();
    all.resize_with(all.len() + rest.len(), blank);
    // The blanks are the slots between the last entry of `all` not yet
    // placed (`taken`) and the one being filled (`at`).
    for at in (from..all.len()).rev() {
        let Some(last) = rest.last() else {
            break;
        };
        if taken > from && bytes(&all[taken - 1].0) > bytes(&last.0) {
            all.swap(taken - 1, at);
            taken -= 1;
        } else if let Some(last) = rest.pop() {
            all[at] = last;
        }
    }
}

/// What a later snapshot saw of the reference's entries while git listed
/// (by the reference's index).
enum Early {
    /// Nothing: the reference was small, each is looked at afterwards.
    None,
    /// What was found at each.
    Seen(Vec<Seen>),
    /// Each entry made whole: the reference's, with what was found.
    Made(Vec<(Key, Entry)>),
}

impl Early {
    /// What was found at the reference's entry `i`, taken out (`None` when
    /// it was not looked at).
    fn take(&mut self, i: usize) -> Option<Seen> {
        let seen = match self {
            Early::None => return None,
            Early::Seen(seen) => seen.get_mut(i)?,
            Early::Made(made) => &mut made.get_mut(i)?.1.seen,
        };
        Some(std::mem::replace(seen, Seen::Absent))
    }
}

/// How a later snapshot learnt what to look at.
enum Listing {
    /// A full `git status`.
    Full(Status),
    /// The tracked changes, and the untracked files that are new roots
    /// (the others are the reference's).
    Tracked(Status, Vec<PathBuf>),
}

/// The entries of `status` a snapshot records (untracked build output left
/// out).
fn listed<'a>(status: &'a Status, flagged: &'a [StatusEntry]) -> Vec<&'a StatusEntry> {
    status
        .entries
        .iter()
        .chain(flagged)
        .filter(|entry| !(entry.code == "??" && is_build_output(&entry.path)))
        .collect()
}

/// The snapshot key of `entry` (`same_root`: the worktree is the top level).
fn key_of(repo: &Repo, worktree: &Path, same_root: bool, entry: &StatusEntry) -> Key {
    match same_root {
        true => entry.path.clone(),
        false => Key::from(PathBuf::from(key_path(
            &repo.toplevel().join(&entry.path),
            worktree,
        ))),
    }
}

/// Whether git lists `entry` as a directory: an untracked nested repository
/// (`vendor/lib/`) or a submodule (`S...`).
fn listed_as_dir(entry: &StatusEntry) -> bool {
    entry.state.starts_with('S') || entry.path.as_os_str().as_encoded_bytes().ends_with(b"/")
}

/// The first snapshot of a `git status` taken a moment ago (`clock`).
fn first_of_status(
    repo: &Repo,
    worktree: &Path,
    status: &Status,
    flagged: &[StatusEntry],
    clock: Clock,
) -> Snapshot {
    let listed = listed(status, flagged);
    let untracked = listed
        .iter()
        .filter(|entry| entry.code == "??" && !listed_as_dir(entry))
        .count();
    let unread_ok = untracked >= UNREAD_MIN;
    let same_root = repo.toplevel() == worktree;
    // Each entry made once, in its place, on every CPU: with 200,000
    // untracked files this is most of a first snapshot. git lists a
    // folder's files one after the other: its identity is asked once (per
    // batch of a thread).
    let entries = par_map(
        &listed,
        cpus(),
        || {
            (
                Trust::default(),
                Lstat::default(),
                None::<(Vec<u8>, Option<DirId>)>,
            )
        },
        |(trust, lstat, last), entry| {
            let key = key_of(repo, worktree, same_root, entry);
            let dir = match unread_ok && entry.code == "??" && !listed_as_dir(entry) {
                true => {
                    let parent = parent_bytes(&key);
                    match last {
                        Some((dir, id)) if dir.as_slice() == parent => *id,
                        _ => {
                            let id = trust.dir(&worktree.join(parent_of(&key)));
                            *last = Some((parent.to_vec(), id));
                            id
                        }
                    }
                }
                false => None,
            };
            let seen = match dir {
                Some(dir) => Seen::Unread { dir },
                None => look_first(lstat, &at_key(worktree, &key), &clock, trust),
            };
            let recorded = Entry {
                code: Code::of(&entry.code),
                state: entry.state.clone(),
                seen,
            };
            (key, recorded)
        },
    );
    let rules = entries
        .iter()
        .filter(|(key, _)| is_rule(key))
        .map(|(key, _)| key.clone())
        .collect();
    let any_unread = entries
        .iter()
        .any(|(_, entry)| matches!(entry.seen, Seen::Unread { .. }));
    let mut snapshot = Snapshot::new(entries, clock);
    snapshot.rules = rules;
    snapshot.ignored = ignored_keys(repo, worktree, status);
    snapshot.unread = any_unread;
    snapshot
}

/// Whether `key` names a file git reads its rules from in the worktree
/// (`.gitignore`, `.gitattributes`).
fn is_rule_file(key: &Path) -> bool {
    key.file_name()
        .is_some_and(|name| name == ".gitignore" || name == ".gitattributes")
}

/// The ignore and attributes files git lists as ignored (one that ignores
/// itself, as `*` does): git still reads them, so a snapshot records them
/// (`!!`) like untracked files.
fn ignored_rules(status: &Status) -> Vec<StatusEntry> {
    status
        .ignored
        .iter()
        .filter(|path| is_rule_file(path))
        .map(|path| StatusEntry {
            path: path.clone(),
            code: "!!".into(),
            state: String::new(),
        })
        .collect()
}

/// The ignored paths of `status` as snapshot keys, sorted.
fn ignored_keys(repo: &Repo, worktree: &Path, status: &Status) -> Vec<Key> {
    let same_root = repo.toplevel() == worktree;
    let mut keys: Vec<Key> = status
        .ignored
        .iter()
        .map(|path| match same_root {
            true => path.clone(),
            false => Key::from(PathBuf::from(key_path(
                &repo.toplevel().join(path),
                worktree,
            ))),
        })
        .collect();
    keys.sort_by(|a, b| bytes(a).cmp(bytes(b)));
    keys
}

/// The paths `after` lists as ignored that `before` did not, under one of
/// `scopes` (folders, worktree-relative; the empty path is everywhere):
/// what a changed ignore rule there newly hides.
fn newly_hidden(before: &Snapshot, after: &Snapshot, scopes: &[PathBuf]) -> Vec<Key> {
    after
        .ignored
        .iter()
        .filter(|key| {
            before
                .ignored
                .binary_search_by(|k| bytes(k).cmp(bytes(*key)))
                .is_err()
        })
        .filter(|key| scopes.iter().any(|scope| key.starts_with(scope)))
        .cloned()
        .collect()
}

/// The cache folders that test runners and linters create in the folder
/// they run in, each with a `.gitignore` of `*` that hides it: pytest's,
/// mypy's and ruff's. A gate that runs them would otherwise fail on its
/// first run in a repository whose `.gitignore` does not list them (their
/// self-hiding `.gitignore` is a new ignore rule). Only these names: no
/// interpreter or test runner loads code from them (pytest does not
/// collect dot folders, Python does not import from them), whereas a
/// self-hiding folder of any other name (`src/.gitignore` of `*` beside a
/// new `conftest.py`) is a change.
const TOOL_CACHES: [&str; 3] = [".pytest_cache", ".mypy_cache", ".ruff_cache"];

/// Whether `key` is one of the [`TOOL_CACHES`] or lies inside one, at any
/// depth.
fn in_tool_cache(key: &Path) -> bool {
    key.components().any(|component| {
        TOOL_CACHES
            .iter()
            .any(|name| component.as_os_str() == std::ffi::OsStr::new(name))
    })
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

/// The identities, now, of the directories of the files `reference` left
/// unread: for each reference entry the index of its directory's identity
/// (`usize::MAX` for the others), and the identities.
fn unread_dirs(reference: &Snapshot, worktree: &Path) -> (Vec<usize>, Vec<Option<DirId>>) {
    if !reference.unread() {
        return (Vec::new(), Vec::new());
    }
    let mut dirs: Vec<Option<DirId>> = Vec::new();
    let mut known: HashMap<&[u8], usize> = HashMap::new();
    let mut last: Option<(&[u8], usize)> = None;
    let dir_of = reference
        .entries
        .iter()
        .map(|(key, entry)| {
            if !matches!(entry.seen, Seen::Unread { .. }) {
                return usize::MAX;
            }
            let parent = parent_bytes(key);
            match last {
                Some((dir, index)) if dir == parent => index,
                _ => {
                    let index = *known.entry(parent).or_insert_with(|| {
                        dirs.push(stat::dir_id(&worktree.join(parent_of(key))));
                        dirs.len() - 1
                    });
                    last = Some((parent, index));
                    index
                }
            }
        })
        .collect();
    (dir_of, dirs)
}

/// What a first snapshot records of `path`: its stat data, and its content
/// hash when the stat data cannot be trusted (`stat::needs_reading`); a
/// directory's tree hash.
fn look_first(lstat: &mut Lstat, path: &Path, clock: &Clock, trust: &mut Trust) -> Seen {
    match lstat.of(path) {
        Err(_) => Seen::Absent,
        Ok((_, true)) => Seen::Tree(tree_hash(path)),
        Ok((stat, false)) => {
            let hash =
                stat::needs_reading(&stat, path, clock, trust).then(|| Box::new(read_path(path)));
            Seen::File {
                stat,
                hash,
                dir: None,
            }
        }
    }
}

/// What a later snapshot records of `key` (in `worktree`), whose first
/// snapshot found
/// `reference`: the stat data, the content hash when the first took one,
/// and `dir` (the identity of its directory now) when the first left it
/// unread.
fn look_again(
    lstat: &mut Lstat,
    worktree: &Path,
    key: &Path,
    reference: Option<&Seen>,
    dir: Option<DirId>,
) -> Seen {
    match lstat.of_key(worktree, key) {
        Err(_) => Seen::Absent,
        Ok((_, true)) => Seen::Tree(tree_hash(&at_key(worktree, key))),
        Ok((stat, false)) => {
            let hash = matches!(reference, Some(Seen::File { hash: Some(_), .. }))
                .then(|| Box::new(read_path(&at_key(worktree, key))));
            let dir = match reference {
                Some(Seen::Unread { .. }) => dir,
                _ => None,
            };
            Seen::File { stat, hash, dir }
        }
    }
}

/// `read_hash` of `path`, its metadata asked now (all zeros when gone).
fn read_path(path: &Path) -> [u8; 32] {
    std::fs::symlink_metadata(path).map_or([0; 32], |meta| read_hash(path, &meta))
}

/// The content hash of a file that has to be read; a file that cannot be
/// read (or a FIFO, socket or device) hashes as all zeros, judged by its
/// stat data alone.
fn read_hash(path: &Path, meta: &std::fs::Metadata) -> [u8; 32] {
    hash_with(path, meta).unwrap_or([0; 32])
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

/// Items one thread takes at a time.
const BATCH: usize = 256;

/// `f` of every item, in order, shared out over up to `threads` threads
/// (each with its own `init()` state); a list of one batch or less, or one
/// thread, stays on this thread.
fn par_map<T: Sync, S, R: Send>(
    items: &[T],
    threads: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len().div_ceil(BATCH)).max(1);
    if threads == 1 {
        let mut state = init();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    // Each result is written where it belongs, by the thread that made it:
    // no list per batch, no copy into place afterwards (with 200,000
    // results, both cost more than the work in page faults alone).
    let mut results: Vec<R> = Vec::with_capacity(items.len());
    let slots = &mut results.spare_capacity_mut()[..items.len()];
    let batches = Mutex::new(items.chunks(BATCH).zip(slots.chunks_mut(BATCH)));
    let work = || {
        let mut state = init();
        loop {
            let next = batches.lock().unwrap_or_else(|p| p.into_inner()).next();
            let Some((batch, slots)) = next else {
                return;
            };
            for (item, slot) in batch.iter().zip(slots) {
                slot.write(f(&mut state, item));
            }
        }
    };
    std::thread::scope(|scope| {
        // This thread works too.
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        work();
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
    // SAFETY: the batches pair every item with its own slot of the first
    // `items.len()` of the spare capacity, each batch is taken by exactly
    // one thread, and a thread takes another only after it has written
    // every slot of the one before; all threads have returned without a
    // panic (a panic is resumed above, before this line), and they return
    // only once the batches are exhausted. So every slot is initialised.
    unsafe { results.set_len(items.len()) };
    results
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
/// symlink), the tree under it for a directory; `None` when it is not there.
#[cfg(test)]
fn hash_path(path: &Path) -> Option<[u8; 32]> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Some(tree_hash(path)),
        Ok(meta) => hash_with(path, &meta),
        Err(_) => None,
    }
}

/// sha256 of a file's content (of the link text for a symlink); `None` when
/// it is not there or is a directory.
#[cfg(test)]
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
        // A buffer no larger than the file (and one byte to see its end):
        // zeroing 64 KiB for every small file cost more than reading it.
        let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; size.saturating_add(1).min(64 * 1024)];
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
/// symlinks not followed): each relative path with its mode and content
/// hash, in order, so a file created, deleted, changed or `chmod`ed
/// anywhere below changes it.
fn tree_hash(dir: &Path) -> [u8; 32] {
    let mut files = walk_files(dir);
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = Sha256::new();
    hasher.update(b"tree:");
    for (path, meta) in files {
        hasher.update(path.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        hasher.update(mode_bits(&meta).to_le_bytes());
        match meta.and_then(|meta| hash_with(&dir.join(&path), &meta)) {
            Some(hash) => hasher.update(hash),
            None => hasher.update(b"unreadable"),
        }
        hasher.update([0]);
    }
    hasher.finalize().into()
}

/// The permission bits a tree hash covers (on Windows, the read-only
/// attribute).
fn mode_bits(meta: &Option<std::fs::Metadata>) -> u32 {
    let Some(meta) = meta else { return 0 };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode()
    }
    #[cfg(not(unix))]
    {
        u32::from(meta.permissions().readonly())
    }
}

/// Every file (and symlink) under `root` not matched by a `.gitignore` and
/// not under `.git`, `target/` or `node_modules/`, relative to `root`, with
/// its metadata (not following symlinks; `None` when it vanished).
fn walk_files(root: &Path) -> Vec<(OsString, Option<std::fs::Metadata>)> {
    let files = Mutex::new(Vec::new());
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
                    // Anything but a directory: a FIFO, socket or device
                    // a check leaves is a change too (judged by its stat
                    // data; its content is not read).
                    let is_file = entry.file_type().is_some_and(|t| !t.is_dir());
                    if is_file {
                        let meta = std::fs::symlink_metadata(entry.path()).ok();
                        let path = key_path(entry.path(), root);
                        if let Ok(mut files) = files.lock() {
                            files.push((path, meta));
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
    files.into_inner().unwrap_or_default()
}

/// The entries of a walk outside git: every file's stat data, hashed where
/// the first snapshot (`reference` is `None`) cannot trust it, or where the
/// reference hashed it.
fn walk_entries(worktree: &Path, reference: Option<&Snapshot>, clock: &Clock) -> Vec<(Key, Entry)> {
    let files = walk_files(worktree);
    let seen = par_map(&files, cpus(), Trust::default, |trust, (key, meta)| {
        let Some(meta) = meta else {
            return Seen::Absent;
        };
        let path = worktree.join(key);
        let stat = Stat::of(meta);
        let read = match reference {
            None => stat::needs_reading(&stat, &path, clock, trust),
            Some(reference) => matches!(
                reference.get(Path::new(key)).map(|e| &e.seen),
                Some(Seen::File { hash: Some(_), .. })
            ),
        };
        Seen::File {
            hash: read.then(|| Box::new(read_hash(&path, meta))),
            stat,
            dir: None,
        }
    });
    files
        .into_iter()
        .zip(seen)
        .map(|((key, _), seen)| {
            let entry = Entry {
                code: Code::WALKED,
                state: String::new(),
                seen,
            };
            (Key::from(PathBuf::from(key)), entry)
        })
        .collect()
}

#[cfg(test)]
mod tests;
