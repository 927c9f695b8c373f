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
    if !is_file(root, "Cargo.lock") {
        notes.push(
            "no Cargo.lock: the first cargo check writes one and the strict gate reports it as modified; commit it (`cargo generate-lockfile`, then `git add Cargo.lock`), or ignore it (add `Cargo.lock` to .gitignore, as some libraries do)".into(),
        );
    }
    let rust = || globs(&["**/*.rs", "**/Cargo.toml", "Cargo.lock"]);
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
            Check::new(
                "clippy",
                &[
                    "cargo",
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--keep-going",
                    "--",
                    "-D",
                    "warnings",
                ],
                FAST_STRICT,
            )
            .paths(rust())
            .parser("rustc")
            .env("CARGO_TERM_COLOR", "never")
            .comment("Clippy's lints on every target (tests, examples, benches too), warnings as errors: the compiler's and clippy's warnings fail the gate, as in a Rust project's CI. --keep-going: cargo otherwise stops at the first crate that fails, and which crates it reached would change from run to run."),
            test,
        ],
        fixes: vec![Fix::new("fmt", &["cargo", "fmt", "--all"])],
        refused: Vec::new(),
    })
}
