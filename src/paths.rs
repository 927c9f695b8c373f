//! Path text without the file system: what the config's author or a tool's
//! message means by a path, before any symlink is followed; and
//! [`open_regular`], the one way to open a file some other process may have
//! swapped for a link or a FIFO; and [`worktree`], the directory
//! `--worktree` names, canonical.

use std::path::{Component, Path, PathBuf};

use crate::error::Error;

/// `path` with `.` and `..` steps resolved by reading alone (no symlink
/// followed), as the config's author reads it.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path`'s components joined by `/` (invalid UTF-8 replaced): how evidence
/// names a worktree-relative path on every platform.
pub(crate) fn to_slashes(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Opens the regular file at `path` for reading without following a
/// symlink (it is opened itself, and is no regular file) nor blocking on a
/// FIFO swapped in (`O_NONBLOCK`); `None` when it cannot be opened or is
/// not a regular file.
pub(crate) fn open_regular(path: &Path) -> Option<(std::fs::File, std::fs::Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_FLAG_OPEN_REPARSE_POINT: a symlink itself, not its target
        // (its metadata then says it is not a regular file).
        options.custom_flags(0x0020_0000);
    }
    let file = options.open(path).ok()?;
    let meta = file.metadata().ok()?;
    meta.is_file().then_some((file, meta))
}

/// The directory `--worktree` names (by default `.`), canonical: through
/// dunce, so that on Windows it is a plain `C:\x` path rather than
/// `\\?\C:\x`, which cmd.exe cannot use as a working directory.
pub(crate) fn worktree(given: Option<&Path>) -> Result<PathBuf, Error> {
    let given = given.unwrap_or(Path::new("."));
    let worktree = dunce::canonicalize(given)
        .map_err(|err| Error::Usage(format!("--worktree `{}`: {err}", given.display())))?;
    if !worktree.is_dir() {
        return Err(Error::Usage(format!(
            "--worktree `{}` is not a directory",
            given.display()
        )));
    }
    Ok(worktree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_are_resolved_by_reading() {
        assert_eq!(lexical(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(lexical(Path::new("a/../../b")), PathBuf::from("b"));
        assert_eq!(to_slashes(Path::new("a/b/c.txt")), "a/b/c.txt");
    }
}
