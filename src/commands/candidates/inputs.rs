//! The round's inputs, checked before anything is written: the candidates'
//! ids and worktrees, the files of `DIR` read once within their bounds, and
//! the round counter.

use std::path::{Path, PathBuf};

use crate::aggregate::judge::history::History;
use crate::aggregate::retry;
use crate::cli::CandidatesArgs;
use crate::config::{self, Config};
use crate::error::Error;
use crate::output::replace;

use super::Named;

/// What the round is run with, every input checked.
pub(super) struct Inputs {
    pub(super) named: Vec<Named>,
    pub(super) task_bytes: Vec<u8>,
    pub(super) task_id: String,
    /// The revision the candidates started from (the task's `base`).
    pub(super) base: String,
    /// `--config`, absolute, and its content, loaded once.
    pub(super) trusted: Option<(PathBuf, Config)>,
    /// `--task`, absolute.
    pub(super) task_path: PathBuf,
    /// `--baseline`, absolute.
    pub(super) baseline: Option<PathBuf>,
}

/// A task file as the candidates' commands read it: its bytes, its id (a
/// folder name) and the revision the candidates start from.
pub(super) struct TaskFile {
    pub(super) bytes: Vec<u8>,
    pub(super) id: String,
    pub(super) base: String,
    /// The worktrees the task asks for (`parallel_count`).
    pub(super) parallel_count: i128,
}

/// Reads `--task`: within its bound, typed, its id a folder name and its
/// `base` present.
pub(super) fn task_file(path: &Path) -> Result<TaskFile, Error> {
    let bytes = crate::bounded::read(path, crate::bounded::TASK)
        .map_err(|err| Error::io("read task file", path, err))?;
    let task = crate::run::task::from_slice(path, &bytes)?;
    let id = task.document.id.clone();
    safe_component(&id).map_err(|why| Error::Input {
        path: path.to_path_buf(),
        location: None,
        key: Some("$.id".into()),
        message: format!("{id:?} cannot name a folder of --runs: {why}"),
    })?;
    // Without a base, a candidate that committed its change (a weakened
    // script, a regenerated baseline) would be measured against its own
    // HEAD and show nothing; which commit the candidates started from only
    // the caller knows.
    let base = task.document.base.clone().ok_or_else(|| Error::Input {
        path: path.to_path_buf(),
        location: None,
        key: Some("$.base".into()),
        message: "`candidates` needs the revision the candidates started from \
                  (`\"base\": \"main\"`): each change, and each gate's own files, \
                  are compared with it"
            .into(),
    })?;
    Ok(TaskFile {
        parallel_count: task.document.parallel_count,
        bytes,
        id,
        base,
    })
}

/// Every input of the round, checked before anything is written.
pub(super) fn read(args: &CandidatesArgs) -> Result<Inputs, Error> {
    let named = named(&args.worktrees)?;
    let given = args
        .task
        .as_deref()
        .ok_or_else(|| Error::Usage("`candidates` needs --task T.json".into()))?;
    let TaskFile {
        bytes: task_bytes,
        id: task_id,
        base,
        ..
    } = task_file(given)?;
    // The trusted config is read once: its `[judge]` and `[retry]` serve
    // every candidate (the gates read the same file by its absolute path).
    let trusted = match &args.config {
        Some(path) => {
            let absolute = std::path::absolute(path).map_err(|err| Error::io("find", path, err))?;
            let loaded = config::load(&absolute, path, true)?;
            Some((absolute, loaded))
        }
        None => None,
    };
    let runs = &args.runs;
    let task_dir = runs.join(&task_id);
    let absolute_runs = resolved(runs).map_err(|err| Error::io("find", runs, err))?;
    if let Some(inside) = named
        .iter()
        .find(|c| absolute_runs.starts_with(&c.worktree))
    {
        return Err(Error::Usage(format!(
            "--runs `{}` lies inside the candidate worktree `{}`: its gate would see the \
             other gates' files appear; name a folder outside every candidate",
            runs.display(),
            inside.worktree.display()
        )));
    }
    let task_path = std::path::absolute(given).map_err(|err| Error::io("find", given, err))?;
    // docs/baseline.md: the evidence of the task's base commit, read once
    // here so a bad file stops the round before anything is written.
    let baseline = match &args.baseline {
        Some(path) => {
            crate::json_input::evidence_file(path)?;
            Some(std::path::absolute(path).map_err(|err| Error::io("find", path, err))?)
        }
        None => None,
    };
    preflight(&task_dir, &named)?;
    Ok(Inputs {
        named,
        task_bytes,
        task_id,
        base,
        trusted,
        task_path,
        baseline,
    })
}

/// The candidates of the `WORKTREE...` arguments: ids checked (safe as one
/// folder name, unique) and worktrees found.
fn named(arguments: &[String]) -> Result<Vec<Named>, Error> {
    let mut named: Vec<Named> = Vec::new();
    for argument in arguments {
        let (id, path) = match argument.split_once('=') {
            Some((id, path)) => (Some(id.to_string()), path),
            None => (None, argument.as_str()),
        };
        let worktree = dunce::canonicalize(path)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "candidate `{argument}`: `{path}` is not a directory"
                ))
            })?;
        let id = match id {
            Some(id) => id,
            None => worktree
                .file_name()
                .and_then(|name| name.to_str())
                .map(str::to_string)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "candidate `{argument}`: its folder name is no id; write ID={path}"
                    ))
                })?,
        };
        safe_component(&id)
            .map_err(|why| Error::Usage(format!("candidate `{argument}`: id {id:?} {why}")))?;
        if named.iter().any(|c| c.id == id) {
            return Err(Error::Usage(format!(
                "candidate `{argument}`: id {id:?} is given twice; name them ID=PATH"
            )));
        }
        named.push(Named { id, worktree });
    }
    Ok(named)
}

/// `path` made absolute, its longest existing ancestor canonical (symlinks
/// followed, as the worktrees' paths are), the rest appended as written.
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = crate::paths::lexical(&std::path::absolute(path)?);
    let mut rest = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(canonical) = dunce::canonicalize(existing) {
            return Ok(rest.iter().rev().fold(canonical, |p, part| p.join(part)));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return Ok(absolute),
        }
    }
}

/// Whether `name` is safe as one path component on every platform: not
/// empty, not `.` or `..`, no `/`, `\`, `:` or control character.
pub(super) fn safe_component(name: &str) -> Result<(), &'static str> {
    if name.trim().is_empty() {
        Err("must not be empty")
    } else if name == "." || name == ".." {
        Err("must not be `.` or `..`")
    } else if name.contains(['/', '\\', ':']) {
        Err("must not contain `/`, `\\` or `:`")
    } else if name.chars().any(char::is_control) {
        Err("must not contain control characters")
    } else {
        Ok(())
    }
}

/// Reads every file of `DIR/<task_id>` this round will read (the round
/// counter, the index, the retry state, each candidate's history), each
/// within its bound, so a bad one stops the round before anything is
/// written. They are read again, under their locks, when used.
fn preflight(task_dir: &Path, named: &[Named]) -> Result<(), Error> {
    rounds(&task_dir.join("rounds"))?;
    index_round(&task_dir.join("index.json"))?;
    retry::state::load(&task_dir.join("retry-state.json"))?;
    for candidate in named {
        History::open(&task_dir.join(&candidate.id).join("history.jsonl"), false)?;
    }
    Ok(())
}

/// The number of rounds `DIR/<task_id>/rounds` holds; 0 when missing.
fn rounds(path: &Path) -> Result<u32, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::ROUNDS) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(Error::io("read", path, err)),
    };
    std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .ok_or_else(|| Error::Input {
            path: path.to_path_buf(),
            location: None,
            key: None,
            message: "expected the number of rounds".into(),
        })
}

/// The `round` of the index at `path`; `None` when there is none yet.
pub(super) fn index_round(path: &Path) -> Result<Option<u64>, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::JSON) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io("read", path, err)),
    };
    let index: serde_json::Value = crate::json_input::typed(path, &bytes)?;
    Ok(index.get("round").and_then(serde_json::Value::as_u64))
}

/// This round's number: `DIR/<task_id>/rounds` counted up under the
/// index's lock.
pub(super) fn next_round(task_dir: &Path) -> Result<u32, Error> {
    let path = task_dir.join("rounds");
    let _lock = retry::state::Lock::acquire(&task_dir.join("index.json"))?;
    let round = rounds(&path)?.saturating_add(1);
    replace(&path, format!("{round}\n").as_bytes())?;
    Ok(round)
}
