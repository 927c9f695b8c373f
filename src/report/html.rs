//! The `html` report: one self-contained page (inline CSS, no script, no
//! request of any kind) with the summary, a timeline of the checks, the
//! failing checks with their diagnostics grouped by file and the tail of
//! their output, a table of every check, and the contracts.
//!
//! The timeline draws each check that started (`checks[].started_ms`) as a
//! bar from its start offset for its `duration_ms`; `left` and `width` are
//! percentages of the timeline's span (the run's duration, or the latest
//! end when later). The evidence does not say which worker ran a check, so
//! the rows are packed greedily: in order of start, a check goes on the
//! first row that is free at its start (the row's last check ended at or
//! before it), else on a new row. With `--jobs N` the rows are at most N.
//! Bars are written in the evidence's check order, each a link to the
//! check's details (failing) or table row, with `data-check`,
//! `data-status`, `data-row`, `data-start-ms` and `data-duration-ms`.
//!
//! Every string of the evidence is escaped for HTML (text and attribute
//! values alike, quotes included) after the display sanitizing every report
//! gets; a Content-Security-Policy forbids scripts, so even a string that
//! got through could not run one. Sizes are capped: the first
//! `MAX_FAILED_DETAILS` failing checks in detail (the rest named), the
//! first `MAX_DIAGNOSTICS` diagnostics of each, then a count; the last
//! lines of each stream as in `markdown`, end first (the last lines in view,
//! the earlier ones folded under them), with a line saying that no error
//! listed explains the exit when none does (`report::explained`).

use std::fmt::Write;

use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence, Status};

use super::markdown::{MAX_EXCERPT_CHARS, tail};

/// Diagnostics listed at most per failing check.
pub(crate) const MAX_DIAGNOSTICS: usize = 50;
/// Failing checks shown in detail at most; the rest are named.
const MAX_FAILED_DETAILS: usize = 100;
/// Modified paths listed at most.
const MAX_MODIFIED: usize = 200;
/// Characters of a diagnostic message shown at most.
const MAX_MESSAGE_CHARS: usize = 500;

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}h4{font-size:13px;margin:10px 0 4px;color:#57606a}
.verdict-pass{color:#1a7f37}.verdict-fail{color:#cf222e}
.facts{color:#57606a;margin:0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-all}
.timeline{display:flex;gap:8px;align-items:flex-start}
.workers{flex:0 0 72px;color:#57606a;font-size:12px}
.workers div{height:24px;line-height:24px}
.lanes{position:relative;flex:1;background:repeating-linear-gradient(#f6f8fa 0 24px,#fff 24px 48px);border-left:1px solid #d0d7de;border-right:1px solid #d0d7de}
.bar{position:absolute;height:20px;margin-top:2px;min-width:2px;box-sizing:border-box;border-right:1px solid #fff;border-radius:3px;overflow:hidden;white-space:nowrap;font-size:11px;line-height:20px;padding:0 3px;color:#fff;text-decoration:none}
.axis{display:flex;justify-content:space-between;margin-left:80px;color:#57606a;font-size:12px}
.s-pass{background:#2da44e}.s-fail{background:#cf222e}.s-error{background:#bc4c00}.s-skip{background:#8c959f}
.tag{display:inline-block;border-radius:3px;padding:0 5px;color:#fff;font-size:12px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #d0d7de;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.check{border:1px solid #d0d7de;border-radius:6px;padding:4px 12px 10px;margin:10px 0}
.file{margin:6px 0 2px;font-weight:600}
ul.diags{margin:0;padding-left:20px}ul.diags li{margin:1px 0}
.old{color:#57606a}.sev-error{color:#cf222e}.sev-warning{color:#9a6700}.sev-note,.sev-info{color:#57606a}
.muted{color:#57606a}.cause{font-weight:600}
details.earlier summary{color:#57606a;font-size:12px;cursor:pointer}
.bar.flaky{background-image:repeating-linear-gradient(135deg,transparent 0 5px,rgba(255,255,255,.45) 5px 8px)}
"#;

/// The page (ends with a newline).
pub(super) fn render(evidence: &Evidence) -> String {
    let s = &evidence.summary;
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>run-check: {}</title>", esc(&s.banner));
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    summary(&mut out, evidence);
    timeline(&mut out, evidence);
    failing(&mut out, evidence);
    flaky(&mut out, evidence);
    all_checks(&mut out, evidence);
    contracts(&mut out, evidence);
    out.push_str("</body>\n</html>\n");
    out
}

/// The banner, the run's facts and the count line.
fn summary(out: &mut String, evidence: &Evidence) {
    let s = &evidence.summary;
    let class = if s.all_checks_passed {
        "verdict-pass"
    } else {
        "verdict-fail"
    };
    let _ = writeln!(
        out,
        "<header>\n<h1 id=\"banner\" class=\"{class}\" data-exit-code=\"{}\">{}</h1>",
        s.exit_code,
        esc(&s.banner)
    );
    let meta = &evidence.meta;
    let mut facts = vec![
        format!("run-check {}", esc(&meta.tool.version)),
        format!("<code>{}</code>", evidence.mode),
        esc(&super::tally(s)),
        super::seconds(s.duration_ms),
    ];
    if let Some(commit) = &meta.git.commit {
        let short: String = commit.chars().take(12).collect();
        let mut fact = format!("<code>{}</code>", esc(&short));
        if let Some(branch) = &meta.git.branch {
            let _ = write!(fact, " ({})", esc(branch));
        }
        facts.push(fact);
    }
    facts.push(esc(&meta.timestamp));
    if let Some(line) = super::baseline_line(evidence) {
        facts.push(format!("<span id=\"baseline\">{}</span>", esc(&line)));
    }
    let _ = writeln!(
        out,
        "<p class=\"facts\" id=\"facts\">{}</p>\n</header>",
        facts.join(" · ")
    );
}

/// A bar of the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bar {
    /// Index in `checks`.
    check: usize,
    /// Start offset, ms.
    start: u64,
    /// Duration, ms.
    duration: u64,
    /// Row, from 0.
    row: usize,
}

/// The bars of the checks that started, in check order, on rows packed
/// greedily (module docs).
fn bars(checks: &[CheckRecord]) -> Vec<Bar> {
    let mut order: Vec<(usize, u64)> = checks
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.started_ms.map(|start| (i, start)))
        .collect();
    order.sort_by_key(|&(i, start)| (start, i));
    let mut row_ends: Vec<u64> = Vec::new();
    let mut bars: Vec<Bar> = order
        .into_iter()
        .map(|(i, start)| {
            let duration = checks[i].duration_ms;
            let end = start.saturating_add(duration);
            let row = match row_ends.iter().position(|&free| free <= start) {
                Some(row) => row,
                None => {
                    row_ends.push(0);
                    row_ends.len() - 1
                }
            };
            row_ends[row] = end;
            Bar {
                check: i,
                start,
                duration,
                row,
            }
        })
        .collect();
    bars.sort_by_key(|b| b.check);
    bars
}

/// A percentage of `span` with 3 decimals.
fn percent(ms: u64, span: u64) -> String {
    format!("{:.3}%", ms as f64 * 100.0 / span.max(1) as f64)
}

/// The timeline section.
fn timeline(out: &mut String, evidence: &Evidence) {
    out.push_str("<section id=\"timeline-section\">\n<h2>Timeline</h2>\n");
    let bars = bars(&evidence.checks);
    if bars.is_empty() {
        out.push_str("<p class=\"muted\">No check started, or the evidence records no start times (written before <code>checks[].started_ms</code>).</p>\n</section>\n");
        return;
    }
    let span = bars
        .iter()
        .map(|b| b.start.saturating_add(b.duration))
        .max()
        .unwrap_or(0)
        .max(evidence.summary.duration_ms)
        .max(1);
    let rows = bars.iter().map(|b| b.row + 1).max().unwrap_or(1);
    out.push_str("<div class=\"timeline\">\n<div class=\"workers\" aria-hidden=\"true\">");
    for row in 1..=rows {
        let _ = write!(out, "<div>worker {row}</div>");
    }
    let _ = writeln!(
        out,
        "</div>\n<div class=\"lanes\" id=\"timeline\" data-span-ms=\"{span}\" data-rows=\"{rows}\" style=\"height:{}px\">",
        rows * 24
    );
    for bar in &bars {
        let check = &evidence.checks[bar.check];
        let name = esc(&check.name);
        let mut title = format!(
            "{}: {}, from {} for {}",
            check.name,
            check.status.as_str(),
            super::seconds(bar.start),
            super::seconds(bar.duration)
        );
        if let Some(note) = super::attempts::note(&check.attempt_log, check.flaky, check.status) {
            title = format!("{title}; {note}");
        }
        let _ = writeln!(
            out,
            "<a class=\"bar s-{status}{flaky}\" href=\"#{anchor}-{name}\" data-check=\"{name}\" data-status=\"{status}\" data-row=\"{row}\" data-start-ms=\"{start}\" data-duration-ms=\"{duration}\" style=\"left:{left};width:{width};top:{top}px\" title=\"{title}\">{name}</a>",
            status = check.status.as_str(),
            flaky = if check.flaky { " flaky" } else { "" },
            anchor = if check.status.is_failure() {
                "check"
            } else {
                "row"
            },
            row = bar.row,
            start = bar.start,
            duration = bar.duration,
            left = percent(bar.start, span),
            width = percent(bar.duration, span),
            top = bar.row * 24,
            title = esc(&title),
        );
    }
    out.push_str("</div>\n</div>\n");
    let _ = writeln!(
        out,
        "<div class=\"axis\"><span>0s</span><span>{}</span><span>{}</span></div>",
        super::seconds(span / 2),
        super::seconds(span)
    );
    let unstarted: Vec<String> = evidence
        .checks
        .iter()
        .filter(|c| c.started_ms.is_none())
        .map(|c| format!("<code>{}</code>", esc(&c.name)))
        .collect();
    if !unstarted.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"muted\">Not drawn (did not start, or no start time recorded): {}</p>",
            unstarted.join(", ")
        );
    }
    out.push_str("</section>\n");
}

/// The failing and erroring checks, each with its diagnostics grouped by
/// file and the tail of its output.
fn failing(out: &mut String, evidence: &Evidence) {
    let failing = super::failed_checks(evidence);
    if failing.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"failed\">\n<h2>Failed checks ({})</h2>",
        failing.len()
    );
    for check in failing.iter().take(MAX_FAILED_DETAILS) {
        let name = esc(&check.name);
        let _ = writeln!(
            out,
            "<article class=\"check\" id=\"check-{name}\" data-check=\"{name}\" data-status=\"{status}\">\n<h3><span class=\"tag s-{status}\">{status}</span> <code>{name}</code> — {outcome} · {time}</h3>",
            status = check.status.as_str(),
            outcome = esc(&super::outcome(check)),
            time = super::seconds(check.duration_ms),
        );
        if !check.command.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"muted\"><code>{}</code></p>",
                esc(&check.command.join(" "))
            );
        }
        let listed = diagnostics(out, check, evidence);
        let streams = super::streams(check);
        if streams.is_empty() {
            out.push_str("<p class=\"muted\">(no output)</p>\n");
        } else if listed && !super::explained(evidence, check) {
            out.push_str(
                "<p class=\"cause\">No error above explains the exit; the output ends:</p>\n",
            );
        }
        for stream in streams {
            excerpt(out, stream.name, &tail(stream.text, MAX_EXCERPT_CHARS));
        }
        out.push_str("</article>\n");
    }
    if failing.len() > MAX_FAILED_DETAILS {
        let rest: Vec<String> = failing[MAX_FAILED_DETAILS..]
            .iter()
            .map(|c| format!("<code>{}</code>", esc(&c.name)))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"muted\" id=\"failed-more\">… and {} more, without details (see the evidence): {}</p>",
            rest.len(),
            rest.join(", ")
        );
    }
    out.push_str("</section>\n");
}

/// One stream's excerpt, its end first: the last lines, where a failure
/// usually is, in a `pre` that needs no scrolling, and the lines before
/// them folded in a `details` under it.
fn excerpt(out: &mut String, stream: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let split = lines.len().saturating_sub(super::TAIL_LINES);
    let _ = writeln!(
        out,
        "<h4>{stream}</h4>\n<pre class=\"excerpt\" data-stream=\"{stream}\">{}</pre>",
        esc(&lines[split..].join("\n"))
    );
    if split > 0 {
        let _ = writeln!(
            out,
            "<details class=\"earlier\"><summary>the {} before these</summary><pre data-stream=\"{stream}\">{}</pre></details>",
            crate::output::plural(split as u64, "line"),
            esc(&lines[..split].join("\n"))
        );
    }
}

/// The flaky checks (failed, then passed on a retry), each with every
/// attempt's ending and time; their timeline bars are striped.
fn flaky(out: &mut String, evidence: &Evidence) {
    let flaky = super::attempts::flaky(&evidence.checks);
    if flaky.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"flaky\">\n<h2>Flaky checks ({})</h2>\n<p class=\"muted\">Failed, then passed when run again (<code>retries</code>); striped on the timeline.</p>\n<ul>",
        flaky.len()
    );
    for check in flaky {
        let name = esc(&check.name);
        let attempts: Vec<String> = check
            .attempt_log
            .iter()
            .enumerate()
            .map(|(i, a)| {
                format!(
                    "{}: {} in {}",
                    i + 1,
                    super::attempts::attempt_ending(a),
                    super::seconds(a.duration_ms)
                )
            })
            .collect();
        let note = super::attempts::note(&check.attempt_log, true, check.status)
            .unwrap_or_else(|| "flaky".into());
        let _ = writeln!(
            out,
            "<li data-check=\"{name}\" data-attempts=\"{}\"><code>{name}</code> <span class=\"tag s-{status}\">{status}</span> {} <span class=\"muted\">({})</span></li>",
            check.attempts,
            esc(&note),
            esc(&attempts.join("; ")),
            status = check.status.as_str(),
        );
    }
    out.push_str("</ul>\n</section>\n");
}

/// A check's diagnostics grouped by file (files in order of first
/// appearance, diagnostics without a file last; within a file by line and
/// column, as an editor shows them, those without a line first): the first
/// `MAX_DIAGNOSTICS`, the rest counted. Whether it listed any.
fn diagnostics(out: &mut String, check: &CheckRecord, evidence: &Evidence) -> bool {
    let all: Vec<&Diagnostic> = super::of_check(&evidence.diagnostics, &check.name).collect();
    let total = all.len() as u64 + check.diagnostics_dropped;
    if total == 0 {
        return false;
    }
    let _ = writeln!(out, "<h4>Diagnostics ({total})</h4>");
    // Files in order of first appearance (at most MAX_DIAGNOSTICS entries).
    let mut files: Vec<(Option<&str>, Vec<&Diagnostic>)> = Vec::new();
    for d in all.iter().take(MAX_DIAGNOSTICS) {
        let file = d.file.as_deref();
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, list)) => list.push(d),
            None => files.push((file, vec![d])),
        }
    }
    files.sort_by_key(|(file, _)| file.is_none());
    for (_, list) in &mut files {
        list.sort_by_key(|d| (d.line, d.column));
    }
    for (file, list) in files {
        let shown = file.map_or_else(|| "(no file)".to_string(), esc);
        let _ = writeln!(
            out,
            "<div class=\"file\" data-file=\"{}\"><code>{shown}</code> ({})</div>\n<ul class=\"diags\">",
            file.map(esc).unwrap_or_default(),
            list.len()
        );
        for d in list {
            let _ = writeln!(out, "<li>{}</li>", diagnostic_item(d));
        }
        out.push_str("</ul>\n");
    }
    let more = total - total.min(MAX_DIAGNOSTICS as u64);
    if more > 0 {
        let _ = writeln!(
            out,
            "<p class=\"muted\">… and {more} more (the evidence lists up to {} per check and counts the rest)</p>",
            crate::parse::MAX_PER_CHECK
        );
    }
    true
}

/// `line:col severity [rule] message`, escaped.
fn diagnostic_item(d: &Diagnostic) -> String {
    let location = super::line_col(d);
    let message = crate::sanitize::one_line(&d.message, MAX_MESSAGE_CHARS);
    let rule = d
        .rule
        .as_deref()
        .map(|r| format!(" [{}]", esc(r)))
        .unwrap_or_default();
    let old = match d.new {
        Some(false) => format!(" <span class=\"old\">({})</span>", super::OLD_MARK),
        _ => String::new(),
    };
    format!(
        "<code>{}</code> <span class=\"sev-{sev}\">{sev}</span>{rule} {}{old}",
        esc(&location),
        esc(&message),
        sev = d.severity,
    )
}

/// The table of every check, in the evidence's order.
fn all_checks(out: &mut String, evidence: &Evidence) {
    out.push_str("<section id=\"checks\">\n<h2>All checks</h2>\n<table>\n<thead><tr><th>Check</th><th>Status</th><th>Start</th><th>Time</th><th>Details</th></tr></thead>\n<tbody>\n");
    for check in &evidence.checks {
        let count = super::of_check(&evidence.diagnostics, &check.name).count() as u64
            + check.diagnostics_dropped;
        let mut details = Vec::new();
        let ending = super::detail(check);
        if !ending.is_empty() {
            details.push(esc(&ending));
        }
        if count > 0 {
            details.push(crate::output::plural(count, "diagnostic"));
        }
        if let Some(score) = check.score {
            details.push(format!("score {score}"));
        }
        let (start, time) = match (check.status, check.started_ms) {
            (Status::Skip, _) => ("—".to_string(), "—".to_string()),
            (_, None) => ("—".to_string(), super::seconds(check.duration_ms)),
            (_, Some(start)) => (super::seconds(start), super::seconds(check.duration_ms)),
        };
        let _ = writeln!(
            out,
            "<tr id=\"row-{name}\" data-check=\"{name}\"><td><code>{name}</code></td><td><span class=\"tag s-{status}\">{status}</span></td><td class=\"num\">{start}</td><td class=\"num\">{time}</td><td>{}</td></tr>",
            details.join(" · "),
            name = esc(&check.name),
            status = check.status.as_str(),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// The read-only, task, change-budget and gate contracts.
fn contracts(out: &mut String, evidence: &Evidence) {
    let c = &evidence.contracts;
    out.push_str("<section id=\"contracts\">\n<h2>Contracts</h2>\n<h3>Read-only</h3>\n");
    read_only(out, &c.read_only);
    task(out, c.task.as_ref());
    if let Some(budget) = &c.change_budget {
        let _ = writeln!(
            out,
            "<p id=\"change-budget\" data-exceeded=\"{}\">Change since <code>{}</code>: {} of {} files, {} of {} lines{}.</p>",
            budget.exceeded,
            esc(&budget.base),
            budget.files_changed,
            budget.max_files,
            budget.loc_changed,
            budget.max_loc,
            if budget.exceeded { " — exceeded" } else { "" }
        );
    }
    if let Some(gate) = &c.gate {
        let base = gate
            .base
            .as_deref()
            .map(|b| format!(" against <code>{}</code>", esc(b)))
            .unwrap_or_default();
        if gate.changed.is_empty() {
            let _ = writeln!(
                out,
                "<p id=\"gate\">The gate's own files are unchanged{base}.</p>"
            );
        } else {
            let files: Vec<String> = gate
                .changed
                .iter()
                .map(|f| format!("<code>{}</code>", esc(f)))
                .collect();
            let _ = writeln!(
                out,
                "<p id=\"gate\">The gate's own files changed{base}: {}.</p>",
                files.join(", ")
            );
        }
    }
    out.push_str("</section>\n");
}

/// The read-only contract: not verified, held, broken (with the paths) or
/// failed to verify.
fn read_only(out: &mut String, read_only: &run_check_documents::evidence::ReadOnly) {
    match (&read_only.error, read_only.verified) {
        (Some(why), _) => {
            let _ = writeln!(
                out,
                "<p id=\"read-only\" data-state=\"error\">Verification failed: {}</p>",
                esc(why)
            );
        }
        (None, false) => out.push_str(
            "<p id=\"read-only\" data-state=\"off\">Not verified (fast mode without <code>--verify-read-only</code>).</p>\n",
        ),
        (None, true) if read_only.modified.is_empty() => out.push_str(
            "<p id=\"read-only\" data-state=\"held\">Verified: the checks modified nothing.</p>\n",
        ),
        (None, true) => {
            let _ = writeln!(
                out,
                "<p id=\"read-only\" data-state=\"broken\">Verified: the checks modified {}:</p>\n<ul class=\"modified\">",
                crate::output::plural(read_only.modified.len(), "path")
            );
            for path in read_only.modified.iter().take(MAX_MODIFIED) {
                let _ = writeln!(out, "<li><code>{}</code></li>", esc(path));
            }
            if read_only.modified.len() > MAX_MODIFIED {
                let _ = writeln!(
                    out,
                    "<li>… and {} more (see the evidence)</li>",
                    read_only.modified.len() - MAX_MODIFIED
                );
            }
            out.push_str("</ul>\n");
        }
    }
}

/// The task contract and its broken limits.
fn task(out: &mut String, task: Option<&run_check_documents::evidence::TaskContract>) {
    out.push_str("<h3>Task</h3>\n");
    match task {
        None => out.push_str("<p id=\"task\" data-state=\"none\">No task contract (run without <code>--task</code>).</p>\n"),
        Some(task) => {
            let state = if task.valid { "valid" } else { "broken" };
            let _ = writeln!(
                out,
                "<p id=\"task\" data-state=\"{state}\">Task <code>{}</code>: {}.</p>",
                esc(&task.id),
                if task.valid {
                    "every limit holds".to_string()
                } else {
                    crate::output::plural(task.violations.len(), "limit") + " broken"
                }
            );
            if !task.violations.is_empty() {
                out.push_str("<ul class=\"violations\">\n");
                for v in &task.violations {
                    let _ = writeln!(
                        out,
                        "<li><code>{}</code>: {}</li>",
                        esc(&v.field),
                        esc(&v.message)
                    );
                }
                out.push_str("</ul>\n");
            }
        }
    }
}

/// `text` escaped for HTML text and double- or single-quoted attribute
/// values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::junit::sample;
    use super::*;

    fn with_starts(starts: &[Option<u64>], durations: &[u64]) -> Vec<CheckRecord> {
        let base = sample::evidence().checks[0].clone();
        starts
            .iter()
            .zip(durations)
            .enumerate()
            .map(|(i, (&start, &duration))| CheckRecord {
                name: format!("c{i}"),
                started_ms: start,
                duration_ms: duration,
                ..base.clone()
            })
            .collect()
    }

    #[test]
    fn rows_are_packed_greedily_and_bars_stay_in_check_order() {
        // c0 0..1000 on row 0; c1 0..200 on row 1; c2 200..800 on row 1
        // (free at 200); c3 900..1000 on row 1 (row 0 is busy until 1000,
        // row 1 free since 800); c4 did not start: no bar.
        let checks = with_starts(
            &[Some(0), Some(0), Some(200), Some(900), None],
            &[1000, 200, 600, 100, 0],
        );
        let rows: Vec<(usize, usize)> = bars(&checks).iter().map(|b| (b.check, b.row)).collect();
        assert_eq!(rows, [(0, 0), (1, 1), (2, 1), (3, 1)]);
        // A check starting exactly when another ends shares its row.
        let checks = with_starts(&[Some(0), Some(500)], &[500, 10]);
        let rows: Vec<usize> = bars(&checks).iter().map(|b| b.row).collect();
        assert_eq!(rows, [0, 0]);
    }

    #[test]
    fn hostile_strings_are_escaped_everywhere() {
        let mut evidence = sample::evidence();
        let evil = "\"><script>alert(1)</script><img src=x onerror='y'>";
        evidence.checks[1].name = evil.into();
        evidence.checks[1].started_ms = Some(0);
        evidence.checks[1].stdout_excerpt = format!("</pre></script>{evil}\n");
        evidence.diagnostics[0].check = evil.into();
        evidence.diagnostics[0].file = Some(evil.into());
        evidence.diagnostics[0].message = evil.into();
        evidence.contracts.read_only.modified = vec![evil.into()];
        evidence.summary.banner = evil.into();
        let page = render(&evidence);
        assert!(!page.contains("<script"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(!page.contains("</script"), "{page}");
        assert!(!page.contains("'y'"), "{page}");
        assert!(page.contains(
            "data-check=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;\""
        ));
    }

    #[test]
    fn the_sample_page_has_its_sections() {
        let mut evidence = sample::evidence();
        for (i, check) in evidence.checks.iter_mut().enumerate() {
            check.started_ms = (i < 4).then_some(i as u64 * 100);
        }
        let page = render(&evidence);
        assert!(page.starts_with("<!DOCTYPE html>\n"));
        assert!(page.ends_with("</html>\n"));
        assert_eq!(page.matches("class=\"bar ").count(), 4);
        // `ok` at 0 for 812 ms of a span of 2345 ms (the run's duration).
        assert!(page.contains(
            "data-check=\"ok\" data-status=\"pass\" data-row=\"0\" data-start-ms=\"0\" data-duration-ms=\"812\" style=\"left:0.000%;width:34.627%;top:0px\""
        ));
        assert!(
            page.contains(
                "Not drawn (did not start, or no start time recorded): <code>later</code>"
            )
        );
        let failed = page.find("id=\"failed\"").unwrap();
        let table = page.find("id=\"checks\"").unwrap();
        assert!(failed < table);
        // lint's two diagnostics, each under its file.
        assert!(
            page.contains(
                "<div class=\"file\" data-file=\"src/a.c\"><code>src/a.c</code> (1)</div>"
            )
        );
        assert!(page.contains("<code>3:5</code> <span class=\"sev-error\">error</span> bad thing"));
        assert!(page.contains(
            "<span class=\"sev-warning\">warning</span> [W:1] odd 100% message second | line"
        ));
        assert!(page.contains("<p id=\"read-only\" data-state=\"held\">"));
    }

    #[test]
    fn past_the_cap_failing_checks_are_only_named() {
        let mut evidence = sample::evidence();
        let failing = evidence.checks[1].clone();
        evidence.checks = (0..MAX_FAILED_DETAILS + 2)
            .map(|i| CheckRecord {
                name: format!("f{i}"),
                ..failing.clone()
            })
            .collect();
        let page = render(&evidence);
        assert_eq!(
            page.matches("<article class=\"check\"").count(),
            MAX_FAILED_DETAILS
        );
        assert!(page.contains(
            "… and 2 more, without details (see the evidence): <code>f100</code>, <code>f101</code></p>"
        ));
    }

    #[test]
    fn a_failing_checks_diagnostics_are_capped() {
        let mut evidence = sample::evidence();
        let d = evidence.diagnostics[0].clone();
        evidence.diagnostics = (0..MAX_DIAGNOSTICS as u64 + 7)
            .map(|line| Diagnostic {
                line: Some(line + 1),
                ..d.clone()
            })
            .collect();
        evidence.checks[1].diagnostics_dropped = 3;
        let page = render(&evidence);
        assert_eq!(page.matches("<li><code>").count(), MAX_DIAGNOSTICS);
        assert!(page.contains("<h4>Diagnostics (60)</h4>"));
        assert!(page.contains("… and 10 more"));
    }

    #[test]
    fn a_file_s_diagnostics_are_in_line_order() {
        let mut evidence = sample::evidence();
        let d = evidence.diagnostics[0].clone();
        evidence.diagnostics = [(9, "nine"), (2, "two"), (5, "five")]
            .into_iter()
            .map(|(line, message)| Diagnostic {
                line: Some(line),
                message: message.into(),
                ..d.clone()
            })
            .collect();
        let page = render(&evidence);
        let at = |m: &str| page.find(m).unwrap_or_else(|| panic!("{m}"));
        assert!(at("two") < at("five") && at("five") < at("nine"));
    }
}
