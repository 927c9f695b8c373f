//! The `rustc` parser: rustc/cargo/clippy human-format diagnostics (a
//! `error[E0308]: ...` or `warning: ...` header, then ` --> file:line:col`
//! and the snippet), one `Diagnostic` per header at its first location, plus the
//! short form `file:line:col: error[E0425]: ...` (without a code only on a
//! `.rs` file: `file:line:col: warning: unused import: ...`). It must not report the
//! summaries (`error: aborting due to ...`, `warning: N warnings emitted`,
//! `error: could not compile ...`) or the child `note:`/`help:` lines as
//! diagnostics, and emits a diagnostic only once its block has ended (the
//! next header, a blank line, a foreign line, or `finish`). A failing test's
//! panic (`cargo test`) is read by `panic::Panics`.

use std::sync::LazyLock;

use regex::Regex;

use super::gcc::{severity_prefix, split_location};
use super::panic::Panics;
use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// How trustworthy a rule name is; the best one seen wins.
mod rank {
    /// A lint level attribute in the quoted source (`#![deny(x)]`).
    pub(crate) const SOURCE_ATTRIBUTE: u8 = 1;
    /// `= help: to override `-D warnings` add `#[allow(x)]``.
    pub(crate) const OVERRIDE_HELP: u8 = 2;
    /// `= note: `-D x` implied by `-D warnings``.
    pub(crate) const IMPLIED: u8 = 3;
    /// `= note: `#[warn(x)]` on by default`.
    pub(crate) const LEVEL_NOTE: u8 = 4;
    /// clippy's `= help: for further information visit ...#x`.
    pub(crate) const CLIPPY_LINK: u8 = 5;
    /// The code in the header (`error[E0308]`).
    pub(crate) const CODE: u8 = 6;
}

static ATTRIBUTE: LazyLock<Regex> =
    regex!(r"#!?\[(?:allow|warn|deny|forbid|expect)\(([A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*)\)\]");
static IMPLIED: LazyLock<Regex> =
    regex!(r"`-[DWF] ([A-Za-z0-9_-]+(?:::[A-Za-z0-9_-]+)*)` implied by");
static CLIPPY_LINK: LazyLock<Regex> = regex!(
    r"^for further information visit https://rust-lang\.github\.io/rust-clippy/\S*#([a-z0-9_]+)$"
);
static SUMMARY: LazyLock<Regex> = regex!(concat!(
    r"^(?:aborting due to |could not compile `|build failed, waiting for other jobs",
    r"|test failed, to rerun pass |doctest failed, to rerun pass ",
    r"|process didn't exit successfully",
    r"|\d+ (?:warnings?|errors?)(?:; \d+ warnings?)? emitted$",
    r"|`[^`]+` \(.*\) generated \d+ warnings?",
    r"|\d+ targets? failed:?$)"
));

/// The `rustc` format.
#[derive(Debug, Default)]
pub(crate) struct Rustc {
    pending: Option<Pending>,
    /// A failing test's panic (`cargo test`).
    panics: Panics,
}

#[derive(Debug)]
struct Pending {
    found: Diagnostic,
    rule_rank: u8,
    located: bool,
    /// Inside a `note: the lint level is defined here` child.
    lint_level_note: bool,
}

impl Pending {
    fn rule(&mut self, rank: u8, rule: String) {
        if rank > self.rule_rank {
            self.rule_rank = rank;
            self.found.rule = Some(rule);
        }
    }

    fn suggest(&mut self, help: &str) {
        let help = help.trim();
        if self.found.suggestion.is_none() && !help.is_empty() {
            self.found.suggestion = Some(help.to_string());
        }
    }
}

impl Rustc {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        out.extend(self.pending.take().map(|p| p.found));
    }

    /// A line inside the pending diagnostic's block; false when it is not one.
    fn child(pending: &mut Pending, line: &str) -> bool {
        let trimmed = line.trim_start();
        if let Some(location) = trimmed.strip_prefix("--> ") {
            if !pending.located
                && let Some((file, line, column)) = parse_location(location)
            {
                pending.found.file = Some(file);
                pending.found.line = Some(line);
                pending.found.column = column;
                pending.located = true;
            }
            return true;
        }
        if trimmed.starts_with("::: ") {
            return true;
        }
        if let Some(note) = trimmed.strip_prefix("= note: ") {
            if let Some(name) = ATTRIBUTE.captures(note).map(|c| c[1].to_string()) {
                pending.rule(rank::LEVEL_NOTE, name);
            } else if let Some(name) = IMPLIED.captures(note).map(|c| c[1].replace('-', "_")) {
                pending.rule(rank::IMPLIED, name);
            }
            return true;
        }
        if let Some(help) = trimmed.strip_prefix("= help: ") {
            if let Some(name) = CLIPPY_LINK
                .captures(help)
                .map(|c| format!("clippy::{}", &c[1]))
            {
                pending.rule(rank::CLIPPY_LINK, name);
            } else if let Some(name) = help
                .starts_with("to override")
                .then(|| ATTRIBUTE.captures(help).map(|c| c[1].to_string()))
                .flatten()
            {
                pending.rule(rank::OVERRIDE_HELP, name);
            }
            return true;
        }
        if trimmed.starts_with("= ") {
            return true;
        }
        if let Some(note) = line.strip_prefix("note: ") {
            pending.lint_level_note = note.starts_with("the lint level is defined here");
            return true;
        }
        if let Some(help) = line.strip_prefix("help: ") {
            pending.lint_level_note = false;
            pending.suggest(help);
            return true;
        }
        match snippet(line) {
            Some(Snippet::Source(code)) => {
                if pending.lint_level_note
                    && let Some(name) = ATTRIBUTE.captures(code).map(|c| c[1].to_string())
                {
                    pending.rule(rank::SOURCE_ATTRIBUTE, name);
                }
                true
            }
            Some(Snippet::Gutter(marks)) => {
                if let Some(help) = inline_help(marks) {
                    pending.suggest(help);
                }
                true
            }
            None => false,
        }
    }
}

impl LineParser for Rustc {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if line.starts_with("thread '") {
            self.flush(out);
        }
        if self.panics.line(line, out) {
            return true;
        }
        if let Some((severity, code, message)) = header(line) {
            self.flush(out);
            if code.is_some() || !SUMMARY.is_match(message) {
                let mut pending = Pending {
                    found: Diagnostic {
                        severity,
                        message: message.to_string(),
                        ..Diagnostic::default()
                    },
                    rule_rank: 0,
                    located: false,
                    lint_level_note: false,
                };
                if let Some(code) = code {
                    pending.rule(rank::CODE, code.to_string());
                }
                self.pending = Some(pending);
            }
            return true;
        }
        if let Some(found) = short_form(line) {
            self.flush(out);
            out.push(found);
            return true;
        }
        if line.starts_with("Some errors have detailed explanations: ")
            || line.starts_with("For more information about this error, try `rustc --explain")
            || line.starts_with("For more information about an error, try `rustc --explain")
        {
            self.flush(out);
            return true;
        }
        let Some(pending) = &mut self.pending else {
            return false;
        };
        if line.trim().is_empty() {
            // The end of the block; the blank line itself belongs to nobody.
            self.flush(out);
            return false;
        }
        if Rustc::child(pending, line) {
            return true;
        }
        self.flush(out);
        false
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
        self.panics.finish(out);
    }
}

/// `error[E0308]: message`, `warning: message`: severity, code, message.
fn header(line: &str) -> Option<(DiagSeverity, Option<&str>, &str)> {
    let (severity, rest) = if let Some(rest) = line.strip_prefix("error") {
        (DiagSeverity::Error, rest)
    } else if let Some(rest) = line.strip_prefix("warning") {
        (DiagSeverity::Warning, rest)
    } else {
        return None;
    };
    let (code, rest) = match rest.strip_prefix('[') {
        Some(bracketed) => {
            let (code, rest) = bracketed.split_once(']')?;
            if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            (Some(code), rest)
        }
        None => (None, rest),
    };
    let message = rest.strip_prefix(": ")?.trim();
    (!message.is_empty()).then_some((severity, code, message))
}

/// `--message-format=short`: `file:line:col: error[E0425]: message`, and
/// `file:line:col: warning: message` on a `.rs` file (lints print no code);
/// a `: help: ...` tail is the suggestion. A line without a code on another
/// file is a plain gcc-style line, left to `gcc`.
fn short_form(line: &str) -> Option<Diagnostic> {
    let location = split_location(line)?;
    let (severity, code, message) = severity_prefix(location.rest)?;
    if code.is_none() && !location.file.ends_with(".rs") {
        return None;
    }
    let (message, suggestion) = match message.split_once(": help: ") {
        Some((message, help)) => (message, Some(help.trim().to_string())),
        None => (message, None),
    };
    Some(Diagnostic {
        file: Some(location.file.to_string()),
        line: Some(location.line),
        column: location.column,
        severity,
        rule: code,
        message: message.to_string(),
        suggestion,
        ..Default::default()
    })
}

/// `src/main.rs:3:5` (the column may be absent).
fn parse_location(text: &str) -> Option<(String, u64, Option<u64>)> {
    let text = text.trim();
    let mut parts = text.rsplitn(3, ':');
    let last = parts.next()?;
    let middle = parts.next()?;
    match parts.next() {
        Some(file) if !file.is_empty() => Some((
            file.to_string(),
            middle.parse().ok()?,
            Some(last.parse().ok()?),
        )),
        _ => Some((middle.to_string(), last.parse().ok()?, None)),
    }
}

enum Snippet<'a> {
    /// A quoted source line (`9 |     code`, `6 -     old`, `6 +     new`).
    Source(&'a str),
    /// A gutter line without a line number (`  |     ^^^ label`), or `...`.
    Gutter(&'a str),
}

fn snippet(line: &str) -> Option<Snippet<'_>> {
    let trimmed = line.trim_start();
    if trimmed == "..." {
        return Some(Snippet::Gutter(""));
    }
    if let Some(marks) = trimmed.strip_prefix('|') {
        return Some(Snippet::Gutter(marks));
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let after = &trimmed[digits..];
    let rest = after.trim_start();
    if rest.len() == after.len() {
        return None;
    }
    match rest.chars().next() {
        Some('|' | '+' | '-' | '~') => Some(Snippet::Source(&rest[1..])),
        _ => None,
    }
}

/// A label under the carets that is a help: `^^^^ help: prefix it: `_x``.
fn inline_help(marks: &str) -> Option<&str> {
    let at = marks.find("help: ")?;
    let before = &marks[..at];
    let only_marks = before.chars().all(|c| "^-~_|/\\ ".contains(c));
    let has_marks = before.chars().any(|c| "^-~".contains(c));
    (only_marks && has_marks).then(|| &marks[at + "help: ".len()..])
}

#[cfg(test)]
mod tests;
