//! run-check's own output files in the worktree: the `--out` report and the
//! regular files its stdout and stderr were redirected to
//! (`run-check 2>stderr.log`). They change while the checks run (progress
//! lines) or between runs (the previous report), and none of that is the
//! checks' doing or the change under test.
//!
//! A redirected stream is known by the identity of the open file, taken at
//! the start of the run (the device and inode on Unix), not by its name: the
//! name is not known. A stream that is a pipe or a terminal has no file to
//! protect (`2>&1 | tee gate.log` writes through `tee`, whose file does
//! count). On Windows the file index of a handle is not available through
//! std, so there only the `--out` file is recognised.

use std::path::{Path, PathBuf};

/// run-check's own files, captured once at the start of a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnFiles {
    /// The `--out` path, absolute (its directory canonical).
    out: Option<PathBuf>,
    /// The files stdout and stderr write to, when they are regular files.
    streams: Vec<imp::FileId>,
}

impl OwnFiles {
    /// The files of this process: `out` (as given, relative to the current
    /// directory) and the regular files behind stdout and stderr.
    pub(crate) fn capture(out: Option<&Path>) -> OwnFiles {
        OwnFiles {
            out: out.map(absolute),
            streams: imp::standard_streams(),
        }
    }

    /// The `--out` path, absolute.
    pub(crate) fn out(&self) -> Option<&Path> {
        self.out.as_deref()
    }

    /// Whether `path` (absolute) is the `--out` file.
    pub(crate) fn is_out(&self, path: &Path) -> bool {
        self.out.as_deref() == Some(path)
    }

    /// Whether `path` (absolute) is one of run-check's own files: the
    /// `--out` file, or the file stdout or stderr writes to (asked of the
    /// file system only when a stream goes to a file).
    pub(crate) fn contains(&self, path: &Path) -> bool {
        self.is_out(path)
            || (!self.streams.is_empty()
                && imp::id_of(path).is_some_and(|id| self.streams.contains(&id)))
    }
}

/// `path` made absolute with a canonical directory (the file itself need not
/// exist, and a symlink at `path` is not followed).
fn absolute(path: &Path) -> PathBuf {
    let name = path.file_name();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    match (name, dunce::canonicalize(dir)) {
        (Some(name), Ok(dir)) => dir.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// A file's device and inode.
    pub(super) type FileId = (u64, u64);

    /// The identities of the regular files behind fds 1 and 2.
    pub(super) fn standard_streams() -> Vec<FileId> {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        let mut ids: Vec<FileId> = [stdout.as_fd(), stderr.as_fd()]
            .into_iter()
            .filter_map(id_of_fd)
            .collect();
        ids.dedup();
        ids
    }

    /// The identity of the regular file `fd` is open on. The descriptor is
    /// duplicated so that closing the `File` leaves the stream open; a closed
    /// stream fails to duplicate.
    fn id_of_fd(fd: BorrowedFd<'_>) -> Option<FileId> {
        let file = File::from(fd.try_clone_to_owned().ok()?);
        let meta = file.metadata().ok()?;
        meta.is_file().then(|| (meta.dev(), meta.ino()))
    }

    /// The identity of the regular file at `path` (not through a symlink).
    pub(super) fn id_of(path: &Path) -> Option<FileId> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        meta.is_file().then(|| (meta.dev(), meta.ino()))
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    /// No identity is available (std keeps the Windows file index unstable).
    pub(super) type FileId = ();

    /// None: redirected streams are not recognised here.
    pub(super) fn standard_streams() -> Vec<FileId> {
        Vec::new()
    }

    /// Never called while `standard_streams` finds none.
    pub(super) fn id_of(_path: &Path) -> Option<FileId> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_out_file_is_named_by_its_absolute_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let own = OwnFiles::capture(Some(&root.join("ev.json")));
        assert!(own.is_out(&root.join("ev.json")));
        assert!(own.contains(&root.join("ev.json")));
        assert!(!own.contains(&root.join("other.json")));
        assert!(!OwnFiles::default().contains(&root.join("ev.json")));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_is_recognised_by_its_identity_under_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("log"), "").unwrap();
        std::fs::hard_link(root.join("log"), root.join("same")).unwrap();
        std::fs::write(root.join("other"), "").unwrap();
        let id = imp::id_of(&root.join("log")).unwrap();
        let own = OwnFiles {
            out: None,
            streams: vec![id],
        };
        assert!(own.contains(&root.join("log")));
        assert!(own.contains(&root.join("same")));
        assert!(!own.contains(&root.join("other")));
        assert!(!own.contains(&root.join("missing")));
        assert!(!own.contains(&root));
    }
}
