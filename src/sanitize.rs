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

/// `evidence` with [`strip_escapes`] applied to every string: what the
/// `json` (and `sarif`) reports write.
pub(crate) fn evidence_json(evidence: &Evidence) -> Evidence {
    if !may_change(evidence, false) {
        return evidence.clone();
    }
    map_strings(evidence, &strip_escapes)
}

/// `evidence` with [`for_display`] applied to every string: what the human
/// reports render.
pub(crate) fn evidence_display(evidence: &Evidence) -> Evidence {
    if !may_change(evidence, true) {
        return evidence.clone();
    }
    map_strings(evidence, &for_display)
}

/// Whether [`evidence_json`] (`display` false) or [`evidence_display`]
/// may change anything, judged from the compact JSON text (several times
/// cheaper than the walk): JSON writes ESC and the other C0 controls as
/// `\u00XX`, `\b`, `\f`, `\r`; C1 controls and DEL stay raw. A false
/// positive only costs the walk.
fn may_change(evidence: &Evidence, display: bool) -> bool {
    let Ok(json) = serde_json::to_vec(evidence) else {
        return true;
    };
    let has = |needle: &[u8]| memchr::memmem::find(&json, needle).is_some();
    let c1 = memchr::memchr_iter(0xc2, &json)
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
            || memchr::memchr(0x7f, &json).is_some())
}

/// Every string of the document (values and keys) through `f`, by way of
/// its JSON form, so that fields added later are covered too.
fn map_strings(evidence: &Evidence, f: &dyn Fn(&str) -> Cow<'_, str>) -> Evidence {
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
        serde_json::Value::Array(items) => {
            let mut changed = false;
            for item in items {
                changed |= map_value(item, f);
            }
            changed
        }
        serde_json::Value::Object(map) => {
            let mut changed = false;
            let keys_change = map.keys().any(|k| matches!(f(k), Cow::Owned(_)));
            if keys_change {
                let old = std::mem::take(map);
                for (key, mut item) in old {
                    map_value(&mut item, f);
                    map.insert(f(&key).into_owned(), item);
                }
                return true;
            }
            for item in map.values_mut() {
                changed |= map_value(item, f);
            }
            changed
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_escape_sequence_goes() {
        for (input, expected) in [
            ("\x1b[1;31merror\x1b[0m: x", "error: x"),
            ("\x1b]0;title\x07after", "after"),
            ("\x1b]0;title\x1b\\after", "after"),
            ("\x1b]8;;http://evil\x07link\x1b]8;;\x07", "link"),
            // Only ESC \ ends an OSC (an UTF-8 U+009C does not): the line
            // ends it here.
            ("\x1b]8;;http://evil\u{9c}link\nnext", "\nnext"),
            ("a\x1b[2Jb\x1b[Hc", "abc"),
            ("a\x1b[?25lb\x1b[38;2;1;2;3mc", "abc"),
            ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),
            // BEL ends an OSC, not an APC, PM or SOS string.
            ("a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x07x\x1b\\d", "abcd"),
            ("a\x1b(Bb\x1b)0c\x1b#8d\x1b%Ge", "abcde"),
            ("a\x1b7b\x1b8c\x1bMd\x1bce\x1b=f", "abcdef"),
            // UTF-8 C1 controls are characters to the parser: they go, what
            // an 8-bit terminal would have read as their sequence is text.
            ("a\u{9b}31mb\u{9d}0;t\u{9c}c\u{85}d\u{8d}e", "a31mb0;tcde"),
            // C0 controls outside a sequence stay (anstream drops them).
            ("\x1b[1ma\x07b\x08c\x7fd\x00", "a\x07b\x08c\x7fd\x00"),
            // A CSI interrupted by CAN, a DCS ended by ESC \, another ESC.
            ("a\x1b[31\x18b\x1bP1$r\x1b\\c\x1b\x1b[2Jd", "a\x18bcd"),
            ("lone\x1b", "lone"),
            ("\x1b\x1b[31mx", "x"),
            // An unterminated string ends at its line; the rest is kept.
            ("a\x1b]0;never ends\nnext", "a\nnext"),
            // A malformed CSI keeps what cannot belong to it.
            ("a\x1b[31\nb", "a\nb"),
            ("plain\ttext\r\n\u{0}", "plain\ttext\r\n\u{0}"),
            ("ünïcödé ✓ \u{a0}\u{bf}", "ünïcödé ✓ \u{a0}\u{bf}"),
        ] {
            assert_eq!(strip_escapes(input), expected, "{input:?}");
        }
        assert!(matches!(strip_escapes("no escape"), Cow::Borrowed(_)));
    }

    #[test]
    fn nothing_escape_like_survives_any_input() {
        // A deterministic pseudo-random walk over the interesting characters.
        let alphabet = [
            '\x1b', '[', ']', 'P', '_', '^', 'X', '(', '#', '\\', '\x07', '\u{9b}', '\u{9c}',
            '\u{9d}', '\u{85}', '0', ';', 'm', 'a', '\n', '\r', ' ', ':', '\u{18}', 'é',
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let len = (seed % 24) as usize;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            let stripped = strip_escapes(&text);
            assert!(
                !stripped.chars().any(|c| c == '\x1b' || is_c1(c)),
                "{text:?} -> {stripped:?}"
            );
            let shown = for_display(&text);
            assert!(
                !shown
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{text:?} -> {shown:?}"
            );
            for line in shown.split('\n') {
                let line = line.trim_start_matches(blank);
                assert!(!line.starts_with("::"), "{text:?} -> {shown:?}");
                assert!(!line.contains("##["), "{text:?} -> {shown:?}");
            }
        }
    }

    #[test]
    fn display_makes_controls_visible_and_defuses_commands() {
        for (input, expected) in [
            ("ok", "ok"),
            ("a\u{0}b\u{7}c\u{8}d\u{7f}e\tf", "a␀b␇c␈d␡e\tf"),
            ("crlf\r\nlone\rcr", "crlf\nlone\ncr"),
            ("::add-mask::x", "\\::add-mask::x"),
            ("  ::error::forged", "  \\::error::forged"),
            (
                "\t\u{a0}\u{200b}::stop-commands::tok",
                "\t\u{a0}\u{200b}\\::stop-commands::tok",
            ),
            ("ok\r::error::x", "ok\n\\::error::x"),
            ("ok\n::warning file=a::x\n", "ok\n\\::warning file=a::x\n"),
            ("##[error]boom", "##\\[error]boom"),
            (
                "mid line ##[add-mask]s and ###[x",
                "mid line ##\\[add-mask]s and ###\\[x",
            ),
            ("a::b is fine", "a::b is fine"),
            (": :x", ": :x"),
            ("\x1b]0;t\x07::error::x", "\\::error::x"),
        ] {
            assert_eq!(for_display(input), expected, "{input:?}");
        }
    }

    #[test]
    fn every_string_of_an_evidence_is_mapped() {
        let mut evidence = crate::report::sample_evidence();
        evidence.checks[1].stdout_excerpt = "\x1b]0;pwned\x07::add-mask::x\r\n".into();
        evidence.checks[1].error = Some("bad \x1b[2J".into());
        evidence.checks[1].data.insert(
            "k\x1b[31m".into(),
            serde_json::Value::String("::error::v\u{0}".into()),
        );
        evidence.diagnostics[0].message = "m \u{9b}\x1bP+q\x1b\\".into();
        evidence.contracts.read_only.modified = vec!["f\x1b]8;;x\x07".into()];

        let json = evidence_json(&evidence);
        assert_eq!(json.checks[1].stdout_excerpt, "::add-mask::x\r\n");
        assert_eq!(json.checks[1].error.as_deref(), Some("bad "));
        assert_eq!(json.checks[1].data["k"], "::error::v\u{0}");
        assert_eq!(json.diagnostics[0].message, "m ");
        assert_eq!(json.contracts.read_only.modified, ["f"]);

        let shown = evidence_display(&evidence);
        assert_eq!(shown.checks[1].stdout_excerpt, "\\::add-mask::x\n");
        assert_eq!(shown.checks[1].data["k"], "\\::error::v␀");
        // The quick pre-check misses none of them.
        for (text, json_changes) in [
            ("a\u{0}b", false),
            ("a\u{7f}b", false),
            ("a\rb", false),
            ("a\u{8}b", false),
            ("x ##[error]", false),
            ("::x", false),
            ("\u{85}", true),
            ("\u{1b}c", true),
        ] {
            let mut one = crate::report::sample_passing();
            one.checks[0].stdout_excerpt = text.into();
            assert!(may_change(&one, true), "{text:?}");
            assert_eq!(may_change(&one, false), json_changes, "{text:?}");
            assert_ne!(evidence_display(&one).checks[0].stdout_excerpt, text);
        }
        // Unchanged documents stay as they are.
        let clean = crate::report::sample_passing();
        assert!(!may_change(&clean, true));
        let again = evidence_display(&clean);
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&clean).unwrap()
        );
    }
}
