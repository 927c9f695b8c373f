use super::*;

#[test]
fn a_failure_is_explained_by_a_located_new_error_wherever_it_is() {
    let mut evidence = sample_evidence();
    let lint = 1;
    // The sample: an error at src/a.c:3, an output that names none of it.
    assert!(explained(&evidence, &evidence.checks[lint]));
    // Followed by a long output (a test runner's other binaries, a
    // coverage table): still the explanation.
    evidence.checks[lint].stdout_excerpt = format!(
        "a.c:3:5: error: bad thing\n{}",
        "test other ... ok\n".repeat(3 * TAIL_LINES)
    );
    evidence.checks[lint].excerpt_truncated = true;
    assert!(explained(&evidence, &evidence.checks[lint]));
    // An error the baseline knew does not explain a failure now.
    evidence.diagnostics[0].new = Some(false);
    assert!(!explained(&evidence, &evidence.checks[lint]));
    evidence.diagnostics[0].new = Some(true);
    assert!(explained(&evidence, &evidence.checks[lint]));
    // Without a file: no.
    evidence.diagnostics[0].file = None;
    assert!(!explained(&evidence, &evidence.checks[lint]));
    // Only warnings: never.
    evidence.diagnostics.remove(0);
    assert!(!explained(&evidence, &evidence.checks[lint]));
    // Another check's error or the read-only verification's is not this
    // check's explanation.
    let mut evidence = sample_evidence();
    evidence.diagnostics[0].check = "unit".into();
    assert!(!explained(&evidence, &evidence.checks[lint]));
    evidence.diagnostics[0].check = "lint".into();
    evidence.diagnostics[0].rule = Some("read-only".into());
    assert!(!explained(&evidence, &evidence.checks[lint]));
}

#[test]
fn a_pass_where_nothing_ran_says_so() {
    let mut evidence = sample_passing();
    assert_eq!(nothing_ran(&evidence), None);
    evidence.mode = run_check_documents::evidence::Mode::Fast;
    evidence.checks[0].status = run_check_documents::evidence::Status::Skip;
    evidence.checks[0].skip_reason = Some("no changed file matches `paths` (src/**)".into());
    evidence.checks.push(evidence.checks[0].clone());
    evidence.summary = run_check_documents::evidence::summarize(
        &evidence.checks,
        900,
        false,
        &evidence.contracts.read_only,
    );
    assert_eq!(
        nothing_ran(&evidence).as_deref(),
        Some(
            "Nothing ran: all 2 checks were skipped (no changed file matches their `paths`); \
                 `run-check --mode strict` runs every check"
        )
    );
    let text = String::from_utf8(render(Format::Text, &evidence)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[lines.len() - 3].starts_with("Nothing ran: all 2 checks"),
        "{text}"
    );
    assert_eq!(lines.last().copied(), Some("All checks passed!"));
    evidence.checks.truncate(1);
    evidence.checks[0].skip_reason = Some("interrupted".into());
    evidence.mode = run_check_documents::evidence::Mode::Strict;
    evidence.summary = run_check_documents::evidence::summarize(
        &evidence.checks,
        900,
        false,
        &evidence.contracts.read_only,
    );
    assert_eq!(
        nothing_ran(&evidence).as_deref(),
        Some("Nothing ran: the one check was skipped (interrupted)")
    );
    evidence.checks.clear();
    evidence.summary.total = 0;
    evidence.summary.skipped = 0;
    assert_eq!(
        nothing_ran(&evidence).as_deref(),
        Some("Nothing ran: no check is selected in strict mode")
    );
}

#[test]
fn counts_read_as_english() {
    assert_eq!(
        (
            checks(0),
            checks(1),
            checks(2),
            crate::output::plural(2u64, "fix")
        ),
        (
            "0 checks".into(),
            "1 check".into(),
            "2 checks".into(),
            "2 fixes".into()
        )
    );
    let mut evidence = junit::sample::evidence();
    evidence.summary.total = 1;
    assert!(tally(&evidence.summary).starts_with("1 check: "));
}

#[test]
fn both_streams_stdout_first_labelled_only_together() {
    let mut check = junit::sample::evidence().checks[1].clone();
    check.stdout_excerpt = "FAILED test_x\n".into();
    check.stderr_excerpt = "DeprecationWarning\n".into();
    let shown = streams(&check);
    assert_eq!(
        shown,
        [
            Stream {
                name: "stdout",
                text: "FAILED test_x\n",
                labelled: true
            },
            Stream {
                name: "stderr",
                text: "DeprecationWarning\n",
                labelled: true
            },
        ]
    );
    check.stderr_excerpt = " \n".into();
    assert_eq!(
        streams(&check),
        [Stream {
            name: "stdout",
            text: "FAILED test_x\n",
            labelled: false
        }]
    );
    check.stdout_excerpt = String::new();
    assert_eq!(streams(&check), []);
}

#[test]
fn one_wording_for_how_a_check_ended() {
    assert_eq!(ending(Some("fail-fast"), None, false, None), "fail-fast");
    assert_eq!(
        ending(None, Some("program `x` not found"), false, None),
        "program `x` not found"
    );
    assert_eq!(
        ending(None, None, true, None),
        "timed out; process tree killed"
    );
    assert_eq!(ending(None, None, false, Some(3)), "exit 3");
    assert_eq!(ending(None, None, false, Some(0)), "");
    assert_eq!(ending(None, None, false, None), "");
}

/// A fast run whose tool checks were all skipped (nothing they watch
/// changed) and whose scan ran: the line says what was skipped and how to
/// run it, never to add checks that are there; everywhere a human reads
/// the verdict (text report, feedback).
#[test]
fn a_scan_only_pass_with_skipped_tools_says_they_were_skipped() {
    use run_check_documents::evidence::{Mode, Status as S};
    let mut evidence = sample_passing();
    evidence.mode = Mode::Fast;
    let mut scan = evidence.checks[0].clone();
    scan.name = "secrets".into();
    scan.command.clear();
    evidence.checks[0].status = S::Skip;
    evidence.checks[0].skip_reason = Some("no changed file matches `paths` (src/**)".into());
    evidence.checks.push(scan);
    evidence.summary = run_check_documents::evidence::summarize(
        &evidence.checks,
        900,
        false,
        &evidence.contracts.read_only,
    );
    let line = "No tool ran: only the scan `secrets` ran; the one check that runs a tool was skipped \
                (no changed file matches their `paths`); `run-check --mode strict` runs every check";
    assert_eq!(ran_line(&evidence).as_deref(), Some(line));
    let text = String::from_utf8(render(Format::Text, &evidence)).unwrap();
    assert!(text.contains(line), "{text}");
    assert!(!text.contains("add checks"), "{text}");
    let feedback = feedback::render(
        &evidence,
        &feedback::Options {
            max_chars: 4000,
            next: None,
            evidence_path: None,
        },
    );
    assert!(feedback.contains(line), "{feedback}");
    // With no tool check at all, the advice is to add one.
    evidence.checks.remove(0);
    evidence.summary = run_check_documents::evidence::summarize(
        &evidence.checks,
        900,
        false,
        &evidence.contracts.read_only,
    );
    assert!(
        ran_line(&evidence).unwrap().ends_with(
            "no check built, linted or tested the code (add checks that run the project's tools \
             to checks.toml, or run `run-check --mode strict`)"
        ),
        "{:?}",
        ran_line(&evidence)
    );
}

/// A lint check with 30 old-style warnings in file order and its error
/// last, and a test check failing after it: the text report shows the
/// lint error among the shown lines, the feedback shows both checks'
/// errors before any warning.
#[test]
fn errors_lead_the_text_report_and_the_feedback_across_checks() {
    let mut evidence = sample_evidence();
    evidence.diagnostics.clear();
    for i in 1..=30 {
        evidence.diagnostics.push(junit::sample::diagnostic(
            "lint",
            Some("index.js"),
            Some(i),
            Some(1),
            "warning",
            Some("no-var"),
            "Unexpected var",
        ));
    }
    evidence.diagnostics.push(junit::sample::diagnostic(
        "lint",
        Some("index.js"),
        Some(240),
        Some(6),
        "error",
        Some("no-unused-vars"),
        "'x' is assigned a value but never used",
    ));
    evidence.diagnostics.push(junit::sample::diagnostic(
        "unit",
        Some("test/bool.js"),
        Some(18),
        Some(4),
        "error",
        None,
        "should be deeply equivalent\nexpected: string\nactual: boolean",
    ));
    let text = String::from_utf8(render(Format::Text, &evidence)).unwrap();
    let at = |out: &str, needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in: {out}"))
    };
    assert!(
        at(&text, "index.js:240:6: error") < at(&text, "index.js:1:1: warning"),
        "{text}"
    );
    // A test's compared values under its line, in both.
    assert!(text.contains("\n          expected: string\n"), "{text}");
    let feedback = feedback::render(
        &evidence,
        &feedback::Options {
            max_chars: 1200,
            next: None,
            evidence_path: None,
        },
    );
    assert!(
        at(&feedback, "test/bool.js:18:4") < at(&feedback, "index.js:1:1"),
        "{feedback}"
    );
    assert!(
        at(&feedback, "index.js:240:6") < at(&feedback, "index.js:1:1"),
        "{feedback}"
    );
    assert!(feedback.contains("\n  actual: boolean\n"), "{feedback}");
}

/// A progress bar redrawn with backspaces is one line of thousands of
/// characters: the tail shows its start and says how much was cut.
#[test]
fn a_tail_line_is_cut_and_says_how_much() {
    let mut check = junit::sample::evidence().checks[1].clone();
    let bar = format!("{}done", "[####]\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}".repeat(400));
    check.stderr_excerpt = format!("{bar}\nmake: *** [Makefile:76: test] Aborted\n");
    let tail = output_tail(&check);
    assert_eq!(tail.len(), 2, "{tail:?}");
    let cut = TAIL_CHARS;
    assert_eq!(
        tail[0].chars().count(),
        cut + "… (4504 more characters)".chars().count()
    );
    assert!(tail[0].ends_with("… (4504 more characters)"), "{}", tail[0]);
    assert_eq!(tail[1], "make: *** [Makefile:76: test] Aborted");
}
