use super::*;
use crate::parse::tests::feed;
use DiagSeverity::{Error, Warning};

fn parse_all(text: &str) -> Vec<Diagnostic> {
    feed(&mut Rustc::default(), text).0
}

fn f(
    file: &str,
    line: u64,
    column: u64,
    severity: DiagSeverity,
    rule: Option<&str>,
    message: &str,
    suggestion: Option<&str>,
) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column: Some(column),
        severity,
        rule: rule.map(Into::into),
        message: message.into(),
        suggestion: suggestion.map(Into::into),
        ..Default::default()
    }
}

fn broken(dir: &str) -> Vec<Diagnostic> {
    let file = format!("{dir}main.rs");
    vec![
        f(
            &file,
            9,
            20,
            Error,
            Some("E0425"),
            "cannot find value `totl` in this scope",
            Some("a local variable with a similar name exists"),
        ),
        f(&file, 7, 22, Error, Some("E0308"), "mismatched types", None),
        f(&file, 8, 22, Error, Some("E0308"), "mismatched types", None),
    ]
}

#[test]
fn cargo_build_errors() {
    let text = include_str!("../../../tests/fixtures/diagnostics/rustc/rustc.txt");
    assert_eq!(parse_all(text), broken("src/"));
}

#[test]
fn rustc_direct_with_summaries_and_a_source_lint_level() {
    let text = include_str!("../../../tests/fixtures/diagnostics/rustc/rustc-direct.txt");
    let mut expected = broken("");
    expected.extend([
        f(
            "main.rs",
            3,
            5,
            Warning,
            Some("unused_imports"),
            "unused import: `std::collections::HashMap`",
            None,
        ),
        f(
            "main.rs",
            10,
            9,
            Warning,
            Some("unused_variables"),
            "unused variable: `unused`",
            Some("if this is intentional, prefix it with an underscore: `_unused`"),
        ),
        f(
            "denied.rs",
            4,
            9,
            Error,
            Some("unused_variables"),
            "unused variable: `x`",
            Some("if this is intentional, prefix it with an underscore: `_x`"),
        ),
    ]);
    assert_eq!(parse_all(text), expected);
}

fn clippy_common(severity: DiagSeverity) -> [Diagnostic; 2] {
    [
        f(
            "src/main.rs",
            12,
            8,
            severity,
            Some("clippy::len_zero"),
            "length comparison to zero",
            Some("using `is_empty` is clearer and more explicit: `v.is_empty()`"),
        ),
        f(
            "src/main.rs",
            11,
            13,
            severity,
            Some("clippy::useless_vec"),
            "useless use of `vec!`",
            Some("you can use an array directly: `[1, 2, 3]`"),
        ),
    ]
}

#[test]
fn clippy_lint_names() {
    let text = include_str!("../../../tests/fixtures/diagnostics/rustc/clippy.txt");
    let mut expected = vec![
        f(
            "src/main.rs",
            3,
            5,
            Warning,
            Some("unused_imports"),
            "unused import: `std::collections::HashMap`",
            None,
        ),
        f(
            "src/main.rs",
            10,
            9,
            Warning,
            Some("unused_variables"),
            "unused variable: `unused`",
            Some("if this is intentional, prefix it with an underscore: `_unused`"),
        ),
        f(
            "src/main.rs",
            6,
            5,
            Error,
            Some("clippy::needless_return"),
            "unneeded `return` statement",
            Some("remove `return`"),
        ),
    ];
    expected.extend(clippy_common(Warning));
    assert_eq!(parse_all(text), expected);
}

#[test]
fn clippy_deny_warnings_lint_names() {
    let text = include_str!("../../../tests/fixtures/diagnostics/rustc/clippy-deny.txt");
    let mut expected = vec![
        f(
            "src/main.rs",
            3,
            5,
            Error,
            Some("unused_imports"),
            "unused import: `std::collections::HashMap`",
            None,
        ),
        f(
            "src/main.rs",
            10,
            9,
            Error,
            Some("unused_variables"),
            "unused variable: `unused`",
            Some("if this is intentional, prefix it with an underscore: `_unused`"),
        ),
        f(
            "src/main.rs",
            6,
            5,
            Error,
            Some("clippy::needless_return"),
            "unneeded `return` statement",
            Some("remove `return`"),
        ),
    ];
    expected.extend(clippy_common(Error));
    assert_eq!(parse_all(text), expected);
}

#[test]
fn emitted_only_when_the_block_ends() {
    let mut parser = Rustc::default();
    let mut out = Vec::new();
    for line in [
        "warning: unused variable: `x`",
        " --> src/lib.rs:2:9",
        "  |",
        "2 |     let x = 1;",
        "  |         ^",
        "  |",
    ] {
        assert!(parser.line(line, &mut out), "{line}");
    }
    assert!(out.is_empty(), "emitted before the lint note could arrive");
    assert!(parser.line(
        "  = note: `#[warn(unused_variables)]` on by default",
        &mut out
    ));
    assert!(out.is_empty());
    // A blank line ends the block but is not claimed.
    assert!(!parser.line("", &mut out));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].rule.as_deref(), Some("unused_variables"));

    // Without a blank line, the next header ends the block...
    out.clear();
    parser.line("error[E0308]: mismatched types", &mut out);
    parser.line(" --> src/lib.rs:7:22", &mut out);
    parser.line(
        "error[E0425]: cannot find value `y` in this scope",
        &mut out,
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].rule.as_deref(), Some("E0308"));
    // ...and so does `finish`.
    parser.finish(&mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].rule.as_deref(), Some("E0425"));
    assert_eq!(out[1].file, None);

    // A foreign line ends it too, and is not claimed.
    out.clear();
    parser.line("warning: unused manifest key: package.foo", &mut out);
    assert!(!parser.line("   Compiling x v0.1.0 (/work/proj)", &mut out));
    assert_eq!(
        out,
        vec![Diagnostic {
            severity: Warning,
            message: "unused manifest key: package.foo".into(),
            ..Diagnostic::default()
        }]
    );
}

#[test]
fn short_format_with_code() {
    assert_eq!(
        parse_all("src/main.rs:9:20: error[E0425]: cannot find value `totl` in this scope"),
        vec![Diagnostic {
            file: Some("src/main.rs".into()),
            line: Some(9),
            column: Some(20),
            severity: Error,
            rule: Some("E0425".into()),
            message: "cannot find value `totl` in this scope".into(),
            ..Default::default()
        }]
    );
    // Without a code on another file it is a plain gcc-style line, left
    // to `gcc`.
    assert!(!Rustc::default().line(
        "src/a.c:6:5: warning: unused variable ‘x’ [-Wunused-variable]",
        &mut Vec::new()
    ));
}

#[test]
fn short_format_warnings_without_a_code() {
    // Captured from `rustc --error-format=short` on lints.rs, then
    // broken.rs: lints print no code, and the summaries are no
    // diagnostics.
    let text = include_str!("../../../tests/fixtures/diagnostics/rustc/short.txt");
    let mut expected = vec![
        f(
            "main.rs",
            3,
            5,
            Warning,
            None,
            "unused import: `std::collections::HashMap`",
            None,
        ),
        f(
            "main.rs",
            10,
            9,
            Warning,
            None,
            "unused variable: `unused`",
            Some("if this is intentional, prefix it with an underscore: `_unused`"),
        ),
        f(
            "main.rs",
            9,
            20,
            Error,
            Some("E0425"),
            "cannot find value `totl` in this scope",
            None,
        ),
    ];
    expected.extend([7, 8].map(|line| {
        let found = if line == 7 {
            "`&str`"
        } else {
            "floating-point number"
        };
        f(
            "main.rs",
            line,
            22,
            Error,
            Some("E0308"),
            &format!("mismatched types: expected `i32`, found {found}"),
            None,
        )
    }));
    assert_eq!(parse_all(text), expected);
    let mut auto = crate::parse::Auto::default();
    let mut out = Vec::new();
    for line in text.lines() {
        auto.line(line, &mut out);
    }
    auto.finish(&mut out);
    assert_eq!(out, expected);
}

#[test]
fn summaries_and_stray_lines_are_not_diagnostics() {
    for line in [
        "error: aborting due to 2 previous errors",
        "error: aborting due to 1 previous error; 2 warnings emitted",
        "warning: 1 warning emitted",
        "warning: 2 warnings emitted",
        "error: could not compile `x` (bin \"x\") due to 2 previous errors",
        "error: could not compile `x` due to previous error",
        "warning: `x` (lib) generated 1 warning (run `cargo fix --lib -p x` to apply 1 suggestion)",
        "warning: `x` (lib test) generated 1 warning (1 duplicate)",
        "warning: build failed, waiting for other jobs to finish...",
        "error: test failed, to rerun pass `--lib`",
        "error: 2 targets failed:",
    ] {
        let mut parser = Rustc::default();
        let mut out = Vec::new();
        assert!(parser.line(line, &mut out), "{line}");
        parser.finish(&mut out);
        assert_eq!(out, vec![], "{line}");
    }
    for line in [
        "   Compiling x v0.1.0 (/work/proj)",
        " --> src/main.rs:3:5",
        "  |",
        "  = note: `#[warn(unused_variables)]` on by default",
        "note: the lint level is defined here",
        "help: remove `return`",
        "errors: 3",
        "error:no space",
        "error[bad code]: x",
        "Error: capitalised",
        "",
    ] {
        let mut parser = Rustc::default();
        let mut out = Vec::new();
        assert!(!parser.line(line, &mut out), "{line:?}");
        parser.finish(&mut out);
        assert_eq!(out, vec![], "{line:?}");
    }
}
