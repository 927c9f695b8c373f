//! Where the local store lives by default: the platform's cache folder.
//! One function per platform behind `cfg`, so each is the folder that
//! platform's own tools use.

use std::path::{Path, PathBuf};

/// The store's folder: `[cache] dir` (`~/` expanded) when given, else the
/// platform cache folder's `run-check`. `None` when neither can be named
/// (no home folder).
pub(crate) fn store_dir(configured: Option<&str>) -> Option<PathBuf> {
    match configured {
        Some(dir) => match dir.strip_prefix("~/") {
            Some(rest) => home().map(|home| home.join(rest)),
            None => Some(PathBuf::from(dir)),
        },
        None => platform_dir(),
    }
}

/// Where `dir` really is: every symlink in it resolved, in the folder
/// itself and in each parent (a store folder, or a parent of one not yet
/// created, that links into the worktree is inside the worktree). The
/// deepest part that exists is resolved by the file system (a `..` after
/// a link goes where the file system goes, not where the text reads);
/// the rest, not yet created, is read lexically onto it. `dir` is
/// absolute.
pub(crate) fn real(dir: &Path) -> PathBuf {
    let mut path = dir.to_path_buf();
    // A link whose target does not exist yet is followed by its text (a
    // store created through it would be created there); as the kernel
    // does, at most 40 of them.
    for _ in 0..40 {
        let mut existing = path.as_path();
        let mut rest = Vec::new();
        let dangling = loop {
            if let Ok(real) = dunce::canonicalize(existing) {
                let mut out = real;
                out.extend(rest.iter().rev());
                return crate::paths::lexical(&out);
            }
            if let Ok(target) = std::fs::read_link(existing) {
                break existing.parent().map(|parent| (parent.join(target), rest));
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => break None,
            }
        };
        let Some((target, rest)) = dangling else {
            break;
        };
        path = target;
        path.extend(rest.iter().rev());
    }
    crate::paths::lexical(dir)
}

/// Whether the store folder `dir` lies inside `worktree` (canonical), its
/// links resolved.
pub(crate) fn inside(dir: &Path, worktree: &Path) -> bool {
    real(dir).starts_with(worktree)
}

/// `$HOME` (`%USERPROFILE%` on Windows), when it is absolute.
fn home() -> Option<PathBuf> {
    let name = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    absolute(name)
}

/// An environment variable holding an absolute path (the XDG rule: a
/// relative value is ignored).
fn absolute(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

/// Linux and the other Unixes: `$XDG_CACHE_HOME/run-check`, else
/// `~/.cache/run-check` (the XDG Base Directory rule).
#[cfg(all(unix, not(target_os = "macos")))]
fn platform_dir() -> Option<PathBuf> {
    absolute("XDG_CACHE_HOME")
        .or_else(|| home().map(|home| home.join(".cache")))
        .map(|dir| dir.join("run-check"))
}

/// macOS: `~/Library/Caches/run-check` (`XDG_CACHE_HOME` when set, as
/// many command-line tools honour it there too).
#[cfg(target_os = "macos")]
fn platform_dir() -> Option<PathBuf> {
    absolute("XDG_CACHE_HOME")
        .or_else(|| home().map(|home| home.join("Library").join("Caches")))
        .map(|dir| dir.join("run-check"))
}

/// Windows: `%LOCALAPPDATA%\run-check\cache` (the machine-local, not
/// roaming, application data).
#[cfg(windows)]
fn platform_dir() -> Option<PathBuf> {
    absolute("LOCALAPPDATA").map(|dir| dir.join("run-check").join("cache"))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_in_the_folder_and_its_parents_are_resolved() {
        let top = tempfile::tempdir().unwrap();
        let top = dunce::canonicalize(top.path()).unwrap();
        let worktree = top.join("wt");
        std::fs::create_dir_all(worktree.join(".stash")).unwrap();
        std::fs::create_dir(top.join("out")).unwrap();
        // The folder itself a link, a parent a link, and not yet created.
        std::os::unix::fs::symlink(worktree.join(".stash"), top.join("out/store")).unwrap();
        std::os::unix::fs::symlink(&worktree, top.join("out/parent")).unwrap();
        assert!(inside(&top.join("out/store"), &worktree));
        assert!(inside(&top.join("out/parent/new/deeper"), &worktree));
        // Lexically `out/wt/x`; the file system goes through the link.
        assert!(inside(&top.join("out/parent/../wt/x"), &worktree));
        assert!(!inside(&top.join("out/elsewhere/x"), &worktree));
        assert_eq!(real(&top.join("out/store/v1")), worktree.join(".stash/v1"));
        // A link to a folder not yet there.
        std::os::unix::fs::symlink(worktree.join("later"), top.join("out/dangling")).unwrap();
        assert!(inside(&top.join("out/dangling/v1"), &worktree));
    }
}
