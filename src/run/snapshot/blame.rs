//! Naming the check that wrote a path when checks overlap: by the path's
//! change time (ctime) against each check's run.
//!
//! A check's window runs from the kernel's file-stamping clock when it was
//! launched (`stat::stamp_floor`: no change made afterwards is stamped
//! earlier) to the system clock when its end was received (no change made
//! before is stamped later). A change stamped within exactly one window was
//! made while only that check ran, so it wrote the path (nothing else
//! writes the worktree during a run: run-check's own files are left out of
//! the snapshots). A change stamped within two windows, or within none, is
//! not attributed.
//!
//! The ctime is trusted only where the snapshots trust it (`stat.rs`: Linux,
//! a local file system), and not at all in a run where some check left
//! processes behind (`leaked`): such a process may have written while
//! another check ran alone.

use std::path::Path;
use std::time::SystemTime;

use super::stat::{self, Stat, Trust};

/// At most this many entries of a created folder are looked at: past that,
/// the folder is not attributed (the run has failed anyway; its diagnostic
/// should not cost seconds).
const TREE_LIMIT: usize = 10_000;

/// One check's run.
#[derive(Debug)]
struct Window {
    check: String,
    from: i128,
    to: Option<i128>,
}

/// The windows of a run's checks.
#[derive(Debug, Default)]
pub(super) struct Windows {
    runs: Vec<Window>,
    /// A check left processes behind: change times name no check.
    leaked: bool,
}

/// What a path's change times say about who wrote it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Writer<'a> {
    /// Exactly this check's run holds every change.
    One(&'a str),
    /// These checks' runs hold a change (two or more).
    Several(Vec<&'a str>),
    /// The change times cannot tell.
    Unknown,
}

impl Windows {
    /// Check `check` is launched now, after its needs `after` ended. A
    /// need that ended within the kernel's current stamping tick would
    /// share it with the launch: a change the need made last and one the
    /// check makes first could carry the same stamp, and a path only the
    /// need wrote would be blamed on both although it ended before the
    /// check began. So the launch waits for the stamping clock to pass the
    /// need's end (a tick at most, once per `needs` edge; a check without
    /// needs starts at once): the windows of a check and of what it needs
    /// never overlap.
    pub(super) fn started(&mut self, check: &str, after: &[&str]) {
        let need_ended = self
            .runs
            .iter()
            .filter(|w| after.contains(&w.check.as_str()))
            .filter_map(|w| w.to)
            .max();
        if let Some(end) = need_ended
            && stat::CHANGE_TIME
            && !self.leaked
            && stat::stamp_floor() <= end
        {
            stat::stamps_past(end);
        }
        self.runs.push(Window {
            check: check.to_string(),
            from: stat::stamp_floor(),
            to: None,
        });
    }

    /// Check `check` ended.
    pub(super) fn ended(&mut self, check: &str) {
        let now = stat::nanos(SystemTime::now());
        if let Some(window) = self
            .runs
            .iter_mut()
            .rev()
            .find(|w| w.check == check && w.to.is_none())
        {
            window.to = Some(now);
        }
    }

    /// A check left processes behind.
    pub(super) fn processes_left(&mut self) {
        self.leaked = true;
    }

    /// Who changed the path at `key` (worktree-relative, or absolute)
    /// during the run, judged by the change times found there now.
    pub(super) fn writer(&self, worktree: &Path, key: &Path) -> Writer<'_> {
        if self.leaked || self.runs.is_empty() {
            return Writer::Unknown;
        }
        let path = worktree.join(key);
        let mut trust = Trust::default();
        let Some(first) = self.runs.iter().map(|w| w.from).min() else {
            return Writer::Unknown;
        };
        let mut writers: Vec<&str> = Vec::new();
        match std::fs::symlink_metadata(&path) {
            Ok(meta) => {
                let mut stamps = Vec::new();
                if !collect(&path, &meta, &mut trust, &mut stamps) {
                    return Writer::Unknown;
                }
                let mut any = false;
                for (changed, span) in stamps {
                    // Changed before any check began: not the change found
                    // (a file only staged keeps its old ctime).
                    if changed + span < first {
                        continue;
                    }
                    let candidates = self.holding(changed, span);
                    if candidates.is_empty() {
                        return Writer::Unknown;
                    }
                    any = true;
                    add(candidates, &mut writers);
                }
                if !any {
                    return Writer::Unknown;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Deleted: removing an entry stamps its folder, and later
                // changes there only stamp it later, so the deletion came
                // no later than the change time of the nearest folder
                // still there. Every check launched by then may have made it.
                let Some((changed, span)) = path
                    .ancestors()
                    .skip(1)
                    .find_map(|dir| stamp(dir, &std::fs::symlink_metadata(dir).ok()?, &mut trust))
                else {
                    return Writer::Unknown;
                };
                let candidates: Vec<&Window> = self
                    .runs
                    .iter()
                    .filter(|w| w.from <= changed + span)
                    .collect();
                add(candidates, &mut writers);
            }
            Err(_) => return Writer::Unknown,
        }
        match writers.as_slice() {
            [] => Writer::Unknown,
            [one] => Writer::One(one),
            _ => Writer::Several(writers),
        }
    }

    /// The windows that hold a change stamped `changed` on a clock that
    /// keeps `span` nanoseconds (the change came within `[changed,
    /// changed + span]`).
    fn holding(&self, changed: i128, span: i128) -> Vec<&Window> {
        self.runs
            .iter()
            .filter(|w| w.from <= changed + span && w.to.is_none_or(|to| changed <= to))
            .collect()
    }
}

/// The change time of the path at `path` and the span its clock keeps
/// (a second on a file system with whole seconds), when it can be trusted.
fn stamp(path: &Path, meta: &std::fs::Metadata, trust: &mut Trust) -> Option<(i128, i128)> {
    if !stat::CHANGE_TIME {
        return None;
    }
    let stat = Stat::of(meta);
    if !trust.of(&stat, path) {
        return None;
    }
    let span = if stat.fine() { 0 } else { 1_000_000_000 };
    Some((stat.changed(), span))
}

/// The change times of the path at `path` and, for a folder, of what is
/// under it; `false` when one cannot be trusted or there are too many.
fn collect(
    path: &Path,
    meta: &std::fs::Metadata,
    trust: &mut Trust,
    stamps: &mut Vec<(i128, i128)>,
) -> bool {
    let Some(own) = stamp(path, meta, trust) else {
        return false;
    };
    stamps.push(own);
    if !meta.is_dir() {
        return true;
    }
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return false;
        };
        for entry in entries {
            let Ok(entry) = entry else { return false };
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                return false;
            };
            let Some(stamped) = stamp(&path, &meta, trust) else {
                return false;
            };
            stamps.push(stamped);
            if stamps.len() > TREE_LIMIT {
                return false;
            }
            if meta.is_dir() {
                pending.push(path);
            }
        }
    }
    true
}

/// Adds the checks of `candidates` to `writers`, each once.
fn add<'a>(candidates: Vec<&'a Window>, writers: &mut Vec<&'a str>) {
    for w in candidates {
        if !writers.contains(&w.check.as_str()) {
            writers.push(w.check.as_str());
        }
    }
}
