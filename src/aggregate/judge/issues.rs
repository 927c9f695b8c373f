//! Issues (docs/judge.md) from evidence (diagnostics and failing checks) and from a
//! aggregator input (as given), with ids `SEC-`/`QA-`/`PERF-` numbered from 001
//! per dimension and fingerprints `type:file:line`.
//!
//! Evidence order: checks in evidence order, each followed by its own
//! diagnostics in evidence order and then (when it failed or errored without
//! an error-level diagnostic) its one check issue; diagnostics of no listed
//! check come last, as `quality` with severity `high`; but the read-only
//! verification's (check `run-check`, rule `read-only`) are `critical`, and
//! so are the run-level issues that follow them: the verification could not
//! run (`contracts.read_only.error`), the run was interrupted. A run-check
//! run that broke its own contract is never good evidence: with the default
//! `max_critical_issues` 0 none of these can PASS.

use std::collections::HashSet;

use crate::config::{DiagSeverity, Dimension, Severity};
use run_check_documents::evidence::Status;

use super::input::AggregatorInput;
use super::verdict::{Issue, Issues, dimension_name, fingerprint, id_prefix};
use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence};

/// An error-level diagnostic takes its check's severity; a warning is
/// Medium; a note, info or help is Low.
pub(crate) fn of_diagnostic(diagnostic: DiagSeverity, check: Severity) -> Severity {
    match diagnostic {
        DiagSeverity::Error => check,
        DiagSeverity::Warning => Severity::Medium,
        DiagSeverity::Note | DiagSeverity::Info | DiagSeverity::Help => Severity::Low,
    }
}

/// Hands out ids per dimension, skipping ids already taken.
#[derive(Default)]
struct Numbering {
    next: [u32; 3],
    used: HashSet<String>,
}

impl Numbering {
    fn id(&mut self, dimension: Dimension) -> String {
        let slot = match dimension {
            Dimension::Security => 0,
            Dimension::Quality => 1,
            Dimension::Performance => 2,
        };
        loop {
            self.next[slot] += 1;
            let id = format!("{}-{:03}", id_prefix(dimension), self.next[slot]);
            if self.used.insert(id.clone()) {
                return id;
            }
        }
    }
}

/// Sorts issues into their severity lists, keeping their order.
fn bucket(all: Vec<Issue>) -> Issues {
    let mut issues = Issues::default();
    for issue in all {
        match issue.severity {
            Severity::Critical => issues.critical.push(issue),
            Severity::High => issues.high.push(issue),
            Severity::Medium => issues.medium.push(issue),
            Severity::Low => issues.low.push(issue),
        }
    }
    issues
}

/// The issues of an evidence document.
pub(crate) fn from_evidence(evidence: &Evidence) -> Issues {
    let mut numbering = Numbering::default();
    let mut all = Vec::new();
    let mut claimed: HashSet<&str> = HashSet::new();
    for check in &evidence.checks {
        if !claimed.insert(check.name.as_str()) {
            // A repeated name: its diagnostics went to the first check.
            if check.status.is_failure() {
                all.push(check_issue(check, numbering.id(check.dimension)));
            }
            continue;
        }
        let mut error_level = false;
        for d in evidence
            .diagnostics
            .iter()
            .filter(|d| d.check == check.name)
        {
            error_level |= d.severity == DiagSeverity::Error;
            all.push(diagnostic_issue(
                d,
                check.dimension,
                check.severity,
                &mut numbering,
            ));
        }
        if check.status.is_failure() && !error_level {
            all.push(check_issue(check, numbering.id(check.dimension)));
        }
    }
    for d in evidence
        .diagnostics
        .iter()
        .filter(|d| !claimed.contains(d.check.as_str()))
    {
        let severity = match d.rule.as_deref() {
            Some(READ_ONLY_RULE) => Severity::Critical,
            _ => Severity::High,
        };
        all.push(diagnostic_issue(
            d,
            Dimension::Quality,
            severity,
            &mut numbering,
        ));
    }
    if let Some(error) = &evidence.contracts.read_only.error {
        all.push(run_issue(
            READ_ONLY_RULE,
            format!("the read-only verification could not run: {error}"),
            "run the gate again; if it fails again, make `git status` work in the worktree",
            numbering.id(Dimension::Quality),
        ));
    }
    if evidence.interrupted() {
        all.push(run_issue(
            run_check_documents::evidence::INTERRUPTED,
            interrupted_description(evidence),
            "run the gate again to the end",
            numbering.id(Dimension::Quality),
        ));
    }
    bucket(all)
}

/// The rule of the read-only verification's diagnostics.
const READ_ONLY_RULE: &str = "read-only";

/// What an interrupted run left out, for issues and the decision.
pub(crate) fn interrupted_description(evidence: &Evidence) -> String {
    let missing: Vec<&str> = evidence
        .checks
        .iter()
        .filter(|c| c.skip_reason.as_deref() == Some(run_check_documents::evidence::INTERRUPTED))
        .map(|c| c.name.as_str())
        .collect();
    match missing.len() {
        0 => "the run was interrupted".to_string(),
        n => format!(
            "the run was interrupted: {n} of {} checks did not run ({})",
            evidence.checks.len(),
            missing.join(", ")
        ),
    }
}

/// A Critical issue of the run itself (check `run-check`).
fn run_issue(kind: &str, description: String, suggestion: &str, id: String) -> Issue {
    Issue {
        id,
        source: "run-check".into(),
        severity: Severity::Critical,
        kind: kind.into(),
        file: None,
        line: None,
        description,
        suggestion: Some(suggestion.into()),
        tech_stack_hint: None,
        fingerprint: fingerprint(kind, None, None),
        dimension: Dimension::Quality,
    }
}

fn diagnostic_issue(
    d: &Diagnostic,
    dimension: Dimension,
    check_severity: Severity,
    numbering: &mut Numbering,
) -> Issue {
    let kind = d.rule.clone().unwrap_or_else(|| d.check.clone());
    Issue {
        id: numbering.id(dimension),
        source: d.check.clone(),
        severity: of_diagnostic(d.severity, check_severity),
        fingerprint: fingerprint(&kind, d.file.as_deref(), d.line),
        kind,
        file: d.file.clone(),
        line: d.line,
        description: d.message.clone(),
        suggestion: d.suggestion.clone(),
        tech_stack_hint: None,
        dimension,
    }
}

/// The one issue of a failing or erroring check without an error-level
/// diagnostic.
fn check_issue(check: &CheckRecord, id: String) -> Issue {
    let name = &check.name;
    let command = run_check_documents::evidence::display_command(&check.command);
    let (description, suggestion) = match check.status {
        Status::Error => (
            format!(
                "check `{name}` could not be judged: {}",
                check.error.as_deref().unwrap_or("error")
            ),
            None,
        ),
        _ if check.timed_out => (
            format!("check `{name}` timed out"),
            Some(format!(
                "make `{name}` finish within its timeout, or raise its `timeout` in checks.toml"
            )),
        ),
        _ => (
            match check.exit_code {
                Some(code) => format!("check `{name}` failed (exit code {code})"),
                None => format!("check `{name}` failed"),
            },
            (!command.is_empty()).then(|| format!("run `{command}` and fix what it reports")),
        ),
    };
    Issue {
        id,
        source: name.clone(),
        severity: check.severity,
        kind: name.clone(),
        file: None,
        line: None,
        description,
        suggestion,
        tech_stack_hint: None,
        fingerprint: fingerprint(name, None, None),
        dimension: check.dimension,
    }
}

/// The issues of an aggregator input, as given; an issue without an `id` gets
/// the next free one of its dimension.
pub(crate) fn from_aggregator(input: &AggregatorInput) -> Issues {
    let mut numbering = Numbering::default();
    for (_, result) in input.results() {
        for issue in &result.issues {
            if let Some(id) = &issue.id {
                numbering.used.insert(id.clone());
            }
        }
    }
    let mut all = Vec::new();
    for (dimension, result) in input.results() {
        for given in &result.issues {
            let id = match &given.id {
                Some(id) => id.clone(),
                None => numbering.id(dimension),
            };
            all.push(Issue {
                id,
                source: given
                    .source
                    .clone()
                    .unwrap_or_else(|| format!("{}-reviewer", dimension_name(dimension))),
                severity: given.severity,
                kind: given.kind.clone(),
                file: given.file.clone(),
                line: given.line,
                description: given
                    .description
                    .clone()
                    .unwrap_or_else(|| given.kind.clone()),
                suggestion: given.suggestion.clone(),
                tech_stack_hint: given.tech_stack_hint.clone(),
                fingerprint: fingerprint(&given.kind, given.file.as_deref(), given.line),
                dimension,
            });
        }
    }
    bucket(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::judge::tests::evidence_with;
    use run_check_documents::verdict::{DimensionResult, GivenIssue, Score};

    fn check(name: &str, dimension: Dimension, severity: Severity, status: Status) -> CheckRecord {
        crate::aggregate::judge::tests::record(serde_json::json!({
            "name": name, "status": status, "dimension": dimension, "severity": severity,
            "exit_code": 1, "command": ["sh", "-c", "exit 1"],
        }))
    }

    fn diag(
        check: &str,
        severity: DiagSeverity,
        rule: Option<&str>,
        line: Option<u64>,
    ) -> Diagnostic {
        Diagnostic {
            check: check.into(),
            file: line.map(|_| "src/a.rs".to_string()),
            line,
            column: None,
            severity,
            rule: rule.map(str::to_string),
            message: "msg".into(),
            suggestion: None,
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
        let issues = from_evidence(&evidence);
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
        let issue = check_issue(&failed, "QA-001".into());
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
        let issues = from_evidence(&evidence);
        // The read-only verification's diagnostic is Critical (quality).
        assert_eq!(
            ids(&issues.critical),
            [
                ("SEC-001", "RUSTSEC-1:unknown:unknown"),
                ("QA-004", "read-only:unknown:unknown")
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
                ("QA-001", "dead_code:src/a.rs:7"),
                ("PERF-001", "bench:unknown:unknown")
            ]
        );
        // A diagnostic without a rule takes the check name as its type.
        assert_eq!(ids(&issues.low), [("QA-003", "unit:src/a.rs:3")]);
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
    fn a_timed_out_check_says_so() {
        let evidence = evidence_with(
            vec![CheckRecord {
                timed_out: true,
                exit_code: None,
                ..check("slow", Dimension::Performance, Severity::High, Status::Fail)
            }],
            vec![],
        );
        let issues = from_evidence(&evidence);
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
        let issues = from_aggregator(&input);
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
}
