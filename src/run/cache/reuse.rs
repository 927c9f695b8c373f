//! Results a stop reuses (docs/agents.md, "Results a stop reuses"): the
//! passes an earlier stop of the same agent session recorded in the
//! session folder (`results.json`), written by the hook itself, never by
//! a run, and covered by the session's digest chain.
//!
//! Strict mode does not read the local store (a check can write into it),
//! so without this every stop ran every check again. The hook records,
//! after a gate whose worktree stayed unmodified, each clean pass of a
//! check with a cache key (`cache = true`), with the context the gate ran
//! in: the config file's sha256, run-check's version and the git config
//! as git lists it. The next stop hands the file to its gate
//! (`--session-results`) only when that context is unchanged, with the
//! sha256 the chain recorded (`--session-digest`): the gate reads it once,
//! before any check starts, and uses it only when the bytes are those.
//! A check is then a hit (`cache.source` `"session"`) only when its key,
//! made by this run as for the cache (inputs, the program's sha256, the
//! check's fields, `env_keys`, `version`), is the recorded one.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use run_check_documents::evidence::{CacheSource, CacheStatus, Diagnostic, Evidence};

use super::store::Entry;
use crate::digest::hex;

/// The file's name in the session folder.
pub(crate) const FILE: &str = "results.json";

/// The file's format.
const FORMAT: u32 = 1;

/// What `results.json` holds.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Results {
    pub(crate) format: u32,
    /// sha256 of the context the passes were recorded in ([`context`]).
    pub(crate) context: String,
    /// The passes, one per check.
    pub(crate) entries: Vec<Entry>,
}

/// The passes a run may reuse, by key.
#[derive(Debug, Default)]
pub(crate) struct Reusable {
    /// The context they were recorded in.
    context: String,
    by_key: HashMap<String, Entry>,
}

impl Reusable {
    /// The file at `path` when its sha256 is `digest` and it parses: what
    /// a gate started by the hook reuses. Anything else reuses nothing
    /// (the run is as without it).
    pub(crate) fn read(path: &Path, digest: &str) -> Reusable {
        let Ok(bytes) = crate::bounded::read_regular(path, crate::bounded::SESSION) else {
            return Reusable::default();
        };
        if hex(&Sha256::digest(&bytes)) != digest {
            return Reusable::default();
        }
        let Ok(results) = serde_json::from_slice::<Results>(&bytes) else {
            return Reusable::default();
        };
        if results.format != FORMAT {
            return Reusable::default();
        }
        let by_key = results
            .entries
            .into_iter()
            .filter(|entry| entry.format == 1)
            .map(|entry| (entry.key.clone(), entry))
            .collect();
        Reusable {
            context: results.context,
            by_key,
        }
    }

    /// Whether there is a pass to reuse, recorded in `context`.
    pub(crate) fn holds(&self, context: &str) -> bool {
        !self.by_key.is_empty() && self.context == context
    }

    /// The pass recorded under `key` for check `name`.
    pub(crate) fn get(&self, key: &str, name: &str) -> Option<Entry> {
        let entry = self.by_key.get(key)?;
        (entry.check.name == name && super::storable(&entry.check)).then(|| entry.clone())
    }
}

/// The context a session's passes hold for: a change of the config file,
/// of run-check or of any git setting (what `git config --list` shows,
/// includes and the environment's settings included) reuses nothing.
pub(crate) fn context(config: &[u8], git_config: &[u8]) -> String {
    let mut hasher = Sha256::new();
    for part in [env!("CARGO_PKG_VERSION").as_bytes(), config, git_config] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hex(&hasher.finalize())
}

/// The passes of `evidence` a later stop may reuse, in `context`: each
/// check that ran and passed clean under a key, and each reused one again
/// (taken from `before`, the file this stop's gate was given). `None` when
/// the run's passes cannot be trusted (interrupted, the worktree modified
/// or not verified).
pub(crate) fn record(evidence: &Evidence, before: &Reusable, context: String) -> Option<Results> {
    let read_only = &evidence.contracts.read_only;
    if evidence.interrupted()
        || !read_only.modified.is_empty()
        || read_only.error.is_some()
        || !read_only.verified
    {
        return None;
    }
    let mut entries = Vec::new();
    let mut first_diagnostic = 0;
    for check in &evidence.checks {
        let count = check.diagnostics_count;
        let diagnostics: &[Diagnostic] = evidence
            .diagnostics
            .get(first_diagnostic..first_diagnostic + count)
            .unwrap_or_default();
        first_diagnostic += count;
        let Some(key) = &check.cache.key else {
            continue;
        };
        match (check.cache.status, check.cache.source) {
            (CacheStatus::Miss, _) if super::storable(check) => {
                entries.push(super::entry_of(
                    check,
                    key,
                    &evidence.meta.timestamp,
                    evidence.meta.git.commit.clone(),
                    diagnostics,
                ));
            }
            (CacheStatus::Hit, Some(CacheSource::Session)) => {
                entries.extend(before.get(key, &check.name));
            }
            _ => {}
        }
    }
    Some(Results {
        format: FORMAT,
        context,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_changes_with_the_config_and_the_git_settings() {
        let base = context(b"[[check]]", b"core.filemode\ntrue");
        assert_eq!(base, context(b"[[check]]", b"core.filemode\ntrue"));
        assert_ne!(base, context(b"[[check]] ", b"core.filemode\ntrue"));
        assert_ne!(base, context(b"[[check]]", b"core.filemode\nfalse"));
        // The parts are length-prefixed: moving a byte across is a change.
        assert_ne!(context(b"ab", b"c"), context(b"a", b"bc"));
    }

    #[test]
    fn a_file_is_used_only_with_the_digest_the_hook_gave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let results = Results {
            format: FORMAT,
            context: "c".into(),
            entries: Vec::new(),
        };
        let bytes = serde_json::to_vec(&results).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let digest = hex(&Sha256::digest(&bytes));
        assert_eq!(Reusable::read(&path, &digest).context, "c");
        assert_eq!(Reusable::read(&path, &"0".repeat(64)).context, "");
        // Nothing to reuse holds no context.
        assert!(!Reusable::read(&path, &digest).holds("c"));
    }
}
