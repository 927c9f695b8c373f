use super::*;
use serde_json::{Value, json};
use verdict::{DecisionKind, NextAgent, StallType, Trend};

/// An aggregator input: iteration 3 after 65 and 72; security 75 (one
/// Critical), quality 85 (one Medium), performance 90.
pub(crate) fn sample_input() -> Value {
    json!({
        "iteration": 3,
        "security_result": {"passed": false, "score": 75, "issues": [{
            "severity": "Critical", "type": "SQL_INJECTION", "file": "src/db.py", "line": 42,
            "description": "string-built SQL query",
            "suggestion": "cursor.execute('SELECT * FROM users WHERE id = ?', (user_id,))",
            "tech_stack_hint": "use SQLAlchemy"
        }]},
        "quality_result": {"passed": true, "score": 85, "issues": [
            {"severity": "Medium", "type": "dead_code", "description": "unused function"}
        ]},
        "performance_result": {"passed": true, "score": 90, "issues": []},
        "previous_scores": [65, 72]
    })
}

fn judge(value: &Value, config: &JudgeConfig, history: &[PastRound]) -> Result<Verdict, Error> {
    let source = input::read(value.clone())
        .map_err(|p| crate::json_input::from_problem(Path::new("in.json"), p))?;
    evaluate(&Round {
        source: &source,
        config,
        config_used: None,
        history,
        retry: None,
        file: Path::new("in.json"),
    })
    .map(|(verdict, _)| verdict)
}

/// The verdict of [`sample_input`] with the defaults.
pub(crate) fn sample_verdict() -> Verdict {
    judge(&sample_input(), &JudgeConfig::default(), &[]).unwrap()
}

#[test]
fn reference_example_is_82_25_and_iterates() {
    let v = sample_verdict();
    // 75 * 0.4 + 85 * 0.35 + 90 * 0.25 = 82.25
    assert_eq!(v.overall_score, Some(82.25));
    assert_eq!(v.iteration, 3);
    assert!(!v.passed);
    assert_eq!(v.recommendation, Recommendation::Iterate);
    assert_eq!(v.progress.previous_score, Some(72.0));
    assert_eq!(v.progress.improvement, Some(10.25));
    assert_eq!(v.progress.trend, Trend::Improving);
    assert_eq!(v.progress.failed_dimensions, [config::Dimension::Security]);
    assert_eq!(v.issues.critical[0].id, "SEC-001");
    assert_eq!(v.issues.medium[0].id, "QA-001");
    assert_eq!(
        v.issues.critical[0].fingerprint,
        "SQL_INJECTION:src/db.py:42"
    );
    assert_eq!(
        v.feedback_for_code_writer.priority_order,
        ["SEC-001", "QA-001"]
    );
    assert_eq!(v.feedback_for_code_writer.score_gap.security, Some(10.0));
    assert_eq!(v.feedback_for_code_writer.iteration_budget.remaining, 2);
    assert_eq!(
        v.next_action,
        "Fix SEC-001 (Critical) and run the checks again"
    );
    assert_eq!(v.decision.decision, DecisionKind::Rework);
    assert_eq!(v.decision.next_agent, NextAgent::Implementer);
}

#[test]
fn aggregator_input_iteration_defaults_to_previous_scores_plus_recorded_rounds_plus_one() {
    let mut input = sample_input();
    input.as_object_mut().unwrap().remove("iteration");
    let v = judge(&input, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(v.iteration, 3, "len([65, 72]) + 1");
    let recorded = [PastRound::score_only(80.0)];
    let v = judge(&input, &JudgeConfig::default(), &recorded).unwrap();
    assert_eq!(v.iteration, 4, "2 previous scores + 1 recorded round + 1");
    // The recorded round follows previous_scores: it is the previous score.
    assert_eq!(v.progress.previous_score, Some(80.0));
    // 82.25 after 80 is +2.25: below the threshold of 5.
    assert_eq!(v.progress.improvement, Some(2.25));
    assert_eq!(v.progress.trend, Trend::SlowImprovement);
}

#[test]
fn tech_stack_overrides_judge_key_by_key() {
    let config = JudgeConfig {
        thresholds: thresholds::Thresholds {
            security_min: 70.0,
            overall_min: 90.0,
            ..Default::default()
        },
        ..JudgeConfig::default()
    };
    // [judge] lowers security_min to 70 but raises overall_min to 90.
    let v = judge(&sample_input(), &config, &[]).unwrap();
    assert_eq!(v.thresholds_used.security_min, 70.0);
    assert!(v.progress.failed_dimensions.is_empty());
    assert_eq!(v.feedback_for_code_writer.score_gap.overall, Some(7.75));
    // The input's tech_stack overrides overall_min again (key by key).
    let mut input = sample_input();
    input["tech_stack"] = json!({"quality_thresholds": {"overall_min": 80}});
    let v = judge(&input, &config, &[]).unwrap();
    assert_eq!(
        (
            v.thresholds_used.security_min,
            v.thresholds_used.overall_min
        ),
        (70.0, 80.0)
    );
    // Only the critical issue blocks now.
    assert_eq!(
        v.feedback_for_code_writer.summary,
        "to pass: fix 1 Critical issue (at most 0 allowed)"
    );
    // Weights: security 0.2 from the input; 0.2 + 0.35 + 0.25 = 0.8 is an error.
    input["tech_stack"]["weights"] = json!({"security": 0.2});
    let err = judge(&input, &config, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "in.json: $.tech_stack.weights: the merged weights (security 0.2, quality 0.35, \
             performance 0.25) sum to 0.8, not 1.0 (±0.001)"
    );
    // 0.2 + 0.55 + 0.25 = 1: overall = 75*0.2 + 85*0.55 + 90*0.25 = 15 + 46.75 + 22.5 = 84.25.
    input["tech_stack"]["weights"]["quality"] = json!(0.55);
    let v = judge(&input, &config, &[]).unwrap();
    assert_eq!(v.overall_score, Some(84.25));
}

#[test]
fn pass_with_issues_within_the_limits() {
    let input = json!({
        "security_result": {"passed": true, "score": 85, "issues": [
            {"severity": "High", "type": "A"}, {"severity": "High", "type": "B"}
        ]},
        "quality_result": {"passed": true, "score": 80, "issues": []},
        "performance_result": {"passed": true, "score": null, "issues": []}
    });
    let v = judge(&input, &JudgeConfig::default(), &[]).unwrap();
    // performance null: 85 * 0.4/0.75 + 80 * 0.35/0.75 = (34 + 28) / 0.75 = 82.666... -> 82.67
    assert_eq!(v.overall_score, Some(82.67));
    assert_eq!(v.scores.performance, None);
    assert_eq!(v.weights_used.performance, 0.0);
    assert!(v.passed);
    assert_eq!(v.recommendation, Recommendation::Pass);
    assert_eq!(v.next_action, "Finish: every gate passed");
    assert_eq!(v.decision.decision, DecisionKind::Pass);
    assert_eq!(v.feedback_for_code_writer.score_gap.performance, None);
}

/// Evidence of these checks and diagnostics as JSON, its other fields
/// filled in (summary included).
pub(crate) fn evidence(checks: Value, diagnostics: Value) -> Value {
    crate::run::evidence::complete(&json!({"checks": checks, "diagnostics": diagnostics}))
}

/// Evidence of these checks and diagnostics, its other fields filled in.
pub(crate) fn evidence_with(
    checks: Vec<run_check_documents::evidence::CheckRecord>,
    diagnostics: Vec<run_check_documents::evidence::Diagnostic>,
) -> run_check_documents::evidence::Evidence {
    let mut e = run_check_documents::evidence::Evidence::from_value(evidence(json!([]), json!([])))
        .unwrap();
    e.checks = checks;
    e.diagnostics = diagnostics;
    e
}

/// A check record of these fields, the others filled in.
pub(crate) fn record(fields: Value) -> run_check_documents::evidence::CheckRecord {
    run_check_documents::evidence::Evidence::from_value(evidence(json!([fields]), json!([])))
        .unwrap()
        .checks
        .remove(0)
}

#[test]
fn evidence_rounds_over_a_history() {
    // security: audit fails (0) -> 0; quality: unit passes, lint fails -> 50;
    // performance: bench is skipped -> null.
    // overall = (0 * 0.4 + 50 * 0.35) / 0.75 = 17.5 / 0.75 = 23.333... -> 23.33
    let ev = evidence(
        json!([
            {"name": "audit", "status": "fail", "dimension": "security", "severity": "critical", "exit_code": 1},
            {"name": "unit", "status": "pass"},
            {"name": "lint", "status": "fail", "exit_code": 2},
            {"name": "bench", "status": "skip", "dimension": "performance"}
        ]),
        json!([]),
    );
    let first = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(first.iteration, 1);
    assert_eq!(
        (
            first.scores.security,
            first.scores.quality,
            first.scores.performance
        ),
        (Some(0.0), Some(50.0), None)
    );
    assert_eq!(first.overall_score, Some(23.33));
    assert_eq!(first.issue_counts.critical, 1);
    assert_eq!(first.issues.critical[0].id, "SEC-001");
    assert_eq!(first.issues.high[0].id, "QA-001");
    assert_eq!(first.progress.trend, Trend::First);
    assert_eq!(first.recommendation, Recommendation::Iterate);
    assert_eq!(first.decision.decision, DecisionKind::Rework);
    // Record it, judge the same evidence twice more: flat scores and the
    // same critical fingerprint. Round 2: +0 (stable), 1 round only: ITERATE.
    let recorded = |v: &Verdict| {
        let line = serde_json::to_string(v).unwrap();
        history::parse(Path::new("h"), line.as_bytes())
            .unwrap()
            .remove(0)
    };
    let r1 = recorded(&first);
    let second = judge(&ev, &JudgeConfig::default(), std::slice::from_ref(&r1)).unwrap();
    assert_eq!(second.iteration, 2);
    assert_eq!(second.progress.trend, Trend::Stable);
    assert!(second.progress.stall_warning);
    assert_eq!(second.recommendation, Recommendation::Iterate);
    assert_eq!(second.progress.persistent_issues, ["SEC-001", "QA-001"]);
    // Round 3: two flat improvements -> STALLED_SCORE (before STALLED_CRITICAL).
    let r2 = recorded(&second);
    let third = judge(&ev, &JudgeConfig::default(), &[r1, r2]).unwrap();
    assert_eq!(third.iteration, 3);
    assert_eq!(third.recommendation, Recommendation::Stalled);
    assert_eq!(third.progress.stall_type, Some(StallType::StalledScore));
    assert_eq!(third.route.next, NextAgent::User);
    assert!(
        third
            .next_action
            .starts_with("Ask a person whether more context")
    );
}

#[test]
fn an_exceeded_budget_recommends_subtask_even_when_passing() {
    let mut ev = evidence(json!([{"name": "unit", "status": "pass"}]), json!([]));
    ev["contracts"]["change_budget"] = json!({"base": "HEAD", "files_changed": 3,
        "loc_changed": 420, "max_files": 10, "max_loc": 400, "exceeded": true});
    let v = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert!(v.passed);
    assert_eq!(v.recommendation, Recommendation::Pass);
    assert_eq!(v.route.next, NextAgent::Finish);
    ev["contracts"]["change_budget"]["exceeded"] = json!(false);
    let v = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(v.recommendation, Recommendation::Pass);
}

#[test]
fn infrastructure_blocks_validate_then_escalate() {
    let ev = evidence(
        json!([{"name": "unit", "status": "error", "error": "killed by SIGKILL"}]),
        json!([]),
    );
    let first = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(first.decision.decision, DecisionKind::Blocked);
    assert_eq!(first.route.next, NextAgent::Validate);
    assert_eq!(first.decision.next_agent, NextAgent::Validate);
    // An errored check is not scored: nothing was, so the overall is null.
    assert_eq!(first.overall_score, None);
    let line = serde_json::to_string(&first).unwrap();
    let rounds = history::parse(Path::new("h"), line.as_bytes()).unwrap();
    let second = judge(&ev, &JudgeConfig::default(), &rounds).unwrap();
    assert_eq!(second.route.next, NextAgent::User);
    assert_eq!(second.decision.next_agent, NextAgent::User);
    assert_eq!(second.next_action, second.route.action);
}

#[test]
fn a_timeout_is_rework_for_the_implementer() {
    let ev = evidence(
        json!([{"name": "slow", "status": "fail", "timed_out": true}]),
        json!([]),
    );
    let v = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(v.decision.decision, DecisionKind::Rework);
    assert_eq!(v.route.next, NextAgent::Implementer);
    assert_eq!(v.issues.high[0].description, "check `slow` timed out");
}

#[test]
fn nothing_scored_is_null_and_not_gated() {
    let ev = evidence(json!([{"name": "a", "status": "skip"}]), json!([]));
    let v = judge(&ev, &JudgeConfig::default(), &[]).unwrap();
    assert_eq!(v.overall_score, None);
    assert!(v.passed);
    assert_eq!(v.recommendation, Recommendation::Pass);
    assert_eq!(v.progress.trend, Trend::First);
}
