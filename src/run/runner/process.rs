//! One check's process: spawn it (argv, no shell, stdin closed, in its own
//! process tree), drain stdout and stderr concurrently into bounded excerpts,
//! enforce the timeout, observe cancellation and classify how it ended. It
//! never returns `Err` for "the command failed": that is an `End`.

use std::io::{PipeReader, PipeWriter, Read};
use std::path::Path;
use std::process::ExitStatus;
#[cfg(not(unix))]
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::child::{self, Child, Spec};
use super::contain::Containment;
use super::platform;
use crate::parse::{Collector, Parsed};
use crate::run::excerpt::Excerpt;
use crate::signal::{Cancel, KILL};
use run_check_documents::evidence::Leaked;

/// How often a waiting check looks at the cancellation state.
const TICK: Duration = Duration::from_millis(100);
/// Time between SIGTERM and SIGKILL for a timed-out or interrupted tree.
pub(crate) const GRACE: Duration = Duration::from_secs(2);
/// How long output is still read after the process ended (a process that left
/// the tree may hold the pipes open; run-check does not wait for it).
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// The largest read: a chatty check is drained in chunks this big.
const CHUNK: usize = 256 * 1024;
/// The first read buffer; it grows to `CHUNK` once a read fills it, so a
/// quiet check costs no large allocation.
#[cfg(unix)]
const FIRST_CHUNK: usize = 16 * 1024;

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
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
pub(crate) struct ProcessResult {
    /// How it ended.
    pub(crate) end: End,
    /// Wall time from spawn to exit.
    pub(crate) duration: Duration,
    /// Captured stdout.
    pub(crate) stdout: Excerpt,
    /// Captured stderr.
    pub(crate) stderr: Excerpt,
    /// What stdout's collector parsed (None without a collector).
    pub(crate) stdout_parsed: Option<Parsed>,
    /// What stderr's collector parsed.
    pub(crate) stderr_parsed: Option<Parsed>,
    /// Processes its tree still held when it ended (Windows: the job's;
    /// elsewhere the containment lists them).
    pub(crate) leaked: Vec<Leaked>,
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
            leaked: Vec::new(),
        }
    }
}

/// One stream's capture, shared with its drain thread.
struct Capture {
    excerpt: Excerpt,
    collector: Option<Collector>,
}

impl Capture {
    fn new(limit: usize, collector: Option<Collector>) -> Capture {
        Capture {
            excerpt: Excerpt::new(limit),
            collector,
        }
    }

    fn finish(mut self) -> (Excerpt, Option<Parsed>) {
        let parsed = self.collector.take().map(Collector::finish);
        (self.excerpt, parsed)
    }

    fn push(&mut self, bytes: &[u8]) {
        self.excerpt.push(bytes);
        if let Some(collector) = &mut self.collector {
            collector.push(bytes);
        }
    }
}

/// Runs one process to completion (or timeout, or cancellation). The
/// collectors, when given, parse stdout and stderr while they stream.
pub(crate) fn run(
    spec: &Spec<'_>,
    collectors: [Option<Collector>; 2],
    cancel: &Cancel,
) -> ProcessResult {
    let start = Instant::now();
    let limit = spec.excerpt_bytes;
    let pipes = std::io::pipe().and_then(|out| Ok((out, std::io::pipe()?)));
    let ((out_read, out_write), (err_read, err_write)) = match pipes {
        Ok(pipes) => pipes,
        Err(err) => {
            return ProcessResult::failed(start, limit, format!("failed to create pipes: {err}"));
        }
    };
    // Not duct: duct copies the whole environment into a map and sets it
    // again on every spawn (≈ 170,000 instructions per check, measured with
    // callgrind), the largest per-check cost run-check had.
    // The books stay locked from before the spawn until the pid is
    // registered: a sweep never mistakes a check starting for an orphan.
    let starting = spec
        .contain
        .map(|(containment, index)| containment.starting(index));
    let (handle, writers) = match child::spawn(spec, out_write, err_write) {
        Ok(started) => {
            if let Some(starting) = starting {
                starting.spawned(started.child.id());
            }
            (started.child, started.writers)
        }
        Err(err) => {
            // A missing working directory fails the spawn too; say which.
            let why = if spec.cwd.is_dir() {
                spawn_error(spec.program, &err)
            } else {
                format!("working directory `{}` does not exist", spec.cwd.display())
            };
            return ProcessResult::failed(start, limit, why);
        }
    };
    let pid = handle.id();
    let tree = platform::Tree::adopt(pid).ok();
    // Windows starts the child suspended until it is in its tree.
    if let Err(err) = platform::release(pid) {
        let _ = handle.kill();
        let _ = handle.wait();
        let why = format!("failed to start `{}`: {err}", spec.program.display());
        return ProcessResult::failed(start, limit, why);
    }
    let mut supervisor = Supervisor {
        handle: &handle,
        tree,
        deadline: start + spec.timeout,
        stopped: None,
        cleared: false,
        contain: spec.contain,
        leave_running: spec.leave_running,
        leaked: Vec::new(),
    };
    let captures = collectors.map(|collector| Capture::new(limit, collector));
    let (waited, captures) = collect(
        &mut supervisor,
        [out_read, err_read],
        writers,
        captures,
        cancel,
    );
    let duration = start.elapsed();
    // Whatever the check left behind in its tree goes too: the gate leaves no
    // process running.
    supervisor.clear_tree();
    let stopped = supervisor.stopped.take();
    let leaked = std::mem::take(&mut supervisor.leaked);
    let [(stdout, stdout_parsed), (stderr, stderr_parsed)] = captures.map(Capture::finish);

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
        leaked,
    }
}

/// Timeout, cancellation and grace rules for one running process.
struct Supervisor<'h> {
    handle: &'h Child,
    tree: Option<platform::Tree>,
    deadline: Instant,
    /// Why and when run-check asked the tree to stop.
    stopped: Option<(End, Instant)>,
    /// The tree was killed after the process exited (`clear_tree`).
    cleared: bool,
    /// The run's containment and this check's index there.
    contain: Option<(&'h Containment, usize)>,
    /// What it leaves behind at a normal end stays (listed).
    leave_running: bool,
    /// What the tree still held at the end (Windows).
    leaked: Vec<Leaked>,
}

impl Supervisor<'_> {
    /// Kills what is left of the tree once the process has exited (and
    /// reaped), then whatever escaped it; with `leave_running` and a normal
    /// end, both stay (listed). Once is enough: nothing in a killed group
    /// can start a new member, and the containment's sweep kills the rest.
    fn clear_tree(&mut self) {
        if self.cleared {
            return;
        }
        self.cleared = true;
        let keep = self.leave_running && self.stopped.is_none();
        if let Some(tree) = &self.tree {
            self.leaked = tree.leftovers(self.handle.id());
            if keep {
                tree.keep();
            }
        }
        let kill_group = || {
            if !keep {
                self.terminate(true);
            }
        };
        match self.contain {
            Some((containment, index)) => containment.ended(index, self.handle.id(), kill_group),
            None => kill_group(),
        }
    }

    fn terminate(&self, hard: bool) {
        match &self.tree {
            Some(tree) if hard => tree.kill(),
            Some(tree) => tree.terminate(),
            None => {
                let _ = self.handle.kill();
            }
        }
    }

    /// Applies the rules now: a cancellation or the deadline terminates the
    /// tree; the end of the grace period (or a second Ctrl-C) kills it.
    fn enforce(&mut self, cancel: &Cancel) {
        let now = Instant::now();
        if self.stopped.is_none() {
            if cancel.is_cancelled() {
                self.terminate(false);
                self.stopped = Some((End::Interrupted, now));
            } else if now >= self.deadline {
                self.terminate(false);
                self.stopped = Some((End::TimedOut, now));
            }
            // What already escaped the tree goes at once, not after the
            // tree's grace.
            if self.stopped.is_some()
                && let Some((containment, index)) = self.contain
            {
                containment.stopping(index);
            }
        }
        if let Some((_, at)) = &self.stopped
            && (now >= *at + GRACE || cancel.level() >= KILL)
        {
            self.terminate(true);
        }
    }

    /// When the rules must be looked at next (never in the past).
    fn next_check(&self) -> Instant {
        let now = Instant::now();
        match &self.stopped {
            None => self.deadline.max(now).min(now + TICK),
            Some((_, at)) => (now + TICK).min((*at + GRACE).max(now + Duration::from_millis(10))),
        }
    }

    /// Waits for the process to exit, applying the rules meanwhile.
    fn wait(&mut self, cancel: &Cancel) -> std::io::Result<ExitStatus> {
        loop {
            // Usually the process has exited by the time its pipes close.
            if let Some(status) = self.handle.try_wait()? {
                return Ok(status);
            }
            if let Some(status) = self.handle.wait_until(self.next_check())? {
                return Ok(status);
            }
            self.enforce(cancel);
        }
    }
}

/// Unix: reads both pipes on this thread, waiting on them with `poll`, and
/// applies the supervisor's rules between reads (also while output never
/// stops, so a chatty check still times out). When the process has exited
/// but something it left holds a pipe open, the tree is killed and reading
/// stops `DRAIN_GRACE` later. No thread per stream: a trivial check costs
/// one spawn and one wait.
#[cfg(unix)]
fn collect(
    supervisor: &mut Supervisor<'_>,
    pipes: [PipeReader; 2],
    writers: Option<[PipeWriter; 2]>,
    mut captures: [Capture; 2],
    cancel: &Cancel,
) -> (std::io::Result<ExitStatus>, [Capture; 2]) {
    let mut pipes = pipes.map(Some);
    // While run-check holds the write ends the pipes cannot end: the exit
    // descriptor says when the process is gone; the writers go then.
    let mut writers = writers;
    // The thread's read buffer, kept from check to check: zeroing a fresh
    // one for every check cost more instructions than all the rest of a
    // trivial check's handling.
    let mut buf = BUFFER.take();
    if buf.is_empty() {
        buf = vec![0u8; FIRST_CHUNK];
    }
    let mut widened = [false; 2];
    // Exit seen while pipes were still open, and when.
    let mut exited: Option<(ExitStatus, Instant)> = None;
    let mut next_check = supervisor.next_check();
    while pipes.iter().any(Option::is_some) {
        let now = Instant::now();
        if now >= next_check {
            match &exited {
                Some((_, at)) if now >= *at + DRAIN_GRACE => break,
                Some(_) => {}
                None => {
                    supervisor.enforce(cancel);
                    if let Ok(Some(status)) = supervisor.handle.try_wait() {
                        exited = Some((status, now));
                        writers = None;
                        supervisor.clear_tree();
                    }
                }
            }
            next_check = match &exited {
                Some((_, at)) => *at + DRAIN_GRACE,
                None => supervisor.next_check(),
            };
        }
        let exit_fd = match (&writers, &exited) {
            (Some(_), None) => supervisor.handle.exit_fd(),
            _ => None,
        };
        let timeout = next_check.saturating_duration_since(now);
        let (ready, exit_ready) = platform::wait_ready(&pipes, exit_fd, timeout);
        if exit_ready {
            // Gone: what it wrote is in the pipes, which end once run-check's
            // writers are closed (and its tree's, killed as after any exit).
            writers = None;
            if let Ok(Some(status)) = supervisor.handle.try_wait() {
                let now = Instant::now();
                exited = Some((status, now));
                next_check = now + DRAIN_GRACE;
                supervisor.clear_tree();
            }
        }
        for (i, is_ready) in ready.into_iter().enumerate() {
            let Some(pipe) = pipes[i].as_mut().filter(|_| is_ready) else {
                continue;
            };
            match pipe.read(&mut buf) {
                Ok(0) => pipes[i] = None,
                Ok(n) => {
                    captures[i].push(&buf[..n]);
                    // A read that fills the buffer marks a chatty stream:
                    // larger reads, and a larger pipe (quiet checks, most
                    // of them, keep the default and skip the call).
                    if n == buf.len() {
                        if !widened[i] {
                            platform::widen(pipe);
                            widened[i] = true;
                        }
                        if buf.len() < CHUNK {
                            buf.resize(CHUNK, 0);
                        }
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => pipes[i] = None,
            }
        }
    }
    drop(writers);
    BUFFER.set(buf);
    let status = match exited {
        Some((status, _)) => Ok(status),
        None => supervisor.wait(cancel),
    };
    (status, captures)
}

#[cfg(unix)]
thread_local! {
    /// `collect`'s read buffer between checks (at most `CHUNK` bytes).
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Elsewhere (Windows): one thread per pipe reads into a shared capture while
/// this thread waits for the process; output still arriving `DRAIN_GRACE`
/// after the exit (a process outside the job holds a pipe) is not waited for.
#[cfg(not(unix))]
fn collect(
    supervisor: &mut Supervisor<'_>,
    pipes: [PipeReader; 2],
    writers: Option<[PipeWriter; 2]>,
    captures: [Capture; 2],
    cancel: &Cancel,
) -> (std::io::Result<ExitStatus>, [Capture; 2]) {
    // Only Linux's clone path hands writers back; the readers need them gone.
    drop(writers);
    let (done_tx, done_rx) = mpsc::channel();
    let [out_pipe, err_pipe] = pipes;
    let [out_capture, err_capture] = captures;
    let shared = [
        drain(out_pipe, out_capture, done_tx.clone()),
        drain(err_pipe, err_capture, done_tx),
    ];
    let status = supervisor.wait(cancel);
    supervisor.clear_tree();
    let drain_deadline = Instant::now() + DRAIN_GRACE;
    for _ in 0..2 {
        let left = drain_deadline.saturating_duration_since(Instant::now());
        if done_rx.recv_timeout(left).is_err() {
            break;
        }
    }
    // A drain thread still running keeps appending to its excerpt; take what
    // is there now.
    let take = |shared: &Arc<Mutex<Capture>>| {
        let mut capture = shared.lock().unwrap_or_else(|p| p.into_inner());
        Capture {
            excerpt: capture.excerpt.clone(),
            collector: capture.collector.take(),
        }
    };
    (status, [take(&shared[0]), take(&shared[1])])
}

/// Reads a pipe to its end on its own thread into a shared capture; signals
/// `done` at end-of-file or on a read error.
#[cfg(not(unix))]
fn drain(mut pipe: PipeReader, capture: Capture, done: mpsc::Sender<()>) -> Arc<Mutex<Capture>> {
    let shared = Arc::new(Mutex::new(capture));
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
        .spawn(reader);
    if spawned.is_err() {
        // No thread: nothing reads this pipe, so the child may block on a full
        // pipe until its timeout. Rare (thread exhaustion); the excerpt says so.
        if let Ok(mut capture) = shared.lock() {
            capture
                .excerpt
                .push(b"run-check: could not start a thread to read this stream\n");
        }
    }
    shared
}
/// Bytes of a script read at most to find its `#!` line.
const SHEBANG_BYTES: u64 = 256;

/// Why `program` did not start. The OS says "No such file or directory" also
/// when the file exists but the interpreter its `#!` line names does not;
/// that is said instead, naming the interpreter.
fn spawn_error(program: &Path, err: &std::io::Error) -> String {
    let plain = format!("failed to start `{}`: {err}", program.display());
    if err.kind() != std::io::ErrorKind::NotFound || !program.is_file() {
        return plain;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(program)
        .and_then(|file| file.take(SHEBANG_BYTES).read_to_end(&mut head));
    if read.is_err() {
        return plain;
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        return plain;
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    match line.split_whitespace().next() {
        Some(interpreter) if !Path::new(interpreter).exists() => format!(
            "failed to start `{}`: the interpreter on its `#!` line, `{interpreter}`, does not exist",
            program.display()
        ),
        _ => plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool.sh");
        std::fs::write(&script, "#!/nonexistent/interp -x\necho hi\n").unwrap();
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(
            spawn_error(&script, &missing),
            format!(
                "failed to start `{}`: the interpreter on its `#!` line, `/nonexistent/interp`, does not exist",
                script.display()
            )
        );
        // A program that is really gone, a script whose interpreter exists,
        // a file without `#!`, another error: the OS's own words.
        let gone = dir.path().join("gone.sh");
        let plain = |path: &Path, err: &std::io::Error| {
            format!("failed to start `{}`: {err}", path.display())
        };
        assert_eq!(spawn_error(&gone, &missing), plain(&gone, &missing));
        let here = std::env::current_exe().unwrap();
        std::fs::write(&script, format!("#!{}\n", here.display())).unwrap();
        assert_eq!(spawn_error(&script, &missing), plain(&script, &missing));
        std::fs::write(&script, "echo hi\n").unwrap();
        assert_eq!(spawn_error(&script, &missing), plain(&script, &missing));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        std::fs::write(&script, "#!/nonexistent/interp\n").unwrap();
        assert_eq!(spawn_error(&script, &denied), plain(&script, &denied));
    }

    #[cfg(unix)]
    #[test]
    fn spawning_a_script_with_a_missing_interpreter_says_so() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool.sh");
        std::fs::write(&script, "#!/nonexistent/interp\necho hi\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = std::process::Command::new(&script).spawn().unwrap_err();
        assert_eq!(
            spawn_error(&script, &err),
            format!(
                "failed to start `{}`: the interpreter on its `#!` line, `/nonexistent/interp`, does not exist",
                script.display()
            )
        );
    }
}
