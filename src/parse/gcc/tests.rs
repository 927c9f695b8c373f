use super::*;
use crate::parse::tests::feed;
use DiagSeverity::{Error, Info, Note, Warning};

fn parse_all(require_severity: bool, text: &str) -> Vec<Diagnostic> {
    feed(&mut Gcc::new(require_severity), text).0
}

fn f(
    file: &str,
    line: u64,
    column: Option<u64>,
    severity: DiagSeverity,
    rule: Option<&str>,
    message: &str,
) -> Diagnostic {
    Diagnostic {
        file: Some(file.into()),
        line: Some(line),
        column,
        severity,
        rule: rule.map(Into::into),
        message: message.into(),
        ..Default::default()
    }
}

fn claims(require_severity: bool, line: &str) -> bool {
    Gcc::new(require_severity).line(line, &mut Vec::new())
}

#[test]
fn gcc_with_columns() {
    let expected = vec![
        f(
            "helper.h",
            1,
            Some(37),
            Warning,
            Some("-Wdiv-by-zero"),
            "division by zero",
        ),
        f(
            "src.c",
            8,
            Some(21),
            Warning,
            Some("-Wint-conversion"),
            "initialization of ‘const char *’ from ‘int’ makes pointer from integer without a cast",
        ),
        f(
            "src.c",
            9,
            Some(14),
            Warning,
            Some("-Wformat="),
            "format ‘%d’ expects argument of type ‘int’, but argument 2 has type ‘char *’",
        ),
        f(
            "src.c",
            10,
            Some(18),
            Error,
            None,
            "‘undeclared’ undeclared (first use in this function)",
        ),
        f(
            "src.c",
            10,
            Some(18),
            Note,
            None,
            "each undeclared identifier is reported only once for each function it appears in",
        ),
        f(
            "src.c",
            8,
            Some(17),
            Warning,
            Some("-Wunused-variable"),
            "unused variable ‘s’",
        ),
        f(
            "src.c",
            7,
            Some(9),
            Warning,
            Some("-Wunused-variable"),
            "unused variable ‘unused’",
        ),
        f(
            "helper.h",
            1,
            Some(12),
            Warning,
            Some("-Wunused-function"),
            "‘helper’ defined but not used",
        ),
        f(
            "missing.c",
            1,
            Some(10),
            Error,
            None,
            "does_not_exist.h: No such file or directory",
        ),
    ];
    let text = include_str!("../../../tests/fixtures/diagnostics/gcc/gcc.txt");
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
}

#[test]
fn gcc_two_units_including_one_header_print_its_warnings_twice() {
    // The parser reports every line; the collector keeps repeats once
    // (parse::tests::a_headers_warning_printed_for_two_translation_units_is_one).
    let text = include_str!("../../../tests/fixtures/diagnostics/gcc/gcc-two-units.txt");
    let div = f(
        "two-units.h",
        1,
        Some(37),
        Warning,
        Some("-Wdiv-by-zero"),
        "division by zero",
    );
    let unused_fn = f(
        "two-units.h",
        1,
        Some(12),
        Warning,
        Some("-Wunused-function"),
        "‘shared’ defined but not used",
    );
    let unused = |file| {
        f(
            file,
            2,
            Some(21),
            Warning,
            Some("-Wunused-variable"),
            "unused variable ‘unused’",
        )
    };
    let expected = vec![
        div.clone(),
        unused("unit-a.c"),
        unused_fn.clone(),
        div,
        unused("unit-b.c"),
        unused_fn,
    ];
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
}

#[test]
fn gcc_without_columns_and_with_werror() {
    let text = include_str!("../../../tests/fixtures/diagnostics/gcc/gcc-nocolumn.txt");
    let expected = vec![
        f(
            "helper.h",
            1,
            None,
            Warning,
            Some("-Wdiv-by-zero"),
            "division by zero",
        ),
        f(
            "src.c",
            8,
            None,
            Warning,
            Some("-Wint-conversion"),
            "initialization of ‘const char *’ from ‘int’ makes pointer from integer without a cast",
        ),
        f(
            "src.c",
            9,
            None,
            Warning,
            Some("-Wformat="),
            "format ‘%d’ expects argument of type ‘int’, but argument 2 has type ‘char *’",
        ),
        f(
            "src.c",
            10,
            None,
            Error,
            None,
            "‘undeclared’ undeclared (first use in this function)",
        ),
        f(
            "src.c",
            10,
            None,
            Note,
            None,
            "each undeclared identifier is reported only once for each function it appears in",
        ),
        f(
            "src.c",
            8,
            None,
            Error,
            Some("-Werror=unused-variable"),
            "unused variable ‘s’",
        ),
        f(
            "src.c",
            7,
            None,
            Error,
            Some("-Werror=unused-variable"),
            "unused variable ‘unused’",
        ),
        f(
            "helper.h",
            1,
            None,
            Warning,
            Some("-Wunused-function"),
            "‘helper’ defined but not used",
        ),
    ];
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
}

#[test]
fn clang() {
    let text = include_str!("../../../tests/fixtures/diagnostics/clang/clang.txt");
    let expected = vec![
        f(
            "./helper.h",
            1,
            Some(37),
            Warning,
            Some("-Wdivision-by-zero"),
            "division by zero is undefined",
        ),
        f(
            "src.c",
            8,
            Some(17),
            Warning,
            Some("-Wint-conversion"),
            "incompatible integer to pointer conversion initializing 'const char *' with an expression of type 'int'",
        ),
        f(
            "src.c",
            9,
            Some(20),
            Warning,
            Some("-Wformat"),
            "format specifies type 'int' but the argument has type 'char *'",
        ),
        f(
            "src.c",
            10,
            Some(18),
            Error,
            None,
            "use of undeclared identifier 'undeclared'",
        ),
        f(
            "missing.c",
            1,
            Some(10),
            Error,
            None,
            "'does_not_exist.h' file not found",
        ),
        f(
            "warn.c",
            5,
            Some(11),
            Warning,
            Some("-Wparentheses"),
            "using the result of an assignment as a condition without parentheses",
        ),
        f(
            "warn.c",
            5,
            Some(11),
            Note,
            None,
            "place parentheses around the assignment to silence this warning",
        ),
        f(
            "warn.c",
            5,
            Some(11),
            Note,
            None,
            "use '==' to turn this assignment into an equality comparison",
        ),
        f(
            "warn.c",
            4,
            Some(9),
            Error,
            Some("-Werror,-Wunused-variable"),
            "unused variable 'unused'",
        ),
    ];
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
}

#[test]
fn clang_without_columns() {
    let text = include_str!("../../../tests/fixtures/diagnostics/clang/clang-nocolumn.txt");
    let found = parse_all(true, text);
    assert_eq!(
        found,
        vec![
            f(
                "./helper.h",
                1,
                None,
                Warning,
                Some("-Wdivision-by-zero"),
                "division by zero is undefined"
            ),
            f(
                "src.c",
                8,
                None,
                Warning,
                Some("-Wint-conversion"),
                "incompatible integer to pointer conversion initializing 'const char *' with an expression of type 'int'",
            ),
            f(
                "src.c",
                9,
                None,
                Warning,
                Some("-Wformat"),
                "format specifies type 'int' but the argument has type 'char *'",
            ),
            f(
                "src.c",
                10,
                None,
                Error,
                None,
                "use of undeclared identifier 'undeclared'"
            ),
        ]
    );
}

#[test]
fn shellcheck() {
    let text = include_str!("../../../tests/fixtures/diagnostics/shellcheck/shellcheck.txt");
    let quote = "Double quote to prevent globbing and word splitting.";
    let expected = vec![
        f(
            "script.sh",
            3,
            Some(12),
            Note,
            Some("SC2035"),
            "Use ./*glob* or -- *glob* so names with dashes won't become options.",
        ),
        f("script.sh", 5, Some(8), Note, Some("SC2086"), quote),
        f(
            "script.sh",
            7,
            Some(1),
            Warning,
            Some("SC2164"),
            "Use 'cd ... || exit' or 'cd ... || return' in case cd fails.",
        ),
        f("script.sh", 7, Some(9), Note, Some("SC2086"), quote),
        f("script.sh", 8, Some(6), Note, Some("SC2086"), quote),
        f(
            "script.sh",
            8,
            Some(12),
            Warning,
            Some("SC3014"),
            "In POSIX sh, == in place of = is undefined.",
        ),
        f(
            "broken.sh",
            2,
            Some(1),
            Error,
            Some("SC1046"),
            "Couldn't find 'fi' for this 'if'.",
        ),
        f(
            "broken.sh",
            2,
            Some(1),
            Error,
            Some("SC1073"),
            "Couldn't parse this if expression. Fix to allow more checks.",
        ),
        f(
            "broken.sh",
            4,
            Some(1),
            Error,
            Some("SC1047"),
            "Expected 'fi' matching previously mentioned 'if'.",
        ),
        f(
            "broken.sh",
            4,
            Some(1),
            Error,
            Some("SC1072"),
            "Expected 'fi'. Fix any mentioned problems and try again.",
        ),
    ];
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
}

#[test]
fn ruff_concise_only_without_required_severity() {
    let text = include_str!("../../../tests/fixtures/diagnostics/ruff/ruff.txt");
    assert_eq!(
        parse_all(false, text),
        vec![
            f(
                "bad.py",
                1,
                Some(8),
                Error,
                Some("F401"),
                "`os` imported but unused"
            ),
            f(
                "bad.py",
                2,
                Some(8),
                Error,
                Some("F401"),
                "`sys` imported but unused"
            ),
            f(
                "bad.py",
                6,
                Some(16),
                Error,
                Some("E711"),
                "Comparison to `None` should be `cond is None`"
            ),
            f(
                "bad.py",
                7,
                Some(27),
                Error,
                Some("F821"),
                "Undefined name `undefined_name`"
            ),
            f(
                "bad.py",
                8,
                Some(5),
                Error,
                Some("E741"),
                "Ambiguous variable name: `l`"
            ),
            f(
                "bad.py",
                8,
                Some(5),
                Error,
                Some("F841"),
                "Local variable `l` is assigned to but never used",
            ),
            f(
                "syntax.py",
                1,
                Some(12),
                Error,
                Some("invalid-syntax"),
                "Expected a parameter or the end of the parameter list",
            ),
            f(
                "syntax.py",
                1,
                Some(13),
                Error,
                Some("invalid-syntax"),
                "Expected `)`, found newline"
            ),
        ]
    );
    assert_eq!(parse_all(true, text), vec![]);
}

#[test]
fn eslint_unix() {
    let text = include_str!("../../../tests/fixtures/diagnostics/eslint-unix/eslint-unix.txt");
    let expected = vec![
        f(
            "/work/proj/bad.js",
            1,
            Some(7),
            Error,
            Some("no-unused-vars"),
            "'fs' is assigned a value but never used.",
        ),
        f(
            "/work/proj/bad.js",
            4,
            Some(9),
            Warning,
            Some("eqeqeq"),
            "Expected '===' and instead saw '=='.",
        ),
        f(
            "/work/proj/bad.js",
            7,
            Some(7),
            Error,
            Some("no-unused-vars"),
            "'unused' is assigned a value but never used.",
        ),
        f(
            "/work/proj/bad.js",
            8,
            Some(14),
            Error,
            Some("no-undef"),
            "'c' is not defined.",
        ),
        f(
            "/work/proj/bad.js",
            11,
            Some(1),
            Warning,
            Some("no-debugger"),
            "Unexpected 'debugger' statement.",
        ),
        f(
            "/work/proj/syntax.js",
            2,
            Some(3),
            Error,
            None,
            "Parsing error: Unexpected keyword 'return'",
        ),
    ];
    assert_eq!(parse_all(false, text), expected);
    assert_eq!(parse_all(true, text), expected);
    assert_eq!(
        parse_all(
            true,
            "/p/a.ts:3:1: Unused. [Warning/@typescript-eslint/no-unused-vars]"
        )[0]
        .rule,
        Some("@typescript-eslint/no-unused-vars".into())
    );
}

#[test]
fn go_vet_only_without_required_severity() {
    let text = include_str!("../../../tests/fixtures/diagnostics/go/vet.txt");
    assert_eq!(
        parse_all(false, text),
        vec![
            f(
                "./main.go",
                7,
                Some(2),
                Error,
                None,
                "fmt.Printf format %d has arg name of wrong type string"
            ),
            f("./main.go", 10, Some(2), Error, None, "unreachable code"),
        ]
    );
    assert_eq!(parse_all(true, text), vec![]);
}

#[test]
fn rustc_short_format_and_remarks() {
    assert_eq!(
        parse_all(
            true,
            "src/main.rs:9:20: error[E0425]: cannot find value `totl` in this scope"
        ),
        vec![f(
            "src/main.rs",
            9,
            Some(20),
            Error,
            Some("E0425"),
            "cannot find value `totl` in this scope"
        )]
    );
    assert_eq!(
        parse_all(
            true,
            "a.c:4:2: remark: foo inlined into main [-Rpass=inline]"
        ),
        vec![f(
            "a.c",
            4,
            Some(2),
            Info,
            Some("-Rpass=inline"),
            "foo inlined into main"
        )]
    );
    assert_eq!(
        parse_all(true, r"C:\src\a.c:4:2: warning: odd [-Wextra]"),
        vec![f(
            r"C:\src\a.c",
            4,
            Some(2),
            Warning,
            Some("-Wextra"),
            "odd"
        )]
    );
}

#[test]
fn context_caret_and_summary_lines_are_not_claimed() {
    for text in [
        include_str!("../../../tests/fixtures/diagnostics/gcc/gcc.txt"),
        include_str!("../../../tests/fixtures/diagnostics/clang/clang.txt"),
    ] {
        for line in text.lines() {
            let is_diag = [": error: ", ": warning: ", ": note: ", ": fatal error: "]
                .iter()
                .any(|w| line.contains(w))
                && !line.starts_with(' ')
                && !line.starts_with("collect2:");
            assert_eq!(claims(false, line), is_diag, "{line}");
        }
    }
}

#[test]
fn near_misses_are_never_claimed() {
    for line in [
        "12:30:45: started",
        "12:30:45: error: disk full",
        "2024-01-01T12:30:45: error: disk full",
        "[2024-01-01 12:30:45] warning: slow",
        "2024-01-01 12:30:45: warning: slow",
        "http://host:8080: ok",
        "http://host:8080: error: refused",
        "Error at 12:30:45: something",
        "make: *** [Makefile:3: all] Error 1",
        "In file included from src.c:2:",
        "                 from src.c:3,",
        "src.c: In function ‘main’:",
        "helper.h: At top level:",
        "    8 |     const char *s = 42;",
        "      |                     ^~",
        "link.c:(.text+0x5): undefined reference to `missing_fn'",
        "collect2: error: ld returned 1 exit status",
        "cc1: some warnings being treated as errors",
        "3 warnings and 1 error generated.",
        "a.c:0:1: error: line zero",
        "a.c:3:4:",
        "a.c:3:4: ",
        "Found 8 errors.",
        "a.py:3: in test_x",
    ] {
        assert!(!claims(true, line), "auto claimed {line:?}");
        assert!(!claims(false, line), "gcc claimed {line:?}");
    }
    // With a severity required, a bare `file:line:col: text` is not claimed.
    for line in [
        "a:1:2: text",
        "./x.go:5:2: message",
        "x.py:1:8: F401 [*] `os` unused",
        "a.c:3: text",
    ] {
        assert!(!claims(true, line), "auto claimed {line:?}");
    }
    // Without a column, a line without severity is not claimed either.
    assert!(!claims(false, "tests/test_x.py:12: AssertionError"));
    assert!(!claims(false, "notes/today.txt:3: call Bob"));
    // Unknown severity-ish words and brackets stay part of the message.
    assert_eq!(
        parse_all(false, "a.c:1:2: oops: x [not a flag]"),
        vec![f("a.c", 1, Some(2), Error, None, "oops: x [not a flag]")]
    );
    assert!(!claims(true, "a.c:1:2: failed: x"));
    assert!(!claims(true, "a.c:1:2: x [Fatal/rule]"));
}
