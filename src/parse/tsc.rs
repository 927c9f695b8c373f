//! The `tsc` parser: TypeScript compiler diagnostics, in both of the forms
//! tsc prints.
//!
//! - plain (`--pretty false`, and tsc's default when stdout is a pipe):
//!   `src/a.ts(3,7): error TS2322: Type 'string' is not ...`
//! - pretty (`--pretty`, tsc's default on a terminal):
//!   `src/a.ts:3:7 - error TS2322: Type 'string' is not ...`
//! - global, with no file: `error TS5023: Unknown compiler option '--x'.`
//!
//! The rule is the `TS` code. tsc's categories map to severities: `error`,
//! `warning`, `suggestion` (help) and `message` (info).
//!
//! Message chains: tsc prints the rest of a multi-line message as indented
//! lines right after the first (`  Types of property 'n' are incompatible.`).
//! Those lines are appended to the message, one `\n` per line, leading
//! indentation removed, so a diagnostic is emitted only when the next
//! non-continuation line (or the end of the stream) arrives. In pretty mode
//! the code frame and the related information (`  src/c.ts:1:23 - 'b' is
//! declared here`) follow a blank line: they are neither appended nor
//! reported, and the code frame is not claimed.
//!
//! It must not claim a line only because it has a `(line,col)` or
//! `:line:col` shape: a tsc line always has a category word and a `TS`
//! code. The `Found N errors` summary is claimed but is no diagnostic.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, MAX_LINE};
use crate::config::DiagSeverity;

/// `file(line,col): category TScode: message`.
static PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<file>\S.*?)\((?P<line>\d+),(?P<column>\d+)\): (?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$",
    )
    .expect("valid regex")
});

/// `file:line:col - category TScode: message`.
static PRETTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<file>\S.*?):(?P<line>\d+):(?P<column>\d+) - (?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$",
    )
    .expect("valid regex")
});

/// `category TScode: message`, a diagnostic without a file (options, config).
static GLOBAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$")
        .expect("valid regex")
});

/// The literal every tsc diagnostic has, found before trying the regexes.
static TS_MARK: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("TS"));

/// `Found 1 error.`, `Found 7 errors in 3 files.`, `Found 2 errors in src/a.ts:1`.
static SUMMARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Found \d+ errors?(?: in .+)?\.?$").expect("valid regex"));

/// The `tsc` format.
#[derive(Debug, Default)]
pub(crate) struct Tsc {
    /// The last diagnostic, still collecting its continuation lines.
    pending: Option<Diagnostic>,
}

impl Tsc {
    /// A fresh parser.
    pub(crate) fn new() -> Tsc {
        Tsc { pending: None }
    }

    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        if let Some(found) = self.pending.take() {
            out.push(found);
        }
    }
}

fn severity(category: &str) -> DiagSeverity {
    match category {
        "warning" => DiagSeverity::Warning,
        "suggestion" => DiagSeverity::Help,
        "message" => DiagSeverity::Info,
        _ => DiagSeverity::Error,
    }
}

fn diagnostic(line: &str) -> Option<Diagnostic> {
    // Every form has ` TS<code>` (or starts with the category): skip the
    // regexes for the lines that cannot match.
    TS_MARK.find(line.as_bytes())?;
    let caps = PLAIN
        .captures(line)
        .or_else(|| PRETTY.captures(line))
        .or_else(|| GLOBAL.captures(line))?;
    let number = |name: &str| caps.name(name).and_then(|m| m.as_str().parse().ok());
    Some(Diagnostic {
        file: caps.name("file").map(|m| m.as_str().to_string()),
        line: number("line"),
        column: number("column"),
        severity: severity(&caps["category"]),
        rule: Some(caps["rule"].to_string()),
        message: caps["message"].trim_end().to_string(),
        ..Default::default()
    })
}

impl LineParser for Tsc {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(found) = diagnostic(line) {
            self.flush(out);
            self.pending = Some(found);
            return true;
        }
        let continuation = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if continuation && let Some(pending) = &mut self.pending {
            // A runaway chain must not grow one message without bound.
            if pending.message.len() < MAX_LINE {
                pending.message.push('\n');
                pending.message.push_str(line.trim());
            }
            return true;
        }
        self.flush(out);
        line.starts_with("Found ") && SUMMARY.is_match(line)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Diagnostic> {
        crate::parse::vitest::tests::parse(&mut Tsc::new(), text)
    }

    /// A located error, as tsc reports them (vitest's and jest's are too).
    use crate::parse::vitest::tests::failure as error;

    /// The seven errors of src/*.ts, as every capture reports them.
    fn expected() -> Vec<Diagnostic> {
        vec![
            error(
                "src/a.ts",
                1,
                5,
                "TS2322",
                "Type 'string' is not assignable to type 'number'.",
            ),
            error(
                "src/a.ts",
                5,
                7,
                "TS2345",
                "Argument of type 'number' is not assignable to parameter of type 'string'.",
            ),
            error(
                "src/a.ts",
                6,
                7,
                "TS2741",
                "Property 'name' is missing in type '{ id: number; }' but required in type \
                 '{ id: number; name: string; }'.",
            ),
            error(
                "src/b.ts",
                1,
                25,
                "TS2307",
                "Cannot find module './nowhere' or its corresponding type declarations.",
            ),
            error(
                "src/b.ts",
                3,
                20,
                "TS2322",
                "Type '\"square\"' is not assignable to type '\"circle\"'.",
            ),
            error(
                "src/c.ts",
                2,
                24,
                "TS2322",
                "Type 'string' is not assignable to type 'number'.",
            ),
            error(
                "src/c.ts",
                3,
                14,
                "TS2322",
                "Type '(x: { n: string; }) => void' is not assignable to type '(x: { n: number; }) => void'.\n\
                 Types of parameters 'x' and 'x' are incompatible.\n\
                 Type '{ n: number; }' is not assignable to type '{ n: string; }'.\n\
                 Types of property 'n' are incompatible.\n\
                 Type 'number' is not assignable to type 'string'.",
            ),
        ]
    }

    fn with_global(mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        found.push(Diagnostic {
            rule: Some("TS5023".into()),
            message: "Unknown compiler option '--bogusFlag'.".into(),
            ..Diagnostic::default()
        });
        found
    }

    #[test]
    fn tsc5_plain() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tsc/tsc5-plain.txt"
            )),
            with_global(expected())
        );
    }

    #[test]
    fn tsc7_plain() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tsc/tsc7-plain.txt"
            )),
            with_global(expected())
        );
    }

    #[test]
    fn tsc5_pretty() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tsc/tsc5-pretty.txt"
            )),
            expected()
        );
    }

    #[test]
    fn tsc7_pretty() {
        assert_eq!(
            parse(include_str!(
                "../../tests/fixtures/diagnostics/tsc/tsc7-pretty.txt"
            )),
            expected()
        );
    }

    #[track_caller]
    fn claims(line: &str, expected: bool) {
        let mut parser = Tsc::new();
        let mut out = Vec::new();
        assert_eq!(parser.line(line, &mut out), expected, "{line:?}");
        parser.finish(&mut out);
        assert_eq!(
            out.len(),
            usize::from(expected && !line.starts_with("Found")),
            "{line:?}"
        );
    }

    #[test]
    fn near_misses_are_not_claimed() {
        claims("foo(1,2): bar", false);
        claims("src/a.ts(1,2): error: no code", false);
        claims("src/a.ts(1,2): error TSX: bad code", false);
        claims("src/a.ts:1:2 - error: no code", false);
        claims("src/a.ts:1:2: error TS2322: gcc-like separator", false);
        claims("  src/c.ts:1:23 - 'b' is declared here.", false);
        claims("an error TS2322: in prose", false);
        claims("Found 2 problems", false);
        claims("     3  src/a.ts:1", false);
        claims("src/a.ts(1,2): error TS2322: yes", true);
        claims("Found 7 errors in 3 files.", true);
        claims("Found 1 error in src/a.ts:1", true);
    }

    #[test]
    fn parentheses_in_paths_and_other_categories() {
        let out = parse(
            "app/(group)/page.tsx(3,7): warning TS6133: 'x' is declared but never read.\n\
             src/a.ts:1:1 - message TS6032: File change detected.\n",
        );
        assert_eq!(out[0].file.as_deref(), Some("app/(group)/page.tsx"));
        assert_eq!((out[0].line, out[0].column), (Some(3), Some(7)));
        assert_eq!(out[0].severity, DiagSeverity::Warning);
        assert_eq!(out[1].severity, DiagSeverity::Info);
    }

    #[test]
    fn an_indented_line_without_a_diagnostic_before_it_is_not_claimed() {
        let mut parser = Tsc::new();
        let mut out = Vec::new();
        assert!(!parser.line("  indented log line", &mut out));
        assert!(parser.line("a.ts(1,1): error TS1005: ';' expected.", &mut out));
        assert!(out.is_empty(), "pending until the next line");
        assert!(!parser.line("", &mut out));
        assert!(!parser.line("  not a continuation after a blank", &mut out));
        parser.finish(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].message, "';' expected.");
    }
}
