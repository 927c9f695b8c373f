//! Where the sessions' index and mirrors live: the platform's state
//! folder, outside every repository (the checks and the agent work in the
//! repository; a copy out of their tree is what tells a forged session
//! file from one the hook wrote). One function per platform behind `cfg`,
//! each the folder that platform's own tools use for state that is not a
//! cache (a cache may be wiped; this may not, or every session would read
//! as tampered with).

use std::path::PathBuf;

/// The folder of the agent sessions' mirrors: `<state>/run-check/agent`.
/// `None` when no state folder can be named (no home folder).
pub(super) fn mirrors() -> Option<PathBuf> {
    platform_dir().map(|dir| dir.join("agent"))
}

/// An environment variable holding an absolute path (the XDG rule: a
/// relative value is ignored).
fn absolute(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

/// `$HOME` (`%USERPROFILE%` on Windows), when it is absolute.
#[cfg(unix)]
fn home() -> Option<PathBuf> {
    absolute("HOME")
}

/// Linux and the other Unixes: `$XDG_STATE_HOME/run-check`, else
/// `~/.local/state/run-check` (the XDG Base Directory rule).
#[cfg(all(unix, not(target_os = "macos")))]
fn platform_dir() -> Option<PathBuf> {
    absolute("XDG_STATE_HOME")
        .or_else(|| home().map(|home| home.join(".local").join("state")))
        .map(|dir| dir.join("run-check"))
}

/// macOS: `~/Library/Application Support/run-check/state` (no state
/// folder of its own there; `XDG_STATE_HOME` when set, as many
/// command-line tools honour it there too).
#[cfg(target_os = "macos")]
fn platform_dir() -> Option<PathBuf> {
    match absolute("XDG_STATE_HOME") {
        Some(dir) => Some(dir.join("run-check")),
        None => home().map(|home| {
            home.join("Library")
                .join("Application Support")
                .join("run-check")
                .join("state")
        }),
    }
}

/// Windows: `%LOCALAPPDATA%\run-check\state` (machine-local, not roaming:
/// a session is one machine's); `XDG_STATE_HOME` when set.
#[cfg(windows)]
fn platform_dir() -> Option<PathBuf> {
    absolute("XDG_STATE_HOME")
        .map(|dir| dir.join("run-check"))
        .or_else(|| absolute("LOCALAPPDATA").map(|dir| dir.join("run-check").join("state")))
}
