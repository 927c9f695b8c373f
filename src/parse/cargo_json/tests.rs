use super::*;
use crate::parse::tests::feed;
use DiagSeverity::{Error, Warning};

fn parse_all(text: &str) -> (Vec<Diagnostic>, usize) {
    let (out, claimed) = feed(&mut CargoJson::default(), text);
    (out, claimed.iter().filter(|c| **c).count())
}

fn f(
    line: u64,
    column: u64,
    severity: DiagSeverity,
    rule: &str,
    message: &str,
    suggestion: Option<&str>,
) -> Diagnostic {
    Diagnostic {
        file: Some("src/main.rs".into()),
        line: Some(line),
        column: Some(column),
        severity,
        rule: Some(rule.into()),
        message: message.into(),
        suggestion: suggestion.map(Into::into),
        ..Default::default()
    }
}

#[test]
fn build_errors_skip_failure_notes() {
    let text = include_str!("../../../tests/fixtures/diagnostics/cargo-json/build.txt");
    let (found, claimed) = parse_all(text);
    assert_eq!(
        found,
        vec![
            f(
                9,
                20,
                Error,
                "E0425",
                "cannot find value `totl` in this scope",
                Some("a local variable with a similar name exists: `total`"),
            ),
            f(7, 22, Error, "E0308", "mismatched types", None),
            f(8, 22, Error, "E0308", "mismatched types", None),
        ]
    );
    assert_eq!(claimed, text.lines().count());
}

#[test]
fn clippy_codes_and_suggestions() {
    let text = include_str!("../../../tests/fixtures/diagnostics/cargo-json/clippy.txt");
    let (found, claimed) = parse_all(text);
    assert_eq!(
        found,
        vec![
            f(
                3,
                5,
                Warning,
                "unused_imports",
                "unused import: `std::collections::HashMap`",
                Some("remove the whole `use` item"),
            ),
            f(
                10,
                9,
                Warning,
                "unused_variables",
                "unused variable: `unused`",
                Some("if this is intentional, prefix it with an underscore: `_unused`"),
            ),
            f(
                6,
                5,
                Error,
                "clippy::needless_return",
                "unneeded `return` statement",
                Some("remove `return`"),
            ),
            f(
                12,
                8,
                Warning,
                "clippy::len_zero",
                "length comparison to zero",
                Some("using `is_empty` is clearer and more explicit: `v.is_empty()`"),
            ),
            f(
                11,
                13,
                Warning,
                "clippy::useless_vec",
                "useless use of `vec!`",
                Some("you can use an array directly: `[1, 2, 3]`"),
            ),
        ]
    );
    assert_eq!(claimed, text.lines().count());
}

#[test]
fn of_the_test_harness_output_only_the_panic_is_read() {
    let text = include_str!("../../../tests/fixtures/diagnostics/cargo-json/test.txt");
    let (found, claimed) = parse_all(text);
    let unused = Diagnostic {
        file: Some("src/lib.rs".into()),
        line: Some(2),
        column: Some(9),
        severity: Warning,
        rule: Some("unused_variables".into()),
        message: "unused variable: `spare`".into(),
        suggestion: Some("if this is intentional, prefix it with an underscore: `_spare`".into()),
        ..Default::default()
    };
    let panic = Diagnostic {
        file: Some("src/lib.rs".into()),
        line: Some(10),
        column: Some(9),
        severity: Error,
        rule: Some("panic".into()),
        message: "panicked in `tests::half_of_four`: assertion `left == right` failed \
                      (left: 2, right: 3)"
            .into(),
        ..Default::default()
    };
    // Once for the library, once for its test harness; then the panic.
    assert_eq!(found, vec![unused.clone(), unused, panic]);
    // The JSON lines, the panic's header and its three message lines.
    assert_eq!(
        claimed,
        text.lines().filter(|l| l.starts_with('{')).count() + 4
    );
    let mut parser = CargoJson::default();
    let human = text.lines().filter(|l| !l.starts_with('{'));
    let claimed_human: Vec<&str> = human.filter(|l| parser.line(l, &mut Vec::new())).collect();
    assert_eq!(
        claimed_human,
        [
            "thread 'tests::half_of_four' (1) panicked at src/lib.rs:10:9:",
            "assertion `left == right` failed",
            "  left: 2",
            " right: 3"
        ]
    );
}

#[test]
fn a_cut_line_is_read_from_its_rendered_text() {
    let text = include_str!("../../../tests/fixtures/diagnostics/cargo-json/clippy.txt");
    let line = text.lines().nth(2).expect("the needless_return message");
    let cut = line
        .find("note: the lint level")
        .expect("the lint level note");
    let mut out = Vec::new();
    assert!(CargoJson::default().line(&line[..cut], &mut out));
    assert_eq!(
        out,
        vec![Diagnostic {
            file: Some("src/main.rs".into()),
            line: Some(6),
            column: Some(5),
            severity: Error,
            rule: Some("clippy::needless_return".into()),
            message: "unneeded `return` statement".into(),
            ..Default::default()
        }]
    );
    // Cut inside the location: no half-read line number.
    let at = line.find("src/main.rs:6:5").expect("location") + "src/main.rs:".len();
    let mut out = Vec::new();
    assert!(CargoJson::default().line(&line[..at], &mut out));
    assert_eq!(out[0].line, None);
    assert_eq!(out[0].message, "unneeded `return` statement");
}

#[test]
fn foreign_and_summary_lines() {
    let mut parser = CargoJson::default();
    let mut out = Vec::new();
    for line in [
        r#"{"type":"test","event":"failed","name":"tests::x"}"#,
        r#"{"file":"a.js","messages":[]}"#,
        "{not json",
        "running 1 test",
        " {\"reason\":\"build-finished\",\"success\":true}",
    ] {
        assert!(!parser.line(line, &mut out), "{line}");
    }
    for line in [
        r#"{"reason":"build-finished","success":false}"#,
        r#"{"reason":"compiler-message","message":{"$message_type":"diagnostic","level":"error","message":"aborting due to 2 previous errors","code":null,"spans":[],"children":[],"rendered":"error: aborting due to 2 previous errors\n\n"}}"#,
        r#"{"reason":"compiler-message","message":{"$message_type":"diagnostic","level":"failure-note","message":"For more information about this error, try `rustc --explain E0308`.","code":null,"spans":[],"children":[],"rendered":null}}"#,
        r#"{"reason":"compiler-artifact","target":{"name":"x"},"truncated"#,
    ] {
        assert!(parser.line(line, &mut out), "{line}");
    }
    assert_eq!(out, vec![]);
}

#[test]
fn rustc_error_format_json() {
    let text = include_str!("../../../tests/fixtures/diagnostics/cargo-json/rustc-json.txt");
    let (found, _) = parse_all(text);
    let file = |mut found: Diagnostic| {
        found.file = Some("main.rs".into());
        found
    };
    assert_eq!(
        found,
        vec![
            file(f(
                9,
                20,
                Error,
                "E0425",
                "cannot find value `totl` in this scope",
                Some("a local variable with a similar name exists: `total`"),
            )),
            file(f(7, 22, Error, "E0308", "mismatched types", None)),
            file(f(8, 22, Error, "E0308", "mismatched types", None)),
        ]
    );
}

#[test]
fn json_strings_are_decoded_up_to_the_cut() {
    assert_eq!(
        json_string_prefix(r#"a\nb\"c\u00e9\\" tail"#),
        ("a\nb\"cé\\".into(), true)
    );
    assert_eq!(json_string_prefix(r#"abc\u00"#), ("abc".into(), false));
    assert_eq!(json_string_prefix(r#"abc\"#), ("abc".into(), false));
}
