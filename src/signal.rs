//! Ctrl-C / SIGTERM handling, and on Unix SIGHUP and SIGQUIT (Ctrl-\\) the
//! same way: no check outlives run-check, whatever signal it gets short of
//! SIGKILL. Checks run in their own process groups (Job Objects on
//! Windows), so the terminal's Ctrl-C reaches only run-check; the handler
//! raises a `Cancel` level that the runner observes: the first request
//! stops launching and terminates running trees, the second kills at once.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Shared cancellation state.
#[derive(Debug, Default)]
pub(crate) struct Cancel {
    level: AtomicU8,
}

/// No cancellation requested.
pub(crate) const RUNNING: u8 = 0;
/// Kill running checks at once (1, between, stops launching and terminates
/// running checks gracefully).
pub(crate) const KILL: u8 = 2;

impl Cancel {
    /// A fresh, not-cancelled state (for tests and library callers: no handler).
    pub(crate) const fn new() -> Cancel {
        Cancel {
            level: AtomicU8::new(RUNNING),
        }
    }

    /// Raises the level by one (up to `KILL`).
    pub(crate) fn request(&self) {
        let _ = self
            .level
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
                Some((l + 1).min(KILL))
            });
    }

    pub(crate) fn level(&self) -> u8 {
        self.level.load(Ordering::SeqCst)
    }

    /// Whether any cancellation was requested.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.level() != RUNNING
    }

    fn reset(&self) {
        self.level.store(RUNNING, Ordering::SeqCst);
    }
}

static GLOBAL: Cancel = Cancel::new();
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Installs the process-wide handler of Ctrl-C, SIGTERM, SIGHUP and SIGQUIT
/// (once) and returns the cancellation state it raises, reset to `RUNNING`.
pub(crate) fn install() -> Result<&'static Cancel, String> {
    INSTALLED
        .get_or_init(|| {
            // `ctrlc` (feature `termination`) takes SIGINT, SIGTERM and SIGHUP.
            // Its handler runs on a thread of its own, so it may take a lock.
            ctrlc::set_handler(|| {
                GLOBAL.request();
                stop_helpers();
            })
            .map_err(|err| format!("failed to install the Ctrl-C handler: {err}"))?;
            install_quit()
        })
        .clone()?;
    GLOBAL.reset();
    Ok(&GLOBAL)
}

/// run-check's own helper processes (its git questions) while they run,
/// by a number of their own. A stop request kills them: a git blocked on a
/// FIFO the code under test put among its objects would otherwise hold
/// the gate (its snapshot waits for git) past any stop short of SIGKILL.
/// They write nothing (`--no-optional-locks`), so a kill loses nothing.
static HELPERS: std::sync::Mutex<Vec<(u64, Helper)>> = std::sync::Mutex::new(Vec::new());
static NEXT_HELPER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// One helper process, as a stop request reaches it: on Linux by a pidfd
/// (opened while the child cannot have been reaped, so a reused pid is
/// never hit); elsewhere by its pid, from its start until just after it
/// is reaped (a pid is reused only after the whole pid space went round).
#[derive(Debug)]
struct Helper {
    pid: u32,
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Helper {
    fn kill(&self) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.pidfd {
            let _ = rustix::process::pidfd_send_signal(fd, rustix::process::Signal::KILL);
            return;
        }
        #[cfg(unix)]
        if let Some(pid) = i32::try_from(self.pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        #[cfg(not(unix))]
        let _ = self.pid;
    }
}

/// A helper process registered by [`helper`]: unregistered when dropped,
/// which its owner does after waiting for it.
#[derive(Debug)]
pub(crate) struct Helping(u64);

impl Drop for Helping {
    fn drop(&mut self) {
        let mut helpers = HELPERS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        helpers.retain(|(id, _)| *id != self.0);
    }
}

/// Registers `child` (a helper: one of run-check's git questions) to be
/// killed when a stop is requested, or kills it now when one was already.
/// On Windows nothing is killed: no FIFO can sit among git's files there
/// (named pipes live in a namespace of their own, not in a folder).
pub(crate) fn helper(child: &std::process::Child) -> Helping {
    let helper = Helper {
        pid: child.id(),
        #[cfg(target_os = "linux")]
        pidfd: i32::try_from(child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .and_then(|pid| {
                rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
            }),
    };
    let id = NEXT_HELPER.fetch_add(1, Ordering::Relaxed);
    let mut helpers = HELPERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Registered first, then the level read: a request that came before
    // is seen here, one that comes after finds it registered.
    if GLOBAL.is_cancelled() {
        helper.kill();
    }
    helpers.push((id, helper));
    Helping(id)
}

/// Kills every helper process running now.
fn stop_helpers() {
    let helpers = HELPERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for (_, helper) in helpers.iter() {
        helper.kill();
    }
}

/// The cancellation state as it is: installs the handler when no run has
/// yet (`run-check cache key`, whose `version` commands run in process
/// groups of their own, out of the terminal's Ctrl-C), but never resets a
/// request already made (a Ctrl-C during a run's `version` command stops
/// the run's checks too).
pub(crate) fn current() -> Result<&'static Cancel, String> {
    match INSTALLED.get() {
        Some(installed) => installed.clone().map(|()| &GLOBAL),
        None => install(),
    }
}

/// SIGQUIT (Ctrl-\\), whose default would end run-check with a core dump
/// and orphan its checks: raises the level directly from the handler (an
/// atomic update is async-signal-safe).
#[cfg(unix)]
fn install_quit() -> Result<(), String> {
    extern "C" fn on_quit(_: libc::c_int) {
        GLOBAL.request();
    }
    // SAFETY: zeroed is a valid sigaction, filled in below.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_quit as extern "C" fn(libc::c_int) as libc::sighandler_t;
    action.sa_flags = libc::SA_RESTART;
    // SAFETY: `action.sa_mask` is a live sigset; the handler only updates an
    // atomic; the old action is not asked for.
    let installed = unsafe {
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGQUIT, &action, std::ptr::null_mut())
    };
    if installed != 0 {
        return Err(format!(
            "failed to install the SIGQUIT handler: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Windows has no SIGQUIT (Ctrl-Break is Ctrl-C's handler's).
#[cfg(not(unix))]
fn install_quit() -> Result<(), String> {
    Ok(())
}

/// The signal that ended a child (a gate of `candidates`), when one did:
/// such a child did not exit by itself, so what it wrote is no verdict.
/// On Windows a process always has an exit code.
pub(crate) fn killed_by(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_saturate_at_kill() {
        let c = Cancel::new();
        assert!(!c.is_cancelled());
        c.request();
        assert!(c.is_cancelled() && c.level() < KILL);
        c.request();
        c.request();
        assert_eq!(c.level(), KILL);
    }
}
