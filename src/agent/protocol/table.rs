//! The table: one row per coding agent, as its published hook
//! documentation describes it (docs/agents.md cites each). The only place
//! that names an agent: a new agent is a new row.
//!
//! | agent   | session start        | stop        | block                               | config                         |
//! |---------|----------------------|-------------|-------------------------------------|--------------------------------|
//! | claude  | `SessionStart`       | `Stop`      | `{"decision":"block","reason":...}` | `.claude/settings.json`        |
//! | cursor  | `beforeSubmitPrompt` | `stop`      | `{"followup_message":...}`          | `.cursor/hooks.json`           |
//! | codex   | `SessionStart`       | `Stop`      | `{"decision":"block","reason":...}` | `.codex/hooks.json`            |
//! | copilot | `sessionStart`       | `agentStop` | `{"decision":"block","reason":...}` | `.github/hooks/run-check.json` |
//! | gemini  | `SessionStart`       | `AfterAgent`| `{"decision":"deny","reason":...}`  | `.gemini/settings.json`        |
//! | droid   | `SessionStart`       | `Stop`      | `{"decision":"block","reason":...}` | `.factory/hooks.json`          |
//! | qwen    | `SessionStart`       | `Stop`      | `{"decision":"block","reason":...}` | `.qwen/settings.json`          |
//! | opencode| `start` (plugin)     | `stop`      | the reason sent as the next prompt  | `.opencode/plugin/run-check.js`|
//! | vscode  | `SessionStart`       | `Stop`      | `hookSpecificOutput.{decision,reason}` | `.github/hooks/run-check-vscode.json` |
//! | aider   | none                 | `stop`      | the feedback on stdout, exit 1      | `.aider.conf.yml` (`test-cmd`) |
//!
//! Pre-tool events (`agent guard`): Claude Code and Codex `PreToolUse`,
//! Copilot `preToolUse`, Cursor `beforeShellExecution` (`Fields::pre_tool`).

use super::{
    Block, Deny, Event, Fields, Format, Notice, PreTool, Protocol, Replies, Settings, Timeout,
    Tool, Unit,
};
use super::{plugin, skill};

/// The input fields every agent shares (Cursor names its session
/// `conversation_id`, Copilot `sessionId`; `loop_count` is Cursor's).
const FIELDS: Fields = Fields {
    session: &["session_id", "sessionId", "conversation_id"],
    dir: &["cwd"],
    roots: "workspace_roots",
    roots_first: false,
    continued: "stop_hook_active",
    loop_count: "loop_count",
    status: None,
    stdin: true,
    pre_tool: None,
};

/// Claude Code's `PreToolUse`: `tool_name`, `tool_input` (`Bash`'s
/// `command`, `Write`'s and `Edit`'s `file_path`), denied in
/// `hookSpecificOutput`.
const CLAUDE_TOOLS: PreTool = PreTool {
    event: "PreToolUse",
    tool_name: &["tool_name"],
    tool_input: &["tool_input"],
    tools: &[
        ("Bash", Tool::Shell(&["command"])),
        ("Write", Tool::Write(&["file_path"])),
        ("Edit", Tool::Write(&["file_path"])),
        ("MultiEdit", Tool::Write(&["file_path"])),
        ("NotebookEdit", Tool::Write(&["notebook_path"])),
    ],
    deny: Deny::HookSpecific,
};

/// Codex's `PreToolUse`: Claude Code's shape; its shell tool is `Bash`,
/// and `apply_patch` carries the patch in `command`.
const CODEX_TOOLS: PreTool = PreTool {
    tools: &[
        ("Bash", Tool::Shell(&["command"])),
        ("apply_patch", Tool::Patch(&["command", "patch", "input"])),
    ],
    ..CLAUDE_TOOLS
};

/// Copilot's camelCase `preToolUse`: `toolName`, `toolArgs` (an object,
/// or a JSON string of one), denied with `permissionDecision` at the top.
/// The snake_case keys and Claude Code's tool names are its PascalCase
/// `PreToolUse` input's, as Copilot sends it to `.claude/settings.json`.
const COPILOT_TOOLS: PreTool = PreTool {
    event: "preToolUse",
    tool_name: &["toolName", "tool_name"],
    tool_input: &["toolArgs", "tool_input"],
    tools: &[
        ("bash", Tool::Shell(&["command"])),
        ("powershell", Tool::Shell(&["command"])),
        ("create", Tool::Write(&["path", "file_path"])),
        ("edit", Tool::Write(&["path", "file_path"])),
        ("str_replace_editor", Tool::Write(&["path", "file_path"])),
        ("apply_patch", Tool::Patch(&["input", "patch", "command"])),
        ("Bash", Tool::Shell(&["command"])),
        ("Write", Tool::Write(&["path", "file_path"])),
        ("Edit", Tool::Write(&["path", "file_path"])),
    ],
    deny: Deny::Decision,
};

/// Cursor's `beforeShellExecution`: the input holds the `command`; denied
/// with `permission`. Cursor has no pre-edit event that can deny.
const CURSOR_SHELL: PreTool = PreTool {
    event: "beforeShellExecution",
    tool_name: &[],
    tool_input: &[],
    tools: &[("", Tool::Shell(&["command"]))],
    deny: Deny::Permission,
};

/// Claude Code's and Codex's settings: `{"hooks": {"Stop": [{"hooks":
/// [{"type": "command", "command": ..., "timeout": s}]}]}}`.
const GROUPED: Settings = Settings {
    path: "",
    format: Format::Hooks,
    grouped: true,
    typed: true,
    command_keys: &["command"],
    timeout: Some(Timeout {
        key: "timeout",
        unit: Unit::Seconds,
    }),
    loop_limit: None,
    version: false,
};

/// [`GROUPED`] with timeouts in milliseconds (Gemini CLI, Qwen Code).
const GROUPED_MS: Settings = Settings {
    timeout: Some(Timeout {
        key: "timeout",
        unit: Unit::Milliseconds,
    }),
    ..GROUPED
};

/// Claude Code's and Codex's replies: a block is `decision` and `reason`,
/// the user is told in `systemMessage`.
const DECISION: Replies = Replies {
    start: None,
    block: Block::Decision,
    notice: Notice::SystemMessage,
    release_key: Some("systemMessage"),
    release_code: 0,
    own_format: false,
};

/// Every agent, in the order `install` handles them.
pub(crate) const PROTOCOLS: [Protocol; 10] = [
    Protocol {
        name: "claude",
        title: "Claude Code",
        folder: ".claude",
        settings: Settings {
            path: ".claude/settings.json",
            ..GROUPED
        },
        instructions: Some((".claude/skills/run-check/SKILL.md", skill::claude_skill)),
        events: [("SessionStart", Event::Start), ("Stop", Event::Stop)],
        aliases: &[],
        fields: Fields {
            pre_tool: Some(&CLAUDE_TOOLS),
            ..FIELDS
        },
        shape: &[],
        replies: DECISION,
        project_variable: Some("CLAUDE_PROJECT_DIR"),
        pre_tool: Some("PreToolUse"),
    },
    // Cursor has no session-start event a hook can rely on: the first
    // prompt of a conversation starts the session.
    Protocol {
        name: "cursor",
        title: "Cursor",
        folder: ".cursor",
        // `{"version": 1, "hooks": {"stop": [{"command": ..., "timeout": s}]}}`;
        // Cursor caps the follow-ups of a `stop` hook itself, per entry
        // (`loop_limit`): set to run-check's own default bound, so the two
        // agree (docs/agents.md says to raise both together).
        settings: Settings {
            path: ".cursor/hooks.json",
            format: Format::Hooks,
            grouped: false,
            typed: false,
            command_keys: &["command"],
            timeout: Some(Timeout {
                key: "timeout",
                unit: Unit::Seconds,
            }),
            loop_limit: Some("loop_limit"),
            version: true,
        },
        instructions: Some((".cursor/rules/run-check.mdc", skill::cursor_rule)),
        events: [("beforeSubmitPrompt", Event::Start), ("stop", Event::Stop)],
        aliases: &[],
        // Cursor always sends `workspace_roots`; its `status` other than
        // `completed` (`aborted`, `error`) is a stop with nothing to gate.
        fields: Fields {
            roots_first: true,
            status: Some("status"),
            pre_tool: Some(&CURSOR_SHELL),
            ..FIELDS
        },
        // Every Cursor input has both; no other agent sends either.
        shape: &["conversation_id", "workspace_roots"],
        // A prompt is answered `{"continue": true}` whatever the reply; a
        // block at stop is a follow-up message; the user is told on stderr.
        replies: Replies {
            start: Some("continue"),
            block: Block::Key("followup_message"),
            notice: Notice::Dropped,
            release_key: None,
            release_code: 0,
            own_format: false,
        },
        project_variable: Some("CURSOR_PROJECT_DIR"),
        pre_tool: Some("beforeShellExecution"),
    },
    Protocol {
        name: "codex",
        title: "OpenAI Codex CLI",
        folder: ".codex",
        settings: Settings {
            path: ".codex/hooks.json",
            ..GROUPED
        },
        instructions: None,
        events: [("SessionStart", Event::Start), ("Stop", Event::Stop)],
        aliases: &[],
        fields: Fields {
            pre_tool: Some(&CODEX_TOOLS),
            ..FIELDS
        },
        shape: &[],
        replies: DECISION,
        project_variable: None,
        pre_tool: Some("PreToolUse"),
    },
    Protocol {
        name: "copilot",
        title: "GitHub Copilot (CLI and cloud agent)",
        folder: ".github/hooks",
        // `{"version": 1, "hooks": {"agentStop": [{"type": "command",
        // "bash": ..., "powershell": ..., "timeoutSec": s}]}}`.
        settings: Settings {
            path: ".github/hooks/run-check.json",
            format: Format::Hooks,
            grouped: false,
            typed: true,
            command_keys: &["bash", "powershell"],
            timeout: Some(Timeout {
                key: "timeoutSec",
                unit: Unit::Seconds,
            }),
            loop_limit: None,
            version: true,
        },
        instructions: None,
        events: [("sessionStart", Event::Start), ("agentStop", Event::Stop)],
        // The PascalCase names of its VS Code compatible format.
        aliases: &[("SessionStart", Event::Start), ("Stop", Event::Stop)],
        fields: Fields {
            pre_tool: Some(&COPILOT_TOOLS),
            ..FIELDS
        },
        shape: &[],
        // Exit 2 is a warning on its stop and start events, never a block:
        // the documented way to show the user a message.
        replies: Replies {
            start: None,
            block: Block::Decision,
            notice: Notice::Stderr,
            release_key: None,
            release_code: 2,
            own_format: false,
        },
        project_variable: None,
        pre_tool: Some("preToolUse"),
    },
    // Gemini CLI: Claude Code's layout, timeouts in milliseconds; its
    // stop is `AfterAgent`, whose `deny` rejects the answer and sends the
    // reason to the model as a new prompt (a retry turn).
    Protocol {
        name: "gemini",
        title: "Gemini CLI",
        folder: ".gemini",
        settings: Settings {
            path: ".gemini/settings.json",
            ..GROUPED_MS
        },
        instructions: None,
        events: [("SessionStart", Event::Start), ("AfterAgent", Event::Stop)],
        aliases: &[],
        fields: FIELDS,
        shape: &[],
        replies: Replies {
            block: Block::DecisionAs("deny"),
            ..DECISION
        },
        project_variable: Some("GEMINI_PROJECT_DIR"),
        pre_tool: Some("BeforeTool"),
    },
    // Factory Droid: Claude Code's layout, input and replies.
    Protocol {
        name: "droid",
        title: "Factory Droid",
        folder: ".factory",
        settings: Settings {
            path: ".factory/hooks.json",
            ..GROUPED
        },
        instructions: None,
        events: [("SessionStart", Event::Start), ("Stop", Event::Stop)],
        aliases: &[],
        fields: FIELDS,
        shape: &[],
        replies: DECISION,
        project_variable: Some("FACTORY_PROJECT_DIR"),
        pre_tool: Some("PreToolUse"),
    },
    // Qwen Code: Claude Code's layout and replies, command timeouts in
    // milliseconds.
    Protocol {
        name: "qwen",
        title: "Qwen Code",
        folder: ".qwen",
        settings: Settings {
            path: ".qwen/settings.json",
            ..GROUPED_MS
        },
        instructions: None,
        events: [("SessionStart", Event::Start), ("Stop", Event::Stop)],
        aliases: &[],
        fields: FIELDS,
        shape: &[],
        replies: DECISION,
        project_variable: Some("QWEN_PROJECT_DIR"),
        pre_tool: Some("PreToolUse"),
    },
    // OpenCode has no command hooks: run-check's plugin runs the hook on
    // `session.created` and `session.idle` and sends a block's reason as
    // the next prompt; its timeout is in the plugin's text.
    Protocol {
        name: "opencode",
        title: "OpenCode",
        folder: ".opencode",
        settings: Settings {
            path: ".opencode/plugin/run-check.js",
            format: Format::Plugin(plugin::opencode),
            timeout: Some(Timeout {
                key: "TIMEOUT_MS",
                unit: Unit::Milliseconds,
            }),
            ..GROUPED
        },
        instructions: None,
        events: [("start", Event::Start), ("stop", Event::Stop)],
        aliases: &[],
        fields: FIELDS,
        shape: &[],
        replies: DECISION,
        project_variable: None,
        pre_tool: Some("tool.execute.before"),
    },
    // VS Code's agent mode: flat entries (`type`, `command`, `timeout` in
    // seconds) in `.github/hooks/*.json`; its input has `hookEventName`
    // and `sessionId`, which no other agent sends together, and its Stop
    // block is `hookSpecificOutput`, which it also gets from the other
    // files it runs (`.claude/settings.json`, Copilot's file).
    Protocol {
        name: "vscode",
        title: "VS Code agent mode",
        folder: ".vscode",
        settings: Settings {
            path: ".github/hooks/run-check-vscode.json",
            grouped: false,
            ..GROUPED
        },
        instructions: None,
        events: [("SessionStart", Event::Start), ("Stop", Event::Stop)],
        aliases: &[],
        fields: FIELDS,
        shape: &["hookEventName", "sessionId"],
        replies: Replies {
            block: Block::Specific("Stop"),
            own_format: true,
            ..DECISION
        },
        project_variable: None,
        pre_tool: Some("PreToolUse"),
    },
    // Aider has no hooks: its `test-cmd` runs after each change when
    // `auto-test` is on, and a failing command's output goes to the model.
    // It sends no input (and its stdin may be the terminal) and has no
    // session start; the stop's output is the feedback, its exit code 1.
    Protocol {
        name: "aider",
        title: "Aider",
        folder: ".aider.conf.yml",
        settings: Settings {
            path: ".aider.conf.yml",
            format: Format::TestCommand,
            timeout: None,
            ..GROUPED
        },
        instructions: None,
        events: [("start", Event::Start), ("stop", Event::Stop)],
        aliases: &[],
        fields: Fields {
            stdin: false,
            ..FIELDS
        },
        shape: &[],
        replies: Replies {
            block: Block::Text,
            notice: Notice::Stderr,
            release_key: None,
            ..DECISION
        },
        project_variable: None,
        pre_tool: None,
    },
];
