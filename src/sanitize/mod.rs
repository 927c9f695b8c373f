//! What a check printed, made safe to show (docs/evidence.md): a report must
//! not replay a check's terminal escapes, nor let a line of its output act
//! as a GitHub Actions workflow command when the report is printed in a job.
//!
//! Two levels:
//! - [`strip_escapes`] removes every ECMA-48 escape sequence (CSI, OSC, DCS,
//!   SOS, PM and APC strings, `ESC ( B`-like nF sequences, two-byte `ESC x`
//!   sequences) and every 8-bit C1 control (U+0080..U+009F). The evidence JSON keeps everything else as captured; other control
//!   characters there are escaped by JSON itself (`\u0000`, `\r`).
//! - [`for_display`], for `text`, `markdown`, `junit` and `github`: the same,
//!   then CRLF becomes LF, a lone CR becomes LF (the line it would have
//!   overwritten stays visible), every other control character except tab
//!   and LF becomes its visible Control Picture (`␀`, `␇`, `␈`, DEL `␡`), and
//!   workflow commands are defused: a backslash goes before a `::` that
//!   starts a line (after blanks, which the Actions runner trims) and between
//!   the `##` and `[` of every `##[` (the runner's legacy commands match
//!   anywhere in a line). A visible ASCII backslash, not a zero-width
//!   character: the runner's trimming and .NET's culture-aware `StartsWith`
//!   skip invisible characters, and a reader sees that the line was escaped.
//!
//! [`one_line`] is [`for_display`] for a single line (a list entry, a
//! message on stderr), cut to a length.
//!
//! [`evidence_json`] and [`evidence_display`] apply them to every string of
//! an evidence document (object keys included), whatever field it is in.

use std::borrow::Cow;

use run_check_documents::evidence::Evidence;

/// Whether `text` may hold an escape sequence or a C1 control (ESC, or the
/// UTF-8 lead byte 0xC2 of U+0080..U+00BF).
fn may_escape(text: &str) -> bool {
    memchr::memchr2(0x1b, 0xc2, text.as_bytes()).is_some()
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

/// `text` without terminal escape sequences and C1 controls.
///
/// The ECMA-48 parser that anstream strips with (`anstyle-parse`: a DEC
/// VT500 state machine) tells what belongs to a sequence. On top of it:
/// anstream's own stripping also drops the other C0 controls, which the
/// evidence keeps, so what the parser prints or executes outside a sequence
/// is kept here; a UTF-8 C1 character (U+009B) is printed as text by the
/// parser, so it is dropped; and each line is parsed alone, so an
/// unterminated string (OSC, DCS, ...) hides at most the rest of its line.
pub(crate) fn strip_escapes(text: &str) -> Cow<'_, str> {
    struct Kept(String);
    impl anstyle_parse::Perform for Kept {
        fn print(&mut self, c: char) {
            if !is_c1(c) {
                self.0.push(c);
            }
        }
        fn execute(&mut self, byte: u8) {
            // C0 controls only: a stray continuation byte is no character.
            if byte < 0x80 {
                self.0.push(char::from(byte));
            }
        }
    }
    if !may_escape(text) {
        return Cow::Borrowed(text);
    }
    let mut out = Kept(String::with_capacity(text.len()));
    for line in text.split_inclusive(['\n', '\r']) {
        let (body, end) = line.split_at(line.trim_end_matches(['\n', '\r']).len());
        let mut parser = anstyle_parse::Parser::<anstyle_parse::DefaultCharAccumulator>::new();
        body.bytes().for_each(|b| parser.advance(&mut out, b));
        out.0.push_str(end);
    }
    Cow::Owned(out.0)
}

/// `text` as a report may show it: [`strip_escapes`], line ends as LF,
/// control characters visible, workflow commands defused (module docs).
pub(crate) fn for_display(text: &str) -> Cow<'_, str> {
    let stripped = strip_escapes(text);
    if !needs_display_work(&stripped) {
        return stripped;
    }
    let mut out = String::with_capacity(stripped.len() + 8);
    let mut chars = stripped.chars().peekable();
    let mut line_start = true;
    // Blanks seen since the line started (kept, then the `::` check).
    while let Some(c) = chars.next() {
        let c = match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                '\n'
            }
            c => c,
        };
        if c == '\n' {
            out.push('\n');
            line_start = true;
            continue;
        }
        if line_start {
            if blank(c) {
                push_visible(&mut out, c);
                continue;
            }
            line_start = false;
            if c == ':' && chars.peek() == Some(&':') {
                out.push('\\');
            }
        }
        push_visible(&mut out, c);
        if c == '#' && out.ends_with("##") && chars.peek() == Some(&'[') {
            out.push('\\');
        }
    }
    Cow::Owned(out)
}

/// Whether [`for_display`] has anything to do beyond stripping escapes.
fn needs_display_work(text: &str) -> bool {
    text.contains("::")
        || text.contains("##[")
        || text
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || blank_invisible(c))
}

/// `c`, or its Control Picture when it is a control character.
fn push_visible(out: &mut String, c: char) {
    match c {
        '\t' | '\n' => out.push(c),
        '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
        '\u{7f}' => out.push('\u{2421}'),
        c if c.is_control() => out.push('\u{fffd}'),
        c => out.push(c),
    }
}

/// What may stand before a workflow command on its line: whitespace, which
/// the runner trims, and invisible format characters, which .NET's
/// culture-aware comparison may skip.
fn blank(c: char) -> bool {
    (c.is_whitespace() && c != '\n' && c != '\r') || blank_invisible(c)
}

/// Invisible format characters (a practical subset of Unicode's default
/// ignorables).
fn blank_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}')
}

/// `text` shown safely ([`for_display`]) on one line, so it stays one list
/// entry or one stderr line: each run of white space, newlines included,
/// becomes one space; then [`cut`] to `max` characters (`usize::MAX`: all).
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let line = for_display(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    cut(line, max)
}

/// `text` cut to its first `max` characters and `…`, when longer.
pub(crate) fn cut(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// `evidence` with [`strip_escapes`] applied to every string: what the
/// `json` (and `sarif`) reports write.
pub(crate) fn evidence_json(evidence: &Evidence) -> Evidence {
    map_strings(evidence, false, &strip_escapes)
}

/// `evidence` with [`for_display`] applied to every string: what the human
/// reports render.
pub(crate) fn evidence_display(evidence: &Evidence) -> Evidence {
    map_strings(evidence, true, &for_display)
}

/// The `json` report: the evidence's pretty JSON with every string through
/// [`strip_escapes`]. Serialised once when its text shows nothing to strip
/// (the usual case): the walk, a copy of the document and a second
/// serialisation cost milliseconds for a few hundred checks.
pub(crate) fn evidence_json_text(evidence: &Evidence) -> String {
    let text = run_check_documents::pretty(evidence);
    if !text_may_change(text.as_bytes(), false) {
        return text;
    }
    run_check_documents::pretty(&walk_strings(evidence, &strip_escapes))
}

/// Whether [`evidence_json`] (`display` false) or [`evidence_display`]
/// may change anything, judged from the compact JSON text (several times
/// cheaper than the walk).
fn may_change(evidence: &Evidence, display: bool) -> bool {
    let Ok(json) = serde_json::to_vec(evidence) else {
        return true;
    };
    text_may_change(&json, display)
}

/// [`may_change`] of the document's JSON text (compact or pretty: strings
/// are escaped alike): JSON writes ESC and the other C0 controls as
/// `\u00XX`, `\b`, `\f`, `\r`; C1 controls and DEL stay raw. A false
/// positive only costs the walk.
fn text_may_change(json: &[u8], display: bool) -> bool {
    let has = |needle: &[u8]| memchr::memmem::find(json, needle).is_some();
    let c1 = memchr::memchr_iter(0xc2, json)
        .any(|i| json.get(i + 1).is_some_and(|b| (0x80..=0x9f).contains(b)));
    if c1 || has(b"\\u001b") {
        return true;
    }
    display
        && (has(b"\\u00")
            || has(b"\\r")
            || has(b"\\b")
            || has(b"\\f")
            || has(b"::")
            || has(b"##[")
            || memchr::memchr(0x7f, json).is_some())
}

/// Every string of the document (values and keys) through `f`, by way of
/// its JSON form, so that fields added later are covered too; no walk when
/// [`may_change`] (of `display`) says nothing can change.
fn map_strings(evidence: &Evidence, display: bool, f: &dyn Fn(&str) -> Cow<'_, str>) -> Evidence {
    if !may_change(evidence, display) {
        return evidence.clone();
    }
    walk_strings(evidence, f)
}

/// Every string of the document through `f`, walked without asking first
/// whether any can change.
fn walk_strings(evidence: &Evidence, f: &dyn Fn(&str) -> Cow<'_, str>) -> Evidence {
    let Ok(mut value) = serde_json::to_value(evidence) else {
        return evidence.clone();
    };
    if !map_value(&mut value, f) {
        return evidence.clone();
    }
    // The document's own JSON form reads back (the readers accept what the
    // writer writes; a unit test holds it).
    serde_json::from_value(value).unwrap_or_else(|_| evidence.clone())
}

/// Maps the strings of `value` in place; whether any changed.
fn map_value(value: &mut serde_json::Value, f: &dyn Fn(&str) -> Cow<'_, str>) -> bool {
    match value {
        serde_json::Value::String(s) => match f(s) {
            Cow::Borrowed(_) => false,
            Cow::Owned(new) => {
                *s = new;
                true
            }
        },
        // Every item is mapped: `|`, not `||`, which would stop at the first
        // change.
        serde_json::Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| map_value(item, f) | changed),
        serde_json::Value::Object(map) => {
            if map.keys().any(|k| matches!(f(k), Cow::Owned(_))) {
                for (key, mut item) in std::mem::take(map) {
                    map_value(&mut item, f);
                    map.insert(f(&key).into_owned(), item);
                }
                return true;
            }
            map.values_mut()
                .fold(false, |changed, item| map_value(item, f) | changed)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
