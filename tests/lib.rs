//! The integration suite: one test binary (faster to link), one module per
//! feature. Every test runs the real `run-check` binary in a temp directory.

/// The `Test` builder: temp worktree, checks.toml, run, assertions.
mod support;

/// The hook's deadline, a gate that dies, an input of another agent, the agents' timeout fields.
mod agent_deadline;
/// Debts: no gate at session start, a committed baseline from `agent install`, debts a new session owes.
mod agent_debts;
/// The agent's feedback: separators, bidi and zero-width characters shown as escapes.
mod agent_feedback;
/// `agent guard` fed each agent's documented pre-tool input: denials, install, the turn's list.
mod agent_guard;
/// `agent hook` fed each agent's documented input; `agent install` / `uninstall`.
mod agent_hooks;
/// A real agent loop: three candidates, three rounds of `candidates`.
mod agent_loop;
/// Gemini CLI, Factory Droid, Qwen Code, VS Code, OpenCode (its plugin under Node) and Aider.
mod agent_more;
/// Progress is not a stall: one fix per stop against one failing check.
mod agent_progress;
/// Results a stop reuses: only for an unchanged key, input, config, program and git settings.
mod agent_reuse;
/// Session files planted as links to /dev/zero or FIFOs: never opened, never a hang.
mod agent_session_files;
/// A session pinned to where it started, and files only the hook writes.
mod agent_trust;
/// The import rules of ARCHITECTURE.md's map.
mod architecture;
/// Artifacts: globs, sha256, JUnit XML and SARIF into diagnostics.
mod artifacts;
/// `--baseline`: only new findings fail, in every format; moved ones match.
mod baseline;
/// Workload L's task set: each C task's patch applies, and the hook names every defect.
mod bench_feedback;
/// The result cache by mutation: each change of a key runs the check again.
mod cache;
/// The result cache attacked: hidden shadows, `version` commands that write, linked stores.
mod cache_attacks;
/// The remote result cache against a real nginx with WebDAV: fill, hit, token, failures.
mod cache_remote;
/// `candidates`: candidate worktrees gated at once, judged, ranked.
mod candidates;
/// `candidates create`, `cleanup` and `summary`: a whole round of worktrees.
#[cfg(unix)]
mod candidates_worktrees;
/// `--help`, `--version`, `list`, `validate`, usage errors.
mod cli;
/// The command line's conventions (docs/cli.md) over every subcommand's
/// clap definition; the old spellings of renamed flags.
#[cfg(unix)]
mod cli_conventions;
/// `completions SHELL` loaded by a real bash; `man` pages rendered by man.
mod completions;
/// Every config error of docs/checks-toml.md: exit 2, one line, nothing runs.
mod config_errors;
/// Diagnostics from real tool output, the cap, paths made worktree-relative.
mod diagnostics;
/// The docs: README size, links that resolve, no pointers outside the repository, help texts.
mod docs;
/// Escaped processes: killed, listed in `leaked`, `leave_running`, SIGQUIT/SIGHUP.
mod escape;
/// Fast mode: `paths` against the changed files, `--changed-since`.
mod fastmode;
/// A newcomer's first day: Make's build and test, no vacuous green, the output tail only when no error explains the exit.
mod first_day;
/// `run-check fix`: writers run only there, with the whitelist.
mod fix;
/// `retries` and `settings.flaky`: attempts, flaky checks in evidence, judge and reports.
mod flaky;
/// Report formats: junit, sarif, github, markdown, validated structurally.
mod formats;
/// `contracts.gate`: a candidate that weakens its own gate is never silent.
mod gate;
/// `run-check hooks install` and the hook templates, with real commits and pushes.
mod hooks;
/// The html report in headless Chromium: a bar per check, the failure first.
mod html;
/// `run-check init`: detected projects, generated checks, never overwriting.
mod init;
/// `run-check init` on a sample npm project, then its gate with the real tools.
mod init_node;
/// action.yml, the CI templates and .pre-commit-hooks.yaml: schemas, steps, prek.
mod integrations;
/// `run-check judge`: verdicts over recorded rounds, --record under concurrency.
mod judge;
/// Input limits: oversized configs, tasks and JSON inputs are refused.
mod limits;
/// `run-check mcp` driven by the official MCP Python SDK: tools, bounds, nothing run by an argument.
mod mcp;
/// The release artifacts (wheels, npm tarballs, the musl binary), installed and run.
mod packaging;
/// Timeouts, process trees, bounded output, parallelism, signals.
mod process;
/// One evidence reader: judge, merge, retry and report agree on every document.
mod readers;
/// Read-only verification: modified, created, deleted paths; ignored output.
mod readonly;
/// Files under a filter (Git LFS, a git-crypt-like driver) with stale stat
/// data: a check's own `git status` refreshing them is no change (Unix).
#[cfg(unix)]
mod readonly_filters;
/// Read-only verification against what git decides: filters, the index's
/// stat cache, ignore files, FIFOs (shell-script filters: Unix).
#[cfg(unix)]
mod readonly_git;
/// Nothing under the git directory is opened unless it is a regular file:
/// FIFOs at a hook, `config.worktree`, a ref, an object; SIGTERM (Unix).
#[cfg(unix)]
mod readonly_gitdir;
/// The repository's git settings cannot redefine "unchanged": settings a check
/// left, in-place edits, a weakened gate, a cached pass (shell checks: Unix).
#[cfg(unix)]
mod readonly_pinned;
/// A worktree no check touched is proven unchanged without a second
/// `git status`; every change hidden from that proof still fails (Linux).
#[cfg(target_os = "linux")]
mod readonly_settled;
/// Remote checks on a real BuildGrid cluster: upload, execute, cancel, failures, `--remote=auto`.
mod remote;
/// `run-check report`: an evidence file in every format, as its run printed it.
mod report;
/// `--only`/`--skip` against the mode; how `run[0]` paths resolve.
mod resolve;
/// `run-check retry`: decisions, exit codes, concurrent records.
mod retry;
/// The sarif report against the SARIF 2.1.0 schema and GitHub's upload rules.
mod sarif;
/// Built-in scan checks: rule sets, custom rules, redaction, .gitignore.
mod scan;
/// JSON Schemas against real evidence, task files, checks.toml and init's output.
mod schema;
/// `--shard K/N` and `run-check merge`.
mod shard;
/// Exit codes and statuses of the check run: pass, fail, error, skip.
mod statuses;
/// The task contract (`--task`): meta.task, violations, change budget, errors.
mod task;
/// The terminal: the live view, one listing, colour, read from a tmux pane.
mod terminal;
/// README.md's 5-minute tour, run command by command against the output it prints.
mod tour;
/// Python virtualenvs, real ones: inside the worktree, outside it, on PATH.
mod venv;
/// `run-check vote`: consensus levels, elimination, strict input validation.
mod vote;
/// The default `--worktree`: the nearest checks.toml up to the git top level.
mod worktree;
/// run-check.sh, run-check.ps1 (syntax) and the Makefile.
mod wrappers;
