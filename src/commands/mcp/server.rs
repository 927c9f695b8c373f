//! The MCP server of `run-check-mcp`: the protocol's glue on the official
//! Rust SDK (rmcp) and the server's life: its state folder, a tokio runtime
//! of one thread, and the end of the session when the client closes stdin.
//! The tools themselves are in `agent/mcp/`, free of the protocol.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use crate::cli::{Location, McpArgs};
use crate::error::Error;

use crate::agent::mcp as tools;

/// What the server tells the client about itself, for the model.
const INSTRUCTIONS: &str = "run-check is this repository's read-only verification gate. \
Call run_checks after a change and before saying the work is done; it returns the new \
problems as path:line: [check rule] message and the next step. Fix the code it points to; \
never edit checks.toml, the baseline or allow markers to get green. list_checks shows \
what runs, check_output a check's last output lines, judge the verdict and route.";

/// Serves until the client closes stdin; exit 0 then.
pub(crate) fn serve(args: &McpArgs) -> Result<i32, Error> {
    let location = Location {
        config: None,
        worktree: args.worktree.clone(),
    }
    .resolved();
    let worktree = crate::paths::worktree(location.worktree.as_deref())?;
    // The gate the tools run is run-check itself, installed beside this
    // program (never one found on PATH).
    let exe = super::sibling("run-check")?;
    let state = StateDir::create(&worktree)?;
    let max_chars = max_chars(&location, &worktree);
    let gate = tools::Gate::new(exe, worktree, state.path.clone(), max_chars);
    let served = run(Server {
        gate: Arc::new(gate),
    });
    // A gate still running when the session ends has been asked to stop
    // (its request's token is cancelled with the session) and was waited
    // for (the runtime is gone) before the state folder goes.
    drop(state);
    served?;
    Ok(crate::exit_code::PASS)
}

/// Runs the session on a runtime of one thread until the client closes
/// stdin; the runtime is dropped before this returns.
fn run(server: Server) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Error::Environment(format!("cannot start the MCP server: {err}")))?;
    let served = runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| format!("the MCP session did not start: {err}"))?;
        running
            .waiting()
            .await
            .map_err(|err| format!("the MCP server stopped: {err}"))
    });
    drop(runtime);
    served.map(|_| ()).map_err(Error::Environment)
}

/// The bound of every tool's text: `[agent] max_chars` of the worktree's
/// checks.toml as the server starts, else the default every agent surface
/// shares. A config that does not load gives the default: `run_checks`
/// then reports the config error itself.
fn max_chars(location: &Location, worktree: &std::path::Path) -> usize {
    crate::commands::load_config(location, worktree)
        .map_or(crate::config::AgentConfig::MAX_CHARS, |config| {
            config.agent.max_chars
        })
}

/// The server's folder: `<git-dir>/run-check/mcp/<pid>/` (the git directory
/// of a linked worktree is its own), else a temporary folder; never in the
/// worktree, where it would be a change the gate sees. Removed when the
/// server ends.
struct StateDir {
    path: PathBuf,
    /// Holds a temporary folder alive (outside a git repository).
    temp: Option<tempfile::TempDir>,
}

impl StateDir {
    fn create(worktree: &std::path::Path) -> Result<StateDir, Error> {
        let Some(git_dir) = crate::git::git_dir_of(worktree) else {
            let temp = tempfile::Builder::new()
                .prefix("run-check-mcp-")
                .tempdir()
                .map_err(|err| Error::Environment(format!("cannot create a folder: {err}")))?;
            return Ok(StateDir {
                path: temp.path().to_path_buf(),
                temp: Some(temp),
            });
        };
        let path = git_dir
            .join("run-check")
            .join("mcp")
            .join(std::process::id().to_string());
        // A folder of the same pid is a dead server's: start afresh.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|err| Error::io("create", &path, err))?;
        Ok(StateDir { path, temp: None })
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        if self.temp.is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// The protocol side: tool calls go to the gate on tokio's blocking pool,
/// so a gate run never stalls the session (pings, cancellations).
#[derive(Clone)]
struct Server {
    gate: Arc<tools::Gate>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("run-check", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            tools::definitions().into_iter().map(tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let gate = Arc::clone(&self.gate);
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        // Cancelled by the client's `notifications/cancelled` for this
        // request, and when the session ends.
        let token = context.ct.clone();
        let reply = tokio::task::spawn_blocking(move || {
            gate.call(&name, arguments, &|| token.is_cancelled())
        })
        .await
        .map_err(|err| McpError::internal_error(format!("the tool failed: {err}"), None))?;
        let Some(reply) = reply else {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`: run_checks, list_checks, check_output, judge",
                    crate::report::feedback::clean(&request.name, 80)
                ),
                None,
            ));
        };
        let content = vec![ContentBlock::text(reply.text)];
        let mut result = if reply.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = reply.structured;
        Ok(result.into())
    }
}

/// A definition as the protocol's tool, with its output schema (the
/// structured content every result of it holds) and its hints: every tool reads
/// the repository and changes nothing (the gate is read-only, and proves
/// it), none reaches outside it.
fn tool(definition: tools::Definition) -> Tool {
    let object = |schema| match schema {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    Tool::new(
        definition.name,
        definition.description,
        Arc::new(object(definition.input_schema)),
    )
    .with_raw_output_schema(Arc::new(object(definition.output_schema)))
    .with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(definition.name != "run_checks")
            .open_world(false),
    )
}
