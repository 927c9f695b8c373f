//! Unix process trees: each check leads its own process group, so one
//! `killpg` reaches every process it started that stayed in the group; what
//! left it on purpose (`setsid`, `setpgid`) is found by `contain` (Linux).

use std::io::{self, PipeReader};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags};
use rustix::process::{Pid, Signal};

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
    // A refusal (EPERM over the system limit) is ignored.
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(pipe, 256 << 10);
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
    pgid: Pid,
}

impl Tree {
    /// Adopts the tree of the freshly spawned child `pid`.
    pub(crate) fn adopt(pid: u32) -> io::Result<Tree> {
        let pgid = i32::try_from(pid).ok().and_then(Pid::from_raw);
        let pgid = pgid.ok_or_else(|| io::Error::other(format!("no process {pid}")))?;
        Ok(Tree { pgid })
    }

    /// Asks every process of the tree to stop (SIGTERM).
    pub(crate) fn terminate(&self) {
        self.signal(Signal::TERM);
    }

    /// Kills every process of the tree (SIGKILL).
    pub(crate) fn kill(&self) {
        self.signal(Signal::KILL);
    }

    /// The processes the tree holds besides `main`: on Unix a process group
    /// cannot be listed cheaply, so the containment (`contain`) finds them.
    pub(crate) fn leftovers(&self, _main: u32) -> Vec<run_check_documents::evidence::Leaked> {
        Vec::new()
    }

    /// Lets the tree's processes outlive it: nothing to do on Unix (a
    /// process group is not killed unless asked).
    pub(crate) fn keep(&self) {}

    fn signal(&self, signal: Signal) {
        // An error (ESRCH when the group is already gone) is expected.
        let _ = rustix::process::kill_process_group(self.pgid, signal);
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
        let fd = pidfd_open(i32::try_from(pid).ok()?).ok()?;
        Some(wait_fd(fd.as_fd(), deadline))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, deadline);
        None
    }
}

/// A pidfd of process `pid` (Linux 5.3 and later): readable once it exits.
#[cfg(target_os = "linux")]
pub(crate) fn pidfd_open(pid: i32) -> io::Result<std::os::fd::OwnedFd> {
    let pid = Pid::from_raw(pid).ok_or(io::ErrorKind::InvalidInput)?;
    Ok(rustix::process::pidfd_open(
        pid,
        rustix::process::PidfdFlags::empty(),
    )?)
}

/// Waits until `fd` is readable or `deadline` passes; says whether it is
/// (`false` also on EINTR: the caller looks again).
#[cfg(target_os = "linux")]
pub(crate) fn wait_fd(fd: BorrowedFd<'_>, deadline: Instant) -> bool {
    let mut fds = [PollFd::from_borrowed_fd(fd, PollFlags::IN)];
    poll(&mut fds, deadline.saturating_duration_since(Instant::now())).unwrap_or(0) > 0
}

/// poll(2) for at most `timeout` (rounded up to whole milliseconds where
/// poll counts in them, so a sub-millisecond wait does not spin).
fn poll(fds: &mut [PollFd<'_>], timeout: Duration) -> io::Result<usize> {
    let timeout = rustix::time::Timespec::try_from(timeout).ok();
    Ok(rustix::event::poll(fds, timeout.as_ref())?)
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
    let wanted = [
        pipes[0].as_ref().map(AsFd::as_fd),
        pipes[1].as_ref().map(AsFd::as_fd),
        exit,
    ];
    let mut fds: Vec<PollFd<'_>> = wanted
        .iter()
        .flatten()
        .map(|&fd| PollFd::from_borrowed_fd(fd, PollFlags::IN))
        .collect();
    if let Err(err) = poll(&mut fds, timeout) {
        let interrupted = err.kind() == io::ErrorKind::Interrupted;
        let ready = [
            !interrupted && pipes[0].is_some(),
            !interrupted && pipes[1].is_some(),
        ];
        return (ready, false);
    }
    let mut revents = fds.iter().map(|fd| !fd.revents().is_empty());
    let ready = wanted.map(|fd| fd.is_some() && revents.next() == Some(true));
    ([ready[0], ready[1]], ready[2])
}

// `wait_exit` is Linux's (a pidfd); the module has nothing else to test.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
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
