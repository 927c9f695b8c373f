//! Files under the git directory are opened only when they are regular
//! files (docs/read-only.md).
//!
//! The code under test can put a FIFO where a hook, `config.worktree`, a
//! ref or `packed-refs` belongs. Opening a FIFO for reading blocks until a
//! writer opens it, and a thread blocked in `open` does not see a SIGTERM:
//! the gate would hang until SIGKILL, with no evidence. A device can do
//! worse on open (a tape rewinds, a terminal becomes the controlling one).
//! So each file is looked at first (`stat`, following a symlink as `open`
//! would), opened only when it is a regular file, and opened with
//! `O_NONBLOCK` (a FIFO swapped in between the look and the open does not
//! block) and checked again on the open descriptor.
//!
//! git reads the same files, and has no such care (`open` then `fstat`),
//! so no git process of run-check starts while one of the files git reads
//! is not a regular file: [`hazard`] names it.

use std::io::Read;
use std::path::{Path, PathBuf};

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing (or nothing that can be looked at).
    Absent,
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// Something that is not a regular file: its kind (`fifo`, `socket`,
    /// `device`, `directory`), never opened.
    Other(&'static str),
}

impl Found {
    /// The bytes of a regular file, `None` otherwise.
    pub(crate) fn bytes(self) -> Option<Vec<u8>> {
        match self {
            Found::File(bytes) => Some(bytes),
            _ => None,
        }
    }
}

/// What is at `path` (a symlink followed), a regular file read whole.
pub(crate) fn read(path: &Path) -> Found {
    let Ok(meta) = std::fs::metadata(path) else {
        return Found::Absent;
    };
    if let Some(kind) = not_regular(&meta) {
        return Found::Other(kind);
    }
    let Ok(mut file) = open(path) else {
        return Found::Absent;
    };
    match file.metadata().map(|meta| not_regular(&meta)) {
        Ok(None) => {}
        Ok(Some(kind)) => return Found::Other(kind),
        Err(_) => return Found::Absent,
    }
    let mut bytes = Vec::new();
    match file.read_to_end(&mut bytes) {
        Ok(_) => Found::File(bytes),
        Err(_) => Found::Absent,
    }
}

/// The kind of what `meta` describes when it is not a regular file.
pub(crate) fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("directory");
    }
    if kind.is_symlink() {
        return Some("symlink");
    }
    Some(special_kind(&kind))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "fifo"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_kind: &std::fs::FileType) -> &'static str {
    "special file"
}

/// Opens a regular file for reading without blocking on a FIFO and
/// without taking a terminal as the controlling one.
#[cfg(unix)]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// The first of `paths` that is there and is neither a regular file nor a
/// directory (a symlink followed), with its kind: git would block on it,
/// or open a device.
pub(crate) fn hazard<'p>(
    paths: impl IntoIterator<Item = &'p PathBuf>,
) -> Option<(&'p Path, &'static str)> {
    paths.into_iter().find_map(|path| {
        let meta = std::fs::metadata(path).ok()?;
        match not_regular(&meta) {
            None | Some("directory") => None,
            Some(kind) => Some((path.as_path(), kind)),
        }
    })
}

/// The files git opens, when they are there, to answer run-check's
/// questions (`git status`, `diff`, `hash-object`, ...), found with
/// `strace` on git 2.47: its discovery (`HEAD`, `commondir`, the `.git`
/// file), the config files, the index, the ignore and attribute files,
/// `HEAD`'s ref and `packed-refs` (the other loose refs are found by the
/// git state's walk: `hazards`), and the object store's lists. A FIFO
/// elsewhere among the objects is beyond this list: then only a stop
/// (SIGTERM) ends the git that waits on it.
pub(super) fn read_by_git(dirs: &super::GitDirs, toplevel: &Path) -> Vec<PathBuf> {
    let git = &dirs.git_dir;
    let common = &dirs.common_dir;
    let mut paths = vec![toplevel.join(".git"), git.join("HEAD"), dirs.index.clone()];
    for name in [
        "commondir",
        "config.worktree",
        "MERGE_HEAD",
        "CHERRY_PICK_HEAD",
    ] {
        paths.push(git.join(name));
    }
    for name in [
        "config",
        "packed-refs",
        "shallow",
        "info/exclude",
        "info/attributes",
        "info/grafts",
        "info/sparse-checkout",
        "objects/info/alternates",
        "objects/info/commit-graph",
        "objects/info/commit-graphs/commit-graph-chain",
        "objects/pack/multi-pack-index",
    ] {
        paths.push(common.join(name));
    }
    paths.extend(dirs.config_files.iter().cloned());
    paths.extend(dirs.excludes_file.iter().cloned());
    paths.extend(dirs.attributes_file.iter().cloned());
    // The ref `HEAD` names (a symbolic ref: `ref: refs/heads/main`).
    if let Some(head) = read(&git.join("HEAD")).bytes()
        && let Some(name) = head.strip_prefix(b"ref: ")
    {
        let name = super::path_from_bytes(name.trim_ascii());
        paths.push(common.join(&name));
        paths.push(git.join(&name));
    }
    paths
}

/// Before the repository is known: the files git's discovery opens from
/// `dir` up (the first `.git` found, the `HEAD`, `config` and `commondir`
/// of the git directory it is or names, the common directory's `config`)
/// and the global and system config files. The first that is neither a
/// regular file nor a directory, with its kind.
pub(super) fn discovery_hazard(dir: &Path) -> Option<(PathBuf, &'static str)> {
    let mut paths: Vec<PathBuf> = super::config_files();
    if let Some((dot_git, meta)) = dir.ancestors().find_map(|up| {
        let dot_git = up.join(".git");
        std::fs::symlink_metadata(&dot_git)
            .ok()
            .map(|meta| (dot_git, meta))
    }) {
        let git_dir = if meta.is_dir() {
            Some(dot_git.clone())
        } else {
            read(&dot_git).bytes().and_then(|text| {
                let named = text.strip_prefix(b"gitdir:")?.trim_ascii();
                Some(dot_git.parent()?.join(super::path_from_bytes(named)))
            })
        };
        paths.push(dot_git);
        if let Some(git_dir) = git_dir {
            for name in ["HEAD", "config", "commondir", "config.worktree"] {
                paths.push(git_dir.join(name));
            }
            if let Some(common) = read(&git_dir.join("commondir")).bytes() {
                let common = git_dir.join(super::path_from_bytes(common.trim_ascii()));
                paths.push(common.join("config"));
            }
        }
    }
    hazard(&paths).map(|(path, kind)| (path.to_path_buf(), kind))
}

// Linux only: rustix has no `mknodat` for macOS.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_named_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            c.as_c_str(),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        // A blocking open would never return: no writer.
        assert_eq!(read(&fifo), Found::Other("fifo"));
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert_eq!(read(&link), Found::Other("fifo"));
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(read(&file), Found::File(b"x".to_vec()));
        assert_eq!(read(&dir.path().join("none")), Found::Absent);
        assert_eq!(read(dir.path()), Found::Other("directory"));
        let paths = [file, dir.path().to_path_buf(), link];
        assert_eq!(
            hazard(&paths).map(|(p, kind)| (p.to_path_buf(), kind)),
            Some((paths[2].clone(), "fifo"))
        );
    }
}
