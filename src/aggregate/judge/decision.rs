//! The judge's decision (docs/judge.md): who acts next.
//!
//! - `BLOCKED` when a check could not be judged (status `error`), or the
//!   read-only verification itself failed (`contracts.read_only.error`).
//!   Each blocked check is classified from its `error`: `environment`
//!   (program not found / not whitelisted / its `#!` interpreter missing),
//!   `infrastructure` (could not start, killed by a signal run-check did
//!   not send), `code` (anything else).
//! - else `REWORK` when a check failed (a timeout is a failure: a check that
//!   does not finish is the code's until shown otherwise), the checks
//!   modified the worktree, or the run is red for a reason of its own;
//! - else `PASS` (skipped checks do not count).
//!
//! `next_agent` is the route's `next` ([`super::route`]), set by the judge
//! after routing, so the two never point two ways.
//!
//! An aggregator input has no checks: `PASS` when the reference judge's gates pass (the
//! verdict's `passed`), else `REWORK`; see [`from_aggregator`].
//!
//! An interrupted run (`summary.exit_code` 130, or checks skipped as
//! `interrupted`) is BLOCKED by infrastructure: run the validation again.

use run_check_documents::evidence::Status;

use super::input::AggregatorInput;
use super::score::Gates;
use super::verdict::{Blocked, Category, Decision, DecisionKind, NextAgent, dimension_name};
use run_check_documents::evidence::{CheckRecord, Evidence};

/// The category of a blocked check.
pub(crate) fn classify(check: &CheckRecord) -> Category {
    let error = check
        .error
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| error.contains(w));
    if any(&[
        "not found",
        "not whitelisted",
        "not allowed",
        "not in settings.allow",
        // A script whose `#!` interpreter is missing: install it.
        "the interpreter on its `#!` line",
    ]) {
        Category::Environment
    } else if any(&[
        "failed to start",
        "could not start",
        "killed by",
        "failed to create pipes",
        "failed to wait",
        "does not exist",
    ]) {
        Category::Infrastructure
    } else {
        Category::Code
    }
}

/// The decision for evidence. Its `next_agent` is the route's, set by the
/// caller ([`super::route`]); here it is a placeholder.
pub(crate) fn from_evidence(evidence: &Evidence) -> Decision {
    let mut blocked: Vec<Blocked> = evidence
        .checks
        .iter()
        .filter(|c| c.status == Status::Error)
        .map(|c| Blocked {
            check: c.name.clone(),
            category: classify(c),
            reason: c.error.clone().unwrap_or_else(|| "errored".to_string()),
        })
        .collect();
    if let Some(error) = &evidence.contracts.read_only.error {
        blocked.push(Blocked {
            check: "run-check".into(),
            category: Category::Infrastructure,
            reason: format!("read-only verification failed: {error}"),
        });
    }
    if evidence.interrupted() {
        blocked.push(Blocked {
            check: "run-check".into(),
            category: Category::Infrastructure,
            reason: super::issues::interrupted_description(evidence),
        });
    }
    if !blocked.is_empty() {
        let list = blocked
            .iter()
            .map(|b| format!("{} ({}: {})", b.check, b.category.as_str(), b.reason))
            .collect::<Vec<_>>()
            .join(", ");
        return Decision {
            decision: DecisionKind::Blocked,
            reason: format!("blocked: {list}"),
            blocked,
            next_agent: NextAgent::Validate,
        };
    }
    let failed: Vec<&str> = evidence
        .checks
        .iter()
        .filter(|c| c.status == Status::Fail)
        .map(|c| c.name.as_str())
        .collect();
    let mut problems =
        run_check_documents::evidence::failures("checks", evidence.checks.len(), &failed, &[]);
    let modified = &evidence.contracts.read_only.modified;
    if !modified.is_empty() {
        problems.push(format!(
            "the checks modified the worktree: {}",
            modified.join(", ")
        ));
    }
    if problems.is_empty() && !evidence.summary.all_checks_passed {
        // Red for a reason of the run's own (a task or gate contract).
        problems.push(evidence.summary.banner.clone());
    }
    if problems.is_empty() {
        Decision {
            decision: DecisionKind::Pass,
            blocked: Vec::new(),
            next_agent: NextAgent::Finish,
            reason: "all checks passed".into(),
        }
    } else {
        Decision {
            decision: DecisionKind::Rework,
            blocked: Vec::new(),
            next_agent: NextAgent::Implementer,
            reason: problems.join("; "),
        }
    }
}

/// The decision for an aggregator input. It has no checks: its results are
/// judged by the reference judge's gates (`gates`, the verdict's `passed`), and the
/// decision follows them, so `decision` and `recommendation` never send the
/// loop two ways (PASS → FINISH exactly when the gates pass). A result whose
/// own `passed` is false is named in the reason either way.
pub(crate) fn from_aggregator(input: &AggregatorInput, gates: &Gates) -> Decision {
    let mut problems: Vec<String> = Vec::new();
    if !gates.failed_dimensions.is_empty() {
        let names: Vec<&str> = gates
            .failed_dimensions
            .iter()
            .map(|d| dimension_name(*d))
            .collect();
        problems.push(format!("below the minimum: {}", names.join(", ")));
    }
    if gates.overall_below {
        problems.push("overall score below `overall_min`".into());
    }
    if gates.too_many_critical {
        problems.push("more critical issues than `max_critical_issues`".into());
    }
    if gates.too_many_high {
        problems.push("more high issues than `max_high_issues`".into());
    }
    let failed: Vec<String> = input
        .results()
        .into_iter()
        .filter(|(_, r)| !r.passed)
        .map(|(dimension, _)| format!("{}_result", dimension_name(dimension)))
        .collect();
    let said = (!failed.is_empty()).then(|| format!("`passed` false in {}", failed.join(", ")));
    if problems.is_empty() {
        let reason = match said {
            None => "every gate passed".to_string(),
            Some(said) => {
                format!("every gate passed ({said}: an aggregator input is judged by its scores)")
            }
        };
        Decision {
            decision: DecisionKind::Pass,
            blocked: Vec::new(),
            next_agent: NextAgent::Finish,
            reason,
        }
    } else {
        problems.extend(said);
        Decision {
            decision: DecisionKind::Rework,
            blocked: Vec::new(),
            next_agent: NextAgent::Implementer,
            reason: problems.join("; "),
        }
    }
}

#[cfg(test)]
mod tests {
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
}
