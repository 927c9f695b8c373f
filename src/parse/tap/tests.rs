use super::*;
use crate::parse::tests::feed;

fn parse(text: &str) -> Vec<Diagnostic> {
    feed(&mut Tap::default(), text).0
}

fn at(file: &str, line: u64, column: Option<u64>, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column,
        severity: DiagSeverity::Error,
        message: message.into(),
        ..Default::default()
    }
}

#[test]
fn node_test_failures_are_placed_at_the_assertion() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tap/node-test.txt"
        )),
        [at(
            "/work/proj/test/add.test.js",
            9,
            Some(10),
            "subtracts\nExpected values to be strictly equal:\n2 !== 3"
        )]
    );
}

#[test]
fn tape_failures_are_placed_at_the_assertion() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tap/tape.txt"
        )),
        [at(
            "/work/proj/tape/add.js",
            9,
            Some(5),
            "five minus three\nexpected: 3\nactual: 2"
        )]
    );
}

#[test]
fn tape_block_scalars_are_read_as_yaml() {
    // tape writes a long or structured value as a block scalar
    // (`expected: |-` and the value indented under it), and quotes a
    // string that would read as a number.
    let file = "/work/proj/tape/text.js";
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tap/tape-yaml.txt"
        )),
        [
            at(
                file,
                5,
                Some(5),
                "two lines\nexpected: a\\nc\nactual: a\\nb"
            ),
            at(
                file,
                6,
                Some(5),
                "same record\nexpected: { name: 'x', tags: [ 'b' ] }\n\
                 actual: { name: 'x', tags: [ 'a' ] }"
            ),
            at(
                file,
                7,
                Some(5),
                "same issue\nexpected: { id: 1, title: 'first day', owner: 'newcomer', \
                 labels: [ 'bug', 'yaml' ], state: 'open' }\nactual: { id: 1, title: \
                 'first day', owner: 'newcomer', labels: [ 'bug', 'tape' ], state: 'open' }"
            ),
            at(file, 12, Some(5), "a count\nexpected: 3\nactual: '3'"),
        ]
    );
    // A value over several lines keeps them, indented under its label;
    // a block that is no YAML leaves the point unplaced, not lost.
    let text = "not ok 1 - lines\n  ---\n    expected: |-\n      one\n      two\n    \
        actual: |-\n      one\n    ...\nnot ok 2 - broken\n  ---\n    at: [unclosed\n  ...\n";
    let got = parse(text);
    assert_eq!(got[0].message, "lines\nexpected: one\n  two\nactual: one");
    assert_eq!(
        (got[1].message.as_str(), got[1].file.as_deref()),
        ("broken", None)
    );
}

#[test]
fn node_tap_failures_are_placed_at_the_assertion_once() {
    // The failed assertion, nested in its test and its file: those two
    // `not ok` points are its suites, no failures of their own.
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tap/node-tap.txt"
        )),
        [at(
            "test/add.test.js",
            9,
            Some(5),
            "five minus three\n-3\n+2"
        )]
    );
    // Without a stack, node-tap's `at:` mapping places it.
    let text = "    not ok 1 - nope\n      ---\n      at:\n        fileName: t/a.js\n        \
        lineNumber: 4\n        columnNumber: 7\n      ...\n";
    assert_eq!(parse(text), [at("t/a.js", 4, Some(7), "nope")]);
}

#[test]
fn prove_failures_are_placed_at_the_test_line() {
    assert_eq!(
        parse(include_str!(
            "../../../tests/fixtures/diagnostics/tap/prove.stderr.txt"
        )),
        [at(
            "t/basic.t",
            6,
            None,
            "subtracts\ngot: '2'\nexpected: '3'"
        )]
    );
    // `prove -v` on stdout: the point, unplaced.
    let verbose = parse(include_str!(
        "../../../tests/fixtures/diagnostics/tap/prove-v.stdout.txt"
    ));
    assert_eq!(verbose.len(), 1, "{verbose:?}");
    assert_eq!(verbose[0].message, "subtracts");
    assert_eq!(verbose[0].file, None);
}

#[test]
fn auto_recognises_every_capture() {
    for text in [
        include_str!("../../../tests/fixtures/diagnostics/tap/node-test.txt"),
        include_str!("../../../tests/fixtures/diagnostics/tap/tape.txt"),
        include_str!("../../../tests/fixtures/diagnostics/tap/tape-yaml.txt"),
        include_str!("../../../tests/fixtures/diagnostics/tap/node-tap.txt"),
        include_str!("../../../tests/fixtures/diagnostics/tap/prove.stderr.txt"),
        include_str!("../../../tests/fixtures/diagnostics/tap/prove-v.stdout.txt"),
    ] {
        let mut auto = super::super::Auto::default();
        let mut out = Vec::new();
        for line in text.lines() {
            auto.line(line, &mut out);
        }
        auto.finish(&mut out);
        assert_eq!(out, parse(text), "{text}");
    }
}

#[test]
fn todo_and_skip_points_and_suites_are_no_failures() {
    let text = "TAP version 13\nnot ok 1 - later # TODO not yet\nnot ok 2 - gone # skip no db\n\
        # Subtest: suite\n    not ok 1 - inner\n      ---\n      location: '/w/a.js:3:1'\n      ...\n\
        not ok 3 - suite\n  ---\n  failureType: 'subtestsFailed'\n  ...\n1..3\n";
    assert_eq!(parse(text), [at("/w/a.js", 3, Some(1), "inner")]);
}
