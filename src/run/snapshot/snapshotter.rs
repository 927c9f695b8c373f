//! Taking a snapshot: through `git status` (the listed paths, looked at
//! without trusting git) or by a walk outside git.

use super::walk::{look_again, look_first, par_map, walk_entries};
use super::*;

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
        /// What `settled.rs` starts from, where it may be used.
        settling: Option<Settling>,
    },
    /// By walking the files outside git.
    Walk {
        /// The worktree (canonical).
        worktree: PathBuf,
    },
}

/// What a first snapshot needs to record what `settled.rs` watches.
#[derive(Debug, Clone)]
pub(crate) struct Settling {
    /// The folders holding index entries when the run started.
    tracked: Arc<Vec<Vec<u8>>>,
    /// The folder of the `--out` report (canonical).
    out_dir: Option<PathBuf>,
}

/// From this many reference paths on, the last snapshot stats them while
/// another thread waits for `git status` (a thread costs more than a few
/// stats).
pub(super) const OVERLAP_MIN: usize = 64;

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
                settling: None,
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

    /// Lets a later snapshot skip `git status` where `settled.rs` proves
    /// its listing the first snapshot's: `state` is the git state read when
    /// the run started (the folders of its index entries), `out` the
    /// `--out` report (absolute).
    pub(crate) fn settling(mut self, state: Option<&GitState>, out: Option<&Path>) -> Snapshotter {
        if let Snapshotter::Git { settling, .. } = &mut self {
            *settling = state.map(|state| Settling {
                tracked: state.dirs_shared(),
                out_dir: out
                    .and_then(Path::parent)
                    .map(|dir| dunce::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())),
            });
        }
        self
    }

    /// The worktree snapshots are relative to.
    pub(super) fn worktree(&self) -> &Path {
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
                settling,
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
                    let roots = roots.then(|| scope.spawn(|| repo.run(&tree::ROOTS)));
                    let mut snapshot = first_of_status(repo, worktree, status, &flagged, clock);
                    let roots =
                        roots.map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
                    if let Some(Ok(roots)) = roots {
                        snapshot.tree = tree::record(&roots, worktree, &snapshot.entries, &clock);
                    }
                    if let Some(Settling { tracked, out_dir }) = settling
                        && !submodules
                        && stat::CHANGE_TIME
                        && repo.toplevel() == worktree
                    {
                        snapshot.settled = settled::record(
                            worktree,
                            tracked,
                            &snapshot.entries,
                            &snapshot.ignored,
                            &clock,
                            out_dir.as_deref(),
                        )
                        .map(Arc::new);
                    }
                    snapshot
                })
            }
            Snapshotter::Walk { worktree } => {
                Snapshot::new(walk_entries(worktree, None, &clock), clock)
            }
        };
        temps::forget_run_check_temps(&mut snapshot, self.worktree());
        if (snapshot.unread || snapshot.tree.is_some()) && !snapshot.clock.settle() {
            return Err(
                "the file system's clock did not move on within a second, so \
                        files cannot be judged by their change times"
                    .into(),
            );
        }
        Ok(snapshot)
    }

    /// [`Snapshotter::again_after`] with the settled proof taken first;
    /// `own`: run-check's own temporary files (absolute), which a check
    /// cannot have made.
    #[cfg(test)]
    pub(crate) fn again(&self, reference: &Snapshot, own: &[PathBuf]) -> Result<Snapshot, String> {
        let settled = self.settled_again(reference, own, None);
        self.again_after(reference, settled)
    }

    /// A later snapshot, compared with `reference` (the first): files the
    /// reference hashed are hashed again; the directories of files it left
    /// unread are identified again. In git, the reference's files are
    /// stat'ed while git lists the worktree. The error is one line saying
    /// why it could not be taken. `settled`: the snapshot of the settled
    /// proof, taken already ([`Snapshotter::settled_again`]), `None` where
    /// it does not hold (then git is asked).
    pub(crate) fn again_after(
        &self,
        reference: &Snapshot,
        settled: Option<Snapshot>,
    ) -> Result<Snapshot, String> {
        let snapshot = match settled {
            Some(snapshot) => snapshot,
            None => self.again_with(reference, true)?,
        };
        // A changed `.gitignore` may have brought ignored files out: they
        // are listed only by a full listing (the run fails either way; the
        // listing names them all).
        if !snapshot.listed_untracked && snapshot.ignore_rules_differ(reference, &snapshot.rules) {
            return self.again_with(reference, false);
        }
        Ok(snapshot)
    }

    /// A later snapshot without `git status`, where `settled.rs` proves its
    /// listing the reference's: the reference's entries, each looked at
    /// again. `own`: run-check's own temporary files (absolute). `first`:
    /// the run's first git state, when the caller compares it with the
    /// state now and discards this snapshot if the index's meaning changed
    /// (then the index is not read again here).
    pub(crate) fn settled_again(
        &self,
        reference: &Snapshot,
        own: &[PathBuf],
        first: Option<&GitState>,
    ) -> Option<Snapshot> {
        let Snapshotter::Git { repo, worktree, .. } = self else {
            return None;
        };
        let settled = reference.settled.as_ref()?;
        let index = first.and_then(GitState::index_paths);
        let clock = &reference.clock;
        if !settled.holds(repo, worktree, &reference.entries, clock, own, index) {
            return None;
        }
        let clock = Clock::since(Duration::ZERO);
        let (dir_of, dirs) = unread_dirs(reference, worktree);
        let indices: Vec<usize> = (0..reference.len()).collect();
        let threads = if reference.len() < OVERLAP_MIN {
            1
        } else {
            stat_threads(reference.len())
        };
        let made = par_map(&indices, threads, Lstat::default, |lstat, &i| {
            let (key, entry) = &reference.entries[i];
            let dir = dir_of.get(i).and_then(|&d| dirs.get(d)).copied().flatten();
            let recorded = Entry {
                code: entry.code,
                state: entry.state.clone(),
                seen: look_again(lstat, worktree, key, Some(&entry.seen), dir),
            };
            (key.clone(), recorded)
        });
        let mut snapshot = Snapshot::sorted(made, clock);
        snapshot.listed_untracked = false;
        snapshot.rules = reference.rules.clone();
        snapshot.ignored = reference.ignored.clone();
        temps::forget_run_check_temps(&mut snapshot, worktree);
        Some(snapshot)
    }

    /// [`Snapshotter::again`]; the untracked files are listed again unless
    /// `unlisted` and the reference's tree proves them the same.
    pub(super) fn again_with(
        &self,
        reference: &Snapshot,
        unlisted: bool,
    ) -> Result<Snapshot, String> {
        if reference.unread && !reference.clock.held() {
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
        let (listing, mut early) =
            list_while_looking(repo, worktree, reference, unlisted, &look_at)?;
        let (status, new) = match listing {
            Listing::Full(status) => (status, None),
            Listing::Tracked(status, new) => (status, Some(new)),
        };
        let ignored = if new.is_some() {
            reference.ignored.clone()
        } else {
            ignored_keys(repo, worktree, &status)
        };
        let listed = listed_entries(repo, worktree, hidden, status, new.as_deref());
        let mut lstat = Lstat::default();
        // What was stat'ed while git listed (`early`, by the reference's
        // index), or a look now at what the reference did not know.
        let seen_at =
            |early: &mut Early, lstat: &mut Lstat, key: &Key, known: Option<usize>| match known {
                Some(i) => early.take(i).unwrap_or_else(|| look_at(lstat, i)),
                None => look_again(lstat, worktree, key, None, None),
            };
        let mut snapshot = if new.is_some() {
            along_reference(listed, reference, early, (worktree, clock), seen_at)
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

/// The listing of a later snapshot (`git status`, or its tracked part and
/// the untracked files `tree.rs` proves), and, with many reference paths,
/// the reference's paths looked at (`look_at`) on every CPU meanwhile.
fn list_while_looking(
    repo: &Repo,
    worktree: &Path,
    reference: &Snapshot,
    unlisted: bool,
    look_at: &(impl Fn(&mut Lstat, usize) -> Seen + Sync),
) -> Result<(Listing, Early), String> {
    // The untracked files are listed again unless the reference's
    // untracked directories prove them the same (`tree.rs`).
    let list = || -> Result<Listing, String> {
        if let Some(tree) = reference.tree.as_ref().filter(|_| unlisted) {
            let (tracked, untracked) = std::thread::scope(|scope| {
                let tracked = scope.spawn(|| repo.status_tracked());
                let untracked = tree.again(repo, worktree, &reference.entries, &reference.clock);
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
    Ok(if reference.len() < OVERLAP_MIN {
        (list()?, Early::None)
    } else {
        let indices: Vec<usize> = (0..reference.len()).collect();
        // git lists on one CPU meanwhile; the stats take as long or
        // longer, so they get every CPU and share with git.
        let threads = stat_threads(reference.len());
        std::thread::scope(|scope| {
            let listing = scope.spawn(list);
            let early = if whole {
                Early::Made(par_map(&indices, threads, Lstat::default, |lstat, &i| {
                    let (key, entry) = &reference.entries[i];
                    let recorded = Entry {
                        code: entry.code,
                        state: entry.state.clone(),
                        seen: look_at(lstat, i),
                    };
                    (key.clone(), recorded)
                }))
            } else {
                Early::Seen(par_map(&indices, threads, Lstat::default, |lstat, &i| {
                    look_at(lstat, i)
                }))
            };
            let listing = listing
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            listing.map(|listing| (listing, early))
        })?
    })
}

/// The entries of a later snapshot's listing, in git's order: `status`'s,
/// the flagged index entries and ignore files, and the untracked files
/// `new` (when the untracked files were not listed again); build output
/// left out. Not looked at yet.
fn listed_entries(
    repo: &Repo,
    worktree: &Path,
    hidden: &[PathBuf],
    status: Status,
    new: Option<&[PathBuf]>,
) -> Vec<(Key, Entry)> {
    let same_root = repo.toplevel() == worktree;
    let mut flagged = git_state::flagged_entries(&status, hidden);
    flagged.extend(ignored_rules(&status));
    let new_untracked = new
        .into_iter()
        .flatten()
        .map(|path| crate::git::StatusEntry {
            path: path.clone().into(),
            code: "??".into(),
            state: String::new(),
        });
    status
        .entries
        .into_iter()
        .chain(flagged)
        .chain(new_untracked)
        .filter(|entry| !(entry.code == "??" && is_build_output(&entry.path)))
        .map(|entry| {
            let key = key_of(repo, worktree, same_root, &entry.path);
            let recorded = Entry {
                code: Code::of(&entry.code),
                state: entry.state,
                seen: Seen::Absent,
            };
            (key, recorded)
        })
        .collect()
}

/// A later snapshot whose untracked files are the reference's (listed
/// again only in part): `listed` looked at and merged in order with the
/// reference's untracked entries (`early`'s, when made while git listed).
fn along_reference(
    mut listed: Vec<(Key, Entry)>,
    reference: &Snapshot,
    mut early: Early,
    (worktree, clock): (&Path, Clock),
    seen_at: impl Fn(&mut Early, &mut Lstat, &Key, Option<usize>) -> Seen,
) -> Snapshot {
    let mut lstat = Lstat::default();
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
                let seen = if untracked(entry) {
                    seen_at(&mut early, &mut lstat, key, Some(i))
                } else {
                    Seen::Absent
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
}

/// Merges `rest` (sorted, few) into `all` (sorted, with no key of `rest`),
/// in place: from the back, each entry of `all` after the first of `rest`
/// moved once, no second list of 200,000 entries.
pub(super) fn merge_into(all: &mut Vec<(Key, Entry)>, mut rest: Vec<(Key, Entry)>) {
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
pub(super) fn listed<'a>(status: &'a Status, flagged: &'a [StatusEntry]) -> Vec<&'a StatusEntry> {
    status
        .entries
        .iter()
        .chain(flagged)
        .filter(|entry| !(entry.code == "??" && is_build_output(&entry.path)))
        .collect()
}

/// The snapshot key of top-level-relative `path` (`same_root`: the worktree is
/// the top level).
fn key_of(repo: &Repo, worktree: &Path, same_root: bool, path: &Key) -> Key {
    if same_root {
        path.clone()
    } else {
        Key::from(PathBuf::from(key_path(
            &repo.toplevel().join(path),
            worktree,
        )))
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
        stat_threads(listed.len()),
        || {
            (
                Trust::default(),
                Lstat::default(),
                None::<(Vec<u8>, Option<DirId>)>,
            )
        },
        |(trust, lstat, last), entry| {
            let key = key_of(repo, worktree, same_root, &entry.path);
            let dir = if unread_ok && entry.code == "??" && !listed_as_dir(entry) {
                let parent = parent_bytes(&key);
                match last {
                    Some((dir, id)) if dir.as_slice() == parent => *id,
                    _ => {
                        let id = trust.dir(&worktree.join(parent_of(&key)));
                        *last = Some((parent.to_vec(), id));
                        id
                    }
                }
            } else {
                None
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
        .map(|path| key_of(repo, worktree, same_root, path))
        .collect();
    keys.sort_by(|a, b| bytes(a).cmp(bytes(b)));
    keys
}

/// The identities, now, of the directories of the files `reference` left
/// unread: for each reference entry the index of its directory's identity
/// (`usize::MAX` for the others), and the identities.
fn unread_dirs(reference: &Snapshot, worktree: &Path) -> (Vec<usize>, Vec<Option<DirId>>) {
    if !reference.unread {
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
