use super::*;
use crate::parse::tests::feed;

#[test]
fn a_strict_xpass_carries_its_reason() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-xpass-strict-q.txt"
        )),
        [test(
            "tests/test_x.py::test_rounding_half_to_even_matches_the_documented_banking_rule",
            None,
            "[XPASS(strict)] rounding bug #12 not fixed yet"
        )]
    );
}

fn parse(text: &str) -> Vec<Diagnostic> {
    feed(&mut Pytest::default(), text).0
}

fn test(rule: &str, line: Option<u64>, message: &str) -> Diagnostic {
    let file = rule.split("::").next().unwrap_or(rule);
    Diagnostic {
        file: Some(file.into()),
        line,
        severity: DiagSeverity::Error,
        rule: Some(rule.into()),
        message: message.into(),
        ..Default::default()
    }
}

/// The five failures and two errors, in the order of the default
/// summary (`-rA` lists errors first). With sections, the messages are
/// their whole `E   ` lines; without (`--tb=line`), the summary's.
fn failures(sections: bool) -> Vec<Diagnostic> {
    let at = |n: u64| sections.then_some(n);
    let long = |full: &'static str, summary: &'static str| {
        if sections { full } else { summary }
    };
    vec![
        test(
            "tests/test_x.py::test_add",
            at(15),
            long("assert 2 == 3\n +  where 2 = add(1, 1)", "assert 2 == 3"),
        ),
        test(
            "tests/test_x.py::test_helper",
            at(10),
            "ValueError: negative: -1",
        ),
        test(
            "tests/test_x.py::TestGroup::test_method",
            at(28),
            long(
                "AssertionError: assert 'ABC' == 'abd'\n\n  - abd\n  + ABC",
                "AssertionError: assert 'ABC'...",
            ),
        ),
        test(
            "tests/test_x.py::TestGroup::test_param[2]",
            at(32),
            "assert 2 == 1",
        ),
        test(
            "tests/test_z.py::test_add",
            at(2),
            long(
                "assert [1, 2] == [1, 3]\n\n  At index 1 diff: 2 != 3\n  Use -v to get more diff",
                "assert [1, 2] == [1, 3]",
            ),
        ),
    ]
}

fn errors() -> Vec<Diagnostic> {
    vec![
        test(
            "tests/test_y.py",
            Some(1),
            "ModuleNotFoundError: No module named 'nonexistent_module_xyz'",
        ),
        test(
            "tests/test_x.py::test_uses_broken",
            Some(37),
            "RuntimeError: fixture exploded",
        ),
    ]
}

#[test]
fn default_output() {
    let mut expected = failures(true);
    expected.extend(errors());
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-default.txt"
        )),
        expected
    );
}

#[test]
fn quiet_output() {
    let mut expected = failures(true);
    expected.extend(errors());
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-q.txt"
        )),
        expected
    );
}

#[test]
fn report_all_with_short_tracebacks() {
    let mut expected = errors();
    expected.extend(failures(true));
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-rA-short.txt"
        )),
        expected
    );
}

#[test]
fn line_tracebacks_have_no_sections_to_pair() {
    // Only the collection error keeps a long traceback; the setup
    // error's section is a lone `E` line.
    let mut expected = failures(false);
    expected.extend(errors());
    expected[6].line = None;
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-tb-line.txt"
        )),
        expected
    );
}

#[test]
fn interrupted_collection() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-interrupted.txt"
        )),
        vec![test(
            "tests/test_y.py",
            Some(1),
            "ModuleNotFoundError: No module named 'nonexistent_module_xyz'"
        )]
    );
}

/// The three cases of `more/tests`, in the default summary's order.
/// The same with long and short tracebacks.
fn more() -> Vec<Diagnostic> {
    let long = "AssertionError: assert 'a rather lon...ap.yek-terces' == 'a rather lon...but-not-quite'\n\
                    \n  Skipping 54 identical leading characters in diff, use -v to show\n\
                    \x20 - .yek-terces-but-not-quite\n  + .yek-terces";
    vec![
        // The summary says `AssertionError: assert 'a rathe...`.
        test("tests/test_a.py::test_long_assertion", Some(7), long),
        // Inherited from test_a.py's TestSigner: the frame is there.
        Diagnostic {
            file: Some("tests/test_a.py".into()),
            ..test(
                "tests/test_b.py::TestTimestampSigner::test_sign",
                Some(15),
                "AssertionError: the signature must match the key\n\
                     assert 'value.yek-pmatsemit' == 'value.yek-terces'\n\
                     \n  - value.yek-terces\n  + value.yek-pmatsemit",
            )
        },
        // Collecting test_c.py imports signer.py, which does not parse.
        Diagnostic {
            file: Some("/work/proj/tests/signer.py".into()),
            ..test(
                "tests/test_c.py",
                Some(8),
                "SyntaxError: '(' was never closed",
            )
        },
    ]
}

#[test]
fn whole_messages_inherited_tests_and_syntax_errors() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-more-default.txt"
        )),
        more()
    );
    // -rA lists the error first.
    let mut expected = more();
    expected.rotate_right(1);
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/pytest/pytest-more-short.txt"
        )),
        expected
    );
}

#[test]
fn the_last_chained_exception_is_the_message() {
    let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    E       KeyError: 'k'\n\
                    \n\
                    tests/test_a.py:3: KeyError\n\
                    \n\
                    During handling of the above exception, another exception occurred:\n\
                    E       ValueError: bad\n\
                    E         detail\n\
                    \n\
                    tests/test_a.py:5: ValueError\n\
                    === short test summary info ===\n\
                    FAILED tests/test_a.py::test_a - ValueError: bad\n";
    assert_eq!(
        parse(text),
        vec![test(
            "tests/test_a.py::test_a",
            Some(5),
            "ValueError: bad\n  detail"
        )]
    );
}

#[test]
fn long_messages_are_cut() {
    let mut text = String::from("=== FAILURES ===\n___ test_a ___\n");
    for n in 0..100 {
        text.push_str(&format!("E   line {n}\n"));
    }
    text.push_str("tests/test_a.py:3: AssertionError\n");
    text.push_str("=== short test summary info ===\nFAILED tests/test_a.py::test_a\n");
    let lines: Vec<String> = (0..MAX_MESSAGE_LINES)
        .map(|n| format!("line {n}"))
        .collect();
    let expected = format!("{}…", lines.join("\n"));
    assert_eq!(
        parse(&text),
        vec![test("tests/test_a.py::test_a", Some(3), &expected)]
    );
    // One huge line: cut at a character boundary.
    let text = format!(
        "=== FAILURES ===\n___ test_a ___\nE   {}\n\
             === short test summary info ===\nFAILED tests/test_a.py::test_a\n",
        "é".repeat(10_000)
    );
    let message = parse(&text).remove(0).message;
    assert!(
        message.len() <= MAX_MESSAGE_BYTES + '…'.len_utf8(),
        "{}",
        message.len()
    );
    assert!(message.ends_with('…'));
}

#[test]
fn odd_exception_lines_do_not_panic() {
    for body in [
        "E   \nE    \n",
        "E \u{a0}x\nE  \u{3000}y\n",
        "E     File \"<string>\", line 1\nE   SyntaxError: x\n",
        "E     File \"a.py\", line 99999999999999999999999\n",
        "E     File \"a.py\", line 2\nE       x(\n",
    ] {
        let text = format!(
            "=== ERRORS ===\n___ ERROR collecting tests/test_a.py ___\n{body}\
                 === short test summary info ===\nERROR tests/test_a.py\n"
        );
        let out = parse(&text);
        assert_eq!(out.len(), 1, "{body:?}");
    }
}

#[test]
fn no_summary_means_no_diagnostics() {
    let text = "=== FAILURES ===\n\
                    ___ test_add ___\n\
                    tests/test_x.py:15: AssertionError\n\
                    === 1 failed in 0.01s ===\n";
    assert_eq!(parse(text), vec![]);
}

#[test]
fn captured_output_is_not_a_traceback() {
    let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    tests/test_a.py:3: AssertionError\n\
                    --- Captured stdout call ---\n\
                    tests/test_a.py:99: printed by the test\n\
                    === short test summary info ===\n\
                    FAILED tests/test_a.py::test_a\n";
    assert_eq!(
        parse(text),
        vec![test("tests/test_a.py::test_a", Some(3), "failed")]
    );
}

#[test]
fn paths_relative_to_a_subdirectory_still_pair() {
    let text = "=== FAILURES ===\n\
                    ___ test_a ___\n\
                    test_a.py:3: AssertionError\n\
                    === short test summary info ===\n\
                    FAILED pkg/tests/test_a.py::test_a - boom\n";
    assert_eq!(
        parse(text),
        vec![test("pkg/tests/test_a.py::test_a", Some(3), "boom")]
    );
    assert!(same_file("test_a.py", "tests/test_a.py"));
    assert!(same_file(r"C:\w\tests\test_a.py", "tests/test_a.py"));
    assert!(!same_file("other_test_a.py", "test_a.py"));
}

#[track_caller]
fn claims(line: &str, expected: bool) {
    let mut parser = Pytest::default();
    let mut out = Vec::new();
    assert_eq!(parser.line(line, &mut out), expected, "{line:?}");
    let diagnostic = expected && (line.starts_with("FAILED") || line.starts_with("ERROR"));
    assert_eq!(out.len(), usize::from(diagnostic), "{line:?}");
}

#[test]
fn near_misses_are_not_claimed() {
    claims("ERROR: connection refused", false);
    claims("ERROR connection refused", false);
    claims("ERROR app.db - timeout", false);
    claims("FAILED", false);
    claims("FAILED ", false);
    claims("FAILED to connect - retrying", false);
    claims("FAILED: 3 tests", false);
    claims(
        "tests/test_x.py::test_add FAILED                 [ 11%]",
        false,
    );
    claims("tests/test_x.py:7: AssertionError", false);
    claims("___ test_add ___", false);
    claims("=== 1 failed, 2 passed in 0.12s ===", false);
    claims("FAILED tests/test_x.py::test_add", true);
    claims("ERROR tests/test_y.py", true);
    claims("ERROR tests/test_x.py::test_p[a b] - oops", true);
    claims("PASSED tests/test_x.py::test_ok", true);
    claims("SKIPPED [1] tests/test_x.py:44: not today", true);
    claims("=== FAILURES ===", true);
}

#[test]
fn collection_errors_of_a_class_pair_by_node_id() {
    let text = "=== ERRORS ===\n\
                    ___ ERROR collecting tests/test_c.py::TestC ___\n\
                    tests/test_c.py:4: in TestC\n\
                    E   NameError: name 'x' is not defined\n\
                    === short test summary info ===\n\
                    ERROR tests/test_c.py::TestC\n";
    assert_eq!(
        parse(text),
        vec![test(
            "tests/test_c.py::TestC",
            Some(4),
            "NameError: name 'x' is not defined"
        )]
    );
}

#[test]
fn parameter_ids_with_spaces() {
    let out = parse("FAILED tests/test_x.py::test_p[a b] - assert x - y");
    assert_eq!(
        out,
        vec![test("tests/test_x.py::test_p[a b]", None, "assert x - y")]
    );
}
