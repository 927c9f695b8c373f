use super::*;
use crate::parse::tests::feed;

/// A located error diagnostic, as vitest's and jest's failures are.
pub(crate) fn failure(file: &str, line: u64, column: u64, rule: &str, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column: Some(column),
        severity: DiagSeverity::Error,
        rule: Some(rule.into()),
        message: message.into(),
        ..Diagnostic::default()
    }
}

/// What the captures of tests/fixtures/diagnostics/vitest report.
fn expected() -> Vec<Diagnostic> {
    vec![
        // A test file that fails to load: a suite, its path as the rule.
        failure(
            "tests/broken.test.ts",
            2,
            1,
            "tests/broken.test.ts",
            "Error: Cannot find module '../src/missing' imported from '/work/proj/tests/broken.test.ts'",
        ),
        // An assertion.
        failure(
            "tests/math.test.ts",
            6,
            15,
            "adds two numbers",
            "AssertionError: expected 2 to be 3 // Object.is equality\n\n\
                 - Expected\n+ Received\n\n- 3\n+ 2",
        ),
        // Thrown in src/parse.ts, placed on the test's line; nested
        // describes in the rule.
        failure(
            "tests/math.test.ts",
            16,
            14,
            "parseAmount > blank input > returns zero",
            "RangeError: empty amount: \"  \"",
        ),
        // A second file.
        failure(
            "tests/strings.test.ts",
            5,
            54,
            "shouts",
            "AssertionError: expected { name: 'ADA', role: 'admin' } to deeply equal \
                 { name: 'ADA', role: 'owner' }\n\n- Expected\n+ Received\n\n  {\n    \
                 \"name\": \"ADA\",\n-   \"role\": \"owner\",\n+   \"role\": \"admin\",\n  }",
        ),
        // Thrown by the test itself.
        failure(
            "tests/strings.test.ts",
            12,
            9,
            "throws directly",
            "TypeError: not implemented yet",
        ),
    ]
}

#[test]
fn every_failure_of_the_default_reporter() {
    let text = include_str!("../../../tests/fixtures/diagnostics/vitest/vitest-run.txt");
    assert_eq!(feed(&mut Vitest::default(), text).0, expected());
    // Under `auto` the same.
    assert_eq!(feed(&mut super::super::Auto::default(), text).0, expected());
}

#[test]
fn grouped_failures_share_their_error() {
    let text = " FAIL  a.test.ts > one\n FAIL  b/c.test.ts > two\nError: same\n \
                    ❯ helper src/h.ts:3:9\n ❯ b/c.test.ts:7:5\n ❯ a.test.ts:4:1\n⎯⎯[1/2]⎯\n";
    assert_eq!(
        feed(&mut Vitest::default(), text).0,
        vec![
            failure("a.test.ts", 4, 1, "one", "Error: same"),
            failure("b/c.test.ts", 7, 5, "two", "Error: same"),
        ]
    );
}

#[test]
fn no_frame_leaves_the_file_without_a_line() {
    let text = " FAIL  |unit| x.test.ts > t\nError: boom\n ❯ run node_modules/a/b.js:1:2\n";
    let out = feed(&mut Vitest::default(), text).0;
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].file.as_deref(), out[0].line, out[0].message.as_str()),
        (Some("x.test.ts"), None, "Error: boom")
    );
}

#[test]
fn long_messages_are_cut() {
    let mut text = String::from(" FAIL  x.test.ts > t\n");
    for n in 0..100 {
        text.push_str(&format!("line {n}\n"));
    }
    let message = feed(&mut Vitest::default(), &text).0.remove(0).message;
    assert_eq!(message.lines().count(), MAX_MESSAGE_LINES);
    assert!(message.ends_with("line 19…"), "{message}");
}

#[test]
fn progress_lines_and_near_misses_are_not_claimed() {
    let mut parser = Vitest::default();
    let mut out = Vec::new();
    for line in [
        " ❯ tests/math.test.ts (3 tests | 2 failed) 21ms",
        "   × adds two numbers 17ms",
        "     → expected 2 to be 3 // Object.is equality",
        " FAIL ",
        "FAIL tests/x.test.js",
        " Test Files  3 failed (3)",
    ] {
        assert!(!parser.line(line, &mut out), "{line:?}");
    }
    parser.finish(&mut out);
    assert!(out.is_empty());
}

#[test]
fn frames_of_both_kinds() {
    assert_eq!(
        frame(" ❯ parseAmount src/parse.ts:3:11"),
        Some(("src/parse.ts".into(), 3, 11))
    );
    assert_eq!(
        frame(" ❯ tests/a.test.ts:6:15"),
        Some(("tests/a.test.ts".into(), 6, 15))
    );
    assert_eq!(
        frame("      at Object.<anonymous> (tests/s.test.js:10:9)"),
        Some(("tests/s.test.js".into(), 10, 9))
    );
    assert_eq!(
        frame("    at file:///w/a.mjs:2:3"),
        Some(("/w/a.mjs".into(), 2, 3))
    );
    assert_eq!(frame("    at new Promise (<anonymous>)"), None);
    assert_eq!(frame(" ❯ tests/a.test.ts (3 tests | 2 failed) 21ms"), None);
    assert_eq!(frame("    at x (a.js:0:0)"), None);
    assert!(!is_project_file("node:internal/test_runner/test"));
    assert!(!is_project_file("/p/node_modules/jest-circus/build/x.js"));
    assert!(is_project_file("/p/src/a.js"));
    assert!(same_file("/w/tests/a.test.js", "tests/a.test.js"));
    assert!(!same_file("/w/tests/ba.test.js", "a.test.js"));
}
