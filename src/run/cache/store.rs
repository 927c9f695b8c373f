//! The local store: results addressed by content, found by key, as a Bazel
//! remote cache holds them (docs/cache.md), so a remote can hold the same
//! blobs later.
//!
//! ```text
//! <dir>/v1/ac/<key>        the sha256 of the key's result blob (64 hex digits)
//! <dir>/v1/cas/<sha256>    the result blob: an `Entry` as JSON
//! <dir>/v1/pruned          touched when the store was last pruned
//! ```
//!
//! Every file is written to a temporary sibling and renamed into place, so
//! a reader sees a whole file or none, and two runs storing the same key
//! both leave a valid entry. A read checks everything it can: the pointer
//! is 64 hex digits, the blob's sha256 is its name, the blob parses, holds
//! the key it was found by, the check's name and a pass. Anything else is a
//! miss, never an error and never a hit.
//!
//! Bounds: an entry not used for `MAX_AGE` is removed, and when the blobs
//! weigh more than `MAX_BYTES` the least recently used entries go first
//! (a hit touches its pointer). Pruning runs after a run that stored
//! something, at most once per `PRUNE_EVERY`, and by `cache clean`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use run_check_documents::evidence::{CheckRecord, Diagnostic, Status, StoredBy};

use crate::digest::hex;

/// The layout's version: a folder of its own, so an older run-check never
/// reads a newer layout's files.
const LAYOUT: &str = "v1";
/// The largest blob read back (a result holds two excerpts and at most
/// 1000 diagnostics).
pub(crate) const MAX_BLOB: u64 = 32 * 1024 * 1024;
/// Entries unused for this long are removed.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);
/// The blobs' total size above which the least recently used go.
pub(crate) const MAX_BYTES: u64 = 1024 * 1024 * 1024;
/// Pruning runs at most this often after a store.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// A temporary file or unreferenced blob younger than this may be a
/// concurrent run's write in progress.
const GRACE: Duration = Duration::from_secs(3600);

/// One stored result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    /// The entry format (1).
    pub(crate) format: u32,
    /// The key it was stored under.
    pub(crate) key: String,
    /// When (RFC 3339 UTC).
    pub(crate) stored_at: String,
    /// The run that stored it.
    pub(crate) stored_by: StoredBy,
    /// The check's evidence entry in that run.
    pub(crate) check: CheckRecord,
    /// The check's diagnostics in that run.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The local store at a folder.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    root: PathBuf,
}

/// What `cache stats` prints.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Stats {
    pub(crate) dir: String,
    pub(crate) entries: u64,
    pub(crate) blobs: u64,
    pub(crate) bytes: u64,
    pub(crate) max_bytes: u64,
    pub(crate) max_age_days: u64,
}

impl Store {
    /// The store under `dir` (nothing is created until a write).
    pub(crate) fn at(dir: &Path) -> Store {
        Store {
            root: dir.join(LAYOUT),
        }
    }

    fn pointer(&self, key: &str) -> PathBuf {
        self.root.join("ac").join(key)
    }

    fn blob(&self, digest: &str) -> PathBuf {
        self.root.join("cas").join(digest)
    }

    /// The entry stored under `key` for check `name`, verified; `None`
    /// for a miss (nothing there, or anything wrong with it).
    pub(crate) fn get(&self, key: &str, name: &str) -> Option<Entry> {
        if !is_hex64(key) {
            return None;
        }
        let pointer = self.pointer(key);
        let digest = read_bounded(&pointer, 65)?;
        let digest = std::str::from_utf8(&digest).ok()?.trim_end_matches('\n');
        if !is_hex64(digest) {
            return None;
        }
        let bytes = read_bounded(&self.blob(digest), MAX_BLOB)?;
        let entry = verify(&bytes, digest, key, name)?;
        // Least recently used: a hit is a use.
        if let Ok(file) = std::fs::File::options().write(true).open(&pointer) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(entry)
    }

    /// Stores `entry` under its key: the blob, then the pointer (a
    /// reader never finds a pointer to a blob not yet there).
    pub(crate) fn put(&self, entry: &Entry) -> Result<(), String> {
        let (bytes, digest) = blob_of(entry)?;
        self.put_blob(&entry.key, &bytes, &digest)
    }

    /// Stores a result blob (`blob_of`) under `key`.
    pub(crate) fn put_blob(&self, key: &str, bytes: &[u8], digest: &str) -> Result<(), String> {
        write_atomic(&self.blob(digest), bytes)?;
        write_atomic(&self.pointer(key), format!("{digest}\n").as_bytes())
    }

    /// Prunes when the last pruning is older than `PRUNE_EVERY`.
    pub(crate) fn maybe_prune(&self) {
        let marker = self.root.join("pruned");
        let due = std::fs::metadata(&marker)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| at.elapsed().ok())
            .is_none_or(|age| age >= PRUNE_EVERY);
        if due {
            let _ = write_atomic(&marker, b"");
            self.prune(MAX_AGE, MAX_BYTES);
        }
    }

    /// Removes entries unused for `max_age`, then the least recently used
    /// until the blobs weigh at most `max_bytes`, then blobs no entry
    /// points to and abandoned temporary files (both older than `GRACE`).
    pub(crate) fn prune(&self, max_age: Duration, max_bytes: u64) {
        let now = SystemTime::now();
        let age = |path: &Path| {
            std::fs::symlink_metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|at| now.duration_since(at).ok())
                .unwrap_or_default()
        };
        // (last use, pointer path, blob digest, blob size)
        let mut entries: Vec<(Duration, PathBuf, String, u64)> = Vec::new();
        for pointer in list(&self.root.join("ac")) {
            if is_temp(&pointer) {
                if age(&pointer) >= GRACE {
                    let _ = std::fs::remove_file(&pointer);
                }
                continue;
            }
            let digest = read_bounded(&pointer, 65)
                .and_then(|d| String::from_utf8(d).ok())
                .map(|d| d.trim_end().to_string())
                .filter(|d| is_hex64(d));
            let Some(digest) = digest else {
                let _ = std::fs::remove_file(&pointer);
                continue;
            };
            let size = std::fs::metadata(self.blob(&digest)).map_or(0, |m| m.len());
            entries.push((age(&pointer), pointer, digest, size));
        }
        entries.sort_by_key(|a| a.0);
        let mut total: u64 = entries.iter().map(|e| e.3).sum();
        let mut kept = Vec::with_capacity(entries.len());
        // Oldest last: drop from the end.
        while let Some(entry) = entries.pop() {
            if entry.0 >= max_age || total > max_bytes {
                total = total.saturating_sub(entry.3);
                let _ = std::fs::remove_file(&entry.1);
            } else {
                kept.push(entry);
            }
        }
        let referenced: std::collections::HashSet<&str> =
            kept.iter().map(|e| e.2.as_str()).collect();
        for blob in list(&self.root.join("cas")) {
            let name = blob
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if !referenced.contains(name) && age(&blob) >= GRACE {
                let _ = std::fs::remove_file(&blob);
            }
        }
    }

    /// Empties the store: every entry and blob.
    pub(crate) fn clean(&self) -> Result<(), String> {
        match std::fs::remove_dir_all(&self.root) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(format!("cannot remove `{}`: {err}", self.root.display())),
        }
    }

    /// Counts and sizes.
    pub(crate) fn stats(&self, dir: &Path) -> Stats {
        let entries = list(&self.root.join("ac"))
            .into_iter()
            .filter(|p| !is_temp(p))
            .count() as u64;
        let blobs: Vec<PathBuf> = list(&self.root.join("cas"))
            .into_iter()
            .filter(|p| !is_temp(p))
            .collect();
        Stats {
            dir: dir.display().to_string(),
            entries,
            blobs: blobs.len() as u64,
            bytes: blobs
                .iter()
                .map(|b| std::fs::metadata(b).map_or(0, |m| m.len()))
                .sum(),
            max_bytes: MAX_BYTES,
            max_age_days: MAX_AGE.as_secs() / 86400,
        }
    }
}

/// An entry as the blob both stores hold, and the blob's sha256 (hex).
pub(crate) fn blob_of(entry: &Entry) -> Result<(Vec<u8>, String), String> {
    let bytes = serde_json::to_vec(entry).map_err(|err| err.to_string())?;
    let digest = hex(&Sha256::digest(&bytes));
    Ok((bytes, digest))
}

/// A result blob read back under `digest` for `key` and check `name`, as
/// either store (local or remote) found it: its sha256 must be `digest`,
/// and it must parse and hold that key, that check's name and a clean
/// pass. `None` otherwise: whoever wrote it, it is a miss.
pub(crate) fn verify(bytes: &[u8], digest: &str, key: &str, name: &str) -> Option<Entry> {
    if bytes.len() as u64 > MAX_BLOB || hex(&Sha256::digest(bytes)) != digest {
        return None;
    }
    let entry: Entry = serde_json::from_slice(bytes).ok()?;
    let valid = entry.format == 1
        && entry.key == key
        && entry.check.name == name
        && entry.check.status == Status::Pass
        && !entry.check.timed_out
        && !entry.check.flaky
        && entry.check.baseline_suppressed == 0
        && entry.diagnostics.iter().all(|d| d.check == name);
    valid.then_some(entry)
}

/// A file's bytes when it is a regular file of at most `limit` bytes.
fn read_bounded(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let (file, meta) = crate::paths::open_regular(path)?;
    if meta.len() > limit {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut bytes).ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// Writes `bytes` to a temporary sibling of `path` and renames it over
/// `path`, creating the folder.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|err| format!("cannot create `{}`: {err}", dir.display()))?;
    // Without waiting for the disk: every read verifies what it reads (the
    // pointer's blob against its digest, the entry against its key), so an
    // entry a crash left short or empty is a miss, never a wrong hit; an
    // fsync per file made a run that stored 20 passes wait for 40.
    crate::output::replace_unsynced(path, bytes).map_err(|err| err.to_string())
}

/// The files of a folder (none when it cannot be read).
fn list(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// A temporary file of `write_atomic` (`.run-check-<pid>-*.tmp`).
fn is_temp(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(crate::output::OUT_TEMP_PREFIX))
}

pub(crate) fn is_hex64(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, name: &str, excerpt: &str) -> Entry {
        let record = serde_json::json!({
            "name": name, "status": "pass", "command": ["true"], "program": "/bin/true",
            "dimension": "quality", "severity": "high", "exit_code": 0, "duration_ms": 7,
            "timed_out": false, "stdout_excerpt": excerpt, "stderr_excerpt": "",
            "stdout_bytes": excerpt.len(), "stderr_bytes": 0, "excerpt_truncated": false,
            "artifacts": [], "diagnostics_count": 0, "diagnostics_dropped": 0, "score": null,
            "skip_reason": null, "error": null, "data": {}, "leaked": [], "config_line": 1,
            "started_ms": 0, "flaky": false, "attempts": 1, "attempt_log": [],
            "baseline_suppressed": 0,
        });
        Entry {
            format: 1,
            key: key.to_string(),
            stored_at: "2026-11-27T00:00:00Z".into(),
            stored_by: StoredBy { commit: None },
            check: serde_json::from_value(record).unwrap(),
            diagnostics: Vec::new(),
        }
    }

    fn key(n: u8) -> String {
        hex(&Sha256::digest([n]))
    }

    /// Sets a file's last use `age` ago.
    fn age(path: &Path, age: Duration) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
    }

    #[test]
    fn entries_round_trip_and_only_under_their_own_key_and_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        store.put(&entry(&key(1), "a", "out")).unwrap();
        let got = store.get(&key(1), "a").expect("a hit");
        assert_eq!(got.check.stdout_excerpt, "out");
        assert!(store.get(&key(1), "b").is_none(), "another check's name");
        assert!(store.get(&key(2), "a").is_none(), "nothing there");
        assert!(store.get("../../etc/passwd", "a").is_none(), "not a key");
        // A pointer copied under another key names the wrong key.
        std::fs::copy(store.pointer(&key(1)), store.pointer(&key(2))).unwrap();
        assert!(store.get(&key(2), "a").is_none());
    }

    #[test]
    fn pruning_drops_old_entries_then_the_least_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        let big = "x".repeat(10_000);
        for n in 0..4 {
            store
                .put(&entry(&key(n), "a", &format!("{big}{n}")))
                .unwrap();
        }
        // 0: unused for 40 days; 1 used 3 hours ago, 2 two hours ago, 3 now.
        age(&store.pointer(&key(0)), Duration::from_secs(40 * 86400));
        age(&store.pointer(&key(1)), Duration::from_secs(3 * 3600));
        age(&store.pointer(&key(2)), Duration::from_secs(2 * 3600));
        let blob_of = |n: u8| {
            let digest = std::fs::read_to_string(store.pointer(&key(n))).unwrap();
            store.blob(digest.trim())
        };
        let old_blob = blob_of(0);
        age(&old_blob, Duration::from_secs(40 * 86400));
        let one = std::fs::metadata(blob_of(3)).unwrap().len();
        // Room for two blobs: 0 goes for its age, 1 as the least recent.
        store.prune(MAX_AGE, 2 * one + one / 2);
        let left: Vec<bool> = (0..4).map(|n| store.get(&key(n), "a").is_some()).collect();
        assert_eq!(left, [false, false, true, true]);
        assert!(!old_blob.exists(), "an unreferenced old blob is removed");
        assert_eq!(store.stats(dir.path()).entries, 2);
        store.clean().unwrap();
        assert_eq!(store.stats(dir.path()).entries, 0);
    }
}
