//! Diagnostics parsed out of a check's output while it streams.
//!
//! A `Collector` sits beside each stream's excerpt: it splits bytes into
//! lines (each cut at `MAX_LINE` bytes, so memory stays bounded), strips ANSI
//! colour, and hands each line to the check's `LineParser` (chosen by
//! `parser`), then to its custom matchers and its score regex. A diagnostic
//! identical to one already kept (same file, line, column, severity, rule and
//! message; see `Seen`) is the same problem printed again and is skipped. At
//! most `MAX_PER_CHECK` distinct diagnostics are kept per stream; the rest are
//! counted.
//! Parsers only read text: they never decide a check's status (a tool's own
//! "All checks passed!" means nothing to the verdict).

/// `static X: LazyLock<Regex> = regex!(r"...");`: compiled once, on first
/// use. The patterns are this crate's literals, so the `expect` can only fail
/// on a bug here, never on a check's output.
macro_rules! regex {
    ($pattern:expr) => {
        std::sync::LazyLock::new(|| regex::Regex::new($pattern).expect("valid regex"))
    };
}

pub(crate) mod artifact;
pub(crate) mod cargo_json;
pub(crate) mod cmake;
pub(crate) mod diff;
pub(crate) mod eslint;
pub(crate) mod gcc;
pub(crate) mod go;
pub(crate) mod jest;
pub(crate) mod lint;
pub(crate) mod mypy;
pub(crate) mod panic;
pub(crate) mod phase_result;
pub(crate) mod prettier;
pub(crate) mod pytest;
pub(crate) mod rustc;
pub(crate) mod rustfmt;
pub(crate) mod summary;
pub(crate) mod tap;
pub(crate) mod tsc;
pub(crate) mod unbuilt;
pub(crate) mod vitest;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use crate::config::{CheckConfig, Parser};
use run_check_documents::evidence::DiagSeverity;

/// Diagnostics kept per check (docs/evidence.md).
pub(crate) const MAX_PER_CHECK: usize = 1000;
/// Longest line handed to a parser; the rest of a longer line is dropped.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// What a parser reports: the check name stays empty and the file is as the
/// tool printed it until the evidence is assembled.
pub(crate) use run_check_documents::evidence::Diagnostic;

/// A streaming parser of one output format.
pub(crate) trait LineParser: Send {
    /// One line, without its terminator, ANSI colour removed. Returns
    /// whether the line belonged to this format (used by `auto` to stop at
    /// the first parser that recognises a line).
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool;

    /// The end of the stream: emit anything still pending.
    fn finish(&mut self, _out: &mut Vec<Diagnostic>) {}

    /// Under `auto`, an earlier parser claimed a line this one never saw:
    /// whatever block it was reading has ended (emit it, forget its
    /// context), as a foreign line would have ended it.
    fn interrupted(&mut self, out: &mut Vec<Diagnostic>) {
        self.finish(out);
    }

    /// Key/value data for the check's `data` (only `phase-result`).
    fn data(&mut self) -> Option<Map<String, Value>> {
        None
    }
}

/// The parser of a `parser` setting; `None` for `parser = "none"`.
pub(crate) fn parser_for(kind: Parser) -> Option<Box<dyn LineParser>> {
    Some(match kind {
        Parser::None => return None,
        Parser::Auto => Box::new(Auto::default()),
        Parser::Gcc => Box::new(gcc::Gcc::new(false)),
        Parser::Rustc => Box::new(rustc::Rustc::default()),
        Parser::CargoJson => Box::new(cargo_json::CargoJson::default()),
        Parser::Tsc => Box::new(tsc::Tsc::default()),
        Parser::Pytest => Box::new(pytest::Pytest::default()),
        Parser::Mypy => Box::new(mypy::Mypy::default()),
        Parser::Eslint => Box::new(eslint::Eslint::default()),
        Parser::Go => Box::new(go::Go::default()),
        Parser::Rustfmt => Box::new(rustfmt::Rustfmt::default()),
        Parser::Diff => Box::new(diff::Diff::default()),
        Parser::Vitest => Box::new(vitest::Vitest::default()),
        Parser::Jest => Box::new(jest::Jest::default()),
        Parser::Tap => Box::new(tap::Tap::default()),
        Parser::Cmake => Box::new(cmake::Cmake::default()),
        Parser::Prettier => Box::new(prettier::Prettier),
        Parser::PhaseResult => Box::new(phase_result::PhaseResult::default()),
    })
}

/// `parser = "auto"`: every format that can be recognised without guessing,
/// tried in order; the first that claims a line has it, and the parsers
/// after it are told they were `interrupted` (a block one of them was
/// reading cannot go on across a line it did not see). Last come the
/// generic linter lines (`lint`: go vet's `file:line:col: message`, ruff,
/// flake8, pylint, ...), accepted only on a path that names a file (a
/// source-file extension, or a file of the worktree when `base` is known).
pub(crate) struct Auto {
    parsers: Vec<Box<dyn LineParser>>,
}

impl Auto {
    /// All the recognisable formats, the check's files known from `base`.
    pub(crate) fn within(base: Option<lint::Base>) -> Auto {
        Auto {
            parsers: vec![
                Box::new(cargo_json::CargoJson::default()),
                Box::new(rustc::Rustc::default()),
                Box::new(tsc::Tsc::default()),
                Box::new(mypy::Mypy::default()),
                Box::new(cmake::Cmake::default()),
                Box::new(gcc::Gcc::new(true)),
                Box::new(pytest::Pytest::default()),
                Box::new(eslint::Eslint::default()),
                Box::new(rustfmt::Rustfmt::default()),
                Box::new(vitest::Vitest::default()),
                Box::new(jest::Jest::default()),
                Box::new(tap::Tap::default()),
                Box::new(lint::Lint::new(base)),
            ],
        }
    }
}

/// Without a `base`, linter lines are accepted only on paths with a
/// source-file extension.
impl Default for Auto {
    fn default() -> Self {
        Auto::within(None)
    }
}

impl LineParser for Auto {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        for at in 0..self.parsers.len() {
            let start = out.len();
            if self.parsers[at].line(line, out) {
                // What the later parsers had open began before this line:
                // it goes before what the claimer found.
                let mut ended = Vec::new();
                for later in &mut self.parsers[at + 1..] {
                    later.interrupted(&mut ended);
                }
                if !ended.is_empty() {
                    out.splice(start..start, ended);
                }
                return true;
            }
        }
        false
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        for parser in &mut self.parsers {
            parser.finish(out);
        }
    }
}

/// A custom `[[check.matcher]]`, ready to run.
#[derive(Debug, Clone)]
struct CustomMatcher {
    regex: Regex,
    severity: DiagSeverity,
}

impl CustomMatcher {
    fn apply(&self, line: &str) -> Option<Diagnostic> {
        let caps = self.regex.captures(line)?;
        let text = |name: &str| caps.name(name).map(|m| m.as_str().trim().to_string());
        // Lines and columns are 1-based: a 0 is no position.
        let number = |name: &str| caps.name(name).and_then(|m| position(m.as_str().trim()));
        Some(Diagnostic {
            file: text("file").filter(|f| !f.is_empty()),
            line: number("line"),
            column: number("column"),
            severity: text("severity")
                .and_then(|s| DiagSeverity::from_word(&s))
                .unwrap_or(self.severity),
            rule: text("rule").filter(|r| !r.is_empty()),
            message: text("message").unwrap_or_default(),
            ..Default::default()
        })
    }
}

/// What a stream yielded.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// Kept diagnostics, distinct, in the order of their first occurrence.
    pub(crate) found: Vec<Diagnostic>,
    /// Diagnostics beyond the cap (repeats of a kept one are not counted).
    pub(crate) dropped: u64,
    /// The last score the score regex matched.
    pub(crate) score: Option<f64>,
    /// PHASE_RESULT data.
    pub(crate) data: Option<Map<String, Value>>,
}

/// Line splitting and parsing of one stream.
pub(crate) struct Collector {
    /// The parser asked for, until the first line comes: a check that
    /// prints nothing costs no parser (`auto` is eleven of them).
    unbuilt: Option<Parser>,
    parser: Option<Box<dyn LineParser>>,
    /// The check's directories, for `auto`'s linter lines.
    base: Option<lint::Base>,
    matchers: Vec<CustomMatcher>,
    score: Option<Regex>,
    partial: Vec<u8>,
    /// The current line passed MAX_LINE: ignore bytes up to its end.
    overflow: bool,
    batch: Vec<Diagnostic>,
    /// The kept diagnostics, by identity.
    seen: Seen,
    parsed: Parsed,
}

/// The identities of the kept diagnostics: one entry per kept diagnostic, so
/// at most `MAX_PER_CHECK` of them. Identical means same file (as printed),
/// line, column, severity, rule and message; the suggestion is not part of
/// it (the same problem with another proposed fix is still one problem, and
/// the first occurrence keeps its suggestion). gcc prints a header's warning
/// once per translation unit that includes it; that is one problem.
#[derive(Debug, Default)]
struct Seen {
    /// Hash of the identity to the index of the kept diagnostic it came
    /// from; a hash collision is told apart by comparing the fields.
    kept: HashMap<u64, usize>,
}

impl Seen {
    fn identity(d: &Diagnostic) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        d.file.hash(&mut hasher);
        d.line.hash(&mut hasher);
        d.column.hash(&mut hasher);
        std::mem::discriminant(&d.severity).hash(&mut hasher);
        d.rule.hash(&mut hasher);
        d.message.hash(&mut hasher);
        hasher.finish()
    }

    fn same(a: &Diagnostic, b: &Diagnostic) -> bool {
        a.file == b.file
            && a.line == b.line
            && a.column == b.column
            && a.severity == b.severity
            && a.rule == b.rule
            && a.message == b.message
    }

    /// Whether `d` repeats one of `kept`.
    fn repeats(&self, d: &Diagnostic, kept: &[Diagnostic]) -> bool {
        self.kept
            .get(&Self::identity(d))
            .and_then(|&at| kept.get(at))
            .is_some_and(|k| Self::same(k, d))
    }

    /// Records `kept[at]`. A colliding hash keeps its first entry: the
    /// later diagnostic is kept but its own repeats are not recognised.
    fn keep(&mut self, kept: &[Diagnostic], at: usize) {
        if let Some(d) = kept.get(at) {
            self.kept.entry(Self::identity(d)).or_insert(at);
        }
    }
}

impl std::fmt::Debug for Collector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collector")
            .field("parsed", &self.parsed)
            .finish_non_exhaustive()
    }
}

impl Collector {
    /// The collector of a check; `None` when the check asks for nothing
    /// (`parser = "none"`, no matcher, no score), so its output is not split.
    pub(crate) fn new(check: &CheckConfig) -> Option<Collector> {
        if check.parser == Parser::None && check.matchers.is_empty() && check.score.is_none() {
            return None;
        }
        Some(Collector {
            unbuilt: Some(check.parser),
            parser: None,
            base: None,
            matchers: check
                .matchers
                .iter()
                .map(|m| CustomMatcher {
                    regex: m.regex.clone(),
                    severity: m.severity,
                })
                .collect(),
            score: check.score.clone(),
            partial: Vec::new(),
            overflow: false,
            batch: Vec::new(),
            seen: Seen::default(),
            parsed: Parsed::default(),
        })
    }

    /// Tells `auto` where the check runs: a linter line's path without a
    /// source-file extension counts when it names a file of `worktree`
    /// (relative paths taken from `cwd`).
    pub(crate) fn within(mut self, cwd: &Path, worktree: &Path) -> Collector {
        self.base = Some(lint::Base {
            cwd: cwd.to_path_buf(),
            worktree: worktree.to_path_buf(),
        });
        self
    }

    /// Feeds a chunk of output.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        while let Some(end) = memchr::memchr(b'\n', bytes) {
            self.extend_partial(&bytes[..end]);
            let line = std::mem::take(&mut self.partial);
            self.feed(&line);
            self.partial = line;
            self.partial.clear();
            self.overflow = false;
            bytes = &bytes[end + 1..];
        }
        self.extend_partial(bytes);
    }

    fn extend_partial(&mut self, bytes: &[u8]) {
        if self.overflow {
            return;
        }
        let room = MAX_LINE - self.partial.len();
        if bytes.len() > room {
            self.partial.extend_from_slice(&bytes[..room]);
            self.overflow = true;
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    fn feed(&mut self, raw: &[u8]) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = String::from_utf8_lossy(raw);
        let text = crate::sanitize::strip_escapes(&text);
        if let Some(kind) = self.unbuilt.take() {
            self.parser = match kind {
                Parser::Auto => Some(Box::new(Auto::within(self.base.take()))),
                other => parser_for(other),
            };
        }
        if let Some(parser) = &mut self.parser {
            parser.line(&text, &mut self.batch);
        }
        self.batch
            .extend(self.matchers.iter().filter_map(|m| m.apply(&text)));
        if let Some(score) = &self.score
            && let Some(value) = score
                .captures(&text)
                .and_then(|c| c.get(1))
                .and_then(|m| m.as_str().trim().parse::<f64>().ok())
                // A score is 0..100 (docs/checks-toml.md): `inf`, `NaN`, `1e999`
                // or `150` is no score, and means and sums of scores stay
                // finite.
                .filter(|v| (0.0..=100.0).contains(v))
        {
            self.parsed.score = Some(value);
        }
        self.keep_batch();
    }

    fn keep_batch(&mut self) {
        for mut found in self.batch.drain(..) {
            // Lines and columns are 1-based: a 0 from any parser is no
            // position (docs/diagnostics.md).
            found.line = found.line.filter(|&n| n > 0);
            found.column = found.column.filter(|&n| n > 0);
            if self.seen.repeats(&found, &self.parsed.found) {
                continue;
            }
            if self.parsed.found.len() < MAX_PER_CHECK {
                self.parsed.found.push(found);
                self.seen
                    .keep(&self.parsed.found, self.parsed.found.len() - 1);
            } else {
                self.parsed.dropped += 1;
            }
        }
    }

    /// The end of the stream.
    pub(crate) fn finish(mut self) -> Parsed {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.feed(&line);
        }
        if let Some(parser) = &mut self.parser {
            parser.finish(&mut self.batch);
            self.parsed.data = parser.data();
        }
        self.keep_batch();
        self.parsed
    }
}

/// A line or column as printed; `0` (or no number) is no position.
pub(crate) fn position(text: &str) -> Option<u64> {
    text.parse().ok().filter(|&n| n > 0)
}

/// `text` cut to at most `max` bytes at a character boundary, with `…`
/// after a cut.
/// Changed lines of a formatter's hunk shown in its diagnostic's message.
pub(crate) const MAX_SHOWN: usize = 6;
/// Longest changed line shown, in bytes.
const MAX_SHOWN_LINE: usize = 200;

/// A changed (`-`/`+`) line of the hunk `pending` locates (rustfmt's and
/// the `diff` parser's): the first change moves the hunk's line past the
/// `context` lines read before it, and the first [`MAX_SHOWN`] changes,
/// each clipped, go under the message (`shown` counts them).
pub(crate) fn hunk_change(
    pending: &mut Diagnostic,
    context: &mut Option<u64>,
    shown: &mut usize,
    line: &str,
) {
    if let Some(context) = context.take() {
        pending.line = pending.line.map(|start| start + context);
    }
    if *shown < MAX_SHOWN {
        pending.message.push('\n');
        pending
            .message
            .push_str(&clip(line.trim_end(), MAX_SHOWN_LINE));
        *shown += 1;
    }
}

pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A diagnostic's file, relative to the worktree when it points inside it.
/// Relative paths are taken relative to the check's working directory.
pub(crate) fn relativize(file: &str, cwd: &Path, worktree: &Path) -> String {
    let path = Path::new(file);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let normal = crate::paths::lexical(&absolute);
    match normal.strip_prefix(worktree) {
        Ok(rel) if !rel.as_os_str().is_empty() => crate::paths::to_slashes(rel),
        _ if path.is_absolute() => file.to_string(),
        // Relative but outside the worktree (`../x`): keep what the tool said.
        _ => file.to_string(),
    }
}

/// The parser of the fixtures in `tests/fixtures/diagnostics/DIR/`.
#[cfg(test)]
pub(crate) fn fixture_parser(dir: &str) -> Parser {
    match dir {
        "cargo-json" => Parser::CargoJson,
        "clang" | "eslint-unix" | "gcc" | "ruff" | "shellcheck" => Parser::Gcc,
        "eslint" => Parser::Eslint,
        "go" => Parser::Go,
        "mypy" => Parser::Mypy,
        "phase-result" => Parser::PhaseResult,
        "pytest" => Parser::Pytest,
        "rustc" => Parser::Rustc,
        "rustfmt" => Parser::Rustfmt,
        "black" => Parser::Diff,
        "vitest" => Parser::Vitest,
        "jest" => Parser::Jest,
        "tap" => Parser::Tap,
        "cmake" => Parser::Cmake,
        "prettier" => Parser::Prettier,
        "tsc" => Parser::Tsc,
        other => panic!("no parser for the fixtures in {other}"),
    }
}

#[cfg(test)]
mod tests;
