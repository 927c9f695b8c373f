//! The verifier: the first snapshot, intermediate ones that name the check
//! that changed a path, and the last one, compared into the read-only
//! contract.

use super::snapshotter::OVERLAP_MIN;
use super::*;

/// An index this large (about 10,000 entries) is worth the threads of
/// [`Verifier::now`]: the settled proof `lstat`s each of its files, for
/// milliseconds, while the git state's read takes about as long again.
const OVERLAP_INDEX_BYTES: usize = 1 << 20;

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
        let dir = up(bytes(key));
        if dirs.last().is_none_or(|last| last.as_slice() != dir) {
            dirs.push(dir.to_vec());
        }
    }
    dirs
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
        let (status, status_took) =
            first.map_or((None, Duration::ZERO), |(s, took)| (Some(s), took));
        let before = snapshotter.first(status, status_took)?;
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

    /// A snapshot of the worktree and of the git state now. When the git
    /// state changed (an excludes file among others) and the untracked
    /// files were not listed, they are: files it no longer ignores are
    /// named too.
    ///
    /// The git state is read before any git process may start: its walk
    /// finds a FIFO a check planted where git reads (a loose ref), and
    /// then none may. The settled proof and the scan for FIFOs start none:
    /// with a large index (the proof `lstat`s its files) or many folders
    /// they run beside it, the scan until the snapshot is taken (git's
    /// listing too, where the proof fails).
    fn now(&self) -> Result<(Snapshot, Option<GitState>), String> {
        let large = self
            .git
            .as_ref()
            .is_some_and(|(_, before, _)| before.index_len() >= OVERLAP_INDEX_BYTES)
            || self
                .specials
                .as_ref()
                .is_some_and(|specials| specials.len() >= OVERLAP_MIN);
        std::thread::scope(|scope| {
            let found = Beside::start(scope, large, || self.specials_now());
            // The proof may take the index's paths from the first git
            // state: a change of the index's meaning shows below and
            // takes git's listing instead.
            let first = self.git.as_ref().map(|(_, before, _)| before);
            let proof = Beside::start(scope, large, move || {
                self.snapshotter
                    .settled_again(&self.before, &self.ignored, first)
            });
            let git = self.git.as_ref().map(|(watch, _, _)| watch.again());
            let settled = proof.join();
            let git_changed = match (&self.git, &git) {
                (Some((watch, before, _)), Some(now)) => !watch.diff(before, now).is_empty(),
                _ => false,
            };
            if let Snapshotter::Git { repo, .. } = &self.snapshotter
                && git_changed
                && repo.blocked().is_some()
            {
                // git cannot be asked about the worktree: it is taken as it
                // was, and the git state's change (the FIFO) fails the run.
                return Ok((self.before.blind(), git));
            }
            let mut snapshot = self.snapshotter.again_after(&self.before, settled)?;
            if git_changed && !snapshot.listed_untracked {
                snapshot = self.snapshotter.again_with(&self.before, false)?;
            }
            let specials = found.join();
            if let Snapshotter::Git { repo, worktree, .. } = &self.snapshotter {
                snapshot.add_specials(special::not_ignored(repo, worktree, specials));
            }
            Ok((snapshot, git))
        })
    }

    /// The FIFOs, sockets and devices in the folders the first snapshot
    /// looked at (none without them).
    fn specials_now(&self) -> Vec<(PathBuf, stat::Stat)> {
        let Some(specials) = &self.specials else {
            return Vec::new();
        };
        let ignored = &self.before.ignored;
        let ignored_dir = |key: &[u8]| {
            let listed = |wanted: &[u8]| ignored.binary_search_by(|k| bytes(k).cmp(wanted)).is_ok();
            let mut slashed = key.to_vec();
            slashed.push(b'/');
            listed(key) || listed(&slashed)
        };
        specials.scan(self.snapshotter.worktree(), ignored_dir)
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
        let mut changes = if after.blind {
            Vec::new()
        } else {
            before.diff(after)
        };
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
        let (mut changes, git_changes) = self.unrefreshed(before, after, changes, git_changes);
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
        }
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
        changes
    }

    /// `changes` and `git_changes` less a filtered file's stat data that
    /// a check's own `git status` refreshed (`filtered.rs`): no change of
    /// the file, which is as the first snapshot recorded it.
    fn unrefreshed(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        mut changes: Vec<Change>,
        mut git_changes: Vec<super::git_state::GitChange>,
    ) -> (Vec<Change>, Vec<super::git_state::GitChange>) {
        let Snapshotter::Git { repo, worktree, .. } = &self.snapshotter else {
            return (changes, git_changes);
        };
        if after.blind {
            return (changes, git_changes);
        }
        let names: Vec<String> = git_changes
            .iter()
            .filter(|c| c.kind == "changed")
            .map(|c| c.name.clone())
            .collect();
        let refreshed = filtered::refreshed(repo, worktree, (before, after), &changes, &names);
        if refreshed.is_empty() {
            return (changes, git_changes);
        }
        changes.retain(|c| after.get(&c.key).is_some() || !refreshed.contains(&c.key));
        git_changes.retain(|c| !refreshed.iter().any(|key| Path::new(&c.name) == key));
        (changes, git_changes)
    }

    /// Check `name` is launched now (its process, or its scan), after the
    /// checks it `needs` ended.
    pub(crate) fn check_started(&mut self, name: &str, needs: &[&str]) {
        self.windows.started(name, needs);
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
        let timed = if change.timed {
            self.windows
                .writer(self.snapshotter.worktree(), &change.key)
        } else {
            blame::Writer::Unknown
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
                    file: Some(shown(&change.path)),
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
            modified: changes.iter().map(|c| shown(&c.path)).collect(),
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

/// A changed path as the evidence shows it: a token of a known format in
/// it (a folder named after an AWS key id) masked by the scan's rule
/// (`AKIA****************`), so the read-only lists, and the text report
/// and feedback made of them, carry no secret a name holds.
fn shown(path: &str) -> String {
    crate::scan::redact_path(path).into_owned()
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

/// Work [`Verifier::now`] runs on a thread of its own when the snapshot is
/// large, else at once where it is asked for.
enum Beside<'s, T> {
    Done(T),
    Running(std::thread::ScopedJoinHandle<'s, T>),
}

impl<'s, T: Send + 's> Beside<'s, T> {
    fn start<'e>(
        scope: &'s std::thread::Scope<'s, 'e>,
        apart: bool,
        work: impl FnOnce() -> T + Send + 's,
    ) -> Self {
        if apart {
            Beside::Running(scope.spawn(work))
        } else {
            Beside::Done(work())
        }
    }

    fn join(self) -> T {
        match self {
            Beside::Done(done) => done,
            Beside::Running(running) => running
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        }
    }
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
