use super::*;
use crate::parse::tests::feed;

fn parse(text: &str) -> Vec<Diagnostic> {
    feed(&mut Mypy::default(), text).0
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
            "../../../tests/fixtures/diagnostics/mypy/mypy-default.txt"
        )),
        expected(false)
    );
}

#[test]
fn columns_ends_and_context() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/mypy/mypy-columns.txt"
        )),
        expected(true)
    );
}

#[test]
fn pretty_output_joins_wrapped_errors() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/mypy/mypy-pretty.txt"
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
            "../../../tests/fixtures/diagnostics/mypy/mypy-config.txt"
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
    let mut parser = Mypy::default();
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
