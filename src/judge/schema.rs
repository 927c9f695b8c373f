//! The JSON Schema (draft 2020-12) of the verdict, for `run-check schema
//! verdict`. Strict: every field is required, no other field is allowed, and
//! the words (recommendation, trend, stall types, decision, categories,
//! agents, severities) are enumerated. Kept beside [`super::verdict`]; the
//! tests validate real verdicts against it.

use serde_json::{Value, json};

/// The verdict's JSON Schema.
pub fn verdict_schema() -> Value {
    let nullable_score = json!({"type": ["number", "null"], "minimum": 0, "maximum": 100});
    let nullable_gap = json!({"type": ["number", "null"], "minimum": 0});
    let nullable_text = json!({"type": ["string", "null"]});
    let nullable_line = json!({"type": ["integer", "null"], "minimum": 0});
    let count = json!({"type": "integer", "minimum": 0});
    let weight = json!({"type": "number", "minimum": 0, "maximum": 1});
    let strict = |properties: Value| -> Value {
        let required: Vec<Value> = properties
            .as_object()
            .map(|p| p.keys().map(|k| Value::String(k.clone())).collect())
            .unwrap_or_default();
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        })
    };
    let scores = strict(json!({
        "security": nullable_score,
        "quality": nullable_score,
        "performance": nullable_score
    }));
    let issue = strict(json!({
        "id": {"type": "string", "minLength": 1},
        "source": {"type": "string"},
        "severity": {"enum": ["Critical", "High", "Medium", "Low"]},
        "type": {"type": "string"},
        "file": nullable_text,
        "line": nullable_line,
        "description": {"type": "string"},
        "suggestion": nullable_text,
        "tech_stack_hint": nullable_text,
        "fingerprint": {"type": "string"}
    }));
    let issue_list = |severity: &str| {
        json!({
            "type": "array",
            "items": {
                "allOf": [
                    {"$ref": "#/$defs/issue"},
                    {"properties": {"severity": {"const": severity}}}
                ]
            }
        })
    };
    let fix = strict(json!({
        "id": {"type": "string"},
        "file": nullable_text,
        "line": nullable_line,
        "action": {"type": "string"},
        "code_hint": nullable_text
    }));
    let fixes = json!({"type": "array", "items": {"$ref": "#/$defs/fix"}});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let mut schema = strict(json!({
        "iteration": {"type": "integer", "minimum": 1},
        "passed": {"type": "boolean"},
        "overall_score": nullable_score,
        "scores": {"$ref": "#/$defs/scores"},
        "thresholds_used": strict(json!({
            "security_min": {"type": "number"},
            "quality_min": {"type": "number"},
            "performance_min": {"type": "number"},
            "overall_min": {"type": "number"},
            "max_critical_issues": count,
            "max_high_issues": count,
            "max_iterations": {"type": "integer", "minimum": 1},
            "stall_threshold": {"type": "number"},
            "stall_rounds": count
        })),
        "weights_used": strict(json!({
            "security": weight,
            "quality": weight,
            "performance": weight
        })),
        "issue_counts": strict(json!({
            "critical": count, "high": count, "medium": count, "low": count
        })),
        "issues": strict(json!({
            "critical": issue_list("Critical"),
            "high": issue_list("High"),
            "medium": issue_list("Medium"),
            "low": issue_list("Low")
        })),
        "feedback_for_code_writer": strict(json!({
            "summary": {"type": "string"},
            "priority_order": strings,
            "must_fix": fixes,
            "should_fix": fixes,
            "optional_fix": fixes,
            "iteration_budget": strict(json!({
                "current": {"type": "integer", "minimum": 1},
                "max": {"type": "integer", "minimum": 1},
                "remaining": count
            })),
            "score_gap": strict(json!({
                "security": nullable_gap,
                "quality": nullable_gap,
                "performance": nullable_gap,
                "overall": nullable_gap
            }))
        })),
        "recommendation": {
            "enum": ["PASS", "ITERATE", "FAIL_MAX_ITERATIONS", "STALLED", "SUBTASK"]
        },
        "progress": strict(json!({
            "previous_score": nullable_score,
            "current_score": nullable_score,
            "improvement": {"type": ["number", "null"]},
            "trend": {"enum": ["first", "improving", "slow_improvement", "stable", "declining"]},
            "stall_warning": {"type": "boolean"},
            "stall_type": {"enum": [
                "STALLED_SCORE", "STALLED_CRITICAL", "STALLED_OSCILLATING",
                "STALLED_REGRESSION", null
            ]},
            "persistent_issues": strings,
            "oscillation_detected": {"type": "boolean"},
            "regression_detected": {"type": "boolean"},
            "regressions": {
                "type": "array",
                "items": strict(json!({
                    "dimension": {"enum": ["security", "quality", "performance"]},
                    "previous": {"type": "number"},
                    "current": {"type": "number"},
                    "drop": {"type": "number", "exclusiveMinimum": 10}
                }))
            },
            "failed_dimensions": {
                "type": "array",
                "items": {"enum": ["security", "quality", "performance"]}
            }
        })),
        "next_action": {"type": "string"},
        "decision": strict(json!({
            "decision": {"enum": ["PASS", "REWORK", "BLOCKED"]},
            "blocked": {
                "type": "array",
                "items": strict(json!({
                    "check": {"type": "string"},
                    "category": {"enum": ["environment", "infrastructure", "code"]},
                    "reason": {"type": "string"}
                }))
            },
            "next_agent": {"enum": ["FINISH", "IMPLEMENTER", "VALIDATE", "USER"]},
            "reason": {"type": "string"}
        }))
    }));
    if let Some(object) = schema.as_object_mut() {
        let mut head = serde_json::Map::new();
        head.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
        head.insert(
            "$id".into(),
            json!("https://run-check.dev/schema/verdict.json"),
        );
        head.insert("title".into(), json!("run-check judge verdict"));
        head.insert(
            "description".into(),
            json!("Seed 000's aggregator output plus seed 002's decision (SPEC section 8)."),
        );
        head.append(object);
        head.insert(
            "$defs".into(),
            json!({"scores": scores, "issue": issue, "fix": fix}),
        );
        *object = head;
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_valid_draft_2020_12_and_accepts_a_verdict() {
        let schema = verdict_schema();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        let verdict = serde_json::to_value(crate::judge::tests::sample_verdict()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&verdict)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn the_schema_rejects_wrong_types_missing_and_unknown_fields() {
        let validator = jsonschema::validator_for(&verdict_schema()).unwrap();
        let good = serde_json::to_value(crate::judge::tests::sample_verdict()).unwrap();
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
}
