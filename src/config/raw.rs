//! The file as serde sees it: one struct per table, `deny_unknown_fields`
//! everywhere, and spans on every value a message may point at. Nothing here
//! checks a value; `validate` turns these into the public types. The
//! checks.toml JSON Schema (`run-check schema checks`) is derived from these
//! structs: their doc comments are its descriptions, and the `schemars`
//! attributes say what the types cannot (patterns, bounds, cross-field rules,
//! editor hints).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::{
    DiagSeverity, Dimension, FlakyPolicy, Mode, Parser, RetryConfig, SCAN_RULE_SETS, Severity,
};

/// A check's or fix's name, as the validator reads it.
const NAME: &str = "^[A-Za-z0-9_.-]+$";
/// A duration as `duration::parse` reads it (its bounds, 1ms..7d, aside).
const DURATION: &str = r"^\s*([0-9]+(ms|s|m|h|d))+\s*$";
/// An environment variable name that can be set.
const ENV_NAME: &str = "^[^=\\u0000]+$";

/// The checks of a repository's read-only verification gate. Validate with
/// `run-check validate`; list a mode's checks with `run-check list --mode fast`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "run-check checks.toml")]
pub(crate) struct RawConfig {
    /// The config format version; only 1 is accepted.
    #[schemars(with = "Option<i64>", extend("const" = 1, "default" = 1))]
    pub(super) version: Option<Spanned<i64>>,
    /// Settings for every check.
    #[serde(default)]
    pub(super) settings: RawSettings,
    /// Thresholds of `run-check judge`; each key is optional (the judge's
    /// defaults, docs/judge.md).
    #[serde(default)]
    #[schemars(schema_with = "judge_table")]
    pub(super) judge: Option<Spanned<toml::Table>>,
    /// The retry tracker (`run-check retry`).
    #[serde(default)]
    pub(super) retry: RetryConfig,
    /// How `run-check agent hook` holds a coding agent to the gate
    /// (docs/agents.md).
    #[serde(default)]
    pub(super) agent: RawAgent,
    /// The result cache of checks with `cache = true` (docs/cache.md).
    #[serde(default)]
    pub(super) cache: Option<RawCache>,
    /// The Remote Execution cluster `remote = true` checks run on
    /// (docs/remote.md).
    #[serde(default)]
    pub(super) remote: Option<RawRemote>,
    /// What the gate is besides the config and what it names
    /// (`contracts.gate`, docs/evidence.md).
    #[serde(default)]
    pub(super) gate: RawGate,
    /// The checks, in the order they start (subject to `needs` and `jobs`).
    #[serde(default)]
    pub(super) check: Vec<RawCheck>,
    /// Writing commands (e.g. formatters), run only by `run-check fix`, one
    /// at a time in file order; a check run never runs them.
    #[serde(default)]
    pub(super) fix: Vec<RawFix>,
}

/// `[agent]`: the agent hooks' mode, feedback bound and loop limit.
#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAgent {
    /// The mode the hook gates a stop in.
    #[schemars(extend("default" = "strict"))]
    pub(super) mode: Option<Mode>,
    /// The feedback given to the agent is at most this many characters
    /// (Claude Code moves hook output over 10,000 characters to a file and
    /// shows the model a 2 KB preview).
    #[schemars(with = "Option<u64>", range(min = 300, max = 9000))]
    #[schemars(extend("default" = 4000))]
    pub(super) max_chars: Option<Spanned<i64>>,
    /// Consecutive blocked stops of one session before the hook lets the
    /// agent stop and tells the user; 0: the hook never blocks (it only
    /// reports). At most 8: Claude Code and GitHub Copilot end a turn after
    /// 8 consecutive blocks themselves.
    #[schemars(with = "Option<u64>", range(min = 0, max = 8))]
    #[schemars(extend("default" = 5))]
    pub(super) max_blocks: Option<Spanned<i64>>,
    /// Block only for failures the session did not start with (the gate's
    /// evidence at session start, less the worktree's debts, is the
    /// session's `--baseline`). Weaker than the default: every failure
    /// blocks but those the committed `baseline` explains.
    #[schemars(extend("default" = false))]
    pub(super) new_only: Option<bool>,
    /// A committed evidence file (relative to the worktree, without `..`)
    /// that excuses what the repository already fails on: every stop's
    /// gate reads it as `--baseline`, compared with the session's base.
    /// `run-check agent install` writes it when HEAD is red.
    #[schemars(with = "Option<String>")]
    pub(super) baseline: Option<Spanned<String>>,
    /// When the hook stops its gate as on Ctrl-C, e.g. "9m" (1ms..1h): the
    /// failures of the checks that finished still block; the user is told
    /// which did not finish. `agent install` writes each agent's own hook
    /// timeout as this + 60 s.
    #[schemars(with = "Option<String>", regex(pattern = DURATION), extend("default" = "9m"))]
    pub(super) timeout: Option<Spanned<String>>,
    /// `agent install` also hooks the agents' pre-tool event with `run-check
    /// agent guard`, which denies edits of the gate's files and commands
    /// that skip the gate (`git commit --no-verify`, ...) before they run.
    #[schemars(extend("default" = true))]
    pub(super) guard: Option<bool>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSettings {
    /// Checks run in parallel; 0 = logical CPUs. `--jobs` overrides it.
    #[schemars(extend("default" = 0))]
    pub(super) jobs: Option<usize>,
    /// The default timeout of a check, e.g. "90s" or "1m30s" (1ms..7d).
    #[schemars(with = "Option<String>", regex(pattern = DURATION), extend("default" = "10m"))]
    pub(super) timeout: Option<Spanned<String>>,
    /// Per stream, keep the first N and the last N bytes of a check's output.
    #[schemars(with = "Option<u64>", range(min = 1, max = 67_108_864))]
    #[schemars(extend("default" = super::DEFAULT_EXCERPT_BYTES))]
    pub(super) excerpt_bytes: Option<Spanned<u64>>,
    /// The whitelist: `run[0]` of every check and fix must equal an entry as
    /// written. A shell (sh, bash, pwsh, cmd, ...) runs only when it is itself
    /// listed. Symlinks are followed: a listed path inside the worktree that
    /// leads out of it, or a link to a shell that is not itself listed, is a
    /// config error; the evidence records the real path.
    #[serde(default)]
    #[schemars(with = "Vec<String>", inner(length(min = 1)))]
    #[schemars(extend("examples" = [["cargo", "git", "python3", "./scripts/lint.sh"]]))]
    pub(super) allow: Vec<Spanned<String>>,
    /// Environment keys that make a program load other code (LD_PRELOAD,
    /// GIT_CONFIG_*, RUSTFLAGS, ...) which a check's or fix's `env` may set
    /// all the same; compared ignoring case. Every other such key is a config
    /// error.
    #[serde(default)]
    #[schemars(with = "Vec<String>", inner(regex(pattern = ENV_NAME)))]
    pub(super) allow_env: Vec<Spanned<String>>,
    /// What a flaky check (failed, then passed on a retry; `retries` of a
    /// check) is in strict mode: `pass` (the default; the judge still raises
    /// a Low `flaky` issue) or `fail`. Fast mode always lets it pass.
    #[schemars(extend("default" = "pass"))]
    pub(super) flaky: Option<FlakyPolicy>,
}

/// One check: `run` (a whitelisted program) or `scan` (a built-in scan, no
/// process).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend(
    "oneOf" = [{"required": ["run"]}, {"required": ["scan"]}],
    "dependentRequired" = {"rule": ["scan"]},
    "x-taplo" = {"initKeys": ["name", "run"]},
))]
pub(super) struct RawCheck {
    /// Unique name: letters, digits, `_`, `.`, `-`.
    #[schemars(with = "String", regex(pattern = NAME))]
    pub(super) name: Spanned<String>,
    /// The argv, never a shell string. `run[0]` must equal an entry of
    /// `settings.allow` as written; a bare name is looked up on PATH, a name
    /// with `/` or `\` is relative to the worktree.
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    #[schemars(extend("prefixItems" = [{"type": "string", "minLength": 1}]))]
    pub(super) run: Option<Spanned<Vec<String>>>,
    /// A built-in scan of the worktree's files (honours .gitignore; reads
    /// files of any size in bounded pieces); fails on any error-level
    /// finding, and on a changed file it could not read.
    #[schemars(with = "Option<RawScan>")]
    pub(super) scan: Option<Spanned<RawScan>>,
    /// The modes that run this check: `fast` (the developer loop,
    /// change-filtered by `paths`, fail-fast) and/or `strict` (the acceptance
    /// gate).
    #[schemars(extend("default" = ["strict"]))]
    pub(super) modes: Option<Vec<Mode>>,
    /// The judge dimension the check scores into.
    #[schemars(extend("default" = "quality"))]
    pub(super) dimension: Option<Dimension>,
    /// The severity of the issues the check raises when it fails.
    #[schemars(extend("default" = "high"))]
    pub(super) severity: Option<Severity>,
    /// This check's timeout, e.g. "90s" or "1m30s" (1ms..7d; default
    /// `settings.timeout`); the whole process tree is killed.
    #[schemars(with = "Option<String>", regex(pattern = DURATION))]
    pub(super) timeout: Option<Spanned<String>>,
    /// Run a failing check (non-zero exit or timeout) again, up to this many
    /// times (0..10), each with the same timeout, in the same worktree; one
    /// that passes on a retry is `pass` with `flaky: true` (see
    /// `settings.flaky`). Only for a check with `run`.
    #[schemars(with = "Option<u32>", range(min = 0, max = super::MAX_RETRIES))]
    #[schemars(extend("default" = 0))]
    pub(super) retries: Option<Spanned<i64>>,
    /// The working directory, relative to the worktree; may not leave it
    /// (also not through a symlink).
    #[schemars(with = "Option<String>", extend("default" = "."))]
    pub(super) cwd: Option<Spanned<String>>,
    /// Extra environment variables (the check also inherits run-check's
    /// environment). Values never appear in the evidence. A key that makes a
    /// program load other code (LD_PRELOAD, LD_*, DYLD_*, PATH, BASH_ENV,
    /// GIT_CONFIG_*, NODE_OPTIONS, PYTHONPATH, RUSTFLAGS, HOME, ...; any case)
    /// is a config error unless `settings.allow_env` lists it.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    #[schemars(extend("propertyNames" = {"pattern": ENV_NAME}))]
    pub(super) env: BTreeMap<Spanned<String>, String>,
    /// Fast mode: run only when a changed file (against `--changed-since`,
    /// staged, or untracked) matches one of these globs, relative to the
    /// worktree (`./` dropped; a directory such as `src` means everything
    /// below it; `*` and `**` both cross `/`; absolute or `..` patterns are
    /// refused).
    #[schemars(with = "Option<Vec<String>>")]
    pub(super) paths: Option<Vec<Spanned<String>>>,
    /// Checks this one runs after; a failed need skips it.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub(super) needs: Vec<Spanned<String>>,
    /// How the check's output is read for diagnostics.
    #[schemars(extend("default" = "auto"))]
    pub(super) parser: Option<Parser>,
    /// Globs, relative to the worktree, of files the check writes; recorded
    /// with their sha256; JUnit XML and SARIF are parsed into diagnostics.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub(super) artifacts: Vec<Spanned<String>>,
    /// Let the processes this check leaves behind (a build daemon such as
    /// Gradle's or sccache's server) outlive it and run-check; they are still
    /// listed in the evidence's `leaked`. Default: every process the check
    /// started is killed when it ends. Only for a check with `run`.
    #[schemars(with = "Option<bool>", extend("default" = false))]
    pub(super) leave_running: Option<Spanned<bool>>,
    /// The check's 0..100 score, read from its output.
    pub(super) score: Option<RawScore>,
    /// Custom problem matchers, applied to every output line.
    #[serde(default)]
    pub(super) matcher: Vec<RawMatcher>,
    /// Custom rules of a `scan` check.
    #[serde(default)]
    pub(super) rule: Vec<RawRule>,
    /// Run this check on the `[remote]` cluster (docs/remote.md).
    #[schemars(with = "Option<bool>", extend("default" = false))]
    pub(super) remote: Option<Spanned<bool>>,
    /// Keep this check's passing result in the result cache and skip the
    /// check while nothing its key holds changed (docs/cache.md).
    #[schemars(with = "Option<bool>", extend("default" = false))]
    pub(super) cache: Option<Spanned<bool>>,
    /// With `cache`: the files the check's result depends on, globs
    /// relative to the worktree as `paths` reads them. Default: the
    /// check's `paths`, else every tracked and untracked non-ignored file.
    #[schemars(with = "Option<Vec<String>>")]
    pub(super) inputs: Option<Vec<Spanned<String>>>,
    /// With `cache`: environment variables whose values are part of the
    /// cache key (unset and empty differ).
    #[serde(default)]
    #[schemars(with = "Vec<String>", inner(regex(pattern = ENV_NAME)))]
    pub(super) env_keys: Vec<Spanned<String>>,
    /// With `cache`: a command (argv, `version[0]` whitelisted as `run[0]`)
    /// whose output is part of the cache key, e.g. ["cargo", "--version"];
    /// run once per run-check run.
    #[schemars(with = "Option<Vec<String>>", length(min = 1))]
    pub(super) version: Option<Spanned<Vec<String>>>,
}

/// `[gate]`: files that define the gate though no check names them.
#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGate {
    /// Globs, relative to the worktree as `paths` reads them, of files the
    /// checks depend on without naming them (a lint rule a script imports,
    /// a tool's own config): each matching file that is new, edited or
    /// deleted against the base revision is a changed gate file in
    /// `contracts.gate`, like checks.toml and the scripts it runs.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    #[schemars(extend("examples" = [["tools/**", "lint-rules.yml"]]))]
    pub(super) files: Vec<Spanned<String>>,
}

/// `[cache]`: where the result cache lives.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCache {
    /// The local store: an absolute path or one starting with `~/`, outside
    /// the worktree. Default: the platform cache folder
    /// (`$XDG_CACHE_HOME/run-check`, `~/.cache/run-check`,
    /// `~/Library/Caches/run-check`, `%LOCALAPPDATA%\run-check\cache`).
    #[schemars(with = "Option<String>")]
    pub(super) dir: Option<Spanned<String>>,
    /// A Bazel HTTP remote cache (`http://` or `https://`): bazel-remote,
    /// nginx with WebDAV, any server of Bazel's HTTP cache protocol. Read in
    /// both modes; written only with `remote_write`.
    #[schemars(with = "Option<String>", regex(pattern = "^https?://"))]
    pub(super) remote: Option<Spanned<String>>,
    /// Write passing results to the remote (trusted pipelines only; the
    /// environment variable RUN_CHECK_CACHE_WRITE=1 also allows it).
    #[schemars(with = "Option<bool>", extend("default" = false))]
    pub(super) remote_write: Option<Spanned<bool>>,
    /// The environment variable holding the remote's bearer token (sent as
    /// `Authorization: Bearer`, never printed).
    #[schemars(with = "Option<String>", regex(pattern = ENV_NAME))]
    pub(super) token_env: Option<Spanned<String>>,
}

/// `[remote]`: a cluster that speaks Bazel's Remote Execution API v2
/// (docs/remote.md).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRemote {
    /// `grpc://HOST:PORT` (`grpcs://` for TLS).
    #[schemars(with = "String", regex(pattern = "^grpcs?://"))]
    pub(super) endpoint: Spanned<String>,
    /// The REAPI instance name (default: empty).
    #[serde(default)]
    pub(super) instance: Option<String>,
    /// The environment variable holding the cluster's bearer token (sent
    /// as `authorization: Bearer`, never printed).
    #[schemars(with = "Option<String>", regex(pattern = ENV_NAME))]
    pub(super) token_env: Option<Spanned<String>>,
    /// The actions' platform properties (`OSFamily`, `container-image`,
    /// ...), as the cluster's workers match them.
    #[serde(default)]
    pub(super) platform: std::collections::BTreeMap<String, String>,
    /// Remote checks running at once, beside the `jobs` of local checks
    /// (default: as many as `jobs`; 0 = logical CPUs).
    pub(super) jobs: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScan {
    /// Globs of the files to scan, relative to the worktree (`./` dropped; a
    /// directory such as `src` means everything below it; `*` does not cross
    /// `/`, `**` does; absolute or `..` patterns are refused); empty: every
    /// file.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub(super) paths: Vec<Spanned<String>>,
    /// Built-in rule sets.
    #[serde(default)]
    #[schemars(with = "Vec<String>", extend("items" = {
        "enum": SCAN_RULE_SETS,
        "x-taplo": {"docs": {"enumValues": [
            "`#[ignore]`, `@pytest.mark.skip`, `it.skip(`, `xit(`, `t.Skip(`, ...",
            "`assert True`, `assert!(true)`, `expect(true).toBe(true)`, ...",
            "AWS access key ids, private key blocks, GitHub tokens, `password = \"...\"` (never copied into evidence)",
            "`dbg!(`, `console.log(`, `breakpoint()`",
        ]}},
    }))]
    pub(super) rules: Vec<Spanned<String>>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScore {
    /// The first capture group of the last match is the score, e.g.
    /// 'coverage: (\d+(?:\.\d+)?)%'.
    #[schemars(with = "String")]
    pub(super) regex: Spanned<String>,
}

/// A regex with named groups `message` (required), `file`, `line`, `column`,
/// `severity`, `rule`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-taplo" = {"initKeys": ["regex"]}))]
pub(super) struct RawMatcher {
    /// E.g. '^(?P<file>[^:]+):(?P<line>\d+): (?P<message>.+)$'.
    #[schemars(with = "String")]
    pub(super) regex: Spanned<String>,
    /// The severity when the regex has no `severity` group.
    #[schemars(extend("default" = "error"))]
    pub(super) severity: Option<DiagSeverity>,
}

/// One custom scan rule.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-taplo" = {"initKeys": ["id", "pattern"]}))]
pub(super) struct RawRule {
    /// The rule id, reported as the diagnostic's rule.
    #[schemars(with = "String")]
    pub(super) id: Spanned<String>,
    /// A regex matched against each line.
    #[schemars(with = "String")]
    pub(super) pattern: Spanned<String>,
    /// The finding's message (never the matched text).
    pub(super) message: Option<String>,
    /// The finding's severity; a scan fails on any error-level finding.
    #[schemars(extend("default" = "error"))]
    pub(super) severity: Option<DiagSeverity>,
}

/// One writing command (e.g. a formatter), run only by `run-check fix`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-taplo" = {"initKeys": ["name", "run"]}))]
pub(super) struct RawFix {
    /// Unique name: letters, digits, `_`, `.`, `-`.
    #[schemars(with = "String", regex(pattern = NAME))]
    pub(super) name: Spanned<String>,
    /// The argv, as a check's `run`.
    #[schemars(with = "Vec<String>", length(min = 1))]
    #[schemars(extend("prefixItems" = [{"type": "string", "minLength": 1}]))]
    pub(super) run: Spanned<Vec<String>>,
    /// This fix's timeout, as a check's (default `settings.timeout`).
    #[schemars(with = "Option<String>", regex(pattern = DURATION))]
    pub(super) timeout: Option<Spanned<String>>,
    /// The working directory, as a check's `cwd`.
    #[schemars(with = "Option<String>", extend("default" = "."))]
    pub(super) cwd: Option<Spanned<String>>,
    /// Extra environment variables, as a check's `env`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    #[schemars(extend("propertyNames" = {"pattern": ENV_NAME}))]
    pub(super) env: BTreeMap<Spanned<String>, String>,
}

/// The schema of `[judge]`: the thresholds of the verdict's type, each
/// optional over its default, and the `weights` table whole. The names,
/// bounds and descriptions are the document crate's.
fn judge_table(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut schema = generator.subschema_for::<super::Thresholds>();
    let defaults = serde_json::to_value(super::Thresholds::default()).unwrap_or_default();
    let mut weights = generator.subschema_for::<super::Weights>();
    weights.insert(
        "description".into(),
        "Dimension weights, all three; they must sum to 1.0.".into(),
    );
    if let Some(object) = schema.as_object_mut() {
        object.remove("required");
        object.insert(
            "description".into(),
            "Thresholds of `run-check judge`; each key is optional (the judge's defaults, docs/judge.md).".into(),
        );
        if let Some(serde_json::Value::Object(properties)) = object.get_mut("properties") {
            for (key, property) in properties.iter_mut() {
                if let (Some(property), Some(default)) =
                    (property.as_object_mut(), defaults.get(key))
                {
                    property.insert("default".into(), default.clone());
                }
            }
            properties.insert("weights".into(), weights.to_value());
        }
    }
    schema
}
