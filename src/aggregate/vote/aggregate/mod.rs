//! The aggregation of validated votes into the vote output (docs/vote.md).
//!
//! The rules are docs/vote.md's. Names are sorted by byte order everywhere
//! (candidates, voters, conflicting evaluators), so the output does not
//! depend on the order of the votes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use run_check_documents::vote::{
    AggregatedResult, Conflict, ConsensusAnalysis, ConsensusLevel, Distribution, Vote, VoteInput,
    VoteResult,
};

/// Rounds to 6 decimal places (values too large to scale are kept).
fn round6(value: f64) -> f64 {
    let scaled = (value * 1e6).round();
    if scaled.is_finite() {
        scaled / 1e6
    } else {
        value
    }
}

/// Aggregates the votes of `input`.
pub(crate) fn aggregate(input: &VoteInput) -> VoteResult {
    let total = input.votes.len() as u64;

    // Candidate -> its votes, sorted by evaluator id.
    let mut tallies: BTreeMap<&str, Vec<&Vote>> = BTreeMap::new();
    for vote in &input.votes {
        let decision = &vote.elimination_decision;
        tallies.entry(&decision.eliminated).or_default().push(vote);
        for candidate in vote.quick_assessments.keys() {
            tallies.entry(candidate).or_default();
        }
    }
    for votes in tallies.values_mut() {
        votes.sort_by(|a, b| a.evaluator_id.cmp(&b.evaluator_id));
    }

    let mut eliminated_candidates = Vec::new();
    let mut survivors = Vec::new();
    let mut vote_distribution = BTreeMap::new();
    for (&candidate, votes) in &tallies {
        let raw_votes = votes.len() as u64;
        // A fold from +0.0: an empty `sum()` of floats is -0.0.
        let weighted_votes = round6(votes.iter().fold(0.0, |sum, v| {
            sum + input
                .confidence_weights
                .of(v.elimination_decision.confidence)
        }));
        let eliminated = weighted_votes >= input.elimination_threshold as f64
            && (!input.require_unanimous || raw_votes == total);
        if eliminated {
            eliminated_candidates.push(candidate.to_string());
        } else {
            survivors.push(candidate.to_string());
        }
        vote_distribution.insert(
            candidate.to_string(),
            Distribution {
                raw_votes,
                weighted_votes,
                voters: votes.iter().map(|v| v.evaluator_id.clone()).collect(),
            },
        );
    }

    let largest = tallies.values().map(|v| v.len() as u64).max().unwrap_or(0);
    let agreement_ratio = if total == 0 {
        0.0
    } else {
        largest as f64 / total as f64
    };

    let conflicts = tallies
        .iter()
        .filter(|(_, votes)| !votes.is_empty() && (votes.len() as u64) < total)
        .map(|(&candidate, votes)| conflict(input, candidate, votes))
        .collect();

    let reasoning_summary = tallies
        .iter()
        .filter(|(_, votes)| !votes.is_empty())
        .map(|(&candidate, votes)| {
            let reasons = votes
                .iter()
                .map(|v| {
                    let decision = &v.elimination_decision;
                    let reason = match decision.reason.trim() {
                        "" => "no reason given",
                        reason => reason,
                    };
                    // The confidence's variant name is its JSON name.
                    let confidence = decision.confidence;
                    format!("{} ({confidence:?}): {reason}", v.evaluator_id)
                })
                .collect();
            (candidate.to_string(), reasons)
        })
        .collect();

    VoteResult {
        threshold_reached: !eliminated_candidates.is_empty(),
        aggregated_result: AggregatedResult {
            eliminated_candidates,
            survivors,
        },
        vote_distribution,
        consensus_analysis: ConsensusAnalysis {
            consensus_level: ConsensusLevel::of(largest, total),
            agreement_ratio,
            conflicts,
        },
        reasoning_summary,
    }
}

/// The conflict over `candidate`, voted for by `votes` (not every evaluator).
fn conflict(input: &VoteInput, candidate: &str, votes: &[&Vote]) -> Conflict {
    // The other evaluators, grouped by the candidate they voted for.
    let mut others: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for vote in &input.votes {
        let eliminated = &vote.elimination_decision.eliminated;
        if eliminated != candidate {
            others
                .entry(eliminated)
                .or_default()
                .push(&vote.evaluator_id);
        }
    }
    let mut conflicting_evaluators: Vec<String> = others
        .values()
        .flatten()
        .map(|id| (*id).to_string())
        .collect();
    conflicting_evaluators.sort();

    let voters: Vec<&str> = votes.iter().map(|v| v.evaluator_id.as_str()).collect();
    let mut description = format!(
        "{} of {} evaluators voted to eliminate {candidate:?} ({})",
        votes.len(),
        input.votes.len(),
        voters.join(", ")
    );
    for (other, ids) in &mut others {
        ids.sort_unstable();
        let _ = write!(
            description,
            "; {} voted to eliminate {other:?}",
            ids.join(", ")
        );
    }
    Conflict {
        candidate: candidate.to_string(),
        conflicting_evaluators,
        description,
    }
}

#[cfg(test)]
mod tests;
