//! A remote check's process is `run-check-remote` (docs/remote.md): its
//! arguments, and its result read from the report it wrote.

use run_check_documents::evidence::Status;

use super::CheckResult;
use crate::remote::Assigned;

/// `exec REQUEST REPORT`.
pub(super) fn client_args(assigned: &Assigned) -> Vec<String> {
    vec![
        "exec".to_string(),
        assigned.request.display().to_string(),
        assigned.report.display().to_string(),
    ]
}

/// The client's end made the action's: its exit code and the cluster's
/// timeout, or the cluster's error (an error of the check, never a local
/// run). A check the gate stopped (its own timeout, Ctrl-C) keeps what
/// the runner found.
pub(super) fn apply(result: &mut CheckResult, assigned: &Assigned) {
    let outcome = crate::remote::report::outcome(assigned);
    result.remote = Some(outcome.record);
    if result.timed_out || result.skip_reason.is_some() {
        return;
    }
    result.exit_code = outcome.exit_code;
    result.error = None;
    if let Some(why) = outcome.error {
        result.status = Status::Error;
        result.error = Some(why);
        result.exit_code = None;
    } else if outcome.timed_out {
        result.status = Status::Fail;
        result.timed_out = true;
    } else {
        result.status = match outcome.exit_code {
            Some(0) => Status::Pass,
            Some(_) => Status::Fail,
            None => Status::Error,
        };
        if outcome.exit_code.is_none() {
            result.error = Some("remote: the cluster gave no exit code".to_string());
        }
    }
}
