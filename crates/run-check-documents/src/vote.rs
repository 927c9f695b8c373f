//! The output of `run-check vote`: eliminated candidates and survivors,
//! the vote distribution, the consensus analysis and the reasons given.
//! Field order here is the order in the JSON; every object is closed and
//! every field required.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// `aggregated_result`.
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

/// `consensus_analysis`.
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
    /// Every level, from most to least agreement.
    pub const ALL: [ConsensusLevel; 5] = [
        ConsensusLevel::Unanimous,
        ConsensusLevel::Strong,
        ConsensusLevel::Moderate,
        ConsensusLevel::Weak,
        ConsensusLevel::Split,
    ];

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

    /// The name used in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            ConsensusLevel::Unanimous => "unanimous",
            ConsensusLevel::Strong => "strong",
            ConsensusLevel::Moderate => "moderate",
            ConsensusLevel::Weak => "weak",
            ConsensusLevel::Split => "split",
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
