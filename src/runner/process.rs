//! One check's process: spawn it (argv, no shell, stdin closed, in its own
//! process tree), drain stdout and stderr concurrently into bounded excerpts,
//! enforce the timeout, observe cancellation and classify how it ended. It
//! never returns `Err` for "the command failed": that is an `End`.

use std::collections::BTreeMap;
use std::io::{PipeReader, Read};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::platform;
use crate::diagnostics::{Collector, Parsed};
use crate::excerpt::Excerpt;
use crate::signal::{Cancel, KILL};

/// How often a waiting check looks at the cancellation state.
const TICK: Duration = Duration::from_millis(100);
/// Time between SIGTERM and SIGKILL for a timed-out or interrupted tree.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long output is still read after the process ended (a process that left
/// the tree may hold the pipes open; run-check does not wait for it).
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Read buffer per stream.
const CHUNK: usize = 64 * 1024;

/// What to run.
#[derive(Debug)]
pub struct Spec<'a> {
    /// Absolute program path.
    pub program: &'a Path,
    /// Arguments after the program.
    pub args: &'a [String],
    /// Absolute working directory.
    pub cwd: &'a Path,
    /// Extra environment.
    pub env: &'a BTreeMap<String, String>,
    /// Timeout from start.
    pub timeout: Duration,
    /// Bytes kept from each end of each stream.
    pub excerpt_bytes: usize,
}

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// It exited with this code.
    Exited(i32),
    /// It ran past its timeout; its tree was killed.
    TimedOut,
    /// run-check was interrupted; its tree was killed.
    Interrupted,
    /// It was killed by a signal run-check did not send.
    Signaled(String),
    /// It could not be started or waited for.
    Failed(String),
}

/// The outcome of one process.
#[derive(Debug)]
pub struct ProcessResult {
    /// How it ended.
    pub end: End,
    /// Wall time from spawn to exit.
    pub duration: Duration,
    /// Captured stdout.
    pub stdout: Excerpt,
    /// Captured stderr.
    pub stderr: Excerpt,
    /// What stdout's collector parsed (None without a collector).
    pub stdout_parsed: Option<Parsed>,
    /// What stderr's collector parsed.
    pub stderr_parsed: Option<Parsed>,
}

impl ProcessResult {
    fn failed(start: Instant, limit: usize, why: String) -> ProcessResult {
        ProcessResult {
            end: End::Failed(why),
            duration: start.elapsed(),
            stdout: Excerpt::new(limit),
            stderr: Excerpt::new(limit),
            stdout_parsed: None,
            stderr_parsed: None,
        }
    }
}

/// One stream's capture, shared with its drain thread.
struct Capture {
    excerpt: Excerpt,
    collector: Option<Collector>,
}

impl Capture {
    fn push(&mut self, bytes: &[u8]) {
        self.excerpt.push(bytes);
        if let Some(collector) = &mut self.collector {
            collector.push(bytes);
        }
    }
}

/// Runs one process to completion (or timeout, or cancellation). The
/// collectors, when given, parse stdout and stderr while they stream.
pub fn run(spec: &Spec<'_>, collectors: [Option<Collector>; 2], cancel: &Cancel) -> ProcessResult {
    let start = Instant::now();
    let limit = spec.excerpt_bytes;
    if !spec.cwd.is_dir() {
        let why = format!("working directory `{}` does not exist", spec.cwd.display());
        return ProcessResult::failed(start, limit, why);
    }
    let pipes = std::io::pipe().and_then(|out| Ok((out, std::io::pipe()?)));
    let ((out_read, out_write), (err_read, err_write)) = match pipes {
        Ok(pipes) => pipes,
        Err(err) => {
            return ProcessResult::failed(start, limit, format!("failed to create pipes: {err}"));
        }
    };
    let mut expression = duct::cmd(spec.program, spec.args)
        .dir(spec.cwd)
        .stdin_null()
        .stdout_file(out_write)
        .stderr_file(err_write)
        .unchecked()
        .before_spawn(|command| {
            platform::prepare(command);
            Ok(())
        });
    for (name, value) in spec.env {
        expression = expression.env(name, value);
    }
    let handle = expression.start();
    // The expression owns our copies of the pipe writers: drop it now, or the
    // readers never see end-of-file.
    drop(expression);
    let handle = match handle {
        Ok(handle) => handle,
        Err(err) => {
            let why = format!("failed to start `{}`: {err}", spec.program.display());
            return ProcessResult::failed(start, limit, why);
        }
    };
    let (done_tx, done_rx) = mpsc::channel();
    let [out_collector, err_collector] = collectors;
    let stdout = drain(out_read, limit, out_collector, done_tx.clone());
    let stderr = drain(err_read, limit, err_collector, done_tx);

    let tree = handle.pids().first().map(|&pid| platform::Tree::adopt(pid));
    let tree = match tree {
        Some(Ok(tree)) => Some(tree),
        _ => None,
    };
    let terminate = |hard: bool| match &tree {
        Some(tree) if hard => tree.kill(),
        Some(tree) => tree.terminate(),
        None => {
            let _ = handle.kill();
        }
    };

    let deadline = start + spec.timeout;
    // Why and when run-check asked the tree to stop.
    let mut stopped: Option<(End, Instant)> = None;
    let waited = loop {
        let now = Instant::now();
        let wake = match &stopped {
            None => deadline.min(now + TICK),
            // Stopping: wake for the end of the grace period (or sooner for a
            // second Ctrl-C), never in the past.
            Some((_, at)) => (now + TICK).min((*at + GRACE).max(now + Duration::from_millis(10))),
        };
        match handle.wait_deadline(wake) {
            Ok(Some(output)) => break Ok(output.status),
            Ok(None) => {}
            Err(err) => break Err(err),
        }
        let now = Instant::now();
        if stopped.is_none() {
            if cancel.is_cancelled() {
                terminate(false);
                stopped = Some((End::Interrupted, now));
            } else if now >= deadline {
                terminate(false);
                stopped = Some((End::TimedOut, now));
            }
        }
        if let Some((_, at)) = &stopped
            && (now >= *at + GRACE || cancel.level() >= KILL)
        {
            terminate(true);
        }
    };
    let duration = start.elapsed();
    // Whatever the check left behind in its tree goes too: the gate leaves no
    // process running.
    terminate(true);

    let drain_deadline = Instant::now() + DRAIN_GRACE;
    for _ in 0..2 {
        let left = drain_deadline.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            break;
        }
    }
    // A drain thread still running (a process outside the tree holds the
    // pipe) keeps appending to its excerpt; we take what is there now.
    let take = |shared: &Arc<Mutex<Capture>>| {
        let mut capture = match shared.lock() {
            Ok(capture) => capture,
            Err(poisoned) => poisoned.into_inner(),
        };
        let parsed = capture.collector.take().map(Collector::finish);
        (capture.excerpt.clone(), parsed)
    };
    let ((stdout, stdout_parsed), (stderr, stderr_parsed)) = (take(&stdout), take(&stderr));

    let end = match (waited, stopped) {
        (_, Some((why, _))) => why,
        (Err(err), None) => End::Failed(format!("failed to wait for the process: {err}")),
        (Ok(status), None) => match status.code() {
            Some(code) => End::Exited(code),
            None => End::Signaled(
                platform::signal_of(&status).unwrap_or_else(|| "an unknown signal".into()),
            ),
        },
    };
    ProcessResult {
        end,
        duration,
        stdout,
        stderr,
        stdout_parsed,
        stderr_parsed,
    }
}

/// Reads a pipe to its end on its own thread into a shared bounded excerpt
/// (and collector); signals `done` at end-of-file or on a read error.
fn drain(
    mut pipe: PipeReader,
    limit: usize,
    collector: Option<Collector>,
    done: mpsc::Sender<()>,
) -> Arc<Mutex<Capture>> {
    let shared = Arc::new(Mutex::new(Capture {
        excerpt: Excerpt::new(limit),
        collector,
    }));
    let sink = Arc::clone(&shared);
    let reader = move || {
        let mut buf = vec![0u8; CHUNK];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => match sink.lock() {
                    Ok(mut capture) => capture.push(&buf[..n]),
                    Err(_) => break,
                },
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = done.send(());
    };
    let spawned = std::thread::Builder::new()
        .name("run-check-drain".into())
        .stack_size(2 * 1024 * 1024)
        .spawn(reader);
    if spawned.is_err() {
        // No thread: nothing reads this pipe, so the child may block on a full
        // pipe until its timeout. Rare (thread exhaustion); the result says so.
        if let Ok(mut capture) = shared.lock() {
            capture
                .excerpt
                .push(b"run-check: could not start a thread to read this stream\n");
        }
    }
    shared
}
