//! `feedback_for_code_writer` and `next_action` (the reference judge's structured
//! feedback).
//!
//! - `priority_order`: Critical first, then High, Medium, Low; within a
//!   severity grouped by file (files in name order, issues without a file
//!   last), then by line, then in id order.
//! - `must_fix` = Critical, `should_fix` = High, `optional_fix` = Medium and
//!   Low, each in priority order. A fix's `action` is `Fix <type>:
//!   <description>`; its `code_hint` is the issue's suggestion.
//! - `summary` lists what stands between this round and a pass.

use super::score::{Gates, minimum};
use super::thresholds::Thresholds;
use super::verdict::{Feedback, Fix, Issue, Issues, IterationBudget, ScoreGap, Scores};
use crate::config::Severity;
use crate::output::plural;

/// A score for messages: `85`, `82.25`.
pub(crate) fn format_score(score: f64) -> String {
    if score.fract() == 0.0 && score.abs() < 1e15 {
        format!("{score:.0}")
    } else {
        format!("{score}")
    }
}

/// The issues in priority order.
pub(crate) fn priority(issues: &Issues) -> Vec<&Issue> {
    let mut all: Vec<&Issue> = issues.all().collect();
    // A stable sort: ties keep their order.
    all.sort_by(|a, b| by_priority(a, b));
    all
}

/// The priority order: severity, then file (those with one first), then
/// line (those with one first).
pub(crate) fn by_priority(a: &Issue, b: &Issue) -> std::cmp::Ordering {
    a.severity
        .cmp(&b.severity)
        .then_with(|| match (&a.file, &b.file) {
            (Some(fa), Some(fb)) => fa.cmp(fb),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        })
        .then_with(|| match (a.line, b.line) {
            (Some(la), Some(lb)) => la.cmp(&lb),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        })
}

fn fix(issue: &Issue) -> Fix {
    Fix {
        id: issue.id.clone(),
        file: issue.file.clone(),
        line: issue.line,
        action: format!("Fix {}: {}", issue.kind, issue.description),
        code_hint: issue.suggestion.clone(),
    }
}

/// What stands between this round and a pass, one clause per failed gate.
pub(crate) fn blockers(
    gates: &Gates,
    issues: &Issues,
    scores: &Scores,
    overall: Option<f64>,
    t: &Thresholds,
) -> Vec<String> {
    let mut out = Vec::new();
    if gates.too_many_critical {
        out.push(format!(
            "fix {} (at most {} allowed)",
            plural(issues.critical.len(), "Critical issue"),
            t.max_critical_issues
        ));
    }
    if gates.too_many_high {
        out.push(format!(
            "fix {} (at most {} allowed)",
            plural(issues.high.len(), "High issue"),
            t.max_high_issues
        ));
    }
    for dimension in &gates.failed_dimensions {
        if let Some(score) = scores.get(*dimension) {
            out.push(format!(
                "raise {} from {} to {}",
                dimension.as_str(),
                format_score(score),
                format_score(minimum(t, *dimension))
            ));
        }
    }
    if gates.overall_below
        && let Some(overall) = overall
    {
        out.push(format!(
            "raise the overall score from {} to {}",
            format_score(overall),
            format_score(t.overall_min)
        ));
    }
    // A red gate whose scores and issues pass says so; otherwise fixing
    // the clauses above is what turns it green.
    if let Some(banner) = gates.red_gate.as_ref().filter(|_| out.is_empty()) {
        out.push(format!("make every check pass ({banner})"));
    }
    out
}

/// `feedback_for_code_writer`: the issues by urgency, the score gaps and the iterations left.
pub(crate) fn feedback(
    issues: &Issues,
    blockers: &[String],
    score_gap: ScoreGap,
    iteration: u32,
    t: &Thresholds,
) -> Feedback {
    let ordered = priority(issues);
    let of = |severities: &[Severity]| -> Vec<Fix> {
        ordered
            .iter()
            .filter(|i| severities.contains(&i.severity))
            .map(|i| fix(i))
            .collect()
    };
    let summary = if blockers.is_empty() {
        "every gate passed".to_string()
    } else {
        format!("to pass: {}", blockers.join("; "))
    };
    Feedback {
        summary,
        priority_order: ordered.iter().map(|i| i.id.clone()).collect(),
        must_fix: of(&[Severity::Critical]),
        should_fix: of(&[Severity::High]),
        optional_fix: of(&[Severity::Medium, Severity::Low]),
        iteration_budget: IterationBudget {
            current: iteration,
            max: t.max_iterations,
            remaining: t.max_iterations.saturating_sub(iteration),
        },
        score_gap,
    }
}

#[cfg(test)]
mod tests;
