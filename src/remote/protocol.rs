//! What the gate and `run-check-remote` tell each other (docs/remote.md,
//! "How a remote check runs"): the gate writes a [`Request`] to a file in
//! the run's temp folder and runs `run-check-remote exec REQUEST REPORT`
//! as the check's process; the program copies the action's stdout and
//! stderr (read from the CAS, digest checked) to its own, and writes a
//! [`Report`] to REPORT before it exits. Its exit status carries nothing:
//! a report that is missing or unreadable is an error of the check.

use serde::{Deserialize, Serialize};

/// One remote check, as the gate asks for it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Request {
    /// `grpc://host:port` (or `grpcs://` for TLS).
    pub(crate) endpoint: String,
    /// The REAPI instance name.
    pub(crate) instance: String,
    /// The environment variable holding the bearer token, if any (the
    /// token itself never goes in a file).
    pub(crate) token_env: Option<String>,
    /// The `Platform`'s properties, sorted by name.
    pub(crate) platform: Vec<(String, String)>,
    /// The worktree, absolute: the input root's files are read from it.
    pub(crate) worktree: String,
    /// The input root: worktree-relative paths with `/`, sorted.
    pub(crate) files: Vec<String>,
    /// The command's arguments, as the check's `run` says.
    pub(crate) argv: Vec<String>,
    /// The working directory, relative to the input root ("" for its top).
    pub(crate) cwd: String,
    /// The check's `env`, sorted by name.
    pub(crate) env: Vec<(String, String)>,
    /// The check's timeout, in milliseconds (the `Action`'s `timeout`).
    pub(crate) timeout_ms: u64,
    /// The `Action`'s `do_not_cache`.
    pub(crate) do_not_cache: bool,
}

/// What came of it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Report {
    /// The action's exit code, when it ran to its end.
    pub(crate) exit_code: Option<i32>,
    /// The cluster ended it at the `Action`'s timeout.
    pub(crate) timed_out: bool,
    /// Stopped by a signal (Ctrl-C, the gate's own timeout): the remote
    /// operation was cancelled.
    pub(crate) cancelled: bool,
    /// Why the cluster could not run it (unreachable, refused, an
    /// infrastructure failure, a blob whose digest is wrong): one line
    /// naming the cluster's status.
    pub(crate) error: Option<String>,
    /// The action's digest (`hash/size`), once it was made.
    pub(crate) action_digest: Option<String>,
    /// The worker the cluster named.
    pub(crate) worker: Option<String>,
    /// Time in the cluster's queue.
    pub(crate) queued_ms: Option<u64>,
    /// Time the worker spent executing.
    pub(crate) executed_ms: Option<u64>,
    /// The result came from the cluster's action cache.
    pub(crate) cached_result: bool,
    /// Blobs the cluster lacked and was sent, and their bytes.
    pub(crate) uploaded_blobs: u64,
    /// Their bytes.
    pub(crate) uploaded_bytes: u64,
}
