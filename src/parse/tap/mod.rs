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

use serde_norway::Value as YamlValue;

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

/// YAML block lines kept per failure (the rest until `...` are read and
/// dropped): a block is a few dozen lines; this bounds a runaway one.
const MAX_YAML_LINES: usize = 500;

/// One failure being read.
#[derive(Debug, Default)]
struct Pending {
    message: String,
    details: Vec<String>,
    /// Where the failure is: from `stack` (the assertion), tape's `at`,
    /// node's `location`, node-tap's `at` mapping, Test::More's `at`.
    place: Option<(String, u64, Option<u64>)>,
    /// A node suite whose subtests failed.
    suite: bool,
    /// Inside its YAML block: the block's lines so far.
    yaml: Option<Vec<String>>,
    /// A Test::More failure (its details are `#` lines).
    perl: bool,
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
        let Some(mut p) = self.pending.take() else {
            return;
        };
        // A block cut off by the end of the output is read as far as it went.
        if let Some(lines) = p.yaml.take() {
            yaml_block(&mut p, &lines);
        }
        if p.suite {
            return;
        }
        let mut message = p.message;
        for detail in p.details.iter().take(MAX_DETAIL) {
            if !message.is_empty() {
                message.push('\n');
            }
            message.push_str(detail);
        }
        if message.is_empty() {
            message = "failed".into();
        }
        out.push(Diagnostic {
            file: p.place.as_ref().map(|(f, _, _)| f.clone()),
            line: p.place.as_ref().map(|(_, l, _)| *l),
            column: p.place.as_ref().and_then(|(_, _, c)| *c),
            severity: DiagSeverity::Error,
            message,
            ..Default::default()
        });
    }
}

/// Reads a failure's YAML diagnostic block (its lines between `---` and
/// `...`) as YAML, with the YAML crate: the keys are placed at any
/// indentation and a value may be a block scalar (`expected: |-` then the
/// indented value), a quoted string or a mapping. A block that is no YAML
/// mapping adds nothing: the failure keeps its description, unplaced.
fn yaml_block(p: &mut Pending, lines: &[String]) {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut text = String::new();
    for line in lines {
        // A blank line may be shorter than the block's indentation.
        text.push_str(line.get(indent..).unwrap_or("").trim_end_matches('\r'));
        text.push('\n');
    }
    let Ok(YamlValue::Mapping(block)) = serde_norway::from_str::<YamlValue>(&text) else {
        return;
    };
    let get = |key: &str| block.get(key);
    let text_of = |key: &str| get(key).and_then(YamlValue::as_str);
    p.suite |= text_of("failureType") == Some("subtestsFailed");
    // node's `error` says it already; tape has only `expected`/`actual`.
    if let Some(error) = text_of("error") {
        p.details.extend(
            error
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    } else if let (Some(expected), Some(actual)) = (get("expected"), get("actual")) {
        p.details.extend(labelled("expected", expected));
        p.details.extend(labelled("actual", actual));
    } else if let Some(diff) = text_of("diff") {
        // node-tap's unified diff: its `-`/`+` lines, without the headers.
        p.details.extend(
            diff.lines()
                .map(str::trim)
                .filter(|l| l.starts_with(['-', '+']))
                .filter(|l| !l.starts_with("---") && !l.starts_with("+++"))
                .map(str::to_string),
        );
    }
    // The assertion's frame, else tape's `at`, node's `location` (the
    // test's declaration), node-tap's `at` mapping.
    let frame = text_of("stack").and_then(|stack| {
        stack
            .lines()
            .map(|l| l.trim().trim_start_matches("at "))
            .filter(|f| !f.contains("node:") && !f.contains("node_modules"))
            .find_map(place)
    });
    let at = get("at");
    let mapped = at.and_then(YamlValue::as_mapping).and_then(|at| {
        let number = |key: &str| match at.get(key)? {
            YamlValue::Number(n) => n.as_u64().filter(|&n| n > 0),
            YamlValue::String(s) => super::position(s),
            _ => None,
        };
        let file = at.get("fileName")?.as_str()?.to_string();
        Some((file, number("lineNumber")?, number("columnNumber")))
    });
    p.place = p
        .place
        .take()
        .or(frame)
        .or_else(|| at.and_then(YamlValue::as_str).and_then(place))
        .or_else(|| text_of("location").and_then(place))
        .or(mapped);
}

/// `expected: …` and its value, as the test tool printed it: a multi-line
/// value's further lines indented under it. A string that would read as a
/// number, a boolean or null is quoted, as tape quoted it (`'3'` against
/// `3`), so the two sides never look the same when their types differ.
fn labelled(label: &str, value: &YamlValue) -> Vec<String> {
    let text = match value {
        YamlValue::String(s) => match serde_norway::from_str::<YamlValue>(s) {
            Ok(YamlValue::String(_) | YamlValue::Sequence(_) | YamlValue::Mapping(_)) | Err(_) => {
                s.clone()
            }
            Ok(_) => format!("'{s}'"),
        },
        YamlValue::Null => "null".into(),
        other => serde_norway::to_string(other).unwrap_or_default(),
    };
    let mut lines = text.trim_end().lines();
    let mut out = vec![format!("{label}: {}", lines.next().unwrap_or(""))];
    out.extend(lines.map(|l| format!("  {l}")));
    out
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
            if let Some(lines) = p.yaml.as_mut() {
                if trimmed == "..." {
                    self.flush(out);
                } else if lines.len() < MAX_YAML_LINES {
                    lines.push(line.to_string());
                }
                return true;
            }
            if !p.perl && trimmed == "---" {
                p.yaml = Some(Vec::new());
                return true;
            }
            if p.perl {
                if let Some(caps) = AT_LINE.captures(line)
                    && p.place.is_none()
                {
                    p.place = caps["line"]
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
            let place = caps.name("file").and_then(|file| {
                Some((file.as_str().to_string(), caps["line"].parse().ok()?, None))
            });
            self.pending = Some(Pending {
                message: caps.name("name").map_or("", |m| m.as_str()).to_string(),
                place,
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
mod tests;
