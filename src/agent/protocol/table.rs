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

use super::skill;
use super::{Block, Event, Fields, Notice, Protocol, Replies, Settings, Timeout, Unit};

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
};

/// Claude Code's and Codex's settings: `{"hooks": {"Stop": [{"hooks":
/// [{"type": "command", "command": ..., "timeout": s}]}]}}`.
const GROUPED: Settings = Settings {
    path: "",
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

/// Claude Code's and Codex's replies: a block is `decision` and `reason`,
/// the user is told in `systemMessage`.
const DECISION: Replies = Replies {
    start: None,
    block: Block::Decision,
    notice: Notice::SystemMessage,
    release_key: Some("systemMessage"),
    release_code: 0,
};

/// Every agent, in the order `install` handles them.
pub(crate) const PROTOCOLS: [Protocol; 4] = [
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
        fields: FIELDS,
        shape: &[],
        replies: DECISION,
        project_variable: Some("CLAUDE_PROJECT_DIR"),
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
        },
        project_variable: Some("CURSOR_PROJECT_DIR"),
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
        fields: FIELDS,
        shape: &[],
        replies: DECISION,
        project_variable: None,
    },
    Protocol {
        name: "copilot",
        title: "GitHub Copilot (CLI and cloud agent)",
        folder: ".github/hooks",
        // `{"version": 1, "hooks": {"agentStop": [{"type": "command",
        // "bash": ..., "powershell": ..., "timeoutSec": s}]}}`.
        settings: Settings {
            path: ".github/hooks/run-check.json",
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
        fields: FIELDS,
        shape: &[],
        // Exit 2 is a warning on its stop and start events, never a block:
        // the documented way to show the user a message.
        replies: Replies {
            start: None,
            block: Block::Decision,
            notice: Notice::Stderr,
            release_key: None,
            release_code: 2,
        },
        project_variable: None,
    },
];
