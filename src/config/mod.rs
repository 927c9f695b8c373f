//! checks.toml: its serde schema (docs/checks-toml.md), loading and validation.
//!
//! `Config` mirrors the file and only validates it: every rule of docs/checks-toml.md
//! that can be decided from the file alone (unknown keys, names,
//! `needs`, durations, globs, regexes, the whitelist) is checked here, so a
//! config error is reported before any check runs. Nothing here touches PATH or
//! spawns anything; that is `plan`'s job.
//!
//! The module's files, one concern each:
//! - `mod.rs` (here): the public types, [`load`] and [`parse`], the entry
//!   points;
//! - `raw`: the file as serde sees it (`deny_unknown_fields`, spans);
//! - `validate`: the `Validator` and its top-level pass over the file
//!   (version, tables, checks, fixes);
//! - `values`: one value each: names, durations, globs, regexes, `cwd`, `env`;
//! - `env`: the environment keys that load code, refused unless
//!   `settings.allow_env` lists them;
//! - `git_args`: `git` arguments that make git run another program,
//!   refused unless that program is listed (also used by `plan` for git
//!   reached under another name);
//! - `settings`: `[settings]`, `[judge]` and the program whitelist;
//! - `check`: one `[[check]]`: run or scan, rules, score, matchers;
//! - `needs`: the `needs` graph: unknown names and cycles;
//! - `pattern`: how `paths` and `scan.paths` patterns read (directories,
//!   `./`, absolute and `..` patterns);
//! - `span`: byte offsets to lines, keys and one-line errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::Glob;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::digest::hex;
use crate::error::Error;

pub(crate) use raw::RawConfig;
use span::{header_at, key_at};
use validate::Validator;

mod check;
pub(crate) mod env;
pub(crate) mod git_args;
mod needs;
pub(crate) mod pattern;
#[cfg(test)]
mod props;
mod raw;
mod remote;
mod settings;
mod span;
mod validate;
mod values;

/// Default per-check timeout (docs/checks-toml.md).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Default bytes kept from the head and from the tail of each stream.
pub(crate) const DEFAULT_EXCERPT_BYTES: usize = 8192;
/// The most `retries` a check may have (docs/checks-toml.md).
pub(crate) const MAX_RETRIES: u32 = 10;
/// Built-in scan rule sets (docs/checks-toml.md).
pub(crate) const SCAN_RULE_SETS: [&str; 4] = [
    "skipped-tests",
    "placeholder-asserts",
    "secrets",
    "debug-leftovers",
];
/// Programs that interpret a string as a script: allowed only when listed.
pub(crate) const SHELLS: [&str; 12] = [
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "pwsh",
    "powershell",
    "cmd",
    "sh.exe",
    "bash.exe",
    "cmd.exe",
];

/// Which checks run, and how (docs/running.md).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, clap::ValueEnum, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    /// Developer loop: checks marked fast, change-filtered, fail-fast.
    Fast,
    /// Acceptance gate: every strict check, read-only verification.
    Strict,
}

impl Mode {
    /// The word used in config, evidence and messages.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Fast => "fast",
            Mode::Strict => "strict",
        }
    }
}

use run_check_documents::evidence::DiagSeverity;
pub(crate) use run_check_documents::evidence::{Dimension, Severity};

/// How a check's output is read for diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, Default, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Parser {
    /// Everything that carries its own marker (cargo JSON, rustc, tsc, mypy,
    /// gcc-style lines with a severity word, pytest summaries, eslint, rustfmt
    /// diff headers, vitest and jest failures, TAP `not ok` points, CMake
    /// messages and ctest's failed tests); never invents a diagnostic.
    #[default]
    Auto,
    /// No parsing.
    None,
    /// `file:line:col: severity: message` (gcc, clang, shellcheck -f gcc,
    /// eslint -f unix), and ruff concise / go vet lines.
    Gcc,
    /// rustc / clippy human output: `error[E0308]: ...` with its
    /// ` --> file:line:col`.
    Rustc,
    /// cargo `--message-format=json` compiler messages.
    CargoJson,
    /// TypeScript: `file(l,c): error TSxxxx: ...`.
    Tsc,
    /// pytest's short summary `FAILED path::test - msg` with the test's line.
    Pytest,
    /// mypy: `file:line[:col]: error: msg  [code]`.
    Mypy,
    /// eslint stylish and compact output.
    Eslint,
    /// go build / go vet locations and go test `--- FAIL: TestX`.
    Go,
    /// `cargo fmt --check` / `rustfmt --check`: one error per `Diff in
    /// file:line:` hunk.
    Rustfmt,
    /// A formatter's unified diff (`black --check --diff`, `ruff format
    /// --diff`, `isort --diff`): one error per `@@` hunk at its first
    /// changed line, and black's `error: cannot parse: file:line:col`.
    Diff,
    /// vitest's default reporter: one error per ` FAIL  file > test` with the
    /// frame in the test's file.
    Vitest,
    /// jest's default reporter: one error per `● test` of a `FAIL file`
    /// with the frame in the test's file.
    Jest,
    /// Test Anything Protocol (`node --test` TAP, tape, node-tap, `prove`):
    /// one error per `not ok` point, at its assertion's frame, and per
    /// Test::More `Failed test` at its `file line N`.
    Tap,
    /// CMake's `CMake Error at file:line (command):` with its reason, and
    /// ctest's failed tests at their assertion's `file:line` (else by name).
    Cmake,
    /// `prettier --check`: one error per `[warn] file` (no line) and per
    /// `[error] file: SyntaxError: … (line:col)`.
    Prettier,
    /// A `PHASE_RESULT:` block of `- key: value` lines into the check's `data`.
    PhaseResult,
}

/// The loaded, validated checks.toml.
#[derive(Debug)]
pub(crate) struct Config {
    /// The file, as the user would name it.
    pub(crate) path: PathBuf,
    /// sha256 of the file's bytes, hex.
    pub(crate) sha256: String,
    pub(crate) settings: Settings,
    /// `[judge]`, each key optional.
    pub(crate) judge: JudgeConfig,
    pub(crate) retry: RetryConfig,
    /// `[agent]`, over its defaults.
    pub(crate) agent: AgentConfig,
    /// `[cache]`.
    pub(crate) cache: CacheSettings,
    /// `[remote]`, when there is one.
    pub(crate) remote: Option<RemoteSettings>,
    /// `[gate]`.
    pub(crate) gate: GateConfig,
    /// `[[check]]`, in file order.
    pub(crate) checks: Vec<CheckConfig>,
    /// `[[fix]]`, in file order, as process checks (no modes: only
    /// `run-check fix` runs them).
    pub(crate) fixes: Vec<CheckConfig>,
}

/// `[settings]`.
#[derive(Debug)]
pub(crate) struct Settings {
    /// Parallel checks; 0 = logical CPUs.
    pub(crate) jobs: usize,
    /// Default per-check timeout.
    pub(crate) timeout: Duration,
    /// Bytes kept from the head and from the tail of each stream.
    pub(crate) excerpt_bytes: usize,
    /// The whitelist, as written.
    pub(crate) allow: Vec<String>,
    /// Environment keys that load code (`env::loads_code`) which checks may
    /// set all the same.
    pub(crate) allow_env: Vec<String>,
    /// What a flaky check is in strict mode.
    pub(crate) flaky: FlakyPolicy,
}

/// `settings.flaky`: what a check that failed, then passed on a retry, is
/// in strict mode (fast mode always lets it pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FlakyPolicy {
    /// It passes (the judge raises a Low `flaky` issue).
    #[default]
    Pass,
    /// It fails, still marked `flaky`.
    Fail,
}

/// `[agent]`: how `run-check agent hook` holds an agent to the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgentConfig {
    /// The mode a stop is gated in.
    pub(crate) mode: Mode,
    /// The feedback's bound, in characters (300..=9000).
    pub(crate) max_chars: usize,
    /// Consecutive blocked stops before the agent is let go; 0 never blocks.
    pub(crate) max_blocks: u32,
    /// Block only for failures the session did not start with (and that
    /// are not the worktree's debts: `agent/session/debts.rs`).
    pub(crate) new_only: bool,
    /// The committed evidence that excuses what the repository already
    /// fails on: a path relative to the worktree, without `..`.
    pub(crate) baseline: Option<PathBuf>,
    /// When the hook stops its gate (as on Ctrl-C): below the agent's own
    /// hook timeout, which `agent install` writes as this + 60 s.
    pub(crate) timeout: Duration,
    /// `agent install` hooks the pre-tool event with `agent guard`, and the
    /// guard denies; `false`: neither.
    pub(crate) guard: bool,
}

impl AgentConfig {
    /// The feedback's default bound: room for a dozen located problems, well
    /// under the 10,000 characters past which Claude Code shows the model a
    /// 2 KB preview.
    pub(crate) const MAX_CHARS: usize = 4000;
    /// The largest `max_chars`.
    pub(crate) const MAX_CHARS_LIMIT: usize = 9000;
    /// The smallest `max_chars`: the verdict, the next step and the
    /// evidence's path still fit.
    pub(crate) const MIN_CHARS: usize = 300;
    /// The largest `max_blocks`: Claude Code and GitHub Copilot end a turn
    /// after 8 consecutive blocks.
    pub(crate) const MAX_BLOCKS_LIMIT: u32 = 8;
    /// The default `timeout`: with the 60 s `agent install` adds, the
    /// agents' own 600 s default for a hook.
    pub(crate) const TIMEOUT: Duration = Duration::from_secs(9 * 60);
    /// The largest `timeout`: an agent left waiting longer for its stop
    /// is stuck, not gated.
    pub(crate) const TIMEOUT_LIMIT: Duration = Duration::from_secs(60 * 60);
}

impl Default for AgentConfig {
    fn default() -> AgentConfig {
        AgentConfig {
            mode: Mode::Strict,
            max_chars: AgentConfig::MAX_CHARS,
            max_blocks: 5,
            new_only: false,
            baseline: None,
            timeout: AgentConfig::TIMEOUT,
            guard: true,
        }
    }
}

/// `[gate]`: the files a config declares part of the gate.
#[derive(Debug, Default)]
pub(crate) struct GateConfig {
    /// `files`, compiled (each pattern as `pattern::expand` reads it);
    /// `None` when the key is absent or empty.
    pub(crate) files: Option<globset::GlobSet>,
}

/// `[remote]` (docs/remote.md).
#[derive(Debug, Clone)]
pub(crate) struct RemoteSettings {
    /// `grpc://HOST:PORT` or `grpcs://HOST:PORT`.
    pub(crate) endpoint: String,
    /// The REAPI instance name.
    pub(crate) instance: String,
    /// The variable holding the bearer token.
    pub(crate) token_env: Option<String>,
    /// Platform properties, sorted by name.
    pub(crate) platform: Vec<(String, String)>,
    /// `jobs`: remote checks at once (`None`: as many as local checks).
    pub(crate) jobs: Option<usize>,
}

/// `[cache]` (docs/cache.md).
#[derive(Debug, Default)]
pub(crate) struct CacheSettings {
    /// The local store as written (absolute, or `~/...`); `None`: the
    /// platform cache folder.
    pub(crate) dir: Option<String>,
    /// A Bazel HTTP remote cache (`http://` or `https://`).
    pub(crate) remote: Option<String>,
    /// Whether a run may write to the remote (`RUN_CHECK_CACHE_WRITE=1`
    /// also allows it).
    pub(crate) remote_write: bool,
    /// The variable holding the remote's bearer token.
    pub(crate) token_env: Option<String>,
}

/// The token's variable that docs/cache.md names (`token_env` may name
/// another): never given to a check, whatever `token_env` says.
pub(crate) const CACHE_TOKEN_ENV: &str = "RUN_CHECK_CACHE_TOKEN";

impl CacheSettings {
    /// The variables that hold the cache's secrets: `RUN_CHECK_CACHE_TOKEN`
    /// and the one `token_env` names. No check, fix or `version` command
    /// of a key gets them in its environment (inherited or set by its
    /// `env`): a passing check that prints its environment would put the
    /// token into its excerpt, so into the evidence, the local store and
    /// the remote.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let mut names = vec![CACHE_TOKEN_ENV.to_string()];
        if let Some(name) = &self.token_env
            && name != CACHE_TOKEN_ENV
        {
            names.push(name.clone());
        }
        names
    }
}

/// A check's `cache = true` and what its key holds besides the check.
#[derive(Debug)]
pub(crate) struct CacheSpec {
    /// `inputs`, as `pattern::expand` reads them; `None`: the check's
    /// `paths`, else every file.
    pub(crate) inputs: Option<Vec<Glob>>,
    /// `inputs` as written.
    pub(crate) input_globs: Vec<String>,
    /// `env_keys`, in file order.
    pub(crate) env_keys: Vec<String>,
    /// `version`: an argv whose program is whitelisted.
    pub(crate) version: Option<Vec<String>>,
}

/// `[judge]`, over the judge's defaults.
#[derive(Debug, Default, Clone)]
pub(crate) struct JudgeConfig {
    pub(crate) thresholds: Thresholds,
    pub(crate) weights: Weights,
}

pub(crate) use run_check_documents::verdict::{Thresholds, Weights};

/// `[retry]`.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetryConfig {
    /// Retries per failure point before escalation (SUBTASK or BLOCKED).
    #[schemars(extend("default" = 3))]
    pub(crate) max_retries: Option<u32>,
}

/// What a check does.
#[derive(Debug)]
pub(crate) enum CheckKind {
    /// Run a whitelisted program with these arguments (argv, no shell).
    Run(Vec<String>),
    /// A built-in scan (no process).
    Scan(ScanConfig),
}

/// `scan = { paths, rules }` plus the check's `[[check.rule]]`s.
#[derive(Debug)]
pub(crate) struct ScanConfig {
    /// Patterns of the files to scan, as written (empty: every file); read
    /// by `pattern::expand`.
    pub(crate) paths: Vec<String>,
    /// Built-in rule sets.
    pub(crate) rules: Vec<String>,
    pub(crate) custom: Vec<ScanRule>,
}

/// One `[[check.rule]]`.
#[derive(Debug)]
pub(crate) struct ScanRule {
    pub(crate) id: String,
    /// Compiled pattern.
    pub(crate) pattern: Regex,
    /// Message of a finding.
    pub(crate) message: Option<String>,
    /// Severity of a finding (default error).
    pub(crate) severity: DiagSeverity,
}

/// One `[[check.matcher]]`.
#[derive(Debug)]
pub(crate) struct Matcher {
    /// Compiled regex with named groups.
    pub(crate) regex: Regex,
    /// Severity when the regex has no `severity` group.
    pub(crate) severity: DiagSeverity,
}

/// One `[[check]]`.
#[derive(Debug)]
pub(crate) struct CheckConfig {
    /// Unique name.
    pub(crate) name: String,
    /// 1-based line of the check's `name`, for messages.
    pub(crate) line: usize,
    /// 1-based line of the `[[check]]` header opening its table (the
    /// `name` line when the table has no header of its own, as in an
    /// inline table): the evidence's `checks[].config_line`.
    pub(crate) table_line: usize,
    /// Process or scan.
    pub(crate) kind: CheckKind,
    /// Modes the check belongs to.
    pub(crate) modes: Vec<Mode>,
    pub(crate) dimension: Dimension,
    /// Issue severity when it fails.
    pub(crate) severity: Severity,
    /// Its own timeout, if set.
    pub(crate) timeout: Option<Duration>,
    /// Times a failing run is started again (0..=`MAX_RETRIES`; 0 for a
    /// scan and a fix).
    pub(crate) retries: u32,
    /// Working directory relative to the worktree, normalised (no `..`).
    pub(crate) cwd: PathBuf,
    /// Extra environment variables.
    pub(crate) env: BTreeMap<String, String>,
    /// Fast-mode path globs (`None`: always runs), parsed from the patterns
    /// as `pattern::expand` reads them; compiled by `plan::Resolver::paths`
    /// when needed.
    pub(crate) paths: Option<Vec<Glob>>,
    /// The globs as written.
    pub(crate) path_globs: Vec<String>,
    /// Names of the checks this one runs after.
    pub(crate) needs: Vec<String>,
    pub(crate) parser: Parser,
    /// Artifact globs.
    pub(crate) artifacts: Vec<String>,
    /// Processes it leaves behind are not killed (a build daemon), only
    /// listed in `leaked`.
    pub(crate) leave_running: bool,
    /// Score regex (first capture group is the score).
    pub(crate) score: Option<Regex>,
    pub(crate) matchers: Vec<Matcher>,
    /// `cache = true`: the result cache (`None`: not cached).
    pub(crate) cache: Option<CacheSpec>,
    /// `remote = true`: runs on the `[remote]` cluster (docs/remote.md).
    pub(crate) remote: bool,
}

/// Reads and validates a config file. `display` is how the path is named in
/// messages and evidence.
pub(crate) fn load(path: &Path, display: &Path, explicit: bool) -> Result<Config, Error> {
    let bytes = match crate::bounded::read(path, crate::bounded::CONFIG) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let message = if explicit {
                "no such file (named by --config)"
            } else {
                "no such file (create checks.toml in the worktree or pass --config PATH)"
            };
            return Err(Error::Config {
                path: display.to_path_buf(),
                location: None,
                key: None,
                message: message.into(),
            });
        }
        Err(err) => return Err(Error::io("read config", display, err)),
    };
    let sha256 = hex(&Sha256::digest(&bytes));
    let text = String::from_utf8(bytes).map_err(|err| Error::Config {
        path: display.to_path_buf(),
        location: None,
        key: None,
        message: format!(
            "not valid UTF-8 (invalid byte at offset {})",
            err.utf8_error().valid_up_to()
        ),
    })?;
    parse(&text, display, sha256)
}

/// The config at `path` when its bytes still have `sha256` (the file a
/// document recorded); `None` when it is missing, unreadable or changed.
/// Read once, so what is parsed is what was hashed.
pub(crate) fn load_recorded(path: &Path, sha256: &str) -> Option<Result<Config, Error>> {
    let bytes = crate::bounded::read(path, crate::bounded::CONFIG).ok()?;
    if hex(&Sha256::digest(&bytes)) != sha256 {
        return None;
    }
    Some(match String::from_utf8(bytes) {
        Ok(text) => parse(&text, path, sha256.to_string()),
        Err(_) => Err(Error::Internal(format!(
            "{}: the recorded config is not UTF-8",
            path.display()
        ))),
    })
}

/// The config an evidence was made with, when it is still there with the
/// recorded sha256: `meta.config.path` as named from `meta.cwd`, else
/// against `meta.worktree` (judge and retry read `[judge]` / `[retry]` so).
pub(crate) fn recorded(
    meta: &run_check_documents::evidence::Meta,
) -> Option<Result<Config, Error>> {
    let named = Path::new(&meta.config.path);
    [Path::new(&meta.cwd), Path::new(&meta.worktree)]
        .into_iter()
        .find_map(|base| load_recorded(&base.join(named), &meta.config.sha256))
}

/// Parses and validates config text.
pub(crate) fn parse(text: &str, path: &Path, sha256: String) -> Result<Config, Error> {
    let raw: RawConfig = toml::from_str(text).map_err(|err| {
        let mut message = err.message().to_string();
        // serde names an unknown field itself, not a bad value's key or the
        // table missing a field: add it.
        let start = err.span().map(|span| span.start);
        let key = start.and_then(|start| key_at(text, start));
        let header = start.and_then(|start| header_at(text, start));
        let key = key.or_else(|| header.map(|(table, _)| table.to_string()));
        if message == "invalid type: map, expected a sequence"
            && let Some(key) = &key
        {
            // `[check]` (or `check = { ... }`) where `[[check]]` was meant.
            message = format!("must be an array of tables: write [[{key}]]");
        }
        let key = key.filter(|key| {
            let last = key.rsplit('.').next().unwrap_or(key);
            !message.contains(&format!("`{last}`"))
        });
        Error::config_at(path, text, err.span(), key, message)
    })?;
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    Validator {
        text,
        path,
        newlines,
    }
    .validate(raw, sha256)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn load_str(text: &str) -> Result<Config, String> {
        parse(text, Path::new("checks.toml"), String::new()).map_err(|e| e.to_string())
    }

    #[track_caller]
    pub(super) fn rejects(text: &str, expected: &str) {
        match load_str(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(message) => assert_eq!(message, expected),
        }
    }

    pub(super) const ALLOW: &str = "[settings]\nallow = [\"true\", \"sh\"]\n";

    #[test]
    fn minimal_config_gets_defaults() {
        let config = load_str(&format!(
            "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n"
        ))
        .unwrap();
        let check = &config.checks[0];
        assert_eq!(check.modes, vec![Mode::Strict]);
        assert_eq!(check.dimension, Dimension::Quality);
        assert_eq!(check.severity, Severity::High);
        assert_eq!(check.parser, Parser::Auto);
        assert_eq!(check.line, 4);
        assert_eq!(config.settings.timeout, DEFAULT_TIMEOUT);
        assert_eq!(config.settings.excerpt_bytes, 8192);
        assert_eq!(config.settings.jobs, 0);
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let text = format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ntimeot = \"1s\"\n");
        let err = load_str(&text).unwrap_err();
        assert!(
            err.starts_with("checks.toml:6:1: unknown field `timeot`"),
            "{err}"
        );
    }

    #[test]
    fn malformed_toml() {
        let err = load_str("[[check]\nname = 1\n").unwrap_err();
        assert!(err.starts_with("checks.toml:1:"), "{err}");
        assert!(!err.contains('\n'));
    }
}
