use super::*;
use Confidence::{High, Low, Medium};
use run_check_documents::vote::{Confidence, Decision, Weights};

fn vote(id: &str, eliminated: &str, confidence: Confidence) -> Vote {
    Vote {
        evaluator_id: id.into(),
        elimination_decision: Decision {
            eliminated: eliminated.into(),
            reason: String::new(),
            confidence,
        },
        quick_assessments: BTreeMap::new(),
    }
}

/// `vote` assessed `candidates` (in quick_assessments).
fn assess(vote: &mut Vote, candidates: &[&str]) {
    vote.quick_assessments = candidates
        .iter()
        .map(|c| (c.to_string(), serde_json::Value::Null))
        .collect();
}

fn input(threshold: u64, votes: Vec<Vote>) -> VoteInput {
    VoteInput {
        votes,
        elimination_threshold: threshold,
        confidence_weights: Weights::default(),
        require_unanimous: false,
    }
}

/// Votes `e1`, `e2`, ... for the candidates in order, all Medium.
fn ballots(candidates: &[&str]) -> Vec<Vote> {
    candidates
        .iter()
        .enumerate()
        .map(|(i, c)| vote(&format!("e{}", i + 1), c, Medium))
        .collect()
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn consensus_levels_at_their_boundaries() {
    use ConsensusLevel::*;
    for (candidates, ratio, level) in [
        (&["A", "A", "A", "A", "A"][..], 1.0, Unanimous),
        (&["A"][..], 1.0, Unanimous),
        // 4 of 5 = 0.8 exactly.
        (&["A", "A", "A", "A", "B"][..], 0.8, Strong),
        // 3 of 5 = 0.6 exactly.
        (&["A", "A", "A", "B", "C"][..], 0.6, Moderate),
        // 2 of 5 = 0.4 exactly (A and B tie at 2).
        (&["A", "A", "B", "B", "C"][..], 0.4, Weak),
        // 1 of 3 < 0.4.
        (&["A", "B", "C"][..], 1.0 / 3.0, Split),
        // 3 of 4 = 0.75: just under strong.
        (&["A", "A", "A", "B"][..], 0.75, Moderate),
        // 1 of 2 = 0.5.
        (&["A", "B"][..], 0.5, Weak),
    ] {
        let result = aggregate(&input(100, ballots(candidates)));
        let analysis = &result.consensus_analysis;
        assert_eq!(analysis.agreement_ratio, ratio, "{candidates:?}");
        assert_eq!(analysis.consensus_level, level, "{candidates:?}");
    }
}

#[test]
fn consensus_levels_are_computed_exactly() {
    use ConsensusLevel::*;
    for (agreeing, votes, level) in [
        (10, 10, Unanimous),
        (9, 10, Strong),
        (8, 10, Strong),
        (79, 100, Moderate),
        (7, 9, Moderate),
        (6, 10, Moderate),
        (59, 100, Weak),
        (5, 9, Weak),
        (4, 10, Weak),
        (39, 100, Split),
        (3, 8, Split),
        (0, 10, Split),
        (0, 0, Split),
        (4_000_000_000_000_000_000, 5_000_000_000_000_000_000, Strong),
        (
            3_999_999_999_999_999_999,
            5_000_000_000_000_000_000,
            Moderate,
        ),
        (u64::MAX, u64::MAX, Unanimous),
    ] {
        assert_eq!(
            ConsensusLevel::of(agreeing, votes),
            level,
            "{agreeing}/{votes}"
        );
    }
    let names = [Unanimous, Strong, Moderate, Weak, Split]
        .map(|level| serde_json::to_value(level).expect("serialize"));
    assert_eq!(names, ["unanimous", "strong", "moderate", "weak", "split"]);
}

#[test]
fn elimination_at_exactly_the_threshold() {
    // High 1.5 + Low 0.5 = 2.0 reaches threshold 2.
    let result = aggregate(&input(2, vec![vote("e1", "A", High), vote("e2", "A", Low)]));
    assert_eq!(result.vote_distribution["A"].weighted_votes, 2.0);
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A"]);
    assert!(result.aggregated_result.survivors.is_empty());
    assert!(result.threshold_reached);
}

#[test]
fn no_elimination_just_below_the_threshold() {
    // Medium 1.0 + Low 0.5 = 1.5 < 2; three Lows = 1.5 < 2.
    for votes in [
        vec![vote("e1", "A", Medium), vote("e2", "A", Low)],
        vec![
            vote("e1", "A", Low),
            vote("e2", "A", Low),
            vote("e3", "A", Low),
        ],
    ] {
        let result = aggregate(&input(2, votes));
        assert_eq!(result.vote_distribution["A"].weighted_votes, 1.5);
        assert!(result.aggregated_result.eliminated_candidates.is_empty());
        assert_eq!(result.aggregated_result.survivors, ["A"]);
        assert!(!result.threshold_reached);
    }
    // Two raw votes are not two weighted votes: Low + Low = 1.0 < 2.
    let result = aggregate(&input(2, vec![vote("e1", "A", Low), vote("e2", "A", Low)]));
    assert_eq!(result.vote_distribution["A"].raw_votes, 2);
    assert_eq!(result.vote_distribution["A"].weighted_votes, 1.0);
    assert!(!result.threshold_reached);
}

#[test]
fn several_candidates_can_be_eliminated() {
    // Threshold 1: A (High 1.5) and B (Medium 1.0) go, C (Low 0.5) stays.
    let result = aggregate(&input(
        1,
        vec![
            vote("e1", "A", High),
            vote("e2", "B", Medium),
            vote("e3", "C", Low),
        ],
    ));
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A", "B"]);
    assert_eq!(result.aggregated_result.survivors, ["C"]);
    assert!(result.threshold_reached);
}

#[test]
fn weighted_votes_are_rounded_to_six_decimals() {
    // Ten votes of weight 0.1 sum to 0.9999999999999999 in floating point.
    let votes: Vec<Vote> = (0..10).map(|i| vote(&format!("e{i}"), "A", High)).collect();
    let mut exact = input(1, votes);
    exact.confidence_weights.high = 0.1;
    let result = aggregate(&exact);
    assert_eq!(result.vote_distribution["A"].weighted_votes, 1.0);
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A"]);

    let mut third = input(1, vec![vote("e1", "A", Low)]);
    third.confidence_weights.low = 1.0 / 3.0;
    assert_eq!(
        aggregate(&third).vote_distribution["A"].weighted_votes,
        0.333333
    );
    assert_eq!(round6(1e303), 1e303);
}

#[test]
fn custom_weights_apply() {
    let mut custom = input(3, vec![vote("e1", "A", High), vote("e2", "A", Low)]);
    custom.confidence_weights = Weights {
        high: 2.0,
        medium: 1.0,
        low: 1.0,
    };
    let result = aggregate(&custom);
    assert_eq!(result.vote_distribution["A"].weighted_votes, 3.0);
    assert!(result.threshold_reached);
    // A zero weight counts nothing (and is +0, never -0).
    custom.confidence_weights.low = 0.0;
    custom.votes = vec![vote("e1", "A", Low)];
    let result = aggregate(&custom);
    let weighted = result.vote_distribution["A"].weighted_votes;
    assert_eq!(weighted, 0.0);
    assert!(weighted.is_sign_positive());
}

#[test]
fn require_unanimous_off_and_on() {
    // A: e1 High + e2 High = 3.0 >= 2 but e3 voted B.
    let votes = vec![
        vote("e1", "A", High),
        vote("e2", "A", High),
        vote("e3", "B", Low),
    ];
    let mut majority = input(2, votes);
    let result = aggregate(&majority);
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A"]);
    assert_eq!(result.aggregated_result.survivors, ["B"]);
    assert!(result.threshold_reached);

    majority.require_unanimous = true;
    let result = aggregate(&majority);
    assert!(result.aggregated_result.eliminated_candidates.is_empty());
    assert_eq!(result.aggregated_result.survivors, ["A", "B"]);
    assert!(!result.threshold_reached);
    // The tallies do not change.
    assert_eq!(result.vote_distribution["A"].weighted_votes, 3.0);

    // Everyone voted A: eliminated with require_unanimous...
    let mut unanimous = input(
        2,
        vec![
            vote("e1", "A", Low),
            vote("e2", "A", Low),
            vote("e3", "A", Medium),
        ],
    );
    unanimous.require_unanimous = true;
    assess(&mut unanimous.votes[0], &["B"]);
    let result = aggregate(&unanimous);
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A"]);
    assert_eq!(result.aggregated_result.survivors, ["B"]);
    assert!(result.threshold_reached);

    // ... but unanimity alone is not enough: Low + Low = 1.0 < 2.
    unanimous.votes.pop();
    let result = aggregate(&unanimous);
    assert!(result.aggregated_result.eliminated_candidates.is_empty());
    assert!(!result.threshold_reached);
}

#[test]
fn quick_assessment_only_candidates_survive() {
    let mut votes = vec![vote("e1", "A", High), vote("e2", "A", High)];
    assess(&mut votes[0], &["A", "C", "B"]);
    assess(&mut votes[1], &["D", "C"]);
    let result = aggregate(&input(2, votes));
    assert_eq!(result.aggregated_result.eliminated_candidates, ["A"]);
    assert_eq!(result.aggregated_result.survivors, ["B", "C", "D"]);
    let keys: Vec<&String> = result.vote_distribution.keys().collect();
    assert_eq!(keys, ["A", "B", "C", "D"]);
    for candidate in ["B", "C", "D"] {
        assert_eq!(
            result.vote_distribution[candidate],
            Distribution {
                raw_votes: 0,
                weighted_votes: 0.0,
                voters: vec![],
            }
        );
    }
    // A candidate both assessed and voted for is counted once.
    assert_eq!(result.vote_distribution["A"].raw_votes, 2);
    // Unvoted candidates are neither conflicts nor in the reasons.
    assert_eq!(
        result.consensus_analysis.consensus_level,
        ConsensusLevel::Unanimous
    );
    assert!(result.consensus_analysis.conflicts.is_empty());
    let summarized: Vec<&String> = result.reasoning_summary.keys().collect();
    assert_eq!(summarized, ["A"]);
}

#[test]
fn conflicts_name_the_evaluators_who_voted_otherwise() {
    let votes = vec![
        vote("e4", "C", Low),
        vote("e2", "A", High),
        vote("e3", "B", Medium),
        vote("e1", "A", Medium),
    ];
    let result = aggregate(&input(5, votes));
    assert_eq!(
        result.consensus_analysis.conflicts,
        [
            Conflict {
                candidate: "A".into(),
                conflicting_evaluators: strings(&["e3", "e4"]),
                description: "2 of 4 evaluators voted to eliminate \"A\" (e1, e2); \
                                  e3 voted to eliminate \"B\"; e4 voted to eliminate \"C\""
                    .into(),
            },
            Conflict {
                candidate: "B".into(),
                conflicting_evaluators: strings(&["e1", "e2", "e4"]),
                description: "1 of 4 evaluators voted to eliminate \"B\" (e3); \
                                  e1, e2 voted to eliminate \"A\"; e4 voted to eliminate \"C\""
                    .into(),
            },
            Conflict {
                candidate: "C".into(),
                conflicting_evaluators: strings(&["e1", "e2", "e3"]),
                description: "1 of 4 evaluators voted to eliminate \"C\" (e4); \
                                  e1, e2 voted to eliminate \"A\"; e3 voted to eliminate \"B\""
                    .into(),
            },
        ]
    );
    assert_eq!(result.consensus_analysis.agreement_ratio, 0.5);
    assert_eq!(
        result.consensus_analysis.consensus_level,
        ConsensusLevel::Weak
    );
    assert_eq!(result.vote_distribution["A"].voters, ["e1", "e2"]);
    assert_eq!(result.vote_distribution["A"].weighted_votes, 2.5);
    assert!(!result.threshold_reached);
}

#[test]
fn unanimous_votes_have_no_conflicts() {
    let result = aggregate(&input(1, ballots(&["A", "A", "A"])));
    assert!(result.consensus_analysis.conflicts.is_empty());
    let result = aggregate(&input(1, ballots(&["A"])));
    assert!(result.consensus_analysis.conflicts.is_empty());
}

#[test]
fn the_reasoning_summary_traces_every_vote() {
    let mut votes = vec![
        vote("e3", "B", Medium),
        vote("e1", "B", High),
        vote("e2", "A", Low),
        vote("e4", "B", Low),
    ];
    votes[0].elimination_decision.reason = "  duplicates e1's finding ".into();
    votes[1].elimination_decision.reason = "fails the tests".into();
    votes[2].elimination_decision.reason = "   ".into();
    assess(&mut votes[0], &["C"]);
    let result = aggregate(&input(2, votes));
    assert_eq!(
        result.reasoning_summary,
        BTreeMap::from([
            ("A".to_string(), strings(&["e2 (Low): no reason given"])),
            (
                "B".to_string(),
                strings(&[
                    "e1 (High): fails the tests",
                    "e3 (Medium): duplicates e1's finding",
                    "e4 (Low): no reason given",
                ])
            ),
        ])
    );
    // B: 1.5 + 1.0 + 0.5 = 3.0 >= 2; 3 of 4 = 0.75.
    assert_eq!(result.aggregated_result.eliminated_candidates, ["B"]);
    assert_eq!(result.aggregated_result.survivors, ["A", "C"]);
    assert_eq!(result.consensus_analysis.agreement_ratio, 0.75);
    assert_eq!(
        result.consensus_analysis.consensus_level,
        ConsensusLevel::Moderate
    );
}

#[test]
fn the_result_does_not_depend_on_vote_order() {
    let mut votes = vec![
        vote("b", "X", High),
        vote("a", "Y", Low),
        vote("c", "X", Medium),
        vote("d", "Z", Medium),
    ];
    assess(&mut votes[1], &["W", "X"]);
    votes[1].elimination_decision.reason = "why".into();
    let forward = aggregate(&input(2, votes.clone()));
    votes.reverse();
    let backward = aggregate(&input(2, votes.clone()));
    votes.swap(0, 2);
    let shuffled = aggregate(&input(2, votes));
    let json = |r: &VoteResult| serde_json::to_string(r).expect("serialize");
    assert_eq!(json(&forward), json(&backward));
    assert_eq!(json(&forward), json(&shuffled));
}

#[test]
fn the_output_keeps_the_documented_field_names_and_order() {
    let mut votes = vec![vote("e1", "A", High), vote("e2", "B", Low)];
    votes[0].elimination_decision.reason = "r".into();
    let text = serde_json::to_string(&aggregate(&input(1, votes))).expect("serialize");
    assert_eq!(
        text,
        concat!(
            r#"{"aggregated_result":{"eliminated_candidates":["A"],"survivors":["B"]},"#,
            r#""threshold_reached":true,"#,
            r#""vote_distribution":{"#,
            r#""A":{"raw_votes":1,"weighted_votes":1.5,"voters":["e1"]},"#,
            r#""B":{"raw_votes":1,"weighted_votes":0.5,"voters":["e2"]}},"#,
            r#""consensus_analysis":{"consensus_level":"weak","agreement_ratio":0.5,"#,
            r#""conflicts":["#,
            r#"{"candidate":"A","conflicting_evaluators":["e2"],"#,
            r#""description":"1 of 2 evaluators voted to eliminate \"A\" (e1); e2 voted to eliminate \"B\""},"#,
            r#"{"candidate":"B","conflicting_evaluators":["e1"],"#,
            r#""description":"1 of 2 evaluators voted to eliminate \"B\" (e2); e1 voted to eliminate \"A\""}]},"#,
            r#""reasoning_summary":{"A":["e1 (High): r"],"B":["e2 (Low): no reason given"]}}"#,
        )
    );
}

#[test]
fn no_votes_do_not_panic() {
    // `parse` rejects an empty `votes`; `aggregate` still copes.
    let result = aggregate(&input(1, vec![]));
    assert_eq!(result.consensus_analysis.agreement_ratio, 0.0);
    assert_eq!(
        result.consensus_analysis.consensus_level,
        ConsensusLevel::Split
    );
    assert!(!result.threshold_reached);
    assert!(result.vote_distribution.is_empty());
}
