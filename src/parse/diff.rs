//! The `diff` parser: a formatter's unified diff (`black --check --diff`,
//! `ruff format --check --diff`, `isort --check --diff`, `diff -u`).
//!
//! Each hunk (`@@ -A,B +C,D @@` under a `--- old` / `+++ new` header) is
//! one error on the file, at the hunk's first changed line: A (where the
//! hunk starts in the file on disk, context included) plus the context
//! lines before its first `-`/`+` line. Its message is `would reformat`
//! followed by the hunk's first changed (`-`/`+`) lines, at most
//! `MAX_SHOWN` of them, each clipped. The hunk's length comes from its
//! header, so a removed line that starts with `--` is still part of it;
//! the headers and the hunk's lines are claimed, any other line is not.
//! black's `error: cannot parse: FILE:LINE:COL` is one error there too.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, hunk_change};
use run_check_documents::evidence::DiagSeverity;

/// `@@ -12,7 +12,8 @@` (the counts default to 1).
static HUNK: LazyLock<Regex> =
    regex!(r"^@@ -(?P<old>\d+)(?:,(?P<old_n>\d+))? \+\d+(?:,(?P<new_n>\d+))? @@");

/// black's `error: cannot parse: /abs/x.py:1:11` (on stderr).
static CANNOT_PARSE: LazyLock<Regex> =
    regex!(r"^error: cannot parse: (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\s*$");

/// The `diff` format.
#[derive(Debug, Default)]
pub(crate) struct Diff {
    /// The path of a `--- old` line, waiting for its `+++ new`.
    old: Option<String>,
    /// The file of the current header.
    file: Option<String>,
    /// The hunk being read.
    pending: Option<Diagnostic>,
    /// Its old and new lines still to come.
    left: (u64, u64),
    /// Changed lines added to its message.
    shown: usize,
    /// Context lines read before the hunk's first change; `None` once a
    /// change was read.
    context: Option<u64>,
}

impl Diff {
    fn flush(&mut self, out: &mut Vec<Diagnostic>) {
        self.shown = 0;
        self.context = None;
        self.left = (0, 0);
        out.extend(self.pending.take());
    }

    /// A line of the hunk being read; false when it is none.
    fn body(&mut self, line: &str) -> bool {
        let Some(pending) = &mut self.pending else {
            return false;
        };
        let (old, new) = &mut self.left;
        match line.as_bytes().first() {
            Some(b'-') if *old > 0 => *old -= 1,
            Some(b'+') if *new > 0 => *new -= 1,
            // `\ No newline at end of file`.
            Some(b'\\') => return true,
            // A context line; some tools drop a blank one's space.
            None | Some(b' ') if *old > 0 && *new > 0 => {
                *old -= 1;
                *new -= 1;
                if let Some(context) = &mut self.context {
                    *context += 1;
                }
                return true;
            }
            _ => return false,
        }
        hunk_change(pending, &mut self.context, &mut self.shown, line);
        true
    }
}

/// The path of a `---`/`+++` header line: without the timestamp after a
/// tab, git's `a/`/`b/` (when `strip`), isort's `:before`/`:after`.
fn header_path(text: &str, strip: bool) -> String {
    let path = text.split('\t').next().unwrap_or(text).trim_end();
    let path = path
        .strip_suffix(":before")
        .or_else(|| path.strip_suffix(":after"))
        .unwrap_or(path);
    let path = match strip {
        true => path
            .strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(path),
        false => path,
    };
    path.to_string()
}

impl LineParser for Diff {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if self.pending.is_some() && self.left != (0, 0) && self.body(line) {
            if self.left == (0, 0) {
                self.flush(out);
            }
            return true;
        }
        self.flush(out);
        if let Some(old) = line.strip_prefix("--- ") {
            self.old = Some(old.to_string());
            return true;
        }
        if let (Some(new), Some(old)) = (line.strip_prefix("+++ "), self.old.take()) {
            let git = old.starts_with("a/") && new.starts_with("b/");
            let new = header_path(new, git);
            self.file = Some(match new.as_str() {
                "/dev/null" => header_path(&old, git),
                _ => new,
            });
            return true;
        }
        self.old = None;
        if let (Some(caps), Some(file)) = (HUNK.captures(line), &self.file) {
            let count = |name: &str| caps.name(name).map_or(Some(1), |m| m.as_str().parse().ok());
            let (Some(old_n), Some(new_n)) = (count("old_n"), count("new_n")) else {
                return false;
            };
            self.pending = Some(Diagnostic {
                file: Some(file.clone()),
                // An empty old side (`-0,0`) is an insertion at the start.
                line: caps["old"].parse::<u64>().ok().map(|n| n.max(1)),
                severity: DiagSeverity::Error,
                message: "would reformat".into(),
                ..Diagnostic::default()
            });
            self.left = (old_n, new_n);
            self.context = Some(0);
            return true;
        }
        if let Some(caps) = CANNOT_PARSE.captures(line) {
            out.push(Diagnostic {
                file: Some(caps["file"].to_string()),
                line: super::position(&caps["line"]),
                column: super::position(&caps["col"]),
                severity: DiagSeverity::Error,
                message: "cannot parse".into(),
                ..Diagnostic::default()
            });
            return true;
        }
        false
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        self.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tests::feed;

    fn parse(text: &str) -> Vec<Diagnostic> {
        feed(&mut Diff::default(), text).0
    }

    fn at(file: &str, line: u64, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            severity: DiagSeverity::Error,
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn black_hunks_are_placed_at_their_first_change() {
        let out = parse(include_str!(
            "../../tests/fixtures/diagnostics/black/black-diff.stdout.txt"
        ));
        assert_eq!(
            out,
            [
                at(
                    "/work/proj/pkg/app.py",
                    4,
                    "would reformat\n-def add(a,b):\n-    return a+b\n+def add(a, b):\n\
                     +    return a + b\n-    return 'hello ' + name\n+    return \"hello \" + name"
                ),
                at(
                    "/work/proj/pkg/far.py",
                    23,
                    "would reformat\n-    return x+21\n+    return x + 21"
                ),
            ]
        );
        let err = parse(include_str!(
            "../../tests/fixtures/diagnostics/black/black-diff.stderr.txt"
        ));
        assert_eq!(
            err,
            [Diagnostic {
                column: Some(11),
                ..at("/work/proj/pkg/bad.py", 1, "cannot parse")
            }]
        );
    }

    #[test]
    fn a_hunk_ends_where_its_header_says() {
        // A removed line starting with `--` is the hunk's, not a header;
        // after the hunk's counted lines, a line is no longer claimed.
        let text = "--- a/x.sql\n+++ b/x.sql\n@@ -3,2 +3,2 @@\n keep\n--- old comment\n\
            +-- new comment\nsummary line\n";
        let (found, claimed) = feed(&mut Diff::default(), text);
        assert_eq!(
            found,
            [at(
                "x.sql",
                4,
                "would reformat\n--- old comment\n+-- new comment"
            )]
        );
        assert_eq!(claimed, [true, true, true, true, true, true, false]);
    }
}
