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
use run_check_documents::evidence::DiagSeverity;

/// The `cargo_json` format.
#[derive(Debug, Default)]
pub(crate) struct CargoJson {
    /// A failing test's panic in the harness's human output.
    panics: Panics,
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
        out.extend(message.and_then(diagnostic));
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
    let mut parser = Rustc::default();
    let mut found = Vec::new();
    for text in lines {
        parser.line(&crate::sanitize::strip_escapes(text), &mut found);
    }
    parser.finish(&mut found);
    out.extend(found.into_iter().next());
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
mod tests;
