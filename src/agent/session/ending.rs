//! How a stop's gate ended, and the answer when it gave no whole verdict
//! (docs/agents.md, "The deadline" and "A gate that dies"):
//!
//! - Cut short: `[agent] timeout` stopped it as Ctrl-C does, and it wrote
//!   the evidence of the checks that finished. Their failures block (the
//!   agent has something to fix); with none, the agent may stop and the
//!   user is told which checks did not finish and which settings to raise.
//!   Such a round is not judged (the judge would call it interrupted, a
//!   matter for the user, not a failure to fix), and the judge's history,
//!   which holds whole rounds, starts again after it.
//! - Dead: killed or interrupted by a signal run-check did not send, or it
//!   left no evidence a gate writes (nothing on its stdout, output that is
//!   no evidence, a round's copy that cannot be written). The code under
//!   test can do all of that, so it is no reason to let the agent go: the
//!   stop blocks once; a second time in a row the agent may stop and the
//!   user is told.

use std::path::Path;

use run_check_documents::evidence::{Evidence, INTERRUPTED, Status};

use super::{Reply, Session, State, headline};
use crate::agent::gate::{self, Ended, Gated, Stop};
use crate::report::feedback;
use run_check_documents::exit_code;

/// What a stop's gate left.
pub(super) enum Outcome {
    /// Its evidence and the bytes it printed; `cut` when the deadline
    /// stopped it before every check finished.
    Verdict {
        evidence: Box<Evidence>,
        bytes: Vec<u8>,
        cut: bool,
    },
    /// The deadline stopped it and it did not end within the grace: what
    /// finished is not known.
    Overdue,
    /// It died (see the module's documentation): why.
    Died(String),
    /// It could not run: not started, or stopped by an error it named
    /// (exit 2 before any check ran): a person has to act.
    Failed(String),
}

impl Outcome {
    /// What the runner saw, classified.
    pub(super) fn of(gated: Gated) -> Outcome {
        let deadline = matches!(gated.stopped, Some(Stop::Deadline { .. }));
        let last = gated.last_line().unwrap_or("").trim().to_string();
        let empty = gated.output.as_ref().is_ok_and(Vec::is_empty);
        let ended = match &gated.ended {
            Ended::Code(code) => Ok(*code),
            Ended::Killed(how) => Err(how.clone()),
        };
        let verdict = gate::verdict_of(gated.ended, gated.output, String::new());
        if let Some((evidence, bytes)) = verdict.evidence {
            let interrupted = evidence.interrupted();
            if interrupted && !deadline {
                return Outcome::Died(
                    "the gate was interrupted by a signal run-check did not send".into(),
                );
            }
            return Outcome::Verdict {
                evidence: Box::new(evidence),
                bytes,
                cut: interrupted,
            };
        }
        if deadline {
            return Outcome::Overdue;
        }
        match ended {
            Err(how) => Outcome::Died(format!(
                "the gate was {how} (a signal run-check did not send) before it finished"
            )),
            Ok(exit_code::ERROR) if empty => {
                Outcome::Failed(format!("the gate exited 2 without evidence: {last}"))
            }
            Ok(code) => Outcome::Died(match verdict.last_line.strip_prefix("no verdict: ") {
                Some(why) => why.to_string(),
                None => format!("the gate exited {code} without evidence: {last}"),
            }),
        }
    }

    /// The evidence of a gate that ran every check; otherwise why not.
    pub(super) fn whole(self) -> Result<(Evidence, Vec<u8>), String> {
        match self {
            Outcome::Verdict {
                evidence,
                bytes,
                cut: false,
            } => Ok((*evidence, bytes)),
            Outcome::Verdict { .. } | Outcome::Overdue => {
                Err("the gate did not finish within `[agent] timeout`".into())
            }
            Outcome::Died(why) | Outcome::Failed(why) => Err(why),
        }
    }
}

impl Session {
    /// Another block is allowed (`[agent] max_blocks`).
    fn may_block(&self, state: &State) -> bool {
        let max = self.config.agent.max_blocks;
        max > 0 && state.blocks < max
    }

    /// A stop whose gate died: the first time in a row it blocks (within
    /// `max_blocks`), the second it lets the agent go and tells the user.
    /// The round had no evidence: its number is given back.
    pub(super) fn died(&self, state: &mut State, why: &str) -> Reply {
        state.rounds = state.rounds.saturating_sub(1);
        state.died += 1;
        let why = why.trim_end_matches('.');
        if state.died < 2 && self.may_block(state) {
            state.blocks += 1;
            return Reply::Block {
                reason: format!(
                    "the gate could not finish: {why}.\nnext: run the checks yourself \
                     (`run-check`), find what stops them (a check that kills its parent, or \
                     writes under the git directory) and fix it; then stop again\n"
                ),
                notice: Some(format!(
                    "run-check gate: the gate could not finish ({why}); the agent is held once"
                )),
            };
        }
        let count = state.died;
        state.died = 0;
        state.blocks = 0;
        let bound = match count {
            2.. => "a second time in a row".to_string(),
            _ => "and `[agent] max_blocks` allows no block".to_string(),
        };
        Reply::Release {
            message: format!(
                "run-check gate: the gate could not finish ({why}), {bound}: the agent may stop, \
                 with the gate unknown; run `run-check` in the repository to see what stops it"
            ),
        }
    }

    /// A stop whose gate the deadline stopped without evidence.
    pub(super) fn overdue(&self, state: &mut State) -> Reply {
        state.rounds = state.rounds.saturating_sub(1);
        state.blocks = 0;
        Reply::Release {
            message: format!(
                "run-check gate: the gate did not finish within `[agent] timeout` ({}) and did \
                 not stop within {} s after it: the agent may stop, with the gate unknown. {}",
                crate::duration::display(self.config.agent.timeout),
                gate::GRACE.as_secs(),
                self.raise()
            ),
        }
    }

    /// A stop whose gate the deadline cut short (`round`: its evidence's
    /// copy): the failures of the checks that finished block; with none,
    /// the agent may stop and the user is told what did not finish.
    pub(super) fn cut_short(&self, state: &mut State, evidence: &Evidence, round: &Path) -> Reply {
        let unfinished: Vec<&str> = evidence
            .checks
            .iter()
            .filter(|c| c.skip_reason.as_deref() == Some(INTERRUPTED))
            .map(|c| c.name.as_str())
            .collect();
        let late = format!(
            "{} of {} checks did not finish within `[agent] timeout` ({}): {}",
            unfinished.len(),
            evidence.checks.len(),
            crate::duration::display(self.config.agent.timeout),
            unfinished.join(", ")
        );
        state.window_start = state.rounds + 1;
        let _ = std::fs::remove_file(self.dir.join("history.jsonl"));
        let failed = evidence.checks.iter().any(|c| c.status == Status::Fail);
        let shown = round.display().to_string();
        if failed && self.may_block(state) {
            state.blocks += 1;
            let next =
                format!("IMPLEMENTER: Fix the failures above and run the checks again ({late})");
            let reason = feedback::render(
                evidence,
                &feedback::Options {
                    max_chars: self.config.agent.max_chars,
                    next: Some(&next),
                    evidence_path: Some(&shown),
                },
            );
            let notice = format!("run-check gate: {late}. {}", self.raise());
            return Reply::Block {
                reason,
                notice: Some(notice),
            };
        }
        let why = match failed {
            true => format!(
                "{} consecutive blocked stops (`[agent] max_blocks`): the agent is let go",
                state.blocks
            ),
            false => "none of the checks that finished failed: the agent may stop".into(),
        };
        state.blocks = 0;
        Reply::Release {
            message: format!(
                "run-check gate: {}. {late}; {why}. {} (evidence: {shown})",
                headline(evidence),
                self.raise()
            ),
        }
    }

    /// Which settings to change so that the gate finishes in time.
    fn raise(&self) -> String {
        let settings = &self.agent.protocol().settings;
        let field = match settings.timeout {
            Some(timeout) => format!("`{}` in {}", timeout.key, settings.path),
            None => format!("its hook's timeout in {}", settings.path),
        };
        format!(
            "To gate them, raise `[agent] timeout` in checks.toml and the agent's own hook \
             timeout ({field}; `run-check agent install` writes it as `[agent] timeout` + \
             60 s), or make those checks faster"
        )
    }
}
