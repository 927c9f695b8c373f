//! The verdict's JSON Schema (`run-check schema verdict`, derived from its
//! type in the document crate) against the judge's verdicts: every field is
//! required, no other field is allowed, and the words (recommendation,
//! trend, stall types, decision, categories, agents, severities) are
//! enumerated.

use serde_json::{Value, json};

/// The verdict's JSON Schema.
fn verdict_schema() -> Value {
    run_check_documents::schema::by_name("verdict").unwrap_or_default()
}

#[test]
fn the_schema_is_valid_draft_2020_12_and_accepts_a_verdict() {
    let schema = verdict_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let verdict = serde_json::to_value(crate::aggregate::judge::tests::sample_verdict()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&verdict)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn the_schema_rejects_wrong_types_missing_and_unknown_fields() {
    let validator = jsonschema::validator_for(&verdict_schema()).unwrap();
    let good = serde_json::to_value(crate::aggregate::judge::tests::sample_verdict()).unwrap();
    let broken = |pointer: &str, value: Option<Value>| {
        let mut v = good.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let target = v.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        match value {
            Some(value) => target.insert(key.into(), value),
            None => target.remove(key),
        };
        v
    };
    for (pointer, value) in [
        ("/overall_score", Some(json!("82.25"))),
        ("/iteration", Some(json!(0))),
        ("/recommendation", Some(json!("DONE"))),
        ("/scores/security", Some(json!(101))),
        ("/progress/trend", Some(json!("up"))),
        ("/issues/critical/0/severity", Some(json!("High"))),
        ("/decision/next_agent", Some(json!("BOSS"))),
        ("/passed", None),
        ("/feedback_for_code_writer/score_gap/overall", None),
        ("/extra", Some(json!(1))),
    ] {
        assert!(!validator.is_valid(&broken(pointer, value)), "{pointer}");
    }
    assert!(validator.is_valid(&good));
}
