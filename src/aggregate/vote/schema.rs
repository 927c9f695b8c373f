//! The vote input and output as JSON Schema (draft 2020-12). The
//! output's is derived from its type (`run-check-documents`); the input's is
//! written here, with the field names and shapes of the reference and the
//! policies of [`super::input`] made explicit (closed objects, required
//! fields, bounds). One rule cannot be said in JSON Schema: evaluator ids
//! must be unique; `run-check vote` checks it.

use serde_json::{Value, json};

use super::input::MAX_WEIGHT;
use crate::tooling::schema::DIALECT;

/// A string with a non-whitespace character.
const NON_BLANK: &str = "\\S";

/// The schema of `run-check vote`'s input (`run-check schema vote-input`).
pub(crate) fn input_schema() -> Value {
    let weight = |default: f64| {
        json!({
            "type": "number",
            "minimum": 0,
            "maximum": MAX_WEIGHT,
            "default": default,
        })
    };
    json!({
        "$schema": DIALECT,
        "title": "run-check vote input",
        "description": "Reviewers' elimination votes (docs/vote.md). Evaluator ids must be unique (checked by run-check vote; not expressible here).",
        "type": "object",
        "required": ["votes", "elimination_threshold"],
        "additionalProperties": false,
        "properties": {
            "votes": {
                "type": "array",
                "minItems": 1,
                "description": "One vote per evaluator.",
                "items": {
                    "type": "object",
                    "required": ["evaluator_id", "elimination_decision"],
                    "additionalProperties": false,
                    "properties": {
                        "evaluator_id": {
                            "type": "string",
                            "pattern": NON_BLANK,
                            "description": "Unique among the votes."
                        },
                        "elimination_decision": {
                            "type": "object",
                            "required": ["eliminated", "confidence"],
                            "additionalProperties": false,
                            "properties": {
                                "eliminated": {
                                    "type": "string",
                                    "pattern": NON_BLANK,
                                    "description": "The candidate voted out."
                                },
                                "reason": { "type": "string" },
                                "confidence": {
                                    "type": "string",
                                    "enum": ["High", "Medium", "Low"]
                                }
                            }
                        },
                        "quick_assessments": {
                            "type": "object",
                            "propertyNames": { "pattern": NON_BLANK },
                            "description": "Keys are candidates; values are not interpreted."
                        }
                    }
                }
            },
            "elimination_threshold": {
                "type": "integer",
                "minimum": 1,
                "description": "The weighted votes that eliminate a candidate."
            },
            "confidence_weights": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "High": weight(1.5),
                    "Medium": weight(1.0),
                    "Low": weight(0.5)
                }
            },
            "require_unanimous": {
                "type": "boolean",
                "default": false,
                "description": "Eliminate only a candidate every evaluator voted for."
            }
        }
    })
}

/// The schema of `run-check vote`'s output (`run-check schema
/// vote-output`), derived from its type.
#[cfg(test)]
fn output_schema() -> Value {
    run_check_documents::schema::by_name("vote-output").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::vote::{aggregate, input};

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::meta::validate(schema).expect("a valid 2020-12 schema");
        jsonschema::draft202012::new(schema).expect("compiles")
    }

    fn example() -> Value {
        json!({
            "votes": [
                {
                    "evaluator_id": "e1",
                    "elimination_decision": {"eliminated": "B", "reason": "slow", "confidence": "High"},
                    "quick_assessments": {"A": "fine", "B": "slow", "C": {"score": 7}}
                },
                {
                    "evaluator_id": "e2",
                    "elimination_decision": {"eliminated": "B", "confidence": "Low"}
                },
                {
                    "evaluator_id": "e3",
                    "elimination_decision": {"eliminated": "A", "reason": "r", "confidence": "Medium"}
                }
            ],
            "elimination_threshold": 2,
            "confidence_weights": {"High": 1.5, "Low": 0.5},
            "require_unanimous": false
        })
    }

    fn with(mut value: Value, pointer: &str, new: Value) -> Value {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer");
        match value.pointer_mut(parent).expect("parent") {
            Value::Object(map) => {
                map.insert(key.to_string(), new);
            }
            Value::Array(items) => items[key.parse::<usize>().expect("index")] = new,
            _ => panic!("not a container"),
        }
        value
    }

    fn without(mut value: Value, pointer: &str) -> Value {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer");
        if let Some(Value::Object(map)) = value.pointer_mut(parent) {
            map.remove(key);
        }
        value
    }

    #[test]
    fn both_schemas_are_draft_2020_12() {
        for schema in [input_schema(), output_schema()] {
            assert_eq!(schema["$schema"], DIALECT);
            validator(&schema);
        }
    }

    #[test]
    fn the_schema_accepts_what_run_check_accepts() {
        let schema = validator(&input_schema());
        for value in [
            example(),
            with(example(), "/elimination_threshold", json!(2.0)),
            with(example(), "/require_unanimous", json!(true)),
            with(example(), "/confidence_weights", json!({})),
            without(example(), "/confidence_weights"),
            without(example(), "/votes/0/quick_assessments"),
            without(example(), "/votes/0/elimination_decision/reason"),
        ] {
            assert!(input::from_value(&value).is_ok(), "{value}");
            let errors: Vec<String> = schema.iter_errors(&value).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{value}: {errors:?}");
        }
    }

    #[test]
    fn the_schema_rejects_what_run_check_rejects() {
        let schema = validator(&input_schema());
        let cases = [
            json!([]),
            with(example(), "/elimination_threshold", json!("2")),
            with(example(), "/elimination_threshold", json!(2.5)),
            with(example(), "/elimination_threshold", json!(0)),
            without(example(), "/elimination_threshold"),
            without(example(), "/votes"),
            with(example(), "/votes", json!([])),
            with(example(), "/votes", json!({})),
            with(example(), "/votes/1", json!("e2")),
            with(example(), "/extra", json!(1)),
            with(example(), "/votes/0/extra", json!(1)),
            with(example(), "/votes/0/elimination_decision/extra", json!(1)),
            without(example(), "/votes/0/evaluator_id"),
            with(example(), "/votes/0/evaluator_id", json!(1)),
            with(example(), "/votes/0/evaluator_id", json!(" ")),
            without(example(), "/votes/0/elimination_decision"),
            without(example(), "/votes/0/elimination_decision/eliminated"),
            with(
                example(),
                "/votes/0/elimination_decision/eliminated",
                json!(""),
            ),
            with(
                example(),
                "/votes/0/elimination_decision/reason",
                json!(null),
            ),
            without(example(), "/votes/0/elimination_decision/confidence"),
            with(
                example(),
                "/votes/0/elimination_decision/confidence",
                json!("Certain"),
            ),
            with(example(), "/votes/0/quick_assessments", json!([])),
            with(example(), "/votes/0/quick_assessments", json!({"": 1})),
            with(example(), "/confidence_weights", json!({"Certain": 1})),
            with(example(), "/confidence_weights", json!({"High": "1"})),
            with(example(), "/confidence_weights", json!({"Low": -1})),
            with(example(), "/confidence_weights", json!({"Low": 1e7})),
            with(example(), "/require_unanimous", json!("yes")),
        ];
        for value in cases {
            assert!(input::from_value(&value).is_err(), "run-check: {value}");
            assert!(!schema.is_valid(&value), "schema: {value}");
        }
        // The one rule JSON Schema cannot say: unique evaluator ids.
        let duplicate = with(example(), "/votes/1/evaluator_id", json!("e1"));
        assert!(input::from_value(&duplicate).is_err());
        assert!(schema.is_valid(&duplicate));
    }

    #[test]
    fn outputs_match_the_output_schema() {
        let schema = validator(&output_schema());
        for value in [
            example(),
            with(example(), "/require_unanimous", json!(true)),
            with(example(), "/elimination_threshold", json!(1)),
            with(example(), "/elimination_threshold", json!(100)),
            with(
                example(),
                "/confidence_weights",
                json!({"High": 0, "Medium": 0, "Low": 0}),
            ),
        ] {
            let input = input::from_value(&value).expect("valid input");
            let output = serde_json::to_value(aggregate(&input)).expect("serialize");
            let errors: Vec<String> = schema.iter_errors(&output).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{output}: {errors:?}");
        }
    }

    #[test]
    fn the_output_schema_rejects_wrong_types() {
        let schema = validator(&output_schema());
        let input = input::from_value(&example()).expect("valid input");
        let output = serde_json::to_value(aggregate(&input)).expect("serialize");
        assert!(schema.is_valid(&output));
        for (pointer, new) in [
            ("/vote_distribution/A/raw_votes", json!("1")),
            ("/vote_distribution/A/weighted_votes", json!(null)),
            ("/threshold_reached", json!("true")),
            ("/consensus_analysis/consensus_level", json!("total")),
            ("/consensus_analysis/agreement_ratio", json!(1.5)),
            ("/aggregated_result/survivors", json!("A")),
            ("/reasoning_summary/B", json!("slow")),
        ] {
            assert!(
                !schema.is_valid(&with(output.clone(), pointer, new)),
                "{pointer}"
            );
        }
        assert!(!schema.is_valid(&without(output, "/reasoning_summary")));
    }
}
