//! Looking at files: a path's stat data or content hash, a directory's tree
//! hash, the walk outside git, and the parallel map that spreads the looks
//! over threads.

use super::*;

/// What a first snapshot records of `path`: its stat data, and its content
/// hash when the stat data cannot be trusted (`stat::needs_reading`); a
/// directory's tree hash.
pub(super) fn look_first(lstat: &mut Lstat, path: &Path, clock: &Clock, trust: &mut Trust) -> Seen {
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
/// snapshot found `reference`: the stat data, the content hash when the
/// first took one, and `dir` (the identity of its directory now) when the
/// first left it unread.
pub(super) fn look_again(
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

/// The content hash of a file that has to be read; a file that cannot be
/// read or is gone (or a FIFO, socket or device) hashes as all zeros,
/// judged by its stat data alone.
fn read_path(path: &Path) -> [u8; 32] {
    let meta = std::fs::symlink_metadata(path).ok();
    meta.and_then(|meta| hash_with(path, &meta))
        .unwrap_or([0; 32])
}

/// Items one thread takes at a time.
pub(super) const BATCH: usize = 256;

/// `f` of every item, in order, shared out over up to `threads` threads
/// (each with its own `init()` state); a list of one batch or less, or one
/// thread, stays on this thread.
pub(super) fn par_map<T: Sync, S, R: Send>(
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
        // This thread works too, and takes batches until none is left: a
        // thread the system refuses (a container's limit on processes,
        // with up to 20 asked for) leaves its share to the others.
        let workers: Vec<_> = (1..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
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
    // every slot of the one before; all threads (this one, and the
    // workers that started) have returned without a panic (a panic is
    // resumed above, before this line), and they return only once the
    // batches are exhausted. So every slot is initialised.
    unsafe { results.set_len(items.len()) };
    results
}

/// The hash of a listed path: its content for a file (the link text for a
/// symlink), the tree under it for a directory; `None` when it is not there.
#[cfg(test)]
pub(super) fn hash_path(path: &Path) -> Option<[u8; 32]> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Some(tree_hash(path)),
        Ok(meta) => hash_with(path, &meta),
        Err(_) => None,
    }
}

/// sha256 of a file's content (of the link text for a symlink); `None` when
/// it is not there or is a directory.
#[cfg(test)]
pub(super) fn hash_file(path: &Path) -> Option<[u8; 32]> {
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
pub(super) fn tree_hash(dir: &Path) -> [u8; 32] {
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
pub(super) fn walk_entries(
    worktree: &Path,
    reference: Option<&Snapshot>,
    clock: &Clock,
) -> Vec<(Key, Entry)> {
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
            hash: read.then(|| Box::new(hash_with(&path, meta).unwrap_or([0; 32]))),
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
