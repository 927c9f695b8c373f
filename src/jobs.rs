//! The `--jobs` budget shared between run-check processes: `candidates`
//! gates each candidate in a run-check process of its own and lends them
//! one pool of job tokens (a jobserver, the `jobserver` crate: a pipe on
//! Unix, a named semaphore on Windows; docs/candidates.md).
//!
//! make's rule: every process has one implicit token, so it runs one check
//! without asking; each further check it runs at once holds a token of the
//! pool. `candidates` creates the pool with N tokens and takes one for each
//! gate it runs at once (that gate's implicit token), giving it back when
//! no candidate is left for it, so N checks at most run across all gates.
//!
//! The pool reaches a gate through a variable of run-check's own,
//! `RUN_CHECK_JOBSERVER` (the jobserver's auth string), not `MAKEFLAGS`:
//! a run-check started by make or cargo keeps its `--jobs` as today, and
//! no check sees the pool. The gate reads the variable first thing
//! ([`inherit`], before any other thread exists), removes it from its
//! environment and marks the pool's descriptors close-on-exec, so no check
//! inherits either.

use std::ffi::OsString;
use std::process::Command;
use std::sync::OnceLock;

/// The variable that hands a gate its pool: the jobserver's auth string
/// (`R,W` descriptors or `fifo:PATH` on Unix, a semaphore name on Windows).
pub(crate) const ENV: &str = "RUN_CHECK_JOBSERVER";

/// The variable the jobserver crate reads and writes.
const CARGO_MAKEFLAGS: &str = "CARGO_MAKEFLAGS";

/// The pool this process was handed, if any.
static INHERITED: OnceLock<jobserver::Client> = OnceLock::new();

/// The pool this process was handed by `candidates`, if any.
pub(crate) fn inherited() -> Option<&'static jobserver::Client> {
    INHERITED.get()
}

/// Connects to the pool `RUN_CHECK_JOBSERVER` names and removes the
/// variable. Nothing happens (one variable lookup) when it is not set.
///
/// The jobserver crate only connects through `CARGO_MAKEFLAGS`, so that
/// variable is set for the call and restored after: this must run before
/// any other thread of the process exists (`run` calls it first).
pub(crate) fn inherit() -> Result<(), String> {
    let Some(auth) = std::env::var_os(ENV) else {
        return Ok(());
    };
    let outer = std::env::var_os(CARGO_MAKEFLAGS);
    let mut flags = OsString::from("-j --jobserver-auth=");
    flags.push(&auth);
    // SAFETY: run-check calls this first thing, before it starts any thread
    // (docs: `inherit`), so nothing reads the environment meanwhile.
    unsafe {
        std::env::remove_var(ENV);
        std::env::set_var(CARGO_MAKEFLAGS, &flags);
    }
    // SAFETY: the descriptors (or the semaphore) were opened by the parent
    // `candidates` for this process and are checked to be pipes; they are
    // marked close-on-exec here, so no check inherits them.
    let connected = unsafe { jobserver::Client::from_env_ext(true) };
    // SAFETY: as above, still the only thread.
    unsafe {
        match outer {
            Some(value) => std::env::set_var(CARGO_MAKEFLAGS, value),
            None => std::env::remove_var(CARGO_MAKEFLAGS),
        }
    }
    let client = connected.client.map_err(|err| {
        format!(
            "{ENV} `{}`: cannot connect to the jobs pool: {err}",
            auth.to_string_lossy()
        )
    })?;
    let _ = INHERITED.set(client);
    Ok(())
}

/// Hands `client`'s pool to the gate `command` starts: its descriptors
/// inherited (Unix) and `RUN_CHECK_JOBSERVER` set; `CARGO_MAKEFLAGS` stays
/// what it is in this process.
pub(crate) fn lend(client: &jobserver::Client, command: &mut Command) {
    client.configure(command);
    let auth = command
        .get_envs()
        .find(|(key, _)| *key == CARGO_MAKEFLAGS)
        .and_then(|(_, value)| value)
        .and_then(|value| auth_of(&value.to_string_lossy()));
    match std::env::var_os(CARGO_MAKEFLAGS) {
        Some(value) => command.env(CARGO_MAKEFLAGS, value),
        None => command.env_remove(CARGO_MAKEFLAGS),
    };
    if let Some(auth) = auth {
        command.env(ENV, auth);
    }
}

/// The auth string of a `MAKEFLAGS` value (`--jobserver-auth=AUTH`).
fn auth_of(flags: &str) -> Option<String> {
    flags
        .split_whitespace()
        .find_map(|word| word.strip_prefix("--jobserver-auth="))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auth_string_is_read_out_of_the_flags() {
        assert_eq!(
            auth_of("-j --jobserver-fds=3,4 --jobserver-auth=3,4").as_deref(),
            Some("3,4")
        );
        assert_eq!(
            auth_of("-j --jobserver-auth=fifo:/tmp/x").as_deref(),
            Some("fifo:/tmp/x")
        );
        assert_eq!(auth_of("-j"), None);
    }

    #[test]
    fn lending_sets_the_private_variable_only() {
        let client = jobserver::Client::new(2).unwrap();
        let mut command = Command::new("true");
        lend(&client, &mut command);
        let envs: Vec<_> = command.get_envs().collect();
        assert!(
            envs.iter()
                .any(|(k, v)| *k == ENV && v.is_some_and(|v| !v.is_empty()))
        );
        let makeflags = envs.iter().find(|(k, _)| *k == CARGO_MAKEFLAGS);
        assert!(
            makeflags.is_none_or(
                |(_, v)| v.map(|v| v.to_os_string()) == std::env::var_os(CARGO_MAKEFLAGS)
            )
        );
    }
}
