//! A check's running process, however it was started: on Linux by `clone`
//! (the `clone` module says why), elsewhere, and where that path is
//! unavailable, by the standard library's `Command`, held in a
//! `SharedChild` for its timed wait.

use std::collections::BTreeMap;
use std::io::{self, PipeWriter};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use shared_child::SharedChild;

use super::contain::{COOKIE, Containment};
use super::platform;

/// What to run.
#[derive(Debug)]
pub(crate) struct Spec<'a> {
    /// Absolute program path.
    pub(crate) program: &'a Path,
    /// Arguments after the program.
    pub(crate) args: &'a [String],
    /// Absolute working directory.
    pub(crate) cwd: &'a Path,
    /// Extra environment.
    pub(crate) env: &'a BTreeMap<String, String>,
    /// Variables the process never gets, inherited or in `env`: the
    /// cache's secrets (`CacheSettings::secrets`), which a check could print.
    pub(crate) remove: &'a [String],
    /// Timeout from start.
    pub(crate) timeout: Duration,
    /// Bytes kept from each end of each stream.
    pub(crate) excerpt_bytes: usize,
    /// Its run's containment and its index there: its processes carry the
    /// cookie, and what it leaves behind is found (Linux).
    pub(crate) contain: Option<(&'a Containment, usize)>,
    /// Processes left behind at a normal end are not killed (listed only).
    pub(crate) leave_running: bool,
}

/// A started process and the write ends of its output pipes, when
/// run-check keeps them open until it sees the exit.
#[derive(Debug)]
pub(crate) struct Started {
    /// The process.
    pub(crate) child: Child,
    /// Held only where the exit can be waited for on a descriptor
    /// (`Child::exit_fd`): until the exit, the pipes cannot reach their end,
    /// so a quiet check wakes run-check once, at its exit, not once at the
    /// end of its output and again at its exit.
    pub(crate) writers: Option<[PipeWriter; 2]>,
}

/// A started process.
#[derive(Debug)]
pub(crate) enum Child {
    /// Started by the standard library.
    Std(SharedChild),
    /// Started by `clone`, with a pidfd.
    #[cfg(target_os = "linux")]
    Clone(super::clone::Child),
}

/// Starts `start` with stdin from the null device and stdout/stderr into the
/// given pipes, in a process tree of its own (`platform::prepare`), with the
/// containment's cookie in its environment (over any inherited or
/// configured value) and none of `remove`.
pub(crate) fn spawn(
    start: &Spec<'_>,
    stdout: PipeWriter,
    stderr: PipeWriter,
) -> io::Result<Started> {
    let cookie = start
        .contain
        .map(|(containment, index)| containment.cookie(index));
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsFd;
        let cloned = super::clone::spawn(
            start.program,
            start.args,
            start.cwd,
            (start.env, start.remove),
            cookie.as_deref(),
            stdout.as_fd(),
            stderr.as_fd(),
        );
        if let Some(cloned) = cloned {
            return cloned.map(|child| Started {
                child: Child::Clone(child),
                writers: Some([stdout, stderr]),
            });
        }
    }
    let mut command = Command::new(start.program);
    command
        .args(start.args)
        .current_dir(start.cwd)
        .envs(start.env.iter().filter(|(key, _)| key.as_str() != COOKIE))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    for name in start.remove {
        command.env_remove(name);
    }
    if let Some(cookie) = &cookie {
        command.env(COOKIE, cookie);
    }
    platform::prepare(&mut command);
    let child = SharedChild::spawn(&mut command);
    // The command owns our copies of the pipe writers: drop it now, or the
    // readers never see end-of-file.
    drop(command);
    Ok(Started {
        child: Child::Std(child?),
        writers: None,
    })
}

impl Child {
    /// The process id.
    pub(crate) fn id(&self) -> u32 {
        match self {
            Child::Std(child) => child.id(),
            #[cfg(target_os = "linux")]
            Child::Clone(child) => child.id(),
        }
    }

    /// A descriptor that becomes readable at the exit, where there is one.
    #[cfg(unix)]
    pub(crate) fn exit_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        match self {
            Child::Std(_) => None,
            #[cfg(target_os = "linux")]
            Child::Clone(child) => Some(child.exit_fd()),
        }
    }

    /// The exit status, reaping the process, if it has exited.
    pub(crate) fn try_wait(&self) -> io::Result<Option<ExitStatus>> {
        match self {
            Child::Std(child) => child.try_wait(),
            #[cfg(target_os = "linux")]
            Child::Clone(child) => child.try_wait(),
        }
    }

    /// Waits for the exit.
    pub(crate) fn wait(&self) -> io::Result<ExitStatus> {
        match self {
            Child::Std(child) => child.wait(),
            #[cfg(target_os = "linux")]
            Child::Clone(child) => child.wait(),
        }
    }

    /// Waits until the process exits (its status) or `deadline` passes or a
    /// signal interrupts the wait (`None`: the caller looks again).
    pub(crate) fn wait_until(&self, deadline: Instant) -> io::Result<Option<ExitStatus>> {
        match self {
            Child::Std(child) => match platform::wait_exit(child.id(), deadline) {
                Some(true) => child.try_wait(),
                Some(false) => Ok(None),
                None => child.wait_deadline(deadline),
            },
            #[cfg(target_os = "linux")]
            Child::Clone(child) => child.wait_until(deadline),
        }
    }

    /// Kills the process itself (not its tree).
    pub(crate) fn kill(&self) -> io::Result<()> {
        match self {
            Child::Std(child) => child.kill(),
            #[cfg(target_os = "linux")]
            Child::Clone(child) => child.kill(),
        }
    }
}
