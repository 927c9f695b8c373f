use super::*;
use crate::config::Dimension;
use run_check_documents::verdict::{DimensionResult, Score};

fn check(name: &str, status: Status, error: Option<&str>, timed_out: bool) -> CheckRecord {
    CheckRecord {
        error: error.map(str::to_string),
        ..crate::aggregate::judge::tests::record(
            serde_json::json!({"name": name, "status": status, "timed_out": timed_out}),
        )
    }
}

fn evidence(checks: Vec<CheckRecord>) -> Evidence {
    crate::aggregate::judge::tests::evidence_with(checks, vec![])
}

#[test]
fn pass_rework_blocked() {
    let d = from_evidence(&evidence(vec![
        check("a", Status::Pass, None, false),
        check("b", Status::Skip, None, false),
    ]));
    assert_eq!(
        (d.decision, d.reason.as_str()),
        (DecisionKind::Pass, "all checks passed")
    );
    let d = from_evidence(&evidence(vec![
        check("a", Status::Fail, None, false),
        check("b", Status::Pass, None, false),
    ]));
    assert_eq!(
        (d.decision, d.reason.as_str()),
        (DecisionKind::Rework, "1 of 2 checks failed: a")
    );
    // A modified worktree is rework even when every check passed.
    let mut e = evidence(vec![check("a", Status::Pass, None, false)]);
    e.contracts.read_only.modified = vec!["src/x.rs".into()];
    let d = from_evidence(&e);
    assert_eq!(d.decision, DecisionKind::Rework);
    assert_eq!(d.reason, "the checks modified the worktree: src/x.rs");
    // An error beats a failure.
    let d = from_evidence(&evidence(vec![
        check("a", Status::Fail, None, false),
        check("b", Status::Error, Some("boom"), false),
    ]));
    assert_eq!(d.decision, DecisionKind::Blocked);
    assert_eq!(
        d.blocked,
        [Blocked {
            check: "b".into(),
            category: Category::Code,
            reason: "boom".into()
        }]
    );
    assert_eq!(d.reason, "blocked: b (code: boom)");
}

#[test]
fn a_timeout_is_rework_not_a_block() {
    let d = from_evidence(&evidence(vec![check("slow", Status::Fail, None, true)]));
    assert_eq!(
        (d.decision, d.reason.as_str(), d.blocked.len()),
        (DecisionKind::Rework, "1 of 1 checks failed: slow", 0)
    );
}

#[test]
fn a_red_run_without_a_failed_check_is_rework() {
    let mut e = evidence(vec![check("a", Status::Pass, None, false)]);
    e.summary.all_checks_passed = false;
    e.summary.exit_code = 1;
    e.summary.banner = "Task contract violated: files_involved".into();
    let d = from_evidence(&e);
    assert_eq!(
        (d.decision, d.reason.as_str()),
        (
            DecisionKind::Rework,
            "Task contract violated: files_involved"
        )
    );
}

#[test]
fn a_failed_verification_blocks_as_infrastructure() {
    let mut e = evidence(vec![check("a", Status::Pass, None, false)]);
    e.contracts.read_only.error = Some("`git status` failed".into());
    let d = from_evidence(&e);
    assert_eq!(d.decision, DecisionKind::Blocked);
    assert_eq!(
        (d.blocked[0].check.as_str(), d.blocked[0].category),
        ("run-check", Category::Infrastructure)
    );
}

#[test]
fn aggregator_input_decisions_follow_the_gates() {
    let result = || DimensionResult {
        passed: true,
        score: Some(Score(90.0)),
        issues: vec![],
    };
    let mut input = AggregatorInput {
        iteration: None,
        tech_stack: Default::default(),
        security_result: result(),
        quality_result: result(),
        performance_result: result(),
        previous_scores: vec![],
    };
    let open = Gates {
        too_many_critical: false,
        too_many_high: false,
        failed_dimensions: vec![],
        overall_below: false,
        red_gate: None,
    };
    let d = from_aggregator(&input, &open);
    assert_eq!(
        (d.decision, d.next_agent, d.reason.as_str()),
        (DecisionKind::Pass, NextAgent::Finish, "every gate passed")
    );
    // A reviewer's `passed: false` does not override the scores (the
    // judge decides by them, docs/judge.md), but the reason says so.
    input.security_result.passed = false;
    input.performance_result.passed = false;
    let d = from_aggregator(&input, &open);
    assert_eq!(
        (d.decision, d.reason.as_str()),
        (
            DecisionKind::Pass,
            "every gate passed (`passed` false in security_result, performance_result: \
                 an aggregator input is judged by its scores)"
        )
    );
    // A failed gate is REWORK, even when every reviewer said passed.
    input.security_result.passed = true;
    let closed = Gates {
        too_many_critical: true,
        too_many_high: true,
        failed_dimensions: vec![Dimension::Security, Dimension::Quality],
        overall_below: true,
        red_gate: None,
    };
    let d = from_aggregator(&input, &closed);
    assert_eq!(
        (d.decision, d.next_agent),
        (DecisionKind::Rework, NextAgent::Implementer)
    );
    assert_eq!(
        d.reason,
        "below the minimum: security, quality; overall score below `overall_min`; \
             more critical issues than `max_critical_issues`; more high issues than \
             `max_high_issues`; `passed` false in performance_result"
    );
}

#[test]
fn an_interrupted_run_is_blocked_until_validated_again() {
    let e = evidence(vec![
        check("a", Status::Pass, None, false),
        CheckRecord {
            skip_reason: Some("interrupted".into()),
            ..check("b", Status::Skip, None, false)
        },
    ]);
    let d = from_evidence(&e);
    assert_eq!(d.decision, DecisionKind::Blocked);
    assert_eq!(
        (
            d.blocked[0].check.as_str(),
            d.blocked[0].category,
            d.blocked[0].reason.as_str()
        ),
        (
            "run-check",
            Category::Infrastructure,
            "the run was interrupted: 1 of 2 checks did not run (b)"
        )
    );
}
