use super::*;
use crate::parse::tests::feed;
use crate::parse::{Auto, Parser, parser_for};
use DiagSeverity::{Error, Help, Info, Warning};

fn linters() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diagnostics/linters")
}

/// `auto` over a capture, run in `linters/<dir>` with `linters` as the
/// worktree.
fn auto_in(dir: &str, text: &str) -> Vec<Diagnostic> {
    let base = Base {
        cwd: linters().join(dir),
        worktree: linters(),
    };
    feed(&mut Auto::within(Some(base)), text).0
}

/// File, line, column, rule, severity.
type Owned = (
    String,
    Option<u64>,
    Option<u64>,
    Option<String>,
    DiagSeverity,
);

type Row = (
    &'static str,
    Option<u64>,
    Option<u64>,
    Option<&'static str>,
    DiagSeverity,
);

fn rows(found: &[Diagnostic]) -> Vec<Owned> {
    found
        .iter()
        .map(|d| {
            (
                d.file.clone().unwrap_or_default(),
                d.line,
                d.column,
                d.rule.clone(),
                d.severity,
            )
        })
        .collect()
}

fn expect(rows_: &[Row]) -> Vec<Owned> {
    rows_
        .iter()
        .map(|(f, l, c, r, s)| (f.to_string(), *l, *c, r.map(str::to_string), *s))
        .collect()
}

fn read(dir: &str, name: &str) -> String {
    std::fs::read_to_string(linters().join(dir).join(name)).unwrap()
}

/// Every linter capture: the file, line, column, rule and severity of
/// each diagnostic `auto` reports, in order.
#[test]
fn auto_locates_every_linter_capture() {
    let located = |file: &'static str, line, column, rule, severity| -> Row {
        (file, Some(line), Some(column), Some(rule), severity)
    };
    let lined = |file: &'static str, line, rule, severity| -> Row {
        (file, Some(line), None, Some(rule), severity)
    };
    let flake8_pycodestyle = |with_flake8: bool| -> Vec<Row> {
        let mut rows = Vec::new();
        if with_flake8 {
            rows.push(located("bad.py", 1, 1, "F401", Error));
            rows.push(located("bad.py", 1, 1, "F401", Error));
        }
        rows.push(located("bad.py", 1, 10, "E401", Error));
        if with_flake8 {
            rows.push(located("bad.py", 7, 5, "F841", Error));
        }
        rows.push(located("bad.py", 10, 5, "E722", Error));
        rows.push(located("bad.py", 13, 15, "E711", Error));
        if with_flake8 {
            rows.push(located("bad.py", 15, 5, "F841", Error));
        }
        rows.push(located("bad.py", 15, 5, "E741", Error));
        rows.push(located("bad.py", 16, 80, "E501", Error));
        rows.push(located("helper.py", 1, 12, "E201", Error));
        rows.push(located("helper.py", 1, 14, "E202", Error));
        rows
    };
    // pylint's columns are 0-based: each is one more here.
    let pylint = vec![
        located("bad.py", 16, 1, "C0301", Info),
        located("bad.py", 1, 1, "C0114", Info),
        located("bad.py", 6, 1, "W0622", Warning),
        located("bad.py", 1, 1, "C0410", Info),
        located("bad.py", 6, 1, "C0116", Info),
        located("bad.py", 10, 5, "W0702", Warning),
        located("bad.py", 13, 8, "C0121", Info),
        located("bad.py", 7, 5, "W0612", Warning),
        located("bad.py", 15, 5, "W0612", Warning),
        located("bad.py", 1, 1, "W0611", Warning),
        located("bad.py", 1, 1, "W0611", Warning),
        located("helper.py", 1, 1, "C0114", Info),
        located("helper.py", 3, 9, "W0123", Warning),
    ];
    let pydocstyle = vec![
        lined("bad.py", 1, "D100", Error),
        lined("bad.py", 6, "D103", Error),
        lined("helper.py", 1, "D100", Error),
        lined("helper.py", 2, "D300", Error),
        lined("helper.py", 2, "D400", Error),
        lined("helper.py", 2, "D403", Error),
    ];
    // bandit: HIGH error, MEDIUM warning, LOW info; the report's
    // columns are 0-based.
    let bandit = vec![
        located("./bad.py", 2, 1, "B404", Info),
        located("./bad.py", 7, 16, "B105", Info),
        located("./bad.py", 9, 18, "B602", Error),
        located("./bad.py", 10, 5, "B110", Info),
        located("./bad.py", 12, 5, "B101", Info),
        located("./helper.py", 3, 9, "B307", Warning),
    ];
    let abs_bad = "/work/proj/python/bad.py";
    let bandit_custom = vec![
        lined(abs_bad, 2, "B404", Info),
        lined(abs_bad, 7, "B105", Info),
        lined(abs_bad, 9, "B602", Error),
        lined(abs_bad, 10, "B110", Info),
        lined(abs_bad, 12, "B101", Info),
        lined("/work/proj/python/helper.py", 3, "B307", Warning),
    ];
    let ruff = vec![
        located("bad.py", 1, 1, "I001", Error),
        located("bad.py", 1, 8, "F401", Error),
        located("bad.py", 1, 12, "F401", Error),
        located("bad.py", 7, 5, "F841", Error),
        located("bad.py", 10, 5, "E722", Error),
        located("bad.py", 10, 5, "S110", Error),
        located("bad.py", 15, 5, "F841", Error),
    ];
    let yamllint = vec![
        located("config.yaml", 2, 11, "trailing-spaces", Error),
        located("config.yaml", 5, 5, "hyphens", Error),
        located("config.yaml", 6, 1, "key-duplicates", Error),
        located("config.yaml", 7, 9, "truthy", Warning),
    ];
    let app_js = "/work/proj/js/app.js";
    let standard = vec![
        located(app_js, 1, 1, "no-var", Warning),
        located(app_js, 1, 5, "no-unused-vars", Error),
        located(app_js, 3, 12, "eqeqeq", Error),
        located(app_js, 3, 29, "quotes", Error),
        located(app_js, 4, 25, "semi", Error),
    ];
    // `deploy` has no extension: it is a file of the worktree.
    let shellcheck = vec![
        located("deploy", 3, 1, "SC2164", Warning),
        located("deploy", 3, 4, "SC2086", Info),
        located("deploy", 4, 10, "SC2045", Error),
        located("deploy", 4, 15, "SC2035", Info),
        located("deploy", 5, 8, "SC2086", Info),
        located("deploy", 7, 3, "SC2154", Warning),
        located("deploy", 7, 3, "SC2086", Info),
        located("deploy", 7, 10, "SC3014", Warning),
        located("build.sh", 2, 7, "SC2006", Info),
        located("build.sh", 4, 1, "SC2162", Info),
        located("build.sh", 4, 6, "SC2034", Warning),
    ];
    let vet = vec![
        ("./main.go", Some(15), Some(2), None, Error),
        ("./main.go", Some(7), Some(2), None, Error),
        ("./main.go", Some(11), Some(2), None, Error),
    ];
    let staticcheck = vec![
        located("main.go", 7, 13, "SA5009", Error),
        located("main.go", 9, 14, "SA4000", Error),
        located("main.go", 14, 6, "U1000", Error),
        located("main.go", 15, 2, "SA4018", Error),
        located("main.go", 16, 2, "SA9003", Error),
    ];
    let rubocop = |file: &'static str| {
        vec![
            located(file, 1, 1, "Style/Documentation", Info),
            located(file, 1, 1, "Style/FrozenStringLiteralComment", Info),
            located(file, 2, 11, "Layout/SpaceInsideParens", Info),
            located(file, 2, 12, "Naming/MethodParameterName", Info),
            located(file, 2, 13, "Layout/SpaceInsideParens", Info),
            located(file, 3, 5, "Lint/UselessAssignment", Warning),
            located(file, 4, 5, "Style/IfUnlessModifier", Info),
            located(file, 4, 10, "Style/NilComparison", Info),
            located(file, 4, 29, "Style/StringLiterals", Info),
            located(file, 4, 33, "Layout/EmptyLineAfterGuardClause", Info),
            located(file, 5, 10, "Style/StringLiterals", Info),
        ]
    };
    let file_only = |file: &'static str, rule| -> Row { (file, None, None, Some(rule), Error) };
    let cases: Vec<(&str, &str, Vec<Row>)> = vec![
        ("python", "flake8.txt", flake8_pycodestyle(true)),
        ("python", "pycodestyle.txt", flake8_pycodestyle(false)),
        ("python", "pylint.txt", pylint),
        ("python", "pydocstyle.txt", pydocstyle),
        ("python", "bandit.txt", bandit),
        ("python", "bandit-custom.txt", bandit_custom),
        ("python", "isort.txt", vec![file_only(abs_bad, "isort")]),
        (
            "python",
            "black.txt",
            vec![
                file_only("helper.py", "black"),
                file_only("bad.py", "black"),
            ],
        ),
        ("python", "ruff-concise.txt", ruff.clone()),
        ("python", "ruff-full.txt", ruff),
        (
            "python",
            "ruff-format.txt",
            vec![
                located("bad.py", 16, 12, "unformatted", Error),
                located("helper.py", 1, 12, "unformatted", Error),
            ],
        ),
        (
            "js",
            "prettier.txt",
            vec![("app.js", None, None, Some("prettier"), Warning)],
        ),
        ("yaml", "yamllint.txt", yamllint.clone()),
        ("yaml", "yamllint-parsable.txt", yamllint),
        ("js", "standard.txt", standard),
        ("shell", "shellcheck.txt", shellcheck),
        ("go", "vet.txt", vet),
        ("go", "staticcheck.txt", staticcheck),
        ("ruby", "rubocop.txt", rubocop("app.rb")),
        (
            "ruby",
            "rubocop-emacs.txt",
            rubocop("/work/proj/ruby/app.rb"),
        ),
    ];
    let mut tools = 0;
    for (dir, name, expected) in cases {
        let found = auto_in(dir, &read(dir, name));
        assert_eq!(rows(&found), expect(&expected), "{dir}/{name}");
        tools += 1;
    }
    // Every capture of generate.sh is checked above.
    let mut captured = 0;
    for dir in std::fs::read_dir(linters()).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            captured += std::fs::read_dir(&dir)
                .unwrap()
                .filter(|f| {
                    f.as_ref()
                        .unwrap()
                        .path()
                        .extension()
                        .is_some_and(|e| e == "txt")
                })
                .count();
        }
    }
    assert_eq!(tools, captured);
}

#[test]
fn messages_lose_their_codes_levels_and_rules() {
    let first = |dir: &str, name: &str| auto_in(dir, &read(dir, name)).remove(0).message;
    assert_eq!(first("python", "flake8.txt"), "'os' imported but unused");
    // pylint's symbol stays: it names the check in words.
    assert_eq!(
        first("python", "pylint.txt"),
        "Line too long (114/100) (line-too-long)"
    );
    assert_eq!(
        first("python", "pydocstyle.txt"),
        "Missing docstring in public module"
    );
    assert_eq!(
        first("python", "bandit.txt"),
        "Consider possible security implications associated with the subprocess module."
    );
    assert_eq!(
        first("python", "ruff-full.txt"),
        "Import block is un-sorted or un-formatted"
    );
    assert_eq!(first("yaml", "yamllint.txt"), "trailing spaces");
    assert_eq!(first("yaml", "yamllint-parsable.txt"), "trailing spaces");
    assert_eq!(
        first("js", "standard.txt"),
        "Unexpected var, use let or const instead."
    );
    assert_eq!(
        first("shell", "shellcheck.txt"),
        "Use 'cd ... || exit' or 'cd ... || return' in case cd fails."
    );
    assert_eq!(
        first("ruby", "rubocop.txt"),
        "Missing top-level documentation comment for class Foo."
    );
    assert_eq!(
        first("go", "staticcheck.txt"),
        "Printf format %d has arg #1 of wrong type string"
    );
}

fn lint_all(base: Option<Base>, text: &str) -> Vec<Diagnostic> {
    feed(&mut Lint::new(base), text).0
}

#[test]
fn other_shapes_of_the_issue() {
    // Shapes users reported from tools that no captured fixture here prints.
    let one = |line: &str| {
        let found = lint_all(None, line);
        assert_eq!(found.len(), 1, "{line}: {found:?}");
        let d = &found[0];
        (
            d.file.clone().unwrap(),
            d.line,
            d.column,
            d.rule.clone(),
            d.severity,
            d.message.clone(),
        )
    };
    let s = |t: &str| t.to_string();
    assert_eq!(
        one("docs/a.md:258:4:error - Unexpected heading level"),
        (
            s("docs/a.md"),
            Some(258),
            Some(4),
            None,
            Error,
            s("Unexpected heading level")
        )
    );
    assert_eq!(
        one("src/x.go:3:9: Error return value is not checked (errcheck)"),
        (
            s("src/x.go"),
            Some(3),
            Some(9),
            Some(s("errcheck")),
            Error,
            s("Error return value is not checked")
        )
    );
    assert_eq!(
        one("README.md:3:1: Suggestion: Consider using 'use' instead."),
        (
            s("README.md"),
            Some(3),
            Some(1),
            None,
            Help,
            s("Consider using 'use' instead.")
        )
    );
    assert_eq!(
        one("site.yml:3: yaml[truthy]: Truthy value should be one of [false, true]"),
        (
            s("site.yml"),
            Some(3),
            None,
            Some(s("yaml[truthy]")),
            Error,
            s("Truthy value should be one of [false, true]")
        )
    );
    assert_eq!(
        one("lib/m.py:4: DeprecationWarning: old"),
        (
            s("lib/m.py"),
            Some(4),
            None,
            Some(s("DeprecationWarning")),
            Warning,
            s("old")
        )
    );
    // A column 0 is no column (columns are 1-based).
    assert_eq!(
        one("a.sql:7:0: warning: whole line"),
        (s("a.sql"), Some(7), None, None, Warning, s("whole line"))
    );
}

#[test]
fn test_runner_output_and_excerpts_are_not_located() {
    for line in [
        // go test logs (indented, no column), pytest tracebacks (no
        // level, no rule), prose, timestamps, URLs, files that are no
        // source and not in the worktree.
        "    half_test.go:7: Half(4) = 3, want 2",
        "tests/test_a.py:12: AssertionError",
        "tests/test_a.py:12: in test_add",
        "notes.txt:3: call Bob",
        "12:30:45: started",
        "http://host:8080: ok",
        "Error at 12:30:45: something",
        "2024-01-01T12:30:45: x",
        "build/output:3:4: not a worktree file",
        "E501 line too long",
        "F401 [*] `os` imported but unused",
        "   Location: ./bad.py:2:0",
        "config.yaml",
        "  2:11      error    trailing spaces  (trailing-spaces)",
        "In deploy line 3:",
        "                    ^-- SC2086 (info): Double quote",
        "would reformat notes",
        "    x = \"a.py:1: b\"",
    ] {
        let found = lint_all(None, line);
        assert_eq!(found, vec![], "{line:?}");
    }
    // Each line alone: a ruff header, a bandit issue, yamllint's file
    // line need what follows them.
    assert_eq!(lint_all(None, "F401 [*] x\n\n --> a.py:1:1\n"), vec![]);
}

#[test]
fn a_path_without_an_extension_must_be_a_file_of_the_worktree() {
    let line = "deploy:3:1: Use 'cd ... || exit'. (SC2164)";
    let inside = Base {
        cwd: linters().join("shell"),
        worktree: linters(),
    };
    assert_eq!(lint_all(Some(inside.clone()), line).len(), 1);
    // No such file in the check's directory.
    let elsewhere = Base {
        cwd: linters().join("python"),
        worktree: linters(),
    };
    assert_eq!(lint_all(Some(elsewhere), line), vec![]);
    // There, but outside the worktree.
    let outside = Base {
        cwd: linters().join("python"),
        worktree: linters().join("python"),
    };
    assert_eq!(
        lint_all(Some(outside), "../shell/deploy:3:1: x (SC2164)"),
        vec![]
    );
    // A folder is no file.
    assert_eq!(lint_all(Some(inside), "../shell:3:1: x (SC2164)"), vec![]);
    // Without the check's directories, only source extensions count.
    assert_eq!(lint_all(None, line), vec![]);
}

/// Reads `auto-before.tsv`: fixture -> what auto found before.
fn before() -> Vec<(String, Vec<String>)> {
    let text = read(".", "auto-before.tsv");
    let mut fixtures: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if line.starts_with("##") {
            continue;
        }
        if let Some(head) = line.strip_prefix("# ") {
            let (name, count) = head.rsplit_once(' ').unwrap();
            fixtures.push((name.to_string(), Vec::with_capacity(count.parse().unwrap())));
        } else {
            fixtures.last_mut().unwrap().1.push(line.to_string());
        }
    }
    fixtures
}

fn row(d: &Diagnostic) -> String {
    let number = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
    format!(
        "{}\t{}\t{}\t{:?}\t{}\t{}",
        d.file.as_deref().unwrap_or("-"),
        number(d.line),
        number(d.column),
        d.severity,
        d.rule.as_deref().unwrap_or("-"),
        d.message.replace('\n', "\\n")
    )
}

fn parse_with(kind: Parser, text: &str) -> Vec<Diagnostic> {
    feed(parser_for(kind).unwrap().as_mut(), text).0
}

/// On the fixtures of every parser, `auto` finds what it found before
/// the linter lines, in the same order, and beyond that only what the
/// fixture's own parser locates (same file, line, column, rule and
/// severity): ruff's concise lines and go vet's.
#[test]
fn no_extra_diagnostic_on_the_fixtures_of_every_parser() {
    let root = linters().join("..");
    let own = |fixture: &str| crate::parse::fixture_parser(fixture.split('/').next().unwrap());
    let fixtures = before();
    assert!(fixtures.len() > 40, "{} fixtures", fixtures.len());
    let mut with_extras = Vec::new();
    for (fixture, was) in &fixtures {
        let text = std::fs::read_to_string(root.join(fixture)).unwrap();
        // The worktree is the fixture's folder: every sample file in it
        // is a file of the worktree.
        let dir = root.join(fixture).parent().unwrap().to_path_buf();
        let base = Base {
            cwd: dir.clone(),
            worktree: dir,
        };
        let (now, _) = feed(&mut Auto::within(Some(base)), &text);
        let theirs: Vec<_> = rows(&parse_with(own(fixture), &text));
        let mut kept = was.iter().peekable();
        let mut extras = 0;
        for d in &now {
            if kept.peek().is_some_and(|w| **w == row(d)) {
                kept.next();
                continue;
            }
            assert!(
                theirs.contains(&rows(std::slice::from_ref(d))[0]),
                "{fixture}: auto now also finds {}",
                row(d)
            );
            extras += 1;
        }
        assert_eq!(kept.next(), None, "{fixture}: auto lost a diagnostic");
        if extras > 0 {
            with_extras.push(format!("{fixture} {extras}"));
        }
    }
    assert_eq!(
        with_extras,
        ["go/build.txt 3", "go/vet.txt 2", "ruff/ruff.txt 8"]
    );
}
