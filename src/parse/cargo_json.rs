//! The `cargo-json` parser: `cargo build/clippy/test --message-format=json`
//! lines (and rustc's own `--error-format=json` lines): each
//! `compiler-message` with spans becomes one `Diagnostic` at its primary span. It
//! reads only lines that start with `{` and carry cargo's `reason` (or
//! rustc's `$message_type`); of the rest it reads only a failing test's
//! panic (`panic::Panics`: the test harness prints human text even then),
//! other tools' JSON is left alone, and span-less summaries (`failure-note`,
//! `aborting due to ...`) are never reported.

use serde_json::Value;

use super::panic::Panics;
use super::rustc::Rustc;
use super::{Diagnostic, LineParser};
use crate::config::DiagSeverity;

/// The `cargo_json` format.
#[derive(Debug, Default)]
pub(crate) struct CargoJson {
    /// A failing test's panic in the harness's human output.
    panics: Panics,
}

impl CargoJson {
    /// A fresh parser.
    pub(crate) fn new() -> CargoJson {
        CargoJson {
            panics: Panics::new(),
        }
    }
}

impl LineParser for CargoJson {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if !line.starts_with('{') {
            return self.panics.line(line, out);
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(_) => return salvage(line, out),
        };
        let message = if let Some(reason) = value.get("reason").and_then(Value::as_str) {
            if reason != "compiler-message" {
                return true;
            }
            value.get("message")
        } else if value.get("$message_type").and_then(Value::as_str) == Some("diagnostic") {
            Some(&value)
        } else {
            return false;
        };
        if let Some(found) = message.and_then(diagnostic) {
            out.push(found);
        }
        true
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.panics.finish(out);
    }
}

/// A rustc JSON diagnostic; `None` for span-less ones (summaries, notes
/// about the whole crate) and for unknown levels (`failure-note`).
fn diagnostic(message: &Value) -> Option<Diagnostic> {
    let level = message.get("level")?.as_str()?;
    let severity = DiagSeverity::from_word(level)
        .or_else(|| level.starts_with("error").then_some(DiagSeverity::Error))?;
    let spans = message.get("spans")?.as_array()?;
    let span = spans
        .iter()
        .find(|s| s.get("is_primary").and_then(Value::as_bool) == Some(true))
        .or_else(|| spans.first())?;
    let text = message
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(Diagnostic {
        file: span
            .get("file_name")
            .and_then(Value::as_str)
            .map(str::to_string),
        line: span.get("line_start").and_then(Value::as_u64),
        column: span.get("column_start").and_then(Value::as_u64),
        severity,
        rule: message
            .get("code")
            .and_then(|c| c.get("code"))
            .and_then(Value::as_str)
            .map(str::to_string),
        message: text.to_string(),
        suggestion: message
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(suggestion),
        ..Default::default()
    })
}

/// A child with a `suggested_replacement`: its message, followed by the
/// replacement when there is exactly one short one (as rustc renders it
/// inline: `prefix it with an underscore: `_x``).
fn suggestion(child: &Value) -> Option<String> {
    let replacements: Vec<&str> = child
        .get("spans")?
        .as_array()?
        .iter()
        .filter_map(|s| s.get("suggested_replacement").and_then(Value::as_str))
        .collect();
    if replacements.is_empty() {
        return None;
    }
    let help = child
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    Some(match replacements.as_slice() {
        [one] if !one.is_empty() && !one.contains('\n') && !help.is_empty() => {
            format!("{help}: `{one}`")
        }
        [one] if help.is_empty() => one.to_string(),
        _ => help.to_string(),
    })
}

/// A compiler message too long to parse (the collector cuts lines at
/// `MAX_LINE`): its `rendered` text comes first, so read the human form
/// from what is left. Returns whether the line was cargo's.
fn salvage(line: &str, out: &mut Vec<Diagnostic>) -> bool {
    let cargo = line.starts_with(r#"{"reason":""#);
    let compiler_message = line.starts_with(r#"{"reason":"compiler-message""#)
        || line.starts_with(r#"{"$message_type":"diagnostic""#);
    if !compiler_message {
        return cargo;
    }
    let Some(at) = line.find(r#""rendered":""#) else {
        return true;
    };
    let (rendered, complete) = json_string_prefix(&line[at + r#""rendered":""#.len()..]);
    let mut lines: Vec<&str> = rendered.split('\n').collect();
    if !complete {
        // The last line may be cut anywhere, even inside a line number.
        lines.pop();
    }
    let mut parser = Rustc::new();
    let mut found = Vec::new();
    for text in lines {
        parser.line(&crate::sanitize::strip_escapes(text), &mut found);
    }
    parser.finish(&mut found);
    if let Some(first) = found.into_iter().next() {
        out.push(first);
    }
    true
}

/// Decodes a JSON string body up to its closing quote, or as far as it goes
/// when cut; returns the text and whether the closing quote was found.
fn json_string_prefix(body: &str) -> (String, bool) {
    let mut text = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return (text, true),
            '\\' => {
                let decoded = match chars.next() {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('b') => '\u{8}',
                    Some('f') => '\u{c}',
                    Some('u') => {
                        let hex: String = chars.by_ref().take(4).collect();
                        match u32::from_str_radix(&hex, 16) {
                            Ok(code) if hex.len() == 4 => {
                                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
                            }
                            _ => break,
                        }
                    }
                    Some(other) => other,
                    None => break,
                };
                text.push(decoded);
            }
            other => text.push(other),
        }
    }
    (text, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DiagSeverity::{Error, Warning};

    fn parse_all(text: &str) -> (Vec<Diagnostic>, usize) {
        let mut parser = CargoJson::new();
        let mut out = Vec::new();
        let mut claimed = 0;
        for line in text.lines() {
            if parser.line(line, &mut out) {
                claimed += 1;
            }
        }
        parser.finish(&mut out);
        (out, claimed)
    }

    fn f(
        line: u64,
        column: u64,
        severity: DiagSeverity,
        rule: &str,
        message: &str,
        suggestion: Option<&str>,
    ) -> Diagnostic {
        Diagnostic {
            file: Some("src/main.rs".into()),
            line: Some(line),
            column: Some(column),
            severity,
            rule: Some(rule.into()),
            message: message.into(),
            suggestion: suggestion.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn build_errors_skip_failure_notes() {
        let text = include_str!("../../tests/fixtures/diagnostics/cargo-json/build.txt");
        let (found, claimed) = parse_all(text);
        assert_eq!(
            found,
            vec![
                f(
                    9,
                    20,
                    Error,
                    "E0425",
                    "cannot find value `totl` in this scope",
                    Some("a local variable with a similar name exists: `total`"),
                ),
                f(7, 22, Error, "E0308", "mismatched types", None),
                f(8, 22, Error, "E0308", "mismatched types", None),
            ]
        );
        assert_eq!(claimed, text.lines().count());
    }

    #[test]
    fn clippy_codes_and_suggestions() {
        let text = include_str!("../../tests/fixtures/diagnostics/cargo-json/clippy.txt");
        let (found, claimed) = parse_all(text);
        assert_eq!(
            found,
            vec![
                f(
                    3,
                    5,
                    Warning,
                    "unused_imports",
                    "unused import: `std::collections::HashMap`",
                    Some("remove the whole `use` item"),
                ),
                f(
                    10,
                    9,
                    Warning,
                    "unused_variables",
                    "unused variable: `unused`",
                    Some("if this is intentional, prefix it with an underscore: `_unused`"),
                ),
                f(
                    6,
                    5,
                    Error,
                    "clippy::needless_return",
                    "unneeded `return` statement",
                    Some("remove `return`"),
                ),
                f(
                    12,
                    8,
                    Warning,
                    "clippy::len_zero",
                    "length comparison to zero",
                    Some("using `is_empty` is clearer and more explicit: `v.is_empty()`"),
                ),
                f(
                    11,
                    13,
                    Warning,
                    "clippy::useless_vec",
                    "useless use of `vec!`",
                    Some("you can use an array directly: `[1, 2, 3]`"),
                ),
            ]
        );
        assert_eq!(claimed, text.lines().count());
    }

    #[test]
    fn of_the_test_harness_output_only_the_panic_is_read() {
        let text = include_str!("../../tests/fixtures/diagnostics/cargo-json/test.txt");
        let (found, claimed) = parse_all(text);
        let unused = Diagnostic {
            file: Some("src/lib.rs".into()),
            line: Some(2),
            column: Some(9),
            severity: Warning,
            rule: Some("unused_variables".into()),
            message: "unused variable: `spare`".into(),
            suggestion: Some(
                "if this is intentional, prefix it with an underscore: `_spare`".into(),
            ),
            ..Default::default()
        };
        let panic = Diagnostic {
            file: Some("src/lib.rs".into()),
            line: Some(10),
            column: Some(9),
            severity: Error,
            rule: Some("panic".into()),
            message: "panicked in `tests::half_of_four`: assertion `left == right` failed \
                      (left: 2, right: 3)"
                .into(),
            ..Default::default()
        };
        // Once for the library, once for its test harness; then the panic.
        assert_eq!(found, vec![unused.clone(), unused, panic]);
        // The JSON lines, the panic's header and its three message lines.
        assert_eq!(
            claimed,
            text.lines().filter(|l| l.starts_with('{')).count() + 4
        );
        let mut parser = CargoJson::new();
        let human = text.lines().filter(|l| !l.starts_with('{'));
        let claimed_human: Vec<&str> = human.filter(|l| parser.line(l, &mut Vec::new())).collect();
        assert_eq!(
            claimed_human,
            [
                "thread 'tests::half_of_four' (1) panicked at src/lib.rs:10:9:",
                "assertion `left == right` failed",
                "  left: 2",
                " right: 3"
            ]
        );
    }

    #[test]
    fn a_cut_line_is_read_from_its_rendered_text() {
        let text = include_str!("../../tests/fixtures/diagnostics/cargo-json/clippy.txt");
        let line = text.lines().nth(2).expect("the needless_return message");
        let cut = line
            .find("note: the lint level")
            .expect("the lint level note");
        let mut out = Vec::new();
        assert!(CargoJson::new().line(&line[..cut], &mut out));
        assert_eq!(
            out,
            vec![Diagnostic {
                file: Some("src/main.rs".into()),
                line: Some(6),
                column: Some(5),
                severity: Error,
                rule: Some("clippy::needless_return".into()),
                message: "unneeded `return` statement".into(),
                ..Default::default()
            }]
        );
        // Cut inside the location: no half-read line number.
        let at = line.find("src/main.rs:6:5").expect("location") + "src/main.rs:".len();
        let mut out = Vec::new();
        assert!(CargoJson::new().line(&line[..at], &mut out));
        assert_eq!(out[0].line, None);
        assert_eq!(out[0].message, "unneeded `return` statement");
    }

    #[test]
    fn foreign_and_summary_lines() {
        let mut parser = CargoJson::new();
        let mut out = Vec::new();
        for line in [
            r#"{"type":"test","event":"failed","name":"tests::x"}"#,
            r#"{"file":"a.js","messages":[]}"#,
            "{not json",
            "running 1 test",
            " {\"reason\":\"build-finished\",\"success\":true}",
        ] {
            assert!(!parser.line(line, &mut out), "{line}");
        }
        for line in [
            r#"{"reason":"build-finished","success":false}"#,
            r#"{"reason":"compiler-message","message":{"$message_type":"diagnostic","level":"error","message":"aborting due to 2 previous errors","code":null,"spans":[],"children":[],"rendered":"error: aborting due to 2 previous errors\n\n"}}"#,
            r#"{"reason":"compiler-message","message":{"$message_type":"diagnostic","level":"failure-note","message":"For more information about this error, try `rustc --explain E0308`.","code":null,"spans":[],"children":[],"rendered":null}}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"x"},"truncated"#,
        ] {
            assert!(parser.line(line, &mut out), "{line}");
        }
        assert_eq!(out, vec![]);
    }

    #[test]
    fn rustc_error_format_json() {
        let text = include_str!("../../tests/fixtures/diagnostics/cargo-json/rustc-json.txt");
        let (found, _) = parse_all(text);
        let file = |mut found: Diagnostic| {
            found.file = Some("main.rs".into());
            found
        };
        assert_eq!(
            found,
            vec![
                file(f(
                    9,
                    20,
                    Error,
                    "E0425",
                    "cannot find value `totl` in this scope",
                    Some("a local variable with a similar name exists: `total`"),
                )),
                file(f(7, 22, Error, "E0308", "mismatched types", None)),
                file(f(8, 22, Error, "E0308", "mismatched types", None)),
            ]
        );
    }

    #[test]
    fn json_strings_are_decoded_up_to_the_cut() {
        assert_eq!(
            json_string_prefix(r#"a\nb\"c\u00e9\\" tail"#),
            ("a\nb\"cé\\".into(), true)
        );
        assert_eq!(json_string_prefix(r#"abc\u00"#), ("abc".into(), false));
        assert_eq!(json_string_prefix(r#"abc\"#), ("abc".into(), false));
    }
}
