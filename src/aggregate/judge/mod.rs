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
pub(crate) mod round;
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
use run_check_documents::exit_code;

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

/// Judges one round: the verdict, and its route as values.
pub(crate) fn evaluate(round: &Round<'_>) -> Result<(Verdict, route::Step), Error> {
    let source = round.source;
    let tech_stack = match source {
        Source::Aggregator(a) => &a.tech_stack,
        Source::Evidence(_) => &Default::default(),
    };
    let (t, weights) = thresholds::resolve(round.config, tech_stack, round.file)?;
    let earlier = earlier_rounds(round);
    let (iteration, scores, issues) = findings(source, &earlier);
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
    // The round a regression is measured against: the last scored one.
    let before = earlier.iter().rev().find(|r| r.overall.is_some());
    let facts = route::Facts {
        decision: &decision,
        last_blocked_on_infrastructure: earlier.last().is_some_and(|r| r.infrastructure_blocked),
        recommendation,
        progress: &progress,
        before_regression: before.and_then(|r| r.iteration),
        regressed_paths: &regressed_paths(&issues, before),
        issues: &issues,
        blockers: &blockers,
        budget,
        violations,
        retry: round.retry,
        iteration,
        thresholds: &t,
    };
    let route = route::decide(&facts);
    let step = route::step(&facts);
    decision.next_agent = route.next;
    let verdict = Verdict {
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
    };
    Ok((verdict, step))
}

/// The files of this round's issues whose fingerprints `before` did not
/// have, sorted, each once; none when its fingerprints are unknown.
fn regressed_paths(issues: &verdict::Issues, before: Option<&PastRound>) -> Vec<String> {
    let Some(known) = before.and_then(|r| r.fingerprints.as_ref()) else {
        return Vec::new();
    };
    let paths: std::collections::BTreeSet<String> = issues
        .all()
        .filter(|i| !known.all.contains(&i.fingerprint))
        .filter_map(|i| i.file.clone())
        .collect();
    paths.into_iter().collect()
}

/// The rounds before this one, oldest first: an aggregator input's
/// `previous_scores`, then the recorded rounds.
fn earlier_rounds(round: &Round<'_>) -> Vec<PastRound> {
    let mut earlier: Vec<PastRound> = match round.source {
        Source::Aggregator(a) => a
            .previous_scores
            .iter()
            .map(|s| PastRound::score_only(s.0))
            .collect(),
        Source::Evidence(_) => Vec::new(),
    };
    earlier.extend_from_slice(round.history);
    earlier
}

/// This round's iteration, dimension scores and issues.
fn findings(source: &Source, earlier: &[PastRound]) -> (u32, verdict::Scores, verdict::Issues) {
    let next = u32::try_from(earlier.len())
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    match source {
        Source::Evidence(e) => (
            next,
            score::dimension_scores(&e.checks),
            issues::from_evidence(e, earlier),
        ),
        Source::Aggregator(a) => {
            let mut scores = verdict::Scores::default();
            for (dimension, result) in a.results() {
                scores.set(dimension, result.score.map(|s| round2(s.0)));
            }
            (
                a.iteration.unwrap_or(next),
                scores,
                issues::from_aggregator(a, earlier),
            )
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
