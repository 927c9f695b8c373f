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

use super::{Diagnostic, LineParser, position};
use run_check_documents::evidence::DiagSeverity;

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
static LOCATION: LazyLock<Regex> = regex!(
    r"^(?P<indent>[ \t]*)(?P<file>(?:[A-Za-z]:[\\/])?[^\s:]+):(?P<line>\d+)(?::(?P<column>\d+))?:[ \t]*(?P<rest>\S.*)$"
);
/// pylint: `W0622: message (symbol)`.
static PYLINT: LazyLock<Regex> = regex!(r"^(?P<level>[CRWEFI])(?P<digits>\d{4}): (?P<message>.*)$");
/// rubocop: `C: [Correctable] Style/Documentation: message`.
static RUBOCOP: LazyLock<Regex> = regex!(
    r"^(?P<level>[CRWEFI]): (?:\[(?:Correctable|Corrected|Todo)\] )?(?P<rule>[A-Z]\w*(?:/\w+)+): (?P<message>.*)$"
);
/// bandit's custom format: `B404[bandit]: LOW: message`.
static TOOL_LEVEL: LazyLock<Regex> =
    regex!(r"^(?P<rule>[A-Za-z]+\d+)\[[\w-]+\]: (?P<level>[A-Za-z]+): (?P<message>.*)$");
/// `error: `, `warning[code]: `, `error - `, `[warning] `, `Suggestion: `.
static LEVEL_WORD: LazyLock<Regex> = regex!(
    r"^(?:\[(?P<bracketed>[A-Za-z]+)\]:?[ \t]+|(?P<word>[A-Za-z]+(?: error)?)(?:\[(?P<code>[\w:./-]+)\])?(?::[ \t]*|[ \t]+-[ \t]+))(?P<message>.*)$"
);
/// `F401 [*] message`, `E501 message`, `D100: message`, `invalid-syntax:
/// message`, ansible-lint's `yaml[truthy]: message`.
static CODE: LazyLock<Regex> = regex!(
    r"^(?P<rule>[A-Z]{1,5}\d{1,5}:?|invalid-syntax:|[a-z][\w-]*\[[\w-]+\]:)[ \t]+(?:\[\*\][ \t]+)?(?P<message>.*)$"
);
/// Python's warnings: `DeprecationWarning: message`.
static PY_WARNING: LazyLock<Regex> = regex!(r"^(?P<rule>[A-Z]\w*Warning): (?P<message>.*)$");
/// A trailing `(rule)`.
static TRAILING_RULE: LazyLock<Regex> =
    regex!(r"^(?P<message>.*\S)[ \t]+\((?P<rule>[A-Za-z][\w./-]*)\)$");
/// yamllint's default format: `  2:11      error    message  (rule)` under
/// the file's line.
static YAMLLINT: LazyLock<Regex> = regex!(
    r"^[ \t]+(?P<line>\d+):(?P<column>\d+)[ \t]+(?P<level>error|warning)[ \t]+(?P<message>.*?)(?:[ \t]+\((?P<rule>[\w-]+)\))?$"
);
/// shellcheck's default format: `In deploy line 3:`.
static SHELLCHECK_HEAD: LazyLock<Regex> = regex!(r"^In (?P<file>\S.*) line (?P<line>\d+):$");
/// ...then under the source line `   ^--^ SC2086 (info): message`.
static SHELLCHECK_MARK: LazyLock<Regex> =
    regex!(r"^(?P<indent>[ \t]*)\^-*\^?[ \t]+(?P<rule>SC\d+) \((?P<level>\w+)\): (?P<message>.*)$");
/// pydocstyle: `bad.py:6 in public function `list`:` then the indented
/// `D103: message`.
static PYDOCSTYLE_HEAD: LazyLock<Regex> =
    regex!(r"^(?P<file>\S+):(?P<line>\d+) (?:at module level|in [\w ]+ `[^`]*`):$");
static PYDOCSTYLE_BODY: LazyLock<Regex> = regex!(r"^[ \t]+(?P<rule>D\d{3}): (?P<message>.*)$");
/// bandit's default report: `>> Issue: [B404:blacklist] message`, ...,
/// `   Severity: Low   Confidence: High`, ..., `   Location: ./bad.py:2:0`.
static BANDIT_ISSUE: LazyLock<Regex> =
    regex!(r"^>> Issue: \[(?P<rule>[A-Z]+\d+):[\w-]+\] (?P<message>.*)$");
static BANDIT_SEVERITY: LazyLock<Regex> =
    regex!(r"^[ \t]+Severity: (?P<level>\w+)[ \t]+Confidence:");
static BANDIT_LOCATION: LazyLock<Regex> =
    regex!(r"^[ \t]+Location: (?P<file>\S+):(?P<line>\d+):(?P<column>\d+)[ \t]*$");
/// ruff's full format: `F401 [*] message` then ` --> bad.py:1:8`.
static RUFF_HEAD: LazyLock<Regex> = regex!(
    r"^(?:(?P<rule>[A-Z]{1,5}\d{1,5})(?: \[\*\])? |(?P<syntax>invalid-syntax|unformatted): )(?P<message>\S.*)$"
);
static RUFF_ARROW: LazyLock<Regex> =
    regex!(r"^[ \t]*--> (?P<file>\S+):(?P<line>\d+):(?P<column>\d+)$");
static ISORT: LazyLock<Regex> =
    regex!(r"^ERROR: (?P<file>\S+) Imports are incorrectly sorted and/or formatted\.$");
static BLACK: LazyLock<Regex> = regex!(r"^would reformat (?P<file>\S+)$");
/// `prettier --check`: `[warn] app.js`.
static PRETTIER: LazyLock<Regex> = regex!(r"^\[warn\] (?P<file>\S+)$");

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
        for (head, block) in [
            (
                &*SHELLCHECK_HEAD,
                Block::Shellcheck as fn(String, u64) -> Block,
            ),
            (&*PYDOCSTYLE_HEAD, Block::Pydocstyle),
        ] {
            if let Some(caps) = head.captures(line) {
                let file = caps["file"].to_string();
                if let Some(number) = position(&caps["line"])
                    && self.names_a_file(&file)
                {
                    self.block = block(file, number);
                    return true;
                }
                return false;
            }
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
mod tests;
