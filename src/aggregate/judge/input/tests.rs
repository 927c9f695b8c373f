use super::*;
use crate::config::{Dimension, Severity};
use run_check_documents::evidence::DiagSeverity;
use run_check_documents::verdict::Score;
use serde_json::json;

/// The reference judge's input example (issues filled in).
pub(crate) fn reference_example() -> Value {
    json!({
        "iteration": 1,
        "tech_stack": {
            "language": "Python",
            "framework": "FastAPI",
            "constraints": ["async/await", "Pydantic v2"],
            "quality_thresholds": {
                "security_min": 85, "quality_min": 80, "performance_min": 80,
                "overall_min": 80, "max_critical_issues": 0, "max_high_issues": 2,
                "max_iterations": 5, "stall_threshold": 5, "stall_rounds": 2
            },
            "weights": {"security": 0.4, "quality": 0.35, "performance": 0.25}
        },
        "security_result": {"passed": false, "score": 75, "issues": [{
            "severity": "Critical", "type": "SQL_INJECTION", "file": "src/db.py", "line": 42,
            "description": "string-built SQL query",
            "suggestion": "cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))"
        }]},
        "quality_result": {"passed": true, "score": 85, "issues": []},
        "performance_result": {"passed": true, "score": 90, "issues": []},
        "previous_scores": [65, 72]
    })
}

fn evidence_doc() -> Value {
    crate::run::evidence::complete(&json!({
        "checks": [
            {"name": "audit", "status": "fail", "dimension": "security", "severity": "critical",
             "score": null, "timed_out": false, "error": null, "exit_code": 1,
             "command": ["sh", "-c", "exit 1"]},
            {"name": "unit", "status": "pass"}
        ],
        "diagnostics": [
            {"check": "unit", "file": "a.rs", "line": 3, "severity": "warning",
             "rule": "dead_code", "message": "unused", "suggestion": null}
        ],
        "contracts": {"read_only": {"verified": true, "modified": ["x"]},
                      "change_budget": {"base": "HEAD", "files_changed": 12, "loc_changed": 10,
                                        "max_files": 10, "max_loc": 400, "exceeded": true}}
    }))
}

fn problem(value: &Value) -> (String, String) {
    let p = read(value.clone()).expect_err("a problem");
    (p.path.unwrap_or_default(), p.message)
}

fn with(mut doc: Value, pointer: &str, new: Option<Value>) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let target = doc.pointer_mut(parent).unwrap();
    match (target, new) {
        (Value::Object(o), Some(v)) => {
            o.insert(key.into(), v);
        }
        (Value::Object(o), None) => {
            o.remove(key);
        }
        (Value::Array(a), Some(v)) => a[key.parse::<usize>().unwrap()] = v,
        _ => unreachable!(),
    }
    doc
}

#[test]
fn evidence_is_read_with_defaults_for_the_optional_fields() {
    let Source::Evidence(e) = read(evidence_doc()).unwrap() else {
        panic!("evidence")
    };
    assert_eq!(e.checks.len(), 2);
    assert_eq!(e.checks[0].dimension, Dimension::Security);
    assert_eq!(e.checks[0].severity, Severity::Critical);
    assert_eq!(e.checks[0].exit_code, Some(1));
    assert_eq!(e.checks[1].dimension, Dimension::Quality, "default");
    assert_eq!(e.checks[1].severity, Severity::High, "default");
    assert!(!e.checks[1].timed_out);
    assert_eq!(e.diagnostics[0].severity, DiagSeverity::Warning);
    assert_eq!(e.diagnostics[0].line, Some(3));
    assert_eq!(e.contracts.read_only.modified, ["x"]);
    assert!(e.contracts.change_budget.unwrap().exceeded);
}

#[test]
fn evidence_problems_name_the_json_path() {
    let doc = evidence_doc;
    let cases = [
        (
            with(doc(), "/schema_version", None),
            "$.schema_version",
            "missing required field",
        ),
        (
            with(doc(), "/schema_version", Some(json!(2))),
            "$.schema_version",
            "unsupported evidence version 2 (this run-check reads version 1)",
        ),
        (
            with(doc(), "/checks", None),
            "$.checks",
            "missing required field",
        ),
        (
            with(doc(), "/checks", Some(json!({}))),
            "$.checks",
            "expected an array, found object",
        ),
        (
            with(doc(), "/diagnostics", None),
            "$.diagnostics",
            "missing required field",
        ),
        (
            with(doc(), "/checks/1/name", None),
            "$.checks[1].name",
            "missing required field",
        ),
        (
            with(doc(), "/checks/1/status", Some(json!("passed"))),
            "$.checks[1].status",
            "expected one of \"pass\", \"fail\", \"error\", \"skip\", found \"passed\"",
        ),
        (
            with(doc(), "/checks/0/dimension", Some(json!(3))),
            "$.checks[0].dimension",
            "expected a string, found number 3",
        ),
        (
            with(doc(), "/checks/0/score", Some(json!("90"))),
            "$.checks[0].score",
            "expected a number, found string",
        ),
        (
            with(doc(), "/checks/0/timed_out", Some(json!(0))),
            "$.checks[0].timed_out",
            "expected a boolean, found number 0",
        ),
        (
            with(doc(), "/checks/0/exit_code", Some(json!(2.5))),
            "$.checks[0].exit_code",
            "expected an integer, found number 2.5",
        ),
        (
            with(doc(), "/checks/0/command/1", Some(json!(1))),
            "$.checks[0].command[1]",
            "expected a string, found number 1",
        ),
        (
            with(doc(), "/diagnostics/0/line", Some(json!(-1))),
            "$.diagnostics[0].line",
            "expected a non-negative integer, found number -1",
        ),
        (
            with(doc(), "/diagnostics/0/severity", Some(json!("fatal"))),
            "$.diagnostics[0].severity",
            "expected one of \"error\", \"warning\", \"note\", \"info\", \"help\", found \"fatal\"",
        ),
        (
            with(doc(), "/contracts/change_budget/exceeded", None),
            "$.contracts.change_budget.exceeded",
            "missing required field",
        ),
        (json!([1]), "$", "expected an object, found array"),
        (
            json!({"votes": []}),
            "$",
            "expected an evidence document (with `checks`) or an aggregator input \
                 (with `security_result`)",
        ),
    ];
    for (doc, path, message) in cases {
        assert_eq!(problem(&doc), (path.to_string(), message.to_string()));
    }
}

#[test]
fn aggregator_input_is_detected_by_security_result() {
    let Source::Aggregator(a) = read(reference_example()).unwrap() else {
        panic!("aggregator")
    };
    assert_eq!(a.iteration, Some(1));
    assert_eq!(a.previous_scores, [Score(65.0), Score(72.0)]);
    assert_eq!(a.tech_stack.quality_thresholds["security_min"], 85);
    assert_eq!(a.tech_stack.weights["quality"], 0.35);
    assert_eq!(
        a.results().map(|(_, r)| r.score.map(|s| s.0)),
        [Some(75.0), Some(85.0), Some(90.0)]
    );
    let issue = &a.security_result.issues[0];
    assert_eq!(issue.severity, Severity::Critical);
    assert_eq!(issue.kind, "SQL_INJECTION");
    assert_eq!(issue.line, Some(42));
    assert_eq!(issue.id, None);
    // The integer rule of every input: 2.0 is 2.
    let Source::Aggregator(a) =
        read(with(reference_example(), "/iteration", Some(json!(2.0)))).unwrap()
    else {
        panic!("aggregator")
    };
    assert_eq!(a.iteration, Some(2));
    // Even with `checks` present, `security_result` decides.
    let mut doc = reference_example();
    doc["checks"] = json!([]);
    assert!(matches!(read(doc), Ok(Source::Aggregator(_))));
    // Optional parts may be absent; a null score means nothing scored.
    let minimal = json!({
        "security_result": {"passed": true, "score": null, "issues": []},
        "quality_result": {"passed": true, "score": 90, "issues": [{"severity": "low", "type": "T"}]},
        "performance_result": {"passed": true, "score": 90, "issues": []}
    });
    let Source::Aggregator(a) = read(minimal).unwrap() else {
        panic!("aggregator")
    };
    assert_eq!((a.iteration, a.previous_scores.len()), (None, 0));
    assert_eq!(a.tech_stack, Default::default());
    assert_eq!(a.security_result.score, None);
    assert_eq!(a.quality_result.issues[0].severity, Severity::Low);
}

#[test]
fn aggregator_input_problems_name_the_json_path() {
    let doc = reference_example;
    let cases = [
        (
            with(doc(), "/quality_result", None),
            "$.quality_result",
            "missing required field",
        ),
        (
            with(doc(), "/security_result/score", Some(json!("75"))),
            "$.security_result.score",
            "expected a number, found string",
        ),
        (
            with(doc(), "/security_result/score", Some(json!(101))),
            "$.security_result.score",
            "101 is outside 0..100",
        ),
        (
            with(doc(), "/performance_result/passed", None),
            "$.performance_result.passed",
            "missing required field",
        ),
        (
            with(
                doc(),
                "/security_result/issues/0/severity",
                Some(json!("Severe")),
            ),
            "$.security_result.issues[0].severity",
            "expected one of \"Critical\", \"High\", \"Medium\", \"Low\", found \"Severe\"",
        ),
        (
            with(
                doc(),
                "/security_result/issues/0/severity",
                Some(json!("Hi\"gh")),
            ),
            "$.security_result.issues[0].severity",
            "expected one of \"Critical\", \"High\", \"Medium\", \"Low\", found \"Hi\\\"gh\"",
        ),
        (
            with(doc(), "/security_result/issues/0/severity", Some(json!(2))),
            "$.security_result.issues[0].severity",
            "expected one of \"Critical\", \"High\", \"Medium\", \"Low\", found number 2",
        ),
        (
            with(doc(), "/security_result/issues/0/type", None),
            "$.security_result.issues[0].type",
            "missing required field",
        ),
        (
            with(doc(), "/security_result/issues/0/line", Some(json!("42"))),
            "$.security_result.issues[0].line",
            "expected a non-negative integer, found string",
        ),
        (
            with(doc(), "/iteration", Some(json!(0))),
            "$.iteration",
            "must be at least 1",
        ),
        (
            with(doc(), "/iteration", Some(json!(1.5))),
            "$.iteration",
            "expected a non-negative integer, found number 1.5",
        ),
        (
            with(doc(), "/previous_scores/1", Some(json!(null))),
            "$.previous_scores[1]",
            "expected a number, found null",
        ),
    ];
    for (doc, path, message) in cases {
        assert_eq!(
            problem(&doc),
            (path.to_string(), message.to_string()),
            "{path}"
        );
    }
}
