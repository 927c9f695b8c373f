use super::*;
use crate::aggregate::judge::tests::evidence_with;
use run_check_documents::verdict::{DimensionResult, GivenIssue, Score};

fn check(name: &str, dimension: Dimension, severity: Severity, status: Status) -> CheckRecord {
    crate::aggregate::judge::tests::record(serde_json::json!({
        "name": name, "status": status, "dimension": dimension, "severity": severity,
        "exit_code": 1, "command": ["sh", "-c", "exit 1"],
    }))
}

fn diag(check: &str, severity: DiagSeverity, rule: Option<&str>, line: Option<u64>) -> Diagnostic {
    Diagnostic {
        check: check.into(),
        file: line.map(|_| "src/a.rs".to_string()),
        line,
        column: None,
        severity,
        rule: rule.map(str::to_string),
        message: "msg".into(),
        suggestion: None,
        new: None,
    }
}

fn ids(issues: &[Issue]) -> Vec<(&str, &str)> {
    issues
        .iter()
        .map(|i| (i.id.as_str(), i.fingerprint.as_str()))
        .collect()
}

#[test]
fn a_run_that_broke_its_own_contract_adds_critical_issues() {
    use Dimension::*;
    let interrupted = |name: &str| CheckRecord {
        skip_reason: Some("interrupted".into()),
        ..check(name, Quality, Severity::High, Status::Skip)
    };
    let mut evidence = evidence_with(
        vec![
            check("fmt", Quality, Severity::High, Status::Pass),
            interrupted("test"),
            interrupted("bench"),
        ],
        vec![],
    );
    evidence.contracts.read_only.error = Some("`git status` failed".into());
    let issues = from_evidence(&evidence, &[]);
    assert!(issues.high.is_empty() && issues.medium.is_empty() && issues.low.is_empty());
    let critical: Vec<(&str, &str, &str)> = issues
        .critical
        .iter()
        .map(|i| {
            (
                i.id.as_str(),
                i.fingerprint.as_str(),
                i.description.as_str(),
            )
        })
        .collect();
    assert_eq!(
        critical,
        [
            (
                "QA-001",
                "read-only:unknown:unknown",
                "the read-only verification could not run: `git status` failed"
            ),
            (
                "QA-002",
                "interrupted:unknown:unknown",
                "the run was interrupted: 2 of 3 checks did not run (test, bench)"
            ),
        ]
    );
    assert!(issues.critical.iter().all(|i| i.source == "run-check"));
}

#[test]
fn a_failed_checks_suggestion_quotes_its_command_for_a_shell() {
    let failed = CheckRecord {
        command: vec!["sh".into(), "-c".into(), "echo 'score: 90'; exit 1".into()],
        ..check("f", Dimension::Quality, Severity::High, Status::Fail)
    };
    let issue = check_issue(&failed);
    assert_eq!(
        issue.suggestion.as_deref(),
        Some("run `sh -c 'echo '\\''score: 90'\\''; exit 1'` and fix what it reports")
    );
}

#[test]
fn severities_of_diagnostics() {
    for (d, expected) in [
        (DiagSeverity::Error, Severity::Critical),
        (DiagSeverity::Warning, Severity::Medium),
        (DiagSeverity::Note, Severity::Low),
        (DiagSeverity::Info, Severity::Low),
        (DiagSeverity::Help, Severity::Low),
    ] {
        assert_eq!(of_diagnostic(d, Severity::Critical), expected);
    }
    assert_eq!(
        of_diagnostic(DiagSeverity::Error, Severity::Low),
        Severity::Low
    );
    assert_eq!(
        of_diagnostic(DiagSeverity::Error, Severity::Medium),
        Severity::Medium
    );
    assert_eq!(
        of_diagnostic(DiagSeverity::Error, Severity::High),
        Severity::High
    );
}

#[test]
fn evidence_issues_are_numbered_per_dimension_from_001() {
    use Dimension::*;
    let evidence = evidence_with(
        vec![
            // Fails with an error-level diagnostic: no extra check issue.
            check("audit", Security, Severity::Critical, Status::Fail),
            // Fails with only a warning: the warning plus one check issue.
            check("lint", Quality, Severity::High, Status::Fail),
            // Errors without diagnostics: one check issue.
            CheckRecord {
                error: Some("program `x` not found on PATH".into()),
                exit_code: None,
                ..check("bench", Performance, Severity::Medium, Status::Error)
            },
            // Passes, but reports a note: one Low issue.
            check("unit", Quality, Severity::High, Status::Pass),
            // Skipped: nothing.
            check("docs", Quality, Severity::High, Status::Skip),
            // Second security check, fails without diagnostics.
            check("secrets", Security, Severity::High, Status::Fail),
        ],
        vec![
            diag("lint", DiagSeverity::Warning, Some("dead_code"), Some(7)),
            diag("audit", DiagSeverity::Error, Some("RUSTSEC-1"), None),
            diag("unit", DiagSeverity::Note, None, Some(3)),
            diag("run-check", DiagSeverity::Error, Some("read-only"), None),
        ],
    );
    let issues = from_evidence(&evidence, &[]);
    // The read-only verification's diagnostic is Critical (quality).
    assert_eq!(
        ids(&issues.critical),
        [
            ("SEC-001", "RUSTSEC-1:unknown:unknown"),
            ("QA-001", "read-only:unknown:unknown")
        ]
    );
    assert_eq!(
        ids(&issues.high),
        [
            ("QA-002", "lint:unknown:unknown"),
            ("SEC-002", "secrets:unknown:unknown"),
        ]
    );
    assert_eq!(
        ids(&issues.medium),
        [
            ("QA-003", "dead_code:src/a.rs:7"),
            ("PERF-001", "bench:unknown:unknown")
        ]
    );
    // A diagnostic without a rule takes the check name as its type.
    assert_eq!(ids(&issues.low), [("QA-004", "unit:src/a.rs:3")]);
    assert_eq!(
        issues.high[0].description,
        "check `lint` failed (exit code 1)"
    );
    assert_eq!(
        issues.high[0].suggestion.as_deref(),
        Some("run `sh -c 'exit 1'` and fix what it reports")
    );
    assert_eq!(
        issues.medium[1].description,
        "check `bench` could not be judged: program `x` not found on PATH"
    );
    assert_eq!(issues.critical[1].source, "run-check");
    assert_eq!(issues.counts().high, 2);
}

#[test]
fn one_warning_from_two_checks_is_one_issue_naming_both() {
    use Dimension::*;
    let evidence = evidence_with(
        vec![
            check("build", Quality, Severity::High, Status::Pass),
            check("test", Quality, Severity::Critical, Status::Pass),
            check("lint", Quality, Severity::High, Status::Pass),
        ],
        vec![
            diag("build", DiagSeverity::Error, Some("dead_code"), Some(7)),
            diag("test", DiagSeverity::Error, Some("dead_code"), Some(7)),
            // Another line, or another message: another issue.
            diag("lint", DiagSeverity::Error, Some("dead_code"), Some(8)),
            Diagnostic {
                message: "something else".into(),
                ..diag("lint", DiagSeverity::Error, Some("dead_code"), Some(7))
            },
        ],
    );
    let issues = from_evidence(&evidence, &[]);
    let all: Vec<(&str, &str, &str)> = issues
        .all()
        .map(|i| (i.id.as_str(), i.source.as_str(), i.fingerprint.as_str()))
        .collect();
    assert_eq!(
        all,
        [
            // The more severe of the two: `test`'s Critical.
            ("QA-001", "build, test", "dead_code:src/a.rs:7"),
            ("QA-002", "lint", "dead_code:src/a.rs:7"),
            ("QA-003", "lint", "dead_code:src/a.rs:8"),
        ]
    );
    assert_eq!(issues.critical.len(), 1);
}

#[test]
fn a_timed_out_check_says_so() {
    let evidence = evidence_with(
        vec![CheckRecord {
            timed_out: true,
            exit_code: None,
            ..check("slow", Dimension::Performance, Severity::High, Status::Fail)
        }],
        vec![],
    );
    let issues = from_evidence(&evidence, &[]);
    assert_eq!(issues.high[0].id, "PERF-001");
    assert_eq!(issues.high[0].description, "check `slow` timed out");
}

fn given(id: Option<&str>, severity: Severity, kind: &str) -> GivenIssue {
    GivenIssue {
        id: id.map(str::to_string),
        source: None,
        severity,
        kind: kind.into(),
        file: Some("src/db.py".into()),
        line: Some(42),
        description: None,
        suggestion: None,
        tech_stack_hint: Some("use the ORM".into()),
    }
}

#[test]
fn aggregator_input_issues_keep_given_ids_and_number_the_rest() {
    let result = |issues| DimensionResult {
        passed: false,
        score: Some(Score(50.0)),
        issues,
    };
    let input = AggregatorInput {
        iteration: None,
        tech_stack: Default::default(),
        security_result: result(vec![
            given(None, Severity::Critical, "SQL_INJECTION"),
            given(Some("SEC-001"), Severity::High, "XSS"),
            given(None, Severity::High, "CSRF"),
        ]),
        quality_result: result(vec![given(None, Severity::Low, "NAMING")]),
        performance_result: result(vec![]),
        previous_scores: vec![],
    };
    let issues = from_aggregator(&input, &[]);
    // SEC-001 is taken by the given id, so the first unnamed one is SEC-002.
    assert_eq!(
        ids(&issues.critical),
        [("SEC-002", "SQL_INJECTION:src/db.py:42")]
    );
    assert_eq!(
        ids(&issues.high),
        [
            ("SEC-001", "XSS:src/db.py:42"),
            ("SEC-003", "CSRF:src/db.py:42")
        ]
    );
    assert_eq!(ids(&issues.low), [("QA-001", "NAMING:src/db.py:42")]);
    assert_eq!(issues.critical[0].source, "security-reviewer");
    assert_eq!(issues.critical[0].description, "SQL_INJECTION");
    assert_eq!(
        issues.critical[0].tech_stack_hint.as_deref(),
        Some("use the ORM")
    );
}

#[test]
fn the_runs_own_findings_are_critical_whichever_check_is_blamed() {
    use Dimension::*;
    // With --jobs 1 the read-only verification blames the check that
    // wrote; its finding is still Critical, not the check's High.
    let mut evidence = evidence_with(
        vec![check("unit", Quality, Severity::High, Status::Pass)],
        vec![Diagnostic {
            file: Some("src/a.rs".into()),
            ..diag("unit", DiagSeverity::Error, Some("read-only"), None)
        }],
    );
    // A modified path no diagnostic names gets its own issue.
    evidence.contracts.read_only.modified = vec!["src/a.rs".into(), "src/b.rs".into()];
    evidence.contracts.gate = Some(run_check_documents::evidence::Gate {
        changed: vec!["checks.toml".into(), "scripts/lint.sh".into()],
        base: Some("HEAD".into()),
    });
    let mut task: run_check_documents::task::Task = serde_json::from_value(serde_json::json!({
        "id": "T", "title": "t", "description": "d", "risk": "low", "parallel_count": 1,
        "acceptance": {"commands": ["run-check --mode strict --format json"], "criteria": "c"},
        "estimated_loc": 10, "files_involved": ["./scripts/lint.sh"],
        "public_contracts_touched": "N/A"
    }))
    .unwrap();
    task.base = None;
    evidence.meta.task = Some(task);
    let issues = from_evidence(&evidence, &[]);
    assert!(issues.high.is_empty());
    let critical: Vec<(&str, &str, &str)> = issues
        .critical
        .iter()
        .map(|i| (i.id.as_str(), i.kind.as_str(), i.fingerprint.as_str()))
        .collect();
    // scripts/lint.sh is in files_involved (as `./scripts/lint.sh`).
    assert_eq!(
        critical,
        [
            ("QA-001", "gate-changed", "gate-changed:checks.toml:unknown"),
            ("QA-002", "read-only", "read-only:src/a.rs:unknown"),
            ("QA-003", "read-only", "read-only:src/b.rs:unknown"),
        ]
    );
    assert_eq!(issues.critical[2].source, "run-check");
}

#[test]
fn a_success_claim_in_a_red_run_is_a_self_report_issue() {
    let mut claim = check("phase", Dimension::Quality, Severity::High, Status::Pass);
    claim
        .data
        .insert("status".into(), serde_json::json!("Completed"));
    let failing = check("unit", Dimension::Quality, Severity::High, Status::Fail);
    let mut evidence = evidence_with(vec![claim.clone(), failing], vec![]);
    evidence.summary.all_checks_passed = false;
    let issues = from_evidence(&evidence, &[]);
    assert_eq!(issues.medium.len(), 1);
    assert_eq!(issues.medium[0].kind, "self-report");
    assert_eq!(
        issues.medium[0].description,
        "check `phase` reported `status: Completed`, but the gate did not pass"
    );
    // In a green run, or with an honest status, nothing.
    evidence.summary.all_checks_passed = true;
    assert!(from_evidence(&evidence, &[]).medium.is_empty());
    evidence.summary.all_checks_passed = false;
    evidence.checks[0]
        .data
        .insert("status".into(), serde_json::json!("failed"));
    assert!(from_evidence(&evidence, &[]).medium.is_empty());
}

#[test]
fn ids_follow_fingerprints_across_recorded_rounds() {
    use crate::aggregate::judge::history::{Fingerprints, PastRound};
    let round = |pairs: &[(&str, &str)]| PastRound {
        fingerprints: Some(Fingerprints {
            ids: pairs
                .iter()
                .map(|(f, id)| (f.to_string(), id.to_string()))
                .collect(),
            ..Fingerprints::default()
        }),
        ..PastRound::default()
    };
    // Round 1 had QA-001 and QA-002 (`old:x:1`, fixed since); round 2,
    // the last, had QA-003 and QA-001. QA-002 is never handed out again.
    let earlier = [
        round(&[("dead_code:src/a.rs:7", "QA-001"), ("old:x:1", "QA-002")]),
        round(&[
            ("unit:src/a.rs:3", "QA-003"),
            ("dead_code:src/a.rs:7", "QA-001"),
        ]),
    ];
    let evidence = evidence_with(
        vec![check(
            "lint",
            Dimension::Quality,
            Severity::High,
            Status::Pass,
        )],
        vec![
            // New: takes the lowest number no round used: QA-004.
            diag("lint", DiagSeverity::Warning, Some("new_rule"), Some(9)),
            // Was QA-003 in the last round.
            Diagnostic {
                rule: None,
                ..diag("unit", DiagSeverity::Note, None, Some(3))
            },
            // Was QA-001.
            diag("lint", DiagSeverity::Warning, Some("dead_code"), Some(7)),
        ],
    );
    let issues = from_evidence(&evidence, &earlier);
    let all: Vec<(&str, &str)> = issues
        .all()
        .map(|i| (i.id.as_str(), i.fingerprint.as_str()))
        .collect();
    assert_eq!(
        all,
        [
            ("QA-001", "dead_code:src/a.rs:7"),
            ("QA-004", "new_rule:src/a.rs:9"),
            ("QA-003", "unit:src/a.rs:3"),
        ]
    );
}

#[test]
fn a_failed_check_without_a_location_quotes_the_end_of_its_output() {
    let failed = CheckRecord {
        stderr_excerpt: format!(
            "{}\n=====\nFAIL: test_add\nTraceback:\n    self.assertEqual(add(2, 3), 5)\n\
                 AssertionError: -1 != 5\n\n-----\nFAILED (failures=1)\n",
            "noise\n".repeat(20)
        ),
        ..check("unit", Dimension::Quality, Severity::High, Status::Fail)
    };
    let issue = check_issue(&failed);
    let lines: Vec<&str> = issue.description.lines().collect();
    assert_eq!(
        lines[0],
        "check `unit` failed (exit code 1); its output ends:"
    );
    // 15 lines at most, rulers and blank lines left out, the last kept.
    assert_eq!(lines.len(), 1 + 15);
    assert_eq!(
        &lines[lines.len() - 3..],
        [
            "    self.assertEqual(add(2, 3), 5)",
            "AssertionError: -1 != 5",
            "FAILED (failures=1)"
        ]
    );
    // The fingerprint does not depend on the output.
    assert_eq!(issue.fingerprint, "unit:unknown:unknown");
    // Nothing printed: the one line.
    let quiet = check("unit", Dimension::Quality, Severity::High, Status::Fail);
    assert_eq!(
        check_issue(&quiet).description,
        "check `unit` failed (exit code 1)"
    );
}

#[test]
fn findings_silenced_by_allow_comments_are_one_low_issue() {
    let mut scan = check(
        "secrets",
        Dimension::Security,
        Severity::Critical,
        Status::Pass,
    );
    scan.data.insert("allowed".into(), 2.into());
    let mut none = check("todo", Dimension::Quality, Severity::High, Status::Pass);
    none.data.insert("allowed".into(), 0.into());
    let issues = from_evidence(&evidence_with(vec![scan, none], vec![]), &[]);
    assert!(issues.critical.is_empty() && issues.high.is_empty() && issues.medium.is_empty());
    assert_eq!(issues.low.len(), 1);
    let issue = &issues.low[0];
    assert_eq!(
        (issue.kind.as_str(), issue.fingerprint.as_str()),
        ("allowed", "allowed:secrets:unknown")
    );
    assert_eq!(
        issue.description,
        "2 findings of scan `secrets` silenced by `run-check: allow` comments"
    );
}

#[test]
fn a_changed_file_a_scan_did_not_read_is_a_high_issue() {
    let mut scan = check(
        "anti-cheat",
        Dimension::Security,
        Severity::Critical,
        Status::Pass,
    );
    scan.data.insert(
        "skipped".into(),
        serde_json::json!([
            {"file": "src/pad.py", "reason": "too-large", "changed": true},
            {"file": "src/link.py", "reason": "link-outside-paths", "changed": true},
            {"file": "logo.png", "reason": "binary", "changed": false},
            {"file": "x.bin", "reason": "binary", "changed": null},
            {"file": 3, "changed": true},
            "src/a.py"
        ]),
    );
    // A phase-result block's `skipped` is a string: no issue.
    let mut phase = check("phase", Dimension::Quality, Severity::High, Status::Pass);
    phase.data.insert("skipped".into(), "src/a.py".into());
    let issues = from_evidence(&evidence_with(vec![scan, phase], vec![]), &[]);
    let high: Vec<(&str, &str, &str)> = issues
        .high
        .iter()
        .map(|i| (i.id.as_str(), i.kind.as_str(), i.fingerprint.as_str()))
        .collect();
    assert_eq!(
        high,
        [
            (
                "SEC-001",
                "scan-skipped",
                "scan-skipped:src/link.py:unknown"
            ),
            ("SEC-002", "scan-skipped", "scan-skipped:src/pad.py:unknown"),
        ]
    );
    assert_eq!(
        issues.high[1].description,
        "scan `anti-cheat` did not read `src/pad.py` (too-large), which changed since the \
             base: nothing checked what the change put in it"
    );
    assert!(issues.critical.is_empty() && issues.medium.is_empty() && issues.low.is_empty());
}

#[test]
fn a_flaky_check_adds_one_low_issue() {
    use run_check_documents::evidence::Attempt;
    let attempt = |exit_code, timed_out| Attempt {
        exit_code,
        duration_ms: 5,
        timed_out,
    };
    let flaky = CheckRecord {
        flaky: true,
        attempts: 3,
        attempt_log: vec![
            attempt(None, true),
            attempt(Some(1), false),
            attempt(Some(0), false),
        ],
        exit_code: Some(0),
        ..check("unit", Dimension::Quality, Severity::High, Status::Pass)
    };
    let evidence = evidence_with(vec![flaky.clone()], vec![]);
    let issues = from_evidence(&evidence, &[]);
    assert!(issues.critical.is_empty() && issues.high.is_empty() && issues.medium.is_empty());
    assert_eq!(issues.low.len(), 1);
    let issue = &issues.low[0];
    assert_eq!(
        (
            issue.kind.as_str(),
            issue.source.as_str(),
            issue.fingerprint.as_str()
        ),
        ("flaky", "unit", "flaky:unit:unknown")
    );
    assert_eq!(
        issue.description,
        "check `unit` is flaky: it failed 2 times (timed out, exit 1) before passing on attempt 3"
    );
    // Under `flaky = "fail"` it is a failed check as well: its issue
    // says why it failed with exit code 0.
    let failed = CheckRecord {
        status: Status::Fail,
        ..flaky
    };
    let issues = from_evidence(&evidence_with(vec![failed], vec![]), &[]);
    assert_eq!(issues.low.len(), 1);
    assert_eq!(issues.high.len(), 1);
    assert!(
        issues.high[0].description.starts_with(
            "check `unit` is flaky and `settings.flaky` is \"fail\": it failed 2 times"
        ),
        "{}",
        issues.high[0].description
    );
    // Not flaky: no such issue.
    let plain = check("unit", Dimension::Quality, Severity::High, Status::Pass);
    assert!(
        from_evidence(&evidence_with(vec![plain], vec![]), &[])
            .low
            .is_empty()
    );
}

#[test]
fn a_skipped_file_the_scan_reported_as_a_diagnostic_is_one_issue() {
    let mut scan = check(
        "anti-cheat",
        Dimension::Security,
        Severity::High,
        Status::Fail,
    );
    scan.data.insert(
        "skipped".into(),
        serde_json::json!([{"file": "src/a.rs", "reason": "fifo", "changed": true}]),
    );
    let reported = Diagnostic {
        check: "anti-cheat".into(),
        ..diag(
            "anti-cheat",
            DiagSeverity::Error,
            Some("scan-skipped"),
            None,
        )
    };
    let reported = Diagnostic {
        file: Some("src/a.rs".into()),
        ..reported
    };
    let issues = from_evidence(&evidence_with(vec![scan], vec![reported]), &[]);
    let all: Vec<&str> = issues.all().map(|i| i.fingerprint.as_str()).collect();
    assert_eq!(all, ["scan-skipped:src/a.rs:unknown"]);
}
