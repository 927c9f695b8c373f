//! The recommendation (docs/judge.md), the progress block and stall detection.
//!
//! Order: `PASS` → `FAIL_MAX_ITERATIONS` (iteration ≥ `max_iterations`) → `STALLED`
//! (`STALLED_SCORE`, `STALLED_CRITICAL`, `STALLED_OSCILLATING`,
//! `STALLED_REGRESSION`, the first that holds) → `ITERATE`.
//!
//! The score history is the overall scores of the earlier rounds that have
//! one: a round with a null overall score (nothing scored, e.g. every check
//! errored) is left out of trend and every stall rule, and a round that
//! is null itself detects no stall.
//! Improvements are rounded to two decimals before they are compared.
//!
//! Progress is counted by problems too: a round whose issues are a strict
//! subset of the round before's (by fingerprint: one or more resolved, none
//! new) made progress whatever the scores, so it is never `STALLED_SCORE`
//! or `STALLED_OSCILLATING`, and those two rules only look at the rounds
//! from the last such round on. A failing check scores 0 until it passes,
//! so without this an agent fixing one of three problems per round would be
//! called stalled while the problems go 3, 2, 1.

use std::collections::BTreeSet;

use super::history::PastRound;
use super::verdict::{
    DIMENSIONS, Issues, Progress, Recommendation, Regression, Scores, StallType, Trend, round2,
};

use super::thresholds::Thresholds;
use crate::config::Dimension;

/// Largest span of the last 3 overall scores that still counts as oscillating.
pub(crate) const OSCILLATION_SPAN: f64 = 6.0;
/// A dimension dropping by more than this since the last round is a regression.
pub(crate) const REGRESSION_DROP: f64 = 10.0;

/// This round, as far as the recommendation is concerned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Current<'a> {
    /// 1-based.
    pub(crate) iteration: u32,
    /// Every gate passed.
    pub(crate) passed: bool,
    /// Overall score.
    pub(crate) overall: Option<f64>,
    /// Dimension scores.
    pub(crate) scores: &'a Scores,
    /// Issues (ids and fingerprints).
    pub(crate) issues: &'a Issues,
    /// Scored dimensions below their minimum.
    pub(crate) failed_dimensions: &'a [Dimension],
}

/// The recommendation and the progress block of this round.
pub(crate) fn assess(
    current: &Current<'_>,
    earlier: &[PastRound],
    t: &Thresholds,
) -> (Recommendation, Progress) {
    let scored: Vec<f64> = earlier.iter().filter_map(|r| r.overall).collect();
    let previous_score = scored.last().copied();
    let progressed = earlier
        .last()
        .and_then(|r| r.fingerprints.as_ref())
        .is_some_and(|before| fewer_problems(&fingerprints(current.issues), &before.all));
    // The score rules count from the last round that made progress on.
    let since_progress: Vec<f64> = earlier[last_progress(earlier)..]
        .iter()
        .filter_map(|r| r.overall)
        .collect();
    let improvement = match (current.overall, previous_score) {
        (Some(now), Some(before)) => Some(round2(now - before)),
        _ => None,
    };
    let trend = match (improvement, previous_score) {
        (_, None) => Trend::First,
        (None, Some(_)) => Trend::Stable,
        (Some(i), Some(_)) => trend(i, t.stall_threshold),
    };
    // Rounds with nothing scored (blocked ones) are left out of trend and
    // stall detection, this one included.
    let scored_rounds: Vec<PastRound> = earlier
        .iter()
        .filter(|r| r.overall.is_some())
        .cloned()
        .collect();
    let regressions = match current.overall {
        Some(_) => regressions(current.scores, scored_rounds.last()),
        None => Vec::new(),
    };
    let oscillating = !progressed && oscillating(&since_progress, current.overall);
    let critical = current.overall.is_some() && critical_stalled(current.issues, &scored_rounds);
    let stall = [
        (!progressed && score_stalled(&since_progress, current.overall, t))
            .then_some(StallType::StalledScore),
        critical.then_some(StallType::StalledCritical),
        oscillating.then_some(StallType::StalledOscillating),
        (!regressions.is_empty()).then_some(StallType::StalledRegression),
    ]
    .into_iter()
    .flatten()
    .next();
    let recommendation = if current.passed {
        Recommendation::Pass
    } else if current.iteration >= t.max_iterations {
        Recommendation::FailMaxIterations
    } else if stall.is_some() {
        Recommendation::Stalled
    } else {
        Recommendation::Iterate
    };
    let persistent_issues = match earlier.last().and_then(|r| r.fingerprints.as_ref()) {
        Some(before) => current
            .issues
            .all()
            .filter(|i| before.all.contains(&i.fingerprint))
            .map(|i| i.id.clone())
            .collect(),
        None => Vec::new(),
    };
    let progress = Progress {
        previous_score,
        current_score: current.overall,
        improvement,
        trend,
        stall_warning: improvement.is_some_and(|i| i < t.stall_threshold),
        stall_type: stall.filter(|_| recommendation == Recommendation::Stalled),
        persistent_issues,
        oscillation_detected: oscillating,
        regression_detected: !regressions.is_empty(),
        regressions,
        failed_dimensions: current.failed_dimensions.to_vec(),
    };
    (recommendation, progress)
}

/// This round's fingerprints.
fn fingerprints(issues: &Issues) -> BTreeSet<String> {
    issues.all().map(|i| i.fingerprint.clone()).collect()
}

/// `now` is a strict subset of `before`: one or more problems resolved and
/// none new.
fn fewer_problems(now: &BTreeSet<String>, before: &BTreeSet<String>) -> bool {
    now.len() < before.len() && now.is_subset(before)
}

/// The index in `earlier` of the last round that made progress over the
/// round before it (0 when none did): the score rules start there.
fn last_progress(earlier: &[PastRound]) -> usize {
    (1..earlier.len())
        .rev()
        .find(
            |&i| match (&earlier[i - 1].fingerprints, &earlier[i].fingerprints) {
                (Some(before), Some(now)) => fewer_problems(&now.all, &before.all),
                _ => false,
            },
        )
        .unwrap_or(0)
}

/// The trend of an improvement: declining below 0, stable at 0, improving
/// at or over `threshold`, slow in between.
pub(crate) fn trend(improvement: f64, threshold: f64) -> Trend {
    if improvement < 0.0 {
        Trend::Declining
    } else if improvement == 0.0 {
        Trend::Stable
    } else if improvement >= threshold {
        Trend::Improving
    } else {
        Trend::SlowImprovement
    }
}

/// `STALLED_SCORE`: each of the last `stall_rounds` improvements is below
/// `stall_threshold`; needs `stall_rounds` earlier scored rounds.
/// `stall_rounds = 0` never stalls.
fn score_stalled(scored: &[f64], current: Option<f64>, t: &Thresholds) -> bool {
    let rounds = t.stall_rounds as usize;
    let Some(current) = current else {
        return false;
    };
    if rounds == 0 || scored.len() < rounds {
        return false;
    }
    let mut series = scored[scored.len() - rounds..].to_vec();
    series.push(current);
    series
        .windows(2)
        .all(|w| round2(w[1] - w[0]) < t.stall_threshold)
}

/// `STALLED_CRITICAL`: one critical fingerprint in this round and in each of
/// the 2 rounds before (rounds whose issues are unknown do not count).
fn critical_stalled(issues: &Issues, earlier: &[PastRound]) -> bool {
    let [.., two_before, one_before] = earlier else {
        return false;
    };
    let (Some(a), Some(b)) = (&two_before.fingerprints, &one_before.fingerprints) else {
        return false;
    };
    issues
        .critical
        .iter()
        .any(|i| a.critical.contains(&i.fingerprint) && b.critical.contains(&i.fingerprint))
}

/// `STALLED_OSCILLATING`: the last 3 overall scores span at most 6 points and
/// change direction (up then down, or down then up).
fn oscillating(scored: &[f64], current: Option<f64>) -> bool {
    let (Some(c), [.., a, b]) = (current, scored) else {
        return false;
    };
    let (a, b) = (*a, *b);
    let span = round2(a.max(b).max(c) - a.min(b).min(c));
    let (d1, d2) = (round2(b - a), round2(c - b));
    span <= OSCILLATION_SPAN && ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
}

/// `STALLED_REGRESSION`: the dimensions that dropped more than 10 points
/// since the last round (both scores known).
fn regressions(scores: &Scores, last: Option<&PastRound>) -> Vec<Regression> {
    let Some(before) = last.and_then(|r| r.scores) else {
        return Vec::new();
    };
    DIMENSIONS
        .into_iter()
        .filter_map(|d| {
            let (previous, current) = (before.get(d)?, scores.get(d)?);
            let drop = round2(previous - current);
            (drop > REGRESSION_DROP).then_some(Regression {
                dimension: d,
                previous,
                current,
                drop,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
