//! `run-check vote` (docs/vote.md): the real binary on a full
//! example, stdin, determinism, and strict input validation (exit 2, one line
//! naming the file and the JSON path). Inputs and outputs are validated
//! against the published schemas.

use std::io::Write;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::{Run, Test};

/// Five evaluators vote on four candidates (the vote input's field names); the
/// numbers are worked out by hand in [`example_output`].
fn example() -> Value {
    json!({
        "votes": [
            {
                "evaluator_id": "eval_1",
                "elimination_decision": {
                    "eliminated": "candidate_C",
                    "reason": "does not compile on Windows",
                    "confidence": "High"
                },
                "quick_assessments": {
                    "candidate_A": "solid",
                    "candidate_B": "acceptable",
                    "candidate_C": "broken",
                    "candidate_D": "untested"
                }
            },
            {
                "evaluator_id": "eval_2",
                "elimination_decision": {
                    "eliminated": "candidate_C",
                    "reason": "tests fail",
                    "confidence": "Medium"
                }
            },
            {
                "evaluator_id": "eval_3",
                "elimination_decision": {
                    "eliminated": "candidate_C",
                    "reason": "weak error handling",
                    "confidence": "Low"
                }
            },
            {
                "evaluator_id": "eval_4",
                "elimination_decision": {
                    "eliminated": "candidate_B",
                    "reason": "too slow",
                    "confidence": "High"
                },
                "quick_assessments": {"candidate_B": {"score": 2}}
            },
            {
                "evaluator_id": "eval_5",
                "elimination_decision": {"eliminated": "candidate_C", "confidence": "Medium"}
            }
        ],
        "elimination_threshold": 3,
        "confidence_weights": {"High": 1.5, "Medium": 1.0, "Low": 0.5},
        "require_unanimous": false
    })
}

/// By hand: candidate_C gets 4 votes weighing 1.5 + 1.0 + 0.5 + 1.0 = 4.0 ≥ 3
/// and is eliminated; candidate_B gets eval_4's High vote (1.5);
/// candidate_A and candidate_D are only assessed (0 votes). Agreement is
/// 4 of 5 = 0.8: strong. Both voted-for candidates split the evaluators.
fn example_output() -> Value {
    json!({
        "aggregated_result": {
            "eliminated_candidates": ["candidate_C"],
            "survivors": ["candidate_A", "candidate_B", "candidate_D"]
        },
        "threshold_reached": true,
        "vote_distribution": {
            "candidate_A": {"raw_votes": 0, "weighted_votes": 0.0, "voters": []},
            "candidate_B": {"raw_votes": 1, "weighted_votes": 1.5, "voters": ["eval_4"]},
            "candidate_C": {
                "raw_votes": 4,
                "weighted_votes": 4.0,
                "voters": ["eval_1", "eval_2", "eval_3", "eval_5"]
            },
            "candidate_D": {"raw_votes": 0, "weighted_votes": 0.0, "voters": []}
        },
        "consensus_analysis": {
            "consensus_level": "strong",
            "agreement_ratio": 0.8,
            "conflicts": [
                {
                    "candidate": "candidate_B",
                    "conflicting_evaluators": ["eval_1", "eval_2", "eval_3", "eval_5"],
                    "description": "1 of 5 evaluators voted to eliminate \"candidate_B\" (eval_4); \
                                    eval_1, eval_2, eval_3, eval_5 voted to eliminate \"candidate_C\""
                },
                {
                    "candidate": "candidate_C",
                    "conflicting_evaluators": ["eval_4"],
                    "description": "4 of 5 evaluators voted to eliminate \"candidate_C\" \
                                    (eval_1, eval_2, eval_3, eval_5); \
                                    eval_4 voted to eliminate \"candidate_B\""
                }
            ]
        },
        "reasoning_summary": {
            "candidate_B": ["eval_4 (High): too slow"],
            "candidate_C": [
                "eval_1 (High): does not compile on Windows",
                "eval_2 (Medium): tests fail",
                "eval_3 (Low): weak error handling",
                "eval_5 (Medium): no reason given"
            ]
        }
    })
}

fn vote_file(input: &str) -> Run {
    Test::bare()
        .file("in.json", input)
        .args(&["vote", "in.json"])
        .run()
}

fn vote_stdin(input: &str) -> (Option<i32>, String, String) {
    let test = Test::bare().args(&["vote", "-"]);
    let mut child = test
        .command()
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn run-check");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let output = child.wait_with_output().expect("wait");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Asserts exit 2, nothing on stdout and exactly `line` on stderr.
#[track_caller]
fn rejected(run: Run, line: &str) {
    let run = run.status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr_lines(), [line]);
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("schema compiles")
}

#[track_caller]
fn assert_valid(schema: &Value, instance: &Value) {
    let errors: Vec<String> = validator(schema)
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{instance}\n{errors:#?}");
}

#[test]
fn full_example() {
    let input = example();
    assert_valid(&crate::support::schema("vote-input"), &input);
    let run = vote_file(&serde_json::to_string_pretty(&input).expect("json")).success();
    assert_eq!(run.stderr, "");
    assert_eq!(run.json_stdout(), example_output());
    assert_valid(&crate::support::schema("vote-output"), &run.json_stdout());
    // Pretty JSON, one final newline.
    assert!(run.stdout.starts_with("{\n  \"aggregated_result\": {\n"));
    assert!(run.stdout.ends_with("}\n") && !run.stdout.ends_with("\n\n"));
}

#[test]
fn full_example_with_require_unanimous() {
    // eval_4 did not vote for candidate_C: nobody is eliminated.
    let mut input = example();
    input["require_unanimous"] = json!(true);
    let run = vote_file(&input.to_string()).success();
    let mut expected = example_output();
    expected["aggregated_result"] = json!({
        "eliminated_candidates": [],
        "survivors": ["candidate_A", "candidate_B", "candidate_C", "candidate_D"]
    });
    expected["threshold_reached"] = json!(false);
    assert_eq!(run.json_stdout(), expected);
    assert_valid(&crate::support::schema("vote-output"), &run.json_stdout());
}

#[test]
fn minimal_input_uses_the_default_weights() {
    // Without confidence_weights: High 1.5 + Low 0.5 = 2.0 reaches 2.
    let input = json!({
        "votes": [
            {"evaluator_id": "a", "elimination_decision": {"eliminated": "X", "confidence": "High"}},
            {"evaluator_id": "b", "elimination_decision": {"eliminated": "X", "confidence": "Low"}}
        ],
        "elimination_threshold": 2
    });
    assert_valid(&crate::support::schema("vote-input"), &input);
    let out = vote_file(&input.to_string()).success().json_stdout();
    assert_eq!(out["vote_distribution"]["X"]["weighted_votes"], json!(2.0));
    assert_eq!(
        out["aggregated_result"]["eliminated_candidates"],
        json!(["X"])
    );
    assert_eq!(out["consensus_analysis"]["consensus_level"], "unanimous");
    assert_eq!(out["consensus_analysis"]["agreement_ratio"], json!(1.0));
    assert_eq!(out["consensus_analysis"]["conflicts"], json!([]));
    assert_valid(&crate::support::schema("vote-output"), &out);
}

#[test]
fn stdin_input() {
    let text = example().to_string();
    let (code, stdout, stderr) = vote_stdin(&text);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).expect("json"),
        example_output()
    );
    // Byte-identical to reading the file.
    assert_eq!(stdout, vote_file(&text).success().stdout);

    let (code, stdout, stderr) = vote_stdin("{\"votes\": []}");
    assert_eq!(code, Some(2));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: <stdin>: $.votes: must contain at least one vote\n"
    );
}

#[test]
fn output_does_not_depend_on_vote_order() {
    let forward = example();
    let mut backward = example();
    backward["votes"].as_array_mut().expect("votes").reverse();
    let a = vote_file(&forward.to_string()).success().stdout;
    let b = vote_file(&backward.to_string()).success().stdout;
    assert_eq!(a, b);
}

/// `value` with the member at `pointer` replaced by `new` (removed for `None`).
fn with(mut value: Value, pointer: &str, new: Option<Value>) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer");
    match (value.pointer_mut(parent).expect("parent"), new) {
        (Value::Object(map), Some(new)) => drop(map.insert(key.into(), new)),
        (Value::Object(map), None) => drop(map.remove(key)),
        (Value::Array(items), Some(new)) => items[key.parse::<usize>().expect("index")] = new,
        _ => panic!("{pointer}"),
    }
    value
}

#[test]
fn what_the_schema_accepts_the_binary_accepts() {
    let schema = crate::support::schema("vote-input");
    for (pointer, new) in [
        ("/elimination_threshold", Some(json!(3.0))),
        ("/require_unanimous", Some(json!(true))),
        ("/confidence_weights", Some(json!({}))),
        ("/confidence_weights", Some(json!({"Low": 0, "High": 1e6}))),
        ("/confidence_weights", None),
        ("/votes/0/quick_assessments", None),
        (
            "/votes/0/quick_assessments",
            Some(json!({"candidate_A": null})),
        ),
        ("/votes/0/elimination_decision/reason", None),
    ] {
        let input = with(example(), pointer, new);
        assert_valid(&schema, &input);
        let run = vote_file(&input.to_string()).success();
        assert_valid(&crate::support::schema("vote-output"), &run.json_stdout());
    }
}

#[test]
fn what_the_schema_refuses_the_binary_refuses_naming_the_json_path() {
    let schema = validator(&crate::support::schema("vote-input"));
    let vote_fields = "(expected evaluator_id, elimination_decision or quick_assessments)";
    let top_fields =
        "(expected votes, elimination_threshold, confidence_weights or require_unanimous)";
    for (pointer, new, message) in [
        (
            "",
            Some(json!([])),
            "$: expected an object, found array".into(),
        ),
        (
            "/require_unanimus",
            Some(json!(true)),
            format!("$.require_unanimus: unknown field {top_fields}"),
        ),
        (
            "/votes",
            None,
            "$.votes: missing required field".to_string(),
        ),
        (
            "/votes",
            Some(json!([])),
            "$.votes: must contain at least one vote".into(),
        ),
        (
            "/votes/1",
            Some(json!("eval_2")),
            "$.votes[1]: expected an object, found string".into(),
        ),
        (
            "/votes/0/score",
            Some(json!(9)),
            format!("$.votes[0].score: unknown field {vote_fields}"),
        ),
        (
            "/votes/1/evaluator_id",
            Some(json!(2)),
            "$.votes[1].evaluator_id: expected a string, found number 2".into(),
        ),
        (
            "/votes/1/evaluator_id",
            Some(json!(" ")),
            "$.votes[1].evaluator_id: must not be empty".into(),
        ),
        (
            "/votes/1/elimination_decision/eliminated",
            None,
            "$.votes[1].elimination_decision.eliminated: missing required field".into(),
        ),
        (
            "/votes/1/elimination_decision/eliminated",
            Some(json!("")),
            "$.votes[1].elimination_decision.eliminated: must not be empty".into(),
        ),
        (
            "/votes/0/elimination_decision/reason",
            Some(json!(null)),
            "$.votes[0].elimination_decision.reason: expected a string, found null".into(),
        ),
        (
            "/votes/2/elimination_decision/confidence",
            Some(json!("high")),
            "$.votes[2].elimination_decision.confidence: \
             expected one of \"High\", \"Medium\", \"Low\", found \"high\""
                .into(),
        ),
        (
            "/votes/0/quick_assessments",
            Some(json!(["candidate_A"])),
            "$.votes[0].quick_assessments: expected an object, found array".into(),
        ),
        (
            "/votes/0/quick_assessments",
            Some(json!({"": 1})),
            "$.votes[0].quick_assessments[\"\"]: candidate name must not be empty".into(),
        ),
        (
            "/elimination_threshold",
            Some(json!("3")),
            "$.elimination_threshold: expected a non-negative integer, found string".into(),
        ),
        (
            "/elimination_threshold",
            Some(json!(2.5)),
            "$.elimination_threshold: expected a non-negative integer, found number 2.5".into(),
        ),
        (
            "/elimination_threshold",
            Some(json!(0)),
            "$.elimination_threshold: must be at least 1, found 0".into(),
        ),
        (
            "/confidence_weights",
            Some(json!({"Certain": 2})),
            "$.confidence_weights.Certain: unknown field (expected High, Medium or Low)".into(),
        ),
        (
            "/confidence_weights",
            Some(json!({"Medium": null})),
            "$.confidence_weights.Medium: expected a number, found null".into(),
        ),
        (
            "/confidence_weights",
            Some(json!({"Low": -0.5})),
            "$.confidence_weights.Low: must be between 0 and 1000000, found -0.5".into(),
        ),
        (
            "/require_unanimous",
            Some(json!("yes")),
            "$.require_unanimous: expected a boolean, found string".into(),
        ),
    ] {
        let input = match pointer {
            "" => new.expect("document"),
            _ => with(example(), pointer, new),
        };
        assert!(!schema.is_valid(&input), "the schema accepts {input}");
        rejected(
            vote_file(&input.to_string()),
            &format!("error: in.json: {message}"),
        );
    }
    // The one rule a schema cannot say: evaluator ids are unique.
    let input = with(example(), "/votes/3/evaluator_id", Some(json!("eval_1")));
    assert!(schema.is_valid(&input));
    rejected(
        vote_file(&input.to_string()),
        "error: in.json: $.votes[3].evaluator_id: \
         duplicate evaluator id \"eval_1\" (first at $.votes[0])",
    );
}

#[test]
fn the_output_schema_refuses_a_wrong_type_at_each_level() {
    let output = vote_file(&example().to_string()).success().json_stdout();
    let schema = validator(&crate::support::schema("vote-output"));
    assert!(schema.is_valid(&output));
    for (pointer, new) in [
        ("/threshold_reached", Some(json!("true"))),
        ("/reasoning_summary", None),
        ("/aggregated_result/survivors", Some(json!("candidate_A"))),
        ("/aggregated_result/winner", Some(json!("candidate_A"))),
        ("/vote_distribution/candidate_A/raw_votes", Some(json!("1"))),
        ("/vote_distribution/candidate_A/weighted_votes", None),
        ("/vote_distribution/candidate_B/voters/0", Some(json!(1))),
        ("/consensus_analysis/consensus_level", Some(json!("total"))),
        ("/consensus_analysis/agreement_ratio", Some(json!(1.5))),
        (
            "/consensus_analysis/conflicts/0/candidate",
            Some(json!(null)),
        ),
        ("/reasoning_summary/candidate_B", Some(json!("too slow"))),
    ] {
        assert!(
            !schema.is_valid(&with(output.clone(), pointer, new)),
            "{pointer}"
        );
    }
}

#[test]
fn unreadable_and_malformed_input() {
    let run = Test::bare().args(&["vote", "missing.json"]).run().status(2);
    assert_eq!(run.stdout, "");
    let lines = run.stderr_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("error: failed to read vote input `missing.json`: "),
        "{lines:?}"
    );
    rejected(
        vote_file("{\"votes\": [\n"),
        "error: in.json:2:1: invalid JSON: EOF while parsing a list",
    );
    let text = example().to_string();
    rejected(
        vote_file(&format!("{text} {{}}")),
        &format!(
            "error: in.json:1:{}: invalid JSON: trailing characters",
            text.len() + 2
        ),
    );
    // A UTF-8 byte order mark is skipped.
    let text = format!("\u{feff}{}", example());
    assert_eq!(vote_file(&text).success().json_stdout(), example_output());
    // No argument: a usage error.
    let run = Test::bare().args(&["vote"]).run().status(2);
    assert_eq!(run.stderr_lines().len(), 1, "{}", run.stderr);
}
