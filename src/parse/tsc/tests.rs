use super::*;

fn parse(text: &str) -> Vec<Diagnostic> {
    crate::parse::tests::feed(&mut Tsc::default(), text).0
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
            "../../../tests/fixtures/diagnostics/tsc/tsc5-plain.txt"
        )),
        with_global(expected())
    );
}

#[test]
fn tsc7_plain() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tsc/tsc7-plain.txt"
        )),
        with_global(expected())
    );
}

#[test]
fn tsc5_pretty() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tsc/tsc5-pretty.txt"
        )),
        expected()
    );
}

#[test]
fn tsc7_pretty() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tsc/tsc7-pretty.txt"
        )),
        expected()
    );
}

#[track_caller]
fn claims(line: &str, expected: bool) {
    let mut parser = Tsc::default();
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
    let mut parser = Tsc::default();
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
