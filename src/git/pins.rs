//! The git settings that decide whether a file counts as modified, pinned
//! for every git process of run-check (docs/read-only.md lists them and
//! why each could hide a change).
//!
//! The repository under test can write its own `.git/config` (a check that
//! does fails that run on `.git/config`, but the setting stays for every
//! later run), and `core.trustctime=false` alone makes git trust a file
//! whose size and mtime are unchanged after an in-place write. So, as git's
//! `safe.directory` and protected configuration are read only from the
//! config levels the repository cannot write, and as Bazel's sandbox
//! decides what an action sees from outside the action, these settings are
//! given on git's command line (`-c`, which outranks every config file and
//! `includeIf`): a repository cannot redefine "unchanged".
//!
//! Three of git's defaults are decided per file system when `git init` or
//! `git clone` probes it (`core.fileMode`, `core.symlinks`,
//! `core.ignoreCase`). The pin is the value that probe gives where the
//! gate runs: [`PLATFORM`] for the first two, [`folds_case`] for the third
//! (asked of the worktree's own file system, read-only).
//!
//! run-check's own comparisons (`run/snapshot/stat.rs`, the index's stat
//! cache in `run/snapshot/git_state.rs`) never read a git setting: they
//! compare every stat field they have.

use std::path::Path;

/// What a pinned setting may be set to and still mean its pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Means {
    /// A boolean (git's spellings: `true`, `yes`, `on`, `1`, no value).
    Bool(bool),
    /// A word, compared without case (`core.checkStat=default`).
    Word(&'static str),
    /// `false`, or the word given (`core.untrackedCache=keep`).
    FalseOr(&'static str),
}

/// One pinned setting: its key (as `git config` prints it: section and
/// name in lower case) and the values that mean its pin (the value given
/// to git is in [`ARGS`]).
#[derive(Debug, Clone, Copy)]
struct Pin {
    key: &'static str,
    means: Means,
}

const fn pin(key: &'static str, means: Means) -> Pin {
    Pin { key, means }
}

/// The settings pinned the same everywhere.
///
/// - `core.checkStat=default`: `minimal` compares only the whole seconds
///   of the mtime (and ctime) and the size, so a same-size rewrite within
///   the second, or one that sets the mtime back, is "unchanged";
/// - `core.trustctime=true`: `false` ignores the change time, the one
///   field a check cannot set back, so an in-place write that restores
///   the mtime is "unchanged";
/// - `core.ignoreStat=false`: `true` makes git mark what it writes
///   assume-unchanged, and then not look at those files again;
/// - `core.fsmonitor=false`: a monitor (a program, or git's daemon) would
///   answer which files changed;
/// - `core.untrackedCache=false`: the cache is a list of untracked files
///   stored in the index, which a check can rewrite;
/// - `core.splitIndex=false`, `index.skipHash=false`: how an index is
///   written (run-check's git never writes one; run-check reads a split
///   index through `git ls-files`), pinned so that no later change of git
///   makes them matter;
/// - `diff.ignoreSubmodules=none`: `all` or `dirty` hides a submodule's
///   changes from `git status` and `git diff` (the status also gets
///   `--ignore-submodules=none`, which outranks `.gitmodules`).
const COMMON: [Pin; 8] = [
    pin("core.checkstat", Means::Word("default")),
    pin("core.trustctime", Means::Bool(true)),
    pin("core.ignorestat", Means::Bool(false)),
    pin("core.fsmonitor", Means::Bool(false)),
    pin("core.untrackedcache", Means::FalseOr("keep")),
    pin("core.splitindex", Means::Bool(false)),
    pin("index.skiphash", Means::Bool(false)),
    pin("diff.ignoresubmodules", Means::Word("none")),
];

/// `core.fileMode` and `core.symlinks` as `git init` sets them on the
/// platform's file systems. Unix: `true` (an ext4, APFS or xfs file keeps
/// its executable bit and can be a symlink; `false` would make a `chmod
/// +x`, or a symlink replaced by a file holding its target, "unchanged").
/// Windows: `false`, Git for Windows' own: NTFS has no executable bit, and
/// symlinks are checked out as files holding their target unless the
/// user may create them; `true` would list every such file as changed.
#[cfg(unix)]
const PLATFORM: [Pin; 2] = [
    pin("core.filemode", Means::Bool(true)),
    pin("core.symlinks", Means::Bool(true)),
];
#[cfg(not(unix))]
const PLATFORM: [Pin; 2] = [
    pin("core.filemode", Means::Bool(false)),
    pin("core.symlinks", Means::Bool(false)),
];

/// The `-c` arguments of the pins every git process gets
/// (`core.ignoreCase` aside, which depends on the worktree).
pub(super) const ARGS: [&str; 20] = [
    "-c",
    "core.checkStat=default",
    "-c",
    "core.trustctime=true",
    "-c",
    "core.ignoreStat=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.splitIndex=false",
    "-c",
    "index.skipHash=false",
    "-c",
    "diff.ignoreSubmodules=none",
    "-c",
    PLATFORM_ARGS[0],
    "-c",
    PLATFORM_ARGS[1],
];

#[cfg(unix)]
const PLATFORM_ARGS: [&str; 2] = ["core.fileMode=true", "core.symlinks=true"];
#[cfg(not(unix))]
const PLATFORM_ARGS: [&str; 2] = ["core.fileMode=false", "core.symlinks=false"];

/// `core.ignoreCase` as `git init` would set it for the file system of
/// `toplevel`: `true` when it finds `.git` under another case (`.GIT` is
/// the same file). On a case-sensitive system `false` is right (`true`
/// would take a new `SRC/A.py` beside `src/a.py` for the tracked file, and
/// match ignore rules without case); on a case-insensitive one `true` is
/// (there the two names are one file). Without a `.git` to ask (a
/// repository found through `GIT_DIR`), the platform's usual file system.
pub(super) fn folds_case(toplevel: &Path) -> bool {
    let lower = std::fs::symlink_metadata(toplevel.join(".git"));
    let upper = std::fs::symlink_metadata(toplevel.join(".GIT"));
    match (lower, upper) {
        (Ok(lower), Ok(upper)) => same_file(&lower, &upper),
        (Ok(_), Err(_)) => false,
        (Err(_), _) => cfg!(any(windows, target_os = "macos")),
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// No file identity in stable std: `.GIT` found beside `.git` is the same
/// entry on NTFS (a case-sensitive folder, which could hold both, is
/// opt-in per folder and rare).
#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

/// Whether `key` (any case) is a setting the verification depends on
/// (docs/THREAT_MODEL.md, the repository's git settings): one it pins,
/// `core.ignoreCase`, or one that names the
/// hooks or the files git reads for ignores and attributes. `agent guard`
/// denies a `git config` that sets one.
pub(crate) fn verified_setting(key: &str) -> bool {
    const READ: [&str; 4] = [
        "core.ignorecase",
        "core.hookspath",
        "core.excludesfile",
        "core.attributesfile",
    ];
    let key = key.to_ascii_lowercase();
    READ.contains(&key.as_str()) || COMMON.iter().chain(&PLATFORM).any(|pin| pin.key == key)
}

/// The `-c` argument of `core.ignoreCase` for `folds`.
pub(super) fn ignore_case_arg(folds: bool) -> &'static str {
    if folds {
        "core.ignoreCase=true"
    } else {
        "core.ignoreCase=false"
    }
}

/// Whether `value` (as `git config -z` printed it: `None` for a key
/// written without `=`) of the pinned `key` means something other than
/// its pin (`folds`: the pin of `core.ignoreCase`). Keys not pinned: no.
pub(super) fn relaxes(key: &str, value: Option<&[u8]>, folds: bool) -> bool {
    let means = if key == "core.ignorecase" {
        Means::Bool(folds)
    } else {
        match COMMON.iter().chain(&PLATFORM).find(|pin| pin.key == key) {
            Some(pin) => pin.means,
            None => return false,
        }
    };
    let text = value.map(|v| String::from_utf8_lossy(v).trim().to_ascii_lowercase());
    let flag = match text.as_deref() {
        None => Some(true),
        Some("true" | "yes" | "on" | "1") => Some(true),
        Some("false" | "no" | "off" | "0" | "") => Some(false),
        Some(_) => None,
    };
    match means {
        Means::Bool(pinned) => flag != Some(pinned),
        Means::Word(word) => text.as_deref() != Some(word),
        Means::FalseOr(word) => flag != Some(false) && text.as_deref() != Some(word),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arguments_are_the_pins() {
        let given: Vec<(String, &str)> = ARGS
            .iter()
            .skip(1)
            .step_by(2)
            .filter_map(|arg| arg.split_once('='))
            .map(|(key, value)| (key.to_ascii_lowercase(), value))
            .collect();
        let keys: Vec<&str> = COMMON.iter().chain(&PLATFORM).map(|p| p.key).collect();
        let given_keys: Vec<&str> = given.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(given_keys, keys);
        let asked = regex::Regex::new(super::super::guard::KEYS).unwrap();
        for (key, value) in &given {
            assert!(!relaxes(key, Some(value.as_bytes()), false), "{key}");
            assert!(asked.is_match(key), "{key}");
        }
        assert!(asked.is_match("core.ignorecase"));
    }

    #[test]
    fn values_that_mean_the_pin_are_no_change() {
        assert!(!relaxes("core.trustctime", None, false));
        assert!(!relaxes("core.trustctime", Some(b"Yes"), false));
        assert!(relaxes("core.trustctime", Some(b"off"), false));
        assert!(relaxes("core.trustctime", Some(b"maybe"), false));
        assert!(!relaxes("core.checkstat", Some(b"Default"), false));
        assert!(relaxes("core.checkstat", Some(b"minimal"), false));
        assert!(!relaxes("core.untrackedcache", Some(b"keep"), false));
        assert!(!relaxes("core.untrackedcache", Some(b"no"), false));
        assert!(relaxes("core.untrackedcache", Some(b"true"), false));
        assert!(relaxes("core.ignorecase", Some(b"true"), false));
        assert!(!relaxes("core.ignorecase", Some(b"true"), true));
        assert!(!relaxes("core.bare", Some(b"true"), false));
    }

    #[test]
    fn a_folder_is_asked_whether_it_folds_case() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let upper = std::fs::symlink_metadata(dir.path().join(".GIT"));
        assert_eq!(folds_case(dir.path()), upper.is_ok());
    }
}
