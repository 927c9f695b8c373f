//! The verdict document of `run-check judge`: scores, issues, feedback for
//! the code writer, the recommendation, progress over the rounds and the
//! decision. Field order here is the order in the JSON; every field name is
//! part of the contract. Every object is closed and every field required.
//! Also the judge's other input, [`AggregatorInput`] (open objects).

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use crate::evidence::{Dimension, Severity};
use crate::int;
use crate::read::{self, Problem};

/// The verdict of one round of `run-check judge`: the aggregated scores and issues, plus the decision of who acts next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check judge verdict")]
pub struct Verdict {
    /// 1-based round number.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub iteration: u32,
    /// Whether every gate passed (issue limits, dimension and overall minimums).
    pub passed: bool,
    /// Weighted mean of the non-null dimension scores; null when all are null.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
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
    /// PASS, ITERATE, FAIL_MAX_ITERATIONS or STALLED.
    pub recommendation: Recommendation,
    /// Scores over the rounds, trend and stall detection.
    pub progress: Progress,
    /// One sentence: what to do next (`route.action`).
    pub next_action: String,
    /// The decision: pass, rework, or blocked; its `next_agent` is `route.next`.
    pub decision: Decision,
    /// The one next step of the loop: who acts, why, and what to do.
    #[serde(default)]
    pub route: Route,
    /// The checks.toml whose `[judge]` this verdict was judged with; null
    /// for the defaults.
    #[serde(default, deserialize_with = "crate::read::nullable")]
    pub config_used: Option<ConfigUsed>,
}

/// `route`: the one next step, decided by the first rule that applies
/// (docs/judge.md, "Route").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Who acts next.
    pub next: NextAgent,
    /// Which rule decided, in one line.
    pub reason: String,
    /// What to do, in one sentence (the verdict's `next_action`).
    pub action: String,
}

impl Default for Route {
    /// A route read from a verdict written before routes existed.
    fn default() -> Route {
        Route {
            next: NextAgent::Implementer,
            reason: String::new(),
            action: String::new(),
        }
    }
}

/// `config_used`: the config file a verdict was judged with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigUsed {
    /// The file, as given or as the evidence recorded it.
    pub path: String,
    /// SHA-256 of its bytes, lowercase hex.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// Scores per dimension (`scores`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scores {
    /// Security.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
    pub security: Option<f64>,
    /// Quality.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
    pub quality: Option<f64>,
    /// Performance.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
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

/// An issue's severity as a verdict writes it: the evidence's word in title case.
mod title_case {
    use super::Severity;
    use schemars::{Schema, SchemaGenerator, json_schema};
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(severity: &Severity, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(severity.title())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Severity, D::Error> {
        let word = String::deserialize(d)?;
        Severity::ALL
            .into_iter()
            .find(|severity| severity.title() == word)
            .ok_or_else(|| D::Error::unknown_variant(&word, &Severity::TITLES))
    }

    pub(super) fn schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": Severity::TITLES})
    }
}

/// One issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    /// `SEC-001`, `QA-002`, `PERF-001`, ... (or as given in an aggregator input).
    #[schemars(length(min = 1))]
    pub id: String,
    /// The check (evidence) or reviewer (aggregator input) that reported it.
    pub source: String,
    /// Critical / High / Medium / Low.
    #[serde(with = "title_case")]
    #[schemars(schema_with = "title_case::schema")]
    pub severity: Severity,
    /// The diagnostic's rule, else the check name.
    #[serde(rename = "type")]
    pub kind: String,
    /// File, when known.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub file: Option<String>,
    /// 1-based line, when known.
    #[serde(deserialize_with = "int::opt")]
    pub line: Option<u64>,
    /// What is wrong.
    pub description: String,
    /// How to fix it, when known.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub suggestion: Option<String>,
    /// A fix hint for the tech stack (aggregator input only).
    #[serde(deserialize_with = "crate::read::nullable")]
    pub tech_stack_hint: Option<String>,
    /// `type:file:line` (`unknown` for a missing file or line).
    pub fingerprint: String,
    /// The dimension the issue scores against (gives the id prefix); not
    /// written (a verdict read back has the default, `quality`).
    #[serde(skip)]
    pub dimension: Dimension,
}

/// `issue_counts`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IssueCounts {
    /// Critical issues.
    #[serde(deserialize_with = "int::de")]
    pub critical: usize,
    /// High issues.
    #[serde(deserialize_with = "int::de")]
    pub high: usize,
    /// Medium issues.
    #[serde(deserialize_with = "int::de")]
    pub medium: usize,
    /// Low issues.
    #[serde(deserialize_with = "int::de")]
    pub low: usize,
}

/// `issues`: one list per severity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = each_list_one_severity)]
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
    pub fn of(&self, severity: Severity) -> &[Issue] {
        match severity {
            Severity::Critical => &self.critical,
            Severity::High => &self.high,
            Severity::Medium => &self.medium,
            Severity::Low => &self.low,
        }
    }

    /// Every issue, most severe first.
    pub fn all(&self) -> impl Iterator<Item = &Issue> {
        Severity::ALL.into_iter().flat_map(|s| self.of(s))
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fix {
    /// The issue id.
    pub id: String,
    /// File, when known.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub file: Option<String>,
    /// Line, when known.
    #[serde(deserialize_with = "int::opt")]
    pub line: Option<u64>,
    /// What to do.
    pub action: String,
    /// The issue's suggestion, when it has one.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub code_hint: Option<String>,
}

/// `iteration_budget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IterationBudget {
    /// This iteration.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub current: u32,
    /// `max_iterations`.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub max: u32,
    /// `max - current`, at least 0.
    #[serde(deserialize_with = "int::de")]
    pub remaining: u32,
}

/// `score_gap`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreGap {
    /// Security.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0))]
    pub security: Option<f64>,
    /// Quality.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0))]
    pub quality: Option<f64>,
    /// Performance.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0))]
    pub performance: Option<f64>,
    /// Overall.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0))]
    pub overall: Option<f64>,
}

/// `recommendation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
}

impl Recommendation {
    /// The word in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Recommendation::Pass => "PASS",
            Recommendation::Iterate => "ITERATE",
            Recommendation::FailMaxIterations => "FAIL_MAX_ITERATIONS",
            Recommendation::Stalled => "STALLED",
        }
    }
}

/// `progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// The overall score of the last earlier scored round.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
    pub previous_score: Option<f64>,
    /// This round's overall score.
    #[serde(deserialize_with = "crate::read::nullable")]
    #[schemars(range(min = 0, max = 100))]
    pub current_score: Option<f64>,
    /// `current_score - previous_score`.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub improvement: Option<f64>,
    /// first / improving / slow_improvement / stable / declining.
    pub trend: Trend,
    /// This round improved less than `stall_threshold`.
    pub stall_warning: bool,
    /// Why the result is `STALLED` (null otherwise).
    #[serde(deserialize_with = "crate::read::nullable")]
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
    pub failed_dimensions: Vec<Dimension>,
}

/// `progress.trend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// One entry of `progress.regressions`: a score that fell between rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Regression {
    /// The dimension that dropped.
    pub dimension: Dimension,
    /// The last round's score.
    pub previous: f64,
    /// This round's score.
    pub current: f64,
    /// `previous - current`.
    #[schemars(extend("exclusiveMinimum" = 10))]
    pub drop: f64,
}

/// `decision`: the next step and who takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Blocked {
    /// The check (`run-check` for the read-only verification).
    pub check: String,
    /// environment / infrastructure / code.
    pub category: Category,
    /// The check's error, or `timed out`.
    pub reason: String,
}

/// `decision.blocked[].category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// `route.next` and `decision.next_agent`: who acts next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NextAgent {
    /// Done: the gate passed.
    Finish,
    /// The implementer fixes the code.
    Implementer,
    /// Run the validation again.
    Validate,
    /// Split the task into smaller ones.
    Subtask,
    /// A human must act.
    User,
}

impl NextAgent {
    /// The word in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            NextAgent::Finish => "FINISH",
            NextAgent::Implementer => "IMPLEMENTER",
            NextAgent::Validate => "VALIDATE",
            NextAgent::Subtask => "SUBTASK",
            NextAgent::User => "USER",
        }
    }
}

// One definition for `thresholds_used`, `[judge]` of checks.toml and an
// aggregator input's `tech_stack.quality_thresholds` (the last two read over
// a base with `Thresholds::with`): the bounds are the reader's and the schema's.
/// The thresholds a verdict was judged with (`thresholds_used`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Minimum security score.
    #[serde(deserialize_with = "score")]
    #[schemars(range(min = 0, max = 100))]
    pub security_min: f64,
    /// Minimum quality score.
    #[serde(deserialize_with = "score")]
    #[schemars(range(min = 0, max = 100))]
    pub quality_min: f64,
    /// Minimum performance score.
    #[serde(deserialize_with = "score")]
    #[schemars(range(min = 0, max = 100))]
    pub performance_min: f64,
    /// Minimum overall score.
    #[serde(deserialize_with = "score")]
    #[schemars(range(min = 0, max = 100))]
    pub overall_min: f64,
    /// Most critical issues a pass may have.
    #[serde(deserialize_with = "int::de")]
    pub max_critical_issues: u32,
    /// Most high issues a pass may have.
    #[serde(deserialize_with = "int::de")]
    pub max_high_issues: u32,
    /// The iteration at which a failing result becomes `FAIL_MAX_ITERATIONS`.
    #[serde(deserialize_with = "at_least_one")]
    #[schemars(range(min = 1))]
    pub max_iterations: u32,
    /// Smallest improvement that is not a stall.
    #[serde(deserialize_with = "score")]
    #[schemars(range(min = 0, max = 100))]
    pub stall_threshold: f64,
    /// Rounds of small improvement that make a stall (0: never a score stall).
    #[serde(deserialize_with = "int::de")]
    pub stall_rounds: u32,
}

impl Default for Thresholds {
    /// The judge's default thresholds (docs/judge.md).
    fn default() -> Thresholds {
        Thresholds {
            security_min: 85.0,
            quality_min: 80.0,
            performance_min: 80.0,
            overall_min: 80.0,
            max_critical_issues: 0,
            max_high_issues: 2,
            max_iterations: 5,
            stall_threshold: 5.0,
            stall_rounds: 2,
        }
    }
}

impl Thresholds {
    /// `self` with the members of `layer` (some thresholds) replaced, each
    /// read with its bounds; an unknown member is a problem at its path.
    pub fn with(self, layer: &Map<String, Value>) -> Result<Thresholds, Problem> {
        read::layered(&self, layer)
    }
}

/// A score: a number within 0..100.
fn score<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let n = f64::deserialize(deserializer)?;
    if (0.0..=100.0).contains(&n) {
        Ok(n)
    } else {
        Err(serde::de::Error::custom(format!("{n} is outside 0..100")))
    }
}

/// An integer of at least 1.
fn at_least_one<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    match int::de(deserializer)? {
        0 => Err(serde::de::Error::custom("must be at least 1")),
        n => Ok(n),
    }
}

/// The weights of the dimensions in the overall score.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Weight of the security score.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = 1))]
    pub security: f64,
    /// Weight of the quality score.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = 1))]
    pub quality: f64,
    /// Weight of the performance score.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = 1))]
    pub performance: f64,
}

impl Default for Weights {
    /// The judge's default weights (docs/judge.md).
    fn default() -> Weights {
        Weights {
            security: 0.4,
            quality: 0.35,
            performance: 0.25,
        }
    }
}

impl Weights {
    /// Largest distance of the weights' sum from 1.0 that is still accepted.
    pub const SUM_TOLERANCE: f64 = 0.001;

    /// `self` with the members of `layer` (some weights) replaced, each
    /// read with its bounds; an unknown member is a problem at its path.
    pub fn with(self, layer: &Map<String, Value>) -> Result<Weights, Problem> {
        read::layered(&self, layer)
    }

    /// The sum of the weights (to 6 decimals) when it is not 1.0 within
    /// [`Weights::SUM_TOLERANCE`].
    pub fn wrong_sum(&self) -> Option<f64> {
        let sum = self.security + self.quality + self.performance;
        ((sum - 1.0).abs() > Self::SUM_TOLERANCE).then_some((sum * 1e6).round() / 1e6)
    }
}

/// A weight: a number within 0..1.
fn weight<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let n = f64::deserialize(deserializer)?;
    if (0.0..=1.0).contains(&n) {
        Ok(n)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a weight within 0..1, found {n}"
        )))
    }
}

/// The judge's other input (docs/judge.md): reviewers' results per
/// dimension, read instead of evidence when `security_result` is present.
/// Its objects are open (unknown members are ignored, `tech_stack` holds
/// what a reviewer likes); `null` stands for an absent optional member.
/// Issue ids are unique, which `run-check judge` checks after reading.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AggregatorInput {
    /// The round, at least 1.
    #[serde(default, deserialize_with = "iteration")]
    pub iteration: Option<u32>,
    /// `quality_thresholds` and `weights` override `[judge]` key by key.
    #[serde(default, deserialize_with = "or_default")]
    pub tech_stack: TechStack,
    /// The security reviewer's result.
    pub security_result: DimensionResult,
    /// The quality reviewer's result.
    pub quality_result: DimensionResult,
    /// The performance reviewer's result.
    pub performance_result: DimensionResult,
    /// Overall scores of earlier rounds, oldest first.
    #[serde(default, deserialize_with = "or_default")]
    pub previous_scores: Vec<Score>,
}

impl AggregatorInput {
    /// The three results with their dimensions, in that order.
    pub fn results(&self) -> [(Dimension, &DimensionResult); 3] {
        [
            (Dimension::Security, &self.security_result),
            (Dimension::Quality, &self.quality_result),
            (Dimension::Performance, &self.performance_result),
        ]
    }
}

/// An aggregator input's `tech_stack`: the overrides, kept as given for
/// [`Thresholds::with`] and [`Weights::with`]; the rest is free.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TechStack {
    /// Some thresholds.
    #[serde(default, deserialize_with = "or_default")]
    pub quality_thresholds: Map<String, Value>,
    /// Some weights.
    #[serde(default, deserialize_with = "or_default")]
    pub weights: Map<String, Value>,
}

/// A score within 0..100.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Score(#[serde(deserialize_with = "score")] pub f64);

/// One reviewer's result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DimensionResult {
    /// The reviewer's own verdict.
    pub passed: bool,
    /// `null`: nothing scored.
    #[serde(deserialize_with = "crate::read::nullable")]
    pub score: Option<Score>,
    /// The issues found.
    pub issues: Vec<GivenIssue>,
}

/// One issue of a result, as given.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GivenIssue {
    /// Unique among the input's issues; else the judge numbers it.
    pub id: Option<String>,
    /// The reviewer; else `<dimension>-reviewer`.
    pub source: Option<String>,
    /// Critical / High / Medium / Low, in any case.
    #[serde(deserialize_with = "any_case")]
    pub severity: Severity,
    /// The kind of problem.
    #[serde(rename = "type")]
    pub kind: String,
    /// File, when known.
    pub file: Option<String>,
    /// Line, when known.
    #[serde(default, deserialize_with = "int::opt")]
    pub line: Option<u64>,
    /// What is wrong; else the type.
    pub description: Option<String>,
    /// How to fix it.
    pub suggestion: Option<String>,
    /// A fix hint for the tech stack.
    pub tech_stack_hint: Option<String>,
}

/// An optional member: `null` is absent.
fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    deserializer: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// `iteration`: an integer of at least 1, or `null`.
fn iteration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    match int::opt(deserializer)? {
        Some(0) => Err(serde::de::Error::custom("must be at least 1")),
        n => Ok(n),
    }
}

/// A severity word in any case.
fn any_case<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Severity, D::Error> {
    let found = match Value::deserialize(deserializer)? {
        Value::String(word) => {
            return Severity::ALL
                .into_iter()
                .find(|severity| severity.title().eq_ignore_ascii_case(&word))
                .ok_or_else(|| serde::de::Error::unknown_variant(&word, &Severity::TITLES));
        }
        Value::Number(n) => format!("number {n}"),
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    };
    let words: Vec<String> = Severity::TITLES.iter().map(|w| format!("{w:?}")).collect();
    Err(serde::de::Error::custom(format!(
        "expected one of {}, found {found}",
        words.join(", ")
    )))
}

/// Each list of `issues` holds the issues of its severity only.
fn each_list_one_severity(schema: &mut Schema) {
    let Some(properties) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for severity in Severity::ALL {
        let key = severity.title().to_ascii_lowercase();
        if let Some(list) = properties.get_mut(&key) {
            let items = list["items"].take();
            list["items"] = json!({
                "allOf": [items, {"properties": {"severity": {"const": severity.title()}}}]
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_issue_severity_is_the_evidence_severity_in_title_case() {
        let mut issue = Issue {
            id: "SEC-001".into(),
            source: "audit".into(),
            severity: Severity::Critical,
            kind: "audit".into(),
            file: None,
            line: None,
            description: "d".into(),
            suggestion: None,
            tech_stack_hint: None,
            fingerprint: "audit:unknown:unknown".into(),
            dimension: Dimension::Quality,
        };
        for (severity, word) in Severity::ALL
            .into_iter()
            .zip(["Critical", "High", "Medium", "Low"])
        {
            issue.severity = severity;
            let json = serde_json::to_value(&issue).unwrap();
            assert_eq!(json["severity"], word);
            assert_eq!(read::from_value::<Issue>(json), Ok(issue.clone()));
        }
        let mut json = serde_json::to_value(&issue).unwrap();
        for (bad, why) in [
            (
                json!("low"),
                "expected one of \"Critical\", \"High\", \"Medium\", \"Low\", found \"low\"",
            ),
            (json!(2), "expected a string, found number 2"),
        ] {
            json["severity"] = bad;
            assert_eq!(
                read::from_value::<Issue>(json.clone())
                    .unwrap_err()
                    .to_string(),
                format!("$.severity: {why}")
            );
        }
    }
}
