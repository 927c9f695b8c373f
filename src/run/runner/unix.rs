//! Unix process trees: each check leads its own process group, so one
//! `killpg` reaches every process it started that stayed in the group; what
//! left it on purpose (`setsid`, `setpgid`) is found by `contain` (Linux).

use std::io::{self, PipeReader};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// Prepares the command before spawn: a new process group led by the child.
/// `process_group` is supported by `posix_spawn`, so spawning stays fast.
pub(crate) fn prepare(command: &mut Command) {
    command.process_group(0);
}

/// Asks for a 256 KiB pipe buffer (Linux; elsewhere, or when refused, the
/// default 64 KiB stays), once a stream proves chatty: it then wakes
/// run-check a quarter as often, which halves the cost of draining it.
/// (Windows pipes keep their default size.) Not more: pipe pages count
/// against the user's `pipe-user-pages-soft` (64 MiB), and two pipes per
/// running check must stay well inside it.
pub(crate) fn widen(pipe: &PipeReader) {
    #[cfg(target_os = "linux")]
    // SAFETY: F_SETPIPE_SZ on a pipe descriptor we own has no memory-safety
    // preconditions; a refusal (EPERM over the system limit) is ignored.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, 256 << 10);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pipe;
}

/// Lets the child run after `Tree::adopt`: on Unix it already runs (the
/// process group is set before `exec`, so nothing escapes it).
pub(crate) fn release(_pid: u32) -> io::Result<()> {
    Ok(())
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

    /// The processes the tree holds besides `main`: on Unix a process group
    /// cannot be listed cheaply, so the containment (`contain`) finds them.
    pub(crate) fn leftovers(&self, _main: u32) -> Vec<crate::run::evidence::Leaked> {
        Vec::new()
    }

    /// Lets the tree's processes outlive it: nothing to do on Unix (a
    /// process group is not killed unless asked).
    pub(crate) fn keep(&self) {}

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: killpg has no memory-safety preconditions; an error (ESRCH
        // when the group is already gone) is expected and ignored.
        unsafe {
            libc::killpg(self.pgid, signal);
        }
    }
}

/// Waits until the child `pid` (spawned by us, not yet reaped) has exited or
/// `deadline` passes; says whether it exited (`false` also on EINTR: the
/// caller looks again). Linux polls a pidfd: the generic timed wait
/// (`SharedChild::wait_deadline`) creates a pipe per wait and installs a
/// SIGCHLD handler that then runs on every later child's exit, and more
/// than half of trivial checks took that path (their pipes close a moment
/// before their exit is reported). `None` where there are no pidfds (other Unix, Linux before
/// 5.3): the caller uses the generic wait.
pub(crate) fn wait_exit(pid: u32, deadline: Instant) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        let pid = libc::pid_t::try_from(pid).ok()?;
        let fd = pidfd_open(pid).ok()?;
        Some(wait_fd(std::os::fd::AsFd::as_fd(&fd), deadline))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, deadline);
        None
    }
}

/// A pidfd of process `pid` (Linux 5.3 and later): readable once it exits.
#[cfg(target_os = "linux")]
pub(crate) fn pidfd_open(pid: libc::pid_t) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; it has no memory-safety preconditions.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a descriptor the kernel just returned to us alone.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Waits until `fd` is readable or `deadline` passes; says whether it is
/// (`false` also on EINTR: the caller looks again).
#[cfg(target_os = "linux")]
pub(crate) fn wait_fd(fd: BorrowedFd<'_>, deadline: Instant) -> bool {
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = poll_millis(deadline.saturating_duration_since(Instant::now()));
    // SAFETY: `poll` is one live pollfd, as the count says.
    unsafe { libc::poll(&mut poll, 1, millis) > 0 }
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

/// Waits until one of the open pipes is readable (or at its end), or
/// `exit` (a pidfd) says the process exited, or `timeout` passes; says
/// which pipes are ready and whether the process exited. An error (other
/// than EINTR) reports every open pipe ready, so the caller's read sees it.
pub(crate) fn wait_ready(
    pipes: &[Option<PipeReader>; 2],
    exit: Option<BorrowedFd<'_>>,
    timeout: Duration,
) -> ([bool; 2], bool) {
    let mut fds: [libc::pollfd; 3] = [libc::pollfd {
        fd: -1,
        events: libc::POLLIN,
        revents: 0,
    }; 3];
    for (fd, pipe) in fds.iter_mut().zip(pipes) {
        if let Some(pipe) = pipe {
            fd.fd = pipe.as_raw_fd();
        }
    }
    if let Some(exit) = exit {
        fds[2].fd = exit.as_raw_fd();
    }
    let millis = poll_millis(timeout);
    // SAFETY: `fds` is a live array of three pollfd, as the count says; poll
    // ignores entries whose fd is negative.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
    if n < 0 {
        let interrupted = io::Error::last_os_error().kind() == io::ErrorKind::Interrupted;
        let ready = [
            !interrupted && pipes[0].is_some(),
            !interrupted && pipes[1].is_some(),
        ];
        return (ready, false);
    }
    let ready = |i: usize| fds[i].fd >= 0 && fds[i].revents != 0;
    ([ready(0), ready(1)], ready(2))
}

/// `timeout` as `poll`'s milliseconds, rounded up so a sub-millisecond wait
/// does not spin.
fn poll_millis(timeout: Duration) -> libc::c_int {
    timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_timeouts_round_up_to_whole_milliseconds() {
        assert_eq!(poll_millis(Duration::ZERO), 0);
        assert_eq!(poll_millis(Duration::from_micros(1)), 1);
        assert_eq!(poll_millis(Duration::from_millis(1)), 1);
        assert_eq!(poll_millis(Duration::from_micros(1_001)), 2);
        assert_eq!(poll_millis(Duration::from_secs(u64::MAX)), i32::MAX);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn wait_exit_sees_an_exit_and_a_deadline() {
        let mut quick = Command::new("sleep").arg("0.1").spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        assert_eq!(wait_exit(quick.id(), deadline), Some(true));
        // Exited but not reaped by the wait: the status is still there.
        assert!(quick.try_wait().unwrap().unwrap().success());

        let mut slow = Command::new("sleep").arg("975").spawn().unwrap();
        let start = Instant::now();
        let deadline = start + Duration::from_millis(50);
        assert_eq!(wait_exit(slow.id(), deadline), Some(false));
        assert!(start.elapsed() >= Duration::from_millis(50));
        slow.kill().unwrap();
        slow.wait().unwrap();
    }
}
