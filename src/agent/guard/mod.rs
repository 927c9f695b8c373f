//! `run-check agent guard AGENT EVENT`: the agent's pre-tool hook
//! (docs/agents.md, "Guard"). It reads the tool call on stdin (at most
//! 1 MiB, as the stop hook reads its input) and the repository's
//! checks.toml, and denies, with one line saying what to do instead, a
//! write of one of the gate's files ([`files`]) and a shell command that
//! skips or rewrites the gate ([`shell`]); everything else, and every call
//! it cannot read, is let through. It runs no check and starts no process
//! (the repository is found by its `.git`, not by asking git), so it
//! answers in milliseconds. Each denial is recorded in the session's
//! folder ([`super::denials`]) and listed for the user at the turn's end.
//!
//! It always exits 0 with one JSON object on stdout: Copilot denies a
//! tool call whose pre-tool hook exits otherwise, and a guard that cannot
//! read its input must not stop the agent's work.

mod call;
mod files;
mod shell;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::agent::denials;
use crate::agent::protocol::{self, Agent, PreTool, Rendered};
use call::Action;
use files::GateFiles;

/// Why a tool call is denied.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Denial {
    /// The rule's name, as docs/agents.md lists it.
    pub(crate) rule: &'static str,
    /// What the call would do.
    pub(crate) what: String,
    /// What to do instead.
    pub(crate) instead: &'static str,
}

impl Denial {
    /// The one line the model (and, where the agent shows it, the user)
    /// reads.
    fn reason(&self) -> String {
        format!(
            "run-check guard ({}): {}. Instead: {}.",
            self.rule, self.what, self.instead
        )
    }
}

/// The guard of `agent` (its name) for `event` (as the agent spells it).
pub(crate) fn guard(agent: Option<&str>, event: Option<&str>) -> Rendered {
    let allow = |why: Option<String>| Rendered {
        stdout: "{}".into(),
        stderr: why.map(|why| protocol::stderr_line(&format!("guard: {why}"))),
        code: 0,
    };
    let Some(agent) = agent.and_then(Agent::from_name) else {
        return allow(Some(format!(
            "unknown agent `{}` ({}): the call is let through",
            agent.unwrap_or(""),
            Agent::names()
        )));
    };
    let Some(pre_tool) = agent.pre_tool() else {
        return allow(Some(format!(
            "{} has no pre-tool event run-check guards: the call is let through",
            agent.name()
        )));
    };
    if !event.is_some_and(|e| e.eq_ignore_ascii_case(pre_tool.event)) {
        return allow(Some(format!(
            "`{}` is not {}'s pre-tool event ({}): the call is let through",
            event.unwrap_or(""),
            agent.name(),
            pre_tool.event
        )));
    }
    let input = match crate::agent::protocol::read_stdin("the input") {
        Ok(Value::Object(input)) => input,
        Ok(_) => return allow(Some("the input is not a JSON object: let through".into())),
        Err(why) => return allow(Some(format!("{why}: the call is let through"))),
    };
    match decide(agent, pre_tool, &input) {
        Ok(None) => allow(None),
        Ok(Some(denied)) => {
            let note = denied.record.and_then(|(dir, entry)| {
                denials::append(&dir, &entry)
                    .err()
                    .map(|why| format!("the denial could not be recorded: {why}"))
            });
            Rendered {
                stdout: protocol::render_deny(pre_tool, &denied.denial.reason()),
                stderr: note.map(|note| protocol::stderr_line(&format!("guard: {note}"))),
                code: 0,
            }
        }
        Err(why) => allow(Some(format!("{why}: the call is let through"))),
    }
}

/// A denial, and where to record it (the session folder and the entry).
struct Denied {
    denial: Denial,
    record: Option<(PathBuf, denials::Entry)>,
}

/// The call's verdict: `None` lets it through.
fn decide(
    agent: Agent,
    pre_tool: &PreTool,
    input: &Map<String, Value>,
) -> Result<Option<Denied>, String> {
    let mut call = call::read(pre_tool, input);
    // Another agent's input (Cursor and Copilot run `.claude/settings.json`
    // hooks) is read with that agent's keys when this agent's find nothing.
    let sender = agent.sender(input);
    if call.action == Action::Other
        && let Some(theirs) = sender.pre_tool().filter(|_| sender != agent)
    {
        call = call::read(theirs, input);
    }
    if call.action == Action::Other {
        return Ok(None);
    }
    let read = protocol::read_input(agent, &Value::Object(input.clone()))?;
    let cwd = match &read.dir {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_dir()
            .map_err(|err| format!("cannot read the current directory: {err}"))?,
    };
    let cwd = dunce::canonicalize(&cwd).unwrap_or(cwd);
    let Some((worktree, git_dirs)) = repository(&cwd) else {
        return Ok(None);
    };
    let config_file = config_file(&cwd, &worktree);
    let config = crate::config::load(&config_file, Path::new("checks.toml"), false).ok();
    if config.as_ref().is_some_and(|c| !c.agent.guard) {
        return Ok(None);
    }
    let files = GateFiles::new(&worktree, &git_dirs, &config_file, config.as_ref());
    let denial = match &call.action {
        Action::Write(paths) => paths.iter().find_map(|path| files.write(path, &cwd)),
        Action::Shell(command) => shell::check(
            command,
            &shell::Context {
                cwd: &cwd,
                protected: &files.protected,
            },
        ),
        Action::Other => None,
    };
    let Some(denial) = denial else {
        return Ok(None);
    };
    let record = read
        .session
        .as_deref()
        .and_then(protocol::session_name)
        .filter(|name| Some(name.as_str()) == read.session.as_deref())
        .map(|name| {
            let git_dir =
                crate::agent::session::pinned_git_dir(&name).unwrap_or_else(|| git_dirs[0].clone());
            let dir = git_dir.join("run-check").join("agent").join(name);
            (
                dir,
                denials::Entry::new(&call.tool, denial.rule, &denial.what),
            )
        });
    Ok(Some(Denied { denial, record }))
}

/// The worktree holding `dir` (the nearest folder with a `.git`) and its
/// git directories: its own and, for a linked worktree, the common one,
/// where the hooks live. Found from the files, without starting git.
fn repository(dir: &Path) -> Option<(PathBuf, Vec<PathBuf>)> {
    let worktree = dir
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())?;
    let git_dir = crate::git::git_dir_of(worktree)?;
    let git_dir = dunce::canonicalize(&git_dir).unwrap_or(git_dir);
    let mut dirs = vec![git_dir.clone()];
    if let Some(common) =
        crate::bounded::read_text(&git_dir.join("commondir"), crate::bounded::CONFIG)
    {
        let common = git_dir.join(common.trim());
        dirs.push(dunce::canonicalize(&common).unwrap_or(common));
    }
    Some((worktree.to_path_buf(), dirs))
}

/// The checks.toml a run in `dir` reads: the nearest from `dir` up to the
/// worktree's top level, else the top level's (which may not exist).
fn config_file(dir: &Path, worktree: &Path) -> PathBuf {
    dir.ancestors()
        .take_while(|d| d.starts_with(worktree))
        .map(|d| d.join("checks.toml"))
        .find(|file| file.is_file())
        .unwrap_or_else(|| worktree.join("checks.toml"))
}
