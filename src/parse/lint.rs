//! The generic linter lines `auto` tries last: `path:line[:col]: message`
//! as printed by linters that no `parser` names (flake8, pylint,
//! pycodestyle, bandit, yamllint, standard, go vet, staticcheck,
//! golangci-lint, rubocop, ruff, ...), and a few multi-line shapes of the
//! same tools (ruff's full format, yamllint's and shellcheck's default
//! output, pydocstyle, bandit's default report, isort and black's
//! `--check`).
//!
//! It must never invent a diagnostic from test-runner output or source
//! excerpts, so a location counts only when:
//! - its path names a file: one with a source-file extension (`SOURCE`),
//!   or, when the check's directories are known, an existing file inside
//!   the worktree (relative paths taken from the check's `cwd`);
//! - an indented line has a column (go test's `    x_test.go:7: log` has
//!   none);
//! - a line without a column has a severity word or a rule (pytest's
//!   `test_a.py:12: AssertionError` has neither).
//!
//! The message's head is read for, in this order: pylint's `W0622: `
//! (column 0-based, so plus one), rubocop's `C: [Correctable] Cop/Name: `,
//! bandit's `B404[bandit]: LOW: `, a severity word (`error: `,
//! `warning[code]: `, `[warning] `, `Suggestion: `, `error - `), a rule code
//! (`F401 `, `E501 `, ruff's `[*]` dropped, `invalid-syntax: `,
//! `yaml[truthy]: `), Python's `DeprecationWarning: `; its tail for
//! standard's `(warning)` and a rule in parentheses (`(SA9003)`,
//! `(errcheck)`, `(trailing-spaces)`). Columns are 1-based: a column 0
//! (other than pylint's and bandit's 0-based ones) is no column.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser};
use crate::config::DiagSeverity;

/// Extensions of files a linter reports on (lower case).
const SOURCE: &[&str] = &[
    "py",
    "pyi",
    "pyx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "mts",
    "cts",
    "vue",
    "svelte",
    "go",
    "rs",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "hxx",
    "m",
    "mm",
    "java",
    "kt",
    "kts",
    "scala",
    "groovy",
    "gradle",
    "cs",
    "fs",
    "swift",
    "rb",
    "rake",
    "gemspec",
    "erb",
    "php",
    "pl",
    "pm",
    "lua",
    "r",
    "jl",
    "ex",
    "exs",
    "erl",
    "hrl",
    "hs",
    "ml",
    "mli",
    "clj",
    "dart",
    "zig",
    "nim",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "psm1",
    "bat",
    "cmd",
    "sql",
    "proto",
    "graphql",
    "yaml",
    "yml",
    "toml",
    "json",
    "jsonc",
    "json5",
    "xml",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "md",
    "markdown",
    "rst",
    "tex",
    "tf",
    "hcl",
    "nix",
    "cmake",
    "dockerfile",
    "ini",
    "cfg",
    "j2",
    "jinja",
];

/// Existence answers remembered per stream (beyond it, each is asked again).
const MAX_REMEMBERED: usize = 4096;

/// `[indent]path:line[:col]:[ ]rest`.
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<indent>[ \t]*)(?P<file>(?:[A-Za-z]:[\\/])?[^\s:]+):(?P<line>\d+)(?::(?P<column>\d+))?:[ \t]*(?P<rest>\S.*)$",
    )
    .expect("valid regex")
});
/// pylint: `W0622: message (symbol)`.
static PYLINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<level>[CRWEFI])(?P<digits>\d{4}): (?P<message>.*)$").expect("valid regex")
});
/// rubocop: `C: [Correctable] Style/Documentation: message`.
static RUBOCOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<level>[CRWEFI]): (?:\[(?:Correctable|Corrected|Todo)\] )?(?P<rule>[A-Z]\w*(?:/\w+)+): (?P<message>.*)$",
    )
    .expect("valid regex")
});
/// bandit's custom format: `B404[bandit]: LOW: message`.
static TOOL_LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<rule>[A-Za-z]+\d+)\[[\w-]+\]: (?P<level>[A-Za-z]+): (?P<message>.*)$")
        .expect("valid regex")
});
/// `error: `, `warning[code]: `, `error - `, `[warning] `, `Suggestion: `.
static LEVEL_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\[(?P<bracketed>[A-Za-z]+)\]:?[ \t]+|(?P<word>[A-Za-z]+(?: error)?)(?:\[(?P<code>[\w:./-]+)\])?(?::[ \t]*|[ \t]+-[ \t]+))(?P<message>.*)$",
    )
    .expect("valid regex")
});
/// `F401 [*] message`, `E501 message`, `D100: message`, `invalid-syntax:
/// message`, ansible-lint's `yaml[truthy]: message`.
static CODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<rule>[A-Z]{1,5}\d{1,5}:?|invalid-syntax:|[a-z][\w-]*\[[\w-]+\]:)[ \t]+(?:\[\*\][ \t]+)?(?P<message>.*)$",
    )
    .expect("valid regex")
});
/// Python's warnings: `DeprecationWarning: message`.
static PY_WARNING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<rule>[A-Z]\w*Warning): (?P<message>.*)$").expect("valid regex")
});
/// A trailing `(rule)`.
static TRAILING_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<message>.*\S)[ \t]+\((?P<rule>[A-Za-z][\w./-]*)\)$").expect("valid regex")
});
/// yamllint's default format: `  2:11      error    message  (rule)` under
/// the file's line.
static YAMLLINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[ \t]+(?P<line>\d+):(?P<column>\d+)[ \t]+(?P<level>error|warning)[ \t]+(?P<message>.*?)(?:[ \t]+\((?P<rule>[\w-]+)\))?$",
    )
    .expect("valid regex")
});
/// shellcheck's default format: `In deploy line 3:`.
static SHELLCHECK_HEAD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^In (?P<file>\S.*) line (?P<line>\d+):$").expect("valid regex"));
/// ...then under the source line `   ^--^ SC2086 (info): message`.
static SHELLCHECK_MARK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<indent>[ \t]*)\^-*\^?[ \t]+(?P<rule>SC\d+) \((?P<level>\w+)\): (?P<message>.*)$",
    )
    .expect("valid regex")
});
/// pydocstyle: `bad.py:6 in public function `list`:` then the indented
/// `D103: message`.
static PYDOCSTYLE_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<file>\S+):(?P<line>\d+) (?:at module level|in [\w ]+ `[^`]*`):$")
        .expect("valid regex")
});
static PYDOCSTYLE_BODY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]+(?P<rule>D\d{3}): (?P<message>.*)$").expect("valid regex")
});
/// bandit's default report: `>> Issue: [B404:blacklist] message`, ...,
/// `   Severity: Low   Confidence: High`, ..., `   Location: ./bad.py:2:0`.
static BANDIT_ISSUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^>> Issue: \[(?P<rule>[A-Z]+\d+):[\w-]+\] (?P<message>.*)$").expect("valid regex")
});
static BANDIT_SEVERITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]+Severity: (?P<level>\w+)[ \t]+Confidence:").expect("valid regex")
});
static BANDIT_LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]+Location: (?P<file>\S+):(?P<line>\d+):(?P<column>\d+)[ \t]*$")
        .expect("valid regex")
});
/// ruff's full format: `F401 [*] message` then ` --> bad.py:1:8`.
static RUFF_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?P<rule>[A-Z]{1,5}\d{1,5})(?: \[\*\])? |(?P<syntax>invalid-syntax|unformatted): )(?P<message>\S.*)$")
        .expect("valid regex")
});
static RUFF_ARROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]*--> (?P<file>\S+):(?P<line>\d+):(?P<column>\d+)$").expect("valid regex")
});
static ISORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ERROR: (?P<file>\S+) Imports are incorrectly sorted and/or formatted\.$")
        .expect("valid regex")
});
static BLACK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^would reformat (?P<file>\S+)$").expect("valid regex"));
/// `prettier --check`: `[warn] app.js`.
static PRETTIER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[warn\] (?P<file>\S+)$").expect("valid regex"));

/// The directories a check's paths are relative to.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    /// Where the check ran: relative paths start here.
    pub(crate) cwd: PathBuf,
    /// The worktree: a file "of the worktree" is inside it.
    pub(crate) worktree: PathBuf,
}

/// What the lines before this one started.
#[derive(Debug, Default)]
enum Block {
    #[default]
    None,
    /// yamllint: the file line was read.
    Yamllint(String),
    /// shellcheck: `In file line N:`.
    Shellcheck(String, u64),
    /// pydocstyle: `file:line in ...:`.
    Pydocstyle(String, u64),
    /// bandit: an issue waiting for its location.
    Bandit(Diagnostic),
    /// ruff full: a header waiting for its ` --> `.
    Ruff(Diagnostic),
}

/// The generic linter format.
#[derive(Debug, Default)]
pub(crate) struct Lint {
    base: Option<Base>,
    /// Whether a path without a source extension is a file of the worktree.
    known: HashMap<String, bool>,
    block: Block,
}

/// A severity word or letter of a linter; `None` when it is not one.
fn level(word: &str) -> Option<DiagSeverity> {
    let lower = word.trim().to_ascii_lowercase();
    Some(match lower.as_str() {
        "error" | "fatal" | "fatal error" | "e" | "f" | "high" => DiagSeverity::Error,
        "warning" | "warn" | "w" | "medium" => DiagSeverity::Warning,
        "note" => DiagSeverity::Note,
        "info" | "information" | "i" | "low" | "style" | "convention" | "c" | "refactor" | "r" => {
            DiagSeverity::Info
        }
        "help" | "hint" | "suggestion" => DiagSeverity::Help,
        _ => return None,
    })
}

/// Whether `file`'s name ends in a source-file extension.
fn source_extension(file: &str) -> bool {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !file.contains("://")
            && SOURCE.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// A position, `0` being none.
fn position(text: &str) -> Option<u64> {
    text.parse().ok().filter(|&n| n > 0)
}

/// A 0-based column made 1-based.
fn zero_based(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().and_then(|n| n.checked_add(1))
}

impl Lint {
    /// A parser that accepts only paths with a source-file extension, or
    /// also the worktree's files when `base` is known.
    pub(crate) fn new(base: Option<Base>) -> Lint {
        Lint {
            base,
            ..Lint::default()
        }
    }

    /// Whether `file` names a file: a source extension, or a file of the
    /// worktree.
    fn names_a_file(&mut self, file: &str) -> bool {
        if file.is_empty()
            || file.contains("://")
            || !file.chars().any(|c| c.is_alphabetic())
            || file.contains(char::is_whitespace)
        {
            return false;
        }
        if source_extension(file) {
            return true;
        }
        let Some(base) = &self.base else {
            return false;
        };
        if let Some(&known) = self.known.get(file) {
            return known;
        }
        let path = Path::new(file);
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            base.cwd.join(path)
        };
        let normal = crate::paths::lexical(&absolute);
        let found = normal.starts_with(&base.worktree) && normal.is_file();
        if self.known.len() < MAX_REMEMBERED {
            self.known.insert(file.to_string(), found);
        }
        found
    }

    /// Forgets the block: a bandit issue or a ruff header whose location
    /// never came is not reported (without one it could be any text).
    fn forget(&mut self) {
        self.block = Block::None;
    }

    /// A line continuing the current block; false when it does not.
    fn block_line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        match &mut self.block {
            Block::None => false,
            Block::Yamllint(file) => {
                let Some(caps) = YAMLLINT.captures(line) else {
                    return false;
                };
                out.push(Diagnostic {
                    file: Some(file.clone()),
                    line: position(&caps["line"]),
                    column: position(&caps["column"]),
                    severity: level(&caps["level"]).unwrap_or_default(),
                    rule: caps.name("rule").map(|m| m.as_str().to_string()),
                    message: caps["message"].trim().to_string(),
                    ..Default::default()
                });
                true
            }
            Block::Shellcheck(file, number) => {
                let Some(caps) = SHELLCHECK_MARK.captures(line) else {
                    // The quoted source line, `Did you mean:` and its fix
                    // belong to the block without being claimed.
                    return !line.trim().is_empty() && !SHELLCHECK_HEAD.is_match(line);
                };
                let indent = caps["indent"].chars().count() as u64;
                out.push(Diagnostic {
                    file: Some(file.clone()),
                    line: Some(*number),
                    column: Some(indent + 1),
                    severity: level(&caps["level"]).unwrap_or_default(),
                    rule: Some(caps["rule"].to_string()),
                    message: caps["message"].trim().to_string(),
                    ..Default::default()
                });
                true
            }
            Block::Pydocstyle(file, number) => {
                let Some(caps) = PYDOCSTYLE_BODY.captures(line) else {
                    return false;
                };
                out.push(Diagnostic {
                    file: Some(file.clone()),
                    line: Some(*number),
                    severity: DiagSeverity::Error,
                    rule: Some(caps["rule"].to_string()),
                    message: caps["message"].trim().to_string(),
                    ..Default::default()
                });
                self.block = Block::None;
                true
            }
            Block::Bandit(found) => {
                if let Some(caps) = BANDIT_SEVERITY.captures(line) {
                    found.severity = level(&caps["level"]).unwrap_or_default();
                    return true;
                }
                let Some(caps) = BANDIT_LOCATION.captures(line) else {
                    // CWE and More Info lines come between.
                    return line.starts_with([' ', '\t']) && !line.trim().is_empty();
                };
                let mut found = std::mem::take(found);
                found.file = Some(caps["file"].to_string());
                found.line = position(&caps["line"]);
                found.column = zero_based(&caps["column"]);
                out.push(found);
                self.block = Block::None;
                true
            }
            Block::Ruff(found) => {
                let Some(caps) = RUFF_ARROW.captures(line) else {
                    return false;
                };
                let mut found = std::mem::take(found);
                let file = caps["file"].to_string();
                self.block = Block::None;
                if !self.names_a_file(&file) {
                    return false;
                }
                found.file = Some(file);
                found.line = position(&caps["line"]);
                found.column = position(&caps["column"]);
                out.push(found);
                true
            }
        }
    }

    /// A line that starts a block, or a whole-file line; false when none.
    fn block_start(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(caps) = BANDIT_ISSUE.captures(line) {
            self.block = Block::Bandit(Diagnostic {
                severity: DiagSeverity::Error,
                rule: Some(caps["rule"].to_string()),
                message: caps["message"].trim().to_string(),
                ..Default::default()
            });
            return true;
        }
        if let Some(caps) = SHELLCHECK_HEAD.captures(line) {
            let file = caps["file"].to_string();
            if let Some(number) = position(&caps["line"])
                && self.names_a_file(&file)
            {
                self.block = Block::Shellcheck(file, number);
                return true;
            }
            return false;
        }
        if let Some(caps) = PYDOCSTYLE_HEAD.captures(line) {
            let file = caps["file"].to_string();
            if let Some(number) = position(&caps["line"])
                && self.names_a_file(&file)
            {
                self.block = Block::Pydocstyle(file, number);
                return true;
            }
            return false;
        }
        if let Some(caps) = RUFF_HEAD.captures(line) {
            // Claimed only once its location follows.
            let rule = caps
                .name("rule")
                .or_else(|| caps.name("syntax"))
                .map(|m| m.as_str().to_string());
            self.block = Block::Ruff(Diagnostic {
                severity: DiagSeverity::Error,
                rule,
                message: caps["message"].trim().to_string(),
                ..Default::default()
            });
            return false;
        }
        for (regex, rule, severity, message) in [
            (
                &*ISORT,
                "isort",
                DiagSeverity::Error,
                "imports are incorrectly sorted and/or formatted",
            ),
            (
                &*BLACK,
                "black",
                DiagSeverity::Error,
                "would be reformatted by black",
            ),
            (
                &*PRETTIER,
                "prettier",
                DiagSeverity::Warning,
                "code style issues: prettier would reformat it",
            ),
        ] {
            if let Some(caps) = regex.captures(line) {
                let file = caps["file"].to_string();
                if !self.names_a_file(&file) {
                    return false;
                }
                out.push(Diagnostic {
                    file: Some(file),
                    severity,
                    rule: Some(rule.to_string()),
                    message: message.to_string(),
                    ..Default::default()
                });
                return true;
            }
        }
        // yamllint: the file alone on a line (not claimed: it yields
        // nothing by itself). Only with a source extension: no line of
        // output is a reason to ask the file system.
        if !line.starts_with(char::is_whitespace)
            && !line.contains([':', ' '])
            && source_extension(line.trim_end())
        {
            self.block = Block::Yamllint(line.trim_end().to_string());
        }
        false
    }

    /// One `path:line[:col]: message` line.
    fn location_line(&mut self, line: &str) -> Option<Diagnostic> {
        let caps = LOCATION.captures(line)?;
        let indented = !caps["indent"].is_empty();
        if indented && caps.name("column").is_none() {
            return None;
        }
        let file = caps["file"].to_string();
        let file_ok = self.names_a_file(&file);
        if !file_ok {
            return None;
        }
        let number = caps["line"].parse::<u64>().ok()?;
        let column = caps.name("column").map(|m| m.as_str());
        let rest = caps["rest"].trim_end();
        let head = Head::read(rest);
        if column.is_none() && head.severity.is_none() && head.rule.is_none() {
            return None;
        }
        if head.message.is_empty() {
            return None;
        }
        Some(Diagnostic {
            file: Some(file),
            line: Some(number).filter(|&n| n > 0),
            column: column.and_then(if head.zero_based {
                zero_based
            } else {
                position
            }),
            severity: head.severity.unwrap_or_default(),
            rule: head.rule,
            message: head.message,
            ..Default::default()
        })
    }
}

/// What the text after a location says.
#[derive(Debug, Default, PartialEq)]
struct Head {
    severity: Option<DiagSeverity>,
    rule: Option<String>,
    message: String,
    /// The tool prints 0-based columns (pylint).
    zero_based: bool,
}

impl Head {
    fn read(rest: &str) -> Head {
        let mut head = Head::default();
        let mut message = rest;
        if let Some(caps) = PYLINT.captures(rest) {
            head.severity = level(&caps["level"]);
            head.rule = Some(format!("{}{}", &caps["level"], &caps["digits"]));
            head.zero_based = true;
            message = caps.name("message").map_or("", |m| m.as_str());
        } else if let Some(caps) = RUBOCOP.captures(rest) {
            head.severity = level(&caps["level"]);
            head.rule = Some(caps["rule"].to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        } else if let Some(caps) = TOOL_LEVEL.captures(rest)
            && let Some(severity) = level(&caps["level"])
        {
            head.severity = Some(severity);
            head.rule = Some(caps["rule"].to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        } else if let Some(caps) = LEVEL_WORD.captures(rest)
            && let Some(word) = caps.name("bracketed").or_else(|| caps.name("word"))
            // A bare letter is a level only in the shapes above.
            && word.len() > 1
            && let Some(severity) = level(word.as_str())
        {
            head.severity = Some(severity);
            head.rule = caps.name("code").map(|m| m.as_str().to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        } else if let Some(caps) = CODE.captures(rest) {
            head.rule = Some(caps["rule"].trim_end_matches(':').to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        } else if let Some(caps) = PY_WARNING.captures(rest) {
            head.severity = Some(DiagSeverity::Warning);
            head.rule = Some(caps["rule"].to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        }
        let mut message = message.trim();
        // standard: `message (rule) (warning)`.
        if head.severity.is_none()
            && let Some(caps) = TRAILING_RULE.captures(message)
            && let Some(severity) = level(&caps["rule"]).filter(|_| caps["rule"].len() > 1)
        {
            head.severity = Some(severity);
            message = caps.name("message").map_or("", |m| m.as_str());
        }
        if head.rule.is_none()
            && let Some(caps) = TRAILING_RULE.captures(message)
        {
            head.rule = Some(caps["rule"].to_string());
            message = caps.name("message").map_or("", |m| m.as_str());
        }
        head.message = message.trim().to_string();
        head
    }
}

impl LineParser for Lint {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if self.block_line(line, out) {
            return true;
        }
        self.forget();
        if self.block_start(line, out) {
            return true;
        }
        match self.location_line(line) {
            Some(found) => {
                out.push(found);
                true
            }
            None => false,
        }
    }

    fn finish(&mut self, _out: &mut Vec<Diagnostic>) {
        self.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{Auto, Parser, parser_for};
    use DiagSeverity::{Error, Help, Info, Warning};

    fn linters() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diagnostics/linters")
    }

    /// `auto` over a capture, run in `linters/<dir>` with `linters` as the
    /// worktree.
    fn auto_in(dir: &str, text: &str) -> Vec<Diagnostic> {
        let base = Base {
            cwd: linters().join(dir),
            worktree: linters(),
        };
        let mut auto = Auto::within(Some(base));
        let mut out = Vec::new();
        for line in text.lines() {
            auto.line(&crate::sanitize::strip_escapes(line), &mut out);
        }
        auto.finish(&mut out);
        out
    }

    /// File, line, column, rule, severity.
    type Owned = (
        String,
        Option<u64>,
        Option<u64>,
        Option<String>,
        DiagSeverity,
    );

    type Row = (
        &'static str,
        Option<u64>,
        Option<u64>,
        Option<&'static str>,
        DiagSeverity,
    );

    fn rows(found: &[Diagnostic]) -> Vec<Owned> {
        found
            .iter()
            .map(|d| {
                (
                    d.file.clone().unwrap_or_default(),
                    d.line,
                    d.column,
                    d.rule.clone(),
                    d.severity,
                )
            })
            .collect()
    }

    fn expect(rows_: &[Row]) -> Vec<Owned> {
        rows_
            .iter()
            .map(|(f, l, c, r, s)| (f.to_string(), *l, *c, r.map(str::to_string), *s))
            .collect()
    }

    fn read(dir: &str, name: &str) -> String {
        std::fs::read_to_string(linters().join(dir).join(name)).unwrap()
    }

    /// Every linter capture: the file, line, column, rule and severity of
    /// each diagnostic `auto` reports, in order.
    #[test]
    fn auto_locates_every_linter_capture() {
        let located = |file: &'static str, line, column, rule, severity| -> Row {
            (file, Some(line), Some(column), Some(rule), severity)
        };
        let lined = |file: &'static str, line, rule, severity| -> Row {
            (file, Some(line), None, Some(rule), severity)
        };
        let flake8_pycodestyle = |with_flake8: bool| -> Vec<Row> {
            let mut rows = Vec::new();
            if with_flake8 {
                rows.push(located("bad.py", 1, 1, "F401", Error));
                rows.push(located("bad.py", 1, 1, "F401", Error));
            }
            rows.push(located("bad.py", 1, 10, "E401", Error));
            if with_flake8 {
                rows.push(located("bad.py", 7, 5, "F841", Error));
            }
            rows.push(located("bad.py", 10, 5, "E722", Error));
            rows.push(located("bad.py", 13, 15, "E711", Error));
            if with_flake8 {
                rows.push(located("bad.py", 15, 5, "F841", Error));
            }
            rows.push(located("bad.py", 15, 5, "E741", Error));
            rows.push(located("bad.py", 16, 80, "E501", Error));
            rows.push(located("helper.py", 1, 12, "E201", Error));
            rows.push(located("helper.py", 1, 14, "E202", Error));
            rows
        };
        // pylint's columns are 0-based: each is one more here.
        let pylint = vec![
            located("bad.py", 16, 1, "C0301", Info),
            located("bad.py", 1, 1, "C0114", Info),
            located("bad.py", 6, 1, "W0622", Warning),
            located("bad.py", 1, 1, "C0410", Info),
            located("bad.py", 6, 1, "C0116", Info),
            located("bad.py", 10, 5, "W0702", Warning),
            located("bad.py", 13, 8, "C0121", Info),
            located("bad.py", 7, 5, "W0612", Warning),
            located("bad.py", 15, 5, "W0612", Warning),
            located("bad.py", 1, 1, "W0611", Warning),
            located("bad.py", 1, 1, "W0611", Warning),
            located("helper.py", 1, 1, "C0114", Info),
            located("helper.py", 3, 9, "W0123", Warning),
        ];
        let pydocstyle = vec![
            lined("bad.py", 1, "D100", Error),
            lined("bad.py", 6, "D103", Error),
            lined("helper.py", 1, "D100", Error),
            lined("helper.py", 2, "D300", Error),
            lined("helper.py", 2, "D400", Error),
            lined("helper.py", 2, "D403", Error),
        ];
        // bandit: HIGH error, MEDIUM warning, LOW info; the report's
        // columns are 0-based.
        let bandit = vec![
            located("./bad.py", 2, 1, "B404", Info),
            located("./bad.py", 7, 16, "B105", Info),
            located("./bad.py", 9, 18, "B602", Error),
            located("./bad.py", 10, 5, "B110", Info),
            located("./bad.py", 12, 5, "B101", Info),
            located("./helper.py", 3, 9, "B307", Warning),
        ];
        let abs_bad = "/work/proj/python/bad.py";
        let bandit_custom = vec![
            lined(abs_bad, 2, "B404", Info),
            lined(abs_bad, 7, "B105", Info),
            lined(abs_bad, 9, "B602", Error),
            lined(abs_bad, 10, "B110", Info),
            lined(abs_bad, 12, "B101", Info),
            lined("/work/proj/python/helper.py", 3, "B307", Warning),
        ];
        let ruff = vec![
            located("bad.py", 1, 1, "I001", Error),
            located("bad.py", 1, 8, "F401", Error),
            located("bad.py", 1, 12, "F401", Error),
            located("bad.py", 7, 5, "F841", Error),
            located("bad.py", 10, 5, "E722", Error),
            located("bad.py", 10, 5, "S110", Error),
            located("bad.py", 15, 5, "F841", Error),
        ];
        let yamllint = vec![
            located("config.yaml", 2, 11, "trailing-spaces", Error),
            located("config.yaml", 5, 5, "hyphens", Error),
            located("config.yaml", 6, 1, "key-duplicates", Error),
            located("config.yaml", 7, 9, "truthy", Warning),
        ];
        let app_js = "/work/proj/js/app.js";
        let standard = vec![
            located(app_js, 1, 1, "no-var", Warning),
            located(app_js, 1, 5, "no-unused-vars", Error),
            located(app_js, 3, 12, "eqeqeq", Error),
            located(app_js, 3, 29, "quotes", Error),
            located(app_js, 4, 25, "semi", Error),
        ];
        // `deploy` has no extension: it is a file of the worktree.
        let shellcheck = vec![
            located("deploy", 3, 1, "SC2164", Warning),
            located("deploy", 3, 4, "SC2086", Info),
            located("deploy", 4, 10, "SC2045", Error),
            located("deploy", 4, 15, "SC2035", Info),
            located("deploy", 5, 8, "SC2086", Info),
            located("deploy", 7, 3, "SC2154", Warning),
            located("deploy", 7, 3, "SC2086", Info),
            located("deploy", 7, 10, "SC3014", Warning),
            located("build.sh", 2, 7, "SC2006", Info),
            located("build.sh", 4, 1, "SC2162", Info),
            located("build.sh", 4, 6, "SC2034", Warning),
        ];
        let vet = vec![
            ("./main.go", Some(15), Some(2), None, Error),
            ("./main.go", Some(7), Some(2), None, Error),
            ("./main.go", Some(11), Some(2), None, Error),
        ];
        let staticcheck = vec![
            located("main.go", 7, 13, "SA5009", Error),
            located("main.go", 9, 14, "SA4000", Error),
            located("main.go", 14, 6, "U1000", Error),
            located("main.go", 15, 2, "SA4018", Error),
            located("main.go", 16, 2, "SA9003", Error),
        ];
        let rubocop = |file: &'static str| {
            vec![
                located(file, 1, 1, "Style/Documentation", Info),
                located(file, 1, 1, "Style/FrozenStringLiteralComment", Info),
                located(file, 2, 11, "Layout/SpaceInsideParens", Info),
                located(file, 2, 12, "Naming/MethodParameterName", Info),
                located(file, 2, 13, "Layout/SpaceInsideParens", Info),
                located(file, 3, 5, "Lint/UselessAssignment", Warning),
                located(file, 4, 5, "Style/IfUnlessModifier", Info),
                located(file, 4, 10, "Style/NilComparison", Info),
                located(file, 4, 29, "Style/StringLiterals", Info),
                located(file, 4, 33, "Layout/EmptyLineAfterGuardClause", Info),
                located(file, 5, 10, "Style/StringLiterals", Info),
            ]
        };
        let file_only = |file: &'static str, rule| -> Row { (file, None, None, Some(rule), Error) };
        let cases: Vec<(&str, &str, Vec<Row>)> = vec![
            ("python", "flake8.txt", flake8_pycodestyle(true)),
            ("python", "pycodestyle.txt", flake8_pycodestyle(false)),
            ("python", "pylint.txt", pylint),
            ("python", "pydocstyle.txt", pydocstyle),
            ("python", "bandit.txt", bandit),
            ("python", "bandit-custom.txt", bandit_custom),
            ("python", "isort.txt", vec![file_only(abs_bad, "isort")]),
            (
                "python",
                "black.txt",
                vec![
                    file_only("helper.py", "black"),
                    file_only("bad.py", "black"),
                ],
            ),
            ("python", "ruff-concise.txt", ruff.clone()),
            ("python", "ruff-full.txt", ruff),
            (
                "python",
                "ruff-format.txt",
                vec![
                    located("bad.py", 16, 12, "unformatted", Error),
                    located("helper.py", 1, 12, "unformatted", Error),
                ],
            ),
            (
                "js",
                "prettier.txt",
                vec![("app.js", None, None, Some("prettier"), Warning)],
            ),
            ("yaml", "yamllint.txt", yamllint.clone()),
            ("yaml", "yamllint-parsable.txt", yamllint),
            ("js", "standard.txt", standard),
            ("shell", "shellcheck.txt", shellcheck),
            ("go", "vet.txt", vet),
            ("go", "staticcheck.txt", staticcheck),
            ("ruby", "rubocop.txt", rubocop("app.rb")),
            (
                "ruby",
                "rubocop-emacs.txt",
                rubocop("/work/proj/ruby/app.rb"),
            ),
        ];
        let mut tools = 0;
        for (dir, name, expected) in cases {
            let found = auto_in(dir, &read(dir, name));
            assert_eq!(rows(&found), expect(&expected), "{dir}/{name}");
            tools += 1;
        }
        // Every capture of generate.sh is checked above.
        let mut captured = 0;
        for dir in std::fs::read_dir(linters()).unwrap() {
            let dir = dir.unwrap().path();
            if dir.is_dir() {
                captured += std::fs::read_dir(&dir)
                    .unwrap()
                    .filter(|f| {
                        f.as_ref()
                            .unwrap()
                            .path()
                            .extension()
                            .is_some_and(|e| e == "txt")
                    })
                    .count();
            }
        }
        assert_eq!(tools, captured);
    }

    #[test]
    fn messages_lose_their_codes_levels_and_rules() {
        let first = |dir: &str, name: &str| auto_in(dir, &read(dir, name)).remove(0).message;
        assert_eq!(first("python", "flake8.txt"), "'os' imported but unused");
        // pylint's symbol stays: it names the check in words.
        assert_eq!(
            first("python", "pylint.txt"),
            "Line too long (114/100) (line-too-long)"
        );
        assert_eq!(
            first("python", "pydocstyle.txt"),
            "Missing docstring in public module"
        );
        assert_eq!(
            first("python", "bandit.txt"),
            "Consider possible security implications associated with the subprocess module."
        );
        assert_eq!(
            first("python", "ruff-full.txt"),
            "Import block is un-sorted or un-formatted"
        );
        assert_eq!(first("yaml", "yamllint.txt"), "trailing spaces");
        assert_eq!(first("yaml", "yamllint-parsable.txt"), "trailing spaces");
        assert_eq!(
            first("js", "standard.txt"),
            "Unexpected var, use let or const instead."
        );
        assert_eq!(
            first("shell", "shellcheck.txt"),
            "Use 'cd ... || exit' or 'cd ... || return' in case cd fails."
        );
        assert_eq!(
            first("ruby", "rubocop.txt"),
            "Missing top-level documentation comment for class Foo."
        );
        assert_eq!(
            first("go", "staticcheck.txt"),
            "Printf format %d has arg #1 of wrong type string"
        );
    }

    fn lint_all(base: Option<Base>, text: &str) -> Vec<Diagnostic> {
        let mut parser = Lint::new(base);
        let mut out = Vec::new();
        for line in text.lines() {
            parser.line(line, &mut out);
        }
        parser.finish(&mut out);
        out
    }

    #[test]
    fn other_shapes_of_the_issue() {
        // Shapes users reported from tools that no captured fixture here prints.
        let one = |line: &str| {
            let found = lint_all(None, line);
            assert_eq!(found.len(), 1, "{line}: {found:?}");
            let d = &found[0];
            (
                d.file.clone().unwrap(),
                d.line,
                d.column,
                d.rule.clone(),
                d.severity,
                d.message.clone(),
            )
        };
        let s = |t: &str| t.to_string();
        assert_eq!(
            one("docs/a.md:258:4:error - Unexpected heading level"),
            (
                s("docs/a.md"),
                Some(258),
                Some(4),
                None,
                Error,
                s("Unexpected heading level")
            )
        );
        assert_eq!(
            one("src/x.go:3:9: Error return value is not checked (errcheck)"),
            (
                s("src/x.go"),
                Some(3),
                Some(9),
                Some(s("errcheck")),
                Error,
                s("Error return value is not checked")
            )
        );
        assert_eq!(
            one("README.md:3:1: Suggestion: Consider using 'use' instead."),
            (
                s("README.md"),
                Some(3),
                Some(1),
                None,
                Help,
                s("Consider using 'use' instead.")
            )
        );
        assert_eq!(
            one("site.yml:3: yaml[truthy]: Truthy value should be one of [false, true]"),
            (
                s("site.yml"),
                Some(3),
                None,
                Some(s("yaml[truthy]")),
                Error,
                s("Truthy value should be one of [false, true]")
            )
        );
        assert_eq!(
            one("lib/m.py:4: DeprecationWarning: old"),
            (
                s("lib/m.py"),
                Some(4),
                None,
                Some(s("DeprecationWarning")),
                Warning,
                s("old")
            )
        );
        // A column 0 is no column (columns are 1-based).
        assert_eq!(
            one("a.sql:7:0: warning: whole line"),
            (s("a.sql"), Some(7), None, None, Warning, s("whole line"))
        );
    }

    #[test]
    fn test_runner_output_and_excerpts_are_not_located() {
        for line in [
            // go test logs (indented, no column), pytest tracebacks (no
            // level, no rule), prose, timestamps, URLs, files that are no
            // source and not in the worktree.
            "    half_test.go:7: Half(4) = 3, want 2",
            "tests/test_a.py:12: AssertionError",
            "tests/test_a.py:12: in test_add",
            "notes.txt:3: call Bob",
            "12:30:45: started",
            "http://host:8080: ok",
            "Error at 12:30:45: something",
            "2024-01-01T12:30:45: x",
            "build/output:3:4: not a worktree file",
            "E501 line too long",
            "F401 [*] `os` imported but unused",
            "   Location: ./bad.py:2:0",
            "config.yaml",
            "  2:11      error    trailing spaces  (trailing-spaces)",
            "In deploy line 3:",
            "                    ^-- SC2086 (info): Double quote",
            "would reformat notes",
            "    x = \"a.py:1: b\"",
        ] {
            let found = lint_all(None, line);
            assert_eq!(found, vec![], "{line:?}");
        }
        // Each line alone: a ruff header, a bandit issue, yamllint's file
        // line need what follows them.
        assert_eq!(lint_all(None, "F401 [*] x\n\n --> a.py:1:1\n"), vec![]);
    }

    #[test]
    fn a_path_without_an_extension_must_be_a_file_of_the_worktree() {
        let line = "deploy:3:1: Use 'cd ... || exit'. (SC2164)";
        let inside = Base {
            cwd: linters().join("shell"),
            worktree: linters(),
        };
        assert_eq!(lint_all(Some(inside.clone()), line).len(), 1);
        // No such file in the check's directory.
        let elsewhere = Base {
            cwd: linters().join("python"),
            worktree: linters(),
        };
        assert_eq!(lint_all(Some(elsewhere), line), vec![]);
        // There, but outside the worktree.
        let outside = Base {
            cwd: linters().join("python"),
            worktree: linters().join("python"),
        };
        assert_eq!(
            lint_all(Some(outside), "../shell/deploy:3:1: x (SC2164)"),
            vec![]
        );
        // A folder is no file.
        assert_eq!(lint_all(Some(inside), "../shell:3:1: x (SC2164)"), vec![]);
        // Without the check's directories, only source extensions count.
        assert_eq!(lint_all(None, line), vec![]);
    }

    /// Reads `auto-before.tsv`: fixture -> what auto found before.
    fn before() -> Vec<(String, Vec<String>)> {
        let text = read(".", "auto-before.tsv");
        let mut fixtures: Vec<(String, Vec<String>)> = Vec::new();
        for line in text.lines() {
            if line.starts_with("##") {
                continue;
            }
            if let Some(head) = line.strip_prefix("# ") {
                let (name, count) = head.rsplit_once(' ').unwrap();
                fixtures.push((name.to_string(), Vec::with_capacity(count.parse().unwrap())));
            } else {
                fixtures.last_mut().unwrap().1.push(line.to_string());
            }
        }
        fixtures
    }

    fn row(d: &Diagnostic) -> String {
        let number = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
        format!(
            "{}\t{}\t{}\t{:?}\t{}\t{}",
            d.file.as_deref().unwrap_or("-"),
            number(d.line),
            number(d.column),
            d.severity,
            d.rule.as_deref().unwrap_or("-"),
            d.message.replace('\n', "\\n")
        )
    }

    fn parse_with(kind: Parser, text: &str) -> Vec<Diagnostic> {
        let mut parser = parser_for(kind).unwrap();
        let mut out = Vec::new();
        for line in text.lines() {
            parser.line(&crate::sanitize::strip_escapes(line), &mut out);
        }
        parser.finish(&mut out);
        out
    }

    /// On the fixtures of every parser, `auto` finds what it found before
    /// the linter lines, in the same order, and beyond that only what the
    /// fixture's own parser locates (same file, line, column, rule and
    /// severity): ruff's concise lines and go vet's.
    #[test]
    fn no_extra_diagnostic_on_the_fixtures_of_every_parser() {
        let root = linters().join("..");
        let own = |fixture: &str| crate::parse::fixture_parser(fixture.split('/').next().unwrap());
        let fixtures = before();
        assert!(fixtures.len() > 40, "{} fixtures", fixtures.len());
        let mut with_extras = Vec::new();
        for (fixture, was) in &fixtures {
            let text = std::fs::read_to_string(root.join(fixture)).unwrap();
            // The worktree is the fixture's folder: every sample file in it
            // is a file of the worktree.
            let dir = root.join(fixture).parent().unwrap().to_path_buf();
            let base = Base {
                cwd: dir.clone(),
                worktree: dir,
            };
            let mut auto = Auto::within(Some(base));
            let mut now = Vec::new();
            for line in text.lines() {
                auto.line(&crate::sanitize::strip_escapes(line), &mut now);
            }
            auto.finish(&mut now);
            let theirs: Vec<_> = rows(&parse_with(own(fixture), &text));
            let mut kept = was.iter().peekable();
            let mut extras = 0;
            for d in &now {
                if kept.peek().is_some_and(|w| **w == row(d)) {
                    kept.next();
                    continue;
                }
                assert!(
                    theirs.contains(&rows(std::slice::from_ref(d))[0]),
                    "{fixture}: auto now also finds {}",
                    row(d)
                );
                extras += 1;
            }
            assert_eq!(kept.next(), None, "{fixture}: auto lost a diagnostic");
            if extras > 0 {
                with_extras.push(format!("{fixture} {extras}"));
            }
        }
        assert_eq!(
            with_extras,
            ["go/build.txt 3", "go/vet.txt 2", "ruff/ruff.txt 8"]
        );
    }
}
