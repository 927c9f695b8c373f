//! `run-check fix`.

use crate::cli::FixArgs;
use crate::error::Error;
use crate::run::evidence::Status;
use crate::run::{plan, runner};
use crate::signal;
use run_check_documents::exit_code;

use super::locate;
use super::progress::Progress;

/// `run-check fix`: runs the `[[fix]]` commands one at a time, with the same
/// whitelist, timeouts and output capture as checks; the last line says
/// which failed. Exit 0 when every fix succeeded, 1 when one failed, 2 when
/// one could not run, 130 when interrupted. Checking never runs a fix.
pub(crate) fn fix(args: &FixArgs) -> Result<i32, Error> {
    let (worktree, config) = locate(&args.location)?;
    let plan = plan::build_fixes(&config, &worktree, &args.only)?;
    let cancel = signal::install().map_err(Error::Environment)?;
    let mut progress = Progress::new(args.quiet, &plan, "fix", false);
    let results = runner::run_plan(&plan, None, cancel, &mut |event| progress.show(event));
    progress.finish();
    let named = |status: Status| -> Vec<&str> {
        plan.checks
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.status == status)
            .map(|(c, _)| c.name())
            .collect()
    };
    let (failed, errored) = (named(Status::Fail), named(Status::Error));
    let total = plan.checks.len();
    let parts = run_check_documents::evidence::failures("fixes", total, &failed, &errored);
    // A failing fix's output is what the user needs to act on.
    for (check, result) in plan.checks.iter().zip(&results) {
        if result.status.is_failure() {
            let excerpt = [&result.stderr, &result.stdout]
                .into_iter()
                .flatten()
                .map(|e| e.render())
                .find(|text| !text.trim().is_empty());
            if let Some(text) = excerpt {
                let text = crate::sanitize::for_display(&text);
                eprintln!("--- {} ---\n{}", check.name(), text.trim_end());
            }
        }
    }
    // The closing line is the command's answer: on stdout, as a check
    // run's report is; the failing fixes' output above is diagnostics.
    let (line, code) = if cancel.is_cancelled() {
        ("Interrupted".to_string(), exit_code::INTERRUPTED)
    } else if parts.is_empty() {
        (format!("All {total} fixes succeeded"), exit_code::PASS)
    } else if errored.is_empty() {
        (parts.join("; "), exit_code::FAIL)
    } else {
        (parts.join("; "), exit_code::ERROR)
    };
    crate::output::Output::Stdout.write(format!("{line}\n").as_bytes())?;
    Ok(code)
}
