//! The human summary: one line per check, the tail of a failing check's
//! output, a count line, and the banner as the very last line.

use std::fmt::Write;

use crate::evidence::{CheckRecord, Evidence, Status};

/// Lines of output shown under a failing check.
const TAIL_LINES: usize = 12;

/// Upper-case status word, padded to a common width.
pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => " PASS",
        Status::Fail => " FAIL",
        Status::Error => "ERROR",
        Status::Skip => " SKIP",
    }
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
        "run-check {} · {} checks · {}",
        evidence.mode,
        s.total,
        seconds(s.duration_ms)
    );
    for check in &evidence.checks {
        let line = format!(
            "{} {:width$}  {:>7}  {}",
            status_word(check.status),
            check.name,
            if check.status == Status::Skip {
                String::new()
            } else {
                seconds(check.duration_ms)
            },
            super::detail(check),
        );
        let _ = writeln!(out, "{}", line.trim_end());
        if check.status.is_failure() {
            for line in tail(check) {
                let _ = writeln!(out, "      │ {line}");
            }
        }
    }
    let _ = writeln!(
        out,
        "{} checks: {} pass, {} fail, {} error, {} skip",
        s.total, s.passed, s.failed, s.errored, s.skipped
    );
    let _ = writeln!(out, "{}", s.banner);
    out
}

fn seconds(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}

/// The last lines of the check's stderr, else of its stdout.
fn tail(check: &CheckRecord) -> Vec<&str> {
    let text = if check.stderr_excerpt.trim().is_empty() {
        &check.stdout_excerpt
    } else {
        &check.stderr_excerpt
    };
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
}
