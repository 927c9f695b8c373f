//! `run-check list`.

use serde::Serialize;

use crate::cli::{ListArgs, ListFormat};
use crate::config::{self, CheckKind};
use crate::error::Error;
use crate::output::Output;
use crate::run::meta::{self};
use crate::run::plan::{self, Selection};
use run_check_documents::exit_code;

use super::{locate, relative};

/// One row of `list --format json`.
#[derive(Serialize)]
struct ListRow<'a> {
    name: &'a str,
    kind: &'static str,
    command: &'a [String],
    program: Option<String>,
    program_error: Option<&'a str>,
    timeout_ms: u64,
    retries: u32,
    cwd: String,
    needs: Vec<&'a str>,
    dimension: config::Dimension,
    severity: config::Severity,
}

/// `run-check list`: the checks a mode would run, with resolved programs.
pub(crate) fn list(args: &ListArgs) -> Result<i32, Error> {
    let (worktree, config) = locate(&args.location)?;
    let plan = plan::build(&config, &worktree, &Selection::all(args.mode))?;
    let rows: Vec<ListRow<'_>> = plan
        .checks
        .iter()
        .map(|c| ListRow {
            name: c.name(),
            kind: match c.config.kind {
                CheckKind::Run(_) => "run",
                CheckKind::Scan(_) => "scan",
            },
            command: c.argv(),
            program: c.program.as_ref().ok().map(|p| p.display().to_string()),
            program_error: match (&c.config.kind, &c.program) {
                (CheckKind::Run(_), Err(why)) => Some(why.as_str()),
                _ => None,
            },
            timeout_ms: crate::time::millis(c.timeout),
            retries: c.config.retries,
            cwd: relative(&c.cwd, &worktree),
            needs: c.needs.iter().map(|&i| plan.checks[i].name()).collect(),
            dimension: c.config.dimension,
            severity: c.config.severity,
        })
        .collect();
    let text = match args.format {
        ListFormat::Json => run_check_documents::pretty(&rows),
        ListFormat::Text => {
            let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
            let mut text = String::new();
            for row in &rows {
                let program = match (&row.program, row.program_error) {
                    (_, Some(why)) => format!("NOT FOUND ({why})"),
                    (Some(p), None) => p.clone(),
                    (None, None) => "built-in scan".into(),
                };
                let mut extra = if row.needs.is_empty() {
                    String::new()
                } else {
                    format!("  needs {}", row.needs.join(", "))
                };
                if row.retries > 0 {
                    extra.push_str(&format!("  retries {}", row.retries));
                }
                text.push_str(&format!(
                    "{:width$}  {:>5}  {}  [{}]{extra}\n",
                    row.name,
                    crate::duration::display(std::time::Duration::from_millis(row.timeout_ms)),
                    if row.command.is_empty() {
                        "(scan)".to_string()
                    } else {
                        meta::display_command(row.command)
                    },
                    program,
                ));
            }
            text
        }
    };
    // The closing line is part of the text answer, on stdout with it; a
    // JSON array says its length itself.
    let text = match args.format {
        ListFormat::Json => text,
        ListFormat::Text => format!(
            "{text}{} in {} mode ({})\n",
            crate::output::plural(rows.len(), "check"),
            args.mode.as_str(),
            crate::sanitize::for_display(&config.path.display().to_string())
        ),
    };
    Output::Stdout.write(text.as_bytes())?;
    Ok(exit_code::PASS)
}
