//! The check pipeline: plan the checks of a mode, snapshot the worktree, run
//! the checks (the runner), verify nothing changed, and assemble the
//! evidence. Nothing here renders a report or judges a run.

pub(crate) mod artifacts;
pub(crate) mod baseline;
pub(crate) mod cache;
pub(crate) mod changes;
pub(crate) mod evidence;
pub(crate) mod excerpt;
pub(crate) mod gate;
pub(crate) mod meta;
pub(crate) mod plan;
pub(crate) mod remote;
pub(crate) mod runner;
pub(crate) mod scan_base;
pub(crate) mod shell_words;
pub(crate) mod snapshot;
pub(crate) mod task;
pub(crate) mod unchecked;
