//! Ctrl-C / SIGTERM handling. Checks run in their own process groups (Job
//! Objects on Windows), so the terminal's Ctrl-C reaches only run-check; the
//! handler raises a `Cancel` level that the runner observes: the first request
//! stops launching and terminates running trees, the second kills at once.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Shared cancellation state.
#[derive(Debug, Default)]
pub struct Cancel {
    level: AtomicU8,
}

/// No cancellation requested.
pub const RUNNING: u8 = 0;
/// Stop launching; terminate running checks gracefully.
pub const STOP: u8 = 1;
/// Kill running checks at once.
pub const KILL: u8 = 2;

impl Cancel {
    /// A fresh, not-cancelled state (for tests and library callers: no handler).
    pub const fn new() -> Cancel {
        Cancel {
            level: AtomicU8::new(RUNNING),
        }
    }

    /// Raises the level by one (up to `KILL`).
    pub fn request(&self) {
        let _ = self
            .level
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
                Some((l + 1).min(KILL))
            });
    }

    /// The current level.
    pub fn level(&self) -> u8 {
        self.level.load(Ordering::SeqCst)
    }

    /// Whether any cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        self.level() != RUNNING
    }

    fn reset(&self) {
        self.level.store(RUNNING, Ordering::SeqCst);
    }
}

static GLOBAL: Cancel = Cancel::new();
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Installs the process-wide Ctrl-C/SIGTERM handler (once) and returns the
/// cancellation state it raises, reset to `RUNNING`.
pub fn install() -> Result<&'static Cancel, String> {
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| GLOBAL.request())
                .map_err(|err| format!("failed to install the Ctrl-C handler: {err}"))
        })
        .clone()?;
    GLOBAL.reset();
    Ok(&GLOBAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_saturate_at_kill() {
        let c = Cancel::new();
        assert!(!c.is_cancelled());
        c.request();
        assert_eq!(c.level(), STOP);
        c.request();
        c.request();
        assert_eq!(c.level(), KILL);
    }
}
