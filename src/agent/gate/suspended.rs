//! Whether a gate process is stopped by a signal (SIGSTOP, SIGTSTP,
//! SIGTTIN, SIGTTOU) and resuming it: a check can send SIGSTOP to its own
//! gate (`kill -STOP $PPID`), and a stopped gate neither exits nor answers
//! SIGTERM or SIGINT, so the runner would wait for it forever.
//!
//! The look is `waitid(P_PID, pid, WSTOPPED | WNOHANG | WNOWAIT)`: it
//! reports a stopped child without taking its state (duct's own wait still
//! sees the exit), and only the runner's thread waits for this child, so
//! between its `try_wait` saying "running" and this call the pid cannot be
//! reaped and reused. Windows has no SIGSTOP: there a gate is never seen
//! stopped (a process suspended through the debugging API is not looked
//! for).

/// The signal that stopped the gate, when it is stopped now.
#[cfg(unix)]
pub(super) fn stopped_by(handle: &duct::Handle) -> Option<i32> {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let pid = handle
        .pids()
        .first()
        .and_then(|&pid| Pid::from_raw(i32::try_from(pid).ok()?))?;
    let options = WaitIdOptions::STOPPED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    let status = waitid(WaitId::Pid(pid), options).ok()??;
    status.stopping_signal()
}

/// Never: Windows has no stop signals.
#[cfg(not(unix))]
pub(super) fn stopped_by(_: &duct::Handle) -> Option<i32> {
    None
}

/// Lets a stopped gate run again (SIGCONT), so that it can act on the
/// signal the runner sent it.
#[cfg(unix)]
pub(super) fn resume(handle: &duct::Handle) {
    use duct::unix::HandleExt;
    let _ = handle.send_signal(libc::SIGCONT);
}

/// Nothing to resume on Windows.
#[cfg(not(unix))]
pub(super) fn resume(_: &duct::Handle) {}

/// The signal's name (`SIGSTOP`), or its number.
pub(super) fn name(signal: i32) -> String {
    #[cfg(unix)]
    {
        for (number, name) in [
            (libc::SIGSTOP, "SIGSTOP"),
            (libc::SIGTSTP, "SIGTSTP"),
            (libc::SIGTTIN, "SIGTTIN"),
            (libc::SIGTTOU, "SIGTTOU"),
        ] {
            if number == signal {
                return name.to_string();
            }
        }
    }
    format!("signal {signal}")
}
