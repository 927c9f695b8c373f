//! The evidence document: what one run-check run (or `run-check merge` of
//! shards) found. Field order here is the order in the JSON; every field
//! name is part of the contract. Fields added after the first version of the
//! document are `#[serde(default)]`, so evidence written before them still
//! reads; every other field is required, and every object is closed (an
//! unknown field is an error).

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use crate::int;
use crate::read::{self, Problem};

/// Version of the evidence format; bumped when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;
/// The banner of a passing run, exactly.
pub const PASS_BANNER: &str = "All checks passed!";
/// The banner of a run whose checks changed the worktree.
pub const MODIFIED_BANNER: &str = "Workspace modified by checks";
/// The `skip_reason` of the checks an interrupted run did not finish.
pub const INTERRUPTED: &str = "interrupted";

/// The evidence document of one run-check run (`--format json`), or of shards merged by `run-check merge`. PASS is exactly `summary.all_checks_passed = true` with `summary.banner = "All checks passed!"`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check evidence")]
pub struct Evidence {
    /// Version of the evidence format; bumped when a field changes meaning.
    #[serde(deserialize_with = "version")]
    #[schemars(extend("const" = 1))]
    pub schema_version: u32,
    /// Where, when and how the run happened.
    pub meta: Meta,
    /// The mode that ran.
    pub mode: Mode,
    /// Counts, banner and exit code of the run.
    pub summary: Summary,
    /// One entry per selected check, in checks.toml order.
    pub checks: Vec<CheckRecord>,
    /// Every located problem of every check (at most 1000 per check), then the read-only verification's.
    pub diagnostics: Vec<Diagnostic>,
    /// The read-only, task, change-budget and gate contracts.
    pub contracts: Contracts,
}

fn version<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    int::version(deserializer, SCHEMA_VERSION, "evidence")
}

/// Lower-case hex of `len` digits.
fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A sha256, as the schema's pattern says: 64 lower-case hex digits.
fn sha256<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if is_hex(&text, 64) {
        Ok(text)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a sha256 (64 lower-case hex digits), found {text:?}"
        )))
    }
}

/// A git commit id or null: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
fn commit<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Option::<String>::deserialize(deserializer)? {
        Some(text) if !is_hex(&text, 40) && !is_hex(&text, 64) => Err(serde::de::Error::custom(
            format!("expected a commit id (40 or 64 lower-case hex digits), found {text:?}"),
        )),
        commit => Ok(commit),
    }
}

/// A check's name, as checks.toml allows it: letters, digits, `_`, `.`, `-`.
fn check_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        Ok(text)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a check name (letters, digits, `_`, `.`, `-`), found {text:?}"
        )))
    }
}

/// The mode of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The developer loop: checks marked fast, change-filtered, fail-fast.
    Fast,
    /// The acceptance gate: every strict check, read-only verification.
    Strict,
}

impl Mode {
    /// The word used in config, evidence and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Fast => "fast",
            Mode::Strict => "strict",
        }
    }
}

/// The words of an enumeration, as the JSON writes them.
macro_rules! display_as_str {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}
display_as_str!(Mode, Status, DiagSeverity);

/// Where, when and how the run happened.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// run-check's name and version.
    pub tool: Tool,
    /// Start of the run, RFC 3339 UTC with seconds (`2026-11-21T23:59:00Z`).
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    /// The machine.
    pub platform: Platform,
    /// run-check's working directory, absolute.
    pub cwd: String,
    /// The worktree the checks ran in, absolute.
    pub worktree: String,
    /// Git facts of the worktree at the start; all null outside git.
    pub git: Git,
    /// The config file.
    pub config: ConfigRef,
    /// The task contract of `--task` as read (unknown fields kept); null without `--task`.
    #[serde(deserialize_with = "read::nullable")]
    pub task: Option<crate::task::Task>,
    /// run-check's own arguments, the program name first.
    pub argv: Vec<String>,
    /// The commands that were executed, quoted for humans (not for a shell).
    pub commands: Vec<String>,
    /// Fast mode's changed files; null in strict mode.
    #[serde(default)]
    pub changes: Option<ChangeSet>,
    /// With `--shard K/N`: which shard this is; null otherwise.
    #[serde(default)]
    pub shard: Option<ShardInfo>,
    /// In a document made by `run-check merge`: the shard evidence it was merged from; null otherwise.
    #[serde(default)]
    pub merged_from: Option<Vec<MergedFrom>>,
}

/// Which shard of a `--shard K/N` run this is.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShardInfo {
    /// K: the 1-based shard index, at most `count`.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub index: u32,
    /// N: the number of shards.
    #[serde(deserialize_with = "int::de")]
    #[schemars(range(min = 1))]
    pub count: u32,
    /// Every check the run selected before sharding, in file order.
    pub checks_before_sharding: Vec<String>,
    /// With `--timings`: the earlier evidence whose durations balanced the split, as named on the command line; null for the hash split.
    #[serde(default)]
    pub timings: Option<String>,
}

/// One merged evidence file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergedFrom {
    /// The evidence file as named on the command line.
    pub path: String,
    /// Its `meta.shard`, when it had one.
    #[serde(deserialize_with = "read::nullable")]
    pub shard: Option<ShardInfo>,
    /// Its `meta.timestamp`.
    pub timestamp: String,
    /// Its `summary.exit_code`.
    #[serde(deserialize_with = "int::de")]
    pub exit_code: i32,
}

/// Fast mode's changed files.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeSet {
    /// `--changed-since`.
    pub base: String,
    /// How many files changed.
    #[serde(deserialize_with = "int::de")]
    pub files_changed: usize,
    /// The changed files, worktree-relative (the first 1000).
    pub files: Vec<String>,
    /// Why no filtering happened (e.g. not a git repository), else null.
    #[serde(deserialize_with = "read::nullable")]
    pub note: Option<String>,
}

/// run-check's name and version.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// Always `run-check`.
    #[schemars(extend("const" = "run-check"))]
    pub name: String,
    /// run-check's semver.
    pub version: String,
}

/// The machine.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    /// `linux`, `macos`, `windows`, ...
    pub os: String,
    /// `x86_64`, `aarch64`, ...
    pub arch: String,
    /// e.g. `Debian GNU/Linux 12`; null when unknown.
    #[serde(deserialize_with = "read::nullable")]
    pub os_version: Option<String>,
    /// Logical CPUs.
    #[serde(deserialize_with = "int::de")]
    pub cpus: usize,
    /// Total memory in bytes (0 when unknown).
    #[serde(deserialize_with = "int::de")]
    pub memory_bytes: u64,
}

/// Git facts of the worktree at the start; all null outside git.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Git {
    /// HEAD commit (hex).
    #[serde(deserialize_with = "commit")]
    #[schemars(regex(pattern = r"^([0-9a-f]{40}|[0-9a-f]{64})$"))]
    pub commit: Option<String>,
    /// Current branch; null when detached.
    #[serde(deserialize_with = "read::nullable")]
    pub branch: Option<String>,
    /// Whether the worktree had tracked or untracked changes at the start.
    #[serde(deserialize_with = "read::nullable")]
    pub dirty: Option<bool>,
}

/// The config file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigRef {
    /// As the user named it.
    pub path: String,
    /// sha256 of its bytes, lower-case hex.
    #[serde(deserialize_with = "sha256")]
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// Counts, banner and exit code of the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = pass_is_exact)]
pub struct Summary {
    /// True exactly when the run passed (exit code 0).
    pub all_checks_passed: bool,
    /// `All checks passed!` exactly when the run passed; otherwise what failed, e.g. `2 of 5 checks failed: clippy, test`.
    pub banner: String,
    /// Wall time of the whole run.
    #[serde(deserialize_with = "int::de")]
    pub duration_ms: u64,
    /// Checks in `checks`.
    #[serde(deserialize_with = "int::de")]
    pub total: usize,
    /// Checks that passed.
    #[serde(deserialize_with = "int::de")]
    pub passed: usize,
    /// Checks that failed.
    #[serde(deserialize_with = "int::de")]
    pub failed: usize,
    /// Checks that errored.
    #[serde(deserialize_with = "int::de")]
    pub errored: usize,
    /// Checks that were skipped.
    #[serde(deserialize_with = "int::de")]
    pub skipped: usize,
    /// The run's exit code: 0 PASS, 1 FAIL, 2 ERROR, 130 interrupted.
    #[serde(deserialize_with = "int::de")]
    #[schemars(extend("enum" = [0, 1, 2, 130]))]
    pub exit_code: i32,
    /// The earlier evidence given with `--baseline`, as given: its diagnostics are old (`new: false`) here. Null without `--baseline`, and in evidence written before the field.
    #[serde(default, deserialize_with = "read::nullable")]
    pub baseline: Option<String>,
}

/// PASS has exactly `all_checks_passed`, the pass banner and exit code 0.
fn pass_is_exact(schema: &mut Schema) {
    schema.insert(
        "anyOf".into(),
        json!([
            {"properties": {
                "all_checks_passed": {"const": true},
                "banner": {"const": PASS_BANNER},
                "exit_code": {"const": 0},
            }},
            {"properties": {
                "all_checks_passed": {"const": false},
                "banner": {"not": {"const": PASS_BANNER}},
                "exit_code": {"enum": [1, 2, 130]},
            }},
        ]),
    );
}

/// The status of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Exited 0.
    Pass,
    /// Exited non-zero, or timed out.
    Fail,
    /// Could not be judged: not found, not startable, killed by a signal run-check did not send (see `error`).
    Error,
    /// Not run: a failed need, fail-fast, interrupted (see `skip_reason`).
    Skip,
}

impl Status {
    /// The word used in evidence and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Skip => "skip",
        }
    }

    /// Fail or error.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Error)
    }
}

/// The judge dimension a check scores into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    /// Security checks (issue ids `SEC-`).
    Security,
    /// Quality checks (issue ids `QA-`), the default.
    #[default]
    Quality,
    /// Performance checks (issue ids `PERF-`).
    Performance,
}

impl Dimension {
    /// The word in JSON and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Security => "security",
            Dimension::Quality => "quality",
            Dimension::Performance => "performance",
        }
    }
}

display_as_str!(Dimension);

/// The severity of the issues a failing check raises.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks a pass whenever present beyond `max_critical_issues`.
    Critical,
    /// The default.
    #[default]
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

impl Severity {
    /// Every severity, most severe first.
    pub const ALL: [Self; 4] = [Self::Critical, Self::High, Self::Medium, Self::Low];
    /// The words of a verdict (title case), in the order of [`Severity::ALL`].
    pub const TITLES: [&'static str; 4] = ["Critical", "High", "Medium", "Low"];

    /// The word of a verdict: `Critical`, `High`, `Medium` or `Low`.
    pub fn title(self) -> &'static str {
        Self::TITLES[self as usize]
    }
}

/// The severity of one diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, Default, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DiagSeverity {
    /// An error.
    #[default]
    Error,
    /// A warning.
    Warning,
    /// A note.
    Note,
    /// Information.
    Info,
    /// Help text.
    Help,
}

impl DiagSeverity {
    /// The word used in evidence.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagSeverity::Error => "error",
            DiagSeverity::Warning => "warning",
            DiagSeverity::Note => "note",
            DiagSeverity::Info => "info",
            DiagSeverity::Help => "help",
        }
    }

    /// Reads a tool's severity word (`error`, `Warning`, `warn`, `fatal
    /// error`, `E`, ...); `None` when it is not one.
    pub fn from_word(word: &str) -> Option<DiagSeverity> {
        let word = word.trim().to_ascii_lowercase();
        Some(match word.as_str() {
            "error" | "err" | "e" | "fatal" | "fatal error" | "failure" | "failed" => {
                DiagSeverity::Error
            }
            "warning" | "warn" | "w" => DiagSeverity::Warning,
            "note" | "n" => DiagSeverity::Note,
            "info" | "information" | "i" => DiagSeverity::Info,
            "help" | "hint" | "suggestion" => DiagSeverity::Help,
            _ => return None,
        })
    }
}

/// One check's result.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = status_explained)]
pub struct CheckRecord {
    /// The check's name in checks.toml.
    #[serde(deserialize_with = "check_name")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9_.-]+$"))]
    pub name: String,
    /// `pass` (exit 0), `fail` (non-zero exit or timeout), `error` (not found, could not start, killed by a foreign signal; see `error`), `skip` (see `skip_reason`).
    pub status: Status,
    /// argv as configured (empty for a scan).
    pub command: Vec<String>,
    /// The resolved absolute path of the program.
    #[serde(deserialize_with = "read::nullable")]
    pub program: Option<String>,
    /// The judge dimension the check scores into.
    pub dimension: Dimension,
    /// The severity of the issues the check raises when it fails (`high` in evidence written before the field).
    #[serde(default)]
    pub severity: Severity,
    /// The process's exit code, when it exited.
    #[serde(deserialize_with = "int::opt")]
    pub exit_code: Option<i32>,
    /// Wall time.
    #[serde(deserialize_with = "int::de")]
    pub duration_ms: u64,
    /// Killed after its timeout (then `status` is `fail`).
    pub timed_out: bool,
    /// The head and tail of stdout, joined by `… [N bytes omitted] …` when cut.
    pub stdout_excerpt: String,
    /// The head and tail of stderr, joined by `… [N bytes omitted] …` when cut.
    pub stderr_excerpt: String,
    /// Bytes written to stdout.
    #[serde(deserialize_with = "int::de")]
    pub stdout_bytes: u64,
    /// Bytes written to stderr.
    #[serde(deserialize_with = "int::de")]
    pub stderr_bytes: u64,
    /// Whether either excerpt omits bytes.
    pub excerpt_truncated: bool,
    /// Files matched by the check's `artifacts` globs.
    pub artifacts: Vec<Artifact>,
    /// Diagnostics of this check in `diagnostics`.
    #[serde(deserialize_with = "int::de")]
    pub diagnostics_count: usize,
    /// Diagnostics found beyond the cap of 1000 per check, not listed (0 in evidence written before the field).
    #[serde(default, deserialize_with = "int::de")]
    pub diagnostics_dropped: u64,
    /// The check's score (`score.regex` of checks.toml), when configured and found.
    #[serde(deserialize_with = "read::nullable")]
    pub score: Option<f64>,
    /// Why the check was skipped.
    #[serde(deserialize_with = "read::nullable")]
    pub skip_reason: Option<String>,
    /// Why the check errored, one line.
    #[serde(deserialize_with = "read::nullable")]
    pub error: Option<String>,
    /// The key/value pairs of a `PHASE_RESULT:` block (`parser = "phase-result"`); for a `scan` check, `allowed`: the findings silenced by a `run-check: allow` comment on their line, `allowed_new`: the findings on a line whose marker is new since the base (reported in strict mode), `skipped`: the files it did not read (`{"file", "reason", "changed"}`, at most 100, changed ones first) and `skipped_total`.
    pub data: Map<String, Value>,
    /// The processes the check started that were still running when it ended (exit, timeout or cancellation), also those that left its process group: killed, or left running when the check has `leave_running = true`. Empty when none, and in evidence written before the field.
    #[serde(default)]
    pub leaked: Vec<Leaked>,
    /// The 1-based line of the check's `[[check]]` table in the config (`meta.config.path`): where a report points a failure that has no located diagnostic (SARIF needs a location for every result). Null in evidence written before the field.
    #[serde(default, deserialize_with = "read::nullable")]
    pub config_line: Option<u64>,
    /// When the check started, in milliseconds from the run's start (the `html` report's timeline draws it from there for `duration_ms`). Null for a check that did not start (skipped, or its program not found), and in evidence written before the field; in merged evidence, from the start of the run of its shard.
    #[serde(default, deserialize_with = "read::nullable")]
    pub started_ms: Option<u64>,
    /// Failed, then passed when run again (`retries` in checks.toml). A flaky check is `pass`, or `fail` in strict mode under `[settings] flaky = "fail"`. False in evidence written before the field.
    #[serde(default)]
    pub flaky: bool,
    /// How many times the check was started: 1 plus its retries; 0 for a check that never started (skipped, program not found, a scan counts as 1). 1 in evidence written before the field.
    #[serde(default = "one", deserialize_with = "int::de")]
    pub attempts: u32,
    /// Every attempt, in order, when the check ran more than once (then the check's own `exit_code`, `timed_out` and excerpts are the last attempt's, and `duration_ms` spans them all); empty when it ran once.
    #[serde(default)]
    pub attempt_log: Vec<Attempt>,
    /// Diagnostics of this check that the `--baseline` evidence already had (`new: false`). A failed check whose diagnostics are all old, with no timeout, signal or dropped diagnostic, is `pass`. 0 without `--baseline`, and in evidence written before the field.
    #[serde(default, deserialize_with = "int::de")]
    pub baseline_suppressed: usize,
    /// The result cache (`cache = true` in checks.toml): `hit` (the check did not run; this entry is the stored one of the run that ran it), `miss` (it ran; a pass is stored under `key`) or `off` (not cached: not opted in, `--no-cache`, or no key could be made). `{"status": "off"}` in evidence written before the field.
    #[serde(default)]
    pub cache: CacheUse,
    /// Where a `remote = true` check ran (docs/remote.md): the cluster, the action's digest, the worker and its times, what was uploaded; or, with `--remote=auto`, why it ran here instead (`fallback`). Absent for a check that is not remote, and in evidence written before the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub remote: Option<RemoteUse>,
}

/// A remote check's execution on a Remote Execution API cluster.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoteUse {
    /// The cluster's endpoint (`grpc://HOST:PORT`), as `[remote] endpoint` says.
    pub endpoint: String,
    /// The REAPI instance name.
    pub instance: String,
    /// The `Action`'s digest, `HASH/SIZE` (sha256); null when none was made (the cluster was not reached, or the check ran here).
    #[serde(default)]
    pub action_digest: Option<String>,
    /// The worker the cluster named in the result's metadata.
    #[serde(default)]
    pub worker: Option<String>,
    /// Milliseconds the action waited in the cluster's queue.
    #[serde(default, deserialize_with = "int::opt")]
    pub queued_ms: Option<u64>,
    /// Milliseconds the worker spent executing it.
    #[serde(default, deserialize_with = "int::opt")]
    pub executed_ms: Option<u64>,
    /// The result came from the cluster's action cache (the check is `cache = true`, so its `Action` may be cached).
    #[serde(default)]
    pub cached_result: bool,
    /// Blobs the cluster lacked and was sent (files of the input root, directories, the command and the action): 0 when it had them all.
    #[serde(default, deserialize_with = "int::de")]
    pub uploaded_blobs: u64,
    /// Their bytes.
    #[serde(default, deserialize_with = "int::de")]
    pub uploaded_bytes: u64,
    /// `--remote=auto` only: why the check ran on this machine instead (the cluster's message); null when it ran remotely.
    #[serde(default)]
    pub fallback: Option<String>,
}

/// Whether a check's result came from the result cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheStatus {
    /// Taken from the cache: the check did not run.
    Hit,
    /// Not in the cache: the check ran (a pass is stored).
    Miss,
    /// Not cached.
    #[default]
    Off,
}

impl CacheStatus {
    /// The word used in evidence and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheStatus::Hit => "hit",
            CacheStatus::Miss => "miss",
            CacheStatus::Off => "off",
        }
    }
}

/// Where a cache hit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheSource {
    /// This machine's store.
    Local,
    /// A remote cache.
    Remote,
    /// An earlier stop of the same agent session: a pass its hook recorded in the session folder, under the session's digest chain.
    Session,
}

impl CacheSource {
    /// The word used in evidence and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheSource::Local => "local",
            CacheSource::Remote => "remote",
            CacheSource::Session => "session",
        }
    }
}

/// `checks[].cache`: a hit has every field, a miss `status` and `key`, off only `status`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = cache_fields)]
pub struct CacheUse {
    /// `hit`, `miss` or `off`.
    pub status: CacheStatus,
    /// The check's cache key: the sha256 of its key document (`run-check cache key NAME` prints it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "opt_sha256"
    )]
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"), extend("default" = null))]
    pub key: Option<String>,
    /// Where a hit came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub source: Option<CacheSource>,
    /// When the hit's result was stored (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub stored_at: Option<String>,
    /// The run that stored the hit's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub stored_by: Option<StoredBy>,
    /// How long the check took in the run that stored the hit's result.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "int::opt"
    )]
    #[schemars(extend("default" = null))]
    pub duration_ms: Option<u64>,
    /// What went wrong with the remote cache when it affected this check
    /// (its lookup or its write), one line: the check ran, or was not
    /// stored there, as if the remote were not configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub remote_error: Option<String>,
}

/// The run that stored a cached result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoredBy {
    /// Its HEAD commit; null before the first commit.
    #[serde(deserialize_with = "commit")]
    #[schemars(regex(pattern = r"^([0-9a-f]{40}|[0-9a-f]{64})$"))]
    pub commit: Option<String>,
}

fn opt_sha256<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Option::<String>::deserialize(deserializer)? {
        Some(text) if !is_hex(&text, 64) => Err(serde::de::Error::custom(format!(
            "expected a sha256 (64 lower-case hex digits), found {text:?}"
        ))),
        key => Ok(key),
    }
}

/// A hit says where from, when and by whom it was stored; a miss names its key.
fn cache_fields(schema: &mut Schema) {
    schema.insert(
        "allOf".into(),
        json!([
            {
                "if": {"properties": {"status": {"const": "hit"}}},
                "then": {"required": ["key", "source", "stored_at", "stored_by", "duration_ms"]},
            },
            {
                "if": {"properties": {"status": {"const": "miss"}}},
                "then": {"required": ["key"]},
            },
        ]),
    );
}

fn one() -> u32 {
    1
}

/// One run of a check that ran more than once (`retries`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    /// The process's exit code, when it exited.
    #[serde(deserialize_with = "int::opt")]
    pub exit_code: Option<i32>,
    /// Wall time of this attempt.
    #[serde(deserialize_with = "int::de")]
    pub duration_ms: u64,
    /// Killed after its timeout.
    pub timed_out: bool,
}

/// A skipped check says why, an errored one what went wrong, and a timeout is a failure.
fn status_explained(schema: &mut Schema) {
    let when = |status: &str, field: &str| {
        json!({
            "if": {"properties": {"status": {"const": status}}},
            "then": {"properties": {field: {"type": "string"}}},
        })
    };
    schema.insert(
        "allOf".into(),
        json!([
            when("skip", "skip_reason"),
            when("error", "error"),
            {
                "if": {"properties": {"timed_out": {"const": true}}},
                "then": {"properties": {"status": {"const": "fail"}}},
            },
        ]),
    );
}

/// A process a check left running when it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Leaked {
    /// Its process id.
    #[serde(deserialize_with = "int::de")]
    pub pid: u32,
    /// Its command line, arguments joined by spaces (cut at 512 bytes; on Windows the program's path).
    pub command: String,
}

/// One artifact file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    /// Path relative to the worktree.
    pub path: String,
    /// Size.
    #[serde(deserialize_with = "int::de")]
    pub bytes: u64,
    /// Content hash, lower-case hex.
    #[serde(deserialize_with = "sha256")]
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// One located problem.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Diagnostic {
    /// The check that reported it (`run-check` for a change found by the read-only verification while checks ran in parallel).
    pub check: String,
    /// File, relative to the worktree when inside it.
    #[serde(deserialize_with = "read::nullable")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(deserialize_with = "int::opt")]
    pub line: Option<u64>,
    /// 1-based column.
    #[serde(deserialize_with = "int::opt")]
    pub column: Option<u64>,
    /// The diagnostic's severity.
    pub severity: DiagSeverity,
    /// Rule or code, e.g. `clippy::needless_return`, `read-only`, `secrets/aws-access-key-id`.
    #[serde(deserialize_with = "read::nullable")]
    pub rule: Option<String>,
    /// What is wrong.
    pub message: String,
    /// A suggested fix.
    #[serde(deserialize_with = "read::nullable")]
    pub suggestion: Option<String>,
    /// With `--baseline`: false when the baseline evidence has the same diagnostic (same check, rule, file and message with its numbers ignored; the line may differ), true otherwise. Absent without `--baseline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub new: Option<bool>,
}

/// The read-only, task, change-budget and gate contracts.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Contracts {
    /// Read-only verification: on in strict mode and with `--verify-read-only`.
    pub read_only: ReadOnly,
    /// The task contract's limits (with `--task`); null otherwise.
    #[serde(deserialize_with = "read::nullable")]
    pub task: Option<TaskContract>,
    /// The change against `--changed-since` (with `--task`, in git); null otherwise.
    #[serde(deserialize_with = "read::nullable")]
    pub change_budget: Option<ChangeBudget>,
    /// The gate's own definition changed against the base (in git, with the config inside the worktree): a candidate that weakens its own gate does not pass silently. Null otherwise, and in evidence written before the field.
    #[serde(default)]
    pub gate: Option<Gate>,
}

/// Read-only verification: on in strict mode and with `--verify-read-only`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadOnly {
    /// Whether the worktree was snapshotted before and after the checks and compared.
    pub verified: bool,
    /// Paths the checks created, deleted or changed (then the run FAILs).
    pub modified: Vec<String>,
    /// Why the verification could not be completed (then the run is ERROR); null otherwise, and in evidence written before the field.
    #[serde(default)]
    pub error: Option<String>,
}

impl ReadOnly {
    /// Verification was not asked for (fast mode without --verify-read-only).
    pub fn off() -> ReadOnly {
        ReadOnly {
            verified: false,
            modified: Vec::new(),
            error: None,
        }
    }
}

/// The task contract's limits (with `--task`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskContract {
    /// The task's `id`.
    pub id: String,
    /// True when no limit is broken.
    pub valid: bool,
    /// Broken limits, in schema order.
    pub violations: Vec<Violation>,
}

/// One broken limit of a task.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// The field at fault, a path without `$.` (e.g. `estimated_loc`).
    pub field: String,
    /// What is wrong, one line.
    pub message: String,
}

/// The change against `--changed-since` (with `--task`, in git).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeBudget {
    /// `--changed-since`.
    pub base: String,
    /// Files changed, untracked ones included.
    #[serde(deserialize_with = "int::de")]
    pub files_changed: u64,
    /// Lines added plus lines deleted.
    #[serde(deserialize_with = "int::de")]
    pub loc_changed: u64,
    /// The limit on files (10).
    #[serde(deserialize_with = "int::de")]
    pub max_files: u64,
    /// The limit on lines (400).
    #[serde(deserialize_with = "int::de")]
    pub max_loc: u64,
    /// Whether either limit is exceeded.
    pub exceeded: bool,
}

/// The gate's own files changed against a base.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// The gate's files (the config; programs and scripts its checks run from inside the worktree) that differ from the base: committed, staged, unstaged or untracked; worktree-relative, `/` separators, sorted. `[]` when none.
    pub changed: Vec<String>,
    /// The revision compared against: `--changed-since`, else the task's `base`, else `HEAD`.
    #[serde(default)]
    pub base: Option<String>,
}

impl Evidence {
    /// Reads evidence from JSON text: its shape, then [`Evidence::check`].
    pub fn from_slice(bytes: &[u8]) -> Result<Evidence, Problem> {
        let evidence: Evidence = read::from_slice(bytes)?;
        evidence.check()?;
        Ok(evidence)
    }

    /// Reads evidence from a parsed value: its shape, then [`Evidence::check`].
    pub fn from_value(value: Value) -> Result<Evidence, Problem> {
        let evidence: Evidence = read::from_value(value)?;
        evidence.check()?;
        Ok(evidence)
    }

    /// The rules between fields that a type cannot hold, as the schema
    /// states them: PASS is exactly `all_checks_passed` with the pass banner
    /// and exit code 0; a skipped check says why, an errored one what went
    /// wrong, a timed-out one failed; a shard's index lies within its count.
    pub fn check(&self) -> Result<(), Problem> {
        let summary = &self.summary;
        let code = summary.exit_code;
        if ![0, 1, 2, 130].contains(&code) {
            return Err(Problem::at(
                "$.summary.exit_code",
                format!(
                    "expected 0 (PASS), 1 (FAIL), 2 (ERROR) or 130 (interrupted), found {code}"
                ),
            ));
        }
        if summary.all_checks_passed != (code == 0) {
            return Err(Problem::at(
                "$.summary.all_checks_passed",
                format!(
                    "is {} but summary.exit_code is {code}",
                    summary.all_checks_passed
                ),
            ));
        }
        if summary.all_checks_passed != (summary.banner == PASS_BANNER) {
            return Err(Problem::at(
                "$.summary.banner",
                if summary.all_checks_passed {
                    format!(
                        "a passing run's banner is {PASS_BANNER:?}, found {:?}",
                        summary.banner
                    )
                } else {
                    format!("is {PASS_BANNER:?} but the run did not pass")
                },
            ));
        }
        for (i, check) in self.checks.iter().enumerate() {
            let at = |field: &str| format!("$.checks[{i}].{field}");
            match check.status {
                Status::Skip if check.skip_reason.is_none() => {
                    return Err(Problem::at(at("skip_reason"), "a skipped check says why"));
                }
                Status::Error if check.error.is_none() => {
                    return Err(Problem::at(at("error"), "an errored check says why"));
                }
                _ if check.cache.status == CacheStatus::Hit && check.status != Status::Pass => {
                    return Err(Problem::at(
                        at("cache.status"),
                        format!(
                            "only a pass is cached, found a hit with status {}",
                            check.status
                        ),
                    ));
                }
                Status::Pass | Status::Error | Status::Skip if check.timed_out => {
                    return Err(Problem::at(
                        at("status"),
                        format!("a check that timed out failed, found {}", check.status),
                    ));
                }
                _ => {}
            }
        }
        if let Some(shard) = &self.meta.shard {
            if shard.count == 0 {
                return Err(Problem::at(
                    "$.meta.shard.count",
                    "must be at least 1, found 0",
                ));
            }
            if shard.index == 0 || shard.index > shard.count {
                return Err(Problem::at(
                    "$.meta.shard.index",
                    format!(
                        "must be between 1 and the count ({}), found {}",
                        shard.count, shard.index
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The run was interrupted: exit code 130, or a check skipped with
    /// reason [`INTERRUPTED`].
    pub fn interrupted(&self) -> bool {
        self.summary.exit_code == crate::exit_code::INTERRUPTED
            || self
                .checks
                .iter()
                .any(|c| c.skip_reason.as_deref() == Some(INTERRUPTED))
    }
}

/// `2 of 5 checks failed: a, c` and `1 of 5 checks errored: d`, each when
/// there is one to name (`what`: `checks` or `fixes`).
pub fn failures(what: &str, total: usize, failed: &[&str], errored: &[&str]) -> Vec<String> {
    [("failed", failed), ("errored", errored)]
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(verb, names)| {
            format!(
                "{} of {total} {what} {verb}: {}",
                names.len(),
                names.join(", ")
            )
        })
        .collect()
}

/// The summary of a run whose checks ended as `checks` (in plan order):
/// counts, banner and exit code. The one rule of a run's summary, also of
/// merged shards'.
pub fn summarize(
    checks: &[CheckRecord],
    duration_ms: u64,
    interrupted: bool,
    read_only: &ReadOnly,
) -> Summary {
    let names = |status: Status| -> Vec<&str> {
        checks
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.name.as_str())
            .collect()
    };
    let (failed, errored) = (names(Status::Fail), names(Status::Error));
    let passed = checks.iter().filter(|c| c.status == Status::Pass).count();
    let skipped = checks.iter().filter(|c| c.status == Status::Skip).count();
    let total = checks.len();
    let modified = !read_only.modified.is_empty();
    let exit_code = if interrupted {
        crate::exit_code::INTERRUPTED
    } else if !errored.is_empty() || read_only.error.is_some() {
        crate::exit_code::ERROR
    } else if !failed.is_empty() || modified {
        crate::exit_code::FAIL
    } else {
        crate::exit_code::PASS
    };
    let mut parts = Vec::new();
    if modified {
        parts.push(MODIFIED_BANNER.to_string());
    }
    parts.extend(failures("checks", total, &failed, &errored));
    if let Some(why) = &read_only.error {
        parts.push(format!("read-only verification failed: {why}"));
    }
    let banner = if interrupted {
        let finished = total - skipped;
        let mut banner = format!("Interrupted: {finished} of {total} checks finished");
        for part in parts {
            banner.push_str("; ");
            banner.push_str(&part);
        }
        banner
    } else if parts.is_empty() {
        PASS_BANNER.to_string()
    } else {
        parts.join("; ")
    };
    Summary {
        all_checks_passed: exit_code == crate::exit_code::PASS,
        banner,
        duration_ms,
        total,
        passed,
        failed: failed.len(),
        errored: errored.len(),
        skipped,
        exit_code,
        baseline: None,
    }
}

/// An argv as `meta.commands` renders it for humans: plain words as they
/// are, others single-quoted as a POSIX shell reads them.
pub fn display_command(argv: &[String]) -> String {
    argv.iter()
        .map(|arg| {
            let plain = !arg.is_empty()
                && arg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+@%^".contains(&b));
            if plain {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
