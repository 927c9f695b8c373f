//! What run-check knows of each coding agent's hooks, as data: the events
//! `agent hook` handles, the fields it reads from the agent's input JSON,
//! the reply that lets the agent stop, blocks it or tells the user, the
//! settings file that calls the hook (`tooling/agent/install.rs` writes
//! it from here), its timeout field and the project variable. Every agent
//! is a row of [`table::PROTOCOLS`]; nothing here runs a check or touches
//! the session state (that is [`super::session`]).

pub(crate) mod plugin;
pub(crate) mod skill;
mod table;

use serde_json::{Value, json};

use table::PROTOCOLS;

/// The most of an agent's stdin the hook and the guard read: a stop's
/// input is a few hundred bytes, a tool call a few KB (a file's new
/// content at most).
const INPUT_LIMIT: u64 = 1024 * 1024;

/// An agent's JSON input on stdin, at most [`INPUT_LIMIT`] bytes; `what`
/// names it in the one-line error.
pub(crate) fn read_stdin(what: &str) -> Result<Value, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(INPUT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read {what}: {err}"))?;
    if bytes.len() as u64 > INPUT_LIMIT {
        return Err(format!("{what} is larger than 1 MiB: ignored"));
    }
    serde_json::from_slice(&bytes).map_err(|err| format!("{what} is not JSON ({err})"))
}

/// One agent's hook protocol.
#[derive(Debug)]
pub(crate) struct Protocol {
    /// The name on the command line.
    pub(crate) name: &'static str,
    /// The agent as its users call it (`--help`).
    pub(crate) title: &'static str,
    /// The folder whose presence makes `install` set the agent up.
    pub(crate) folder: &'static str,
    /// The settings file that calls the hook.
    pub(crate) settings: Settings,
    /// The instruction file and its text, for agents that read one.
    pub(crate) instructions: Option<Instructions>,
    /// The events `install` hooks, as the agent spells them: session
    /// start, then stop.
    pub(crate) events: [(&'static str, Event); 2],
    /// Other spellings the hook accepts.
    pub(crate) aliases: &'static [(&'static str, Event)],
    /// The input's fields.
    pub(crate) fields: Fields,
    /// Keys that every input of this agent has and no other agent's
    /// has: an input holding them all is this agent's, whichever hook it
    /// was sent to (Cursor runs `.claude/settings.json` hooks), and is read
    /// with this agent's fields and rules. Empty: known by its hook's name.
    pub(crate) shape: &'static [&'static str],
    /// The reply's shapes.
    pub(crate) replies: Replies,
    /// The environment variable the agent documents as the project's
    /// directory, preferred over the input's `cwd`.
    pub(crate) project_variable: Option<&'static str>,
}

/// An instruction file: its path, and what makes its text.
pub(crate) type Instructions = (&'static str, fn() -> String);

/// How an agent's settings file lists hooks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// The file, relative to the repository's top level.
    pub(crate) path: &'static str,
    /// What the file is and how run-check writes into it.
    pub(crate) format: Format,
    /// Each entry sits in a group's `hooks` list (Claude Code, Codex).
    pub(crate) grouped: bool,
    /// Each entry says `"type": "command"`.
    pub(crate) typed: bool,
    /// The keys that hold the command (the first identifies an entry).
    pub(crate) command_keys: &'static [&'static str],
    /// The field an entry's timeout goes in, and its unit.
    pub(crate) timeout: Option<Timeout>,
    /// The key of the stop entry's own cap on consecutive blocks.
    pub(crate) loop_limit: Option<&'static str>,
    /// A new file starts with `"version": 1`.
    pub(crate) version: bool,
}

/// What an agent's settings file is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Format {
    /// JSON whose `hooks` table run-check merges its entries into.
    Hooks,
    /// A file run-check writes whole and removes whole (it carries
    /// [`plugin::MARKER`]): its text, from the agent's name and the
    /// seconds it may wait for the hook. OpenCode, which has no command
    /// hooks, runs it.
    Plugin(fn(&str, u64) -> String),
    /// Aider's YAML configuration: run-check's `test-cmd` and `auto-test`
    /// lines below a marker line, every other line kept as it is.
    TestCommand,
}

/// A settings file's timeout field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Timeout {
    pub(crate) key: &'static str,
    pub(crate) unit: Unit,
}

/// The unit an agent reads a timeout in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Unit {
    Seconds,
    Milliseconds,
}

impl Unit {
    /// `seconds` in this unit.
    pub(crate) fn of(self, seconds: u64) -> u64 {
        match self {
            Unit::Seconds => seconds,
            Unit::Milliseconds => seconds.saturating_mul(1000),
        }
    }
}

/// The input fields the hook reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// The session id, the first present of these.
    pub(crate) session: &'static [&'static str],
    /// The repository's directory, the first present of these.
    pub(crate) dir: &'static [&'static str],
    /// A list of roots whose first is the repository's directory.
    pub(crate) roots: &'static str,
    /// `roots` is read before `dir`.
    pub(crate) roots_first: bool,
    /// True when this stop follows a block of this hook in the same turn.
    pub(crate) continued: &'static str,
    /// Above 0 when this stop follows a block of this hook.
    pub(crate) loop_count: &'static str,
    /// A stop's status: anything but `completed` is a stop not to gate.
    pub(crate) status: Option<&'static str>,
    /// The hook reads its input on stdin. Without (Aider, whose test
    /// command's stdin may be the user's terminal): the session is the
    /// worktree's own ([`local_input`]).
    pub(crate) stdin: bool,
    /// The agent's pre-tool event, read and answered by `agent guard`
    /// (`None`: the agent has none run-check can use).
    pub(crate) pre_tool: Option<&'static PreTool>,
}

/// An agent's pre-tool event: what `agent guard` reads of the tool call
/// and how it says no.
#[derive(Debug)]
pub(crate) struct PreTool {
    /// The event as the agent spells it in its settings file.
    pub(crate) event: &'static str,
    /// The tool's name, the first present of these keys; none: every
    /// call of the event is the one tool of `tools` (Cursor's
    /// `beforeShellExecution`, whose input holds the command itself).
    pub(crate) tool_name: &'static [&'static str],
    /// The tool's arguments, the first present of these keys: an object,
    /// or a string holding one (Copilot's camelCase `toolArgs`); none:
    /// the input itself.
    pub(crate) tool_input: &'static [&'static str],
    /// The tools the guard looks at, by name, and what each does; any
    /// other tool is let through.
    pub(crate) tools: &'static [(&'static str, Tool)],
    /// How a call is denied.
    pub(crate) deny: Deny,
}

/// What a tool does, as far as the guard is concerned: each holds the
/// argument keys to read, the first present.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tool {
    /// Runs a shell command.
    Shell(&'static [&'static str]),
    /// Writes or edits the file at a path (a string), or the files of a
    /// list of paths (VS Code's `editFiles`).
    Write(&'static [&'static str]),
    /// Applies a patch in the `apply_patch` format (`*** Update File:
    /// PATH` lines name the files it writes).
    Patch(&'static [&'static str]),
}

/// How a pre-tool call is denied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Deny {
    /// `{"hookSpecificOutput": {"hookEventName": EVENT,
    /// "permissionDecision": "deny", "permissionDecisionReason": ...}}`.
    HookSpecific,
    /// `{"permissionDecision": "deny", "permissionDecisionReason": ...}`.
    Decision,
    /// `{"permission": "deny", "user_message": ..., "agent_message": ...}`.
    Permission,
    /// `{"decision": "deny", "reason": ...}` (Gemini CLI's `BeforeTool`:
    /// the reason goes to the model as the tool's error).
    Reason,
}

/// The reply's shapes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replies {
    /// At session start every reply is `{KEY: true}` (`None`: as at stop).
    pub(crate) start: Option<&'static str>,
    /// How a block is said.
    pub(crate) block: Block,
    /// Where a block's note for the user goes.
    pub(crate) notice: Notice,
    /// The key a release's message goes in (it goes to stderr too).
    pub(crate) release_key: Option<&'static str>,
    /// The exit code of a release.
    pub(crate) release_code: i32,
    /// An input of this agent's shape is answered in this agent's format
    /// whichever hook it was sent to (VS Code runs `.claude/settings.json`
    /// and `.github/hooks/` hooks and reads its own reply shape).
    pub(crate) own_format: bool,
}

/// How a block is said.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Block {
    /// `{"decision": "block", "reason": ...}`.
    Decision,
    /// `{KEY: reason}`.
    Key(&'static str),
    /// `{"decision": WORD, "reason": ...}` (Gemini CLI: `deny`).
    DecisionAs(&'static str),
    /// `{"decision": "block", "reason": ..., "hookSpecificOutput":
    /// {"hookEventName": EVENT, "decision": "block", "reason": ...}}` (VS
    /// Code reads the inner object; an agent that runs the same file in
    /// Claude Code's format reads the outer keys).
    Specific(&'static str),
    /// The reason as plain text on stdout and exit 1 (Aider shows a
    /// failing test command's output to the model).
    Text,
}

/// Where a block's note for the user goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Notice {
    /// `systemMessage` beside the block.
    SystemMessage,
    /// A line on stderr.
    Stderr,
    /// Nowhere: the agent shows the user nothing of a hook's.
    Dropped,
}

/// A coding agent whose hooks run-check speaks: a row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Agent(usize);

/// What a hook event is to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// The session starts (or, for Cursor, a prompt is submitted): the
    /// session's baseline is taken once.
    Start,
    /// The agent is about to end its turn: the gate decides.
    Stop,
}

impl Agent {
    /// Every agent, in the order `install` handles them.
    pub(crate) const ALL: [Agent; PROTOCOLS.len()] = {
        let mut all = [Agent(0); PROTOCOLS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = Agent(i);
            i += 1;
        }
        all
    };

    /// Its row.
    pub(crate) fn protocol(self) -> &'static Protocol {
        &PROTOCOLS[self.0]
    }

    /// The name on the command line.
    pub(crate) fn name(self) -> &'static str {
        self.protocol().name
    }

    /// The agent named `name` (as on the command line).
    pub(crate) fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Every agent's name, `claude, cursor, ...`.
    pub(crate) fn names() -> String {
        Agent::ALL.map(Agent::name).join(", ")
    }

    /// The events `install` hooks, as the agent spells them: session start,
    /// then stop.
    pub(crate) fn events(self) -> [&'static str; 2] {
        self.protocol().events.map(|(name, _)| name)
    }

    /// The agent that sent `input` to this agent's hook: the first whose
    /// [`Protocol::shape`] the input has, else this one.
    pub(crate) fn sender(self, input: &serde_json::Map<String, Value>) -> Agent {
        Agent::ALL
            .into_iter()
            .find(|agent| {
                let shape = agent.protocol().shape;
                !shape.is_empty() && shape.iter().all(|key| input.contains_key(*key))
            })
            .unwrap_or(self)
    }

    /// The agent's pre-tool event (`agent guard`), `None` when it has none.
    pub(crate) fn pre_tool(self) -> Option<&'static PreTool> {
        self.protocol().fields.pre_tool
    }

    /// What `event` (as the agent spells it) is; `None` for an event the
    /// hook does not handle.
    pub(crate) fn event(self, event: &str) -> Option<Event> {
        let protocol = self.protocol();
        protocol
            .events
            .iter()
            .chain(protocol.aliases)
            .find(|(name, _)| *name == event)
            .map(|(_, what)| *what)
    }
}

/// What the hook reads from the agent's input.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Input {
    /// The session (Cursor: the conversation), as given.
    pub(crate) session: Option<String>,
    /// The repository's directory: the agent's project variable, else the
    /// input's `cwd` or Cursor's first `workspace_roots`.
    pub(crate) dir: Option<String>,
    /// This stop follows a block of this hook in the same turn
    /// (`stop_hook_active`; Cursor: `loop_count` above 0).
    pub(crate) continued: bool,
    /// Cursor's `status` of a stop other than `completed` (`aborted`,
    /// `error`): the user stopped the agent, or it failed; nothing to gate.
    pub(crate) abandoned: bool,
    /// The agent whose format answers this input when it is not the one
    /// whose hook was called ([`Replies::own_format`]).
    pub(crate) reply_as: Option<Agent>,
}

/// The hook's input as the agent documents it, read leniently: every field
/// is optional, and a field of the wrong type is as if absent. Only a
/// document that is not a JSON object is an error. It is read with the
/// fields and rules of the agent that sent it ([`Agent::sender`]), which
/// may not be `agent`, the one whose hook was called.
pub(crate) fn read_input(agent: Agent, value: &Value) -> Result<Input, String> {
    let Some(object) = value.as_object() else {
        return Err("the hook input is not a JSON object".into());
    };
    let sender = agent.sender(object);
    let protocol = sender.protocol();
    let fields = &protocol.fields;
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let first = |keys: &[&str]| keys.iter().find_map(|key| text(key));
    let root = object
        .get(fields.roots)
        .and_then(Value::as_array)
        .and_then(|roots| roots.first())
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let variable = protocol
        .project_variable
        .or(agent.protocol().project_variable)
        .and_then(std::env::var_os)
        .filter(|v| !v.is_empty())
        .map(|v| v.to_string_lossy().into_owned());
    // The project variable names the project the agent was started in;
    // `cwd` is wherever its shell went (a sub-package, another worktree,
    // a folder outside). A session with a recorded start ignores both.
    let dir = variable.or_else(|| match fields.roots_first {
        true => root.or_else(|| first(fields.dir)),
        false => first(fields.dir).or(root),
    });
    let continued = object
        .get(fields.continued)
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || object
            .get(fields.loop_count)
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 0);
    let abandoned = fields
        .status
        .and_then(&text)
        .is_some_and(|s| s != "completed");
    Ok(Input {
        session: first(fields.session),
        dir,
        continued,
        abandoned,
        reply_as: (sender != agent && protocol.replies.own_format).then_some(sender),
    })
}

/// The input of an agent that sends none ([`Fields::stdin`] false): the
/// repository is the agent's project variable, else the working
/// directory; the session is the worktree's (`AGENT-` and 16 hex digits
/// of the directory's path), and every stop follows the last one, so
/// blocks count until a pass or a release.
pub(crate) fn local_input(agent: Agent) -> Result<Input, String> {
    use sha2::{Digest, Sha256};
    let dir = match agent
        .protocol()
        .project_variable
        .and_then(std::env::var_os)
        .filter(|v| !v.is_empty())
    {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::env::current_dir()
            .map_err(|err| format!("cannot read the current directory: {err}"))?,
    };
    let dir = dunce::canonicalize(&dir).unwrap_or(dir);
    let digest = Sha256::digest(dir.to_string_lossy().as_bytes());
    let hex = crate::digest::hex(&digest[..8]);
    Ok(Input {
        session: Some(format!("{}-{hex}", agent.name())),
        dir: Some(dir.to_string_lossy().into_owned()),
        continued: true,
        abandoned: false,
        reply_as: None,
    })
}

/// The session id as a file name: only `[A-Za-z0-9_-]`, at most 64
/// characters; `None` when nothing is left.
pub(crate) fn session_name(session: &str) -> Option<String> {
    let name: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(64)
        .collect();
    (!name.is_empty()).then_some(name)
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    /// The agent may go on (or stop) as it would.
    Allow,
    /// The agent may not end its turn: `reason` is what it is told; `notice`,
    /// when the agent's hooks can show one, is told to the user as well.
    Block {
        reason: String,
        notice: Option<String>,
    },
    /// The agent may stop, and the user is told why the gate let it.
    Release { message: String },
}

/// A reply as the agent reads it: stdout (one JSON object), the line for
/// stderr, and the exit code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rendered {
    pub(crate) stdout: String,
    pub(crate) stderr: Option<String>,
    pub(crate) code: i32,
}

/// `reply` in the agent's own format for `event`. The JSON is built by
/// serde_json from strings, so whatever a check printed it is one valid
/// object; exit 0 except where the agent's documented way to show the user
/// a message is a warning exit.
pub(crate) fn render(agent: Agent, event: Option<Event>, reply: &Reply) -> Rendered {
    let replies = &agent.protocol().replies;
    let (mut value, stderr, code) = match reply {
        Reply::Allow => (json!({}), None, 0),
        Reply::Block { reason, notice } => {
            let mut value = match replies.block {
                Block::Decision | Block::Text => json!({"decision": "block", "reason": reason}),
                Block::Key(key) => json!({ key: reason }),
                Block::DecisionAs(word) => json!({"decision": word, "reason": reason}),
                Block::Specific(event) => json!({
                    "decision": "block",
                    "reason": reason,
                    "hookSpecificOutput": {
                        "hookEventName": event,
                        "decision": "block",
                        "reason": reason,
                    },
                }),
            };
            let mut stderr = None;
            match (replies.notice, notice) {
                (Notice::SystemMessage, Some(notice)) => value["systemMessage"] = json!(notice),
                (Notice::Stderr, Some(notice)) => stderr = Some(notice.clone()),
                _ => {}
            }
            (value, stderr, 0)
        }
        Reply::Release { message } => {
            let value = match replies.release_key {
                Some(key) => json!({ key: message }),
                None => json!({}),
            };
            (value, Some(message.clone()), replies.release_code)
        }
    };
    if let (Some(key), Some(Event::Start)) = (replies.start, event) {
        value = json!({ key: true });
    }
    let stderr = stderr.map(|line| stderr_line(&line));
    if let Block::Text = replies.block {
        // The reason is the feedback, plain lines; whatever it holds, no
        // control character but the line breaks reaches the terminal.
        let text = match reply {
            Reply::Block { reason, .. } => reason
                .lines()
                .map(|line| {
                    crate::sanitize::for_display(line)
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let code = if matches!(reply, Reply::Block { .. }) {
            1
        } else {
            code
        };
        return Rendered {
            stdout: text,
            stderr,
            code,
        };
    }
    Rendered {
        stdout: value.to_string(),
        stderr,
        code,
    }
}

/// A denied pre-tool call in the agent's own format (stdout, exit 0):
/// `reason` is what the model reads, and where the agent shows one, the
/// user too. Built by serde_json, so it is one valid object.
pub(crate) fn render_deny(pre_tool: &PreTool, reason: &str) -> String {
    let value = match pre_tool.deny {
        Deny::HookSpecific => json!({"hookSpecificOutput": {
            "hookEventName": pre_tool.event,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
        Deny::Decision => json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }),
        Deny::Permission => json!({
            "permission": "deny",
            "user_message": reason,
            "agent_message": reason,
        }),
        Deny::Reason => json!({"decision": "deny", "reason": reason}),
    };
    value.to_string()
}

/// `text` as the hook's one line on stderr, shown safely
/// ([`crate::sanitize::one_line`]) and named as the hook's.
pub(crate) fn stderr_line(text: &str) -> String {
    format!(
        "run-check agent hook: {}",
        crate::sanitize::one_line(text, usize::MAX)
    )
}

#[cfg(test)]
mod tests;
