//! The change under test (SPEC section 4): files that differ from a base
//! revision — tracked changes against `--changed-since` (default `HEAD`),
//! staged or not, plus untracked files that are not ignored — and the lines
//! changed, for fast mode's `paths` filter and the task's change budget.
//! Git is asked read-only (`GIT_OPTIONAL_LOCKS=0`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    /// Not a git worktree (or git is missing): nothing can be compared.
    NotGit(String),
    /// The base revision does not exist.
    BadRevision(String),
    /// git failed otherwise.
    Git(String),
}

impl std::fmt::Display for ChangesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChangesError::NotGit(why) | ChangesError::Git(why) => write!(f, "{why}"),
            ChangesError::BadRevision(rev) => {
                write!(
                    f,
                    "--changed-since `{rev}`: no such revision in this repository"
                )
            }
        }
    }
}

struct Git {
    git: PathBuf,
    toplevel: PathBuf,
}

impl Git {
    fn run(&self, args: &[&str]) -> Result<Vec<u8>, ChangesError> {
        let output = Command::new(&self.git)
            .arg("-C")
            .arg(&self.toplevel)
            .args(["-c", "core.quotePath=false"])
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|err| ChangesError::Git(format!("failed to run git: {err}")))?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            let why = String::from_utf8_lossy(&output.stderr);
            Err(ChangesError::Git(format!(
                "git {}: {}",
                args.join(" "),
                why.trim()
            )))
        }
    }
}

/// The files and lines changed in `worktree` against `base`.
pub fn changed(worktree: &Path, base: &str) -> Result<Changes, ChangesError> {
    let git = which::which("git")
        .map_err(|_| ChangesError::NotGit("git is not installed: every check runs".into()))?;
    let top = Command::new(&git)
        .arg("-C")
        .arg(worktree)
        .args(["rev-parse", "--show-toplevel"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or_else(|| {
            ChangesError::NotGit("not a git repository: every check runs".to_string())
        })?;
    let top = String::from_utf8_lossy(&top.stdout).trim().to_string();
    let toplevel = dunce::canonicalize(&top).unwrap_or_else(|_| PathBuf::from(top));
    let git = Git { git, toplevel };
    if base.starts_with('-') {
        return Err(ChangesError::BadRevision(base.to_string()));
    }
    let revision = format!("{base}^{{commit}}");
    let commit = git
        .run(&[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &revision,
        ])
        .map_err(|_| ChangesError::BadRevision(base.to_string()))?;
    let commit = String::from_utf8_lossy(&commit).trim().to_string();

    let mut files = BTreeSet::new();
    let mut loc = 0u64;
    // Tracked: the worktree (staged or not) against the base commit.
    let numstat = git.run(&["diff", "--numstat", "-z", "--no-renames", &commit, "--"])?;
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
    // Untracked, not ignored.
    let untracked = git.run(&["ls-files", "--others", "--exclude-standard", "-z"])?;
    for record in untracked.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let path = String::from_utf8_lossy(record).into_owned();
        loc += text_lines(&git.toplevel.join(&path));
        files.insert(path);
    }
    let files = files
        .into_iter()
        .map(|path| relative_to(&git.toplevel.join(&path), worktree))
        .collect();
    Ok(Changes {
        base: base.to_string(),
        files,
        loc,
    })
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

        let clean = changed(&root, "HEAD").unwrap();
        assert_eq!((clean.files.len(), clean.loc), (0, 0));

        // 1 line changed (1 added + 1 deleted), 1 staged deletion (1 line),
        // 2 untracked lines, an ignored file that does not count.
        std::fs::write(root.join("src/a.rs"), "one\nTWO\nthree\n").unwrap();
        git(&root, &["rm", "-q", "b.txt"]);
        std::fs::write(root.join("new.txt"), "x\ny").unwrap();
        std::fs::write(root.join("debug.log"), "ignored\n").unwrap();
        let changes = changed(&root, "HEAD").unwrap();
        assert_eq!(changes.files, ["b.txt", "new.txt", "src/a.rs"]);
        assert_eq!(changes.loc, 2 + 1 + 2);

        // Relative to a subdirectory worktree.
        let sub = changed(&root.join("src"), "HEAD").unwrap();
        assert_eq!(sub.files, ["../b.txt", "../new.txt", "a.rs"]);
    }

    #[test]
    fn a_missing_revision_and_a_non_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let not_git = changed(&root, "HEAD");
        // A temp dir could sit inside a repository on some machine; here it
        // does not.
        assert!(
            matches!(not_git, Err(ChangesError::NotGit(_))),
            "{not_git:?}"
        );
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["commit", "-q", "--allow-empty", "-m", "one"]);
        assert_eq!(
            changed(&root, "no-such-branch").unwrap_err().to_string(),
            "--changed-since `no-such-branch`: no such revision in this repository"
        );
        assert!(matches!(
            changed(&root, "--output=x"),
            Err(ChangesError::BadRevision(_))
        ));
        assert!(changed(&root, "HEAD").is_ok());
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
