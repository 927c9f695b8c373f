//! The coding agents' settings files: `install` merges run-check's hook
//! entries into them (and writes the instruction files), from each agent's
//! row of `agent/protocol/`; `json` keeps every other key in its order.

pub(crate) mod install;
pub(crate) mod json;
