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
use crate::config::DiagSeverity;

/// `FAILED nodeid`, `ERROR nodeid - message`, and the other outcomes.
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<outcome>FAILED|ERROR|PASSED|XFAIL|XPASS) (?P<file>[^\s:][^\s:]*?)(?P<rest>::\S.*?)?(?: - (?P<message>.*))?$",
    )
    .expect("valid regex")
});

/// `SKIPPED [1] tests/test_x.py:44: reason`.
static SKIPPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^SKIPPED \[\d+\] \S+:\d+: ").expect("valid regex"));

/// `=== FAILURES ===` and the other banners.
static BANNER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+ (?P<title>.+?) =+$").expect("valid regex"));

/// `____ test_add ____`, the start of one test's section.
static HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^_+ (?P<title>.+?) _+$").expect("valid regex"));

/// `tests/test_x.py:7: AssertionError`, `tests/test_x.py:7: in test_add`.
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<path>(?:[A-Za-z]:)?[^:\s][^:]*?\.py):(?P<line>\d+):(?: .*)?$")
        .expect("valid regex")
});

/// `----- Captured stdout call -----`: the test's own output follows.
static CAPTURED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^-+ Captured .* -+$").expect("valid regex"));

/// `File "/w/pkg/signer.py", line 37`: where Python's SyntaxError display
/// puts the error.
static SYNTAX_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*File "(?P<path>[^"<][^"]*)", line (?P<line>\d+)\s*$"#).expect("valid regex")
});

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
    /// A fresh parser.
    pub(crate) fn new() -> Pytest {
        Pytest::default()
    }

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
        let name = match rest.strip_prefix("::") {
            Some(test) => test.replace("::", "."),
            None => nodeid.clone(),
        };
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
mod tests {
    use super::*;

    #[test]
    fn a_strict_xpass_carries_its_reason() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-xpass-strict-q.txt"
            )),
            [test(
                "tests/test_x.py::test_rounding_half_to_even_matches_the_documented_banking_rule",
                None,
                "[XPASS(strict)] rounding bug #12 not fixed yet"
            )]
        );
    }

    fn parse(text: &str) -> Vec<Diagnostic> {
        let mut parser = Pytest::new();
        let mut out = Vec::new();
        for line in text.lines() {
            parser.line(line, &mut out);
        }
        parser.finish(&mut out);
        out
    }

    fn test(rule: &str, line: Option<u64>, message: &str) -> Diagnostic {
        let file = rule.split("::").next().unwrap_or(rule);
        Diagnostic {
            file: Some(file.into()),
            line,
            severity: DiagSeverity::Error,
            rule: Some(rule.into()),
            message: message.into(),
            ..Default::default()
        }
    }

    /// The five failures and two errors, in the order of the default
    /// summary (`-rA` lists errors first). With sections, the messages are
    /// their whole `E   ` lines; without (`--tb=line`), the summary's.
    fn failures(sections: bool) -> Vec<Diagnostic> {
        let at = |n: u64| sections.then_some(n);
        let long = |full: &'static str, summary: &'static str| {
            if sections { full } else { summary }
        };
        vec![
            test(
                "tests/test_x.py::test_add",
                at(15),
                long("assert 2 == 3\n +  where 2 = add(1, 1)", "assert 2 == 3"),
            ),
            test(
                "tests/test_x.py::test_helper",
                at(10),
                "ValueError: negative: -1",
            ),
            test(
                "tests/test_x.py::TestGroup::test_method",
                at(28),
                long(
                    "AssertionError: assert 'ABC' == 'abd'\n\n  - abd\n  + ABC",
                    "AssertionError: assert 'ABC'...",
                ),
            ),
            test(
                "tests/test_x.py::TestGroup::test_param[2]",
                at(32),
                "assert 2 == 1",
            ),
            test(
                "tests/test_z.py::test_add",
                at(2),
                long(
                    "assert [1, 2] == [1, 3]\n\n  At index 1 diff: 2 != 3\n  Use -v to get more diff",
                    "assert [1, 2] == [1, 3]",
                ),
            ),
        ]
    }

    fn errors() -> Vec<Diagnostic> {
        vec![
            test(
                "tests/test_y.py",
                Some(1),
                "ModuleNotFoundError: No module named 'nonexistent_module_xyz'",
            ),
            test(
                "tests/test_x.py::test_uses_broken",
                Some(37),
                "RuntimeError: fixture exploded",
            ),
        ]
    }

    #[test]
    fn default_output() {
        let mut expected = failures(true);
        expected.extend(errors());
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-default.txt"
            )),
            expected
        );
    }

    #[test]
    fn quiet_output() {
        let mut expected = failures(true);
        expected.extend(errors());
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-q.txt"
            )),
            expected
        );
    }

    #[test]
    fn report_all_with_short_tracebacks() {
        let mut expected = errors();
        expected.extend(failures(true));
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-rA-short.txt"
            )),
            expected
        );
    }

    #[test]
    fn line_tracebacks_have_no_sections_to_pair() {
        // Only the collection error keeps a long traceback; the setup
        // error's section is a lone `E` line.
        let mut expected = failures(false);
        expected.extend(errors());
        expected[6].line = None;
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-tb-line.txt"
            )),
            expected
        );
    }

    #[test]
    fn interrupted_collection() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-interrupted.txt"
            )),
            vec![test(
                "tests/test_y.py",
                Some(1),
                "ModuleNotFoundError: No module named 'nonexistent_module_xyz'"
            )]
        );
    }

    /// The three cases of `more/tests`, in the default summary's order.
    /// The same with long and short tracebacks.
    fn more() -> Vec<Diagnostic> {
        let long = "AssertionError: assert 'a rather lon...ap.yek-terces' == 'a rather lon...but-not-quite'\n\
                    \n  Skipping 54 identical leading characters in diff, use -v to show\n\
                    \x20 - .yek-terces-but-not-quite\n  + .yek-terces";
        vec![
            // The summary says `AssertionError: assert 'a rathe...`.
            test("tests/test_a.py::test_long_assertion", Some(7), long),
            // Inherited from test_a.py's TestSigner: the frame is there.
            Diagnostic {
                file: Some("tests/test_a.py".into()),
                ..test(
                    "tests/test_b.py::TestTimestampSigner::test_sign",
                    Some(15),
                    "AssertionError: the signature must match the key\n\
                     assert 'value.yek-pmatsemit' == 'value.yek-terces'\n\
                     \n  - value.yek-terces\n  + value.yek-pmatsemit",
                )
            },
            // Collecting test_c.py imports signer.py, which does not parse.
            Diagnostic {
                file: Some("/work/proj/tests/signer.py".into()),
                ..test(
                    "tests/test_c.py",
                    Some(8),
                    "SyntaxError: '(' was never closed",
                )
            },
        ]
    }

    #[test]
    fn whole_messages_inherited_tests_and_syntax_errors() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-more-default.txt"
            )),
            more()
        );
        // -rA lists the error first.
        let mut expected = more();
        expected.rotate_right(1);
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/pytest/pytest-more-short.txt"
            )),
            expected
        );
    }

    #[test]
    fn the_last_chained_exception_is_the_message() {
        let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    E       KeyError: 'k'\n\
                    \n\
                    tests/test_a.py:3: KeyError\n\
                    \n\
                    During handling of the above exception, another exception occurred:\n\
                    E       ValueError: bad\n\
                    E         detail\n\
                    \n\
                    tests/test_a.py:5: ValueError\n\
                    === short test summary info ===\n\
                    FAILED tests/test_a.py::test_a - ValueError: bad\n";
        assert_eq!(
            parse(text),
            vec![test(
                "tests/test_a.py::test_a",
                Some(5),
                "ValueError: bad\n  detail"
            )]
        );
    }

    #[test]
    fn long_messages_are_cut() {
        let mut text = String::from("=== FAILURES ===\n___ test_a ___\n");
        for n in 0..100 {
            text.push_str(&format!("E   line {n}\n"));
        }
        text.push_str("tests/test_a.py:3: AssertionError\n");
        text.push_str("=== short test summary info ===\nFAILED tests/test_a.py::test_a\n");
        let lines: Vec<String> = (0..MAX_MESSAGE_LINES)
            .map(|n| format!("line {n}"))
            .collect();
        let expected = format!("{}…", lines.join("\n"));
        assert_eq!(
            parse(&text),
            vec![test("tests/test_a.py::test_a", Some(3), &expected)]
        );
        // One huge line: cut at a character boundary.
        let text = format!(
            "=== FAILURES ===\n___ test_a ___\nE   {}\n\
             === short test summary info ===\nFAILED tests/test_a.py::test_a\n",
            "é".repeat(10_000)
        );
        let message = parse(&text).remove(0).message;
        assert!(
            message.len() <= MAX_MESSAGE_BYTES + '…'.len_utf8(),
            "{}",
            message.len()
        );
        assert!(message.ends_with('…'));
    }

    #[test]
    fn odd_exception_lines_do_not_panic() {
        for body in [
            "E   \nE    \n",
            "E \u{a0}x\nE  \u{3000}y\n",
            "E     File \"<string>\", line 1\nE   SyntaxError: x\n",
            "E     File \"a.py\", line 99999999999999999999999\n",
            "E     File \"a.py\", line 2\nE       x(\n",
        ] {
            let text = format!(
                "=== ERRORS ===\n___ ERROR collecting tests/test_a.py ___\n{body}\
                 === short test summary info ===\nERROR tests/test_a.py\n"
            );
            let out = parse(&text);
            assert_eq!(out.len(), 1, "{body:?}");
        }
    }

    #[test]
    fn no_summary_means_no_diagnostics() {
        let text = "=== FAILURES ===\n\
                    ___ test_add ___\n\
                    tests/test_x.py:15: AssertionError\n\
                    === 1 failed in 0.01s ===\n";
        assert_eq!(parse(text), vec![]);
    }

    #[test]
    fn captured_output_is_not_a_traceback() {
        let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    tests/test_a.py:3: AssertionError\n\
                    --- Captured stdout call ---\n\
                    tests/test_a.py:99: printed by the test\n\
                    === short test summary info ===\n\
                    FAILED tests/test_a.py::test_a\n";
        assert_eq!(
            parse(text),
            vec![test("tests/test_a.py::test_a", Some(3), "failed")]
        );
    }

    #[test]
    fn paths_relative_to_a_subdirectory_still_pair() {
        let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    test_a.py:3: AssertionError\n\
                    === short test summary info ===\n\
                    FAILED pkg/tests/test_a.py::test_a - boom\n";
        assert_eq!(
            parse(text),
            vec![test("pkg/tests/test_a.py::test_a", Some(3), "boom")]
        );
        assert!(same_file("test_a.py", "tests/test_a.py"));
        assert!(same_file(r"C:\w\tests\test_a.py", "tests/test_a.py"));
        assert!(!same_file("other_test_a.py", "test_a.py"));
    }

    #[track_caller]
    fn claims(line: &str, expected: bool) {
        let mut parser = Pytest::new();
        let mut out = Vec::new();
        assert_eq!(parser.line(line, &mut out), expected, "{line:?}");
        let diagnostic = expected && (line.starts_with("FAILED") || line.starts_with("ERROR"));
        assert_eq!(out.len(), usize::from(diagnostic), "{line:?}");
    }

    #[test]
    fn near_misses_are_not_claimed() {
        claims("ERROR: connection refused", false);
        claims("ERROR connection refused", false);
        claims("ERROR app.db - timeout", false);
        claims("FAILED", false);
        claims("FAILED ", false);
        claims("FAILED to connect - retrying", false);
        claims("FAILED: 3 tests", false);
        claims(
            "tests/test_x.py::test_add FAILED                 [ 11%]",
            false,
        );
        claims("tests/test_x.py:7: AssertionError", false);
        claims("___ test_add ___", false);
        claims("=== 1 failed, 2 passed in 0.12s ===", false);
        claims("FAILED tests/test_x.py::test_add", true);
        claims("ERROR tests/test_y.py", true);
        claims("ERROR tests/test_x.py::test_p[a b] - oops", true);
        claims("PASSED tests/test_x.py::test_ok", true);
        claims("SKIPPED [1] tests/test_x.py:44: not today", true);
        claims("=== FAILURES ===", true);
    }

    #[test]
    fn collection_errors_of_a_class_pair_by_node_id() {
        let text = "=== ERRORS ===\n\
                    ___ ERROR collecting tests/test_c.py::TestC ___\n\
                    tests/test_c.py:4: in TestC\n\
                    E   NameError: name 'x' is not defined\n\
                    === short test summary info ===\n\
                    ERROR tests/test_c.py::TestC\n";
        assert_eq!(
            parse(text),
            vec![test(
                "tests/test_c.py::TestC",
                Some(4),
                "NameError: name 'x' is not defined"
            )]
        );
    }

    #[test]
    fn parameter_ids_with_spaces() {
        let out = parse("FAILED tests/test_x.py::test_p[a b] - assert x - y");
        assert_eq!(
            out,
            vec![test("tests/test_x.py::test_p[a b]", None, "assert x - y")]
        );
    }
}
