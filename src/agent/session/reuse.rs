//! The passes a stop hands to the next one (`run::cache::reuse`): after
//! a gate, the hook records in `results.json` the clean passes of checks
//! with a cache key, with the context they ran in; before the next gate
//! it hands the file on only when that context is unchanged, with the
//! sha256 the session's digest chain recorded for it. The file is the
//! hook's (covered by the chain): one a check or the agent wrote makes the
//! session untrusted at the next event, before anything reads it.

use std::ffi::OsString;
use std::path::PathBuf;

use run_check_documents::evidence::Evidence;

use super::Session;
use super::state::write_atomic;
use crate::run::cache::reuse::{self, Results, Reusable};

/// What a stop knows of the earlier stops' passes before its gate runs.
pub(super) struct Before {
    /// The context now (`None`: git's config could not be listed, and
    /// nothing is reused or recorded).
    context: Option<String>,
    /// The file handed to the gate, with the sha256 it must have.
    handed: Option<(PathBuf, String)>,
    /// What the gate was handed, to carry the reused passes on.
    reusable: Reusable,
}

impl Before {
    /// The gate's arguments that hand it the file.
    pub(super) fn args(&self) -> Vec<OsString> {
        match &self.handed {
            Some((path, digest)) => vec![
                "--session-results".into(),
                path.into(),
                "--session-digest".into(),
                digest.into(),
            ],
            None => Vec::new(),
        }
    }
}

impl Session {
    fn results_path(&self) -> PathBuf {
        self.dir.join(reuse::FILE)
    }

    /// The context of this stop, and the earlier passes recorded in the
    /// same context (the chain vouched for the file when the event began).
    pub(super) fn reuse_before(&self) -> Before {
        // No check with a key: nothing to reuse, and no git process asked.
        if !self.config.checks.iter().any(|check| check.cache.is_some()) {
            return Before {
                context: None,
                handed: None,
                reusable: Reusable::default(),
            };
        }
        let git_config = crate::git::ask_bytes(
            &self.worktree,
            &["config", "--list", "-z", "--show-origin", "--show-scope"],
        );
        let context = git_config
            .ok()
            .map(|listed| reuse::context(self.config.sha256.as_bytes(), &listed));
        let recorded = self.chain.borrow().files.get(reuse::FILE).cloned();
        let path = self.results_path();
        let handed = match (&context, recorded) {
            (Some(context), Some(digest)) => {
                let reusable = Reusable::read(&path, &digest);
                reusable
                    .holds(context)
                    .then_some((reusable, (path, digest)))
            }
            _ => None,
        };
        let (reusable, handed) = match handed {
            Some((reusable, handed)) => (reusable, Some(handed)),
            None => (Reusable::default(), None),
        };
        Before {
            context,
            handed,
            reusable,
        }
    }

    /// Records the passes of this stop's gate for the next stops, or
    /// removes the file when the gate's passes cannot be trusted (no
    /// evidence, the worktree modified or not verified).
    pub(super) fn record_results(&self, evidence: Option<&Evidence>, before: &Before) {
        let results = match (evidence, &before.context) {
            (Some(evidence), Some(context)) => {
                reuse::record(evidence, &before.reusable, context.clone())
            }
            _ => None,
        };
        let bytes = results
            .filter(|results| !results.entries.is_empty())
            .and_then(|results: Results| serde_json::to_vec(&results).ok())
            .filter(|bytes| (bytes.len() as u64) <= crate::bounded::SESSION.bytes);
        let path = self.results_path();
        let kept = bytes.is_some_and(|bytes| write_atomic(&path, &bytes).is_ok());
        if !kept {
            let _ = std::fs::remove_file(&path);
        }
        self.wrote(reuse::FILE);
    }
}
