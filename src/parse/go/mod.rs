//! The `go` parser: `go build`/`go vet` lines (`./main.go:10:2: message`,
//! `vet: ` prefixed, indented continuation lines appended) and `go test`
//! failures (`--- FAIL: TestX` with its `    x_test.go:12: message` log lines,
//! before the verdict under `-v` or after it without, and a test's `panic:`),
//! with the test name as the rule; `go test -json` events are read for the
//! same text (their `Output`). It must not report `# pkg` headers,
//! `FAIL`/`ok` package lines, stack traces, or the logs of tests that passed
//! or were skipped.

use super::gcc::{severity_prefix, split_location};
use super::{Diagnostic, LineParser};
use run_check_documents::evidence::DiagSeverity;

/// The `go` format.
#[derive(Debug, Default)]
pub(crate) struct Go {
    /// The test whose output the following lines belong to.
    context: Context,
    /// `-v` log lines of tests still running, waiting for their verdict.
    waiting: Vec<(String, Diagnostic)>,
    /// The diagnostic still collecting continuation lines.
    pending: Option<Pending>,
}

#[derive(Debug, Default)]
enum Context {
    #[default]
    None,
    /// `=== RUN TestX`: logs wait for the verdict.
    Running(String),
    /// `--- FAIL: TestX`: logs are failures of TestX.
    Failed(String),
    /// `--- PASS/SKIP: TestX`: logs are not failures.
    Passed,
}

#[derive(Debug)]
struct Pending {
    found: Diagnostic,
    /// Indentation of the diagnostic's first line; deeper lines continue it.
    indent: usize,
    /// The test to wait for (`-v`), or `None` to report it as it is.
    waits_for: Option<String>,
}

impl Go {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        if let Some(pending) = self.pending.take() {
            match pending.waits_for {
                Some(test) => self.waiting.push((test, pending.found)),
                None => out.push(pending.found),
            }
        }
    }

    /// The verdict of a test: its waiting logs are reported or dropped.
    fn verdict(&mut self, test: &str, failed: bool, out: &mut Vec<Diagnostic>) {
        let (mine, others) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(t, _)| t == test);
        self.waiting = others;
        if failed {
            out.extend(mine.into_iter().map(|(_, found)| found));
        }
    }

    fn test_line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        let trimmed = line.trim_start();
        for prefix in ["=== RUN ", "=== CONT ", "=== NAME "] {
            if let Some(name) = trimmed.strip_prefix(prefix) {
                self.context = Context::Running(name.trim().to_string());
                return true;
            }
        }
        if trimmed.starts_with("=== PAUSE ") {
            return true;
        }
        for (prefix, failed) in [
            ("--- FAIL: ", true),
            ("--- PASS: ", false),
            ("--- SKIP: ", false),
        ] {
            if let Some(rest) = trimmed.strip_prefix(prefix) {
                let name = rest
                    .rsplit_once(" (")
                    .map_or(rest, |(name, _)| name)
                    .trim()
                    .to_string();
                self.verdict(&name, failed, out);
                self.context = if failed {
                    Context::Failed(name)
                } else {
                    Context::Passed
                };
                return true;
            }
        }
        false
    }

    /// `    x_test.go:12: message` under a test.
    fn log_line(&mut self, line: &str) -> bool {
        let indent = line.len() - line.trim_start().len();
        if indent == 0 {
            return false;
        }
        let Some(location) = split_location(line.trim_start()) else {
            return false;
        };
        if location.column.is_some() || !location.file.ends_with(".go") {
            return false;
        }
        let (test, waits) = match &self.context {
            Context::Running(test) => (test.clone(), true),
            Context::Failed(test) => (test.clone(), false),
            // Logs of a passing or skipped test: ours, but not failures.
            Context::Passed => return true,
            Context::None => return false,
        };
        self.pending = Some(Pending {
            found: Diagnostic {
                file: Some(location.file.to_string()),
                line: Some(location.line),
                severity: DiagSeverity::Error,
                rule: Some(test.clone()),
                message: location.rest.trim().to_string(),
                ..Default::default()
            },
            indent,
            waits_for: waits.then_some(test),
        });
        true
    }

    /// `./main.go:10:2: message` from the compiler or vet.
    fn build_line(&mut self, line: &str) -> bool {
        let line = line.strip_prefix("vet: ").unwrap_or(line);
        let Some(location) = split_location(line) else {
            return false;
        };
        let go_file = [".go", "go.mod", "go.work", "go.sum"]
            .iter()
            .any(|end| location.file.ends_with(end));
        if location.file.contains(char::is_whitespace) || !(go_file || location.column.is_some()) {
            return false;
        }
        let (severity, message) = match severity_prefix(location.rest) {
            Some((severity, _, message)) => (severity, message),
            None => (DiagSeverity::Error, location.rest.trim()),
        };
        if message.is_empty() {
            return false;
        }
        let (message, rule) = linter_name(message);
        self.pending = Some(Pending {
            found: Diagnostic {
                file: Some(location.file.to_string()),
                line: Some(location.line),
                column: location.column,
                severity,
                rule,
                message: message.to_string(),
                ..Default::default()
            },
            indent: 0,
            waits_for: None,
        });
        true
    }
}

impl LineParser for Go {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if line.starts_with('{')
            && let Some(output) = test_json(line)
        {
            for text in output.lines() {
                self.text_line(text, out);
            }
            return true;
        }
        self.text_line(line, out)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
        // Logs of tests that never reached a verdict are not failures.
        self.waiting.clear();
    }
}

/// The linter or check named at the end of a golangci-lint or staticcheck
/// line, `message (errcheck)`, `message (SA9003)`, as the rule.
fn linter_name(message: &str) -> (&str, Option<String>) {
    if let Some(inner) = message.strip_suffix(')')
        && let Some(open) = inner.rfind(" (")
    {
        let name = &inner[open + 2..];
        let lower = !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        let letters = name.bytes().take_while(u8::is_ascii_uppercase).count();
        let code = (1..=3).contains(&letters)
            && name.len() > letters
            && name[letters..].bytes().all(|b| b.is_ascii_digit());
        if lower || code {
            return (inner[..open].trim_end(), Some(name.to_string()));
        }
    }
    (message, None)
}

/// A `go test -json` event (test2json): the text of an `output` or
/// `build-output` event, empty for the others (`run`, `pass`, `fail`, ...:
/// the text carries the same verdicts). `None` when the line is not one.
fn test_json(line: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let action = value.get("Action")?.as_str()?;
    Some(match action {
        "output" | "build-output" => value.get("Output")?.as_str()?.to_string(),
        _ => String::new(),
    })
}

impl Go {
    /// One line of go's plain text output.
    fn text_line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(pending) = &mut self.pending {
            let indent = line.len() - line.trim_start().len();
            let trimmed = line.trim();
            if indent > pending.indent
                && !trimmed.is_empty()
                && !trimmed.starts_with("--- ")
                && !trimmed.starts_with("=== ")
            {
                if trimmed.bytes().all(|b| b == b'^') {
                    // golangci-lint quotes the source line, then a caret
                    // under the column: neither is part of the message.
                    if let Some(at) = pending.found.message.rfind('\n') {
                        pending.found.message.truncate(at);
                    }
                    return true;
                }
                pending.found.message.push('\n');
                pending.found.message.push_str(trimmed);
                return true;
            }
            self.flush(out);
        }
        if line.starts_with("# ") {
            return true;
        }
        if self.test_line(line, out) || self.log_line(line) {
            return true;
        }
        if let Some(message) = line.strip_prefix("panic: ")
            && let Context::Failed(test) | Context::Running(test) = &self.context
        {
            out.push(Diagnostic {
                rule: Some(test.clone()),
                message: format!("panic: {}", message.trim()),
                ..Diagnostic::default()
            });
            return true;
        }
        if line == "FAIL"
            || line == "PASS"
            || line.starts_with("FAIL\t")
            || line.starts_with("ok  \t")
        {
            self.context = Context::None;
            return false;
        }
        self.build_line(line)
    }
}

#[cfg(test)]
mod tests;
