//! The tools around the gate: `init` writes a checks.toml, `hooks` installs
//! git hooks, `agent` speaks the coding agents' hook formats and writes
//! their configurations, `schema` prints the documents' JSON Schemas.

pub(crate) mod agent;
pub(crate) mod hooks;
pub(crate) mod init;
pub(crate) mod schema;
