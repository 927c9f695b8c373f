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
use crate::config::DiagSeverity;

static DIAGNOSTIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<file>(?:[A-Za-z]:)?[^:\s][^:]*?\.pyi?):(?:(?P<line>\d+):(?:(?P<column>\d+):(?:\d+:\d+:)?)?)? (?P<severity>error|warning|note): (?P<message>.*)$",
    )
    .expect("valid regex")
});

/// The error code mypy appends after two spaces.
static CODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<message>.*?)  \[(?P<rule>[a-z][a-z0-9-]*)\]$").expect("valid regex")
});

/// A wrapped error's code alone on its line.
static ALONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[(?P<rule>[a-z][a-z0-9-]*)\]$").expect("valid regex"));

/// `--show-error-context` headings.
static CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(?:In (?:function|member|class) ".*":|At top level:)$"#).expect("valid regex")
});

static CONFIG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<file>[^:\s][^:]*): \[mypy(?:-[^\]]*)?\]: (?P<message>.+)$")
        .expect("valid regex")
});

static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:Found \d+ errors? in \d+ files?(?: \(.*\))?|Success: no issues found in \d+ source files?)$",
    )
    .expect("valid regex")
});

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
    /// A fresh parser.
    pub(crate) fn new() -> Mypy {
        Mypy::default()
    }

    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        self.wrapped.clear();
        if let Some(found) = self.pending.take() {
            out.push(found);
        }
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
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Diagnostic> {
        let mut parser = Mypy::new();
        let mut out = Vec::new();
        for line in text.lines() {
            parser.line(line, &mut out);
        }
        parser.finish(&mut out);
        out
    }

    fn diag(
        file: &str,
        at: (Option<u64>, Option<u64>),
        severity: DiagSeverity,
        rule: Option<&str>,
        message: &str,
    ) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: at.0,
            column: at.1,
            severity,
            rule: rule.map(Into::into),
            message: message.into(),
            ..Default::default()
        }
    }

    /// What every capture of src/ reports; `columns` gives the columns of
    /// the `--show-column-numbers` run.
    fn expected(columns: bool) -> Vec<Diagnostic> {
        use DiagSeverity::{Error, Note};
        let at = |line: u64, column: u64| (Some(line), columns.then_some(column));
        vec![
            diag(
                "src/b.py",
                at(1, 1),
                Error,
                Some("import-not-found"),
                "Cannot find implementation or library stub for module named \"nonexistent_module_xyz\"",
            ),
            diag(
                "src/b.py",
                at(1, 1),
                Note,
                None,
                "See https://mypy.readthedocs.io/en/stable/running_mypy.html#missing-imports",
            ),
            diag(
                "src/a.py",
                at(3, 14),
                Error,
                Some("assignment"),
                "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")",
            ),
            diag(
                "src/a.py",
                at(10, 7),
                Error,
                Some("arg-type"),
                "Argument 1 to \"greet\" has incompatible type \"int\"; expected \"str\"",
            ),
            diag(
                "src/a.py",
                at(17, 14),
                Error,
                Some("assignment"),
                "Incompatible types in assignment (expression has type \"int | None\", variable has \
                 type \"int\")",
            ),
            diag(
                "src/a.py",
                at(18, 13),
                Note,
                None,
                "Revealed type is \"int\"",
            ),
            diag(
                "src/a.py",
                at(26, 16),
                Error,
                Some("attr-defined"),
                "\"Point\" has no attribute \"y\"",
            ),
        ]
    }

    #[test]
    fn default_output() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/mypy/mypy-default.txt"
            )),
            expected(false)
        );
    }

    #[test]
    fn columns_ends_and_context() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/mypy/mypy-columns.txt"
            )),
            expected(true)
        );
    }

    #[test]
    fn pretty_output_joins_wrapped_errors() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/mypy/mypy-pretty.txt"
            )),
            expected(false)
        );
    }

    #[test]
    fn pretty_output_with_the_code_alone_on_the_next_line() {
        // mypy 1.x `--strict --pretty` on `def f(x):`, as a user reported it: the wrap
        // falls between the two spaces before the code, leaving one space at
        // the end of the first line and `[no-untyped-def]` alone.
        let out = parse(
            "pkg/__init__.py:1: error: Function is missing a type annotation \n\
             [no-untyped-def]\n    def f(x):\n    ^~~~~~~~~\n\
             src/a.py:3: error: Incompatible types in assignment (expression has type \n\
             \"str\", variable has type \"int\") \n\
             [assignment]\n\
             Found 2 errors in 2 files (checked 2 source files)\n",
        );
        assert_eq!(
            out,
            vec![
                diag(
                    "pkg/__init__.py",
                    (Some(1), None),
                    DiagSeverity::Error,
                    Some("no-untyped-def"),
                    "Function is missing a type annotation",
                ),
                diag(
                    "src/a.py",
                    (Some(3), None),
                    DiagSeverity::Error,
                    Some("assignment"),
                    "Incompatible types in assignment (expression has type \"str\", variable \
                     has type \"int\")",
                ),
            ]
        );
    }

    #[test]
    fn config_warnings_and_files_without_lines() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/mypy/mypy-config.txt"
            )),
            vec![
                diag(
                    "bad.ini",
                    (None, None),
                    DiagSeverity::Warning,
                    None,
                    "Unrecognized option: bogus_option = 1"
                ),
                diag(
                    "missing.py",
                    (None, None),
                    DiagSeverity::Error,
                    None,
                    "Cannot read file: No such file or directory"
                ),
            ]
        );
    }

    #[test]
    fn errors_without_codes_do_not_swallow_what_follows() {
        let out = parse(
            "a.py:1: error: Name \"x\" is not defined\n\
             make: *** [lint] Error 1\n\
             a.py:2: error: Another\n\
             a.py:3: error: Last one\n",
        );
        let messages: Vec<_> = out
            .iter()
            .map(|f| (f.line, f.message.as_str(), f.rule.clone()))
            .collect();
        assert_eq!(
            messages,
            vec![
                (Some(1), "Name \"x\" is not defined", None),
                (Some(2), "Another", None),
                (Some(3), "Last one", None),
            ]
        );
    }

    #[test]
    fn windows_paths() {
        let out = parse(r"C:\proj\src\a.py:3:14: error: Bad  [misc]");
        assert_eq!(out[0].file.as_deref(), Some(r"C:\proj\src\a.py"));
        assert_eq!((out[0].line, out[0].column), (Some(3), Some(14)));
        assert_eq!(out[0].rule.as_deref(), Some("misc"));
    }

    #[track_caller]
    fn claims(line: &str, expected: bool) {
        let mut parser = Mypy::new();
        let mut out = Vec::new();
        assert_eq!(parser.line(line, &mut out), expected, "{line:?}");
    }

    #[test]
    fn near_misses_are_not_claimed() {
        // gcc and clang lines belong to the gcc parser.
        claims("src/a.c:3:7: error: expected ';' before '}' token", false);
        claims(
            "src/a.c:3:7: warning: unused variable 'x' [-Wunused-variable]",
            false,
        );
        claims("src/a.rs:3: error: mismatched types", false);
        claims("src/a.py:3: bogus: not a severity", false);
        claims("src/a.py:3:error: no space", false);
        claims("  src/a.py:3: error: indented", false);
        claims("error: no file", false);
        claims("Found 2 problems", false);
        claims("Found 5 errors in 2 files (checked 2 source files)", true);
        claims("Success: no issues found in 1 source file", true);
    }
}
