//! Diagnostics end to end (docs/evidence.md): real compilers and a failing
//! Rust test run as checks,
//! their output parsed into `diagnostics[]` with worktree-relative paths, the
//! cap of 1000 per check with flat memory, custom matchers, scores,
//! PHASE_RESULT data, and a tool's own words never deciding the verdict.

use serde_json::{Value, json};

use crate::support::{Test, check, diagnostics_of};

#[test]
fn gcc_errors_become_diagnostics_relative_to_the_worktree() {
    let run = Test::new()
        .file("src/bad.c", "int main(void) {\n    int x = \"text\";\n    return y;\n}\n")
        .config(
            "[settings]\nallow = [\"gcc\"]\n\
             [[check]]\nname = \"cc\"\nrun = [\"gcc\", \"-c\", \"bad.c\", \"-o\", \"/dev/null\"]\ncwd = \"src\"\nparser = \"gcc\"\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found = diagnostics_of(&ev, "cc");
    let error = found
        .iter()
        .find(|d| d["severity"] == "error")
        .unwrap_or_else(|| panic!("no error diagnostic: {found:?}"));
    // gcc ran in src/ and printed `bad.c`: the evidence says `src/bad.c`.
    assert_eq!(error["file"], "src/bad.c");
    assert_eq!(error["line"], 3);
    assert_eq!(error["column"], 12);
    // gcc quotes with ‘’ or '' depending on the locale.
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains('y') && message.contains("undeclared"),
        "{error}"
    );
    assert_eq!(
        check(&ev, "cc")["diagnostics_count"].as_u64().unwrap() as usize,
        found.len()
    );
}

#[test]
fn a_headers_warning_is_one_diagnostic_when_two_units_include_it() {
    // One gcc command, two translation units including one header: gcc
    // prints the header's warnings once per unit; each is one problem.
    // (`-c`, not `-fsyntax-only`: `-Wunused-function` needs compiling.)
    let header = "static int shared(int a) { return a / 0; }\n";
    let run = Test::new()
        .file("src/shared.h", header)
        .file(".gitignore", "*.o\n")
        .file(
            "src/a.c",
            "#include \"shared.h\"\nint one(void) { int unused; return 0; }\n",
        )
        .file(
            "src/b.c",
            "#include \"shared.h\"\nint two(void) { int unused; return 0; }\n",
        )
        .config(
            "[settings]\nallow = [\"gcc\"]\n\
             [[check]]\nname = \"cc\"\nrun = [\"gcc\", \"-Wall\", \"-c\", \"a.c\", \"b.c\"]\ncwd = \"src\"\nparser = \"gcc\"\n",
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    // gcc really printed the header's warnings twice.
    let stderr = check(&ev, "cc")["stderr_excerpt"].as_str().unwrap();
    assert_eq!(
        stderr.matches("shared.h:1:37: warning").count(),
        2,
        "{stderr}"
    );
    let found: Vec<(&str, u64, &str)> = diagnostics_of(&ev, "cc")
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
                d["rule"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("src/shared.h", 1, "-Wdiv-by-zero"),
            ("src/a.c", 2, "-Wunused-variable"),
            ("src/shared.h", 1, "-Wunused-function"),
            ("src/b.c", 2, "-Wunused-variable"),
        ]
    );
    assert_eq!(check(&ev, "cc")["diagnostics_count"], 4);
    assert_eq!(check(&ev, "cc")["diagnostics_dropped"], 0);
    // The judge makes one issue per diagnostic: four, not six.
    std::fs::write(run.test.path().join("ev.json"), &run.stdout).unwrap();
    let verdict = run
        .test
        .again()
        .args(&["judge", "ev.json"])
        .run()
        .json_stdout();
    // In the judge's priority order, which is not the compiler's.
    let mut fingerprints: Vec<&str> = verdict["issues"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|list| list.as_array().unwrap())
        .filter(|issue| issue["source"] == "cc")
        .map(|issue| issue["fingerprint"].as_str().unwrap())
        .collect();
    fingerprints.sort_unstable();
    assert_eq!(
        fingerprints,
        [
            "-Wdiv-by-zero:src/shared.h:1",
            "-Wunused-function:src/shared.h:1",
            "-Wunused-variable:src/a.c:2",
            "-Wunused-variable:src/b.c:2",
        ]
    );
}

#[test]
fn rustc_errors_with_codes() {
    let run = Test::new()
        .file("bad.rs", "fn main() {\n    let x: u32 = \"no\";\n}\n")
        .file(".gitignore", "target/\n")
        .config(
            "[settings]\nallow = [\"rustc\"]\n\
             [[check]]\nname = \"rustc\"\nrun = [\"rustc\", \"--edition\", \"2021\", \"--emit=metadata\", \"--out-dir\", \"target\", \"bad.rs\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found = diagnostics_of(&ev, "rustc");
    let error = found
        .iter()
        .find(|d| d["rule"] == "E0308")
        .unwrap_or_else(|| panic!("no E0308 with parser auto: {found:?}"));
    assert_eq!(error["file"], "bad.rs");
    assert_eq!(error["line"], 2);
    assert_eq!(error["severity"], "error");
    assert_eq!(error["message"], "mismatched types");
}

#[test]
fn a_failing_rust_test_points_at_its_panic() {
    let run = Test::new()
        .file(
            "t.rs",
            "#[test]\nfn adds() {\n    assert_eq!(2 + 2, 5, \"arithmetic\");\n}\n",
        )
        .file(".gitignore", "target/\n")
        .config(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"unit\"\n\
             run = [\"sh\", \"-c\", \"mkdir -p target && rustc --edition 2021 --test t.rs -o target/t && target/t\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found = diagnostics_of(&ev, "unit");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["file"], "t.rs");
    assert_eq!(found[0]["line"], 3);
    assert_eq!(found[0]["column"], 5);
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(found[0]["rule"], "panic");
    assert_eq!(
        found[0]["message"],
        "panicked in `adds`: assertion `left == right` failed: arithmetic (left: 4, right: 5)"
    );
}

#[test]
fn pytest_failures_with_whole_messages_and_the_files_that_failed() {
    // Real pytest 9.2.0 output (tests/fixtures/diagnostics/pytest/
    // generate.sh), its fake root replaced by this worktree.
    let run = Test::new()
        .file(
            "pytest.txt",
            include_str!("fixtures/diagnostics/pytest/pytest-more-default.txt"),
        )
        .config(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"pytest\"\nparser = \"pytest\"\n\
             run = ['sh', '-c', 'sed \"s#/work/proj#$(pwd)#g\" pytest.txt; exit 1']\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found: Vec<Value> = diagnostics_of(&ev, "pytest")
        .into_iter()
        .map(|d| json!([d["file"], d["line"], d["rule"], d["message"]]))
        .collect();
    assert_eq!(
        found,
        [
            // The summary line cuts this message at 80 columns.
            json!([
                "tests/test_a.py",
                7,
                "tests/test_a.py::test_long_assertion",
                "AssertionError: assert 'a rather lon...ap.yek-terces' == 'a rather lon...but-not-quite'\n\
                 \n  Skipping 54 identical leading characters in diff, use -v to show\n\
                 \x20 - .yek-terces-but-not-quite\n  + .yek-terces"
            ]),
            // Inherited by test_b.py from a class of test_a.py.
            json!([
                "tests/test_a.py",
                15,
                "tests/test_b.py::TestTimestampSigner::test_sign",
                "AssertionError: the signature must match the key\n\
                 assert 'value.yek-pmatsemit' == 'value.yek-terces'\n\
                 \n  - value.yek-terces\n  + value.yek-pmatsemit"
            ]),
            // Collecting test_c.py imports signer.py, which does not parse.
            json!([
                "tests/signer.py",
                8,
                "tests/test_c.py",
                "SyntaxError: '(' was never closed"
            ]),
        ]
    );
}

#[test]
fn rustfmt_hunks_are_one_diagnostic_each_relative_to_the_worktree() {
    // Real `cargo fmt --check` output (tests/fixtures/diagnostics/rustfmt/
    // generate.sh), its fake root replaced by this worktree.
    let run = Test::new()
        .file(
            "fmt.txt",
            include_str!("fixtures/diagnostics/rustfmt/rustfmt-check.txt"),
        )
        .config(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"fmt\"\nparser = \"rustfmt\"\n\
             run = ['sh', '-c', 'sed \"s#/work/proj#$(pwd)#g\" fmt.txt; exit 1']\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found: Vec<Value> = diagnostics_of(&ev, "fmt")
        .into_iter()
        .map(|d| {
            json!([
                d["file"],
                d["line"],
                d["severity"],
                d["rule"],
                d["suggestion"]
            ])
        })
        .collect();
    let hunk = |file: &str, line: u64| json!([file, line, "error", "rustfmt", "run `cargo fmt`"]);
    assert_eq!(
        found,
        [
            hunk("src/lib.rs", 1),
            // `Diff in …/src/lib.rs:5:`, two context lines, then the change.
            hunk("src/lib.rs", 7),
            hunk("src/m.rs", 1)
        ]
    );
    assert_eq!(
        diagnostics_of(&ev, "fmt")[2]["message"],
        "not formatted as rustfmt would\n-pub fn  d() {}\n+pub fn d() {}"
    );
}

#[test]
fn custom_matchers_and_scores() {
    let script = "echo 'lint.cfg:7: too many widgets'; echo 'coverage: 87.5%'";
    let run = Test::new()
        .config(&format!(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"custom\"\nrun = [\"sh\", \"-c\", \"{script}\"]\nparser = \"none\"\n\
             score = {{ regex = 'coverage: (\\d+(?:\\.\\d+)?)%' }}\n\
             [[check.matcher]]\nregex = '^(?P<file>[^:]+):(?P<line>\\d+): (?P<message>.+)$'\nseverity = \"warning\"\n"
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "custom")["score"], 87.5);
    assert_eq!(
        diagnostics_of(&ev, "custom"),
        [
            &json!({"check": "custom", "file": "lint.cfg", "line": 7, "column": null,
                 "severity": "warning", "rule": null, "message": "too many widgets",
                 "suggestion": null})
        ]
    );
}

#[test]
fn auto_locates_a_linter_on_a_worktree_file_without_an_extension() {
    // shellcheck's default output, captured in
    // tests/fixtures/diagnostics/linters/shell, replayed by `cat` in the
    // folder of the scripts it names: `deploy` has no extension, so only
    // being a file of the worktree makes it a location.
    let dir = "tests/fixtures/diagnostics/linters/shell";
    let read = |name: &str| {
        std::fs::read_to_string(format!("{}/{dir}/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let run = Test::new()
        .file("scripts/deploy", &read("deploy"))
        .file("scripts/build.sh", &read("build.sh"))
        .file("scripts/shellcheck.txt", &read("shellcheck.txt"))
        .config(
            "[settings]\nallow = [\"cat\", \"sh\"]\n\
             [[check]]\nname = \"lint\"\nrun = [\"cat\", \"shellcheck.txt\"]\ncwd = \"scripts\"\n\
             [[check]]\nname = \"ghost\"\nrun = [\"sh\", \"-c\", \"echo 'release:3:1: no such file (SC2164)'\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    let found = diagnostics_of(&ev, "lint");
    assert_eq!(found.len(), 11, "{found:?}");
    assert_eq!(
        found[0],
        &json!({"check": "lint", "file": "scripts/deploy", "line": 3, "column": 1,
             "severity": "warning", "rule": "SC2164",
             "message": "Use 'cd ... || exit' or 'cd ... || return' in case cd fails.",
             "suggestion": null})
    );
    let files: Vec<_> = found.iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert_eq!(files.iter().filter(|f| **f == "scripts/deploy").count(), 8);
    assert_eq!(
        files.iter().filter(|f| **f == "scripts/build.sh").count(),
        3
    );
    // No file `release` in the worktree: not a location.
    assert_eq!(diagnostics_of(&ev, "ghost"), Vec::<&Value>::new());
}

#[test]
fn phase_result_fills_data() {
    let script = "echo working; echo PHASE_RESULT:; echo '- status: completed'; echo '- tests: 12 passed'; echo; echo done";
    let run = Test::new()
        .config(&format!(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"agent\"\nrun = [\"sh\", \"-c\", \"{script}\"]\nparser = \"phase-result\"\n"
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(
        check(&ev, "agent")["data"],
        json!({"status": "completed", "tests": "12 passed"})
    );
}

#[test]
fn a_tools_own_words_never_decide_the_verdict() {
    let run = Test::new()
        .config(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"liar\"\nrun = [\"sh\", \"-c\", \"echo 'All checks passed!'; exit 1\"]\n\
             [[check]]\nname = \"noisy\"\nrun = [\"sh\", \"-c\", \"echo 'x.c:1:1: error: looks bad' >&2; exit 0\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "liar")["status"], "fail");
    // Diagnostics are information: a zero exit is still a pass.
    assert_eq!(check(&ev, "noisy")["status"], "pass");
    assert_eq!(check(&ev, "noisy")["diagnostics_count"], 1);
    assert_eq!(ev["summary"]["banner"], "1 of 2 checks failed: liar");
}

#[cfg(target_os = "linux")]
#[test]
fn three_hundred_thousand_diagnostics_keep_a_thousand_and_flat_memory() {
    // awk prints 300,000 gcc-style error lines.
    let test = Test::new()
        .config(
            "[settings]\nallow = [\"awk\"]\n\
             [[check]]\nname = \"flood\"\nrun = [\"awk\", \"BEGIN { for (i = 1; i <= 300000; i++) printf \\\"src/f%d.c:%d:1: error: problem number %d\\\\n\\\", i % 7, i, i; exit 1 }\"]\nparser = \"gcc\"\n",
        )
        .args(&["--format", "json", "--out", "ev.json"]);
    let mut child = test.command().spawn().expect("spawn");
    let (exit, peak_kib) = crate::support::wait_with_peak_rss(&mut child);
    assert_eq!(exit.code(), Some(1));
    assert!(peak_kib < 40 * 1024, "peak RSS {peak_kib} KiB");
    let ev: Value =
        serde_json::from_str(&std::fs::read_to_string(test.path().join("ev.json")).unwrap())
            .unwrap();
    let flood = check(&ev, "flood");
    assert_eq!(flood["diagnostics_count"], 1000);
    assert_eq!(flood["diagnostics_dropped"], 299_000);
    let kept = diagnostics_of(&ev, "flood");
    assert_eq!(kept.len(), 1000);
    assert_eq!(kept[0]["file"], "src/f1.c");
    assert_eq!(kept[999]["message"], "problem number 1000");
}

/// A tape test whose failed `deepEqual` tape reports with YAML block
/// scalars.
#[cfg(unix)]
const RECORD_JS: &str = "const test = require('tape')\n\n\
    test('records', t => {\n  t.deepEqual({ name: 'x', tags: ['a'] }, { name: 'x', tags: ['b'] }, 'same record')\n  t.end()\n})\n";

/// The real tape and node-tap of `scripts/install-test-tools.sh`, each run
/// as a check on a failing test: under `parser = "tap"` and under `auto`,
/// one error at the failed assertion's line (node-tap's enclosing test and
/// file, printed as `not ok` too, are not failures of their own).
#[cfg(unix)]
#[test]
fn tape_and_node_tap_failures_are_located_at_the_assertion() {
    let Some(modules) = crate::support::test_tool("node/node_modules") else {
        return;
    };
    for tool in ["tape/bin/tape", "tap/dist/esm/run.mjs"] {
        assert!(
            modules.join(tool).exists(),
            "{tool} is not in {}: run `bash scripts/install-test-tools.sh`",
            modules.display()
        );
    }
    let test_js = "const test = require('TOOL')\n\n\
        test('adds', t => {\n  t.equal(1 + 1, 2)\n  t.end()\n})\n\n\
        test('subtracts', t => {\n  t.equal(5 - 3, 3, 'five minus three')\n  t.end()\n})\n";
    for parser in ["tap", "auto"] {
        let test = Test::new()
            // node-tap keeps its process information in .tap/.
            .file(".gitignore", "node_modules\n.tap/\n")
            .file("package.json", "{\"name\": \"demo\", \"private\": true}\n")
            .file("tape/add.js", &test_js.replace("TOOL", "tape"))
            .file("tape/record.js", RECORD_JS)
            // node-tap's export is its root test, whose `test` is a method.
            .file(
                "test/add.test.js",
                &test_js
                    .replace("const test = require('TOOL')", "const t = require('tap')")
                    .replace("\ntest(", "\nt.test("),
            )
            .config(&format!(
                "[settings]\nallow = [\"node\"]\n\
                 [[check]]\nname = \"tape\"\nrun = [\"node\", \"node_modules/tape/bin/tape\", \"tape/add.js\"]\nparser = \"{parser}\"\n\
                 [[check]]\nname = \"tape-record\"\nrun = [\"node\", \"node_modules/tape/bin/tape\", \"tape/record.js\"]\nparser = \"{parser}\"\n\
                 [[check]]\nname = \"node-tap\"\nrun = [\"node\", \"node_modules/tap/dist/esm/run.mjs\", \"--reporter=tap\", \"--disable-coverage\", \"test/add.test.js\"]\nparser = \"{parser}\"\n"
            ));
        std::os::unix::fs::symlink(&modules, test.path().join("node_modules")).unwrap();
        let run = test.args(&["--format", "json"]).run().status(1);
        let ev = run.json_stdout();
        // tape writes a structured value as a YAML block scalar
        // (`expected: |-` and the value under it): its value is the message.
        let record = diagnostics_of(&ev, "tape-record");
        assert_eq!(record.len(), 1, "{parser}: {record:?}");
        assert_eq!(
            (record[0]["line"].as_u64(), record[0]["message"].as_str()),
            (
                Some(4),
                Some(
                    "same record\nexpected: { name: 'x', tags: [ 'b' ] }\n\
                     actual: { name: 'x', tags: [ 'a' ] }"
                )
            ),
            "{parser}"
        );
        for name in ["tape", "node-tap"] {
            assert_eq!(check(&ev, name)["status"], "fail", "{name}: {ev:#}");
            let found: Vec<(&str, u64, &str)> = diagnostics_of(&ev, name)
                .iter()
                .map(|d| {
                    (
                        d["file"].as_str().unwrap_or("-"),
                        d["line"].as_u64().unwrap_or(0),
                        d["message"].as_str().unwrap(),
                    )
                })
                .collect();
            let file = if name == "tape" {
                "tape/add.js"
            } else {
                "test/add.test.js"
            };
            assert_eq!(found.len(), 1, "{parser} {name}: {found:?}");
            assert_eq!(
                (found[0].0, found[0].1),
                (file, 9),
                "{parser} {name}: {found:?}"
            );
            assert!(
                found[0].2.starts_with("five minus three\n"),
                "{parser} {name}: {found:?}"
            );
        }
    }
}
