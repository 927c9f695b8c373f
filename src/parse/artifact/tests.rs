use std::fs;
use std::path::Path;

use super::junit::junit;
use super::sarif::{percent_decode, sarif};
use super::*;
use run_check_documents::evidence::DiagSeverity;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/artifacts")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn error(rule: &str, message: &str) -> Diagnostic {
    Diagnostic {
        rule: Some(rule.into()),
        message: message.into(),
        severity: DiagSeverity::Error,
        ..Diagnostic::default()
    }
}

#[test]
fn a_real_pytest_report_names_failures_and_errors() {
    let found = parse("junit.xml", &fixture("pytest-junit.xml"));
    assert_eq!(
        found,
        vec![
            error(
                "test_sample.test_add_fails",
                "assert 4 == 5\n +  where 4 = add(2, 2)"
            ),
            error(
                "test_sample.TestStrings.test_join_fails",
                "AssertionError: joined with the wrong separator\nassert 'x-y' == 'x,y'\n  \n  - x,y\n  + x-y"
            ),
            error(
                "test_sample.test_uses_broken_fixture",
                "failed on setup with \"RuntimeError: fixture setup exploded\""
            ),
        ]
    );
    // xunit1 adds file and line attributes (pytest's line is 0-based; it is
    // taken as written).
    let found = parse("junit.xml", &fixture("pytest-junit-xunit1.xml"));
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].file.as_deref(), Some("test_sample.py"));
    assert_eq!(found[0].line, Some(11));
}

#[test]
fn a_real_node_report_with_testcases_outside_any_testsuite() {
    let found = junit(&fixture("node-junit.xml"));
    let rules: Vec<_> = found.iter().map(|f| f.rule.as_deref().unwrap()).collect();
    assert_eq!(
        rules,
        ["test.subtracts <wrong> & fails", "test.nested throws"]
    );
    assert_eq!(found[0].message, "3 - 1 should be 1 (it is not)2 !== 1");
    assert_eq!(found[1].message, "boom");
    // No file or line attributes: the first frame outside node's own.
    let places: Vec<_> = found
        .iter()
        .map(|f| (f.file.as_deref().unwrap(), f.line, f.column))
        .collect();
    assert_eq!(
        places,
        [
            ("/tmp/nt/math.test.js", Some(9), Some(10)),
            ("/tmp/nt/math.test.js", Some(15), Some(11)),
        ]
    );
}

fn located(file: &str, line: u64, column: u64, rule: &str, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column: Some(column),
        ..error(rule, message)
    }
}

#[test]
fn a_real_vitest_report_is_located_by_its_failure_text() {
    // Classname = the file, no file or line attribute: the ` ❯ ` frame in
    // that file (the test's line, also when a helper threw).
    let found = junit(include_bytes!(
        "../../../tests/fixtures/diagnostics/vitest/vitest-junit.xml"
    ));
    assert_eq!(
        found,
        vec![
            located(
                "tests/broken.test.ts",
                2,
                1,
                "tests/broken.test.ts",
                "Cannot find module '../src/missing' imported from '/work/proj/tests/broken.test.ts'"
            ),
            located(
                "tests/math.test.ts",
                6,
                15,
                "adds two numbers",
                "expected 2 to be 3 // Object.is equality"
            ),
            located(
                "tests/math.test.ts",
                16,
                14,
                "parseAmount > blank input > returns zero",
                "empty amount: \"  \""
            ),
            located(
                "tests/strings.test.ts",
                5,
                54,
                "shouts",
                "expected { name: 'ADA', role: 'admin' } to deeply equal { name: 'ADA', role: 'owner' }"
            ),
            located(
                "tests/strings.test.ts",
                12,
                9,
                "throws directly",
                "not implemented yet"
            ),
        ]
    );
}

#[test]
fn a_real_jest_junit_report_is_located_by_its_failure_text() {
    // jest-junit names no file: the first `at` frame outside node_modules
    // (jest's own frames are skipped); a helper that threw is that frame.
    let found = junit(include_bytes!(
        "../../../tests/fixtures/diagnostics/jest/jest-junit.xml"
    ));
    assert_eq!(
        found,
        vec![
            located(
                "/work/proj/tests/math.test.js",
                5,
                15,
                "adds two numbers",
                "Error: expect(received).toBe(expected) // Object.is equality"
            ),
            located(
                "/work/proj/src/parse.js",
                3,
                11,
                "parseAmount blank input returns zero",
                "RangeError: empty amount: \"  \""
            ),
            located(
                "/work/proj/tests/strings.test.js",
                3,
                54,
                "shouts",
                "Error: expect(received).toEqual(expected) // deep equality"
            ),
            located(
                "/work/proj/tests/strings.test.js",
                10,
                9,
                "throws directly",
                "TypeError: not implemented yet"
            ),
        ]
    );
}

#[test]
fn a_file_attribute_limits_the_frames_and_a_line_attribute_wins() {
    let xml = br#"<testsuite>
<testcase classname="a" name="t1" file="tests/a.test.js"><failure>x
    at helper (src/h.js:3:1)
    at Object.t (tests/a.test.js:7:2)</failure></testcase>
<testcase classname="a" name="t2" file="tests/b.test.js"><failure>y
    at helper (src/h.js:3:1)</failure></testcase>
<testcase classname="a" name="t3" file="tests/c.test.js" line="4"><failure>z
    at Object.t (tests/c.test.js:9:9)</failure></testcase>
<testcase classname="tests/d.test.ts" name="t4"><failure>w</failure></testcase>
</testsuite>"#;
    let places: Vec<_> = junit(xml)
        .into_iter()
        .map(|f| (f.rule.unwrap(), f.file.unwrap(), f.line, f.column))
        .collect();
    assert_eq!(
        places,
        [
            ("a.t1".into(), "tests/a.test.js".into(), Some(7), Some(2)),
            ("a.t2".into(), "tests/b.test.js".into(), None, None),
            ("a.t3".into(), "tests/c.test.js".into(), Some(4), None),
            ("t4".into(), "tests/d.test.ts".into(), None, None),
        ]
    );
}

#[test]
fn junit_body_without_message_appears_once() {
    // A failure whose only text is its body, exactly as a user reported it.
    let xml = br#"<testsuite name="s">
<testcase classname="A" name="fbody"><failure>failure body only</failure></testcase>
<testcase classname="A" name="ebody"><error type="RuntimeError">error body only</error></testcase>
<testcase classname="A" name="cdata"><failure><![CDATA[cdata body]]></failure></testcase>
</testsuite>
"#;
    assert_eq!(
        junit(xml),
        vec![
            error("A.fbody", "failure body only"),
            error("A.ebody", "error body only"),
            error("A.cdata", "cdata body"),
        ]
    );
    // Text split by a child element is joined once, in order.
    let nested =
        b"<testsuite><testcase name='t'><failure>ab<b>cd</b>ef</failure></testcase></testsuite>";
    assert_eq!(junit(nested), vec![error("t", "abcdef")]);
}

#[test]
fn junit_shapes() {
    let found = junit(&fixture("edge-junit.xml"));
    assert_eq!(
        found,
        vec![
            Diagnostic {
                file: Some("src/mod.rs".into()),
                line: Some(42),
                ..error("pkg.Mod.with_attrs", "expected <1> & got 2")
            },
            error("no_classname", "first line of the error text"),
            error("pkg.empty_failure", "failure"),
            error("pkg.two_failures", "first"),
        ]
    );
    // Not a JUnit root, malformed, truncated, not UTF-8: nothing.
    assert!(junit(b"<project><testcase name='x'><failure/></testcase></project>").is_empty());
    assert!(junit(b"<testsuite><testcase name='x'><failure>").is_empty());
    assert!(junit(b"").is_empty());
    assert!(junit(b"\xff\xfe<\x00").is_empty());
    // UTF-16 with a byte-order mark, both byte orders.
    let xml = "<?xml version='1.0' encoding='UTF-16'?><testsuite><testcase name='t'><failure message='é'/></testcase></testsuite>";
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for unit in xml.encode_utf16() {
        le.extend(unit.to_le_bytes());
        be.extend(unit.to_be_bytes());
    }
    assert_eq!(junit(&le), vec![error("t", "é")]);
    assert_eq!(junit(&be), vec![error("t", "é")]);
    // Entities defined by a DTD are fine; a billion laughs is refused.
    let dtd = b"<?xml version='1.0'?><!DOCTYPE t [<!ENTITY m 'boom'>]>\
            <testsuite><testcase name='t'><failure message='&m;'/></testcase></testsuite>";
    assert_eq!(junit(dtd), vec![error("t", "boom")]);
    let mut laughs = String::from("<?xml version='1.0'?><!DOCTYPE t [<!ENTITY a0 'lol'>");
    for i in 1..12 {
        let prev = format!("&a{};", i - 1);
        laughs.push_str(&format!("<!ENTITY a{i} '{}'>", prev.repeat(10)));
    }
    laughs.push_str(
        "]><testsuite><testcase name='t'><failure message='&a11;'/></testcase></testsuite>",
    );
    assert!(junit(laughs.as_bytes()).len() <= 1);
}

#[test]
fn real_sarif_from_ruff_and_eslint() {
    let found = parse("lint.sarif", &fixture("ruff.sarif"));
    assert_eq!(found.len(), 5);
    assert_eq!(
        found[0],
        Diagnostic {
            file: Some("/tmp/fx/lint/sample.py".into()),
            line: Some(1),
            column: Some(8),
            severity: DiagSeverity::Error,
            rule: Some("F401".into()),
            message: "`os` imported but unused".into(),
            ..Default::default()
        }
    );
    assert_eq!(found[4].rule.as_deref(), Some("F821"));
    assert_eq!((found[4].line, found[4].column), (Some(9), Some(12)));

    let found = parse("eslint.sarif.json", &fixture("eslint.sarif"));
    let summary: Vec<_> = found
        .iter()
        .map(|f| (f.rule.as_deref().unwrap(), f.severity, f.line.unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            ("no-unused-vars", DiagSeverity::Error, 1),
            ("prefer-const", DiagSeverity::Error, 1),
            ("eqeqeq", DiagSeverity::Warning, 3),
            ("no-console", DiagSeverity::Warning, 4),
            ("prefer-const", DiagSeverity::Error, 6),
        ]
    );
    assert_eq!(found[3].file.as_deref(), Some("/tmp/esl/src/app.js"));
}

#[test]
fn sarif_shapes() {
    let found = sarif(&fixture("edge.sarif"));
    let expect = |rule: &str, severity, message: &str| Diagnostic {
        rule: Some(rule.into()),
        severity,
        message: message.into(),
        ..Diagnostic::default()
    };
    assert_eq!(
        found,
        vec![
            Diagnostic {
                file: Some("src/with space.c".into()),
                line: Some(4),
                ..expect("R-none", DiagSeverity::Info, "level none is informational")
            },
            Diagnostic {
                file: Some("/abs/dir/x.c".into()),
                line: Some(7),
                column: Some(2),
                ..expect("R-absent", DiagSeverity::Warning, "no level means warning")
            },
            expect(
                "R-default-note",
                DiagSeverity::Note,
                "rule by index, level from its defaultConfiguration"
            ),
            Diagnostic {
                file: Some("lib/y.c".into()),
                ..expect("R-plain", DiagSeverity::Error, "rule by reference object")
            },
            expect("S1", DiagSeverity::Warning, "from the second run"),
        ]
    );
    // Not SARIF 2.1.0, malformed, or a plain JSON file: nothing.
    assert!(
        sarif(br#"{"version":"2.0.0","runs":[{"results":[{"message":{"text":"x"}}]}]}"#).is_empty()
    );
    assert!(sarif(br#"{"version":"2.1.0","runs":[{"results":[{"mess"#).is_empty());
    assert!(parse("package.json", br#"{"name":"x","version":"2.1.0"}"#).is_empty());
    assert!(parse("notes.txt", &fixture("ruff.sarif")).is_empty());
}

#[test]
fn sarif_kinds_suppressions_arguments_and_uris() {
    let doc = br#"{"version":"2.1.0","runs":[{"artifacts":[{"location":{"uri":"file:///C:/src/a%2Bb.rs"}}],"results":[
            {"ruleId":"ok","kind":"pass","message":{"text":"fine"}},
            {"ruleId":"hidden","suppressions":[{"kind":"inSource"}],"message":{"text":"x"}},
            {"ruleId":"shown","suppressions":[{"kind":"external","status":"rejected"}],
             "message":{"text":"{0} is {1} {{literally}} {7}","arguments":["x","bad"]},
             "locations":[{"physicalLocation":{"artifactLocation":{"index":0},"region":{"startColumn":3}}}]},
            {"ruleId":"unc","level":"note","message":{"text":"m"},
             "locations":[{"physicalLocation":{"artifactLocation":{"uri":"file://server/share/x.c"},"region":{"startLine":0}}}]}
        ]}]}"#;
    let found = sarif(doc);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].message, "x is bad {literally} {7}");
    assert_eq!(found[0].file.as_deref(), Some("C:/src/a+b.rs"));
    assert_eq!((found[0].line, found[0].column), (None, None));
    assert_eq!(found[1].file.as_deref(), Some("//server/share/x.c"));
    assert_eq!(found[1].line, None);
    assert_eq!(percent_decode("a%2"), "a%2");
    assert_eq!(percent_decode("%e2%9c%93%zz"), "✓%zz");
}

#[test]
fn long_messages_are_clipped_on_a_char_boundary() {
    let long = "é".repeat(MAX_MESSAGE);
    let clipped = clip(long);
    assert!(clipped.len() <= MAX_MESSAGE + '…'.len_utf8());
    assert!(clipped.ends_with('…'));
    assert_eq!(clip("x  \n".into()), "x");
}
