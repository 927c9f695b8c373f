//! The four tools of `run-check mcp`, without the protocol (rmcp's glue is
//! `commands/mcp/server.rs`): each takes the client's arguments (a JSON
//! object) and gives a [`Reply`]. Nothing here knows MCP, so each tool is
//! tested without a client. The gate runs through [`crate::agent::gate`],
//! and each run is judged by the one judge round.
//!
//! What holds for every tool:
//!
//! - An argument is data, never a command. Names are checked against the
//!   checks the config lists, `mode` is one of two words, `changed_since`
//!   a git revision of plain characters that cannot be read as an option;
//!   anything else, and an unknown key, is an error result that runs
//!   nothing. What does run is the gate itself, the current executable with
//!   an argv this module builds (no shell), so the whitelist of checks.toml
//!   and the gate's read-only verification apply unchanged.
//! - Every text is plain (no control character, escapes stripped) and at
//!   most `max_chars` characters; every list in structured content is
//!   capped, and says how much it left out.
//! - The server's state (the last evidence, the judge's history) is in a
//!   folder under the git directory, never in the worktree; the gate runs
//!   as a child process, so a check can corrupt nothing the server holds
//!   in memory.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::Digest;

use run_check_documents::evidence::{CheckRecord, Evidence};
use run_check_documents::mcp::{
    CheckKind, CheckOutputResult, CheckResult, GateStatus, JudgeResult, ListChecksResult,
    ListedCheck, Problem, Route, RunChecksResult, Stream,
};
use run_check_documents::verdict::Verdict;

use crate::agent::gate::{self, Ended, Stop};
use crate::aggregate::judge::round::{self, Record};
use crate::aggregate::judge::route::Step;
use crate::aggregate::judge::{self, input::Source};
use crate::config::Mode;
use crate::output::plural;
use crate::report::feedback::{self, LINE_CHARS, clean};

/// At most this many entries in a list of structured content (checks,
/// diagnostics): a config of thousands of checks or a tool printing a
/// million findings must not make a reply the client cannot hold.
const MAX_ITEMS: usize = 200;

/// `check_output`'s `tail_lines` when not given, and its upper bound.
const TAIL_LINES: usize = 40;
const MAX_TAIL_LINES: usize = 1000;

/// The longest `changed_since` accepted: a full SHA-256 object name with
/// room for `~N` or `^{commit}`, or a long branch name.
const MAX_REVISION: usize = 200;

/// A tool's answer: text for the model, structured content for a program,
/// and whether it is an error result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) structured: Option<Value>,
    pub(crate) is_error: bool,
}

impl Reply {
    /// A result whose structured content is `structured`, one of the
    /// documents crate's types: what the tool's `outputSchema` declares.
    fn ok(text: String, structured: &impl Serialize) -> Reply {
        Reply {
            text,
            // These plain types always serialise (no map has non-string keys).
            structured: serde_json::to_value(structured).ok(),
            is_error: false,
        }
    }

    fn error(text: String) -> Reply {
        Reply {
            text,
            structured: None,
            is_error: true,
        }
    }
}

/// A tool's name, description, input schema and output schema, as
/// `tools/list` gives them.
pub(crate) struct Definition {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) input_schema: Value,
    /// Derived from the tool's result type in the documents crate.
    pub(crate) output_schema: Value,
}

impl Definition {
    fn new(name: &'static str, description: &'static str, input_schema: Value) -> Definition {
        Definition {
            name,
            description,
            input_schema,
            output_schema: run_check_documents::mcp::output_schema(name).unwrap_or_default(),
        }
    }
}

/// The four tools.
pub(crate) fn definitions() -> Vec<Definition> {
    let mode = json!({
        "type": "string",
        "enum": ["strict", "fast"],
        "description": "strict (default): every strict check and the read-only verification; fast: the checks marked fast, on the files changed"
    });
    vec![
        Definition::new(
            "run_checks",
            "Run the repository's verification gate (the whitelisted checks of checks.toml) and return its feedback: the verdict, each new problem as path:line: [check rule] message, and the next step. Structured content: status, exit_code, checks, diagnostics, evidence, route. Call it after a change and before saying the work is done; fix what it reports, never checks.toml.",
            json!({
                "type": "object",
                "properties": {
                    "mode": mode,
                    "only": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Run only these checks (names from list_checks)"
                    },
                    "changed_since": {
                        "type": "string",
                        "description": "A git revision: the change is what differs from it (fast mode's files, the gate's base)"
                    }
                },
                "additionalProperties": false
            }),
        ),
        Definition::new(
            "list_checks",
            "List the checks a mode runs: name, kind, command, the checks it needs.",
            json!({
                "type": "object",
                "properties": {"mode": mode},
                "additionalProperties": false
            }),
        ),
        Definition::new(
            "check_output",
            "The last lines of one check's output in the last run_checks: for a failure the feedback did not locate.",
            json!({
                "type": "object",
                "properties": {
                    "check": {"type": "string", "description": "The check's name"},
                    "stream": {
                        "type": "string",
                        "enum": ["auto", "stdout", "stderr"],
                        "description": "auto (default): stderr when the check wrote any, else stdout"
                    },
                    "tail_lines": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_TAIL_LINES,
                        "description": "How many of the last lines (default 40); the reply stays within the feedback's size"
                    }
                },
                "required": ["check"],
                "additionalProperties": false
            }),
        ),
        Definition::new(
            "judge",
            "The judge's verdict on the last run_checks of this server: recommendation (PASS, ITERATE, STALLED, ...) and route (who acts next and what to do). Stall detection counts this server's runs.",
            json!({
                "type": "object",
                "properties": {},
                "additionalProperties": false
            }),
        ),
    ]
}

/// The gate one server serves: where it runs, what it runs, and the last
/// run.
pub(crate) struct Gate {
    /// The run-check executable the gate runs as (this one).
    exe: PathBuf,
    /// The worktree, canonical.
    worktree: PathBuf,
    /// The server's folder: `evidence.json`, the judge's histories.
    state: PathBuf,
    /// The bound of every text.
    max_chars: usize,
    /// The last run; held while a run is going on, so runs never overlap
    /// and `check_output` / `judge` answer about a finished run.
    last: Mutex<Option<LastRun>>,
}

/// What the last `run_checks` left.
struct LastRun {
    /// Its evidence, as judged.
    source: Source,
    /// The judge's verdict and its route as values, or why there is none.
    verdict: Result<(Verdict, Step), String>,
}

impl LastRun {
    fn evidence(&self) -> Option<&Evidence> {
        match &self.source {
            Source::Evidence(evidence) => Some(evidence),
            Source::Aggregator(_) => None,
        }
    }
}

/// The fields of a row of `run-check list --format json` the tools read.
#[derive(Deserialize)]
struct ListRow {
    name: String,
    kind: CheckKind,
    command: Vec<String>,
    needs: Vec<String>,
    program_error: Option<String>,
}

/// `run_checks` arguments.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    mode: Option<String>,
    only: Option<Vec<String>>,
    changed_since: Option<String>,
}

/// `list_checks` arguments.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    mode: Option<String>,
}

/// `check_output` arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputArgs {
    check: String,
    stream: Option<String>,
    tail_lines: Option<u64>,
}

/// `judge` arguments: none.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JudgeArgs {}

impl Gate {
    /// A gate of `worktree` that runs `exe` and keeps its files in `state`.
    pub(crate) fn new(exe: PathBuf, worktree: PathBuf, state: PathBuf, max_chars: usize) -> Gate {
        Gate {
            exe,
            worktree,
            state,
            max_chars: max_chars.max(feedback::MIN_CHARS),
            last: Mutex::new(None),
        }
    }

    /// Calls the tool `name`; `None` when there is no such tool.
    /// `cancelled` says whether the client cancelled the request: a gate
    /// it started is then stopped.
    pub(crate) fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Reply> {
        let arguments = Value::Object(arguments);
        let reply = match name {
            "run_checks" => self.parsed(arguments, |args| self.run_checks(args, cancelled)),
            "list_checks" => self.parsed(arguments, |args| self.list_checks(args)),
            "check_output" => self.parsed(arguments, |args| self.check_output(args)),
            "judge" => self.parsed(arguments, |_: JudgeArgs| self.judge()),
            _ => return None,
        };
        Some(match reply {
            Ok(reply) => reply,
            Err(why) => Reply::error(self.bounded(&why)),
        })
    }

    /// `arguments` read as `T`, then `tool`; bad arguments are an error
    /// naming the key at fault.
    fn parsed<T: serde::de::DeserializeOwned>(
        &self,
        arguments: Value,
        tool: impl FnOnce(T) -> Result<Reply, String>,
    ) -> Result<Reply, String> {
        let args: T = serde_path_to_error::deserialize(arguments).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner().to_string();
            match path.as_str() {
                "." => format!("invalid arguments: {inner}"),
                _ => format!("invalid argument `{path}`: {inner}"),
            }
        })?;
        tool(args)
    }

    /// The last run, locked; a poisoned lock still holds `None` or a
    /// finished run (one is set only once finished).
    fn last(&self) -> std::sync::MutexGuard<'_, Option<LastRun>> {
        self.last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `text` cut to the bound, without control characters but its newlines.
    fn bounded(&self, text: &str) -> String {
        let lines: Vec<String> = text.lines().map(|l| clean(l, LINE_CHARS)).collect();
        fit_lines(&lines, self.max_chars, false)
    }

    fn run_checks(&self, args: RunArgs, cancelled: &dyn Fn() -> bool) -> Result<Reply, String> {
        let mode = mode(args.mode.as_deref())?;
        let only = args.only.unwrap_or_default();
        let revision = args.changed_since.as_deref().map(revision).transpose()?;
        if !only.is_empty() {
            let rows = self.list(mode)?;
            let known: Vec<&str> = rows.iter().map(|row| row.name.as_str()).collect();
            for name in &only {
                if !known.contains(&name.as_str()) {
                    return Err(format!(
                        "unknown check `{}` in {} mode; nothing ran. The checks: {}",
                        clean(name, 80),
                        mode.as_str(),
                        known.join(", ")
                    ));
                }
            }
        }
        let mut last = self.last();
        *last = None;
        let path = self.state.join("evidence.json");
        if cancelled() {
            return Err("cancelled: nothing ran".into());
        }
        let source = self.gate(mode, &only, revision, &path, cancelled)?;
        let verdict = self.judged(&source, &path, &history_name(mode, &only));
        let run = LastRun { source, verdict };
        let reply = self.run_reply(&run, &path);
        *last = Some(run);
        Ok(reply)
    }

    /// Runs the gate and reads its evidence from its stdout, a pipe of this
    /// server the checks never get (a file the gate wrote could be forged
    /// by a check: it runs as the same user and can read the gate's
    /// command line); then keeps a copy at `out` for the client to read.
    fn gate(
        &self,
        mode: Mode,
        only: &[String],
        revision: Option<&str>,
        out: &Path,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Source, String> {
        let mut args: Vec<OsString> = vec!["--worktree".into(), self.worktree.clone().into()];
        args.extend(["--mode", mode.as_str()].map(OsString::from));
        // `--flag=value`: a value is never read as an option.
        args.extend(only.iter().map(|name| format!("--only={name}").into()));
        if let Some(revision) = revision {
            args.push(format!("--changed-since={revision}").into());
        }
        let gated = gate::Gate {
            exe: &self.exe,
            args,
            dir: Some(&self.worktree),
            jobs: None,
            cancelled,
            deadline: None,
        }
        .run()
        .map_err(|err| format!("cannot run {}: {err}", self.exe.display()))?;
        if gated.stopped == Some(Stop::Cancelled) {
            return Err(
                "cancelled: the gate was stopped (its checks were terminated); no verdict".into(),
            );
        }
        let Ended::Code(code) = gated.ended else {
            return Err(format!(
                "no verdict: the gate was killed before it finished: {}",
                last_lines(&gated.stderr, 5)
            ));
        };
        let stdout = gated.output.map_err(|why| format!("no verdict: {why}"))?;
        if stdout.is_empty() {
            return Err(format!(
                "no verdict: the gate exited {code} with no evidence: {}",
                last_lines(&gated.stderr, 5)
            ));
        }
        let shown = Path::new("<the gate's output>");
        let value: Value =
            crate::json_input::typed(shown, &stdout).map_err(|err| err.to_string())?;
        let source = judge::input::read(value)
            .map_err(|p| crate::json_input::from_problem(shown, p).to_string())?;
        let Source::Evidence(evidence) = &source else {
            return Err("no verdict: the gate's output is no evidence".into());
        };
        if evidence.summary.exit_code != code {
            return Err(format!(
                "no verdict: the gate exited {code}, but its evidence says {}",
                evidence.summary.exit_code
            ));
        }
        // Renamed into place: whatever a check put at that path (a FIFO, a
        // link) is replaced, never opened.
        crate::output::replace(out, &stdout).map_err(|err| err.to_string())?;
        Ok(source)
    }

    /// The judge's verdict on `source`, recorded in the server's history
    /// `name` so that stall detection sees this server's earlier runs of
    /// the same checks.
    fn judged(&self, source: &Source, file: &Path, name: &str) -> Result<(Verdict, Step), String> {
        let judged = round::round(&round::Ask {
            source,
            config: round::Config::Given(None),
            history: Record::Append(&self.state.join(name)),
            retry: None,
            file,
        })
        .map_err(|e| e.to_string())?;
        Ok((judged.verdict, judged.step))
    }

    /// The reply of `run_checks`: the feedback, and the run as structured
    /// content.
    fn run_reply(&self, run: &LastRun, path: &Path) -> Reply {
        let Some(evidence) = run.evidence() else {
            return Reply::error("the gate wrote no evidence".into());
        };
        let next = run.verdict.as_ref().ok().map(|(_, step)| step.next_step());
        let shown = path.display().to_string();
        let text = feedback::render(
            evidence,
            &feedback::Options {
                max_chars: self.max_chars,
                next: next.as_deref(),
                evidence_path: Some(&shown),
            },
        );
        let summary = &evidence.summary;
        // Bounded by size like the diagnostics (a config of many checks, or
        // of long names, must not outgrow the text's bound), the failed
        // checks first so a cut never hides one behind passing ones.
        let (failing, passing): (Vec<_>, Vec<_>) =
            evidence.checks.iter().partition(|c| c.status.is_failure());
        let failed: Vec<&str> = failing.iter().map(|c| c.name.as_str()).collect();
        let checks: Vec<CheckResult> = failing
            .into_iter()
            .chain(passing)
            .map(|c| CheckResult {
                name: clean(&c.name, LINE_CHARS),
                status: c.status,
                duration_ms: c.duration_ms,
            })
            .collect();
        let (checks, checks_omitted) = fit_values(checks, self.max_chars);
        let shown_diagnostics: Vec<Problem> = evidence
            .diagnostics
            .iter()
            .filter(|d| d.new != Some(false))
            .filter(|d| {
                failed.contains(&d.check.as_str()) || d.rule.as_deref() == Some("read-only")
            })
            .map(|d| Problem {
                check: clean(&d.check, LINE_CHARS),
                file: d.file.as_deref().map(|f| clean(f, LINE_CHARS)),
                line: d.line,
                column: d.column,
                severity: d.severity,
                rule: d.rule.as_deref().map(|r| clean(r, 80)),
                message: clean(d.message.lines().next().unwrap_or(""), LINE_CHARS),
            })
            .collect();
        let (diagnostics, diagnostics_omitted) = fit_values(shown_diagnostics, self.max_chars);
        let structured = RunChecksResult {
            status: GateStatus::of_exit_code(summary.exit_code),
            exit_code: summary.exit_code,
            checks,
            checks_omitted,
            diagnostics,
            diagnostics_omitted,
            evidence: shown,
            route: run
                .verdict
                .as_ref()
                .ok()
                .map(|(verdict, step)| route(verdict, step, self.max_chars)),
        };
        Reply::ok(text, &structured)
    }

    fn list_checks(&self, args: ListArgs) -> Result<Reply, String> {
        let mode = mode(args.mode.as_deref())?;
        let rows = self.list(mode)?;
        let mut lines = vec![format!(
            "{} in {} mode:",
            plural(rows.len(), "check"),
            mode.as_str()
        )];
        let mut checks = Vec::new();
        for row in rows {
            let kind = match row.kind {
                CheckKind::Run => "run",
                CheckKind::Scan => "scan",
            };
            let mut line = format!("{} ({kind})", row.name);
            if !row.command.is_empty() {
                line.push_str(": ");
                line.push_str(&row.command.join(" "));
            }
            if !row.needs.is_empty() {
                line.push_str(&format!(" [needs {}]", row.needs.join(", ")));
            }
            if let Some(why) = &row.program_error {
                line.push_str(&format!(" NOT FOUND: {why}"));
            }
            lines.push(clean(&line, LINE_CHARS));
            let cleaned = |words: &[String]| words.iter().map(|w| clean(w, LINE_CHARS)).collect();
            checks.push(ListedCheck {
                name: clean(&row.name, LINE_CHARS),
                kind: row.kind,
                command: cleaned(&row.command),
                needs: cleaned(&row.needs),
                program_error: row.program_error.as_deref().map(|w| clean(w, LINE_CHARS)),
            });
        }
        let (checks, checks_omitted) = fit_values(checks, self.max_chars);
        let structured = ListChecksResult {
            mode: match mode {
                Mode::Strict => run_check_documents::evidence::Mode::Strict,
                Mode::Fast => run_check_documents::evidence::Mode::Fast,
            },
            checks,
            checks_omitted,
        };
        Ok(Reply::ok(
            fit_lines(&lines, self.max_chars, true),
            &structured,
        ))
    }

    /// `run-check list --format json` of `mode`: the plan, which starts no
    /// check.
    fn list(&self, mode: Mode) -> Result<Vec<ListRow>, String> {
        let output = self
            .command("list")
            .args(["--format", "json", "--mode", mode.as_str()])
            .output()
            .map_err(|err| format!("cannot start {}: {err}", self.exe.display()))?;
        if !output.status.success() {
            return Err(format!(
                "cannot list the checks: {}",
                last_lines(&String::from_utf8_lossy(&output.stderr), 5)
            ));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|err| format!("cannot read the list of checks: {err}"))
    }

    /// This executable's `subcommand` in the worktree, its standard streams
    /// its own (never the server's stdout, which is the protocol's channel).
    fn command(&self, subcommand: &str) -> Command {
        let mut command = Command::new(&self.exe);
        command
            .args([subcommand, "--worktree"])
            .arg(&self.worktree)
            .current_dir(&self.worktree)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn check_output(&self, args: OutputArgs) -> Result<Reply, String> {
        let last = self.last();
        let Some(evidence) = last.as_ref().and_then(LastRun::evidence) else {
            return Err("no run yet: call run_checks first".into());
        };
        let Some(check) = evidence.checks.iter().find(|c| c.name == args.check) else {
            let names: Vec<&str> = evidence.checks.iter().map(|c| c.name.as_str()).collect();
            return Err(format!(
                "the last run has no check `{}`; its checks: {}",
                clean(&args.check, 80),
                names.join(", ")
            ));
        };
        let tail = match args.tail_lines {
            None => TAIL_LINES,
            Some(n @ 1..) if n <= MAX_TAIL_LINES as u64 => n as usize,
            Some(n) => {
                return Err(format!(
                    "invalid argument `tail_lines`: {n} is not within 1..={MAX_TAIL_LINES}"
                ));
            }
        };
        let stream = match args.stream.as_deref() {
            None | Some("auto") if check.stderr_excerpt.trim().is_empty() => Stream::Stdout,
            None | Some("auto") | Some("stderr") => Stream::Stderr,
            Some("stdout") => Stream::Stdout,
            Some(other) => {
                return Err(format!(
                    "invalid argument `stream`: `{}`, expected auto, stdout or stderr",
                    clean(other, 80)
                ));
            }
        };
        Ok(self.output_reply(check, stream, tail))
    }

    fn output_reply(&self, check: &CheckRecord, stream: Stream, tail: usize) -> Reply {
        let (excerpt, bytes) = match stream {
            Stream::Stdout => (&check.stdout_excerpt, check.stdout_bytes),
            Stream::Stderr => (&check.stderr_excerpt, check.stderr_bytes),
        };
        let stream_word = match stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        let all: Vec<&str> = excerpt.lines().collect();
        let from = all.len().saturating_sub(tail);
        let lines: Vec<String> = all[from..].iter().map(|l| clean(l, LINE_CHARS)).collect();
        let head = clean(
            &format!(
                "{} ({}{}): the last {} of {} lines of its {stream_word} ({bytes} bytes{})",
                check.name,
                check.status.as_str(),
                check
                    .exit_code
                    .map_or_else(String::new, |c| format!(", exit {c}")),
                lines.len(),
                all.len(),
                if check.excerpt_truncated {
                    "; the run kept its head and tail"
                } else {
                    ""
                }
            ),
            LINE_CHARS,
        );
        let body = fit_lines(
            &lines,
            self.max_chars.saturating_sub(head.chars().count() + 1),
            false,
        );
        let shown = body.lines().count();
        Reply::ok(
            format!("{head}\n{body}"),
            &CheckOutputResult {
                check: check.name.clone(),
                status: check.status,
                stream,
                lines_shown: shown as u64,
                lines_total: all.len() as u64,
                bytes,
                truncated: check.excerpt_truncated || shown < all.len(),
            },
        )
    }

    fn judge(&self) -> Result<Reply, String> {
        let last = self.last();
        let Some(run) = last.as_ref() else {
            return Err("no run yet: call run_checks first".into());
        };
        let (verdict, step) = run
            .verdict
            .as_ref()
            .map_err(|why| format!("the judge could not judge the last run: {why}"))?;
        let lines = vec![
            clean(
                &format!(
                    "{} (round {}, decision {})",
                    verdict.recommendation.as_str(),
                    verdict.iteration,
                    decision_word(verdict)
                ),
                LINE_CHARS,
            ),
            clean(&format!("next: {}", step.next_step()), self.max_chars),
            clean(&format!("because: {}", verdict.route.reason), LINE_CHARS),
        ];
        Ok(Reply::ok(
            fit_lines(&lines, self.max_chars, false),
            &JudgeResult {
                iteration: verdict.iteration,
                passed: verdict.passed,
                recommendation: verdict.recommendation,
                decision: verdict.decision.decision,
                stall_type: verdict.progress.stall_type,
                route: route(verdict, step, self.max_chars),
            },
        ))
    }
}

/// The judge's history file of a selection: one per mode and set of
/// `only` names, because a run of fewer checks compared with a run of all
/// would read as a regression (a dimension whose checks did not run drops
/// to no score) and stall detection needs the same checks each round.
fn history_name(mode: Mode, only: &[String]) -> String {
    if only.is_empty() {
        return format!("history-{}.jsonl", mode.as_str());
    }
    let mut names: Vec<&str> = only.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let digest = sha2::Sha256::digest(names.join("\n").as_bytes());
    let short = crate::digest::hex(&digest[..8]);
    format!("history-{}-only-{short}.jsonl", mode.as_str())
}

/// The route of a verdict as an agent reads it: the step's action, which
/// names each problem by where it is (`path:line (check rule)`) as the
/// feedback does, never the verdict's, which names the judge's issue ids
/// (`QA-001`) the model never sees; its texts bounded.
fn route(verdict: &Verdict, step: &Step, max_chars: usize) -> Route {
    Route {
        next: step.next,
        reason: clean(&verdict.route.reason, max_chars),
        action: clean(&step.action, max_chars),
    }
}

/// `decision.decision`'s word: PASS, REWORK or BLOCKED.
fn decision_word(verdict: &Verdict) -> String {
    match serde_json::to_value(verdict.decision.decision) {
        Ok(Value::String(word)) => word,
        _ => String::new(),
    }
}

/// `mode`: `strict` when not given.
fn mode(given: Option<&str>) -> Result<Mode, String> {
    match given {
        None | Some("strict") => Ok(Mode::Strict),
        Some("fast") => Ok(Mode::Fast),
        Some(other) => Err(format!(
            "invalid argument `mode`: `{}`, expected strict or fast; nothing ran",
            clean(other, 80)
        )),
    }
}

/// `changed_since`: a revision as git spells one (a name, an object id,
/// `HEAD~2`, `main@{1}`), never an option (a leading `-`), never with
/// blanks, quotes or shell characters.
fn revision(given: &str) -> Result<&str, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._/-~^@{}:".contains(c);
    if given.is_empty()
        || given.len() > MAX_REVISION
        || given.starts_with('-')
        || !given.chars().all(allowed)
    {
        return Err(format!(
            "invalid argument `changed_since`: `{}` is not a git revision \
             (letters, digits and ._/-~^@{{}}: only, not starting with -); nothing ran",
            clean(given, 80)
        ));
    }
    Ok(given)
}

/// The last `n` non-blank lines of `text`, on one line.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    clean(
        &lines[lines.len().saturating_sub(n)..].join(" | "),
        LINE_CHARS * 2,
    )
}

/// `lines` joined within `max` characters: the first ones (`keep_head`)
/// or the last ones, and a line saying how many were left out.
fn fit_lines(lines: &[String], max: usize, keep_head: bool) -> String {
    let total: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
    if total <= max + 1 {
        return lines.join("\n");
    }
    // Room for the note on what was cut.
    let budget = max.saturating_sub(40);
    let mut used = 0;
    let mut kept: Vec<&String> = Vec::new();
    let order: Box<dyn Iterator<Item = &String>> = if keep_head {
        Box::new(lines.iter())
    } else {
        Box::new(lines.iter().rev())
    };
    for line in order {
        let cost = line.chars().count() + 1;
        if used + cost > budget {
            break;
        }
        used += cost;
        kept.push(line);
    }
    let cut = lines.len() - kept.len();
    let note = format!("[{} left out]", plural(cut, "more line"));
    let mut out: Vec<&str> = Vec::new();
    if keep_head {
        out.extend(kept.iter().map(|l| l.as_str()));
        out.push(&note);
    } else {
        out.push(&note);
        out.extend(kept.iter().rev().map(|l| l.as_str()));
    }
    out.join("\n")
}

/// The first `values` whose JSON fits in `max` characters (at most
/// [`MAX_ITEMS`]), and how many were left out.
fn fit_values<T: Serialize>(values: Vec<T>, max: usize) -> (Vec<T>, u64) {
    let total = values.len();
    let mut used = 0;
    let mut kept = Vec::new();
    for value in values.into_iter().take(MAX_ITEMS) {
        let json = serde_json::to_string(&value).unwrap_or_default();
        let cost = json.chars().count() + 1;
        if used + cost > max {
            break;
        }
        used += cost;
        kept.push(value);
    }
    let omitted = (total - kept.len()) as u64;
    (kept, omitted)
}

#[cfg(test)]
mod tests;
