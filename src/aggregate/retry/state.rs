//! The retry state file (defined in the `run-check-documents` crate, with
//! its derived schema): reading it, and the locked read-modify-write that
//! keeps concurrent `record` calls from losing an update. A state file that
//! cannot be read as exactly its shape is an error and is never rewritten.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::Error;

pub(crate) use run_check_documents::retry::{
    Attempt, Decision, EvidenceSummary, Outcome, Phase, Point, PointStatus, State, check_name,
};

/// Reads the state at `path`: a missing file is an empty state; anything
/// that is not exactly a state document is an error naming the file and the
/// JSON path.
pub(crate) fn load(path: &Path) -> Result<State, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::JSON) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
        Err(err) => return Err(Error::io("read retry state", path, err)),
    };
    let state: State = crate::json_input::typed(path, &bytes)?;
    state
        .check()
        .map_err(|problem| crate::json_input::from_problem(path, problem))?;
    Ok(state)
}

// ---- writing ----

/// The sidecar lock file of a state file: `STATE.lock` beside it.
pub(crate) fn lock_path(state: &Path) -> PathBuf {
    let mut name = state.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    state.with_file_name(name)
}

/// An exclusive lock on a state file, held until dropped.
#[derive(Debug)]
pub(crate) struct Lock {
    file: File,
}

impl Lock {
    /// Blocks until this process holds the exclusive lock of `state`
    /// (creating the sidecar lock file when needed).
    pub(crate) fn acquire(state: &Path) -> Result<Lock, Error> {
        let path = lock_path(state);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|err| Error::io("open lock file", &path, err))?;
        file.lock().map_err(|err| Error::io("lock", &path, err))?;
        Ok(Lock { file })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Closing the handle releases the lock too; unlocking first makes the
        // release explicit and immediate.
        let _ = self.file.unlock();
    }
}

/// Replaces the state file atomically. The caller holds the [`Lock`].
pub(crate) fn store(path: &Path, state: &mut State) -> Result<(), Error> {
    crate::output::replace(path, &state.to_bytes())
}
