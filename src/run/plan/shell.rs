//! The shells and multi-call binaries `run-check` refuses to run unless
//! `settings.allow` lists them.

use super::*;

/// Programs that run a string or a file as a script: a symlink that leads
/// to one is a shell, whatever it is called. Compared by file name, ignoring
/// ASCII case and a `.exe`. busybox and toybox are shells when run by their
/// own name (`busybox sh -c ...`).
const SHELL_PROGRAMS: [&str; 24] = [
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "ksh93",
    "mksh",
    "lksh",
    "pdksh",
    "oksh",
    "ash",
    "yash",
    "rbash",
    "posh",
    "csh",
    "tcsh",
    "fish",
    "nu",
    "elvish",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
    "busybox",
];

/// Multi-call programs that act as the tool they are called as: `grep` or
/// `./bin/grep` linked to busybox runs busybox's `grep` (run-check runs a
/// link by its own name), so only one run by its own name is a shell.
const MULTI_CALL: [&str; 2] = ["busybox", "toybox"];

/// Whether the file name of `path` names a shell (`SHELL_PROGRAMS`, or
/// toybox).
pub(super) fn is_shell(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    SHELL_PROGRAMS.contains(&name) || name == "toybox"
}

pub(super) fn is_multi_call(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.to_ascii_lowercase())
        .is_some_and(|n| MULTI_CALL.contains(&n.strip_suffix(".exe").unwrap_or(&n)))
}

/// Whether `allow` lists the shell `real` itself: an entry that names a
/// shell and resolves to the same file.
pub(super) fn shell_listed(real: &Path, worktree: &Path, allow: &[String]) -> bool {
    allow.iter().any(|entry| {
        let name = entry.rsplit(['/', '\\']).next().unwrap_or(entry);
        if !is_shell(Path::new(name)) {
            return false;
        }
        let path = if entry.contains(['/', '\\']) {
            Some(listed_path(entry, worktree))
        } else {
            which::which(entry).ok()
        };
        path.and_then(|p| dunce::canonicalize(p).ok())
            .is_some_and(|p| p == real)
    })
}
