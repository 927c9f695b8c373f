//! What a remote check's client reported (docs/remote.md), made into the
//! check's result and the evidence's `remote`; a worker's paths in its
//! diagnostics made the worktree's.

use std::path::Path;

use run_check_documents::evidence::RemoteUse;

use super::Assigned;
use super::protocol::Report;

/// The largest report read back.
const REPORT_LIMIT: crate::bounded::Limit = crate::bounded::Limit {
    bytes: 1024 * 1024,
    what: "remote report",
};

/// The report the client wrote at `path`.
pub(crate) fn read(path: &Path) -> Result<Report, String> {
    let bytes = crate::bounded::read(path, REPORT_LIMIT)
        .map_err(|err| format!("the remote client left no report: {err}"))?;
    serde_json::from_slice(&bytes)
        .map_err(|err| format!("the remote client's report is not readable: {err}"))
}

/// What a remote check's process came to, from its report.
pub(crate) struct Outcome {
    /// The evidence's `checks[].remote`.
    pub(crate) record: RemoteUse,
    /// The action's exit code (ran to its end).
    pub(crate) exit_code: Option<i32>,
    /// Ended by the cluster at its timeout.
    pub(crate) timed_out: bool,
    /// The cluster could not run it: the check is an error.
    pub(crate) error: Option<String>,
}

/// Reads `assigned`'s report once its client ended.
pub(crate) fn outcome(assigned: &Assigned) -> Outcome {
    let mut record = RemoteUse {
        endpoint: assigned.endpoint.clone(),
        instance: assigned.instance.clone(),
        ..RemoteUse::default()
    };
    let report = match read(&assigned.report) {
        Ok(report) => report,
        Err(why) => {
            return Outcome {
                record,
                exit_code: None,
                timed_out: false,
                error: Some(why),
            };
        }
    };
    record.action_digest = report.action_digest;
    record.worker = report.worker;
    record.queued_ms = report.queued_ms;
    record.executed_ms = report.executed_ms;
    record.cached_result = report.cached_result;
    record.uploaded_blobs = report.uploaded_blobs;
    record.uploaded_bytes = report.uploaded_bytes;
    Outcome {
        record,
        exit_code: report.exit_code,
        timed_out: report.timed_out,
        error: report.error.map(|why| format!("remote: {why}")),
    }
}

/// A remote check's diagnostic naming an absolute path on the worker
/// (`/worker/root/src/lib.rs`: the action ran in a folder the worker built
/// from the input root, whose place the API does not say) as the
/// worktree's file it is: the longest tail of the path that is a file of
/// the worktree. `None` when no tail is.
pub(crate) fn worker_path(file: &str, worktree: &Path) -> Option<String> {
    if !Path::new(file).is_absolute() {
        return None;
    }
    let parts: Vec<&str> = file.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    (0..parts.len()).find_map(|skip| {
        let tail = &parts[skip..];
        if tail.iter().any(|p| *p == "." || *p == "..") {
            return None;
        }
        let rel = tail.join("/");
        worktree.join(&rel).is_file().then_some(rel)
    })
}

/// The evidence's `remote` of a check `--remote=auto` ran here.
pub(crate) fn fallen_back(assigned: &Assigned) -> RemoteUse {
    RemoteUse {
        endpoint: assigned.endpoint.clone(),
        instance: assigned.instance.clone(),
        fallback: assigned.fallback.clone(),
        ..RemoteUse::default()
    }
}
