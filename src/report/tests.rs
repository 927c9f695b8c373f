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
