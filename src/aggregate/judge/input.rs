//! The judge's INPUT: an evidence document (docs/evidence.md) or an aggregator
//! input (detected by its `security_result` field), read into
//! plain structs. Every problem is one error naming the file and the JSON
//! path of the first problem found.
//!
//! Evidence is read by the one evidence reader of every command
//! (`Evidence::from_value` of `run-check-documents`: closed objects, every
//! field of the first version required, later ones with their defaults)
//! and judged as it is.
//!
//! Aggregator input: `security_result`, `quality_result` and
//! `performance_result` are required, each with `passed` (boolean), `score`
//! (0..100, or null for "nothing scored") and `issues`; an issue needs
//! `severity` (Critical/High/Medium/Low, any case) and `type`. `iteration`,
//! `tech_stack` and `previous_scores` are optional.
//! `tech_stack.quality_thresholds` and `tech_stack.weights` are kept as
//! given and read by `thresholds::resolve` (an unknown key is an error: a
//! misspelt threshold must not be ignored); the rest of `tech_stack`
//! (language, framework, ...) is free.

use serde_json::{Map, Value};

use crate::config::{Dimension, Severity};
use run_check_documents::evidence::Evidence;

use super::json::score;
use super::thresholds::Overrides;
use super::verdict::{DIMENSIONS, dimension_name};
use crate::json_input::{
    Access, Problem, array, boolean, child, count, count32, field, found, index, object, one_of,
    opt_string, optional, string,
};

/// What the judge reads.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// An evidence document.
    Evidence(Box<Evidence>),
    /// An aggregator input.
    Aggregator(AggregatorInput),
}

/// An aggregator input.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AggregatorInput {
    /// `iteration`, when given.
    pub(crate) iteration: Option<u32>,
    /// `tech_stack.quality_thresholds` and `tech_stack.weights`.
    pub(crate) overrides: Overrides,
    /// `security_result`, `quality_result`, `performance_result`, in that order.
    pub(crate) results: Vec<DimensionResult>,
    /// `previous_scores`, oldest first.
    pub(crate) previous_scores: Vec<f64>,
}

/// One `<dimension>_result`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DimensionResult {
    pub(crate) dimension: Dimension,
    pub(crate) passed: bool,
    pub(crate) score: Option<f64>,
    pub(crate) issues: Vec<GivenIssue>,
}

/// One issue of an aggregator input's result, as given.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GivenIssue {
    pub(crate) id: Option<String>,
    pub(crate) source: Option<String>,
    pub(crate) severity: Severity,
    pub(crate) kind: String,
    pub(crate) file: Option<String>,
    pub(crate) line: Option<u64>,
    pub(crate) description: Option<String>,
    pub(crate) suggestion: Option<String>,
    pub(crate) tech_stack_hint: Option<String>,
}

/// Reads `value` as evidence or as aggregator input.
pub(crate) fn read(value: &Value) -> Access<Source> {
    let doc = object(value, "$")?;
    if doc.contains_key("security_result") {
        aggregator(doc).map(Source::Aggregator)
    } else if doc.contains_key("checks") || doc.contains_key("schema_version") {
        evidence(value).map(|e| Source::Evidence(Box::new(e)))
    } else {
        Err(Problem::new(
            "$",
            "expected an evidence document (with `checks`) or an aggregator input \
             (with `security_result`)",
        ))
    }
}

/// An evidence document, read as every reader reads it (closed objects,
/// every field of the first version required).
fn evidence(value: &Value) -> Access<Evidence> {
    Evidence::from_value(value.clone()).map_err(|problem| {
        Problem::new(problem.path.unwrap_or_else(|| "$".into()), problem.message)
    })
}

fn aggregator(doc: &Map<String, Value>) -> Access<AggregatorInput> {
    let iteration = match optional(doc, "iteration") {
        None => None,
        Some(v) => {
            let n = count32(v, "$.iteration")?;
            if n == 0 {
                return Err(Problem::new("$.iteration", "must be at least 1"));
            }
            Some(n)
        }
    };
    let mut overrides = Overrides::default();
    if let Some(tech_stack) = optional(doc, "tech_stack") {
        let tech_stack = object(tech_stack, "$.tech_stack")?;
        if let Some(t) = optional(tech_stack, "quality_thresholds") {
            overrides.thresholds = object(t, "$.tech_stack.quality_thresholds")?.clone();
        }
        if let Some(w) = optional(tech_stack, "weights") {
            overrides.weights = object(w, "$.tech_stack.weights")?.clone();
        }
    }
    let results = DIMENSIONS
        .into_iter()
        .map(|dimension| {
            let name = format!("{}_result", dimension_name(dimension));
            let path = child("$", &name);
            dimension_result(field(doc, "$", &name)?, &path, dimension)
        })
        .collect::<Access<Vec<_>>>()?;
    // An id names one issue (`priority_order`, `must_fix`): a repeated one is
    // an error at its second use.
    let mut ids = std::collections::HashSet::new();
    for result in &results {
        let name = format!("{}_result", dimension_name(result.dimension));
        for (i, issue) in result.issues.iter().enumerate() {
            if let Some(id) = &issue.id
                && !ids.insert(id.as_str())
            {
                let path = child(&index(&child(&child("$", &name), "issues"), i), "id");
                return Err(Problem::new(&path, format!("duplicate issue id {id:?}")));
            }
        }
    }
    let previous_scores = match optional(doc, "previous_scores") {
        None => Vec::new(),
        Some(v) => array(v, "$.previous_scores")?
            .iter()
            .enumerate()
            .map(|(i, s)| score(s, &index("$.previous_scores", i)))
            .collect::<Access<_>>()?,
    };
    Ok(AggregatorInput {
        iteration,
        overrides,
        results,
        previous_scores,
    })
}

fn dimension_result(value: &Value, path: &str, dimension: Dimension) -> Access<DimensionResult> {
    let r = object(value, path)?;
    let passed = boolean(field(r, path, "passed")?, &child(path, "passed"))?;
    let score = match field(r, path, "score")? {
        Value::Null => None,
        v => Some(score(v, &child(path, "score"))?),
    };
    let issues_path = child(path, "issues");
    let issues = array(field(r, path, "issues")?, &issues_path)?
        .iter()
        .enumerate()
        .map(|(i, issue)| given_issue(issue, &index(&issues_path, i)))
        .collect::<Access<_>>()?;
    Ok(DimensionResult {
        dimension,
        passed,
        score,
        issues,
    })
}

fn given_issue(value: &Value, path: &str) -> Access<GivenIssue> {
    let i = object(value, path)?;
    let severity_path = child(path, "severity");
    let severity = match field(i, path, "severity")? {
        Value::String(s) => Severity::ALL
            .into_iter()
            .find(|sev| sev.title().eq_ignore_ascii_case(s))
            .ok_or_else(|| one_of(&severity_path, &Severity::TITLES, format!("{s:?}")))?,
        other => return Err(one_of(&severity_path, &Severity::TITLES, found(other))),
    };
    let kind_ = string(field(i, path, "type")?, &child(path, "type"))?.to_string();
    let line = optional(i, "line")
        .map(|v| count(v, &child(path, "line")))
        .transpose()?;
    Ok(GivenIssue {
        id: opt_string(i, path, "id")?,
        source: opt_string(i, path, "source")?,
        severity,
        kind: kind_,
        file: opt_string(i, path, "file")?,
        line,
        description: opt_string(i, path, "description")?,
        suggestion: opt_string(i, path, "suggestion")?,
        tech_stack_hint: opt_string(i, path, "tech_stack_hint")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DiagSeverity;
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
        let p = read(value).expect_err("a problem");
        (p.path, p.message)
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
        let Source::Evidence(e) = read(&evidence_doc()).unwrap() else {
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
        let Source::Aggregator(a) = read(&reference_example()).unwrap() else {
            panic!("aggregator")
        };
        assert_eq!(a.iteration, Some(1));
        assert_eq!(a.previous_scores, [65.0, 72.0]);
        assert_eq!(a.overrides.thresholds["security_min"], 85);
        assert_eq!(a.overrides.weights["quality"], 0.35);
        assert_eq!(
            a.results.iter().map(|r| r.score).collect::<Vec<_>>(),
            [Some(75.0), Some(85.0), Some(90.0)]
        );
        let issue = &a.results[0].issues[0];
        assert_eq!(issue.severity, Severity::Critical);
        assert_eq!(issue.kind, "SQL_INJECTION");
        assert_eq!(issue.line, Some(42));
        assert_eq!(issue.id, None);
        // Even with `checks` present, `security_result` decides.
        let mut doc = reference_example();
        doc["checks"] = json!([]);
        assert!(matches!(read(&doc), Ok(Source::Aggregator(_))));
        // Optional parts may be absent; a null score means nothing scored.
        let minimal = json!({
            "security_result": {"passed": true, "score": null, "issues": []},
            "quality_result": {"passed": true, "score": 90, "issues": [{"severity": "low", "type": "T"}]},
            "performance_result": {"passed": true, "score": 90, "issues": []}
        });
        let Source::Aggregator(a) = read(&minimal).unwrap() else {
            panic!("aggregator")
        };
        assert_eq!((a.iteration, a.previous_scores.len()), (None, 0));
        assert_eq!(a.overrides, Overrides::default());
        assert_eq!(a.results[0].score, None);
        assert_eq!(a.results[1].issues[0].severity, Severity::Low);
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
                "expected a score within 0..100, found 101",
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
}
