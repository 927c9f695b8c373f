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

/// The word of a run that exited `code`, as a headline or a status names
/// it: `PASS`, `FAIL`, `INTERRUPTED`, and `ERROR` for any other code (a run
/// that exited so was not judged).
pub fn word(code: i32) -> &'static str {
    match code {
        PASS => "PASS",
        FAIL => "FAIL",
        INTERRUPTED => "INTERRUPTED",
        _ => "ERROR",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MCP tool's `status` is the same word, for every code.
    #[test]
    fn a_word_per_exit_code_as_the_gate_status_says_it() {
        for code in [PASS, FAIL, ERROR, INTERRUPTED, 3, -1, 255] {
            let status = crate::mcp::GateStatus::of_exit_code(code);
            assert_eq!(serde_json::to_value(status).unwrap(), word(code), "{code}");
        }
    }
}
