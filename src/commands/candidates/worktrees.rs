//! `candidates create` and `candidates cleanup` (docs/candidates.md, "A
//! whole round"): the candidates' worktrees at `../<repo>.wt/<task_id>/c<k>/`
//! on branches `aggr/task/<task_id>/c<k>`, made from the task's `base`, and
//! removed once the last round is done with them.
//!
//! Both go through git's own `worktree` and `branch` commands (git keeps
//! the administrative files and the locks), and both decide everything
//! before they change anything: a refused worktree or branch leaves the
//! repository as it was. Cleanup removes no worktree that holds work not
//! in a commit (tracked changes or untracked files) and none whose
//! candidate has no evidence under `--runs` yet, unless `--force`: those
//! are the two ways a cleanup loses work.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use run_check_documents::candidates::Index;

use crate::cli::{CandidatesCleanupArgs, CandidatesCreateArgs, PathsFormat};
use crate::error::Error;

use super::inputs::task_file;

/// The prefix of every candidate branch of a task.
fn branch_prefix(task_id: &str) -> String {
    format!("aggr/task/{task_id}/")
}

/// `git ARGS` in `dir`: its output, or an error naming the command.
fn git(dir: &Path, args: &[&str]) -> Result<String, Error> {
    crate::git::ask(dir, args).map_err(Error::Environment)
}

/// The main worktree of the repository the current directory is in.
fn main_worktree() -> Result<PathBuf, Error> {
    let cwd = std::env::current_dir()
        .map_err(|err| Error::Environment(format!("cannot read the current directory: {err}")))?;
    // git lists the main worktree first.
    worktrees(&cwd)?
        .into_iter()
        .next()
        .map(|main| main.path)
        .ok_or_else(|| Error::Environment("`git worktree list` named no main worktree".into()))
}

/// One registered worktree: `git worktree list --porcelain`.
#[derive(Debug, Default)]
struct Listed {
    path: PathBuf,
    /// `refs/heads/...` it has checked out.
    branch: Option<String>,
    locked: bool,
    /// Its folder is gone (`prunable`).
    prunable: bool,
}

fn worktrees(main: &Path) -> Result<Vec<Listed>, Error> {
    let text = git(main, &["worktree", "list", "--porcelain", "-z"])?;
    let mut all = Vec::new();
    let mut current: Option<Listed> = None;
    for field in text.split('\0') {
        if let Some(path) = field.strip_prefix("worktree ") {
            all.extend(current.take());
            current = Some(Listed {
                path: PathBuf::from(path),
                ..Listed::default()
            });
        } else if let Some(listed) = current.as_mut() {
            if let Some(branch) = field.strip_prefix("branch ") {
                listed.branch = Some(branch.to_string());
            } else if field == "locked" || field.starts_with("locked ") {
                listed.locked = true;
            } else if field == "prunable" || field.starts_with("prunable ") {
                listed.prunable = true;
            }
        }
    }
    all.extend(current);
    Ok(all)
}

/// Local branches under `prefix`, by their short names.
fn branches(main: &Path, prefix: &str) -> Result<BTreeSet<String>, Error> {
    let pattern = format!("refs/heads/{prefix}");
    let text = git(
        main,
        &["for-each-ref", "--format=%(refname:short)", &pattern],
    )?;
    Ok(text.lines().map(str::to_string).collect())
}

/// `candidates create`: the paths of the new worktrees on stdout.
pub(crate) fn create(args: &CandidatesCreateArgs) -> Result<i32, Error> {
    let task = task_file(&args.task)?;
    let count = args.count.map_or(task.parallel_count, i128::from);
    if !(1..=32).contains(&count) {
        return Err(Error::Usage(format!(
            "--count {count}: a task has 1 to 32 candidate worktrees (the task's \
             parallel_count when --count is not given)"
        )));
    }
    let main = main_worktree()?;
    let commit = git(
        &main,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{}^{{commit}}", task.base),
        ],
    )
    .ok()
    .filter(|c| !c.is_empty())
    .ok_or_else(|| Error::Input {
        path: args.task.clone(),
        location: None,
        key: Some("$.base".into()),
        message: format!("{:?} names no commit of this repository", task.base),
    })?;
    let name = main
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::Environment("the repository's folder has no name".into()))?;
    let root = main
        .parent()
        .unwrap_or(&main)
        .join(format!("{name}.wt"))
        .join(&task.id);
    let prefix = branch_prefix(&task.id);
    // A task id is a folder name already; as a branch name git may still
    // refuse it (`a..b`, `x.lock`).
    git(
        &main,
        &["check-ref-format", &format!("refs/heads/{prefix}c1")],
    )
    .map_err(|_| Error::Input {
        path: args.task.clone(),
        location: None,
        key: Some("$.id".into()),
        message: format!("{:?} cannot name a git branch ({prefix}c1)", task.id),
    })?;
    let planned: Vec<(PathBuf, String)> = (1..=count)
        .map(|k| (root.join(format!("c{k}")), format!("{prefix}c{k}")))
        .collect();
    refuse_taken(&main, &prefix, &planned, &args.task)?;
    let mut made = Vec::new();
    for (path, branch) in &planned {
        let shown = path.to_string_lossy();
        if let Err(err) = git(&main, &["worktree", "add", "-b", branch, &shown, &commit]) {
            let done = made
                .iter()
                .map(|p: &PathBuf| format!("`{}`", p.display()))
                .collect::<Vec<_>>();
            return Err(Error::Environment(format!(
                "{err} (made before it: {})",
                if done.is_empty() {
                    "none".into()
                } else {
                    done.join(", ")
                }
            )));
        }
        made.push(path.clone());
    }
    let shown: Vec<String> = made.iter().map(|p| p.display().to_string()).collect();
    let text = match args.format {
        PathsFormat::Text => shown.join("\n") + "\n",
        PathsFormat::Json => serde_json::to_string_pretty(&shown).unwrap_or_default() + "\n",
    };
    super::super::printed(text)
}

/// Refuses, naming each, a planned worktree or branch that exists already
/// (a round not cleaned up): nothing is made then.
fn refuse_taken(
    main: &Path,
    prefix: &str,
    planned: &[(PathBuf, String)],
    task: &Path,
) -> Result<(), Error> {
    let existing = branches(main, prefix)?;
    let registered: Vec<PathBuf> = worktrees(main)?.into_iter().map(|w| w.path).collect();
    let mut taken = Vec::new();
    for (path, branch) in planned {
        if path.symlink_metadata().is_ok() || registered.contains(path) {
            taken.push(format!("the worktree `{}` exists", path.display()));
        }
        if existing.contains(branch) {
            taken.push(format!("the branch `{branch}` exists"));
        }
    }
    if taken.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{}: nothing was created (`candidates cleanup --task {}` removes a finished \
         round's worktrees)",
        taken.join("; "),
        task.display()
    )))
}

/// What cleanup does with one candidate.
#[derive(Debug)]
struct Plan {
    id: String,
    branch: String,
    worktree: Option<Listed>,
    remove_worktree: bool,
    delete_branch: bool,
    /// Why it is kept, or what the user should do after.
    note: Option<String>,
}

/// `candidates cleanup`: removes what the last round is done with.
pub(crate) fn cleanup(args: &CandidatesCleanupArgs) -> Result<i32, Error> {
    let task = task_file(&args.task)?;
    let task_dir = args.runs.join(&task.id);
    let index_path = task_dir.join("index.json");
    let bytes = crate::bounded::read_regular(&index_path, crate::bounded::JSON)
        .map_err(|err| Error::io("read", &index_path, err))?;
    let index: Index = crate::json_input::typed(&index_path, &bytes)?;
    let main = main_worktree()?;
    let prefix = branch_prefix(&task.id);
    let into = base_branch(&main, &task.base)?;
    let merged: BTreeSet<String> = match &into {
        Some(into) => git(
            &main,
            &[
                "for-each-ref",
                "--format=%(refname:short)",
                &format!("--merged=refs/heads/{into}"),
                &format!("refs/heads/{prefix}"),
            ],
        )?
        .lines()
        .map(str::to_string)
        .collect(),
        None => BTreeSet::new(),
    };
    let plans = plan(&main, &index, &prefix, into.as_deref(), &merged)?;
    let refused = refusals(&plans, &task_dir, args.force)?;
    if !refused.is_empty() {
        return Err(Error::Usage(format!(
            "{}: nothing was removed (commit or move that work, or pass --force to remove \
             it anyway)",
            refused.join("; ")
        )));
    }
    let mut out = String::new();
    let verb = |done: &str, would: &str| if args.dry_run { would } else { done }.to_string();
    for plan in &plans {
        if let (true, Some(worktree)) = (plan.remove_worktree, &plan.worktree) {
            if !args.dry_run {
                remove_worktree(&main, worktree, args.force)?;
            }
            out.push_str(&format!(
                "{} worktree {} ({})\n",
                verb("removed", "would remove"),
                worktree.path.display(),
                plan.id
            ));
        }
        if plan.delete_branch {
            if !args.dry_run {
                git(&main, &["branch", "-D", &plan.branch])?;
            }
            out.push_str(&format!(
                "{} branch {}\n",
                verb("deleted", "would delete"),
                plan.branch
            ));
        }
        if let Some(note) = &plan.note {
            out.push_str(&format!("{note}\n"));
        }
    }
    if out.is_empty() {
        out = format!("nothing to clean up for task {}\n", task.id);
    }
    super::super::printed(out)
}

/// What cleanup does with each candidate of the last round (the table of
/// docs/candidates.md, "A whole round").
fn plan(
    main: &Path,
    index: &Index,
    prefix: &str,
    into: Option<&str>,
    merged: &BTreeSet<String>,
) -> Result<Vec<Plan>, Error> {
    let existing = branches(main, prefix)?;
    let mut listed = worktrees(main)?;
    let any_merged = index
        .candidates
        .iter()
        .any(|c| c.passed && merged.contains(&format!("{prefix}{}", c.id)));
    let mut plans = Vec::new();
    for candidate in &index.candidates {
        let branch = format!("{prefix}{}", candidate.id);
        let at = listed
            .iter()
            .position(|w| w.branch.as_deref() == Some(&format!("refs/heads/{branch}")));
        let worktree = at.map(|at| listed.swap_remove(at));
        let has_branch = existing.contains(&branch);
        let is_merged = merged.contains(&branch);
        let (remove, delete, note) = match (candidate.passed, is_merged) {
            (true, true) => (
                true,
                false,
                Some(format!(
                    "kept the branch `{branch}`: merged into `{}`; delete it with `git branch \
                     -d {branch}` once that merge is pushed",
                    into.unwrap_or("")
                )),
            ),
            (true, false) if !any_merged => (
                false,
                false,
                Some(format!(
                    "kept `{}`: it passed and is not merged into {} yet",
                    candidate.id,
                    into.map_or("the base's branch".to_string(), |b| format!("`{b}`"))
                )),
            ),
            _ => (true, has_branch, None),
        };
        plans.push(Plan {
            id: candidate.id.clone(),
            branch,
            remove_worktree: remove && worktree.is_some(),
            delete_branch: delete,
            worktree,
            note,
        });
    }
    Ok(plans)
}

/// The branch a passed candidate is merged into: the task's `base` when it
/// names a local branch, else the branch the main worktree has checked out.
fn base_branch(main: &Path, base: &str) -> Result<Option<String>, Error> {
    let named = git(
        main,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            &format!("refs/heads/{base}"),
        ],
    )?;
    if named.lines().any(|line| line == base) {
        return Ok(Some(base.to_string()));
    }
    Ok(
        crate::git::ask(main, &["symbolic-ref", "--short", "-q", "HEAD"])
            .ok()
            .filter(|b| !b.is_empty()),
    )
}

/// Why a planned removal would lose work: a worktree holding changes not
/// in a commit, or a candidate with no evidence under `--runs` yet.
fn refusals(plans: &[Plan], task_dir: &Path, force: bool) -> Result<Vec<String>, Error> {
    let mut refused = Vec::new();
    if force {
        return Ok(refused);
    }
    for plan in plans {
        if !(plan.remove_worktree || plan.delete_branch) {
            continue;
        }
        let evidence = task_dir.join(&plan.id).join("run-check.json");
        let regular = evidence
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_file());
        if !regular {
            refused.push(format!(
                "`{}` has no evidence at {}",
                plan.id,
                evidence.display()
            ));
        }
        if let Some(worktree) = plan.worktree.as_ref().filter(|w| !w.prunable) {
            let status = git(
                &worktree.path,
                &["status", "--porcelain", "-z", "--untracked-files=all"],
            )?;
            if !status.is_empty() {
                let files = status.split('\0').filter(|s| !s.is_empty()).count();
                refused.push(format!(
                    "the worktree {} of `{}` has {files} uncommitted change(s)",
                    worktree.path.display(),
                    plan.id
                ));
            }
        }
    }
    Ok(refused)
}

/// Removes one worktree through git: a lock left by a crashed agent is
/// taken off first, and a worktree whose folder is already gone is pruned.
fn remove_worktree(main: &Path, worktree: &Listed, force: bool) -> Result<(), Error> {
    let shown = worktree.path.to_string_lossy();
    if worktree.locked {
        git(main, &["worktree", "unlock", &shown])?;
    }
    if worktree.prunable {
        git(main, &["worktree", "prune"])?;
        return Ok(());
    }
    let mut args = vec!["worktree", "remove"];
    if force {
        args.push("--force");
    }
    args.push(&shown);
    git(main, &args).map(drop)
}
