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

mod after;
mod gate;
mod inputs;
mod summary;
#[cfg(test)]
mod tests;
mod worktrees;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use run_check_documents::candidates::{Candidate as Entry, Index};
use run_check_documents::retry::Decision;

use crate::aggregate::retry;
use crate::cli::{CandidatesArgs, CandidatesCommand, CandidatesFormat};
use crate::error::Error;
use crate::output::replace;
use crate::run::changes::change_set_of;
use run_check_documents::exit_code;

use after::Shared;
use gate::{Gate, Gated};
use inputs::index_round;

/// One candidate as named on the command line.
#[derive(Debug)]
struct Named {
    /// Its id: the folder name, or `ID` of `ID=PATH`.
    pub(super) id: String,
    /// Its worktree (canonical).
    pub(super) worktree: PathBuf,
}

/// `run-check candidates`: exit 0 when a candidate passed, 1 when none did.
pub(crate) fn candidates(args: &CandidatesArgs) -> Result<i32, Error> {
    match &args.command {
        Some(CandidatesCommand::Create(args)) => return worktrees::create(args),
        Some(CandidatesCommand::Cleanup(args)) => return worktrees::cleanup(args),
        Some(CandidatesCommand::Summary(args)) => return summary::summary(args),
        None => {}
    }
    // Every input is checked before anything is written.
    let inputs = inputs::read(args)?;
    let task_dir = args.runs.join(&inputs.task_id);
    let named = &inputs.named;
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

    for candidate in named {
        let dir = task_dir.join(&candidate.id);
        std::fs::create_dir_all(&dir).map_err(|err| Error::io("create", &dir, err))?;
    }
    let round = inputs::next_round(&task_dir)?;
    let exe = std::env::current_exe()
        .map_err(|err| Error::Environment(format!("cannot find run-check's own binary: {err}")))?;
    let trusted = inputs
        .trusted
        .as_ref()
        .map(|(path, config)| (path.as_path(), config));
    let gate = Gate {
        exe: &exe,
        task: &inputs.task_path,
        baseline: inputs.baseline.as_deref(),
        config: trusted.map(|(path, _)| path),
        mode: args.mode.as_str(),
        jobs,
        client: client.as_ref(),
        cancel,
    };
    let shared = Shared {
        args,
        task_bytes: &inputs.task_bytes,
        task_id: &inputs.task_id,
        base: &inputs.base,
        task_dir: &task_dir,
        config: trusted,
    };
    let mut ranked = gate_all(named, slots, &gate, &shared)?;
    drop(client);
    rank(&mut ranked);
    let index = Index {
        task_id: inputs.task_id.clone(),
        round,
        candidates: ranked,
    };
    write_index(&task_dir, &index)?;
    let text = match args.format {
        CandidatesFormat::Json => run_check_documents::pretty(&index),
        CandidatesFormat::Markdown => markdown(&index),
        CandidatesFormat::Text => text(&index, &task_dir),
    };
    crate::output::Output::Stdout.write(text.as_bytes())?;
    // Stopped by a signal: what finished is written, as a check run does.
    Ok(if cancel.is_cancelled() {
        exit_code::INTERRUPTED
    } else if index.candidates.iter().any(|c| c.passed) {
        exit_code::PASS
    } else {
        exit_code::FAIL
    })
}

/// Gates every candidate, at most one per slot at once (each slot a
/// thread holding its pool token), and returns their index entries in
/// the candidates' order.
fn gate_all(
    named: &[Named],
    slots: Vec<Option<jobserver::Acquired>>,
    gate: &Gate<'_>,
    shared: &Shared<'_>,
) -> Result<Vec<Entry>, Error> {
    let (cancel, task_dir) = (gate.cancel, shared.task_dir);
    let next = AtomicUsize::new(0);
    let entries: Mutex<Vec<Option<Result<Entry, Error>>>> =
        Mutex::new((0..named.len()).map(|_| None).collect());
    let (next, entries) = (&next, &entries);
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
                    let gated = if cancel.is_cancelled() {
                        Gated {
                            code: exit_code::INTERRUPTED,
                            last_line: "interrupted before its gate started".into(),
                            evidence: None,
                        }
                    } else {
                        gate.run(candidate)
                    };
                    let entry = shared.after_gate(candidate, &dir, gated, changes);
                    if let Ok(mut entries) = entries.lock() {
                        entries[i] = Some(entry);
                    }
                }
            });
        }
    });
    let mut ranked = Vec::new();
    let entries = std::mem::take(
        &mut *entries
            .lock()
            .map_err(|_| Error::Internal("a candidate's thread panicked".into()))?,
    );
    for entry in entries {
        ranked.push(entry.ok_or_else(|| Error::Internal("a candidate was not gated".into()))??);
    }
    Ok(ranked)
}

// ---- the ranked index ----

/// Sorts best first (passed, then higher overall score, then fewer changed
/// lines, null last, then id) and numbers the ranks.
fn rank(entries: &mut [Entry]) {
    entries.sort_by(|a, b| {
        b.passed
            .cmp(&a.passed)
            .then_with(|| none_last(a.overall_score, b.overall_score, |x, y| y.total_cmp(&x)))
            .then_with(|| none_last(a.loc_changed, b.loc_changed, |x, y| x.cmp(&y)))
            .then_with(|| a.id.cmp(&b.id))
    });
    for (n, entry) in entries.iter_mut().enumerate() {
        entry.rank = u32::try_from(n + 1).unwrap_or(u32::MAX);
    }
}

/// Two values by `order`, `None` after every value.
fn none_last<T>(
    a: Option<T>,
    b: Option<T>,
    order: impl Fn(T, T) -> std::cmp::Ordering,
) -> std::cmp::Ordering {
    match (a, b) {
        (Some(x), Some(y)) => order(x, y),
        (a, b) => a.is_none().cmp(&b.is_none()),
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
    replace(&path, run_check_documents::pretty(index).as_bytes())?;
    replace(&task_dir.join("index.md"), markdown(index).as_bytes())
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
