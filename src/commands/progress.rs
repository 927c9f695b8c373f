//! What stderr shows while checks or fixes run (docs/running.md#on-a-terminal).
//!
//! Piped, in CI or on a dumb terminal: a header line, then one plain line per
//! finished check (colour only when forced). On a terminal: a live view
//! redrawn in place, the running checks with their elapsed time below the
//! finished ones. When the `text` report comes to the same terminal
//! afterwards, the whole view is erased at the end and the report is the one
//! listing of the checks; otherwise the header and the finished lines stay.
//! The view is redrawn by one thread, started only on a terminal.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::console;
use crate::report;
use crate::run::evidence::Status;
use crate::run::plan::{Plan, PlannedCheck};
use crate::run::runner::{CheckResult, Event};
use run_check_documents::evidence::Attempt;

/// How often the running checks' times are redrawn.
const REDRAW: Duration = Duration::from_millis(200);

/// Progress on stderr.
pub(super) struct Progress {
    width: usize,
    shown: Shown,
}

enum Shown {
    Quiet,
    Plain { colour: bool },
    Live(Live),
}

impl Progress {
    /// `what`: `strict`, `fast` or `fix`; `report_here`: the `text` report
    /// is written to this terminal after the run.
    pub(super) fn new(quiet: bool, plan: &Plan<'_>, what: &str, report_here: bool) -> Progress {
        let width = plan
            .checks
            .iter()
            .map(|c| c.name().chars().count())
            .max()
            .unwrap_or(0);
        let noun = if what == "fix" { "fix" } else { "check" };
        let counted = crate::output::plural(plan.checks.len(), noun);
        let header = format!("run-check {what}: {counted}, {} at a time", plan.jobs);
        let shown = if quiet {
            Shown::Quiet
        } else if console::stderr_live() {
            Shown::Live(Live::start(
                header,
                report_here && console::stdout_is_terminal(),
                width,
            ))
        } else {
            let _ = writeln!(std::io::stderr().lock(), "{header}");
            Shown::Plain {
                colour: console::stderr_colour(),
            }
        };
        Progress { width, shown }
    }

    pub(super) fn show(&mut self, event: Event<'_>) {
        match (&mut self.shown, event) {
            (Shown::Quiet, _) | (Shown::Plain { .. }, Event::Started(_)) => {}
            (Shown::Plain { colour }, Event::Finished(check, result)) => {
                let line = finished_line(check.name(), result, self.width, *colour, None);
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
            (Shown::Plain { colour }, Event::Retrying(check, failed, next)) => {
                let line = retry_line(check, failed, next, self.width, *colour, None);
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
            (Shown::Live(live), Event::Retrying(check, failed, next)) => {
                let mut state = lock(&live.shared.0);
                let columns = Some(state.columns());
                let line = retry_line(check, failed, next, self.width, state.colour, columns);
                if state.transient {
                    state.finished.push(line);
                    state.draw(&[]);
                } else {
                    state.draw(&[line])
                }
            }
            (Shown::Live(live), Event::Started(check)) => {
                let mut state = lock(&live.shared.0);
                state
                    .running
                    .push((check.name().to_string(), Instant::now()));
                state.draw(&[]);
            }
            (Shown::Live(live), Event::Finished(check, result)) => {
                let mut state = lock(&live.shared.0);
                if let Some(at) = state.running.iter().position(|(n, _)| n == check.name()) {
                    state.running.remove(at);
                }
                let line = finished_line(
                    check.name(),
                    result,
                    self.width,
                    state.colour,
                    Some(state.columns()),
                );
                if state.transient {
                    state.finished.push(line);
                    state.draw(&[]);
                } else {
                    state.draw(&[line])
                }
            }
        }
    }

    /// Ends the view: the live lines are erased (all of them when the
    /// report follows on this terminal).
    pub(super) fn finish(&mut self) {
        if let Shown::Live(live) = &mut self.shown {
            live.stop();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A finished check's line: status, name, time, how it ended; cut to
/// `columns` (before colouring) when given.
fn finished_line(
    name: &str,
    result: &CheckResult,
    width: usize,
    colour: bool,
    columns: Option<usize>,
) -> String {
    let detail = match result
        .cached
        .as_deref()
        .and_then(|hit| report::cached(&hit.record))
    {
        Some(cached) => cached,
        None => report::with_notes(
            report::ending(
                result.skip_reason.as_deref(),
                result.error.as_deref(),
                result.timed_out,
                result.exit_code,
            ),
            result.baseline_suppressed,
            (&result.attempt_log, result.flaky, result.status),
        ),
    };
    let time = if result.status == Status::Skip {
        String::new()
    } else {
        format!("{:.2}s", result.duration.as_secs_f64())
    };
    // An error may quote what a check made (a path): shown safely.
    let detail = crate::sanitize::for_display(&detail).replace('\n', " ");
    let word = report::status_word(result.status);
    let rest = format!(" {name:width$}  {time:>7}  {detail}");
    let rest = rest.trim_end();
    let rest = match columns {
        Some(columns) => cut(rest, columns.saturating_sub(word.len()))
            .trim_end()
            .to_string(),
        None => rest.to_string(),
    };
    if colour {
        format!(
            "{}{rest}",
            console::paint(console::status_style(result.status), word)
        )
    } else {
        format!("{word}{rest}")
    }
}

/// A failed attempt's line before the check runs again (`retries`):
/// `RETRY name  time  exit 1; attempt 2 of 3`, the word in the running
/// colour: it is no finished check's status.
fn retry_line(
    check: &PlannedCheck<'_>,
    failed: &Attempt,
    next: u32,
    width: usize,
    colour: bool,
    columns: Option<usize>,
) -> String {
    const WORD: &str = "RETRY";
    let time = format!("{:.2}s", failed.duration_ms as f64 / 1000.0);
    let total = check.config.retries.saturating_add(1);
    let rest = format!(
        " {:width$}  {time:>7}  {}; attempt {next} of {total}",
        check.name(),
        report::attempts::attempt_ending(failed),
    );
    let rest = match columns {
        Some(columns) => cut(&rest, columns.saturating_sub(WORD.len())),
        None => rest,
    };
    if colour {
        format!("{}{rest}", console::paint(console::running_style(), WORD))
    } else {
        format!("{WORD}{rest}")
    }
}

/// `text`'s first `columns` characters.
fn cut(text: &str, columns: usize) -> String {
    text.chars().take(columns).collect()
}

/// The live view and the thread that redraws it.
struct Live {
    shared: Arc<(Mutex<State>, Condvar)>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Live {
    fn start(header: String, transient: bool, width: usize) -> Live {
        let mut state = State {
            header,
            transient,
            finished: Vec::new(),
            running: Vec::new(),
            drawn: 0,
            done: false,
            colour: console::stderr_colour(),
            width,
        };
        if transient {
            state.draw(&[]);
        } else {
            let header = state.header.clone();
            state.draw(&[header]);
        }
        let shared = Arc::new((Mutex::new(state), Condvar::new()));
        let ticker = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("run-check live view".into())
                .spawn(move || tick(&shared))
                .ok()
        };
        Live { shared, ticker }
    }

    fn stop(&mut self) {
        let Some(ticker) = self.ticker.take() else {
            return;
        };
        {
            let mut state = lock(&self.shared.0);
            state.done = true;
            state.erase();
            state.flush();
        }
        self.shared.1.notify_all();
        let _ = ticker.join();
    }
}

/// A poisoned lock (a panic while drawing) still draws: the view is text.
fn lock(mutex: &Mutex<State>) -> MutexGuard<'_, State> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Redraws the running checks' times until the view is done.
fn tick(shared: &(Mutex<State>, Condvar)) {
    let (mutex, wake) = shared;
    let mut state = lock(mutex);
    loop {
        state = match wake.wait_timeout(state, REDRAW) {
            Ok((state, _)) => state,
            Err(poisoned) => poisoned.into_inner().0,
        };
        if state.done {
            return;
        }
        if !state.running.is_empty() {
            state.draw(&[]);
        }
    }
}

/// What the live view shows, and how many lines of it are on the screen.
struct State {
    header: String,
    /// The header and the finished lines belong to the redrawn part (and
    /// are erased at the end), else they are printed once above it.
    transient: bool,
    /// Finished lines (kept only when `transient`).
    finished: Vec<String>,
    /// Running checks and when each started.
    running: Vec<(String, Instant)>,
    /// Lines of the redrawn part on the screen now.
    drawn: usize,
    done: bool,
    colour: bool,
    /// The longest check name, for aligned columns.
    width: usize,
}

impl State {
    /// The terminal's width and height (80×24 when it cannot tell).
    fn size(&self) -> (usize, usize) {
        terminal_size::terminal_size_of(std::io::stderr())
            .map(|(w, h)| (usize::from(w.0), usize::from(h.0)))
            .filter(|&(w, h)| w > 0 && h > 0)
            .unwrap_or((80, 24))
    }

    /// Columns a line may fill without wrapping (a wrapped line would
    /// break the count of lines to erase).
    fn columns(&self) -> usize {
        self.size().0.saturating_sub(1).max(20)
    }

    /// Erases the redrawn part, prints `permanent` lines, draws the redrawn
    /// part again: one write.
    fn draw(&mut self, permanent: &[String]) {
        let (columns, rows) = self.size();
        let columns = columns.saturating_sub(1).max(20);
        let mut out = self.erase_sequence();
        for line in permanent {
            out.push_str(line);
            out.push('\n');
        }
        let running: Vec<String> = self
            .running
            .iter()
            .map(|(name, since)| {
                let elapsed = format!("{:.1}s", since.elapsed().as_secs_f64());
                let line = format!("  RUN {name:w$}  {elapsed:>7}", w = self.width);
                let line = cut(&line, columns);
                if self.colour {
                    format!(
                        "  {}{}",
                        console::paint(console::running_style(), "RUN"),
                        &line[5..]
                    )
                } else {
                    line
                }
            })
            .collect();
        let (header, finished): (&[String], &[String]) = if self.transient {
            (std::slice::from_ref(&self.header), &self.finished)
        } else {
            (&[], &[])
        };
        let lines = layout(header, finished, &running, rows.saturating_sub(1).max(3));
        for line in &lines {
            out.push_str(line);
            out.push('\n');
        }
        self.drawn = lines.len();
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(out.as_bytes());
        let _ = stderr.flush();
    }

    /// Erases the redrawn part.
    fn erase(&mut self) {
        let out = self.erase_sequence();
        let _ = std::io::stderr().lock().write_all(out.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().lock().flush();
    }

    /// Up to the first line of the redrawn part, then clear to the end of
    /// the screen.
    fn erase_sequence(&mut self) -> String {
        let drawn = std::mem::take(&mut self.drawn);
        match drawn {
            0 => String::new(),
            n => format!("\u{1b}[{n}A\r\u{1b}[J"),
        }
    }
}

/// The redrawn lines in at most `rows`: the header, the latest finished
/// lines (the earlier counted), the running lines (past what fits,
/// counted).
fn layout(header: &[String], finished: &[String], running: &[String], rows: usize) -> Vec<String> {
    let mut lines: Vec<String> = header.to_vec();
    let left = rows.saturating_sub(lines.len());
    // The running checks come first: they are what the view is for.
    let (running_shown, running_more) = if running.len() <= left {
        (running.len(), 0)
    } else {
        let shown = left.saturating_sub(1);
        (shown, running.len() - shown)
    };
    let left = left.saturating_sub(running_shown + usize::from(running_more > 0));
    let (finished_from, finished_more) = if finished.len() <= left {
        (0, 0)
    } else if left == 0 {
        (finished.len(), 0)
    } else {
        let shown = left.saturating_sub(1);
        (finished.len() - shown, finished.len() - shown)
    };
    if finished_more > 0 {
        lines.push(format!("  … {finished_more} more finished"));
    }
    lines.extend(finished[finished_from..].iter().cloned());
    lines.extend(running[..running_shown].iter().cloned());
    if running_more > 0 {
        lines.push(format!("  … {running_more} more running"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(prefix: &str, n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("{prefix}{i}")).collect()
    }

    #[test]
    fn a_finished_line_is_cut_to_the_screen_then_coloured() {
        let result = CheckResult::skipped("no changed file matches `paths` (a/**, b/**)");
        assert_eq!(
            finished_line("lint", &result, 6, false, None),
            format!(
                " SKIP lint{}no changed file matches `paths` (a/**, b/**)",
                " ".repeat(13)
            )
        );
        assert_eq!(
            finished_line("lint", &result, 6, false, Some(30)),
            format!(" SKIP lint{}no chan", " ".repeat(13))
        );
        assert_eq!(
            finished_line("lint", &result, 4, true, Some(20)),
            "\u{1b}[1m\u{1b}[33m SKIP\u{1b}[0m lint"
        );
    }

    #[test]
    fn the_live_view_fits_the_screen() {
        let header = vec!["h".to_string()];
        // Everything fits.
        assert_eq!(
            layout(&header, &named("f", 2), &named("r", 2), 10),
            ["h", "f1", "f2", "r1", "r2"]
        );
        // The earliest finished lines are counted.
        assert_eq!(
            layout(&header, &named("f", 5), &named("r", 2), 6),
            ["h", "  … 3 more finished", "f4", "f5", "r1", "r2"]
        );
        // Running lines past the screen are counted; no finished line fits.
        assert_eq!(
            layout(&header, &named("f", 2), &named("r", 5), 4),
            ["h", "r1", "r2", "  … 3 more running"]
        );
        // Without a header (the finished lines were printed above).
        assert_eq!(layout(&[], &[], &named("r", 1), 3), ["r1"]);
    }
}
