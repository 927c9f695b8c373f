//! The session's digest chain: which of the session folder's files the
//! hook wrote, with the sha256 of what it wrote, and a head digest over
//! every write in order. It is kept in the folder (`chain.json`) and
//! mirrored in the platform's state folder, outside the repository
//! ([`super::pin`]); at every event the hook compares the two and the
//! files with them ([`check`]), so a file changed by anything but the
//! hook (a check of the code under test, the agent's shell) is seen.
//!
//! It covers the files the hook writes and reads back: `state.json`,
//! `history.jsonl`, `baseline.json`, `results.json` (the passes a later
//! stop may reuse) and the `round-N.json` copies. A
//! covered name the chain does not list is a file the hook did not write.
//! Other names (the lock, notes a user leaves) are not read by the hook
//! and not covered.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::state::{sha256, write_atomic};

/// The chain's file in the session folder.
pub(super) const FILE: &str = "chain.json";

/// The chain of one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Chain {
    /// Writes recorded so far.
    pub(super) seq: u64,
    /// sha256 over the previous head, the file's name and its new digest,
    /// at each write: two chains with the same head saw the same writes.
    pub(super) head: String,
    /// Each covered file as the hook left it: its name and sha256 (a file
    /// the hook removed is absent).
    pub(super) files: BTreeMap<String, String>,
    /// Why the session was started again, until a stop has blocked once
    /// with it (a restart at session start has no stop to block).
    #[serde(default)]
    pub(super) untrusted: Option<String>,
}

impl Chain {
    /// Records that the hook left `name` in `dir` as it is now (removed,
    /// when it is not a regular file there).
    pub(super) fn record(&mut self, dir: &Path, name: &str) {
        let digest = digest(&dir.join(name));
        if self.files.get(name) == digest.as_ref() {
            return;
        }
        self.seq += 1;
        let link = format!(
            "{}\n{name}\n{}",
            self.head,
            digest.as_deref().unwrap_or("removed")
        );
        self.head = sha256(link.as_bytes());
        match digest {
            Some(digest) => self.files.insert(name.to_string(), digest),
            None => self.files.remove(name),
        };
    }
}

/// What the hook found of a session when an event began.
#[derive(Debug, PartialEq)]
pub(super) enum Found {
    /// Nothing of the hook's yet: a new session.
    New,
    /// The folder matches its chain and the chain its mirror.
    Trusted(Chain),
    /// Files without a chain and no mirror (an earlier run-check wrote
    /// them), or a session whose folder run-check itself removed: it starts
    /// again with every failure counted, and the user is told why.
    Restart(String),
    /// Changed by anything but the hook: why.
    Tampered(String),
}

/// Whether `name` is a file of the session the hook writes and reads.
pub(super) fn covered(name: &str) -> bool {
    matches!(
        name,
        "state.json" | "baseline.json" | "history.jsonl" | "results.json"
    ) || name
        .strip_prefix("round-")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The session folder `dir` against its mirrored chain (`Ok(None)`: no
/// mirror; `pruned`: run-check removed the folder itself).
pub(super) fn check(dir: &Path, mirrored: Result<Option<&Chain>, String>, pruned: bool) -> Found {
    let mirrored = match mirrored {
        Ok(mirrored) => mirrored,
        Err(why) => return Found::Tampered(why),
    };
    let kept = match read(dir) {
        Ok(kept) => kept,
        Err(why) => return Found::Tampered(why),
    };
    let present = present(dir);
    match (kept, mirrored) {
        (None, None) if present.is_empty() => Found::New,
        (None, None) => Found::Restart(
            "this session's files were written by an earlier run-check, without a digest \
             chain: the session starts again with every failure counted"
                .into(),
        ),
        (Some(_), None) => Found::Tampered(
            "its mirror in the state folder is missing (removed by hand, or the state \
             folder changed)"
                .into(),
        ),
        (None, Some(_)) if pruned && present.is_empty() => Found::Restart(
            "run-check removed this idle session's folder: the session starts again with every \
             failure counted"
                .into(),
        ),
        (None, Some(_)) => Found::Tampered(
            "the session folder was deleted or emptied while its mirror in the state folder \
             remains"
                .into(),
        ),
        (Some(kept), Some(mirrored)) if kept != *mirrored => Found::Tampered(format!(
            "its {FILE} differs from its mirror in the state folder"
        )),
        (Some(kept), Some(_)) => match differences(dir, &kept, &present) {
            Some(why) => Found::Tampered(why),
            None => Found::Trusted(kept),
        },
    }
}

/// The first file of `dir` that is not as `chain` says, as a sentence.
fn differences(dir: &Path, chain: &Chain, present: &BTreeSet<String>) -> Option<String> {
    for (name, recorded) in &chain.files {
        match digest(&dir.join(name)) {
            Some(now) if now == *recorded => {}
            Some(_) => return Some(format!("`{name}` was changed since the hook wrote it")),
            None => {
                return Some(format!(
                    "`{name}` is gone or is not a regular file any more (a link, FIFO, \
                     socket or device)"
                ));
            }
        }
    }
    present
        .iter()
        .find(|name| !chain.files.contains_key(*name))
        .map(|name| format!("`{name}` was not written by the hook"))
}

/// The covered names in `dir`, whatever their kind.
fn present(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| covered(name))
        .collect()
}

/// sha256 of the regular file at `path` (read with the JSON bound); `None`
/// when it is missing, not a regular file, or larger.
fn digest(path: &Path) -> Option<String> {
    crate::bounded::read_regular(path, crate::bounded::JSON)
        .ok()
        .map(|bytes| sha256(&bytes))
}

/// The folder's `chain.json`, `None` when there is none.
fn read(dir: &Path) -> Result<Option<Chain>, String> {
    let path = dir.join(FILE);
    match crate::bounded::read_regular(&path, crate::bounded::SESSION) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|err| format!("its {FILE} is not the hook's ({err})")),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("its {FILE} cannot be read ({err})")),
    }
}

/// Writes `chain` as the folder's `chain.json`.
pub(super) fn write(dir: &Path, chain: &Chain) -> Result<(), String> {
    let text = serde_json::to_string_pretty(chain).unwrap_or_default() + "\n";
    write_atomic(&dir.join(FILE), text.as_bytes())
}

/// Removes the covered files and the chain from `dir` (a session started
/// again); what cannot be removed stays, and is seen at the next event.
pub(super) fn clear(dir: &Path) {
    for name in present(dir).iter().map(String::as_str).chain([FILE]) {
        let path = dir.join(name);
        // A folder planted under a file's name is removed too (never
        // followed: a link is removed as the link).
        let _ = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_hooks_own_names_are_covered() {
        for name in [
            "state.json",
            "baseline.json",
            "history.jsonl",
            "results.json",
            "round-12.json",
        ] {
            assert!(covered(name), "{name}");
        }
        for name in [
            "lock",
            "chain.json",
            "round-.json",
            "round-1.json.tmp",
            "round-x.json",
        ] {
            assert!(!covered(name), "{name}");
        }
    }

    #[test]
    fn a_file_changed_added_or_removed_behind_the_chain_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        assert_eq!(check(dir, Ok(None), false), Found::New);
        let mut chain = Chain::default();
        std::fs::write(dir.join("state.json"), "{}").unwrap();
        chain.record(dir, "state.json");
        std::fs::write(dir.join("round-1.json"), "{}").unwrap();
        chain.record(dir, "round-1.json");
        assert_eq!(chain.seq, 2);
        write(dir, &chain).unwrap();
        assert_eq!(
            check(dir, Ok(Some(&chain)), false),
            Found::Trusted(chain.clone())
        );
        // The mirror missing, or another chain than the folder's.
        assert!(matches!(check(dir, Ok(None), false), Found::Tampered(_)));
        let mut other = chain.clone();
        other.record(dir, "history.jsonl");
        std::fs::write(dir.join("history.jsonl"), "x").unwrap();
        other.record(dir, "history.jsonl");
        assert!(matches!(
            check(dir, Ok(Some(&other)), false),
            Found::Tampered(_)
        ));
        // history.jsonl is not in the folder's chain.
        let found = check(dir, Ok(Some(&chain)), false);
        assert!(
            matches!(&found, Found::Tampered(why) if why.contains("history.jsonl")),
            "{found:?}"
        );
        std::fs::remove_file(dir.join("history.jsonl")).unwrap();
        std::fs::write(dir.join("round-1.json"), "{\"forged\": 1}").unwrap();
        let found = check(dir, Ok(Some(&chain)), false);
        assert!(
            matches!(&found, Found::Tampered(why) if why.contains("round-1.json")),
            "{found:?}"
        );
        // Emptied while the mirror remains; pruned by run-check, a restart.
        clear(dir);
        assert!(matches!(
            check(dir, Ok(Some(&chain)), false),
            Found::Tampered(_)
        ));
        assert!(matches!(
            check(dir, Ok(Some(&chain)), true),
            Found::Restart(_)
        ));
    }
}
