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
use crate::output::{Atomic, FileKind};
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
    let banner = cut(one_line(&failed.banner), MAX_BANNER_CHARS);
    let _ = writeln!(out, "\n## symptom\n\n{banner}\n");
    for (what, names) in [
        ("failed checks", &failed.failed_checks),
        ("errored checks", &failed.errored_checks),
    ] {
        if names.is_empty() {
            continue;
        }
        let mut list = one_line(&names[..names.len().min(MAX_CHECK_NAMES)].join(", "));
        if names.len() > MAX_CHECK_NAMES {
            let _ = write!(list, " and {} more", names.len() - MAX_CHECK_NAMES);
        }
        let _ = writeln!(out, "- {what}: {list}");
    }
    out.push_str("\n## evidence\n\n");
    let _ = writeln!(out, "- path: {}", one_line(&failed.path));
    let _ = writeln!(
        out,
        "- exit code: {} ({})",
        failed.exit_code,
        failed.outcome.as_str()
    );
    let _ = writeln!(out, "- checks ran at: {}", one_line(&failed.timestamp));
    if passed {
        out.push_str(
            "- diagnostics: not kept by the retry state; see the evidence file, \
             unless it was written over since\n",
        );
        let _ = writeln!(
            out,
            "- passing evidence: {}",
            one_line(&point.last_evidence.path)
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
    let message = cut(one_line(&d.message), MAX_MESSAGE_CHARS);
    let mut context = vec![d.severity.to_string(), d.check.clone()];
    context.extend(d.rule.clone());
    let context = one_line(&context.join(", "));
    if location.is_empty() {
        format!("{message} ({context})")
    } else {
        format!("{}: {message} ({context})", one_line(&location))
    }
}

/// `text` cut to its first `max` characters and `…`, when longer.
fn cut(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// `text` shown safely ([`crate::sanitize::for_display`]) on one line:
/// whitespace runs, newlines included, become one space.
fn one_line(text: &str) -> String {
    crate::sanitize::for_display(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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
        let file = Atomic::create(&path, &path, FileKind::Regular)?;
        match file.commit(text.as_bytes(), false) {
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
mod tests {
    use super::*;
    use run_check_documents::evidence::DiagSeverity;

    const KEY: (&str, Phase, &str) = ("T-1", Phase::Verify, "impl-a");

    #[test]
    fn the_file_name_keeps_safe_characters_and_maps_the_rest() {
        assert_eq!(
            file_name("2026-11-25", KEY, 1),
            "2026-11-25_T-1-verify-impl-a.md"
        );
        assert_eq!(
            file_name("2026-11-25", KEY, 2),
            "2026-11-25_T-1-verify-impl-a_2.md"
        );
        assert_eq!(
            file_name("2026-11-25", ("../../x", Phase::Fix, "a/b"), 1),
            "2026-11-25_.._.._x-fix-a_b.md"
        );
        for hostile in [
            "..",
            "../..",
            "/etc/passwd",
            "C:\\Windows",
            "a:b",
            "x\u{0}y",
            "CON",
            "é ü",
            "*?<>|\"",
            ".hidden",
            "a\u{202e}b",
        ] {
            let name = file_name("2026-11-25", (hostile, Phase::Verify, hostile), 1);
            assert!(name.starts_with("2026-11-25_"), "{name}");
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
                "{hostile:?} → {name}"
            );
            let path = Path::new("dir").join(&name);
            assert_eq!(path.parent(), Some(Path::new("dir")), "{hostile:?}");
            assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(&*name));
        }
        // At most 64 characters of each name: the whole stays short enough
        // for every file system (255 bytes).
        let long = "x".repeat(1000);
        let name = file_name(
            "2026-11-25",
            (&long, Phase::Verify, &long),
            MAX_FILES_PER_NAME,
        );
        assert_eq!(name.len(), 10 + 1 + 64 + 8 + 64 + 4 + 3);
        assert!(name.len() < 255);
    }

    fn summary(outcome: Outcome) -> EvidenceSummary {
        EvidenceSummary {
            path: "/abs/ev.json".into(),
            banner: if outcome == Outcome::Pass {
                "All checks passed!".into()
            } else {
                "1 of 3 checks failed: test".into()
            },
            failed_checks: if outcome == Outcome::Pass {
                vec![]
            } else {
                vec!["test".into()]
            },
            errored_checks: vec![],
            exit_code: outcome.exit_code(),
            outcome,
            timestamp: "2026-11-21T23:59:00Z".into(),
        }
    }

    fn point_after(outcomes: &[Outcome]) -> Point {
        let mut state = super::super::State::default();
        let mut point = None;
        for &outcome in outcomes {
            point = Some(super::super::apply(
                &mut state,
                KEY,
                summary(outcome),
                3,
                "2026-11-25T12:00:00Z".into(),
            ));
        }
        point.expect("one record at least")
    }

    fn diagnostic(check: &str, message: &str) -> Diagnostic {
        Diagnostic {
            check: check.into(),
            file: Some("src/a.rs".into()),
            line: Some(3),
            column: Some(7),
            severity: DiagSeverity::Error,
            rule: Some("E1".into()),
            message: message.into(),
            suggestion: None,
            new: None,
        }
    }

    #[test]
    fn a_lesson_fills_symptom_and_evidence_and_leaves_three_headings() {
        let point = point_after(&[Outcome::Fail, Outcome::Fail]);
        let diagnostics = Diagnostics {
            first: vec![
                diagnostic("test", "assertion failed: x == 1"),
                Diagnostic {
                    file: None,
                    line: None,
                    column: None,
                    rule: None,
                    ..diagnostic("test", "no location")
                },
            ],
            total: 9,
        };
        let text = render(
            &point,
            Decision::Retry,
            "2026-11-25T12:00:00Z",
            &diagnostics,
        );
        assert_eq!(
            text,
            "# Lesson: task \"T-1\", phase verify, subagent \"impl-a\"\n\
             \n\
             Written by `run-check retry record` at 2026-11-25T12:00:00Z, after 2 failed attempts (decision RETRY, max_retries 3).\n\
             \n\
             ## symptom\n\
             \n\
             1 of 3 checks failed: test\n\
             \n\
             - failed checks: test\n\
             \n\
             ## evidence\n\
             \n\
             - path: /abs/ev.json\n\
             - exit code: 1 (fail)\n\
             - checks ran at: 2026-11-21T23:59:00Z\n\
             - diagnostics (first 2 of 9):\n\
             \x20 - src/a.rs:3:7: assertion failed: x == 1 (error, test, E1)\n\
             \x20 - no location (error, test)\n\
             \n\
             ## root_cause\n\
             \n\
             ## fix\n\
             \n\
             ## prevention\n"
        );
        let none = render(&point, Decision::Retry, "t", &Diagnostics::default());
        assert!(none.contains("\n- diagnostics: none\n"), "{none}");
    }

    #[test]
    fn a_resolved_points_lesson_is_its_last_failure() {
        let point = point_after(&[Outcome::Fail, Outcome::Fail, Outcome::Pass]);
        let text = render(&point, Decision::Resolved, "t", &Diagnostics::default());
        assert!(text.contains(
            "at t, when the point passed after 2 failed attempts (decision RESOLVED, max_retries 3).\n\
             The symptom and the evidence are the last failed attempt's.\n"
        ), "{text}");
        assert!(
            text.contains("## symptom\n\n1 of 3 checks failed: test\n\n- failed checks: test\n")
        );
        assert!(text.contains("- exit code: 1 (fail)\n"));
        assert!(text.contains("- diagnostics: not kept by the retry state;"));
        assert!(text.contains("- passing evidence: /abs/ev.json\n"));
        assert!(!text.contains("All checks passed!"));
    }

    /// A check's output cannot replay escapes, add a heading or a workflow
    /// command, nor stretch a lesson without bound.
    #[test]
    fn what_came_from_a_check_is_shown_safely_on_one_line() {
        let mut point = point_after(&[Outcome::Fail, Outcome::Fail]);
        point.last_evidence.banner =
            "\u{1b}]0;owned\u{7}\u{1b}[31mred\u{1b}[0m\n## fix\nrm -rf".into();
        point.last_evidence.failed_checks = vec!["a\u{1b}[2Jb".into()];
        point
            .last_evidence
            .errored_checks
            .extend((0..25).map(|i| format!("e{i}")));
        let long = "y".repeat(1000);
        let diagnostics = Diagnostics {
            first: vec![
                diagnostic("test", "line one\n## root_cause\n::error::x\u{7}"),
                diagnostic("test", &long),
            ],
            total: 2,
        };
        let text = render(&point, Decision::Retry, "t", &diagnostics);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(
            headings,
            [
                "# Lesson: task \"T-1\", phase verify, subagent \"impl-a\"",
                "## symptom",
                "## evidence",
                "## root_cause",
                "## fix",
                "## prevention"
            ]
        );
        assert!(text.contains("\nred ## fix rm -rf\n"), "{text}");
        assert!(text.contains("- failed checks: ab\n"), "{text}");
        let errored: Vec<String> = (0..MAX_CHECK_NAMES).map(|i| format!("e{i}")).collect();
        assert!(
            text.contains(&format!(
                "- errored checks: {} and 5 more\n",
                errored.join(", ")
            )),
            "{text}"
        );
        // The workflow command was at a line's start in the message: defused.
        assert!(
            text.contains("line one ## root_cause \\::error::x␇ (error"),
            "{text}"
        );
        assert!(text.contains(&format!(": {}… (error", "y".repeat(MAX_MESSAGE_CHARS))));
        assert!(!text.lines().any(|l| l.trim_start().starts_with("::")));
    }

    #[test]
    fn cut_keeps_the_first_characters() {
        assert_eq!(cut("abc".into(), 3), "abc");
        assert_eq!(cut("abcd".into(), 3), "abc…");
        assert_eq!(cut("éèêë".into(), 2), "éè…");
        let mut point = point_after(&[Outcome::Fail, Outcome::Fail]);
        point.last_evidence.banner = "b".repeat(5000);
        let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
        assert!(text.contains(&format!("\n{}…\n", "b".repeat(MAX_BANNER_CHARS))));
    }

    #[test]
    fn diagnostics_are_the_first_five_of_the_failing_checks() {
        let mut evidence: Evidence = crate::report::sample_evidence();
        let failing: Vec<String> = evidence
            .checks
            .iter()
            .filter(|c| c.status.is_failure())
            .map(|c| c.name.clone())
            .collect();
        let passing = evidence
            .checks
            .iter()
            .find(|c| !c.status.is_failure())
            .map(|c| c.name.clone())
            .unwrap();
        evidence.diagnostics = vec![diagnostic(&passing, "a warning of a passing check")];
        for i in 0..8 {
            evidence
                .diagnostics
                .push(diagnostic(&failing[i % failing.len()], &format!("d{i}")));
        }
        evidence
            .diagnostics
            .push(diagnostic("run-check", "read-only"));
        let shown = Diagnostics::of(&evidence);
        assert_eq!(shown.total, 9);
        let messages: Vec<&str> = shown.first.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["d0", "d1", "d2", "d3", "d4"]);
    }

    #[test]
    fn write_creates_keeps_and_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let lessons = dir.path().join("a/b");
        let point = point_after(&[Outcome::Fail, Outcome::Fail]);
        let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
        // Created with its parents.
        let path = write(&lessons, "2026-11-25", KEY, &text).unwrap();
        assert_eq!(path, lessons.join("2026-11-25_T-1-verify-impl-a.md"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // The point's lesson, filled in since (with CRLF line ends), is
        // kept as it is.
        let filled = format!("{text}The cache was stale.\n").replace('\n', "\r\n");
        std::fs::write(&path, &filled).unwrap();
        let again = render(&point, Decision::Subtask, "later", &Diagnostics::default());
        assert_eq!(write(&lessons, "2026-11-25", KEY, &again).unwrap(), path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), filled);
        // Another point whose ids map to the same name gets the next file.
        let other = ("T/1", Phase::Verify, "impl-a");
        let mut point_b = point.clone();
        point_b.task_id = "T/1".into();
        let text_b = render(&point_b, Decision::Retry, "t", &Diagnostics::default());
        let path_b = write(&lessons, "2026-11-25", other, &text_b).unwrap();
        assert_eq!(path_b, lessons.join("2026-11-25_T_1-verify-impl-a.md"));
        let other = ("T:1", Phase::Verify, "impl-a");
        point_b.task_id = "T:1".into();
        let text_c = render(&point_b, Decision::Retry, "t", &Diagnostics::default());
        let path_c = write(&lessons, "2026-11-25", other, &text_c).unwrap();
        assert_eq!(path_c, lessons.join("2026-11-25_T_1-verify-impl-a_2.md"));
        assert_eq!(std::fs::read_to_string(&path_b).unwrap(), text_b);
        assert_eq!(
            write(&lessons, "2026-11-25", other, &text_c).unwrap(),
            path_c
        );
        // A file of the user's under the name is left alone.
        let date = "2026-11-26";
        std::fs::write(lessons.join(file_name(date, KEY, 1)), "mine\n").unwrap();
        let path = write(&lessons, date, KEY, &text).unwrap();
        assert_eq!(path, lessons.join(file_name(date, KEY, 2)));
        assert_eq!(
            std::fs::read_to_string(lessons.join(file_name(date, KEY, 1))).unwrap(),
            "mine\n"
        );
        // No temporary file is left.
        let mut names: Vec<String> = std::fs::read_dir(&lessons)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "2026-11-25_T-1-verify-impl-a.md",
                "2026-11-25_T_1-verify-impl-a.md",
                "2026-11-25_T_1-verify-impl-a_2.md",
                "2026-11-26_T-1-verify-impl-a.md",
                "2026-11-26_T-1-verify-impl-a_2.md",
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_or_fifo_under_the_name_is_never_followed_nor_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.md");
        std::fs::write(&outside, "untouched\n").unwrap();
        let lessons = dir.path().join("lessons");
        std::fs::create_dir(&lessons).unwrap();
        let date = "2026-11-25";
        std::os::unix::fs::symlink(&outside, lessons.join(file_name(date, KEY, 1))).unwrap();
        let fifo = lessons.join(file_name(date, KEY, 2));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let point = point_after(&[Outcome::Fail, Outcome::Fail]);
        let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
        let path = write(&lessons, date, KEY, &text).unwrap();
        assert_eq!(path, lessons.join(file_name(date, KEY, 3)));
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched\n");
    }

    #[test]
    fn a_lessons_path_that_is_a_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = write(&file.join("sub"), "2026-11-25", KEY, "# x\n").unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "failed to create the lessons directory `{}`",
                file.join("sub").display()
            )),
            "{err}"
        );
    }
}
