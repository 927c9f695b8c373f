//! `run-check agent hook AGENT EVENT`: one session's state machine
//! (docs/agents.md, "The session").
//!
//! - Session start (Cursor: a prompt, the first of the conversation counts):
//!   the session's state folder `<git-dir>/run-check/agent/<session>/` is
//!   created with `state.json` (the commit `HEAD` names now: the session's
//!   base) and, with `new_only`, `baseline.json` (the gate's evidence now).
//!   A session that already has a state is resumed as it is.
//! - Stop: the gate runs as a child process of this binary (`check --mode M
//!   --format json --out <state>/round-N.json --baseline <state>/baseline.json
//!   --changed-since <base>`), the round is judged with the session's
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
//! - A baseline whose sha256 differs from the one recorded at session start
//!   was edited during the session: the agent is let go and the user told.
//! - A session id that is not already a file name (`[A-Za-z0-9_-]`, at
//!   most 64 characters) is refused like bad input: no agent sends one.
//! - Anything that stops the hook from judging (bad input, no repository, a
//!   broken checks.toml, a gate that wrote no evidence, a state it cannot
//!   write) lets the agent stop with one line saying why: a broken gate must
//!   not trap an agent.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::aggregate::judge::{self, history::History, input::Source, verdict::NextAgent};
use crate::cli::{AgentHookArgs, Location};
use crate::config::{AgentConfig, Config};
use crate::error::Error;
use crate::report::feedback;
use crate::tooling::agent::{self, Agent, Event, Input, Reply};
use run_check_documents::evidence::Evidence;

/// The most input the hook reads: the agents send a few hundred bytes.
const INPUT_LIMIT: u64 = 1024 * 1024;

/// The session state's format.
const STATE_VERSION: u32 = 1;

/// Runs the hook and prints its reply; the exit code the agent reads.
pub(crate) fn hook(args: &AgentHookArgs) -> i32 {
    let Some(agent) = args.agent.as_deref().and_then(Agent::from_name) else {
        println!("{{}}");
        eprintln!(
            "{}",
            agent::one_line(&format!(
                "unknown agent `{}` (claude, cursor, codex, copilot): the hook does nothing",
                args.agent.as_deref().unwrap_or("")
            ))
        );
        return 0;
    };
    let event = args.event.as_deref().and_then(|e| agent.event(e));
    let reply = match event {
        Some(event) => run(agent, event),
        None => Reply::Release {
            message: format!(
                "`{}` is not an event run-check handles for {} ({}): the hook does nothing",
                args.event.as_deref().unwrap_or(""),
                agent.name(),
                agent.events().join(", ")
            ),
        },
    };
    let rendered = agent::render(agent, event, &reply);
    println!("{}", rendered.stdout);
    if let Some(line) = &rendered.stderr {
        eprintln!("{line}");
    }
    rendered.code
}

/// Reads the input and handles the event; every failure is a release.
fn run(agent: Agent, event: Event) -> Reply {
    let input = match read_stdin().and_then(|value| agent::read_input(agent, &value)) {
        Ok(input) => input,
        Err(why) => return release(why),
    };
    if input.abandoned {
        return Reply::Allow;
    }
    match Session::open(agent, &input) {
        Ok(session) => match event {
            Event::Start => session.start(),
            Event::Stop => session.stop(&input),
        },
        Err(why) => release(why),
    }
}

fn release(why: impl Into<String>) -> Reply {
    Reply::Release {
        message: format!("{}; the agent may stop", why.into()),
    }
}

/// The hook's stdin: at most [`INPUT_LIMIT`] bytes of JSON.
fn read_stdin() -> Result<Value, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(INPUT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the hook input: {err}"))?;
    if bytes.len() as u64 > INPUT_LIMIT {
        return Err("the hook input is larger than 1 MiB: ignored".into());
    }
    serde_json::from_slice(&bytes).map_err(|err| format!("the hook input is not JSON ({err})"))
}

/// What `state.json` keeps between hook calls.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct State {
    version: u32,
    /// The agent that started the session.
    agent: String,
    /// The commit `HEAD` named at session start (`None`: no commit yet).
    base: Option<String>,
    /// sha256 of `baseline.json` as written at session start.
    baseline_sha256: Option<String>,
    /// Stops gated so far (the last round file is `round-<rounds>.json`).
    rounds: u32,
    /// The round the judge's history starts at (its iteration 1).
    window_start: u32,
    /// Consecutive blocked stops.
    blocks: u32,
    /// The answer of the last gated stop, for a second hook of the same
    /// stop (see [`Answered`]).
    #[serde(default)]
    answered: Option<Answered>,
}

/// The answer of the last gated stop. GitHub Copilot CLI runs the hooks of
/// `.github/hooks/*.json` and those of `.claude/settings.json` alike, so a
/// repository with both installed has two hooks per stop, one of each
/// agent's name, with the same session id: the second one answers this,
/// in its own agent's format, instead of running the gate again.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Answered {
    /// The agent name of the hook that gated the stop.
    agent: String,
    /// The round it gated.
    round: u32,
    /// When (seconds since the Unix epoch).
    at: u64,
    /// A hook of another agent has answered it too: the next stop gates.
    replayed: bool,
    /// `allow`, `block` or `release`.
    kind: String,
    /// The block's reason or the release's message.
    text: Option<String>,
    /// The block's note for the user.
    notice: Option<String>,
}

/// How long after a gated stop a hook of another agent name counts as the
/// same stop's second hook. Copilot runs them one after the other (or the
/// second waits on the session's lock), so the second starts within
/// seconds of the answer; a stop of a later turn comes after the model
/// has worked on a block, or after a user's prompt.
const REPLAY_SECONDS: u64 = 60;

impl Answered {
    fn new(agent: Agent, round: u32, reply: &Reply) -> Answered {
        let (kind, text, notice) = match reply {
            Reply::Allow => ("allow", None, None),
            Reply::Block { reason, notice } => ("block", Some(reason.clone()), notice.clone()),
            Reply::Release { message } => ("release", Some(message.clone()), None),
        };
        Answered {
            agent: agent.name().into(),
            round,
            at: now(),
            replayed: false,
            kind: kind.into(),
            text,
            notice,
        }
    }

    fn reply(&self) -> Reply {
        let text = self.text.clone().unwrap_or_default();
        match self.kind.as_str() {
            "block" => Reply::Block {
                reason: text,
                notice: self.notice.clone(),
            },
            "release" => Reply::Release { message: text },
            _ => Reply::Allow,
        }
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// One session: its repository, config and state folder, locked.
struct Session {
    agent: Agent,
    worktree: PathBuf,
    config: Config,
    dir: PathBuf,
    /// Held until the hook ends: two hooks of one session take turns.
    _lock: std::fs::File,
}

impl Session {
    /// Finds the repository of `input`, loads its checks.toml, and creates
    /// and locks the session's state folder.
    fn open(agent: Agent, input: &Input) -> Result<Session, String> {
        let id = input
            .session
            .as_deref()
            .ok_or("the hook input names no session (session_id)")?;
        // The agents' ids (UUIDs, ULIDs) are file names already; one that
        // the reduction would change is not an agent's: refused, so that
        // `../../x` and `x` can never share (or escape) a state folder.
        let name = agent::session_name(id)
            .filter(|name| name == id)
            .ok_or_else(|| {
                format!(
                    "the session id {:?} is not a file name ([A-Za-z0-9_-], at most 64 characters): ignored",
                    id.chars().take(80).collect::<String>()
                )
            })?;
        if let Some(dir) = &input.dir {
            std::env::set_current_dir(dir)
                .map_err(|err| format!("cannot enter the project directory `{dir}`: {err}"))?;
        }
        let cwd = std::env::current_dir()
            .map_err(|err| format!("cannot read the current directory: {err}"))?;
        let git_dir = crate::git::ask(&cwd, &["rev-parse", "--absolute-git-dir"])
            .map_err(|why| format!("not in a git repository ({why})"))?;
        let location = Location::default().resolved();
        let worktree =
            crate::paths::worktree(location.worktree.as_deref()).map_err(|e| e.to_string())?;
        let config = super::super::load_config(&location, &worktree)
            .map_err(|err| format!("the gate cannot run: {err}"))?;
        let dir = Path::new(&git_dir)
            .join("run-check")
            .join("agent")
            .join(&name);
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot create the session folder {}: {err}", dir.display()))?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("lock"))
            .and_then(|file| file.lock().map(|()| file))
            .map_err(|err| format!("cannot lock the session folder {}: {err}", dir.display()))?;
        Ok(Session {
            agent,
            worktree,
            config,
            dir,
            _lock: lock,
        })
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    fn baseline_path(&self) -> PathBuf {
        self.dir.join("baseline.json")
    }

    /// The state, `None` when the session has none yet.
    fn load(&self) -> Result<Option<State>, String> {
        let path = self.state_path();
        match crate::bounded::read(&path, crate::bounded::CONFIG) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|err| {
                format!("the session state {} is unreadable ({err})", path.display())
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(format!("cannot read {}: {err}", path.display())),
        }
    }

    fn save(&self, state: &State) -> Result<(), String> {
        let text = serde_json::to_string_pretty(state).unwrap_or_default() + "\n";
        write_atomic(&self.state_path(), text.as_bytes())
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
            let gate = self.gate(&self.baseline_path(), None, None);
            match gate {
                Ok(_) => baseline_sha256 = sha256_of(&self.baseline_path()),
                Err(why) => {
                    note = Some(format!(
                        "the session's baseline could not be taken ({why}): every failure counts"
                    ));
                }
            }
        }
        let state = State {
            version: STATE_VERSION,
            agent: self.agent.name().into(),
            base: self.head(),
            baseline_sha256,
            rounds: 0,
            window_start: 1,
            blocks: 0,
            answered: None,
        };
        self.save(&state)?;
        prune(self.dir.parent().unwrap_or(&self.dir), &self.dir);
        Ok((state, note))
    }

    /// Session start: take the baseline once.
    fn start(self) -> Reply {
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
    fn stop(self, input: &Input) -> Reply {
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
        if let Some(answered) = state.answered.as_mut()
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
            Some(recorded) => match sha256_of(&self.baseline_path()) {
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
            None => None,
        };
        state.rounds += 1;
        let round = self.dir.join(format!("round-{}.json", state.rounds));
        let evidence = match self.gate(&round, baseline.as_deref(), state.base.as_deref()) {
            Ok(evidence) => evidence,
            Err(why) => {
                state.blocks = 0;
                return release(format!("the gate could not judge this stop: {why}"));
            }
        };
        let reply = match self.judge(state, &evidence, &round) {
            Ok(reply) => reply,
            Err(why) => release(why),
        };
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

    /// Runs the gate to `out`; its evidence, or why there is none.
    fn gate(
        &self,
        out: &Path,
        baseline: Option<&Path>,
        base: Option<&str>,
    ) -> Result<Evidence, String> {
        let exe = std::env::current_exe()
            .map_err(|err| format!("cannot find run-check's own binary: {err}"))?;
        let _ = std::fs::remove_file(out);
        let mut command = Command::new(exe);
        command
            .arg("check")
            .arg("--worktree")
            .arg(&self.worktree)
            .args(["--mode", self.config.agent.mode.as_str()])
            .args(["--format", "json", "--quiet", "--out"])
            .arg(out)
            .current_dir(&self.worktree)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(baseline) = baseline {
            command.arg("--baseline").arg(baseline);
        }
        if let Some(base) = base {
            command.args(["--changed-since", base]);
        }
        let output = command
            .output()
            .map_err(|err| format!("cannot start the gate: {err}"))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        match crate::json_input::evidence_file(out) {
            Ok(evidence) => Ok(evidence),
            Err(_) => Err(match output.status.code() {
                Some(code) => format!("the gate exited {code} without evidence: {}", last.trim()),
                None => "the gate was killed before it wrote its evidence".into(),
            }),
        }
    }

    /// Judges the round with the session's history and decides the reply;
    /// updates `state` (blocks, window) and the history.
    fn judge(&self, state: &mut State, evidence: &Evidence, round: &Path) -> Result<Reply, String> {
        let settings = self.config.agent;
        let history_path = self.dir.join("history.jsonl");
        let source = Source::Evidence(Box::new(evidence.clone()));
        let (config, config_used) =
            judge::judge_config(None, &source).map_err(|err| err.to_string())?;
        let history = History::open(&history_path, true).map_err(|err| err.to_string())?;
        let verdict = judge::evaluate(&judge::Round {
            source: &source,
            config: &config,
            config_used: config_used.as_ref(),
            history: &history.rounds,
            retry: None,
            file: round,
        })
        .map_err(|err| err.to_string())?;
        let route = &verdict.route;
        let shown = round.display().to_string();
        let headline = feedback::render(
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
        .to_string();
        match route.next {
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
                history.append(&verdict).map_err(|err| err.to_string())?;
                state.blocks += 1;
                let mut next = feedback::next_step(&verdict);
                if let Some(at) = rolled_back_to(&route.action) {
                    let round = state.window_start + at - 1;
                    next.push_str(&format!(
                        " (iteration {at} is this session's stop {round}: round-{round}.json)"
                    ));
                }
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
                    _ => format!("{}: {}", next.as_str(), route.reason),
                };
                Ok(Reply::Release {
                    message: format!("run-check gate: {headline}. {why} (evidence: {shown})"),
                })
            }
        }
    }
}

/// Sessions kept under `<git-dir>/run-check/agent/` besides the one
/// starting: the most recently active ones.
const KEEP_SESSIONS: usize = 20;

/// A session idle this long (no hook call) is removed at the next session
/// start, whatever the count.
const SESSION_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 60 * 60);

/// Bounds the session folders in `sessions` when `current` starts: those
/// idle for longer than [`SESSION_MAX_AGE`] go, and of the rest only the
/// [`KEEP_SESSIONS`] most recently active stay. A session's activity is its
/// `state.json`'s modification time (every hook call that gates writes
/// it). A session whose lock is held (a hook of it is running) is never
/// removed, nor is anything in `sessions` that is not a folder. Best
/// effort: what cannot be read or removed stays.
fn prune(sessions: &Path, current: &Path) {
    let Ok(entries) = std::fs::read_dir(sessions) else {
        return;
    };
    let now = std::time::SystemTime::now();
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        // Not followed: a link here is not a session run-check made.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !is_dir || path == current {
            continue;
        }
        let active = path
            .join("state.json")
            .metadata()
            .or_else(|_| path.metadata())
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        found.push((active, path));
    }
    found.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    for (index, (active, path)) in found.into_iter().enumerate() {
        let old = now
            .duration_since(active)
            .is_ok_and(|idle| idle > SESSION_MAX_AGE);
        if (old || index >= KEEP_SESSIONS) && !in_use(&path) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// A hook of the session in `dir` holds its lock now.
fn in_use(dir: &Path) -> bool {
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("lock"))
    else {
        return false;
    };
    !matches!(file.try_lock(), Ok(()))
}

/// The iteration a roll-back action names (`Roll back to iteration N, ...`).
fn rolled_back_to(action: &str) -> Option<u32> {
    let rest = action.strip_prefix("Roll back to iteration ")?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
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

/// sha256 of a file, hex; `None` when it cannot be read.
fn sha256_of(path: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let bytes = crate::bounded::read(path, crate::bounded::JSON).ok()?;
    Some(crate::config::hex(&Sha256::digest(&bytes)))
}

/// Writes `bytes` to `path` atomically.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::output::Atomic::create(path, path, crate::output::FileKind::Regular)
        .and_then(|file| file.commit(bytes, true))
        .map_err(|err| err.to_string())
}

/// The evidence of the last round of the repository's most recently active
/// agent session (`agent feedback` without an argument).
pub(crate) fn latest_round(root: &Path) -> Result<PathBuf, Error> {
    let git_dir = crate::git::ask(root, &["rev-parse", "--absolute-git-dir"])
        .map_err(|why| Error::Usage(format!("no EVIDENCE given and no repository here ({why})")))?;
    let sessions = Path::new(&git_dir).join("run-check").join("agent");
    let mut latest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
        let state = entry.path().join("state.json");
        let Ok(text) = std::fs::read_to_string(&state) else {
            continue;
        };
        let Ok(parsed) = serde_json::from_str::<State>(&text) else {
            continue;
        };
        let round = entry.path().join(format!("round-{}.json", parsed.rounds));
        if let Ok(modified) = round.metadata().and_then(|m| m.modified())
            && latest.as_ref().is_none_or(|(t, _)| modified > *t)
        {
            latest = Some((modified, round));
        }
    }
    latest.map(|(_, path)| path).ok_or_else(|| {
        Error::Usage(format!(
            "no EVIDENCE given and no agent session has a round in {}",
            sessions.display()
        ))
    })
}
