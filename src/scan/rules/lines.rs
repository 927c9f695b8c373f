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
pub(crate) const ALLOW: &str = "run-check: allow";

/// Comment openers, one of which must come before `ALLOW` on the line.
const COMMENT_OPENERS: &[&str] = &["#", "//", "/*", "<!--", "--", ";", "%"];

/// Whether the line holds `ALLOW` (a whole word) in a comment: after a
/// comment opener that stands outside every string literal, itself outside
/// any string literal, and with no quote after it on the line (which could
/// close a string it lies in): `# run-check: allow`, `// run-check: allow`,
/// `/* run-check: allow */`, `<!-- run-check: allow -->`,
/// `-- run-check: allow`, also after other text of the comment. Strings
/// are told by their quotes as most languages write them (no language is
/// parsed): `"…"`, `` `…` `` and `'''…'''`, with backslash escapes. A
/// single `'` is not tracked (Rust lifetimes, `it's` in a comment), so
/// after the marker it may only stand between two letters or digits. A
/// marker inside a string (`"AKIA… # run-check: allow"`) silences nothing.
pub(crate) fn allowed(line: &str) -> bool {
    let mut from = 0;
    while let Some(i) = line[from..].find(ALLOW) {
        let at = from + i;
        let end = at + ALLOW.len();
        let whole = !line[end..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if whole && in_comment(&line[..at]) && !closes_a_string(&line[end..]) {
            return true;
        }
        from = end;
    }
    false
}

/// Where a line's text stands: in code or in a string literal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoted {
    Code,
    /// `"…"` (also `"""…"""`: three toggles).
    Double,
    /// `` `…` ``.
    Backtick,
    /// `'''…'''`.
    TripleSingle,
}

/// Whether the end of `before` lies in a comment: a comment opener stood
/// in code, and no string literal is open at the end.
fn in_comment(before: &str) -> bool {
    const TRIPLE: &[u8] = b"'''";
    let bytes = before.as_bytes();
    let mut state = Quoted::Code;
    let mut opened = false;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        let mut step = 1;
        match state {
            Quoted::Code => {
                if !opened
                    && COMMENT_OPENERS
                        .iter()
                        .any(|o| rest.starts_with(o.as_bytes()))
                {
                    opened = true;
                }
                match bytes[i] {
                    b'"' => state = Quoted::Double,
                    b'`' => state = Quoted::Backtick,
                    b'\'' if rest.starts_with(TRIPLE) => {
                        state = Quoted::TripleSingle;
                        step = TRIPLE.len();
                    }
                    _ => {}
                }
            }
            Quoted::Double if bytes[i] == b'"' => state = Quoted::Code,
            Quoted::Backtick if bytes[i] == b'`' => state = Quoted::Code,
            Quoted::TripleSingle if rest.starts_with(TRIPLE) => {
                state = Quoted::Code;
                step = TRIPLE.len();
            }
            _ => {}
        }
        i += step;
    }
    opened && state == Quoted::Code
}

/// Whether `after` (the rest of a line after a marker) holds a quote that
/// may close a string literal: `"`, `` ` ``, or a `'` that is not an
/// apostrophe between two letters or digits.
fn closes_a_string(after: &str) -> bool {
    let chars: Vec<char> = after.chars().collect();
    let word = |j: Option<usize>| {
        j.and_then(|j| chars.get(j))
            .is_some_and(|c| c.is_alphanumeric())
    };
    chars.iter().enumerate().any(|(i, &c)| match c {
        '"' | '`' => true,
        '\'' => !(word(i.checked_sub(1)) && word(Some(i + 1))),
        _ => false,
    })
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
            // Strings before the comment; quotes and apostrophes in it.
            r#"k = "AKIA#1"  # run-check: allow"#,
            r#"k: &'static str = "AKIA"; // run-check: allow (it's a test key)"#,
            r#"k = """AKIA"""  # say "hi", run-check: allow"#,
            "k = '''AKIA'''  # run-check: allow",
            "k = 'AKIA'  # run-check: allow",
            "let c = '#'; // run-check: allow",
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
            // In a string literal, not in a comment.
            r#"k = "AKIA # run-check: allow""#,
            "k = 'AKIA # run-check: allow'",
            "k = `AKIA // run-check: allow`",
            r#"#[test] fn f() { let k = "AKIA # run-check: allow"; }"#,
            r#"k = r"AKIA # run-check: allow"#,
            r#"k = """AKIA # run-check: allow"#,
            "k = '''AKIA # run-check: allow",
            r#"k = "a \" # run-check: allow"#,
            "k = `a ${b} // run-check: allow",
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
