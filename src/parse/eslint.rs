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

use super::{Diagnostic, LineParser};
use crate::config::DiagSeverity;

/// An absolute path alone on a line: `/x/a.js`, `C:\x\a.js`, `\\host\x\a.js`.
static PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:/|[A-Za-z]:[\\/]|\\\\)\S.*$").expect("valid regex"));

/// `  3:7  error  message  rule`.
static STYLISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+(?P<line>\d+):(?P<column>\d+)\s+(?P<severity>error|warning)\s+(?P<rest>\S.*)$")
        .expect("valid regex")
});

/// The rule column at the end of a stylish problem line.
static STYLISH_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<message>.*?\S)\s{2,}(?P<rule>[@A-Za-z][\w@/.-]*)$").expect("valid regex")
});

static COMPACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<file>\S.*?): line (?P<line>\d+), col (?P<column>\d+), (?P<severity>Error|Warning) - (?P<message>.*?)(?: \((?P<rule>[@A-Za-z][\w@/.-]*)\))?$",
    )
    .expect("valid regex")
});

/// The literal every compact line has, found before trying the regex.
static COMPACT_MARK: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(": line "));

static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:✖ \d+ problems? \(\d+ errors?, \d+ warnings?\)|\d+ problems?)$")
        .expect("valid regex")
});

/// The `eslint` format.
#[derive(Debug, Default)]
pub(crate) struct Eslint {
    /// The file of the stylish block being read.
    file: Option<String>,
}

impl Eslint {
    /// A fresh parser.
    pub(crate) fn new() -> Eslint {
        Eslint::default()
    }
}

/// A position, `0` being none.
fn position(text: &str) -> Option<u64> {
    text.parse().ok().filter(|&n| n > 0)
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
mod tests {
    use super::*;
    use crate::sanitize::strip_escapes;

    fn parse(text: &str) -> Vec<Diagnostic> {
        let mut parser = Eslint::new();
        let mut out = Vec::new();
        for line in text.lines() {
            parser.line(&strip_escapes(line), &mut out);
        }
        parser.finish(&mut out);
        out
    }

    fn problem(
        file: &str,
        at: (u64, u64),
        severity: DiagSeverity,
        rule: Option<&str>,
        message: &str,
    ) -> Diagnostic {
        Diagnostic {
            file: Some(format!("/work/proj/src/{file}")),
            line: Some(at.0).filter(|&n| n > 0),
            column: Some(at.1).filter(|&n| n > 0),
            severity,
            rule: rule.map(Into::into),
            message: message.into(),
            ..Default::default()
        }
    }

    /// The nine problems; stylish drops a message's final period, compact
    /// keeps it.
    fn expected(period: &str) -> Vec<Diagnostic> {
        use DiagSeverity::{Error, Warning};
        let m = |text: &str| format!("{text}{period}");
        vec![
            problem(
                "a.js",
                (1, 7),
                Error,
                Some("no-unused-vars"),
                &m("'unused' is assigned a value but never used"),
            ),
            problem(
                "a.js",
                (2, 5),
                Error,
                Some("no-unused-vars"),
                &m("'count' is assigned a value but never used"),
            ),
            problem(
                "a.js",
                (2, 5),
                Error,
                Some("prefer-const"),
                &m("'count' is never reassigned. Use 'const' instead"),
            ),
            problem(
                "a.js",
                (4, 10),
                Error,
                Some("no-unused-vars"),
                &m("'greet' is defined but never used"),
            ),
            problem(
                "a.js",
                (5, 12),
                Warning,
                Some("eqeqeq"),
                &m("Expected '===' and instead saw '=='"),
            ),
            problem(
                "a.js",
                (6, 20),
                Error,
                Some("no-undef"),
                &m("'nobody' is not defined"),
            ),
            problem(
                "a.js",
                (11, 1),
                Error,
                Some("no-debugger"),
                &m("Unexpected 'debugger' statement"),
            ),
            problem(
                "b.js",
                (2, 13),
                Error,
                None,
                "Parsing error: Unexpected token ;",
            ),
            problem(
                "ignored.js",
                (0, 0),
                Warning,
                None,
                &m(
                    "File ignored because of a matching ignore pattern. Use \"--no-ignore\" to disable \
                    file ignore settings or use \"--no-warn-ignored\" to suppress this warning",
                ),
            ),
        ]
    }

    #[test]
    fn stylish() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/eslint/eslint-stylish.txt"
            )),
            expected("")
        );
    }

    #[test]
    fn stylish_in_colour() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/eslint/eslint-stylish-color.txt"
            )),
            expected("")
        );
    }

    #[test]
    fn compact() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/eslint/eslint-compact.txt"
            )),
            expected(".")
        );
    }

    #[test]
    fn plugin_rules_and_windows_paths() {
        let out = parse(
            "C:\\proj\\src\\a.ts\n\
             \x20 3:7  warning  'x' is defined but never used  @typescript-eslint/no-unused-vars\n\
             C:\\proj\\src\\b.ts: line 1, col 2, Warning - Missing dep. (react-hooks/exhaustive-deps)\n",
        );
        assert_eq!(out[0].file.as_deref(), Some("C:\\proj\\src\\a.ts"));
        assert_eq!(
            out[0].rule.as_deref(),
            Some("@typescript-eslint/no-unused-vars")
        );
        assert_eq!(out[1].file.as_deref(), Some("C:\\proj\\src\\b.ts"));
        assert_eq!(out[1].rule.as_deref(), Some("react-hooks/exhaustive-deps"));
        assert_eq!(out[1].message, "Missing dep.");
    }

    #[test]
    fn a_path_line_alone_yields_nothing() {
        let mut parser = Eslint::new();
        let mut out = Vec::new();
        assert!(!parser.line("/usr/local/bin/node", &mut out));
        assert!(!parser.line("", &mut out));
        assert!(!parser.line("  3:7  error  no file any more  no-undef", &mut out));
        assert!(!parser.line("/work/proj/src/a.js", &mut out));
        assert!(!parser.line("Running lint", &mut out));
        assert!(!parser.line("  3:7  error  still no file  no-undef", &mut out));
        parser.finish(&mut out);
        assert_eq!(out, vec![]);
    }

    #[track_caller]
    fn claims(line: &str, expected: bool) {
        let mut parser = Eslint::new();
        let mut out = Vec::new();
        assert_eq!(parser.line(line, &mut out), expected, "{line:?}");
    }

    #[test]
    fn near_misses_are_not_claimed() {
        claims("  3:7  error  'x' is never used  no-unused-vars", false);
        claims("src/a.js: line 3, col 7, Fatal - bad", false);
        claims("src/a.js: line 3, Error - no column", false);
        claims("12:30  error  a time, not a position", false);
        claims(
            "  1 error and 0 warnings potentially fixable with the `--fix` option.",
            false,
        );
        claims(
            "/abs/a.js: line 3, col 7, Error - 'x' is used. (no-unused-vars)",
            true,
        );
        claims("✖ 9 problems (7 errors, 2 warnings)", true);
        claims("9 problems", true);
    }
}
