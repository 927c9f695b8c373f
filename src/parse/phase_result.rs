//! The `phase-result` parser: the `PHASE_RESULT:` block an agent prints at
//! the end of a phase (docs/diagnostics.md) becomes
//! the check's `data`. It yields no diagnostics and must not decide anything
//! from the values (`status: failed` is data, not a verdict).
//!
//! A line containing `PHASE_RESULT:` opens a block; blank lines right after
//! the marker are skipped and the first line's indentation is dropped (the
//! agent loop's reference pattern, `PHASE_RESULT:\s*`), and text after the marker on its own line is
//! the block's first line. The block ends at
//! the next blank line (empty or whitespace only) or at the end of the
//! output. Inside it, every line matching the reference pattern `^-\s*(\w+):\s*(.+)$`
//! (`\w` being ASCII) gives a pair; the value is trimmed and kept as a JSON
//! string. Other lines inside the block (wrapped text, `* x: y`, `- a-b: c`,
//! `- key:` with no value) are consumed and ignored.
//!
//! Several blocks: unlike the reference parser, which reads the first block
//! only, every
//! block is read and merged, a later value replacing an earlier one per key
//! (an agent that reports again reports its latest state; keys of earlier
//! blocks that are not repeated stay). `data()` is `None` when no marker was
//! seen, and an empty object when blocks had no pair. At most
//! `MAX_PER_CHECK` distinct keys are kept, so memory stays bounded.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::{Diagnostic, LineParser, MAX_PER_CHECK};

const MARKER: &str = "PHASE_RESULT:";

/// `- key: value`, as the reference pattern matches it.
static PAIR: LazyLock<Regex> = regex!(r"^-\s*(?P<key>[A-Za-z0-9_]+):\s*(?P<value>.+)$");

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum State {
    /// Not in a block.
    #[default]
    Outside,
    /// After the marker, before the block's first non-blank line.
    Opened,
    /// In the block.
    Inside,
}

/// The `phase-result` format.
#[derive(Debug, Default)]
pub(crate) struct PhaseResult {
    state: State,
    /// Whether a marker was seen at all.
    seen: bool,
    data: Map<String, Value>,
}

impl PhaseResult {
    fn pair(&mut self, line: &str) {
        let Some(caps) = PAIR.captures(line) else {
            return;
        };
        let key = &caps["key"];
        if self.data.contains_key(key) || self.data.len() < MAX_PER_CHECK {
            self.data.insert(
                key.to_string(),
                Value::String(caps["value"].trim().to_string()),
            );
        }
    }
}

impl LineParser for PhaseResult {
    fn line(&mut self, line: &str, _out: &mut Vec<Diagnostic>) -> bool {
        if let Some(at) = line.find(MARKER) {
            self.seen = true;
            let rest = line[at + MARKER.len()..].trim_start();
            if rest.is_empty() {
                self.state = State::Opened;
            } else {
                self.state = State::Inside;
                self.pair(rest);
            }
            return true;
        }
        let blank = line.trim().is_empty();
        match self.state {
            State::Outside => false,
            State::Opened if blank => true,
            State::Inside if blank => {
                self.state = State::Outside;
                false
            }
            State::Opened => {
                // The reference `PHASE_RESULT:\s*` also swallows the first
                // line's indentation: `  - status: done` right after the
                // marker is a pair (later indented lines are not).
                self.state = State::Inside;
                self.pair(line.trim_start());
                true
            }
            State::Inside => {
                self.pair(line);
                true
            }
        }
    }

    fn data(&mut self) -> Option<Map<String, Value>> {
        self.seen.then(|| self.data.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;

    fn parse(text: &str) -> (Vec<Diagnostic>, Option<Map<String, Value>>) {
        let mut parser = PhaseResult::default();
        let (out, _) = feed(&mut parser, text);
        (out, parser.data())
    }

    fn map(pairs: &[(&str, &str)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect()
    }

    #[test]
    fn agent_output_merges_both_blocks() {
        let (found, data) = parse(include_str!(
            "../../tests/fixtures/diagnostics/phase-result/agent-output.txt"
        ));
        assert_eq!(found, vec![]);
        // The reference parser: the first block gives phase, status, files_changed,
        // summary, issues and url; the second overrides status and adds
        // iteration.
        assert_eq!(
            data,
            Some(map(&[
                ("phase", "cd"),
                ("status", "needs_review"),
                ("files_changed", "[src/parser.rs, tests/parser.rs]"),
                ("summary", "Parser implemented; one flaky test left"),
                (
                    "issues",
                    "tests/parser.rs::test_unicode fails on CRLF input"
                ),
                ("url", "https://example.com/runs/7:latest"),
                ("iteration", "2"),
            ]))
        );
    }

    #[test]
    fn claimed_lines() {
        let mut parser = PhaseResult::default();
        let mut out = Vec::new();
        let mut claimed = |line: &str| parser.line(line, &mut out);
        assert!(!claimed("- status: before any marker"));
        assert!(claimed("Final PHASE_RESULT:"));
        assert!(claimed(""));
        assert!(claimed("- status: ok"));
        assert!(claimed("free text inside"));
        assert!(!claimed("   "));
        assert!(!claimed("- status: after the block"));
        assert_eq!(parser.data(), Some(map(&[("status", "ok")])));
    }

    #[test]
    fn reference_pattern_edge_cases() {
        // Text after the marker, a value of spaces only (the pattern's `.+`
        // takes one space, trimmed away), no value at all, a key that is not
        // `\w+`, and a block that runs to the end of the output.
        let (_, data) = parse("PHASE_RESULT: - a: 1\n- b:   \n- c:\n- é: x\n-d:e:f\n");
        assert_eq!(data, Some(map(&[("a", "1"), ("b", ""), ("d", "e:f")])));
    }

    #[test]
    fn the_first_line_may_be_indented_as_in_the_reference_parser() {
        // The reference parser's regex (run with node) gives
        // {"status":"completed","test_pass_rate":"100"} for this output.
        let (_, data) = parse("PHASE_RESULT:\n  - status: completed\n- test_pass_rate: 100\n");
        assert_eq!(
            data,
            Some(map(&[("status", "completed"), ("test_pass_rate", "100")]))
        );
        // Blank lines, then a tab: still the first line. A later indented
        // line is not a pair for the reference parser either.
        let (_, data) = parse("PHASE_RESULT:\n\n\t- a: 1\n  - b: 2\n- c: 3\n");
        assert_eq!(data, Some(map(&[("a", "1"), ("c", "3")])));
    }

    #[test]
    fn no_marker_no_data_and_an_empty_block_is_empty_data() {
        assert_eq!(parse("status: done\n- status: done\n").1, None);
        assert_eq!(parse("PHASE_RESULT:\n\n\nsome text\n").1, Some(Map::new()));
    }

    #[test]
    fn keys_are_bounded() {
        let mut text = String::from("PHASE_RESULT:\n");
        for i in 0..MAX_PER_CHECK + 10 {
            text.push_str(&format!("- k{i}: v\n"));
        }
        text.push_str("- k0: last\n");
        let data = parse(&text).1.unwrap_or_default();
        assert_eq!(data.len(), MAX_PER_CHECK);
        assert_eq!(data["k0"], "last");
    }
}
