//! The `rustfmt` parser: `cargo fmt --check` / `rustfmt --check` diffs.
//!
//! Each hunk header, `Diff in PATH:LINE:` (or the older `Diff in PATH at
//! line LINE:`), is one error on PATH, rule `rustfmt`, at the hunk's first
//! changed line: LINE (where the hunk starts, context included) plus the
//! context lines before its first `-`/`+` line. Its message
//! `not formatted as rustfmt would` followed by the hunk's first changed
//! (`-`/`+`) lines, at most `MAX_SHOWN` of them, each clipped. The hunk's
//! body (context, `-` and `+` lines, blank lines) is claimed; any other line
//! ends the hunk.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, hunk_change};
use run_check_documents::evidence::DiagSeverity;

static HEADER: LazyLock<Regex> =
    regex!(r"^Diff in (?P<file>\S.*?)(?::(?P<line>\d+)| at line (?P<old>\d+)):$");

/// The `rustfmt` format.
#[derive(Debug, Default)]
pub(crate) struct Rustfmt {
    /// The hunk being read.
    pending: Option<Diagnostic>,
    /// Changed lines added to its message.
    shown: usize,
    /// Context lines read before the hunk's first change; `None` once a
    /// change was read.
    context: Option<u64>,
}

impl Rustfmt {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        self.shown = 0;
        self.context = None;
        out.extend(self.pending.take());
    }
}

impl LineParser for Rustfmt {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if line.starts_with("Diff in ")
            && let Some(caps) = HEADER.captures(line)
        {
            self.flush(out);
            let number = caps
                .name("line")
                .or_else(|| caps.name("old"))
                .and_then(|m| super::position(m.as_str()));
            self.pending = Some(Diagnostic {
                file: Some(caps["file"].to_string()),
                line: number,
                severity: DiagSeverity::Error,
                rule: Some("rustfmt".into()),
                message: "not formatted as rustfmt would".into(),
                suggestion: Some("run `cargo fmt`".into()),
                ..Diagnostic::default()
            });
            self.context = Some(0);
            return true;
        }
        let Some(pending) = &mut self.pending else {
            return false;
        };
        if line.starts_with(['-', '+']) {
            hunk_change(pending, &mut self.context, &mut self.shown, line);
            return true;
        }
        if line.is_empty() || line.starts_with(' ') {
            if let Some(context) = &mut self.context {
                *context += 1;
            }
            return true;
        }
        self.flush(out);
        false
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::MAX_SHOWN;
    use crate::parse::tests::feed;

    fn parse(text: &str) -> Vec<Diagnostic> {
        feed(&mut Rustfmt::default(), text).0
    }

    fn diag(file: &str, line: u64, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            severity: DiagSeverity::Error,
            rule: Some("rustfmt".into()),
            message: message.into(),
            suggestion: Some("run `cargo fmt`".into()),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn one_diagnostic_per_hunk_of_cargo_fmt_check() {
        let text = include_str!("../../tests/fixtures/diagnostics/rustfmt/rustfmt-check.txt");
        assert_eq!(
            parse(text),
            vec![
                diag(
                    "/work/proj/src/lib.rs",
                    1,
                    "not formatted as rustfmt would\n-pub fn a( x:u32)->u32{x+1}\n\
                     +pub fn a(x: u32) -> u32 {\n+    x + 1\n+}"
                ),
                // `Diff in …:5:` then two context lines: the change is at 7.
                diag(
                    "/work/proj/src/lib.rs",
                    7,
                    "not formatted as rustfmt would\n-pub fn c( ) {\n-let y   = 3; let _ = y;\n\
                     +pub fn c() {\n+    let y = 3;\n+    let _ = y;"
                ),
                diag(
                    "/work/proj/src/m.rs",
                    1,
                    "not formatted as rustfmt would\n-pub fn  d() {}\n+pub fn d() {}"
                ),
            ]
        );
    }

    #[test]
    fn the_older_header_and_a_bounded_message() {
        let mut text = String::from("Diff in /p/src/a.rs at line 793:\n");
        for i in 0..50 {
            text.push_str(&format!("-{}\n+y{i}\n", "x".repeat(1000)));
        }
        text.push_str("error: something else\n");
        let out = parse(&text);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].file.as_deref(), Some("/p/src/a.rs"));
        assert_eq!(out[0].line, Some(793));
        assert_eq!(out[0].message.lines().count(), 1 + MAX_SHOWN);
        assert!(out[0].message.len() < 2000);
    }

    #[test]
    fn near_misses_are_not_claimed() {
        let mut parser = Rustfmt::default();
        let mut out = Vec::new();
        for line in [
            "Diff in src/a.rs",
            "Diff in :3:",
            "-not in a hunk",
            " context",
            "Diff in src/a.rs:x:",
        ] {
            assert!(!parser.line(line, &mut out), "{line:?}");
        }
        assert!(out.is_empty());
    }
}
