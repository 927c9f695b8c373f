//! A newcomer's first day (round 2), replayed on projects each test writes:
//! a Make-built C library whose test target writes an ignored file, a
//! Makefile init finds no check in, a `cargo test` panic followed by other
//! test binaries, and a `make test` whose cause is on stdout. Real `cc`,
//! `make` and `cargo`.

use std::path::Path;

use serde_json::Value;

use crate::support::{Test, bin, check, git};

/// A program on PATH; the test is skipped, loudly, without it (CI has all).
fn on_path(program: &str) -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join(program).is_file());
    if !found {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "{program} missing"
        );
        eprintln!("SKIPPED (not a pass): {program} is not on PATH");
    }
    found
}

/// run-check with `args` in `dir`: (exit code, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = std::process::Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const MAKEFILE: &str = "CC ?= cc

all: libadd.a

libadd.a: lib/add.o
\tar rcs libadd.a lib/add.o

lib/add.o: lib/add.c lib/add.h
\t$(CC) -Wall -c lib/add.c -o lib/add.o

tests/sums: tests/sums.c libadd.a
\t$(CC) -Wall -Ilib -o tests/sums tests/sums.c libadd.a

test: tests/sums
\t./tests/sums > tests/out.txt && cmp tests/out.txt tests/expected.txt
";

/// A C library as the newcomer had it: sources in `lib/`, a test target
/// that writes its output to a file and compares it, and a .gitignore for
/// what the build and the test write. Committed.
fn c_library() -> Test {
    let test = Test::new()
        .file("Makefile", MAKEFILE)
        .file("lib/add.h", "int add(int a, int b);\n")
        .file("lib/add.c", "#include \"add.h\"\n\nint add(int a, int b) { return a + b; }\n")
        .file(
            "tests/sums.c",
            "#include <stdio.h>\n#include \"add.h\"\n\nint main(void) {\n    printf(\"%d\\n\", add(2, 2));\n    return 0;\n}\n",
        )
        .file("tests/expected.txt", "4\n")
        .file(".gitignore", "*.o\n*.a\n/tests/sums\n/tests/out.txt\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "c library"]);
    test
}

#[test]
fn a_make_built_c_library_gets_its_build_and_its_test_and_the_gate_runs_them() {
    if !on_path("make") || !on_path("cc") {
        return;
    }
    let test = c_library();
    let dir = test.path();
    let (code, out, err) = run(dir, &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("detected Make (Makefile): checks build, test\n"),
        "{out}"
    );
    // Everything the checks write is ignored: no note asks for more.
    assert!(!out.contains(".gitignore does not ignore"), "{out}");
    git(dir, &["add", "checks.toml"]);
    git(dir, &["commit", "-q", "-m", "gate"]);
    let (code, json, err) = run(dir, &["--format", "json"]);
    assert_eq!(code, Some(0), "{json}{err}");
    let evidence: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(check(&evidence, "build")["status"], "pass");
    assert_eq!(check(&evidence, "test")["status"], "pass");
    assert_eq!(
        evidence["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );

    // The test's failure is on stdout (cmp), make's `Error 1` on stderr:
    // the text report and the agent's feedback show the same lines, the
    // cause among them.
    std::fs::write(dir.join("tests/expected.txt"), "5\n").unwrap();
    let report = tempfile::tempdir().unwrap();
    let ev = report.path().join("ev.json");
    let (code, _, err) = run(dir, &["--format", "json", "--out", ev.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    let (_, text, _) = run(dir, &["report", ev.to_str().unwrap(), "--format", "text"]);
    let (code, feedback, err) = run(dir, &["agent", "feedback", ev.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    let cause = "tests/out.txt tests/expected.txt differ: byte 1, line 1";
    let shown = |report: &str, prefix: &str| -> Vec<String> {
        report
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix(prefix))
            .map(|l| l.trim().to_string())
            .collect()
    };
    let in_text = shown(&text, "│");
    let in_feedback = shown(&feedback, "|");
    assert!(in_text.iter().any(|l| l == cause), "{text}");
    assert_eq!(in_feedback, in_text, "{feedback}\n{text}");
}

#[test]
fn a_test_target_writing_a_file_git_does_not_ignore_is_a_check_with_a_note() {
    let test = c_library().file(".gitignore", "*.o\n*.a\n/tests/sums\n");
    let (code, out, err) = run(test.path(), &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("detected Make (Makefile): checks build, test\n"),
        "{out}"
    );
    assert!(
        out.contains("note: Makefile target `test` writes `tests/out.txt`, which .gitignore does not ignore: add it to .gitignore"),
        "{out}"
    );
}

#[test]
fn a_makefile_without_a_usable_target_says_so_and_the_gate_is_no_plain_pass() {
    // Its only target writes (a formatter): no check.
    let test = Test::new().file("Makefile", "lint:\n\tprettier --write .\n");
    let (code, out, err) = run(test.path(), &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("detected Make (Makefile): no check (the notes say why)\n"),
        "{out}"
    );
    assert!(
        out.contains("note: no check runs a tool: the gate runs only the secrets scan"),
        "{out}"
    );
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    let (code, text, err) = run(test.path(), &[]);
    assert_eq!(code, Some(0), "{text}{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with(
            "No tool ran: only the scan `secrets` ran; no check built, linted or tested the code"
        )),
        "{text}"
    );
    let (_, markdown, _) = run(test.path(), &["--format", "markdown"]);
    assert!(markdown.contains("No tool ran"), "{markdown}");
}

#[test]
fn a_cargo_test_panic_followed_by_other_test_binaries_needs_no_output_tail() {
    let passing: String = (1..=15)
        .map(|i| {
            format!("#[test]\nfn t{i}() {{\n    assert_eq!(demo::add(1, {i}), {i} + 1);\n}}\n")
        })
        .collect();
    let test = Test::new()
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file(".gitignore", "/target\n")
        .file(
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn unit() {\n        assert_eq!(super::add(1, 1), 3);\n    }\n}\n",
        )
        .file("tests/it.rs", &passing);
    let dir = test.path();
    let lock = std::process::Command::new("cargo")
        .args(["generate-lockfile", "--offline"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(lock.status.success(), "{lock:?}");
    let (code, _, err) = run(dir, &["init"]);
    assert_eq!(code, Some(0), "{err}");
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "crate"]);
    let (code, text, err) = run(dir, &["--only", "test"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert!(
        text.contains("src/lib.rs:9:9: error[panic]: panicked in `tests::unit`"),
        "{text}"
    );
    // The other binary ran after the panic (its tests are in the output).
    let (_, json, _) = run(dir, &["--only", "test", "--format", "json"]);
    let evidence: Value = serde_json::from_str(&json).unwrap();
    let stdout = check(&evidence, "test")["stdout_excerpt"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(stdout.contains("test t15 ... ok"), "{stdout}");
    assert!(!text.contains("no error above explains the exit"), "{text}");
}

#[test]
fn an_npm_project_without_a_gitignore_is_told_what_to_ignore_and_its_dependencies_are_not_scanned()
{
    let key = format!("AKIA{}", "Z3X8C1V6B9N2M5Q7");
    let test = Test::new()
        .file(
            "package.json",
            r#"{"name":"demo","version":"1.0.0","main":"index.js","scripts":{"test":"nyc tape test/*.js"},"devDependencies":{"nyc":"^17.0.0","tape":"^5.0.0"}}"#,
        )
        .file("index.js", "module.exports = (a, b) => a + b;\n")
        .file(
            "node_modules/aws-mock/test/keys.js",
            &format!("module.exports = {{ id: '{key}' }};\n"),
        );
    let (code, out, err) = run(test.path(), &["init"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("note: .gitignore does not ignore `node_modules/` (the install), `coverage/` (the coverage report), `.nyc_output/` (nyc's raw coverage): add them to .gitignore"),
        "{out}"
    );
    // The secrets scan alone: a dependency's test key is not the project's.
    let (code, json, err) = run(test.path(), &["--only", "secrets", "--format", "json"]);
    assert_eq!(code, Some(0), "{json}{err}");
    let evidence: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(evidence["diagnostics"], serde_json::json!([]), "{json}");
    // The same key in the project's own code is found.
    std::fs::write(
        test.path().join("config.js"),
        format!("module.exports = {{ id: '{key}' }};\n"),
    )
    .unwrap();
    let (code, _, _) = run(test.path(), &["--only", "secrets", "--format", "json"]);
    assert_eq!(code, Some(1));
}
