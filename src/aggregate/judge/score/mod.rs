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
mod tests;
