//! The `pytest` parser: one diagnostic per test the short test summary
//! reports as `FAILED` or `ERROR`, with its line taken from the failure
//! section above it.
//!
//! Policy (no double counting): only the short test summary lines are
//! diagnostics.
//!
//! - `FAILED tests/test_x.py::test_add - assert 1 == 2` and
//!   `ERROR tests/test_y.py - ImportError ...` (`ERROR tests/test_y.py` for
//!   a collection error) give rule = the node id, file = its path part,
//!   message = the text after ` - `, severity error.
//! - The location lines of the `FAILURES` and `ERRORS` sections
//!   (`tests/test_x.py:7: AssertionError`, `tests/test_x.py:7: in test_add`)
//!   are never diagnostics by themselves. They are remembered per section
//!   (`____ test_add ____`, `____ ERROR at setup of test_z ____`,
//!   `____ ERROR collecting tests/test_y.py ____`), and when a summary line
//!   names that test (same name, a failure for `FAILED`, an error for
//!   `ERROR`), the diagnostic gets the line of the section's last location
//!   inside the test's own file: the frame closest to the crash that is
//!   still in that file. A summary line without a message takes the
//!   section's first `E   ` line, else `failed` / `error`.
//! - Without a short test summary (`-rN`) nothing is reported; with
//!   `--tb=line` (no section headers) the diagnostics have no line.
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

/// Distinct files remembered per section.
const MAX_PATHS: usize = 32;

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
    /// The first `E   ` line.
    exception: Option<String>,
    used: bool,
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
            exception: None,
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
            if section.exception.is_none() && !text.trim().is_empty() {
                section.exception = Some(text.trim().to_string());
            }
            return false;
        }
        let Some(caps) = LOCATION.captures(line) else {
            return false;
        };
        let Ok(number) = caps["line"].parse::<u64>() else {
            return false;
        };
        let path = &caps["path"];
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
        // another file's.
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
            });
        let section = index.map(|i| &mut self.sections[i]);
        let (line, exception) = match section {
            Some(section) => {
                section.used = true;
                let line = section
                    .locations
                    .iter()
                    .rev()
                    .find(|(p, _)| same_file(p, file))
                    .map(|(_, n)| *n);
                (line, section.exception.clone())
            }
            None => (None, None),
        };
        let message = caps
            .name("message")
            .map(|m| m.as_str().trim().to_string())
            .filter(|m| !m.is_empty())
            .or(exception)
            .unwrap_or_else(|| {
                if kind == Kind::Failure {
                    "failed"
                } else {
                    "error"
                }
                .to_string()
            });
        out.push(Diagnostic {
            file: Some(file.to_string()),
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
    /// summary (`-rA` lists errors first).
    fn failures(lines: bool) -> Vec<Diagnostic> {
        let at = |n: u64| lines.then_some(n);
        vec![
            test("tests/test_x.py::test_add", at(15), "assert 2 == 3"),
            test(
                "tests/test_x.py::test_helper",
                at(10),
                "ValueError: negative: -1",
            ),
            test(
                "tests/test_x.py::TestGroup::test_method",
                at(28),
                "AssertionError: assert 'ABC'...",
            ),
            test(
                "tests/test_x.py::TestGroup::test_param[2]",
                at(32),
                "assert 2 == 1",
            ),
            test(
                "tests/test_z.py::test_add",
                at(2),
                "assert [1, 2] == [1, 3]",
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
