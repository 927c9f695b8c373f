//! The base revision as a scan sees it (`scan::Base`, docs/diagnostics.md):
//! which files changed since it, by the change set of `run/changes.rs`
//! (the one `contracts.gate` and fast mode use, against the same base), and
//! what a file held there, read from git's object store (`git ls-tree`,
//! then one `git cat-file --batch`, neither of which runs a filter or
//! textconv program). Git is asked only for what a scan needs: which of the
//! files it did not read or that hold `run-check: allow` markers changed,
//! and the contents at the base of the changed ones with markers; a scan
//! with neither starts no process.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::git::{Repo, Status};
use crate::run::changes;
use crate::run::snapshot::OwnFiles;

/// Paths per `git ls-tree` call (the command line stays short).
const PATHS_PER_CALL: usize = 200;

/// The run's base revision (`--changed-since`, the task's `base`, else
/// `HEAD`: [`changes`]), for the scans.
pub(crate) struct ScanBase<'r> {
    pub(crate) repo: &'r Repo,
    pub(crate) status: &'r Status,
    /// The worktree (canonical), at or below the repository's top level.
    pub(crate) worktree: &'r Path,
    /// The base revision as given.
    pub(crate) base: &'r str,
    pub(crate) own: &'r OwnFiles,
}

impl ScanBase<'_> {
    /// The base commit; `None` before the first commit (`HEAD` then names
    /// the empty history: nothing was there).
    fn commit(&self) -> Result<Option<String>, String> {
        if self.base == "HEAD" {
            return Ok(self.status.commit.clone());
        }
        self.repo
            .resolve(self.base)
            .map(Some)
            .ok_or_else(|| format!("no such revision `{}`", self.base))
    }

    /// The worktree's path below the top level, `/`-separated and ending in
    /// `/` (empty at the top level).
    fn prefix(&self) -> String {
        let below = self
            .worktree
            .strip_prefix(self.repo.toplevel())
            .unwrap_or(Path::new(""));
        let mut prefix = crate::paths::to_slashes(below);
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix
    }
}

impl crate::scan::Base for ScanBase<'_> {
    fn changed(&self, files: &[String]) -> Result<HashSet<String>, String> {
        changes::changed_files_among(
            self.repo,
            self.status,
            self.worktree,
            self.base,
            self.own,
            Some(files),
        )
        .map(|changed| changed.into_iter().collect())
        .map_err(|err| err.to_string())
    }

    fn contents(&self, files: &[String]) -> Result<HashMap<String, Vec<u8>>, String> {
        let Some(commit) = self.commit()? else {
            return Ok(HashMap::new());
        };
        let prefix = self.prefix();
        // (object name, worktree-relative file) of every file to read.
        let mut wanted: Vec<(String, String)> = Vec::new();
        for chunk in files.chunks(PATHS_PER_CALL) {
            let paths: Vec<String> = chunk.iter().map(|f| format!("{prefix}{f}")).collect();
            let mut args = vec![
                // A path is a path: `*` or `:` in a name is no pattern.
                "--literal-pathspecs",
                "ls-tree",
                "-z",
                "-l",
                "--full-tree",
                commit.as_str(),
                "--",
            ];
            args.extend(paths.iter().map(String::as_str));
            let listing = self.repo.run(&args)?;
            for (object, path) in blobs(&listing) {
                if let Some(file) = path.strip_prefix(prefix.as_str()) {
                    wanted.push((object.to_string(), file.to_string()));
                }
            }
        }
        if wanted.is_empty() {
            return Ok(HashMap::new());
        }
        // One `git cat-file --batch` for them all, not a process a file.
        let input = wanted
            .iter()
            .flat_map(|(object, _)| object.bytes().chain([b'\n']));
        let output = match self.repo.feed(&["cat-file", "--batch"], input.collect()) {
            Some((Some(0), output)) => output,
            _ => return Err("`git cat-file --batch` failed".into()),
        };
        let texts = batch_blobs(&output)
            .filter(|texts| texts.len() == wanted.len())
            .ok_or("`git cat-file --batch` answered what was not asked")?;
        let files = wanted.into_iter().map(|(_, file)| file);
        Ok(files.zip(texts.into_iter().map(<[u8]>::to_vec)).collect())
    }
}

/// The contents of `git cat-file --batch` output, in order: each record
/// is `<object> blob <size>\n`, the content, then `\n`. `None` when a
/// record is not a blob (`<object> missing`) or the output is cut short.
fn batch_blobs(mut output: &[u8]) -> Option<Vec<&[u8]>> {
    let mut texts = Vec::new();
    while !output.is_empty() {
        let end = memchr::memchr(b'\n', output)?;
        let header = std::str::from_utf8(&output[..end]).ok()?;
        let mut fields = header.split(' ');
        let (_, kind, size) = (fields.next()?, fields.next()?, fields.next()?);
        let size: usize = size.parse().ok()?;
        if kind != "blob" {
            return None;
        }
        let rest = &output[end + 1..];
        texts.push(rest.get(..size)?);
        output = rest.get(size + 1..)?;
    }
    Some(texts)
}

/// The regular files of `git ls-tree -z -l` output whose text a scan compares
/// (at most `MAX_BASE_BYTES`): (object name, top-level path). Symlinks,
/// submodules and larger files are left out.
fn blobs(listing: &[u8]) -> Vec<(&str, &str)> {
    listing
        .split(|&b| b == 0)
        .filter_map(|record| {
            let record = std::str::from_utf8(record).ok()?;
            let (meta, path) = record.split_once('\t')?;
            let mut fields = meta.split_ascii_whitespace();
            let (mode, kind, object, size) = (
                fields.next()?,
                fields.next()?,
                fields.next()?,
                fields.next()?,
            );
            let size: u64 = size.parse().ok()?;
            let regular = kind == "blob" && (mode == "100644" || mode == "100755");
            (regular && size <= crate::scan::MAX_BASE_BYTES).then_some((object, path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cat_file_batch_records_give_each_blob_in_order() {
        let output = b"aa blob 3\nx\ny\nbb blob 0\n\ncc blob 2\n\n\n\n";
        assert_eq!(batch_blobs(output), Some(vec![&b"x\ny"[..], b"", b"\n\n"]));
        assert_eq!(batch_blobs(b"aa missing\n"), None);
        assert_eq!(batch_blobs(b"aa blob 9\nshort\n"), None);
        assert_eq!(batch_blobs(b""), Some(vec![]));
    }

    #[test]
    fn ls_tree_records_give_the_regular_files_a_scan_reads() {
        let listing = b"100644 blob 45b983be36b73c0788dc9cbcb76cbb80fc7bb057       3\tsrc/a.py\0\
120000 blob 587be6b4c3f93f93c489c0111bba5596147a26cb      10\tsrc/link\0\
100755 blob 687be6b4c3f93f93c489c0111bba5596147a26cb 1048577\tbig.sh\0\
160000 commit 787be6b4c3f93f93c489c0111bba5596147a26cb       -\tvendor/sub\0\
100755 blob 887be6b4c3f93f93c489c0111bba5596147a26cb      12\tdir with space/x\ty.sh\0";
        assert_eq!(
            blobs(listing),
            [
                ("45b983be36b73c0788dc9cbcb76cbb80fc7bb057", "src/a.py"),
                (
                    "887be6b4c3f93f93c489c0111bba5596147a26cb",
                    "dir with space/x\ty.sh"
                ),
            ]
        );
    }
}
