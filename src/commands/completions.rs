//! `run-check completions SHELL` and `run-check man`: generated from the
//! clap definition only when asked, so the check run never builds them.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::Error;

use super::printed;

/// `run-check completions SHELL`: the shell's completion script on stdout.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<i32, Error> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "run-check", &mut script);
    if args.shell == Shell::Bash {
        script = bash_fixed(&script);
    }
    printed(script)
}

/// clap_complete's bash script for a hyphenated name (clap_complete
/// 4.6.11, clap-rs/clap#6421): its word loop names the state of
/// `run-check judge` `run__check__subcmd__judge`, but the `case` arms spell
/// it `run__subcmd__check__subcmd__judge`, so no subcommand's options ever
/// complete. The arms are renamed to the loop's spelling; the prefix occurs
/// nowhere else in the script. Once clap_complete spells them alike this
/// replaces nothing.
fn bash_fixed(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("run__subcmd__check", "run__check")
        .into_bytes()
}

/// `run-check man [COMMAND]...`: the manual page of run-check, or of one
/// of its commands (`run-check-judge(1)`, `run-check-retry-record(1)`: the
/// names the top page lists), roff, on stdout.
pub(crate) fn man(args: &ManArgs) -> Result<i32, Error> {
    // As clap_mangen::generate_to: no `help` page; building names each
    // subcommand `run-check-NAME`.
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    for (depth, name) in args.command.iter().enumerate() {
        let Some(sub) = command.find_subcommand(name).cloned() else {
            return Err(no_page(&command, &args.command[..=depth]));
        };
        command = sub;
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .source(format!("run-check {}", env!("CARGO_PKG_VERSION")))
        .render(&mut page)
        .map_err(|err| Error::Internal(format!("rendering the manual page: {err}")))?;
    printed(page)
}

/// `man`'s answer to a command that is not there: the commands there are
/// where it was looked for, the pages `man` has (the top `--help` lists
/// only the first level, and a command's `--help` none of its pages).
fn no_page(parent: &clap::Command, words: &[String]) -> Error {
    let above = match &words[..words.len() - 1] {
        [] => "run-check".to_string(),
        some => format!("run-check {}", some.join(" ")),
    };
    let names: Vec<&str> = parent
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    let there = match names.is_empty() {
        true => format!("`{above}` has no commands"),
        false => format!("the commands of `{above}`: {}", names.join(", ")),
    };
    Error::Usage(format!("man: no command `{}` ({there})", words.join(" ")))
}
