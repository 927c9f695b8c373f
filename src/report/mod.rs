//! Report formats rendered from one `Evidence`. Renderers only consume data:
//! they never run processes or touch files (`output` writes).

pub(crate) mod attempts;
pub(crate) mod feedback;
mod github;
mod html;
mod junit;
mod markdown;
mod sarif;
mod text;

use crate::sanitize;
use run_check_documents::evidence::{
    Attempt, CheckRecord, DiagSeverity, Diagnostic, Evidence, Status,
};

/// A report format of the check run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Human summary; the last line is the banner.
    Text,
    /// The evidence document: every check, diagnostic and contract.
    Json,
    /// JUnit XML: one testcase per check.
    Junit,
    /// SARIF 2.1.0: one run, diagnostics as results.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=F,line=L,col=C::msg`).
    Github,
    /// A Markdown table for a pull-request comment.
    Markdown,
    /// One self-contained HTML page: summary, timeline, failed checks, contracts.
    Html,
}

/// Renders `evidence` in `format`.
///
/// No report replays what a check printed (docs/evidence.md): `json` and
/// `sarif` render the document without terminal escape sequences
/// ([`sanitize::evidence_json`]); `text`, `markdown`, `junit`, `github` and
/// `html` render it with control characters made visible and workflow
/// commands defused ([`sanitize::evidence_display`]), and the whole `text`,
/// `markdown`, `junit` and `html` output goes through [`sanitize::for_display`]
/// once more, so no line of it starts a workflow command whatever field it
/// came from.
pub(crate) fn render(format: Format, evidence: &Evidence) -> Vec<u8> {
    render_with(format, evidence, Diagnostics::New)
}

/// Which diagnostics of evidence written with `--baseline` a report other
/// than `json` shows (docs/baseline.md): the new ones (the default), or all
/// (`--all-diagnostics`), the old ones marked. `json` is always the whole
/// document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Diagnostics {
    New,
    All,
}

/// Renders `evidence` in `format`, showing `diagnostics`.
pub(crate) fn render_with(
    format: Format,
    evidence: &Evidence,
    diagnostics: Diagnostics,
) -> Vec<u8> {
    let filtered;
    let evidence = match (format, diagnostics) {
        (Format::Json, _) | (_, Diagnostics::All) => evidence,
        (_, Diagnostics::New) => match only_new(evidence) {
            Some(only) => {
                filtered = only;
                &filtered
            }
            None => evidence,
        },
    };
    let shown = || sanitize::evidence_display(evidence);
    let defused = |out: String| sanitize::for_display(&out).into_owned().into_bytes();
    match format {
        Format::Text => defused(text::render(&shown())),
        Format::Json => sanitize::evidence_json_text(evidence).into_bytes(),
        Format::Junit => defused(junit::render(&shown())),
        Format::Sarif => sarif::render(&sanitize::evidence_json(evidence)).into_bytes(),
        Format::Github => github::render(&shown()).into_bytes(),
        Format::Markdown => defused(markdown::render(&shown())),
        Format::Html => defused(html::render(&shown())),
    }
}

pub(crate) use text::status_word;

/// `evidence` without the diagnostics its baseline knows (`new: false`),
/// each check's `diagnostics_count` counting the rest; `None` when it has
/// none.
fn only_new(evidence: &Evidence) -> Option<Evidence> {
    if !evidence.diagnostics.iter().any(|d| d.new == Some(false)) {
        return None;
    }
    let mut only = evidence.clone();
    only.diagnostics.retain(|d| d.new != Some(false));
    for check in &mut only.checks {
        check.diagnostics_count = of_check(&only.diagnostics, &check.name).count();
    }
    Some(only)
}

/// A rendered `text` report of `evidence` with colour (see [`text::colour`]).
pub(crate) fn colour_text(report: &[u8], evidence: &Evidence) -> Vec<u8> {
    let passed = evidence.summary.exit_code == run_check_documents::exit_code::PASS;
    text::colour(&String::from_utf8_lossy(report), passed).into_bytes()
}

/// A duration in seconds, as the human formats show it: `1.50s`.
fn seconds(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}

fn checks(n: usize) -> String {
    crate::output::plural(n, "check")
}

/// The count line every human format shows: "5 checks: 1 pass, 2 fail, 1
/// error, 1 skip".
fn tally(s: &run_check_documents::evidence::Summary) -> String {
    format!(
        "{}: {} pass, {} fail, {} error, {} skip",
        checks(s.total),
        s.passed,
        s.failed,
        s.errored,
        s.skipped
    )
}

/// What a timed-out check's line says.
const TIMED_OUT: &str = "timed out; process tree killed";

/// How a check ended, in a few words: its skip reason, its error,
/// `timed out; process tree killed`, or `exit N` for a non-zero exit; empty
/// for a plain pass. The one wording of the progress lines and the reports.
pub(crate) fn ending(
    skip_reason: Option<&str>,
    error: Option<&str>,
    timed_out: bool,
    exit_code: Option<i32>,
) -> String {
    match (skip_reason, error) {
        (Some(reason), _) => reason.to_string(),
        (None, Some(error)) => error.to_string(),
        (None, None) if timed_out => TIMED_OUT.into(),
        (None, None) => match exit_code {
            Some(0) | None => String::new(),
            Some(code) => format!("exit {code}"),
        },
    }
}

/// [`ending`] of a check record, with its attempts' note when it ran
/// more than once.
fn detail(check: &CheckRecord) -> String {
    if let Some(cached) = cached(check) {
        return cached;
    }
    let ending = ending(
        check.skip_reason.as_deref(),
        check.error.as_deref(),
        check.timed_out,
        check.exit_code,
    );
    with_notes(
        ending,
        check.baseline_suppressed,
        (&check.attempt_log, check.flaky, check.status),
    )
}

/// A cache hit's words: `CACHED`, where from, when and by which commit it
/// was stored, and what running it took then; `None` for a check that ran.
pub(crate) fn cached(check: &CheckRecord) -> Option<String> {
    use run_check_documents::evidence::CacheStatus;
    use std::fmt::Write as _;
    let cache = &check.cache;
    if cache.status != CacheStatus::Hit {
        return None;
    }
    let mut words = format!(
        "CACHED ({}",
        cache.source.map_or("local", |source| source.as_str())
    );
    if let Some(at) = &cache.stored_at {
        let _ = write!(words, ", stored {at}");
    }
    if let Some(commit) = cache.stored_by.as_ref().and_then(|by| by.commit.as_deref()) {
        let _ = write!(words, " at {}", commit.get(..12).unwrap_or(commit));
    }
    if let Some(ms) = cache.duration_ms {
        let _ = write!(words, ", ran {:.2}s then", ms as f64 / 1000.0);
    }
    words.push(')');
    Some(words)
}

/// `ending`, then `N old diagnostics (baseline)` when `--baseline` knew
/// some of the check's diagnostics, then its attempts' note: the words of
/// a check's line in the progress and in every report.
pub(crate) fn with_notes(
    ending: String,
    old: usize,
    (log, flaky, status): (&[Attempt], bool, Status),
) -> String {
    let ending = match (old, ending.is_empty()) {
        (0, _) => ending,
        (old, true) => old_diagnostics(old),
        (old, false) => format!("{ending}; {}", old_diagnostics(old)),
    };
    attempts::with_note(ending, log, flaky, status)
}

/// How `text`, `markdown` and `html` mark a diagnostic the `--baseline`
/// knew, shown with `--all-diagnostics` (docs/baseline.md).
const OLD_MARK: &str = "old: in the baseline";

/// `LINE` or `LINE:COL` of a diagnostic; empty when it has no line.
fn line_col(d: &Diagnostic) -> String {
    match (d.line, d.column) {
        (Some(line), Some(col)) => format!("{line}:{col}"),
        (Some(line), None) => line.to_string(),
        (None, _) => String::new(),
    }
}

/// The gate contract, when it lists files that changed.
fn changed_gate(evidence: &Evidence) -> Option<&run_check_documents::evidence::Gate> {
    evidence
        .contracts
        .gate
        .as_ref()
        .filter(|g| !g.changed.is_empty())
}

/// The diagnostics of the check `check` among `all`, in their order.
fn of_check<'a>(all: &'a [Diagnostic], check: &'a str) -> impl Iterator<Item = &'a Diagnostic> {
    all.iter().filter(move |d| d.check == check)
}

/// The failing and erroring checks, in the evidence's order.
fn failed_checks(evidence: &Evidence) -> Vec<&CheckRecord> {
    evidence
        .checks
        .iter()
        .filter(|c| c.status.is_failure())
        .collect()
}

/// `FILE:LINE:COL: ` (as much as is known) of a diagnostic with a file;
/// empty without one.
fn file_prefix(d: &Diagnostic) -> String {
    match (&d.file, line_col(d)) {
        (None, _) => String::new(),
        (Some(file), at) if at.is_empty() => format!("{file}: "),
        (Some(file), at) => format!("{file}:{at}: "),
    }
}

/// Lines of a formatter's hunk (or of a test's compared values) shown
/// under its diagnostic.
const DETAIL_SHOWN: usize = 6;
/// Longest such line shown, in characters.
const DETAIL_CHARS: usize = 200;

/// What a diagnostic's message says beyond its first line, when the
/// reports show it under the diagnostic: a formatter's hunk (the rustfmt
/// and diff parsers write `not formatted as rustfmt would` or `would
/// reformat`, then the hunk's changed lines, each a `-` or `+` line), or a
/// failed test's compared values (the TAP parser writes tape's, node's and
/// Test::More's `expected: …` / `actual: …` or `got: …`, a multi-line value
/// indented under its label). At most [`DETAIL_SHOWN`] lines, each cut to
/// [`DETAIL_CHARS`] characters. The first line alone says only that the
/// file differs or that the values were not equal; these say how. Empty
/// for any other message: a parser's further lines (a compiler's notes, a
/// traceback) stay in the evidence.
pub(crate) fn details(d: &Diagnostic) -> Vec<String> {
    const COMPARED: [&str; 3] = ["expected:", "actual:", "got:"];
    let further: Vec<&str> = d.message.lines().skip(1).collect();
    let Some(first) = further.first() else {
        return Vec::new();
    };
    let hunk = further.iter().all(|l| l.starts_with(['-', '+']));
    let compared = COMPARED.iter().any(|label| first.starts_with(label));
    if !hunk && !compared {
        return Vec::new();
    }
    further
        .iter()
        .take(DETAIL_SHOWN)
        .map(|l| crate::sanitize::cut(l.to_string(), DETAIL_CHARS))
        .collect()
}

/// Errors first, then warnings, then the rest: the order in which the
/// reports list a check's diagnostics.
pub(crate) fn rank(severity: DiagSeverity) -> u8 {
    match severity {
        DiagSeverity::Error => 0,
        DiagSeverity::Warning => 1,
        _ => 2,
    }
}

/// `5 old diagnostics (baseline)`: those of a check `--baseline` knew.
fn old_diagnostics(n: usize) -> String {
    format!("{} (baseline)", crate::output::plural(n, "old diagnostic"))
}

/// The line naming the baseline of a run, with how many old diagnostics it
/// had in all; `None` without one.
fn baseline_line(evidence: &Evidence) -> Option<String> {
    let path = evidence.summary.baseline.as_deref()?;
    let old: usize = evidence.checks.iter().map(|c| c.baseline_suppressed).sum();
    Some(format!(
        "baseline {path}: {} not counted; only new ones fail a check",
        crate::output::plural(old as u64, "old diagnostic")
    ))
}

/// The output shown for a failing check in `text`, `markdown` and `junit`:
/// every stream that is not blank, stdout first (where test runners print
/// what failed), then stderr. When both are shown each is labelled
/// ([`Stream::labelled`]); one alone is shown as it is.
fn streams(check: &CheckRecord) -> Vec<Stream<'_>> {
    let streams: Vec<(&'static str, &str)> = [
        ("stdout", check.stdout_excerpt.as_str()),
        ("stderr", check.stderr_excerpt.as_str()),
    ]
    .into_iter()
    .filter(|(_, text)| !text.trim().is_empty())
    .collect();
    let labelled = streams.len() > 1;
    streams
        .into_iter()
        .map(|(name, text)| Stream {
            name,
            text,
            labelled,
        })
        .collect()
}

/// The lines shown for a failing check that its located errors do not
/// explain ([`explained`]), the same in the text report and in the
/// agent's feedback: the last [`TAIL_LINES`] lines of each stream that is
/// not blank, stdout first; with both, each under a `── name ──` line (a
/// `make test` prints what differs on stdout and make's own `Error 1` on
/// stderr: the cause is the first).
pub(crate) fn output_tail(check: &CheckRecord) -> Vec<String> {
    let mut shown = Vec::new();
    for stream in streams(check) {
        if stream.labelled {
            shown.push(format!("── {} ──", stream.name));
        }
        let lines: Vec<&str> = stream.text.lines().collect();
        shown.extend(
            lines[lines.len().saturating_sub(TAIL_LINES)..]
                .iter()
                .map(|l| tail_line(l)),
        );
    }
    shown
}

/// Longest output line shown under a failing check, in characters.
const TAIL_CHARS: usize = 300;

/// An output line as the tail shows it: cut after [`TAIL_CHARS`]
/// characters, saying how many more there were. A progress bar redrawn
/// with backspaces or carriage returns is one line of thousands of
/// characters (the reports show every control character rather than
/// replay it: an overwritten line stays visible), and it must not bury the
/// lines around it.
fn tail_line(line: &str) -> String {
    match line.char_indices().nth(TAIL_CHARS) {
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &line[..cut],
            line[cut..].chars().count()
        ),
        None => line.to_string(),
    }
}

/// One stream of [`streams`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stream<'a> {
    /// `stdout` or `stderr`.
    name: &'static str,
    /// The excerpt.
    text: &'a str,
    /// Whether the other stream is shown too, so this one needs its name.
    labelled: bool,
}

/// What happened to a failing or erroring check: `errored: why`,
/// `timed out; process tree killed`, `failed (exit N)`, or `failed`; then
/// the attempts' note when it ran more than once (`retries`).
fn outcome(check: &CheckRecord) -> String {
    if let Some(error) = &check.error {
        return format!("errored: {error}");
    }
    let failed = match check.exit_code {
        _ if check.timed_out => TIMED_OUT.into(),
        _ if check.flaky => "failed".into(),
        Some(code) => format!("failed (exit {code})"),
        None => "failed".into(),
    };
    attempts::with_note(failed, &check.attempt_log, check.flaky, check.status)
}

/// The line a passing run that did not run every check says above its
/// banner, in every human output (the text report, the banner on stderr
/// under `--format json`, the agent's feedback): [`nothing_ran`], else
/// [`partly_ran`].
pub(crate) fn ran_line(evidence: &Evidence) -> Option<String> {
    nothing_ran(evidence).or_else(|| partly_ran(evidence))
}

/// A passing run in which no check ran, said plainly (the banner of a
/// pass reads as if something was verified): why, and what runs them.
/// `None` when a check ran or the run did not pass.
fn nothing_ran(evidence: &Evidence) -> Option<String> {
    let s = &evidence.summary;
    if !s.all_checks_passed {
        return None;
    }
    if s.skipped < s.total {
        return no_tool_ran(evidence);
    }
    let fast = evidence.mode == run_check_documents::evidence::Mode::Fast;
    let strict = if fast {
        "; `run-check --mode strict` runs every check"
    } else {
        ""
    };
    if s.total == 0 {
        return Some(format!(
            "Nothing ran: no check is selected in {} mode{strict}",
            evidence.mode.as_str()
        ));
    }
    let reasons = skip_reasons(&evidence.checks);
    Some(format!(
        "Nothing ran: {} skipped ({}){strict}",
        match s.total {
            1 => "the one check was".to_string(),
            n => format!("all {n} checks were"),
        },
        reasons.join("; ")
    ))
}

/// A passing fast run that skipped some of its checks, said next to the
/// pass banner: `Only 2 of 8 checks ran: 6 skipped (no changed file
/// matches their `paths`); `run-check --mode strict` runs every check`.
/// "All checks passed!" alone reads as if every check had run. `None` when
/// every check ran, none did (`nothing_ran` says so), or the run failed.
fn partly_ran(evidence: &Evidence) -> Option<String> {
    let s = &evidence.summary;
    let fast = evidence.mode == run_check_documents::evidence::Mode::Fast;
    if !s.all_checks_passed || !fast || s.skipped == 0 || s.skipped >= s.total {
        return None;
    }
    let mut reasons: Vec<&str> = Vec::new();
    for check in evidence.checks.iter().filter(|c| c.status == Status::Skip) {
        let reason = match check.skip_reason.as_deref() {
            Some(r) if r.starts_with(PATHS_SKIP) => match s.skipped {
                1 => "no changed file matches its `paths`",
                _ => "no changed file matches their `paths`",
            },
            Some(r) => r,
            None => "skipped",
        };
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    Some(format!(
        "Only {} of {} ran: {} skipped ({}); `run-check --mode strict` runs every check",
        s.total - s.skipped,
        checks(s.total),
        s.skipped,
        reasons.join("; ")
    ))
}

/// A passing run in which only scans ran (no check started a program: a
/// starter checks.toml of a project init found no check for, or one whose
/// other checks were skipped), said plainly: the scans found no secret,
/// nothing built or tested the code. When checks that run tools were
/// skipped (fast mode: nothing they watch changed), the line says so and
/// how to run them, not to add checks that are already there.
fn no_tool_ran(evidence: &Evidence) -> Option<String> {
    let ran: Vec<&CheckRecord> = evidence
        .checks
        .iter()
        .filter(|c| c.status != Status::Skip)
        .collect();
    if ran.iter().any(|c| !c.command.is_empty()) {
        return None;
    }
    let names: Vec<String> = ran.iter().map(|c| format!("`{}`", c.name)).collect();
    let scans = format!(
        "No tool ran: only the scan{} {} ran",
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    );
    let fast = evidence.mode == run_check_documents::evidence::Mode::Fast;
    let skipped: Vec<&CheckRecord> = evidence
        .checks
        .iter()
        .filter(|c| c.status == Status::Skip && !c.command.is_empty())
        .collect();
    if skipped.is_empty() {
        let strict = if fast {
            ", or run `run-check --mode strict`"
        } else {
            ""
        };
        return Some(format!(
            "{scans}; no check built, linted or tested the code (add checks that run the project's tools to checks.toml{strict})"
        ));
    }
    let reasons = skip_reasons(skipped.iter().copied());
    Some(format!(
        "{scans}; {} skipped ({}){}",
        match skipped.len() {
            1 => "the one check that runs a tool was".to_string(),
            n => format!("the {n} checks that run tools were"),
        },
        reasons.join("; "),
        if fast {
            "; `run-check --mode strict` runs every check"
        } else {
            ""
        }
    ))
}

/// Why `checks` were skipped, each reason once, in their order (fast
/// mode's `paths` skips as one reason).
fn skip_reasons<'a>(checks: impl IntoIterator<Item = &'a CheckRecord>) -> Vec<&'a str> {
    let mut reasons: Vec<&str> = Vec::new();
    for check in checks {
        let reason = match check.skip_reason.as_deref() {
            Some(r) if r.starts_with(PATHS_SKIP) => "no changed file matches their `paths`",
            Some(r) => r,
            None => "skipped",
        };
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    reasons
}

/// How fast mode's skip reason for unmatched `paths` starts.
const PATHS_SKIP: &str = "no changed file matches `paths`";

/// Lines of each stream's output shown under a failing check.
const TAIL_LINES: usize = 12;

/// Whether a failing check's located errors explain its failure, so its
/// output's last lines need not be shown beside them: it has an
/// error-severity diagnostic with a file that is not the read-only
/// verification's and not one the `--baseline` knew (an old finding does
/// not explain why the check fails now). Where the error sits in the
/// output does not matter: a `cargo test --no-fail-fast` panic is followed
/// by the other test binaries' output, clippy's error by its help, eslint's
/// error by later warnings, tape's failure by a coverage table, and the
/// error is still the cause. A check whose diagnostics are only warnings
/// (lint warnings in an npm script whose later command failed, compiler
/// notes before a failing test step), or errors without a file, is not
/// explained by them: the cause is usually in the output's last lines.
fn explained(evidence: &Evidence, check: &CheckRecord) -> bool {
    of_check(&evidence.diagnostics, &check.name).any(|d| {
        d.severity == DiagSeverity::Error
            && d.file.is_some()
            && d.new != Some(false)
            && d.rule.as_deref() != Some(text::READ_ONLY_RULE)
    })
}

/// The renderers' sample evidence, for other modules' unit tests.
#[cfg(test)]
pub(crate) fn sample_evidence() -> Evidence {
    junit::sample::evidence()
}

/// A passing sample evidence, for other modules' unit tests.
#[cfg(test)]
pub(crate) fn sample_passing() -> Evidence {
    junit::sample::passing()
}

#[cfg(test)]
mod tests;
