//! The coding agents' settings files: `install` merges run-check's hook
//! entries into them (and writes the instruction files), from each agent's
//! row of `agent/protocol/`; `json` keeps every other key in its order;
//! `baseline` gates HEAD and plans the committed baseline when it is red;
//! `command_lines` writes a test-command configuration's lines (Aider).

pub(crate) mod baseline;
pub(crate) mod command_lines;
pub(crate) mod install;
pub(crate) mod json;
