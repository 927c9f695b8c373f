//! Where the local store lives by default: the platform's cache folder.
//! One function per platform behind `cfg`, so each is the folder that
//! platform's own tools use.

use std::path::PathBuf;

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
