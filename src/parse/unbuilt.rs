//! Cargo's lines that say a build stopped short: `error: could not compile
//! `dep` (lib) due to 1 previous error` and `build failed, waiting for other
//! jobs to finish`. A crate that did not compile leaves every unit that
//! depends on it unchecked (with `--keep-going` too: cargo checks only what
//! does not depend on a failure), so the diagnostics of such a run are not
//! all there are, and `--baseline` never excuses it (docs/baseline.md).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// What a check's output says cargo did not build.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Unbuilt {
    /// The crates that did not compile, as cargo names them (`dep`).
    pub(crate) failed: BTreeSet<String>,
    /// Cargo said it stopped starting units (`build failed, waiting for
    /// other jobs to finish`).
    pub(crate) stopped: bool,
}

/// What `outputs` (a check's stdout and stderr, or their excerpts) say
/// cargo did not build; `None` when they say nothing of it.
pub(crate) fn unbuilt(outputs: &[&str]) -> Option<Unbuilt> {
    static FAILED: LazyLock<Regex> = regex!(r"^error: could not (?:compile|document) `([^`]+)`");
    static STOPPED: LazyLock<Regex> =
        regex!(r"^(?:warning|error): build failed, waiting for other jobs to finish");
    let mut found = Unbuilt::default();
    for line in outputs.iter().flat_map(|o| o.lines()) {
        let line = line.trim_end();
        if let Some(caps) = FAILED.captures(line) {
            found.failed.insert(caps[1].to_string());
        } else if STOPPED.is_match(line) {
            found.stopped = true;
        }
    }
    (found.stopped || !found.failed.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_clippy_output_of_a_failing_dependency() {
        // cargo 1.95, `cargo clippy --workspace --keep-going -- -D warnings`.
        let stderr = "    Checking dep v0.1.0 (/tmp/ws/dep)\n\
error: unneeded `return` statement\n --> dep/src/lib.rs:3:5\n\n\
error: could not compile `dep` (lib test) due to 1 previous error\n\
warning: build failed, waiting for other jobs to finish...\n\
error: could not compile `dep` (lib) due to 1 previous error\n";
        let found = unbuilt(&["", stderr]).expect("unbuilt");
        assert_eq!(found.failed.into_iter().collect::<Vec<_>>(), ["dep"]);
        assert!(found.stopped);
    }

    #[test]
    fn a_complete_build_says_nothing() {
        let stderr = "    Checking dep v0.1.0\n    Finished `dev` profile\n\
test result: FAILED. 0 passed; 1 failed\nerror: test failed, to rerun pass `--lib`\n\
  could not compile `quoted` in a test's own output\n";
        assert_eq!(unbuilt(&[stderr]), None);
    }
}
