//! The worktree's debts (`[agent] new_only = true`; docs/agents.md,
//! "Debts"): the failures a session's stop left red that the session's
//! baseline did not excuse, kept in `<git-dir>/run-check/agent/debts.json`
//! beside the session folders, so that neither a new session id (Claude
//! Code's `/clear` and `fork`, Copilot CLI's `/clear`) nor a session
//! started again after its folder was deleted can take them into its
//! baseline. A new session's baseline is the gate's evidence at its start
//! less the debts ([`unexcused`]), so the stop's gate counts them as new.
//!
//! A debt is known as the baseline knows a diagnostic (check, rule, file,
//! message with its numbers ignored: `run::baseline`), with the number of
//! such diagnostics owed; a failed check that no new diagnostic locates
//! (a test runner's summary line, another exit code) is owed whole: the
//! new baseline shows that check as not failing, so nothing of its
//! failure is excused. Each gated stop replaces its session's entry with
//! what it left; a passing stop also pays the other sessions' debts: those
//! recorded before its baseline was taken (left out of it, they would have
//! failed it), and of the later ones those its evidence no longer shows
//! (one it still shows, excused by its own older baseline, stays).
//!
//! The file is read as every file under the git directory is (regular,
//! bounded) and written atomically; a debts file that is not one the hook
//! wrote (a link, a FIFO, JSON of another shape) excuses nothing: the new
//! session takes no baseline and every failure counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use run_check_documents::evidence::{Diagnostic, Evidence, Status};
use serde::{Deserialize, Serialize};

use super::state::write_atomic;
use crate::run::baseline::{Key, UNEXPLAINED};

/// The debts file, in the folder of the sessions.
const FILE: &str = "debts.json";

/// The debts file's format.
const VERSION: u32 = 1;

/// The check of the read-only verification's diagnostics: a baseline
/// never excuses them, so they are never owed.
const READ_ONLY_CHECK: &str = "run-check";

/// What `debts.json` holds.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ledger {
    version: u32,
    /// By session id: what its last gated stop left red.
    sessions: BTreeMap<String, Entry>,
}

/// What one session's last gated stop left red.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// When (milliseconds since the Unix epoch).
    at: u64,
    debts: Vec<Debt>,
}

impl Default for Ledger {
    fn default() -> Ledger {
        Ledger {
            version: VERSION,
            sessions: BTreeMap::new(),
        }
    }
}

/// One debt.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Debt {
    /// `count` diagnostics of one identity, seen at `lines`.
    Finding {
        #[serde(flatten)]
        key: Key,
        count: u32,
        #[serde(default)]
        lines: Vec<u64>,
    },
    /// A failed check, whole.
    Check { check: String },
}

/// What all the sessions owe together: each identity at the largest count
/// one session owes (two sessions that left the same failure owe it
/// once), and the checks owed whole.
#[derive(Default)]
struct Owed {
    /// The count owed, and the lines the debts were seen at.
    findings: BTreeMap<Key, (u32, BTreeSet<u64>)>,
    checks: BTreeSet<String>,
}

impl Owed {
    fn of<'a>(debts: impl IntoIterator<Item = &'a Debt>) -> Owed {
        let mut owed = Owed::default();
        for debt in debts {
            match debt {
                Debt::Finding { key, count, lines } => {
                    let at = owed.findings.entry(key.clone()).or_default();
                    at.0 = at.0.max(*count);
                    at.1.extend(lines.iter().copied());
                }
                Debt::Check { check } => {
                    owed.checks.insert(check.clone());
                }
            }
        }
        owed
    }

    fn is_empty(&self) -> bool {
        self.findings.is_empty() && self.checks.is_empty()
    }
}

/// `debts.json` in the folder of the sessions.
fn path(sessions: &Path) -> PathBuf {
    sessions.join(FILE)
}

/// The debts; none when the file does not exist; why, when it exists but
/// is not what the hook writes.
fn load(sessions: &Path) -> Result<Ledger, String> {
    let path = path(sessions);
    let bytes = match crate::bounded::read_regular(&path, crate::bounded::SESSION) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Ledger::default()),
        Err(err) => return Err(format!("the worktree's debts {}: {err}", path.display())),
    };
    match serde_json::from_slice::<Ledger>(&bytes) {
        Ok(ledger) if ledger.version == VERSION => Ok(ledger),
        Ok(ledger) => Err(format!(
            "the worktree's debts {} are of version {}, not {VERSION}",
            path.display(),
            ledger.version
        )),
        Err(err) => Err(format!(
            "the worktree's debts {} are unreadable ({err})",
            path.display()
        )),
    }
}

fn save(sessions: &Path, ledger: &Ledger) -> Result<(), String> {
    let text = serde_json::to_string_pretty(ledger).unwrap_or_default() + "\n";
    write_atomic(&path(sessions), text.as_bytes())
}

/// A new session's baseline: `evidence` (the gate's now, printed as
/// `bytes`) less what the worktree owes. Its bytes, or why the debts could
/// not be read (then the session takes no baseline).
pub(super) fn unexcused(
    sessions: &Path,
    mut evidence: Evidence,
    bytes: Vec<u8>,
) -> Result<Vec<u8>, String> {
    let owed = Owed::of(load(sessions)?.sessions.values().flat_map(|e| &e.debts));
    if owed.is_empty() {
        return Ok(bytes);
    }
    let owed_out = owed_diagnostics(&evidence.diagnostics, &owed.findings);
    let mut index = 0;
    evidence.diagnostics.retain(|_| {
        index += 1;
        !owed_out.contains(&(index - 1))
    });
    // A check that did not fail in a baseline excuses none of its failure.
    for check in &mut evidence.checks {
        if owed.checks.contains(&check.name) {
            check.exit_code = Some(0);
        }
    }
    serde_json::to_vec_pretty(&evidence)
        .map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        })
        .map_err(|err| format!("cannot write the session's baseline: {err}"))
}

/// The indices of `diagnostics` that are owed: per identity, as many as
/// are owed, those at a line a debt was seen at first (where the same
/// message is found twice, the one the session added), then the last
/// ones.
fn owed_diagnostics(
    diagnostics: &[Diagnostic],
    findings: &BTreeMap<Key, (u32, BTreeSet<u64>)>,
) -> BTreeSet<usize> {
    let mut by_key: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for (i, diagnostic) in diagnostics.iter().enumerate() {
        by_key.entry(Key::of(diagnostic)).or_default().push(i);
    }
    let mut out = BTreeSet::new();
    for (key, (count, lines)) in findings {
        let Some(found) = by_key.get(key) else {
            continue;
        };
        let mut left = *count as usize;
        let at_a_line = found
            .iter()
            .filter(|&&i| diagnostics[i].line.is_some_and(|l| lines.contains(&l)));
        let others = found.iter().rev();
        for &i in at_a_line.chain(others) {
            if left == 0 {
                break;
            }
            if out.insert(i) {
                left -= 1;
            }
        }
    }
    out
}

/// Records what the stop of session `name` left: its gate's `evidence`.
/// `started`: when the session's baseline was taken (less the debts known
/// then), `None` without one. A pass pays every debt recorded before that
/// (still there, it would have failed this stop), and of the later ones
/// those this evidence no longer shows.
pub(super) fn record(
    sessions: &Path,
    name: &str,
    evidence: &Evidence,
    started: Option<std::time::SystemTime>,
) -> Result<(), String> {
    // A debts file that is not the hook's is replaced: what it said is
    // not known, and this stop's debts must be kept.
    let mut ledger = load(sessions).unwrap_or_default();
    if evidence.summary.exit_code == 0 {
        ledger.sessions.remove(name);
        let started = started.map_or(u64::MAX, millis);
        ledger.sessions.retain(|_, entry| entry.at > started);
        let still = still_failing(evidence);
        for entry in ledger.sessions.values_mut() {
            entry.debts.retain_mut(|debt| match debt {
                Debt::Finding { key, count, .. } => {
                    *count = (*count).min(still.findings.get(key).map_or(0, |f| f.0));
                    *count > 0
                }
                Debt::Check { check } => still.checks.contains(check),
            });
        }
        ledger.sessions.retain(|_, entry| !entry.debts.is_empty());
    } else {
        let debts = left(evidence);
        if debts.is_empty() {
            ledger.sessions.remove(name);
        } else {
            let at = millis(std::time::SystemTime::now());
            ledger
                .sessions
                .insert(name.to_string(), Entry { at, debts });
        }
    }
    save(sessions, &ledger)
}

fn millis(time: std::time::SystemTime) -> u64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What a red stop's `evidence` leaves: per check that failed by its exit
/// code (a timeout or an error is never excused by a baseline, so never
/// owed), its new diagnostics by identity (all of them when the gate had
/// no baseline: none is known to be old); the check whole when none of
/// them locates its failure, or when the gate said the baseline does not
/// explain it.
fn left(evidence: &Evidence) -> Vec<Debt> {
    let mut debts = BTreeSet::new();
    for check in &evidence.checks {
        if check.status != Status::Fail || check.timed_out || check.name == READ_ONLY_CHECK {
            continue;
        }
        let new: Vec<&Diagnostic> = evidence
            .diagnostics
            .iter()
            .filter(|d| d.check == check.name && d.new != Some(false))
            .collect();
        if new.is_empty() || new.iter().any(|d| d.rule.as_deref() == Some(UNEXPLAINED)) {
            debts.insert(Debt::Check {
                check: check.name.clone(),
            });
        }
        let mut findings: BTreeMap<Key, (u32, BTreeSet<u64>)> = BTreeMap::new();
        for diagnostic in new {
            if diagnostic.rule.as_deref() != Some(UNEXPLAINED) {
                let at = findings.entry(Key::of(diagnostic)).or_default();
                at.0 += 1;
                at.1.extend(diagnostic.line);
            }
        }
        debts.extend(
            findings
                .into_iter()
                .map(|(key, (count, lines))| Debt::Finding {
                    key,
                    count,
                    lines: lines.into_iter().collect(),
                }),
        );
    }
    debts.into_iter().collect()
}

/// What a passing stop's `evidence` still fails on, excused by its
/// session's baseline: the checks that exited non-zero, and all their
/// diagnostics.
fn still_failing(evidence: &Evidence) -> Owed {
    let failing: BTreeSet<&str> = evidence
        .checks
        .iter()
        .filter(|c| c.exit_code.is_some_and(|code| code != 0))
        .map(|c| c.name.as_str())
        .collect();
    let mut owed = Owed::default();
    for diagnostic in &evidence.diagnostics {
        if failing.contains(diagnostic.check.as_str()) {
            owed.findings.entry(Key::of(diagnostic)).or_default().0 += 1;
        }
    }
    owed.checks = failing.into_iter().map(str::to_string).collect();
    owed
}

// The ledger's arithmetic on hand-made evidence; the hook's use of it is
// tested through the binary (tests/agent_debts.rs).
#[cfg(test)]
mod tests;
