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

use crate::cli::{DocumentFormat, Location};
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
    Ok(run_check_documents::exit_code::PASS)
}

/// A document in `format`: pretty JSON, or one `path: value` line per
/// value (a string without its quotes, shown safely: the document holds
/// the worktree's file names).
pub(super) fn document(
    format: DocumentFormat,
    value: &impl serde::Serialize,
) -> Result<String, Error> {
    match format {
        DocumentFormat::Json => Ok(run_check_documents::pretty(value)),
        DocumentFormat::Text => {
            let value = serde_json::to_value(value)
                .map_err(|err| Error::Internal(format!("a document that is not JSON: {err}")))?;
            let mut lines = String::new();
            text_lines(&mut lines, "", &value);
            Ok(crate::sanitize::for_display(&lines).into_owned())
        }
    }
}

/// Appends `value` as `path: value` lines, the path in the JSON path's
/// shorthand (`document.inputs[0].path`).
fn text_lines(out: &mut String, path: &str, value: &serde_json::Value) {
    use serde_json::Value;
    let join = |key: &str| match path {
        "" => key.to_string(),
        _ => format!("{path}.{key}"),
    };
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                text_lines(out, &join(key), value);
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                text_lines(out, &format!("{path}[{index}]"), value);
            }
        }
        Value::String(text) => out.push_str(&format!("{path}: {}\n", text.replace('\n', " "))),
        other => out.push_str(&format!("{path}: {other}\n")),
    }
}

fn relative(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// How a report is delivered besides its format.
#[derive(Clone, Copy)]
struct Delivery {
    /// Show the diagnostics a baseline marked old.
    all_diagnostics: bool,
    /// No banner on stderr (`report --quiet`; the check run keeps its
    /// banner under `--quiet`, which silences its progress only).
    quiet: bool,
}

/// Writes `evidence` as a `format` report to `output`; unless that report
/// is text on stdout (or `quiet`), the banner is also the last line of
/// stderr. The check run and `report` both end here, so `report` prints
/// what the run printed.
fn deliver(
    output: Output,
    format: Format,
    evidence: &Evidence,
    delivery: Delivery,
) -> Result<(), Error> {
    let report_on_stdout = output.is_stdout() && format == Format::Text;
    let shown = if delivery.all_diagnostics {
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
    if !report_on_stdout && !delivery.quiet {
        banner(evidence);
    }
    Ok(())
}

/// The evidence's banner as the last line of stderr. Not `eprintln!`,
/// which panics when stderr is gone (the terminal closed: SIGHUP) after
/// the report was written. A banner read from a file is shown as the human
/// reports show text. A pass that ran no tool, or a fast run that skipped
/// checks, says so above its banner, which stays the last line.
fn banner(evidence: &Evidence) {
    let banner = crate::sanitize::for_display(&evidence.summary.banner);
    let mut stderr = std::io::stderr().lock();
    if let Some(line) = crate::report::ran_line(evidence) {
        let _ = writeln!(stderr, "{line}");
    }
    let _ = writeln!(stderr, "{banner}");
}
