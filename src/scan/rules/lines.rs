//! How lines are checked: the walk over the lines a prefilter points at,
//! the check of one line with the rules it selects (at most one hit per
//! rule), and the `Verify` tests of a match.

use regex::Captures;

use super::secrets::{real_credential, real_token};
use super::{Compiled, Hit, Matcher, Verify};

impl Matcher {
    /// Checks the lines `next_hit` points at: from a line start `pos`, it
    /// returns an offset on the next line worth checking (`None`: no more).
    /// Each such line is checked with the rules `which` selects.
    pub(super) fn lines_at(
        &self,
        text: &str,
        mut next_hit: impl FnMut(usize) -> Option<usize>,
        which: impl Fn(&Compiled, &str) -> bool,
        out: &mut impl FnMut(Hit),
    ) {
        let bytes = text.as_bytes();
        let mut cursor = Cursor {
            bytes,
            start: 0,
            line_no: 1,
        };
        let mut pos = 0;
        while pos < bytes.len() {
            let Some(offset) = next_hit(pos) else {
                break;
            };
            let (start, line_no) = cursor.line_of(offset);
            if start >= bytes.len() {
                break; // past the last line end: no line there
            }
            let newline = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
            let line = line_text(text, start, newline);
            self.line(line, line_no, |c| which(c, line), out);
            match newline {
                Some(newline) => pos = newline + 1,
                None => break,
            }
        }
    }

    /// Checks one line with the rules `which` selects: at most one hit per
    /// rule (its leftmost); a rule that `yields` is dropped when another rule
    /// of its set hit the line; every hit of a line with a `run-check: allow`
    /// comment is marked `allowed`.
    fn line(
        &self,
        line: &str,
        line_no: u64,
        which: impl Fn(&Compiled) -> bool,
        out: &mut impl FnMut(Hit),
    ) {
        let mut hits: Vec<(usize, usize)> = Vec::new(); // (rule, byte offset)
        for c in self.compiled.iter().filter(|c| which(c)) {
            let Some(at) = c.first(line) else {
                continue;
            };
            match hits.iter_mut().find(|(rule, _)| *rule == c.rule) {
                Some(hit) => hit.1 = hit.1.min(at),
                None => hits.push((c.rule, at)),
            }
        }
        if hits.is_empty() {
            return;
        }
        let replaced = |rule: usize| {
            let this = &self.rules[rule];
            this.yields
                && hits.iter().any(|&(other, _)| {
                    let other = &self.rules[other];
                    !other.yields && other.set.is_some() && other.set == this.set
                })
        };
        let allowed = allowed(line);
        for &(rule, at) in &hits {
            if replaced(rule) {
                continue;
            }
            out(Hit {
                rule,
                line: line_no,
                column: line[..at].chars().count() as u64 + 1,
                allowed,
            });
        }
    }
}

/// The marker of a line whose findings are silenced.
pub(super) const ALLOW: &str = "run-check: allow";

/// Comment openers, one of which must come before `ALLOW` on the line.
const COMMENT_OPENERS: &[&str] = &["#", "//", "/*", "<!--", "--", ";", "%"];

/// Whether the line holds `ALLOW` (a whole word) after a comment opener:
/// `# run-check: allow`, `// run-check: allow`, `/* run-check: allow */`,
/// `<!-- run-check: allow -->`, `-- run-check: allow`, also after other text
/// of the comment.
pub(super) fn allowed(line: &str) -> bool {
    let mut from = 0;
    while let Some(i) = line[from..].find(ALLOW) {
        let at = from + i;
        let end = at + ALLOW.len();
        let whole = !line[end..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if whole && COMMENT_OPENERS.iter().any(|o| line[..at].contains(o)) {
            return true;
        }
        from = end;
    }
    false
}

/// Line starts and numbers of offsets visited in increasing order.
struct Cursor<'t> {
    bytes: &'t [u8],
    /// Start of the line last returned.
    start: usize,
    line_no: u64,
}

impl Cursor<'_> {
    /// The start and 1-based number of the line holding `offset` (a line's
    /// `\n` belongs to it; `offset` may be the text's length).
    fn line_of(&mut self, offset: usize) -> (usize, u64) {
        let skipped = memchr::memchr_iter(b'\n', &self.bytes[self.start..offset]).count();
        if skipped > 0 {
            self.line_no += skipped as u64;
            self.start = memchr::memrchr(b'\n', &self.bytes[..offset]).map_or(0, |i| i + 1);
        }
        (self.start, self.line_no)
    }
}

impl Compiled {
    /// Byte offset of the first verified match on the line.
    fn first(&self, line: &str) -> Option<usize> {
        if matches!(self.verify, Verify::Always) {
            return self.regex.find(line).map(|m| m.start());
        }
        self.regex
            .captures_iter(line)
            .find(|caps| verified(self.verify, caps, line))
            .map(|caps| caps.get(0).map_or(0, |m| m.start()))
    }
}

fn verified(verify: Verify, caps: &Captures<'_>, line: &str) -> bool {
    let whole = caps.get(0).expect("group 0");
    let before = &line[..whole.start()];
    match verify {
        Verify::Always => true,
        Verify::SameOperands => match (caps.get(1), caps.get(2)) {
            (Some(a), Some(b)) => a.as_str() == b.as_str(),
            _ => false,
        },
        Verify::FreeCall => {
            let before = before.trim_end();
            !(before.ends_with('.')
                || before.ends_with("def")
                || before.ends_with("fn")
                || before.ends_with("function"))
        }
        Verify::LineStart => before.trim().is_empty(),
        Verify::Credential => {
            let name = caps.name("name").map_or("", |n| n.as_str());
            ["dq", "sq", "bare"]
                .iter()
                .find_map(|group| caps.name(group))
                .is_some_and(|value| real_credential(name, value.as_str()))
        }
        Verify::RealToken => real_token(whole.as_str()),
    }
}

/// A line's text: without its `\n` and one trailing `\r`.
fn line_text(text: &str, start: usize, newline: Option<usize>) -> &str {
    let line = &text[start..newline.unwrap_or(text.len())];
    line.strip_suffix('\r').unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ALL, hits, matcher};
    use super::allowed;

    #[test]
    fn lines_and_columns() {
        let text = "fn main() {\r\n    let x = 1;\r\n    dbg!(x);\r\n}\r\n";
        assert_eq!(
            hits(text),
            vec![("debug-leftovers/rust-dbg".to_string(), 3, 5)]
        );
        // Columns count characters, not bytes.
        assert_eq!(
            hits("é dbg!(x)\n"),
            vec![("debug-leftovers/rust-dbg".to_string(), 1, 3)]
        );
        // One finding per rule per line (the leftmost); several rules may share a line.
        assert_eq!(
            hits("dbg!(a); dbg!(b); console.log(c)"),
            vec![
                ("debug-leftovers/rust-dbg".to_string(), 1, 1),
                ("debug-leftovers/js-console-log".to_string(), 1, 19),
            ]
        );
        // The last line needs no newline; an empty file has no lines.
        assert_eq!(
            hits("\n\nxit('a', f)"),
            vec![("skipped-tests/js-skip".to_string(), 3, 1)]
        );
        assert_eq!(hits(""), vec![]);
    }

    #[test]
    fn allow_comments_mark_every_hit_of_their_line() {
        for line in [
            "x = 1  # run-check: allow",
            "x = 1; // run-check: allow",
            "x = 1; /* run-check: allow */",
            "<p>x</p> <!-- run-check: allow -->",
            "SELECT 1; -- run-check: allow",
            "x = 1  # fixture for the docs, run-check: allow (not a key)",
        ] {
            assert!(allowed(line), "{line}");
        }
        for line in [
            "x = 1",
            "run-check: allow",               // no comment
            "x = \"run-check: allow\"",       // no comment opener before
            "x = 1  # run-check: allowed",    // another word
            "x = 1  # run-check: allow-list", // another word
            "x = 1  # run-check:allow",       // not the marker
        ] {
            assert!(!allowed(line), "{line}");
        }
        let m = matcher(&ALL, Vec::new());
        let mut seen = Vec::new();
        m.scan(
            "dbg!(a); console.log(b) // run-check: allow\ndbg!(c)\n",
            &mut |hit| seen.push((m.rule(hit.rule).id.clone(), hit.line, hit.allowed)),
        );
        seen.sort();
        assert_eq!(
            seen,
            vec![
                ("debug-leftovers/js-console-log".to_string(), 1, true),
                ("debug-leftovers/rust-dbg".to_string(), 1, true),
                ("debug-leftovers/rust-dbg".to_string(), 2, false),
            ]
        );
    }
}
