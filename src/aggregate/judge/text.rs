//! `--format text`: the verdict for a terminal, in plain lines (what
//! `markdown` says, without its markup): the recommendation, the issues by
//! severity in priority order, the scores and the next step. Rendered from
//! the verdict alone.

use std::fmt::Write;

use super::feedback::{format_score, priority};
use super::markdown::location;
use super::verdict::Verdict;
use crate::config::Severity;
use crate::sanitize::one_line;

/// The text of a verdict (ends with a newline).
pub(crate) fn render(verdict: &Verdict) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (iteration {}/{}): {}",
        verdict.recommendation.as_str(),
        verdict.iteration,
        verdict.thresholds_used.max_iterations,
        one_line(&verdict.feedback_for_code_writer.summary, usize::MAX)
    );
    let ordered = priority(&verdict.issues);
    for severity in Severity::ALL {
        let of: Vec<_> = ordered.iter().filter(|i| i.severity == severity).collect();
        if of.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{} ({}):", severity.title(), of.len());
        for issue in of {
            let _ = writeln!(
                out,
                "  {} {} [{}] {} ({})",
                issue.id,
                location(issue),
                one_line(&issue.kind, usize::MAX),
                first_line(&issue.description),
                one_line(&issue.source, usize::MAX)
            );
            if let Some(suggestion) = &issue.suggestion {
                let _ = writeln!(out, "      fix: {}", first_line(suggestion));
            }
        }
    }
    if verdict.issues.all().next().is_none() {
        out.push_str("No issues.\n");
    }
    let score = |s: Option<f64>| s.map_or_else(|| "n/a".to_string(), format_score);
    let _ = writeln!(
        out,
        "Scores: overall {}, security {}, quality {}, performance {}",
        score(verdict.progress.current_score),
        score(verdict.scores.security),
        score(verdict.scores.quality),
        score(verdict.scores.performance)
    );
    let route = &verdict.route;
    let _ = writeln!(
        out,
        "Next: {}: {}",
        route.next.as_str(),
        one_line(&route.action, usize::MAX)
    );
    out
}

/// The first non-blank line, on one line.
fn first_line(text: &str) -> String {
    one_line(
        text.lines().find(|l| !l.trim().is_empty()).unwrap_or(""),
        usize::MAX,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_verdict_in_plain_lines() {
        let verdict = crate::aggregate::judge::tests::sample_verdict();
        let expected = "\
ITERATE (iteration 3/5): to pass: fix 1 Critical issue (at most 0 allowed); raise security from 75 to 85
Critical (1):
  SEC-001 src/db.py:42 [SQL_INJECTION] string-built SQL query (security-reviewer)
      fix: cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))
Medium (1):
  QA-001 (no file) [dead_code] unused function (quality-reviewer)
Scores: overall 82.25, security 75, quality 85, performance 90
Next: IMPLEMENTER: Fix SEC-001 (Critical) and run the checks again
";
        assert_eq!(render(&verdict), expected);
    }
}
