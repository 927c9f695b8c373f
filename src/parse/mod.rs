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

pub(crate) mod cargo_json;
pub(crate) mod cmake;
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
pub(crate) mod tap;
pub(crate) mod tsc;
pub(crate) mod vitest;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use crate::config::{CheckConfig, DiagSeverity, Parser};

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
        Parser::Auto => Box::new(Auto::new()),
        Parser::Gcc => Box::new(gcc::Gcc::new(false)),
        Parser::Rustc => Box::new(rustc::Rustc::new()),
        Parser::CargoJson => Box::new(cargo_json::CargoJson::new()),
        Parser::Tsc => Box::new(tsc::Tsc::new()),
        Parser::Pytest => Box::new(pytest::Pytest::new()),
        Parser::Mypy => Box::new(mypy::Mypy::new()),
        Parser::Eslint => Box::new(eslint::Eslint::new()),
        Parser::Go => Box::new(go::Go::new()),
        Parser::Rustfmt => Box::new(rustfmt::Rustfmt::new()),
        Parser::Vitest => Box::new(vitest::Vitest::new()),
        Parser::Jest => Box::new(jest::Jest::new()),
        Parser::Tap => Box::new(tap::Tap::new()),
        Parser::Cmake => Box::new(cmake::Cmake::new()),
        Parser::Prettier => Box::new(prettier::Prettier::new()),
        Parser::PhaseResult => Box::new(phase_result::PhaseResult::new()),
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
    /// All the recognisable formats; without a `base`, linter lines are
    /// accepted only on paths with a source-file extension.
    pub(crate) fn new() -> Auto {
        Auto::within(None)
    }

    /// All the recognisable formats, the check's files known from `base`.
    pub(crate) fn within(base: Option<lint::Base>) -> Auto {
        Auto {
            parsers: vec![
                Box::new(cargo_json::CargoJson::new()),
                Box::new(rustc::Rustc::new()),
                Box::new(tsc::Tsc::new()),
                Box::new(mypy::Mypy::new()),
                Box::new(cmake::Cmake::new()),
                Box::new(gcc::Gcc::new(true)),
                Box::new(pytest::Pytest::new()),
                Box::new(eslint::Eslint::new()),
                Box::new(rustfmt::Rustfmt::new()),
                Box::new(vitest::Vitest::new()),
                Box::new(jest::Jest::new()),
                Box::new(tap::Tap::new()),
                Box::new(lint::Lint::new(base)),
            ],
        }
    }
}

impl Default for Auto {
    fn default() -> Self {
        Auto::new()
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
        let number = |name: &str| {
            text(name)
                .and_then(|n| n.parse().ok())
                .filter(|n: &u64| *n > 0)
        };
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
        for matcher in &self.matchers {
            if let Some(found) = matcher.apply(&text) {
                self.batch.push(found);
            }
        }
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

/// `text` cut to at most `max` bytes at a character boundary, with `…`
/// after a cut.
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
mod tests {
    use super::*;

    #[test]
    fn a_parser_that_saw_no_line_finds_nothing() {
        // Collectors build their parser at the first line; skipping a silent
        // stream's parser is only right if it would have said nothing.
        let kinds = [
            Parser::Auto,
            Parser::Gcc,
            Parser::Rustc,
            Parser::CargoJson,
            Parser::Tsc,
            Parser::Pytest,
            Parser::Mypy,
            Parser::Eslint,
            Parser::Go,
            Parser::Rustfmt,
            Parser::Vitest,
            Parser::Jest,
            Parser::Tap,
            Parser::Cmake,
            Parser::Prettier,
            Parser::PhaseResult,
        ];
        for kind in kinds {
            let mut parser = parser_for(kind).expect("a parser");
            let mut found = Vec::new();
            parser.finish(&mut found);
            assert!(found.is_empty(), "{kind:?}: {found:?}");
            assert_eq!(parser.data(), None, "{kind:?}");
        }
        assert!(parser_for(Parser::None).is_none());
    }

    fn collector(
        parser: Parser,
        matchers: &[(&str, DiagSeverity)],
        score: Option<&str>,
    ) -> Collector {
        Collector {
            unbuilt: Some(parser),
            parser: None,
            base: None,
            matchers: matchers
                .iter()
                .map(|(r, s)| CustomMatcher {
                    regex: Regex::new(r).unwrap(),
                    severity: *s,
                })
                .collect(),
            score: score.map(|s| Regex::new(s).unwrap()),
            partial: Vec::new(),
            overflow: false,
            batch: Vec::new(),
            seen: Seen::default(),
            parsed: Parsed::default(),
        }
    }

    #[test]
    fn matcher_groups_fill_the_fields_across_chunk_boundaries() {
        let mut c = collector(
            Parser::None,
            &[(
                r"^(?P<file>[^:]+):(?P<line>\d+): (?P<severity>\w+): (?P<message>.+)$",
                DiagSeverity::Error,
            )],
            None,
        );
        c.push(b"src/a.c:1");
        c.push(b"2: warning: unused x\r\nnoise\nlib/b.c:3: bogus: odd");
        let parsed = c.finish();
        assert_eq!(
            parsed.found,
            vec![
                Diagnostic {
                    file: Some("src/a.c".into()),
                    line: Some(12),
                    severity: DiagSeverity::Warning,
                    message: "unused x".into(),
                    ..Diagnostic::default()
                },
                Diagnostic {
                    file: Some("lib/b.c".into()),
                    line: Some(3),
                    severity: DiagSeverity::Error,
                    message: "odd".into(),
                    ..Diagnostic::default()
                },
            ]
        );
    }

    #[test]
    fn a_matchers_zero_line_or_column_is_no_position() {
        let mut c = collector(
            Parser::None,
            &[(
                r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$",
                DiagSeverity::Error,
            )],
            None,
        );
        c.push(b"a.c:0:0: whole file\nb.c:7:0: whole line\n");
        let parsed = c.finish();
        let positions: Vec<_> = parsed.found.iter().map(|f| (f.line, f.column)).collect();
        assert_eq!(positions, [(None, None), (Some(7), None)]);
    }

    #[test]
    fn a_column_0_from_any_parser_is_no_column() {
        // pylint's 0-based `bad.py:1:0:` read by the `gcc` parser (auto
        // reads pylint itself, and adds one).
        let text = include_str!("../../tests/fixtures/diagnostics/linters/python/pylint.txt");
        let mut c = collector(Parser::Gcc, &[], None);
        c.push(text.as_bytes());
        let columns: Vec<_> = c.finish().found.iter().map(|f| f.column).take(4).collect();
        assert_eq!(columns, [None, None, None, None]);
        let mut c = collector(Parser::Auto, &[], None);
        c.push(text.as_bytes());
        let columns: Vec<_> = c.finish().found.iter().map(|f| f.column).take(4).collect();
        assert_eq!(columns, [Some(1), Some(1), Some(1), Some(1)]);
    }

    #[test]
    fn the_cap_keeps_the_first_thousand_and_counts_the_rest() {
        let mut c = collector(
            Parser::None,
            &[(r"^(?P<message>x\d+)$", DiagSeverity::Error)],
            None,
        );
        let mut text = String::new();
        for i in 0..1500 {
            text.push_str(&format!("x{i}\n"));
        }
        c.push(text.as_bytes());
        let parsed = c.finish();
        assert_eq!(parsed.found.len(), 1000);
        assert_eq!(parsed.dropped, 500);
        assert_eq!(parsed.found[999].message, "x999");
    }

    fn warning(file: &str, line: u64, column: u64, rule: &str, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            column: Some(column),
            severity: DiagSeverity::Warning,
            rule: Some(rule.into()),
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn a_headers_warning_printed_for_two_translation_units_is_one() {
        // Captured from `gcc -Wall -c unit-a.c unit-b.c`: both units include
        // two-units.h, whose two warnings gcc prints once per unit.
        let text = include_str!("../../tests/fixtures/diagnostics/gcc/gcc-two-units.txt");
        let expected = vec![
            warning("two-units.h", 1, 37, "-Wdiv-by-zero", "division by zero"),
            warning(
                "unit-a.c",
                2,
                21,
                "-Wunused-variable",
                "unused variable ‘unused’",
            ),
            warning(
                "two-units.h",
                1,
                12,
                "-Wunused-function",
                "‘shared’ defined but not used",
            ),
            // Same line, column, rule and message as unit-a.c's: another
            // file, another problem.
            warning(
                "unit-b.c",
                2,
                21,
                "-Wunused-variable",
                "unused variable ‘unused’",
            ),
        ];
        for parser in [Parser::Gcc, Parser::Auto] {
            let mut c = collector(parser, &[], None);
            c.push(text.as_bytes());
            let parsed = c.finish();
            assert_eq!(parsed.found, expected, "{parser:?}");
            // A repeat is not lost to the cap: it is not counted as dropped.
            assert_eq!(parsed.dropped, 0, "{parser:?}");
        }
    }

    #[test]
    fn repeats_of_a_matcher_are_one_and_do_not_fill_the_cap() {
        let mut c = collector(
            Parser::None,
            &[(
                r"^(?P<file>\w+):(?P<line>\d+): (?P<message>.+)$",
                DiagSeverity::Error,
            )],
            None,
        );
        let mut text = String::new();
        // Each printed twice in a row, and the first five once more at the end.
        for i in 1..=MAX_PER_CHECK + 10 {
            text.push_str(&format!("a:{i}: x\na:{i}: x\n"));
        }
        for i in 1..=5 {
            text.push_str(&format!("a:{i}: x\n"));
        }
        c.push(text.as_bytes());
        let parsed = c.finish();
        assert_eq!(parsed.found.len(), MAX_PER_CHECK);
        let lines: Vec<_> = parsed.found.iter().map(|f| f.line).take(3).collect();
        assert_eq!(lines, [Some(1), Some(2), Some(3)]);
        // Beyond the cap nothing is remembered: every occurrence counts.
        assert_eq!(parsed.dropped, 20);
    }

    #[test]
    fn every_field_but_the_suggestion_tells_diagnostics_apart() {
        let base = warning("a.c", 1, 2, "r", "m");
        let variants = [
            Diagnostic {
                file: Some("b.c".into()),
                ..base.clone()
            },
            Diagnostic {
                file: None,
                ..base.clone()
            },
            Diagnostic {
                line: Some(3),
                ..base.clone()
            },
            Diagnostic {
                column: None,
                ..base.clone()
            },
            Diagnostic {
                severity: DiagSeverity::Error,
                ..base.clone()
            },
            Diagnostic {
                rule: None,
                ..base.clone()
            },
            Diagnostic {
                message: "n".into(),
                ..base.clone()
            },
        ];
        let mut c = collector(Parser::None, &[], None);
        c.batch.push(base.clone());
        c.batch.extend(variants.iter().cloned());
        c.batch.push(Diagnostic {
            suggestion: Some("fix it".into()),
            ..base.clone()
        });
        c.batch.extend(variants.iter().cloned());
        c.keep_batch();
        let parsed = c.finish();
        let mut expected = vec![base];
        expected.extend(variants);
        assert_eq!(parsed.found, expected);
    }

    #[test]
    fn the_captured_outputs_lose_only_their_repeats() {
        // Every fixture through the collector: what the parser reports line
        // by line, less the later copies of a diagnostic already reported.
        // Only the captures listed below print one problem twice: gcc's two
        // units including one header, `cargo test` building the library and
        // its test harness (rustc warns in each), `go build` then `go vet`
        // (vet's type check repeats build's error).
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diagnostics");
        let mut with_repeats = Vec::new();
        let mut seen = 0;
        for dir in std::fs::read_dir(&root).unwrap() {
            let dir = dir.unwrap().path();
            let name = dir.file_name().unwrap().to_string_lossy().to_string();
            for file in std::fs::read_dir(&dir).unwrap() {
                let file = file.unwrap().path();
                if file.extension().is_none_or(|e| e != "txt") {
                    continue;
                }
                seen += 1;
                let text = std::fs::read_to_string(&file).unwrap();
                let fixture = format!("{name}/{}", file.file_name().unwrap().to_string_lossy());
                for kind in [fixture_parser(&name), Parser::Auto] {
                    let mut raw = Vec::new();
                    let mut parser = parser_for(kind).unwrap();
                    for line in text.lines() {
                        parser.line(&crate::sanitize::strip_escapes(line), &mut raw);
                    }
                    parser.finish(&mut raw);
                    let mut distinct: Vec<Diagnostic> = Vec::new();
                    for d in &raw {
                        if !distinct.iter().any(|k| Seen::same(k, d)) {
                            distinct.push(d.clone());
                        }
                    }
                    if distinct.len() != raw.len() {
                        with_repeats.push(format!("{fixture} {kind:?}"));
                    }
                    let mut c = collector(kind, &[], None);
                    c.push(text.as_bytes());
                    assert_eq!(c.finish().found, distinct, "{fixture} ({kind:?})");
                }
            }
        }
        assert!(seen > 30, "{seen} fixtures");
        with_repeats.sort();
        assert_eq!(
            with_repeats,
            [
                "cargo-json/test.txt Auto",
                "cargo-json/test.txt CargoJson",
                "gcc/gcc-two-units.txt Auto",
                "gcc/gcc-two-units.txt Gcc",
                "go/build.txt Go",
            ]
        );
    }

    #[test]
    fn long_lines_are_cut_and_ansi_is_stripped() {
        let mut c = collector(
            Parser::None,
            &[(r"^(?P<message>m.*)$", DiagSeverity::Note)],
            None,
        );
        let long = format!("m{}\n", "y".repeat(3 * MAX_LINE));
        c.push(long.as_bytes());
        c.push(b"\x1b[31mmred\x1b[0m\n");
        let parsed = c.finish();
        assert_eq!(parsed.found[0].message.len(), MAX_LINE);
        assert_eq!(parsed.found[1].message, "mred");
    }

    #[test]
    fn the_last_score_wins() {
        let mut c = collector(Parser::None, &[], Some(r"coverage: (\d+(?:\.\d+)?)%"));
        c.push(b"coverage: 50%\nlater coverage: 81.5%\ncoverage: n/a%\n");
        assert_eq!(c.finish().score, Some(81.5));
    }

    #[test]
    fn a_score_outside_0_to_100_is_no_score() {
        let mut c = collector(Parser::None, &[], Some(r"score: (\S+)"));
        c.push(b"score: 42\nscore: inf\nscore: NaN\nscore: 1e999\nscore: 100.5\nscore: -1\n");
        assert_eq!(c.finish().score, Some(42.0));
    }

    #[test]
    fn matcher_positions_past_u64_are_no_position() {
        let mut c = collector(
            Parser::None,
            &[(
                r"^(?P<file>\w+):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$",
                DiagSeverity::Error,
            )],
            None,
        );
        c.push(b"a:99999999999999999999999:0: huge\nb:18446744073709551615:1: max\n");
        let found = c.finish().found;
        assert_eq!((found[0].line, found[0].column), (None, None));
        assert_eq!((found[1].line, found[1].column), (Some(u64::MAX), Some(1)));
    }

    #[test]
    fn auto_ends_a_block_at_a_line_an_earlier_parser_claimed() {
        let text = "src/a.ts(1,5): error TS2322: Type 'string' is not assignable.\n\
                    warning: unused variable: `x`\n\
                    \x20\x20--> src/main.rs:3:9\n\
                    \x20\x20\x20\x20indented text after rustc's block\n";
        let mut auto = Auto::new();
        let mut out = Vec::new();
        for line in text.lines() {
            auto.line(line, &mut out);
        }
        auto.finish(&mut out);
        let seen: Vec<(Option<&str>, &str)> = out
            .iter()
            .map(|f| (f.file.as_deref(), f.message.as_str()))
            .collect();
        // Without the interruption tsc would have taken the indented line
        // as the continuation of its message, across rustc's block.
        assert_eq!(
            seen,
            [
                (Some("src/a.ts"), "Type 'string' is not assignable."),
                (Some("src/main.rs"), "unused variable: `x`"),
            ]
        );
    }

    #[test]
    fn clip_cuts_at_a_character_boundary() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("abcdef", 3), "abc…");
        // "é" is two bytes: a cut inside it moves back before it.
        assert_eq!(clip("aéb", 2), "a…");
    }

    #[test]
    fn paths_become_worktree_relative() {
        let wt = Path::new("/w");
        assert_eq!(relativize("src/a.rs", Path::new("/w"), wt), "src/a.rs");
        assert_eq!(relativize("./a.rs", Path::new("/w/sub"), wt), "sub/a.rs");
        assert_eq!(relativize("/w/x/../y.rs", Path::new("/w"), wt), "y.rs");
        assert_eq!(
            relativize("/elsewhere/z.rs", Path::new("/w"), wt),
            "/elsewhere/z.rs"
        );
        assert_eq!(relativize("../out.rs", Path::new("/w"), wt), "../out.rs");
    }
}
