//! run-check's own temporary files, and those of other runs on the same
//! worktree, never count as a change (docs/read-only.md); a check's file must
//! not escape by taking their name.
//!
//! The `--out` report is written to a temporary sibling,
//! `.run-check-<pid>-<random>.tmp`, held open by the run with process id
//! `<pid>` until it is renamed over the report. A snapshot leaves such a
//! file out only when it proves to be one: an untracked file with that
//! name that is held open, under that very name, by a live process `<pid>`
//! running the same run-check program as this one (Linux: its
//! `/proc/<pid>/exe` is ours and one of its `/proc/<pid>/fd` links names
//! the path). A check cannot make a run-check process open its file, and a
//! process of its own is not run-check. A file of that name that is gone
//! by the time it is checked (its run renamed it over the report after
//! `git status` listed it) holds nothing and is left out too. Anything else named like it counts like any file.
//! Elsewhere than Linux only this run's own temporary file is recognised
//! (by its path); other runs' count.

use std::path::Path;

use super::{Entry, Key, Snapshot};

use crate::output::OUT_TEMP_PREFIX as PREFIX;

const SUFFIX: &str = ".tmp";

/// Leaves out of `snapshot` the untracked files that are run-check
/// temporary files (see the module documentation).
pub(super) fn forget_run_check_temps(snapshot: &mut Snapshot, worktree: &Path) {
    forget_among(&mut snapshot.entries, worktree);
}

/// [`forget_run_check_temps`] of some entries of a snapshot.
pub(super) fn forget_among(entries: &mut Vec<(Key, Entry)>, worktree: &Path) {
    entries.retain(|(key, entry)| {
        // Cheaply first: 200,000 keys are asked.
        let bytes = key.as_os_str().as_encoded_bytes();
        if !bytes.ends_with(SUFFIX.as_bytes()) {
            return true;
        }
        let untracked = entry.code.untracked_or_walked();
        let key = Path::new(&**key);
        let Some(pid) = key.file_name().and_then(|n| n.to_str()).and_then(temp_pid) else {
            return true;
        };
        if !untracked || matches!(entry.seen, super::Seen::Tree(_)) {
            return true;
        }
        // Not held, and gone by now (its run renamed it over the report
        // since it was listed, hashed, or looked for among the holder's
        // files: asked in this order, a rename in between is never missed):
        // there is nothing left to hide anything in.
        let path = worktree.join(key);
        let own = held_by_run_check(&path, pid) || std::fs::symlink_metadata(&path).is_err();
        !own
    });
}

/// The process id in a name `.run-check-<pid>-<anything>.tmp`.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether the live process `pid` runs this same program and holds `path`
/// open under that name.
#[cfg(target_os = "linux")]
fn held_by_run_check(path: &Path, pid: u32) -> bool {
    let process = Path::new("/proc").join(pid.to_string());
    let (Ok(exe), Ok(own)) = (
        std::fs::read_link(process.join("exe")),
        std::fs::read_link("/proc/self/exe"),
    ) else {
        return false;
    };
    if exe != own {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(process.join("fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == path))
}

#[cfg(not(target_os = "linux"))]
fn held_by_run_check(_path: &Path, _pid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_with_a_pid_and_a_random_part_are_temp_names() {
        assert_eq!(temp_pid(".run-check-123-abc.tmp"), Some(123));
        let ours = format!("{}x1.tmp", crate::output::out_temp_prefix());
        assert_eq!(temp_pid(&ours), Some(std::process::id()));
        for name in [
            ".run-check-abc.tmp",
            ".run-check-123-.tmp",
            ".run-check--x.tmp",
            ".run-check-12a-x.tmp",
            "run-check-1-x.tmp",
            ".run-check-1-x.json",
        ] {
            assert_eq!(temp_pid(name), None, "{name}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_is_a_temp_only_while_this_program_holds_it_open_by_that_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let pid = std::process::id();
        let path = root.join(format!(".run-check-{pid}-held.tmp"));
        let file = std::fs::File::create(&path).unwrap();
        assert!(held_by_run_check(&path, pid));
        // Another name for the same file (a hard link) is not held.
        let link = root.join(format!(".run-check-{pid}-link.tmp"));
        std::fs::hard_link(&path, &link).unwrap();
        assert!(!held_by_run_check(&link, pid));
        // Replaced under the same name: the open file is the deleted one.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "mine").unwrap();
        assert!(!held_by_run_check(&path, pid));
        drop(file);
        // Another program (pid 1 is not this test binary).
        assert!(!held_by_run_check(&path, 1));
    }
}
