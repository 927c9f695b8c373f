//! Progress lines on stderr while checks or fixes run.

use std::io::Write;

use crate::report;
use crate::run::evidence::Status;
use crate::run::plan::Plan;
use crate::run::runner::Event;

/// Progress lines on stderr, one per finished check.
pub(super) struct Progress {
    quiet: bool,
    width: usize,
}

impl Progress {
    /// `what`: `strict`, `fast` or `fix`.
    pub(super) fn new(quiet: bool, plan: &Plan<'_>, what: &str) -> Progress {
        let width = plan
            .checks
            .iter()
            .map(|c| c.name().len())
            .max()
            .unwrap_or(0);
        if !quiet {
            let n = plan.checks.len();
            let noun = match (what, n) {
                ("fix", 1) => "fix",
                ("fix", _) => "fixes",
                (_, 1) => "check",
                _ => "checks",
            };
            let _ = writeln!(
                std::io::stderr().lock(),
                "run-check {what}: {n} {noun}, {} at a time",
                plan.jobs
            );
        }
        Progress { quiet, width }
    }

    pub(super) fn show(&mut self, event: Event<'_>) {
        if self.quiet {
            return;
        }
        if let Event::Finished(check, result) = event {
            let detail = report::ending(
                result.skip_reason.as_deref(),
                result.error.as_deref(),
                result.timed_out,
                result.exit_code,
            );
            let time = if result.status == Status::Skip {
                String::new()
            } else {
                format!("{:.2}s", result.duration.as_secs_f64())
            };
            // An error may quote what a check made (a path): shown safely.
            let detail = crate::sanitize::for_display(&detail).replace('\n', " ");
            let line = format!(
                "{} {:w$}  {:>7}  {}",
                report::status_word(result.status),
                check.name(),
                time,
                detail,
                w = self.width
            );
            let _ = writeln!(std::io::stderr().lock(), "{}", line.trim_end());
        }
    }
}
