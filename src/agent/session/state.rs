//! What a session keeps between hook calls: `state.json` ([`State`]), the
//! answer of the last gated stop ([`Answered`]), and the folders of the
//! sessions kept under `<git-dir>/run-check/agent/`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::protocol::{Agent, Reply};
use crate::error::Error;

/// The session state's format.
pub(super) const STATE_VERSION: u32 = 1;

/// What `state.json` keeps between hook calls.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct State {
    pub(super) version: u32,
    /// The agent that started the session.
    pub(super) agent: String,
    /// The commit `HEAD` named at session start (`None`: no commit yet).
    pub(super) base: Option<String>,
    /// sha256 of `baseline.json` as written at session start.
    pub(super) baseline_sha256: Option<String>,
    /// Stops gated so far (the last round file is `round-<rounds>.json`).
    pub(super) rounds: u32,
    /// The round the judge's history starts at (its iteration 1).
    pub(super) window_start: u32,
    /// Consecutive blocked stops.
    pub(super) blocks: u32,
    /// The answer of the last gated stop, for a second hook of the same
    /// stop (see [`Answered`]).
    #[serde(default)]
    pub(super) answered: Option<Answered>,
    /// Consecutive stops whose gate died (killed by a signal run-check did
    /// not send, or no evidence): the first blocks, the second lets go.
    #[serde(default)]
    pub(super) died: u32,
}

/// The answer of the last gated stop. GitHub Copilot CLI runs the hooks of
/// `.github/hooks/*.json` and those of `.claude/settings.json` alike, so a
/// repository with both installed has two hooks per stop, one of each
/// agent's name, with the same session id: the second one answers this,
/// in its own agent's format, instead of running the gate again.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Answered {
    /// The agent name of the hook that gated the stop.
    pub(super) agent: String,
    /// The round it gated.
    pub(super) round: u32,
    /// When (seconds since the Unix epoch).
    pub(super) at: u64,
    /// A hook of another agent has answered it too: the next stop gates.
    pub(super) replayed: bool,
    /// What the answer was.
    pub(super) kind: Kind,
    /// The block's reason or the release's message.
    pub(super) text: Option<String>,
    /// The block's note for the user.
    pub(super) notice: Option<String>,
}

/// The kind of a recorded answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Kind {
    Allow,
    Block,
    Release,
}

/// How long after a gated stop a hook of another agent name counts as the
/// same stop's second hook. Copilot runs them one after the other (or the
/// second waits on the session's lock), so the second starts within
/// seconds of the answer; a stop of a later turn comes after the model
/// has worked on a block, or after a user's prompt.
pub(super) const REPLAY_SECONDS: u64 = 60;

impl Answered {
    pub(super) fn new(agent: Agent, round: u32, reply: &Reply) -> Answered {
        let (kind, text, notice) = match reply {
            Reply::Allow => (Kind::Allow, None, None),
            Reply::Block { reason, notice } => (Kind::Block, Some(reason.clone()), notice.clone()),
            Reply::Release { message } => (Kind::Release, Some(message.clone()), None),
        };
        Answered {
            agent: agent.name().into(),
            round,
            at: now(),
            replayed: false,
            kind,
            text,
            notice,
        }
    }

    pub(super) fn reply(&self) -> Reply {
        let text = self.text.clone().unwrap_or_default();
        match self.kind {
            Kind::Block => Reply::Block {
                reason: text,
                notice: self.notice.clone(),
            },
            Kind::Release => Reply::Release { message: text },
            Kind::Allow => Reply::Allow,
        }
    }
}

pub(super) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Sessions kept under `<git-dir>/run-check/agent/` besides the one
/// starting: the most recently active ones.
const KEEP_SESSIONS: usize = 20;

/// A session idle this long (no hook call) is removed at the next session
/// start, whatever the count.
const SESSION_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 60 * 60);

/// Bounds the session folders in `sessions` when `current` starts: those
/// idle for longer than [`SESSION_MAX_AGE`] go, and of the rest only the
/// [`KEEP_SESSIONS`] most recently active stay. A session's activity is its
/// `state.json`'s modification time (every hook call that gates writes
/// it). A session whose lock is held (a hook of it is running) is never
/// removed, nor is anything in `sessions` that is not a folder. Best
/// effort: what cannot be read or removed stays. The names of the
/// sessions removed.
pub(super) fn prune(sessions: &Path, current: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(sessions) else {
        return removed;
    };
    let now = std::time::SystemTime::now();
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        // Not followed: a link here is not a session run-check made.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || path == current {
            continue;
        }
        let active = path
            .join("state.json")
            .metadata()
            .or_else(|_| path.metadata())
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        found.push((active, path));
    }
    found.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    for (index, (active, path)) in found.into_iter().enumerate() {
        let old = now
            .duration_since(active)
            .is_ok_and(|idle| idle > SESSION_MAX_AGE);
        if (old || index >= KEEP_SESSIONS)
            && !in_use(&path)
            && std::fs::remove_dir_all(&path).is_ok()
        {
            removed.extend(path.file_name().and_then(|n| n.to_str()).map(String::from));
        }
    }
    removed
}

/// A hook of the session in `dir` holds its lock now.
fn in_use(dir: &Path) -> bool {
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("lock"))
    else {
        return false;
    };
    !matches!(file.try_lock(), Ok(()))
}

/// sha256 of `bytes`, hex.
pub(super) fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    crate::digest::hex(&Sha256::digest(bytes))
}

/// sha256 of a file, hex; `None` when it cannot be read.
pub(super) fn sha256_of(path: &Path) -> Option<String> {
    let bytes = crate::bounded::read_regular(path, crate::bounded::JSON).ok()?;
    Some(sha256(&bytes))
}

/// Writes `bytes` to `path` atomically: whatever is at `path` (a FIFO, a
/// link a check put there) is replaced, never opened.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::output::replace(path, bytes).map_err(|err| err.to_string())
}

/// The evidence of the last round of the repository's most recently active
/// agent session (`agent feedback` without an argument).
pub(crate) fn latest_round(root: &Path) -> Result<PathBuf, Error> {
    let git_dir = crate::git::ask(root, &["rev-parse", "--absolute-git-dir"])
        .map_err(|why| Error::Usage(format!("no EVIDENCE given and no repository here ({why})")))?;
    let sessions = Path::new(&git_dir).join("run-check").join("agent");
    let mut latest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
        let state = entry.path().join("state.json");
        let Ok(bytes) = crate::bounded::read_regular(&state, crate::bounded::SESSION) else {
            continue;
        };
        let Ok(parsed) = serde_json::from_slice::<State>(&bytes) else {
            continue;
        };
        let round = entry.path().join(format!("round-{}.json", parsed.rounds));
        if let Ok(modified) = std::fs::symlink_metadata(&round).and_then(|m| {
            if m.file_type().is_file() {
                m.modified()
            } else {
                Err(std::io::ErrorKind::InvalidData.into())
            }
        }) && latest.as_ref().is_none_or(|(t, _)| modified > *t)
        {
            latest = Some((modified, round));
        }
    }
    latest.map(|(_, path)| path).ok_or_else(|| {
        Error::Usage(format!(
            "no EVIDENCE given and no agent session has a round in {}",
            sessions.display()
        ))
    })
}
