//! The `vitest` parser: the failures of vitest's default reporter, one
//! error per failing test, and the JavaScript stack frames it shares with
//! the `jest` parser and JUnit reports (`stack_location`).
//!
//! Vitest prints each failure under `⎯⎯ Failed Tests N ⎯⎯` (and a test
//! file that failed to load under `⎯⎯ Failed Suites N ⎯⎯`) as:
//!
//! ```text
//!  FAIL  tests/math.test.ts > parseAmount > blank input > returns zero
//! RangeError: empty amount: "  "
//!  ❯ parseAmount src/parse.ts:3:11
//!       1| export function parseAmount(text: string): number {
//!  ❯ tests/math.test.ts:16:14
//!
//! ⎯⎯⎯⎯⎯⎯⎯⎯⎯[3/5]⎯
//! ```
//!
//! - Rule: the test's full name as printed after the file (`describe >
//!   test`); a file that failed to load (` FAIL  f.test.ts [ f.test.ts ]`)
//!   has its path as the rule (as pytest's collection errors do).
//! - File, line, column: the first `❯` frame in the test's file (the test's
//!   own line when the error was thrown in a helper), else the first frame
//!   outside `node_modules`, else the test's file without a line. Paths are
//!   as vitest prints them (relative to its root).
//! - Message: the lines between the header and the first frame (the error
//!   line, then vitest's `- Expected` / `+ Received` diff), at most
//!   `MAX_MESSAGE_LINES` lines and `MAX_MESSAGE_BYTES` bytes, then `…`.
//! - Vitest prints tests that failed with the same error as consecutive
//!   `FAIL` headers before one error: each gets a diagnostic.
//!
//! The per-file progress lines (` ❯ tests/x.test.ts (3 tests | 2 failed)`,
//! `   × name`, `     → message`) and the summary are not diagnostics: every
//! failure is reported once, from its section.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// ` FAIL  tests/x.test.ts > describe > test`, optionally `|project| `
/// before the file, and ` [ … ]` after a suite.
static HEADER: LazyLock<Regex> = regex!(
    r"^ ?FAIL  (?:\|[^|]+\| )?(?P<file>\S(?:.*?\S)??)(?: > (?P<name>.+?))?(?: \[ (?P<suite>.+) \])?$"
);

/// ` ❯ fn path:line:col` (vitest) — the function name is optional.
static ARROW_FRAME: LazyLock<Regex> =
    regex!(r"^\s*❯ (?:.* )?(?P<path>\S+?):(?P<line>\d+):(?P<column>\d+)$");

/// `    at fn (path:line:col)` or `    at path:line:col` (V8, as node, jest
/// and node's test runner print them).
static AT_FRAME: LazyLock<Regex> =
    regex!(r"^\s*at (?:.*? \()?(?P<path>[^\s()][^()]*?):(?P<line>\d+):(?P<column>\d+)\)?$");

/// Message lines kept per failure, and their bytes; a longer message is cut
/// and ends with `…`.
pub(crate) const MAX_MESSAGE_LINES: usize = 20;
pub(crate) const MAX_MESSAGE_BYTES: usize = 4096;
/// Frames remembered per failure.
const MAX_FRAMES: usize = 64;

/// One stack frame: path as printed, line, column.
pub(crate) type Frame = (String, u64, u64);

/// The frame on a line: vitest's `❯` or V8's `at`.
pub(crate) fn frame(line: &str) -> Option<Frame> {
    let caps = if line.trim_start().starts_with('❯') {
        ARROW_FRAME.captures(line)?
    } else if line.trim_start().starts_with("at ") {
        AT_FRAME.captures(line)?
    } else {
        return None;
    };
    let line_number = super::position(&caps["line"])?;
    let column = super::position(&caps["column"])?;
    let path = &caps["path"];
    let path = path.strip_prefix("file://").unwrap_or(path);
    Some((path.to_string(), line_number, column))
}

/// Whether a frame's path is a file of the project: not a dependency
/// (`node_modules`), not node's own (`node:internal/…`, `internal/…`),
/// not an anonymous or native frame.
pub(crate) fn is_project_file(path: &str) -> bool {
    let slashed = path.replace('\\', "/");
    !(slashed.starts_with("node:")
        || slashed.starts_with("internal/")
        || slashed.starts_with('<')
        || slashed.split('/').any(|part| part == "node_modules"))
}

/// Whether two printed paths name the same file: equal, or one is the other
/// with leading directories (an absolute stack path and a relative name).
pub(crate) fn same_file(a: &str, b: &str) -> bool {
    let a = a.replace('\\', "/");
    let b = b.replace('\\', "/");
    let a = a.strip_prefix("./").unwrap_or(&a);
    let b = b.strip_prefix("./").unwrap_or(&b);
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// Where a failure happened, from its frames: the first frame in `file`
/// (the test's file, when known), else the first frame of the project.
pub(crate) fn choose(frames: &[Frame], file: Option<&str>) -> Option<Frame> {
    file.and_then(|file| frames.iter().find(|(p, _, _)| same_file(p, file)))
        .or_else(|| frames.iter().find(|(p, _, _)| is_project_file(p)))
        .cloned()
}

/// The location in a failure's text (a JUnit `<failure>`): its `❯` and `at`
/// frames, chosen as by `choose`.
pub(crate) fn stack_location(text: &str, file: Option<&str>) -> Option<Frame> {
    let frames: Vec<Frame> = text.lines().filter_map(frame).take(MAX_FRAMES).collect();
    choose(&frames, file)
}

/// The error of a failed test in `file`: at its place among `frames` (see
/// `choose`), else on the file without a line.
pub(crate) fn failed_test(
    frames: &[Frame],
    file: String,
    rule: String,
    message: String,
) -> Diagnostic {
    let (file, line, column) = match choose(frames, Some(&file)) {
        Some((path, line, column)) => (path, Some(line), Some(column)),
        None => (file, None, None),
    };
    Diagnostic {
        file: Some(file),
        line,
        column,
        severity: DiagSeverity::Error,
        rule: Some(rule),
        message,
        ..Diagnostic::default()
    }
}

/// A failure's message being collected: lines as printed, bounded.
#[derive(Debug, Default)]
pub(crate) struct Message {
    lines: Vec<String>,
    bytes: usize,
    cut: bool,
}

impl Message {
    /// Adds a line (leading blank lines are skipped).
    pub(crate) fn push(&mut self, line: &str) {
        let line = line.trim_end();
        if self.lines.is_empty() && line.is_empty() {
            return;
        }
        let room = MAX_MESSAGE_BYTES.saturating_sub(self.bytes);
        if self.lines.len() == MAX_MESSAGE_LINES || room == 0 {
            self.cut = true;
            return;
        }
        let mut end = line.len().min(room);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        if end < line.len() {
            self.cut = true;
        }
        self.bytes += end;
        self.lines.push(line[..end].to_string());
    }

    /// Whether no line was kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The message: lines joined, trailing blank lines dropped, the common
    /// indentation removed; `None` when there is none.
    pub(crate) fn text(&self) -> Option<String> {
        let mut lines: &[String] = &self.lines;
        while let [rest @ .., last] = lines
            && last.is_empty()
        {
            lines = rest;
        }
        let indent = lines
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()?;
        let mut text = lines
            .iter()
            .map(|l| l.get(indent..).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        if self.cut {
            text.push('…');
        }
        Some(text)
    }
}

/// A test named by a header, waiting for its error.
#[derive(Debug)]
struct Failed {
    file: String,
    rule: String,
}

/// The `vitest` format.
#[derive(Debug, Default)]
pub(crate) struct Vitest {
    /// The headers of the failure being read (several when vitest grouped
    /// tests that failed with the same error).
    tests: Vec<Failed>,
    message: Message,
    frames: Vec<Frame>,
    /// A frame was seen: the message is over.
    in_stack: bool,
}

impl Vitest {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        let message = self.message.text().unwrap_or_else(|| "failed".into());
        for test in self.tests.drain(..) {
            out.push(failed_test(
                &self.frames,
                test.file,
                test.rule,
                message.clone(),
            ));
        }
        self.message = Message::default();
        self.frames.clear();
        self.in_stack = false;
    }
}

impl LineParser for Vitest {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if (line.starts_with(" FAIL  ") || line.starts_with("FAIL  "))
            && let Some(caps) = HEADER.captures(line)
        {
            // A header after an error starts another failure; right
            // after another header it shares the coming error.
            if !self.message.is_empty() || self.in_stack {
                self.flush(out);
            }
            let file = caps["file"].to_string();
            let rule = caps
                .name("name")
                .map_or_else(|| file.clone(), |n| n.as_str().to_string());
            if self.tests.len() < super::MAX_PER_CHECK {
                self.tests.push(Failed { file, rule });
            }
            return true;
        }
        if self.tests.is_empty() {
            return false;
        }
        // `⎯⎯⎯[2/5]⎯` between failures, `⎯⎯ Failed Tests 4 ⎯⎯` banners.
        if line.starts_with('⎯') {
            self.flush(out);
            return true;
        }
        // The summary (` Test Files  3 failed (3)`) ends the last failure.
        if line.starts_with(" Test Files ") || line.starts_with("      Tests ") {
            self.flush(out);
            return false;
        }
        if let Some(found) = frame(line) {
            self.in_stack = true;
            if self.frames.len() < MAX_FRAMES {
                self.frames.push(found);
            }
        } else if !self.in_stack {
            self.message.push(line);
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
pub(super) mod tests;
