//! The `markdown` report, for a pull-request comment:
//!
//! ````markdown
//! ### ❌ 1 of 2 checks failed: lint
//!
//! run-check 0.1.0 · `strict` · 2 checks: 1 pass, 1 fail, 0 error, 0 skip · 1.23s · `0123abc` (main)
//!
//! | Check | Status | Time | Details |
//! |---|---|---|---|
//! | `clippy` | ✅ pass | 0.81s |  |
//! | `lint` | ❌ fail | 0.02s | exit 1 · 1 diagnostic |
//!
//! <details><summary>lint — exit 1</summary>
//!
//! ```text
//! src/a.c:3:5: error: bad thing
//! ```
//!
//! </details>
//!
//! #### Diagnostics (1)
//!
//! - `src/a.c:3:5` — bad thing (error, lint)
//! ````
//!
//! The banner is written verbatim in the heading. Cells escape `|`, HTML and
//! newlines. A failing check's block shows each stream that is not blank,
//! stdout first, each under its name when both are shown, unfolded (`open`)
//! when no located error explains the failure; excerpts are
//! fenced with more backticks than they contain and keep their last
//! `MAX_EXCERPT_LINES` lines (at most `MAX_EXCERPT_CHARS` each); at most
//! `MAX_DIAGNOSTICS` diagnostics are listed and the rest counted.
//!
//! The whole report stays under `MAX_REPORT_BYTES`, so it can be posted as a
//! GitHub comment (limit 65,536 characters): the table and the diagnostics
//! come first, the failing checks share what is left (their excerpts
//! shortened to their last lines, or left out), and a closing note says what
//! was cut.

use std::fmt::Write;

use crate::parse::MAX_PER_CHECK;
use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence, Status};

/// Diagnostics listed at most.
pub(crate) const MAX_DIAGNOSTICS: usize = 50;
/// Lines of an excerpt shown at most (the last ones).
pub(crate) const MAX_EXCERPT_LINES: usize = 60;
/// Characters of an excerpt shown at most (the last ones).
pub(crate) const MAX_EXCERPT_CHARS: usize = 6000;
/// Characters of a diagnostic message shown at most.
const MAX_MESSAGE_CHARS: usize = 300;
/// Bytes of the whole report at most: under GitHub's limit of 65,536
/// characters for a comment (a character is at least one byte), with room
/// to spare for a bot's own header.
pub(crate) const MAX_REPORT_BYTES: usize = 60_000;
/// An excerpt that would be shorter than this is left out instead.
const MIN_EXCERPT_CHARS: usize = 200;
/// Room kept for the closing note on what was cut.
const NOTE_BYTES: usize = 600;

pub(super) fn render(evidence: &Evidence) -> String {
    let s = &evidence.summary;
    let mut out = String::new();
    let mark = if s.all_checks_passed { "✅" } else { "❌" };
    let _ = writeln!(out, "### {mark} {}\n", s.banner);
    let meta = &evidence.meta;
    let mut facts = vec![
        format!("run-check {}", meta.tool.version),
        format!("`{}`", evidence.mode),
        super::tally(s),
        super::seconds(s.duration_ms),
    ];
    if let Some(commit) = &meta.git.commit {
        let short: String = commit.chars().take(12).collect();
        let mut fact = code(&short);
        if let Some(branch) = &meta.git.branch {
            let _ = write!(fact, " ({})", inline(branch));
        }
        facts.push(fact);
    }
    if let Some(line) = super::baseline_line(evidence) {
        facts.push(inline(&line));
    }
    let _ = writeln!(out, "{}\n", facts.join(" · "));
    if let Some(line) = super::nothing_ran(evidence) {
        let _ = writeln!(out, "**{}**\n", inline(&line));
    }
    let mut cut = Cut::default();
    table(&mut out, evidence, &mut cut);
    let read_only = &evidence.contracts.read_only;
    if !read_only.modified.is_empty() {
        let mut line = String::from("\n**Workspace modified by checks:** ");
        let mut shown = 0;
        for path in &read_only.modified {
            let item = code(path);
            if out.len() + line.len() + item.len() + NOTE_BYTES > MAX_REPORT_BYTES / 2 {
                break;
            }
            if shown > 0 {
                line.push_str(", ");
            }
            line.push_str(&item);
            shown += 1;
        }
        if shown < read_only.modified.len() {
            let _ = write!(line, " and {} more", read_only.modified.len() - shown);
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(why) = &read_only.error {
        let _ = writeln!(out, "\n**Read-only verification failed:** {}", inline(why));
    }
    let mut listed = String::new();
    if !evidence.diagnostics.is_empty() {
        diagnostics(&mut listed, evidence);
    }
    if out.len() + listed.len() + NOTE_BYTES > MAX_REPORT_BYTES {
        listed.clear();
        cut.diagnostics = true;
    }
    let budget = MAX_REPORT_BYTES.saturating_sub(out.len() + listed.len() + NOTE_BYTES);
    failure_blocks(&mut out, evidence, budget, &mut cut);
    out.push_str(&listed);
    cut.note(&mut out);
    out
}

/// What was cut to keep the report under [`MAX_REPORT_BYTES`].
#[derive(Debug, Default)]
struct Cut {
    /// Table rows left out.
    rows: usize,
    /// Failing checks whose excerpts were shortened.
    shortened: usize,
    /// Failing checks whose excerpts were left out.
    excerpts: usize,
    /// Failing checks without a details block.
    blocks: usize,
    /// The diagnostics list was left out.
    diagnostics: bool,
}

impl Cut {
    /// The closing note, when anything was cut.
    fn note(&self, out: &mut String) {
        let mut parts = Vec::new();
        let checks = super::checks;
        if self.rows > 0 {
            parts.push(format!("{} left out of the table", checks(self.rows)));
        }
        if self.shortened > 0 {
            parts.push(format!(
                "the output of {} shortened to its tail",
                checks(self.shortened)
            ));
        }
        if self.excerpts > 0 {
            parts.push(format!("the output of {} left out", checks(self.excerpts)));
        }
        if self.blocks > 0 {
            parts.push(format!(
                "{} failing without a details block",
                checks(self.blocks)
            ));
        }
        if self.diagnostics {
            parts.push("the diagnostics list left out".into());
        }
        if !parts.is_empty() {
            let _ = writeln!(
                out,
                "\n_Cut to stay under GitHub's 65,536-character comment limit: {}. The evidence (`--format json`) has every check, its full excerpts and its diagnostics._",
                parts.join("; ")
            );
        }
    }
}

/// The table of checks; rows past half the report's budget are counted in
/// a last row instead.
fn table(out: &mut String, evidence: &Evidence, cut: &mut Cut) {
    out.push_str("| Check | Status | Time | Details |\n|---|---|---|---|\n");
    for (i, check) in evidence.checks.iter().enumerate() {
        let count = super::of_check(&evidence.diagnostics, &check.name).count();
        let time = if check.status == Status::Skip {
            "—".to_string()
        } else {
            super::seconds(check.duration_ms)
        };
        let row = format!(
            "| {} | {}{} | {} | {} |\n",
            cell(&code(&check.name)),
            status(check.status),
            if check.flaky { " 🔁 flaky" } else { "" },
            time,
            cell(&details(check, count)),
        );
        if out.len() + row.len() + NOTE_BYTES > MAX_REPORT_BYTES / 2 {
            cut.rows = evidence.checks.len() - i;
            let _ = writeln!(out, "| … {} more | | | see the evidence |", cut.rows);
            return;
        }
        out.push_str(&row);
    }
}

/// One details block per failing check, all within `budget` bytes: each
/// check gets an equal share of what is left, and a block that needs less
/// leaves the rest to the ones after it. A block over its share keeps the
/// last lines of its excerpts, or none when that would be under
/// `MIN_EXCERPT_CHARS`.
fn failure_blocks(out: &mut String, evidence: &Evidence, budget: usize, cut: &mut Cut) {
    let failing = super::failed_checks(evidence);
    let mut left = budget;
    for (i, check) in failing.iter().enumerate() {
        let share = left / (failing.len() - i);
        let open = !super::explained(evidence, check);
        let block_of = |chars| failure_block(check, chars, open);
        let mut block = block_of(Some(MAX_EXCERPT_CHARS));
        let mut shortened = None;
        if block.len() > share {
            let bare = block_of(None);
            let mut chars = share.saturating_sub(bare.len()) / super::streams(check).len().max(1);
            block = bare;
            shortened = Some(false);
            while chars >= MIN_EXCERPT_CHARS {
                let shorter = block_of(Some(chars));
                if shorter.len() <= share {
                    block = shorter;
                    shortened = Some(true);
                    break;
                }
                chars /= 2;
            }
        }
        if block.len() > left {
            cut.blocks = failing.len() - i;
            return;
        }
        match shortened {
            Some(true) => cut.shortened += 1,
            Some(false) => cut.excerpts += 1,
            None => {}
        }
        left -= block.len();
        out.push_str(&block);
    }
}

fn status(status: Status) -> &'static str {
    match status {
        Status::Pass => "✅ pass",
        Status::Fail => "❌ fail",
        Status::Error => "⚠️ error",
        Status::Skip => "⏭️ skip",
    }
}

/// The Details cell: exit, timeout, error or skip reason, diagnostics count,
/// score.
fn details(check: &CheckRecord, diagnostics: usize) -> String {
    let mut parts = Vec::new();
    let ending = super::detail(check);
    if !ending.is_empty() {
        parts.push(ending);
    }
    let total = diagnostics as u64 + check.diagnostics_dropped;
    if total > 0 {
        parts.push(crate::output::plural(total, "diagnostic"));
    }
    if let Some(score) = check.score {
        parts.push(format!("score {score}"));
    }
    parts.join(" · ")
}

/// A `<details>` block with the tail of each of the check's streams that is
/// not blank (stdout first; each under its name when both are shown), at
/// most `chars` characters of each; `None` leaves the output out. `open`
/// when no located error explains the failure (`report::explained`): the
/// cause is then usually in these last lines, so they are shown unfolded.
fn failure_block(check: &CheckRecord, chars: Option<usize>, open: bool) -> String {
    let mut out = String::new();
    let summary = match details(check, 0) {
        d if d.is_empty() => html(&check.name),
        d => format!(
            "{} — {}",
            html(&check.name),
            html(&d.replace(['\n', '\r'], " "))
        ),
    };
    let open = if open { " open" } else { "" };
    let _ = writeln!(out, "\n<details{open}><summary>{summary}</summary>\n");
    let streams = super::streams(check);
    match chars {
        _ if streams.is_empty() => out.push_str("(no output)\n"),
        None => out.push_str("(output left out to keep this report short; see the evidence)\n"),
        Some(chars) => {
            for (i, stream) in streams.iter().enumerate() {
                if stream.labelled {
                    let _ = writeln!(
                        out,
                        "{}**{}**\n",
                        if i > 0 { "\n" } else { "" },
                        stream.name
                    );
                }
                let excerpt = tail(stream.text, chars);
                let fence = "`".repeat(longest_backtick_run(&excerpt).max(2) + 1);
                let _ = write!(out, "{fence}text\n{excerpt}");
                if !excerpt.ends_with('\n') {
                    out.push('\n');
                }
                let _ = writeln!(out, "{fence}");
            }
        }
    }
    out.push_str("\n</details>\n");
    out
}

/// The diagnostics section: the first `MAX_DIAGNOSTICS`, the rest counted.
fn diagnostics(out: &mut String, evidence: &Evidence) {
    let dropped: u64 = evidence.checks.iter().map(|c| c.diagnostics_dropped).sum();
    let total = evidence.diagnostics.len() as u64 + dropped;
    let _ = writeln!(out, "\n#### Diagnostics ({total})\n");
    for d in evidence.diagnostics.iter().take(MAX_DIAGNOSTICS) {
        let _ = writeln!(out, "- {}", diagnostic_item(d));
    }
    let listed = (evidence.diagnostics.len().saturating_sub(MAX_DIAGNOSTICS)) as u64;
    match (listed, dropped) {
        (0, 0) => {}
        (_, 0) => {
            let _ = writeln!(out, "- … and {listed} more (see the evidence)");
        }
        (0, _) => {
            let _ = writeln!(
                out,
                "- … and {dropped} more dropped past the cap of {MAX_PER_CHECK} per check (the evidence only counts them)"
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "- … and {listed} more (see the evidence), plus {dropped} dropped past the cap of {MAX_PER_CHECK} per check (the evidence only counts them)"
            );
        }
    }
}

/// `` `file:line:col` — message (severity, check, rule) ``.
fn diagnostic_item(d: &Diagnostic) -> String {
    let mut location = d.file.clone().unwrap_or_default();
    let line_col = super::line_col(d);
    if !line_col.is_empty() {
        let _ = write!(location, ":{line_col}");
    }
    let message = crate::sanitize::one_line(&d.message, MAX_MESSAGE_CHARS);
    let mut context = vec![d.severity.to_string(), d.check.clone()];
    if let Some(rule) = &d.rule {
        context.push(rule.clone());
    }
    if d.new == Some(false) {
        context.push(super::OLD_MARK.into());
    }
    let context = inline(&context.join(", "));
    let message = inline(&message);
    if location.is_empty() {
        format!("{message} ({context})")
    } else {
        format!("{} — {message} ({context})", code(&location))
    }
}

/// The last `MAX_EXCERPT_LINES` lines, at most `max_chars` characters.
pub(super) fn tail(text: &str, max_chars: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut start = lines.len().saturating_sub(MAX_EXCERPT_LINES);
    let mut chars: usize = lines[start..].iter().map(|l| l.chars().count() + 1).sum();
    while chars > max_chars && start + 1 < lines.len() {
        chars -= lines[start].chars().count() + 1;
        start += 1;
    }
    let mut shown = lines[start..].join("\n");
    if shown.chars().count() > max_chars {
        let skip = shown.chars().count() - max_chars;
        shown = shown.chars().skip(skip).collect();
    }
    if start > 0 {
        format!("… [{start} earlier lines not shown]\n{shown}\n")
    } else {
        format!("{shown}\n")
    }
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// An inline code span that survives any backticks inside.
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Escapes HTML (for `<summary>` and text).
fn html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Plain inline text: HTML and Markdown punctuation escaped, one line.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A table cell: `|` escaped (also inside code spans, where GFM honours
/// `\|`), newlines as `<br>`.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '&' if !in_code => out.push_str("&amp;"),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
