//! The judge's arithmetic (docs/judge.md): check scores, dimension scores, the sharing out of a
//! null dimension's weight, the overall score, and the gates of a pass.
//! Every score is rounded to two decimals ([`round2`]) before it is compared.

use crate::config::{Dimension, Weights};
use run_check_documents::evidence::{CheckRecord, Status};

use super::thresholds::Thresholds;
use super::verdict::{DIMENSIONS, IssueCounts, ScoreGap, Scores, round2};

/// A check's score: its `score` when configured and found (clamped to
/// 0..100), else 100 for `pass` and 0 for `fail`; `None` for `skip` and
/// `error` (an errored check measured nothing about the code).
pub(crate) fn check_score(check: &CheckRecord) -> Option<f64> {
    match (check.status, check.score) {
        (Status::Skip | Status::Error, _) => None,
        (_, Some(score)) => Some(score.clamp(0.0, 100.0)),
        (Status::Pass, None) => Some(100.0),
        (Status::Fail, None) => Some(0.0),
    }
}

/// Each dimension's score: the mean of its checks' scores, rounded; `None`
/// when no check of the dimension was scored.
pub(crate) fn dimension_scores(checks: &[CheckRecord]) -> Scores {
    let mut scores = Scores::default();
    for dimension in DIMENSIONS {
        let of: Vec<f64> = checks
            .iter()
            .filter(|c| c.dimension == dimension)
            .filter_map(check_score)
            .collect();
        if !of.is_empty() {
            let mean = of.iter().sum::<f64>() / of.len() as f64;
            scores.set(dimension, Some(round2(mean)));
        }
    }
    scores
}

/// The weight of `dimension`.
pub(crate) fn weight(weights: &Weights, dimension: Dimension) -> f64 {
    match dimension {
        Dimension::Security => weights.security,
        Dimension::Quality => weights.quality,
        Dimension::Performance => weights.performance,
    }
}

/// The weights actually applied: a null dimension gets 0 and the others
/// share its weight in proportion to their own (w / sum of the non-null
/// weights). When the non-null dimensions' weights are all 0, they share
/// equally; when every dimension is null, every weight is 0.
pub(crate) fn effective_weights(scores: &Scores, weights: &Weights) -> Weights {
    let scored: Vec<Dimension> = DIMENSIONS
        .into_iter()
        .filter(|d| scores.get(*d).is_some())
        .collect();
    let total: f64 = scored.iter().map(|d| weight(weights, *d)).sum();
    let share = |d: Dimension| -> f64 {
        if !scored.contains(&d) {
            0.0
        } else if total > 0.0 {
            weight(weights, d) / total
        } else {
            1.0 / scored.len() as f64
        }
    };
    Weights {
        security: share(Dimension::Security),
        quality: share(Dimension::Quality),
        performance: share(Dimension::Performance),
    }
}

/// The weighted mean of the non-null scores with the effective weights,
/// rounded; `None` when every dimension is null.
pub(crate) fn overall(scores: &Scores, effective: &Weights) -> Option<f64> {
    let mut any = false;
    let mut sum = 0.0;
    for dimension in DIMENSIONS {
        if let Some(score) = scores.get(dimension) {
            any = true;
            sum += score * weight(effective, dimension);
        }
    }
    any.then(|| round2(sum))
}

/// The minimum of `dimension`.
pub(crate) fn minimum(thresholds: &Thresholds, dimension: Dimension) -> f64 {
    match dimension {
        Dimension::Security => thresholds.security_min,
        Dimension::Quality => thresholds.quality_min,
        Dimension::Performance => thresholds.performance_min,
    }
}

/// Which gates of a pass a round failed (docs/judge.md, its first rule).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Gates {
    /// More criticals than `max_critical_issues`.
    pub(crate) too_many_critical: bool,
    /// More highs than `max_high_issues`.
    pub(crate) too_many_high: bool,
    /// Non-null dimensions below their minimum, in dimension order.
    pub(crate) failed_dimensions: Vec<Dimension>,
    /// A non-null overall below `overall_min`.
    pub(crate) overall_below: bool,
    /// The banner of evidence whose run did not pass
    /// (`summary.all_checks_passed` false): a red gate is never a pass,
    /// whatever the scores.
    pub(crate) red_gate: Option<String>,
}

impl Gates {
    /// Every gate passed.
    pub(crate) fn passed(&self) -> bool {
        !self.too_many_critical
            && !self.too_many_high
            && self.failed_dimensions.is_empty()
            && !self.overall_below
            && self.red_gate.is_none()
    }
}

/// The gates: issue limits, every non-null dimension at or over its
/// minimum, a non-null overall at or over `overall_min`. Null scores are
/// not gated.
pub(crate) fn gates(
    scores: &Scores,
    overall: Option<f64>,
    counts: &IssueCounts,
    thresholds: &Thresholds,
) -> Gates {
    Gates {
        too_many_critical: counts.critical > thresholds.max_critical_issues as usize,
        too_many_high: counts.high > thresholds.max_high_issues as usize,
        failed_dimensions: DIMENSIONS
            .into_iter()
            .filter(|d| scores.get(*d).is_some_and(|s| s < minimum(thresholds, *d)))
            .collect(),
        overall_below: overall.is_some_and(|o| o < thresholds.overall_min),
        red_gate: None,
    }
}

/// Points missing to each minimum: `max(0, min - score)`, null for a null score.
pub(crate) fn score_gap(scores: &Scores, overall: Option<f64>, t: &Thresholds) -> ScoreGap {
    let gap = |score: Option<f64>, min: f64| score.map(|s| round2((min - s).max(0.0)));
    ScoreGap {
        security: gap(scores.security, t.security_min),
        quality: gap(scores.quality, t.quality_min),
        performance: gap(scores.performance, t.performance_min),
        overall: gap(overall, t.overall_min),
    }
}

#[cfg(test)]
mod tests {
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
}
