//! The process exit codes of run-check. Once published, a number never
//! changes meaning.

/// Every selected check passed (PASS), or a non-check command succeeded.
pub const PASS: i32 = 0;
/// At least one check failed, or the worktree was modified (FAIL).
pub const FAIL: i32 = 1;
/// The run could not be judged: invalid config, a program not allowed or not
/// found, a check that could not start, bad usage, an internal error (ERROR).
pub const ERROR: i32 = 2;
/// Interrupted by Ctrl-C or SIGTERM (128 + SIGINT); partial evidence was written.
pub const INTERRUPTED: i32 = 130;
