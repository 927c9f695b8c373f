//! checks.toml: its serde schema (SPEC section 3), loading and validation.
//!
//! `Config` mirrors the file and only validates it: every rule of SPEC
//! section 3 that can be decided from the file alone (unknown keys, names,
//! `needs`, durations, globs, regexes, the whitelist) is checked here, so a
//! config error is reported before any check runs. Nothing here touches PATH or
//! spawns anything; that is `plan`'s job.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toml::Spanned;

use crate::duration;
use crate::error::Error;

/// Default per-check timeout (SPEC section 3).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Default bytes kept from the head and from the tail of each stream.
pub const DEFAULT_EXCERPT_BYTES: usize = 8192;
/// Built-in scan rule sets (SPEC section 3).
pub const SCAN_RULE_SETS: [&str; 4] = [
    "skipped-tests",
    "placeholder-asserts",
    "secrets",
    "debug-leftovers",
];
/// Programs that interpret a string as a script: allowed only when listed.
pub const SHELLS: [&str; 12] = [
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

/// Which checks run, and how (SPEC section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Developer loop: checks marked fast, change-filtered, fail-fast.
    Fast,
    /// Acceptance gate: every strict check, read-only verification.
    Strict,
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

impl Mode {
    /// The word used in config, evidence and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Fast => "fast",
            Mode::Strict => "strict",
        }
    }
}

/// The judge dimension a check scores into (SPEC section 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    /// Security checks (issue ids `SEC-`).
    Security,
    /// Quality checks (issue ids `QA-`), the default.
    Quality,
    /// Performance checks (issue ids `PERF-`).
    Performance,
}

/// The severity of the issues a failing check raises (SPEC section 8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Blocks a pass whenever present beyond `max_critical_issues`.
    Critical,
    /// The default.
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

/// The severity of one diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, Default)]
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

/// How a check's output is read for diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Parser {
    /// Recognise what it can, never invent.
    #[default]
    Auto,
    /// No parsing.
    None,
    /// `file:line:col: severity: message` (gcc, clang, shellcheck -f gcc, ...).
    Gcc,
    /// rustc's human format.
    Rustc,
    /// cargo `--message-format=json`.
    CargoJson,
    /// TypeScript's `file(line,col): error TSxxxx: msg`.
    Tsc,
    /// pytest failure lines.
    Pytest,
    /// mypy.
    Mypy,
    /// eslint stylish and compact.
    Eslint,
    /// go vet / go build.
    Go,
    /// seed 003's `PHASE_RESULT:` block into `data`.
    PhaseResult,
}

/// The loaded, validated checks.toml.
#[derive(Debug)]
pub struct Config {
    /// The file, as the user would name it.
    pub path: PathBuf,
    /// sha256 of the file's bytes, hex.
    pub sha256: String,
    /// `[settings]`.
    pub settings: Settings,
    /// `[judge]`, each key optional.
    pub judge: JudgeConfig,
    /// `[retry]`.
    pub retry: RetryConfig,
    /// `[[check]]`, in file order.
    pub checks: Vec<CheckConfig>,
    /// `[[fix]]`, in file order.
    /// `[[fix]]`, in file order, as process checks (no modes: only
    /// `run-check fix` runs them).
    pub fixes: Vec<CheckConfig>,
}

/// `[settings]`.
#[derive(Debug)]
pub struct Settings {
    /// Parallel checks; 0 = logical CPUs.
    pub jobs: usize,
    /// Default per-check timeout.
    pub timeout: Duration,
    /// Bytes kept from the head and from the tail of each stream.
    pub excerpt_bytes: usize,
    /// The whitelist, as written.
    pub allow: Vec<String>,
}

/// `[judge]`; `None` means "use the default of SPEC section 8".
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    /// Minimum security score.
    pub security_min: Option<f64>,
    /// Minimum quality score.
    pub quality_min: Option<f64>,
    /// Minimum performance score.
    pub performance_min: Option<f64>,
    /// Minimum overall score.
    pub overall_min: Option<f64>,
    /// Most critical issues a pass may have.
    pub max_critical_issues: Option<u32>,
    /// Most high issues a pass may have.
    pub max_high_issues: Option<u32>,
    /// The iteration at which a failing result becomes FAIL_MAX_ITERATIONS.
    pub max_iterations: Option<u32>,
    /// Smallest improvement that is not a stall.
    pub stall_threshold: Option<f64>,
    /// Rounds of small improvement that make a stall.
    pub stall_rounds: Option<u32>,
    /// Dimension weights; must sum to 1.0.
    pub weights: Option<Weights>,
}

/// Dimension weights.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// Weight of the security score.
    pub security: f64,
    /// Weight of the quality score.
    pub quality: f64,
    /// Weight of the performance score.
    pub performance: f64,
}

/// `[retry]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    /// Retries per failure point before escalation (default 3).
    pub max_retries: Option<u32>,
}

/// What a check does.
#[derive(Debug)]
pub enum CheckKind {
    /// Run a whitelisted program with these arguments (argv, no shell).
    Run(Vec<String>),
    /// A built-in scan (no process).
    Scan(ScanConfig),
}

/// `scan = { paths, rules }` plus the check's `[[check.rule]]`s.
#[derive(Debug)]
pub struct ScanConfig {
    /// Globs of the files to scan (empty: every file).
    pub paths: Vec<String>,
    /// Built-in rule sets.
    pub rules: Vec<String>,
    /// Custom rules.
    pub custom: Vec<ScanRule>,
}

/// One `[[check.rule]]`.
#[derive(Debug)]
pub struct ScanRule {
    /// Rule id.
    pub id: String,
    /// Compiled pattern.
    pub pattern: Regex,
    /// Message of a finding.
    pub message: Option<String>,
    /// Severity of a finding (default error).
    pub severity: DiagSeverity,
}

/// One `[[check.matcher]]`.
#[derive(Debug)]
pub struct Matcher {
    /// Compiled regex with named groups.
    pub regex: Regex,
    /// Severity when the regex has no `severity` group.
    pub severity: DiagSeverity,
}

/// One `[[check]]`.
#[derive(Debug)]
pub struct CheckConfig {
    /// Unique name.
    pub name: String,
    /// 1-based line of the check's `name`, for messages.
    pub line: usize,
    /// Process or scan.
    pub kind: CheckKind,
    /// Modes the check belongs to.
    pub modes: Vec<Mode>,
    /// Judge dimension.
    pub dimension: Dimension,
    /// Issue severity when it fails.
    pub severity: Severity,
    /// Its own timeout, if set.
    pub timeout: Option<Duration>,
    /// Working directory relative to the worktree, normalised (no `..`).
    pub cwd: PathBuf,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// Fast-mode path globs (`None`: always runs).
    pub paths: Option<GlobSet>,
    /// The globs as written.
    pub path_globs: Vec<String>,
    /// Names of the checks this one runs after.
    pub needs: Vec<String>,
    /// Output parser.
    pub parser: Parser,
    /// Artifact globs.
    pub artifacts: Vec<String>,
    /// Score regex (first capture group is the score).
    pub score: Option<Regex>,
    /// Custom problem matchers.
    pub matchers: Vec<Matcher>,
}

// ---- the file as serde sees it ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    version: Option<Spanned<i64>>,
    #[serde(default)]
    settings: RawSettings,
    #[serde(default)]
    judge: Option<Spanned<JudgeConfig>>,
    #[serde(default)]
    retry: RetryConfig,
    #[serde(default)]
    check: Vec<RawCheck>,
    #[serde(default)]
    fix: Vec<RawFix>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    jobs: Option<usize>,
    timeout: Option<Spanned<String>>,
    excerpt_bytes: Option<Spanned<u64>>,
    #[serde(default)]
    allow: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    name: Spanned<String>,
    run: Option<Spanned<Vec<String>>>,
    scan: Option<Spanned<RawScan>>,
    modes: Option<Vec<Mode>>,
    dimension: Option<Dimension>,
    severity: Option<Severity>,
    timeout: Option<Spanned<String>>,
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    paths: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    needs: Vec<Spanned<String>>,
    parser: Option<Parser>,
    #[serde(default)]
    artifacts: Vec<Spanned<String>>,
    score: Option<RawScore>,
    #[serde(default)]
    matcher: Vec<RawMatcher>,
    #[serde(default)]
    rule: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScan {
    #[serde(default)]
    paths: Vec<Spanned<String>>,
    #[serde(default)]
    rules: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScore {
    regex: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatcher {
    regex: Spanned<String>,
    severity: Option<DiagSeverity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Spanned<String>,
    pattern: Spanned<String>,
    message: Option<String>,
    severity: Option<DiagSeverity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFix {
    name: Spanned<String>,
    run: Spanned<Vec<String>>,
    timeout: Option<Spanned<String>>,
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// Reads and validates a config file. `display` is how the path is named in
/// messages and evidence.
pub fn load(path: &Path, display: &Path, explicit: bool) -> Result<Config, Error> {
    let bytes = match std::fs::read(path) {
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

/// Lower-case hex of a byte string.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Parses and validates config text.
pub fn parse(text: &str, path: &Path, sha256: String) -> Result<Config, Error> {
    let raw: RawConfig = toml::from_str(text).map_err(|err| {
        let message = err.message().to_string();
        // serde names an unknown field itself, not a bad value's key: add it.
        let key = err
            .span()
            .and_then(|span| key_at(text, span.start))
            .filter(|key| {
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

/// The dotted key assigned on the line holding `offset`, qualified by the
/// table header above it (`check.parser`), when the line is a `key = value`.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    if key.is_empty() || key.starts_with('[') || key.contains(char::is_whitespace) {
        return None;
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|header| {
            header
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string()
        });
    Some(match table {
        Some(table) if !table.is_empty() => format!("{table}.{key}"),
        _ => key.to_string(),
    })
}

struct Validator<'a> {
    text: &'a str,
    path: &'a Path,
    /// Offsets of every `\n`, so a check's line is a binary search, not a
    /// scan from the top (a 500-check config would be quadratic).
    newlines: Vec<usize>,
}

type Span = std::ops::Range<usize>;

impl Validator<'_> {
    /// 1-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }

    fn err(&self, span: Span, key: impl Into<String>, message: impl Into<String>) -> Error {
        Error::config_at(self.path, self.text, Some(span), Some(key.into()), message)
    }

    fn duration(&self, raw: &Spanned<String>, key: &str) -> Result<Duration, Error> {
        duration::parse(raw.get_ref()).map_err(|why| {
            self.err(
                raw.span(),
                key,
                format!(
                    "invalid duration `{}`: {why} (e.g. \"500ms\", \"90s\", \"2m\", \"1h\")",
                    raw.get_ref()
                ),
            )
        })
    }

    fn glob(&self, raw: &Spanned<String>, key: &str) -> Result<Glob, Error> {
        Glob::new(raw.get_ref()).map_err(|err| {
            self.err(
                raw.span(),
                key,
                format!("invalid glob `{}`: {}", raw.get_ref(), err.kind()),
            )
        })
    }

    fn regex(&self, raw: &Spanned<String>, key: &str) -> Result<Regex, Error> {
        Regex::new(raw.get_ref()).map_err(|err| {
            let why = err.to_string();
            let why = why.lines().last().unwrap_or("invalid").trim();
            let why = why.strip_prefix("error: ").unwrap_or(why).to_string();
            self.err(
                raw.span(),
                key,
                format!("invalid regex `{}`: {why}", raw.get_ref()),
            )
        })
    }

    /// A `cwd` relative to the worktree that may not leave it (lexically; `plan`
    /// also resolves symlinks).
    fn cwd(&self, raw: &Option<Spanned<String>>, key: &str) -> Result<PathBuf, Error> {
        let Some(raw) = raw else {
            return Ok(PathBuf::new());
        };
        let mut out = PathBuf::new();
        for component in Path::new(raw.get_ref()).components() {
            match component {
                Component::CurDir => {}
                Component::Normal(part) => out.push(part),
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(self.err(raw.span(), key, "may not leave the worktree"));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(self.err(
                        raw.span(),
                        key,
                        "must be relative to the worktree, not absolute",
                    ));
                }
            }
        }
        Ok(out)
    }

    fn env(&self, env: &BTreeMap<String, String>, span: Span, key: &str) -> Result<(), Error> {
        for name in env.keys() {
            if name.is_empty() || name.contains('=') || name.contains('\0') {
                return Err(self.err(
                    span.clone(),
                    key,
                    format!("invalid environment variable name `{name}`"),
                ));
            }
        }
        Ok(())
    }

    /// The whitelist rule of SPEC section 3: `run[0]` must equal an entry of
    /// `settings.allow` as written.
    fn argv(
        &self,
        raw: &Spanned<Vec<String>>,
        allow: &[String],
        key: &str,
    ) -> Result<Vec<String>, Error> {
        let argv = raw.get_ref();
        let Some(program) = argv.first() else {
            return Err(self.err(
                raw.span(),
                key,
                "must name a program: `run = [\"prog\", ...]`",
            ));
        };
        if program.is_empty() || argv.iter().any(|arg| arg.contains('\0')) {
            return Err(self.err(raw.span(), key, "empty program name or NUL byte in argv"));
        }
        if !allow.iter().any(|entry| entry == program) {
            let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
            let hint = if SHELLS.contains(&base) {
                " (a shell runs only when it is itself listed)"
            } else {
                ""
            };
            return Err(self.err(
                raw.span(),
                key,
                format!(
                    "program `{program}` is not in `settings.allow`{hint}; add it there to allow it"
                ),
            ));
        }
        Ok(argv.clone())
    }

    fn validate(&self, raw: RawConfig, sha256: String) -> Result<Config, Error> {
        if let Some(version) = &raw.version
            && *version.get_ref() != 1
        {
            return Err(self.err(
                version.span(),
                "version",
                format!(
                    "unsupported version {} (this run-check reads version 1)",
                    version.get_ref()
                ),
            ));
        }
        let settings = self.settings(raw.settings)?;
        let judge = match raw.judge {
            Some(judge) => self.judge(judge)?,
            None => JudgeConfig::default(),
        };

        let mut checks = Vec::with_capacity(raw.check.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for raw_check in raw.check {
            let check = self.check(raw_check, &settings.allow, &seen)?;
            seen.insert(check.name.clone(), checks.len());
            checks.push(check);
        }
        // `needs` spans were checked for existence in `check`, except for
        // forward references; check those and cycles now.
        self.needs(&checks)?;

        let mut fixes: Vec<CheckConfig> = Vec::with_capacity(raw.fix.len());
        for fix in raw.fix {
            let name_key = "fix.name";
            self.name(&fix.name, name_key)?;
            if fixes.iter().any(|f| f.name == *fix.name.get_ref()) {
                return Err(self.err(
                    fix.name.span(),
                    name_key,
                    format!("duplicate fix name `{}`", fix.name.get_ref()),
                ));
            }
            let of = |k: &str| format!("`{k}` of fix `{}`", fix.name.get_ref());
            let run = self.argv(&fix.run, &settings.allow, &of("run"))?;
            let timeout = match &fix.timeout {
                Some(t) => Some(self.duration(t, &of("timeout"))?),
                None => None,
            };
            let cwd = self.cwd(&fix.cwd, &of("cwd"))?;
            self.env(&fix.env, fix.name.span(), &of("env"))?;
            let line = self.line_of(fix.name.span().start);
            fixes.push(CheckConfig {
                name: fix.name.into_inner(),
                line,
                kind: CheckKind::Run(run),
                modes: Vec::new(),
                dimension: Dimension::Quality,
                severity: Severity::High,
                timeout,
                cwd,
                env: fix.env,
                paths: None,
                path_globs: Vec::new(),
                needs: Vec::new(),
                parser: Parser::None,
                artifacts: Vec::new(),
                score: None,
                matchers: Vec::new(),
            });
        }

        Ok(Config {
            path: self.path.to_path_buf(),
            sha256,
            settings,
            judge,
            retry: raw.retry,
            checks,
            fixes,
        })
    }

    fn settings(&self, raw: RawSettings) -> Result<Settings, Error> {
        let timeout = match &raw.timeout {
            Some(t) => self.duration(t, "settings.timeout")?,
            None => DEFAULT_TIMEOUT,
        };
        let excerpt_bytes = match &raw.excerpt_bytes {
            Some(n) => {
                let value = *n.get_ref();
                if value == 0 || value > 64 * 1024 * 1024 {
                    return Err(self.err(
                        n.span(),
                        "settings.excerpt_bytes",
                        "must be between 1 and 67108864",
                    ));
                }
                value as usize
            }
            None => DEFAULT_EXCERPT_BYTES,
        };
        let mut allow = Vec::with_capacity(raw.allow.len());
        for entry in raw.allow {
            if entry.get_ref().trim().is_empty() {
                return Err(self.err(entry.span(), "settings.allow", "empty program name"));
            }
            allow.push(entry.into_inner());
        }
        Ok(Settings {
            jobs: raw.jobs.unwrap_or(0),
            timeout,
            excerpt_bytes,
            allow,
        })
    }

    fn judge(&self, raw: Spanned<JudgeConfig>) -> Result<JudgeConfig, Error> {
        let span = raw.span();
        let judge = raw.into_inner();
        let scores = [
            ("judge.security_min", judge.security_min),
            ("judge.quality_min", judge.quality_min),
            ("judge.performance_min", judge.performance_min),
            ("judge.overall_min", judge.overall_min),
            ("judge.stall_threshold", judge.stall_threshold),
        ];
        for (key, value) in scores {
            if let Some(v) = value
                && !(0.0..=100.0).contains(&v)
            {
                return Err(self.err(span.clone(), key, format!("{v} is outside 0..100")));
            }
        }
        if let Some(w) = judge.weights {
            let parts = [w.security, w.quality, w.performance];
            if parts.iter().any(|p| !(0.0..=1.0).contains(p)) {
                return Err(self.err(span, "judge.weights", "each weight must be within 0..1"));
            }
            let sum: f64 = parts.iter().sum();
            if (sum - 1.0).abs() > 0.001 {
                return Err(self.err(
                    span,
                    "judge.weights",
                    format!("weights sum to {sum}, not 1.0 (±0.001)"),
                ));
            }
        }
        if judge.max_iterations == Some(0) {
            return Err(self.err(span, "judge.max_iterations", "must be at least 1"));
        }
        Ok(judge)
    }

    fn name(&self, name: &Spanned<String>, key: &str) -> Result<(), Error> {
        let valid = !name.get_ref().is_empty()
            && name
                .get_ref()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if valid {
            Ok(())
        } else {
            Err(self.err(
                name.span(),
                key,
                format!(
                    "invalid name `{}` (use letters, digits, `_`, `.`, `-`)",
                    name.get_ref()
                ),
            ))
        }
    }

    fn check(
        &self,
        raw: RawCheck,
        allow: &[String],
        seen: &HashMap<String, usize>,
    ) -> Result<CheckConfig, Error> {
        self.name(&raw.name, "check.name")?;
        let name = raw.name.get_ref().clone();
        if seen.contains_key(&name) {
            return Err(self.err(
                raw.name.span(),
                "check.name",
                format!("duplicate check name `{name}`"),
            ));
        }
        let of = |k: &str| format!("`{k}` of check `{name}`");
        let kind = match (&raw.run, &raw.scan) {
            (Some(run), None) => CheckKind::Run(self.argv(run, allow, &of("run"))?),
            (None, Some(scan)) => CheckKind::Scan(self.scan(scan, &raw.rule, &name)?),
            (Some(run), Some(_)) => {
                return Err(self.err(run.span(), of("run"), "has both `run` and `scan`; keep one"));
            }
            (None, None) => {
                return Err(self.err(
                    raw.name.span(),
                    format!("check `{name}`"),
                    "has neither `run` nor `scan`",
                ));
            }
        };
        if !raw.rule.is_empty() && raw.scan.is_none() {
            return Err(self.err(
                raw.rule[0].id.span(),
                of("rule"),
                "`[[check.rule]]` applies only to `scan` checks",
            ));
        }
        let modes = raw.modes.unwrap_or_else(|| vec![Mode::Strict]);
        let timeout = match &raw.timeout {
            Some(t) => Some(self.duration(t, &of("timeout"))?),
            None => None,
        };
        let cwd = self.cwd(&raw.cwd, &of("cwd"))?;
        self.env(&raw.env, raw.name.span(), &of("env"))?;
        let (paths, path_globs) = match &raw.paths {
            Some(globs) => {
                let mut builder = GlobSetBuilder::new();
                for g in globs {
                    builder.add(self.glob(g, &of("paths"))?);
                }
                let set = builder
                    .build()
                    .map_err(|e| self.err(raw.name.span(), of("paths"), e.to_string()))?;
                (
                    Some(set),
                    globs.iter().map(|g| g.get_ref().clone()).collect(),
                )
            }
            None => (None, Vec::new()),
        };
        for glob in &raw.artifacts {
            self.glob(glob, &of("artifacts"))?;
        }
        let score = match &raw.score {
            Some(score) => {
                let regex = self.regex(&score.regex, &of("score.regex"))?;
                if regex.captures_len() < 2 {
                    return Err(self.err(
                        score.regex.span(),
                        of("score.regex"),
                        "needs a capture group holding the score",
                    ));
                }
                Some(regex)
            }
            None => None,
        };
        let mut matchers = Vec::with_capacity(raw.matcher.len());
        for m in &raw.matcher {
            let regex = self.regex(&m.regex, &of("matcher.regex"))?;
            if !regex.capture_names().any(|n| n == Some("message")) {
                return Err(self.err(
                    m.regex.span(),
                    of("matcher.regex"),
                    "needs a named group `message` (also: file, line, column, severity, rule)",
                ));
            }
            matchers.push(Matcher {
                regex,
                severity: m.severity.unwrap_or(DiagSeverity::Error),
            });
        }
        let mut needs = Vec::with_capacity(raw.needs.len());
        for need in &raw.needs {
            if *need.get_ref() == name {
                return Err(self.err(need.span(), of("needs"), "a check cannot need itself"));
            }
            needs.push(need.get_ref().clone());
        }
        let line = self.line_of(raw.name.span().start);
        Ok(CheckConfig {
            name: name.clone(),
            line,
            kind,
            modes,
            dimension: raw.dimension.unwrap_or(Dimension::Quality),
            severity: raw.severity.unwrap_or(Severity::High),
            timeout,
            cwd,
            env: raw.env,
            paths,
            path_globs,
            needs,
            parser: raw.parser.unwrap_or_default(),
            artifacts: raw.artifacts.into_iter().map(Spanned::into_inner).collect(),
            score,
            matchers,
        })
    }

    fn scan(
        &self,
        raw: &Spanned<RawScan>,
        rules: &[RawRule],
        name: &str,
    ) -> Result<ScanConfig, Error> {
        let of = |k: &str| format!("`{k}` of check `{name}`");
        let scan = raw.get_ref();
        for glob in &scan.paths {
            self.glob(glob, &of("scan.paths"))?;
        }
        for rule in &scan.rules {
            if !SCAN_RULE_SETS.contains(&rule.get_ref().as_str()) {
                return Err(self.err(
                    rule.span(),
                    of("scan.rules"),
                    format!(
                        "unknown rule set `{}` (known: {})",
                        rule.get_ref(),
                        SCAN_RULE_SETS.join(", ")
                    ),
                ));
            }
        }
        if scan.rules.is_empty() && rules.is_empty() {
            return Err(self.err(
                raw.span(),
                of("scan"),
                "has no rules: list `rules` or add `[[check.rule]]`",
            ));
        }
        let mut custom = Vec::with_capacity(rules.len());
        for rule in rules {
            if rule.id.get_ref().trim().is_empty() {
                return Err(self.err(rule.id.span(), of("rule.id"), "empty rule id"));
            }
            custom.push(ScanRule {
                id: rule.id.get_ref().clone(),
                pattern: self.regex(&rule.pattern, &of("rule.pattern"))?,
                message: rule.message.clone(),
                severity: rule.severity.unwrap_or(DiagSeverity::Error),
            });
        }
        Ok(ScanConfig {
            paths: scan.paths.iter().map(|p| p.get_ref().clone()).collect(),
            rules: scan.rules.iter().map(|r| r.get_ref().clone()).collect(),
            custom,
        })
    }

    /// Unknown needs and cycles. Messages point at the line of the check.
    fn needs(&self, checks: &[CheckConfig]) -> Result<(), Error> {
        let index: HashMap<&str, usize> = checks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        let at_line = |check: &CheckConfig, key: String, message: String| Error::Config {
            path: self.path.to_path_buf(),
            location: Some((check.line, 1)),
            key: Some(key),
            message,
        };
        for check in checks {
            for need in &check.needs {
                if !index.contains_key(need.as_str()) {
                    return Err(at_line(
                        check,
                        format!("`needs` of check `{}`", check.name),
                        format!("unknown check `{need}`"),
                    ));
                }
            }
        }
        // Depth-first search with colours; a grey node reached again is a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let mut colour = vec![Colour::White; checks.len()];
        let mut stack: Vec<usize> = Vec::new();
        fn visit(
            node: usize,
            checks: &[CheckConfig],
            index: &HashMap<&str, usize>,
            colour: &mut [Colour],
            stack: &mut Vec<usize>,
        ) -> Option<Vec<usize>> {
            colour[node] = Colour::Grey;
            stack.push(node);
            for need in &checks[node].needs {
                let next = index[need.as_str()];
                match colour[next] {
                    Colour::Grey => {
                        let start = stack.iter().position(|&n| n == next).unwrap_or(0);
                        let mut cycle = stack[start..].to_vec();
                        cycle.push(next);
                        return Some(cycle);
                    }
                    Colour::White => {
                        if let Some(cycle) = visit(next, checks, index, colour, stack) {
                            return Some(cycle);
                        }
                    }
                    Colour::Black => {}
                }
            }
            stack.pop();
            colour[node] = Colour::Black;
            None
        }
        for start in 0..checks.len() {
            if colour[start] == Colour::White
                && let Some(cycle) = visit(start, checks, &index, &mut colour, &mut stack)
            {
                let names: Vec<&str> = cycle.iter().map(|&i| checks[i].name.as_str()).collect();
                return Err(at_line(
                    &checks[cycle[0]],
                    format!("`needs` of check `{}`", checks[cycle[0]].name),
                    format!("cycle: {}", names.join(" -> ")),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(text: &str) -> Result<Config, String> {
        parse(text, Path::new("checks.toml"), String::new()).map_err(|e| e.to_string())
    }

    #[track_caller]
    fn rejects(text: &str, expected: &str) {
        match load_str(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(message) => assert_eq!(message, expected),
        }
    }

    const ALLOW: &str = "[settings]\nallow = [\"true\", \"sh\"]\n";

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
    fn bad_duration() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ntimeout = \"5x\"\n"),
            "checks.toml:6:11: `timeout` of check `t`: invalid duration `5x`: unknown unit `x` \
             (use ms, s, m or h) (e.g. \"500ms\", \"90s\", \"2m\", \"1h\")",
        );
    }

    #[test]
    fn duplicate_names() {
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"true\"]\n"
            ),
            "checks.toml:7:8: check.name: duplicate check name `t`",
        );
    }

    #[test]
    fn unknown_need_and_cycle() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"a\"\nrun = [\"true\"]\nneeds = [\"zz\"]\n"),
            "checks.toml:4:1: `needs` of check `a`: unknown check `zz`",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"a\"\nrun = [\"true\"]\nneeds = [\"b\"]\n\
                 [[check]]\nname = \"b\"\nrun = [\"true\"]\nneeds = [\"a\"]\n"
            ),
            "checks.toml:4:1: `needs` of check `a`: cycle: a -> b -> a",
        );
    }

    #[test]
    fn whitelist() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"rm\", \"-rf\", \"/\"]\n"),
            "checks.toml:5:7: `run` of check `t`: program `rm` is not in `settings.allow`; add it there to allow it",
        );
        rejects(
            "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"bash\", \"-c\", \"x\"]\n",
            "checks.toml:5:7: `run` of check `t`: program `bash` is not in `settings.allow` \
             (a shell runs only when it is itself listed); add it there to allow it",
        );
    }

    #[test]
    fn run_and_scan_exclusive() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\n"),
            "checks.toml:4:8: check `t`: has neither `run` nor `scan`",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nscan = {{ rules = [\"secrets\"] }}\n"
            ),
            "checks.toml:5:7: `run` of check `t`: has both `run` and `scan`; keep one",
        );
    }

    #[test]
    fn bad_glob_and_regex() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\npaths = [\"src/[\"]\n"),
            "checks.toml:6:10: `paths` of check `t`: invalid glob `src/[`: unclosed character class; missing ']'",
        );
        let err = load_str(&format!(
            "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nscore = {{ regex = '(' }}\n"
        ))
        .unwrap_err();
        assert!(
            err.starts_with("checks.toml:6:19: `score.regex` of check `t`: invalid regex `(`"),
            "{err}"
        );
    }

    #[test]
    fn cwd_may_not_escape() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ncwd = \"a/../..\"\n"),
            "checks.toml:6:7: `cwd` of check `t`: may not leave the worktree",
        );
        let config = load_str(&format!(
            "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ncwd = \"./a/b/..\"\n"
        ))
        .unwrap();
        assert_eq!(config.checks[0].cwd, PathBuf::from("a"));
    }

    #[test]
    fn judge_weights_must_sum_to_one() {
        rejects(
            "[judge]\nweights = { security = 0.5, quality = 0.5, performance = 0.5 }\n",
            "checks.toml:1:1: judge.weights: weights sum to 1.5, not 1.0 (±0.001)",
        );
        let config =
            load_str("[judge]\nweights = { security = 0.4, quality = 0.35, performance = 0.25 }\n")
                .unwrap();
        assert_eq!(config.judge.weights.unwrap().quality, 0.35);
    }

    #[test]
    fn a_bad_value_names_its_key() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nparser = \"nope\"\n"),
            "checks.toml:6:10: check.parser: unknown variant `nope`, expected one of `auto`, \
             `none`, `gcc`, `rustc`, `cargo-json`, `tsc`, `pytest`, `mypy`, `eslint`, `go`, \
             `phase-result`",
        );
        rejects(
            "[settings]\njobs = \"two\"\n",
            "checks.toml:2:8: settings.jobs: invalid type: string \"two\", expected usize",
        );
        assert_eq!(
            key_at("[[check]]\nname = 1\n", 12),
            Some("check.name".into())
        );
        assert_eq!(key_at("top = 1\n", 3), Some("top".into()));
        assert_eq!(key_at("[[check]\n", 3), None);
    }

    #[test]
    fn malformed_toml() {
        let err = load_str("[[check]\nname = 1\n").unwrap_err();
        assert!(err.starts_with("checks.toml:1:"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn unknown_scan_rule_set() {
        rejects(
            "[[check]]\nname = \"s\"\nscan = { rules = [\"nope\"] }\n",
            "checks.toml:3:19: `scan.rules` of check `s`: unknown rule set `nope` \
             (known: skipped-tests, placeholder-asserts, secrets, debug-leftovers)",
        );
    }
}
