//! `run-check judge` (docs/judge.md): turns one round's
//! evidence (or an aggregator input) plus the earlier rounds of
//! `--history` into a verdict — scores, issues, feedback for the code writer,
//! a recommendation with stall detection, and the decision — and
//! exits 0 for `PASS`, 1 for any other recommendation, 2 for bad input.
//!
//! Pipeline: [`input`] (INPUT → `Source`) → [`thresholds`] (defaults ←
//! `[judge]` ← `tech_stack`) → [`score`] and [`issues`] → [`recommend`]
//! (with [`history`]) → [`decision`] → [`feedback`] → [`route`] → [`verdict::Verdict`],
//! printed as JSON or by [`markdown`]; `--record` appends it to the history.
//! Nothing here runs a check or writes anything but the history file.
//!
//! Decisions the judge's rules leave open or vague (also in docs/judge.md):
//!
//! 1. **Config.** `--config P` loads P (missing or invalid: exit 2).
//!    Without it, evidence is judged with the config it names
//!    (`meta.config.path` from `meta.cwd`, else against `meta.worktree`)
//!    when that file still has the recorded sha256, else with the defaults;
//!    the current directory's checks.toml is never read. `config_used`
//!    names what was used.
//! 2. **Input.** INPUT is a file or `-` (stdin, named `<stdin>` in errors).
//!    A document with `security_result` is aggregator input, else evidence,
//!    read as merge and retry read it and judged as read (the shared
//!    `Evidence`: closed objects, the fields of the first version required).
//!    Aggregator input's fields are listed in [`input`]; its unknown fields
//!    are ignored, except unknown keys inside `tech_stack.quality_thresholds`
//!    / `tech_stack.weights` (errors: they are read as `[judge]` is, by
//!    [`thresholds`]).
//! 3. **Rounding.** Dimension scores, the overall score, gaps and
//!    improvements are rounded to 2 decimals before any comparison, so the
//!    verdict shows what was judged (the reference judge's example: 82.25).
//! 4. **Evidence scores** outside 0..100 (a score regex capturing 150) are
//!    clamped; aggregator input scores outside 0..100 are errors.
//! 5. **Null dimensions.** `weights_used` are the weights actually applied
//!    (a null dimension gets 0, the others `w / sum of non-null w`); if the
//!    scored dimensions all weigh 0 they share equally; with nothing scored
//!    `overall_score` is null and not gated.
//! 6. **Route.** [`route`] decides the one next step; `decision.next_agent`
//!    and `next_action` are copied from it. An exceeded budget is rule 4,
//!    after PASS: a passing change over its budget finishes.
//! 7. **Iteration.** Evidence: recorded rounds + 1. Aggregator input: its
//!    `iteration`, else `len(previous_scores)` + recorded rounds + 1. The
//!    score history is `previous_scores` followed by the recorded rounds;
//!    rounds whose overall is null are left out of the score rules.
//! 8. **Trend.** Decided in the order declining (< 0), stable (= 0),
//!    improving (≥ `stall_threshold`), slow_improvement; with no score this
//!    round but an earlier one, `stable`. `stall_warning` needs an
//!    improvement (false in the first round).
//! 9. **Stalls.** `stall_type` is set only when the recommendation is
//!    `STALLED`; `oscillation_detected` / `regression_detected` report the
//!    detectors regardless. `STALLED_CRITICAL` needs the *same* fingerprint
//!    in all 3 rounds; rounds known only by a score never count.
//!    `stall_rounds = 0` disables `STALLED_SCORE`.
//! 10. **Issues.** Fingerprints write `unknown` for a missing file or line
//!     (the reference judge). The run's own findings (read-only, gate
//!     changed, verification failed, interrupted) are `critical` issues
//!     whichever check is blamed; other diagnostics of no listed check are
//!     `quality`/`high`. Ids follow fingerprints over the recorded rounds
//!     ([`issues`]); aggregator input issues keep a given `id`.
//!     `persistent_issues` are this round's issues (any severity) whose
//!     fingerprint the last recorded round had.
//! 11. **Decision.** A timeout is REWORK (a failure, as the gate says); a
//!     modified worktree is REWORK; errors and interruptions are BLOCKED.
//!     For aggregator input the decision follows the gates (PASS exactly
//!     when the verdict passes; no BLOCKED). Evidence whose gate is red is
//!     never PASS, whatever the scores.
//! 12. **History.** A missing file is an empty history (`--record` creates
//!     it, and its missing parent folders, once the input has been read and
//!     found good). Every line must be a verdict; a blank, non-UTF-8, non-JSON or
//!     ill-typed line is exit 2 naming its number. Recording holds an
//!     exclusive lock from reading to appending, so concurrent judges get
//!     distinct iterations and never lose or tear a line.
//! 13. `thresholds_used` also carries `max_iterations`, `stall_threshold`
//!     and `stall_rounds`; issues carry their `fingerprint`; `progress`
//!     also lists `regressions`.

pub(crate) mod decision;
pub(crate) mod feedback;
pub(crate) mod history;
pub(crate) mod input;
pub(crate) mod issues;
pub(crate) mod markdown;
#[cfg(test)]
mod props;
pub(crate) mod recommend;
pub(crate) mod route;
#[cfg(test)]
mod schema;
pub(crate) mod score;
pub(crate) mod text;
pub(crate) mod thresholds;
pub(crate) mod verdict;

use std::path::Path;

use crate::config::{self, JudgeConfig};
use crate::error::Error;
use crate::exit_code;

use history::PastRound;
use input::Source;
use route::RetryPoint;
use run_check_documents::verdict::ConfigUsed;
use verdict::{Recommendation, Verdict, round2};

/// 0 for `PASS`, 1 for any other recommendation.
pub(crate) fn exit_code_of(verdict: &Verdict) -> i32 {
    match verdict.recommendation {
        Recommendation::Pass => exit_code::PASS,
        _ => exit_code::FAIL,
    }
}

/// `[judge]` of `--config`; else of the config the evidence names
/// (`meta.config.path`, from `meta.cwd`, else from `meta.worktree`) when that
/// file still has the recorded sha256; else the defaults. The second value
/// is `config_used`.
pub(crate) fn judge_config(
    explicit: Option<&Path>,
    source: &Source,
) -> Result<(JudgeConfig, Option<ConfigUsed>), Error> {
    if let Some(path) = explicit {
        return Ok(used(&config::load(path, path, true)?, path));
    }
    let Source::Evidence(evidence) = source else {
        return Ok((JudgeConfig::default(), None));
    };
    Ok(match config::recorded(&evidence.meta).transpose()? {
        Some(config) => used(&config, &config.path),
        None => (JudgeConfig::default(), None),
    })
}

/// `[judge]` of a loaded config and the `config_used` that names it `path`.
pub(crate) fn used(config: &config::Config, path: &Path) -> (JudgeConfig, Option<ConfigUsed>) {
    let used = ConfigUsed {
        path: path.display().to_string(),
        sha256: config.sha256.clone(),
    };
    (config.judge.clone(), Some(used))
}

/// The failure point `task/phase/subagent` of a retry state (the task is
/// the evidence's `meta.task.id`); `None` when the state does not hold it.
pub(crate) fn retry_point(
    state: &Path,
    phase: &str,
    subagent: &str,
    source: &Source,
    input: &Path,
) -> Result<Option<RetryPoint>, Error> {
    let task = match source {
        Source::Evidence(e) => e.meta.task.as_ref().map(|t| t.id.clone()),
        Source::Aggregator(_) => None,
    };
    let Some(task) = task else {
        return Err(Error::Input {
            path: input.to_path_buf(),
            location: None,
            key: Some("$.meta.task".into()),
            message: "--state needs evidence of a run with --task (the failure point's task id)"
                .into(),
        });
    };
    let phase = run_check_documents::retry::Phase::from_word(phase)
        .unwrap_or(run_check_documents::retry::Phase::Verify);
    let state = crate::aggregate::retry::state::load(state)?;
    Ok(state
        .points
        .iter()
        .find(|p| p.key() == (task.as_str(), phase, subagent))
        .map(|p| RetryPoint {
            name: format!("{task}/{}/{subagent}", phase.as_str()),
            retry_count: p.retry_count,
            max_retries: p.max_retries,
            decision: p
                .attempts
                .last()
                .map_or(run_check_documents::retry::Decision::Retry, |a| a.decision),
        }))
}

/// One round to judge.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Round<'a> {
    /// The input.
    pub(crate) source: &'a Source,
    /// `[judge]` of the config used, or the defaults.
    pub(crate) config: &'a JudgeConfig,
    /// The config file judged with (`config_used`).
    pub(crate) config_used: Option<&'a ConfigUsed>,
    /// The recorded rounds, oldest first.
    pub(crate) history: &'a [PastRound],
    /// The failure point of `--state`.
    pub(crate) retry: Option<&'a RetryPoint>,
    /// Names the input in errors.
    pub(crate) file: &'a Path,
}

/// Judges one round.
pub(crate) fn evaluate(round: &Round<'_>) -> Result<Verdict, Error> {
    let source = round.source;
    let tech_stack = match source {
        Source::Aggregator(a) => &a.tech_stack,
        Source::Evidence(_) => &Default::default(),
    };
    let (t, weights) = thresholds::resolve(round.config, tech_stack, round.file)?;
    let mut earlier: Vec<PastRound> = match source {
        Source::Aggregator(a) => a
            .previous_scores
            .iter()
            .map(|s| PastRound::score_only(s.0))
            .collect(),
        Source::Evidence(_) => Vec::new(),
    };
    earlier.extend_from_slice(round.history);
    let next = u32::try_from(earlier.len())
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    let (iteration, scores, issues) = match source {
        Source::Evidence(e) => (
            next,
            score::dimension_scores(&e.checks),
            issues::from_evidence(e, &earlier),
        ),
        Source::Aggregator(a) => {
            let mut scores = verdict::Scores::default();
            for (dimension, result) in a.results() {
                scores.set(dimension, result.score.map(|s| round2(s.0)));
            }
            (
                a.iteration.unwrap_or(next),
                scores,
                issues::from_aggregator(a, &earlier),
            )
        }
    };
    let weights_used = score::effective_weights(&scores, &weights);
    let overall = score::overall(&scores, &weights_used);
    let counts = issues.counts();
    let mut gates = score::gates(&scores, overall, &counts, &t);
    let mut decision = match source {
        Source::Evidence(e) => {
            gates.red_gate = (!e.summary.all_checks_passed).then(|| e.summary.banner.clone());
            decision::from_evidence(e)
        }
        Source::Aggregator(a) => decision::from_aggregator(a, &gates),
    };
    let passed = gates.passed();
    let current = recommend::Current {
        iteration,
        passed,
        overall,
        scores: &scores,
        issues: &issues,
        failed_dimensions: &gates.failed_dimensions,
    };
    let (recommendation, progress) = recommend::assess(&current, &earlier, &t);
    let blockers = feedback::blockers(&gates, &issues, &scores, overall, &t);
    let gap = score::score_gap(&scores, overall, &t);
    let feedback_for_code_writer = feedback::feedback(&issues, &blockers, gap, iteration, &t);
    let (budget, violations) = match source {
        Source::Evidence(e) => (
            e.contracts.change_budget.as_ref(),
            e.contracts
                .task
                .as_ref()
                .map_or(&[][..], |t| t.violations.as_slice()),
        ),
        Source::Aggregator(_) => (None, &[][..]),
    };
    let route = route::decide(&route::Facts {
        decision: &decision,
        last_blocked_on_infrastructure: earlier.last().is_some_and(|r| r.infrastructure_blocked),
        recommendation,
        progress: &progress,
        before_regression: earlier
            .iter()
            .rev()
            .find(|r| r.overall.is_some())
            .and_then(|r| r.iteration),
        issues: &issues,
        blockers: &blockers,
        budget,
        violations,
        retry: round.retry,
        iteration,
        thresholds: &t,
    });
    decision.next_agent = route.next;
    Ok(Verdict {
        iteration,
        passed,
        overall_score: overall,
        scores,
        thresholds_used: t,
        weights_used,
        issue_counts: counts,
        issues,
        feedback_for_code_writer,
        recommendation,
        progress,
        next_action: route.action.clone(),
        decision,
        route,
        config_used: round.config_used.cloned(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
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
        let mut e =
            run_check_documents::evidence::Evidence::from_value(evidence(json!([]), json!([])))
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
}
