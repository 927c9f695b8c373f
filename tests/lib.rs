//! The integration suite: one test binary (faster to link), one module per
//! feature. Every test runs the real `run-check` binary in a temp directory.

/// The `Test` builder: temp worktree, checks.toml, run, assertions.
mod support;

/// Exit codes and statuses of the check run: pass, fail, error, skip.
mod statuses;
