//! The agents added after the first four (docs/agents.md): Gemini CLI,
//! Factory Droid, Qwen Code and VS Code through their hook files, OpenCode
//! through the plugin `agent install` writes (run under Node with a
//! stand-in for OpenCode's plugin API), Aider through its test command.
//! Each is installed over a settings file of the user's, fed its
//! documented stop input (tests/fixtures/agents/, sources in its README)
//! by the command the installed file runs, blocked on a located failure,
//! let go once it is fixed, and uninstalled back to the user's bytes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::agent_hooks::{CHECKS, project, write};
use crate::support::{Test, bin, git, repo_root, state_home};

/// A JSON-hooks agent as its documentation describes it.
struct Hooked {
    name: &'static str,
    start: &'static str,
    stop: &'static str,
    /// The settings file and the user's own text in it.
    settings: &'static str,
    user: &'static str,
    /// The input's session key.
    session_key: &'static str,
    /// The hook's timeout field as install writes it: the entry's value
    /// for `[agent] timeout` "9m" (600 s) in the agent's unit.
    timeout: u64,
    /// Entries sit in a group's `hooks` list.
    grouped: bool,
}

const GEMINI_USER: &str = "{\n  \"model\": {\n    \"name\": \"gemini-2.5-pro\"\n  },\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n        \"matcher\": \"write_file|replace\",\n        \"hooks\": [\n          {\n            \"name\": \"security-check\",\n            \"type\": \"command\",\n            \"command\": \"$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh\",\n            \"timeout\": 5000\n          }\n        ]\n      }\n    ]\n  }\n}\n";
const DROID_USER: &str = "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"matcher\": \"Create|Edit|ApplyPatch\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"\\\"$FACTORY_PROJECT_DIR\\\"/.factory/hooks/check-style.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
const QWEN_USER: &str = "{\n  \"disableAllHooks\": false,\n  \"model\": {\n    \"name\": \"qwen3-coder-plus\"\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify-send done\",\n            \"timeout\": 10000\n          }\n        ]\n      }\n    ]\n  }\n}\n";
const VSCODE_USER: &str = "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"type\": \"command\",\n        \"command\": \"npx prettier --write \\\"$TOOL_INPUT_FILE_PATH\\\"\"\n      }\n    ]\n  }\n}\n";

const HOOKED: [Hooked; 4] = [
    Hooked {
        name: "gemini",
        start: "SessionStart",
        stop: "AfterAgent",
        settings: ".gemini/settings.json",
        user: GEMINI_USER,
        session_key: "session_id",
        timeout: 600_000,
        grouped: true,
    },
    Hooked {
        name: "droid",
        start: "SessionStart",
        stop: "Stop",
        settings: ".factory/hooks.json",
        user: DROID_USER,
        session_key: "session_id",
        timeout: 600,
        grouped: true,
    },
    Hooked {
        name: "qwen",
        start: "SessionStart",
        stop: "Stop",
        settings: ".qwen/settings.json",
        user: QWEN_USER,
        session_key: "session_id",
        timeout: 600_000,
        grouped: true,
    },
    Hooked {
        // VS Code reads every `.github/hooks/*.json`: the user's own file
        // beside run-check's is one the user had there.
        name: "vscode",
        start: "SessionStart",
        stop: "Stop",
        settings: ".github/hooks/run-check-vscode.json",
        user: VSCODE_USER,
        session_key: "sessionId",
        timeout: 600,
        grouped: false,
    },
];

/// `run-check ARGS` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[track_caller]
fn ok(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
}

/// The command of run-check's entry for `event` in an installed settings
/// file, and the entry.
fn installed_entry(agent: &Hooked, settings: &Value, event: &str) -> (Vec<String>, Value) {
    let list = settings["hooks"][event].as_array().unwrap_or_else(|| {
        panic!("{}: no {event} list: {settings}", agent.name);
    });
    let entries: Vec<&Value> = match agent.grouped {
        true => list
            .iter()
            .flat_map(|group| group["hooks"].as_array().unwrap().iter())
            .collect(),
        false => list.iter().collect(),
    };
    let ours = entries
        .into_iter()
        .find(|e| {
            e["command"]
                .as_str()
                .is_some_and(|c| c.starts_with("run-check "))
        })
        .unwrap_or_else(|| panic!("{}: no run-check entry for {event}", agent.name))
        .clone();
    let words = ours["command"]
        .as_str()
        .unwrap()
        .split(' ')
        .map(str::to_string)
        .collect();
    (words, ours)
}

/// Runs the installed command (`run-check agent hook ...`: the binary
/// under test stands for `run-check`) with the agent's documented input
/// for `event`, pointed at `dir`; the reply.
fn fire(
    command: &[String],
    fixture: &str,
    dir: &Path,
    key: &str,
    session: &str,
    continued: bool,
) -> (Value, Output) {
    assert_eq!(command[..3], ["run-check", "agent", "hook"], "{command:?}");
    let path = repo_root().join("tests/fixtures/agents").join(fixture);
    let mut input: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    input["cwd"] = json!(dir.display().to_string());
    input[key] = json!(session);
    if input.get("stop_hook_active").is_some() {
        input["stop_hook_active"] = json!(continued);
    }
    let mut child = Command::new(bin())
        .args(&command[1..])
        .current_dir(std::env::temp_dir())
        .env("XDG_STATE_HOME", state_home(dir))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("QWEN_PROJECT_DIR")
        .env_remove("FACTORY_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let _ = pipe.write_all(input.to_string().as_bytes());
    drop(pipe);
    let output = child.wait_with_output().unwrap();
    let raw = String::from_utf8_lossy(&output.stdout).into_owned();
    let value = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("not JSON ({e}): {raw:?}"));
    assert_eq!(output.status.code(), Some(0), "{raw}");
    (value, output)
}

/// The block's reason as `agent` reads it; `None` when it may stop.
fn blocked(agent: &str, reply: &Value) -> Option<String> {
    let (decision, reason) = match agent {
        "gemini" => (&reply["decision"], &reply["reason"]),
        "vscode" => {
            let inner = &reply["hookSpecificOutput"];
            if !inner.is_null() {
                assert_eq!(inner["hookEventName"], "Stop", "{reply}");
            }
            (&inner["decision"], &inner["reason"])
        }
        _ => (&reply["decision"], &reply["reason"]),
    };
    let word = if agent == "gemini" { "deny" } else { "block" };
    (decision == word).then(|| reason.as_str().unwrap().to_string())
}

#[track_caller]
fn assert_located(reason: &str) {
    assert!(
        reason.starts_with("FAIL: 1 of 1 checks failed (lint)"),
        "{reason}"
    );
    assert!(
        reason.contains("app.py:2: [lint E1] found a BUG marker"),
        "{reason}"
    );
}

#[test]
fn each_hooked_agent_is_installed_blocked_let_go_and_uninstalled_to_the_users_bytes() {
    for agent in &HOOKED {
        let test = project(CHECKS, "x = 1\n");
        let dir = test.path();
        std::fs::create_dir_all(dir.join(agent.settings).parent().unwrap()).unwrap();
        let user_file = if agent.name == "vscode" {
            ".github/hooks/format.json"
        } else {
            agent.settings
        };
        std::fs::write(dir.join(user_file), agent.user).unwrap();
        commit(dir, "the user's settings");

        let out = ok(&run(dir, &["agent", "install", agent.name]));
        assert!(out.contains(agent.settings), "{out}");
        commit(dir, "hooks");
        let settings: Value = serde_json::from_str(&read(dir, agent.settings)).unwrap();
        let (start, _) = installed_entry(agent, &settings, agent.start);
        let (stop, entry) = installed_entry(agent, &settings, agent.stop);
        assert_eq!(
            stop.join(" "),
            format!("run-check agent hook {} {}", agent.name, agent.stop)
        );
        assert_eq!(entry["type"], "command", "{entry}");
        assert_eq!(entry["timeout"], agent.timeout, "{}: {entry}", agent.name);
        if agent.name != "vscode" {
            // The user's own keys and hooks are where they were.
            let user: Value = serde_json::from_str(agent.user).unwrap();
            for (key, value) in user.as_object().unwrap() {
                if key != "hooks" {
                    assert_eq!(&settings[key], value, "{}", agent.name);
                }
            }
            for (event, list) in user["hooks"].as_object().unwrap() {
                assert_eq!(settings["hooks"][event][0], list[0], "{}", agent.name);
            }
        }

        let start_fixture = format!("{}-{}.json", agent.name, agent.start);
        let stop_fixture = format!("{}-{}.json", agent.name, agent.stop);
        let (reply, _) = fire(&start, &start_fixture, dir, agent.session_key, "s-1", false);
        assert_eq!(blocked(agent.name, &reply), None, "{}: {reply}", agent.name);

        write(&test, "app.py", "x = 1\ny = 2  # BUG\n");
        let (reply, _) = fire(&stop, &stop_fixture, dir, agent.session_key, "s-1", false);
        let reason = blocked(agent.name, &reply)
            .unwrap_or_else(|| panic!("{} not blocked: {reply}", agent.name));
        assert_located(&reason);

        write(&test, "app.py", "x = 1\ny = 2\n");
        let (reply, output) = fire(&stop, &stop_fixture, dir, agent.session_key, "s-1", true);
        assert_eq!(blocked(agent.name, &reply), None, "{}: {reply}", agent.name);
        assert_eq!(
            reply,
            json!({}),
            "{}: {}",
            agent.name,
            String::from_utf8_lossy(&output.stderr)
        );

        let out = ok(&run(dir, &["agent", "uninstall", agent.name]));
        assert!(out.contains(agent.settings), "{out}");
        assert_eq!(read(dir, user_file), agent.user, "{}", agent.name);
        if user_file != agent.settings {
            assert!(!dir.join(agent.settings).exists(), "{}", agent.name);
        }
        // As committed before the install, byte for byte.
        assert_eq!(git(dir, &["diff", "HEAD~1", "--", user_file]), "");
    }
}

#[test]
fn vscode_is_answered_in_its_own_shape_from_the_files_it_shares() {
    // VS Code runs `.claude/settings.json` and Copilot's file too: its
    // input there gets its `hookSpecificOutput` reply; Claude Code's own
    // input to the same hook keeps Claude Code's shape.
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    write(&test, "app.py", "x = 1\ny = 2  # BUG\n");
    let claude = ["run-check", "agent", "hook", "claude", "Stop"].map(String::from);
    let (reply, _) = fire(&claude, "vscode-Stop.json", dir, "sessionId", "v-1", false);
    assert_located(&blocked("vscode", &reply).expect("VS Code's shape"));
    let (reply, _) = fire(&claude, "claude-Stop.json", dir, "session_id", "c-1", false);
    assert!(reply.get("hookSpecificOutput").is_none(), "{reply}");
    assert_located(reply["reason"].as_str().unwrap());
    let copilot = ["run-check", "agent", "hook", "copilot", "agentStop"].map(String::from);
    let (reply, _) = fire(&copilot, "vscode-Stop.json", dir, "sessionId", "v-2", false);
    assert_located(&blocked("vscode", &reply).expect("VS Code's shape"));
}

/// PATH with the binary under test first, as `run-check`.
fn path_with_run_check(test: &Test) -> PathBuf {
    let bin_dir = test.path().join(".git/test-bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let link = bin_dir.join(format!("run-check{}", std::env::consts::EXE_SUFFIX));
    if !link.exists() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(bin(), &link).unwrap();
        #[cfg(not(unix))]
        std::fs::copy(bin(), &link).unwrap();
    }
    bin_dir
}

fn search_path(first: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![first.to_path_buf()];
    paths.extend(std::env::split_paths(&rest));
    std::env::join_paths(paths).unwrap()
}

/// Runs OpenCode's stand-in over the installed plugin with `events`
/// (fixture names) for session `session`; what the plugin did.
fn opencode(test: &Test, session: &str, events: &[&str]) -> Value {
    let dir = test.path();
    let fixtures = repo_root().join("tests/fixtures/agents");
    let output = Command::new("node")
        .arg(fixtures.join("opencode/harness.mjs"))
        .arg(dir.join(".opencode/plugin/run-check.js"))
        .arg(dir)
        .arg(session)
        .args(events.iter().map(|e| fixtures.join(e)))
        .current_dir(dir)
        .env("PATH", search_path(&path_with_run_check(test)))
        .env("XDG_STATE_HOME", state_home(dir))
        .output()
        .expect("node");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn opencode_s_plugin_sends_a_blocks_reason_as_the_next_prompt_and_nothing_when_green() {
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    let other = "export default { id: \"mine\", server: async () => ({}) }\n";
    std::fs::create_dir_all(dir.join(".opencode/plugin")).unwrap();
    std::fs::write(dir.join(".opencode/plugin/mine.js"), other).unwrap();
    commit(dir, "the user's plugin");

    let out = ok(&run(dir, &["agent", "install"]));
    assert!(
        out.contains("created .opencode/plugin/run-check.js"),
        "{out}"
    );
    let plugin = read(dir, ".opencode/plugin/run-check.js");
    // No shell: an argument list; the hook's deadline in milliseconds.
    assert!(
        plugin.contains("const AGENT = \"opencode\"\n")
            && plugin.contains(r#"spawn("run-check", ["agent", "hook", AGENT, event]"#),
        "{plugin}"
    );
    assert!(plugin.contains("const TIMEOUT_MS = 600000\n"), "{plugin}");
    commit(dir, "hooks");

    let session = "ses_5b1c2d3e4f5a6b7c8d9e0f1a2b";
    write(&test, "app.py", "x = 1\ny = 2  # BUG\n");
    let did = opencode(
        &test,
        session,
        &[
            "opencode-session.created.json",
            "opencode-session.idle.json",
        ],
    );
    let prompts = did["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1, "{did}");
    assert_eq!(prompts[0]["path"]["id"], session, "{did}");
    assert_eq!(prompts[0]["body"]["parts"][0]["type"], "text", "{did}");
    assert_located(prompts[0]["body"]["parts"][0]["text"].as_str().unwrap());

    write(&test, "app.py", "x = 1\ny = 2\n");
    let did = opencode(&test, session, &["opencode-session.idle.json"]);
    assert_eq!(did["prompts"], json!([]), "{did}");
    assert_eq!(did["logs"], json!([]), "{did}");

    ok(&run(dir, &["agent", "uninstall"]));
    assert!(!dir.join(".opencode/plugin/run-check.js").exists());
    assert_eq!(read(dir, ".opencode/plugin/mine.js"), other);
    assert_eq!(
        git(
            dir,
            &["status", "--porcelain", "--", ".opencode/plugin/mine.js"]
        ),
        ""
    );
}

/// Runs aider's test command as aider does (a shell command line in the
/// repository), with stdin that is no hook input: the hook must not read it.
#[cfg(unix)]
fn aider_test(test: &Test, command: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(test.path())
        .env("PATH", search_path(&path_with_run_check(test)))
        .env("XDG_STATE_HOME", state_home(test.path()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut pipe = child.stdin.take().unwrap();
            let _ = pipe.write_all(b"this is the user's terminal, not JSON\n");
            drop(pipe);
            child.wait_with_output()
        })
        .unwrap()
}

#[cfg(unix)]
#[test]
fn aider_s_test_command_prints_the_feedback_and_fails_until_the_gate_is_green() {
    let test = project(CHECKS, "x = 1\n");
    let dir = test.path();
    let user = "model: sonnet\nread: AGENTS.md\nauto-commits: true";
    std::fs::write(dir.join(".aider.conf.yml"), user).unwrap();
    commit(dir, "the user's aider settings");

    let out = ok(&run(dir, &["agent", "install"]));
    assert!(out.contains("updated .aider.conf.yml"), "{out}");
    let config = read(dir, ".aider.conf.yml");
    assert!(config.starts_with(user), "{config}");
    let command = config
        .lines()
        .find_map(|l| l.strip_prefix("test-cmd: "))
        .expect("test-cmd");
    assert_eq!(command, "run-check agent hook aider stop");
    assert!(config.ends_with("\nauto-test: true\n"), "{config}");
    commit(dir, "hooks");

    write(&test, "app.py", "x = 1\ny = 2  # BUG\n");
    let output = aider_test(&test, command);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_located(&String::from_utf8_lossy(&output.stdout));

    write(&test, "app.py", "x = 1\ny = 2\n");
    let output = aider_test(&test, command);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "");

    ok(&run(dir, &["agent", "uninstall", "aider"]));
    assert_eq!(read(dir, ".aider.conf.yml"), user);
}

#[test]
fn three_agents_installed_side_by_side_come_out_one_at_a_time() {
    let test = Test::new();
    let dir = test.path();
    let agents = [
        "claude", "gemini", "qwen", "droid", "vscode", "opencode", "aider",
    ];
    let mut args = vec!["agent", "install"];
    args.extend(agents);
    ok(&run(dir, &args));
    let files = [
        ".claude/settings.json",
        ".gemini/settings.json",
        ".qwen/settings.json",
        ".factory/hooks.json",
        ".github/hooks/run-check-vscode.json",
        ".opencode/plugin/run-check.js",
        ".aider.conf.yml",
    ];
    for file in files {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let out = ok(&run(dir, &["agent", "uninstall", "gemini"]));
    assert!(out.contains("removed .gemini/settings.json"), "{out}");
    for file in &files[..] {
        assert_eq!(
            dir.join(file).is_file(),
            !file.starts_with(".gemini"),
            "{file}"
        );
    }
    let out = ok(&run(dir, &["agent", "uninstall"]));
    for file in files {
        assert!(!dir.join(file).exists(), "{file}: {out}");
    }
    for folder in [".gemini", ".qwen", ".factory", ".opencode", ".github"] {
        assert!(!dir.join(folder).exists(), "{folder}: {out}");
    }
}
