//! The tool call of a pre-tool event, as the agent's row of the protocol
//! table says to read it ([`PreTool`]): which tool, and what it would do
//! that the guard looks at (the files it writes, the shell command it
//! runs). Read leniently: a field of the wrong type is as if absent, and a
//! call the guard cannot read is one it lets through.

use serde_json::{Map, Value};

use crate::agent::protocol::{PreTool, Tool};

/// What a tool call would do, as far as the guard is concerned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Write or edit these files (as given: absolute, or relative to the
    /// call's directory).
    Write(Vec<String>),
    /// Run this shell command.
    Shell(String),
    /// Anything else: let through.
    Other,
}

/// The call: the tool's name as the agent sent it, and its action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    pub(crate) tool: String,
    pub(crate) action: Action,
}

/// Reads the call out of `input` with `pre_tool`'s keys.
pub(crate) fn read(pre_tool: &PreTool, input: &Map<String, Value>) -> Call {
    let name = pre_tool
        .tool_name
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str));
    let tool = match (name, pre_tool.tool_name.is_empty()) {
        (Some(name), _) => pre_tool.tools.iter().find(|(n, _)| *n == name),
        (None, true) => pre_tool.tools.first(),
        (None, false) => None,
    };
    let shown = name.unwrap_or(pre_tool.event).to_string();
    let Some((_, tool)) = tool else {
        return Call {
            tool: shown,
            action: Action::Other,
        };
    };
    let arguments = match pre_tool.tool_input.is_empty() {
        true => Some(Value::Object(input.clone())),
        false => pre_tool
            .tool_input
            .iter()
            .find_map(|key| input.get(*key))
            .and_then(arguments),
    };
    let action = arguments
        .as_ref()
        .and_then(Value::as_object)
        .map_or(Action::Other, |args| act(*tool, args));
    Call {
        tool: shown,
        action,
    }
}

/// The arguments as an object: itself, or the object a string holds.
fn arguments(value: &Value) -> Option<Value> {
    match value {
        Value::Object(_) => Some(value.clone()),
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object),
        _ => None,
    }
}

fn act(tool: Tool, args: &Map<String, Value>) -> Action {
    let first = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| args.get(*key).and_then(Value::as_str))
            .map(str::to_string)
    };
    match tool {
        Tool::Shell(keys) => first(keys).map_or(Action::Other, Action::Shell),
        Tool::Write(keys) => first(keys).map_or(Action::Other, |path| Action::Write(vec![path])),
        Tool::Patch(keys) => {
            first(keys).map_or(Action::Other, |patch| Action::Write(patched_files(&patch)))
        }
    }
}

/// The files an `apply_patch` patch adds, updates, deletes or moves to.
fn patched_files(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|line| {
            HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
                .map(|path| path.trim().to_string())
        })
        .filter(|path| !path.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocol::Agent;

    fn call(agent: &str, input: Value) -> Call {
        let agent = Agent::from_name(agent).unwrap();
        read(agent.pre_tool().unwrap(), input.as_object().unwrap())
    }

    #[test]
    fn each_agents_call_is_read_from_its_own_keys() {
        let edit = call(
            "claude",
            serde_json::json!({"tool_name": "Edit", "tool_input": {"file_path": "/r/checks.toml"}}),
        );
        assert_eq!(edit.action, Action::Write(vec!["/r/checks.toml".into()]));
        let shell = call(
            "copilot",
            serde_json::json!({"toolName": "bash", "toolArgs": "{\"command\": \"git status\"}"}),
        );
        assert_eq!(shell.action, Action::Shell("git status".into()));
        let cursor = call("cursor", serde_json::json!({"command": "ls", "cwd": "/r"}));
        assert_eq!(cursor.action, Action::Shell("ls".into()));
        let patch = call(
            "codex",
            serde_json::json!({"tool_name": "apply_patch", "tool_input": {"command":
                "*** Begin Patch\n*** Update File: checks.toml\n@@\n-a\n+b\n*** End Patch"}}),
        );
        assert_eq!(patch.action, Action::Write(vec!["checks.toml".into()]));
        let read = call(
            "claude",
            serde_json::json!({"tool_name": "Read", "tool_input": {"file_path": "checks.toml"}}),
        );
        assert_eq!(read.action, Action::Other);
        let odd = call(
            "claude",
            serde_json::json!({"tool_name": "Bash", "tool_input": {"command": 3}}),
        );
        assert_eq!(odd.action, Action::Other);
    }
}
