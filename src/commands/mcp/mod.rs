//! `run-check mcp` (docs/agents.md, "MCP server"): the gate as a Model
//! Context Protocol server on stdio. The server is a program of its own,
//! `run-check-mcp`, installed beside run-check (every package ships both):
//! its protocol code (rmcp, tokio) in this binary made every gate's start-up
//! slower (page faults and relocations of code a gate never runs), so
//! `run-check mcp` only hands its process over to it.

#[cfg(feature = "mcp")]
mod server;

#[cfg(feature = "mcp")]
pub(crate) use server::serve;

use std::path::PathBuf;
use std::process::Command;

use crate::cli::McpArgs;
use crate::error::Error;

/// The server's program name.
pub(crate) const SERVER: &str = "run-check-mcp";

/// `run-check mcp`: becomes `run-check-mcp` with the same options (on
/// Windows, which cannot replace a process, runs it and exits with its
/// code).
pub(crate) fn mcp(args: &McpArgs) -> Result<i32, Error> {
    let server = sibling(SERVER)?;
    let mut command = Command::new(&server);
    if let Some(worktree) = &args.worktree {
        command.arg("--worktree").arg(worktree);
    }
    hand_over(command)
        .map_err(|err| Error::Environment(format!("cannot run {}: {err}", server.display())))
}

/// `name` in the folder of the running executable: the program a package
/// installed with it, never one found on PATH. Missing, an error that says
/// what to install.
fn sibling(name: &str) -> Result<PathBuf, Error> {
    let exe = std::env::current_exe()
        .map_err(|err| Error::Environment(format!("cannot find run-check's own path: {err}")))?;
    let path = exe
        .with_file_name(name)
        .with_extension(std::env::consts::EXE_EXTENSION);
    if path.is_file() {
        return Ok(path);
    }
    Err(Error::Environment(format!(
        "{} is not installed beside {}: install both from the same package \
         (a build with `--no-default-features` has no MCP server)",
        path.display(),
        exe.display()
    )))
}

/// Replaces this process with `command` (stdin, stdout and stderr are the
/// client's): returns only when it could not start.
#[cfg(unix)]
fn hand_over(mut command: Command) -> std::io::Result<i32> {
    use std::os::unix::process::CommandExt;
    Err(command.exec())
}

/// Runs `command` on this process's streams to its end and gives its exit
/// code (a process ended otherwise is an error, 2).
#[cfg(not(unix))]
fn hand_over(mut command: Command) -> std::io::Result<i32> {
    let status = command.status()?;
    Ok(status
        .code()
        .unwrap_or(run_check_documents::exit_code::ERROR))
}
