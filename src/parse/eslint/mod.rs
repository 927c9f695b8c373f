//! The `eslint` parser: the default `stylish` formatter and the `compact`
//! formatter (the `eslint-formatter-compact` package since eslint 9).
//!
//! - stylish is stateful: a file's absolute path alone on a line, then one
//!   indented line per problem, `  3:7  error  'x' is ... never used
//!   no-unused-vars` (columns separated by at least two spaces; no rule for
//!   parse errors). The path line only remembers the file: it yields
//!   nothing and is not claimed, since any absolute path printed alone
//!   looks the same. A problem line counts only right after the path line
//!   or another problem line; a blank or any other line forgets the file.
//! - compact: `/abs/a.js: line 3, col 7, Error - 'x' is ... used. (rule)`,
//!   the rule in parentheses at the end when there is one.
//!
//! Line and column `0` (`0:0  warning  File ignored because ...`) mean no
//! position and are left empty. The `✖ 9 problems (...)` and `9 problems`
//! summaries are claimed but are no diagnostics. It must not report an
//! indented `3:7  error  ...` line that follows no path line: it has no file.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, position};
use run_check_documents::evidence::DiagSeverity;

/// An absolute path alone on a line: `/x/a.js`, `C:\x\a.js`, `\\host\x\a.js`.
static PATH: LazyLock<Regex> = regex!(r"^(?:/|[A-Za-z]:[\\/]|\\\\)\S.*$");

/// `  3:7  error  message  rule`.
static STYLISH: LazyLock<Regex> =
    regex!(r"^\s+(?P<line>\d+):(?P<column>\d+)\s+(?P<severity>error|warning)\s+(?P<rest>\S.*)$");

/// The rule column at the end of a stylish problem line.
static STYLISH_RULE: LazyLock<Regex> =
    regex!(r"^(?P<message>.*?\S)\s{2,}(?P<rule>[@A-Za-z][\w@/.-]*)$");

static COMPACT: LazyLock<Regex> = regex!(
    r"^(?P<file>\S.*?): line (?P<line>\d+), col (?P<column>\d+), (?P<severity>Error|Warning) - (?P<message>.*?)(?: \((?P<rule>[@A-Za-z][\w@/.-]*)\))?$"
);

/// The literal every compact line has, found before trying the regex.
static COMPACT_MARK: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(": line "));

static SUMMARY: LazyLock<Regex> =
    regex!(r"^(?:✖ \d+ problems? \(\d+ errors?, \d+ warnings?\)|\d+ problems?)$");

/// The `eslint` format.
#[derive(Debug, Default)]
pub(crate) struct Eslint {
    /// The file of the stylish block being read.
    file: Option<String>,
}

impl LineParser for Eslint {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(file) = &self.file
            && line.starts_with([' ', '\t'])
            && let Some(caps) = STYLISH.captures(line)
        {
            let rest = caps["rest"].trim_end();
            let (message, rule) = match STYLISH_RULE.captures(rest) {
                Some(split) => (
                    split["message"].to_string(),
                    Some(split["rule"].to_string()),
                ),
                None => (rest.to_string(), None),
            };
            out.push(Diagnostic {
                file: Some(file.clone()),
                line: position(&caps["line"]),
                column: position(&caps["column"]),
                severity: DiagSeverity::from_word(&caps["severity"]).unwrap_or_default(),
                rule,
                message,
                ..Default::default()
            });
            return true;
        }
        self.file = None;
        if COMPACT_MARK.find(line.as_bytes()).is_some()
            && let Some(caps) = COMPACT.captures(line)
        {
            out.push(Diagnostic {
                file: Some(caps["file"].to_string()),
                line: position(&caps["line"]),
                column: position(&caps["column"]),
                severity: DiagSeverity::from_word(&caps["severity"]).unwrap_or_default(),
                rule: caps.name("rule").map(|m| m.as_str().to_string()),
                message: caps["message"].to_string(),
                ..Default::default()
            });
            return true;
        }
        if (line.starts_with(['/', '\\']) || line.as_bytes().get(1) == Some(&b':'))
            && PATH.is_match(line)
        {
            self.file = Some(line.trim_end().to_string());
            return false;
        }
        (line.ends_with(')') || line.ends_with("problem") || line.ends_with("problems"))
            && SUMMARY.is_match(line)
    }

    fn interrupted(&mut self, _out: &mut Vec<Diagnostic>) {
        // A stylish block does not go on across another tool's line.
        self.file = None;
    }
}

#[cfg(test)]
mod tests;
