use super::*;

fn parse(xml: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}\n{xml}"))
}

#[test]
fn one_testcase_per_check_with_counts() {
    let xml = render(&sample::evidence());
    let doc = parse(&xml);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("name"), Some("run-check"));
    let counts: Vec<_> = ["tests", "failures", "errors", "skipped", "time"]
        .iter()
        .map(|a| root.attribute(*a).unwrap())
        .collect();
    assert_eq!(counts, ["5", "2", "1", "1", "2.345"]);
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    assert_eq!(suites[0].attribute("name"), Some("run-check strict"));
    let cases: Vec<_> = suites[0]
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<_> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(names, ["ok", "lint", "unit", "gone", "later"]);
    assert!(
        cases
            .iter()
            .all(|c| c.attribute("classname") == Some("run-check.strict"))
    );
    assert_eq!(cases[0].attribute("time"), Some("0.812"));
    assert_eq!(cases[0].children().filter(|n| n.is_element()).count(), 0);
    let child = |i: usize| cases[i].children().find(|n| n.is_element()).unwrap();
    assert_eq!(child(1).tag_name().name(), "failure");
    assert_eq!(child(1).attribute("message"), Some("lint failed (exit 3)"));
    assert_eq!(
        child(2).attribute("message"),
        Some("unit timed out; process tree killed")
    );
    assert_eq!(child(2).text(), Some("waiting…\n"));
    assert_eq!(child(3).tag_name().name(), "error");
    assert_eq!(
        child(3).attribute("message"),
        Some("program `zz` not found on PATH")
    );
    assert_eq!(child(4).tag_name().name(), "skipped");
    assert_eq!(child(4).attribute("message"), Some("needs `unit` failed"));
    let props: Vec<_> = suites[0]
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
        .collect();
    assert!(props.contains(&(
        "banner",
        "2 of 5 checks failed: lint, unit; 1 of 5 checks errored: gone"
    )));
    assert!(props.contains(&("exit_code", "2")));
    assert!(props.contains(&("commit", "0123456789abcdef0123456789abcdef01234567")));
}

/// The text of the report's first `<failure>`.
fn first_failure_text(xml: &str) -> String {
    let doc = parse(xml);
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    failure.text().unwrap().to_string()
}

#[test]
fn failure_text_is_the_excerpt_then_the_diagnostics_escaped() {
    let xml = render(&crate::sanitize::evidence_display(&sample::evidence()));
    assert_eq!(
        first_failure_text(&xml),
        "error: <bad> & \"worse\" ]]> ␀␇\n```rust\n``` x\n\n\
             src/a.c:3:5: error: bad thing\n\
             src/b,c:d.rs:1: warning: odd 100% message\nsecond | line [W:1]\n"
    );
    assert!(!xml.contains('\u{0}') && !xml.contains('\u{7}') && !xml.contains('\u{1b}'));
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
}

#[test]
fn failure_text_shows_stdout_then_stderr_when_both_have_output() {
    let mut evidence = sample::evidence();
    evidence.checks[1].stdout_excerpt = "FAILED test_x - AssertionError".into();
    evidence.checks[1].stderr_excerpt = "DeprecationWarning: old api\n".into();
    assert_eq!(
        first_failure_text(&render(&evidence)),
        "--- stdout ---\nFAILED test_x - AssertionError\n\
             --- stderr ---\nDeprecationWarning: old api\n\n\
             src/a.c:3:5: error: bad thing\n\
             src/b,c:d.rs:1: warning: odd 100% message\nsecond | line [W:1]\n"
    );
}

#[test]
fn attributes_keep_newlines_and_quotes() {
    let mut evidence = sample::evidence();
    evidence.checks[3].error = Some("a \"quoted\"\n'line'\ttab <&>\u{1}".into());
    let xml = render(&evidence);
    let doc = parse(&xml);
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert_eq!(
        error.attribute("message"),
        Some("a \"quoted\"\n'line'\ttab <&>\u{FFFD}")
    );
    assert_eq!(text("\u{FFFE}ok\u{10FFFF}"), "\u{FFFD}ok\u{10FFFF}");
}

#[test]
fn a_passing_run_has_no_failures() {
    let xml = render(&sample::passing());
    let doc = parse(&xml);
    let root = doc.root_element();
    assert_eq!(root.attribute("tests"), Some("1"));
    assert_eq!(root.attribute("failures"), Some("0"));
    assert_eq!(root.attribute("errors"), Some("0"));
    assert!(!xml.contains("<failure") && !xml.contains("<error"));
}

#[test]
fn a_run_that_fails_without_a_failing_check_gets_a_run_testcase() {
    let mut evidence = sample::passing();
    evidence.contracts.read_only.modified = vec!["src/new.rs".into()];
    evidence.diagnostics.push(sample::diagnostic(
        "run-check",
        Some("src/new.rs"),
        None,
        None,
        "error",
        Some("read-only"),
        "created while the checks ran",
    ));
    evidence.summary = run_check_documents::evidence::summarize(
        &evidence.checks,
        1,
        false,
        &evidence.contracts.read_only,
    );
    assert_eq!(evidence.summary.exit_code, 1);
    let xml = render(&evidence);
    let doc = parse(&xml);
    let root = doc.root_element();
    assert_eq!(
        (root.attribute("tests"), root.attribute("failures")),
        (Some("2"), Some("1"))
    );
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("run-check"))
        .unwrap();
    let failure = case.first_element_child().unwrap();
    assert_eq!(failure.tag_name().name(), "failure");
    assert_eq!(
        failure.attribute("message"),
        Some(evidence.summary.banner.as_str())
    );
    let body = failure.text().unwrap();
    assert!(body.contains("modified: src/new.rs"), "{body}");
    assert!(body.contains("src/new.rs: error: created while the checks ran [read-only]"));
}

#[test]
fn rendering_is_deterministic() {
    let evidence = sample::evidence();
    assert_eq!(render(&evidence), render(&evidence));
}
