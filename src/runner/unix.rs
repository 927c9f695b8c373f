//! Unix process trees: each check leads its own process group, so one
//! `killpg` reaches every process it started (unless one left the group on
//! purpose with `setsid`/`setpgid`).

use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};

/// Prepares the command before spawn: a new process group led by the child.
/// `process_group` is supported by `posix_spawn`, so spawning stays fast.
pub(crate) fn prepare(command: &mut Command) {
    command.process_group(0);
}

/// The process tree of one running check.
#[derive(Debug)]
pub(crate) struct Tree {
    pgid: libc::pid_t,
}

impl Tree {
    /// Adopts the tree of the freshly spawned child `pid`.
    pub(crate) fn adopt(pid: u32) -> io::Result<Tree> {
        let pgid = libc::pid_t::try_from(pid).map_err(io::Error::other)?;
        Ok(Tree { pgid })
    }

    /// Asks every process of the tree to stop (SIGTERM).
    pub(crate) fn terminate(&self) {
        self.signal(libc::SIGTERM);
    }

    /// Kills every process of the tree (SIGKILL).
    pub(crate) fn kill(&self) {
        self.signal(libc::SIGKILL);
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: killpg has no memory-safety preconditions; an error (ESRCH
        // when the group is already gone) is expected and ignored.
        unsafe {
            libc::killpg(self.pgid, signal);
        }
    }
}

/// Why a process ended without an exit code: the signal's name and number.
pub(crate) fn signal_of(status: &ExitStatus) -> Option<String> {
    let signal = status.signal()?;
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        _ => "signal",
    };
    Some(format!("{name} ({signal})"))
}
