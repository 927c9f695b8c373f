//! Reading the files a user names, with a bound: a config, a task or a JSON
//! document larger than its limit is refused after reading at most one byte
//! more than the limit, so `/dev/zero`, a FIFO fed forever or a sparse
//! file of terabytes given as an input costs seconds and a few MiB, never
//! all the memory of the machine.
//!
//! The limits (docs/cli.md, "Input limits"):
//!
//! - [`CONFIG_BYTES`], 4 MiB: `checks.toml`, a `--task` file, and the
//!   project files `init` and `hooks` look into;
//! - [`JSON_BYTES`], 64 MiB: evidence (`merge`, `retry --record`, `judge`,
//!   a gate's output read by `candidates`), judge input and `--history`,
//!   vote input, retry state, `candidates`' `index.json`, from a file, a
//!   pipe or stdin;
//! - [`ROUNDS`], 1 MiB: `candidates`' round counter.
//!
//! A refused input is an ordinary read error (`io::ErrorKind::InvalidData`)
//! whose message names the limit; callers wrap it as they wrap any read
//! error, naming the file: `failed to read task file `/dev/zero`: larger than
//! 4 MiB, the limit for a task file`.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::error::Error;

const MIB: u64 = 1024 * 1024;

/// The largest config (`checks.toml`), task file or project file read.
pub(crate) const CONFIG_BYTES: u64 = 4 * MIB;

/// The largest JSON document read (evidence, judge and vote input, history,
/// retry state).
pub(crate) const JSON_BYTES: u64 = 64 * MIB;

/// What is read, for the refusal message: `a config file`, `a task file`,
/// `a JSON input`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limit {
    /// The most bytes accepted.
    pub(crate) bytes: u64,
    /// What the limit is for, e.g. `a task file`.
    pub(crate) what: &'static str,
}

pub(crate) const CONFIG: Limit = Limit {
    bytes: CONFIG_BYTES,
    what: "a config file",
};

pub(crate) const TASK: Limit = Limit {
    bytes: CONFIG_BYTES,
    what: "a task file",
};

/// The limit of a project file `init` or `hooks` reads.
pub(crate) const PROJECT_FILE: Limit = Limit {
    bytes: CONFIG_BYTES,
    what: "a project file",
};

/// The limit of `candidates`' round counter (`DIR/<task_id>/rounds`, a
/// number): what a past run left in `--runs` is read with a bound too.
pub(crate) const ROUNDS: Limit = Limit {
    bytes: MIB,
    what: "a round counter",
};

/// The limit of a JSON input (evidence, judge, vote or retry input).
pub(crate) const JSON: Limit = Limit {
    bytes: JSON_BYTES,
    what: "a JSON input",
};

/// The limit of a Markdown log `candidates summary` reads (a root
/// `PROGRESS.md`, a candidate's own log).
pub(crate) const LOG: Limit = Limit {
    bytes: 16 * MIB,
    what: "a log file",
};

/// The limit of an agent session's state (`state.json`): a few hundred
/// bytes when the hook wrote it.
pub(crate) const SESSION: Limit = Limit {
    bytes: MIB,
    what: "an agent session's state",
};

impl Limit {
    /// The refusal: `larger than 4 MiB, the limit for a task file`.
    fn exceeded(self) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {}, the limit for {}",
                size(self.bytes),
                self.what
            ),
        )
    }
}

/// `4 MiB` (whole MiB), else bytes.
fn size(bytes: u64) -> String {
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Reads the file at `path` whole, refusing one larger than `limit`: a
/// regular file by its size, before reading; anything else (a device, a
/// FIFO, a file that grows) after at most `limit + 1` bytes.
pub(crate) fn read(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let known = file
        .metadata()
        .ok()
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len());
    if known.is_some_and(|len| len > limit.bytes) {
        return Err(limit.exceeded());
    }
    read_from(file, known, limit)
}

/// [`read`] of a file that must be a regular file: a symlink, FIFO,
/// socket or device at `path` is refused without being opened (opening a
/// FIFO blocks until a writer comes; a link to `/dev/zero` reads forever).
/// The file is opened without following a link and without blocking, and
/// checked again on the open descriptor, so nothing swapped in between
/// the look and the open is read either. For the files run-check wrote
/// itself in a place the code under test can reach (an agent session's
/// folder under the git directory).
pub(crate) fn read_regular(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let not_regular = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file (a link, FIFO, socket or device): not opened",
        )
    };
    if !std::fs::symlink_metadata(path)?.file_type().is_file() {
        return Err(not_regular());
    }
    let file = open_regular(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > limit.bytes {
        return Err(limit.exceeded());
    }
    read_from(file, Some(meta.len()), limit)
}

#[cfg(unix)]
fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_regular(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Reads `reader` to its end (stdin, an open file), refusing more than
/// `limit` bytes after reading at most `limit + 1`. `hint`: the expected
/// length, to allocate once.
pub(crate) fn read_from(reader: impl Read, hint: Option<u64>, limit: Limit) -> io::Result<Vec<u8>> {
    // The hint is capped: a file's size can lie (a file that shrinks, a
    // proc file reporting 0), and the buffer grows as needed anyway.
    let capacity = hint.unwrap_or(0).min(limit.bytes) as usize;
    let mut bytes = Vec::with_capacity(capacity.saturating_add(1));
    reader.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(limit.exceeded());
    }
    Ok(bytes)
}

/// Reads the JSON input `path` names, `-` being stdin, within [`JSON`];
/// returns it with the name messages give it (`<stdin>` for `-`). A read
/// error says `failed to {action} `NAME``.
pub(crate) fn read_input(path: &Path, action: &'static str) -> Result<(PathBuf, Vec<u8>), Error> {
    let (name, bytes) = if path.as_os_str() == "-" {
        let stdin = read_from(io::stdin().lock(), None, JSON);
        (PathBuf::from("<stdin>"), stdin)
    } else {
        (path.to_path_buf(), read(path, JSON))
    };
    match bytes {
        Ok(bytes) => Ok((name, bytes)),
        Err(err) => Err(Error::io(action, &name, err)),
    }
}

/// [`read`] as text, for files read optionally (`init`'s project files):
/// `None` when missing, unreadable, too large or not UTF-8.
pub(crate) fn read_text(path: &Path, limit: Limit) -> Option<String> {
    read(path, limit)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limit = Limit {
        bytes: 10,
        what: "a test file",
    };

    #[test]
    fn at_the_limit_and_one_byte_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read(&path, SMALL).unwrap(), b"0123456789");
        std::fs::write(&path, b"0123456789x").unwrap();
        let err = read(&path, SMALL).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "larger than 10 bytes, the limit for a test file"
        );
    }

    #[test]
    fn a_stream_is_read_no_further_than_the_limit() {
        // An endless reader: only limit + 1 bytes are taken from it.
        let endless = io::repeat(0);
        let err = read_from(endless, None, JSON).unwrap_err();
        assert_eq!(
            err.to_string(),
            "larger than 64 MiB, the limit for a JSON input"
        );
        assert_eq!(read_from(&b"{}"[..], Some(2), SMALL).unwrap(), b"{}");
    }

    #[test]
    fn a_sparse_file_is_refused_by_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        let file = File::create(&path).unwrap();
        file.set_len(1 << 40).unwrap();
        let err = read(&path, CONFIG).unwrap_err();
        assert_eq!(
            err.to_string(),
            "larger than 4 MiB, the limit for a config file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn dev_zero_is_refused() {
        let err = read(Path::new("/dev/zero"), TASK).unwrap_err();
        assert_eq!(
            err.to_string(),
            "larger than 4 MiB, the limit for a task file"
        );
    }
}
