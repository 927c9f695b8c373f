//! `run-check agent guard` (docs/agents.md, "Guard"): each agent's
//! documented pre-tool input (tests/fixtures/agents/guard/, sources in its
//! README) on stdin, with only the repository path, the session id and the
//! tool's arguments set as the agent would set them; the reply read as the
//! agent reads it and compared with the agent's documented deny reply.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::agent_hooks::{AGENTS, CHECKS, hook, project, write};
use crate::support::{Test, bin, git, repo_root, state_home};

/// An agent's pre-tool event and what its fixtures hold.
struct Guarded {
    name: &'static str,
    event: &'static str,
}

const GUARDED: [Guarded; 4] = [
    Guarded {
        name: "claude",
        event: "PreToolUse",
    },
    Guarded {
        name: "codex",
        event: "PreToolUse",
    },
    Guarded {
        name: "copilot",
        event: "preToolUse",
    },
    Guarded {
        name: "cursor",
        event: "beforeShellExecution",
    },
];

/// A tool call.
enum Call<'a> {
    Shell(&'a str),
    /// A write of this worktree-relative path.
    Write(&'a str),
}

fn fixture(name: &str) -> Value {
    let path = repo_root().join("tests/fixtures/agents/guard").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The documented input of `agent`'s pre-tool event making `call` in
/// `dir`; `None` when the agent has no event for such a call (Cursor's
/// edits).
fn input(agent: &Guarded, call: &Call<'_>, dir: &Path, session: &str) -> Option<Value> {
    let dir_text = dir.display().to_string();
    let mut value = match (agent.name, call) {
        ("claude", Call::Shell(command)) => {
            let mut v = fixture("claude-PreToolUse-Bash.json");
            v["tool_input"]["command"] = json!(command);
            v
        }
        ("claude", Call::Write(path)) => {
            let mut v = fixture("claude-PreToolUse-Write.json");
            // Claude Code's paths are absolute.
            v["tool_input"]["file_path"] = json!(dir.join(path).display().to_string());
            v
        }
        ("codex", Call::Shell(command)) => {
            let mut v = fixture("codex-PreToolUse.json");
            v["tool_input"]["command"] = json!(command);
            v
        }
        ("codex", Call::Write(path)) => {
            // Codex runs the hook for `apply_patch` too, the patch in
            // `command`.
            let mut v = fixture("codex-PreToolUse.json");
            v["tool_name"] = json!("apply_patch");
            v["tool_input"]["command"] = json!(format!(
                "*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
            ));
            v
        }
        ("copilot", Call::Shell(command)) => {
            let mut v = fixture("copilot-preToolUse-bash.json");
            v["toolArgs"] = json!(json!({"command": command}).to_string());
            v
        }
        ("copilot", Call::Write(path)) => {
            let mut v = fixture("copilot-preToolUse-edit.json");
            v["toolArgs"]["path"] = json!(path);
            v
        }
        ("cursor", Call::Shell(command)) => {
            let mut v = fixture("cursor-beforeShellExecution.json");
            v["command"] = json!(command);
            v["workspace_roots"] = json!([dir_text]);
            v
        }
        _ => return None,
    };
    value["cwd"] = json!(dir_text);
    for key in ["session_id", "sessionId", "conversation_id"] {
        if value.get(key).is_some() {
            value[key] = json!(session);
        }
    }
    Some(value)
}

/// What the guard answered: the reply, stderr, the exit code.
struct Answer {
    json: Value,
    raw: String,
    stderr: String,
    code: Option<i32>,
}

fn guard_raw(agent: &str, event: &str, stdin: &[u8], repo: &Path) -> Answer {
    let mut child = Command::new(bin())
        .args(["agent", "guard", agent, event])
        .current_dir(std::env::temp_dir())
        .env("XDG_STATE_HOME", state_home(repo))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CURSOR_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let _ = pipe.write_all(stdin);
    drop(pipe);
    let output = child.wait_with_output().unwrap();
    let raw = String::from_utf8(output.stdout).unwrap();
    let json = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("not JSON ({e}): {raw:?}"));
    Answer {
        json,
        raw,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
    }
}

fn guard(agent: &Guarded, call: &Call<'_>, dir: &Path, session: &str) -> Option<Answer> {
    let value = input(agent, call, dir, session)?;
    let answer = guard_raw(agent.name, agent.event, value.to_string().as_bytes(), dir);
    // Copilot denies a call whose hook exits otherwise: always 0.
    assert_eq!(answer.code, Some(0), "{}", answer.stderr);
    let raw = answer.raw.trim_end();
    assert!(
        !raw.contains('\n') && !raw.chars().any(char::is_control),
        "{raw:?}"
    );
    Some(answer)
}

/// The reason of a denial, checked against the agent's documented deny
/// reply: the same keys at every level, the same decision.
fn denied(agent: &Guarded, answer: &Answer) -> Option<String> {
    if answer.json == json!({}) {
        return None;
    }
    let documented = fixture(&format!("{}-{}.deny.json", agent.name, agent.event));
    same_shape(&documented, &answer.json);
    let reason = match agent.name {
        "claude" | "codex" => &answer.json["hookSpecificOutput"]["permissionDecisionReason"],
        "copilot" => &answer.json["permissionDecisionReason"],
        _ => &answer.json["agent_message"],
    };
    Some(reason.as_str().unwrap().to_string())
}

#[track_caller]
fn same_shape(documented: &Value, got: &Value) {
    match (documented, got) {
        (Value::Object(want), Value::Object(have)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(want), keys(have), "{got}");
            for (key, value) in want {
                same_shape(value, &have[key]);
            }
        }
        (Value::String(want), Value::String(have)) if want == "deny" || want == "PreToolUse" => {
            assert_eq!(want, have);
        }
        (want, have) => assert_eq!(
            std::mem::discriminant(want),
            std::mem::discriminant(have),
            "{got}"
        ),
    }
}

/// A project with `src/x.py` and the lint check, committed.
fn guarded_project() -> Test {
    let test = project(CHECKS, "x = 1\n");
    std::fs::create_dir_all(test.path().join("src")).unwrap();
    write(&test, "src/x.py", "x = 1\n");
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "src"]);
    test
}

#[test]
fn each_agent_is_denied_edits_of_the_gate_and_commands_that_skip_it() {
    let cases: [(Call<'_>, Option<&str>); 7] = [
        (Call::Write("checks.toml"), Some("gate-file")),
        (
            Call::Shell("git commit --no-verify -m x"),
            Some("no-verify"),
        ),
        (
            Call::Shell("sh -c 'git commit --no-verify -m x'"),
            Some("no-verify"),
        ),
        (
            Call::Shell("git -c core.hooksPath=/dev/null commit -m x"),
            Some("hooks-path"),
        ),
        (
            Call::Shell("git update-index --assume-unchanged src/x.py"),
            Some("index-flags"),
        ),
        (Call::Write("src/x.py"), None),
        (Call::Shell("git commit -m x"), None),
    ];
    let test = guarded_project();
    for agent in &GUARDED {
        for (call, rule) in &cases {
            let Some(answer) = guard(agent, call, test.path(), "g-1") else {
                continue;
            };
            let reason = denied(agent, &answer);
            match rule {
                Some(rule) => {
                    let reason = reason.unwrap_or_else(|| {
                        panic!(
                            "{} let through a call of rule {rule}: {}",
                            agent.name, answer.raw
                        )
                    });
                    assert!(
                        reason.starts_with(&format!("run-check guard ({rule}): ")),
                        "{}: {reason}",
                        agent.name
                    );
                    assert!(reason.contains("Instead: "), "{reason}");
                }
                None => assert_eq!(reason, None, "{}: {}", agent.name, answer.raw),
            }
        }
    }
}

#[test]
fn guard_false_lets_everything_through_and_bad_input_never_denies() {
    let checks = CHECKS.replace("max_chars = 1000", "max_chars = 1000\nguard = false");
    let test = project(&checks, "x = 1\n");
    let claude = &GUARDED[0];
    for call in [
        Call::Write("checks.toml"),
        Call::Shell("git commit -n -m x"),
    ] {
        let answer = guard(claude, &call, test.path(), "g-2").unwrap();
        assert_eq!(answer.json, json!({}), "{}", answer.raw);
    }
    // Not JSON, not an object, an unknown agent or event: let through,
    // exit 0, one line on stderr.
    for (agent, event, stdin) in [
        ("claude", "PreToolUse", &b"not json"[..]),
        ("claude", "PreToolUse", b"[1]"),
        ("nobody", "PreToolUse", b"{}"),
        ("claude", "Stop", b"{}"),
    ] {
        let answer = guard_raw(agent, event, stdin, test.path());
        assert_eq!((answer.json.clone(), answer.code), (json!({}), Some(0)));
        assert!(
            answer.stderr.starts_with("run-check agent hook: guard: "),
            "{}",
            answer.stderr
        );
    }
}

#[test]
fn a_denial_is_listed_for_the_user_when_the_turn_ends() {
    for (agent, guarded) in
        AGENTS
            .into_iter()
            .zip([&GUARDED[0], &GUARDED[3], &GUARDED[1], &GUARDED[2]])
    {
        assert_eq!(agent.name, guarded.name);
        let test = guarded_project();
        let dir = test.path();
        hook(agent, agent.start, dir, "turn", false);
        let call = Call::Shell("git commit --no-verify -m wip");
        let answer = guard(guarded, &call, dir, "turn").unwrap();
        assert!(denied(guarded, &answer).is_some(), "{}", answer.raw);
        let stop = hook(agent, agent.stop, dir, "turn", false);
        assert_eq!(stop.blocked(agent), None, "{stop:?}");
        let told = stop.told(agent).unwrap_or_default();
        assert!(
            told.contains("run-check guard denied 1 tool call of the agent: ")
                && told.contains("(no-verify: `git commit --no-verify` skips"),
            "{}: {told:?}",
            agent.name
        );
        // Told once: the next stop has nothing to list.
        let again = hook(agent, agent.stop, dir, "turn", false);
        assert_eq!(again.told(agent), None, "{again:?}");
    }
}

#[test]
fn install_hooks_the_guard_beside_the_stop_hook_and_uninstall_restores_every_byte() {
    let settings = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./mine.sh\"\n          }\n        ]\n      }\n    ]\n  },\n  \"model\": \"opus\"\n}\n";
    let test = Test::new().file(".claude/settings.json", settings);
    let run = |args: &[&str]| {
        let output = Command::new(bin())
            .args(args)
            .current_dir(test.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    };
    let read = |path: &str| std::fs::read_to_string(test.path().join(path)).ok();
    run(&["agent", "install", "claude", "codex", "copilot", "cursor"]);
    let json = |path: &str| -> Value { serde_json::from_str(&read(path).unwrap()).unwrap() };
    let claude = json(".claude/settings.json");
    assert_eq!(
        claude["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./mine.sh"
    );
    let entry = &claude["hooks"]["PreToolUse"][1]["hooks"][0];
    assert_eq!(entry["command"], "run-check agent guard claude PreToolUse");
    assert_eq!(entry["timeout"], 10);
    assert_eq!(
        json(".codex/hooks.json")["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "run-check agent guard codex PreToolUse"
    );
    assert_eq!(
        json(".github/hooks/run-check.json")["hooks"]["preToolUse"][0]["bash"],
        "run-check agent guard copilot preToolUse"
    );
    let cursor = json(".cursor/hooks.json");
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0]["command"],
        "run-check agent guard cursor beforeShellExecution"
    );
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0].get("loop_limit"),
        None
    );

    // `guard = false`: the next install takes the entries out again.
    std::fs::write(test.path().join("checks.toml"), "[agent]\nguard = false\n").unwrap();
    run(&["agent", "install", "claude"]);
    let claude = json(".claude/settings.json");
    assert_eq!(claude["hooks"]["PreToolUse"].as_array().unwrap().len(), 1);
    std::fs::remove_file(test.path().join("checks.toml")).unwrap();

    run(&["agent", "install", "claude"]);
    run(&["agent", "uninstall"]);
    assert_eq!(read(".claude/settings.json").as_deref(), Some(settings));
    for path in [
        ".codex/hooks.json",
        ".github/hooks/run-check.json",
        ".cursor/hooks.json",
    ] {
        assert_eq!(read(path), None, "{path}");
    }
}
