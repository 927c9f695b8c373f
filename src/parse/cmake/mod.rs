//! The `cmake` parser: CMake's own messages of the configure step and
//! ctest's failed tests (`ctest --output-on-failure`).
//!
//! - `CMake Error at CMakeLists.txt:4 (foo_bar):` (also `Warning`,
//!   `Warning (dev)`, `Deprecation Warning`, and `CMake Error in file:`
//!   without a line) is one diagnostic at that place, rule = the command.
//!   Its reason is on the indented lines after it: the message, each
//!   paragraph's lines joined (CMake wraps its text), paragraphs on lines of
//!   their own; the `Call Stack (most recent call first):` paragraph and the
//!   `This warning is for project developers` note are left out. The block
//!   ends at the first line that is not indented and not blank.
//! - ctest: after a failed test's result line (`2/4 Test #2: name
//!   ....***Failed`), its output (what `--output-on-failure` prints, up to
//!   the next `Start` or result line) is read for the assertion's source
//!   line: `file:line: text` (a test suite's own `file:line: assertion
//!   failed: …`, GoogleTest's `file:line: Failure` with the reason on the
//!   lines after it) or glibc's `prog: file:line: function: Assertion …
//!   failed.` Each is an error there, rule = the test's name. A failed test
//!   with no such line (or run without `--output-on-failure`) is named once
//!   from ctest's closing list (`  2 - name (Failed)`), unplaced.
//! - ctest's progress (`Start N: name`, a passing result line) and the
//!   list's header are claimed, so `auto` recognises the format; they are no
//!   diagnostics.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// `CMake Error at CMakeLists.txt:4 (foo_bar):`, `CMake Warning (dev) at
/// x.cmake:3 (message):`, `CMake Error in CMakeLists.txt:`.
static HEADER: LazyLock<Regex> = regex!(
    r"^CMake (?P<kind>Error|Warning|Deprecation Error|Deprecation Warning)(?: \(dev\))? (?:at (?P<file>.+?):(?P<line>\d+) \((?P<rule>[^)]*)\)|in (?P<infile>.+?)):\s*$"
);

/// `2/4 Test #2: test_assert ......Subprocess aborted***Exception:   0.02 sec`.
static RESULT: LazyLock<Regex> =
    regex!(r"^\s*\d+/\d+ Test\s+#\d+: (?P<name>\S+) \.*\s*(?P<result>.*?)\s+[\d.]+ sec\s*$");

/// `    Start 2: test_assert`.
static START: LazyLock<Regex> = regex!(r"^\s+Start\s+\d+: \S+\s*$");

/// `  2 - test_assert (Subprocess aborted)` (after a tab) under `The following
/// tests FAILED:`.
static LISTED: LazyLock<Regex> = regex!(r"^\s+\d+ - (?P<name>\S+) \((?P<why>[^()]+)\)\s*$");

/// An assertion's source line: `[prog: ]file.ext:line[:col]: text`.
static PLACE: LazyLock<Regex> = regex!(
    r"^(?:[^:\s]+: )?(?P<file>(?:[A-Za-z]:[\\/])?[^\s:]+\.[A-Za-z][A-Za-z0-9+]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<text>\S.*)$"
);

/// GoogleTest's end of a failed test, and the next test's start.
static GTEST_MARK: LazyLock<Regex> = regex!(r"^\[ *(?:FAILED|RUN|OK) *\]");

/// Reason lines kept per diagnostic, and bytes.
const MAX_LINES: usize = 20;
const MAX_BYTES: usize = 4096;

/// A CMake message being read.
#[derive(Debug)]
struct Message {
    head: Diagnostic,
    /// Paragraphs of the reason, each a list of trimmed lines.
    paragraphs: Vec<Vec<String>>,
    /// The last line was blank: the next indented one starts a paragraph.
    gap: bool,
}

/// A failed test's output being read.
#[derive(Debug, Default)]
struct TestOutput {
    name: String,
    /// The diagnostic whose reason lines follow (GoogleTest's `Failure`).
    open: Option<Diagnostic>,
    located: bool,
}

/// The `cmake` parser.
#[derive(Debug, Default)]
pub(crate) struct Cmake {
    message: Option<Message>,
    test: Option<TestOutput>,
    /// Failed tests already placed at their assertion.
    located: Vec<String>,
    /// Inside ctest's closing list.
    listing: bool,
}

impl Cmake {
    fn end_message(&mut self, out: &mut Vec<Diagnostic>) {
        let Some(m) = self.message.take() else {
            return;
        };
        let mut head = m.head;
        let reason: Vec<String> = m
            .paragraphs
            .into_iter()
            .filter(|p| {
                p.first().is_some_and(|first| {
                    !first.starts_with("Call Stack (most recent call first)")
                        && !first.starts_with("This warning is for project developers")
                })
            })
            .map(|p| p.join(" "))
            .collect();
        if !reason.is_empty() {
            head.message = capped(&reason);
        }
        out.push(head);
    }

    fn end_open(&mut self, out: &mut Vec<Diagnostic>) {
        if let Some(test) = &mut self.test
            && let Some(d) = test.open.take()
        {
            out.push(d);
        }
    }

    fn end_test(&mut self, out: &mut Vec<Diagnostic>) {
        self.end_open(out);
        if let Some(test) = self.test.take()
            && test.located
        {
            self.located.push(test.name);
        }
    }

    /// A line of a failed test's output.
    fn test_line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        let Some(test) = &mut self.test else {
            return false;
        };
        if let Some(open) = &mut test.open {
            let ends = line.trim().is_empty() || GTEST_MARK.is_match(line) || PLACE.is_match(line);
            if !ends {
                if open.message.lines().count() < MAX_LINES
                    && open.message.len() + line.len() < MAX_BYTES
                {
                    open.message.push('\n');
                    open.message.push_str(line.trim_end());
                }
                return true;
            }
            let done = test.open.take().expect("open");
            out.push(done);
        }
        let Some(caps) = PLACE.captures(line) else {
            // The rest of the test's output is left to the parsers after
            // this one under `auto` (a panic, a compiler's line).
            return false;
        };
        let text = caps["text"].trim().to_string();
        let d = Diagnostic {
            file: Some(caps["file"].to_string()),
            line: super::position(&caps["line"]),
            column: caps.name("col").and_then(|c| super::position(c.as_str())),
            severity: DiagSeverity::Error,
            rule: Some(test.name.clone()),
            message: text.clone(),
            ..Default::default()
        };
        test.located = true;
        // GoogleTest says why on the lines after `Failure`.
        if text == "Failure" || text.ends_with(": Failure") {
            test.open = Some(d);
        } else {
            out.push(d);
        }
        true
    }
}

/// Paragraphs joined by newlines, within the caps.
fn capped(paragraphs: &[String]) -> String {
    let mut message = String::new();
    for p in paragraphs.iter().take(MAX_LINES) {
        if message.len() + p.len() >= MAX_BYTES {
            break;
        }
        if !message.is_empty() {
            message.push('\n');
        }
        message.push_str(p);
    }
    message
}

impl LineParser for Cmake {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(m) = &mut self.message {
            if line.trim().is_empty() {
                m.gap = true;
                return true;
            }
            if line.starts_with(' ') || line.starts_with('\t') {
                let text = line.trim().to_string();
                match m.paragraphs.last_mut() {
                    Some(p) if !m.gap => p.push(text),
                    _ => m.paragraphs.push(vec![text]),
                }
                m.gap = false;
                return true;
            }
            self.end_message(out);
        }
        if let Some(caps) = HEADER.captures(line) {
            self.end_test(out);
            self.listing = false;
            let kind = &caps["kind"];
            let severity = if kind.ends_with("Error") {
                DiagSeverity::Error
            } else {
                DiagSeverity::Warning
            };
            let file = caps
                .name("file")
                .or(caps.name("infile"))
                .map(|m| m.as_str().to_string());
            self.message = Some(Message {
                head: Diagnostic {
                    file,
                    line: caps.name("line").and_then(|l| super::position(l.as_str())),
                    severity,
                    rule: caps
                        .name("rule")
                        .map(|r| r.as_str().to_string())
                        .filter(|r| !r.is_empty()),
                    message: format!("CMake {kind}"),
                    ..Default::default()
                },
                paragraphs: Vec::new(),
                gap: false,
            });
            return true;
        }
        if let Some(caps) = RESULT.captures(line) {
            self.end_test(out);
            let result = caps["result"].trim();
            let passed = result.starts_with("Passed")
                || result.contains("Disabled")
                || result.contains("Skipped");
            if !passed {
                self.test = Some(TestOutput {
                    name: caps["name"].to_string(),
                    ..Default::default()
                });
            }
            return true;
        }
        if START.is_match(line) {
            self.end_test(out);
            return true;
        }
        if line.starts_with("The following tests FAILED:") {
            self.end_test(out);
            self.listing = true;
            return true;
        }
        if self.listing {
            if let Some(caps) = LISTED.captures(line) {
                let name = caps["name"].to_string();
                if !self.located.contains(&name) {
                    out.push(Diagnostic {
                        severity: DiagSeverity::Error,
                        message: format!("{name} ({})", &caps["why"]),
                        rule: Some(name),
                        ..Default::default()
                    });
                }
                return true;
            }
            self.listing = false;
        }
        // ctest's summary closes the last test's output.
        if self.test.is_some()
            && (line.contains("% tests passed,") || line.starts_with("Total Test time"))
        {
            self.end_test(out);
            return true;
        }
        self.test_line(line, out)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.end_message(out);
        self.end_test(out);
        self.listing = false;
    }

    fn interrupted(&mut self, out: &mut Vec<Diagnostic>) {
        // Another tool's line ends a CMake message; a test's output may hold
        // lines other parsers claim (a compiler's, a panic), so it goes on.
        self.end_message(out);
        self.end_open(out);
    }
}

#[cfg(test)]
mod tests;
