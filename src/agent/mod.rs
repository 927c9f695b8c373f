//! The agent loop as a library layer: what runs inside a coding agent's
//! hooks and the MCP server, beside `aggregate/` and `run/` and below
//! `commands/`, which only parses, calls this, and prints. It never
//! imports `commands/` or `cli`: it takes plain values.
//!
//! - [`protocol`]: each agent's hook protocol as a row of one table.
//! - [`gate`]: the one child-gate runner (the hook, MCP and `candidates`).
//! - [`guard`]: `agent guard`, the pre-tool hook that denies edits of the
//!   gate and commands that skip it.
//! - [`session`]: `agent hook`'s session state machine.
//! - [`mcp`]: the MCP server's tools, without the protocol.

pub(crate) mod gate;
pub(crate) mod guard;
#[cfg(feature = "mcp")]
pub(crate) mod mcp;
pub(crate) mod protocol;
pub(crate) mod session;

/// Creates the session folder `dir` when missing and takes the lock held
/// by the file `name` in it: the hooks of one session (Copilot runs two
/// per event) and its guards (tool calls run in parallel) each wait for
/// the one before them.
pub(crate) fn lock_session_folder(
    dir: &std::path::Path,
    name: &str,
) -> Result<std::fs::File, String> {
    std::fs::create_dir_all(dir)
        .map_err(|err| format!("cannot create the session folder {}: {err}", dir.display()))?;
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(name))
        .and_then(|file| file.lock().map(|()| file))
        .map_err(|err| format!("cannot lock the session folder {}: {err}", dir.display()))
}
