//! `route` (docs/judge.md, "Route"): the one next step of the loop. The
//! first rule that applies decides, and `decision.next_agent` and
//! `next_action` are copied from it, so no two fields of a verdict point two
//! ways:
//!
//! 1. BLOCKED: any `environment` block → USER; else any `infrastructure`
//!    block → VALIDATE, or USER when the last recorded round was blocked on
//!    infrastructure too; else (`code`) → IMPLEMENTER.
//! 2. PASS → FINISH.
//! 3. A changed gate (a `gate-changed` issue) → USER.
//! 4. An exceeded change budget or any task violation → SUBTASK.
//! 5. A retry state (`--state`) whose failure point is past `max_retries` →
//!    the retry tracker's decision: SUBTASK for a FAIL, USER for a block.
//! 6. FAIL_MAX_ITERATIONS → USER.
//! 7. STALLED_REGRESSION → IMPLEMENTER, rolling back to the last round
//!    without the regression (named by its iteration, or by a caller's own
//!    numbering: an agent session's stop); any other STALLED →
//!    USER.
//! 8. ITERATE → IMPLEMENTER, naming the first issues to fix.

use run_check_documents::evidence::{ChangeBudget, Violation};
use run_check_documents::retry::Decision as RetryDecision;

use super::feedback::{format_score, priority};
use super::thresholds::Thresholds;
use super::verdict::{
    Blocked, Category, Decision, DecisionKind, Issue, Issues, NextAgent, Progress, Recommendation,
    Route, StallType,
};
use crate::config::Severity;

/// The retry tracker's word on the failure point of `--state`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RetryPoint {
    /// `task/phase/subagent`, for messages.
    pub(crate) name: String,
    /// Failing records so far.
    pub(crate) retry_count: u64,
    /// The limit its latest record applied.
    pub(crate) max_retries: u32,
    /// Its latest decision.
    pub(crate) decision: RetryDecision,
}

impl RetryPoint {
    /// Past `max_retries`, with a decision that escalates.
    fn escalates(&self) -> Option<NextAgent> {
        if self.retry_count <= u64::from(self.max_retries) {
            return None;
        }
        match self.decision {
            RetryDecision::Subtask => Some(NextAgent::Subtask),
            RetryDecision::Blocked => Some(NextAgent::User),
            RetryDecision::Retry | RetryDecision::Resolved => None,
        }
    }
}

/// What the route is decided from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    /// This round's decision (its `next_agent` is not looked at).
    pub(crate) decision: &'a Decision,
    /// The last recorded round was BLOCKED on infrastructure.
    pub(crate) last_blocked_on_infrastructure: bool,
    /// This round's recommendation.
    pub(crate) recommendation: Recommendation,
    /// This round's progress (stall type, regressions).
    pub(crate) progress: &'a Progress,
    /// The iteration of the last earlier scored round (the one a regression
    /// is measured against).
    pub(crate) before_regression: Option<u32>,
    /// The files of this round's issues that the round before the
    /// regression did not have: what a roll-back restores.
    pub(crate) regressed_paths: &'a [String],
    /// This round's issues.
    pub(crate) issues: &'a Issues,
    /// What stands between this round and a pass (feedback's clauses).
    pub(crate) blockers: &'a [String],
    /// The task's change budget, when measured.
    pub(crate) budget: Option<&'a ChangeBudget>,
    /// The task's broken limits.
    pub(crate) violations: &'a [Violation],
    /// The failure point of `--state`, when given and recorded.
    pub(crate) retry: Option<&'a RetryPoint>,
    /// This iteration.
    pub(crate) iteration: u32,
    /// The thresholds judged with.
    pub(crate) thresholds: &'a Thresholds,
}

/// The route as values, beside the document's sentences: the iteration a
/// roll-back goes to and the issues the action names, so that no caller
/// reads them back out of the English.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    pub(crate) next: NextAgent,
    /// STALLED_REGRESSION's round without the regression (its iteration).
    pub(crate) roll_back_to: Option<u32>,
    /// The issues the action names, in its order.
    pub(crate) problems: Vec<Issue>,
    /// The action with each problem named by where it is (`path:line
    /// (check rule)`, else `check NAME`) instead of its id: an agent
    /// never sees the verdict's ids.
    pub(crate) action: String,
    /// The roll-back's parts, so that a caller that numbers the rounds its
    /// own way says the action in that numbering only.
    roll_back: Option<RollBack>,
}

/// What a STALLED_REGRESSION's action is said from.
#[derive(Debug, Clone, PartialEq)]
struct RollBack {
    /// The files to restore (the problems the round before did not have).
    paths: Vec<String>,
    /// `quality dropped from 90 to 70, ...`.
    drops: String,
}

impl Step {
    /// `NEXT: action`, the feedback's next step.
    pub(crate) fn next_step(&self) -> String {
        format!("{}: {}", self.next.as_str(), self.action)
    }

    /// [`Self::next_step`] with the round a roll-back goes to named by
    /// `name` (its iteration in, `stop 2 (round-2.json)` out) and called a
    /// `unit`: an agent session's user knows its stops, not the judge's
    /// iterations, and two numberings of one round read as two rounds.
    pub(crate) fn next_step_numbered(&self, unit: &str, name: impl Fn(u32) -> String) -> String {
        match (&self.roll_back, self.roll_back_to) {
            (Some(back), Some(at)) => format!(
                "{}: {}",
                self.next.as_str(),
                roll_back_action(&name(at), unit, back)
            ),
            _ => self.next_step(),
        }
    }
}

/// `Roll back to TO, the last UNIT without the regression: restore ...,
/// and redo the change: DROPS`.
fn roll_back_action(to: &str, unit: &str, back: &RollBack) -> String {
    format!(
        "Roll back to {to}, the last {unit} without the regression{}, and redo the change: {}",
        restore(&back.paths, unit),
        back.drops
    )
}

/// How an action names an issue.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Naming {
    /// By its id (the verdict document's).
    Ids,
    /// By where it is (an agent's).
    Places,
}

impl Naming {
    /// `issue` as this naming says it; `QA-001 (High)` with `severity`.
    fn name(self, issue: &Issue, severity: bool) -> String {
        match (self, severity) {
            (Naming::Ids, true) => format!("{} ({})", issue.id, issue.severity.title()),
            (Naming::Ids, false) => issue.id.clone(),
            (Naming::Places, _) => place_of(issue),
        }
    }
}

/// An issue as the feedback's reader knows it: where, and which check.
fn place_of(issue: &Issue) -> String {
    let what = if issue.kind.is_empty() || issue.kind == issue.source {
        issue.source.clone()
    } else {
        format!("{} {}", issue.source, issue.kind)
    };
    match (&issue.file, issue.line) {
        (Some(file), Some(line)) => format!("{file}:{line} ({what})"),
        (Some(file), None) => format!("{file} ({what})"),
        _ => format!("check {what}"),
    }
}

/// A route and its values.
struct Decided {
    route: Route,
    roll_back_to: Option<u32>,
    roll_back: Option<RollBack>,
    problems: Vec<Issue>,
}

fn route(next: NextAgent, reason: impl Into<String>, action: impl Into<String>) -> Route {
    Route {
        next,
        reason: reason.into(),
        action: action.into(),
    }
}

impl From<Route> for Decided {
    fn from(route: Route) -> Decided {
        Decided {
            route,
            roll_back_to: None,
            roll_back: None,
            problems: Vec::new(),
        }
    }
}

/// The one next step: the first of the rules (module doc) that applies.
pub(crate) fn decide(f: &Facts<'_>) -> Route {
    decided(f, Naming::Ids).route
}

/// The one next step as values, its action naming places, not ids.
pub(crate) fn step(f: &Facts<'_>) -> Step {
    let decided = decided(f, Naming::Places);
    Step {
        next: decided.route.next,
        roll_back_to: decided.roll_back_to,
        roll_back: decided.roll_back,
        problems: decided.problems,
        action: decided.route.action,
    }
}

fn decided(f: &Facts<'_>, naming: Naming) -> Decided {
    if f.decision.decision == DecisionKind::Blocked {
        return blocked(&f.decision.blocked, f.last_blocked_on_infrastructure).into();
    }
    if f.recommendation == Recommendation::Pass {
        return route(
            NextAgent::Finish,
            "the gate passed and every score gate holds",
            "Finish: every gate passed",
        )
        .into();
    }
    if let Some(route) = gate_changed(f.issues)
        .or_else(|| over_budget(f.budget, f.violations))
        .or_else(|| f.retry.and_then(past_retries))
    {
        return route.into();
    }
    let t = f.thresholds;
    match f.recommendation {
        Recommendation::FailMaxIterations => route(
            NextAgent::User,
            format!(
                "iteration {} of max_iterations {} did not pass",
                f.iteration, t.max_iterations
            ),
            format!(
                "Ask a person to decide how to go on (more iterations, a smaller task, or stop): \
                 iteration {} of {} did not pass ({})",
                f.iteration,
                t.max_iterations,
                f.blockers.join("; ")
            ),
        )
        .into(),
        Recommendation::Stalled => stalled(f, naming),
        // PASS returned above.
        Recommendation::Iterate | Recommendation::Pass => {
            let (action, problems) = iterate_with(f.issues, f.blockers, naming);
            Decided {
                route: route(
                    NextAgent::Implementer,
                    "not passed yet, and no stall",
                    action,
                ),
                roll_back_to: None,
                roll_back: None,
                problems,
            }
        }
    }
}

/// Rule 3.
fn gate_changed(issues: &Issues) -> Option<Route> {
    let gate: Vec<&str> = issues
        .critical
        .iter()
        .filter(|i| i.kind == super::issues::GATE_CHANGED)
        .filter_map(|i| i.file.as_deref())
        .collect();
    (!gate.is_empty()).then(|| {
        route(
            NextAgent::User,
            format!("the gate itself changed: {}", gate.join(", ")),
            format!(
                "Ask a person to decide whether the change of the gate is allowed ({}): \
                 approve it by listing the files in the task's `files_involved`, or revert it",
                gate.join(", ")
            ),
        )
    })
}

/// Rule 5.
fn past_retries(point: &RetryPoint) -> Option<Route> {
    let next = point.escalates()?;
    let (why, action) = match next {
        NextAgent::Subtask => (
            "failed",
            "Split the task into subtasks: retrying the same change does not make it pass",
        ),
        _ => (
            "was blocked",
            "Ask a person to unblock the failure point: the gate could not judge it",
        ),
    };
    Some(route(
        next,
        format!(
            "failure point {} {why} {} times, more than max_retries {}",
            point.name, point.retry_count, point.max_retries
        ),
        format!(
            "{action} ({} records, max_retries {})",
            point.retry_count, point.max_retries
        ),
    ))
}

/// Rule 1.
fn blocked(list: &[Blocked], repeated: bool) -> Route {
    let of = |category: Category| {
        list.iter()
            .filter(|b| b.category == category)
            .map(|b| format!("{} ({})", b.check, b.reason))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let environment = of(Category::Environment);
    if !environment.is_empty() {
        return route(
            NextAgent::User,
            format!("blocked on the environment: {environment}"),
            format!(
                "Ask a person to install or allow what is missing, then run the gate again: {environment}"
            ),
        );
    }
    let infrastructure = of(Category::Infrastructure);
    if !infrastructure.is_empty() {
        return if repeated {
            route(
                NextAgent::User,
                format!("blocked on infrastructure in two rounds in a row: {infrastructure}"),
                format!(
                    "Ask a person to look at the machine: the gate could not run twice in a row ({infrastructure})"
                ),
            )
        } else {
            route(
                NextAgent::Validate,
                format!("blocked on infrastructure: {infrastructure}"),
                format!("Run the gate again without changing the code: {infrastructure}"),
            )
        };
    }
    let code = of(Category::Code);
    route(
        NextAgent::Implementer,
        format!("blocked by the code: {code}"),
        format!("Fix what keeps the checks from running, then run the gate again: {code}"),
    )
}

/// Rule 4.
fn over_budget(budget: Option<&ChangeBudget>, violations: &[Violation]) -> Option<Route> {
    let mut why: Vec<String> = Vec::new();
    if let Some(b) = budget.filter(|b| b.exceeded) {
        why.push(format!(
            "the change exceeds its budget ({} files changed, at most {}; {} lines changed, at most {})",
            b.files_changed, b.max_files, b.loc_changed, b.max_loc
        ));
    }
    if !violations.is_empty() {
        let list: Vec<String> = violations
            .iter()
            .map(|v| format!("{}: {}", v.field, v.message))
            .collect();
        why.push(format!("the task breaks its limits ({})", list.join("; ")));
    }
    (!why.is_empty()).then(|| {
        let why = why.join("; ");
        route(
            NextAgent::Subtask,
            why.clone(),
            format!("Split the task into subtasks: {why}"),
        )
    })
}

/// Rule 7.
fn stalled(f: &Facts<'_>, naming: Naming) -> Decided {
    let t = f.thresholds;
    let p = f.progress;
    match p.stall_type {
        Some(StallType::StalledRegression) => {
            let drops: Vec<String> = p
                .regressions
                .iter()
                .map(|r| {
                    format!(
                        "{} dropped from {} to {}",
                        r.dimension,
                        format_score(r.previous),
                        format_score(r.current)
                    )
                })
                .collect();
            let to = f.before_regression.map_or_else(
                || "the previous round".to_string(),
                |n| format!("iteration {n}"),
            );
            let back = RollBack {
                paths: f.regressed_paths.to_vec(),
                drops: drops.join(", "),
            };
            Decided {
                route: route(
                    NextAgent::Implementer,
                    format!("STALLED_REGRESSION: {}", back.drops),
                    roll_back_action(&to, "round", &back),
                ),
                roll_back_to: f.before_regression,
                roll_back: Some(back),
                problems: Vec::new(),
            }
        }
        Some(StallType::StalledCritical) => {
            let problems: Vec<Issue> = f
                .issues
                .critical
                .iter()
                .filter(|i| p.persistent_issues.contains(&i.id))
                .cloned()
                .collect();
            let names: Vec<String> = problems.iter().map(|i| naming.name(i, false)).collect();
            Decided {
                route: route(
                    NextAgent::User,
                    "STALLED_CRITICAL: the same Critical issue in 3 rounds in a row",
                    format!(
                        "Ask a person to review {}: the same Critical issue persisted for 3 \
                         rounds; decide whether the approach or the task must change",
                        names.join(", ")
                    ),
                ),
                roll_back_to: None,
                roll_back: None,
                problems,
            }
        }
        Some(StallType::StalledOscillating) => route(
            NextAgent::User,
            "STALLED_OSCILLATING: the overall score goes back and forth",
            format!(
                "Ask a person to check the feedback for contradictions: the overall score went \
                 back and forth within {} points over the last 3 rounds",
                format_score(super::recommend::OSCILLATION_SPAN)
            ),
        )
        .into(),
        Some(StallType::StalledScore) | None => route(
            NextAgent::User,
            "STALLED_SCORE: too little improvement",
            format!(
                "Ask a person whether more context is needed: each of the last {} rounds \
                 improved the overall score by less than {} points",
                t.stall_rounds,
                format_score(t.stall_threshold)
            ),
        )
        .into(),
    }
}

/// Paths named in a roll-back's action, at most.
const RESTORE_SHOWN: usize = 5;

/// What a roll-back restores: `: restore a.py, b.py (…)` with the command
/// that shows what changed in them, or nothing when no new problem of
/// this round is in a file. The history keeps verdicts, not the files'
/// contents, so the difference shown is against the last commit.
fn restore(paths: &[String], unit: &str) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let shown = &paths[..paths.len().min(RESTORE_SHOWN)];
    let more = match paths.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        ": restore {}{more}, the files of the problems that {unit} did not have \
         (`git diff -- {}` shows what changed in them since the last commit)",
        shown.join(", "),
        shown.join(" ")
    )
}

/// Rule 8's action: the first (at most 3) Critical or High issues, else
/// the first thing that stands between this round and a pass.
#[cfg(test)]
pub(crate) fn iterate_action(issues: &Issues, blockers: &[String]) -> String {
    iterate_with(issues, blockers, Naming::Ids).0
}

/// Rule 8's action named as `naming` says, and the issues it names.
fn iterate_with(issues: &Issues, blockers: &[String], naming: Naming) -> (String, Vec<Issue>) {
    let urgent: Vec<Issue> = priority(issues)
        .into_iter()
        .filter(|i| i.severity <= Severity::High)
        .take(3)
        .cloned()
        .collect();
    let names: Vec<String> = urgent.iter().map(|i| naming.name(i, true)).collect();
    let action = if !urgent.is_empty() {
        format!("Fix {} and run the checks again", names.join(", "))
    } else if let Some(first) = blockers.first() {
        let mut first = first.clone();
        if let Some(c) = first.get(..1) {
            first.replace_range(..1, &c.to_uppercase());
        }
        format!("{first} and run the checks again")
    } else {
        "Run the checks again".into()
    };
    (action, urgent)
}

#[cfg(test)]
mod tests;
