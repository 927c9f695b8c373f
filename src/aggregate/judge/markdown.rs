//! `--format markdown`: the reference judge's feedback layout, in English — the issues
//! to fix (Critical / High / Medium sections, always present, `None.` when
//! empty; a Low section only when there are Low issues), the current state
//! (iteration, score trend, dimension scores) and the next step. Rendered
//! from the verdict alone, so it says exactly what the JSON says.

use std::fmt::Write;

use super::feedback::{format_score, priority};
use super::verdict::{Issue, NextAgent, Route, Verdict};
use crate::config::Severity;
use crate::sanitize::one_line;

/// The Markdown document of a verdict (ends with a newline).
pub(crate) fn render(verdict: &Verdict) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Verdict: {} (iteration {}/{})",
        verdict.recommendation.as_str(),
        verdict.iteration,
        verdict.thresholds_used.max_iterations
    );
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        one_line(
            &capitalised(&verdict.feedback_for_code_writer.summary),
            usize::MAX
        )
    );
    issues(&mut out, verdict);
    current_state(&mut out, verdict);
    next_step(&mut out, &verdict.route);
    out
}

/// The issues by severity, most pressing first.
fn issues(out: &mut String, verdict: &Verdict) {
    out.push_str("\n## Issues to fix\n");
    let ordered = priority(&verdict.issues);
    for (severity, title) in [
        (Severity::Critical, "Critical (must fix)"),
        (Severity::High, "High (should fix)"),
        (Severity::Medium, "Medium (may fix)"),
        (Severity::Low, "Low (optional)"),
    ] {
        let of: Vec<&Issue> = ordered
            .iter()
            .copied()
            .filter(|i| i.severity == severity)
            .collect();
        if severity == Severity::Low && of.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {title}");
        if of.is_empty() {
            out.push_str("None.\n");
        }
        for (n, issue) in of.iter().enumerate() {
            let _ = writeln!(
                out,
                "{}. **[{}]** - {} ({})",
                n + 1,
                one_line(&issue.kind, usize::MAX),
                location(issue),
                issue.id
            );
            problem(out, &issue.description);
            if let Some(suggestion) = &issue.suggestion {
                let _ = writeln!(out, "   - Fix: {}", one_line(suggestion, usize::MAX));
            }
            if let Some(hint) = &issue.tech_stack_hint {
                let _ = writeln!(out, "   - Hint: {}", one_line(hint, usize::MAX));
            }
        }
    }
}

/// Iteration, scores, stall and what the checks say.
fn current_state(out: &mut String, verdict: &Verdict) {
    out.push_str("\n## Current state\n");
    let _ = writeln!(
        out,
        "- Iteration: {}/{}",
        verdict.iteration, verdict.thresholds_used.max_iterations
    );
    let p = &verdict.progress;
    let overall = match (p.previous_score, p.current_score, p.improvement) {
        (Some(before), Some(now), Some(change)) => format!(
            "{} → {} ({}{})",
            format_score(before),
            format_score(now),
            if change >= 0.0 { "+" } else { "" },
            format_score(change)
        ),
        (None, Some(now), _) => format!("{} (first round)", format_score(now)),
        _ => "n/a".to_string(),
    };
    // The first round's trend word (`first`) would only say it again.
    let trend = match p.previous_score {
        None if p.current_score.is_some() => String::new(),
        _ => format!(" ({})", serde_word(&p.trend)),
    };
    let _ = writeln!(out, "- Overall score: {overall}{trend}");
    let score = |s: Option<f64>| s.map_or_else(|| "n/a".to_string(), format_score);
    let _ = writeln!(
        out,
        "- Security: {}, Quality: {}, Performance: {}",
        score(verdict.scores.security),
        score(verdict.scores.quality),
        score(verdict.scores.performance)
    );
    if let Some(stall) = p.stall_type {
        let _ = writeln!(out, "- Stall: {}", stall.as_str());
    }
    // What the checks say; who acts is the next step below.
    let _ = writeln!(
        out,
        "- Checks: {} ({})",
        serde_word(&verdict.decision.decision),
        one_line(&verdict.decision.reason, usize::MAX)
    );
}

/// Who acts next, what to do and why.
fn next_step(out: &mut String, route: &Route) {
    out.push_str("\n## Next step\n");
    let who = match route.next {
        NextAgent::Finish => "nobody: the work is done",
        NextAgent::Implementer => "the implementer",
        NextAgent::Validate => "the loop: run the gate again, unchanged",
        NextAgent::Subtask => "the planner: split the task",
        NextAgent::User => "a person, who must decide",
    };
    let _ = writeln!(out, "**{}** ({who})", route.next.as_str());
    out.push('\n');
    let _ = writeln!(out, "{}", one_line(&route.action, usize::MAX));
    if !route.reason.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "Why: {}", one_line(&route.reason, usize::MAX));
    }
}

/// Most lines of a multi-line problem shown (a test's assertion, a
/// compiler's snippet); the rest is counted.
const PROBLEM_LINES: usize = 20;

/// `   - Problem: …`: one line as it is; several lines (an assertion with
/// its values) kept as lines in an indented block, so nothing is cut.
fn problem(out: &mut String, description: &str) {
    let shown = crate::sanitize::for_display(description);
    let lines: Vec<&str> = shown.trim_end().lines().collect();
    if lines.len() <= 1 {
        let _ = writeln!(out, "   - Problem: {}", one_line(description, usize::MAX));
        return;
    }
    out.push_str("   - Problem:\n\n");
    for line in lines.iter().take(PROBLEM_LINES) {
        // Four spaces past the list item's indentation: a code block.
        let _ = writeln!(out, "         {}", line.trim_end());
    }
    if lines.len() > PROBLEM_LINES {
        let _ = writeln!(out, "         … {} more lines", lines.len() - PROBLEM_LINES);
    }
    out.push('\n');
}

/// The JSON word of a unit enum.
fn serde_word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

pub(super) fn location(issue: &Issue) -> String {
    match (&issue.file, issue.line) {
        (Some(file), Some(line)) => format!("{}:{line}", one_line(file, usize::MAX)),
        (Some(file), None) => one_line(file, usize::MAX),
        (None, _) => "(no file)".to_string(),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_layout_with_every_section() {
        let verdict = crate::aggregate::judge::tests::sample_verdict();
        let text = render(&verdict);
        let expected = "\
# Verdict: ITERATE (iteration 3/5)

To pass: fix 1 Critical issue (at most 0 allowed); raise security from 75 to 85

## Issues to fix

### Critical (must fix)
1. **[SQL_INJECTION]** - src/db.py:42 (SEC-001)
   - Problem: string-built SQL query
   - Fix: cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))
   - Hint: use SQLAlchemy

### High (should fix)
None.

### Medium (may fix)
1. **[dead_code]** - (no file) (QA-001)
   - Problem: unused function

## Current state
- Iteration: 3/5
- Overall score: 72 → 82.25 (+10.25) (improving)
- Security: 75, Quality: 85, Performance: 90
- Checks: REWORK (below the minimum: security; more critical issues than `max_critical_issues`; `passed` false in security_result)

## Next step
**IMPLEMENTER** (the implementer)

Fix SEC-001 (Critical) and run the checks again

Why: not passed yet, and no stall
";
        assert_eq!(text, expected);
    }

    #[test]
    fn first_rounds_null_scores_and_low_issues() {
        let mut verdict = crate::aggregate::judge::tests::sample_verdict();
        verdict.progress.previous_score = None;
        verdict.progress.improvement = None;
        verdict.scores.performance = None;
        verdict.issues.low = verdict.issues.medium.clone();
        verdict.issues.low[0].severity = Severity::Low;
        verdict.issues.low[0].description = "two\nlines".into();
        let text = render(&verdict);
        assert!(
            text.contains("- Overall score: 82.25 (first round)\n"),
            "{text}"
        );
        assert!(text.contains("- Security: 75, Quality: 85, Performance: n/a\n"));
        assert!(
            text.contains(
                "### Low (optional)\n1. **[dead_code]** - (no file) (QA-001)\n   - Problem:\n\n\
                 \x20        two\n         lines\n\n"
            ),
            "{text}"
        );
        verdict.progress.current_score = None;
        assert!(render(&verdict).contains("- Overall score: n/a"));
    }
}
