//! The `tap` parser: Test Anything Protocol output (`node --test`'s TAP
//! reporter, tape, node-tap's `--reporter=tap`, Perl's `prove`), one error
//! per failed test point.
//!
//! - `not ok N - description` is a failure, unless its directive is `# TODO`
//!   or `# SKIP`. Its YAML block (`  ---` … `  ...`) places it: the first
//!   frame of `stack` outside `node:` internals and `node_modules` (the
//!   assertion), else tape's `at: … (file:line:col)`, else node's
//!   `location: 'file:line:col'` (the test's declaration), else node-tap's
//!   `at:` mapping (`fileName`, `lineNumber`, `columnNumber`). The message
//!   is the description, then node's `error` lines, else tape's
//!   `expected`/`actual`, else the `-`/`+` lines of node-tap's `diff`. A
//!   failure whose YAML says `failureType: 'subtestsFailed'` (a node suite
//!   whose subtests failed), and any `not ok` after a failed point indented
//!   deeper than it (node-tap's test and file around a failed assertion),
//!   is no diagnostic of its own: its subtests are.
//! - Perl's Test::More prints on stderr `#   Failed test 'name'` and `#
//!   at t/basic.t line 6.` (or `#   Failed test at t/basic.t line 6.`),
//!   then `#          got: …` / `#     expected: …`: one error there, the
//!   message the name and those lines. `prove` shows no `not ok` unless
//!   `-v`, and then on stdout (another stream, another diagnostic, unplaced).
//! - `ok` points, `TAP version`, the plan `1..N` and `# Subtest:` are
//!   claimed, so `auto` recognises the format; they are no diagnostics.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// `not ok 2 - subtracts # TODO later`, indented for a subtest.
static NOT_OK: LazyLock<Regex> = regex!(
    r"^\s*not ok(?: \d+)?(?: -)?(?: (?P<desc>.*?))?(?:\s+#\s*(?P<directive>(?i:todo|skip))\b.*)?\s*$"
);

/// `ok 1 - adds`, indented for a subtest.
static OK: LazyLock<Regex> = regex!(r"^\s*ok\b");

/// `ok 1 - adds`, `TAP version 13`, `1..2`, `# Subtest: adds`.
static OTHER: LazyLock<Regex> =
    regex!(r"^\s*(?:ok \d+\b|TAP version \d+$|1\.\.\d+(?:\s*#.*)?$|# Subtest: )");

/// `file:line:col` at the end of a frame or location, in parentheses or
/// quotes or bare.
static PLACE: LazyLock<Regex> =
    regex!(r"(?:\(|'|^|\s)(?P<file>(?:file://)?[^\s()']+?):(?P<line>\d+):(?P<col>\d+)\)?'?\s*$");

/// Test::More: `#   Failed test 'name'` / `#   Failed test at t/x.t line 6.`
static FAILED_TEST: LazyLock<Regex> = regex!(
    r"^#\s+Failed (?:\(TODO\) )?test(?: '(?P<name>.*)')?(?:\s+at (?P<file>\S+) line (?P<line>\d+)\.)?\s*$"
);

/// Test::More: `#   at t/basic.t line 6.`
static AT_LINE: LazyLock<Regex> = regex!(r"^#\s+at (?P<file>\S+) line (?P<line>\d+)\.\s*$");

/// Test::More's detail lines: `#          got: '2'`, `#     expected: '3'`.
static DETAIL: LazyLock<Regex> = regex!(r"^#\s+(?P<text>(?:got|expected|\w+ \w+|\w+):.*)$");

/// Detail lines kept per failure.
const MAX_DETAIL: usize = 10;

/// Where a YAML block's lines go.
#[derive(Debug, PartialEq)]
enum Block {
    /// Plain keys.
    Keys,
    /// The lines of `error: |-`.
    Error,
    /// The lines of `stack: |-`.
    Stack,
    /// The lines of node-tap's `diff: |`.
    Diff,
    /// node-tap's `at:` mapping.
    At,
}

/// One failure being read.
#[derive(Debug, Default)]
struct Pending {
    message: String,
    details: Vec<String>,
    /// From `stack` (the assertion), `at`, `location`, Test::More's `at`.
    stack: Option<(String, u64, Option<u64>)>,
    at: Option<(String, u64, Option<u64>)>,
    location: Option<(String, u64, Option<u64>)>,
    expected: Option<String>,
    actual: Option<String>,
    /// A node suite whose subtests failed.
    suite: bool,
    /// Inside its YAML block, and where its lines go.
    yaml: Option<Block>,
    /// A Test::More failure (its details are `#` lines).
    perl: bool,
    /// The indentation of its YAML block's `---`: keys are there, a
    /// multi-line value deeper.
    indent: usize,
    /// node-tap's `at:` mapping, read key by key.
    at_file: Option<String>,
    at_line: Option<u64>,
    at_col: Option<u64>,
}

/// The `tap` parser.
#[derive(Debug, Default)]
pub(crate) struct Tap {
    pending: Option<Pending>,
    /// The indentation of each `not ok` point seen and not yet closed by a
    /// point less indented: a `not ok` with one deeper is their suite.
    failed: Vec<usize>,
}

impl Tap {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        let Some(p) = self.pending.take() else {
            return;
        };
        if p.suite {
            return;
        }
        let mut message = p.message;
        let mut details = p.details;
        // node's `error` says it already; tape has only these.
        if let (true, Some(expected), Some(actual)) = (details.is_empty(), p.expected, p.actual) {
            details.push(format!("expected: {expected}, actual: {actual}"));
        }
        for detail in details.iter().take(MAX_DETAIL) {
            if !message.is_empty() {
                message.push('\n');
            }
            message.push_str(detail);
        }
        if message.is_empty() {
            message = "failed".into();
        }
        let mapped = match (p.at_file, p.at_line) {
            (Some(file), Some(line)) => Some((file, line, p.at_col)),
            _ => None,
        };
        let place = p.stack.or(p.at).or(p.location).or(mapped);
        out.push(Diagnostic {
            file: place.as_ref().map(|(f, _, _)| f.clone()),
            line: place.as_ref().map(|(_, l, _)| *l),
            column: place.as_ref().and_then(|(_, _, c)| *c),
            severity: DiagSeverity::Error,
            message,
            ..Default::default()
        });
    }

    /// A line of the YAML block of the failure being read.
    fn yaml(&mut self, line: &str) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        let trimmed = line.trim();
        // A key of the block (`  error: |-`), or a line of the block's
        // multi-line value (indented further).
        let key = trimmed.split_once(':').filter(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let indent = line.len() - line.trim_start().len();
        let in_value = matches!(
            p.yaml,
            Some(Block::Error | Block::Stack | Block::Diff | Block::At)
        ) && indent > p.indent;
        if let (Some((key, value)), false) = (key, in_value) {
            let value = value.trim();
            p.yaml = Some(match (key, value) {
                ("error", "|-" | "|" | ">-") => Block::Error,
                ("stack", "|-" | "|" | ">-") => Block::Stack,
                ("diff", "|-" | "|" | ">-") => Block::Diff,
                ("at", "") => Block::At,
                _ => Block::Keys,
            });
            let unquoted = value.trim_matches('\'');
            match key {
                "location" => p.location = place(unquoted),
                "at" => p.at = place(value),
                "error" if !value.starts_with(['|', '>']) && !unquoted.is_empty() => {
                    p.details.push(unquoted.to_string())
                }
                "expected" => p.expected = Some(value.to_string()),
                "actual" => p.actual = Some(value.to_string()),
                "failureType" => p.suite |= unquoted == "subtestsFailed",
                _ => {}
            }
            return;
        }
        match p.yaml {
            Some(Block::Error) if !trimmed.is_empty() && p.details.len() < MAX_DETAIL => {
                p.details.push(trimmed.to_string())
            }
            Some(Block::Diff)
                if p.details.len() < MAX_DETAIL
                    && trimmed.starts_with(['-', '+'])
                    && !trimmed.starts_with("---")
                    && !trimmed.starts_with("+++") =>
            {
                p.details.push(trimmed.to_string())
            }
            Some(Block::At) => {
                if let Some((key, value)) = trimmed.split_once(':') {
                    let value = value.trim().trim_matches('\'');
                    match key {
                        "fileName" => p.at_file = Some(value.to_string()),
                        "lineNumber" => p.at_line = super::position(value),
                        "columnNumber" => p.at_col = super::position(value),
                        _ => {}
                    }
                }
            }
            Some(Block::Stack) if p.stack.is_none() => {
                let frame = trimmed.trim_start_matches("at ");
                if !frame.contains("node:") && !frame.contains("node_modules") {
                    p.stack = place(frame);
                }
            }
            _ => {}
        }
    }
}

/// `file:line:col` at the end of `text`.
fn place(text: &str) -> Option<(String, u64, Option<u64>)> {
    let caps = PLACE.captures(text)?;
    let file = caps["file"].trim_start_matches("file://").to_string();
    Some((file, caps["line"].parse().ok()?, caps["col"].parse().ok()))
}

impl LineParser for Tap {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        let trimmed = line.trim();
        if let Some(p) = self.pending.as_mut() {
            if p.yaml.is_some() {
                if trimmed == "..." {
                    self.flush(out);
                } else {
                    self.yaml(line);
                }
                return true;
            }
            if !p.perl && trimmed == "---" {
                p.yaml = Some(Block::Keys);
                p.indent = line.len() - line.trim_start().len();
                return true;
            }
            if p.perl {
                if let Some(caps) = AT_LINE.captures(line)
                    && p.at.is_none()
                {
                    p.at = caps["line"]
                        .parse()
                        .ok()
                        .map(|n| (caps["file"].to_string(), n, None));
                    return true;
                }
                if let Some(caps) = DETAIL.captures(line)
                    && !line.starts_with("# Looks like")
                {
                    if p.details.len() < MAX_DETAIL {
                        p.details.push(caps["text"].trim().to_string());
                    }
                    return true;
                }
            }
            self.flush(out);
        }
        if let Some(caps) = NOT_OK.captures(line) {
            if caps.name("directive").is_some() {
                return true;
            }
            let indent = line.len() - line.trim_start().len();
            let suite = self.failed.iter().any(|&i| i > indent);
            self.failed.retain(|&i| i < indent);
            self.failed.push(indent);
            let desc = caps.name("desc").map_or("", |m| m.as_str());
            // node-tap's `# time=1.2ms` comment is no part of the name.
            let desc = desc.split(" # time=").next().unwrap_or(desc);
            self.pending = Some(Pending {
                message: desc.trim().to_string(),
                suite,
                ..Pending::default()
            });
            return true;
        }
        if let Some(ok) = OK.find(line) {
            // A passing point closes the failed points deeper than it.
            let indent = ok.as_str().len() - ok.as_str().trim_start().len();
            self.failed.retain(|&i| i <= indent);
        }
        if line.starts_with('#')
            && let Some(caps) = FAILED_TEST.captures(line)
        {
            let at = caps.name("file").and_then(|file| {
                Some((file.as_str().to_string(), caps["line"].parse().ok()?, None))
            });
            self.pending = Some(Pending {
                message: caps.name("name").map_or("", |m| m.as_str()).to_string(),
                at,
                perl: true,
                ..Pending::default()
            });
            return true;
        }
        OTHER.is_match(line)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;

    fn parse(text: &str) -> Vec<Diagnostic> {
        feed(&mut Tap::default(), text).0
    }

    fn at(file: &str, line: u64, column: Option<u64>, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            column,
            severity: DiagSeverity::Error,
            message: message.into(),
            ..Default::default()
        }
    }

    #[test]
    fn node_test_failures_are_placed_at_the_assertion() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tap/node-test.txt"
            )),
            [at(
                "/work/proj/test/add.test.js",
                9,
                Some(10),
                "subtracts\nExpected values to be strictly equal:\n2 !== 3"
            )]
        );
    }

    #[test]
    fn tape_failures_are_placed_at_the_assertion() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tap/tape.txt"
            )),
            [at(
                "/work/proj/tape/add.js",
                9,
                Some(5),
                "five minus three\nexpected: 3, actual: 2"
            )]
        );
    }

    #[test]
    fn node_tap_failures_are_placed_at_the_assertion_once() {
        // The failed assertion, nested in its test and its file: those two
        // `not ok` points are its suites, no failures of their own.
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tap/node-tap.txt"
            )),
            [at(
                "test/add.test.js",
                9,
                Some(5),
                "five minus three\n-3\n+2"
            )]
        );
        // Without a stack, node-tap's `at:` mapping places it.
        let text = "    not ok 1 - nope\n      ---\n      at:\n        fileName: t/a.js\n        \
            lineNumber: 4\n        columnNumber: 7\n      ...\n";
        assert_eq!(parse(text), [at("t/a.js", 4, Some(7), "nope")]);
    }

    #[test]
    fn prove_failures_are_placed_at_the_test_line() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tap/prove.stderr.txt"
            )),
            [at(
                "t/basic.t",
                6,
                None,
                "subtracts\ngot: '2'\nexpected: '3'"
            )]
        );
        // `prove -v` on stdout: the point, unplaced.
        let verbose = parse(include_str!(
            "../../tests/fixtures/diagnostics/tap/prove-v.stdout.txt"
        ));
        assert_eq!(verbose.len(), 1, "{verbose:?}");
        assert_eq!(verbose[0].message, "subtracts");
        assert_eq!(verbose[0].file, None);
    }

    #[test]
    fn auto_recognises_every_capture() {
        for text in [
            include_str!("../../tests/fixtures/diagnostics/tap/node-test.txt"),
            include_str!("../../tests/fixtures/diagnostics/tap/tape.txt"),
            include_str!("../../tests/fixtures/diagnostics/tap/node-tap.txt"),
            include_str!("../../tests/fixtures/diagnostics/tap/prove.stderr.txt"),
            include_str!("../../tests/fixtures/diagnostics/tap/prove-v.stdout.txt"),
        ] {
            let mut auto = super::super::Auto::default();
            let mut out = Vec::new();
            for line in text.lines() {
                auto.line(line, &mut out);
            }
            auto.finish(&mut out);
            assert_eq!(out, parse(text), "{text}");
        }
    }

    #[test]
    fn todo_and_skip_points_and_suites_are_no_failures() {
        let text = "TAP version 13\nnot ok 1 - later # TODO not yet\nnot ok 2 - gone # skip no db\n\
            # Subtest: suite\n    not ok 1 - inner\n      ---\n      location: '/w/a.js:3:1'\n      ...\n\
            not ok 3 - suite\n  ---\n  failureType: 'subtestsFailed'\n  ...\n1..3\n";
        assert_eq!(parse(text), [at("/w/a.js", 3, Some(1), "inner")]);
    }
}
