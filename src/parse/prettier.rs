//! The `prettier` parser: `prettier --check` (and `--list-different` with
//! its `[warn]` prefix) output.
//!
//! - `[warn] src/ugly.js`: an error on that file, rule `prettier`, message
//!   `not formatted as prettier would`, suggestion `run `prettier --write``.
//!   Prettier names no line: the file is the whole location.
//! - `[error] src/broken.js: SyntaxError: Unexpected token (1:26)`: an error
//!   at that line and column, rule `prettier`, the error as message; the code
//!   frame after it (`[error] > 1 | …`) is claimed and ignored.
//! - Prettier's own sentences (`[warn] Code style issues found in 2 files.
//!   Run Prettier with --write to fix.`, `Checking formatting...`) are no
//!   diagnostics: a `[warn]` line is a file only when it has no `: ` and
//!   does not end with `.`.
//!
//! Not under `auto`: other tools (sbt, for one) print `[warn]` lines too.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// `[error] path: SomeError: message (line:col)`.
static ERROR: LazyLock<Regex> = regex!(
    r"^\[error\] (?P<file>\S.*?): (?P<message>[A-Za-z]*Error: .*?)(?: \((?P<line>\d+):(?P<column>\d+)\))?$"
);

/// The `prettier` format.
#[derive(Debug, Default)]
pub(crate) struct Prettier;

impl LineParser for Prettier {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(file) = line.strip_prefix("[warn] ") {
            let file = file.trim_end();
            if file.is_empty()
                || file.starts_with(char::is_whitespace)
                || file.contains(": ")
                || file.ends_with('.')
            {
                return false;
            }
            out.push(Diagnostic {
                file: Some(file.to_string()),
                severity: DiagSeverity::Error,
                rule: Some("prettier".into()),
                message: "not formatted as prettier would".into(),
                suggestion: Some("run `prettier --write`".into()),
                ..Diagnostic::default()
            });
            return true;
        }
        if !line.starts_with("[error] ") {
            return false;
        }
        if let Some(caps) = ERROR.captures(line) {
            let number = |name: &str| caps.name(name).and_then(|m| super::position(m.as_str()));
            out.push(Diagnostic {
                file: Some(caps["file"].to_string()),
                line: number("line"),
                column: number("column"),
                severity: DiagSeverity::Error,
                rule: Some("prettier".into()),
                message: caps["message"].to_string(),
                ..Diagnostic::default()
            });
        }
        // The code frame of an error (`[error] > 1 | …`).
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;

    fn parse(text: &str) -> Vec<Diagnostic> {
        feed(&mut Prettier, text).0
    }

    fn unformatted(file: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            severity: DiagSeverity::Error,
            rule: Some("prettier".into()),
            message: "not formatted as prettier would".into(),
            suggestion: Some("run `prettier --write`".into()),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn unformatted_files_of_prettier_check() {
        let text = include_str!("../../tests/fixtures/diagnostics/prettier/prettier-check.txt");
        assert_eq!(
            parse(text),
            vec![unformatted("src/ugly.js"), unformatted("src/notes.md")]
        );
    }

    #[test]
    fn a_file_that_does_not_parse() {
        let text = include_str!("../../tests/fixtures/diagnostics/prettier/prettier-syntax.txt");
        assert_eq!(
            parse(text),
            vec![Diagnostic {
                file: Some("src/broken.js".into()),
                line: Some(1),
                column: Some(26),
                severity: DiagSeverity::Error,
                rule: Some("prettier".into()),
                message: "SyntaxError: Unexpected token".into(),
                ..Diagnostic::default()
            }]
        );
    }

    #[test]
    fn sentences_are_not_files() {
        for line in [
            "[warn] Code style issues found in the above file. Run Prettier with --write to fix.",
            "[warn] Ignored unknown option { tabs: true }.",
            "[warn] ",
            "Checking formatting...",
            "warn src/a.js",
        ] {
            assert_eq!(parse(line), vec![], "{line:?}");
        }
    }
}
