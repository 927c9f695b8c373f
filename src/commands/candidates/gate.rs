//! One gate process per candidate: started with the jobs pool lent, its
//! stdout (the evidence) and stderr read on threads, its verdict judged
//! from its own exit status.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use run_check_documents::evidence::Evidence;

use crate::exit_code;

use super::Named;

/// What a gate process left.
#[derive(Debug)]
pub(super) struct Gated {
    /// The index's exit code: the gate's own (130 when it was never
    /// started, interrupted first), or 2 when it exited 0 or 1 but gave no
    /// verdict.
    pub(super) code: i32,
    /// Without evidence, why: the gate's last stderr line (the error that
    /// stopped it), or why what it left is no verdict.
    pub(super) last_line: String,
    /// Its evidence, and the bytes it wrote, when it is the gate's verdict.
    pub(super) evidence: Option<(Evidence, Vec<u8>)>,
}

/// How every gate process is started.
pub(super) struct Gate<'a> {
    pub(super) exe: &'a Path,
    pub(super) task: &'a Path,
    /// `--baseline`, absolute: the evidence of the task's base commit.
    pub(super) baseline: Option<&'a Path>,
    pub(super) config: Option<&'a Path>,
    pub(super) mode: &'static str,
    /// `--jobs` of each gate: the whole budget (the pool bounds it).
    pub(super) jobs: usize,
    pub(super) client: Option<&'a jobserver::Client>,
    /// Raised by a stop signal to `candidates`.
    pub(super) cancel: &'a crate::signal::Cancel,
}

/// How long a gate's output is read after it exited: what it wrote is in
/// the pipe by then; a pipe still open is held by a process it started
/// (that escaped its kill), whose writes are no verdict.
const AFTER_EXIT: Duration = Duration::from_secs(2);

/// The most of a gate's stderr kept: its last line is all that is used (a
/// check can write to its gate's stderr through `/proc`, without end).
const STDERR_TAIL: usize = 64 * 1024;

impl Gate<'_> {
    /// Waits for a gate to end; when `candidates` is asked to stop
    /// (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT), the gate is asked too, once, so
    /// no gate (and no check of one) outlives it.
    fn wait(&self, child: &mut std::process::Child) -> std::io::Result<ExitStatus> {
        let mut forwarded = false;
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(status);
            }
            if !forwarded && self.cancel.is_cancelled() {
                crate::signal::forward_stop(child);
                forwarded = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Runs `candidate`'s gate to its end. Its evidence is its stdout (a
    /// pipe of this process: the checks' own output goes to pipes of the
    /// gate, and no path the checks could read names where it goes); the
    /// verdict is the gate's exit status ([`verdict_of`]).
    pub(super) fn run(&self, candidate: &Named) -> Gated {
        let mut command = Command::new(self.exe);
        command
            .arg("check")
            .arg("--worktree")
            .arg(&candidate.worktree)
            .arg("--task")
            .arg(self.task)
            .args(["--mode", self.mode, "--jobs", &self.jobs.to_string()])
            .args(["--format", "json", "--quiet"]);
        if let Some(config) = self.config {
            command.arg("--config").arg(config);
        }
        if let Some(baseline) = self.baseline {
            command.arg("--baseline").arg(baseline);
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(client) = self.client {
            crate::jobs::lend(client, &mut command);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(err) => {
                return Gated {
                    code: exit_code::ERROR,
                    last_line: format!(
                        "error: cannot start the gate `{}`: {err}",
                        self.exe.display()
                    ),
                    evidence: None,
                };
            }
        };
        let stdout = child.stdout.take().map(read_output);
        let stderr = child.stderr.take().map(read_tail);
        let status = self.wait(&mut child);
        let deadline = Instant::now() + AFTER_EXIT;
        let output = match stdout {
            Some(stdout) => stdout
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| {
                    Err("the gate's output was still open after it exited \
                         (a process it started holds it)"
                        .into())
                }),
            None => Ok(Vec::new()),
        };
        let last_line = stderr
            .map(|(tail, done)| {
                let _ = done.recv_timeout(deadline.saturating_duration_since(Instant::now()));
                let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
                String::from_utf8_lossy(&tail)
                    .lines()
                    .rev()
                    .find(|line| !line.trim().is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_default()
            .unwrap_or_else(|| "the gate printed nothing".into());
        verdict_of(ended(status), output, last_line)
    }
}

/// How a gate ended, as its parent saw it.
#[derive(Debug, PartialEq)]
pub(super) enum Ended {
    /// It exited by itself with this code.
    Code(i32),
    /// It did not exit by itself: how it ended (`killed by signal 9`).
    Killed(String),
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
fn read_output(mut pipe: std::process::ChildStdout) -> mpsc::Receiver<Result<Vec<u8>, String>> {
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
fn read_tail(mut pipe: std::process::ChildStderr) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
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

/// The verdict of a gate: its evidence when it exited by itself with the
/// exit code its evidence says; otherwise none, and why. A gate that
/// exited 0 or 1 without a verdict shows exit code 2 (it is an error, and
/// 0 or 1 would read as a result).
pub(super) fn verdict_of(
    ended: Ended,
    output: Result<Vec<u8>, String>,
    last_line: String,
) -> Gated {
    let no_verdict = |code: i32, why: String| Gated {
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
            _ => Gated {
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
    Gated {
        code,
        last_line,
        evidence: Some((evidence, bytes)),
    }
}
