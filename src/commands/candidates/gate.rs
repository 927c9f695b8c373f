//! One gate process per candidate, run by the agent layer's child-gate
//! runner with the jobs pool lent; its verdict judged from its own exit
//! status and stdout.

use std::ffi::OsString;
use std::path::Path;

pub(super) use crate::agent::gate::{Verdict as Gated, verdict_of};
use run_check_documents::exit_code;

use super::Named;

/// How every gate process is started.
pub(super) struct Gate<'a> {
    pub(super) exe: &'a Path,
    pub(super) task: &'a Path,
    /// `--baseline`, absolute: the evidence of the task's base commit.
    pub(super) baseline: Option<&'a Path>,
    pub(super) config: Option<&'a Path>,
    pub(super) mode: &'static str,
    /// `--jobs` of each gate: the whole budget (the pool bounds it).
    pub(super) jobs: usize,
    pub(super) client: Option<&'a jobserver::Client>,
    /// Raised by a stop signal to `candidates`.
    pub(super) cancel: &'a crate::signal::Cancel,
}

impl Gate<'_> {
    /// Runs `candidate`'s gate to its end. Its evidence is its stdout (a
    /// pipe of this process: the checks' own output goes to pipes of the
    /// gate, and no path the checks could read names where it goes); the
    /// verdict is the gate's exit status ([`verdict_of`]). When
    /// `candidates` is asked to stop (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT),
    /// the gate is asked too, once, so no gate (and no check of one)
    /// outlives it.
    pub(super) fn run(&self, candidate: &Named) -> Gated {
        let mut args: Vec<OsString> = vec!["--worktree".into(), candidate.worktree.clone().into()];
        args.extend(["--task".into(), self.task.into()]);
        args.extend(["--mode", self.mode, "--jobs"].map(OsString::from));
        args.push(self.jobs.to_string().into());
        if let Some(config) = self.config {
            args.extend(["--config".into(), config.into()]);
        }
        if let Some(baseline) = self.baseline {
            args.extend(["--baseline".into(), baseline.into()]);
        }
        let gate = crate::agent::gate::Gate {
            exe: self.exe,
            args,
            dir: None,
            jobs: self.client,
            cancelled: &|| self.cancel.is_cancelled(),
            deadline: None,
        };
        match gate.run() {
            Ok(gated) => {
                let last_line = gated
                    .last_line()
                    .map_or_else(|| "the gate printed nothing".into(), str::to_string);
                verdict_of(gated.ended, gated.output, last_line)
            }
            Err(err) => Gated {
                code: exit_code::ERROR,
                last_line: format!(
                    "error: cannot start the gate `{}`: {err}",
                    self.exe.display()
                ),
                evidence: None,
            },
        }
    }
}
