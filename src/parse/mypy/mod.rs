//! The `mypy` parser: `file:line[:col[:endline:endcol]]: severity: message
//! [code]`, with the error code (`  [assignment]`, two spaces) as the rule.
//!
//! - `error:` and `warning:` lines, and `note:` lines as separate
//!   diagnostics of severity note (they usually explain the error before
//!   them; they are not merged into it).
//! - `file: severity: message` without a line (`Duplicate module named`,
//!   `Cannot read file`) keeps the file and leaves the line empty. The
//!   headings printed by `--show-error-context` (`file: note: In function
//!   "f":`, `In member ...`, `In class ...`, `At top level:`) are claimed
//!   but are no diagnostics.
//! - `--pretty` wraps a long error onto unindented lines (mypy wraps errors
//!   only, at spaces). An error without a code keeps its following
//!   unindented lines aside; when one of them ends with `  [code]`, or is
//!   `[code]` alone (the wrap fell between the two spaces), they are
//!   joined to the message with spaces, otherwise they are dropped and the
//!   error is reported as printed (`--hide-error-codes`). The indented
//!   source line and carets are not claimed.
//! - Config warnings (`mypy.ini: [mypy]: Unrecognized option: x = 1`) are
//!   warnings on the config file.
//!
//! It must not claim gcc or clang lines, which share the `file:line:col:
//! error:` shape and come after mypy in `auto`: the file must end in `.py`
//! or `.pyi`. The `Found N errors in M files` and `Success: no issues found`
//! summaries are claimed but are no diagnostics.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

static DIAGNOSTIC: LazyLock<Regex> = regex!(
    r"^(?P<file>(?:[A-Za-z]:)?[^:\s][^:]*?\.pyi?):(?:(?P<line>\d+):(?:(?P<column>\d+):(?:\d+:\d+:)?)?)? (?P<severity>error|warning|note): (?P<message>.*)$"
);

/// The error code mypy appends after two spaces.
static CODE: LazyLock<Regex> = regex!(r"^(?P<message>.*?)  \[(?P<rule>[a-z][a-z0-9-]*)\]$");

/// A wrapped error's code alone on its line.
static ALONE: LazyLock<Regex> = regex!(r"^\[(?P<rule>[a-z][a-z0-9-]*)\]$");

/// `--show-error-context` headings.
static CONTEXT: LazyLock<Regex> =
    regex!(r#"^(?:In (?:function|member|class) ".*":|At top level:)$"#);

static CONFIG: LazyLock<Regex> =
    regex!(r"^(?P<file>[^:\s][^:]*): \[mypy(?:-[^\]]*)?\]: (?P<message>.+)$");

static SUMMARY: LazyLock<Regex> = regex!(
    r"^(?:Found \d+ errors? in \d+ files?(?: \(.*\))?|Success: no issues found in \d+ source files?)$"
);

/// A mypy line names a `.py`/`.pyi` file: a cheap test before the regex.
fn may_be_diagnostic(line: &str) -> bool {
    static PY: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(".py"));
    PY.find(line.as_bytes()).is_some()
}

fn is_diagnostic(line: &str) -> bool {
    may_be_diagnostic(line) && DIAGNOSTIC.is_match(line)
}

fn is_summary(line: &str) -> bool {
    (line.starts_with("Found ") || line.starts_with("Success: ")) && SUMMARY.is_match(line)
}

/// Lines kept aside while waiting for a wrapped error's code.
const MAX_WRAPPED: usize = 8;

/// The `mypy` format.
#[derive(Debug, Default)]
pub(crate) struct Mypy {
    /// An error printed without a code, perhaps wrapped by `--pretty`.
    pending: Option<Diagnostic>,
    /// Unindented lines after `pending`, until one ends with a code.
    wrapped: Vec<String>,
}

impl Mypy {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        self.wrapped.clear();
        out.extend(self.pending.take());
    }

    /// A line after an error without a code: is it the end of the error?
    fn continue_wrapped(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        let Some(pending) = &mut self.pending else {
            return false;
        };
        let candidate = !line.is_empty()
            && !line.starts_with([' ', '\t'])
            && !is_diagnostic(line)
            && !is_summary(line);
        if !candidate || self.wrapped.len() == MAX_WRAPPED {
            self.flush(out);
            return false;
        }
        self.wrapped.push(line.trim_end().to_string());
        let (earlier, last) = self.wrapped.split_at(self.wrapped.len() - 1);
        let (message, rule) = match (ALONE.captures(&last[0]), earlier.is_empty()) {
            // The wrap fell between the two spaces before the code, leaving
            // `[code]` alone on its line (and one space trimmed above it).
            (Some(caps), true) => (pending.message.clone(), caps["rule"].to_string()),
            (Some(caps), false) => (
                format!("{} {}", pending.message, earlier.join(" ")),
                caps["rule"].to_string(),
            ),
            (None, _) => {
                let joined = format!("{} {}", pending.message, self.wrapped.join(" "));
                let Some(caps) = CODE.captures(&joined) else {
                    return false;
                };
                (caps["message"].to_string(), caps["rule"].to_string())
            }
        };
        pending.message = message;
        pending.rule = Some(rule);
        self.flush(out);
        true
    }
}

impl LineParser for Mypy {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if self.continue_wrapped(line, out) {
            return true;
        }
        if let Some(caps) = may_be_diagnostic(line)
            .then(|| DIAGNOSTIC.captures(line))
            .flatten()
        {
            self.flush(out);
            let severity = DiagSeverity::from_word(&caps["severity"]).unwrap_or_default();
            let text = &caps["message"];
            if caps.name("line").is_none()
                && severity == DiagSeverity::Note
                && CONTEXT.is_match(text)
            {
                return true;
            }
            let number = |name: &str| caps.name(name).and_then(|m| m.as_str().parse().ok());
            let (message, rule) = match CODE.captures(text) {
                Some(code) => (code["message"].to_string(), Some(code["rule"].to_string())),
                None => (text.trim_end().to_string(), None),
            };
            let found = Diagnostic {
                file: Some(caps["file"].to_string()),
                line: number("line"),
                column: number("column"),
                severity,
                rule,
                message,
                ..Default::default()
            };
            if found.rule.is_none() && severity == DiagSeverity::Error {
                self.pending = Some(found);
            } else {
                out.push(found);
            }
            return true;
        }
        if let Some(caps) = line
            .contains(": [mypy")
            .then(|| CONFIG.captures(line))
            .flatten()
        {
            out.push(Diagnostic {
                file: Some(caps["file"].to_string()),
                severity: DiagSeverity::Warning,
                message: caps["message"].to_string(),
                ..Diagnostic::default()
            });
            return true;
        }
        is_summary(line)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
mod tests;
