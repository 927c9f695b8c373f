use super::*;

/// Feeds `text` to `parser` a line at a time, ANSI colour removed as the
/// `Collector` removes it, then ends the stream: every parser's tests read
/// their captures through here. Returns the diagnostics and, per line,
/// whether the parser claimed it.
pub(crate) fn feed(parser: &mut dyn LineParser, text: &str) -> (Vec<Diagnostic>, Vec<bool>) {
    let mut out = Vec::new();
    let claimed = text
        .lines()
        .map(|line| parser.line(&crate::sanitize::strip_escapes(line), &mut out))
        .collect();
    parser.finish(&mut out);
    (out, claimed)
}

#[test]
fn a_parser_that_saw_no_line_finds_nothing() {
    // Collectors build their parser at the first line; skipping a silent
    // stream's parser is only right if it would have said nothing.
    let kinds = [
        Parser::Auto,
        Parser::Gcc,
        Parser::Rustc,
        Parser::CargoJson,
        Parser::Tsc,
        Parser::Pytest,
        Parser::Mypy,
        Parser::Eslint,
        Parser::Go,
        Parser::Rustfmt,
        Parser::Diff,
        Parser::Vitest,
        Parser::Jest,
        Parser::Tap,
        Parser::Cmake,
        Parser::Prettier,
        Parser::PhaseResult,
    ];
    for kind in kinds {
        let mut parser = parser_for(kind).expect("a parser");
        let mut found = Vec::new();
        parser.finish(&mut found);
        assert!(found.is_empty(), "{kind:?}: {found:?}");
        assert_eq!(parser.data(), None, "{kind:?}");
    }
    assert!(parser_for(Parser::None).is_none());
}

fn collector(parser: Parser, matchers: &[(&str, DiagSeverity)], score: Option<&str>) -> Collector {
    Collector {
        unbuilt: Some(parser),
        parser: None,
        base: None,
        matchers: matchers
            .iter()
            .map(|(r, s)| CustomMatcher {
                regex: Regex::new(r).unwrap(),
                severity: *s,
            })
            .collect(),
        score: score.map(|s| Regex::new(s).unwrap()),
        partial: Vec::new(),
        overflow: false,
        batch: Vec::new(),
        seen: Seen::default(),
        parsed: Parsed::default(),
    }
}

#[test]
fn matcher_groups_fill_the_fields_across_chunk_boundaries() {
    let mut c = collector(
        Parser::None,
        &[(
            r"^(?P<file>[^:]+):(?P<line>\d+): (?P<severity>\w+): (?P<message>.+)$",
            DiagSeverity::Error,
        )],
        None,
    );
    c.push(b"src/a.c:1");
    c.push(b"2: warning: unused x\r\nnoise\nlib/b.c:3: bogus: odd");
    let parsed = c.finish();
    assert_eq!(
        parsed.found,
        vec![
            Diagnostic {
                file: Some("src/a.c".into()),
                line: Some(12),
                severity: DiagSeverity::Warning,
                message: "unused x".into(),
                ..Diagnostic::default()
            },
            Diagnostic {
                file: Some("lib/b.c".into()),
                line: Some(3),
                severity: DiagSeverity::Error,
                message: "odd".into(),
                ..Diagnostic::default()
            },
        ]
    );
}

#[test]
fn a_matchers_zero_line_or_column_is_no_position() {
    let mut c = collector(
        Parser::None,
        &[(
            r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$",
            DiagSeverity::Error,
        )],
        None,
    );
    c.push(b"a.c:0:0: whole file\nb.c:7:0: whole line\n");
    let parsed = c.finish();
    let positions: Vec<_> = parsed.found.iter().map(|f| (f.line, f.column)).collect();
    assert_eq!(positions, [(None, None), (Some(7), None)]);
}

#[test]
fn a_column_0_from_any_parser_is_no_column() {
    // pylint's 0-based `bad.py:1:0:` read by the `gcc` parser (auto
    // reads pylint itself, and adds one).
    let text = include_str!("../../tests/fixtures/diagnostics/linters/python/pylint.txt");
    let mut c = collector(Parser::Gcc, &[], None);
    c.push(text.as_bytes());
    let columns: Vec<_> = c.finish().found.iter().map(|f| f.column).take(4).collect();
    assert_eq!(columns, [None, None, None, None]);
    let mut c = collector(Parser::Auto, &[], None);
    c.push(text.as_bytes());
    let columns: Vec<_> = c.finish().found.iter().map(|f| f.column).take(4).collect();
    assert_eq!(columns, [Some(1), Some(1), Some(1), Some(1)]);
}

#[test]
fn the_cap_keeps_the_first_thousand_and_counts_the_rest() {
    let mut c = collector(
        Parser::None,
        &[(r"^(?P<message>x\d+)$", DiagSeverity::Error)],
        None,
    );
    let mut text = String::new();
    for i in 0..1500 {
        text.push_str(&format!("x{i}\n"));
    }
    c.push(text.as_bytes());
    let parsed = c.finish();
    assert_eq!(parsed.found.len(), 1000);
    assert_eq!(parsed.dropped, 500);
    assert_eq!(parsed.found[999].message, "x999");
}

fn warning(file: &str, line: u64, column: u64, rule: &str, message: &str) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column: Some(column),
        severity: DiagSeverity::Warning,
        rule: Some(rule.into()),
        message: message.into(),
        ..Diagnostic::default()
    }
}

#[test]
fn a_headers_warning_printed_for_two_translation_units_is_one() {
    // Captured from `gcc -Wall -c unit-a.c unit-b.c`: both units include
    // two-units.h, whose two warnings gcc prints once per unit.
    let text = include_str!("../../tests/fixtures/diagnostics/gcc/gcc-two-units.txt");
    let expected = vec![
        warning("two-units.h", 1, 37, "-Wdiv-by-zero", "division by zero"),
        warning(
            "unit-a.c",
            2,
            21,
            "-Wunused-variable",
            "unused variable ‘unused’",
        ),
        warning(
            "two-units.h",
            1,
            12,
            "-Wunused-function",
            "‘shared’ defined but not used",
        ),
        // Same line, column, rule and message as unit-a.c's: another
        // file, another problem.
        warning(
            "unit-b.c",
            2,
            21,
            "-Wunused-variable",
            "unused variable ‘unused’",
        ),
    ];
    for parser in [Parser::Gcc, Parser::Auto] {
        let mut c = collector(parser, &[], None);
        c.push(text.as_bytes());
        let parsed = c.finish();
        assert_eq!(parsed.found, expected, "{parser:?}");
        // A repeat is not lost to the cap: it is not counted as dropped.
        assert_eq!(parsed.dropped, 0, "{parser:?}");
    }
}

#[test]
fn repeats_of_a_matcher_are_one_and_do_not_fill_the_cap() {
    let mut c = collector(
        Parser::None,
        &[(
            r"^(?P<file>\w+):(?P<line>\d+): (?P<message>.+)$",
            DiagSeverity::Error,
        )],
        None,
    );
    let mut text = String::new();
    // Each printed twice in a row, and the first five once more at the end.
    for i in 1..=MAX_PER_CHECK + 10 {
        text.push_str(&format!("a:{i}: x\na:{i}: x\n"));
    }
    for i in 1..=5 {
        text.push_str(&format!("a:{i}: x\n"));
    }
    c.push(text.as_bytes());
    let parsed = c.finish();
    assert_eq!(parsed.found.len(), MAX_PER_CHECK);
    let lines: Vec<_> = parsed.found.iter().map(|f| f.line).take(3).collect();
    assert_eq!(lines, [Some(1), Some(2), Some(3)]);
    // Beyond the cap nothing is remembered: every occurrence counts.
    assert_eq!(parsed.dropped, 20);
}

#[test]
fn every_field_but_the_suggestion_tells_diagnostics_apart() {
    let base = warning("a.c", 1, 2, "r", "m");
    let variants = [
        Diagnostic {
            file: Some("b.c".into()),
            ..base.clone()
        },
        Diagnostic {
            file: None,
            ..base.clone()
        },
        Diagnostic {
            line: Some(3),
            ..base.clone()
        },
        Diagnostic {
            column: None,
            ..base.clone()
        },
        Diagnostic {
            severity: DiagSeverity::Error,
            ..base.clone()
        },
        Diagnostic {
            rule: None,
            ..base.clone()
        },
        Diagnostic {
            message: "n".into(),
            ..base.clone()
        },
    ];
    let mut c = collector(Parser::None, &[], None);
    c.batch.push(base.clone());
    c.batch.extend(variants.iter().cloned());
    c.batch.push(Diagnostic {
        suggestion: Some("fix it".into()),
        ..base.clone()
    });
    c.batch.extend(variants.iter().cloned());
    c.keep_batch();
    let parsed = c.finish();
    let mut expected = vec![base];
    expected.extend(variants);
    assert_eq!(parsed.found, expected);
}

#[test]
fn the_captured_outputs_lose_only_their_repeats() {
    // Every fixture through the collector: what the parser reports line
    // by line, less the later copies of a diagnostic already reported.
    // Only the captures listed below print one problem twice: gcc's two
    // units including one header, `cargo test` building the library and
    // its test harness (rustc warns in each), `go build` then `go vet`
    // (vet's type check repeats build's error).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diagnostics");
    let mut with_repeats = Vec::new();
    let mut seen = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            seen += 1;
            let text = std::fs::read_to_string(&file).unwrap();
            let fixture = format!("{name}/{}", file.file_name().unwrap().to_string_lossy());
            for kind in [fixture_parser(&name), Parser::Auto] {
                let (raw, _) = feed(parser_for(kind).unwrap().as_mut(), &text);
                let mut distinct: Vec<Diagnostic> = Vec::new();
                for d in &raw {
                    if !distinct.iter().any(|k| Seen::same(k, d)) {
                        distinct.push(d.clone());
                    }
                }
                if distinct.len() != raw.len() {
                    with_repeats.push(format!("{fixture} {kind:?}"));
                }
                let mut c = collector(kind, &[], None);
                c.push(text.as_bytes());
                assert_eq!(c.finish().found, distinct, "{fixture} ({kind:?})");
            }
        }
    }
    assert!(seen > 30, "{seen} fixtures");
    with_repeats.sort();
    assert_eq!(
        with_repeats,
        [
            "cargo-json/test.txt Auto",
            "cargo-json/test.txt CargoJson",
            "gcc/gcc-two-units.txt Auto",
            "gcc/gcc-two-units.txt Gcc",
            "go/build.txt Go",
        ]
    );
}

#[test]
fn long_lines_are_cut_and_ansi_is_stripped() {
    let mut c = collector(
        Parser::None,
        &[(r"^(?P<message>m.*)$", DiagSeverity::Note)],
        None,
    );
    let long = format!("m{}\n", "y".repeat(3 * MAX_LINE));
    c.push(long.as_bytes());
    c.push(b"\x1b[31mmred\x1b[0m\n");
    let parsed = c.finish();
    assert_eq!(parsed.found[0].message.len(), MAX_LINE);
    assert_eq!(parsed.found[1].message, "mred");
}

#[test]
fn the_last_score_wins() {
    let mut c = collector(Parser::None, &[], Some(r"coverage: (\d+(?:\.\d+)?)%"));
    c.push(b"coverage: 50%\nlater coverage: 81.5%\ncoverage: n/a%\n");
    assert_eq!(c.finish().score, Some(81.5));
}

#[test]
fn a_score_outside_0_to_100_is_no_score() {
    let mut c = collector(Parser::None, &[], Some(r"score: (\S+)"));
    c.push(b"score: 42\nscore: inf\nscore: NaN\nscore: 1e999\nscore: 100.5\nscore: -1\n");
    assert_eq!(c.finish().score, Some(42.0));
}

#[test]
fn matcher_positions_past_u64_are_no_position() {
    let mut c = collector(
        Parser::None,
        &[(
            r"^(?P<file>\w+):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$",
            DiagSeverity::Error,
        )],
        None,
    );
    c.push(b"a:99999999999999999999999:0: huge\nb:18446744073709551615:1: max\n");
    let found = c.finish().found;
    assert_eq!((found[0].line, found[0].column), (None, None));
    assert_eq!((found[1].line, found[1].column), (Some(u64::MAX), Some(1)));
}

#[test]
fn auto_ends_a_block_at_a_line_an_earlier_parser_claimed() {
    let text = "src/a.ts(1,5): error TS2322: Type 'string' is not assignable.\n\
                    warning: unused variable: `x`\n\
                    \x20\x20--> src/main.rs:3:9\n\
                    \x20\x20\x20\x20indented text after rustc's block\n";
    let (out, _) = feed(&mut Auto::default(), text);
    let seen: Vec<(Option<&str>, &str)> = out
        .iter()
        .map(|f| (f.file.as_deref(), f.message.as_str()))
        .collect();
    // Without the interruption tsc would have taken the indented line
    // as the continuation of its message, across rustc's block.
    assert_eq!(
        seen,
        [
            (Some("src/a.ts"), "Type 'string' is not assignable."),
            (Some("src/main.rs"), "unused variable: `x`"),
        ]
    );
}

#[test]
fn clip_cuts_at_a_character_boundary() {
    assert_eq!(clip("short", 10), "short");
    assert_eq!(clip("abcdef", 3), "abc…");
    // "é" is two bytes: a cut inside it moves back before it.
    assert_eq!(clip("aéb", 2), "a…");
}

#[test]
fn paths_become_worktree_relative() {
    let wt = Path::new("/w");
    assert_eq!(relativize("src/a.rs", Path::new("/w"), wt), "src/a.rs");
    assert_eq!(relativize("./a.rs", Path::new("/w/sub"), wt), "sub/a.rs");
    assert_eq!(relativize("/w/x/../y.rs", Path::new("/w"), wt), "y.rs");
    assert_eq!(
        relativize("/elsewhere/z.rs", Path::new("/w"), wt),
        "/elsewhere/z.rs"
    );
    assert_eq!(relativize("../out.rs", Path::new("/w"), wt), "../out.rs");
}
