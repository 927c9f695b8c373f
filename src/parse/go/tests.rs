use super::*;
use crate::parse::tests::feed;

fn parse_all(text: &str) -> Vec<Diagnostic> {
    feed(&mut Go::default(), text).0
}

fn build(line: u64, column: u64, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some("./main.go".into()),
        line: Some(line),
        column: Some(column),
        severity: DiagSeverity::Error,
        message: message.into(),
        ..Default::default()
    }
}

fn test(file: &str, line: u64, rule: &str, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        severity: DiagSeverity::Error,
        rule: Some(rule.into()),
        message: message.into(),
        ..Default::default()
    }
}

#[test]
fn build_errors_and_the_vet_prefix() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/build.txt");
    let cannot_use =
        "cannot use \"three\" (untyped string constant) as int value in variable declaration";
    assert_eq!(
        parse_all(text),
        vec![
            build(5, 2, "imported and not used: \"os\""),
            build(9, 18, cannot_use),
            build(10, 21, "undefined: missing"),
            build(9, 18, cannot_use),
        ]
    );
}

#[test]
fn vet_findings() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/vet.txt");
    assert_eq!(
        parse_all(text),
        vec![
            build(
                7,
                2,
                "fmt.Printf format %d has arg name of wrong type string"
            ),
            build(10, 2, "unreachable code"),
        ]
    );
}

fn half_failures() -> Vec<Diagnostic> {
    vec![
        test("half_test.go", 7, "TestHalf", "Half(4) = 3, want 2"),
        test("half_test.go", 15, "TestTable/even", "Half(2) = 2\nwant 1"),
        test(
            "half_test.go",
            15,
            "TestTable/even#01",
            "Half(6) = 4\nwant 3",
        ),
    ]
}

#[test]
fn test_failures_after_the_verdict() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/test.txt");
    assert_eq!(parse_all(text), half_failures());
}

#[test]
fn verbose_logs_wait_for_the_verdict() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/test-v.txt");
    // TestOK's `half_test.go:22: fine` is the log of a passing test.
    assert_eq!(parse_all(text), half_failures());
}

#[test]
fn go_test_json_events() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/test-json.txt");
    // The same failures as the -v text the events carry; every event
    // line is claimed.
    assert_eq!(parse_all(text), half_failures());
    let mut parser = Go::default();
    let mut out = Vec::new();
    assert!(text.lines().all(|line| parser.line(line, &mut out)));
    // Other JSON is not ours.
    assert!(!Go::default().line(r#"{"reason": "compiler-message"}"#, &mut out));
}

#[test]
fn a_panicking_test() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/test-panic.txt");
    assert_eq!(
        parse_all(text),
        vec![
            test("boom_test.go", 6, "TestBoom", "about to index"),
            Diagnostic {
                rule: Some("TestBoom".into()),
                message: "panic: runtime error: index out of range [3] with length 0 [recovered]"
                    .into(),
                ..Diagnostic::default()
            },
        ]
    );
}

#[test]
fn unfinished_verbose_logs_are_dropped() {
    assert_eq!(
        parse_all("=== RUN   TestX\n    x_test.go:3: still going\n"),
        vec![]
    );
}

#[test]
fn staticcheck_names_its_check() {
    // Captured from go-staticcheck 2023.1 (tests/fixtures/diagnostics/linters).
    let text = include_str!("../../../tests/fixtures/diagnostics/linters/go/staticcheck.txt");
    let at = |line, column, rule: &str, message: &str| Diagnostic {
        file: Some("main.go".into()),
        line: Some(line),
        column: Some(column),
        severity: DiagSeverity::Error,
        rule: Some(rule.into()),
        message: message.into(),
        ..Default::default()
    };
    assert_eq!(
        parse_all(text),
        vec![
            at(
                7,
                13,
                "SA5009",
                "Printf format %d has arg #1 of wrong type string"
            ),
            at(
                9,
                14,
                "SA4000",
                "identical expressions on the left and right side of the '==' operator"
            ),
            at(14, 6, "U1000", "func check is unused"),
            at(15, 2, "SA4018", "self-assignment of x to x"),
            at(16, 2, "SA9003", "empty branch"),
        ]
    );
}

#[test]
fn golangci_lints_quoted_source_and_caret_are_not_the_message() {
    // The shape golangci-lint prints (not captured: golangci-lint is not
    // installed here, it has no Debian package): the location line, the
    // source line as in the file (a tab-indented body line), a caret.
    let text = "main.go:7:12: Error return value of `os.Remove` is not checked (errcheck)\n\
                    \tos.Remove(\"x\")\n\
                    \t         ^\n\
                    main.go:9:1: File is not `gofmt`-ed with `-s` (gofmt)\n";
    assert_eq!(
        parse_all(text),
        vec![
            Diagnostic {
                file: Some("main.go".into()),
                line: Some(7),
                column: Some(12),
                severity: DiagSeverity::Error,
                rule: Some("errcheck".into()),
                message: "Error return value of `os.Remove` is not checked".into(),
                ..Default::default()
            },
            Diagnostic {
                file: Some("main.go".into()),
                line: Some(9),
                column: Some(1),
                severity: DiagSeverity::Error,
                rule: Some("gofmt".into()),
                message: "File is not `gofmt`-ed with `-s`".into(),
                ..Default::default()
            },
        ]
    );
}

#[test]
fn near_misses_are_not_claimed() {
    for line in [
        "12:30:45: started",
        "http://host:8080: ok",
        "ok  \texample.com/x\t0.002s",
        "FAIL\texample.com/x\t0.002s",
        "FAIL",
        "PASS",
        "go: downloading example.com/y v1.0.0",
        "notes.txt:3: call Bob",
        "Error at 12:30:45: something",
        "    half_test.go:7: a log line outside any test",
        "\t/usr/lib/go/src/testing/testing.go:1396 +0x0",
        "goroutine 1 [running]:",
        "panic: outside any test",
    ] {
        let mut parser = Go::default();
        let mut out = Vec::new();
        assert!(!parser.line(line, &mut out), "{line:?}");
        parser.finish(&mut out);
        assert_eq!(out, vec![], "{line:?}");
    }
    // The logs of a passing test are claimed but not reported.
    assert_eq!(
        parse_all("--- PASS: TestA (0.00s)\n    a_test.go:3: fine\n"),
        vec![]
    );
    assert_eq!(
        parse_all("--- SKIP: TestB (0.00s)\n    b_test.go:4: needs network\n"),
        vec![]
    );
}
