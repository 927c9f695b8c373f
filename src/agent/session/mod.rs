//! `run-check agent hook AGENT EVENT`: one session's state machine
//! (docs/agents.md, "The session").
//!
//! - Session start (Cursor: a prompt, the first of the conversation counts):
//!   the session's state folder `<git-dir>/run-check/agent/<session>/` is
//!   created with `state.json` (the commit `HEAD` names now: the session's
//!   base); no gate runs, except with `new_only`, where `baseline.json` is
//!   the gate's evidence now less the worktree's debts ([`debts`]).
//!   A session that already has a state is resumed as it is.
//! - Stop: the gate runs as a child process of this binary (`check --mode M
//!   --baseline B --changed-since <base> --format json`, B the session's
//!   `baseline.json` with `new_only`, else the committed `[agent] baseline`
//!   ([`committed`])), the round is judged with the session's
//!   history (`history.jsonl`), and the hook follows the round's route:
//!   `FINISH` lets the agent stop; `IMPLEMENTER` blocks with the feedback
//!   (at most `max_blocks` consecutive times); `USER`, `SUBTASK` and
//!   `VALIDATE` let it stop and tell the user.
//!
//! Decisions the agents' hook documentation leaves open:
//! - The judge's history is the current attempt: it restarts empty when the
//!   agent is let go without a pass (so a user's "keep going" gets a fresh
//!   `max_iterations`), and keeps only the passing round when a stop passes
//!   (so a failure after it is a regression the judge rolls back).
//! - Consecutive blocks count within a turn: a stop the agent's input marks
//!   as not following a block (`stop_hook_active` false, Cursor's
//!   `loop_count` 0) starts the count again.
//! - A stop with no recorded session start starts the session there, with
//!   no baseline: every failure counts, and the user is told once.
//! - The session is pinned: its repository, checks.toml and base are
//!   recorded at its start in the platform's state folder ([`pin`]), and a
//!   later event gates them whatever its `cwd`. Its files carry a digest
//!   chain ([`chain`]) checked at every event ([`trust`]): a session
//!   changed by anything but the hook starts again with every failure
//!   counted, and its next stop blocks once saying why.
//! - Only a blocking answer is replayed to another agent's hook of the
//!   same stop: a pass is always gated again.
//! - A session id that is not already a file name (`[A-Za-z0-9_-]`, at
//!   most 64 characters) is refused like bad input: no agent sends one.
//! - Anything that stops the hook from judging (bad input, no repository, a
//!   broken checks.toml, a gate that could not start, a state it cannot
//!   write) lets the agent stop with one line saying why: a broken gate must
//!   not trap an agent. A gate that dies (killed by a signal run-check did
//!   not send, no evidence) blocks once first, and a gate cut short by
//!   `[agent] timeout` blocks on what finished ([`ending`]).
//! - The gate's verdict is its process's: exit code and stdout
//!   ([`crate::agent::gate`]). A copy of the evidence is kept as
//!   `round-N.json` (for `agent feedback` and the block's `evidence:`
//!   line); the hook never reads its answer back from it.

mod chain;
mod committed;
mod debts;
mod ending;
mod pin;
mod place;
mod reuse;
mod state;
mod trust;

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::gate::Gate;
use crate::agent::protocol::{self, Agent, Event, Input, Reply};
use crate::aggregate::judge::round::{self, Ask, Record};
use crate::aggregate::judge::{input::Source, verdict::NextAgent};
use crate::config::{AgentConfig, Config};
use crate::report::feedback;
use run_check_documents::evidence::Evidence;

use chain::{Chain, Found};
use ending::Outcome;
use pin::Mirror;
pub(crate) use state::latest_round;
use state::{
    Answered, Kind, REPLAY_SECONDS, STATE_VERSION, State, now, prune, sha256, write_atomic,
};

/// Finds the checks.toml a run in the current directory reads: the
/// worktree and its config, or why there is none.
pub(crate) type Load<'a> = &'a dyn Fn() -> Result<(PathBuf, Config), String>;

/// The hook of `agent` (its name) for `event` (as the agent spells it):
/// the reply as the agent reads it. `load` finds the config once the hook
/// is in the project's directory.
pub(crate) fn hook(agent: Option<&str>, event: Option<&str>, load: Load<'_>) -> protocol::Rendered {
    let Some(agent) = agent.and_then(Agent::from_name) else {
        return protocol::Rendered {
            stdout: "{}".into(),
            stderr: Some(protocol::stderr_line(&format!(
                "unknown agent `{}` ({}): the hook does nothing",
                agent.unwrap_or(""),
                Agent::names()
            ))),
            code: 0,
        };
    };
    let handled = event.and_then(|e| agent.event(e));
    let (reply, answer) = match handled {
        Some(handled) => run(agent, handled, load),
        None => (
            Reply::Release {
                message: format!(
                    "`{}` is not an event run-check handles for {} ({}{}): the hook does nothing",
                    event.unwrap_or(""),
                    agent.name(),
                    agent.events().join(", "),
                    match agent.pre_tool() {
                        Some(pre) if event == Some(pre.event) =>
                            format!("; `{}` is its pre-tool event", pre.event),
                        _ => String::new(),
                    }
                ),
            },
            agent,
        ),
    };
    protocol::render(answer, handled, &reply)
}

/// Reads the input and handles the event; every failure is a release. The
/// reply, and the agent whose format it is given in (the input's, when
/// that agent reads only its own: [`protocol::Replies::own_format`]).
fn run(agent: Agent, event: Event, load: Load<'_>) -> (Reply, Agent) {
    let read = match agent.protocol().fields.stdin {
        true => protocol::read_stdin("the hook input")
            .and_then(|value| protocol::read_input(agent, &value)),
        false => protocol::local_input(agent),
    };
    let input = match read {
        Ok(input) => input,
        Err(why) => return (release(why), agent),
    };
    let answer = input.reply_as.unwrap_or(agent);
    if input.abandoned {
        return (Reply::Allow, answer);
    }
    let reply = match Session::open(agent, &input, load) {
        Ok(session) => {
            let reply = session.handle(event, &input);
            session.seal(reply)
        }
        Err(why) => release(why),
    };
    (reply, answer)
}

fn release(why: impl Into<String>) -> Reply {
    Reply::Release {
        message: format!("{}; the agent may stop", why.into()),
    }
}

/// The git directory the session `name` (a file name) was pinned to at
/// its start, `None` when it has no record: where `agent guard` records
/// its denials, whatever the tool call's `cwd`.
pub(crate) fn pinned_git_dir(name: &str) -> Option<PathBuf> {
    pin::read(name).ok().flatten().map(|mirror| mirror.git_dir)
}

/// The repository of the current directory: its git directory, and the
/// worktree and config a run here reads.
fn located(load: Load<'_>) -> Result<(PathBuf, PathBuf, Config), String> {
    let cwd = std::env::current_dir()
        .map_err(|err| format!("cannot read the current directory: {err}"))?;
    let git_dir = crate::git::ask(&cwd, &["rev-parse", "--absolute-git-dir"])
        .map_err(|why| format!("not in a git repository ({why})"))?;
    // Compared with the recorded one: the same folder, however named.
    let git_dir = dunce::canonicalize(&git_dir).unwrap_or_else(|_| PathBuf::from(git_dir));
    let (worktree, config) = load()?;
    Ok((git_dir, worktree, config))
}

/// One session: its repository, config and state folder, locked.
struct Session {
    agent: Agent,
    /// The session id, a file name.
    name: String,
    worktree: PathBuf,
    config: Config,
    dir: PathBuf,
    /// Its record in the state folder: the pin, and the chain's mirror
    /// as this event will leave it.
    mirror: RefCell<Mirror>,
    /// The base a session started again keeps: the recorded one, when
    /// the session has a record (`None`: `HEAD` now).
    pinned_base: Option<Option<String>>,
    /// What this event found of the session's files (taken by `handle`).
    found: RefCell<Option<Found>>,
    /// The chain as this event leaves it.
    chain: RefCell<Chain>,
    /// What the user is told with this event's reply.
    notes: RefCell<Vec<String>>,
    /// Held until the hook ends: two hooks of one session take turns.
    _lock: std::fs::File,
}

impl Session {
    /// Finds the repository of `input`, loads its checks.toml, and creates
    /// and locks the session's state folder.
    fn open(agent: Agent, input: &Input, load: Load<'_>) -> Result<Session, String> {
        let id = input
            .session
            .as_deref()
            .ok_or("the hook input names no session (session_id)")?;
        // The agents' ids (UUIDs, ULIDs) are file names already; one that
        // the reduction would change is not an agent's: refused, so that
        // `../../x` and `x` can never share (or escape) a state folder.
        let name = protocol::session_name(id)
            .filter(|name| name == id)
            .ok_or_else(|| {
                format!(
                    "the session id {:?} is not a file name ([A-Za-z0-9_-], at most 64 characters): ignored",
                    id.chars().take(80).collect::<String>()
                )
            })?;
        // A session with a recorded start is gated where it started,
        // whatever this event's directory says: its record names it.
        pin::path(&name).map_err(|why| format!("the session cannot be kept: {why}"))?;
        let record = pin::read(&name);
        let pinned = record.as_ref().ok().and_then(Option::as_ref);
        let enter = match pinned {
            Some(mirror) => Some(mirror.worktree.clone()),
            None => input.dir.as_ref().map(PathBuf::from),
        };
        if let Some(dir) = &enter {
            std::env::set_current_dir(dir).map_err(|err| {
                format!(
                    "cannot enter the project directory `{}`: {err}",
                    dir.display()
                )
            })?;
        }
        let (git_dir, worktree, config) = located(load)?;
        if let Some(mirror) = pinned
            && (worktree != mirror.worktree || git_dir != mirror.git_dir)
        {
            return Err(format!(
                "the session's checks.toml {} is gone (the gate found {} instead): the \
                 session cannot be gated as it started",
                mirror.config.display(),
                worktree.join("checks.toml").display()
            ));
        }
        let dir = git_dir.join("run-check").join("agent").join(&name);
        let lock = crate::agent::lock_session_folder(&dir, "lock")?;
        // Read again under the lock: another hook of the session (Copilot
        // runs two per event) may have written it since.
        let record = pin::read(&name);
        let pinned = record.as_ref().ok().and_then(Option::as_ref);
        let pruned = pinned.is_some_and(|mirror| mirror.pruned);
        let mirrored = match &record {
            Ok(record) => Ok(record.as_ref().map(|mirror| &mirror.chain)),
            Err(why) => Err(why.clone()),
        };
        let found = chain::check(&dir, mirrored, pruned);
        let pinned_base = pinned.map(|mirror| mirror.base.clone());
        let mirror = match record {
            Ok(Some(mirror)) => mirror,
            _ => Mirror::new(&git_dir, &worktree, None),
        };
        Ok(Session {
            agent,
            name,
            worktree,
            config,
            dir,
            mirror: RefCell::new(mirror),
            pinned_base,
            found: RefCell::new(Some(found)),
            chain: RefCell::new(Chain::default()),
            notes: RefCell::new(Vec::new()),
            _lock: lock,
        })
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    fn baseline_path(&self) -> PathBuf {
        self.dir.join("baseline.json")
    }

    /// The session's name (its folder's).
    fn name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The folder of the repository's sessions, where the debts are kept.
    fn sessions(&self) -> &Path {
        self.dir.parent().unwrap_or(&self.dir)
    }

    /// The state, `None` when the session has none yet.
    fn load(&self) -> Result<Option<State>, String> {
        let path = self.state_path();
        match crate::bounded::read_regular(&path, crate::bounded::SESSION) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|err| {
                format!("the session state {} is unreadable ({err})", path.display())
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(format!("cannot read {}: {err}", path.display())),
        }
    }

    fn save(&self, state: &State) -> Result<(), String> {
        let text = serde_json::to_string_pretty(state).unwrap_or_default() + "\n";
        let saved = write_atomic(&self.state_path(), text.as_bytes());
        self.wrote("state.json");
        saved
    }

    /// The commit `HEAD` names now.
    fn head(&self) -> Option<String> {
        crate::git::ask(
            &self.worktree,
            &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
        )
        .ok()
        .filter(|c| !c.is_empty())
    }

    /// A new state based on `HEAD` now; with `take_baseline` and
    /// `new_only`, the gate's evidence now becomes the baseline.
    fn begin(&self, take_baseline: bool) -> Result<(State, Option<String>), String> {
        let mut note = None;
        let mut baseline_sha256 = None;
        if take_baseline && self.config.agent.new_only {
            // What an earlier session left red is not this one's to excuse.
            let taken = self
                .gate(None, None, Vec::new())
                .whole()
                .and_then(|(evidence, bytes)| debts::unexcused(self.sessions(), evidence, bytes))
                .and_then(|bytes| write_atomic(&self.baseline_path(), &bytes).map(|()| bytes));
            self.wrote("baseline.json");
            match taken {
                Ok(bytes) => baseline_sha256 = Some(sha256(&bytes)),
                Err(why) => {
                    note = Some(format!(
                        "the session's baseline could not be taken ({why}): every failure counts"
                    ));
                }
            }
        }
        // Started again, a session keeps the base it was pinned to.
        let base = match &self.pinned_base {
            Some(base) => base.clone(),
            None => self.head(),
        };
        self.mirror.borrow_mut().base = base.clone();
        let state = State {
            version: STATE_VERSION,
            agent: self.agent.name().into(),
            base,
            baseline_sha256,
            rounds: 0,
            window_start: 1,
            blocks: 0,
            answered: None,
            died: 0,
        };
        self.save(&state)?;
        let removed = prune(self.dir.parent().unwrap_or(&self.dir), &self.dir);
        pin::pruned(&removed, &self.mirror.borrow().git_dir);
        pin::sweep();
        Ok((state, note))
    }

    /// Session start: take the baseline once.
    fn start(&self) -> Reply {
        match self.load() {
            Ok(Some(_)) => Reply::Allow,
            Ok(None) => match self.begin(true) {
                Ok((_, None)) => Reply::Allow,
                Ok((_, Some(note))) => Reply::Release { message: note },
                Err(why) => release(why),
            },
            Err(why) => release(why),
        }
    }

    /// Stop: gate, judge, follow the route; or, for the second hook of a
    /// stop already gated, its answer again.
    fn stop(&self, input: &Input) -> Reply {
        let (mut state, note) = match self.load() {
            Ok(Some(state)) => (state, None),
            // A baseline taken now would excuse what the agent already did.
            Ok(None) => match self.begin(false) {
                Ok((state, _)) => (
                    state,
                    Some(
                        "no session start was recorded for this session: the gate holds the \
                         agent to every failure"
                            .to_string(),
                    ),
                ),
                Err(why) => return release(why),
            },
            Err(why) => return release(why),
        };
        // Only a block is replayed: a pass or a release recorded by a hook
        // anyone can run (the agent's shell, while the code was green)
        // never answers a stop that was not gated.
        if let Some(answered) = state.answered.as_mut()
            && answered.kind == Kind::Block
            && answered.agent != self.agent.name()
            && !answered.replayed
            && now().saturating_sub(answered.at) <= REPLAY_SECONDS
        {
            answered.replayed = true;
            let reply = answered.reply();
            return match self.save(&state) {
                Ok(()) => reply,
                Err(why) => release(why),
            };
        }
        let reply = self.gated(&mut state, input, note);
        state.answered = Some(Answered::new(self.agent, state.rounds, &reply));
        if let Err(why) = self.save(&state) {
            return release(why);
        }
        reply
    }

    /// Gates one stop: updates `state` (not saved) and gives the reply.
    fn gated(&self, state: &mut State, input: &Input, mut note: Option<String>) -> Reply {
        if !input.continued {
            state.blocks = 0;
        }
        let baseline = match &state.baseline_sha256 {
            Some(recorded) => match state::sha256_of(&self.baseline_path()) {
                Some(now) if now == *recorded => Some(self.baseline_path()),
                _ => {
                    return release(format!(
                        "the session's baseline {} changed since the session started (the \
                         agent may have edited it); run-check no longer trusts this session: \
                         delete {} to start it again",
                        self.baseline_path().display(),
                        self.dir.display()
                    ));
                }
            },
            None => match committed::baseline(&self.worktree, &self.config.agent) {
                Ok(path) => path,
                Err(why) => {
                    note = Some(note.map_or(why.clone(), |note| format!("{note}; {why}")));
                    None
                }
            },
        };
        // When the session's baseline was taken: the debts it left out.
        let started = baseline
            .as_ref()
            .filter(|_| state.baseline_sha256.is_some())
            .and_then(|b| std::fs::symlink_metadata(b).and_then(|m| m.modified()).ok());
        state.rounds += 1;
        let round = self.dir.join(format!("round-{}.json", state.rounds));
        // The round's file is the copy of what the gate printed, or none:
        // never a file a check put there.
        let _ = std::fs::remove_file(&round);
        let round_name = format!("round-{}.json", state.rounds);
        let before = self.reuse_before();
        let outcome = self.gate(baseline.as_deref(), state.base.as_deref(), before.args());
        if !matches!(outcome, Outcome::Verdict { .. }) {
            // What a check put there while the gate ran.
            let _ = std::fs::remove_file(&round);
            self.wrote(&round_name);
            self.record_results(None, &before);
        }
        let (evidence, bytes, cut) = match outcome {
            Outcome::Verdict {
                evidence,
                bytes,
                cut,
            } => {
                self.record_results(Some(&evidence), &before);
                (evidence, bytes, cut)
            }
            Outcome::Overdue => return self.overdue(state),
            Outcome::Died(why) => return self.died(state, &why),
            Outcome::Failed(why) => {
                state.rounds -= 1;
                state.blocks = 0;
                return release(format!("the gate could not judge this stop: {why}"));
            }
        };
        if let Err(why) = write_atomic(&round, &bytes) {
            let _ = std::fs::remove_file(&round);
            self.wrote(&round_name);
            let why = format!(
                "its evidence could not be copied to {}: {why}",
                round.display()
            );
            return self.died(state, &why);
        }
        self.wrote(&round_name);
        state.died = 0;
        if self.config.agent.new_only
            && let Err(why) = debts::record(self.sessions(), &self.name(), &evidence, started)
        {
            let why = format!("the worktree's debts could not be recorded: {why}");
            note = Some(note.map_or(why.clone(), |note| format!("{note}; {why}")));
        }
        let reply = match cut {
            true => self.cut_short(state, &evidence, &round),
            false => self.judge(state, &evidence, &round).unwrap_or_else(release),
        };
        self.wrote("history.jsonl");
        match (reply, note.take()) {
            (Reply::Allow, Some(note)) => Reply::Release { message: note },
            (Reply::Block { reason, notice }, Some(note)) => Reply::Block {
                reason,
                notice: Some(match notice {
                    Some(notice) => format!("{notice}; {note}"),
                    None => note,
                }),
            },
            (reply, _) => reply,
        }
    }

    /// Runs the gate ([`Gate`]) until `[agent] timeout`: what it left. The
    /// verdict is the gate process's: its exit code and its stdout, never
    /// a file the checks could write.
    /// `reuse`: the arguments that hand it the earlier stops' passes.
    fn gate(&self, baseline: Option<&Path>, base: Option<&str>, reuse: Vec<OsString>) -> Outcome {
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(err) => {
                return Outcome::Failed(format!("cannot find run-check's own binary: {err}"));
            }
        };
        let mut args: Vec<OsString> = vec!["--worktree".into(), self.worktree.clone().into()];
        args.extend(["--mode", self.config.agent.mode.as_str()].map(OsString::from));
        if let Some(baseline) = baseline {
            args.extend(["--baseline".into(), baseline.into()]);
        }
        if let Some(base) = base {
            args.extend(["--changed-since", base].map(OsString::from));
        }
        args.extend(reuse);
        let gated = Gate {
            exe: &exe,
            args,
            dir: Some(&self.worktree),
            jobs: None,
            cancelled: &|| false,
            deadline: Some(self.config.agent.timeout),
        }
        .run();
        match gated {
            Ok(gated) => Outcome::of(gated),
            Err(err) => Outcome::Failed(format!("cannot start the gate: {err}")),
        }
    }

    /// Judges the round with the session's history and decides the reply;
    /// updates `state` (blocks, window) and the history.
    fn judge(&self, state: &mut State, evidence: &Evidence, round: &Path) -> Result<Reply, String> {
        let settings = &self.config.agent;
        let history_path = self.dir.join("history.jsonl");
        // The judge opens the history to lock and append to it: a FIFO or
        // a link planted there would block it or be read without a bound.
        if let Ok(meta) = std::fs::symlink_metadata(&history_path)
            && !meta.file_type().is_file()
        {
            return Err(format!(
                "the session's history {} is not a regular file (a link, FIFO, socket or \
                 device): it was not written by the hook",
                history_path.display()
            ));
        }
        let source = Source::Evidence(Box::new(evidence.clone()));
        let judged = round::round(&Ask {
            source: &source,
            config: round::Config::Given(None),
            history: Record::Hold(&history_path),
            retry: None,
            file: round,
        })
        .map_err(|err| err.to_string())?;
        let (verdict, step, history) = (judged.verdict, judged.step, judged.history);
        let shown = round.display().to_string();
        match verdict.route.next {
            NextAgent::Finish => {
                drop(history);
                // The passing round is the new window's first: iteration 1.
                let mut kept = verdict.clone();
                kept.iteration = 1;
                let line = serde_json::to_string(&kept).unwrap_or_default() + "\n";
                write_atomic(&history_path, line.as_bytes())?;
                state.window_start = state.rounds;
                state.blocks = 0;
                Ok(Reply::Allow)
            }
            NextAgent::Implementer
                if settings.max_blocks > 0 && state.blocks < settings.max_blocks =>
            {
                if let Some(history) = history {
                    history.append(&verdict).map_err(|err| err.to_string())?;
                }
                state.blocks += 1;
                // The user and the agent see stops (`round-N.json`), not
                // the judge's iterations, which restart with the window.
                let start = state.window_start;
                let next = step.next_step_numbered("stop", |at| {
                    let stop = start + at - 1;
                    format!("stop {stop} (round-{stop}.json)")
                });
                let reason = feedback::render(
                    evidence,
                    &feedback::Options {
                        max_chars: settings.max_chars,
                        next: Some(&next),
                        evidence_path: Some(&shown),
                    },
                );
                Ok(Reply::Block {
                    reason,
                    notice: allow_markers(evidence),
                })
            }
            next => {
                drop(history);
                let _ = std::fs::remove_file(&history_path);
                let message = self.released(state, next, &verdict.route.reason, evidence, &shown);
                Ok(Reply::Release { message })
            }
        }
    }

    /// Why the agent is let go with the gate red; restarts the window.
    fn released(
        &self,
        state: &mut State,
        next: NextAgent,
        reason: &str,
        evidence: &Evidence,
        shown: &str,
    ) -> String {
        let settings = &self.config.agent;
        let blocks = state.blocks;
        state.window_start = state.rounds + 1;
        state.blocks = 0;
        let why = match next {
            NextAgent::Implementer if settings.max_blocks == 0 => {
                "the gate is red; `[agent] max_blocks = 0` never blocks".to_string()
            }
            NextAgent::Implementer => format!(
                "{blocks} consecutive blocked stops (`[agent] max_blocks`): the agent \
                 is let go with the gate red"
            ),
            _ => format!("{}: {reason}", next.as_str()),
        };
        format!(
            "run-check gate: {}. {why} (evidence: {shown})",
            headline(evidence)
        )
    }
}

/// The feedback's first line: the verdict and counts.
fn headline(evidence: &Evidence) -> String {
    feedback::render(
        evidence,
        &feedback::Options {
            max_chars: AgentConfig::MIN_CHARS,
            next: None,
            evidence_path: None,
        },
    )
    .lines()
    .next()
    .unwrap_or("")
    .to_string()
}

/// A note for the user when the agent added allow markers the gate did
/// not honour.
fn allow_markers(evidence: &Evidence) -> Option<String> {
    let added: u64 = evidence
        .checks
        .iter()
        .filter_map(|c| c.data.get("allowed_new").and_then(Value::as_u64))
        .sum();
    (added > 0).then(|| {
        format!(
            "run-check gate: {added} `run-check: allow` marker(s) were added since the session \
             started; they silence nothing and the agent is held to the findings"
        )
    })
}
