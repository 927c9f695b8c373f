//! Rust panics in test output, read by the `rustc` and `cargo-json` parsers
//! (and so by `auto`): a failing `cargo test` prints, per failing test,
//!
//! ```text
//! thread 'tests::adds' (1234) panicked at src/lib.rs:10:9:
//! assertion `left == right` failed
//!   left: 3
//!  right: 4
//! note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
//! ```
//!
//! (Rust ≥ 1.73; the thread id since 1.89), or on one line before that:
//! `thread 'tests::adds' panicked at 'assertion failed: ...', src/lib.rs:10:9`.
//! Each becomes one error at the panic's location, rule `panic`, message
//! ``panicked in `tests::adds`: assertion `left == right` failed (left: 3,
//! right: 4)``. The message ends at a blank line, a `note:` line, a backtrace,
//! or the harness's next section.

use super::Diagnostic;
use run_check_documents::evidence::DiagSeverity;

/// Message lines kept after the first (the rest of a long message is cut).
const MAX_DETAIL_LINES: usize = 8;
/// Longest message kept, in bytes.
const MAX_MESSAGE: usize = 1000;

/// Reads panics out of a stream's lines.
#[derive(Debug, Default)]
pub(crate) struct Panics {
    pending: Option<Pending>,
}

#[derive(Debug)]
struct Pending {
    found: Diagnostic,
    thread: String,
    /// Message lines (the first, then the details).
    lines: Vec<String>,
}

impl Panics {
    /// One line; true when it belongs to a panic (its header or message).
    pub(crate) fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some((thread, after)) = panicked(line) {
            self.flush(out);
            match header(thread, after) {
                Header::Complete(found) => out.push(found),
                Header::Open(pending) => self.pending = Some(pending),
                Header::Unknown => return false,
            }
            return true;
        }
        let Some(pending) = &mut self.pending else {
            return false;
        };
        let ends = line.trim().is_empty()
            || line.starts_with("note: ")
            || line.starts_with("stack backtrace:")
            || line.starts_with("---- ")
            || line.starts_with("failures:")
            || line.starts_with("test result: ")
            || line.starts_with("error: test failed")
            || (line.starts_with("test ") && line.contains(" ... "));
        if ends {
            self.flush(out);
            return false;
        }
        if pending.lines.len() <= MAX_DETAIL_LINES {
            pending.lines.push(line.trim().to_string());
        }
        true
    }

    /// The end of the stream: a panic still open is reported.
    pub(crate) fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }

    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        let Some(mut pending) = self.pending.take() else {
            return;
        };
        let mut lines = pending.lines.drain(..);
        let first = lines.next().unwrap_or_default();
        let details: Vec<String> = lines.collect();
        let text = match (first.is_empty(), details.is_empty()) {
            (true, _) => "(no message)".to_string(),
            (false, true) => first,
            (false, false) => format!("{first} ({})", details.join(", ")),
        };
        pending.found.message = message(&pending.thread, &text);
        out.push(pending.found);
    }
}

enum Header {
    /// The old one-line form, message included.
    Complete(Diagnostic),
    /// The new form: the message follows on the next lines.
    Open(Pending),
    /// Not a location run-check understands.
    Unknown,
}

/// `thread 'NAME' panicked at REST` (Rust ≥ 1.89 adds the thread's id:
/// `thread 'NAME' (1234) panicked at REST`): the name and the rest.
fn panicked(line: &str) -> Option<(&str, &str)> {
    let (thread, after) = line.strip_prefix("thread '")?.split_once("' ")?;
    let after = match after.strip_prefix('(') {
        Some(id) => {
            let (digits, rest) = id.split_once(") ")?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            rest
        }
        None => after,
    };
    Some((thread, after.strip_prefix("panicked at ")?))
}

/// What follows `thread 'NAME' panicked at `.
fn header(thread: &str, after: &str) -> Header {
    // Rust ≥ 1.73: `src/lib.rs:10:9:`, the message on the next lines.
    if let Some(location) = after.strip_suffix(':')
        && let Some(found) = located(location)
    {
        return Header::Open(Pending {
            found,
            thread: thread.to_string(),
            lines: Vec::new(),
        });
    }
    // Before: `'message', src/lib.rs:10:9`.
    if let Some(quoted) = after.strip_prefix('\'')
        && let Some((text, location)) = quoted.rsplit_once("', ")
        && let Some(mut found) = located(location)
    {
        found.message = message(thread, text);
        return Header::Complete(found);
    }
    Header::Unknown
}

/// An error at `file:line:col`.
fn located(location: &str) -> Option<Diagnostic> {
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next().filter(|f| !f.is_empty())?;
    Some(Diagnostic {
        file: Some(file.to_string()),
        line: Some(line),
        column: Some(column),
        severity: DiagSeverity::Error,
        rule: Some("panic".into()),
        message: String::new(),
        ..Default::default()
    })
}

fn message(thread: &str, text: &str) -> String {
    super::clip(&format!("panicked in `{thread}`: {text}"), MAX_MESSAGE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;

    /// The test feeder reads any `LineParser`; a panic reader is one inside
    /// the parsers that embed it.
    impl crate::parse::LineParser for Panics {
        fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
            Panics::line(self, line, out)
        }

        fn finish(&mut self, out: &mut Vec<Diagnostic>) {
            Panics::finish(self, out)
        }
    }

    fn parse_all(text: &str) -> (Vec<Diagnostic>, Vec<bool>) {
        feed(&mut Panics::default(), text)
    }

    fn panic(file: &str, line: u64, column: u64, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            column: Some(column),
            severity: DiagSeverity::Error,
            rule: Some("panic".into()),
            message: message.into(),
            ..Default::default()
        }
    }

    #[test]
    fn cargo_test_failures() {
        let text = include_str!("../../tests/fixtures/diagnostics/rustc/cargo-test.txt");
        let (found, _) = parse_all(text);
        assert_eq!(
            found,
            [
                panic(
                    "src/lib.rs",
                    16,
                    9,
                    "panicked in `tests::adds`: assertion `left == right` failed (left: 4, right: 5)"
                ),
                panic(
                    "src/lib.rs",
                    21,
                    9,
                    "panicked in `tests::explains`: assertion `left == right` failed: \
                     two and two (left: 4, right: 22)"
                ),
                panic(
                    "src/lib.rs",
                    26,
                    35,
                    "panicked in `tests::unwraps`: called `Result::unwrap()` on an `Err` \
                     value: ParseIntError { kind: InvalidDigit }"
                ),
                panic(
                    "tests/outside.rs",
                    3,
                    5,
                    "panicked in `outside`: explicit message with a (newline)"
                ),
            ]
        );
    }

    #[test]
    fn a_backtrace_ends_the_message() {
        let text = "thread 'tests::adds' (25671) panicked at src/lib.rs:16:9:\n\
                    assertion failed\n\
                    stack backtrace:\n\
                    \x20  0: __rustc::rust_begin_unwind\n\
                    \x20            at ./src/lib.rs:16:9\n";
        let (found, claimed) = parse_all(text);
        assert_eq!(claimed, [true, true, false, false, false]);
        assert_eq!(
            found,
            [panic(
                "src/lib.rs",
                16,
                9,
                "panicked in `tests::adds`: assertion failed"
            )]
        );
    }

    #[test]
    fn the_one_line_form_before_rust_1_73() {
        let text = "thread 'tests::adds' panicked at 'assertion failed: `(left == right)`\n\
                    thread 'main' panicked at 'boom, really', src/main.rs:2:5\n";
        let (found, claimed) = parse_all(text);
        // The first line has no location: not a form run-check knows.
        assert_eq!(claimed, [false, true]);
        assert_eq!(
            found,
            [panic(
                "src/main.rs",
                2,
                5,
                "panicked in `main`: boom, really"
            )]
        );
    }

    #[test]
    fn the_message_ends_at_the_harness_next_line() {
        let text = "thread 'a' panicked at src/a.rs:1:2:\nfirst\ntest b ... ok\nleft alone\n";
        let (found, claimed) = parse_all(text);
        assert_eq!(claimed, [true, true, false, false]);
        assert_eq!(found, [panic("src/a.rs", 1, 2, "panicked in `a`: first")]);

        // Cut after MAX_DETAIL_LINES details and MAX_MESSAGE bytes.
        let long: String = std::iter::once("thread 'x' panicked at f.rs:1:1:\n".to_string())
            .chain((0..20).map(|i| format!("line {i} {}\n", "é".repeat(100))))
            .collect();
        let (found, _) = parse_all(&long);
        assert!(found[0].message.len() <= MAX_MESSAGE + '…'.len_utf8());
        assert!(found[0].message.ends_with('…'));
        let (found, _) = parse_all("thread 'x' panicked at f.rs:1:1:\n");
        assert_eq!(found[0].message, "panicked in `x`: (no message)");
    }
}
