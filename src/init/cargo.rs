//! The Cargo detector: a Cargo.toml gets rustfmt (checked, with `cargo fmt` as
//! the fix), clippy with warnings as errors, and the tests.

use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, argv, globs, is_file};

/// Cargo.toml: rustfmt, clippy with warnings as errors, the tests.
pub(super) fn detect(root: &Path, _notes: &mut Vec<String>) -> Option<Found> {
    if !is_file(root, "Cargo.toml") {
        return None;
    }
    let rust = || globs(&["**/*.rs", "**/Cargo.toml", "Cargo.lock"]);
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
            .parser("none")
            .comment("Formatting, checked only: `run-check fix` formats."),
            Check::new(
                "clippy",
                &[
                    "cargo",
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
                FAST_STRICT,
            )
            .paths(rust())
            .parser("rustc")
            .env("CARGO_TERM_COLOR", "never"),
            Check::new("test", &["cargo", "test", "--workspace"], STRICT)
                .parser("rustc")
                .env("CARGO_TERM_COLOR", "never"),
        ],
        fixes: vec![Fix {
            name: "fmt".into(),
            run: argv(&["cargo", "fmt", "--all"]),
        }],
        refused: Vec::new(),
    })
}
