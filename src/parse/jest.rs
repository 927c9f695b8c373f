//! The `jest` parser: the failures of jest's default reporter, one error
//! per failing test.
//!
//! Jest prints each test file as `FAIL tests/math.test.js` (or `PASS …`),
//! then one section per failure, indented:
//!
//! ```text
//! FAIL tests/math.test.js
//!   ● parseAmount › blank input › returns zero
//!
//!     RangeError: empty amount: "  "
//!
//!     > 3 |     throw new RangeError(`empty amount: "${text}"`);
//!
//!       at parseAmount (src/parse.js:3:11)
//!       at Object.parseAmount (tests/math.test.js:15:14)
//! ```
//!
//! - Rule: the test's full name as printed (`describe › test`); a file that
//!   failed to run (`● Test suite failed to run`) has its path as the rule.
//! - File, line, column: the first `at` frame in the `FAIL` line's file,
//!   else the first frame outside `node_modules` and node's internals, else
//!   that file without a line (the `vitest` parser's rule).
//! - Message: the section's lines before its code frame (`> 5 | …`) or
//!   stack, indentation removed (the error, then jest's `Expected:` /
//!   `Received:` lines), bounded as vitest's.
//!
//! A file's block ends at the first line that is not indented (jest indents
//! everything inside it); `PASS` files, console output before the sections
//! and the summary are no diagnostics. With more than 20 test files jest
//! repeats the failures under `Summary of all failing tests`: the repeats
//! are identical and kept once.

use std::sync::LazyLock;

use regex::Regex;

use super::vitest::{Frame, Message, failed_test, frame};
use super::{Diagnostic, LineParser};

/// `FAIL tests/x.test.js`, `PASS src/y.spec.ts (5.2 s)`: a test file of a
/// JavaScript or TypeScript extension.
static FILE: LazyLock<Regex> = regex!(
    r"^(?P<status>FAIL|PASS) (?P<file>\S(?:.*?\S)?\.[cm]?[jt]sx?)(?: \(\d+(?:\.\d+)? m?s\))?$"
);

/// `    > 5 |   expect(sum).toBe(3);`, `      6 | });`, `        |    ^`.
static CODE_FRAME: LazyLock<Regex> = regex!(r"^\s+(?:>\s*)?\d*\s*\|");

/// Frames remembered per failure.
const MAX_FRAMES: usize = 64;

/// The `jest` format.
#[derive(Debug, Default)]
pub(crate) struct Jest {
    /// The file of the current `FAIL` block.
    file: Option<String>,
    /// The rule of the failure being read.
    test: Option<String>,
    message: Message,
    frames: Vec<Frame>,
    /// A code frame or stack frame was seen: the message is over.
    past_message: bool,
}

impl Jest {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        if let (Some(rule), Some(file)) = (self.test.take(), &self.file) {
            let message = self.message.text().unwrap_or_else(|| "failed".into());
            out.push(failed_test(&self.frames, file.clone(), rule, message));
        }
        self.message = Message::default();
        self.frames.clear();
        self.past_message = false;
    }
}

impl LineParser for Jest {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if (line.starts_with("FAIL ") || line.starts_with("PASS "))
            && let Some(caps) = FILE.captures(line)
        {
            self.flush(out);
            self.file = (&caps["status"] == "FAIL").then(|| caps["file"].to_string());
            return true;
        }
        let Some(file) = &self.file else {
            return false;
        };
        if !line.is_empty() && !line.starts_with(' ') {
            self.flush(out);
            self.file = None;
            return false;
        }
        if let Some(name) = line.strip_prefix("  ● ") {
            let rule = match name.trim() {
                "Test suite failed to run" => file.clone(),
                name => name.to_string(),
            };
            self.flush(out);
            self.test = Some(rule);
            return true;
        }
        if self.test.is_none() {
            return true;
        }
        if let Some(found) = frame(line) {
            self.past_message = true;
            if self.frames.len() < MAX_FRAMES {
                self.frames.push(found);
            }
        } else if CODE_FRAME.is_match(line) {
            self.past_message = true;
        } else if !self.past_message {
            self.message.push(line);
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
        self.file = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;
    use crate::parse::vitest::tests::failure;

    /// What the capture of tests/fixtures/diagnostics/jest reports.
    fn expected() -> Vec<Diagnostic> {
        vec![
            // An assertion.
            failure(
                "tests/math.test.js",
                5,
                15,
                "adds two numbers",
                "expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 2",
            ),
            // Thrown in src/parse.js, placed on the test's line; nested
            // describes in the rule.
            failure(
                "tests/math.test.js",
                15,
                14,
                "parseAmount › blank input › returns zero",
                "RangeError: empty amount: \"  \"",
            ),
            // A second file.
            failure(
                "tests/strings.test.js",
                3,
                54,
                "shouts",
                "expect(received).toEqual(expected) // deep equality\n\n- Expected  - 1\n\
                 + Received  + 1\n\n  Object {\n    \"name\": \"ADA\",\n-   \"role\": \"owner\",\n\
                 +   \"role\": \"admin\",\n  }",
            ),
            // Thrown by the test itself.
            failure(
                "tests/strings.test.js",
                10,
                9,
                "throws directly",
                "TypeError: not implemented yet",
            ),
            // A file that fails to load: the frame in it, past jest's own.
            failure(
                "tests/broken.test.js",
                1,
                21,
                "tests/broken.test.js",
                "Cannot find module '../src/missing' from 'tests/broken.test.js'",
            ),
        ]
    }

    #[test]
    fn every_failure_of_the_default_reporter() {
        let text = include_str!("../../tests/fixtures/diagnostics/jest/jest.txt");
        assert_eq!(feed(&mut Jest::default(), text).0, expected());
        assert_eq!(feed(&mut super::super::Auto::default(), text).0, expected());
    }

    #[test]
    fn a_block_ends_at_an_unindented_line() {
        let text =
            "FAIL a.test.ts (6.1 s)\n  ● t\n\n    Error: x\n\nsrc/other.c:1: not jest\n  ● u\n";
        let (out, claimed) = feed(&mut Jest::default(), text);
        assert_eq!(claimed, [true, true, true, true, true, false, false]);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].file.as_deref(), out[0].line, out[0].message.as_str()),
            (Some("a.test.ts"), None, "Error: x")
        );
    }

    #[test]
    fn passing_files_and_near_misses_are_no_failures() {
        let text = "PASS tests/ok.test.js\n  ● not a failure\nFAIL to connect\nFAIL\tpkg\t0.1s\n\
                    Tests:       1 failed, 1 total\n";
        assert_eq!(feed(&mut Jest::default(), text).0, vec![]);
    }
}
