//! The integration suite: one test binary (faster to link), one module per
//! feature. Every test runs the real `run-check` binary in a temp directory.

/// The `Test` builder: temp worktree, checks.toml, run, assertions.
mod support;

/// `--help`, `--version`, `list`, `validate`, usage errors.
mod cli;
/// Every config error of SPEC section 3: exit 2, one line, nothing runs.
mod config_errors;
/// Timeouts, process trees, bounded output, parallelism, signals.
mod process;
/// Exit codes and statuses of the check run: pass, fail, error, skip.
mod statuses;
/// run-check.sh, run-check.ps1 (syntax) and the Makefile.
mod wrappers;
