//! The one child-gate runner: `run-check check ... --format json --quiet`
//! as a child process of this binary, for the hook, the MCP server and
//! `candidates`. A gate is a process, never a thread: signal handling, the
//! subreaper and orphan sweeps and the snapshots are per process.
//!
//! The verdict is the process's: its exit code, and its evidence read from
//! its stdout, a pipe of this process that no check is given and no path
//! names (never a file: the checks run as the same user and could write
//! one). Its stderr is kept as a bounded tail, for messages. A gate killed
//! by a signal this runner did not send, or one that printed no evidence,
//! has no verdict ([`verdict_of`]). Cancellation asks the gate to stop as
//! SIGTERM does (it terminates its checks and writes the evidence of what
//! finished); a deadline stops it as Ctrl-C does (SIGINT), then kills it
//! after [`GRACE`]. duct starts and waits for it (`before_spawn` lends the
//! jobs pool, `HandleExt::send_signal` stops it) while the pipes are read
//! here, incrementally and bounded.
//!
//! A gate stopped by a signal (a check's `kill -STOP $PPID`) would never
//! end: one seen stopped at [`STOPPED_LOOKS`] looks in a row is asked to
//! stop as on SIGTERM and resumed (SIGCONT, again each time it is seen
//! stopped), killed after [`GRACE`], and has no verdict whatever it then
//! printed: its checks ran under a process someone else controlled.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use run_check_documents::evidence::Evidence;

use run_check_documents::exit_code;

/// How long a gate stopped at its deadline has to write the evidence of
/// what finished before it is killed.
pub(crate) const GRACE: Duration = Duration::from_secs(5);

/// How long a gate's output is read after it exited: what it wrote is in
/// the pipe by then; a pipe still open is held by a process it started
/// (that escaped its kill), whose writes are no verdict.
const AFTER_EXIT: Duration = Duration::from_secs(2);

/// The most of a gate's stderr kept: its last lines are all that is used
/// (a check can write to its gate's stderr through `/proc`, without end).
const STDERR_TAIL: usize = 64 * 1024;

/// How often the runner looks at the gate, the cancellation and the
/// deadline.
const POLL: Duration = Duration::from_millis(20);

/// Looks in a row that must see the gate stopped before it is ended
/// (about a second). Counted in looks, not time: when the user stops the
/// whole job (Ctrl-Z) the runner stops with its gates, and the time it
/// spent stopped must not count against a gate that `fg` resumes with it.
const STOPPED_LOOKS: u32 = 50;

mod suspended;

/// One gate to run.
pub(crate) struct Gate<'a> {
    /// The run-check executable (this one, or the one installed beside
    /// the MCP server).
    pub(crate) exe: &'a Path,
    /// The arguments of `check` (the runner adds `--format json --quiet`).
    pub(crate) args: Vec<OsString>,
    /// Its working directory.
    pub(crate) dir: Option<&'a Path>,
    /// The jobs pool it joins (`candidates`).
    pub(crate) jobs: Option<&'a jobserver::Client>,
    /// True once the caller wants the gate stopped.
    pub(crate) cancelled: &'a dyn Fn() -> bool,
    /// Stops the gate this long after its start.
    pub(crate) deadline: Option<Duration>,
}

/// Why the runner stopped a gate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stop {
    /// The caller cancelled it.
    Cancelled,
    /// Its deadline passed; `killed` when it had not ended within the grace.
    Deadline { killed: bool },
    /// A signal (`signal`) stopped it and it stayed stopped; `killed` when
    /// it had not ended within the grace after it was resumed and asked to
    /// stop.
    Suspended { signal: i32, killed: bool },
}

/// How a gate ended, as its parent saw it.
#[derive(Debug, PartialEq)]
pub(crate) enum Ended {
    /// It exited by itself with this code.
    Code(i32),
    /// It did not exit by itself: how it ended (`killed by signal 9`).
    Killed(String),
}

/// What a gate left.
#[derive(Debug)]
pub(crate) struct Gated {
    pub(crate) ended: Ended,
    /// Whether (and why) the runner stopped it: the MCP server tells a
    /// cancelled run from one that died, the hook a gate cut short by its
    /// deadline from one a check interrupted.
    pub(crate) stopped: Option<Stop>,
    /// Its stdout (at most the JSON limit), or why it could not be read.
    pub(crate) output: Result<Vec<u8>, String>,
    /// The tail of its stderr.
    pub(crate) stderr: String,
}

impl Gated {
    /// The last non-blank line of its stderr.
    pub(crate) fn last_line(&self) -> Option<&str> {
        self.stderr
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
    }
}

impl Gate<'_> {
    /// Runs the gate to its end; an error only when it could not start.
    pub(crate) fn run(&self) -> std::io::Result<Gated> {
        let (stdout, stdout_w) = std::io::pipe()?;
        let (stderr, stderr_w) = std::io::pipe()?;
        let mut argv: Vec<OsString> = vec!["check".into()];
        argv.extend(self.args.iter().cloned());
        argv.extend(["--format", "json", "--quiet"].map(OsString::from));
        let mut expression = duct::cmd(self.exe, argv)
            .stdin_null()
            .stdout_file(stdout_w)
            .stderr_file(stderr_w)
            .unchecked();
        if let Some(dir) = self.dir {
            expression = expression.dir(dir);
        }
        if let Some(client) = self.jobs {
            let client = client.clone();
            expression = expression.before_spawn(move |command| {
                crate::jobs::lend(&client, command);
                Ok(())
            });
        }
        let handle = expression.start()?;
        // The expression holds the pipes' write ends: dropped, the gate's
        // end is the only one left, so the readers see its end of file.
        drop(expression);
        let output = read_output(stdout);
        let (tail, tail_done) = read_tail(stderr);
        let (status, stopped) = self.wait(&handle);
        let ended = match stopped {
            Some(Stop::Suspended { signal, killed }) => Ended::Killed(format!(
                "stopped by {} and left stopped, then {} by the runner",
                suspended::name(signal),
                if killed { "killed" } else { "terminated" }
            )),
            _ => ended(status),
        };
        let deadline = Instant::now() + AFTER_EXIT;
        let output = output
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| {
                Err("the gate's output was still open after it exited \
                     (a process it started holds it)"
                    .into())
            });
        let _ = tail_done.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
        Ok(Gated {
            ended,
            stopped,
            output,
            stderr: String::from_utf8_lossy(&tail).into_owned(),
        })
    }

    /// Waits for the gate, stopping it when cancelled, at its deadline, or
    /// when it stays stopped by a signal.
    fn wait(&self, handle: &duct::Handle) -> (std::io::Result<ExitStatus>, Option<Stop>) {
        let started = Instant::now();
        let mut stopped = None;
        let mut stopped_at = started;
        // Consecutive looks that saw it stopped, and by which signal.
        let mut seen_stopped = (0u32, 0);
        loop {
            match handle.try_wait() {
                Ok(Some(output)) => return (Ok(output.status), stopped),
                Ok(None) => {}
                Err(err) => return (Err(err), stopped),
            }
            seen_stopped = match suspended::stopped_by(handle) {
                Some(signal) => (seen_stopped.0 + 1, signal),
                None => (0, 0),
            };
            match stopped {
                None if (self.cancelled)() => {
                    stop(handle, Signal::Terminate);
                    stopped = Some(Stop::Cancelled);
                }
                None if self.deadline.is_some_and(|d| started.elapsed() >= d) => {
                    stop(handle, Signal::Interrupt);
                    stopped = Some(Stop::Deadline { killed: false });
                    stopped_at = Instant::now();
                }
                None if seen_stopped.0 >= STOPPED_LOOKS => {
                    stop(handle, Signal::Terminate);
                    stopped = Some(Stop::Suspended {
                        signal: seen_stopped.1,
                        killed: false,
                    });
                    stopped_at = Instant::now();
                }
                Some(Stop::Deadline { killed: false }) if stopped_at.elapsed() >= GRACE => {
                    let _ = handle.kill();
                    stopped = Some(Stop::Deadline { killed: true });
                }
                Some(Stop::Suspended {
                    signal,
                    killed: false,
                }) if stopped_at.elapsed() >= GRACE => {
                    let _ = handle.kill();
                    stopped = Some(Stop::Suspended {
                        signal,
                        killed: true,
                    });
                }
                _ => {}
            }
            // Asked to stop, a stopped gate must run to do it (it kills
            // its checks and writes what finished): resumed each time it
            // is seen stopped, until it ends or is killed.
            if stopped.is_some() && seen_stopped.0 > 0 {
                suspended::resume(handle);
            }
            std::thread::sleep(POLL);
        }
    }
}

/// How the runner asks a gate to stop.
#[derive(Clone, Copy)]
enum Signal {
    /// As run-check itself was asked to stop (SIGTERM).
    Terminate,
    /// As on Ctrl-C (SIGINT).
    Interrupt,
}

/// Asks the gate to stop: it kills its checks, writes the evidence of what
/// finished and exits 130. On Windows, where a console process cannot be
/// sent Ctrl-C alone, it is terminated, and its checks' Job Objects (kill
/// on close) end them with it.
fn stop(handle: &duct::Handle, signal: Signal) {
    #[cfg(unix)]
    {
        use duct::unix::HandleExt;
        let _ = handle.send_signal(match signal {
            Signal::Terminate => libc::SIGTERM,
            Signal::Interrupt => libc::SIGINT,
        });
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        let _ = handle.kill();
    }
}

fn ended(status: std::io::Result<ExitStatus>) -> Ended {
    match status {
        Ok(status) => match (status.code(), crate::signal::killed_by(&status)) {
            (Some(code), _) => Ended::Code(code),
            (None, Some(signal)) => Ended::Killed(format!("killed by signal {signal}")),
            (None, None) => Ended::Killed("ended without an exit code".into()),
        },
        Err(err) => Ended::Killed(format!("lost (waiting for it failed: {err})")),
    }
}

/// The gate's stdout, read on a thread of its own to its end (within the
/// JSON limit; the rest is drained so the gate never blocks on it).
fn read_output(mut pipe: std::io::PipeReader) -> mpsc::Receiver<Result<Vec<u8>, String>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let read = crate::bounded::read_from(&mut pipe, None, crate::bounded::JSON);
        let result = read.map_err(|err| {
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            format!("the gate's output: {err}")
        });
        let _ = send.send(result);
    });
    receive
}

/// The gate's stderr, read on a thread of its own: the last
/// [`STDERR_TAIL`] bytes, readable at any time, and a message at its end.
fn read_tail(mut pipe: std::io::PipeReader) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let (send, receive) = mpsc::channel();
    let kept = Arc::clone(&tail);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(n @ 1..) = pipe.read(&mut buffer) {
            if let Ok(mut tail) = kept.lock() {
                tail.extend_from_slice(&buffer[..n]);
                let over = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..over);
            }
        }
        let _ = send.send(());
    });
    (tail, receive)
}

/// A gate's verdict: its evidence (and the bytes it printed) when it
/// exited by itself with the exit code its evidence says; otherwise none,
/// and why.
#[derive(Debug)]
pub(crate) struct Verdict {
    /// The gate's own exit code (130 when it was never started,
    /// interrupted first), or 2 when it exited 0 or 1 but gave no verdict.
    pub(crate) code: i32,
    /// Without evidence, why: the gate's last stderr line (the error that
    /// stopped it), or why what it left is no verdict.
    pub(crate) last_line: String,
    /// Its evidence, and the bytes it wrote, when it is the gate's verdict.
    pub(crate) evidence: Option<(Evidence, Vec<u8>)>,
}

/// The verdict of a gate. A gate that exited 0 or 1 without a verdict
/// shows exit code 2 (it is an error, and 0 or 1 would read as a result).
pub(crate) fn verdict_of(
    ended: Ended,
    output: Result<Vec<u8>, String>,
    last_line: String,
) -> Verdict {
    let no_verdict = |code: i32, why: String| Verdict {
        code: match code {
            exit_code::PASS | exit_code::FAIL => exit_code::ERROR,
            code => code,
        },
        last_line: format!("no verdict: {why}"),
        evidence: None,
    };
    let code = match ended {
        Ended::Code(code) => code,
        Ended::Killed(how) => {
            return no_verdict(
                exit_code::ERROR,
                format!("the gate was {how} before it finished"),
            );
        }
    };
    let bytes = match output {
        Ok(bytes) => bytes,
        Err(why) => return no_verdict(code, why),
    };
    if bytes.is_empty() {
        return match code {
            exit_code::PASS | exit_code::FAIL => no_verdict(
                code,
                format!("the gate exited {code} but wrote no evidence"),
            ),
            // An error that stopped the gate before it ran anything: its
            // line says which.
            _ => Verdict {
                code,
                last_line,
                evidence: None,
            },
        };
    }
    let evidence = match crate::json_input::evidence(Path::new("<the gate's output>"), &bytes) {
        Ok(evidence) => evidence,
        Err(err) => return no_verdict(code, format!("the gate's output is no evidence: {err}")),
    };
    if evidence.summary.exit_code != code {
        return no_verdict(
            code,
            format!(
                "the gate exited {code}, but its evidence says {}",
                evidence.summary.exit_code
            ),
        );
    }
    Verdict {
        code,
        last_line,
        evidence: Some((evidence, bytes)),
    }
}

// The stand-in gates are shell scripts.
#[cfg(all(test, unix))]
mod tests;
