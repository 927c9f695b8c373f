//! The `pytest` parser: one diagnostic per test the short test summary
//! reports as `FAILED` or `ERROR`, with its message, file and line taken
//! from the failure section above it.
//!
//! Policy (no double counting): only the short test summary lines are
//! diagnostics.
//!
//! - `FAILED tests/test_x.py::test_add - assert 1 == 2` and
//!   `ERROR tests/test_y.py - ImportError ...` (`ERROR tests/test_y.py` for
//!   a collection error) give rule = the node id, file = its path part,
//!   severity error.
//! - The sections of `FAILURES` and `ERRORS` (`____ test_add ____`,
//!   `____ ERROR at setup of test_z ____`, `____ ERROR collecting
//!   tests/test_y.py ____`) are never diagnostics by themselves. Each keeps
//!   its location lines (`tests/test_x.py:7: AssertionError`,
//!   `tests/test_x.py:7: in test_add`) and its last run of `E   ` lines (of
//!   chained exceptions, the last is the one the summary reports). A summary
//!   line takes the section of that test (same name, a failure for `FAILED`,
//!   an error for `ERROR`): in the node id's file if one is, else one without
//!   locations (`--tb=line`), else one in other files only (an inherited
//!   test).
//! - Message: the section's `E   ` lines, joined with newlines, their common
//!   indentation removed (at most 20 lines and 4 KiB, then `…`); the summary
//!   line's text is cut to the terminal's width (80 columns when pytest's
//!   output is no terminal). Without `E   ` lines, the text after ` - `, else
//!   `failed` / `error`.
//! - Place: for Python's SyntaxError display (`File "/w/signer.py", line
//!   37`, the source, the caret, `SyntaxError: '(' was never closed`) the
//!   file and line it names, and the message is the error line alone (the
//!   evidence makes the path worktree-relative). Else the line of the
//!   section's last location in the node id's file (the frame closest to
//!   the crash still in the test's file). Else the first location in a test
//!   module (`test_*.py`, `*_test.py`) with its last line: pytest starts a
//!   test's traceback at the test function, so a test that
//!   `class TestB(TestA)` inherits from another module is placed where it is
//!   defined. Else the node id's file with no line.
//! - Without a short test summary (`-rN`) nothing is reported; with
//!   `--tb=line` (no section headers) the diagnostics have no line and the
//!   summary's messages.
//!
//! - A strict xfail that passed (`FAILED ...` in the summary) has a section
//!   of one line, `[XPASS(strict)] reason`: that line is its message.
//!
//! `PASSED`, `SKIPPED`, `XFAIL` and `XPASS` summary lines are claimed but are
//! no diagnostics, nor is the final `=== 1 failed, 2 passed in 0.12s ===`.
//! It must not take a log line for a summary line: `ERROR: connection
//! refused` or `ERROR app.db - timeout` have no node id (a path ending in
//! `.py`, or containing `::`), and the verbose progress lines
//! (`tests/test_x.py::test_add FAILED [ 50%]`) would count failures twice.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, MAX_PER_CHECK};
use run_check_documents::evidence::DiagSeverity;

/// `FAILED nodeid`, `ERROR nodeid - message`, and the other outcomes.
static SUMMARY: LazyLock<Regex> = regex!(
    r"^(?P<outcome>FAILED|ERROR|PASSED|XFAIL|XPASS) (?P<file>[^\s:][^\s:]*?)(?P<rest>::\S.*?)?(?: - (?P<message>.*))?$"
);

/// `SKIPPED [1] tests/test_x.py:44: reason`.
static SKIPPED: LazyLock<Regex> = regex!(r"^SKIPPED \[\d+\] \S+:\d+: ");

/// `=== FAILURES ===` and the other banners.
static BANNER: LazyLock<Regex> = regex!(r"^=+ (?P<title>.+?) =+$");

/// `____ test_add ____`, the start of one test's section.
static HEADER: LazyLock<Regex> = regex!(r"^_+ (?P<title>.+?) _+$");

/// `tests/test_x.py:7: AssertionError`, `tests/test_x.py:7: in test_add`.
static LOCATION: LazyLock<Regex> =
    regex!(r"^(?P<path>(?:[A-Za-z]:)?[^:\s][^:]*?\.py):(?P<line>\d+):(?: .*)?$");

/// `----- Captured stdout call -----`: the test's own output follows.
static CAPTURED: LazyLock<Regex> = regex!(r"^-+ Captured .* -+$");

/// `File "/w/pkg/signer.py", line 37`: where Python's SyntaxError display
/// puts the error.
static SYNTAX_FILE: LazyLock<Regex> =
    regex!(r#"^\s*File "(?P<path>[^"<][^"]*)", line (?P<line>\d+)\s*$"#);

/// Distinct files remembered per section.
const MAX_PATHS: usize = 32;
/// Longest traceback path remembered (a longer one is no location).
const MAX_PATH: usize = 4096;
/// `E   ` lines kept per section, and their bytes: a longer message is cut
/// and ends with `…`.
const MAX_MESSAGE_LINES: usize = 20;
const MAX_MESSAGE_BYTES: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Failure,
    Error,
}

/// One test's section of `FAILURES` or `ERRORS`.
#[derive(Debug)]
struct Section {
    kind: Kind,
    /// `test_add`, `TestGroup.test_param[2]`, or the collected path.
    name: String,
    /// The last line seen in each file, in first-seen order.
    locations: Vec<(String, u64)>,
    /// The last run of `E   ` lines, as printed after the `E`.
    exception: Vec<String>,
    /// Bytes of `exception`.
    exception_bytes: usize,
    /// `exception` was cut.
    exception_cut: bool,
    /// The line before was an `E   ` line: the next one continues the run.
    in_exception: bool,
    used: bool,
}

impl Section {
    /// One `E   ` line's text after the `E`. A run of them that follows other
    /// lines starts over: of chained exceptions, the last is the one the
    /// summary reports.
    fn exception_line(&mut self, text: &str) {
        if !self.in_exception {
            self.exception.clear();
            self.exception_bytes = 0;
            self.exception_cut = false;
            self.in_exception = true;
        }
        let room = MAX_MESSAGE_BYTES.saturating_sub(self.exception_bytes);
        if self.exception.len() == MAX_MESSAGE_LINES || room == 0 {
            self.exception_cut = true;
            return;
        }
        let mut end = text.len().min(room);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end < text.len() {
            self.exception_cut = true;
        }
        self.exception_bytes += end;
        self.exception.push(text[..end].to_string());
    }
}

/// The message of a run of `E   ` lines: the common indentation removed,
/// trailing blanks trimmed, blank lines around it dropped. For Python's
/// SyntaxError display (`  File "x.py", line 3`, the source line, the caret,
/// `SyntaxError: …`) the message is the error line and the place is the
/// file it names.
fn exception_message(lines: &[String], cut: bool) -> Option<(String, Option<(String, u64)>)> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()?;
    let dedented: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    let first = dedented.iter().position(|l| !l.is_empty())?;
    let place = SYNTAX_FILE.captures(dedented[first]).and_then(|caps| {
        let line = caps["line"].parse::<u64>().ok()?;
        Some((caps["path"].to_string(), line))
    });
    let mut kept: Vec<&str> = match &place {
        // The error lines are the unindented ones after the display.
        Some(_) => dedented[first + 1..]
            .iter()
            .copied()
            .filter(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
            .collect(),
        None => dedented,
    };
    if kept.is_empty() {
        return None;
    }
    while kept.last().is_some_and(|l| l.is_empty()) {
        kept.pop();
    }
    let start = kept.iter().position(|l| !l.is_empty())?;
    let mut message = kept[start..].join("\n");
    if cut {
        message.push('…');
    }
    Some((message, place))
}

/// Whether a path names a test module by pytest's default `python_files`
/// (`test_*.py`, `*_test.py`).
fn is_test_module(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// The `pytest` format.
#[derive(Debug, Default)]
pub(crate) struct Pytest {
    /// Inside `=== FAILURES ===` or `=== ERRORS ===`.
    kind: Option<Kind>,
    sections: Vec<Section>,
    /// Whether location lines still belong to the last section (not to its
    /// captured output).
    in_traceback: bool,
}

impl Pytest {
    fn banner(&mut self, title: &str) -> bool {
        self.in_traceback = false;
        self.kind = match title {
            "FAILURES" => Some(Kind::Failure),
            "ERRORS" => Some(Kind::Error),
            _ => None,
        };
        self.kind.is_some()
    }

    fn header(&mut self, kind: Kind, title: &str) {
        self.in_traceback = false;
        if self.sections.len() == MAX_PER_CHECK {
            return;
        }
        let name = match kind {
            Kind::Failure => title,
            Kind::Error => [
                "ERROR collecting ",
                "ERROR at setup of ",
                "ERROR at teardown of ",
            ]
            .iter()
            .find_map(|prefix| title.strip_prefix(prefix))
            .unwrap_or(title),
        };
        self.sections.push(Section {
            kind,
            name: name.to_string(),
            locations: Vec::new(),
            exception: Vec::new(),
            exception_bytes: 0,
            exception_cut: false,
            in_exception: false,
            used: false,
        });
        self.in_traceback = true;
    }

    /// A line inside a section; whether it was a location.
    fn traceback(&mut self, line: &str) -> bool {
        let Some(section) = self.sections.last_mut().filter(|_| self.in_traceback) else {
            return false;
        };
        if let Some(text) = line.strip_prefix('E').filter(|t| t.starts_with(' ')) {
            section.exception_line(text);
            return false;
        }
        // A strict xfail that passed has no traceback: its section is the
        // one line `[XPASS(strict)] reason`, and the summary line (cut to
        // the terminal's width) may have lost the reason.
        if line.starts_with("[XPASS(strict)]") && section.exception.is_empty() {
            section.exception_line(&format!(" {line}"));
            section.in_exception = false;
            return false;
        }
        section.in_exception = false;
        let Some(caps) = LOCATION.captures(line) else {
            return false;
        };
        let Ok(number) = caps["line"].parse::<u64>() else {
            return false;
        };
        let path = &caps["path"];
        if path.len() > MAX_PATH {
            return false;
        }
        if let Some(known) = section.locations.iter_mut().find(|(p, _)| p == path) {
            known.1 = number;
        } else if section.locations.len() < MAX_PATHS {
            section.locations.push((path.to_string(), number));
        }
        true
    }

    fn summary(&mut self, caps: &regex::Captures<'_>, out: &mut Vec<Diagnostic>) -> bool {
        let file = &caps["file"];
        let rest = caps.name("rest").map_or("", |m| m.as_str());
        if !file.ends_with(".py") && rest.is_empty() {
            return false;
        }
        let kind = match &caps["outcome"] {
            "FAILED" => Kind::Failure,
            "ERROR" => Kind::Error,
            _ => return true,
        };
        // Sections name a test by its dotted domain (`TestGroup.test_m`), a
        // collection error by its node id (`ERROR collecting tests/a.py`).
        let nodeid = format!("{file}{rest}");
        let name = (rest.strip_prefix("::"))
            .map_or_else(|| nodeid.clone(), |test| test.replace("::", "."));
        // The section of this test in this file; else one of the same name
        // that names no file at all (`--tb=line` errors), which cannot be
        // another file's; else one of the same name in other files only (a
        // test inherited from a class of another module).
        let candidate =
            |s: &Section| !s.used && s.kind == kind && (s.name == name || s.name == nodeid);
        let index = self
            .sections
            .iter()
            .position(|s| candidate(s) && s.locations.iter().any(|(p, _)| same_file(p, file)))
            .or_else(|| {
                self.sections
                    .iter()
                    .position(|s| candidate(s) && s.locations.is_empty())
            })
            .or_else(|| self.sections.iter().position(candidate));
        let mut place = (file.to_string(), None);
        let mut exception = None;
        if let Some(section) = index.map(|i| &mut self.sections[i]) {
            section.used = true;
            let lines = std::mem::take(&mut section.exception);
            let named = exception_message(&lines, section.exception_cut);
            // Where the failing frame is: a SyntaxError's own file; else the
            // frame closest to the crash still in the node id's file; else
            // the first frame in a test module (pytest starts a test's
            // traceback at the test function, which an inherited test
            // defines in another module).
            if let Some((message, syntax)) = named {
                exception = Some(message);
                if let Some((path, line)) = syntax {
                    place = (path, Some(line));
                }
            }
            if place.1.is_none() {
                if let Some((_, line)) = section
                    .locations
                    .iter()
                    .rev()
                    .find(|(p, _)| same_file(p, file))
                {
                    place.1 = Some(*line);
                } else if let Some((path, line)) =
                    section.locations.iter().find(|(p, _)| is_test_module(p))
                {
                    place = (path.clone(), Some(*line));
                }
            }
        }
        // The section's `E   ` lines are the whole message; the summary's
        // is cut to the terminal's width.
        let message = exception
            .or_else(|| {
                caps.name("message")
                    .map(|m| m.as_str().trim().to_string())
                    .filter(|m| !m.is_empty())
            })
            .unwrap_or_else(|| {
                if kind == Kind::Failure {
                    "failed"
                } else {
                    "error"
                }
                .to_string()
            });
        let (file, line) = place;
        out.push(Diagnostic {
            file: Some(file),
            line,
            severity: DiagSeverity::Error,
            rule: Some(nodeid),
            message,
            ..Default::default()
        });
        true
    }
}

/// Whether a traceback path and a node id's path name the same file: pytest
/// prints the first relative to the current directory, the second relative
/// to the rootdir.
fn same_file(location: &str, nodeid_file: &str) -> bool {
    let location = location.replace('\\', "/");
    let (longer, shorter) = if location.len() >= nodeid_file.len() {
        (location.as_str(), nodeid_file)
    } else {
        (nodeid_file, location.as_str())
    };
    longer == shorter
        || longer
            .strip_suffix(shorter)
            .is_some_and(|head| head.ends_with('/'))
}

impl LineParser for Pytest {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        // Cheap literal tests first: most lines of a big log are none of
        // these, and the regexes cost far more than a byte comparison.
        let first = line.as_bytes().first().copied();
        if matches!(first, Some(b'F' | b'E' | b'P' | b'X'))
            && let Some(caps) = SUMMARY.captures(line)
        {
            return self.summary(&caps, out);
        }
        if line.starts_with("SKIPPED [") && SKIPPED.is_match(line) {
            return true;
        }
        if first == Some(b'=')
            && let Some(caps) = BANNER.captures(line)
        {
            return self.banner(&caps["title"]);
        }
        let Some(kind) = self.kind else {
            return false;
        };
        if first == Some(b'_')
            && let Some(caps) = HEADER.captures(line)
        {
            let title = &caps["title"];
            // `_ _ _ _` separates the frames of one traceback.
            if !title.chars().all(|c| c == '_' || c == ' ') {
                self.header(kind, title);
                return true;
            }
        }
        if first == Some(b'-') && CAPTURED.is_match(line) {
            self.in_traceback = false;
            return false;
        }
        self.traceback(line)
    }
}

#[cfg(test)]
mod tests;
