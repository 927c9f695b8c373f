//! The verdict document: seed 000's output contract plus `decision` (seed
//! 002). Field order here is the order in the JSON; every field name is part
//! of the contract (`run-check schema verdict` describes it, see
//! [`super::schema`]). Only types live here: the rules are in the sibling
//! modules.

use serde::Serialize;

use crate::config::{Dimension, Weights};

use super::thresholds::Thresholds;

/// The dimensions in the order they appear everywhere (scores, ids, weights).
pub const DIMENSIONS: [Dimension; 3] = [
    Dimension::Security,
    Dimension::Quality,
    Dimension::Performance,
];

/// The word of a dimension in JSON and messages.
pub fn dimension_name(dimension: Dimension) -> &'static str {
    match dimension {
        Dimension::Security => "security",
        Dimension::Quality => "quality",
        Dimension::Performance => "performance",
    }
}

/// The issue-id prefix of a dimension (SPEC 8.2).
pub fn id_prefix(dimension: Dimension) -> &'static str {
    match dimension {
        Dimension::Security => "SEC",
        Dimension::Quality => "QA",
        Dimension::Performance => "PERF",
    }
}

/// Rounds to two decimals (half away from zero). Every score, gap and
/// improvement in a verdict is rounded this way before it is compared, so
/// what the verdict shows is what was judged.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// One verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// 1-based round number.
    pub iteration: u32,
    /// Whether every gate passed (issue limits, dimension and overall minimums).
    pub passed: bool,
    /// Weighted mean of the non-null dimension scores; null when all are null.
    pub overall_score: Option<f64>,
    /// Per-dimension scores; null when the dimension had nothing scored.
    pub scores: Scores,
    /// The thresholds this verdict was judged with.
    pub thresholds_used: Thresholds,
    /// The weights actually applied: a null dimension's weight is 0 and its
    /// configured share went to the others in proportion.
    pub weights_used: Weights,
    /// Issues per severity.
    pub issue_counts: IssueCounts,
    /// The issues, per severity, in id order.
    pub issues: Issues,
    /// What the code writer should do next.
    pub feedback_for_code_writer: Feedback,
    /// PASS, ITERATE, FAIL_MAX_ITERATIONS, STALLED or SUBTASK.
    pub recommendation: Recommendation,
    /// Scores over the rounds, trend and stall detection.
    pub progress: Progress,
    /// One sentence: what to do next.
    pub next_action: String,
    /// Seed 002's synthesizer decision.
    pub decision: Decision,
}

/// Scores per dimension (`scores`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    /// Security.
    pub security: Option<f64>,
    /// Quality.
    pub quality: Option<f64>,
    /// Performance.
    pub performance: Option<f64>,
}

impl Scores {
    /// The score of `dimension`.
    pub fn get(&self, dimension: Dimension) -> Option<f64> {
        match dimension {
            Dimension::Security => self.security,
            Dimension::Quality => self.quality,
            Dimension::Performance => self.performance,
        }
    }

    /// Sets the score of `dimension`.
    pub fn set(&mut self, dimension: Dimension, score: Option<f64>) {
        match dimension {
            Dimension::Security => self.security = score,
            Dimension::Quality => self.quality = score,
            Dimension::Performance => self.performance = score,
        }
    }
}

/// An issue's severity, as seed 000 writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum IssueSeverity {
    /// Blocks a pass beyond `max_critical_issues`.
    Critical,
    /// Blocks a pass beyond `max_high_issues`.
    High,
    /// Optional to fix.
    Medium,
    /// Optional to fix.
    Low,
}

impl IssueSeverity {
    /// Every severity, most severe first.
    pub const ALL: [IssueSeverity; 4] = [
        IssueSeverity::Critical,
        IssueSeverity::High,
        IssueSeverity::Medium,
        IssueSeverity::Low,
    ];

    /// `Critical`, `High`, `Medium`, `Low`.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueSeverity::Critical => "Critical",
            IssueSeverity::High => "High",
            IssueSeverity::Medium => "Medium",
            IssueSeverity::Low => "Low",
        }
    }
}

/// One issue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Issue {
    /// `SEC-001`, `QA-002`, `PERF-001`, ... (or as given in seed-000 input).
    pub id: String,
    /// The check (evidence) or reviewer (seed-000 input) that reported it.
    pub source: String,
    /// Critical / High / Medium / Low.
    pub severity: IssueSeverity,
    /// The diagnostic's rule, else the check name.
    #[serde(rename = "type")]
    pub kind: String,
    /// File, when known.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub description: String,
    /// How to fix it, when known.
    pub suggestion: Option<String>,
    /// A fix hint for the tech stack (seed-000 input only).
    pub tech_stack_hint: Option<String>,
    /// `type:file:line` (`unknown` for a missing file or line).
    pub fingerprint: String,
    /// The dimension the issue scores against (gives the id prefix).
    #[serde(skip)]
    pub dimension: Dimension,
}

/// `type:file:line`, with `unknown` for what is missing (seed 000's
/// `generate_issue_fingerprint`).
pub fn fingerprint(kind: &str, file: Option<&str>, line: Option<u64>) -> String {
    let line = line.map_or_else(|| "unknown".to_string(), |l| l.to_string());
    format!("{kind}:{}:{line}", file.unwrap_or("unknown"))
}

/// `issue_counts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IssueCounts {
    /// Critical issues.
    pub critical: usize,
    /// High issues.
    pub high: usize,
    /// Medium issues.
    pub medium: usize,
    /// Low issues.
    pub low: usize,
}

/// `issues`: one list per severity.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Issues {
    /// Critical issues.
    pub critical: Vec<Issue>,
    /// High issues.
    pub high: Vec<Issue>,
    /// Medium issues.
    pub medium: Vec<Issue>,
    /// Low issues.
    pub low: Vec<Issue>,
}

impl Issues {
    /// The list of one severity.
    pub fn of(&self, severity: IssueSeverity) -> &[Issue] {
        match severity {
            IssueSeverity::Critical => &self.critical,
            IssueSeverity::High => &self.high,
            IssueSeverity::Medium => &self.medium,
            IssueSeverity::Low => &self.low,
        }
    }

    /// Every issue, most severe first.
    pub fn all(&self) -> impl Iterator<Item = &Issue> {
        IssueSeverity::ALL.into_iter().flat_map(|s| self.of(s))
    }

    /// The counts.
    pub fn counts(&self) -> IssueCounts {
        IssueCounts {
            critical: self.critical.len(),
            high: self.high.len(),
            medium: self.medium.len(),
            low: self.low.len(),
        }
    }
}

/// `feedback_for_code_writer`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    /// One line: what stands between this round and a pass.
    pub summary: String,
    /// Issue ids, most urgent first.
    pub priority_order: Vec<String>,
    /// Critical issues.
    pub must_fix: Vec<Fix>,
    /// High issues.
    pub should_fix: Vec<Fix>,
    /// Medium and Low issues.
    pub optional_fix: Vec<Fix>,
    /// Rounds used and left.
    pub iteration_budget: IterationBudget,
    /// Points missing to each minimum (0 when met, null when not scored).
    pub score_gap: ScoreGap,
}

/// One entry of `must_fix`, `should_fix` or `optional_fix`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fix {
    /// The issue id.
    pub id: String,
    /// File, when known.
    pub file: Option<String>,
    /// Line, when known.
    pub line: Option<u64>,
    /// What to do.
    pub action: String,
    /// The issue's suggestion, when it has one.
    pub code_hint: Option<String>,
}

/// `iteration_budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct IterationBudget {
    /// This iteration.
    pub current: u32,
    /// `max_iterations`.
    pub max: u32,
    /// `max - current`, at least 0.
    pub remaining: u32,
}

/// `score_gap`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreGap {
    /// Security.
    pub security: Option<f64>,
    /// Quality.
    pub quality: Option<f64>,
    /// Performance.
    pub performance: Option<f64>,
    /// Overall.
    pub overall: Option<f64>,
}

/// `recommendation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Recommendation {
    /// Every gate passed.
    Pass,
    /// Not yet: fix the issues and run again.
    Iterate,
    /// The last allowed round did not pass.
    FailMaxIterations,
    /// No progress: a human should look (see `progress.stall_type`).
    Stalled,
    /// The change exceeds its task's budget: split the task (SPEC 7).
    Subtask,
}

impl Recommendation {
    /// The word in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Pass => "PASS",
            Recommendation::Iterate => "ITERATE",
            Recommendation::FailMaxIterations => "FAIL_MAX_ITERATIONS",
            Recommendation::Stalled => "STALLED",
            Recommendation::Subtask => "SUBTASK",
        }
    }
}

/// `progress`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// The overall score of the last earlier scored round.
    pub previous_score: Option<f64>,
    /// This round's overall score.
    pub current_score: Option<f64>,
    /// `current_score - previous_score`.
    pub improvement: Option<f64>,
    /// first / improving / slow_improvement / stable / declining.
    pub trend: Trend,
    /// This round improved less than `stall_threshold`.
    pub stall_warning: bool,
    /// Why the result is `STALLED` (null otherwise).
    pub stall_type: Option<StallType>,
    /// Ids of this round's issues whose fingerprints the last round had too.
    pub persistent_issues: Vec<String>,
    /// The last 3 overall scores oscillate within 6 points.
    pub oscillation_detected: bool,
    /// A dimension dropped more than 10 points since the last round.
    pub regression_detected: bool,
    /// The dimensions that dropped more than 10 points.
    pub regressions: Vec<Regression>,
    /// Scored dimensions below their minimum.
    pub failed_dimensions: Vec<String>,
}

/// `progress.trend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// No earlier scored round.
    First,
    /// Improved by at least `stall_threshold`.
    Improving,
    /// Improved, but by less than `stall_threshold`.
    SlowImprovement,
    /// Unchanged (or no score this round).
    Stable,
    /// Dropped.
    Declining,
}

/// `progress.stall_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StallType {
    /// Each of the last `stall_rounds` improvements is below `stall_threshold`.
    StalledScore,
    /// A critical fingerprint in this round and each of the 2 before.
    StalledCritical,
    /// The last 3 overall scores span at most 6 points and change direction.
    StalledOscillating,
    /// A dimension dropped more than 10 points since the last round.
    StalledRegression,
}

impl StallType {
    /// The word in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            StallType::StalledScore => "STALLED_SCORE",
            StallType::StalledCritical => "STALLED_CRITICAL",
            StallType::StalledOscillating => "STALLED_OSCILLATING",
            StallType::StalledRegression => "STALLED_REGRESSION",
        }
    }
}

/// One entry of `progress.regressions` (seed 000's `detect_regression`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// security / quality / performance.
    pub dimension: String,
    /// The last round's score.
    pub previous: f64,
    /// This round's score.
    pub current: f64,
    /// `previous - current`.
    pub drop: f64,
}

/// `decision` (seed 002's synthesizer).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// PASS, REWORK or BLOCKED.
    pub decision: DecisionKind,
    /// The checks that could not be judged, classified.
    pub blocked: Vec<Blocked>,
    /// FINISH, IMPLEMENTER, VALIDATE or USER.
    pub next_agent: NextAgent,
    /// One line: why.
    pub reason: String,
}

/// `decision.decision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DecisionKind {
    /// Every check passed.
    Pass,
    /// A check failed.
    Rework,
    /// A check could not be judged.
    Blocked,
}

/// One entry of `decision.blocked`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Blocked {
    /// The check (`run-check` for the read-only verification).
    pub check: String,
    /// environment / infrastructure / code.
    pub category: Category,
    /// The check's error, or `timed out`.
    pub reason: String,
}

/// `decision.blocked[].category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Program not found / not whitelisted: the user must fix the machine.
    Environment,
    /// Could not start, killed, timed out: retry the validation once.
    Infrastructure,
    /// Anything else: the implementer must fix it.
    Code,
}

impl Category {
    /// The word in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Environment => "environment",
            Category::Infrastructure => "infrastructure",
            Category::Code => "code",
        }
    }
}

/// `decision.next_agent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NextAgent {
    /// Done.
    Finish,
    /// Fix the code.
    Implementer,
    /// Run the validation again.
    Validate,
    /// A human must act.
    User,
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
            IssueSeverity::Critical,
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
                "Critical"
            ])
        );
        assert_eq!(Recommendation::Subtask.as_str(), "SUBTASK");
        assert_eq!(StallType::StalledScore.as_str(), "STALLED_SCORE");
    }
}
