//! The documents of `run-check vote` (docs/vote.md): its input, reviewers'
//! elimination votes ([`VoteInput`]), and its output, eliminated candidates
//! and survivors, the vote distribution, the consensus analysis and the
//! reasons given ([`VoteResult`]). Field order here is the order in the
//! JSON; every object is closed (but `quick_assessments`, whose values are
//! not interpreted), and `null` never stands for a value.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::read::{Problem, child};

/// The largest confidence weight (keeps every sum finite).
pub const MAX_WEIGHT: f64 = 1_000_000.0;

/// Reviewers' elimination votes, read by `run-check vote`. Evaluator ids
/// are unique, which `run-check vote` checks (a schema cannot say it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check vote input")]
pub struct VoteInput {
    /// One vote per evaluator, at least one.
    #[serde(deserialize_with = "votes")]
    #[schemars(length(min = 1))]
    pub votes: Vec<Vote>,
    /// The weighted votes that eliminate a candidate.
    #[serde(deserialize_with = "threshold")]
    #[schemars(range(min = 1))]
    pub elimination_threshold: u64,
    /// The weight of a vote by its confidence.
    #[serde(default)]
    pub confidence_weights: Weights,
    /// Eliminate only a candidate every evaluator voted for.
    #[serde(default)]
    pub require_unanimous: bool,
}

/// One evaluator's vote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Vote {
    /// Who votes: unique among the votes.
    #[serde(deserialize_with = "name")]
    #[schemars(regex(pattern = r"\S"))]
    pub evaluator_id: String,
    /// Which candidate the evaluator votes out, why, and how sure.
    pub elimination_decision: Decision,
    /// Candidates the evaluator looked at; the values are not interpreted.
    #[serde(default)]
    #[schemars(extend("propertyNames" = {"pattern": r"\S"}))]
    pub quick_assessments: BTreeMap<String, Value>,
}

/// What a vote decides: which candidate goes, why, and how sure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// The candidate voted out.
    #[serde(deserialize_with = "name")]
    #[schemars(regex(pattern = r"\S"))]
    pub eliminated: String,
    /// Why, in the evaluator's words; blank is no reason given.
    #[serde(default)]
    pub reason: String,
    /// How sure the evaluator is; it sets the vote's weight.
    pub confidence: Confidence,
}

/// A reviewer's confidence in its vote; the variant names are the JSON's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Confidence {
    /// Default weight 1.5.
    High,
    /// Default weight 1.0.
    Medium,
    /// Default weight 0.5.
    Low,
}

/// `confidence_weights`: a weight not given keeps its default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "PascalCase")]
pub struct Weights {
    /// The weight of a `High` vote.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    pub high: f64,
    /// The weight of a `Medium` vote.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    pub medium: f64,
    /// The weight of a `Low` vote.
    #[serde(deserialize_with = "weight")]
    #[schemars(range(min = 0, max = MAX_WEIGHT))]
    pub low: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            high: 1.5,
            medium: 1.0,
            low: 0.5,
        }
    }
}

impl Weights {
    /// The weight of a vote with this confidence.
    pub fn of(&self, confidence: Confidence) -> f64 {
        match confidence {
            Confidence::High => self.high,
            Confidence::Medium => self.medium,
            Confidence::Low => self.low,
        }
    }
}

impl VoteInput {
    /// The rules checked after reading: evaluator ids are unique (a schema
    /// cannot say it), and the candidate names of `quick_assessments` are
    /// not blank (the schema says it, but serde names no key in an error).
    pub fn check(&self) -> Result<(), Problem> {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (index, vote) in self.votes.iter().enumerate() {
            let path = format!("$.votes[{index}]");
            if let Some(earlier) = first.insert(&vote.evaluator_id, index) {
                return Err(Problem::at(
                    format!("{path}.evaluator_id"),
                    format!(
                        "duplicate evaluator id {:?} (first at $.votes[{earlier}])",
                        vote.evaluator_id
                    ),
                ));
            }
            if let Some(blank) = vote.quick_assessments.keys().find(|k| k.trim().is_empty()) {
                return Err(Problem::at(
                    child(&format!("{path}.quick_assessments"), blank),
                    "candidate name must not be empty",
                ));
            }
        }
        Ok(())
    }
}

/// `votes`: not empty (an agreement ratio over no votes is undefined).
fn votes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Vote>, D::Error> {
    let votes = Vec::<Vote>::deserialize(deserializer)?;
    if votes.is_empty() {
        return Err(D::Error::custom("must contain at least one vote"));
    }
    Ok(votes)
}

/// `elimination_threshold`: an integer of at least 1.
fn threshold<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    match crate::int::de(deserializer)? {
        0 => Err(D::Error::custom("must be at least 1, found 0")),
        n => Ok(n),
    }
}

/// An evaluator or a candidate: a string with a non-blank character.
fn name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.trim().is_empty() {
        return Err(D::Error::custom("must not be empty"));
    }
    Ok(text)
}

/// A confidence weight: a number from 0 to [`MAX_WEIGHT`].
fn weight<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let weight = f64::deserialize(deserializer)?;
    if !(0.0..=MAX_WEIGHT).contains(&weight) {
        return Err(D::Error::custom(format!(
            "must be between 0 and {MAX_WEIGHT}, found {weight}"
        )));
    }
    Ok(weight)
}

/// Aggregated elimination votes, written by `run-check vote`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check vote output")]
pub struct VoteResult {
    /// Who is eliminated and who survives.
    pub aggregated_result: AggregatedResult,
    /// Whether at least one candidate was eliminated.
    pub threshold_reached: bool,
    /// Every candidate's votes, by candidate.
    pub vote_distribution: BTreeMap<String, Distribution>,
    /// Agreement, consensus level and conflicts.
    pub consensus_analysis: ConsensusAnalysis,
    /// The reasons given, by candidate voted for.
    pub reasoning_summary: BTreeMap<String, Vec<String>>,
}

/// The eliminated candidates and the survivors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregatedResult {
    /// The eliminated candidates, sorted.
    pub eliminated_candidates: Vec<String>,
    /// The candidates not eliminated, sorted.
    pub survivors: Vec<String>,
}

/// One candidate's entry in `vote_distribution`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Distribution {
    /// The number of votes for the candidate.
    #[serde(deserialize_with = "crate::int::de")]
    pub raw_votes: u64,
    /// The sum of their weights, rounded to 6 decimal places.
    #[schemars(range(min = 0))]
    pub weighted_votes: f64,
    /// The evaluators who voted for the candidate, sorted.
    pub voters: Vec<String>,
}

/// How much the evaluators agree, and where they differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsensusAnalysis {
    /// The level of `agreement_ratio`.
    pub consensus_level: ConsensusLevel,
    /// Largest raw vote count for one candidate / number of votes.
    #[schemars(range(min = 0, max = 1))]
    pub agreement_ratio: f64,
    /// Candidates voted for by some evaluators but not all, sorted.
    pub conflicts: Vec<Conflict>,
}

/// How strongly the reviewers agree (docs/vote.md).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ConsensusLevel {
    /// Every vote for the same candidate (ratio 1).
    Unanimous,
    /// Ratio at least 0.8.
    Strong,
    /// Ratio at least 0.6.
    Moderate,
    /// Ratio at least 0.4.
    Weak,
    /// Ratio below 0.4.
    Split,
}

impl ConsensusLevel {
    /// The level of the ratio `agreeing / votes`, computed exactly.
    pub fn of(agreeing: u64, votes: u64) -> ConsensusLevel {
        let (agreeing, votes) = (u128::from(agreeing), u128::from(votes));
        if votes == 0 {
            ConsensusLevel::Split
        } else if agreeing >= votes {
            ConsensusLevel::Unanimous
        } else if 5 * agreeing >= 4 * votes {
            ConsensusLevel::Strong
        } else if 5 * agreeing >= 3 * votes {
            ConsensusLevel::Moderate
        } else if 5 * agreeing >= 2 * votes {
            ConsensusLevel::Weak
        } else {
            ConsensusLevel::Split
        }
    }
}

/// One entry of `conflicts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conflict {
    /// The candidate some evaluators voted for.
    pub candidate: String,
    /// The evaluators who voted for another candidate, sorted.
    pub conflicting_evaluators: Vec<String>,
    /// One line: who voted for the candidate and what the others voted.
    pub description: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::from_slice;

    #[test]
    fn an_input_reads_with_its_defaults_and_is_checked() {
        let text = r#"{"votes": [
            {"evaluator_id": "a", "elimination_decision": {"eliminated": "X", "confidence": "High"}},
            {"evaluator_id": "b", "elimination_decision": {"eliminated": "Y", "reason": "r", "confidence": "Low"},
             "quick_assessments": {"Z": {"any": [1]}}}
        ], "elimination_threshold": 2.0, "confidence_weights": {"Low": 0}}"#;
        let input: VoteInput = from_slice(text.as_bytes()).unwrap();
        assert_eq!(input.check(), Ok(()));
        assert_eq!(input.elimination_threshold, 2);
        assert_eq!(input.confidence_weights.of(Confidence::High), 1.5);
        assert_eq!(input.confidence_weights.of(Confidence::Low), 0.0);
        assert!(!input.require_unanimous);
        assert_eq!(input.votes[0].elimination_decision.reason, "");
        assert!(input.votes[0].quick_assessments.is_empty());
        assert_eq!(input.votes[1].quick_assessments.len(), 1);

        let twice = text.replace(r#""evaluator_id": "b""#, r#""evaluator_id": "a""#);
        let input: VoteInput = from_slice(twice.as_bytes()).unwrap();
        assert_eq!(
            input.check().unwrap_err().to_string(),
            "$.votes[1].evaluator_id: duplicate evaluator id \"a\" (first at $.votes[0])"
        );
        let blank = text.replace(r#""Z""#, r#""  ""#);
        let input: VoteInput = from_slice(blank.as_bytes()).unwrap();
        assert_eq!(
            input.check().unwrap_err().to_string(),
            "$.votes[1].quick_assessments[\"  \"]: candidate name must not be empty"
        );
        let none = r#"{"votes": [], "elimination_threshold": 1}"#;
        assert_eq!(
            from_slice::<VoteInput>(none.as_bytes())
                .unwrap_err()
                .to_string(),
            "$.votes: must contain at least one vote"
        );
    }
}
