//! What ignore rules hide, in a check's key (docs/cache.md, "What the key
//! holds"): a file git ignores is in no `git status` and so in no input
//! list, yet a check sees it; a `src/calc/__init__.py` hidden by a
//! `.gitignore` that ignores itself, or by `.git/info/exclude`, shadows the
//! tracked `src/calc.py` as well as a tracked file would. So a key holds:
//!
//! - the rules: `.git/info/exclude` and `core.excludesFile` (their rules,
//!   comments and blank lines left out, as these are machine-local files
//!   whose templates differ), in every key; and every `.gitignore` in the
//!   check's scope (in a folder that holds one of its inputs, or matched
//!   by its patterns; every one for a check with neither `inputs` nor
//!   `paths`), tracked or not, ignored or not, by content;
//! - for a check with patterns (`inputs`, else `paths`), the ignored files
//!   they match, as the run's `git status --ignored=matching` lists them
//!   (one by one when a pattern names the file), by content; a folder git
//!   ignores as a whole (`build/`) by its name only, when the patterns
//!   match it: git does not look inside, and reading `node_modules/` on
//!   every run would cost more than the check. The caches of tools that
//!   load no code from them (`BUILD_OUTPUT`) are left out, so that a first
//!   run's `__pycache__` does not change the next run's key.
//!
//! Nothing here starts a process unless an ignored file is to be hashed
//! (one `git hash-object` for all of them).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::{Value, json};

use super::{Facts, File, Patterns, describe, hash_files, value_hash};
use crate::git::{Repo, Status};

/// Folders whose files are never keyed as ignored inputs: the caches
/// Python's tools write beside the code (`__pycache__` is keyed by its
/// source's stat data, which differ from checkout to checkout), and the
/// build output of npm and cargo.
const BUILD_OUTPUT: [&str; 6] = [
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "node_modules",
    "target",
];
/// The largest excludes file read (git's own limit is larger; a bigger one
/// is keyed as `too large`, which still changes the key when it appears).
const MAX_EXCLUDES: u64 = 16 * 1024 * 1024;

/// The run's ignored paths and ignore files, gathered once.
pub(super) struct Hidden {
    /// The rules of `.git/info/exclude` and `core.excludesFile`.
    excludes: Value,
    /// `.gitignore` files between the repository's top level and the
    /// worktree (which apply to every input): git path and hash.
    above: Vec<Value>,
    /// The ignored paths inside the worktree, as git lists them; a folder
    /// has `mode` `folder`.
    files: Vec<File>,
    /// The `.gitignore` files of the worktree: in the run's file list
    /// (`false`, tracked or untracked) or in `files` (`true`, ignored).
    ignore_files: Vec<(bool, usize)>,
}

/// What one check's key holds of them (indices as in `Hidden`).
pub(super) struct Scope {
    ignore_files: Vec<(bool, usize)>,
    ignored: Vec<usize>,
}

impl Scope {
    /// The ignore files it holds from the run's input files.
    pub(super) fn listed(&self) -> impl Iterator<Item = &usize> {
        (self.ignore_files.iter())
            .filter(|(ignored, _)| !ignored)
            .map(|(_, i)| i)
    }
}

impl Hidden {
    /// The ignored paths of `status` inside the worktree, the ignore files
    /// among them and among `listed` (the run's input files), and the
    /// excludes files' rules.
    pub(super) fn gather(
        facts: &Facts<'_>,
        repo: &Repo,
        status: &Status,
        listed: &[File],
    ) -> Hidden {
        let top = repo.toplevel();
        let prefix = facts.worktree.strip_prefix(top).unwrap_or(Path::new(""));
        let mut files = Vec::new();
        for path in &status.ignored {
            let folder = path.as_os_str().as_encoded_bytes().ends_with(b"/");
            let Ok(inner) = path.strip_prefix(prefix) else {
                continue;
            };
            let rel = crate::paths::to_slashes(inner);
            if rel.is_empty() || facts.own.contains(&top.join(path)) {
                continue;
            }
            let mut file = File {
                rel,
                git_path: path.to_path_buf(),
                mode: "folder".into(),
                hash: folder.then(|| "folder".into()),
                unkeyable: None,
            };
            if !folder {
                describe(&mut file, top, None);
            }
            files.push(file);
        }
        let is_ignore_file = |rel: &str| rel == ".gitignore" || rel.ends_with("/.gitignore");
        let ignore_files = (listed.iter().enumerate())
            .filter(|(_, f)| is_ignore_file(&f.rel))
            .map(|(i, _)| (false, i))
            .chain(
                (files.iter().enumerate())
                    .filter(|(_, f)| f.mode != "folder" && is_ignore_file(&f.rel))
                    .map(|(i, _)| (true, i)),
            )
            .collect();
        let dirs = repo.dirs();
        let exclude = dirs.common_dir.join("info").join("exclude");
        Hidden {
            excludes: json!({
                "info/exclude": rules(&exclude),
                "core.excludesFile": dirs.excludes_file.as_deref().map_or(Value::Null, rules),
            }),
            above: above(top, prefix),
            files,
            ignore_files,
        }
    }

    /// What a check's key holds, its patterns being `group` of `patterns`
    /// (`None`: it has none) and its inputs `inputs` (indices in `listed`).
    pub(super) fn scope(
        &self,
        patterns: &Patterns,
        group: Option<usize>,
        listed: &[File],
        inputs: &[usize],
    ) -> Scope {
        let Some(group) = group else {
            return Scope {
                ignore_files: self.ignore_files.clone(),
                ignored: Vec::new(),
            };
        };
        let mut hits = Vec::new();
        let mut matches = |rel: &str| patterns.matches(group, rel, &mut hits);
        let rel_of = |(ignored, i): (bool, usize)| {
            if ignored {
                &self.files[i].rel
            } else {
                &listed[i].rel
            }
        };
        let folders = folders(inputs.iter().map(|&i| listed[i].rel.as_str()));
        let ignore_files = (self.ignore_files.iter().copied())
            .filter(|&at| {
                let rel = rel_of(at);
                let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
                folders.contains(folder) || matches(rel)
            })
            .collect();
        let ignored = (0..self.files.len())
            .filter(|&i| {
                let rel = &self.files[i].rel;
                !rel.split('/').any(|part| BUILD_OUTPUT.contains(&part)) && matches(rel)
            })
            .collect();
        Scope {
            ignore_files,
            ignored,
        }
    }

    /// Hashes the ignored files that some scope holds (one `git
    /// hash-object` for all).
    pub(super) fn hash(&self, repo: &Repo, scopes: &[Option<Scope>]) -> Hashed {
        let mut wanted = BTreeSet::new();
        for scope in scopes.iter().flatten() {
            let ignored_files = scope.ignore_files.iter().filter(|(ignored, _)| *ignored);
            wanted.extend(ignored_files.map(|&(_, i)| i));
            wanted.extend(scope.ignored.iter().copied());
        }
        wanted.retain(|&i| self.files[i].hash.is_none() && self.files[i].unkeyable.is_none());
        hash_files(repo, &self.files, &wanted)
    }

    /// The key document's `ignore` part of a check: `listed_hashes` are
    /// the hashes of the run's input files (known or hashed), `hashed`
    /// those of `hash`.
    pub(super) fn document(
        &self,
        scope: &Scope,
        listed: &[File],
        listed_hash: &dyn Fn(usize) -> Result<String, String>,
        hashed: &Hashed,
    ) -> Result<Value, String> {
        let ignored_hash = |i: usize| -> Result<String, String> {
            let file = &self.files[i];
            if let Some(why) = &file.unkeyable {
                return Err(why.clone());
            }
            match &file.hash {
                Some(hash) => Ok(hash.clone()),
                None => (hashed.get(&i).cloned())
                    .ok_or_else(|| format!("cannot read `{}`", file.rel))?,
            }
        };
        let mut gitignore = Vec::with_capacity(scope.ignore_files.len());
        for &(ignored, i) in &scope.ignore_files {
            let (rel, hash) = match ignored {
                true => (&self.files[i].rel, ignored_hash(i)?),
                false => (&listed[i].rel, listed_hash(i)?),
            };
            gitignore.push(json!({"path": rel, "hash": hash}));
        }
        gitignore.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
        let mut ignored = Vec::with_capacity(scope.ignored.len());
        for &i in &scope.ignored {
            let file = &self.files[i];
            ignored.push(json!({"path": file.rel, "mode": file.mode, "hash": ignored_hash(i)?}));
        }
        Ok(json!({
            "excludes": self.excludes,
            "above": self.above,
            "gitignore": gitignore,
            "ignored": ignored,
        }))
    }
}

/// The hashes `Hidden::hash` made, by index in `Hidden::files`.
pub(super) type Hashed = HashMap<usize, Result<String, String>>;

/// Every folder that holds one of `paths` (worktree-relative), at any
/// depth: `a/b/c.py` gives `a/b`, `a` and `` (the worktree).
fn folders<'a>(paths: impl Iterator<Item = &'a str>) -> HashSet<&'a str> {
    let mut out = HashSet::new();
    out.insert("");
    for path in paths {
        let mut rest = path;
        while let Some((folder, _)) = rest.rsplit_once('/') {
            if !out.insert(folder) {
                break;
            }
            rest = folder;
        }
    }
    out
}

/// An excludes file's rules as the key holds them: the sha256 of its
/// lines that are neither blank nor comments, in order; `null` when it
/// holds none or does not exist. The file is followed through links (git
/// follows them), opened without blocking on a FIFO.
fn rules(path: &Path) -> Value {
    let Ok(real) = dunce::canonicalize(path) else {
        return Value::Null;
    };
    let Some((file, meta)) = crate::paths::open_regular(&real) else {
        return Value::String("not a regular file".into());
    };
    if meta.len() > MAX_EXCLUDES {
        return Value::String("too large".into());
    }
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_EXCLUDES), &mut bytes).is_err()
    {
        return Value::String("unreadable".into());
    }
    let kept: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.trim_ascii().is_empty() && !line.starts_with(b"#"))
        .collect();
    match kept.is_empty() {
        true => Value::Null,
        false => Value::String(value_hash(&kept.join(&b'\n'))),
    }
}

/// The `.gitignore` files of the folders from the top level (included)
/// down to the worktree (left out: its own are in the file lists), when
/// the worktree is below the top level; git path and content hash.
fn above(top: &Path, prefix: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let mut folder = top.to_path_buf();
    let mut rel = String::new();
    for part in prefix.components() {
        let path = folder.join(".gitignore");
        if let Some((file, _)) = crate::paths::open_regular(&path) {
            let mut bytes = Vec::new();
            let read = std::io::Read::read_to_end(
                &mut std::io::Read::take(file, MAX_EXCLUDES),
                &mut bytes,
            );
            let hash = read.map_or_else(|_| "unreadable".into(), |_| value_hash(&bytes));
            out.push(json!({"path": format!("{rel}.gitignore"), "hash": hash}));
        }
        folder.push(part);
        rel.push_str(&part.as_os_str().to_string_lossy());
        rel.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_every_ancestor() {
        let found = folders(["a/b/c.py", "a/d.py", "e.py"].into_iter());
        let mut found: Vec<&str> = found.into_iter().collect();
        found.sort_unstable();
        assert_eq!(found, ["", "a", "a/b"]);
    }

    #[test]
    fn excludes_rules_leave_out_comments_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exclude");
        assert_eq!(rules(&path), Value::Null, "no file");
        std::fs::write(&path, "# a template\n\n   \n").unwrap();
        assert_eq!(rules(&path), Value::Null, "no rule");
        std::fs::write(&path, "# a template\nsrc/calc/__init__.py\n").unwrap();
        let one = rules(&path);
        std::fs::write(&path, "# another\r\n\r\nsrc/calc/__init__.py\r\n").unwrap();
        assert_eq!(rules(&path), one, "the same rule");
        std::fs::write(&path, "src/calc/\n").unwrap();
        assert_ne!(rules(&path), one);
    }
}
