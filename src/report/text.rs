//! The human summary: one line per check, the tail of a failing check's
//! output (stdout's, then stderr's, each named when both have some), a count
//! line, and the banner as the very last line.

use std::fmt::Write;

use run_check_documents::evidence::{CheckRecord, Evidence, Status};

/// Lines of output shown under a failing check.
const TAIL_LINES: usize = 12;

/// Upper-case status word, padded to a common width.
pub(crate) fn status_word(status: Status) -> &'static str {
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
        "run-check {} · {} · {}",
        evidence.mode,
        super::checks(s.total),
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
        if let Some(line) = leaked(check) {
            let _ = writeln!(out, "      {line}");
        }
        if check.status.is_failure() {
            for line in tail(check) {
                let _ = writeln!(out, "      │ {line}");
            }
        }
    }
    // A changed gate does not fail the run by itself (docs/evidence.md: the task
    // contract and the judge act on it), but it is never silent. File
    // names reach the terminal through `report::render`'s sanitising, as
    // every other string of the evidence does.
    if let Some(gate) = evidence
        .contracts
        .gate
        .as_ref()
        .filter(|g| !g.changed.is_empty())
    {
        let _ = writeln!(
            out,
            "Gate changed against {}: {}",
            gate.base.as_deref().unwrap_or("the base"),
            gate.changed.join(", ")
        );
    }
    let _ = writeln!(out, "{}", super::tally(s));
    let _ = writeln!(out, "{}", s.banner);
    out
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

fn seconds(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}

/// The last lines of each stream that is not blank, stdout first; with both,
/// each under a `── name ──` line.
fn tail(check: &CheckRecord) -> Vec<String> {
    let mut shown = Vec::new();
    for stream in super::streams(check) {
        if stream.labelled {
            shown.push(format!("── {} ──", stream.name));
        }
        let lines: Vec<&str> = stream.text.lines().collect();
        shown.extend(
            lines[lines.len().saturating_sub(TAIL_LINES)..]
                .iter()
                .map(|l| l.to_string()),
        );
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::super::junit::sample;
    use super::*;

    #[test]
    fn a_failing_check_shows_stdout_then_stderr() {
        let mut evidence = sample::evidence();
        evidence.checks[1].stdout_excerpt = (1..=20).map(|i| format!("out {i}\n")).collect();
        evidence.checks[1].stderr_excerpt = "DeprecationWarning: old api\n".into();
        let out = render(&evidence);
        let lines: Vec<&str> = out.lines().collect();
        let at = lines.iter().position(|l| l.contains(" FAIL lint")).unwrap();
        let mut expected = vec!["      │ ── stdout ──".to_string()];
        expected.extend((9..=20).map(|i| format!("      │ out {i}")));
        expected.push("      │ ── stderr ──".into());
        expected.push("      │ DeprecationWarning: old api".into());
        assert_eq!(lines[at + 1..at + 1 + expected.len()], expected);
        // One stream alone has no label.
        let out = render(&sample::evidence());
        assert!(out.contains("      │ waiting…\n"), "{out}");
        assert!(!out.contains("── stdout ──") && !out.contains("── stderr ──"));
    }

    #[test]
    fn leftover_processes_are_named_under_their_check() {
        use run_check_documents::evidence::Leaked;
        let mut evidence = sample::evidence();
        evidence.checks[0].leaked = (1..=5)
            .map(|pid| Leaked {
                pid,
                command: format!("sleep {pid}00"),
            })
            .collect();
        let out = render(&evidence);
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(&evidence.checks[0].name))
            .unwrap();
        assert_eq!(
            lines[at + 1],
            "      left behind: sleep 100 [pid 1]; sleep 200 [pid 2]; sleep 300 [pid 3]; 2 more"
        );
        assert!(!render(&sample::evidence()).contains("left behind"));
    }
}
