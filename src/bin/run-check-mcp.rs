//! `run-check-mcp`: the MCP server `run-check mcp` hands its process over
//! to, a program of its own so that the gate's binary does not carry the
//! protocol's code.

fn main() {
    let code = run_check::run_mcp_server(std::env::args_os());
    std::process::exit(code);
}
