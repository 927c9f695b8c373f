//! The `gcc` parser: one-line `file:line[:col]: [severity:] message [rule]`
//! diagnostics from gcc, clang, `shellcheck -f gcc`, `eslint -f unix`, and —
//! only when no severity word is required — ruff's concise output and
//! go vet. It must never invent a diagnostic from a line that merely looks
//! like `a:1:2: text` (timestamps, URLs, log lines), and never treats gcc's
//! `In function` context lines or source/caret lines as diagnostics.

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// The `gcc` format.
#[derive(Debug, Default)]
pub(crate) struct Gcc {
    /// Claim only lines with an explicit severity (a severity word, or
    /// eslint's `[Error/rule]`); used by `auto`.
    require_severity: bool,
}

impl Gcc {
    /// A fresh parser; `require_severity` keeps it from claiming lines that
    /// carry no severity of their own (ruff, go vet).
    pub(crate) fn new(require_severity: bool) -> Gcc {
        Gcc { require_severity }
    }

    fn parse(&self, line: &str) -> Option<Diagnostic> {
        let loc = split_location(line)?;
        let rest = loc.rest.trim_end();
        let found = |severity, rule, message: &str| {
            (!message.is_empty()).then(|| Diagnostic {
                file: Some(loc.file.to_string()),
                line: Some(loc.line),
                column: loc.column,
                severity,
                rule,
                message: message.to_string(),
                ..Default::default()
            })
        };
        if let Some((severity, code, message)) = severity_prefix(rest) {
            let (message, rule) = trailing_rule(message);
            return found(severity, code.or(rule), message);
        }
        if let Some((message, severity, rule)) = eslint_bracket(rest) {
            return found(severity, rule, message);
        }
        // No severity of its own: only with a column, a plain file name, and
        // never under `auto`.
        if self.require_severity || loc.column.is_none() || loc.file.contains(char::is_whitespace) {
            return None;
        }
        if let Some((code, message)) = ruff_code(rest) {
            return found(DiagSeverity::Error, Some(code.to_string()), message);
        }
        let (message, rule) = trailing_rule(rest);
        found(DiagSeverity::Error, rule, message)
    }
}

impl LineParser for Gcc {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        match self.parse(line) {
            Some(found) => {
                out.push(found);
                true
            }
            None => false,
        }
    }
}

/// The `file:line[:col]: ` head of a compiler-style line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Location<'a> {
    /// The file as printed.
    pub(crate) file: &'a str,
    /// 1-based line.
    pub(crate) line: u64,
    /// 1-based column, when printed.
    pub(crate) column: Option<u64>,
    /// What follows `: ` after the location.
    pub(crate) rest: &'a str,
}

/// Splits `file:line:col: rest` or `file:line: rest`. Refuses lines that
/// start with whitespace, files that are all digits or timestamp-like
/// (`12:30:45: x`, `2024-01-01T12:30:45: x`), URLs (`http://host:8080: x`),
/// and relative files containing whitespace (`Error at 12:30:45: x`).
pub(crate) fn split_location(line: &str) -> Option<Location<'_>> {
    if line.is_empty() || line.starts_with(char::is_whitespace) {
        return None;
    }
    let bytes = line.as_bytes();
    let drive = bytes.len() > 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes[2] == b'\\' || bytes[2] == b'/');
    let mut from = if drive { 2 } else { 0 };
    loop {
        let colon = from + line[from..].find(':')?;
        let after = &line[colon + 1..];
        let digits = leading_digits(after);
        if digits == 0 || !after[digits..].starts_with(':') {
            from = colon + 1;
            continue;
        }
        let file = &line[..colon];
        let number = after[..digits].parse().ok()?;
        let tail = &after[digits + 1..];
        let col_digits = leading_digits(tail);
        let (column, rest) = if col_digits > 0 && tail[col_digits..].starts_with(": ") {
            (
                Some(tail[..col_digits].parse().ok()?),
                &tail[col_digits + 2..],
            )
        } else if let Some(rest) = tail.strip_prefix(' ') {
            (None, rest)
        } else {
            return None;
        };
        if !plausible_file(file, drive) || number == 0 {
            return None;
        }
        return Some(Location {
            file,
            line: number,
            column,
            rest,
        });
    }
}

fn leading_digits(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

fn plausible_file(file: &str, drive: bool) -> bool {
    if file.is_empty() || file.ends_with(char::is_whitespace) || file.contains("://") {
        return false;
    }
    // Timestamps and counters: nothing left once digits and date/time
    // punctuation (and the `T` of ISO 8601) are removed.
    let leftover: String = file
        .chars()
        .filter(|c| !c.is_ascii_digit() && !"-:.,/+[] T".contains(*c))
        .collect();
    if leftover.is_empty() {
        return false;
    }
    // A relative name with whitespace is prose, not a path.
    let absolute = drive || file.starts_with('/') || file.starts_with('\\');
    absolute || !file.contains(char::is_whitespace)
}

/// A gcc-style severity word at the start of `rest` (`error: `, `fatal
/// error: `, `warning: `, `note: `, `remark: `, rustc's short
/// `error[E0425]: `): the severity, the bracketed code, and the message.
pub(crate) fn severity_prefix(rest: &str) -> Option<(DiagSeverity, Option<String>, &str)> {
    if let Some(message) = rest.strip_prefix("fatal error: ") {
        return Some((DiagSeverity::Error, None, message));
    }
    let word_end = rest.find(|c: char| !c.is_ascii_lowercase())?;
    let severity = match &rest[..word_end] {
        "error" => DiagSeverity::Error,
        "warning" => DiagSeverity::Warning,
        "note" => DiagSeverity::Note,
        "remark" => DiagSeverity::Info,
        _ => return None,
    };
    let after = &rest[word_end..];
    let (code, after) = match after.strip_prefix('[') {
        Some(bracketed) => {
            let close = bracketed.find(']')?;
            let code = &bracketed[..close];
            if code.is_empty()
                || !code
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            {
                return None;
            }
            (Some(code.to_string()), &bracketed[close + 1..])
        }
        None => (None, after),
    };
    let message = after.strip_prefix(": ")?;
    Some((severity, code, message.trim()))
}

/// A trailing ` [-Wflag]` (gcc, clang: also `[-Werror=x]`, `[-Werror,-Wx]`)
/// or ` [SC2086]` (shellcheck) becomes the rule, kept as printed.
fn trailing_rule(message: &str) -> (&str, Option<String>) {
    let message = message.trim();
    if let Some(open) = message.rfind(" [").filter(|_| message.ends_with(']')) {
        let inner = &message[open + 2..message.len() - 1];
        let flag = (inner.starts_with("-W") || inner.starts_with("-R")) && inner.len() > 2;
        let shellcheck = inner.len() > 2
            && inner.starts_with("SC")
            && inner[2..].bytes().all(|b| b.is_ascii_digit());
        if (flag || shellcheck) && !inner.contains(char::is_whitespace) {
            return (message[..open].trim_end(), Some(inner.to_string()));
        }
    }
    (message, None)
}

/// eslint's unix formatter: `message [Error/rule]`, `message [Warning/rule]`
/// or, for parse errors, `message [Error]`.
fn eslint_bracket(rest: &str) -> Option<(&str, DiagSeverity, Option<String>)> {
    let inner = rest.strip_suffix(']')?;
    let open = inner.rfind(" [")?;
    let (level, rule) = match inner[open + 2..].split_once('/') {
        Some((level, rule)) => (level, Some(rule)),
        None => (&inner[open + 2..], None),
    };
    let severity = match level {
        "Error" => DiagSeverity::Error,
        "Warning" => DiagSeverity::Warning,
        _ => return None,
    };
    if rule.is_some_and(|r| r.is_empty() || r.contains(char::is_whitespace)) {
        return None;
    }
    let message = inner[..open].trim_end();
    Some((message, severity, rule.map(str::to_string)))
}

/// ruff's concise output: `F401 [*] message`, `E711 message`, and syntax
/// errors `invalid-syntax: message` (older ruff: `SyntaxError: message`).
fn ruff_code(rest: &str) -> Option<(&str, &str)> {
    for word in ["invalid-syntax", "SyntaxError"] {
        if let Some(message) = rest.strip_prefix(word).and_then(|r| r.strip_prefix(": ")) {
            return Some((word, message.trim()));
        }
    }
    let (code, message) = rest.split_once(' ')?;
    let letters = code.bytes().take_while(u8::is_ascii_uppercase).count();
    let numbers = &code[letters..];
    if !(1..=5).contains(&letters)
        || numbers.is_empty()
        || numbers.len() > 5
        || !numbers.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let message = message.strip_prefix("[*] ").unwrap_or(message);
    Some((code, message.trim()))
}

#[cfg(test)]
mod tests;
