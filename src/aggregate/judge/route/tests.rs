use super::*;
use crate::aggregate::judge::verdict::{Issue, Regression, Trend, fingerprint};
use crate::config::Dimension;

fn progress(stall: Option<StallType>) -> Progress {
    Progress {
        previous_score: None,
        current_score: None,
        improvement: None,
        trend: Trend::First,
        stall_warning: false,
        stall_type: stall,
        persistent_issues: vec![],
        oscillation_detected: false,
        regression_detected: stall == Some(StallType::StalledRegression),
        regressions: match stall {
            Some(StallType::StalledRegression) => vec![Regression {
                dimension: Dimension::Quality,
                previous: 90.0,
                current: 70.0,
                drop: 20.0,
            }],
            _ => vec![],
        },
        failed_dimensions: vec![],
    }
}

fn decision(kind: DecisionKind, blocked: &[Category]) -> Decision {
    Decision {
        decision: kind,
        blocked: blocked
            .iter()
            .enumerate()
            .map(|(n, c)| Blocked {
                check: format!("c{n}"),
                category: *c,
                reason: c.as_str().into(),
            })
            .collect(),
        next_agent: NextAgent::Finish,
        reason: String::new(),
    }
}

fn critical(kind: &str, file: Option<&str>) -> Issue {
    Issue {
        id: "QA-001".into(),
        source: "run-check".into(),
        severity: Severity::Critical,
        kind: kind.into(),
        file: file.map(str::to_string),
        line: None,
        description: "d".into(),
        suggestion: None,
        tech_stack_hint: None,
        fingerprint: fingerprint(kind, file, None),
        dimension: Dimension::Quality,
    }
}

/// Everything that can hold at once, each switched on by a field.
struct Case {
    decision: Decision,
    last_infrastructure: bool,
    recommendation: Recommendation,
    stall: Option<StallType>,
    gate_changed: bool,
    budget: bool,
    violation: bool,
    retry: Option<RetryPoint>,
    /// The files of the problems the round before the regression lacked.
    regressed: Vec<String>,
}

impl Case {
    /// An ITERATE round of a failed check: nothing else holds.
    fn new() -> Case {
        Case {
            decision: decision(DecisionKind::Rework, &[]),
            last_infrastructure: false,
            recommendation: Recommendation::Iterate,
            stall: None,
            gate_changed: false,
            budget: false,
            violation: false,
            retry: None,
            regressed: Vec::new(),
        }
    }

    fn route(&self) -> Route {
        let mut issues = Issues::default();
        issues.high.push(Issue {
            id: "QA-002".into(),
            severity: Severity::High,
            ..critical("unit", Some("tests/t.py"))
        });
        if self.gate_changed {
            issues.critical.push(critical(
                super::super::issues::GATE_CHANGED,
                Some("checks.toml"),
            ));
        }
        let budget = ChangeBudget {
            base: "HEAD".into(),
            files_changed: 12,
            loc_changed: 90,
            max_files: 10,
            max_loc: 400,
            exceeded: self.budget,
        };
        let violations = [Violation {
            field: "estimated_loc".into(),
            message: "600 is over the hard limit of 400".into(),
        }];
        let progress = progress(self.stall);
        decide(&Facts {
            decision: &self.decision,
            last_blocked_on_infrastructure: self.last_infrastructure,
            recommendation: self.recommendation,
            progress: &progress,
            before_regression: Some(3),
            regressed_paths: &self.regressed,
            issues: &issues,
            blockers: &["fix 1 High issue".to_string()],
            budget: Some(&budget),
            violations: if self.violation { &violations } else { &[] },
            retry: self.retry.as_ref(),
            iteration: 4,
            thresholds: &Thresholds::default(),
        })
    }

    fn next(&self) -> NextAgent {
        self.route().next
    }
}

fn retry(count: u64, decision: RetryDecision) -> Option<RetryPoint> {
    Some(RetryPoint {
        name: "T-1/verify/c1".into(),
        retry_count: count,
        max_retries: 3,
        decision,
    })
}

use Category::{Code, Environment, Infrastructure};
use NextAgent::{Finish, Implementer, Subtask, User, Validate};

#[test]
fn rule_1_blocked_environment_then_infrastructure_then_code() {
    let mut case = Case::new();
    let blocked = |c: &[Category]| decision(DecisionKind::Blocked, c);
    case.decision = blocked(&[Code, Infrastructure, Environment]);
    assert_eq!(case.next(), User, "environment beats the others");
    case.decision = blocked(&[Code, Infrastructure]);
    assert_eq!(case.next(), Validate, "infrastructure beats code");
    case.last_infrastructure = true;
    assert_eq!(case.next(), User, "the 2nd infrastructure block in a row");
    case.decision = blocked(&[Code]);
    assert_eq!(
        case.next(),
        Implementer,
        "code, whatever the last round was"
    );
    // Rule 1 comes before every other rule that holds at the same time.
    case.gate_changed = true;
    case.budget = true;
    case.retry = retry(9, RetryDecision::Subtask);
    case.recommendation = Recommendation::FailMaxIterations;
    assert_eq!(case.next(), Implementer);
    let r = Case {
        decision: blocked(&[Environment]),
        ..Case::new()
    }
    .route();
    assert_eq!(r.reason, "blocked on the environment: c0 (environment)");
    assert!(r.action.starts_with("Ask a person to install or allow"));
}

#[test]
fn rule_2_pass_finishes_before_the_later_rules() {
    let mut case = Case::new();
    case.decision = decision(DecisionKind::Pass, &[]);
    case.recommendation = Recommendation::Pass;
    assert_eq!(case.next(), Finish);
    // An exceeded budget and a retry state past its limit do not hold
    // back a pass (rule 2 is first); a changed gate cannot pass at all
    // (its Critical issue fails the gates), so it never meets rule 2.
    case.budget = true;
    case.violation = true;
    case.retry = retry(9, RetryDecision::Subtask);
    assert_eq!(case.route().action, "Finish: every gate passed");
}

#[test]
fn rule_3_a_changed_gate_goes_to_the_user_before_budget_and_retries() {
    let mut case = Case::new();
    case.gate_changed = true;
    case.budget = true;
    case.retry = retry(9, RetryDecision::Subtask);
    case.recommendation = Recommendation::FailMaxIterations;
    let r = case.route();
    assert_eq!(r.next, User);
    assert_eq!(r.reason, "the gate itself changed: checks.toml");
    assert!(
        r.action
            .contains("decide whether the change of the gate is allowed")
    );
}

#[test]
fn rule_4_budget_or_violations_split_before_retries() {
    let mut case = Case::new();
    case.budget = true;
    case.retry = retry(9, RetryDecision::Blocked);
    let r = case.route();
    assert_eq!(r.next, Subtask);
    assert_eq!(
        r.action,
        "Split the task into subtasks: the change exceeds its budget (12 files changed, at \
             most 10; 90 lines changed, at most 400)"
    );
    case.budget = false;
    case.violation = true;
    assert_eq!(
        case.route().reason,
        "the task breaks its limits (estimated_loc: 600 is over the hard limit of 400)"
    );
}

#[test]
fn rule_5_retries_past_the_limit_follow_the_tracker() {
    let mut case = Case::new();
    case.recommendation = Recommendation::FailMaxIterations;
    // retry_count 3 of max_retries 3 is not past the limit: rule 6 decides.
    case.retry = retry(3, RetryDecision::Retry);
    assert_eq!(case.next(), User);
    case.recommendation = Recommendation::Iterate;
    assert_eq!(case.next(), Implementer);
    case.retry = retry(4, RetryDecision::Subtask);
    let r = case.route();
    assert_eq!(r.next, Subtask);
    assert_eq!(
        r.reason,
        "failure point T-1/verify/c1 failed 4 times, more than max_retries 3"
    );
    case.retry = retry(4, RetryDecision::Blocked);
    assert_eq!(case.next(), User);
    // Before FAIL_MAX_ITERATIONS and stalls.
    case.retry = retry(4, RetryDecision::Subtask);
    case.recommendation = Recommendation::FailMaxIterations;
    assert_eq!(case.next(), Subtask);
    // A resolved point past the count does not escalate.
    case.retry = retry(5, RetryDecision::Resolved);
    assert_eq!(case.next(), User, "rule 6 then");
}

#[test]
fn rule_6_the_last_iteration_goes_to_the_user() {
    let mut case = Case::new();
    case.recommendation = Recommendation::FailMaxIterations;
    let r = case.route();
    assert_eq!(r.next, User);
    assert_eq!(r.reason, "iteration 4 of max_iterations 5 did not pass");
    assert!(r.action.ends_with("(fix 1 High issue)"), "{}", r.action);
}

#[test]
fn rule_7_a_regression_rolls_back_other_stalls_go_to_the_user() {
    let mut case = Case::new();
    case.recommendation = Recommendation::Stalled;
    case.stall = Some(StallType::StalledRegression);
    let r = case.route();
    assert_eq!(r.next, Implementer);
    assert_eq!(
        r.action,
        "Roll back to iteration 3, the last round without the regression, and redo the \
             change: quality dropped from 90 to 70"
    );
    // One numbering, and what to restore: the files of the problems that
    // round did not have, with the command that shows their changes.
    case.regressed = vec!["src/a.py".into(), "tests/t.py".into()];
    assert_eq!(
        case.route().action,
        "Roll back to iteration 3, the last round without the regression: restore src/a.py, \
         tests/t.py, the files of the problems that round did not have (`git diff -- src/a.py \
         tests/t.py` shows what changed in them since the last commit), and redo the change: \
         quality dropped from 90 to 70"
    );
    case.regressed = (1..=7).map(|n| format!("f{n}.py")).collect();
    assert!(
        case.route()
            .action
            .contains("restore f1.py, f2.py, f3.py, f4.py, f5.py and 2 more, "),
        "{}",
        case.route().action
    );
    case.regressed.clear();
    for stall in [
        StallType::StalledScore,
        StallType::StalledCritical,
        StallType::StalledOscillating,
    ] {
        case.stall = Some(stall);
        assert_eq!(case.next(), User, "{stall:?}");
    }
}

#[test]
fn rule_8_iterate_names_the_first_issues() {
    let r = Case::new().route();
    assert_eq!(r.next, Implementer);
    assert_eq!(r.action, "Fix QA-002 (High) and run the checks again");
}

/// The facts of a round with `issues`, recommended `recommendation`.
fn facts<'a>(
    decision: &'a Decision,
    progress: &'a Progress,
    issues: &'a Issues,
    recommendation: Recommendation,
    thresholds: &'a Thresholds,
) -> Facts<'a> {
    Facts {
        decision,
        last_blocked_on_infrastructure: false,
        recommendation,
        progress,
        before_regression: Some(3),
        regressed_paths: &[],
        issues,
        blockers: &[],
        budget: None,
        violations: &[],
        retry: None,
        iteration: 4,
        thresholds,
    }
}

#[test]
fn the_step_names_places_where_the_document_names_ids() {
    let mut located = critical("sql", Some("src/db.py"));
    located.line = Some(42);
    located.source = "bandit".into();
    let mut unlocated = critical("tests", None);
    unlocated.id = "QA-0010".into();
    unlocated.source = "tests".into();
    let issues = Issues {
        critical: vec![located.clone(), unlocated.clone()],
        ..Issues::default()
    };
    let decision = decision(DecisionKind::Rework, &[]);
    let progress = progress(None);
    let t = Thresholds::default();
    let f = facts(&decision, &progress, &issues, Recommendation::Iterate, &t);
    assert_eq!(
        decide(&f).action,
        "Fix QA-001 (Critical), QA-0010 (Critical) and run the checks again"
    );
    let step = step(&f);
    assert_eq!(
        step.next_step(),
        "IMPLEMENTER: Fix src/db.py:42 (bandit sql), check tests and run the checks again"
    );
    assert_eq!(step.problems, vec![located, unlocated]);
    assert_eq!(step.roll_back_to, None);
}

#[test]
fn a_roll_back_is_a_value() {
    let issues = Issues::default();
    let decision = decision(DecisionKind::Rework, &[]);
    let regression = progress(Some(StallType::StalledRegression));
    let t = Thresholds::default();
    let f = facts(&decision, &regression, &issues, Recommendation::Stalled, &t);
    assert!(decide(&f).action.starts_with("Roll back to iteration 3,"));
    assert_eq!(step(&f).roll_back_to, Some(3));
    // A caller with its own numbering says the round in it only.
    let paths = vec!["src/a.py".to_string()];
    let f = Facts {
        regressed_paths: &paths,
        ..facts(&decision, &regression, &issues, Recommendation::Stalled, &t)
    };
    assert_eq!(
        step(&f).next_step_numbered("stop", |at| format!(
            "stop {} (round-{}.json)",
            at + 1,
            at + 1
        )),
        "IMPLEMENTER: Roll back to stop 4 (round-4.json), the last stop without the regression: \
         restore src/a.py, the files of the problems that stop did not have (`git diff -- \
         src/a.py` shows what changed in them since the last commit), and redo the change: \
         quality dropped from 90 to 70"
    );
    let critical = progress(Some(StallType::StalledCritical));
    let f = facts(&decision, &critical, &issues, Recommendation::Stalled, &t);
    assert_eq!(step(&f).roll_back_to, None);
}
