//! The result cache (docs/cache.md): a check with `cache = true` whose key
//! is in the store with a pass is not run; its evidence entry is the stored
//! one. Only passes are stored (never fail, error, timeout, skip, flaky or
//! baseline-suppressed results).
//!
//! A run touches the cache only when a selected check has `cache = true`
//! and `--no-cache` is not given: no key is made, no file hashed and the
//! store not looked at otherwise. Keys are made before the first check
//! starts (`begin`), from the run's `git status`; the passes are stored
//! after the evidence is assembled (`finish`), and not at all when the
//! read-only verification found the worktree modified (a check may have
//! changed another's inputs after its key was made).
//!
//! A remote (`[cache] remote`) is read after the local store misses, in
//! both modes, and written only where `remote_write` or
//! `RUN_CHECK_CACHE_WRITE=1` allows it; its client is built only then.
//!
//! - `key`: the key document and its sha256;
//! - `store`: the local store (content-addressed blobs, pointers by key);
//! - `remote`: a Bazel HTTP remote cache holding the same blobs;
//! - `place`: the platform's cache folder.

pub(crate) mod key;
pub(crate) mod place;
pub(crate) mod remote;
pub(crate) mod reuse;
pub(crate) mod store;

use std::path::PathBuf;

use run_check_documents::evidence::{
    CacheSource, CacheStatus, CacheUse, CheckRecord, Diagnostic, Evidence, Status, StoredBy,
};

use crate::config::{Config, Mode};
use crate::run::plan::{Cached, Plan, PlannedCheck};
use remote::Remote;
use store::{Entry, Store};

/// The variable that lets a run write to the remote, as `remote_write`.
pub(crate) const WRITE_ENV: &str = "RUN_CHECK_CACHE_WRITE";

/// What a run may do with the local store (docs/cache.md): both modes
/// write; fast mode reads, strict mode only with `--cache`; `--no-cache`
/// neither. The remote is read by both modes unless `--no-cache`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Policy {
    pub(crate) read: bool,
    pub(crate) write: bool,
}

impl Policy {
    /// The policy of a run in `mode` with `--cache` / `--no-cache`.
    pub(crate) fn of(mode: Mode, cache: bool, no_cache: bool) -> Policy {
        Policy {
            read: !no_cache && (mode == Mode::Fast || cache),
            write: !no_cache,
        }
    }
}

/// Whether this run may write to the remote: `remote_write = true`, or
/// `RUN_CHECK_CACHE_WRITE=1` in its environment.
fn remote_writable(config: &Config) -> bool {
    config.cache.remote_write || std::env::var_os(WRITE_ENV).is_some_and(|v| v == "1")
}

/// The cache's part of a run: the store, and each planned check's key.
#[derive(Debug)]
pub(crate) struct Session {
    /// The worktree (canonical): the store is looked at again before
    /// it is written.
    worktree: PathBuf,
    store: Option<(Store, PathBuf)>,
    /// The remote, when one is configured and this run uses it.
    remote: Option<Remote>,
    /// Whether the passes are written to the remote too.
    remote_write: bool,
    /// Per planned check: its key when it is cached and was not a hit.
    misses: Vec<Option<String>>,
    policy: Policy,
    commit: Option<String>,
}

impl Session {
    /// A run that does not use the cache.
    pub(crate) fn off(checks: usize) -> Session {
        Session {
            worktree: PathBuf::new(),
            store: None,
            remote: None,
            remote_write: false,
            misses: vec![None; checks],
            policy: Policy::default(),
            commit: None,
        }
    }
}

/// Makes the keys of `plan`'s cached checks and looks them up: a hit
/// marks its check (`PlannedCheck::hit`) so that the runner does not start
/// it; every cached check gets its `cache` field (`miss` or `hit`; the
/// others stay `off`). Warnings (a key that cannot be made, no store, a
/// remote that fails) go to stderr, also under `--quiet`: a warning is
/// not a progress line (docs/cli.md).
///
/// `reuse`: the passes an earlier stop of the agent session recorded
/// (empty outside the hook's gate), looked at first, in both modes: they
/// are the hook's, which no check can write.
pub(crate) fn begin(
    facts: &key::Facts<'_>,
    plan: &mut Plan<'_>,
    policy: Policy,
    reuse: &reuse::Reusable,
) -> Session {
    let cached = |c: &PlannedCheck<'_>| c.config.cache.is_some() && c.skip.is_none();
    if !plan.checks.iter().any(cached) || !(policy.read || policy.write) {
        return Session::off(plan.checks.len());
    }
    let warn = |what: String| eprintln!("run-check: cache: {what}");
    let Some(dir) = place::store_dir(facts.config.cache.dir.as_deref()) else {
        warn(
            "no cache folder (set XDG_CACHE_HOME or HOME, or `[cache] dir`): nothing is cached"
                .into(),
        );
        return Session::off(plan.checks.len());
    };
    if place::inside(&dir, facts.worktree) {
        warn(inside_worktree(&dir));
        return Session::off(plan.checks.len());
    }
    let store = Store::at(&dir);
    // Both modes read the remote (it is written by trusted pipelines only);
    // `--no-cache` has returned above.
    let remote = facts
        .config
        .cache
        .remote
        .as_deref()
        .map(|url| Remote::new(url, facts.config.cache.token_env.as_deref()));
    if let Some(remote) = &remote {
        remote.phase();
    }
    let candidates: Vec<&PlannedCheck<'_>> = plan.checks.iter().filter(|c| cached(c)).collect();
    // One key (or none) per candidate, in plan order.
    let mut keys = key::keys(facts, &candidates).into_iter();
    // The session's passes and the local store first (each a file read);
    // what they miss is asked of the remote, all at once.
    let mut found: Vec<Found> = (0..plan.checks.len()).map(|_| None).collect();
    let mut ask: Vec<(usize, &str, String)> = Vec::new();
    for (i, check) in plan.checks.iter().enumerate() {
        if !cached(check) {
            continue;
        }
        let Some(made) = keys.next().flatten() else {
            continue;
        };
        let key = match made {
            Ok(key) => key.hex,
            Err(why) => {
                warn(format!("check `{}` is not cached: {why}", check.name()));
                continue;
            }
        };
        let local = match reuse.get(&key, check.name()) {
            Some(entry) => Some((entry, CacheSource::Session)),
            None => policy
                .read
                .then(|| store.get(&key, check.name()))
                .flatten()
                .map(|entry| (entry, CacheSource::Local)),
        };
        if local.is_none() && remote.is_some() {
            ask.push((i, check.name(), key.clone()));
        }
        found[i] = Some((key, local));
    }
    if let Some(remote) = &remote {
        for (i, entry) in ask_remote(remote, &ask, policy, &store) {
            if let Some((_, slot)) = &mut found[i] {
                *slot = entry.map(|entry| (entry, CacheSource::Remote));
            }
        }
    }
    let misses = mark(plan, found, remote.as_ref());
    Session {
        worktree: facts.worktree.to_path_buf(),
        store: Some((store, dir)),
        remote_write: remote.is_some() && remote_writable(facts.config),
        remote,
        misses,
        policy,
        commit: facts.git.and_then(|(_, status)| status.commit.clone()),
    }
}

/// Per check of a plan: its key, and its entry and where it was found.
type Found = Option<(String, Option<(Entry, CacheSource)>)>;

/// Marks each check of `plan` with what was `found` for it: a hit, or a
/// miss (with the remote's failure, when it failed). The keys of the
/// misses, by plan index.
fn mark(
    plan: &mut Plan<'_>,
    mut found: Vec<Found>,
    remote: Option<&Remote>,
) -> Vec<Option<String>> {
    let mut misses = vec![None; plan.checks.len()];
    for (i, check) in plan.checks.iter_mut().enumerate() {
        let Some((key, found)) = found[i].take() else {
            continue;
        };
        match found {
            Some((entry, source)) => check.hit = Some(Box::new(hit(entry, &key, source))),
            None => {
                check.cache = CacheUse {
                    status: CacheStatus::Miss,
                    key: Some(key.clone()),
                    // It missed locally and the remote was not asked, or
                    // failed when asked: the evidence says so.
                    remote_error: remote.and_then(Remote::error),
                    ..CacheUse::default()
                };
                misses[i] = Some(key);
            }
        }
    }
    misses
}

/// How many lookups are asked of the remote at once: each waits on the
/// network, not on a CPU, and each holds a connection of its own.
const REMOTE_AT_ONCE: usize = 8;

/// The remote's entry for each of `ask` (the plan index, the check's name,
/// its key), asked at once by up to [`REMOTE_AT_ONCE`] threads within the
/// remote's one deadline; each found is kept in the local store too when
/// the policy writes (the next run on this machine need not ask).
fn ask_remote(
    remote: &Remote,
    ask: &[(usize, &str, String)],
    policy: Policy,
    store: &Store,
) -> Vec<(usize, Option<Entry>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut got = Vec::new();
        loop {
            let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((i, name, key)) = ask.get(n) else {
                return got;
            };
            let entry = remote.get(key, name);
            if let Some(entry) = &entry
                && policy.write
            {
                let _ = store.put(entry);
            }
            got.push((*i, entry));
        }
    };
    let threads = ask.len().min(REMOTE_AT_ONCE);
    if threads <= 1 {
        return work();
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut got = work();
        for worker in workers {
            got.extend(
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
        }
        got
    })
}

/// A stored entry as this run's evidence entry: the stored record, with
/// the `cache` field of a hit; it did not start (no duration, start or
/// attempt in this run).
fn hit(entry: Entry, key: &str, source: CacheSource) -> Cached {
    let Entry {
        stored_at,
        stored_by,
        mut check,
        diagnostics,
        ..
    } = entry;
    check.cache = CacheUse {
        status: CacheStatus::Hit,
        key: Some(key.to_string()),
        source: Some(source),
        stored_at: Some(stored_at),
        stored_by: Some(stored_by),
        duration_ms: Some(check.duration_ms),
        remote_error: None,
    };
    check.duration_ms = 0;
    check.started_ms = None;
    check.attempts = 0;
    check.attempt_log = Vec::new();
    check.leaked = Vec::new();
    Cached {
        record: check,
        diagnostics,
    }
}

/// Stores the passes of the run's missed checks (locally, and in the
/// remote when this run may write it), unless the run was interrupted or
/// found the worktree modified; then prunes the store when due. Called
/// before the evidence is delivered: a check whose remote write failed
/// (or was not tried, the remote set aside) gets `cache.remote_error`.
pub(crate) fn finish(session: &Session, evidence: &mut Evidence) {
    let Some((store, dir)) = &session.store else {
        return;
    };
    if !session.policy.write
        || evidence.interrupted()
        || !evidence.contracts.read_only.modified.is_empty()
        || evidence.contracts.read_only.error.is_some()
    {
        return;
    }
    // Looked at again: a check may have made the folder a link into the
    // worktree since the run began.
    if place::inside(dir, &session.worktree) {
        eprintln!("run-check: cache: {}", inside_worktree(dir));
        return;
    }
    let stored_at = crate::time::timestamp();
    let remote = session.remote.as_ref().filter(|_| session.remote_write);
    if let Some(remote) = remote {
        remote.phase();
    }
    let mut wrote = false;
    let mut first_diagnostic = 0;
    for (check, key) in evidence.checks.iter_mut().zip(&session.misses) {
        let count = check.diagnostics_count;
        let diagnostics = evidence
            .diagnostics
            .get(first_diagnostic..first_diagnostic + count)
            .unwrap_or_default();
        first_diagnostic += count;
        let Some(key) = key else { continue };
        if !storable(check) {
            continue;
        }
        let Ok((blob, digest)) =
            store::blob_of(&entry(session, check, key, &stored_at, diagnostics))
        else {
            continue;
        };
        // A store that cannot be written is a cache that does not fill,
        // never a failed run.
        if store.put_blob(key, &blob, &digest).is_ok() {
            wrote = true;
        }
        if let Some(remote) = remote
            && !remote.put(key, &blob, &digest)
            && check.cache.remote_error.is_none()
        {
            check.cache.remote_error = remote.error();
        }
    }
    if wrote {
        store.maybe_prune();
    }
}

/// The stored entry of `check`'s pass under `key`: its evidence entry
/// without the run's `cache` field, and its diagnostics without `new`.
fn entry(
    session: &Session,
    check: &CheckRecord,
    key: &str,
    stored_at: &str,
    diagnostics: &[Diagnostic],
) -> Entry {
    entry_of(check, key, stored_at, session.commit.clone(), diagnostics)
}

/// [`entry`] of a run at `commit`.
fn entry_of(
    check: &CheckRecord,
    key: &str,
    stored_at: &str,
    commit: Option<String>,
    diagnostics: &[Diagnostic],
) -> Entry {
    let mut record = check.clone();
    record.cache = CacheUse::default();
    Entry {
        format: 1,
        key: key.to_string(),
        stored_at: stored_at.to_string(),
        stored_by: StoredBy { commit },
        check: record,
        diagnostics: diagnostics
            .iter()
            .map(|d| Diagnostic {
                new: None,
                ..d.clone()
            })
            .collect(),
    }
}

/// The warning of a store folder inside the worktree.
fn inside_worktree(dir: &std::path::Path) -> String {
    format!(
        "the store `{}` is inside the worktree (its links resolved): nothing is cached",
        dir.display()
    )
}

/// Only a clean pass is stored: not a retried (flaky) one, not one that
/// passed because `--baseline` knew its diagnostics.
fn storable(check: &CheckRecord) -> bool {
    check.status == Status::Pass
        && !check.timed_out
        && !check.flaky
        && check.baseline_suppressed == 0
        && check.attempts == 1
        && check.error.is_none()
}

/// The store a config names (`cache stats`, `cache clean`).
pub(crate) fn store_of(config: Option<&Config>) -> Option<(Store, PathBuf)> {
    let dir = place::store_dir(config.and_then(|c| c.cache.dir.as_deref()))?;
    Some((Store::at(&dir), dir))
}
