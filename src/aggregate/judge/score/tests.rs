use super::*;
const DEFAULT_WEIGHTS: Weights = Weights {
    security: 0.4,
    quality: 0.35,
    performance: 0.25,
};

pub(crate) fn check(
    name: &str,
    dimension: Dimension,
    status: Status,
    score: Option<f64>,
) -> CheckRecord {
    crate::aggregate::judge::tests::record(serde_json::json!({
        "name": name, "status": status, "dimension": dimension, "score": score,
    }))
}

fn scores(s: Option<f64>, q: Option<f64>, p: Option<f64>) -> Scores {
    Scores {
        security: s,
        quality: q,
        performance: p,
    }
}

#[test]
fn check_scores_follow_status_unless_a_score_was_found() {
    use Dimension::Quality as Q;
    assert_eq!(check_score(&check("a", Q, Status::Pass, None)), Some(100.0));
    assert_eq!(check_score(&check("a", Q, Status::Fail, None)), Some(0.0));
    // An errored check measured nothing: not scored, found score or not.
    assert_eq!(check_score(&check("a", Q, Status::Error, None)), None);
    assert_eq!(check_score(&check("a", Q, Status::Error, Some(40.0))), None);
    assert_eq!(check_score(&check("a", Q, Status::Skip, None)), None);
    assert_eq!(check_score(&check("a", Q, Status::Skip, Some(50.0))), None);
    // A found score wins over the status, pass or fail.
    assert_eq!(
        check_score(&check("a", Q, Status::Fail, Some(72.5))),
        Some(72.5)
    );
    assert_eq!(
        check_score(&check("a", Q, Status::Pass, Some(64.0))),
        Some(64.0)
    );
    // Out-of-range scores are clamped.
    assert_eq!(
        check_score(&check("a", Q, Status::Pass, Some(150.0))),
        Some(100.0)
    );
    assert_eq!(
        check_score(&check("a", Q, Status::Pass, Some(-5.0))),
        Some(0.0)
    );
}

#[test]
fn a_dimension_score_is_the_mean_of_its_scored_checks() {
    use Dimension::*;
    let checks = [
        // security: (100 + 0) / 2 = 50
        check("s1", Security, Status::Pass, None),
        check("s2", Security, Status::Fail, None),
        // quality: (100 + 0 + 0) / 3 = 33.333... -> 33.33 (the error
        // and the skip are left out)
        check("q1", Quality, Status::Pass, None),
        check("q2", Quality, Status::Fail, None),
        check("q3", Quality, Status::Fail, None),
        check("q4", Quality, Status::Error, None),
        check("q5", Quality, Status::Skip, None),
        // performance: only a skip -> null
        check("p1", Performance, Status::Skip, None),
    ];
    assert_eq!(
        dimension_scores(&checks),
        scores(Some(50.0), Some(33.33), None)
    );
    // (87.5 + 100) / 2 = 93.75
    let checks = [
        check("c", Quality, Status::Pass, Some(87.5)),
        check("d", Quality, Status::Pass, None),
    ];
    assert_eq!(dimension_scores(&checks), scores(None, Some(93.75), None));
    assert_eq!(dimension_scores(&[]), Scores::default());
}

#[test]
fn reference_example_overall_is_82_25() {
    // 75 * 0.4 + 85 * 0.35 + 90 * 0.25 = 30 + 29.75 + 22.5 = 82.25
    let s = scores(Some(75.0), Some(85.0), Some(90.0));
    let w = effective_weights(&s, &DEFAULT_WEIGHTS);
    assert_eq!(w, DEFAULT_WEIGHTS);
    assert_eq!(overall(&s, &w), Some(82.25));
    let g = gates(
        &s,
        Some(82.25),
        &IssueCounts::default(),
        &Thresholds::default(),
    );
    // Security 75 < 85 fails; 82.25 >= 80 passes.
    assert_eq!(g.failed_dimensions, [Dimension::Security]);
    assert!(!g.overall_below);
    assert!(!g.passed());
    assert_eq!(
        score_gap(&s, Some(82.25), &Thresholds::default()),
        ScoreGap {
            security: Some(10.0),
            quality: Some(0.0),
            performance: Some(0.0),
            overall: Some(0.0)
        }
    );
}

#[test]
fn a_null_dimension_shares_its_weight_out_in_proportion() {
    // performance is null: its 0.25 goes to security and quality in
    // proportion 0.4 : 0.35, i.e. each weight is divided by 0.75:
    //   security 0.4 / 0.75 = 0.5333..., quality 0.35 / 0.75 = 0.4666...
    //   overall = (90 * 0.4 + 70 * 0.35) / 0.75 = (36 + 24.5) / 0.75 = 80.666... -> 80.67
    let s = scores(Some(90.0), Some(70.0), None);
    let w = effective_weights(&s, &DEFAULT_WEIGHTS);
    assert!((w.security - 0.4 / 0.75).abs() < 1e-12);
    assert!((w.quality - 0.35 / 0.75).abs() < 1e-12);
    assert_eq!(w.performance, 0.0);
    assert_eq!(overall(&s, &w), Some(80.67));
    // The null dimension is not gated: only quality (70 < 80) fails.
    let g = gates(
        &s,
        Some(80.67),
        &IssueCounts::default(),
        &Thresholds::default(),
    );
    assert_eq!(g.failed_dimensions, [Dimension::Quality]);
    assert!(!g.overall_below);
    assert_eq!(
        score_gap(&s, Some(80.67), &Thresholds::default()).performance,
        None
    );

    // Only quality scored: it carries the whole weight. 60 -> overall 60.
    let s = scores(None, Some(60.0), None);
    let w = effective_weights(&s, &DEFAULT_WEIGHTS);
    assert_eq!((w.security, w.quality, w.performance), (0.0, 1.0, 0.0));
    assert_eq!(overall(&s, &w), Some(60.0));

    // Nothing scored: overall null, nothing gated.
    let s = Scores::default();
    let w = effective_weights(&s, &DEFAULT_WEIGHTS);
    assert_eq!((w.security, w.quality, w.performance), (0.0, 0.0, 0.0));
    assert_eq!(overall(&s, &w), None);
    let g = gates(&s, None, &IssueCounts::default(), &Thresholds::default());
    assert!(g.passed());

    // The scored dimensions have weight 0: they share equally.
    let zero = Weights {
        security: 1.0,
        quality: 0.0,
        performance: 0.0,
    };
    let s = scores(None, Some(80.0), Some(90.0));
    let w = effective_weights(&s, &zero);
    assert_eq!((w.quality, w.performance), (0.5, 0.5));
    assert_eq!(overall(&s, &w), Some(85.0));
}

#[test]
fn gates_are_inclusive_at_the_minimums_and_limits() {
    let t = Thresholds::default();
    // Exactly at every minimum: 85 / 80 / 80, overall 0.4*85+0.35*80+0.25*80 = 82.
    let s = scores(Some(85.0), Some(80.0), Some(80.0));
    let at_limits = IssueCounts {
        critical: 0,
        high: 2,
        medium: 9,
        low: 9,
    };
    assert!(gates(&s, Some(82.0), &at_limits, &t).passed());
    // One more high (3 > 2), one critical (1 > 0).
    let g = gates(
        &s,
        Some(82.0),
        &IssueCounts {
            high: 3,
            ..at_limits
        },
        &t,
    );
    assert!(g.too_many_high && !g.passed());
    let g = gates(
        &s,
        Some(82.0),
        &IssueCounts {
            critical: 1,
            ..at_limits
        },
        &t,
    );
    assert!(g.too_many_critical && !g.passed());
    // Just under a minimum: 84.99 < 85.
    let g = gates(
        &scores(Some(84.99), Some(80.0), Some(80.0)),
        Some(82.0),
        &at_limits,
        &t,
    );
    assert_eq!(g.failed_dimensions, [Dimension::Security]);
    // Overall: exactly 80 passes, 79.99 fails.
    assert!(!gates(&s, Some(80.0), &at_limits, &t).overall_below);
    assert!(gates(&s, Some(79.99), &at_limits, &t).overall_below);
}
