use super::*;
use crate::aggregate::judge::history::Fingerprints;
use crate::aggregate::judge::verdict::{Issue, fingerprint};
use crate::config::Severity;

fn scores(s: f64, q: f64, p: f64) -> Scores {
    Scores {
        security: Some(s),
        quality: Some(q),
        performance: Some(p),
    }
}

fn critical(fp: &str) -> Issue {
    let (kind, rest) = fp.split_once(':').unwrap();
    let (file, line) = rest.split_once(':').unwrap();
    let issue = Issue {
        id: "SEC-001".into(),
        source: "audit".into(),
        severity: Severity::Critical,
        kind: kind.into(),
        file: Some(file.into()),
        line: line.parse().ok(),
        description: "d".into(),
        suggestion: None,
        tech_stack_hint: None,
        fingerprint: String::new(),
        dimension: Dimension::Security,
    };
    Issue {
        fingerprint: fingerprint(&issue.kind, issue.file.as_deref(), issue.line),
        ..issue
    }
}

fn with_criticals(fps: &[&str]) -> Issues {
    Issues {
        critical: fps.iter().map(|f| critical(f)).collect(),
        ..Issues::default()
    }
}

/// An earlier recorded round: overall, dimension scores, critical fingerprints.
fn round(overall: f64, s: Scores, criticals: &[&str]) -> PastRound {
    let set = criticals
        .iter()
        .map(|f| f.to_string())
        .collect::<std::collections::BTreeSet<_>>();
    PastRound {
        iteration: None,
        overall: Some(overall),
        scores: Some(s),
        fingerprints: Some(Fingerprints {
            critical: set.clone(),
            all: set,
            ids: Default::default(),
        }),
        infrastructure_blocked: false,
    }
}

/// Earlier rounds known only by their overall score.
fn plain(overalls: &[f64]) -> Vec<PastRound> {
    overalls.iter().map(|o| PastRound::score_only(*o)).collect()
}

struct Case {
    iteration: u32,
    passed: bool,
    overall: Option<f64>,
    scores: Scores,
    issues: Issues,
}

impl Case {
    fn new(overall: f64) -> Case {
        Case {
            iteration: 1,
            passed: false,
            overall: Some(overall),
            scores: scores(overall, overall, overall),
            issues: Issues::default(),
        }
    }

    fn run(&self, earlier: &[PastRound]) -> (Recommendation, Progress) {
        self.run_with(earlier, &Thresholds::default())
    }

    fn run_with(&self, earlier: &[PastRound], t: &Thresholds) -> (Recommendation, Progress) {
        let current = Current {
            iteration: self.iteration,
            passed: self.passed,
            overall: self.overall,
            scores: &self.scores,
            issues: &self.issues,
            failed_dimensions: &[],
        };
        assess(&current, earlier, t)
    }
}

#[track_caller]
fn stalled(case: &Case, earlier: &[PastRound]) -> Option<StallType> {
    let (rec, progress) = case.run(earlier);
    assert_eq!(
        rec == Recommendation::Stalled,
        progress.stall_type.is_some()
    );
    progress.stall_type
}

#[test]
fn trend_boundaries() {
    // stall_threshold 5: exactly 5 is improving, 4.99 slow, 0 stable, -0.01 declining.
    assert_eq!(trend(5.0, 5.0), Trend::Improving);
    assert_eq!(trend(11.0, 5.0), Trend::Improving);
    assert_eq!(trend(4.99, 5.0), Trend::SlowImprovement);
    assert_eq!(trend(0.01, 5.0), Trend::SlowImprovement);
    assert_eq!(trend(0.0, 5.0), Trend::Stable);
    assert_eq!(trend(-0.01, 5.0), Trend::Declining);
    // A zero threshold: 0 is still stable, anything above improving.
    assert_eq!(trend(0.0, 0.0), Trend::Stable);
    assert_eq!(trend(0.01, 0.0), Trend::Improving);

    // Through assess: first (no earlier round), then each trend.
    let (_, p) = Case::new(70.0).run(&[]);
    assert_eq!(
        (p.trend, p.previous_score, p.improvement),
        (Trend::First, None, None)
    );
    assert!(!p.stall_warning, "no earlier round, no warning");
    for (now, expected, warning) in [
        (75.0, Trend::Improving, false),
        (74.99, Trend::SlowImprovement, true),
        (70.0, Trend::Stable, true),
        (69.5, Trend::Declining, true),
    ] {
        let (_, p) = Case::new(now).run(&plain(&[70.0]));
        assert_eq!(p.trend, expected, "{now}");
        assert_eq!(p.stall_warning, warning, "{now}");
        assert_eq!(p.previous_score, Some(70.0));
    }
    // The reference judge's example: 72 -> 83 is +11, improving.
    let (_, p) = Case::new(83.0).run(&plain(&[65.0, 72.0]));
    assert_eq!((p.improvement, p.trend), (Some(11.0), Trend::Improving));
    // Float noise is rounded away: 78.2 -> 83.2 is exactly +5.
    let (_, p) = Case::new(83.2).run(&plain(&[78.2]));
    assert_eq!((p.improvement, p.trend), (Some(5.0), Trend::Improving));
    // No score this round: stable, no improvement.
    let mut case = Case::new(0.0);
    case.overall = None;
    let (_, p) = case.run(&plain(&[70.0]));
    assert_eq!(
        (p.trend, p.improvement, p.stall_warning),
        (Trend::Stable, None, false)
    );
}

#[test]
fn stalled_score_boundaries() {
    // stall_rounds 2, threshold 5: the last 2 improvements must both be < 5,
    // and 2 earlier scored rounds are needed.
    assert_eq!(
        stalled(&Case::new(68.0), &plain(&[60.0, 64.0])),
        Some(StallType::StalledScore),
        "+4, +4"
    );
    assert_eq!(
        stalled(&Case::new(69.0), &plain(&[60.0, 64.0])),
        None,
        "+4, +5: exactly the threshold is progress"
    );
    assert_eq!(
        stalled(&Case::new(68.99), &plain(&[60.0, 64.0])),
        Some(StallType::StalledScore),
        "+4, +4.99"
    );
    assert_eq!(
        stalled(&Case::new(64.0), &plain(&[55.0, 60.0])),
        None,
        "+5, +4: the first improvement is progress"
    );
    assert_eq!(
        stalled(&Case::new(61.0), &plain(&[60.0])),
        None,
        "only 1 earlier round: not enough"
    );
    // Only the last stall_rounds improvements count.
    assert_eq!(
        stalled(&Case::new(71.0), &plain(&[40.0, 70.0, 70.5])),
        Some(StallType::StalledScore)
    );
    // stall_rounds 3 needs 3 earlier rounds.
    let t = Thresholds {
        stall_rounds: 3,
        ..Thresholds::default()
    };
    assert_eq!(
        Case::new(63.0)
            .run_with(&plain(&[60.0, 61.0]), &t)
            .1
            .stall_type,
        None
    );
    assert_eq!(
        Case::new(63.0)
            .run_with(&plain(&[59.0, 60.0, 61.0]), &t)
            .1
            .stall_type,
        Some(StallType::StalledScore)
    );
    // stall_rounds 0 never stalls on score.
    let t = Thresholds {
        stall_rounds: 0,
        ..Thresholds::default()
    };
    assert_eq!(
        Case::new(60.0)
            .run_with(&plain(&[60.0, 60.0]), &t)
            .1
            .stall_type,
        None
    );
}

#[test]
fn stalled_critical_boundaries() {
    let s = scores(50.0, 50.0, 50.0);
    let mut case = Case::new(50.0);
    case.issues = with_criticals(&["SQL:db.py:42"]);
    // Large score steps so that no score rule interferes: 20 -> 35 -> 50.
    let both = [
        round(20.0, s, &["SQL:db.py:42"]),
        round(35.0, s, &["SQL:db.py:42"]),
    ];
    assert_eq!(stalled(&case, &both), Some(StallType::StalledCritical));
    // Present in only one of the 2 rounds before: not stalled.
    let once = [
        round(20.0, s, &["XSS:a.py:1"]),
        round(35.0, s, &["SQL:db.py:42"]),
    ];
    assert_eq!(stalled(&case, &once), None);
    // Each earlier round has *a* shared critical, but not the same one.
    let mut two = Case::new(50.0);
    two.issues = with_criticals(&["A:f:1", "B:f:2"]);
    let split = [round(20.0, s, &["A:f:1"]), round(35.0, s, &["B:f:2"])];
    assert_eq!(stalled(&two, &split), None);
    // Only 1 round before: not enough.
    assert_eq!(stalled(&case, &both[1..]), None);
    // Same fingerprint but not critical any more this round: not stalled.
    assert_eq!(stalled(&Case::new(50.0), &both), None);
    // Rounds known only by score do not count.
    assert_eq!(stalled(&case, &plain(&[20.0, 35.0])), None);
    // The other line changes the fingerprint.
    let mut moved = Case::new(50.0);
    moved.issues = with_criticals(&["SQL:db.py:43"]);
    assert_eq!(stalled(&moved, &both), None);
}

#[test]
fn stalled_oscillating_boundaries() {
    // Big enough jumps that STALLED_SCORE does not apply: 70 -> 76 -> 71
    // spans 6 (at the limit), up then down.
    assert_eq!(
        stalled(&Case::new(71.0), &plain(&[70.0, 76.0])),
        Some(StallType::StalledOscillating)
    );
    // 70 -> 76.01 -> 71 spans 6.01: not oscillating.
    assert_eq!(stalled(&Case::new(71.0), &plain(&[70.0, 76.01])), None);
    // Down then up: 76 -> 70 -> 75.
    let (rec, p) = Case::new(75.0).run(&plain(&[76.0, 70.0]));
    assert_eq!(
        (rec, p.stall_type),
        (Recommendation::Stalled, Some(StallType::StalledOscillating))
    );
    assert!(p.oscillation_detected);
    // Same direction twice within 6 points (70 -> 73 -> 76): not oscillating.
    let (_, p) = Case::new(76.0).run(&plain(&[70.0, 73.0]));
    assert!(!p.oscillation_detected, "+3, +3 does not change direction");
    // A flat step is not a direction change: 70 -> 76 -> 76.
    let (_, p) = Case::new(76.0).run(&plain(&[70.0, 76.0]));
    assert!(!p.oscillation_detected);
    // Only 2 scores: not enough.
    let (_, p) = Case::new(71.0).run(&plain(&[76.0]));
    assert!(!p.oscillation_detected);
}

#[test]
fn stalled_regression_boundaries() {
    // Security drops 10.01 points (80 -> 69.99): a regression, even
    // though the overall improved by 10 (no score stall).
    let before = [round(50.0, scores(80.0, 40.0, 40.0), &[])];
    let mut case = Case::new(60.0);
    case.scores = scores(69.99, 60.0, 60.0);
    let (rec, p) = case.run(&before);
    assert_eq!(
        (rec, p.stall_type),
        (Recommendation::Stalled, Some(StallType::StalledRegression))
    );
    assert_eq!(
        p.regressions,
        [Regression {
            dimension: Dimension::Security,
            previous: 80.0,
            current: 69.99,
            drop: 10.01
        }]
    );
    assert!(p.regression_detected);
    // Exactly 10 points is not "more than 10".
    case.scores = scores(70.0, 60.0, 60.0);
    let (rec, p) = case.run(&before);
    assert_eq!((rec, p.stall_type), (Recommendation::Iterate, None));
    assert!(!p.regression_detected);
    // A null dimension on either side is not compared.
    case.scores = Scores {
        security: None,
        ..scores(0.0, 60.0, 60.0)
    };
    assert!(!case.run(&before).1.regression_detected);
    // A round known only by its overall score has no dimensions to compare.
    case.scores = scores(0.0, 60.0, 60.0);
    assert!(!case.run(&plain(&[50.0])).1.regression_detected);
}

#[test]
fn stall_types_are_checked_in_spec_order() {
    let s = scores(60.0, 60.0, 60.0);
    // Score stall (+2, +1), the same critical three times, a regression
    // (quality 90 -> 61), no oscillation (same direction): STALLED_SCORE first.
    let mut case = Case::new(63.0);
    case.scores = scores(60.0, 61.0, 60.0);
    case.issues = with_criticals(&["A:f:1"]);
    let earlier = [
        round(60.0, s, &["A:f:1"]),
        round(62.0, scores(60.0, 90.0, 60.0), &["A:f:1"]),
    ];
    let (_, p) = case.run(&earlier);
    assert_eq!(p.stall_type, Some(StallType::StalledScore));
    assert!(
        p.regression_detected,
        "detected, but reported after the score stall"
    );
    // Without the score stall (+6 then -1): critical comes next, even though the scores oscillate (56 -> 62 -> 61 spans 6, up then down).
    let mut case = Case::new(61.0);
    case.issues = with_criticals(&["A:f:1"]);
    let earlier = [round(56.0, s, &["A:f:1"]), round(62.0, s, &["A:f:1"])];
    let (_, p) = case.run(&earlier);
    assert_eq!(p.stall_type, Some(StallType::StalledCritical));
    assert!(p.oscillation_detected);
    // Without the critical: oscillating before regression.
    let mut case = Case::new(61.0);
    case.scores = scores(61.0, 45.0, 61.0);
    let earlier = [
        round(56.0, s, &[]),
        round(62.0, scores(62.0, 62.0, 62.0), &[]),
    ];
    let (_, p) = case.run(&earlier);
    assert_eq!(p.stall_type, Some(StallType::StalledOscillating));
    assert!(p.regression_detected);
}

#[test]
fn recommendation_order() {
    let flat = plain(&[60.0, 60.0]);
    // ITERATE: not passing, no stall, iteration 1 of 5.
    assert_eq!(Case::new(60.0).run(&[]).0, Recommendation::Iterate);
    // STALLED: 60, 60, 60.
    let mut case = Case::new(60.0);
    case.iteration = 3;
    assert_eq!(case.run(&flat).0, Recommendation::Stalled);
    // FAIL_MAX_ITERATIONS at iteration == max_iterations (5), before STALLED.
    case.iteration = 5;
    let (rec, p) = case.run(&flat);
    assert_eq!(
        (rec, p.stall_type),
        (Recommendation::FailMaxIterations, None)
    );
    // ... and past it.
    case.iteration = 6;
    assert_eq!(case.run(&flat).0, Recommendation::FailMaxIterations);
    // One before the limit it is still judged on progress.
    case.iteration = 4;
    assert_eq!(case.run(&flat).0, Recommendation::Stalled);
    // PASS takes precedence over FAIL_MAX_ITERATIONS and stalls.
    case.iteration = 5;
    case.passed = true;
    let (rec, p) = case.run(&flat);
    assert_eq!((rec, p.stall_type), (Recommendation::Pass, None));
    // max_iterations 1: the first round is the last.
    let t = Thresholds {
        max_iterations: 1,
        ..Thresholds::default()
    };
    assert_eq!(
        Case::new(60.0).run_with(&[], &t).0,
        Recommendation::FailMaxIterations
    );
}

#[test]
fn persistent_issues_are_this_rounds_issues_seen_in_the_last_round() {
    let mut case = Case::new(50.0);
    case.issues = with_criticals(&["A:f:1"]);
    case.issues.critical[0].id = "SEC-004".into();
    let earlier = [round(20.0, scores(1.0, 1.0, 1.0), &["A:f:1"])];
    assert_eq!(case.run(&earlier).1.persistent_issues, ["SEC-004"]);
    let earlier = [round(20.0, scores(1.0, 1.0, 1.0), &["A:f:2"])];
    assert!(case.run(&earlier).1.persistent_issues.is_empty());
}

/// High issues at `file:line` fingerprints (`lint:a.py:N`).
fn highs(lines: &[u32]) -> Issues {
    Issues {
        high: lines
            .iter()
            .map(|n| Issue {
                severity: Severity::High,
                ..critical(&format!("lint:a.py:{n}"))
            })
            .collect(),
        ..Issues::default()
    }
}

/// An earlier round at score 0 whose issues are `highs(lines)`.
fn failing(lines: &[u32]) -> PastRound {
    let all: std::collections::BTreeSet<String> =
        highs(lines).all().map(|i| i.fingerprint.clone()).collect();
    PastRound {
        fingerprints: Some(Fingerprints {
            all,
            ..Fingerprints::default()
        }),
        ..round(0.0, scores(0.0, 0.0, 0.0), &[])
    }
}

#[test]
fn fewer_problems_is_progress_whatever_the_scores() {
    let mut case = Case::new(0.0);
    // 3 -> 2 -> 1 problems at score 0 each: progress, not STALLED_SCORE.
    case.issues = highs(&[3]);
    let earlier = [failing(&[1, 2, 3]), failing(&[2, 3])];
    assert_eq!(stalled(&case, &earlier), None);
    assert_eq!(case.run(&earlier).0, Recommendation::Iterate);
    // The same scores with a new problem among them is no progress, nor is
    // the same set again, nor one resolved and one new (after two rounds
    // without progress).
    let flat = [failing(&[1, 2, 3]), failing(&[2, 3]), failing(&[2, 3])];
    for issues in [highs(&[3, 9]), highs(&[2, 3]), highs(&[3, 4])] {
        case.issues = issues;
        assert_eq!(stalled(&case, &flat), Some(StallType::StalledScore));
    }
    // The stall count starts again after a round that made progress: one
    // round without progress after it is not yet a stall, two are.
    case.issues = highs(&[3]);
    let after = [failing(&[1, 2, 3]), failing(&[2, 3]), failing(&[3])];
    assert_eq!(stalled(&case, &after), None);
    let after = [
        failing(&[1, 2, 3]),
        failing(&[2, 3]),
        failing(&[3]),
        failing(&[3]),
    ];
    assert_eq!(stalled(&case, &after), Some(StallType::StalledScore));
}

#[test]
fn progress_also_excuses_an_oscillating_score() {
    // 66, 72, 69 oscillates; in the first case the last round resolved a
    // problem.
    let mut case = Case::new(69.0);
    case.issues = highs(&[1]);
    let mut before = failing(&[1, 2]);
    before.overall = Some(72.0);
    let mut first = failing(&[1, 2]);
    first.overall = Some(66.0);
    assert_eq!(stalled(&case, &[first.clone(), before.clone()]), None);
    case.issues = highs(&[1, 2]);
    assert_eq!(
        stalled(&case, &[first, before]),
        Some(StallType::StalledOscillating)
    );
}
