//! Issues (docs/judge.md) from evidence (diagnostics and failing checks) and from a
//! aggregator input (as given), with ids `SEC-`/`QA-`/`PERF-` by dimension
//! and fingerprints `type:file:line`.
//!
//! Evidence order: checks in evidence order, each followed by its own
//! diagnostics in evidence order and then (when it failed or errored without
//! an error-level diagnostic) its one check issue; diagnostics of no listed
//! check come last, as `quality` with severity `high`. The run's own
//! findings are `critical` whichever check they are blamed on: every
//! diagnostic of rule `read-only` (and one per modified path no such
//! diagnostic names), the verification that could not run
//! (`contracts.read_only.error`), an interrupted run, and each file of the
//! gate changed outside the task's `files_involved` (type `gate-changed`).
//! A run-check run that broke its own contract is never good evidence. A
//! `phase-result` whose `status` claims success in a run that did not pass
//! adds a Medium `self-report` issue; a file a scan did not read that
//! changed since the base, a High `scan-skipped` issue.
//!
//! Ids follow the problem ([`number`]): an issue whose fingerprint the last
//! recorded round had keeps that round's id; the others take the next
//! number of their prefix that no recorded round and no issue of this round
//! used, so an id never names two problems.

use std::collections::{BTreeMap, HashSet};

use crate::config::{DiagSeverity, Dimension, Severity};
use run_check_documents::evidence::Status;

use super::history::PastRound;
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

/// Gives every issue without an id (`""`) one: the id its fingerprint had
/// in the last of `earlier` (when that id has the issue's prefix and is not
/// taken in this round), else the lowest number of its prefix that neither
/// a recorded round nor this round used. Ids already set are kept.
fn number(mut all: Vec<Issue>, earlier: &[PastRound]) -> Issues {
    // Listed (and numbered) in the order they are read: by severity, then
    // file and line, so new ids ascend down each list.
    sort_by_priority(&mut all);
    let mut used: HashSet<String> = earlier
        .iter()
        .filter_map(|r| r.fingerprints.as_ref())
        .flat_map(|f| f.ids.values().cloned())
        .collect();
    let mut taken: HashSet<String> = all
        .iter()
        .filter(|i| !i.id.is_empty())
        .map(|i| i.id.clone())
        .collect();
    used.extend(taken.iter().cloned());
    let last: Option<&BTreeMap<String, String>> = earlier
        .last()
        .and_then(|r| r.fingerprints.as_ref())
        .map(|f| &f.ids);
    for issue in all.iter_mut().filter(|i| i.id.is_empty()) {
        let prefix = format!("{}-", id_prefix(issue.dimension));
        if let Some(id) = last.and_then(|ids| ids.get(&issue.fingerprint))
            && id.starts_with(&prefix)
            && !taken.contains(id)
        {
            issue.id = id.clone();
            taken.insert(id.clone());
        }
    }
    let mut next = [0u32; 3];
    for issue in all.iter_mut().filter(|i| i.id.is_empty()) {
        let slot = match issue.dimension {
            Dimension::Security => 0,
            Dimension::Quality => 1,
            Dimension::Performance => 2,
        };
        issue.id = loop {
            next[slot] += 1;
            let id = format!("{}-{:03}", id_prefix(issue.dimension), next[slot]);
            if used.insert(id.clone()) {
                break id;
            }
        };
    }
    bucket(all)
}

/// The priority order (`feedback::priority`'s); ties keep their order.
fn sort_by_priority(all: &mut [Issue]) {
    all.sort_by(super::feedback::by_priority);
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

/// The issues of an evidence document; `earlier` are the recorded rounds,
/// oldest first (for the ids).
pub(crate) fn from_evidence(evidence: &Evidence, earlier: &[PastRound]) -> Issues {
    let mut all = Vec::new();
    let mut claimed: HashSet<&str> = HashSet::new();
    for check in &evidence.checks {
        if !claimed.insert(check.name.as_str()) {
            // A repeated name: its diagnostics went to the first check.
            if check.status.is_failure() {
                all.push(check_issue(check));
            }
            continue;
        }
        let mut error_level = false;
        // docs/baseline.md: what the baseline knows is no issue.
        for d in evidence
            .diagnostics
            .iter()
            .filter(|d| d.check == check.name && d.new != Some(false))
        {
            error_level |= d.severity == DiagSeverity::Error;
            add_diagnostic(
                &mut all,
                diagnostic_issue(d, check.dimension, check.severity),
            );
        }
        if check.status.is_failure() && !error_level {
            all.push(check_issue(check));
        }
        all.extend(flaky_issue(check));
        all.extend(allowed_issue(check));
        all.extend(scan_skipped_issues(check));
    }
    for d in evidence
        .diagnostics
        .iter()
        .filter(|d| !claimed.contains(d.check.as_str()) && d.new != Some(false))
    {
        add_diagnostic(
            &mut all,
            diagnostic_issue(d, Dimension::Quality, Severity::High),
        );
    }
    // The run's own findings are Critical, whichever check they blame.
    for issue in &mut all {
        if issue.kind == READ_ONLY_RULE {
            issue.severity = Severity::Critical;
        }
    }
    let named: HashSet<&str> = all
        .iter()
        .filter(|i| i.kind == READ_ONLY_RULE)
        .filter_map(|i| i.file.as_deref())
        .collect();
    let unnamed: Vec<&String> = evidence
        .contracts
        .read_only
        .modified
        .iter()
        .filter(|path| !named.contains(path.as_str()))
        .collect();
    for path in unnamed {
        all.push(run_issue(
            READ_ONLY_RULE,
            Some(path),
            format!("the checks modified `{path}` (the gate must not change the worktree)"),
            "make every check read-only: write outputs outside the worktree, or run `run-check fix` for fixes",
        ));
    }
    if let Some(error) = &evidence.contracts.read_only.error {
        all.push(run_issue(
            READ_ONLY_RULE,
            None,
            format!("the read-only verification could not run: {error}"),
            "run the gate again; if it fails again, make `git status` work in the worktree",
        ));
    }
    if evidence.interrupted() {
        all.push(run_issue(
            run_check_documents::evidence::INTERRUPTED,
            None,
            interrupted_description(evidence),
            "run the gate again to the end",
        ));
    }
    for path in gate_changed(evidence) {
        all.push(run_issue(
            GATE_CHANGED,
            Some(path),
            format!("the gate's own file `{path}` changed against the base, outside the task's `files_involved`"),
            "a person must approve a change of the gate: revert it, or list the file in the task's `files_involved`",
        ));
    }
    if !evidence.summary.all_checks_passed {
        all.extend(evidence.checks.iter().filter_map(self_report));
    }
    number(all, earlier)
}

/// The type of a flaky check's issue.
pub(crate) const FLAKY: &str = "flaky";
/// What a flaky check's issue suggests.
const FLAKY_SUGGESTION: &str = "find what makes the check's outcome vary between runs (order, time, \
     shared state, the network, leftovers of an earlier attempt) and make it deterministic";

/// A Low `flaky` issue for a check that failed, then passed on a retry
/// (`retries`); its fingerprint is `flaky:<check>:unknown`, so each flaky
/// check is its own problem across rounds.
fn flaky_issue(check: &CheckRecord) -> Option<Issue> {
    if !check.flaky {
        return None;
    }
    Some(Issue {
        id: String::new(),
        source: check.name.clone(),
        severity: Severity::Low,
        kind: FLAKY.into(),
        file: None,
        line: None,
        description: format!("check `{}` is flaky: {}", check.name, flaky_story(check)),
        suggestion: Some(FLAKY_SUGGESTION.into()),
        tech_stack_hint: None,
        fingerprint: fingerprint(FLAKY, Some(&check.name), None),
        dimension: check.dimension,
    })
}

/// The type of the issue of a scan whose findings `run-check: allow`
/// comments silenced.
const ALLOWED: &str = "allowed";

/// A Low `allowed` issue for a scan check whose `data.allowed` counts
/// findings silenced by `run-check: allow` comments: a comment in the code
/// under test hides a finding from the gate, so a reviewer sees how many
/// (docs/judge.md#issues).
fn allowed_issue(check: &CheckRecord) -> Option<Issue> {
    let allowed = check
        .data
        .get(ALLOWED)
        .and_then(serde_json::Value::as_u64)
        .filter(|&n| n > 0)?;
    Some(Issue {
        id: String::new(),
        source: check.name.clone(),
        severity: Severity::Low,
        kind: ALLOWED.into(),
        file: None,
        line: None,
        description: format!(
            "{} of scan `{}` silenced by `run-check: allow` comments",
            crate::output::plural(allowed, "finding"),
            check.name
        ),
        suggestion: Some(
            "confirm each `run-check: allow` comment silences a finding that is not a \
             problem (a test fixture, a documented example); remove the others"
                .into(),
        ),
        tech_stack_hint: None,
        fingerprint: fingerprint(ALLOWED, Some(&check.name), None),
        dimension: check.dimension,
    })
}

/// The type of the issue of a file a scan did not read that changed since
/// the base.
pub(crate) const SCAN_SKIPPED: &str = "scan-skipped";

/// A High `scan-skipped` issue for each file of a scan check's
/// `data.skipped` that changed since the base (`changed: true`): the
/// change holds something no rule looked at (a NUL byte or padding past
/// 1 MiB in a source file, a link to a file outside `scan.paths`), so a
/// person must look (docs/judge.md#issues). Its fingerprint is
/// `scan-skipped:<file>:unknown`. Entries that are not objects with a
/// string `file` are no issue: a `phase-result` block's data is strings
/// only, so no check output can make one.
fn scan_skipped_issues(check: &CheckRecord) -> Vec<Issue> {
    let Some(skipped) = check
        .data
        .get("skipped")
        .and_then(serde_json::Value::as_array)
    else {
        return Vec::new();
    };
    skipped
        .iter()
        .filter(|entry| entry.get("changed") == Some(&serde_json::Value::Bool(true)))
        .filter_map(|entry| {
            let file = entry.get("file")?.as_str()?;
            let reason = entry
                .get("reason")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("unknown");
            let fix = match reason {
                "too-large" => "bring the file under 1 MiB",
                "binary" => "remove the NUL bytes from its first 8 KiB",
                "link-outside-paths" => {
                    "replace the link by the file, or link to a file the scan reads"
                }
                _ => "make the file a regular, readable file",
            };
            Some(Issue {
                id: String::new(),
                source: check.name.clone(),
                severity: Severity::High,
                kind: SCAN_SKIPPED.into(),
                file: Some(file.to_string()),
                line: None,
                description: format!(
                    "scan `{}` did not read `{file}` ({reason}), which changed since the base: \
                     nothing checked what the change put in it",
                    check.name
                ),
                suggestion: Some(format!(
                    "{fix}, or leave it out of `scan.paths` and have a person review the change"
                )),
                tech_stack_hint: None,
                fingerprint: fingerprint(SCAN_SKIPPED, Some(file), None),
                dimension: check.dimension,
            })
        })
        .collect()
}

/// "it failed 2 times (exit 1, timed out) before passing on attempt 3".
fn flaky_story(check: &CheckRecord) -> String {
    let passed_on = match check.attempt_log.len() {
        0 => check.attempts.max(2),
        n => u32::try_from(n).unwrap_or(u32::MAX),
    };
    let failed = passed_on - 1;
    let ends: Vec<String> = check
        .attempt_log
        .iter()
        .take(failed as usize)
        .map(|a| match (a.timed_out, a.exit_code) {
            (true, _) => "timed out".to_string(),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "no exit code".to_string(),
        })
        .collect();
    let times = if failed == 1 { "time" } else { "times" };
    match ends.is_empty() {
        true => format!("it failed {failed} {times} before passing on attempt {passed_on}"),
        false => format!(
            "it failed {failed} {times} ({}) before passing on attempt {passed_on}",
            ends.join(", ")
        ),
    }
}

/// The rule of the read-only verification's diagnostics and issues.
pub(crate) const READ_ONLY_RULE: &str = "read-only";
/// The type of a changed-gate issue.
pub(crate) const GATE_CHANGED: &str = "gate-changed";
/// The type of an agent's report that contradicts the gate.
pub(crate) const SELF_REPORT: &str = "self-report";

/// The files of `contracts.gate.changed` that the task's `files_involved`
/// does not name (every one without a task).
pub(crate) fn gate_changed(evidence: &Evidence) -> Vec<&String> {
    let involved: &[String] = evidence
        .meta
        .task
        .as_ref()
        .map_or(&[], |t| t.files_involved.as_slice());
    let normal = |p: &str| p.trim_start_matches("./").replace('\\', "/");
    let involved: HashSet<String> = involved.iter().map(|p| normal(p)).collect();
    evidence
        .contracts
        .gate
        .iter()
        .flat_map(|g| &g.changed)
        .filter(|path| !involved.contains(&normal(path)))
        .collect()
}

/// The words of a `status` that claims success (any case).
const SUCCESS_WORDS: [&str; 6] = ["success", "completed", "pass", "passed", "ok", "done"];

/// A Medium `self-report` issue for a check whose `data.status` claims
/// success (called for a run that did not pass).
fn self_report(check: &CheckRecord) -> Option<Issue> {
    let status = check.data.get("status")?.as_str()?.trim();
    if !SUCCESS_WORDS.iter().any(|w| w.eq_ignore_ascii_case(status)) {
        return None;
    }
    let kind = SELF_REPORT;
    Some(Issue {
        id: String::new(),
        source: check.name.clone(),
        severity: Severity::Medium,
        kind: kind.into(),
        file: None,
        line: None,
        description: format!(
            "check `{}` reported `status: {status}`, but the gate did not pass",
            check.name
        ),
        suggestion: Some(
            "report the phase's real outcome: the gate decides whether the work is done".into(),
        ),
        tech_stack_hint: None,
        fingerprint: fingerprint(kind, None, None),
        dimension: check.dimension,
    })
}

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
fn run_issue(kind: &str, file: Option<&str>, description: String, suggestion: &str) -> Issue {
    Issue {
        id: String::new(),
        source: "run-check".into(),
        severity: Severity::Critical,
        kind: kind.into(),
        file: file.map(str::to_string),
        line: None,
        description,
        suggestion: Some(suggestion.into()),
        tech_stack_hint: None,
        fingerprint: fingerprint(kind, file, None),
        dimension: Dimension::Quality,
    }
}

/// Adds a diagnostic's issue, or names its check on the issue another
/// check already raised for the same problem (same type, file, line and
/// message: one compiler warning printed by a build and a test check is
/// one thing to fix), which then takes the more severe of the two.
fn add_diagnostic(all: &mut Vec<Issue>, issue: Issue) {
    let same = all.iter_mut().find(|i| {
        i.fingerprint == issue.fingerprint
            && i.description == issue.description
            && i.kind == issue.kind
            && i.dimension == issue.dimension
            && !i.source.split(SOURCES).any(|s| s == issue.source)
    });
    match same {
        Some(first) => {
            first.source = format!("{}{SOURCES}{}", first.source, issue.source);
            first.severity = first.severity.min(issue.severity);
            if first.suggestion.is_none() {
                first.suggestion = issue.suggestion;
            }
        }
        None => all.push(issue),
    }
}

/// Between the checks an issue names when several reported it.
const SOURCES: &str = ", ";

fn diagnostic_issue(d: &Diagnostic, dimension: Dimension, check_severity: Severity) -> Issue {
    let kind = d.rule.clone().unwrap_or_else(|| d.check.clone());
    Issue {
        id: String::new(),
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
fn check_issue(check: &CheckRecord) -> Issue {
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
        _ if check.flaky => (
            format!(
                "check `{name}` is flaky and `settings.flaky` is \"fail\": {}",
                flaky_story(check)
            ),
            Some(FLAKY_SUGGESTION.into()),
        ),
        _ if check.timed_out => (
            format!("check `{name}` timed out"),
            Some(format!(
                "make `{name}` finish within its timeout, or raise its `timeout` in checks.toml"
            )),
        ),
        _ => {
            let mut description = match check.exit_code {
                Some(code) => format!("check `{name}` failed (exit code {code})"),
                None => format!("check `{name}` failed"),
            };
            // Nothing located the failure: what the check printed last (a
            // test's assertion, a tool's error) is what the fixer needs.
            if let Some(tail) = output_tail(check) {
                description.push_str("; its output ends:\n");
                description.push_str(&tail);
            }
            (
                description,
                (!command.is_empty()).then(|| format!("run `{command}` and fix what it reports")),
            )
        }
    };
    Issue {
        id: String::new(),
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

/// Most lines of a failed check's output an issue quotes.
const TAIL_LINES: usize = 15;
/// Most characters of one quoted line.
const TAIL_LINE_CHARS: usize = 300;

/// The last lines of a failed check's stderr excerpt (else its stdout
/// excerpt), blank lines and rulers (`-----`, `=====`) left out; `None`
/// when it printed nothing.
fn output_tail(check: &CheckRecord) -> Option<String> {
    let text = [&check.stderr_excerpt, &check.stdout_excerpt]
        .into_iter()
        .find(|t| !t.trim().is_empty())?;
    let ruler = |l: &str| l.len() >= 5 && l.chars().all(|c| matches!(c, '-' | '=' | '_' | '*'));
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !ruler(l.trim()))
        .collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    let tail: Vec<String> = lines[start..]
        .iter()
        .map(|l| match l.char_indices().nth(TAIL_LINE_CHARS) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => (*l).to_string(),
        })
        .collect();
    Some(tail.join("\n"))
}

/// The issues of an aggregator input, as given; an issue without an `id`
/// gets one as [`number`] says.
pub(crate) fn from_aggregator(input: &AggregatorInput, earlier: &[PastRound]) -> Issues {
    let mut all = Vec::new();
    for (dimension, result) in input.results() {
        for given in &result.issues {
            all.push(Issue {
                id: given.id.clone().unwrap_or_default(),
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
    number(all, earlier)
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
}
