//! `run-check candidates` (docs/candidates.md): gates the candidate
//! worktrees of one task concurrently within one `--jobs` budget and keeps
//! each candidate's files under `DIR/<task_id>/<candidate_id>/`.
//!
//! Pipeline: arguments checked (nothing is written before every input is
//! good) → the round counted → one gate process per candidate (this
//! binary's `check`, at most `--jobs` at once, sharing a jobs pool:
//! `crate::jobs`) → per candidate, after its gate: `task.json`,
//! `run-check.txt`, `changeset.txt`, the retry record, then the judge
//! (`verdict.json`, `history.jsonl`, `feedback.md`) → the ranked index
//! (`index.json`, `index.md`) → the index on stdout.
//!
//! Each gate is a process of its own, never a thread: the gate's signal
//! handling, child subreaper and orphan sweeps are per process, and one
//! run's sweep must not take another run's checks for orphans.
//!
//! A gate's verdict is its own exit status, and its evidence comes through
//! its stdout, a pipe only this process reads: the code under test runs as
//! the same user and can read the gate's command line, so a path named
//! there (`--out`) is one it could write a forged evidence to before
//! killing the gate. A gate killed by a signal, or whose exit code is not
//! the one its evidence says, gives no verdict: the candidate is an error,
//! never passed.
//!
//! Every file this command reads from `DIR` (the round counter, the index,
//! the retry state, the histories) is read within a bound, and read once
//! before anything is written, so one a past run or anyone else replaced
//! (a link to `/dev/zero`) stops the round with one line.
//!
//! Concurrency: the round is counted, and the index written, under the
//! lock of `DIR/<task_id>/index.json.lock` (the retry state's lock, reused);
//! history lines and retry records take their own locks; every other file
//! is replaced atomically.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use run_check_documents::candidates::{Candidate as Entry, Index};
use run_check_documents::evidence::Evidence;
use run_check_documents::retry::{Decision, RecordOutput};

use crate::aggregate::judge::route::RetryPoint;
use crate::aggregate::judge::verdict::{Recommendation, Verdict};
use crate::aggregate::judge::{self, history::History, input::Source};
use crate::aggregate::retry;
use crate::cli::CandidatesArgs;
use crate::config::{self, Config};
use crate::error::Error;
use crate::exit_code;
use crate::output::{Atomic, FileKind};
use crate::report::{self, Format};
use crate::run::changes::{FileChange, change_set_of};

/// Output format of `candidates`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CandidatesFormat {
    /// A few aligned lines: rank, id, result, score, lines, route, retry
    Text,
    /// The index document (`run-check schema candidates-index`)
    Json,
    /// The index as Markdown (what `index.md` holds)
    Markdown,
}

/// One candidate as named on the command line.
#[derive(Debug)]
struct Named {
    /// Its id: the folder name, or `ID` of `ID=PATH`.
    id: String,
    /// Its worktree (canonical).
    worktree: PathBuf,
}

/// What a gate process left.
#[derive(Debug)]
struct Gated {
    /// The index's exit code: the gate's own (130 when it was never
    /// started, interrupted first), or 2 when it exited 0 or 1 but gave no
    /// verdict.
    code: i32,
    /// Without evidence, why: the gate's last stderr line (the error that
    /// stopped it), or why what it left is no verdict.
    last_line: String,
    /// Its evidence, and the bytes it wrote, when it is the gate's verdict.
    evidence: Option<(Evidence, Vec<u8>)>,
}

/// `run-check candidates`: exit 0 when a candidate passed, 1 when none did.
pub(crate) fn candidates(args: &CandidatesArgs) -> Result<i32, Error> {
    // Every input is checked before anything is written.
    let named = named(&args.worktrees)?;
    let task_bytes = crate::bounded::read(&args.task, crate::bounded::TASK)
        .map_err(|err| Error::io("read task file", &args.task, err))?;
    let task = crate::run::task::from_slice(&args.task, &task_bytes)?;
    let task_id = task.document.id.clone();
    safe_component(&task_id).map_err(|why| Error::Input {
        path: args.task.clone(),
        location: None,
        key: Some("$.id".into()),
        message: format!("{task_id:?} cannot name a folder of --runs: {why}"),
    })?;
    // Without a base, a candidate that committed its change (a weakened
    // script, a regenerated baseline) would be measured against its own
    // HEAD and show nothing; which commit the candidates started from only
    // the caller knows.
    let base = task.document.base.clone().ok_or_else(|| Error::Input {
        path: args.task.clone(),
        location: None,
        key: Some("$.base".into()),
        message: "`candidates` needs the revision the candidates started from \
                  (`\"base\": \"main\"`): each change, and each gate's own files, \
                  are compared with it"
            .into(),
    })?;
    // The trusted config is read once: its `[judge]` and `[retry]` serve
    // every candidate (the gates read the same file by its absolute path).
    let (trusted, trusted_config) = match &args.config {
        Some(path) => {
            let absolute = std::path::absolute(path).map_err(|err| Error::io("find", path, err))?;
            let loaded = config::load(&absolute, path, true)?;
            (Some(absolute), Some(loaded))
        }
        None => (None, None),
    };
    let runs = &args.runs;
    let task_dir = runs.join(&task_id);
    let absolute_runs = resolved(runs).map_err(|err| Error::io("find", runs, err))?;
    if let Some(inside) = named
        .iter()
        .find(|c| absolute_runs.starts_with(&c.worktree))
    {
        return Err(Error::Usage(format!(
            "--runs `{}` lies inside the candidate worktree `{}`: its gate would see the \
             other gates' files appear; name a folder outside every candidate",
            runs.display(),
            inside.worktree.display()
        )));
    }
    let task_path =
        std::path::absolute(&args.task).map_err(|err| Error::io("find", &args.task, err))?;
    // docs/baseline.md: the evidence of the task's base commit, read once
    // here so a bad file stops the round before anything is written.
    let baseline = match &args.baseline {
        Some(path) => {
            crate::json_input::evidence_file(path)?;
            Some(std::path::absolute(path).map_err(|err| Error::io("find", path, err))?)
        }
        None => None,
    };
    preflight(&task_dir, &named)?;
    let jobs = match args.jobs {
        Some(0) | None => std::thread::available_parallelism().map_or(1, usize::from),
        Some(n) => n,
    };
    let at_once = jobs.min(named.len()).max(1);
    // make's rule: each gate runs one check on its implicit token and holds
    // a pool token for each further one. The pool is created with all N
    // tokens and this process takes one for each gate slot, the slot's
    // implicit token, given back when no candidate is left for the slot: the
    // gates still running can then use it.
    let client = match jobs {
        1 => None,
        n => Some(jobserver::Client::new(n).map_err(|err| {
            Error::Environment(format!("cannot create the jobs pool of {n} tokens: {err}"))
        })?),
    };
    let slots = (0..at_once)
        .map(|_| client.as_ref().map(jobserver::Client::acquire).transpose())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| {
            Error::Environment(format!("cannot take a token of the jobs pool: {err}"))
        })?;
    let cancel = crate::signal::install().map_err(Error::Environment)?;

    for candidate in &named {
        let dir = task_dir.join(&candidate.id);
        std::fs::create_dir_all(&dir).map_err(|err| Error::io("create", &dir, err))?;
    }
    let round = next_round(&task_dir)?;
    let exe = std::env::current_exe()
        .map_err(|err| Error::Environment(format!("cannot find run-check's own binary: {err}")))?;
    let gate = Gate {
        exe: &exe,
        task: &task_path,
        baseline: baseline.as_deref(),
        config: trusted.as_deref(),
        mode: args.mode.as_str(),
        jobs,
        client: client.as_ref(),
        cancel,
    };
    let shared = Shared {
        args,
        task_bytes: &task_bytes,
        task_id: &task_id,
        base: &base,
        task_dir: &task_dir,
        config: trusted.as_deref().zip(trusted_config.as_ref()),
    };

    let next = AtomicUsize::new(0);
    let entries: Mutex<Vec<Option<Result<Entry, Error>>>> =
        Mutex::new((0..named.len()).map(|_| None).collect());
    let (next, named, task_dir, gate, shared, entries) =
        (&next, &named, &task_dir, &gate, &shared, &entries);
    std::thread::scope(|scope| {
        for slot in slots {
            scope.spawn(move || {
                // Given back (dropped) when the loop ends.
                let _slot = slot;
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(candidate) = named.get(i) else {
                        return;
                    };
                    let dir = task_dir.join(&candidate.id);
                    // The change is measured before the gate starts, when
                    // the gate measures its change budget: what the checks
                    // write is the read-only verification's to report, and
                    // counted there would make changeset.txt disagree with
                    // the budget and the judge.
                    let changes = change_set_of(&candidate.worktree, shared.base);
                    let gated = match cancel.is_cancelled() {
                        true => Gated {
                            code: exit_code::INTERRUPTED,
                            last_line: "interrupted before its gate started".into(),
                            evidence: None,
                        },
                        false => gate.run(candidate),
                    };
                    let entry = shared.after_gate(candidate, &dir, gated, changes);
                    if let Ok(mut entries) = entries.lock() {
                        entries[i] = Some(entry);
                    }
                }
            });
        }
    });
    drop(client);
    let mut ranked = Vec::new();
    let entries = std::mem::take(
        &mut *entries
            .lock()
            .map_err(|_| Error::Internal("a candidate's thread panicked".into()))?,
    );
    for entry in entries {
        ranked.push(entry.ok_or_else(|| Error::Internal("a candidate was not gated".into()))??);
    }
    rank(&mut ranked);
    let index = Index {
        task_id: task_id.clone(),
        round,
        candidates: ranked,
    };
    write_index(task_dir, &index)?;
    let text = match args.format {
        CandidatesFormat::Json => run_check_documents::pretty(&index),
        CandidatesFormat::Markdown => markdown(&index),
        CandidatesFormat::Text => text(&index, task_dir),
    };
    crate::output::Output::Stdout.write(text.as_bytes())?;
    // Stopped by a signal: what finished is written, as a check run does.
    Ok(match index.candidates.iter().any(|c| c.passed) {
        _ if cancel.is_cancelled() => exit_code::INTERRUPTED,
        true => exit_code::PASS,
        false => exit_code::FAIL,
    })
}

// ---- inputs ----

/// The candidates of the `WORKTREE...` arguments: ids checked (safe as one
/// folder name, unique) and worktrees found.
fn named(arguments: &[String]) -> Result<Vec<Named>, Error> {
    let mut named: Vec<Named> = Vec::new();
    for argument in arguments {
        let (id, path) = match argument.split_once('=') {
            Some((id, path)) => (Some(id.to_string()), path),
            None => (None, argument.as_str()),
        };
        let worktree = dunce::canonicalize(path)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "candidate `{argument}`: `{path}` is not a directory"
                ))
            })?;
        let id = match id {
            Some(id) => id,
            None => worktree
                .file_name()
                .and_then(|name| name.to_str())
                .map(str::to_string)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "candidate `{argument}`: its folder name is no id; write ID={path}"
                    ))
                })?,
        };
        safe_component(&id)
            .map_err(|why| Error::Usage(format!("candidate `{argument}`: id {id:?} {why}")))?;
        if named.iter().any(|c| c.id == id) {
            return Err(Error::Usage(format!(
                "candidate `{argument}`: id {id:?} is given twice; name them ID=PATH"
            )));
        }
        named.push(Named { id, worktree });
    }
    Ok(named)
}

/// `path` made absolute, its longest existing ancestor canonical (symlinks
/// followed, as the worktrees' paths are), the rest appended as written.
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = crate::paths::lexical(&std::path::absolute(path)?);
    let mut rest = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(canonical) = dunce::canonicalize(existing) {
            return Ok(rest.iter().rev().fold(canonical, |p, part| p.join(part)));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return Ok(absolute),
        }
    }
}

/// Whether `name` is safe as one path component on every platform: not
/// empty, not `.` or `..`, no `/`, `\`, `:` or control character.
fn safe_component(name: &str) -> Result<(), &'static str> {
    if name.trim().is_empty() {
        Err("must not be empty")
    } else if name == "." || name == ".." {
        Err("must not be `.` or `..`")
    } else if name.contains(['/', '\\', ':']) {
        Err("must not contain `/`, `\\` or `:`")
    } else if name.chars().any(char::is_control) {
        Err("must not contain control characters")
    } else {
        Ok(())
    }
}

/// Reads every file of `DIR/<task_id>` this round will read (the round
/// counter, the index, the retry state, each candidate's history), each
/// within its bound, so a bad one stops the round before anything is
/// written. They are read again, under their locks, when used.
fn preflight(task_dir: &Path, named: &[Named]) -> Result<(), Error> {
    rounds(&task_dir.join("rounds"))?;
    index_round(&task_dir.join("index.json"))?;
    retry::state::load(&task_dir.join("retry-state.json"))?;
    for candidate in named {
        History::open(&task_dir.join(&candidate.id).join("history.jsonl"), false)?;
    }
    Ok(())
}

/// The number of rounds `DIR/<task_id>/rounds` holds; 0 when missing.
fn rounds(path: &Path) -> Result<u32, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::ROUNDS) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(Error::io("read", path, err)),
    };
    std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .ok_or_else(|| Error::Input {
            path: path.to_path_buf(),
            location: None,
            key: None,
            message: "expected the number of rounds".into(),
        })
}

/// The `round` of the index at `path`; `None` when there is none yet.
fn index_round(path: &Path) -> Result<Option<u64>, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::JSON) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io("read", path, err)),
    };
    let index: serde_json::Value = crate::json_input::typed(path, &bytes)?;
    Ok(index.get("round").and_then(serde_json::Value::as_u64))
}

/// This round's number: `DIR/<task_id>/rounds` counted up under the
/// index's lock.
fn next_round(task_dir: &Path) -> Result<u32, Error> {
    let path = task_dir.join("rounds");
    let _lock = retry::state::Lock::acquire(&task_dir.join("index.json"))?;
    let round = rounds(&path)?.saturating_add(1);
    write(&path, format!("{round}\n").as_bytes())?;
    Ok(round)
}

// ---- the gates ----

/// How every gate process is started.
struct Gate<'a> {
    exe: &'a Path,
    task: &'a Path,
    /// `--baseline`, absolute: the evidence of the task's base commit.
    baseline: Option<&'a Path>,
    config: Option<&'a Path>,
    mode: &'static str,
    /// `--jobs` of each gate: the whole budget (the pool bounds it).
    jobs: usize,
    client: Option<&'a jobserver::Client>,
    /// Raised by a stop signal to `candidates`.
    cancel: &'a crate::signal::Cancel,
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
    fn run(&self, candidate: &Named) -> Gated {
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
enum Ended {
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
fn verdict_of(ended: Ended, output: Result<Vec<u8>, String>, last_line: String) -> Gated {
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

// ---- after each gate ----

/// What every candidate's files are written with.
struct Shared<'a> {
    args: &'a CandidatesArgs,
    task_bytes: &'a [u8],
    task_id: &'a str,
    base: &'a str,
    task_dir: &'a Path,
    /// The trusted `--config` (absolute) and its content, loaded once.
    config: Option<(&'a Path, &'a Config)>,
}

impl Shared<'_> {
    /// Writes `candidate`'s files in `dir` and returns its index entry:
    /// task, report, change set, retry record, then the judge.
    fn after_gate(
        &self,
        candidate: &Named,
        dir: &Path,
        gated: Gated,
        changes: Result<Vec<FileChange>, String>,
    ) -> Result<Entry, Error> {
        write(&dir.join("task.json"), self.task_bytes)?;
        if let Some((_, bytes)) = &gated.evidence {
            write(&dir.join("run-check.json"), bytes)?;
        }
        let report = match &gated.evidence {
            Some((evidence, _)) => report::render(Format::Text, evidence),
            None => format!("{}\n", gated.last_line).into_bytes(),
        };
        write(&dir.join("run-check.txt"), &report)?;
        write(
            &dir.join("changeset.txt"),
            changeset_text(self.base, &changes).as_bytes(),
        )?;
        let measured = changes.as_ref().ok().map(|files| {
            let lines = files
                .iter()
                .map(|f| f.lines.map_or(0, |(a, d)| a + d))
                .sum::<u64>();
            (files.len() as u64, lines)
        });
        let entry_dir = self.args.runs.join(self.task_id).join(&candidate.id);
        let Some((evidence, _)) = gated.evidence else {
            // No evidence: nothing to record or judge; files of an earlier
            // round that would contradict this one go.
            for stale in ["run-check.json", "verdict.json"] {
                let _ = std::fs::remove_file(dir.join(stale));
            }
            let route = judge::verdict::Route {
                next: judge::verdict::NextAgent::User,
                reason: "the gate gave no verdict".into(),
                action: format!("Fix what stopped the gate: {}", gated.last_line),
            };
            let feedback = format!(
                "# Candidate `{}`: no verdict\n\nThe gate gave no verdict \
                 (exit {}):\n\n    {}\n\nNext: {}\n",
                candidate.id, gated.code, gated.last_line, route.action
            );
            write(&dir.join("feedback.md"), feedback.as_bytes())?;
            return Ok(Entry {
                id: candidate.id.clone(),
                rank: 1,
                passed: false,
                exit_code: gated.code,
                banner: gated.last_line,
                overall_score: None,
                route,
                retry_decision: None,
                files_changed: measured.map(|m| m.0),
                loc_changed: measured.map(|m| m.1),
                dir: entry_dir.display().to_string(),
            });
        };
        let evidence_path = std::path::absolute(dir.join("run-check.json"))
            .unwrap_or_else(|_| dir.join("run-check.json"));
        // Record the retry first: the judge's route reads it (rule 5). The
        // limit is `[retry]` of the trusted config, else of the config the
        // evidence was made with.
        let max_retries = self.config.map(|(_, config)| retry::limit(config));
        let recorded = retry::record(&retry::Record {
            task_id: self.task_id,
            phase: self.args.phase,
            subagent: &candidate.id,
            evidence: &evidence_path,
            state: &self.task_dir.join("retry-state.json"),
            max_retries,
            lessons: None,
        })?;
        let verdict = judge_candidate(
            &evidence_path,
            &evidence,
            &dir.join("history.jsonl"),
            self.config,
            &recorded,
        )?;
        write(
            &dir.join("verdict.json"),
            run_check_documents::pretty(&verdict).as_bytes(),
        )?;
        write(
            &dir.join("feedback.md"),
            judge::markdown::render(&verdict).as_bytes(),
        )?;
        let budget = evidence.contracts.change_budget.as_ref();
        Ok(Entry {
            id: candidate.id.clone(),
            rank: 1,
            // The judge's PASS: a green gate and every score gate, so a
            // candidate that weakened its own gate (exit 0 by its own
            // checks) is not a passed one.
            passed: verdict.recommendation == Recommendation::Pass,
            exit_code: evidence.summary.exit_code,
            banner: evidence.summary.banner.clone(),
            overall_score: verdict.overall_score,
            route: verdict.route.clone(),
            retry_decision: Some(recorded.decision),
            files_changed: budget.map(|b| b.files_changed).or(measured.map(|m| m.0)),
            loc_changed: budget.map(|b| b.loc_changed).or(measured.map(|m| m.1)),
            dir: entry_dir.display().to_string(),
        })
    }
}

/// The judge of one candidate's round: what `run-check judge EV --history H
/// --record [--config C] --state S --phase P --subagent ID` does,
/// in-process. `[judge]` is the trusted config's, else the config the
/// evidence was made with (as `judge` reads it).
pub(crate) fn judge_candidate(
    evidence_path: &Path,
    evidence: &Evidence,
    history_path: &Path,
    trusted: Option<(&Path, &Config)>,
    recorded: &RecordOutput,
) -> Result<Verdict, Error> {
    let source = Source::Evidence(Box::new(evidence.clone()));
    let (judge_config, config_used) = match trusted {
        Some((path, config)) => judge::used(config, path),
        None => judge::judge_config(None, &source)?,
    };
    let retry = RetryPoint {
        name: format!(
            "{}/{}/{}",
            recorded.task_id,
            recorded.phase.as_str(),
            recorded.subagent
        ),
        retry_count: recorded.retry_count,
        max_retries: recorded.max_retries,
        decision: recorded.decision,
    };
    let history = History::open(history_path, true)?;
    let verdict = judge::evaluate(&judge::Round {
        source: &source,
        config: &judge_config,
        config_used: config_used.as_ref(),
        history: &history.rounds,
        retry: Some(&retry),
        file: evidence_path,
    })?;
    history.append(&verdict)?;
    Ok(verdict)
}

/// `changeset.txt`: a summary line, then one line per file.
fn changeset_text(base: &str, changes: &Result<Vec<FileChange>, String>) -> String {
    let files = match changes {
        Ok(files) => files,
        Err(why) => return format!("changes against `{base}`: not measured: {why}\n"),
    };
    let added: u64 = files.iter().filter_map(|f| f.lines).map(|l| l.0).sum();
    let removed: u64 = files.iter().filter_map(|f| f.lines).map(|l| l.1).sum();
    let mut text = format!(
        "changes against `{base}`: {}, +{added} -{removed}\n",
        crate::output::plural(files.len(), "file")
    );
    for file in files {
        let lines = match file.lines {
            Some((a, d)) => format!("{:>7} {:>7}", format!("+{a}"), format!("-{d}")),
            None => format!("{:>15}", "binary"),
        };
        let note = if file.untracked { " (untracked)" } else { "" };
        text.push_str(&format!(
            "{lines}  {}{note}\n",
            crate::paths::to_slashes(&file.path)
        ));
    }
    text
}

// ---- the index ----

/// Sorts best first (passed, then higher overall score, then fewer changed
/// lines, null last, then id) and numbers the ranks.
fn rank(entries: &mut [Entry]) {
    entries.sort_by(|a, b| {
        b.passed
            .cmp(&a.passed)
            .then_with(|| match (a.overall_score, b.overall_score) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| match (a.loc_changed, b.loc_changed) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.id.cmp(&b.id))
    });
    for (n, entry) in entries.iter_mut().enumerate() {
        entry.rank = u32::try_from(n + 1).unwrap_or(u32::MAX);
    }
}

/// Writes `index.json` and `index.md` under the index's lock, unless a
/// later round already wrote its index (rounds running at once end in any
/// order; the index is the latest round's).
fn write_index(task_dir: &Path, index: &Index) -> Result<(), Error> {
    let path = task_dir.join("index.json");
    let _lock = retry::state::Lock::acquire(&path)?;
    let newer = index_round(&path)?.is_some_and(|round| round > u64::from(index.round));
    if newer {
        return Ok(());
    }
    write(&path, run_check_documents::pretty(index).as_bytes())?;
    write(&task_dir.join("index.md"), markdown(index).as_bytes())
}

/// A score with two decimals, or `-`.
fn score(score: Option<f64>) -> String {
    score.map_or("-".into(), |s| format!("{s:.2}"))
}

fn count(n: Option<u64>) -> String {
    n.map_or("-".into(), |n| n.to_string())
}

fn retry_word(decision: Option<Decision>) -> &'static str {
    decision.map_or("-", Decision::as_str)
}

/// `--format text`: an aligned table and a closing line.
fn text(index: &Index, task_dir: &Path) -> String {
    let rows: Vec<[String; 8]> = index
        .candidates
        .iter()
        .map(|c| {
            [
                c.rank.to_string(),
                c.id.clone(),
                c.exit_code.to_string(),
                score(c.overall_score),
                count(c.loc_changed),
                c.route.next.as_str().to_string(),
                retry_word(c.retry_decision).to_string(),
                c.banner.clone(),
            ]
        })
        .collect();
    let mut text = format!(
        "task `{}`, round {} ({})\n",
        index.task_id,
        index.round,
        task_dir.display()
    );
    text.push_str(&crate::output::table(
        [
            "RANK",
            "CANDIDATE",
            "EXIT",
            "SCORE",
            "LINES",
            "ROUTE",
            "RETRY",
            "BANNER",
        ],
        &rows,
    ));
    let passed = index.candidates.iter().filter(|c| c.passed).count();
    text.push_str(&format!(
        "{passed} of {} passed",
        crate::output::plural(index.candidates.len(), "candidate")
    ));
    match index.candidates.first().filter(|c| c.passed) {
        Some(best) => text.push_str(&format!("; best: {}\n", best.id)),
        None => text.push('\n'),
    }
    crate::sanitize::for_display(&text).into_owned()
}

/// `index.md` (and `--format markdown`): a table and each route's action.
fn markdown(index: &Index) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut md = format!(
        "# Candidates of task `{}`, round {}\n\n\
         | rank | candidate | exit | score | files | lines | route | retry | banner |\n\
         |---:|---|---:|---:|---:|---:|---|---|---|\n",
        cell(&index.task_id),
        index.round
    );
    for c in &index.candidates {
        md.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            c.rank,
            cell(&c.id),
            c.exit_code,
            score(c.overall_score),
            count(c.files_changed),
            count(c.loc_changed),
            c.route.next.as_str(),
            retry_word(c.retry_decision),
            cell(&c.banner)
        ));
    }
    md.push_str("\n## Next steps\n\n");
    for c in &index.candidates {
        md.push_str(&format!(
            "- `{}` ({}): {}\n",
            cell(&c.id),
            c.route.next.as_str(),
            cell(&c.route.action)
        ));
    }
    crate::sanitize::for_display(&md).into_owned()
}

/// Replaces `path` atomically with `bytes`.
fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    Atomic::create(path, path, FileKind::Regular)?.commit(bytes, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_must_be_one_safe_folder_name() {
        for bad in ["", " ", ".", "..", "a/b", "a\\b", "c:", "x\ny", "../x"] {
            assert!(safe_component(bad).is_err(), "{bad:?}");
        }
        for good in ["c1", "impl-2", "T-42", "é"] {
            assert!(safe_component(good).is_ok(), "{good:?}");
        }
    }

    fn entry(id: &str, passed: bool, score: Option<f64>, loc: Option<u64>) -> Entry {
        Entry {
            id: id.into(),
            rank: 0,
            passed,
            exit_code: if passed { 0 } else { 1 },
            banner: String::new(),
            overall_score: score,
            route: judge::verdict::Route::default(),
            retry_decision: None,
            files_changed: None,
            loc_changed: loc,
            dir: String::new(),
        }
    }

    #[test]
    fn ranking_is_passed_score_lines_id() {
        let mut entries = vec![
            entry("e", false, None, Some(1)),
            entry("d", false, Some(90.0), Some(5)),
            entry("c", true, Some(80.0), None),
            entry("b", true, Some(80.0), Some(10)),
            entry("a", true, Some(80.0), Some(10)),
            entry("f", true, Some(95.0), Some(400)),
        ];
        rank(&mut entries);
        let order: Vec<(&str, u32)> = entries.iter().map(|e| (e.id.as_str(), e.rank)).collect();
        assert_eq!(
            order,
            [("f", 1), ("a", 2), ("b", 3), ("c", 4), ("d", 5), ("e", 6)]
        );
    }

    /// A gate's evidence as it would print it, and its exit code.
    fn printed() -> (Vec<u8>, i32) {
        let evidence = crate::aggregate::judge::tests::evidence_with(vec![], vec![]);
        let code = evidence.summary.exit_code;
        (serde_json::to_vec(&evidence).unwrap(), code)
    }

    fn gated(ended: Ended, output: Result<&[u8], &str>) -> (i32, String, bool) {
        let output = output.map(<[u8]>::to_vec).map_err(str::to_string);
        let gated = verdict_of(ended, output, "error: the last line".into());
        (gated.code, gated.last_line, gated.evidence.is_some())
    }

    #[test]
    fn the_verdict_is_the_gate_s_own_exit_status() {
        let (bytes, code) = printed();
        let other = if code == exit_code::PASS {
            exit_code::FAIL
        } else {
            exit_code::PASS
        };
        // Exited by itself, as its evidence says: its verdict.
        assert_eq!(
            gated(Ended::Code(code), Ok(&bytes)),
            (code, "error: the last line".into(), true)
        );
        // Killed: whatever its output holds is no verdict, and no result.
        assert_eq!(
            gated(Ended::Killed("killed by signal 9".into()), Ok(&bytes)),
            (
                2,
                "no verdict: the gate was killed by signal 9 before it finished".into(),
                false
            )
        );
        // Its exit code and its evidence disagree.
        assert_eq!(
            gated(Ended::Code(other), Ok(&bytes)),
            (
                2,
                format!("no verdict: the gate exited {other}, but its evidence says {code}"),
                false
            )
        );
        // A pass or a failure without evidence, or with a document that is
        // not one, is no result (exit 2, never 0 or 1).
        for exit in [0, 1] {
            assert_eq!(
                gated(Ended::Code(exit), Ok(b"")),
                (
                    2,
                    format!("no verdict: the gate exited {exit} but wrote no evidence"),
                    false
                )
            );
            let (code, line, kept) = gated(Ended::Code(exit), Ok(b"{} {}"));
            assert_eq!((code, kept), (2, false));
            assert!(
                line.starts_with("no verdict: the gate's output is no evidence: "),
                "{line}"
            );
            assert_eq!(
                gated(Ended::Code(exit), Err("the gate's output: too large")),
                (2, "no verdict: the gate's output: too large".into(), false)
            );
        }
        // An error that stopped the gate keeps its own line and code.
        for exit in [2, 101, 130] {
            assert_eq!(
                gated(Ended::Code(exit), Ok(b"")),
                (exit, "error: the last line".into(), false)
            );
        }
    }

    #[test]
    fn changeset_text_lists_binary_and_untracked_files() {
        let files = vec![
            FileChange {
                path: "a.rs".into(),
                lines: Some((3, 1)),
                untracked: false,
            },
            FileChange {
                path: "img.png".into(),
                lines: None,
                untracked: false,
            },
            FileChange {
                path: "new.txt".into(),
                lines: Some((2, 0)),
                untracked: true,
            },
        ];
        assert_eq!(
            changeset_text("HEAD", &Ok(files)),
            "changes against `HEAD`: 3 files, +5 -1\n     +3      -1  a.rs\n         \
             binary  img.png\n     +2      -0  new.txt (untracked)\n"
        );
    }
}
