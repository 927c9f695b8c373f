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
use super::verdict::{
    Feedback, Fix, Issue, Issues, IterationBudget, ScoreGap, Scores, dimension_name,
};
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
                dimension_name(*dimension),
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
mod tests {
    use super::*;
    use crate::aggregate::judge::route::iterate_action;
    use crate::aggregate::judge::score::gates;
    use crate::aggregate::judge::verdict::fingerprint;
    use crate::config::Dimension;

    fn issue(id: &str, severity: Severity, file: Option<&str>, line: Option<u64>) -> Issue {
        Issue {
            id: id.into(),
            source: "s".into(),
            severity,
            kind: "T".into(),
            file: file.map(str::to_string),
            line,
            description: "d".into(),
            suggestion: Some("hint".into()),
            tech_stack_hint: None,
            fingerprint: fingerprint("T", file, line),
            dimension: Dimension::Quality,
        }
    }

    fn issues(list: Vec<Issue>) -> Issues {
        let mut out = Issues::default();
        for i in list {
            match i.severity {
                Severity::Critical => out.critical.push(i),
                Severity::High => out.high.push(i),
                Severity::Medium => out.medium.push(i),
                Severity::Low => out.low.push(i),
            }
        }
        out
    }

    #[test]
    fn priority_is_severity_then_file_then_line() {
        use Severity::*;
        let list = issues(vec![
            issue("QA-001", High, Some("b.rs"), Some(1)),
            issue("QA-002", High, None, None),
            issue("QA-003", High, Some("a.rs"), Some(9)),
            issue("QA-004", High, Some("a.rs"), Some(2)),
            issue("SEC-001", Critical, Some("z.rs"), None),
            issue("QA-005", Low, Some("a.rs"), Some(1)),
            issue("QA-006", Medium, Some("a.rs"), Some(1)),
        ]);
        let order: Vec<&str> = priority(&list).iter().map(|i| i.id.as_str()).collect();
        assert_eq!(
            order,
            [
                "SEC-001", "QA-004", "QA-003", "QA-001", "QA-002", "QA-006", "QA-005"
            ]
        );
        let gap = ScoreGap {
            security: None,
            quality: Some(0.0),
            performance: None,
            overall: Some(0.0),
        };
        let f = feedback(&list, &[], gap, 2, &Thresholds::default());
        assert_eq!(f.priority_order, order);
        assert_eq!(f.must_fix.len(), 1);
        assert_eq!(
            f.should_fix
                .iter()
                .map(|f| f.id.as_str())
                .collect::<Vec<_>>(),
            ["QA-004", "QA-003", "QA-001", "QA-002"]
        );
        assert_eq!(
            f.optional_fix
                .iter()
                .map(|f| f.id.as_str())
                .collect::<Vec<_>>(),
            ["QA-006", "QA-005"]
        );
        assert_eq!(f.must_fix[0].action, "Fix T: d");
        assert_eq!(f.must_fix[0].code_hint.as_deref(), Some("hint"));
        assert_eq!(
            f.iteration_budget,
            IterationBudget {
                current: 2,
                max: 5,
                remaining: 3
            }
        );
        assert_eq!(f.summary, "every gate passed");
    }

    #[test]
    fn summary_and_next_action_of_the_documented_example() {
        // 1 Critical, security 75 < 85, overall 82.25 >= 80.
        let t = Thresholds::default();
        let list = issues(vec![issue(
            "SEC-001",
            Severity::Critical,
            Some("src/db.py"),
            Some(42),
        )]);
        let s = Scores {
            security: Some(75.0),
            quality: Some(85.0),
            performance: Some(90.0),
        };
        let g = gates(&s, Some(82.25), &list.counts(), &t);
        let b = blockers(&g, &list, &s, Some(82.25), &t);
        assert_eq!(
            b,
            [
                "fix 1 Critical issue (at most 0 allowed)",
                "raise security from 75 to 85"
            ]
        );
        let gap = ScoreGap {
            security: Some(10.0),
            quality: Some(0.0),
            performance: Some(0.0),
            overall: Some(0.0),
        };
        assert_eq!(
            feedback(&list, &b, gap, 1, &t).summary,
            "to pass: fix 1 Critical issue (at most 0 allowed); raise security from 75 to 85"
        );
        assert_eq!(
            iterate_action(&list, &b),
            "Fix SEC-001 (Critical) and run the checks again"
        );
        // Without urgent issues, the first failed gate is the action.
        let none = Issues::default();
        let b = ["raise the overall score from 78.5 to 80".to_string()];
        assert_eq!(
            iterate_action(&none, &b),
            "Raise the overall score from 78.5 to 80 and run the checks again"
        );
    }

    #[test]
    fn high_limit_and_overall_blockers() {
        let t = Thresholds::default();
        let list = issues(
            (1..=3)
                .map(|n| issue(&format!("QA-00{n}"), Severity::High, None, None))
                .collect(),
        );
        let s = Scores {
            security: None,
            quality: Some(78.5),
            performance: None,
        };
        let g = gates(&s, Some(78.5), &list.counts(), &t);
        assert_eq!(
            blockers(&g, &list, &s, Some(78.5), &t),
            [
                "fix 3 High issues (at most 2 allowed)",
                "raise quality from 78.5 to 80",
                "raise the overall score from 78.5 to 80"
            ]
        );
    }

    #[test]
    fn scores_print_without_needless_decimals() {
        assert_eq!(format_score(85.0), "85");
        assert_eq!(format_score(82.25), "82.25");
        assert_eq!(format_score(80.67), "80.67");
        assert_eq!(format_score(-2.5), "-2.5");
    }
}
