//! `run-check retry record|status|reset`: the state file's failure points
//! (`aggregate/retry/`), printed as JSON or text.

use run_check_documents::retry::StatusOutput;

use crate::aggregate::retry::{self, state::Point};
use crate::cli::{RecordArgs, ResetArgs, RetryAction, RetryArgs, RetryFormat, StatusArgs};
use crate::error::Error;
use crate::exit_code;

pub(crate) fn retry(args: &RetryArgs) -> Result<i32, Error> {
    match &args.action {
        RetryAction::Record(args) => record(args),
        RetryAction::Status(args) => status(args),
        RetryAction::Reset(args) => reset(args),
    }
}

fn record(args: &RecordArgs) -> Result<i32, Error> {
    let max_retries = retry::max_retries(args.config.as_deref())?;
    let output = retry::record(&retry::Record {
        task_id: &args.task_id,
        phase: args.phase,
        subagent: &args.subagent,
        evidence: &args.evidence,
        state: &args.state.path,
        max_retries,
        lessons: args.lessons.as_deref(),
    })?;
    let text = match args.format {
        RetryFormat::Json => run_check_documents::pretty(&output),
        // What evidence says (its banner) is shown safely, as every human
        // report shows a document's text.
        RetryFormat::Text => {
            let line = format!("{}\n", retry::record_line(&output));
            crate::sanitize::for_display(&line).into_owned()
        }
    };
    print(&text)?;
    Ok(retry::decision_exit_code(output.decision))
}

fn status(args: &StatusArgs) -> Result<i32, Error> {
    let points = retry::status(args.task_id.as_deref(), &args.state.path)?;
    let text = match args.format {
        RetryFormat::Json => run_check_documents::pretty(&StatusOutput { points }),
        RetryFormat::Text => {
            let points: Vec<&Point> = points.iter().collect();
            let text = retry::status_text(&points, args.task_id.as_deref(), &args.state.path);
            crate::sanitize::for_display(&text).into_owned()
        }
    };
    print(&text)?;
    Ok(exit_code::PASS)
}

fn reset(args: &ResetArgs) -> Result<i32, Error> {
    let (task_id, subagent) = (&args.task_id, args.subagent.as_deref());
    let removed = retry::reset(task_id, args.phase, subagent, &args.state.path)?;
    let mut what = format!("task `{task_id}`");
    if let Some(phase) = args.phase {
        what.push_str(&format!(", phase {}", phase.as_str()));
    }
    if let Some(subagent) = subagent {
        what.push_str(&format!(", subagent `{subagent}`"));
    }
    let removed = crate::output::plural(removed, "failure point");
    print(&format!("reset {removed} of {what}\n"))?;
    Ok(exit_code::PASS)
}

fn print(text: &str) -> Result<(), Error> {
    crate::output::Output::Stdout.write(text.as_bytes())
}
