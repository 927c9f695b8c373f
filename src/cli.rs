//! The command line (docs/cli.md), parsed with clap's derive API. Names of
//! flags and subcommands are part of the contract.

use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use run_check_documents::retry::Phase;

use crate::agent::protocol::Agent;
use crate::config::Mode;
use crate::report::Format;
use crate::tooling::hooks::Hook;

/// The single read-only verification gate of a repository.
///
/// Runs the whitelisted checks of checks.toml for a mode, writes one evidence
/// document and exits 0 (PASS), 1 (FAIL) or 2 (ERROR); 130 when interrupted.
#[derive(Debug, Parser)]
#[command(name = "run-check", version, args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    /// A subcommand; without one, run-check runs the checks.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// Options of the check run.
    #[command(flatten)]
    pub(crate) check: CheckArgs,
}

impl Cli {
    /// Parses `args` (the program's name first). A gate's own invocation
    /// (`run-check --mode strict --out ev.json`) is read by a parser of the
    /// check run's options alone: building the whole command, every
    /// subcommand's options and help with it, is most of clap's work, and
    /// the gate runs far more often than anything else. Anything that
    /// parser does not take (a subcommand, `--help`, `--version`, a
    /// mistake) is read by the whole command, as before: a word it took as
    /// an option's value the whole command takes so too, and there are no
    /// positional arguments without a subcommand, so both read the same.
    pub(crate) fn parse_args(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
        if let Some(check) = CheckArgs::alone(args) {
            return Ok(Cli {
                command: None,
                check,
            });
        }
        Cli::try_parse_from(args)
    }
}

impl CheckArgs {
    /// `args` read as the check run's options and nothing else; `None`
    /// when they are anything more.
    fn alone(args: &[std::ffi::OsString]) -> Option<CheckArgs> {
        use clap::FromArgMatches;
        let command = CheckArgs::augment_args(clap::Command::new("run-check"));
        let matches = command.try_get_matches_from(args).ok()?;
        CheckArgs::from_arg_matches(&matches).ok()
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the checks (the default when no subcommand is given)
    Check(CheckArgs),
    /// Print the plan: the checks a mode runs, with resolved programs
    List(ListArgs),
    /// Validate checks.toml only: exit 0 when valid, 2 when not
    Validate(Location),
    /// Run the [[fix]] commands: the only command that writes to the worktree
    Fix(FixArgs),
    /// Render an evidence file in a report format, as the run that wrote it printed it
    Report(ReportArgs),
    /// Merge the evidence of --shard K/N runs into one document
    Merge(MergeArgs),
    /// Turn evidence (and earlier rounds) into a verdict: scores, feedback, stalls
    Judge(JudgeArgs),
    /// Aggregate reviewers' elimination votes: who is out, how much they agree
    Vote(VoteArgs),
    /// Count retries per failure point and say when to escalate
    Retry(RetryArgs),
    /// Gate candidate worktrees of one task at once, judge and rank them
    Candidates(CandidatesArgs),
    /// Print a JSON Schema of a document run-check reads or writes, or of checks.toml
    Schema(SchemaArgs),
    /// Write a starter checks.toml for the detected project; never overwrites
    Init(InitArgs),
    /// Install the read-only git hooks (pre-commit: fast, pre-push: strict)
    Hooks(HooksArgs),
    /// The result cache: print a check's key, the store's size, or empty it
    Cache(CacheArgs),
    /// Put the gate into coding agents (Claude Code, Cursor, Codex, Copilot): their hooks and feedback
    Agent(AgentArgs),
    /// Serve the gate to an MCP client (Model Context Protocol, over stdio)
    // `--version` too: the server is the program `run-check-mcp`, which
    // parses its arguments as this subcommand's and prints its version as
    // `run-check-mcp VERSION` (clap names a subcommand `run-check-mcp`).
    #[command(version)]
    Mcp(McpArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(CompletionsArgs),
    /// Print a manual page (roff): run-check(1), or a command's
    Man(ManArgs),
}

/// `agent` options.
#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    #[command(subcommand)]
    pub(crate) command: AgentCommand,
}

/// `agent` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum AgentCommand {
    /// Write or merge the agents' hook configurations (and skill, rule) so an agent cannot stop on a red gate
    Install(AgentInstallArgs),
    /// Take out what `agent install` added; other settings stay
    Uninstall(AgentUninstallArgs),
    /// Run as an agent's hook: read its hook JSON on stdin, gate, reply in its format
    Hook(AgentHookArgs),
    /// Run as an agent's pre-tool hook: deny edits of the gate and commands that skip it
    Guard(AgentGuardArgs),
    /// Print the bounded feedback of an evidence file, as an agent hook gives it to the model
    Feedback(AgentFeedbackArgs),
}

/// `agent install` options.
#[derive(Debug, Args)]
pub(crate) struct AgentInstallArgs {
    /// The agents [default: those whose folder the repository has (.claude,
    /// .cursor, .codex, .github/hooks, .gemini, .factory, .qwen, .opencode,
    /// .vscode, .aider.conf.yml), else claude]
    #[arg(value_enum, value_name = "AGENT")]
    pub(crate) agents: Vec<Agent>,
    /// Replace a settings file run-check cannot merge into, or an
    /// instruction file it did not write
    #[arg(long)]
    pub(crate) force: bool,
    /// Print what would change; write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `agent uninstall` options.
#[derive(Debug, Args)]
pub(crate) struct AgentUninstallArgs {
    /// The agents [default: every agent whose files hold run-check's entries]
    #[arg(value_enum, value_name = "AGENT")]
    pub(crate) agents: Vec<Agent>,
    /// Print what would change; write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `agent hook` options. Both are plain strings: a value clap rejected
/// would exit 2, which Claude Code reads as "block this stop".
#[derive(Debug, Args)]
pub(crate) struct AgentHookArgs {
    /// The agent: claude, cursor, codex, copilot, gemini, droid, qwen,
    /// opencode, vscode or aider
    #[arg(value_name = "AGENT")]
    pub(crate) agent: Option<String>,
    /// The event as the agent spells it (Claude Code: SessionStart, Stop;
    /// Cursor: beforeSubmitPrompt, stop; Codex: SessionStart, Stop;
    /// Copilot: sessionStart, agentStop; Gemini CLI: SessionStart,
    /// AfterAgent; Droid, Qwen Code, VS Code: SessionStart, Stop; OpenCode,
    /// Aider: start, stop)
    #[arg(value_name = "EVENT")]
    pub(crate) event: Option<String>,
}

/// `agent guard` options. Plain strings, as for `agent hook`: Copilot
/// denies a tool call whose pre-tool hook exits non-zero, so a usage error
/// must not exit 2.
#[derive(Debug, Args)]
pub(crate) struct AgentGuardArgs {
    /// The agent: claude, codex, copilot or cursor
    #[arg(value_name = "AGENT")]
    pub(crate) agent: Option<String>,
    /// The pre-tool event as the agent spells it (Claude Code and Codex:
    /// PreToolUse; Copilot: preToolUse; Cursor: beforeShellExecution)
    #[arg(value_name = "EVENT")]
    pub(crate) event: Option<String>,
}

/// `agent feedback` options.
#[derive(Debug, Args)]
pub(crate) struct AgentFeedbackArgs {
    /// Evidence file (a `--format json` report); `-` reads stdin [default:
    /// the last round of the repository's most recent agent session]
    #[arg(value_name = "EVIDENCE")]
    pub(crate) evidence: Option<PathBuf>,
    /// At most this many characters [default: `[agent] max_chars` of the
    /// checks.toml found as a check run finds it, else 4000]
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<usize>,
}

/// `mcp` options.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Root the checks run in [default: the nearest directory holding
    /// checks.toml, from the current directory up to the top level of its
    /// git worktree; else the current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
}

/// `cache` options.
#[derive(Debug, Args)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    pub(crate) command: CacheCommand,
}

/// `cache` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum CacheCommand {
    /// Print a check's cache key and the document it hashes (JSON): every input's path, mode and hash
    Key(CacheKeyArgs),
    /// Print where the local store is, its entries and size (JSON)
    Stats(CacheStatsArgs),
    /// Empty the local store
    Clean(Location),
}

/// `cache key` options.
#[derive(Debug, Args)]
pub(crate) struct CacheKeyArgs {
    /// The check (its `cache = true`)
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: DocumentFormat,
    /// Where the worktree and config are.
    #[command(flatten)]
    pub(crate) location: Location,
}

/// `cache stats` options.
#[derive(Debug, Args)]
pub(crate) struct CacheStatsArgs {
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: DocumentFormat,
    /// Where the worktree and config are.
    #[command(flatten)]
    pub(crate) location: Location,
}

/// Output format of a command that prints a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DocumentFormat {
    /// The JSON document
    Json,
    /// One `path: value` line per value of the document
    Text,
}

/// `man` options.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The command whose page to print, e.g. `judge` or `retry record`
    /// [default: run-check(1) itself]
    #[arg(value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// `completions` options.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell the script is for
    #[arg(value_enum, value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

/// `fix` options.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// Run only this fix (repeatable)
    #[arg(long, value_name = "NAME")]
    pub(crate) only: Vec<String>,
    /// No progress lines on stderr (warnings and errors still show)
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Where the worktree and config are.
    #[command(flatten)]
    pub(crate) location: Location,
}

/// `report` options.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// Evidence file (a `--format json` report); `-` reads stdin
    #[arg(value_name = "EVIDENCE")]
    pub(crate) evidence: PathBuf,
    /// Report format
    #[arg(long, value_enum)]
    pub(crate) format: Format,
    /// Write the report to FILE atomically; stdout then gets nothing
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Evidence of a run with --baseline: report the diagnostics the baseline
    /// knows too, marked old (by default only new ones are reported)
    #[arg(long)]
    pub(crate) all_diagnostics: bool,
    /// No banner on stderr (errors still show)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// Where the worktree and config are.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct Location {
    /// Config file [default: <worktree>/checks.toml]
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Root the checks run in [default: the nearest directory holding
    /// checks.toml, from the current directory up to the top level of its
    /// git worktree; else the current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
}

impl Location {
    /// This location with the default worktree filled in: with neither
    /// `--worktree` nor `--config`, the nearest directory holding a
    /// `checks.toml`, from the current directory up to the top level of its
    /// git worktree (as cargo finds `Cargo.toml`), named relative to the
    /// current directory (`..`, `../..`), so that messages and
    /// `meta.config.path` name the config as `../checks.toml`, which
    /// resolves from `meta.cwd`. Unchanged otherwise: with `--config` alone
    /// the worktree stays the current directory; with no `checks.toml`
    /// found, the current directory (and its error names `checks.toml`).
    ///
    /// The top level is the nearest directory holding a `.git` (a
    /// directory, or the file of a linked worktree or a submodule), found
    /// by `stat` alone: no git process on every run. It is never above the
    /// top level git finds (an invalid `.git` only stops the walk earlier),
    /// so a parent folder's `checks.toml` never gates a repository. Outside
    /// git only the current directory is looked at. A `checks.toml` of any
    /// kind counts (a file, a symbolic link, even a broken one): a package
    /// whose own config cannot be read fails, rather than being gated by
    /// another directory's config.
    pub(crate) fn resolved(&self) -> Location {
        let mut location = self.clone();
        if location.worktree.is_none() && location.config.is_none() {
            location.worktree = std::env::current_dir()
                .ok()
                .and_then(|cwd| config_root(&cwd))
                .filter(|up| *up > 0)
                .map(|up| std::iter::repeat_n("..", up).collect());
        }
        location
    }
}

/// How many levels above `cwd` the nearest `checks.toml` is, looking no
/// higher than the nearest directory holding `.git`; `None` when there is
/// none (or no `.git` above).
fn config_root(cwd: &Path) -> Option<usize> {
    let present = |dir: &Path, name: &str| dir.join(name).symlink_metadata().is_ok();
    // The usual case, a run at the root, costs one `stat`.
    if present(cwd, "checks.toml") {
        return Some(0);
    }
    let top = cwd.ancestors().position(|dir| present(dir, ".git"))?;
    cwd.ancestors()
        .take(top + 1)
        .position(|dir| present(dir, "checks.toml"))
}

/// CHECK OPTIONS, grouped in `--help` under the headings below (cargo and
/// ruff group theirs the same way: a flat list of twenty is not read).
#[derive(Debug, Args, Clone)]
pub(crate) struct CheckArgs {
    /// Which checks run, and how
    #[arg(long, value_enum, default_value = "strict", help_heading = SELECTION)]
    pub(crate) mode: Mode,
    /// Report format
    #[arg(long, value_enum, default_value = "text", help_heading = OUTPUT)]
    pub(crate) format: Format,
    /// Write the report to FILE atomically; stdout then gets nothing
    #[arg(long, short, value_name = "FILE", help_heading = OUTPUT)]
    pub(crate) out: Option<PathBuf>,
    /// Where the worktree and config are.
    #[command(flatten, next_help_heading = LOCATION)]
    pub(crate) location: Location,
    /// Run only this check (repeatable)
    #[arg(long, value_name = "NAME", help_heading = SELECTION)]
    pub(crate) only: Vec<String>,
    /// Do not run this check (repeatable)
    #[arg(long, value_name = "NAME", help_heading = SELECTION)]
    pub(crate) skip: Vec<String>,
    /// Parallel checks; 0 = logical CPUs [default: settings.jobs, else 0]
    #[arg(long, short, value_name = "N", help_heading = RUNNING)]
    pub(crate) jobs: Option<usize>,
    /// Task contract JSON: checked, recorded in the evidence, and the change
    /// measured against its budget
    #[arg(long, value_name = "FILE", help_heading = GATE)]
    pub(crate) task: Option<PathBuf>,
    /// Base revision for changed files (fast mode's `paths`; the change budget
    /// and contracts.gate, which default to the task's `base`) [default: HEAD]
    #[arg(long, value_name = "REV", help_heading = SELECTION)]
    pub(crate) changed_since: Option<String>,
    /// Run only shard K of N (1-based; checks split by a hash of their name)
    #[arg(long, value_name = "K/N", help_heading = SELECTION)]
    pub(crate) shard: Option<String>,
    /// With --shard: balance the shards by the durations of an earlier
    /// evidence (longest first onto the least loaded shard)
    #[arg(long, value_name = "EVIDENCE", requires = "shard", help_heading = SELECTION)]
    pub(crate) timings: Option<PathBuf>,
    /// Diagnostics this earlier evidence has are old: a check failing only
    /// for old ones passes, and reports show only new ones
    #[arg(long, value_name = "EVIDENCE", help_heading = GATE)]
    pub(crate) baseline: Option<PathBuf>,
    /// With --baseline: report the old diagnostics too, marked old
    #[arg(long, requires = "baseline", help_heading = GATE)]
    pub(crate) all_diagnostics: bool,
    /// Fast mode: keep launching checks after a failure
    #[arg(long, help_heading = RUNNING)]
    pub(crate) no_fail_fast: bool,
    /// Fast mode: also verify the checks changed nothing (always on in strict)
    #[arg(long, help_heading = RUNNING)]
    pub(crate) verify_read_only: bool,
    /// Strict mode: also take results from the local result cache (fast mode
    /// always does)
    #[arg(long, conflicts_with = "no_cache", help_heading = RUNNING)]
    pub(crate) cache: bool,
    /// Neither read nor write the result cache: every check runs
    #[arg(long, help_heading = RUNNING)]
    pub(crate) no_cache: bool,
    /// Run the `remote = true` checks on the `[remote]` cluster (the
    /// default when there is one); `--remote=auto`: run them here when the
    /// cluster does not answer, and say so
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_missing_value = "on", value_parser = ["on", "auto"],
          conflicts_with = "no_remote")]
    pub(crate) remote: Option<String>,
    /// Run every check here, `remote = true` ones too
    #[arg(long)]
    pub(crate) no_remote: bool,
    /// The agent hook's own: the passes an earlier stop of the session
    /// recorded (its session folder's `results.json`), reused for checks
    /// whose key is unchanged (docs/agents.md, "Results a stop reuses")
    #[arg(long, value_name = "FILE", hide = true, requires = "session_digest")]
    pub(crate) session_results: Option<PathBuf>,
    /// The agent hook's own: the sha256 `--session-results` must have (the
    /// one the session's digest chain recorded); any other file is unused
    #[arg(long, value_name = "SHA256", hide = true, requires = "session_results")]
    pub(crate) session_digest: Option<String>,
    /// No progress lines on stderr (warnings, errors and, when the report
    /// is not text on stdout, the closing banner still show)
    #[arg(long, short, help_heading = OUTPUT)]
    pub(crate) quiet: bool,
}

/// The headings of the check run's options in `--help`.
const SELECTION: &str = "Which checks";
const OUTPUT: &str = "Report";
const LOCATION: &str = "Where";
const RUNNING: &str = "Running";
const GATE: &str = "Task and baseline";

/// `candidates` options: a round of gates, or one of the subcommands that
/// create, clean up and summarise the candidates' worktrees. A candidate
/// worktree whose folder is named like a subcommand is given as
/// `./create`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct CandidatesArgs {
    #[command(subcommand)]
    pub(crate) command: Option<CandidatesCommand>,
    /// Task contract JSON every candidate is gated with
    #[arg(long, value_name = "FILE", required = true)]
    pub(crate) task: Option<PathBuf>,
    /// Folder of the runs: each candidate's files go to DIR/<task_id>/<candidate_id>/
    #[arg(long, value_name = "DIR", default_value = "runs")]
    pub(crate) runs: PathBuf,
    /// A trusted checks.toml every candidate is gated and judged by [default:
    /// each candidate's own checks.toml]
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Which checks run, and how
    #[arg(long, value_enum, default_value = "strict")]
    pub(crate) mode: Mode,
    /// The evidence of the task's base commit: each candidate fails only on
    /// diagnostics it does not have (see `check --baseline`)
    #[arg(long, value_name = "EVIDENCE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Checks running at once across all candidates; 0 = logical CPUs [default: 0]
    #[arg(long, short, value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// The phase of each candidate's retry failure point
    #[arg(long, value_parser = phase(), default_value = "verify")]
    pub(crate) phase: Phase,
    /// Output format of the index
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: CandidatesFormat,
    /// Candidate worktrees: PATH (its folder name is the id) or ID=PATH
    #[arg(value_name = "WORKTREE", required = true)]
    pub(crate) worktrees: Vec<String>,
}

/// `candidates` subcommands: the worktrees around a round.
#[derive(Debug, Subcommand)]
pub(crate) enum CandidatesCommand {
    /// Make the task's candidate worktrees at ../<repo>.wt/<task_id>/c<k>/, on branches aggr/task/<task_id>/c<k>
    Create(CandidatesCreateArgs),
    /// Remove the worktrees (and branches) the last round is done with; never one with uncommitted work
    Cleanup(CandidatesCleanupArgs),
    /// Write the root PROGRESS.md and SUMMARY.md from every candidate's files under --runs
    Summary(CandidatesSummaryArgs),
}

/// `candidates create` options.
#[derive(Debug, Args)]
pub(crate) struct CandidatesCreateArgs {
    /// Task contract JSON: its `id` names the worktrees and branches, its `base` is where they start
    #[arg(long, value_name = "FILE")]
    pub(crate) task: PathBuf,
    /// How many worktrees [default: the task's parallel_count]
    #[arg(long, value_name = "N")]
    pub(crate) count: Option<u32>,
    /// Output format of the list of worktrees
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: PathsFormat,
}

/// `candidates cleanup` options.
#[derive(Debug, Args)]
pub(crate) struct CandidatesCleanupArgs {
    /// Task contract JSON of the round to clean up after
    #[arg(long, value_name = "FILE")]
    pub(crate) task: PathBuf,
    /// Folder of the runs, as given to `candidates`
    #[arg(long, value_name = "DIR", default_value = "runs")]
    pub(crate) runs: PathBuf,
    /// Also remove worktrees with uncommitted changes or without evidence under DIR
    #[arg(long)]
    pub(crate) force: bool,
    /// Print what would be removed; remove nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `candidates summary` options.
#[derive(Debug, Args)]
pub(crate) struct CandidatesSummaryArgs {
    /// Folder of the runs, as given to `candidates`
    #[arg(long, value_name = "DIR", default_value = "runs")]
    pub(crate) runs: PathBuf,
}

/// Output format of a list of paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PathsFormat {
    /// One path per line
    Text,
    /// A JSON array of strings
    Json,
}

/// `list` options.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The mode whose checks to list
    #[arg(long, value_enum, default_value = "strict")]
    pub(crate) mode: Mode,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: ListFormat,
    /// Where the worktree and config are.
    #[command(flatten)]
    pub(crate) location: Location,
}

/// Output format of `list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    /// One line per check: name, timeout, command, resolved program
    Text,
    /// An array of objects (name, kind, command, program, timeout_ms, cwd, needs, ...)
    Json,
}

/// Output format of `candidates`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CandidatesFormat {
    /// A few aligned lines: rank, id, result, score, lines, route, retry
    Text,
    /// The index document (`run-check schema candidates-index`)
    Json,
    /// The index as Markdown (what `index.md` holds)
    Markdown,
}

/// `merge` options.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// Shard evidence files (`--format json` outputs)
    #[arg(required = true, value_name = "EVIDENCE")]
    pub(crate) inputs: Vec<PathBuf>,
    /// Write the merged evidence to FILE atomically [default: stdout]
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Merge evidence of different commits, modes or incomplete splits
    #[arg(long)]
    pub(crate) force: bool,
    /// Format of the merged run's report: `json` is the merged evidence
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: Format,
    /// No banner on stderr after an --out file (errors still show)
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// `judge` options.
#[derive(Debug, Args)]
pub(crate) struct JudgeArgs {
    /// Evidence JSON, or an aggregator input (with `security_result`); `-` for stdin
    #[arg(value_name = "EVIDENCE")]
    pub(crate) input: PathBuf,
    /// Earlier rounds, one verdict per line (JSON lines)
    #[arg(long, value_name = "FILE")]
    pub(crate) history: Option<PathBuf>,
    /// Append this round's verdict to the history file (as JSON, whatever --format prints)
    #[arg(long, requires = "history")]
    pub(crate) record: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: JudgeFormat,
    /// checks.toml whose [judge] table sets thresholds and weights [default:
    /// the config the evidence names, when it still has the recorded sha256]
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Retry state file: its failure point past max_retries decides the route
    #[arg(long, value_name = "FILE", requires_all = ["phase", "subagent"])]
    pub(crate) state: Option<PathBuf>,
    /// The failure point's phase (with --state)
    #[arg(long, value_name = "PHASE", value_parser = ["verify", "fix"], requires = "state")]
    pub(crate) phase: Option<String>,
    /// The failure point's subagent (with --state)
    #[arg(long, value_name = "NAME", requires = "state")]
    pub(crate) subagent: Option<String>,
}

/// Output format of `judge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum JudgeFormat {
    /// The verdict document
    Json,
    /// Feedback for the code writer: issues by severity, scores, next step
    Markdown,
    /// The same in plain lines, for a terminal
    Text,
}

/// `vote` options.
#[derive(Debug, Args)]
pub(crate) struct VoteArgs {
    /// The vote input JSON; `-` for stdin
    #[arg(value_name = "INPUT")]
    pub(crate) input: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: DocumentFormat,
}

/// `retry` options.
#[derive(Debug, Args)]
// A missing action is a one-line usage error naming the actions, not help.
#[command(arg_required_else_help = false, subcommand_required = true)]
pub(crate) struct RetryArgs {
    /// record, status or reset
    #[command(subcommand)]
    pub(crate) action: RetryAction,
}

/// What `retry` does.
#[derive(Debug, Subcommand)]
pub(crate) enum RetryAction {
    /// Record one attempt's evidence for a failure point and print the decision
    /// (exit 0 RETRY/RESOLVED, 1 SUBTASK/BLOCKED)
    Record(RecordArgs),
    /// Show the failure points
    Status(StatusArgs),
    /// Forget failure points of a task
    Reset(ResetArgs),
}

/// Output format of `record` and `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RetryFormat {
    /// JSON on stdout
    Json,
    /// Human-readable lines
    Text,
}

/// The state file option shared by every action.
#[derive(Debug, Args, Clone)]
pub(crate) struct StateArg {
    /// The state file (created by `record`, with its parent directories)
    #[arg(long = "state", value_name = "FILE", default_value = crate::aggregate::retry::DEFAULT_STATE)]
    pub(crate) path: PathBuf,
}

/// `retry record` options.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// The task id of the failure point (`--task` is an old spelling)
    #[arg(long = "task-id", alias = "task", value_name = "ID")]
    pub(crate) task_id: String,
    /// The phase of the failure point
    #[arg(long, value_parser = phase())]
    pub(crate) phase: Phase,
    /// The subagent of the failure point
    #[arg(long, value_name = "NAME")]
    pub(crate) subagent: String,
    /// Evidence JSON written by `run-check --format json`; `-` for stdin
    #[arg(long, value_name = "EVIDENCE")]
    pub(crate) evidence: PathBuf,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
    /// Output format
    #[arg(long, value_enum, default_value = "json")]
    pub(crate) format: RetryFormat,
    /// checks.toml whose `[retry]` table sets `max_retries` [default: the
    /// config the evidence names, when it still has the recorded sha256,
    /// else 3]
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Write the point's lesson in DIR once it has failed twice:
    /// DIR/YYYY-MM-DD_<task>-<phase>-<subagent>.md, never overwritten
    #[arg(long, value_name = "DIR")]
    pub(crate) lessons: Option<PathBuf>,
}

/// `retry status` options.
#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Only the points of this task (`--task` is an old spelling)
    #[arg(long = "task-id", alias = "task", value_name = "ID")]
    pub(crate) task_id: Option<String>,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: RetryFormat,
}

/// `retry reset` options.
#[derive(Debug, Args)]
pub(crate) struct ResetArgs {
    /// The task whose points to forget (`--task` is an old spelling)
    #[arg(long = "task-id", alias = "task", value_name = "ID")]
    pub(crate) task_id: String,
    /// Only the points of this phase
    #[arg(long, value_parser = phase())]
    pub(crate) phase: Option<Phase>,
    /// Only the points of this subagent
    #[arg(long, value_name = "NAME")]
    pub(crate) subagent: Option<String>,
    /// The state file.
    #[command(flatten)]
    pub(crate) state: StateArg,
}

/// `--phase`: `verify` or `fix`.
fn phase() -> impl TypedValueParser<Value = Phase> {
    PossibleValuesParser::new([
        PossibleValue::new("verify").help("Verifying a candidate"),
        PossibleValue::new("fix").help("Fixing the verifier's issues"),
    ])
    .map(|word| Phase::from_word(&word).unwrap_or(Phase::Verify))
}

/// `run-check schema` options.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The schema to print
    #[arg(value_name = "NAME", value_parser = PossibleValuesParser::new(crate::tooling::schema::names()))]
    pub(crate) name: String,
}

/// `init` options.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Root the checks run in: checks.toml is written there [default:
    /// current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
}

/// `hooks` options.
#[derive(Debug, Args)]
pub(crate) struct HooksArgs {
    /// What to do with the hooks.
    #[command(subcommand)]
    pub(crate) command: HooksCommand,
}

/// `hooks` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum HooksCommand {
    /// Install the read-only hooks into the repository's hooks directory
    Install(HooksInstallArgs),
    /// Remove the hooks `hooks install` wrote; other hooks stay
    Uninstall(HooksUninstallArgs),
}

/// `hooks install` options.
#[derive(Debug, Args)]
pub(crate) struct HooksInstallArgs {
    /// The hooks to install [default: pre-commit pre-push]
    #[arg(value_enum, value_name = "HOOK")]
    pub(crate) hooks: Vec<Hook>,
    /// Move a hook run-check did not write to <name>.run-check-backup, then install
    #[arg(long)]
    pub(crate) force: bool,
    /// A directory of the repository whose hooks to install [default:
    /// current directory] (`--worktree` is an old spelling)
    #[arg(long, alias = "worktree", value_name = "DIR")]
    pub(crate) repo: Option<PathBuf>,
    /// An earlier evidence the hooks pass to `--baseline`: the diagnostics
    /// it has fail no commit or push, only new ones do
    #[arg(long, value_name = "EVIDENCE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Print what would change; write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `hooks uninstall` options.
#[derive(Debug, Args)]
pub(crate) struct HooksUninstallArgs {
    /// The hooks to remove [default: pre-commit pre-push]
    #[arg(value_enum, value_name = "HOOK")]
    pub(crate) hooks: Vec<Hook>,
    /// A directory of the repository whose hooks to remove [default:
    /// current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) repo: Option<PathBuf>,
    /// Print what would change; write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

// The hooks and the agents are tooling's; their names and help on the
// command line are said here, so tooling/ stays free of clap.
impl ValueEnum for Hook {
    fn value_variants<'a>() -> &'a [Self] {
        &[Hook::PreCommit, Hook::PrePush]
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Hook::PreCommit => "Before a commit: `run-check --mode fast`",
            Hook::PrePush => "Before a push: `run-check --mode strict`",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

impl ValueEnum for Agent {
    fn value_variants<'a>() -> &'a [Self] {
        &Agent::ALL
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.protocol().title))
    }
}

#[cfg(test)]
mod tests;
