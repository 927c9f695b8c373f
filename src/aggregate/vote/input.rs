//! The vote input (docs/vote.md) and its strict validation.
//!
//! The first problem found is an error; objects are checked in the order of
//! the contract: for each object, unknown fields first (the first in
//! byte order), then its fields in contract order — `votes` (each vote in
//! array order: `evaluator_id`, `elimination_decision` with `eliminated`,
//! `reason`, `confidence`, then `quick_assessments`), `elimination_threshold`,
//! `confidence_weights`, `require_unanimous`.
//!
//! Policies (see README):
//!
//! - "Strict" means closed objects: an unknown field anywhere (top level, a
//!   vote, an `elimination_decision`, `confidence_weights`) is an error, so a
//!   typo such as `require_unanimus` cannot silently fall back to a default.
//!   `quick_assessments` is the exception: its keys are candidate names and
//!   its values are free-form (not interpreted).
//! - `votes` must hold at least one vote (an agreement ratio over no votes is
//!   undefined).
//! - Besides the vote contract's required fields, `elimination_decision.eliminated`
//!   and `elimination_decision.confidence` are required: a vote without a
//!   candidate is no vote, and the reference gives no default confidence.
//!   `reason` is optional.
//! - `evaluator_id`, `eliminated` and the keys of `quick_assessments` must
//!   not be blank; names are otherwise compared exactly (case and spaces
//!   matter). Evaluator ids are unique.
//! - `elimination_threshold` is a JSON Schema integer (a number without a
//!   fractional part: `2` and `2.0` are both 2) of at least 1.
//! - `confidence_weights` may give any of `High`, `Medium`, `Low`; the others
//!   keep their defaults (1.5, 1.0, 0.5). A weight is a number from 0 to
//!   [`MAX_WEIGHT`].
//! - `null` is never accepted in place of a value.
//! - A UTF-8 byte order mark is skipped; a UTF-16 file is an error asking for
//!   UTF-8.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::json_input::{
    Access, Problem, array, boolean, child, closed, field, found, mismatch, number, object, string,
};

/// The largest accepted confidence weight (keeps every sum finite).
pub(crate) const MAX_WEIGHT: f64 = 1_000_000.0;

/// The top-level fields of the input, in contract order.
pub(crate) const INPUT_FIELDS: [&str; 4] = [
    "votes",
    "elimination_threshold",
    "confidence_weights",
    "require_unanimous",
];
/// The fields of a vote, in contract order.
pub(crate) const VOTE_FIELDS: [&str; 3] =
    ["evaluator_id", "elimination_decision", "quick_assessments"];
/// The fields of an `elimination_decision`, in contract order.
pub(crate) const DECISION_FIELDS: [&str; 3] = ["eliminated", "reason", "confidence"];

/// A reviewer's confidence in its vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub(crate) enum Confidence {
    /// `High` (default weight 1.5).
    High,
    /// `Medium` (default weight 1.0).
    Medium,
    /// `Low` (default weight 0.5).
    Low,
}

impl Confidence {
    /// Every confidence, in contract order.
    pub(crate) const ALL: [Confidence; 3] = [Confidence::High, Confidence::Medium, Confidence::Low];

    /// The name used in the JSON (`High`, `Medium`, `Low`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Confidence::High => "High",
            Confidence::Medium => "Medium",
            Confidence::Low => "Low",
        }
    }

    /// The confidence named exactly `name` (case matters).
    pub(crate) fn from_name(name: &str) -> Option<Confidence> {
        Confidence::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The weight of a vote per confidence (`confidence_weights`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Weights {
    /// Weight of a `High` vote.
    pub(crate) high: f64,
    /// Weight of a `Medium` vote.
    pub(crate) medium: f64,
    /// Weight of a `Low` vote.
    pub(crate) low: f64,
}

impl Default for Weights {
    /// The reference's defaults: High 1.5, Medium 1.0, Low 0.5.
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
    pub(crate) fn of(&self, confidence: Confidence) -> f64 {
        match confidence {
            Confidence::High => self.high,
            Confidence::Medium => self.medium,
            Confidence::Low => self.low,
        }
    }

    fn set(&mut self, confidence: Confidence, weight: f64) {
        match confidence {
            Confidence::High => self.high = weight,
            Confidence::Medium => self.medium = weight,
            Confidence::Low => self.low = weight,
        }
    }
}

/// One evaluator's vote.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Vote {
    /// `evaluator_id`: unique among the votes, not blank.
    pub(crate) evaluator_id: String,
    /// `elimination_decision.eliminated`: the candidate voted out, not blank.
    pub(crate) eliminated: String,
    /// `elimination_decision.reason`, when given.
    pub(crate) reason: Option<String>,
    /// `elimination_decision.confidence`.
    pub(crate) confidence: Confidence,
    /// The keys of `quick_assessments`: candidates this evaluator assessed.
    pub(crate) assessed: BTreeSet<String>,
}

/// A validated vote input.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Input {
    /// The votes, in input order (at least one).
    pub(crate) votes: Vec<Vote>,
    /// `elimination_threshold`: the weighted votes that eliminate (≥ 1, integral).
    pub(crate) elimination_threshold: f64,
    /// `confidence_weights`, defaults filled in.
    pub(crate) confidence_weights: Weights,
    /// `require_unanimous` (default false).
    pub(crate) require_unanimous: bool,
}

/// Parses and validates the vote input `bytes`; `name` only names the file in
/// messages (`<stdin>` for standard input).
pub(crate) fn parse(name: &Path, bytes: &[u8]) -> Result<Input, Error> {
    let value = crate::json_input::parse_document(name, bytes)?;
    from_value(&value).map_err(|problem| problem.into_error(name, ""))
}

/// Validates a parsed input document; the [`Problem`] is the first found,
/// at a JSON path such as `$.votes[0].evaluator_id`.
pub(crate) fn from_value(value: &Value) -> Access<Input> {
    let top = object(value, "$")?;
    closed(top, "$", &INPUT_FIELDS)?;

    let items = array(field(top, "$", "votes")?, "$.votes")?;
    if items.is_empty() {
        return Err(Problem::new("$.votes", "must contain at least one vote"));
    }
    let mut first_index: HashMap<String, usize> = HashMap::new();
    let mut parsed = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let path = format!("$.votes[{index}]");
        let vote = parse_vote(item, &path)?;
        if let Some(first) = first_index.get(vote.evaluator_id.as_str()) {
            return Err(Problem::new(
                format!("{path}.evaluator_id"),
                format!(
                    "duplicate evaluator id {:?} (first at $.votes[{first}])",
                    vote.evaluator_id
                ),
            ));
        }
        first_index.insert(vote.evaluator_id.clone(), index);
        parsed.push(vote);
    }

    let threshold = threshold(field(top, "$", "elimination_threshold")?)?;

    let mut weights = Weights::default();
    if let Some(value) = top.get("confidence_weights") {
        let path = "$.confidence_weights";
        let given = object(value, path)?;
        let mut names: Vec<&String> = given.keys().collect();
        names.sort();
        if let Some(unknown) = names.iter().find(|n| Confidence::from_name(n).is_none()) {
            return Err(Problem::new(
                child(path, unknown),
                format!("unknown confidence {unknown:?} (expected High, Medium or Low)"),
            ));
        }
        for confidence in Confidence::ALL {
            if let Some(value) = given.get(confidence.name()) {
                let path = child(path, confidence.name());
                weights.set(confidence, weight(value, &path)?);
            }
        }
    }

    let require_unanimous = match top.get("require_unanimous") {
        None => false,
        Some(value) => boolean(value, "$.require_unanimous")?,
    };

    Ok(Input {
        votes: parsed,
        elimination_threshold: threshold,
        confidence_weights: weights,
        require_unanimous,
    })
}

fn parse_vote(item: &Value, path: &str) -> Access<Vote> {
    let vote = object(item, path)?;
    closed(vote, path, &VOTE_FIELDS)?;
    let evaluator_id = name(
        field(vote, path, "evaluator_id")?,
        &child(path, "evaluator_id"),
    )?;

    let decision_path = child(path, "elimination_decision");
    let decision = object(field(vote, path, "elimination_decision")?, &decision_path)?;
    closed(decision, &decision_path, &DECISION_FIELDS)?;
    let eliminated = name(
        field(decision, &decision_path, "eliminated")?,
        &child(&decision_path, "eliminated"),
    )?;
    let reason = match decision.get("reason") {
        None => None,
        Some(value) => Some(string(value, &child(&decision_path, "reason"))?.to_string()),
    };
    let confidence_path = child(&decision_path, "confidence");
    let confidence = string(
        field(decision, &decision_path, "confidence")?,
        &confidence_path,
    )?;
    let confidence = Confidence::from_name(confidence).ok_or_else(|| {
        Problem::new(
            &confidence_path,
            format!("unknown confidence {confidence:?} (expected High, Medium or Low)"),
        )
    })?;

    let mut assessed = BTreeSet::new();
    if let Some(value) = vote.get("quick_assessments") {
        let qa_path = child(path, "quick_assessments");
        let candidates = object(value, &qa_path)?;
        let mut keys: Vec<&String> = candidates.keys().collect();
        keys.sort();
        for key in keys {
            if key.trim().is_empty() {
                return Err(Problem::new(
                    child(&qa_path, key),
                    "candidate name must not be empty",
                ));
            }
            assessed.insert(key.clone());
        }
    }

    Ok(Vote {
        evaluator_id: evaluator_id.to_string(),
        eliminated: eliminated.to_string(),
        reason,
        confidence,
        assessed,
    })
}

/// `elimination_threshold`: an integral number, at least 1.
fn threshold(value: &Value) -> Access<f64> {
    let path = "$.elimination_threshold";
    // The integer rule of every input (`run_check_documents::int`).
    let Some(whole) = value
        .as_number()
        .and_then(run_check_documents::int::of_number)
    else {
        return Err(mismatch(path, "an integer", found(value)));
    };
    let threshold = whole as f64;
    if threshold < 1.0 {
        return Err(Problem::new(
            path,
            format!("must be at least 1, found {value}"),
        ));
    }
    Ok(threshold)
}

/// A confidence weight: a number from 0 to [`MAX_WEIGHT`].
fn weight(value: &Value, path: &str) -> Access<f64> {
    let weight = number(value, path)?;
    if !(0.0..=MAX_WEIGHT).contains(&weight) {
        return Err(Problem::new(
            path,
            format!("must be between 0 and {MAX_WEIGHT}, found {value}"),
        ));
    }
    Ok(weight)
}

/// A non-blank string (an evaluator id or a candidate name).
fn name<'a>(value: &'a Value, path: &str) -> Access<&'a str> {
    let text = string(value, path)?;
    if text.trim().is_empty() {
        return Err(Problem::new(path, "must not be empty"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Three valid votes; `e3` assesses candidates A, B and C.
    fn valid() -> Value {
        json!({
            "votes": [
                {
                    "evaluator_id": "e1",
                    "elimination_decision": {"eliminated": "B", "reason": "slow", "confidence": "High"}
                },
                {
                    "evaluator_id": "e2",
                    "elimination_decision": {"eliminated": "B", "confidence": "Low"}
                },
                {
                    "evaluator_id": "e3",
                    "elimination_decision": {"eliminated": "A", "reason": "r", "confidence": "Medium"},
                    "quick_assessments": {"A": "weak", "B": 3, "C": {"ok": true}}
                }
            ],
            "elimination_threshold": 2
        })
    }

    /// `value` with the member at JSON `pointer` replaced (`Some`) or removed
    /// (`None`); parents must exist.
    fn with(mut value: Value, pointer: &str, new: Option<Value>) -> Value {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer");
        let parent = value.pointer_mut(parent).expect("parent exists");
        match (parent, new) {
            (Value::Object(map), Some(new)) => {
                map.insert(key.to_string(), new);
            }
            (Value::Object(map), None) => {
                map.remove(key);
            }
            (Value::Array(items), Some(new)) => {
                let index: usize = key.parse().expect("index");
                if index == items.len() {
                    items.push(new);
                } else {
                    items[index] = new;
                }
            }
            (Value::Array(items), None) => {
                items.remove(key.parse::<usize>().expect("index"));
            }
            _ => panic!("parent of {pointer} is not a container"),
        }
        value
    }

    fn parse_value(value: &Value) -> Result<Input, Error> {
        parse(Path::new("in.json"), value.to_string().as_bytes())
    }

    /// The one-line message for an invalid input.
    #[track_caller]
    fn error(value: &Value) -> String {
        let err = parse_value(value).expect_err("input should be rejected");
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(!message.contains('\n'), "one line: {message}");
        message
    }

    #[track_caller]
    fn rejects(pointer: &str, new: Option<Value>, expected: &str) {
        assert_eq!(error(&with(valid(), pointer, new)), expected, "{pointer}");
    }

    #[test]
    fn a_valid_input_is_parsed_with_defaults() {
        let input = parse_value(&valid()).expect("valid");
        assert_eq!(input.elimination_threshold, 2.0);
        assert_eq!(input.confidence_weights, Weights::default());
        assert_eq!(
            (
                input.confidence_weights.high,
                input.confidence_weights.medium,
                input.confidence_weights.low
            ),
            (1.5, 1.0, 0.5)
        );
        assert!(!input.require_unanimous);
        assert_eq!(input.votes.len(), 3);
        assert_eq!(
            input.votes[0],
            Vote {
                evaluator_id: "e1".into(),
                eliminated: "B".into(),
                reason: Some("slow".into()),
                confidence: Confidence::High,
                assessed: BTreeSet::new(),
            }
        );
        assert_eq!(input.votes[1].reason, None);
        assert_eq!(input.votes[1].confidence, Confidence::Low);
        assert_eq!(
            input.votes[2].assessed,
            ["A", "B", "C"].map(String::from).into()
        );
    }

    #[test]
    fn partial_confidence_weights_keep_the_other_defaults() {
        let value = with(
            valid(),
            "/confidence_weights",
            Some(json!({"Low": 0, "High": 2.25})),
        );
        let value = with(value, "/require_unanimous", Some(json!(true)));
        let input = parse_value(&value).expect("valid");
        assert_eq!(
            input.confidence_weights,
            Weights {
                high: 2.25,
                medium: 1.0,
                low: 0.0
            }
        );
        assert!(input.require_unanimous);
        let all = with(
            valid(),
            "/confidence_weights",
            Some(json!({"High": 3, "Medium": 2, "Low": 1000000})),
        );
        assert_eq!(
            parse_value(&all).expect("valid").confidence_weights,
            Weights {
                high: 3.0,
                medium: 2.0,
                low: 1_000_000.0
            }
        );
        let empty = with(valid(), "/confidence_weights", Some(json!({})));
        assert_eq!(
            parse_value(&empty).expect("valid").confidence_weights,
            Weights::default()
        );
    }

    #[test]
    fn an_integral_threshold_may_be_written_as_a_float() {
        for (threshold, expected) in [
            (json!(1), 1.0),
            (json!(2.0), 2.0),
            (json!(1e3), 1000.0),
            (json!(u64::MAX), u64::MAX as f64),
        ] {
            let value = with(valid(), "/elimination_threshold", Some(threshold));
            assert_eq!(
                parse_value(&value).expect("valid").elimination_threshold,
                expected
            );
        }
    }

    #[test]
    fn the_top_level_must_be_a_closed_object() {
        assert_eq!(
            error(&json!([])),
            "in.json: $: expected an object, found array"
        );
        assert_eq!(
            error(&json!(null)),
            "in.json: $: expected an object, found null"
        );
        rejects(
            "/require_unanimus",
            Some(json!(true)),
            "in.json: $.require_unanimus: unknown field \
             (expected votes, elimination_threshold, confidence_weights or require_unanimous)",
        );
        rejects(
            "/my field",
            Some(json!(1)),
            "in.json: $[\"my field\"]: unknown field \
             (expected votes, elimination_threshold, confidence_weights or require_unanimous)",
        );
        // Unknown fields come first (a misspelt required field is named as
        // such), the first in byte order.
        let value = with(valid(), "/elimination_threshold", None);
        let value = with(value, "/elimination_treshold", Some(json!(2)));
        let value = with(value, "/zzz", Some(json!(2)));
        assert_eq!(
            error(&value),
            "in.json: $.elimination_treshold: unknown field \
             (expected votes, elimination_threshold, confidence_weights or require_unanimous)"
        );
    }

    #[test]
    fn votes_must_be_a_non_empty_array() {
        rejects("/votes", None, "in.json: $.votes: missing required field");
        rejects(
            "/votes",
            Some(json!({})),
            "in.json: $.votes: expected an array, found object",
        );
        rejects(
            "/votes",
            Some(json!(null)),
            "in.json: $.votes: expected an array, found null",
        );
        rejects(
            "/votes",
            Some(json!([])),
            "in.json: $.votes: must contain at least one vote",
        );
        rejects(
            "/votes/1",
            Some(json!("e2")),
            "in.json: $.votes[1]: expected an object, found string",
        );
    }

    #[test]
    fn every_vote_is_checked() {
        let vote_fields = "(expected evaluator_id, elimination_decision or quick_assessments)";
        let decision_fields = "(expected eliminated, reason or confidence)";
        for (pointer, new, expected) in [
            (
                "/votes/0/score",
                Some(json!(9)),
                format!("in.json: $.votes[0].score: unknown field {vote_fields}"),
            ),
            (
                "/votes/1/evaluator_id",
                None,
                "in.json: $.votes[1].evaluator_id: missing required field".into(),
            ),
            (
                "/votes/1/evaluator_id",
                Some(json!(2)),
                "in.json: $.votes[1].evaluator_id: expected a string, found number 2".into(),
            ),
            (
                "/votes/1/evaluator_id",
                Some(json!(" ")),
                "in.json: $.votes[1].evaluator_id: must not be empty".into(),
            ),
            (
                "/votes/2/evaluator_id",
                Some(json!("e1")),
                "in.json: $.votes[2].evaluator_id: duplicate evaluator id \"e1\" \
                 (first at $.votes[0])"
                    .into(),
            ),
            (
                "/votes/0/elimination_decision",
                None,
                "in.json: $.votes[0].elimination_decision: missing required field".into(),
            ),
            (
                "/votes/0/elimination_decision",
                Some(json!(null)),
                "in.json: $.votes[0].elimination_decision: expected an object, found null".into(),
            ),
            (
                "/votes/0/elimination_decision/candidate",
                Some(json!("A")),
                format!(
                    "in.json: $.votes[0].elimination_decision.candidate: unknown field \
                     {decision_fields}"
                ),
            ),
            (
                "/votes/0/elimination_decision/eliminated",
                None,
                "in.json: $.votes[0].elimination_decision.eliminated: missing required field"
                    .into(),
            ),
            (
                "/votes/0/elimination_decision/eliminated",
                Some(json!(["A"])),
                "in.json: $.votes[0].elimination_decision.eliminated: \
                 expected a string, found array"
                    .into(),
            ),
            (
                "/votes/0/elimination_decision/eliminated",
                Some(json!("")),
                "in.json: $.votes[0].elimination_decision.eliminated: must not be empty".into(),
            ),
            (
                "/votes/0/elimination_decision/reason",
                Some(json!(null)),
                "in.json: $.votes[0].elimination_decision.reason: expected a string, found null"
                    .into(),
            ),
            (
                "/votes/0/elimination_decision/confidence",
                None,
                "in.json: $.votes[0].elimination_decision.confidence: missing required field"
                    .into(),
            ),
            (
                "/votes/0/elimination_decision/confidence",
                Some(json!(1.5)),
                "in.json: $.votes[0].elimination_decision.confidence: \
                 expected a string, found number 1.5"
                    .into(),
            ),
            (
                "/votes/2/elimination_decision/confidence",
                Some(json!("Certain")),
                "in.json: $.votes[2].elimination_decision.confidence: \
                 unknown confidence \"Certain\" (expected High, Medium or Low)"
                    .into(),
            ),
            (
                "/votes/2/elimination_decision/confidence",
                Some(json!("high")),
                "in.json: $.votes[2].elimination_decision.confidence: \
                 unknown confidence \"high\" (expected High, Medium or Low)"
                    .into(),
            ),
            (
                "/votes/2/quick_assessments",
                Some(json!(["A"])),
                "in.json: $.votes[2].quick_assessments: expected an object, found array".into(),
            ),
            (
                "/votes/2/quick_assessments/ ",
                Some(json!("?")),
                "in.json: $.votes[2].quick_assessments[\" \"]: \
                 candidate name must not be empty"
                    .into(),
            ),
        ] {
            rejects(pointer, new, &expected);
        }
    }

    #[test]
    fn the_first_problem_in_contract_order_is_reported() {
        // votes[0] before votes[1], evaluator_id before elimination_decision,
        // votes before elimination_threshold.
        let value = with(valid(), "/votes/1/evaluator_id", None);
        let value = with(value, "/votes/0/elimination_decision/confidence", None);
        let value = with(value, "/elimination_threshold", Some(json!(0)));
        assert_eq!(
            error(&value),
            "in.json: $.votes[0].elimination_decision.confidence: missing required field"
        );
        let value = with(valid(), "/votes/0/evaluator_id", Some(json!(1)));
        let value = with(value, "/votes/0/elimination_decision", None);
        assert_eq!(
            error(&value),
            "in.json: $.votes[0].evaluator_id: expected a string, found number 1"
        );
        let value = with(valid(), "/elimination_threshold", Some(json!(0)));
        let value = with(value, "/require_unanimous", Some(json!(1)));
        assert_eq!(
            error(&value),
            "in.json: $.elimination_threshold: must be at least 1, found 0"
        );
    }

    #[test]
    fn the_threshold_is_an_integer_of_at_least_one() {
        for (threshold, message) in [
            (None, "missing required field"),
            (Some(json!("2")), "expected an integer, found string"),
            (Some(json!(null)), "expected an integer, found null"),
            (Some(json!(true)), "expected an integer, found boolean"),
            (Some(json!(2.5)), "expected an integer, found number 2.5"),
            (Some(json!(0)), "must be at least 1, found 0"),
            (Some(json!(0.0)), "must be at least 1, found 0.0"),
            (Some(json!(-3)), "must be at least 1, found -3"),
        ] {
            rejects(
                "/elimination_threshold",
                threshold,
                &format!("in.json: $.elimination_threshold: {message}"),
            );
        }
    }

    #[test]
    fn confidence_weights_are_checked() {
        for (weights, expected) in [
            (
                json!([1.5]),
                "$.confidence_weights: expected an object, found array",
            ),
            (
                json!({"High": 1, "Certain": 2}),
                "$.confidence_weights.Certain: unknown confidence \"Certain\" \
                 (expected High, Medium or Low)",
            ),
            (
                json!({"low": 1}),
                "$.confidence_weights.low: unknown confidence \"low\" \
                 (expected High, Medium or Low)",
            ),
            (
                json!({"High": "1.5"}),
                "$.confidence_weights.High: expected a number, found string",
            ),
            (
                json!({"Medium": null}),
                "$.confidence_weights.Medium: expected a number, found null",
            ),
            (
                json!({"Low": -0.5}),
                "$.confidence_weights.Low: must be between 0 and 1000000, found -0.5",
            ),
            (
                json!({"High": 1000001}),
                "$.confidence_weights.High: must be between 0 and 1000000, found 1000001",
            ),
        ] {
            rejects(
                "/confidence_weights",
                Some(weights),
                &format!("in.json: {expected}"),
            );
        }
    }

    #[test]
    fn require_unanimous_is_a_boolean() {
        rejects(
            "/require_unanimous",
            Some(json!("yes")),
            "in.json: $.require_unanimous: expected a boolean, found string",
        );
        rejects(
            "/require_unanimous",
            Some(json!(null)),
            "in.json: $.require_unanimous: expected a boolean, found null",
        );
    }

    #[test]
    fn malformed_files_are_one_line_errors() {
        let message = |bytes: &[u8]| {
            let err = parse(Path::new("in.json"), bytes).expect_err("rejected");
            assert_eq!(err.exit_code(), 2);
            err.to_string()
        };
        assert_eq!(
            message(b"{\"votes\": [\n  1\n"),
            "in.json:3:1: invalid JSON: EOF while parsing a list"
        );
        assert_eq!(
            message(b""),
            "in.json:1:1: invalid JSON: EOF while parsing a value"
        );
        assert_eq!(
            message(b"{} {}"),
            "in.json:1:4: invalid JSON: trailing characters"
        );
        assert_eq!(
            message(b"\xFF\xFE{\x00}\x00"),
            "in.json: the file is UTF-16 encoded; save it as UTF-8"
        );
        // A UTF-8 byte order mark is skipped.
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(valid().to_string().bytes());
        assert!(parse(Path::new("in.json"), &bytes).is_ok());
    }

    #[test]
    fn stdin_is_named_in_messages() {
        let err = parse(Path::new("<stdin>"), b"{\"votes\": []}").expect_err("rejected");
        assert_eq!(
            err.to_string(),
            "<stdin>: $.votes: must contain at least one vote"
        );
    }

    #[test]
    fn lists_read_naturally() {}

    #[test]
    fn confidences_round_trip_by_name() {
        for confidence in Confidence::ALL {
            assert_eq!(Confidence::from_name(confidence.name()), Some(confidence));
            assert_eq!(confidence.to_string(), confidence.name());
        }
        assert_eq!(Confidence::from_name("Certain"), None);
        let weights = Weights::default();
        assert_eq!(Confidence::ALL.map(|c| weights.of(c)), [1.5, 1.0, 0.5]);
    }
}
