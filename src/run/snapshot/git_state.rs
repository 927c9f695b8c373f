//! The git state a check can change without touching a worktree file
//! (docs/read-only.md): HEAD, every ref, the index, `.git/config`,
//! `.git/info/exclude` (and `info/attributes`), the hooks, the global
//! excludes file and the global and system config files (which can name
//! another excludes file). Taken when
//! the run starts and again after the last check, compared item by item.
//!
//! Everything is read from files, not asked of git (no process per
//! snapshot): HEAD is its file, refs are `packed-refs` with the loose refs
//! over it (what `git for-each-ref` lists; a ref moved between the two by
//! `git pack-refs` is unchanged), the index is parsed (versions 2, 3 and
//! 4). Only what files cannot answer asks git: a reftable repository's refs
//! (`git for-each-ref`) and a split or sparse index (`git ls-files -s -v`).
//!
//! The index is compared by meaning, not bytes: `git status` and every tool
//! that runs it rewrites the index to refresh its cached file times without
//! changing what is staged. Its bytes are kept from the start; when they
//! differ at the end, both versions are parsed and their entries (path,
//! mode, object id, stage, assume-unchanged and skip-worktree flags)
//! compared, so a stat refresh is no change while staging, unstaging or
//! setting a flag is.
//!
//! How changes are named: the index is `.git/index`, HEAD `.git/HEAD`, a
//! ref its full name (`refs/heads/x`, `refs/stash`), a file inside the git
//! directory `.git/` and its path there (`.git/config`,
//! `.git/hooks/pre-commit`), also in a linked worktree or submodule whose
//! `.git` is a file naming its git directory elsewhere. A file outside the
//! git directory (a hooks folder or excludes file set in the config) is
//! named as snapshots name paths: worktree-relative inside the worktree,
//! absolute outside it.
//!
//! Entries flagged assume-unchanged or skip-worktree are found here too:
//! `git status` does not list their edits, so the snapshots hash them like
//! dirty files and fast mode and the change budget count them (see
//! [`Hidden`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::git::regular::Found;
use crate::git::{GitDirs, Hidden, Repo};
use crate::paths::to_slashes;

/// At most this many files are read under a hooks folder (a `core.hooksPath`
/// naming a big directory must not make every run slow), this many levels
/// down.
const HOOK_FILES: usize = 2_000;
const HOOK_DEPTH: usize = 4;

/// At most this many checked-out submodules (nested ones included) are
/// guarded one by one.
const MAX_SUBMODULES: usize = 4096;

/// The mode of a submodule's entry in the index.
const GITLINK: u32 = 0o160000;

/// What one snapshot of the git state recorded.
#[derive(Debug, Clone)]
pub(crate) struct GitState {
    /// Name (as reported) → what it was: a ref's value, a file's content
    /// hash. An absent file has no entry.
    items: BTreeMap<String, Vec<u8>>,
    index: IndexState,
    /// The folders (top-level relative, `/`-separated, sorted, each once;
    /// empty for the top level) that hold an index entry, as the first
    /// snapshot read the index: where a FIFO or socket a check leaves is
    /// looked for (`special.rs`). Empty in later snapshots.
    dirs: std::sync::Arc<Vec<Vec<u8>>>,
}

impl GitState {
    /// The size of the index file read (0 without one): what the
    /// snapshot's work grows with.
    pub(crate) fn index_len(&self) -> usize {
        self.index.bytes.as_ref().map_or(0, Vec::len)
    }

    /// Whether a submodule may be checked out in the worktree (the index
    /// holds a gitlink, or was not parsed here): `git status
    /// --untracked-files=no` does not look inside submodules.
    pub(crate) fn submodules(&self) -> bool {
        self.index.gitlinks
    }

    /// The folders holding an index entry (top-level relative), as the
    /// first snapshot read them.
    pub(super) fn dirs(&self) -> &[Vec<u8>] {
        &self.dirs
    }

    /// [`GitState::dirs`], shared.
    pub(super) fn dirs_shared(&self) -> std::sync::Arc<Vec<Vec<u8>>> {
        std::sync::Arc::clone(&self.dirs)
    }

    /// The paths of the index's entries, sorted, each once, as the first
    /// snapshot read them; `None` in a later snapshot, or for an index that
    /// was not parsed here or holds a submodule. Those of the index as it
    /// is as long as a later git state shows no change of its meaning.
    pub(super) fn index_paths(&self) -> Option<&Paths> {
        self.index.paths.as_deref()
    }
}

/// Collects the folders of index entries: the index is sorted by path, so
/// a folder's entries mostly follow one another and each is compared with
/// the last folder only (the few repeats are removed at the end).
#[derive(Default)]
struct Folders(Vec<Vec<u8>>);

impl Folders {
    fn add(&mut self, path: &[u8]) {
        let folder = super::up(path);
        if self.0.last().is_none_or(|last| last.as_slice() != folder) {
            self.0.push(folder.to_vec());
        }
    }

    fn done(mut self) -> Vec<Vec<u8>> {
        self.0.sort_unstable();
        self.0.dedup();
        self.0
    }
}

/// The index at one moment.
#[derive(Debug, Clone)]
struct IndexState {
    /// The file's bytes (`None`: no index, as in a repository where nothing
    /// was ever staged).
    bytes: Option<Vec<u8>>,
    /// The meaning of the entries as `git ls-files` listed them, when the
    /// file could not be parsed here (a split or sparse index).
    listed: Option<Meaning>,
    /// Whether the index may hold a submodule (a gitlink entry); `true`
    /// when it was not parsed here.
    gitlinks: bool,
    /// The entries' paths, sorted, each once: kept by the first snapshot
    /// for `settled.rs`, when the file was parsed here and holds no
    /// submodule.
    paths: Option<std::sync::Arc<Paths>>,
}

impl IndexState {
    fn of(bytes: Option<Vec<u8>>, listed: Option<Meaning>, gitlinks: bool) -> IndexState {
        IndexState {
            bytes,
            listed,
            gitlinks,
            paths: None,
        }
    }
}

/// A digest of what an index means: each entry's path, mode, object id,
/// stage and assume-unchanged / skip-worktree flags, in order. Two indexes
/// with the same entries have the same meaning, whatever else (cached file
/// times, extensions, version) differs.
type Meaning = [u8; 32];

/// Feeds one entry's meaning to `hasher`.
fn feed(hasher: &mut Sha256, path: &[u8], mode: u32, oid: &[u8], stage: u8, flags: (bool, bool)) {
    hasher.update(path);
    hasher.update([0]);
    hasher.update(mode.to_be_bytes());
    hasher.update([u8::try_from(oid.len()).unwrap_or(u8::MAX)]);
    hasher.update(oid);
    hasher.update([stage, u8::from(flags.0), u8::from(flags.1)]);
}

/// The meaning of a parsed index file, `None` when it cannot be parsed.
fn meaning_of(bytes: &[u8]) -> Option<Meaning> {
    let mut hasher = Sha256::new();
    parse_index(bytes, |e| {
        let flags = (e.assume_unchanged, e.skip_worktree);
        feed(&mut hasher, e.path, e.mode, e.oid, e.stage, flags);
    })
    .ok()?;
    Some(hasher.finalize().into())
}

/// One change of the git state: what is named and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitChange {
    /// `.git/HEAD`, `refs/heads/x`, `.git/index`, ...
    pub(crate) name: String,
    /// `created`, `deleted` or `changed`.
    pub(crate) kind: &'static str,
}

/// Where one repository's git state is read from, and how names are shown.
#[derive(Debug, Clone)]
pub(crate) struct GitWatch {
    repo: Repo,
    worktree: PathBuf,
}

impl GitWatch {
    /// Watches the git state of `repo`; names outside the git directory are
    /// shown relative to `worktree` (canonical).
    pub(crate) fn new(repo: &Repo, worktree: &Path) -> GitWatch {
        GitWatch {
            repo: repo.clone(),
            worktree: worktree.to_path_buf(),
        }
    }

    /// Takes a snapshot of the git state, and the entries of the index
    /// flagged assume-unchanged or skip-worktree at this moment. `ready` is
    /// called once what a git question depends on is read (the FIFOs among
    /// the refs found, the index's submodules guarded), before the config
    /// files and hooks are hashed: the run's `git status` is asked from
    /// there, alongside the rest.
    pub(crate) fn capture_then(&self, ready: &mut dyn FnMut()) -> (GitState, Vec<Hidden>) {
        self.take(true, ready)
    }

    /// The entries of the index flagged assume-unchanged or skip-worktree
    /// at this moment, without the rest of the state (a run that does not
    /// verify).
    pub(crate) fn hidden(&self) -> Vec<Hidden> {
        self.index().1
    }

    /// Takes a later snapshot: the index is only read (it is parsed only
    /// if its bytes differ from the first one's).
    pub(crate) fn again(&self) -> GitState {
        self.take(false, &mut || {}).0
    }

    fn take(&self, flagged: bool, ready: &mut dyn FnMut()) -> (GitState, Vec<Hidden>) {
        let dirs = self.repo.dirs();
        let mut items = BTreeMap::new();
        if let Some(head) = value(&dirs.git_dir.join("HEAD"), |bytes| bytes) {
            items.insert(".git/HEAD".to_string(), head);
        }
        let mut hazards = Vec::new();
        if dirs.common_dir.join("reftable").is_dir() {
            self.reftable_refs(&mut items);
        } else {
            refs_from_files(dirs, &mut items, &mut hazards);
        }
        self.specials_git_reads(&mut items);
        self.repo.found_hazards(hazards);
        let (mut index, hidden, dirs_of_index) = if flagged {
            self.index()
        } else {
            (
                IndexState::of(read(&dirs.index), None, true),
                Vec::new(),
                Vec::new(),
            )
        };
        ready();
        // The first state's paths, for `settled.rs`: a second parse of the
        // same bytes, after git's status has started, not in the one above
        // (that one holds the status back: 0.9 ms more on 50,000 entries).
        if flagged && !index.gitlinks && index.listed.is_none() {
            index.paths = index
                .bytes
                .as_deref()
                .and_then(paths_of)
                .map(std::sync::Arc::new);
        }
        let files = [
            dirs.common_dir.join("config"),
            dirs.git_dir.join("config.worktree"),
            dirs.common_dir.join("info/exclude"),
            dirs.common_dir.join("info/attributes"),
        ];
        let outside = dirs
            .excludes_file
            .iter()
            .chain(&dirs.attributes_file)
            .chain(&dirs.config_files);
        for path in files.iter().chain(outside) {
            if let Some(value) = value(path, |bytes| hash(&bytes).to_vec()) {
                items.insert(self.name_of(path), value);
            }
        }
        let mut budget = HOOK_FILES;
        self.hooks(&dirs.hooks, 0, &mut budget, &mut items);
        let dirs = std::sync::Arc::new(dirs_of_index);
        (GitState { items, index, dirs }, hidden)
    }

    /// The changes from `before` to `after` (the state as it is now),
    /// sorted by name.
    pub(crate) fn diff(&self, before: &GitState, after: &GitState) -> Vec<GitChange> {
        let created = after
            .items
            .keys()
            .filter(|name| !before.items.contains_key(*name));
        let mut changes: Vec<GitChange> = (before.items.keys().chain(created))
            .filter_map(|name| {
                let kind = match (before.items.get(name), after.items.get(name)) {
                    (Some(was), Some(now)) if was == now => return None,
                    (Some(_), Some(_)) => "changed",
                    (Some(_), None) => "deleted",
                    _ => "created",
                };
                let name = name.clone();
                Some(GitChange { name, kind })
            })
            .collect();
        changes.extend(self.restamped(&before.index, &after.index));
        if self.index_changed(&before.index, &after.index) {
            let kind = match (&before.index.bytes, &after.index.bytes) {
                (None, Some(_)) => "created",
                (Some(_), None) => "deleted",
                _ => "changed",
            };
            changes.push(GitChange {
                name: ".git/index".into(),
                kind,
            });
        }
        changes.sort_by(|a, b| a.name.cmp(&b.name));
        changes
    }

    /// Each file git opens in any question (`git/regular.rs`) that is not
    /// a regular file, unless named already (the loose refs are named by
    /// their walk): a FIFO planted at `.git/packed-refs` or `.git/shallow`
    /// is a change too, and blocks every later git question.
    fn specials_git_reads(&self, items: &mut BTreeMap<String, Vec<u8>>) {
        let dirs = self.repo.dirs();
        let refs = [dirs.common_dir.join("refs"), dirs.git_dir.join("refs")];
        for path in self.repo.read_by_git() {
            if refs.iter().any(|dir| path.starts_with(dir)) {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if let Some(kind) = crate::git::regular::not_regular(&meta)
                && kind != "directory"
            {
                items
                    .entry(self.name_of(&path))
                    .or_insert_with(|| special(kind));
            }
        }
    }

    /// Whether the change named `name` (of [`GitWatch::diff`]) is of a
    /// file that can hide files from `git status`: the config (which names
    /// the excludes file), the excludes files, the global and system
    /// config.
    pub(crate) fn may_hide(&self, name: &str) -> bool {
        let dirs = self.repo.dirs();
        [
            dirs.common_dir.join("config"),
            dirs.git_dir.join("config.worktree"),
            dirs.common_dir.join("info/exclude"),
        ]
        .iter()
        .chain(&dirs.excludes_file)
        .chain(&dirs.config_files)
        .any(|path| self.name_of(path) == name)
    }

    /// The folders of `state`'s index entries inside the worktree, as
    /// worktree-relative bytes (`/`-separated; empty for the worktree).
    pub(super) fn worktree_dirs(&self, state: &GitState) -> Vec<Vec<u8>> {
        let top = self.repo.toplevel();
        if top == self.worktree {
            return state.dirs().to_vec();
        }
        state
            .dirs()
            .iter()
            .filter_map(|dir| {
                let path = top.join(crate::git::path_from_bytes(dir));
                let rest = path.strip_prefix(&self.worktree).ok()?;
                Some(rest.as_os_str().as_encoded_bytes().to_vec())
            })
            .collect()
    }

    /// A path as reported: `.git/...` inside the git directories,
    /// worktree-relative inside the worktree, else absolute.
    fn name_of(&self, path: &Path) -> String {
        let dirs = self.repo.dirs();
        for dir in [&dirs.git_dir, &dirs.common_dir] {
            if let Ok(rest) = path.strip_prefix(dir) {
                return format!(".git/{}", to_slashes(rest));
            }
        }
        match path.strip_prefix(&self.worktree) {
            Ok(rest) => to_slashes(rest),
            Err(_) => path.display().to_string(),
        }
    }

    /// Every file under the hooks folder (content and whether it is
    /// executable: `chmod +x` turns a hook on).
    fn hooks(
        &self,
        dir: &Path,
        depth: usize,
        budget: &mut usize,
        items: &mut BTreeMap<String, Vec<u8>>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if depth < HOOK_DEPTH {
                    self.hooks(&path, depth + 1, budget, items);
                }
                continue;
            }
            let mut value = if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                let mut link = b"symlink:".to_vec();
                link.extend_from_slice(target.as_os_str().as_encoded_bytes());
                link
            } else {
                value(&path, |b| hash(&b).to_vec()).unwrap_or_default()
            };
            value.push(u8::from(executable(&meta)));
            items.insert(self.name_of(&path), value);
        }
    }

    /// A reftable repository's refs and HEAD, asked of git (its files are
    /// binary tables); a failure is recorded as such, never a crash.
    fn reftable_refs(&self, items: &mut BTreeMap<String, Vec<u8>>) {
        let format = "--format=%(refname)%00%(objectname)%00%(symref)";
        match self.repo.run(&["for-each-ref", format]) {
            Ok(out) => {
                for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                    let mut parts = line.splitn(2, |&b| b == 0);
                    let name = String::from_utf8_lossy(parts.next().unwrap_or_default());
                    items.insert(name.into_owned(), parts.next().unwrap_or_default().to_vec());
                }
            }
            Err(why) => {
                items.insert("refs".into(), why.into_bytes());
            }
        }
        let head = self
            .repo
            .run(&["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"])
            .unwrap_or_else(|why| why.into_bytes());
        items.insert(".git/HEAD".into(), head);
    }

    /// The index's state, its flagged entries, and the folders of its
    /// entries.
    fn index(&self) -> (IndexState, Vec<Hidden>, Vec<Vec<u8>>) {
        let dirs = self.repo.dirs();
        let bytes = read(&dirs.index);
        let mut hidden = Vec::new();
        let Some(data) = &bytes else {
            return (IndexState::of(bytes, None, false), hidden, Vec::new());
        };
        let written = std::fs::metadata(&dirs.index).ok().map(|m| stamp(&m));
        let top = self.repo.toplevel();
        let mut gitlinks = false;
        let mut submodules = Vec::new();
        let mut folders = Folders::default();
        let parsed = parse_index(data, |entry| {
            folders.add(entry.path);
            if entry.mode == GITLINK {
                // A checked-out submodule's top folder is looked at too.
                folders.0.push(entry.path.to_vec());
                gitlinks = true;
                submodules.push(top.join(crate::git::path_from_bytes(entry.path)));
            }
            if entry.assume_unchanged || entry.skip_worktree {
                let path = crate::git::path_from_bytes(entry.path);
                let changed = hidden_change(&top.join(&path), entry, written);
                hidden.push(Hidden { path, changed });
            }
        });
        if parsed.is_ok() {
            self.guard(submodules);
            return (
                IndexState::of(bytes, None, gitlinks),
                hidden,
                folders.done(),
            );
        }
        // A split or sparse index: git lists it. Without the cached file
        // times, a flagged file that exists counts as changed.
        hidden.clear();
        let listed = self.listed();
        let entries = listed.iter().flat_map(|(_, entries)| entries);
        let mut folders = Folders::default();
        let mut gitlinks = Vec::new();
        for Listed { entry, .. } in entries.clone() {
            folders.add(&entry.path);
            if entry.mode == GITLINK {
                gitlinks.push(top.join(crate::git::path_from_bytes(&entry.path)));
            }
        }
        self.guard(gitlinks);
        for listed in entries.filter(|listed| listed.assume_unchanged || listed.skip_worktree) {
            let path = crate::git::path_from_bytes(&listed.entry.path);
            let exists = std::fs::symlink_metadata(top.join(&path)).is_ok();
            let changed = exists || !listed.skip_worktree;
            hidden.push(Hidden { path, changed });
        }
        let listed = listed.map(|(meaning, _)| meaning);
        (IndexState::of(bytes, listed, true), hidden, folders.done())
    }

    /// Guards the git of the submodules checked out among `gitlinks` and
    /// below them (`git status` runs in each): their config is asked
    /// before the run's status. A config git cannot read fails that
    /// status as well, so an error here is left to it.
    fn guard(&self, gitlinks: Vec<PathBuf>) {
        let mut found = Vec::new();
        let mut todo = gitlinks;
        while let Some(worktree) = todo.pop() {
            let Some(git_dir) = crate::git::git_dir_of(&worktree) else {
                continue;
            };
            // A submodule's own submodules: the gitlinks of its index.
            if let Some(bytes) = read(&git_dir.join("index")) {
                let _ = parse_index(&bytes, |entry| {
                    if entry.mode == GITLINK && found.len() + todo.len() < MAX_SUBMODULES {
                        todo.push(worktree.join(crate::git::path_from_bytes(entry.path)));
                    }
                });
            }
            found.push(worktree);
        }
        let _ = self.repo.guard_submodules(found);
    }

    /// The index as `git ls-files -s -v -z` lists it: its meaning and its
    /// entries (`None` when git fails).
    fn listed(&self) -> Option<(Meaning, Vec<Listed>)> {
        let entries = ls_files(&self.repo)?;
        let mut hasher = Sha256::new();
        for listed in &entries {
            let e = &listed.entry;
            let flags = (listed.assume_unchanged, listed.skip_worktree);
            feed(&mut hasher, &e.path, e.mode, &e.oid, e.stage, flags);
        }
        Some((hasher.finalize().into(), entries))
    }

    /// The files whose index entry kept its meaning while its cached stat
    /// data changed, and whose content is not the entry's blob any more.
    ///
    /// `git status` trusts an entry whose stat data match the file, so a
    /// check that edits a clean file and writes the file's new stat data
    /// into the index (fixing its checksum) hides the edit from it. A
    /// refresh (any `git status` a check runs) changes stat data too, but
    /// only of a file whose content still is the blob. So each such file is
    /// verified by content: hashed as a blob by `git hash-object` (SHA-1 or
    /// SHA-256 as the repository stores objects, the repository's line-end
    /// conversions applied, its filters overridden as for every git
    /// process) and compared with the entry's object id. A file whose stat
    /// data are still those the first index recorded is as it was; a
    /// symlink's is compared by its own stat data alone (its blob is its
    /// link text, which `hash-object` does not read).
    fn restamped(&self, before: &IndexState, after: &IndexState) -> Vec<GitChange> {
        let (Some(was), Some(now)) = (&before.bytes, &after.bytes) else {
            return Vec::new();
        };
        if was == now {
            return Vec::new();
        }
        let mut old: HashMap<Vec<u8>, ([u8; 36], u32, Vec<u8>)> = HashMap::new();
        if parse_index(was, |e| {
            if e.stage == 0 {
                old.insert(e.path.to_vec(), (e.stat, e.mode, e.oid.to_vec()));
            }
        })
        .is_err()
        {
            return Vec::new();
        }
        let top = self.repo.toplevel();
        let mut suspects: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        let mut changed: Vec<PathBuf> = Vec::new();
        let _ = parse_index(now, |e| {
            let Some((stat, mode, oid)) = old.get(e.path) else {
                return;
            };
            if e.stage != 0 || *stat == e.stat || *mode != e.mode || oid != e.oid {
                return;
            }
            let path = crate::git::path_from_bytes(e.path);
            let Ok(meta) = std::fs::symlink_metadata(top.join(&path)) else {
                return;
            };
            if file_stat(&meta).is_some_and(|file| file == *stat) {
                return;
            }
            match e.mode & 0o170000 {
                0o100000 => suspects.push((path, e.oid.to_vec())),
                0o120000 => changed.push(path),
                _ => {}
            }
        });
        if !suspects.is_empty() {
            let paths: Vec<&Path> = suspects.iter().map(|(p, _)| p.as_path()).collect();
            match self.hash_objects(&paths) {
                Some(hashes) => {
                    for ((path, oid), hash) in suspects.into_iter().zip(hashes) {
                        if hash != oid {
                            changed.push(path);
                        }
                    }
                }
                // Not verified: counted as changed.
                None => changed.extend(suspects.into_iter().map(|(p, _)| p)),
            }
        }
        changed
            .into_iter()
            .map(|path| GitChange {
                name: self.name_of(&top.join(path)),
                kind: "changed",
            })
            .collect()
    }

    /// The blob ids of the files at `paths` (top-level relative), in order,
    /// as `git hash-object --stdin-paths` computes them; `None` when git
    /// fails.
    fn hash_objects(&self, paths: &[&Path]) -> Option<Vec<Vec<u8>>> {
        let mut input = Vec::new();
        for path in paths {
            // One path a line: a name with a newline cannot be asked.
            let bytes = path.as_os_str().as_encoded_bytes();
            if bytes.contains(&b'\n') {
                return None;
            }
            input.extend_from_slice(bytes);
            input.push(b'\n');
        }
        let (code, stdout) = self.repo.feed(&["hash-object", "--stdin-paths"], input)?;
        if code != Some(0) {
            return None;
        }
        let lines = stdout
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty());
        let hashes: Vec<Vec<u8>> = lines.map(from_hex).collect::<Option<_>>()?;
        (hashes.len() == paths.len()).then_some(hashes)
    }

    /// Whether two index states differ in meaning; `after` is the index as
    /// it is now.
    fn index_changed(&self, before: &IndexState, after: &IndexState) -> bool {
        if before.bytes == after.bytes {
            return false;
        }
        let meaning = |state: &IndexState| -> Option<Meaning> {
            match (&state.listed, &state.bytes) {
                (Some(listed), _) => Some(*listed),
                (None, None) => Some(Sha256::new().finalize().into()),
                (None, Some(bytes)) => meaning_of(bytes),
            }
        };
        let was = meaning(before);
        // `after` is the index as it is now: a split or sparse one is
        // listed by git now.
        let now = meaning(after).or_else(|| self.listed().map(|(meaning, _)| meaning));
        match (was, now) {
            (Some(was), Some(now)) => was != now,
            // Neither side can be read: the bytes differ.
            _ => true,
        }
    }
}

/// Whether a flagged entry's file differs from what the index recorded of
/// it (git's own rule: size and times, the change time included, which no
/// one can set back; a file written no earlier than the index itself is
/// "racy" and counts). A skip-worktree file that is not there is as sparse
/// checkout leaves it; an assume-unchanged one that is not there was
/// deleted. Without a change time (Windows), every flagged file that is
/// there counts: a modification time can be set back.
fn hidden_change(path: &Path, entry: &RawEntry<'_>, index_written: Option<(i64, i64)>) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return !entry.skip_worktree;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mtime = stamp(&meta);
        u64::from(entry.size) != meta.len() & 0xffff_ffff
            || mtime.0 != i64::from(entry.mtime)
            || meta.ctime() != i64::from(entry.ctime)
            || index_written.is_none_or(|written| mtime >= written)
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, index_written);
        true
    }
}

/// A file's stat data as git caches it in an index entry (`stat_of`'s
/// layout: 32-bit fields, big-endian); `None` without a change time.
#[cfg(unix)]
fn file_stat(meta: &std::fs::Metadata) -> Option<[u8; 36]> {
    use std::os::unix::fs::MetadataExt;
    // git keeps the low 32 bits of each field.
    let fields = [
        meta.ctime(),
        meta.ctime_nsec(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.dev() as i64,
        meta.ino() as i64,
        i64::from(meta.uid()),
        i64::from(meta.gid()),
        meta.size() as i64,
    ];
    let mut stat = [0; 36];
    for (i, field) in fields.iter().enumerate() {
        stat[i * 4..i * 4 + 4].copy_from_slice(&(*field as u32).to_be_bytes());
    }
    Some(stat)
}

#[cfg(not(unix))]
fn file_stat(_meta: &std::fs::Metadata) -> Option<[u8; 36]> {
    None
}

/// A file's modification time (seconds, nanoseconds since the epoch).
fn stamp(meta: &std::fs::Metadata) -> (i64, i64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.mtime(), meta.mtime_nsec())
    }
    #[cfg(not(unix))]
    {
        let since = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .unwrap_or_default();
        (
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            i64::from(since.subsec_nanos()),
        )
    }
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// The refs of a files backend: `packed-refs`, then the loose refs over it
/// (a loose ref wins), from the common directory and, in a linked worktree,
/// its own per-worktree refs. A ref's value is its file's text (an object
/// id, or `ref: ` and the ref a symbolic ref names).
fn refs_from_files(
    dirs: &GitDirs,
    items: &mut BTreeMap<String, Vec<u8>>,
    hazards: &mut Vec<(PathBuf, &'static str)>,
) {
    if let Some(packed) = read(&dirs.common_dir.join("packed-refs")) {
        for line in packed.split(|&b| b == b'\n') {
            if line.starts_with(b"#") || line.starts_with(b"^") || line.is_empty() {
                continue;
            }
            if let Some(space) = line.iter().position(|&b| b == b' ') {
                let name = String::from_utf8_lossy(&line[space + 1..]);
                let name = name.trim_end_matches('\r').to_string();
                items.insert(name, line[..space].to_vec());
            }
        }
    }
    let mut roots = vec![&dirs.common_dir];
    if dirs.git_dir != dirs.common_dir {
        roots.push(&dirs.git_dir);
    }
    for root in roots {
        loose_refs(&root.join("refs"), "refs", items, hazards);
    }
}

/// The loose refs under `dir`, named `prefix/...`; one that is not a
/// regular file (a FIFO, never opened) is a ref of its own value, and a
/// hazard: git would block on it.
fn loose_refs(
    dir: &Path,
    prefix: &str,
    items: &mut BTreeMap<String, Vec<u8>>,
    hazards: &mut Vec<(PathBuf, &'static str)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let name = format!("{prefix}/{file_name}");
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => loose_refs(&entry.path(), &name, items, hazards),
            // A ref being updated has a `.lock` beside it: not a ref.
            Ok(_) if file_name.ends_with(".lock") => {}
            Ok(_) => match crate::git::regular::read(&entry.path()) {
                Found::File(value) => {
                    items.insert(name, value.trim_ascii_end().to_vec());
                }
                Found::Other(kind) => {
                    hazards.push((entry.path(), kind));
                    items.insert(name, special(kind));
                }
                Found::Absent => {}
            },
            Err(_) => {}
        }
    }
}

/// One entry of the index as the result cache keys it: the path (top-level
/// relative, as stored), the mode and the object id; `stage` non-zero for
/// an unmerged path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    pub(crate) path: Vec<u8>,
    pub(crate) mode: u32,
    pub(crate) oid: Vec<u8>,
    pub(crate) stage: u8,
}

/// Every entry of `repo`'s index: the file parsed, or, for a split or
/// sparse index, as `git ls-files --stage -z` lists it; `None` when
/// neither can be read (no index before the first `git add` is empty).
pub(crate) fn index_entries(repo: &Repo) -> Option<Vec<IndexEntry>> {
    let Some(bytes) = read(&repo.dirs().index) else {
        return match std::fs::symlink_metadata(&repo.dirs().index) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Some(Vec::new()),
            _ => None,
        };
    };
    let mut entries = Vec::new();
    let parsed = parse_index(&bytes, |entry| {
        entries.push(IndexEntry {
            path: entry.path.to_vec(),
            mode: entry.mode,
            oid: entry.oid.to_vec(),
            stage: entry.stage,
        });
    });
    if parsed.is_ok() {
        return Some(entries);
    }
    Some(
        ls_files(repo)?
            .into_iter()
            .map(|listed| listed.entry)
            .collect(),
    )
}

/// The paths of `repo`'s index entries, sorted, each once, read from the
/// file alone (no git process: `settled.rs` runs instead of one); `None`
/// for an index that cannot be parsed here (split, sparse) or that holds a
/// submodule.
pub(super) fn index_paths(repo: &Repo) -> Option<Paths> {
    match read(&repo.dirs().index) {
        Some(bytes) => paths_of(&bytes),
        None => match std::fs::symlink_metadata(&repo.dirs().index) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Some(Paths::default()),
            _ => None,
        },
    }
}

/// [`index_paths`] of the index file's `bytes`.
fn paths_of(bytes: &[u8]) -> Option<Paths> {
    // Sized once: an entry takes at least 62 bytes of the file, and the
    // paths fewer bytes than the file.
    let mut paths = Paths::with_capacity(bytes.len() / 62, bytes.len());
    let mut gitlink = false;
    parse_index(bytes, |entry| {
        gitlink |= entry.mode == GITLINK;
        // The stages of a conflicted path follow each other.
        if paths.last() != Some(entry.path) {
            paths.push(entry.path);
        }
    })
    .ok()?;
    (!gitlink).then_some(paths)
}

/// Many paths in one buffer (50,000 index paths are 50,000 allocations
/// otherwise).
#[derive(Debug, Default)]
pub(super) struct Paths {
    bytes: Vec<u8>,
    /// Where each path ends in `bytes`.
    ends: Vec<usize>,
}

impl Paths {
    /// Room for `paths` paths of `bytes` bytes in all.
    fn with_capacity(paths: usize, bytes: usize) -> Paths {
        Paths {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(paths),
        }
    }

    fn push(&mut self, path: &[u8]) {
        self.bytes.extend_from_slice(path);
        self.ends.push(self.bytes.len());
    }

    fn last(&self) -> Option<&[u8]> {
        let end = *self.ends.last()?;
        let start = self.ends.len().checked_sub(2).map_or(0, |i| self.ends[i]);
        Some(&self.bytes[start..end])
    }

    /// The `i`th path.
    pub(super) fn get(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.bytes[start..self.ends[i]]
    }

    /// How many paths there are.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The paths' indices, `0..len`.
    pub(super) fn indices(&self) -> Vec<usize> {
        (0..self.len()).collect()
    }
}

/// Every entry of the index as `git ls-files --stage -v -z` lists it (a
/// split or sparse index, which is not parsed here); `None` when git fails
/// or a record cannot be read.
fn ls_files(repo: &Repo) -> Option<Vec<Listed>> {
    let out = repo.run(&["ls-files", "--stage", "-v", "-z"]).ok()?;
    let records = out.split(|&b| b == 0).filter(|r| !r.is_empty());
    records.map(parse_listed).collect()
}

/// An index entry as it is stored: what parsing reads of it.
struct RawEntry<'a> {
    path: &'a [u8],
    mode: u32,
    oid: &'a [u8],
    stage: u8,
    assume_unchanged: bool,
    skip_worktree: bool,
    /// The cached stat data (compared on Unix only).
    #[cfg_attr(not(unix), expect(dead_code, reason = "Unix change times only"))]
    ctime: u32,
    #[cfg_attr(not(unix), expect(dead_code, reason = "Unix change times only"))]
    mtime: u32,
    #[cfg_attr(not(unix), expect(dead_code, reason = "Unix change times only"))]
    size: u32,
    /// The whole cached stat data as stored (times, device, inode, owner,
    /// size; the mode aside, which is part of the entry's meaning).
    stat: [u8; 36],
}

/// Parses a git index file (versions 2, 3, 4; SHA-1 or SHA-256 object
/// ids), calling `visit` for each entry. `Err` for anything it cannot read
/// exactly: a truncated or unknown file, a split index (`link`) or a sparse
/// one (`sdir`), whose entries are not all in this file.
fn parse_index(bytes: &[u8], mut visit: impl FnMut(&RawEntry<'_>)) -> Result<(), ()> {
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return Err(());
    }
    let version = be32(bytes, 4)?;
    if !(2..=4).contains(&version) {
        return Err(());
    }
    let count = be32(bytes, 8)? as usize;
    let hash_len = hash_len(bytes, version);
    let mut pos = 12;
    let mut path: Vec<u8> = Vec::new();
    for _ in 0..count {
        let fixed = 40 + hash_len + 2;
        let head = bytes.get(pos..pos + fixed).ok_or(())?;
        let flags = u16::from_be_bytes([head[fixed - 2], head[fixed - 1]]);
        let extended = version >= 3 && flags & 0x4000 != 0;
        let mut at = pos + fixed;
        let extra = if extended {
            let extra = bytes.get(at..at + 2).ok_or(())?;
            at += 2;
            u16::from_be_bytes([extra[0], extra[1]])
        } else {
            0
        };
        let name_len = usize::from(flags & 0x0fff);
        if version == 4 {
            let (strip, used) = varint(&bytes[at..]).ok_or(())?;
            at += used;
            let keep = path.len().checked_sub(strip).ok_or(())?;
            path.truncate(keep);
            let end = at + memchr::memchr(0, bytes.get(at..).ok_or(())?).ok_or(())?;
            path.extend_from_slice(&bytes[at..end]);
            pos = end + 1;
        } else {
            let end = if name_len < 0x0fff {
                at + name_len
            } else {
                at + memchr::memchr(0, bytes.get(at..).ok_or(())?).ok_or(())?
            };
            path.clear();
            path.extend_from_slice(bytes.get(at..end).ok_or(())?);
            let len = end - at;
            pos += (fixed + usize::from(extended) * 2 + len + 8) & !7;
        }
        let field = |i: usize| u32::from_be_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        visit(&RawEntry {
            path: &path,
            mode: field(24),
            oid: &head[40..40 + hash_len],
            stage: ((flags >> 12) & 3) as u8,
            assume_unchanged: flags & 0x8000 != 0,
            skip_worktree: extra & 0x4000 != 0,
            ctime: field(0),
            mtime: field(8),
            size: field(36),
            stat: stat_of(head),
        });
    }
    // Extensions up to the trailing checksum: a split or sparse index is
    // not read here.
    let end = bytes.len().checked_sub(hash_len).ok_or(())?;
    while pos + 8 <= end {
        let signature = &bytes[pos..pos + 4];
        if signature == b"link" || signature == b"sdir" {
            return Err(());
        }
        let size = be32(bytes, pos + 4)? as usize;
        pos = pos.checked_add(8 + size).ok_or(())?;
    }
    if pos == end { Ok(()) } else { Err(()) }
}

/// The cached stat data of an entry's fixed part (`head`, at least 40
/// bytes), the mode left out.
fn stat_of(head: &[u8]) -> [u8; 36] {
    let mut stat = [0; 36];
    stat[..24].copy_from_slice(&head[..24]);
    stat[24..].copy_from_slice(&head[28..40]);
    stat
}

/// The object id length of an index: SHA-1 (20) unless the first entry
/// reads consistently only as SHA-256 (32).
fn hash_len(bytes: &[u8], version: u32) -> usize {
    let fits = |hash_len: usize| -> bool {
        let flags_at = 12 + 40 + hash_len;
        let Some(flags) = bytes.get(flags_at..flags_at + 2) else {
            return false;
        };
        let flags = u16::from_be_bytes([flags[0], flags[1]]);
        let mut at = flags_at
            + 2
            + if version >= 3 && flags & 0x4000 != 0 {
                2
            } else {
                0
            };
        if version == 4 {
            // The first path strips nothing.
            if bytes.get(at) != Some(&0) {
                return false;
            }
            at += 1;
        }
        let name_len = usize::from(flags & 0x0fff);
        name_len > 0
            && name_len < 0x0fff
            && bytes.get(at + name_len) == Some(&0)
            && bytes
                .get(at..at + name_len)
                .is_some_and(|name| !name.contains(&0))
    };
    if !fits(20) && fits(32) { 32 } else { 20 }
}

/// git's offset varint (`varint.c`): the value and the bytes it used.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut byte = *bytes.first()?;
    used += 1;
    let mut value = usize::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        value = value.checked_add(1)?.checked_mul(128)?;
        byte = *bytes.get(used)?;
        used += 1;
        value += usize::from(byte & 0x7f);
    }
    Some((value, used))
}

fn be32(bytes: &[u8], at: usize) -> Result<u32, ()> {
    let b = bytes.get(at..at + 4).ok_or(())?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// One entry as `git ls-files -s -v` lists it (the object id as bytes: git
/// prints it in hex).
#[derive(Debug)]
struct Listed {
    entry: IndexEntry,
    assume_unchanged: bool,
    skip_worktree: bool,
}

/// One `git ls-files -s -v -z` record: `TAG MODE OID STAGE\tPATH`; the tag
/// is lower case for assume-unchanged, `S` for skip-worktree.
fn parse_listed(record: &[u8]) -> Option<Listed> {
    let tab = memchr::memchr(b'\t', record)?;
    let head = std::str::from_utf8(&record[..tab]).ok()?;
    let mut fields = head.split(' ');
    let tag = fields.next()?;
    let mode = u32::from_str_radix(fields.next()?, 8).ok()?;
    let oid = from_hex(fields.next()?.as_bytes())?;
    let stage = fields.next()?.parse().ok()?;
    let first = tag.chars().next()?;
    Some(Listed {
        entry: IndexEntry {
            path: record[tab + 1..].to_vec(),
            mode,
            oid,
            stage,
        },
        assume_unchanged: first.is_ascii_lowercase(),
        skip_worktree: first.eq_ignore_ascii_case(&'s'),
    })
}

/// The bytes of an object id git printed in hex, `None` when it is not hex.
fn from_hex(hex: &[u8]) -> Option<Vec<u8>> {
    let pairs = hex.chunks_exact(2);
    if !pairs.remainder().is_empty() {
        return None;
    }
    let byte = |pair: &[u8]| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok();
    pairs.map(byte).collect()
}

/// A file's bytes, `None` when it is not there or not a regular file
/// (never opened then: a FIFO would block).
fn read(path: &Path) -> Option<Vec<u8>> {
    crate::git::regular::read(path).bytes()
}

/// What a snapshot records of the file at `path`: `of` its bytes for a
/// regular file, a mark of its kind for anything else (never opened),
/// `None` when it is not there.
fn value(path: &Path, of: impl FnOnce(Vec<u8>) -> Vec<u8>) -> Option<Vec<u8>> {
    match crate::git::regular::read(path) {
        Found::File(bytes) => Some(of(bytes)),
        Found::Other(kind) => Some(special(kind)),
        Found::Absent => None,
    }
}

/// The value recorded for a file that is not a regular one: no hash or
/// ref text starts with a NUL.
fn special(kind: &str) -> Vec<u8> {
    format!("\0{kind}").into_bytes()
}

fn hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Status entries for the flagged paths `git status` did not list, so a
/// snapshot hashes them like dirty files.
pub(super) fn flagged_entries(
    status: &crate::git::Status,
    hidden: &[PathBuf],
) -> Vec<crate::git::StatusEntry> {
    if hidden.is_empty() {
        return Vec::new();
    }
    let listed: std::collections::HashSet<&Path> =
        status.entries.iter().map(|e| &*e.path).collect();
    hidden
        .iter()
        .filter(|path| !listed.contains(path.as_path()))
        .map(|path| crate::git::StatusEntry {
            path: path.clone().into(),
            code: "h.".into(),
            state: "flagged".into(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    /// A repository with nested paths (so version 4 compresses prefixes),
    /// one long path and flagged entries.
    fn repo(init: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let mut args = vec!["init", "-q", "-b", "main"];
        args.extend_from_slice(init);
        git(&root, &args);
        for name in ["a/b/c.txt", "a/b/d.txt", "a/e.txt", "z.txt"] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, name).unwrap();
        }
        let long = format!("{}/{}", "d".repeat(200), "l".repeat(200));
        std::fs::create_dir(root.join("d".repeat(200))).unwrap();
        std::fs::write(root.join(&long), "long").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "one"]);
        git(&root, &["update-index", "--assume-unchanged", "a/b/d.txt"]);
        git(&root, &["update-index", "--skip-worktree", "z.txt"]);
        (dir, root)
    }

    fn watch(root: &Path) -> GitWatch {
        let (repo, _) = crate::git::Opening::start(root)
            .unwrap()
            .finish_with(|_, _| ())
            .map(|(repo, status, ())| (repo, status))
            .unwrap();
        GitWatch::new(&repo, root)
    }

    #[test]
    fn every_index_version_parses_as_git_lists_it() {
        for (init, versions) in [
            (&[][..], &["2", "3", "4"][..]),
            (&["--object-format=sha256"][..], &["2", "4"][..]),
        ] {
            let (_dir, root) = repo(init);
            for version in versions {
                git(&root, &["update-index", "--index-version", version]);
                let watch = watch(&root);
                let bytes = std::fs::read(root.join(".git/index")).unwrap();
                let mut count = 0;
                parse_index(&bytes, |_| count += 1).unwrap();
                assert_eq!(count, 5);
                let (listed, entries) = watch.listed().unwrap();
                assert_eq!(
                    meaning_of(&bytes),
                    Some(listed),
                    "{init:?} version {version}"
                );
                assert_eq!(entries.len(), 5);
                let flagged = entries
                    .iter()
                    .filter(|e| e.assume_unchanged || e.skip_worktree);
                assert_eq!(flagged.count(), 2);
                let (_, hidden) = watch.capture_then(&mut || {});
                let flagged: Vec<&Path> = hidden.iter().map(|h| h.path.as_path()).collect();
                assert_eq!(flagged, [Path::new("a/b/d.txt"), Path::new("z.txt")]);
            }
        }
    }

    #[test]
    fn a_truncated_or_foreign_index_is_not_parsed() {
        let (_dir, root) = repo(&[]);
        let bytes = std::fs::read(root.join(".git/index")).unwrap();
        for cut in [0, 11, 12, 70, bytes.len() - 21] {
            assert_eq!(parse_index(&bytes[..cut], |_| {}), Err(()), "cut at {cut}");
        }
        let mut other = bytes.clone();
        other[7] = 9;
        assert_eq!(parse_index(&other, |_| {}), Err(()));
        git(&root, &["update-index", "--split-index"]);
        let split = std::fs::read(root.join(".git/index")).unwrap();
        assert_eq!(parse_index(&split, |_| {}), Err(()));
    }

    #[test]
    fn varints_as_git_writes_them() {
        assert_eq!(varint(&[0]), Some((0, 1)));
        assert_eq!(varint(&[0x7f]), Some((127, 1)));
        // git's encoding of 128 and 16511 (varint.c adds one per byte).
        assert_eq!(varint(&[0x80, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0xff, 0x7f]), Some((16511, 2)));
        assert_eq!(varint(&[0x80]), None);
        assert_eq!(varint(&[0xff; 20]), None);
    }

    #[test]
    fn refs_are_the_same_packed_or_loose_and_changes_are_named() {
        let (_dir, root) = repo(&[]);
        git(&root, &["tag", "v1"]);
        let watch = watch(&root);
        let (before, _) = watch.capture_then(&mut || {});
        git(&root, &["pack-refs", "--all"]);
        let (packed, _) = watch.capture_then(&mut || {});
        assert_eq!(watch.diff(&before, &packed), []);
        git(&root, &["tag", "-d", "v1"]);
        git(&root, &["branch", "side"]);
        git(&root, &["symbolic-ref", "HEAD", "refs/heads/side"]);
        let (after, _) = watch.capture_then(&mut || {});
        let named: Vec<(String, &str)> = watch
            .diff(&packed, &after)
            .into_iter()
            .map(|c| (c.name, c.kind))
            .collect();
        assert_eq!(
            named,
            [
                (".git/HEAD".to_string(), "changed"),
                ("refs/heads/side".to_string(), "created"),
                ("refs/tags/v1".to_string(), "deleted"),
            ]
        );
    }

    #[test]
    fn a_stat_refresh_is_no_change_and_a_flag_is() {
        let (_dir, root) = repo(&[]);
        let watch = watch(&root);
        let (before, _) = watch.capture_then(&mut || {});
        std::thread::sleep(std::time::Duration::from_millis(1100));
        std::fs::write(root.join("a/e.txt"), "a/e.txt").unwrap();
        git(&root, &["update-index", "--refresh"]);
        let (refreshed, _) = watch.capture_then(&mut || {});
        assert_ne!(before.index.bytes, refreshed.index.bytes);
        assert_eq!(watch.diff(&before, &refreshed), []);
        git(&root, &["update-index", "--no-skip-worktree", "z.txt"]);
        let (unflagged, hidden) = watch.capture_then(&mut || {});
        assert_eq!(hidden.len(), 1);
        let names: Vec<String> = watch
            .diff(&refreshed, &unflagged)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, [".git/index"]);
    }
}
