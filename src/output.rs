//! Where a report goes: stdout, or a file the user named, written atomically
//! (a temporary file in the same directory, renamed over the target). The
//! temporary file is created before any check runs, so an unwritable
//! destination is an ERROR that costs nothing; on any error it is removed and
//! no partial file is left.

use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::Error;

/// An opened report destination.
#[derive(Debug)]
pub enum Output {
    /// Standard output.
    Stdout,
    /// A file, via a temporary sibling.
    File {
        /// The temporary file.
        temp: NamedTempFile,
        /// The final path.
        path: PathBuf,
    },
}

impl Output {
    /// Opens `path` (or stdout). Fails when the directory does not exist or is
    /// not writable, or when `path` is a directory.
    pub fn open(path: Option<&Path>) -> Result<Output, Error> {
        let Some(path) = path else {
            return Ok(Output::Stdout);
        };
        if path.is_dir() {
            return Err(Error::Usage(format!(
                "--out `{}` is a directory; name a file",
                path.display()
            )));
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(Error::Usage(format!(
                "--out `{}`: directory `{}` does not exist",
                path.display(),
                dir.display()
            )));
        }
        // tempfile's own message names the random temporary path; name the
        // user's path instead, with the OS reason.
        let temp = tempfile::Builder::new()
            .prefix(".run-check-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|err| Error::io("create", path, std::io::Error::from(err.kind())))?;
        Ok(Output::File {
            temp,
            path: path.to_path_buf(),
        })
    }

    /// The temporary file, while the report is not yet written.
    pub fn temp_path(&self) -> Option<&Path> {
        match self {
            Output::Stdout => None,
            Output::File { temp, .. } => Some(temp.path()),
        }
    }

    /// Whether the report goes to stdout.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout)
    }

    /// Writes the whole report and commits it. A closed stdout (a pipe to
    /// `head`) is not an error.
    pub fn write(self, bytes: &[u8]) -> Result<(), Error> {
        match self {
            Output::Stdout => {
                let mut stdout = std::io::stdout().lock();
                match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
                    Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                        Err(Error::io("write", Path::new("<stdout>"), err))
                    }
                    _ => Ok(()),
                }
            }
            Output::File { mut temp, path } => {
                temp.write_all(bytes)
                    .and_then(|()| temp.as_file().sync_all())
                    .map_err(|err| Error::io("write", &path, err))?;
                set_readable(temp.as_file());
                temp.persist(&path)
                    .map_err(|err| Error::io("replace", &path, err.error))?;
                Ok(())
            }
        }
    }
}

/// Temporary files are created 0600; a report is an ordinary file (0644).
#[cfg(unix)]
fn set_readable(file: &std::fs::File) {
    use std::os::unix::fs::PermissionsExt;
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_readable(_file: &std::fs::File) {}

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
