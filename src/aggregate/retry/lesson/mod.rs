//! The lesson of a failure point (docs/retry.md#lessons): once a point has
//! failed twice (`Point::lesson_due`), `record --lessons DIR` writes
//! `DIR/YYYY-MM-DD_<task>-<phase>-<subagent>.md` from the evidence, with
//! `symptom` and `evidence` filled in and `root_cause`, `fix` and
//! `prevention` left as headings to fill.
//!
//! - The file name keeps `[A-Za-z0-9._-]` of the task id and the subagent
//!   (at most 64 characters of each) and writes `_` for anything else, so
//!   a task id of `../../x` or `C:\x` names a file inside DIR and never a
//!   path out of it, on any platform. The name always starts with the date,
//!   so it is never `.`, `..`, hidden or a Windows device name.
//! - The first line names the point exactly (`# Lesson: task "T-1", phase
//!   verify, subagent "impl"`, quoted as Rust quotes a string). A file of
//!   the name that starts with this line is the point's lesson and is kept
//!   as it is, filled in or not; a file of the name that belongs to another
//!   point (two ids that map to one name) is left alone too, and the
//!   lesson goes to `NAME_2.md`, `NAME_3.md`, ...
//! - A lesson is created atomically (a temporary file renamed into place
//!   only where nothing is), so a reader never sees half of one and a file
//!   that appeared meanwhile is never replaced.
//! - Everything taken from the evidence is shown as every human report
//!   shows it (`sanitize::for_display`: no terminal escapes, control
//!   characters visible) and on one line, so a check's output cannot add a
//!   heading. Nothing but the evidence summary, the state's counts and the
//!   first diagnostics of the failing checks is written: no excerpts, no
//!   environment.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::state::{Decision, EvidenceSummary, Outcome, Phase, Point};
use crate::error::Error;
use crate::sanitize::one_line;
use run_check_documents::evidence::{Diagnostic, Evidence};

/// Diagnostics a lesson lists at most.
pub(crate) const MAX_DIAGNOSTICS: usize = 5;
/// Characters of a diagnostic message shown at most.
const MAX_MESSAGE_CHARS: usize = 300;
/// Characters of the banner shown at most.
const MAX_BANNER_CHARS: usize = 1000;
/// Names of failed (and of errored) checks listed at most.
const MAX_CHECK_NAMES: usize = 20;
/// Characters of the task id and of the subagent kept in a file name.
const MAX_NAME_CHARS: usize = 64;
/// Files of one name tried at most: `NAME.md`, `NAME_2.md`, ...
const MAX_FILES_PER_NAME: u32 = 100;
/// Bytes of an existing file read at most to find its first line.
const MAX_TITLE_BYTES: u64 = 4096;

/// The diagnostics a lesson shows of one evidence document: the first
/// [`MAX_DIAGNOSTICS`] of its failing checks (and those not of a check,
/// such as `run-check`'s read-only findings), and how many there were.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Diagnostics {
    pub(crate) first: Vec<Diagnostic>,
    pub(crate) total: usize,
}

impl Diagnostics {
    pub(crate) fn of(evidence: &Evidence) -> Diagnostics {
        let not_failing: HashSet<&str> = evidence
            .checks
            .iter()
            .filter(|c| !c.status.is_failure())
            .map(|c| c.name.as_str())
            .collect();
        let mut shown = evidence
            .diagnostics
            .iter()
            .filter(|d| !not_failing.contains(d.check.as_str()) && d.new != Some(false));
        let first: Vec<Diagnostic> = shown.by_ref().take(MAX_DIAGNOSTICS).cloned().collect();
        let total = first.len() + shown.count();
        Diagnostics { first, total }
    }
}

/// The lesson's file name for the `n`th file (from 1) of the point `key`,
/// recorded on `date` (`YYYY-MM-DD`).
pub(crate) fn file_name(
    date: &str,
    (task_id, phase, subagent): (&str, Phase, &str),
    n: u32,
) -> String {
    let suffix = if n > 1 {
        format!("_{n}")
    } else {
        String::new()
    };
    format!(
        "{date}_{}-{}-{}{suffix}.md",
        file_part(task_id),
        phase.as_str(),
        file_part(subagent)
    )
}

/// `text` as part of a file name: its first [`MAX_NAME_CHARS`] characters,
/// each outside `[A-Za-z0-9._-]` written `_`.
fn file_part(text: &str) -> String {
    text.chars()
        .take(MAX_NAME_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The first line of a lesson: the point, exactly.
fn title((task_id, phase, subagent): (&str, Phase, &str)) -> String {
    format!(
        "# Lesson: task {task_id:?}, phase {}, subagent {subagent:?}",
        phase.as_str()
    )
}

/// The lesson of `point` after a record at `recorded_at` that returned
/// `decision`; `diagnostics` are those of the evidence just recorded.
///
/// A point that passed is described by its last failed attempt (the state
/// keeps its summary but not its diagnostics).
pub(crate) fn render(
    point: &Point,
    decision: Decision,
    recorded_at: &str,
    diagnostics: &Diagnostics,
) -> String {
    let passed = point.last_evidence.outcome == Outcome::Pass;
    let failed: &EvidenceSummary = if passed {
        point
            .attempts
            .iter()
            .rev()
            .map(|a| &a.evidence)
            .find(|e| e.outcome != Outcome::Pass)
            .unwrap_or(&point.last_evidence)
    } else {
        &point.last_evidence
    };
    let attempts = crate::output::plural(point.retry_count, "failed attempt");
    let mut out = title(point.key());
    out.push_str("\n\n");
    let when = if passed {
        format!("when the point passed after {attempts}")
    } else {
        format!("after {attempts}")
    };
    let _ = writeln!(
        out,
        "Written by `run-check retry record` at {recorded_at}, {when} (decision {}, max_retries {}).",
        decision.as_str(),
        point.max_retries
    );
    if passed {
        out.push_str("The symptom and the evidence are the last failed attempt's.\n");
    }
    let banner = one_line(&failed.banner, MAX_BANNER_CHARS);
    let _ = writeln!(out, "\n## symptom\n\n{banner}\n");
    for (what, names) in [
        ("failed checks", &failed.failed_checks),
        ("errored checks", &failed.errored_checks),
    ] {
        if names.is_empty() {
            continue;
        }
        let mut list = one_line(
            &names[..names.len().min(MAX_CHECK_NAMES)].join(", "),
            usize::MAX,
        );
        if names.len() > MAX_CHECK_NAMES {
            let _ = write!(list, " and {} more", names.len() - MAX_CHECK_NAMES);
        }
        let _ = writeln!(out, "- {what}: {list}");
    }
    out.push_str("\n## evidence\n\n");
    let _ = writeln!(out, "- path: {}", one_line(&failed.path, usize::MAX));
    let _ = writeln!(
        out,
        "- exit code: {} ({})",
        failed.exit_code,
        failed.outcome.as_str()
    );
    let _ = writeln!(
        out,
        "- checks ran at: {}",
        one_line(&failed.timestamp, usize::MAX)
    );
    if passed {
        out.push_str(
            "- diagnostics: not kept by the retry state; see the evidence file, \
             unless it was written over since\n",
        );
        let _ = writeln!(
            out,
            "- passing evidence: {}",
            one_line(&point.last_evidence.path, usize::MAX)
        );
    } else if diagnostics.first.is_empty() {
        out.push_str("- diagnostics: none\n");
    } else {
        let _ = writeln!(
            out,
            "- diagnostics (first {} of {}):",
            diagnostics.first.len(),
            diagnostics.total
        );
        for d in &diagnostics.first {
            let _ = writeln!(out, "  - {}", diagnostic_line(d));
        }
    }
    out.push_str("\n## root_cause\n\n## fix\n\n## prevention\n");
    // Once more as a whole, as every human report.
    crate::sanitize::for_display(&out).into_owned()
}

/// `file:line:col: message (severity, check, rule)`.
fn diagnostic_line(d: &Diagnostic) -> String {
    let mut location = d.file.clone().unwrap_or_default();
    if let Some(line) = d.line {
        let _ = write!(location, ":{line}");
        if let Some(column) = d.column {
            let _ = write!(location, ":{column}");
        }
    }
    let message = one_line(&d.message, MAX_MESSAGE_CHARS);
    let mut context = vec![d.severity.to_string(), d.check.clone()];
    context.extend(d.rule.clone());
    let context = one_line(&context.join(", "), usize::MAX);
    if location.is_empty() {
        format!("{message} ({context})")
    } else {
        format!("{}: {message} ({context})", one_line(&location, usize::MAX))
    }
}

/// Who holds a lesson's file name.
#[derive(Debug, PartialEq, Eq)]
enum Holder {
    /// Nothing is there.
    Nobody,
    /// The lesson of this point.
    This,
    /// Anything else: another point's lesson, a file of the user's, a
    /// symlink, a directory.
    Other,
}

/// Writes `text` (a [`render`]ed lesson of `key`) into `dir` (created with
/// its parents when missing) and returns the lesson's path: the first of
/// `NAME.md`, `NAME_2.md`, ... that is free, created atomically, or that
/// already is this point's lesson, kept as it is. Never replaces a file.
pub(crate) fn write(
    dir: &Path,
    date: &str,
    key: (&str, Phase, &str),
    text: &str,
) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|err| Error::io("create the lessons directory", dir, err))?;
    let title = text.lines().next().unwrap_or_default();
    for n in 1..=MAX_FILES_PER_NAME {
        let path = dir.join(file_name(date, key, n));
        match holder(&path, title)? {
            Holder::This => return Ok(path),
            Holder::Other => continue,
            Holder::Nobody => {}
        }
        match crate::output::create_new(&path, text.as_bytes()) {
            Ok(()) => return Ok(path),
            // Created meanwhile (by a record on another state file): it
            // may be this point's lesson.
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
                if holder(&path, title)? == Holder::This {
                    return Ok(path);
                }
            }
            Err(err) => return Err(err),
        }
    }
    Err(Error::Usage(format!(
        "--lessons `{}`: {MAX_FILES_PER_NAME} files named like `{}` are there already, \
         none the lesson of task {:?}, phase {}, subagent {:?}",
        dir.display(),
        file_name(date, key, 1),
        key.0,
        key.1.as_str(),
        key.2
    )))
}

/// Who holds `path`: this point's lesson when it is a regular file whose
/// first line is `title`.
fn holder(path: &Path, title: &str) -> Result<Holder, Error> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Holder::Nobody),
        Err(err) => Err(Error::io("look at", path, err)),
        Ok(meta) if meta.is_file() && first_line(path).as_deref() == Some(title) => {
            Ok(Holder::This)
        }
        Ok(_) => Ok(Holder::Other),
    }
}

/// The first line of the regular file at `path` (without following a
/// symlink, nor blocking on a FIFO swapped in); `None` when it cannot be
/// read or its first line is longer than [`MAX_TITLE_BYTES`].
fn first_line(path: &Path) -> Option<String> {
    let (file, _) = crate::paths::open_regular(path)?;
    let mut head = Vec::new();
    file.take(MAX_TITLE_BYTES).read_to_end(&mut head).ok()?;
    let end = memchr::memchr(b'\n', &head)?;
    // A lesson edited on Windows may end its lines with CRLF.
    let line = head[..end].strip_suffix(b"\r").unwrap_or(&head[..end]);
    String::from_utf8(line.to_vec()).ok()
}

#[cfg(test)]
mod tests;
