use serde_json::json;

use super::state::{self, PointStatus};
use super::*;

fn evidence(outcome: Outcome) -> EvidenceSummary {
    EvidenceSummary {
        path: "/abs/ev.json".into(),
        banner: match outcome {
            Outcome::Pass => "All checks passed!".into(),
            Outcome::Fail => "1 of 2 checks failed: test".into(),
            Outcome::Error => "1 of 2 checks errored: lint".into(),
            Outcome::Interrupted => "Interrupted: 1 of 2 checks finished".into(),
        },
        failed_checks: if outcome == Outcome::Fail {
            vec!["test".into()]
        } else {
            vec![]
        },
        errored_checks: if outcome == Outcome::Error {
            vec!["lint".into()]
        } else {
            vec![]
        },
        exit_code: outcome.exit_code(),
        outcome,
        timestamp: "2026-11-21T23:59:00Z".into(),
    }
}

fn record(state: &mut State, subagent: &str, outcome: Outcome, max: u32) -> Point {
    apply(
        state,
        ("T-1", Phase::Verify, subagent),
        evidence(outcome),
        max,
        "2026-11-22T00:00:00Z".into(),
    )
}

#[test]
fn decisions_follow_the_count_and_the_last_outcome() {
    #[track_caller]
    fn case(outcome: Outcome, count: u64, max: u32, expected: Decision) {
        assert_eq!(decide(outcome, count, max), expected);
    }
    use Decision::*;
    use Outcome::*;
    for count in 1..=3 {
        case(Fail, count, 3, Retry);
        case(Error, count, 3, Retry);
        case(Interrupted, count, 3, Retry);
    }
    case(Fail, 4, 3, Subtask);
    case(Fail, 9, 3, Subtask);
    case(Error, 4, 3, Blocked);
    case(Interrupted, 4, 3, Blocked);
    case(Pass, 0, 3, Resolved);
    case(Pass, 7, 3, Resolved);
    case(Fail, 1, 0, Subtask);
    case(Error, 1, 0, Blocked);
    assert_eq!(decision_exit_code(Retry), 0);
    assert_eq!(decision_exit_code(Resolved), 0);
    assert_eq!(decision_exit_code(Subtask), 1);
    assert_eq!(decision_exit_code(Blocked), 1);
}

#[test]
fn apply_counts_failures_and_keeps_history() {
    let mut state = State::default();
    for n in 1..=5u64 {
        let point = record(&mut state, "a", Outcome::Fail, 3);
        assert_eq!(point.retry_count, n);
        assert_eq!(point.attempts.len() as u64, n);
        assert_eq!(point.attempts.last().unwrap().attempt, n);
    }
    let point = record(&mut state, "a", Outcome::Pass, 3);
    assert_eq!(point.status, PointStatus::Resolved);
    assert_eq!(point.retry_count, 5, "a pass does not reset the count");
    assert_eq!(point.last_evidence.outcome, Outcome::Pass);
    assert_eq!(point.attempts.len(), 6);
    // Failing again after a pass continues the count.
    let point = record(&mut state, "a", Outcome::Error, 3);
    assert_eq!((point.retry_count, point.status), (6, PointStatus::Blocked));
    // Another subagent is another point.
    let point = record(&mut state, "b", Outcome::Fail, 3);
    assert_eq!(
        (point.retry_count, point.status),
        (1, PointStatus::Retrying)
    );
    assert_eq!(state.points.len(), 2);
}

#[test]
fn the_serialized_state_matches_its_schema_and_reads_back() {
    let mut state = State::default();
    for outcome in [
        Outcome::Fail,
        Outcome::Error,
        Outcome::Interrupted,
        Outcome::Fail,
        Outcome::Pass,
    ] {
        record(&mut state, "a", outcome, 3);
    }
    record(&mut state, "b", Outcome::Error, 0);
    apply(
        &mut state,
        ("T-0", Phase::Fix, "z"),
        evidence(Outcome::Pass),
        3,
        "2026-11-22T00:00:00Z".into(),
    );
    let bytes = state.to_bytes();
    let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let validator = jsonschema::draft202012::new(&state_schema()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let read = State::from_value(value.clone()).unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(read, state);
    // Sorted: task, then phase (verify before fix), then subagent.
    let keys: Vec<_> = read.points.iter().map(|p| p.key()).collect();
    assert_eq!(
        keys,
        [
            ("T-0", Phase::Fix, "z"),
            ("T-1", Phase::Verify, "a"),
            ("T-1", Phase::Verify, "b"),
        ]
    );
}

#[test]
fn what_the_reader_rejects_the_schema_rejects() {
    let mut state = State::default();
    record(&mut state, "a", Outcome::Fail, 3);
    let good: serde_json::Value = serde_json::from_slice(&state.to_bytes()).unwrap();
    let validator = jsonschema::draft202012::new(&state_schema()).unwrap();
    let cases: [(&str, serde_json::Value, &str); 9] = [
        (
            "/schema_version",
            json!(2),
            "$.schema_version: unsupported state version 2 (this run-check reads version 1)",
        ),
        (
            "/points/0/retry_count",
            json!(-1),
            "$.points[0].retry_count: expected a non-negative integer, found number -1",
        ),
        (
            "/points/0/phase",
            json!("build"),
            "$.points[0].phase: expected one of \"verify\", \"fix\", found \"build\"",
        ),
        (
            "/points/0/status",
            json!("RETRY"),
            "$.points[0].status: expected one of \"retrying\", \"subtask\", \"blocked\", \"resolved\", found \"RETRY\"",
        ),
        (
            "/points/0/task_id",
            json!(" "),
            "$.points[0].task_id: must not be empty",
        ),
        (
            "/points/0/attempts/0/decision",
            json!("retry"),
            "$.points[0].attempts[0].decision: expected one of \"RETRY\", \"SUBTASK\", \"BLOCKED\", \"RESOLVED\", found \"retry\"",
        ),
        (
            "/points/0/last_evidence/exit_code",
            json!(0),
            "$.points[0].last_evidence.outcome: \"fail\" does not match exit_code 0",
        ),
        (
            "/points/0/attempts/0/evidence/failed_checks",
            json!("test"),
            "$.points[0].attempts[0].evidence.failed_checks: expected an array, found string",
        ),
        (
            "/points",
            json!({}),
            "$.points: expected an array, found object",
        ),
    ];
    for (pointer, value, message) in cases {
        let mut bad = good.clone();
        *bad.pointer_mut(pointer).unwrap() = value;
        let p = State::from_value(bad.clone()).unwrap_err();
        assert_eq!(p.to_string(), message);
        assert!(!validator.is_valid(&bad), "schema accepts {pointer}");
    }
    // An unknown field.
    let mut bad = good.clone();
    bad["points"][0]["note"] = json!("x");
    let p = State::from_value(bad.clone()).unwrap_err();
    assert_eq!(p.path.as_deref(), Some("$.points[0].note"));
    assert_eq!(
        p.message,
        "unknown field (expected task_id, phase, subagent, status, retry_count, max_retries, \
         last_evidence or attempts)"
    );
    assert!(!validator.is_valid(&bad));
    // A duplicate point.
    let mut bad = good.clone();
    let first = bad["points"][0].clone();
    bad["points"].as_array_mut().unwrap().push(first);
    let p = State::from_value(bad).unwrap_err();
    assert_eq!(
        p.to_string(),
        "$.points[1]: duplicate failure point (task `T-1`, phase `verify`, subagent `a`)"
    );
}

/// `record --format text` of a record that returned `decision` and left `point`.
fn line(decision: Decision, point: &Point) -> String {
    record_line(&RecordOutput::new(decision, point, None))
}

#[test]
fn text_lines_say_what_to_do() {
    let mut state = State::default();
    let p = record(&mut state, "a", Outcome::Fail, 1);
    assert_eq!(
        line(Decision::Retry, &p),
        "RETRY: task `T-1`, phase verify, subagent `a`: retry 1 of 1; run again (1 of 2 checks failed: test)"
    );
    let p = record(&mut state, "a", Outcome::Fail, 1);
    assert_eq!(
        line(Decision::Subtask, &p),
        "SUBTASK: task `T-1`, phase verify, subagent `a`: failed 2 times, past max_retries 1; split the task into subtasks (1 of 2 checks failed: test); lesson due (`--lessons DIR` writes it)"
    );
    let p = record(&mut state, "a", Outcome::Interrupted, 1);
    assert_eq!(
        line(Decision::Blocked, &p),
        "BLOCKED: task `T-1`, phase verify, subagent `a`: failed 3 times, past max_retries 1, and the last run was interrupted; mark the task blocked (Interrupted: 1 of 2 checks finished); lesson due (`--lessons DIR` writes it)"
    );
    let p = record(&mut state, "a", Outcome::Pass, 1);
    assert_eq!(
        line(Decision::Resolved, &p),
        "RESOLVED: task `T-1`, phase verify, subagent `a`: passed after 3 failed attempts; lesson due (`--lessons DIR` writes it)"
    );
    let p = record(&mut state, "fresh", Outcome::Pass, 1);
    assert_eq!(
        line(Decision::Resolved, &p),
        "RESOLVED: task `T-1`, phase verify, subagent `fresh`: passed"
    );
    let p = record(&mut state, "a", Outcome::Fail, 1);
    let written = RecordOutput::new(
        Decision::Subtask,
        &p,
        Some("l/2026-11-25_T-1-verify-a.md".into()),
    );
    assert_eq!(
        record_line(&written),
        "SUBTASK: task `T-1`, phase verify, subagent `a`: failed 4 times, past max_retries 1; split the task into subtasks (1 of 2 checks failed: test); lesson: `l/2026-11-25_T-1-verify-a.md`"
    );
}

#[test]
fn status_text_is_an_aligned_table() {
    let mut state = State::default();
    record(&mut state, "implementer", Outcome::Fail, 3);
    record(&mut state, "b", Outcome::Pass, 3);
    state.points.sort_by(|a, b| a.key().cmp(&b.key()));
    let points: Vec<&Point> = state.points.iter().collect();
    assert_eq!(
        status_text(&points, None, Path::new("s.json")),
        "TASK  PHASE   SUBAGENT     STATUS    RETRIES  LAST EVIDENCE\n\
         T-1   verify  b            resolved  0/3      exit 0: All checks passed!\n\
         T-1   verify  implementer  retrying  1/3      exit 1: 1 of 2 checks failed: test\n"
    );
    assert_eq!(
        status_text(&[], Some("T-9"), Path::new("s.json")),
        "no failure points of task `T-9` in `s.json`\n"
    );
}

#[test]
fn names_must_be_printable_and_not_blank() {
    assert!(state::check_name("T-1 (retry)").is_ok());
    assert_eq!(state::check_name(""), Err("must not be empty"));
    assert_eq!(state::check_name(" \t"), Err("must not be empty"));
    assert_eq!(
        state::check_name("a\nb"),
        Err("must not contain control characters")
    );
    let schema = state_schema();
    let pattern = schema["$defs"]["Point"]["properties"]["task_id"].clone();
    let validator = jsonschema::draft202012::new(&pattern).unwrap();
    for (name, ok) in [
        ("T-1 (retry)", true),
        ("", false),
        (" \t", false),
        ("a\nb", false),
        ("a\u{85}b", false),
    ] {
        assert_eq!(validator.is_valid(&json!(name)), ok, "{name:?}");
        assert_eq!(state::check_name(name).is_ok(), ok, "{name:?}");
    }
}

#[test]
fn the_lock_file_is_a_sidecar() {
    assert_eq!(
        state::lock_path(Path::new("runs/retry-state.json")),
        Path::new("runs/retry-state.json.lock")
    );
}

/// The state file's JSON Schema (`run-check schema retry-state`).
fn state_schema() -> serde_json::Value {
    run_check_documents::schema::by_name("retry-state").unwrap_or_default()
}
