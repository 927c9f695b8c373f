//! A program that is not a check but runs as one: a cache key's `version`
//! command (docs/cache.md). It is whitelisted by its caller; here it gets a
//! check's containment: its own process tree, its streams drained into
//! bounded excerpts, its timeout, Ctrl-C, none of the cache's secrets in
//! its environment, and nothing it starts outlives it (on Linux what left
//! its process group is found as a check's leftovers are, and killed when
//! it ends; elsewhere its group or Job Object is).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::child::Spec;
use super::contain::Containment;
use super::process::{self, ProcessResult};
use crate::signal::Cancel;

/// What to run alone.
#[derive(Debug)]
pub(crate) struct Alone<'a> {
    /// Absolute program path.
    pub(crate) program: &'a Path,
    /// Arguments after the program.
    pub(crate) args: &'a [String],
    /// Absolute working directory.
    pub(crate) cwd: &'a Path,
    /// Variables it never gets (`CacheSettings::secrets`).
    pub(crate) remove: &'a [String],
    /// Timeout from start.
    pub(crate) timeout: Duration,
    /// Bytes kept from each end of each stream.
    pub(crate) keep: usize,
}

/// Runs `alone` to its end (exit, timeout or cancellation), then kills
/// every process it left; those are in the result's `leaked`.
pub(crate) fn run(alone: &Alone<'_>, cancel: &Cancel) -> ProcessResult {
    let containment = Containment::new([false]);
    let env = BTreeMap::new();
    let spec = Spec {
        program: alone.program,
        args: alone.args,
        cwd: alone.cwd,
        env: &env,
        remove: alone.remove,
        timeout: alone.timeout,
        excerpt_bytes: alone.keep,
        contain: Some((&containment, 0)),
        leave_running: false,
    };
    let mut result = process::run(&spec, [None, None], cancel);
    // Its end has swept what it left already; this catches what was still
    // starting then.
    for leaked in containment.finish() {
        result.leaked.extend(leaked);
    }
    result
}
