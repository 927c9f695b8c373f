//! The human summary: one line per check; under a failing check its
//! diagnostics (the first 20, then a count), then, unless an error among
//! them explains the failure (`report::explained`), the tail of its output
//! (stdout's, then stderr's, each named when both have some); each path the
//! checks modified with the check blamed; the flaky checks (`retries`) on a
//! line of their own; a count line, and the banner as the very last line.

use std::fmt::Write;

use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence, Status};

/// The line between a failing check's diagnostics and its output's last
/// lines, when no error among them explains the failure.
const OUTPUT_ENDS: &str = "no error above explains the exit; the output ends:";

/// Diagnostics listed under a failing check; the rest are counted.
const DIAGNOSTICS_SHOWN: usize = 20;

/// The rule of the diagnostics the read-only verification reports.
pub(super) const READ_ONLY_RULE: &str = "read-only";

/// Upper-case status word, padded to a common width.
pub(crate) fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => " PASS",
        Status::Fail => " FAIL",
        Status::Error => "ERROR",
        Status::Skip => " SKIP",
    }
}

/// The rendered `text` report with its status words and banner coloured
/// (docs/running.md#on-a-terminal). Applied after the report was made safe
/// for display, so the only escape sequences in it are these. A check's line
/// is the only one that starts with a status word: every other line starts
/// with `run-check`, spaces, `Gate`, a count or the banner.
pub(crate) fn colour(report: &str, passed: bool) -> String {
    use crate::console::{paint, status_style};
    let lines: Vec<&str> = report.lines().collect();
    let mut out = String::with_capacity(report.len() + 16 * lines.len());
    for (i, line) in lines.iter().enumerate() {
        let status = [Status::Pass, Status::Fail, Status::Error, Status::Skip]
            .into_iter()
            .find(|&status| {
                line.strip_prefix(status_word(status))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            });
        match status {
            Some(status) => {
                let word = status_word(status);
                out.push_str(&paint(status_style(status), word));
                out.push_str(&line[word.len()..]);
            }
            None if i + 1 == lines.len() => {
                let status = if passed { Status::Pass } else { Status::Fail };
                out.push_str(&paint(status_style(status), line));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

pub(super) fn render(evidence: &Evidence) -> String {
    let mut out = String::new();
    let s = &evidence.summary;
    let width = evidence
        .checks
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "run-check {} · {} · {}",
        evidence.mode,
        super::checks(s.total),
        super::seconds(s.duration_ms)
    );
    for check in &evidence.checks {
        let line = format!(
            "{} {:width$}  {:>7}  {}",
            status_word(check.status),
            check.name,
            if check.status == Status::Skip {
                String::new()
            } else {
                super::seconds(check.duration_ms)
            },
            super::detail(check),
        );
        let _ = writeln!(out, "{}", line.trim_end());
        if let Some(line) = leaked(check) {
            let _ = writeln!(out, "      {line}");
        }
        if check.status.is_failure() {
            let diagnostics = diagnostics(evidence, check);
            let explained = super::explained(evidence, check);
            for line in &diagnostics {
                let _ = writeln!(out, "      {line}");
            }
            if !explained {
                let tail = super::output_tail(check);
                // Under diagnostics that do not explain the exit, say
                // where the lines below come from.
                if !diagnostics.is_empty() && !tail.is_empty() {
                    let _ = writeln!(out, "      {OUTPUT_ENDS}");
                }
                for line in tail {
                    let _ = writeln!(out, "      │ {line}");
                }
            }
        }
    }
    for path in &evidence.contracts.read_only.modified {
        let _ = writeln!(out, "  modified: {path} ({})", blamed(evidence, path));
    }
    // A changed gate does not fail the run by itself (docs/evidence.md: the task
    // contract and the judge act on it), but it is never silent. File
    // names reach the terminal through `report::render`'s sanitising, as
    // every other string of the evidence does.
    if let Some(gate) = super::changed_gate(evidence) {
        let _ = writeln!(
            out,
            "Gate changed against {}: {}",
            gate.base.as_deref().unwrap_or("the base"),
            gate.changed.join(", ")
        );
    }
    if let Some(line) = super::baseline_line(evidence) {
        let _ = writeln!(out, "  {line}");
    }
    if let Some(line) = flaky(evidence) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = super::ran_line(evidence) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", super::tally(s));
    let _ = writeln!(out, "{}", s.banner);
    out
}

/// The flaky checks apart, on a line of their own: "Flaky: unit (passed on
/// attempt 2 after exit 1), e2e (passed on attempt 3 after timed out, exit
/// 1)"; `None` without any.
fn flaky(evidence: &Evidence) -> Option<String> {
    let flaky = super::attempts::flaky(&evidence.checks);
    if flaky.is_empty() {
        return None;
    }
    let named: Vec<String> = flaky
        .iter()
        .map(|c| {
            // Only the story: whether it counted as failed is on its line.
            match super::attempts::note(&c.attempt_log, true, Status::Pass) {
                Some(note) => format!("{} ({})", c.name, note.trim_start_matches("flaky: ")),
                None => c.name.clone(),
            }
        })
        .collect();
    Some(format!("Flaky: {}", named.join(", ")))
}

/// The processes a check left behind, the first three by command and pid
/// (commands carry no control characters: they are replaced when read).
fn leaked(check: &CheckRecord) -> Option<String> {
    const SHOWN: usize = 3;
    if check.leaked.is_empty() {
        return None;
    }
    let mut shown: Vec<String> = check
        .leaked
        .iter()
        .take(SHOWN)
        .map(|p| format!("{} [pid {}]", p.command, p.pid))
        .collect();
    if check.leaked.len() > SHOWN {
        shown.push(format!("{} more", check.leaked.len() - SHOWN));
    }
    Some(format!("left behind: {}", shown.join("; ")))
}

/// A failing check's diagnostics (the read-only verification's aside), one
/// line each (and a formatter's hunk or a test's expected and actual values
/// under its own), new errors first, the first [`DIAGNOSTICS_SHOWN`] then
/// `… and N more diagnostics` (N counts those the evidence only counts
/// too); empty when it has none.
fn diagnostics(evidence: &Evidence, check: &CheckRecord) -> Vec<String> {
    let mut own: Vec<&Diagnostic> = super::of_check(&evidence.diagnostics, &check.name)
        .filter(|d| d.rule.as_deref() != Some(READ_ONLY_RULE))
        .collect();
    // What makes the check fail first: its new errors, then new warnings,
    // then what the baseline knew, each in the tool's order. A project's
    // old warnings printed in file order would otherwise fill the shown
    // lines and leave the error that failed the check in "… and N more".
    own.sort_by_key(|d| (d.new == Some(false), super::rank(d.severity)));
    if own.is_empty() {
        return Vec::new();
    }
    let shown = own.len().min(DIAGNOSTICS_SHOWN);
    let mut lines = Vec::new();
    for d in &own[..shown] {
        lines.push(diagnostic(d));
        // A formatter's hunk or a test's compared values under its
        // diagnostic, indented further.
        lines.extend(super::details(d).into_iter().map(|l| format!("    {l}")));
    }
    let total = own.len().max(check.diagnostics_count) as u64 + check.diagnostics_dropped;
    let more = total - shown as u64;
    if more > 0 {
        lines.push(format!(
            "… and {}",
            crate::output::plural(more, "more diagnostic")
        ));
    }
    lines
}

/// `file:line:column: severity[rule]: message`, the parts it lacks left
/// out, the message's first line only (a hunk's lines follow it).
fn diagnostic(d: &Diagnostic) -> String {
    let mut line = super::file_prefix(d);
    line.push_str(d.severity.as_str());
    if let Some(rule) = &d.rule {
        let _ = write!(line, "[{rule}]");
    }
    let _ = write!(line, ": {}", d.message.lines().next().unwrap_or(""));
    if d.new == Some(false) {
        let _ = write!(line, " ({})", super::OLD_MARK);
    }
    line
}

/// The check a modified path is blamed on: `by check `X`` from its
/// read-only diagnostic, `by one of the checks `a`, `b`` when the run
/// narrowed it to a few (as the diagnostic says), `check unknown` when the
/// run could not tell.
fn blamed(evidence: &Evidence, path: &str) -> String {
    const GROUP: &str = "by one of the checks ";
    let Some(d) = evidence
        .diagnostics
        .iter()
        .find(|d| d.rule.as_deref() == Some(READ_ONLY_RULE) && d.file.as_deref() == Some(path))
    else {
        return "check unknown".into();
    };
    if d.check != "run-check" {
        return format!("by check `{}`", d.check);
    }
    match d.message.find(GROUP) {
        Some(at) => d.message[at..].to_string(),
        None => "check unknown".into(),
    }
}

#[cfg(test)]
mod tests;
