use super::*;
use crate::parse::tests::feed;

fn parse(text: &str) -> Vec<Diagnostic> {
    feed(&mut Eslint::default(), text).0
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
            "../../../tests/fixtures/diagnostics/eslint/eslint-stylish.txt"
        )),
        expected("")
    );
}

#[test]
fn stylish_in_colour() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/eslint/eslint-stylish-color.txt"
        )),
        expected("")
    );
}

#[test]
fn compact() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/eslint/eslint-compact.txt"
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
    let mut parser = Eslint::default();
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
    let mut parser = Eslint::default();
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
