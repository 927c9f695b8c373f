//! The guard's denials of one session, kept in its folder
//! (`<git-dir>/run-check/agent/<session>/guard.jsonl`, one JSON object a
//! line, the last [`KEEP`]) until the session's next stop takes them
//! ([`take`]) and lists them for the user.
//!
//! The file is a note for the user, never an input to a decision: the
//! stop hook reads it bounded, only when it is a regular file, shows it
//! as text and removes it. It is not under the session's digest chain
//! (the guard writes it between the hook's events, without the session's
//! lock), so a forged or deleted list changes only what the user is told;
//! the guard itself denies the agent's writes under `<git-dir>/run-check/`.
//!
//! Beside the guard ([`super::guard`], which appends) and the session
//! ([`super::session`], which takes) rather than in either: the guard
//! already asks the session where a pinned session's folder is.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file's name in the session folder.
pub(crate) const FILE: &str = "guard.jsonl";

/// The denials kept (the oldest go first).
const KEEP: usize = 50;

/// The denials listed for the user at a stop (the rest are counted).
const SHOWN: usize = 5;

/// The longest `what` kept: a command's words can be long.
const WHAT_CHARS: usize = 200;

/// One denial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// When (seconds since the Unix epoch).
    pub(crate) at: u64,
    /// The tool, as the agent named it.
    pub(crate) tool: String,
    /// The rule.
    pub(crate) rule: String,
    /// What the call would have done.
    pub(crate) what: String,
}

impl Entry {
    /// A denial of a call of `tool` by `rule`, which would have done
    /// `what`.
    pub(crate) fn new(tool: &str, rule: &str, what: &str) -> Entry {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Entry {
            at,
            tool: tool.chars().take(64).collect(),
            rule: rule.to_string(),
            what: what.chars().take(WHAT_CHARS).collect(),
        }
    }
}

/// Adds `entry` to the list of the session folder `dir` (created when
/// missing), atomically, under a lock of its own: an agent may run tool
/// calls, and so guards, in parallel. Not synced to the disk: the list is
/// a note for the user, and the agent's tool call waits for the guard.
pub(crate) fn append(dir: &Path, entry: &Entry) -> Result<(), String> {
    let _lock = crate::agent::lock_session_folder(dir, "guard.lock")?;
    let path = dir.join(FILE);
    let mut entries = read(&path);
    entries.push(entry.clone());
    let skip = entries.len().saturating_sub(KEEP);
    let mut text = String::new();
    for entry in &entries[skip..] {
        text.push_str(&serde_json::to_string(entry).unwrap_or_default());
        text.push('\n');
    }
    crate::output::replace_unsynced(&path, text.as_bytes()).map_err(|err| err.to_string())
}

/// The entries of `path`: none when it is missing, not a regular file or
/// too large; lines that are not entries are skipped.
fn read(path: &Path) -> Vec<Entry> {
    let Ok(bytes) = crate::bounded::read_regular(path, crate::bounded::SESSION) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The denials recorded in the session folder `dir` since the last stop,
/// as one sentence for the user; the list is removed. `None`: there were
/// none.
pub(crate) fn take(dir: &Path) -> Option<String> {
    let path = dir.join(FILE);
    let entries = read(&path);
    // Removed as the link or file it is, never followed.
    let _ = std::fs::remove_file(&path);
    if entries.is_empty() {
        return None;
    }
    let mut shown: Vec<String> = entries
        .iter()
        .take(SHOWN)
        .map(|e| format!("{} ({}: {})", e.tool, e.rule, e.what))
        .collect();
    if entries.len() > SHOWN {
        shown.push(format!("and {} more", entries.len() - SHOWN));
    }
    let text = format!(
        "run-check guard denied {} of the agent: {}",
        crate::output::plural(entries.len(), "tool call"),
        shown.join("; ")
    );
    Some(crate::sanitize::one_line(&text, usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denials_are_kept_bounded_and_taken_once() {
        let dir = tempfile::tempdir().unwrap();
        let what = "`git commit --no-verify` skips\nthe hooks";
        for _ in 0..KEEP + 3 {
            append(dir.path(), &Entry::new("Bash", "no-verify", what)).unwrap();
        }
        assert_eq!(read(&dir.path().join(FILE)).len(), KEEP);
        let note = take(dir.path()).unwrap();
        assert!(
            note.starts_with("run-check guard denied 50 tool calls"),
            "{note}"
        );
        assert!(note.contains("Bash (no-verify:"), "{note}");
        assert!(note.contains("and 45 more"), "{note}");
        assert!(!note.contains('\n'), "{note}");
        assert_eq!(take(dir.path()), None);
    }
}
