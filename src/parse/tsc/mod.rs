//! The `tsc` parser: TypeScript compiler diagnostics, in both of the forms
//! tsc prints.
//!
//! - plain (`--pretty false`, and tsc's default when stdout is a pipe):
//!   `src/a.ts(3,7): error TS2322: Type 'string' is not ...`
//! - pretty (`--pretty`, tsc's default on a terminal):
//!   `src/a.ts:3:7 - error TS2322: Type 'string' is not ...`
//! - global, with no file: `error TS5023: Unknown compiler option '--x'.`
//!
//! The rule is the `TS` code. tsc's categories map to severities: `error`,
//! `warning`, `suggestion` (help) and `message` (info).
//!
//! Message chains: tsc prints the rest of a multi-line message as indented
//! lines right after the first (`  Types of property 'n' are incompatible.`).
//! Those lines are appended to the message, one `\n` per line, leading
//! indentation removed, so a diagnostic is emitted only when the next
//! non-continuation line (or the end of the stream) arrives. In pretty mode
//! the code frame and the related information (`  src/c.ts:1:23 - 'b' is
//! declared here`) follow a blank line: they are neither appended nor
//! reported, and the code frame is not claimed.
//!
//! It must not claim a line only because it has a `(line,col)` or
//! `:line:col` shape: a tsc line always has a category word and a `TS`
//! code. The `Found N errors` summary is claimed but is no diagnostic.

use std::sync::LazyLock;

use regex::Regex;

use super::{Diagnostic, LineParser, MAX_LINE};
use run_check_documents::evidence::DiagSeverity;

/// `file(line,col): category TScode: message`.
static PLAIN: LazyLock<Regex> = regex!(
    r"^(?P<file>\S.*?)\((?P<line>\d+),(?P<column>\d+)\): (?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$"
);

/// `file:line:col - category TScode: message`.
static PRETTY: LazyLock<Regex> = regex!(
    r"^(?P<file>\S.*?):(?P<line>\d+):(?P<column>\d+) - (?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$"
);

/// `category TScode: message`, a diagnostic without a file (options, config).
static GLOBAL: LazyLock<Regex> =
    regex!(r"^(?P<category>error|warning|suggestion|message) (?P<rule>TS\d+): (?P<message>.*)$");

/// The literal every tsc diagnostic has, found before trying the regexes.
static TS_MARK: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("TS"));

/// `Found 1 error.`, `Found 7 errors in 3 files.`, `Found 2 errors in src/a.ts:1`.
static SUMMARY: LazyLock<Regex> = regex!(r"^Found \d+ errors?(?: in .+)?\.?$");

/// The `tsc` format.
#[derive(Debug, Default)]
pub(crate) struct Tsc {
    /// The last diagnostic, still collecting its continuation lines.
    pending: Option<Diagnostic>,
}

fn severity(category: &str) -> DiagSeverity {
    match category {
        "warning" => DiagSeverity::Warning,
        "suggestion" => DiagSeverity::Help,
        "message" => DiagSeverity::Info,
        _ => DiagSeverity::Error,
    }
}

fn diagnostic(line: &str) -> Option<Diagnostic> {
    // Every form has ` TS<code>` (or starts with the category): skip the
    // regexes for the lines that cannot match.
    TS_MARK.find(line.as_bytes())?;
    let caps = PLAIN
        .captures(line)
        .or_else(|| PRETTY.captures(line))
        .or_else(|| GLOBAL.captures(line))?;
    let number = |name: &str| caps.name(name).and_then(|m| m.as_str().parse().ok());
    Some(Diagnostic {
        file: caps.name("file").map(|m| m.as_str().to_string()),
        line: number("line"),
        column: number("column"),
        severity: severity(&caps["category"]),
        rule: Some(caps["rule"].to_string()),
        message: caps["message"].trim_end().to_string(),
        ..Default::default()
    })
}

impl LineParser for Tsc {
    fn line(&mut self, line: &str, out: &mut Vec<Diagnostic>) -> bool {
        if let Some(found) = diagnostic(line) {
            out.extend(self.pending.take());
            self.pending = Some(found);
            return true;
        }
        let continuation = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if continuation && let Some(pending) = &mut self.pending {
            // A runaway chain must not grow one message without bound.
            if pending.message.len() < MAX_LINE {
                pending.message.push('\n');
                pending.message.push_str(line.trim());
            }
            return true;
        }
        out.extend(self.pending.take());
        line.starts_with("Found ") && SUMMARY.is_match(line)
    }

    fn finish(&mut self, out: &mut Vec<Diagnostic>) {
        out.extend(self.pending.take());
    }
}

#[cfg(test)]
mod tests;
