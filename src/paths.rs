//! Path text without the file system: what the config's author or a tool's
//! message means by a path, before any symlink is followed.

use std::path::{Component, Path, PathBuf};

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
