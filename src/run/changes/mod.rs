//! The change under test (docs/running.md): files that differ from a base
//! revision — tracked changes against `--changed-since` (default `HEAD`),
//! staged or not, plus untracked files that are not ignored — and the lines
//! changed, for fast mode's `paths` filter, the task's change budget and
//! `candidates`' `changeset.txt` (one count: [`change_set`]).
//! Git is asked read-only (`GIT_OPTIONAL_LOCKS=0`).
//!
//! Entries of the index flagged assume-unchanged or skip-worktree whose file
//! differs from what the index recorded are changed too (git's own diff
//! trusts the flag and does not see them; see [`crate::git::Hidden`]); a
//! skip-worktree file absent from a sparse checkout is not.
//!
//! run-check's own files are not part of the change: the `--out` report (a
//! previous run's, about to be replaced) counts in neither; the files its
//! stdout and stderr are redirected to do not count in the budget (fast
//! mode errs towards running a check and does not look them up).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::git::{Repo, Status};
use crate::run::snapshot::OwnFiles;

/// Files changed against a base, worktree-relative with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// The base revision as given.
    pub(crate) base: String,
    /// Changed paths, sorted.
    pub(crate) files: Vec<String>,
    /// Added plus deleted lines (untracked text files count all their lines).
    pub(crate) loc: u64,
}

/// Why the change could not be determined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChangesError {
    /// The base revision does not exist.
    BadRevision(String),
    /// git failed otherwise.
    Git(String),
}

impl std::fmt::Display for ChangesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChangesError::Git(why) => write!(f, "{why}"),
            ChangesError::BadRevision(rev) => {
                write!(
                    f,
                    "--changed-since `{rev}`: no such revision in this repository"
                )
            }
        }
    }
}

/// Checks that `base` names a commit (`HEAD` before the first commit
/// counts: it stands for the empty history), for a run that compares
/// nothing against it (strict mode without a task) but was given it.
pub(crate) fn check_base(repo: &Repo, status: &Status, base: &str) -> Result<(), ChangesError> {
    if unborn(status, base) {
        return Ok(());
    }
    resolve(repo, base).map(|_| ())
}

/// The files changed in `worktree` against `base`, for fast mode's `paths`
/// filter: tracked files that differ (staged or not) and untracked files
/// that are not ignored, inside the worktree (a worktree below the
/// repository's top level is not changed by a change beside it), less the
/// `--out` file. `status` is the run's `git status`; when `base` is the HEAD
/// commit its entries are the answer and git is not asked again (a file
/// whose staged change was undone in the worktree counts as changed: the
/// filter errs towards running a check).
pub(crate) fn changed_files(
    repo: &Repo,
    status: &Status,
    worktree: &Path,
    base: &str,
    own: &OwnFiles,
) -> Result<Vec<String>, ChangesError> {
    changed_files_among(repo, status, worktree, base, own, None)
}

/// [`changed_files`], only of `among` (worktree-relative, `/` separators)
/// when given: whether a few files changed is answered without building
/// the list of 200,000 untracked ones.
pub(crate) fn changed_files_among(
    repo: &Repo,
    status: &Status,
    worktree: &Path,
    base: &str,
    own: &OwnFiles,
    among: Option<&[String]>,
) -> Result<Vec<String>, ChangesError> {
    // The wanted files as git names them (top-level relative, `/`), a set:
    // a scan asks about every file it did not read.
    let wanted: Option<std::collections::HashSet<Vec<u8>>> = among.map(|files| {
        let prefix = worktree
            .strip_prefix(repo.toplevel())
            .map(crate::paths::to_slashes)
            .unwrap_or_default();
        files
            .iter()
            .map(|file| {
                if prefix.is_empty() {
                    file.clone().into_bytes()
                } else {
                    format!("{prefix}/{file}").into_bytes()
                }
            })
            .collect()
    });
    let keep = |path: &Path| match &wanted {
        None => true,
        Some(wanted) => wanted.contains(path.as_os_str().as_encoded_bytes()),
    };
    // `HEAD` is the status's own commit: no git process.
    let commit = match unborn(status, base) || base == "HEAD" {
        true => None,
        false => Some(resolve(repo, base)?),
    };
    let mut files: BTreeSet<PathBuf> = match commit.filter(|c| status.commit.as_ref() != Some(c)) {
        None => everything(status, &keep),
        Some(commit) => {
            let names = repo
                .run(&[
                    "diff",
                    "--name-only",
                    "-z",
                    "--no-renames",
                    "--no-ext-diff",
                    "--no-textconv",
                    &commit,
                    "--",
                ])
                .map_err(ChangesError::Git)?;
            let mut files: BTreeSet<PathBuf> = names
                .split(|&b| b == 0)
                .filter(|r| !r.is_empty())
                .map(crate::git::path_from_bytes)
                .filter(|path| keep(path))
                .collect();
            files.extend(untracked(status).filter(|p| keep(p)).map(Path::to_path_buf));
            files
        }
    };
    files.extend(hidden(status).filter(|p| keep(p)).map(Path::to_path_buf));
    let mut inside: Vec<String> = files
        .into_iter()
        .map(|path| repo.toplevel().join(path))
        .filter(|path| !own.is_out(path))
        .filter_map(|path| {
            path.strip_prefix(worktree)
                .ok()
                .map(crate::paths::to_slashes)
        })
        .collect();
    inside.sort();
    inside.dedup();
    Ok(inside)
}

/// The files and lines changed against `base` (the task's change budget):
/// [`change_set`] less run-check's own files (see [`OwnFiles`]), each path
/// relative to `worktree` (the whole repository's change counts, also
/// beside a worktree below its top level, shown with `../`).
pub(crate) fn changed(
    repo: &Repo,
    status: &Status,
    worktree: &Path,
    base: &str,
    own: &OwnFiles,
) -> Result<Changes, ChangesError> {
    let top = repo.toplevel();
    let set = change_set(repo, status, base, &|path| !own.contains(path))?;
    let loc = set
        .iter()
        .map(|f| f.lines.map_or(0, |(added, deleted)| added + deleted))
        .sum();
    let files = set
        .iter()
        .map(|f| relative_to(&top.join(&f.path), worktree))
        .collect();
    Ok(Changes {
        base: base.to_string(),
        files,
        loc,
    })
}

/// One file of a change set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    /// Relative to the repository's top level.
    pub(crate) path: PathBuf,
    /// Lines added and removed; `None` for a binary file (or an untracked
    /// one over 16 MiB or unreadable).
    pub(crate) lines: Option<(u64, u64)>,
    /// Not tracked by git: every line is added.
    pub(crate) untracked: bool,
}

/// The change against `base`, file by file, sorted by path: the one count
/// of the task's change budget, of `candidates`' `changeset.txt` and so of
/// the judge (which reads the budget). Tracked files by `git diff
/// --numstat --find-renames` against the base (staged or not; a file moved
/// with `git mv` is one file with the lines its content changed), without
/// the repository's external diff or textconv programs; untracked files
/// that git does not ignore (`.gitignore`, `.git/info/exclude`,
/// `core.excludesFile`) and that are not build output (under a `target` or
/// `node_modules` folder): the rules the read-only verification follows,
/// all their lines; edits `git diff` does not see (an index entry flagged
/// assume-unchanged or skip-worktree), all their lines. `counted` is asked
/// each file's absolute path: run-check's own files are left out there.
pub(crate) fn change_set(
    repo: &Repo,
    status: &Status,
    base: &str,
    counted: &dyn Fn(&Path) -> bool,
) -> Result<Vec<FileChange>, ChangesError> {
    let top = repo.toplevel();
    let mut files: std::collections::BTreeMap<PathBuf, FileChange> =
        std::collections::BTreeMap::new();
    let mut add = |path: &Path, lines: Option<(u64, u64)>, untracked: bool| {
        let build_output = untracked && crate::run::snapshot::is_build_output(path);
        if !build_output && counted(&top.join(path)) && !files.contains_key(path) {
            files.insert(
                path.to_path_buf(),
                FileChange {
                    path: path.to_path_buf(),
                    lines,
                    untracked,
                },
            );
        }
    };
    let added = |path: &Path| text_lines(&top.join(path)).map(|n| (n, 0));
    if unborn(status, base) {
        // Compared with the empty history every file is new; git's own
        // word for it (staged, or untracked) is kept.
        for entry in &status.entries {
            add(&entry.path, added(&entry.path), entry.code == "??");
        }
    } else {
        let commit = resolve(repo, base)?;
        let out = repo
            .run(&[
                "diff",
                "--numstat",
                "-z",
                "--find-renames",
                "--no-ext-diff",
                "--no-textconv",
                &commit,
                "--",
            ])
            .map_err(ChangesError::Git)?;
        for (path, lines) in numstat(&out) {
            add(&path, lines, false);
        }
        for path in untracked(status) {
            add(path, added(path), true);
        }
    }
    for path in hidden(status) {
        add(path, added(path), false);
    }
    Ok(files.into_values().collect())
}

/// [`change_set`] of the repository of `worktree`, asked as a run's start
/// asks it (the status with the flagged index entries), counting every
/// file: what `candidates` measures before a candidate's gate starts, so
/// that its `changeset.txt` is the change the gate's budget counts.
pub(crate) fn change_set_of(worktree: &Path, base: &str) -> Result<Vec<FileChange>, String> {
    let opening = crate::git::Opening::start(worktree)?;
    let (repo, status, hidden) = opening
        .finish_with(|repo, _| crate::run::snapshot::GitWatch::new(repo, worktree).hidden())?;
    let mut status = status.map_err(|why| format!("cannot read the git status: {why}"))?;
    status.hidden = hidden;
    change_set(&repo, &status, base, &|_| true).map_err(|err| match err {
        ChangesError::BadRevision(rev) => format!("no such revision `{rev}`"),
        ChangesError::Git(why) => why,
    })
}

/// `git diff --numstat -z` records: each changed path (a rename's new path)
/// with its added plus deleted lines (binary files show `-`: no lines).
#[cfg(test)]
fn parse_numstat(out: &[u8]) -> Vec<(PathBuf, u64)> {
    numstat(out)
        .into_iter()
        .map(|(path, lines)| (path, lines.map_or(0, |(added, deleted)| added + deleted)))
        .collect()
}

/// `git diff --numstat -z` records: each changed path (a rename's new path)
/// with its added and deleted lines; `None` for a binary file (`-`).
pub(crate) fn numstat(out: &[u8]) -> Vec<(PathBuf, Option<(u64, u64)>)> {
    let mut changed = Vec::new();
    let mut records = out.split(|&b| b == 0);
    while let Some(record) = records.next() {
        if record.is_empty() {
            continue;
        }
        let mut parts = record.splitn(3, |&b| b == b'\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        // A rename: `added<TAB>deleted<TAB>`, then the old and the new path.
        let path = if path.is_empty() {
            let _old = records.next();
            match records.next() {
                Some(new) => new,
                None => continue,
            }
        } else {
            path
        };
        let count = |n: &[u8]| {
            std::str::from_utf8(n)
                .ok()
                .and_then(|n| n.parse::<u64>().ok())
        };
        let lines = count(added).zip(count(deleted));
        changed.push((crate::git::path_from_bytes(path), lines));
    }
    changed
}

/// Before the first commit `HEAD` names nothing yet: compared with the
/// empty history, every file the status lists (staged or untracked) is new.
fn unborn(status: &Status, base: &str) -> bool {
    base == "HEAD" && status.commit.is_none()
}

/// Every path of `status` (the change against HEAD, or against the empty
/// history before the first commit), top-level relative.
fn everything(status: &Status, keep: &dyn Fn(&Path) -> bool) -> BTreeSet<PathBuf> {
    status
        .entries
        .iter()
        .filter(|e| keep(&e.path))
        .map(|e| e.path.to_path_buf())
        .collect()
}

fn resolve(repo: &Repo, base: &str) -> Result<String, ChangesError> {
    repo.resolve(base)
        .ok_or_else(|| ChangesError::BadRevision(base.to_string()))
}

/// Files whose index entry is flagged assume-unchanged or skip-worktree
/// and that differ from what the index recorded (top-level relative).
fn hidden(status: &Status) -> impl Iterator<Item = &Path> {
    status
        .hidden
        .iter()
        .filter(|h| h.changed)
        .map(|h| h.path.as_path())
}

/// Untracked, not ignored files of `status` (top-level relative).
fn untracked(status: &Status) -> impl Iterator<Item = &Path> {
    status
        .entries
        .iter()
        .filter(|e| e.code == "??")
        .map(|e| &*e.path)
}

/// The largest untracked file whose lines are counted.
const CHANGED_FILE: crate::bounded::Limit = crate::bounded::Limit {
    bytes: 16 * 1024 * 1024,
    what: "a changed file counted",
};

/// Lines of a text file; `None` for a binary one (a NUL byte in its first
/// 8 KiB), one over 16 MiB or one that cannot be read.
fn text_lines(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().filter(|meta| meta.is_file())?;
    // Bounded again as it is read: the file may have been replaced since.
    let bytes = crate::bounded::read(path, CHANGED_FILE).ok()?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return None;
    }
    let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
    Some(newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n")))
}

/// `path` relative to `base` with `/` separators, or with `../` steps when
/// it lies outside (a worktree below the repository's top level).
fn relative_to(path: &Path, base: &Path) -> String {
    let path_parts: Vec<_> = path.components().collect();
    let base_parts: Vec<_> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let up = std::iter::repeat_n("..".into(), base_parts.len() - common);
    let down = path_parts[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy());
    let parts: Vec<std::borrow::Cow<'_, str>> = up.chain(down).collect();
    parts.join("/")
}

#[cfg(test)]
mod tests;
