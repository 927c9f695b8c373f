//! The tools around the gate: `init` writes a checks.toml, `hooks` installs
//! git hooks, `schema` prints the documents' JSON Schemas.

pub(crate) mod hooks;
pub(crate) mod init;
pub(crate) mod schema;
