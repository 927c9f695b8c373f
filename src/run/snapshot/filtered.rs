//! Files under a filter (Git LFS, git-crypt) that a check's own `git
//! status` refreshed (docs/read-only.md#files-under-a-filter).
//!
//! run-check's git runs no filter program, so it compares such a file as
//! stored in the worktree (the smudged content, not the pointer or the
//! ciphertext the blob holds): one whose index stat data are stale (after
//! a checkout, or touched) is listed as modified, and stays so while the
//! stat data are. A check that runs git itself (any test of git tooling,
//! a pre-commit hook, `git status` in a script) runs the filter, finds the
//! content clean and refreshes the entry's stat data: the first snapshot
//! listed the file as modified, the last one does not, and the index's
//! stat data changed without the content matching the blob as run-check
//! hashes it. Both looked like changes, a FAIL of every LFS repository.
//!
//! Neither is a change when the file itself is as the first snapshot
//! recorded it (its stat data, and its content hash where the snapshot had
//! to read it: the rule every listed file is judged by) and git's
//! attributes give it a `filter`: the only write was to the index's stat
//! cache, which a filter-running `git status` makes. A file a check
//! rewrites (an LFS file replaced, even by identical bytes) has new stat
//! data and still counts; a file without a filter attribute is not let
//! off (git refreshes no entry whose content differs from its blob, so
//! only a forged stat cache makes such a file drop out). The filter is
//! never run: the attribute is asked of `git check-attr`, which reads
//! attributes files and starts no program.

use super::*;

/// Whether the path of snapshot key `key` was listed by `before` as
/// modified in the worktree only (`.M`) and its file is now exactly as
/// `before` recorded it.
fn untouched(before: &Snapshot, worktree: &Path, key: &Path, lstat: &mut Lstat) -> bool {
    let Some(was) = before.get(key) else {
        return false;
    };
    if was.code != Code(*b".M") || !matches!(was.seen, Seen::File { .. }) {
        return false;
    }
    let now = walk::look_again(lstat, worktree, key, Some(&was.seen), None);
    was.seen.same(&now, &before.clock)
}

/// The keys among `keys` (worktree-relative) whose path git's attributes
/// give a filter, asked of `git check-attr` in one process; none when git
/// cannot answer (they then count as changes).
fn with_filter(repo: &Repo, worktree: &Path, keys: &[PathBuf]) -> Vec<PathBuf> {
    let top = repo.toplevel();
    let asked: Vec<Vec<u8>> = keys
        .iter()
        .map(|key| {
            let path = worktree.join(key);
            let rel = path.strip_prefix(top).unwrap_or(&path);
            crate::paths::to_slashes(rel).into_bytes()
        })
        .collect();
    let mut input = Vec::new();
    for path in &asked {
        input.extend_from_slice(path);
        input.push(0);
    }
    let Some((Some(0), stdout)) = repo.feed(&["check-attr", "-z", "--stdin", "filter"], input)
    else {
        return Vec::new();
    };
    // Records of three fields: path, attribute, value.
    let fields: Vec<&[u8]> = stdout.split(|&b| b == 0).collect();
    let filtered: Vec<&[u8]> = fields
        .chunks(3)
        .filter(|record| record.len() == 3 && !matches!(record[2], b"unspecified" | b"unset" | b""))
        .map(|record| record[0])
        .collect();
    keys.iter()
        .zip(&asked)
        .filter(|(_, path)| filtered.contains(&path.as_slice()))
        .map(|(key, _)| key.clone())
        .collect()
}

/// The keys of `changes` and the worktree paths named by `git_changes`
/// that are a filtered file's refreshed stat data and nothing else (see
/// the module's doc): what the caller leaves out. `after` is the later
/// snapshot (a path it still lists is judged by its own entry).
pub(super) fn refreshed(
    repo: &Repo,
    worktree: &Path,
    (before, after): (&Snapshot, &Snapshot),
    changes: &[Change],
    git_changes: &[String],
) -> Vec<PathBuf> {
    let mut lstat = Lstat::default();
    let dropped = changes
        .iter()
        .filter(|c| after.get(&c.key).is_none())
        .map(|c| c.key.clone());
    let restamped = git_changes.iter().map(PathBuf::from);
    let mut keys: Vec<PathBuf> = dropped
        .chain(restamped)
        .filter(|key| untouched(before, worktree, key, &mut lstat))
        .collect();
    if keys.is_empty() {
        return keys;
    }
    keys.sort();
    keys.dedup();
    with_filter(repo, worktree, &keys)
}
