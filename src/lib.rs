//! run-check: the single read-only verification gate of a repository.
//!
//! The pipeline is `cli` → `config::load` → `plan::build` →
//! `runner::run_plan` → `evidence::assemble` → `report::render` →
//! `output`. Each stage consumes the previous one's output; only `runner`
//! spawns checks and only `output` writes files.

pub mod artifacts;
pub mod bounded;
pub mod changes;
pub mod cli;
pub mod config;
pub mod diagnostics;
pub mod duration;
pub mod error;
pub mod evidence;
pub mod excerpt;
pub mod gate;
pub mod git;
pub mod hooks;
pub mod init;
pub mod json_input;
pub mod judge;
pub mod merge;
pub mod meta;
pub mod output;
pub mod paths;
pub mod plan;
pub mod report;
pub mod retry;
pub mod runner;
pub mod sanitize;
pub mod scan;
pub mod schema;
pub mod signal;
pub mod snapshot;
pub mod task;
#[cfg(test)]
mod test_git;
pub mod vote;

mod commands;

pub use run_check_documents::exit_code;

use std::ffi::OsString;

use clap::Parser;

use crate::cli::{Cli, Command};

/// Runs run-check with these arguments (the first is the program name) and
/// returns the process exit code. Errors are printed on stderr as one line.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) if err.exit_code() == 0 => {
            // --help and --version.
            let _ = err.print();
            return 0;
        }
        Err(err) => {
            // One line, like every other error: drop clap's usage block.
            let rendered = err.render().to_string();
            let line = rendered
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!("{line} (see `run-check --help`)");
            return exit_code::ERROR;
        }
    };
    let argv: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = match cli.command {
        None => commands::check(&cli.check, argv),
        Some(Command::Check(check)) => commands::check(&check, argv),
        Some(Command::List(list)) => commands::list(&list),
        Some(Command::Validate(location)) => commands::validate(&location),
        Some(Command::Fix(fix)) => commands::fix(&fix),
        Some(Command::Merge(merge)) => merge::run(&merge, argv),
        Some(Command::Judge(args)) => judge::run(&args),
        Some(Command::Vote(args)) => vote::run(&args),
        Some(Command::Retry(args)) => retry::run(&args),
        Some(Command::Schema(args)) => schema::run(&args),
        Some(Command::Init(args)) => init::run(&args),
        Some(Command::Hooks(args)) => hooks::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            err.exit_code()
        }
    }
}
