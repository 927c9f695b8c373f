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
use super::verdict::{Blocked, Category, Decision, DecisionKind, NextAgent};
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
    pass_or_rework(&problems, "all checks passed".into())
}

/// The decision for an aggregator input. It has no checks: its results are
/// judged by the reference judge's gates (`gates`, the verdict's `passed`), and the
/// decision follows them, so `decision` and `recommendation` never send the
/// loop two ways (PASS → FINISH exactly when the gates pass). A result whose
/// own `passed` is false is named in the reason either way.
pub(crate) fn from_aggregator(input: &AggregatorInput, gates: &Gates) -> Decision {
    let mut problems: Vec<String> = Vec::new();
    if !gates.failed_dimensions.is_empty() {
        let names: Vec<&str> = gates.failed_dimensions.iter().map(|d| d.as_str()).collect();
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
        .map(|(dimension, _)| format!("{}_result", dimension.as_str()))
        .collect();
    let said = (!failed.is_empty()).then(|| format!("`passed` false in {}", failed.join(", ")));
    let pass = match &said {
        None => "every gate passed".to_string(),
        Some(said) => {
            format!("every gate passed ({said}: an aggregator input is judged by its scores)")
        }
    };
    if !problems.is_empty() {
        problems.extend(said);
    }
    pass_or_rework(&problems, pass)
}

/// PASS with the reason `pass` when there are no problems (the loop
/// finishes), else REWORK naming them; nothing is blocked.
fn pass_or_rework(problems: &[String], pass: String) -> Decision {
    let (decision, next_agent, reason) = if problems.is_empty() {
        (DecisionKind::Pass, NextAgent::Finish, pass)
    } else {
        (
            DecisionKind::Rework,
            NextAgent::Implementer,
            problems.join("; "),
        )
    };
    Decision {
        decision,
        blocked: Vec::new(),
        next_agent,
        reason,
    }
}

#[cfg(test)]
mod tests;
