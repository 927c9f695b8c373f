//! The change under test (SPEC section 4): files that differ from a base
//! revision — tracked changes against `--changed-since` (default `HEAD`),
//! staged or not, plus untracked files that are not ignored — and the lines
//! changed, for fast mode's `paths` filter and the task's change budget.
//! Git is asked read-only (`GIT_OPTIONAL_LOCKS=0`).

use std::collections::BTreeSet;
use std::path::Path;

use crate::git::{Repo, Status};

/// Files changed against a base, worktree-relative with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// The base revision as given.
    pub base: String,
    /// Changed paths, sorted.
    pub files: Vec<String>,
    /// Added plus deleted lines (untracked text files count all their lines).
    pub loc: u64,
}

/// Why the change could not be determined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangesError {
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

/// The files changed in `worktree` against `base`, for fast mode's `paths`
/// filter: tracked files that differ (staged or not) and untracked files
/// that are not ignored. `status` is the run's `git status`; when `base` is
/// the HEAD commit its entries are the answer and git is not asked again (a
/// file whose staged change was undone in the worktree counts as changed:
/// the filter errs towards running a check).
pub fn changed_files(
    repo: &Repo,
    status: &Status,
    worktree: &Path,
    base: &str,
) -> Result<Vec<String>, ChangesError> {
    if unborn(status, base) {
        return Ok(everything(repo, status, worktree));
    }
    let commit = resolve(repo, base)?;
    if status.commit.as_deref() == Some(commit.as_str()) {
        return Ok(everything(repo, status, worktree));
    }
    let names = repo
        .run(&["diff", "--name-only", "-z", "--no-renames", &commit, "--"])
        .map_err(ChangesError::Git)?;
    let mut files: BTreeSet<String> = names
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    files.extend(untracked(status).map(str::to_string));
    Ok(files
        .into_iter()
        .map(|path| relative_to(&repo.toplevel().join(&path), worktree))
        .collect())
}

/// The files and lines changed in `worktree` against `base` (the task's
/// change budget): `git diff --numstat` for tracked files, every line of an
/// untracked text file.
pub fn changed(
    repo: &Repo,
    status: &Status,
    worktree: &Path,
    base: &str,
) -> Result<Changes, ChangesError> {
    if unborn(status, base) {
        let loc = status
            .entries
            .iter()
            .map(|e| text_lines(&repo.toplevel().join(&e.path)))
            .sum();
        return Ok(Changes {
            base: base.to_string(),
            files: everything(repo, status, worktree),
            loc,
        });
    }
    let commit = resolve(repo, base)?;
    let mut files = BTreeSet::new();
    let mut loc = 0u64;
    // Tracked: the worktree (staged or not) against the base commit.
    let numstat = repo
        .run(&["diff", "--numstat", "-z", "--no-renames", &commit, "--"])
        .map_err(ChangesError::Git)?;
    for record in numstat.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let text = String::from_utf8_lossy(record);
        let mut parts = text.splitn(3, '\t');
        let (added, deleted, path) = (parts.next(), parts.next(), parts.next());
        let Some(path) = path else { continue };
        // Binary files show `-`: they count as a changed file, no lines.
        let count = |n: Option<&str>| n.and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        loc += count(added) + count(deleted);
        files.insert(path.to_string());
    }
    for path in untracked(status) {
        loc += text_lines(&repo.toplevel().join(path));
        files.insert(path.to_string());
    }
    let files = files
        .into_iter()
        .map(|path| relative_to(&repo.toplevel().join(&path), worktree))
        .collect();
    Ok(Changes {
        base: base.to_string(),
        files,
        loc,
    })
}

/// Before the first commit `HEAD` names nothing yet: compared with the
/// empty history, every file the status lists (staged or untracked) is new.
fn unborn(status: &Status, base: &str) -> bool {
    base == "HEAD" && status.commit.is_none()
}

/// Every path of `status` (the change against HEAD, or against the empty
/// history before the first commit), worktree-relative and sorted.
fn everything(repo: &Repo, status: &Status, worktree: &Path) -> Vec<String> {
    let files: BTreeSet<&str> = status.entries.iter().map(|e| e.path.as_str()).collect();
    files
        .into_iter()
        .map(|path| relative_to(&repo.toplevel().join(path), worktree))
        .collect()
}

fn resolve(repo: &Repo, base: &str) -> Result<String, ChangesError> {
    repo.resolve(base)
        .ok_or_else(|| ChangesError::BadRevision(base.to_string()))
}

/// Untracked, not ignored files of `status` (top-level relative).
fn untracked(status: &Status) -> impl Iterator<Item = &str> {
    status
        .entries
        .iter()
        .filter(|e| e.code == "??")
        .map(|e| e.path.as_str())
}

/// Lines of a text file (0 for binary, unreadable or files over 16 MiB).
fn text_lines(path: &Path) -> u64 {
    let Ok(meta) = std::fs::metadata(path) else {
        return 0;
    };
    if !meta.is_file() || meta.len() > 16 * 1024 * 1024 {
        return 0;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return 0;
    };
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return 0;
    }
    let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
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
    let mut parts: Vec<String> = Vec::new();
    parts.extend(std::iter::repeat_n(
        "..".to_string(),
        base_parts.len() - common,
    ));
    parts.extend(
        path_parts[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    fn repo(root: &Path) -> (Repo, Status) {
        let (repo, status) = crate::git::open(root).unwrap();
        (repo, status.unwrap())
    }

    #[test]
    fn tracked_staged_and_untracked_changes_with_line_counts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "one"]);

        let (r, s) = repo(&root);
        let clean = changed(&r, &s, &root, "HEAD").unwrap();
        assert_eq!((clean.files.len(), clean.loc), (0, 0));
        assert!(changed_files(&r, &s, &root, "HEAD").unwrap().is_empty());

        // 1 line changed (1 added + 1 deleted), 1 staged deletion (1 line),
        // 2 untracked lines, an ignored file that does not count.
        std::fs::write(root.join("src/a.rs"), "one\nTWO\nthree\n").unwrap();
        git(&root, &["rm", "-q", "b.txt"]);
        std::fs::write(root.join("new.txt"), "x\ny").unwrap();
        std::fs::write(root.join("debug.log"), "ignored\n").unwrap();
        let (r, s) = repo(&root);
        let changes = changed(&r, &s, &root, "HEAD").unwrap();
        assert_eq!(changes.files, ["b.txt", "new.txt", "src/a.rs"]);
        assert_eq!(changes.loc, 2 + 1 + 2);
        // From the status alone (base is HEAD), and through `git diff`
        // (the same commit named otherwise is compared the long way).
        assert_eq!(changed_files(&r, &s, &root, "HEAD").unwrap(), changes.files);
        assert_eq!(changed_files(&r, &s, &root, "main").unwrap(), changes.files);

        // Relative to a subdirectory worktree.
        let sub = changed(&r, &s, &root.join("src"), "HEAD").unwrap();
        assert_eq!(sub.files, ["../b.txt", "../new.txt", "a.rs"]);
        assert_eq!(
            changed_files(&r, &s, &root.join("src"), "HEAD").unwrap(),
            sub.files
        );
    }

    #[test]
    fn against_an_older_base() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "one"]);
        git(&root, &["tag", "v1"]);
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", "two"]);
        std::fs::write(root.join("c.txt"), "c\n").unwrap();
        let (r, s) = repo(&root);
        // Committed since v1, plus the untracked file.
        assert_eq!(
            changed_files(&r, &s, &root, "v1").unwrap(),
            ["b.txt", "c.txt"]
        );
        assert_eq!(changed_files(&r, &s, &root, "HEAD").unwrap(), ["c.txt"]);
        assert_eq!(changed(&r, &s, &root, "v1").unwrap().loc, 2);
    }

    #[test]
    fn before_the_first_commit_every_file_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        std::fs::write(root.join("staged.txt"), "a\nb\n").unwrap();
        git(&root, &["add", "staged.txt"]);
        std::fs::write(root.join("new.txt"), "c\n").unwrap();
        let (r, s) = repo(&root);
        assert_eq!(s.commit, None);
        assert_eq!(
            changed_files(&r, &s, &root, "HEAD").unwrap(),
            ["new.txt", "staged.txt"]
        );
        let changes = changed(&r, &s, &root, "HEAD").unwrap();
        assert_eq!((changes.files.len(), changes.loc), (2, 3));
        // Another base still has to exist.
        assert!(matches!(
            changed_files(&r, &s, &root, "main"),
            Err(ChangesError::BadRevision(_))
        ));
    }

    #[test]
    fn a_missing_revision() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let (r, s) = repo(&root);
        assert_eq!(
            changed_files(&r, &s, &root, "no-such-branch")
                .unwrap_err()
                .to_string(),
            "--changed-since `no-such-branch`: no such revision in this repository"
        );
        assert!(matches!(
            changed(&r, &s, &root, "--output=x"),
            Err(ChangesError::BadRevision(_))
        ));
        assert!(changed(&r, &s, &root, "HEAD").is_ok());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_to(Path::new("/r/a/b.rs"), Path::new("/r")),
            "a/b.rs"
        );
        assert_eq!(
            relative_to(Path::new("/r/x.rs"), Path::new("/r/a")),
            "../x.rs"
        );
    }
}
