//! run-check: the single read-only verification gate of a repository.
//!
//! `cli` reads the arguments and `commands` wires each subcommand's
//! pipeline. The check pipeline is `config::load` → `run::plan` →
//! `run::runner` (with `run::snapshot` around it) → `run::evidence` →
//! `report` → `output`; `parse` reads diagnostics out of tool output and
//! `scan` runs the built-in scans. `aggregate` holds the judge, vote, retry
//! and merge (documents in, documents out), `tooling` init, hooks and
//! schema. ARCHITECTURE.md draws the map and its rules.

mod agent;
mod aggregate;
mod bounded;
mod cli;
mod commands;
mod config;
mod console;
mod digest;
mod duration;
mod error;
mod git;
mod jobs;
mod json_input;
mod output;
mod parse;
mod paths;
mod remote;
mod report;
mod run;
mod sanitize;
mod scan;
mod signal;
#[cfg(test)]
mod test_git;
mod time;
mod tooling;

use run_check_documents::exit_code;

/// What this crate's own integration tests share with its unit tests; not
/// an interface.
#[doc(hidden)]
pub mod testing {
    pub use crate::run::evidence::complete;

    /// run-check's command line as clap defines it, for the tests that
    /// hold every subcommand to the conventions of docs/cli.md.
    pub fn command() -> clap::Command {
        <crate::cli::Cli as clap::CommandFactory>::command()
    }
}

use std::ffi::OsString;

use crate::cli::{Cli, Command};

/// Runs run-check with these arguments (the first is the program name) and
/// returns the process exit code. Errors are printed on stderr as one line.
///
/// Call it before the process starts any thread (`main` does): a gate
/// started by `candidates` first connects to the jobs pool, which briefly
/// changes the process's environment.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    front(&args, |cli, argv| match cli.command {
        None => commands::check(&cli.check, argv),
        Some(Command::Check(check)) => commands::check(&check, argv),
        Some(Command::List(list)) => commands::list(&list),
        Some(Command::Validate(location)) => commands::validate(&location),
        Some(Command::Fix(fix)) => commands::fix(&fix),
        Some(Command::Report(report)) => commands::report(&report),
        Some(Command::Merge(merge)) => commands::merge(&merge, argv),
        Some(Command::Judge(args)) => commands::judge(&args),
        Some(Command::Vote(args)) => commands::vote(&args),
        Some(Command::Retry(args)) => commands::retry(&args),
        Some(Command::Candidates(args)) => commands::candidates(&args),
        Some(Command::Schema(args)) => commands::schema(&args),
        Some(Command::Init(args)) => commands::init(&args),
        Some(Command::Hooks(args)) => commands::hooks(&args),
        Some(Command::Agent(args)) => commands::agent(&args),
        Some(Command::Mcp(args)) => commands::mcp(&args),
        Some(Command::Cache(args)) => commands::cache(&args),
        Some(Command::Completions(args)) => commands::completions(&args),
        Some(Command::Man(args)) => commands::man(&args),
    })
}

/// `run-check-remote exec|probe REQUEST REPORT`, the Remote Execution
/// client a gate runs as each remote check's process (src/remote/mod.rs).
/// Only this entry reaches the gRPC code, so run-check's own binary does
/// not carry it.
#[cfg(feature = "remote")]
pub fn run_remote_client(args: Vec<OsString>) -> i32 {
    remote::client::main(args)
}

/// `run-check-mcp [--worktree PATH]`, the MCP server `run-check mcp` hands
/// over to: the options of `run-check mcp`, read by the same parser. Only
/// this entry reaches the server's code, so run-check's own binary, which
/// never calls it, does not carry it.
#[cfg(feature = "mcp")]
pub fn run_mcp_server<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // Read as `run-check mcp ...`: help and errors name the command users
    // configure their agents with.
    let rest = args.split_off(args.len().min(1));
    let args: Vec<OsString> = ["run-check".into(), "mcp".into()]
        .into_iter()
        .chain(rest)
        .collect();
    front(&args, |cli, _| match cli.command {
        Some(Command::Mcp(args)) => commands::mcp_serve(&args),
        // Never: the arguments start with `mcp`.
        _ => Err(error::Error::Usage("run-check-mcp serves MCP only".into())),
    })
}

/// Parses `args` and runs `dispatch` with the command line and the
/// arguments as text; prints an error as one line and gives the exit code.
fn front(
    args: &[OsString],
    dispatch: impl FnOnce(Cli, Vec<String>) -> Result<i32, error::Error>,
) -> i32 {
    // A gate `candidates` started takes its share of the jobs pool before
    // anything else runs (jobs.rs: no other thread may exist yet).
    if let Err(why) = jobs::inherit() {
        eprintln!("error: {why}");
        return exit_code::ERROR;
    }
    let cli = match Cli::parse_args(args) {
        Ok(cli) => cli,
        Err(err) if err.exit_code() == 0 => {
            // --help and --version.
            let _ = err.print();
            return 0;
        }
        Err(mut err) => {
            let (command, words) = command_of(args);
            suggest_visible(&mut err, &command);
            eprint!("{}", usage_error(&err.render().to_string(), &words));
            return exit_code::ERROR;
        }
    };
    let argv: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match dispatch(cli, argv) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            err.exit_code()
        }
    }
}

/// The command `args` name (`run-check retry record`): the subcommands
/// among them, in order, as far as they go; its definition and its words.
fn command_of(args: &[OsString]) -> (clap::Command, String) {
    let mut command = <Cli as clap::CommandFactory>::command();
    // Built, so a subcommand holds the global arguments it takes too.
    command.build();
    let mut words = vec!["run-check".to_string()];
    for arg in args.iter().skip(1) {
        let Some(arg) = arg.to_str() else { continue };
        if arg == "--" {
            break;
        }
        if let Some(sub) = command.find_subcommand(arg).cloned() {
            words.push(sub.get_name().to_string());
            command = sub;
        }
    }
    (command, words.join(" "))
}

/// clap suggests the closest long name it knows for a mistyped flag, a
/// hidden alias too (`--task`, an old spelling of `--task-id` that scripts
/// keep): the suggestion names the flag as `command`'s help shows it.
fn suggest_visible(err: &mut clap::Error, command: &clap::Command) {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(suggested)) = err.get(ContextKind::SuggestedArg) else {
        return;
    };
    let Some(alias) = suggested.strip_prefix("--") else {
        return;
    };
    let visible = command.get_arguments().find_map(|arg| {
        let hidden = arg.get_all_aliases()?.contains(&alias)
            && !arg
                .get_visible_aliases()
                .unwrap_or_default()
                .contains(&alias);
        hidden.then(|| arg.get_long()).flatten()
    });
    if let Some(long) = visible {
        err.insert(
            ContextKind::SuggestedArg,
            ContextValue::String(format!("--{long}")),
        );
    }
}

/// clap's rendered usage error as run-check words errors: the error on one
/// line, pointing to the help of `command`, the one being parsed (`see
/// `run-check retry record --help``, not always `run-check --help`), then
/// each of clap's `tip:` lines on a line of its own, as clap prints them;
/// the usage block and clap's own pointer go.
fn usage_error(rendered: &str, command: &str) -> String {
    let before: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let (tips, error): (Vec<&str>, Vec<&str>) =
        before.into_iter().partition(|l| l.starts_with("tip:"));
    let mut text = format!("{} (see `{command} --help`)\n", error.join(" "));
    for tip in tips {
        text.push_str(&format!("  {tip}\n"));
    }
    text
}
