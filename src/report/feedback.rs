//! The feedback an agent reads (docs/agents.md): what an agent hook gives as
//! the reason for a blocked stop, what `agent feedback` prints and what the
//! MCP tools return as text. A model sees a bounded slice of what a hook
//! prints (Claude Code moves more than 10,000 characters to a file and shows
//! a 2 KB preview), so the answer is sized to fit and ordered by what helps
//! most: the verdict and counts; each new problem as `path:line[:col]:
//! [check rule] message` in the tool's words, errors before warnings,
//! grouped by check, a formatter's hunk (`report::hunk`) indented under its
//! problem; for a failed check its located errors do not explain,
//! the last lines of its output as the text report shows them
//! (`report::output_tail`); the next step; where
//! the whole evidence is. When cut, the last line says how many problems
//! were left out and how to see them all (after the evidence's path).
//!
//! Plain text, one problem a line, no control character (the checks'
//! output is the code under test's: escapes and forged CI commands are
//! defused, newlines in a message cannot start a line of their own), and
//! deterministic: the same evidence gives the same bytes.

use std::fmt::Write;

use run_check_documents::evidence::{CheckRecord, DiagSeverity, Diagnostic, Evidence, Status};

/// The smallest bound that still holds the verdict, the next step and the
/// evidence's path.
pub(crate) const MIN_CHARS: usize = 300;

/// One line of feedback at most this long: a minified bundle's line must
/// not crowd out every other problem.
pub(crate) const LINE_CHARS: usize = 400;

/// The rule of the read-only verification's diagnostics.
const READ_ONLY_RULE: &str = "read-only";

/// What the feedback adds around the evidence.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options<'a> {
    /// At most this many characters (Unicode scalar values), newlines
    /// included; raised to [`MIN_CHARS`].
    pub(crate) max_chars: usize,
    /// The next step, one line (the judge's route and action).
    pub(crate) next: Option<&'a str>,
    /// Where the whole evidence is.
    pub(crate) evidence_path: Option<&'a str>,
}

/// The feedback of `evidence` within `options.max_chars` characters.
pub(crate) fn render(evidence: &Evidence, options: &Options<'_>) -> String {
    let max = options.max_chars.max(MIN_CHARS);
    let problems = problems(evidence);
    let head = clean(&headline(evidence, &problems), max);
    let mut tail_lines = Vec::new();
    if let Some(next) = options.next {
        tail_lines.push(clean(&format!("next: {next}"), LINE_CHARS));
    }
    if let Some(path) = options.evidence_path {
        tail_lines.push(clean(&format!("evidence: {path}"), LINE_CHARS));
    }
    let mut body = body(evidence, &problems);
    // A pass that ran no tool, or only some checks, is no plain pass to
    // the agent either.
    if let Some(line) = super::ran_line(evidence) {
        body.insert(0, Line::other(&line));
    }
    fit(&head, &body, &tail_lines, problems.len(), options, max)
}

/// A problem the feedback lists: a new diagnostic of a check that did not
/// pass, or a file the checks modified.
struct Problem<'a> {
    check: &'a str,
    diagnostic: &'a Diagnostic,
}

/// The new problems, grouped by check in the evidence's order (the
/// read-only verification's last), errors before warnings within a check.
fn problems(evidence: &Evidence) -> Vec<Problem<'_>> {
    let failed = super::failed_checks(evidence);
    let mut problems = Vec::new();
    for check in &failed {
        let mut own: Vec<&Diagnostic> = super::of_check(&evidence.diagnostics, &check.name)
            .filter(|d| d.new != Some(false) && d.rule.as_deref() != Some(READ_ONLY_RULE))
            .collect();
        own.sort_by_key(|d| super::rank(d.severity));
        problems.extend(own.into_iter().map(|diagnostic| Problem {
            check: &check.name,
            diagnostic,
        }));
    }
    problems.extend(
        evidence
            .diagnostics
            .iter()
            .filter(|d| d.rule.as_deref() == Some(READ_ONLY_RULE))
            .map(|diagnostic| Problem {
                check: &diagnostic.check,
                diagnostic,
            }),
    );
    problems
}

/// `FAIL: 2 of 7 checks failed (tests, clippy): 3 new problems`.
fn headline(evidence: &Evidence, problems: &[Problem<'_>]) -> String {
    let s = &evidence.summary;
    let mut line = String::from(run_check_documents::exit_code::word(s.exit_code));
    let not_passed: Vec<&str> = evidence
        .checks
        .iter()
        .filter(|c| c.status.is_failure())
        .map(|c| c.name.as_str())
        .collect();
    if not_passed.is_empty() {
        let _ = write!(line, ": {} of {} checks passed", s.passed, s.total);
        if s.skipped > 0 {
            let _ = write!(line, ", {} skipped", s.skipped);
        }
    } else {
        let verb = match (s.failed, s.errored) {
            (_, 0) => "failed",
            (0, _) => "errored",
            _ => "failed or errored",
        };
        let _ = write!(
            line,
            ": {} of {} checks {verb} ({})",
            not_passed.len(),
            s.total,
            not_passed.join(", ")
        );
    }
    if !problems.is_empty() {
        let new = if s.baseline.is_some() { "new " } else { "" };
        let counted = crate::output::plural(problems.len(), &format!("{new}problem"));
        let _ = write!(line, ": {counted}");
    } else if let (false, Some(error), true) = (
        evidence.contracts.read_only.verified,
        &evidence.contracts.read_only.error,
        s.exit_code != 0,
    ) {
        let _ = write!(line, ": read-only verification failed: {error}");
    }
    line
}

/// The lines between the headline and the next step: per failed check its
/// errors, or its output's last lines when none of them is a located
/// error; then every failed check's other problems; then the files the
/// checks modified; then a changed gate. Errors lead across checks: one
/// check's many warnings must not push another check's failing test out of
/// the bounded feedback.
fn body(evidence: &Evidence, problems: &[Problem<'_>]) -> Vec<Line> {
    let failing: Vec<&CheckRecord> = evidence
        .checks
        .iter()
        .filter(|c| c.status.is_failure())
        .collect();
    let own = |check: &CheckRecord, errors: bool| -> Vec<&Problem<'_>> {
        problems
            .iter()
            .filter(|p| p.check == check.name && !is_read_only(p.diagnostic))
            .filter(|p| (p.diagnostic.severity == DiagSeverity::Error) == errors)
            .collect()
    };
    let mut lines = Vec::new();
    for check in &failing {
        lines.extend(own(check, true).into_iter().flat_map(problem_lines));
        // The same decision and the same lines as the text report.
        if !super::explained(evidence, check) {
            lines.push(Line::other(&format!("{}: {}", check.name, outcome(check))));
            for text in super::output_tail(check) {
                lines.push(Line::other(&format!("  | {text}")));
            }
        }
    }
    for check in &failing {
        lines.extend(own(check, false).into_iter().flat_map(problem_lines));
    }
    lines.extend(
        problems
            .iter()
            .filter(|p| is_read_only(p.diagnostic))
            .map(problem),
    );
    if let Some(gate) = super::changed_gate(evidence) {
        lines.push(Line::other(&format!(
            "gate changed against {}: {}",
            gate.base.as_deref().unwrap_or("the base"),
            gate.changed.join(", ")
        )));
    }
    lines
}

fn is_read_only(d: &Diagnostic) -> bool {
    d.rule.as_deref() == Some(READ_ONLY_RULE)
}

/// A line of the body: a problem counts toward "N more problems" when cut.
struct Line {
    text: String,
    problem: bool,
}

impl Line {
    /// A line that is no problem, cleaned and cut to `LINE_CHARS`.
    fn other(text: &str) -> Line {
        Line {
            text: clean(text, LINE_CHARS),
            problem: false,
        }
    }
}

/// `path:line[:col]: [check rule] message`, the message's first line.
fn problem(p: &Problem<'_>) -> Line {
    let d = p.diagnostic;
    let mut line = super::file_prefix(d);
    let _ = write!(line, "[{}", p.check);
    if let Some(rule) = &d.rule {
        let _ = write!(line, " {rule}");
    }
    line.push_str("] ");
    if d.severity != DiagSeverity::Error {
        let _ = write!(line, "{}: ", d.severity.as_str());
    }
    line.push_str(d.message.lines().next().unwrap_or(""));
    Line {
        text: clean(&line, LINE_CHARS),
        problem: true,
    }
}

/// A problem's line and, indented under it, what its message says beyond
/// the first line: a formatter's hunk (what differs, not only where) or a
/// test's expected and actual values.
fn problem_lines(p: &Problem<'_>) -> Vec<Line> {
    let mut lines = vec![problem(p)];
    lines.extend(
        super::details(p.diagnostic)
            .iter()
            .map(|l| Line::other(&format!("  {l}"))),
    );
    lines
}

/// What happened to a check that did not pass: `exit 1`, `timed out`, ...
fn outcome(check: &CheckRecord) -> String {
    match check.status {
        Status::Error => match &check.error {
            Some(why) => format!("error: {}", why.lines().next().unwrap_or("")),
            None => "error".into(),
        },
        _ if check.timed_out => "timed out".into(),
        _ => match check.exit_code {
            Some(code) => format!("failed with exit {code}, its output ends"),
            None => "failed".into(),
        },
    }
}

/// `text` on one line with no control character and at most `max`
/// characters (an ellipsis marks a cut). Line and paragraph separators,
/// bidirectional controls and zero-width characters are shown as escapes
/// (`\u{2028}`) first: a model or a terminal may start a line at a
/// separator or reorder text at a bidi control, so a check's output could
/// otherwise show a `next:` or `evidence:` line of its own, or hide text.
pub(crate) fn clean(text: &str, max: usize) -> String {
    let escaped = escape_invisible(text);
    let shown = crate::sanitize::for_display(&escaped);
    let mut out = String::with_capacity(shown.len().min(max * 4));
    let mut count = 0;
    let mut chars = shown.chars().peekable();
    while let Some(c) = chars.next() {
        let c = if c.is_control() { ' ' } else { c };
        if count + 1 == max && chars.peek().is_some() {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// `text` with each character that can move or hide text on screen
/// written as `\u{XXXX}`: NEL (U+0085), the line and paragraph separators
/// (U+2028, U+2029), the bidirectional controls (U+061C, U+200E, U+200F,
/// U+202A..U+202E, U+2066..U+2069) and the zero-width and invisible
/// characters (U+200B..U+200D, U+2060..U+2064, U+FEFF, U+180E).
pub(crate) fn escape_invisible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        matches!(c,
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{61c}' | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}'
            | '\u{feff}' | '\u{180e}')
    };
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The headline, as many body lines as fit, the cut line when some did
/// not, and the tail lines, within `max` characters.
fn fit(
    head: &str,
    body: &[Line],
    tail: &[String],
    total_problems: usize,
    options: &Options<'_>,
    max: usize,
) -> String {
    let chars = |s: &str| s.chars().count() + 1;
    let tail_chars: usize = tail.iter().map(|l| chars(l)).sum();
    let mut out = String::new();
    let mut used = chars(head) + tail_chars;
    out.push_str(head);
    out.push('\n');
    let mut shown_problems = 0;
    let mut cut = false;
    for (i, line) in body.iter().enumerate() {
        // A cut line (its short form) must fit after the last line shown.
        let reserve = if i + 1 < body.len() {
            chars(&cut_line(total_problems - shown_problems, options, 0))
        } else {
            0
        };
        if used + chars(&line.text) + reserve > max {
            cut = true;
            break;
        }
        used += chars(&line.text);
        out.push_str(&line.text);
        out.push('\n');
        shown_problems += usize::from(line.problem);
    }
    for line in tail {
        out.push_str(line);
        out.push('\n');
    }
    // When cut, the last line says so: what a reader of the end sees.
    if cut {
        let line = cut_line(
            total_problems - shown_problems,
            options,
            max.saturating_sub(used + 1),
        );
        if used + chars(&line) <= max {
            out.push_str(&line);
            out.push('\n');
        }
    }
    // A headline or tail longer than the bound alone: cut at the bound.
    if out.chars().count() > max {
        out = out.chars().take(max).collect();
    }
    out
}

/// The last line of a cut feedback, naming the command that shows all
/// when it fits in `room` characters.
fn cut_line(left: usize, options: &Options<'_>, room: usize) -> String {
    let what = match left {
        0 => "some output was left out".to_string(),
        1 => "1 more problem left out".to_string(),
        n => format!("{n} more problems left out"),
    };
    let long = options.evidence_path.map(|path| {
        clean(
            &format!("… {what}: `run-check agent feedback {path} --max-chars 100000` shows all"),
            LINE_CHARS,
        )
    });
    match long {
        Some(long) if long.chars().count() <= room => long,
        _ => format!("… {what}; the evidence has all"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use run_check_documents::evidence::DiagSeverity;

    fn failing() -> Evidence {
        let mut evidence = super::super::sample_evidence();
        evidence.summary.exit_code = 1;
        evidence
    }

    fn options(max_chars: usize) -> Options<'static> {
        Options {
            max_chars,
            next: Some("IMPLEMENTER: fix the reported problems"),
            evidence_path: Some(".git/run-check/agent/s/round-1.json"),
        }
    }

    #[test]
    fn every_line_is_clean_and_the_whole_fits() {
        let mut evidence = failing();
        let check = evidence
            .checks
            .iter()
            .find(|c| c.status.is_failure())
            .unwrap()
            .name
            .clone();
        for i in 0..2000 {
            evidence.diagnostics.push(Diagnostic {
                check: check.clone(),
                file: Some(format!("src/\u{1b}[31mf{i}.rs")),
                line: Some(i),
                column: None,
                severity: DiagSeverity::Error,
                rule: Some("E1".into()),
                message: "bad\n::error::forged\r\u{7}\"}".into(),
                suggestion: None,
                new: None,
            });
        }
        for max in [MIN_CHARS, 1000, 4000, 9000] {
            let out = render(&evidence, &options(max));
            assert!(out.chars().count() <= max, "{max}: {}", out.chars().count());
            assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out}");
            assert!(!out.contains("\n::error"), "{out}");
            // When cut, the last line says so, after the evidence's path.
            let last = out.lines().last().unwrap();
            assert!(
                last.starts_with("… ") && last.contains("more problems left out"),
                "{out}"
            );
            assert!(out.contains("\nevidence: "), "{out}");
            assert_eq!(out, render(&evidence, &options(max)));
        }
    }

    #[test]
    fn errors_come_before_warnings_and_old_ones_are_left_out() {
        let mut evidence = failing();
        let check = evidence
            .checks
            .iter()
            .find(|c| c.status.is_failure())
            .unwrap()
            .name
            .clone();
        evidence.diagnostics.retain(|d| d.check != check);
        let d = |line, severity, new| Diagnostic {
            check: check.clone(),
            file: Some("src/a.py".into()),
            line: Some(line),
            column: Some(3),
            severity,
            rule: Some("R".into()),
            message: format!("m{line}"),
            suggestion: None,
            new,
        };
        evidence.summary.baseline = Some("base.json".into());
        evidence
            .diagnostics
            .push(d(1, DiagSeverity::Warning, Some(true)));
        evidence
            .diagnostics
            .push(d(2, DiagSeverity::Error, Some(false)));
        evidence
            .diagnostics
            .push(d(3, DiagSeverity::Error, Some(true)));
        let out = render(&evidence, &options(4000));
        let at = |needle: &str| {
            out.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {out}"))
        };
        assert!(at("src/a.py:3:3: [") < at("src/a.py:1:3: ["), "{out}");
        assert!(!out.contains("src/a.py:2:3"), "{out}");
        assert!(
            out.lines().next().unwrap().ends_with(": 2 new problems"),
            "{out}"
        );
    }
}
