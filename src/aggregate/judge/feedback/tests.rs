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
