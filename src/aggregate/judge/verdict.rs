//! The verdict document (defined in the `run-check-documents` crate, with
//! its derived schema) and the words and rounding the judge writes it with.
//! The rules are in the sibling modules.

use crate::config::Dimension;

pub(crate) use run_check_documents::verdict::{
    Blocked, Category, Decision, DecisionKind, Feedback, Fix, Issue, IssueCounts, Issues,
    IterationBudget, NextAgent, Progress, Recommendation, Regression, Route, ScoreGap, Scores,
    StallType, Trend, Verdict,
};

/// The dimensions in the order they appear everywhere (scores, ids, weights).
pub(crate) const DIMENSIONS: [Dimension; 3] = [
    Dimension::Security,
    Dimension::Quality,
    Dimension::Performance,
];

/// The issue-id prefix of a dimension (docs/judge.md).
pub(crate) fn id_prefix(dimension: Dimension) -> &'static str {
    match dimension {
        Dimension::Security => "SEC",
        Dimension::Quality => "QA",
        Dimension::Performance => "PERF",
    }
}

/// Rounds to two decimals (half away from zero). Every score, gap and
/// improvement in a verdict is rounded this way before it is compared, so
/// what the verdict shows is what was judged.
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `type:file:line`, with `unknown` for what is missing (the reference judge's
/// `generate_issue_fingerprint`).
pub(crate) fn fingerprint(kind: &str, file: Option<&str>, line: Option<u64>) -> String {
    let line = line.map_or_else(|| "unknown".to_string(), |l| l.to_string());
    format!("{kind}:{}:{line}", file.unwrap_or("unknown"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_two_decimals_half_away_from_zero() {
        assert_eq!(round2(0.4 * 75.0 + 0.35 * 85.0 + 0.25 * 90.0), 82.25);
        assert_eq!(round2(100.0 / 3.0), 33.33);
        assert_eq!(round2(200.0 / 3.0), 66.67);
        assert_eq!(round2(80.125), 80.13);
        assert_eq!(round2(83.1 - 78.2), 4.9);
    }

    #[test]
    fn fingerprints_are_type_file_line() {
        assert_eq!(
            fingerprint("SQL_INJECTION", Some("src/db.py"), Some(42)),
            "SQL_INJECTION:src/db.py:42"
        );
        assert_eq!(fingerprint("test", None, None), "test:unknown:unknown");
        assert_eq!(fingerprint("E1", Some("a.rs"), None), "E1:a.rs:unknown");
    }

    #[test]
    fn words_in_json() {
        let words = serde_json::to_value((
            Recommendation::FailMaxIterations,
            Trend::SlowImprovement,
            StallType::StalledOscillating,
            DecisionKind::Rework,
            Category::Infrastructure,
            NextAgent::Implementer,
        ))
        .unwrap();
        assert_eq!(
            words,
            serde_json::json!([
                "FAIL_MAX_ITERATIONS",
                "slow_improvement",
                "STALLED_OSCILLATING",
                "REWORK",
                "infrastructure",
                "IMPLEMENTER",
            ])
        );
        assert_eq!(StallType::StalledScore.as_str(), "STALLED_SCORE");
    }
}
