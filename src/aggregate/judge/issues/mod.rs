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

use crate::config::{Dimension, Severity};
use run_check_documents::evidence::DiagSeverity;
use run_check_documents::evidence::Status;

use super::history::PastRound;
use super::input::AggregatorInput;
use super::verdict::{Issue, Issues, fingerprint, id_prefix};
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
    // Listed (and numbered) in the order they are read (`feedback::priority`'s,
    // ties keep their order): by severity, then file and line, so new ids
    // ascend down each list.
    all.sort_by(super::feedback::by_priority);
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
        all.extend(scan_skipped_issues(check, &evidence.diagnostics));
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
/// `data.skipped` that changed since the base (`changed: true`) and that
/// the scan did not already report as a `scan-skipped` diagnostic: the
/// change holds something no rule looked at (a FIFO, a link out of the
/// worktree, a file it could not open; evidence of older versions also
/// name files too large or binary), so a person must look
/// (docs/judge.md#issues). Its fingerprint is
/// `scan-skipped:<file>:unknown`. Entries that are not objects with a
/// string `file` are no issue: a `phase-result` block's data is strings
/// only, so no check output can make one.
fn scan_skipped_issues(check: &CheckRecord, diagnostics: &[Diagnostic]) -> Vec<Issue> {
    let Some(skipped) = check
        .data
        .get("skipped")
        .and_then(serde_json::Value::as_array)
    else {
        return Vec::new();
    };
    // The scan reports a changed file it could not read as an error
    // diagnostic of this rule too (an issue of its own): one problem is one
    // issue, not two with the same fingerprint.
    let reported = |file: &str| {
        diagnostics.iter().any(|d| {
            d.check == check.name
                && d.rule.as_deref() == Some(SCAN_SKIPPED)
                && d.file.as_deref() == Some(file)
        })
    };
    skipped
        .iter()
        .filter(|entry| entry.get("changed") == Some(&serde_json::Value::Bool(true)))
        .filter_map(|entry| {
            let file = entry.get("file")?.as_str()?;
            if reported(file) {
                return None;
            }
            let reason = entry
                .get("reason")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("unknown");
            let fix = match reason {
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
    if ends.is_empty() {
        format!("it failed {failed} {times} before passing on attempt {passed_on}")
    } else {
        format!(
            "it failed {failed} {times} ({}) before passing on attempt {passed_on}",
            ends.join(", ")
        )
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
        .map(|l| crate::sanitize::cut((*l).to_string(), TAIL_LINE_CHARS))
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
                    .unwrap_or_else(|| format!("{}-reviewer", dimension.as_str())),
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
mod tests;
