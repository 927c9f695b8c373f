//! Where run-check's output goes: stdout, or a file.
//!
//! Every file run-check writes (`--out`, `init`'s `checks.toml`, `hooks
//! install`, the retry state) is written by [`Atomic`], through [`replace`]
//! or [`create_new`] (or [`Output`] for a report): a temporary file in
//! the same directory, flushed to disk, renamed over the target, so a reader
//! sees the old file or the new one, never part of one; on any error, or
//! when dropped, the temporary file is removed. A new file gets `0666`
//! (`0777` for a hook) minus the umask and an existing file keeps its mode.
//!
//! For `--out`, a symlink is followed first, so the link stays and its
//! target is replaced. Anything else that exists (a device such as
//! `/dev/null`, a FIFO, a `/dev/fd/N` from `>(...)`) is opened and written
//! in place: renaming over it would replace a device node, and a FIFO's
//! reader would never see the report. The destination is opened before any
//! check runs, so an unwritable one is an ERROR that costs nothing.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::Error;

/// An opened report destination.
#[derive(Debug)]
pub(crate) enum Output {
    Stdout,
    File(Atomic),
    /// Something that is not a regular file (a device, a FIFO, a descriptor
    /// under `/dev/fd`), written in place.
    Direct {
        file: File,
        path: PathBuf,
    },
}

impl Output {
    /// Opens `path` (or stdout). Fails when the directory does not exist or is
    /// not writable, or when `path` is a directory.
    pub(crate) fn open(path: Option<&Path>) -> Result<Output, Error> {
        let Some(path) = path else {
            return Ok(Output::Stdout);
        };
        if path.is_dir() {
            return Err(Error::Usage(format!(
                "--out `{}` is a directory; name a file",
                path.display()
            )));
        }
        let opened = match target_of(path).map_err(|err| Error::io("resolve", path, err))? {
            // A FIFO blocks here until its reader opens it, as a shell
            // redirection would; a device is never truncated or replaced.
            Target::Open => std::fs::OpenOptions::new().write(true).open(path),
            Target::Descriptor(fd) => duplicate(fd),
            Target::Replace(target) => {
                let dir = parent(&target);
                if !dir.is_dir() {
                    return Err(Error::Usage(format!(
                        "--out `{}`: directory `{}` does not exist",
                        path.display(),
                        dir.display()
                    )));
                }
                return Atomic::create(&target, path, FileKind::Regular).map(Output::File);
            }
        };
        let file = opened.map_err(|err| Error::io("open", path, err))?;
        let path = path.to_path_buf();
        Ok(Output::Direct { file, path })
    }

    /// The temporary file, while the report is not yet written (none when
    /// the destination is written in place).
    pub(crate) fn temp_path(&self) -> Option<&Path> {
        match self {
            Output::Stdout | Output::Direct { .. } => None,
            Output::File(file) => Some(file.temp.path()),
        }
    }

    pub(crate) fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout)
    }

    /// Writes the whole report and commits it. A closed stdout (a pipe to
    /// `head`), or a FIFO whose reader went away, is not an error.
    pub(crate) fn write(self, bytes: &[u8]) -> Result<(), Error> {
        let (mut out, path): (Box<dyn Write>, PathBuf) = match self {
            Output::Stdout => (Box::new(std::io::stdout().lock()), "<stdout>".into()),
            Output::Direct { file, path } => (Box::new(file), path),
            Output::File(file) => return file.commit(bytes, true),
        };
        match out.write_all(bytes).and_then(|()| out.flush()) {
            Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(Error::io("write", &path, err))
            }
            _ => Ok(()),
        }
    }
}

/// `1 check`, `2 checks`, `0 fixes`: a count and its noun, as every message
/// writes it (a noun ending in `x` takes `es`).
pub(crate) fn plural<N: Copy + std::fmt::Display + PartialEq + From<u8>>(
    n: N,
    noun: &str,
) -> String {
    match (n == N::from(1), noun.ends_with('x')) {
        (true, _) => format!("1 {noun}"),
        (false, true) => format!("{n} {noun}es"),
        (false, false) => format!("{n} {noun}s"),
    }
}

/// An aligned text table: `header` then `rows`, each column as wide as its
/// widest cell plus two spaces, the last column unpadded, one line each.
pub(crate) fn table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let header = header.map(String::from);
    let mut widths = [0; N];
    for row in std::iter::once(&header).chain(rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < N {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// The directory a file is created in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Replaces `path` with `bytes` atomically (see the module documentation):
/// the one way every file but a report is rewritten.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    replace_as(path, path, FileKind::Regular, bytes)
}

/// [`replace`] of a file errors call `shown` (as the user named it), a new
/// one created as `kind`.
pub(crate) fn replace_as(
    path: &Path,
    shown: &Path,
    kind: FileKind,
    bytes: &[u8],
) -> Result<(), Error> {
    Atomic::create(path, shown, kind)?.commit(bytes, true)
}

/// [`replace`] without waiting for the disk (no `fsync`): for a note nothing
/// decides on, or one every read verifies, written on a path where the
/// wait is the cost (the guard's list of denials, on each denied tool
/// call; the result cache's entries, which a reader checks against their
/// digests). A reader still sees the old
/// file or the new one, never half of one; a crash may lose the new one.
pub(crate) fn replace_unsynced(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    Atomic::create(path, path, FileKind::Regular)?.finish(bytes, true, false)
}

/// Writes `bytes` to `path` atomically only where nothing is: an existing
/// file is an `AlreadyExists` [`Error::Io`] and stays untouched.
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    create_new_as(path, path, bytes)
}

/// [`create_new`] of a file errors call `shown` (as the user named it).
pub(crate) fn create_new_as(path: &Path, shown: &Path, bytes: &[u8]) -> Result<(), Error> {
    Atomic::create(path, shown, FileKind::Regular)?.commit(bytes, false)
}

/// A file being written atomically (see the module documentation).
#[derive(Debug)]
pub(crate) struct Atomic {
    temp: NamedTempFile,
    /// The file replaced or created.
    path: PathBuf,
    /// What errors call it (as the user named it).
    shown: PathBuf,
}

impl Atomic {
    /// Creates the temporary sibling of `path`.
    fn create(path: &Path, shown: &Path, kind: FileKind) -> Result<Atomic, Error> {
        // tempfile's own message names the random temporary path; name the
        // user's path instead, with the OS reason.
        let temp = atomic_temp(parent(path), path, kind)
            .map_err(|err| Error::io("create", shown, std::io::Error::from(err.kind())))?;
        Ok(Atomic {
            temp,
            path: path.to_path_buf(),
            shown: shown.to_path_buf(),
        })
    }

    /// Writes `bytes`, flushes them to disk and renames the file into place:
    /// over what is there when `replace`, else only where nothing is (an
    /// existing file is then an `AlreadyExists` error and stays untouched).
    fn commit(self, bytes: &[u8], replace: bool) -> Result<(), Error> {
        self.finish(bytes, replace, true)
    }

    fn finish(self, bytes: &[u8], replace: bool, sync: bool) -> Result<(), Error> {
        let Atomic {
            mut temp,
            path,
            shown,
        } = self;
        temp.write_all(bytes)
            .and_then(|()| match sync {
                true => temp.as_file().sync_all(),
                false => Ok(()),
            })
            .map_err(|err| Error::io("write", &shown, err))?;
        // The name must still be the file written: a check can see the
        // temporary name in the folder and rename a file of its own over it,
        // whose bytes the rename would then put in place of the report.
        if !still_ours(&temp) {
            return Err(Error::io(
                "replace",
                &shown,
                std::io::Error::other(
                    "its temporary file was replaced by another file during the run; nothing was written",
                ),
            ));
        }
        let renamed = if replace {
            temp.persist(&path)
        } else {
            temp.persist_noclobber(&path)
        };
        match renamed {
            Ok(_) => Ok(()),
            Err(err) if replace => Err(Error::io("replace", &shown, err.error)),
            Err(err) => Err(Error::io("create", &shown, err.error)),
        }
    }
}

/// Whether the temporary file's name still names the file it opened (the
/// same device and inode). Unix: elsewhere the open file's identity is not
/// compared.
#[cfg(unix)]
fn still_ours(temp: &NamedTempFile) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (
        temp.as_file().metadata(),
        std::fs::symlink_metadata(temp.path()),
    ) {
        (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_ours(_temp: &NamedTempFile) -> bool {
    true
}

/// How every temporary file's name starts: `.run-check-<pid>-` (then a
/// random part and `.tmp`). Read-only verification recognises another
/// run's temporary file by it and by that process holding it open.
pub(crate) const OUT_TEMP_PREFIX: &str = ".run-check-";

/// The temporary files' prefix for this process.
pub(crate) fn out_temp_prefix() -> String {
    format!("{OUT_TEMP_PREFIX}{}-", std::process::id())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A new file gets `0666` minus the umask.
    Regular,
    /// A new file gets `0777` minus the umask; an existing one keeps its mode
    /// and gains execute wherever it has read.
    Executable,
}

/// Creates the temporary sibling in `dir` that will be renamed over
/// `target`, with the mode of [`FileKind`] (an existing regular file's bits
/// copied, so replacing a 0600 file keeps it 0600). The file is created
/// narrow and only then widened, so its contents are never more readable
/// than the final file.
fn atomic_temp(dir: &Path, target: &Path, kind: FileKind) -> std::io::Result<NamedTempFile> {
    let prefix = out_temp_prefix();
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let existing = std::fs::metadata(target)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|meta| meta.permissions().mode() & 0o777);
        let mode = match (existing, kind) {
            (Some(mode), FileKind::Regular) => mode,
            (Some(mode), FileKind::Executable) => mode | ((mode & 0o444) >> 2),
            (None, FileKind::Regular) => 0o666,
            (None, FileKind::Executable) => 0o777,
        };
        // The kernel applies the umask to the creation mode, so a new file
        // gets exactly what open(2) would give it.
        builder.permissions(std::fs::Permissions::from_mode(mode));
        let temp = builder.tempfile_in(dir)?;
        if existing.is_some() {
            // The umask may have narrowed the creation mode; an existing
            // file's mode is kept exactly.
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        Ok(temp)
    }
    #[cfg(not(unix))]
    {
        let _ = (target, kind);
        builder.tempfile_in(dir)
    }
}

/// How `--out PATH` is written, decided from what is at PATH.
enum Target {
    /// Atomically, by renaming a temporary file over this path.
    Replace(PathBuf),
    /// In place, by opening PATH for writing (never truncated or replaced).
    Open,
    /// Through this process's own descriptor: PATH is `/dev/stdout`,
    /// `/dev/fd/N` or `/proc/self/fd/N` and leads to a regular file, so the
    /// report lands where the descriptor's offset is, as `>&N` would put it.
    #[cfg_attr(
        not(target_os = "linux"),
        expect(dead_code, reason = "Linux's /proc only")
    )]
    Descriptor(i32),
}

/// At most this many symlinks are followed, as the kernel's own limit.
const MAX_LINKS: usize = 40;

fn target_of(path: &Path) -> std::io::Result<Target> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Ok(Target::Open),
        Ok(_) | Err(_) => {}
    }
    // Follow the final component's links by hand: a dangling link is
    // resolved too, so the report is created where it points.
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if let Some(target) = descriptor(&current) {
            return Ok(target);
        }
        let is_link = std::fs::symlink_metadata(&current)
            .map(|meta| meta.file_type().is_symlink())
            .unwrap_or(false);
        if !is_link {
            return Ok(Target::Replace(current));
        }
        let link = std::fs::read_link(&current)?;
        current = match current.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// A descriptor path: `/proc/<pid>/fd/N` (where Linux's `/dev/stdout` and
/// `/dev/fd/N` lead) or a BSD/macOS `/dev/fd/N`. Its link text is not a path
/// that can be renamed over (a deleted file's, or another file's by now), and
/// `/dev/fd` is no directory to create a file in.
fn descriptor(path: &Path) -> Option<Target> {
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    if dir == Path::new("/dev/fd") {
        return Some(Target::Open);
    }
    if !(dir.starts_with("/proc") && dir.ends_with("fd")) {
        return None;
    }
    #[cfg(target_os = "linux")]
    {
        let own = Path::new("/proc")
            .join(std::process::id().to_string())
            .join("fd");
        let fd = path.file_name()?.to_str()?.parse::<i32>().ok();
        if let (true, Some(fd)) = (dir == own, fd) {
            return Some(Target::Descriptor(fd));
        }
    }
    Some(Target::Open)
}

/// A new handle on this process's descriptor `fd` (a `dup`), sharing its
/// file offset. `fd` is a number the user typed (`--out /proc/self/fd/9`):
/// nothing says it is open (nor that it is not -1), so it is never made a
/// `BorrowedFd`, whose contract it could break; the kernel is asked to
/// duplicate the number, and answers `EBADF` when it names nothing.
#[cfg(target_os = "linux")]
fn duplicate(fd: i32) -> std::io::Result<File> {
    use std::os::fd::FromRawFd;
    // SAFETY: `fcntl(F_DUPFD_CLOEXEC)` reads no memory of ours; any integer
    // is a valid argument (a closed or negative one fails with EBADF).
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EBADF) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("descriptor {fd} is not open in run-check"),
            ));
        }
        return Err(err);
    }
    // SAFETY: `copy` was just returned by the kernel as a new descriptor of
    // this process, owned by nothing else: the `File` takes it.
    Ok(unsafe { File::from_raw_fd(copy) })
}

#[cfg(not(target_os = "linux"))]
fn duplicate(_fd: i32) -> std::io::Result<File> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_atomically_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("ev.json");
        std::fs::write(&target, "old").unwrap();
        let out = Output::open(Some(&target)).unwrap();
        // Until committed, the old content stays.
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        out.write(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("ev.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_files_mode_is_kept_and_a_hook_gains_execute() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("hook");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let mode = |kind| {
            let temp = atomic_temp(dir.path(), &target, kind).unwrap();
            temp.as_file().metadata().unwrap().permissions().mode() & 0o7777
        };
        assert_eq!(mode(FileKind::Regular), 0o640);
        assert_eq!(mode(FileKind::Executable), 0o750);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_in_place_without_a_temp_file() {
        let out = Output::open(Some(Path::new("/dev/null"))).unwrap();
        assert!(matches!(out, Output::Direct { .. }));
        assert_eq!(out.temp_path(), None);
        out.write(b"discarded").unwrap();
    }

    /// A commit that fails (here: the file appeared meanwhile and must not
    /// be overwritten) leaves the target as it was and no temporary file,
    /// whichever writer it was.
    #[test]
    fn a_failed_commit_leaves_the_target_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("checks.toml");
        let file = Atomic::create(&target, Path::new("shown.toml"), FileKind::Regular).unwrap();
        std::fs::write(&target, "theirs").unwrap();
        let err = file.commit(b"ours", false).unwrap_err();
        assert!(
            matches!(&err, Error::Io { source, path, .. }
                if source.kind() == std::io::ErrorKind::AlreadyExists
                    && path == Path::new("shown.toml")),
            "{err:?}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Every writer's temporary file carries this process's prefix, so a
    /// concurrent run's read-only verification recognises it.
    #[test]
    fn every_temp_file_is_named_as_a_run_check_temp() {
        let dir = tempfile::tempdir().unwrap();
        let file = Atomic::create(
            &dir.path().join("state.json"),
            Path::new("s"),
            FileKind::Regular,
        )
        .unwrap();
        let name = file.temp.path().file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(&out_temp_prefix()) && name.ends_with(".tmp"),
            "{name}"
        );
    }

    #[test]
    fn dropped_output_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = Output::open(Some(&dir.path().join("ev.json"))).unwrap();
        drop(out);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = Output::open(Some(&dir.path().join("nope/ev.json"))).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "--out `{}`: directory `{}` does not exist",
                dir.path().join("nope/ev.json").display(),
                dir.path().join("nope").display()
            )
        );
    }
}
