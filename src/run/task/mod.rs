//! The task contract of `--task` (docs/task.md): the file is read into its
//! type (`run_check_documents::task`: a wrong type is an error naming the
//! file and JSON path, exit 2), its broken limits become the violations of
//! `contracts.task` (the run still judges its checks), and the change under
//! test is measured against the change budget.

mod command;

use std::path::Path;

use run_check_documents::task::Texts;

use crate::error::Error;
use crate::run::changes;
use command::runs_strict_json;
use run_check_documents::evidence::{ChangeBudget, TaskContract};

pub(crate) use run_check_documents::evidence::Violation;

/// Hard limit on the files a task may change (`files_involved`,
/// `change_budget.max_files`).
pub(crate) const MAX_FILES: usize = 10;
/// Hard limit on the lines a task may change (`estimated_loc`,
/// `change_budget.max_loc`).
pub(crate) const MAX_LOC: u64 = 400;
pub(crate) const MIN_PARALLEL: i128 = 1;
pub(crate) const MAX_PARALLEL: i128 = 5;

/// A task as read, with its broken limits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Task {
    /// The task as read (unknown fields included), for `meta.task`.
    pub(crate) document: run_check_documents::task::Task,
    /// In schema order; empty when the task is valid.
    pub(crate) violations: Vec<Violation>,
}

/// Reads and checks the task file at `path` (named in messages as given).
pub(crate) fn load(path: &Path) -> Result<Task, Error> {
    let bytes = crate::bounded::read(path, crate::bounded::TASK)
        .map_err(|err| Error::io("read task file", path, err))?;
    from_slice(path, &bytes)
}

/// Checks the task JSON `bytes`; `path` only names the file in messages.
pub(crate) fn from_slice(path: &Path, bytes: &[u8]) -> Result<Task, Error> {
    let document: run_check_documents::task::Task = crate::json_input::typed(path, bytes)?;
    let violations = violations(&document);
    Ok(Task {
        document,
        violations,
    })
}

/// The error for a `base` the repository does not have.
pub(crate) fn bad_base(path: &Path, base: &str) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        location: None,
        key: Some("$.base".into()),
        message: format!("no such revision `{base}` in this repository"),
    }
}

/// The violations of a changed gate: each changed gate file that
/// `files_involved` does not name.
pub(crate) fn gate_violations(task: &Task, gate: &crate::run::gate::Gate) -> Vec<Violation> {
    let base = gate.base.as_deref().unwrap_or("HEAD");
    crate::run::gate::undeclared(gate, &task.document.files_involved)
        .into_iter()
        .map(|file| Violation {
            field: "files_involved".into(),
            message: format!("the gate changed: `{file}` differs from `{base}` and is not listed"),
        })
        .collect()
}

pub(crate) fn contract(task: &Task) -> TaskContract {
    TaskContract {
        id: task.document.id.clone(),
        valid: task.violations.is_empty(),
        violations: task.violations.clone(),
    }
}

/// The `contracts.change_budget` value of `changes`.
pub(crate) fn budget(changes: &changes::Changes) -> ChangeBudget {
    let files_changed = changes.files.len();
    ChangeBudget {
        base: changes.base.clone(),
        files_changed: u64::try_from(files_changed).unwrap_or(u64::MAX),
        loc_changed: changes.loc,
        max_files: u64::try_from(MAX_FILES).unwrap_or(u64::MAX),
        max_loc: MAX_LOC,
        exceeded: files_changed > MAX_FILES || changes.loc > MAX_LOC,
    }
}

/// The broken limits of `task`, in schema order. The suggested
/// `parallel_count` per risk (low 1, medium 2, high 3–5) is not a limit.
fn violations(task: &run_check_documents::task::Task) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut violation = |field: &str, message: String| {
        violations.push(Violation {
            field: field.to_string(),
            message,
        })
    };
    let blank = |texts: &Texts| texts.as_slice().iter().all(|t| t.trim().is_empty());
    for (name, text) in [
        ("id", &task.id),
        ("title", &task.title),
        ("description", &task.description),
    ] {
        if text.trim().is_empty() {
            violation(name, "must not be empty".into());
        }
    }
    let parallel = task.parallel_count;
    if !(MIN_PARALLEL..=MAX_PARALLEL).contains(&parallel) {
        violation(
            "parallel_count",
            format!("must be between {MIN_PARALLEL} and {MAX_PARALLEL}, found {parallel}"),
        );
    }
    if !task.acceptance.commands.iter().any(|c| runs_strict_json(c)) {
        violation(
            "acceptance.commands",
            "no command runs `run-check --mode strict --format json`".into(),
        );
    }
    if blank(&task.acceptance.criteria) {
        violation(
            "acceptance.criteria",
            "must state at least one criterion".into(),
        );
    }
    if task.estimated_loc > u128::from(MAX_LOC) {
        violation(
            "estimated_loc",
            format!("{} exceeds the hard limit of {MAX_LOC}", task.estimated_loc),
        );
    }
    let files = task.files_involved.len();
    if files > MAX_FILES {
        violation(
            "files_involved",
            format!("{files} files exceed the hard limit of {MAX_FILES}"),
        );
    }
    // As `acceptance.criteria`: "none" is said with "N/A", not with silence.
    if blank(&task.public_contracts_touched) {
        violation(
            "public_contracts_touched",
            "must not be empty; use \"N/A\" when no public contract is touched".into(),
        );
    }
    violations
}

#[cfg(test)]
mod tests;
