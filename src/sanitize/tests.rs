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
        '\x1b', '[', ']', 'P', '_', '^', 'X', '(', '#', '\\', '\x07', '\u{9b}', '\u{9c}', '\u{9d}',
        '\u{85}', '0', ';', 'm', 'a', '\n', '\r', ' ', ':', '\u{18}', 'é',
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

#[test]
fn the_json_report_is_the_stripped_document_serialised_once_when_clean() {
    let clean = crate::report::sample_passing();
    assert_eq!(
        evidence_json_text(&clean),
        run_check_documents::pretty(&clean)
    );
    // Pretty JSON escapes strings as the compact form does: every text
    // the pre-check knows is found in it too.
    for text in ["\u{85}", "\u{1b}c", "x\u{9b}y"] {
        let mut one = crate::report::sample_passing();
        one.checks[0].stdout_excerpt = text.into();
        let shown = evidence_json_text(&one);
        assert_eq!(shown, run_check_documents::pretty(&evidence_json(&one)));
        assert!(!shown.contains(text), "{text:?}");
    }
}

#[test]
fn one_line_is_safe_single_and_cut_at_a_character() {
    let text = "\u{1b}[31mred\u{1b}[0m\r\n  ::error::x\tand\u{7}\n\n##[warning]";
    assert_eq!(
        one_line(text, usize::MAX),
        "red \\::error::x and␇ ##\\[warning]"
    );
    assert_eq!(one_line(text, 3), "red…");
    assert_eq!(one_line("ééé", 2), "éé…");
    assert_eq!(one_line("ééé", 3), "ééé");
    assert_eq!(one_line(" \n\t ", 5), "");
}
