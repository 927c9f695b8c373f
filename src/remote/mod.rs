//! Remote execution (docs/remote.md): a `remote = true`
//! check runs on a cluster that speaks Bazel's Remote Execution API.
//!
//! The gRPC client is a program of its own, `run-check-remote` (feature
//! `remote`, `client/`), which the runner starts as the check's process
//! (`runner.rs`): its stdout and stderr are the action's, so they go
//! through the same bounded excerpts and parsers as a local check's; the
//! runner's timeout and Ctrl-C reach it as they reach any check (it
//! cancels the remote operation), and the containment that owns every
//! check's process owns it too. A gate without `[remote]` never starts it,
//! and its binary carries none of tonic, hyper or the generated messages,
//! so its start-up is unchanged.

#[cfg(feature = "remote")]
pub(crate) mod client;
pub(crate) mod protocol;
pub(crate) mod report;

use std::path::PathBuf;
use std::time::Duration;

/// How much longer than its `timeout` the gate lets a remote check's
/// client run: the cluster ends the action at the `Action`'s timeout
/// (which the check's result then says); the queue, the upload and the
/// download come on top, and the gate's own bound only stops a cluster
/// that never answers.
pub(crate) const MARGIN: Duration = Duration::from_secs(30);

/// A check the run sends to the cluster (set on its plan entry before the
/// runner starts).
#[derive(Debug, Clone)]
pub(crate) struct Assigned {
    /// `run-check-remote`, beside the running executable.
    pub(crate) client: PathBuf,
    /// The request file (in the run's temp folder).
    pub(crate) request: PathBuf,
    /// Where the client writes its report.
    pub(crate) report: PathBuf,
    /// `[remote] endpoint`.
    pub(crate) endpoint: String,
    /// `[remote] instance`.
    pub(crate) instance: String,
    /// `--remote=auto` found the cluster unreachable: the check runs here,
    /// and its evidence says why.
    pub(crate) fallback: Option<String>,
}
