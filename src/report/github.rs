//! The `github` report: GitHub Actions workflow commands, then plain lines.
//!
//! ```text
//! ::error file=src/a.c,line=3,col=5,title=lint::bad thing
//! ::warning file=src/b.rs,line=1,title=lint (W1)::odd
//! ::error title=unit::unit failed (exit 101)
//! PASS clippy 0.81s
//! FAIL lint 0.02s exit 1
//! 2 checks: 1 pass, 1 fail, 0 error, 0 skip
//! 1 of 2 checks failed: lint
//! ```
//!
//! One annotation per diagnostic (`error`; `warning`; `notice` for note,
//! info and help), properties that are unknown left out, `title` the check
//! and rule. A failing or erroring check without error diagnostics gets one
//! `::error` of its own, a flaky check that passed (`retries`) one
//! `::warning`, and a run that did not pass with no error
//! annotation at all gets one with the banner. At most `MAX_ANNOTATIONS`
//! annotations are written, errors first, then warnings, then notices (GitHub
//! shows only 10 errors and 10 warnings per step anyway); one `::notice::`
//! then says how many were left out, and how many diagnostics the evidence
//! does not list because they were past the cap of 1000 per check (it only
//! counts those). The plain lines follow: one per check,
//! the counts, and the banner as the last line.

use std::fmt::Write;

use crate::parse::MAX_PER_CHECK;
use run_check_documents::evidence::{Evidence, Status};

/// The `::warning` of a check that passed on a retry (`retries`).
fn flaky_warning(check: &run_check_documents::evidence::CheckRecord) -> String {
    let note = super::attempts::note(&check.attempt_log, true, check.status)
        .unwrap_or_else(|| "flaky".into());
    command(
        "warning",
        &[("title", &format!("{} (flaky)", check.name))],
        &format!("{} {note}", check.name),
    )
}

/// Annotations written at most per report.
pub(crate) const MAX_ANNOTATIONS: usize = 50;

pub(super) fn render(evidence: &Evidence) -> String {
    let s = &evidence.summary;
    // (rank, line): rank 0 error, 1 warning, 2 notice.
    let mut annotations: Vec<(u8, String)> = Vec::new();
    for check in &evidence.checks {
        let has_error = super::of_check(&evidence.diagnostics, &check.name)
            .any(|d| d.severity == run_check_documents::evidence::DiagSeverity::Error);
        if check.status.is_failure() && !has_error {
            let message = format!("{} {}", check.name, super::outcome(check));
            annotations.push((0, command("error", &[("title", &check.name)], &message)));
        }
        if check.flaky && check.status == Status::Pass {
            annotations.push((1, flaky_warning(check)));
        }
    }
    for d in &evidence.diagnostics {
        let (rank, kind) = match d.severity.as_str() {
            "error" => (0, "error"),
            "warning" => (1, "warning"),
            _ => (2, "notice"),
        };
        let line = d.line.filter(|&l| l > 0).map(|l| l.to_string());
        let col = line
            .as_ref()
            .and(d.column.filter(|&c| c > 0))
            .map(|c| c.to_string());
        let title = match &d.rule {
            Some(rule) if !rule.is_empty() => format!("{} ({rule})", d.check),
            _ => d.check.clone(),
        };
        let mut properties = Vec::new();
        if let Some(file) = d.file.as_deref().filter(|f| !f.is_empty()) {
            properties.push(("file", file));
        }
        if let Some(line) = &line {
            properties.push(("line", line.as_str()));
        }
        if let Some(col) = &col {
            properties.push(("col", col.as_str()));
        }
        properties.push(("title", title.as_str()));
        let message = if d.message.trim().is_empty() {
            d.rule.as_deref().unwrap_or("(no message)")
        } else {
            &d.message
        };
        annotations.push((rank, command(kind, &properties, message)));
    }
    if !s.all_checks_passed && !annotations.iter().any(|(rank, _)| *rank == 0) {
        annotations.push((0, command("error", &[("title", "run-check")], &s.banner)));
    }
    annotations.sort_by_key(|(rank, _)| *rank);
    let omitted = annotations.len().saturating_sub(MAX_ANNOTATIONS);
    let mut out = String::new();
    for (_, line) in annotations.iter().take(MAX_ANNOTATIONS) {
        out.push_str(line);
        out.push('\n');
    }
    let dropped: u64 = evidence.checks.iter().map(|c| c.diagnostics_dropped).sum();
    match (omitted, dropped) {
        (0, 0) => {}
        (_, 0) => {
            let _ = writeln!(
                out,
                "::notice::{omitted} more annotations omitted (at most {MAX_ANNOTATIONS} per report; the evidence lists all)"
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "::notice::{omitted} more annotations omitted (at most {MAX_ANNOTATIONS} per report; the evidence lists them); {dropped} more diagnostics were dropped (at most {MAX_PER_CHECK} per check; the evidence only counts them)"
            );
        }
    }
    for check in &evidence.checks {
        // The text report's word, without its padding.
        let word = super::status_word(check.status).trim_start();
        let mut line = format!("{word} {}", check.name);
        if check.status != Status::Skip {
            let _ = write!(line, " {}", super::seconds(check.duration_ms));
        }
        let detail = super::detail(check);
        if !detail.is_empty() {
            let _ = write!(line, " {detail}");
        }
        out.push_str(&plain(&line));
        out.push('\n');
    }
    let _ = writeln!(out, "{}", super::tally(s));
    out.push_str(&plain(&s.banner));
    out.push('\n');
    out
}

/// `::kind prop=value,...::message`, everything escaped.
fn command(kind: &str, properties: &[(&str, &str)], message: &str) -> String {
    let mut line = format!("::{kind}");
    for (i, (name, value)) in properties.iter().enumerate() {
        line.push(if i == 0 { ' ' } else { ',' });
        let _ = write!(line, "{name}={}", escape_property(value));
    }
    let _ = write!(line, "::{}", escape_data(message));
    line
}

/// GitHub's escaping of a command's message.
fn escape_data(value: &str) -> String {
    value
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a property value.
fn escape_property(value: &str) -> String {
    escape_data(value).replace(':', "%3A").replace(',', "%2C")
}

/// A plain line: one line, and never read as a command (a `::` at its
/// start or a `##[` anywhere is defused, [`crate::sanitize::for_display`]).
fn plain(text: &str) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::sanitize::for_display(&line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::super::junit::sample;
    use super::*;

    fn is_command(line: &str) -> bool {
        regex::Regex::new(r"^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::.*$")
            .unwrap()
            .is_match(line)
    }

    #[test]
    fn annotations_then_summary_lines_then_the_banner() {
        let evidence = sample::evidence();
        let out = render(&evidence);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "::error title=unit::unit timed out; process tree killed",
                "::error title=gone::gone errored: program `zz` not found on PATH",
                "::error file=src/a.c,line=3,col=5,title=lint::bad thing",
                "::warning file=src/b%2Cc%3Ad.rs,line=1,title=lint (W%3A1)::odd 100%25 message%0Asecond | line",
                "PASS ok 0.81s",
                "FAIL lint 1.50s exit 3",
                "FAIL unit 1.50s timed out; process tree killed",
                "ERROR gone 1.50s program `zz` not found on PATH",
                "SKIP later needs `unit` failed",
                "5 checks: 1 pass, 2 fail, 1 error, 1 skip",
                "2 of 5 checks failed: lint, unit; 1 of 5 checks errored: gone",
            ]
        );
        for line in &lines[..4] {
            assert!(is_command(line), "{line}");
        }
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn escaping_follows_github() {
        assert_eq!(escape_data("a%b\r\nc::d,e"), "a%25b%0D%0Ac::d,e");
        assert_eq!(escape_property("a%b\r\nc::d,e"), "a%25b%0D%0Ac%3A%3Ad%2Ce");
        assert_eq!(
            command("notice", &[("file", "x,y.rs"), ("title", "t")], "m"),
            "::notice file=x%2Cy.rs,title=t::m"
        );
        assert_eq!(plain("::error::x\nnext"), "\\::error::x next");
        assert_eq!(plain("  ::error::x"), "  \\::error::x");
        assert_eq!(plain("a ##[error]b"), "a ##\\[error]b");
    }

    #[test]
    fn severities_and_missing_properties() {
        let mut evidence = sample::passing();
        evidence.diagnostics = vec![
            sample::diagnostic("ok", None, None, Some(3), "help", None, "h"),
            sample::diagnostic("ok", Some("f.rs"), None, Some(3), "info", None, ""),
            sample::diagnostic("ok", Some("f.rs"), Some(2), None, "note", Some("r"), "n"),
        ];
        let out = render(&evidence);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            &lines[..3],
            [
                "::notice title=ok::h",
                "::notice file=f.rs,title=ok::(no message)",
                "::notice file=f.rs,line=2,title=ok (r)::n",
            ]
        );
        assert_eq!(lines.last(), Some(&"All checks passed!"));
    }

    #[test]
    fn at_most_fifty_annotations_errors_first_then_a_count() {
        let mut evidence = sample::evidence();
        evidence.diagnostics = (0..70)
            .map(|i| {
                let severity = if i % 2 == 0 { "warning" } else { "error" };
                sample::diagnostic("lint", Some("a.rs"), Some(i + 1), None, severity, None, "x")
            })
            .collect();
        let out = render(&evidence);
        let commands: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
        assert_eq!(commands.len(), MAX_ANNOTATIONS + 1);
        // 35 diagnostic errors and 2 check errors (unit, gone) come first.
        assert!(commands[..37].iter().all(|l| l.starts_with("::error ")));
        assert!(commands[37..50].iter().all(|l| l.starts_with("::warning ")));
        assert_eq!(
            commands[50],
            "::notice::22 more annotations omitted (at most 50 per report; the evidence lists all)"
        );
        assert!(commands.iter().all(|l| is_command(l)));
        // Diagnostics past the per-check cap are not in the evidence: said so.
        evidence.checks[1].diagnostics_dropped = 1500;
        let out = render(&evidence);
        assert!(out.lines().any(|l| l
            == "::notice::22 more annotations omitted (at most 50 per report; the evidence lists them); 1500 more diagnostics were dropped (at most 1000 per check; the evidence only counts them)"));
    }

    #[test]
    fn a_failing_run_without_failing_checks_still_has_an_error() {
        let mut evidence = sample::passing();
        evidence.summary.all_checks_passed = false;
        evidence.summary.exit_code = 1;
        evidence.summary.banner = "Workspace modified by checks".into();
        let out = render(&evidence);
        assert!(out.starts_with("::error title=run-check::Workspace modified by checks\n"));
        assert_eq!(out.lines().last(), Some("Workspace modified by checks"));
    }
}
