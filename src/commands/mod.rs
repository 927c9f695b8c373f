//! The subcommands, each a short pipeline over the library stages. Human
//! output (progress, banner, warnings) goes to stderr; reports go to stdout or
//! the `--out` file.

mod agent;
mod cache;
mod candidates;
mod check;
mod completions;
mod documents;
mod fix;
mod list;
mod mcp;
mod progress;
mod report;
mod setup;
mod validate;

pub(crate) use agent::agent;
pub(crate) use cache::cache;
pub(crate) use candidates::candidates;
pub(crate) use check::check;
pub(crate) use completions::{completions, man};
pub(crate) use documents::{judge, merge, retry, schema, vote};
pub(crate) use fix::fix;
pub(crate) use list::list;
pub(crate) use mcp::mcp;
#[cfg(feature = "mcp")]
pub(crate) use mcp::serve as mcp_serve;
pub(crate) use report::report;
pub(crate) use setup::{hooks, init};
pub(crate) use validate::validate;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::Location;
use crate::config::{self, Config};
use crate::error::Error;
use crate::output::Output;
use crate::report::Format;
use run_check_documents::evidence::Evidence;

/// The worktree (canonical; by default the one `Location::resolved`
/// finds) and the loaded config.
fn locate(location: &Location) -> Result<(PathBuf, Config), Error> {
    let location = location.resolved();
    let worktree = crate::paths::worktree(location.worktree.as_deref())?;
    let config = load_config(&location, &worktree)?;
    Ok((worktree, config))
}

/// The config file `location` names: `--config`, else `checks.toml` in the
/// worktree.
fn config_file(location: &Location, worktree: &Path) -> PathBuf {
    location
        .config
        .clone()
        .unwrap_or_else(|| worktree.join("checks.toml"))
}

/// The config `location` names, loaded; messages name it as the user wrote
/// it (`--worktree DIR` joined with `checks.toml` when no `--config`).
fn load_config(location: &Location, worktree: &Path) -> Result<Config, Error> {
    let display = match (&location.config, &location.worktree) {
        (Some(path), _) => path.clone(),
        (None, Some(dir)) => dir.join("checks.toml"),
        (None, None) => PathBuf::from("checks.toml"),
    };
    let path = config_file(location, worktree);
    config::load(&path, &display, location.config.is_some())
}

/// Writes `text`, the command's answer, on stdout; the command passed.
fn printed(text: impl AsRef<[u8]>) -> Result<i32, Error> {
    Output::Stdout.write(text.as_ref())?;
    Ok(crate::exit_code::PASS)
}

fn relative(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// Writes `evidence` as a `format` report to `output`; unless that report
/// is text on stdout, the banner is also the last line of stderr. The check
/// run and `report` both end here, so `report` prints what the run printed.
fn deliver(
    output: Output,
    format: Format,
    evidence: &Evidence,
    all_diagnostics: bool,
) -> Result<(), Error> {
    let report_on_stdout = output.is_stdout() && format == Format::Text;
    let shown = if all_diagnostics {
        crate::report::Diagnostics::All
    } else {
        crate::report::Diagnostics::New
    };
    let report = crate::report::render_with(format, evidence, shown);
    // Colour only in a `text` report on stdout (docs/running.md#on-a-terminal).
    let report = if report_on_stdout && crate::console::stdout_colour() {
        crate::report::colour_text(&report, evidence)
    } else {
        report
    };
    output.write(&report)?;
    if !report_on_stdout {
        // Not `eprintln!`, which panics when stderr is gone (the terminal
        // closed: SIGHUP) after the report was written. A banner read from
        // a file is shown as the human reports show text.
        let banner = crate::sanitize::for_display(&evidence.summary.banner);
        let mut stderr = std::io::stderr().lock();
        // A fast run that skipped checks says so above its pass banner,
        // which stays the last line.
        if let Some(line) = crate::report::partly_ran(evidence) {
            let _ = writeln!(stderr, "{line}");
        }
        let _ = writeln!(stderr, "{banner}");
    }
    Ok(())
}
