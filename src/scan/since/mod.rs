//! What a scan compares with the base revision (docs/diagnostics.md#what-the-change-adds):
//! the change under test cannot excuse itself.
//!
//! - A `run-check: allow` marker silences its line's findings only when the
//!   line is the base's own marker line, where it stood: a line diff of the
//!   file with its text at the base (`align.rs`, lines compared trimmed)
//!   keeps it, and it held the same marker there. A re-indented marker
//!   line, or one whose neighbours changed, is old; a marker line moved to
//!   another place (above another test), a copy of one, a line edited to
//!   hold a secret, a marker added to an old line and every marker of a
//!   file that is new (or renamed: the file is compared by its path) are
//!   new. A file unchanged since the base has only
//!   old markers, and no git process is started for it. In strict mode a new
//!   marker silences nothing: its findings stand and are counted in
//!   `allowed_new`; in fast mode (a developer's loop, and the `pre-commit`
//!   hook) it silences them, and they are counted in both `allowed` and
//!   `allowed_new`.
//! - Every file the scan did not read is listed with its reason and whether
//!   it changed since the base (a link: the link, or the file it points to
//!   inside the worktree): changed ones first, at most [`MAX_SKIPPED`].
//!
//! The base is the run's (`--changed-since`, else the task's `base`, else
//! `HEAD`), asked through [`Base`], which the run implements with its own
//! change set (`run/changes.rs`), so "changed" means here what it means for
//! `contracts.gate`. Without one (outside git) every marker silences and
//! `changed` is unknown (`null`). When git cannot answer, every marker of
//! the files it could not compare is new and every skipped file changed:
//! the scan errs towards reporting.

mod align;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::rules;
use crate::parse::Diagnostic;
use run_check_documents::evidence::DiagSeverity;

/// Entries of `data.skipped` kept; `data.skipped_total` counts them all.
pub(crate) const MAX_SKIPPED: usize = 100;

/// The base revision, as the run knows it.
pub(crate) trait Base: Sync {
    /// Which of `files` (worktree-relative, `/` separators) differ from the
    /// base: committed, staged, unstaged or untracked.
    fn changed(&self, files: &[String]) -> Result<HashSet<String>, String>;

    /// The contents at the base of those of `files` that were regular files
    /// of at most `MAX_BASE_BYTES` there (a file absent from the map had no
    /// marker line to compare with).
    fn contents(&self, files: &[String]) -> Result<HashMap<String, Vec<u8>>, String>;
}

/// How a scan weighs the change: against which base, in which mode.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    /// `None` outside git: no base to compare with.
    pub(crate) base: Option<&'a dyn Base>,
    /// Strict mode: a new marker silences nothing.
    pub(crate) strict: bool,
}

/// Why a file was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reason {
    /// A symlink to what the scan cannot read: a file outside the worktree
    /// (or inside its git directory), a directory, or nothing.
    LinkOutsidePaths,
    /// A FIFO, socket or device.
    NotAFile,
    /// It could not be opened or read.
    Unreadable,
}

impl Reason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Reason::LinkOutsidePaths => "link-outside-paths",
            Reason::NotAFile => "not-a-file",
            Reason::Unreadable => "unreadable",
        }
    }
}

/// A file the scan did not read (`data.skipped`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    /// Worktree-relative, with tokens masked (`rules::redact_path`).
    pub(crate) file: String,
    pub(crate) reason: Reason,
    /// Whether it changed since the base; `None` without one.
    pub(crate) changed: Option<bool>,
}

/// A file not read, as the walk found it.
pub(super) struct NotRead {
    /// Worktree-relative, as on disk.
    pub(super) rel: String,
    pub(super) reason: Reason,
    /// A link's target, worktree-relative, when it lies inside.
    pub(super) target: Option<String>,
}

/// A file with findings on lines that hold a marker.
pub(super) struct Marked {
    /// Worktree-relative, as on disk.
    rel: String,
    /// Where it is read again when it changed since the base (its lines
    /// aligned with the base's).
    path: PathBuf,
    /// In line order.
    lines: Vec<MarkerLine>,
}

/// One line with a marker and the findings it would silence.
struct MarkerLine {
    /// Its 1-based number.
    line: u64,
    /// The line's text, trimmed: what is compared with the base.
    key: String,
    found: Vec<Diagnostic>,
}

impl Marked {
    /// A file `rel`, at `path`, with no marked line yet.
    pub(super) fn new(rel: String, path: PathBuf) -> Marked {
        Marked {
            rel,
            path,
            lines: Vec::new(),
        }
    }

    /// Adds the findings `hits` (line, finding) of a piece of the file
    /// whose text is `text` and whose first line is `first_line`, grouped
    /// by line with each line's text.
    pub(super) fn add(&mut self, text: &str, first_line: u64, mut hits: Vec<(u64, Diagnostic)>) {
        hits.sort_by_key(|(line, _)| *line);
        let start = self.lines.len();
        let mut texts = text.split('\n').enumerate();
        let mut last = 0u64;
        for (line, found) in hits {
            if line == last
                && self.lines.len() > start
                && let Some(current) = self.lines.last_mut()
            {
                current.found.push(found);
                continue;
            }
            let key = texts
                .find(|(i, _)| *i as u64 + first_line == line)
                .map_or("", |(_, text)| text);
            self.lines.push(MarkerLine {
                line,
                key: key.trim().to_string(),
                found: vec![found],
            });
            last = line;
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// What the comparison with the base decided.
#[derive(Default)]
pub(super) struct Settled {
    /// Findings silenced.
    pub(super) allowed: u64,
    /// Findings on a line whose marker is new.
    pub(super) allowed_new: u64,
    /// Findings a new marker does not silence (strict mode).
    pub(super) standing: Vec<Diagnostic>,
    /// Changed first, then by file; at most [`MAX_SKIPPED`].
    pub(super) skipped: Vec<Skipped>,
    pub(super) skipped_total: u64,
}

/// Weighs the walk's marked files and files not read against the base.
pub(super) fn settle(marked: Vec<Marked>, not_read: Vec<NotRead>, context: Context<'_>) -> Settled {
    let mut settled = Settled {
        skipped_total: not_read.len() as u64,
        ..Settled::default()
    };
    let Some(base) = context.base else {
        settled.allowed = marked.iter().map(Marked::count).sum();
        settled.skipped = listed(not_read, |_| None);
        return settled;
    };
    let mut ask: Vec<String> = marked.iter().map(|m| m.rel.clone()).collect();
    for file in &not_read {
        ask.push(file.rel.clone());
        ask.extend(file.target.clone());
    }
    ask.sort();
    ask.dedup();
    let changed = if ask.is_empty() {
        Ok(HashSet::new())
    } else {
        base.changed(&ask)
    };
    let is_changed = |rel: &str| changed.as_ref().map_or(true, |set| set.contains(rel));

    let compare: Vec<String> = marked
        .iter()
        .filter(|m| is_changed(&m.rel))
        .map(|m| m.rel.clone())
        .collect();
    let contents = if compare.is_empty() {
        Ok(HashMap::new())
    } else {
        base.contents(&compare)
    };
    for file in marked {
        let unchanged = !is_changed(&file.rel);
        let kept = match (&contents, unchanged) {
            (Ok(contents), false) => kept_markers(&file, contents.get(&file.rel)),
            _ => HashSet::new(),
        };
        for line in file.lines {
            let n = line.found.len() as u64;
            let old = unchanged || kept.contains(&line.line);
            if old {
                settled.allowed += n;
                continue;
            }
            settled.allowed_new += n;
            if context.strict {
                settled.standing.extend(line.found);
            } else {
                settled.allowed += n;
            }
        }
    }
    // A commit cannot hold a FIFO, socket or device: one in the worktree
    // is never the base's (and git, which lists none, is not asked).
    let changed_file = |file: &NotRead| {
        file.reason == Reason::NotAFile
            || is_changed(&file.rel)
            || file.target.as_deref().is_some_and(is_changed)
    };
    // A changed file no rule looked at fails the scan, in both modes.
    let unread = not_read.iter().filter(|file| changed_file(file));
    settled.standing.extend(unread.map(finding));
    settled.skipped = listed(not_read, |file| Some(changed_file(file)));
    settled
}

/// The rule of the finding that a changed file the scan could not read is.
pub(crate) const SKIPPED_RULE: &str = "scan-skipped";

/// The error-level finding of a changed file the scan could not read.
fn finding(file: &NotRead) -> Diagnostic {
    let fix = match file.reason {
        Reason::LinkOutsidePaths => "replace the link by the file it points to",
        Reason::NotAFile => "remove the FIFO, socket or device",
        Reason::Unreadable => "make it a regular file run-check can read",
    };
    Diagnostic {
        file: Some(rules::redact_path(&file.rel).into_owned()),
        severity: DiagSeverity::Error,
        rule: Some(SKIPPED_RULE.to_string()),
        message: format!(
            "not read ({}) and changed since the base: nothing checked what the change put in it",
            file.reason.as_str()
        ),
        suggestion: Some(format!(
            "{fix}, or leave it out of `scan.paths` and have a person review the change"
        )),
        ..Default::default()
    }
}

impl Marked {
    fn count(&self) -> u64 {
        self.lines.iter().map(|l| l.found.len() as u64).sum()
    }
}

/// The largest file read again to be aligned with its base (which is at
/// most `MAX_BASE_BYTES`): a larger one has only new markers.
const MAX_ALIGNED_BYTES: u64 = 16 * 1024 * 1024;

/// The numbers of `file`'s marker lines that are the base's own: kept by
/// the line diff with `base` (the file's text there) and holding the same
/// marker line there. None when the base had no such file, or the file
/// cannot be read again.
fn kept_markers(file: &Marked, base: Option<&Vec<u8>>) -> HashSet<u64> {
    let mut old = HashSet::new();
    let Some(base) = base else {
        return old;
    };
    let Some(now) = read_again(&file.path) else {
        return old;
    };
    let base_lines: Vec<&[u8]> = base.split(|&b| b == b'\n').collect();
    let base_hashes: Vec<u64> = base_lines.iter().map(|l| align::line_hash(l)).collect();
    let now_hashes: Vec<u64> = now.split(|&b| b == b'\n').map(align::line_hash).collect();
    let Some(kept) = align::kept(&base_hashes, &now_hashes) else {
        return old;
    };
    for marker in &file.lines {
        let at_base = usize::try_from(marker.line - 1)
            .ok()
            .and_then(|i| kept.get(i).copied().flatten());
        let Some(at_base) = at_base else {
            continue;
        };
        let text = String::from_utf8_lossy(base_lines[at_base]);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if text.contains(rules::ALLOW) && rules::allowed(text) && text.trim() == marker.key {
            old.insert(marker.line);
        }
    }
    old
}

/// The bytes of the regular file at `path`, at most [`MAX_ALIGNED_BYTES`].
fn read_again(path: &std::path::Path) -> Option<Vec<u8>> {
    let (file, meta) = crate::paths::open_regular(path)?;
    if meta.len() > MAX_ALIGNED_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_ALIGNED_BYTES + 1),
        &mut bytes,
    )
    .ok()?;
    (bytes.len() as u64 <= MAX_ALIGNED_BYTES).then_some(bytes)
}

/// `data.skipped`: changed files first, then by path, at most
/// [`MAX_SKIPPED`], paths masked.
fn listed(files: Vec<NotRead>, changed: impl Fn(&NotRead) -> Option<bool>) -> Vec<Skipped> {
    let mut with: Vec<(Option<bool>, NotRead)> = files
        .into_iter()
        .map(|file| (changed(&file), file))
        .collect();
    with.sort_by(|(a, x), (b, y)| (*a != Some(true), &x.rel).cmp(&(*b != Some(true), &y.rel)));
    with.truncate(MAX_SKIPPED);
    with.into_iter()
        .map(|(changed, file)| Skipped {
            file: rules::redact_path(&file.rel).into_owned(),
            reason: file.reason,
            changed,
        })
        .collect()
}

/// The scan's `data` fields of the comparison.
pub(super) fn data(
    allowed: u64,
    allowed_new: u64,
    skipped: &[Skipped],
    skipped_total: u64,
) -> Map<String, Value> {
    let skipped: Vec<Value> = skipped
        .iter()
        .map(|s| json!({ "file": s.file, "reason": s.reason.as_str(), "changed": s.changed }))
        .collect();
    Map::from_iter([
        ("allowed".to_string(), Value::from(allowed)),
        ("allowed_new".to_string(), Value::from(allowed_new)),
        ("skipped".to_string(), Value::from(skipped)),
        ("skipped_total".to_string(), Value::from(skipped_total)),
    ])
}

#[cfg(test)]
mod tests;
