//! `run-check agent`: the gate inside coding agents (docs/agents.md).
//! `install` / `uninstall` write the agents' hook configurations
//! (`tooling/agent/install.rs`), `hook` runs the session's state machine
//! (`agent/session/`), `feedback` prints an evidence's bounded feedback.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::agent::protocol::Agent;
use crate::agent::session;
use crate::cli::{
    AgentArgs, AgentCommand, AgentFeedbackArgs, AgentGuardArgs, AgentHookArgs, AgentInstallArgs,
    AgentUninstallArgs, Location,
};
use crate::config::{AgentConfig, Config};
use crate::error::Error;
use crate::report::feedback;
use crate::tooling::agent::{baseline, install};
use crate::{bounded, json_input};

/// `run-check agent ...`.
pub(crate) fn agent(args: &AgentArgs) -> Result<i32, Error> {
    match &args.command {
        AgentCommand::Install(args) => install(args),
        AgentCommand::Uninstall(args) => uninstall(args),
        AgentCommand::Hook(args) => Ok(hook(args)),
        AgentCommand::Guard(args) => Ok(guard(args)),
        AgentCommand::Feedback(args) => feedback(args),
    }
}

/// The repository's top level (where the agents look for their folders),
/// else the current directory.
fn root() -> Result<PathBuf, Error> {
    let cwd = std::env::current_dir()
        .map_err(|err| Error::Environment(format!("cannot read the current directory: {err}")))?;
    Ok(crate::git::ask(&cwd, &["rev-parse", "--show-toplevel"])
        .ok()
        .filter(|top| !top.is_empty())
        .map_or(cwd, PathBuf::from))
}

/// `agent install [AGENT...] [--force] [--dry-run]`.
fn install(args: &AgentInstallArgs) -> Result<i32, Error> {
    let root = root()?;
    let agents = if args.agents.is_empty() {
        install::present(&root)
    } else {
        dedup(&args.agents)
    };
    let agent = configured()?;
    let seconds = install::hook_seconds(agent.timeout);
    let mut changes = install::install(&root, &agents, args.force, seconds, agent.guard)?;
    let plan = head_baseline(&root, args.force)?;
    changes.extend(plan.changes);
    finish(&root, &changes, &plan.notes, args.dry_run)
}

/// The committed baseline `install` plans from one gate of the worktree
/// (`tooling/agent/baseline.rs`), with the checks.toml of the top level,
/// the one the hook of an agent started there reads.
fn head_baseline(root: &Path, force: bool) -> Result<baseline::Plan, Error> {
    let display = PathBuf::from("checks.toml");
    let path = root.join(&display);
    if !path.exists() {
        return Ok(baseline::Plan {
            changes: Vec::new(),
            notes: vec!["no checks.toml at the top level: HEAD was not gated".into()],
        });
    }
    let config = crate::config::load(&path, &display, false)?;
    baseline::plan(root, &display, &config, force)
}

/// `agent uninstall [AGENT...] [--dry-run]`.
fn uninstall(args: &AgentUninstallArgs) -> Result<i32, Error> {
    let root = root()?;
    let agents = if args.agents.is_empty() {
        install::installed(&root)?
    } else {
        dedup(&args.agents)
    };
    let changes = install::uninstall(&root, &agents)?;
    finish(&root, &changes, &[], args.dry_run)
}

/// `agent hook AGENT EVENT`: the reply on stdout, a line for the user on
/// stderr, the exit code the agent reads.
fn hook(args: &AgentHookArgs) -> i32 {
    let rendered = session::hook(args.agent.as_deref(), args.event.as_deref(), &hook_config);
    // An agent that reads text (Aider) gets nothing when it may go on.
    if !rendered.stdout.is_empty() {
        println!("{}", rendered.stdout);
    }
    if let Some(line) = &rendered.stderr {
        eprintln!("{line}");
    }
    rendered.code
}

/// `agent guard AGENT EVENT`: the reply on stdout (always exit 0), a line
/// on stderr when the call was let through for want of reading it.
fn guard(args: &AgentGuardArgs) -> i32 {
    let rendered = crate::agent::guard::guard(args.agent.as_deref(), args.event.as_deref());
    println!("{}", rendered.stdout);
    if let Some(line) = &rendered.stderr {
        eprintln!("{line}");
    }
    rendered.code
}

/// The worktree and checks.toml a check run in the current directory
/// reads, for the hook.
fn hook_config() -> Result<(PathBuf, Config), String> {
    let location = Location::default().resolved();
    let worktree =
        crate::paths::worktree(location.worktree.as_deref()).map_err(|e| e.to_string())?;
    let config = super::load_config(&location, &worktree)
        .map_err(|err| format!("the gate cannot run: {err}"))?;
    Ok((worktree, config))
}

fn dedup(agents: &[Agent]) -> Vec<Agent> {
    let mut agents = agents.to_vec();
    agents.sort();
    agents.dedup();
    agents
}

/// Writes the changes (unless a dry run) and prints one line per file,
/// then the notes.
fn finish(
    root: &Path,
    changes: &[install::Change],
    notes: &[String],
    dry_run: bool,
) -> Result<i32, Error> {
    if !dry_run {
        install::apply(root, changes)?;
    }
    let mut text = String::new();
    for change in changes {
        text.push_str(&change.describe(dry_run));
        text.push('\n');
    }
    if changes.is_empty() {
        text.push_str("nothing of run-check's to change\n");
    }
    for note in notes {
        text.push_str(note);
        text.push('\n');
    }
    write_stdout(&text)?;
    Ok(0)
}

fn write_stdout(text: &str) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|err| Error::Environment(format!("cannot write to stdout: {err}")))
}

/// `agent feedback [EVIDENCE] [--max-chars N]`: the feedback on stdout;
/// exit 0 for PASS evidence, 1 for any other (as `report`). Without
/// EVIDENCE, the last round of the repository's most recent agent session
/// (what the agent was last told); `-` reads stdin.
fn feedback(args: &AgentFeedbackArgs) -> Result<i32, Error> {
    let (path, bytes) = match &args.evidence {
        Some(path) => (path.clone(), bounded::read_input(path, "read evidence")?.1),
        // A session's round is read only when it is a regular file: the
        // code under test can reach the session folder.
        None => {
            let path = session::latest_round(&root()?)?;
            let bytes = bounded::read_regular(&path, bounded::JSON)
                .map_err(|err| Error::io("read evidence", &path, err))?;
            (path, bytes)
        }
    };
    let name = if path == Path::new("-") {
        PathBuf::from("<stdin>")
    } else {
        path.clone()
    };
    let evidence = json_input::evidence(&name, &bytes)?;
    let shown = (path != Path::new("-")).then(|| path.display().to_string());
    let max_chars = args.max_chars.map_or_else(configured_max_chars, Ok)?;
    let text = feedback::render(
        &evidence,
        &feedback::Options {
            max_chars,
            next: None,
            evidence_path: shown.as_deref(),
        },
    );
    write_stdout(&text)?;
    Ok(super::report::outcome(&evidence))
}

/// `[agent] max_chars` of the checks.toml a check run here would read,
/// else the default.
fn configured_max_chars() -> Result<usize, Error> {
    Ok(configured()?.max_chars)
}

/// `[agent]` of the checks.toml a check run here would read, else the
/// defaults. A config that exists but is invalid is an error: it would not
/// be what the hook uses either.
fn configured() -> Result<AgentConfig, Error> {
    let location = Location::default().resolved();
    let worktree = crate::paths::worktree(location.worktree.as_deref())?;
    if !super::config_file(&location, &worktree).exists() {
        return Ok(AgentConfig::default());
    }
    Ok(super::load_config(&location, &worktree)?.agent)
}
