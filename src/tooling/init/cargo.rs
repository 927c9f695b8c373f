//! The Cargo detector: a Cargo.toml gets rustfmt (checked, with `cargo fmt` as
//! the fix), clippy with warnings as errors, and the tests with
//! `--no-fail-fast` (with `INSTA_UPDATE=no` when the project uses insta,
//! which would otherwise write `.snap.new` files).

use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, globs, is_file, read};

pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    if !is_file(root, "Cargo.toml") {
        return None;
    }
    // Cargo builds into `target/`; the strict gate counts every file a check
    // creates that git does not ignore (and a task's change budget counts
    // them too).
    if !super::cmake::gitignore_ignores(root, "target") {
        notes.push(
            "Cargo builds into `target/`, which .gitignore does not ignore: add `/target` to .gitignore (only a recent cargo hides it, with a `target/.gitignore` of its own once it has built)".into(),
        );
    }
    // The first cargo command of a crate without a lock file writes one:
    // the strict gate then fails on `Cargo.lock`, written by a check.
    // A library that ignores Cargo.lock (some do) is told nothing: the file
    // a check writes is ignored, and the strict gate does not count it.
    if !is_file(root, "Cargo.lock") && !super::cmake::gitignore_covers(root, "Cargo.lock") {
        notes.push(
            "no Cargo.lock: the first cargo check writes one and the strict gate reports it as modified; commit it (`cargo generate-lockfile`, then `git add Cargo.lock`), or ignore it (add `Cargo.lock` to .gitignore, as some libraries do)".into(),
        );
    }
    // insta writes `.snap.new` files next to failing snapshots unless told
    // not to (it does not when CI is set; a developer's run has no CI).
    let insta = ["Cargo.toml", "Cargo.lock"].iter().any(|file| {
        read(root, file).is_some_and(|text| {
            text.lines().any(|l| {
                let l = l.trim();
                l.starts_with("insta ") || l.starts_with("insta=") || l == "name = \"insta\""
            })
        })
    });
    let mut why_test = String::from(
        "The tests of every package and target (unit, integration, doc tests). --no-fail-fast: cargo otherwise stops at the first failing test binary, and a failing unit test would hide a failing integration test. The rustc parser locates each panic (`panicked at file:line:col`).",
    );
    let mut test = Check::new(
        "test",
        &["cargo", "test", "--workspace", "--no-fail-fast"],
        STRICT,
    )
    .parser("rustc")
    .env("CARGO_TERM_COLOR", "never");
    if insta {
        test = test.env("INSTA_UPDATE", "no");
        why_test
            .push_str("\nINSTA_UPDATE=no: a failing snapshot fails; it writes no .snap.new file.");
    }
    let test = test.comment(why_test);
    Some(Found {
        ecosystem: "Cargo".into(),
        files: vec!["Cargo.toml".into()],
        checks: vec![
            Check::new(
                "fmt",
                &["cargo", "fmt", "--all", "--", "--check"],
                FAST_STRICT,
            )
            .paths(globs(&["**/*.rs", "rustfmt.toml", ".rustfmt.toml"]))
            .parser("rustfmt")
            .comment("Formatting as rustfmt would (rustfmt.toml honoured), checked only: `run-check fix` formats. The rustfmt parser turns each `Diff in file:line:` hunk into a diagnostic."),
            clippy(root, notes),
            test,
        ],
        fixes: vec![Fix::new("fmt", &["cargo", "fmt", "--all"])],
        refused: Vec::new(),
    })
}

/// The clippy check: every target, unless a bench needs nightly Rust
/// (`#![feature(test)]`, for `extern crate test`), which stable cargo
/// cannot compile: then every target but the benches.
fn clippy(root: &Path, notes: &mut Vec<String>) -> Check {
    let nightly = nightly_benches(root);
    let targets: &[&str] = match nightly.is_empty() {
        true => &["--all-targets"],
        false => &["--lib", "--bins", "--tests", "--examples"],
    };
    let mut run = vec!["cargo", "clippy", "--workspace"];
    run.extend(targets);
    run.extend(["--keep-going", "--", "-D", "warnings"]);
    let mut why = String::from(
        "Clippy's lints on every target (tests, examples, benches too), warnings as errors: the compiler's and clippy's warnings fail the gate, as in a Rust project's CI. --keep-going: cargo otherwise stops at the first crate that fails, and which crates it reached would change from run to run.",
    );
    if !nightly.is_empty() {
        let list = nightly.join(", ");
        why.push_str(&format!(
            "\nThe benches are left out (--lib --bins --tests --examples instead of --all-targets): {list} need nightly Rust (`#![feature(test)]`), which a stable toolchain cannot compile."
        ));
        notes.push(format!(
            "{list} need nightly Rust (`#![feature(test)]`): clippy checks every target but the benches (`--lib --bins --tests --examples`); with a nightly toolchain, put `--all-targets` back"
        ));
    }
    Check::new("clippy", &run, FAST_STRICT)
        .paths(globs(&["**/*.rs", "**/Cargo.toml", "Cargo.lock"]))
        .parser("rustc")
        .env("CARGO_TERM_COLOR", "never")
        .comment(why)
}

/// The bench files (`benches/*.rs` of the root and of the crates below it,
/// at most three folders down, `target/` and hidden folders skipped) that
/// enable `#![feature(test)]`, sorted.
fn nightly_benches(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if !entry.file_type().is_ok_and(|t| t.is_dir())
                || name.starts_with('.')
                || name == "target"
                || name == "node_modules"
            {
                continue;
            }
            if name == "benches" {
                bench_files(root, &path, out);
            } else if depth > 0 {
                walk(root, &path, depth - 1, out);
            }
        }
    }
    fn bench_files(root: &Path, benches: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(benches) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let nightly = path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).is_ok_and(|text| {
                    text.lines().any(|l| {
                        let l = l.replace(' ', "");
                        l.strip_prefix("#![feature(")
                            .and_then(|rest| rest.strip_suffix(")]"))
                            .is_some_and(|features| features.split(',').any(|f| f == "test"))
                    })
                });
            if nightly && let Ok(relative) = path.strip_prefix(root) {
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, 3, &mut out);
    out.sort();
    out
}
