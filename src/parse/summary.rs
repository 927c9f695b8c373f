//! Test runners' summary lines (`FAILED (failures=1)`, `5 failed, 2 passed
//! in 0.01s`, `test result: FAILED. 0 passed; 1 failed; …`): failures a
//! check's output reports without a location. `--baseline` compares them
//! (docs/baseline.md#what-passes), so a failure the runner only counts is
//! never taken for an old lint finding's.
//!
//! Each format is its runner's own, as the fixtures under
//! tests/fixtures/diagnostics/ show; a line counts only when it is the
//! summary line as a whole, so a test's own output rarely looks like one,
//! and one that does can only make a check fail.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// How many failures a summary line's match reports.
type Count = fn(&regex::Captures<'_>) -> u64;

/// (runner, summary line, how many failures it reports).
type Rule = (&'static str, Regex, Count);

/// The first group's number.
fn first(caps: &regex::Captures<'_>) -> u64 {
    number(caps.get(1).map_or("", |m| m.as_str()))
}

/// Every `N failed` / `N error(s)` / `failures=N` / `errors=N` /
/// `unexpected successes=N` of the first group, summed.
fn counted(caps: &regex::Captures<'_>) -> u64 {
    static PART: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:(\d+) (?:failed|errors?)\b)|(?:\b(?:failures|errors|unexpected successes)=(\d+))",
        )
        .expect("pattern compiles")
    });
    let text = caps.get(1).map_or("", |m| m.as_str());
    PART.captures_iter(text)
        .map(|part| number(part.get(1).or(part.get(2)).map_or("", |m| m.as_str())))
        .sum()
}

/// One line: a failure a runner reports per line.
fn one(_: &regex::Captures<'_>) -> u64 {
    1
}

fn number(text: &str) -> u64 {
    text.parse().unwrap_or(u64::MAX)
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    fn rule(name: &'static str, pattern: &str, count: Count) -> Rule {
        (name, Regex::new(pattern).expect("compiles"), count)
    }
    vec![
        // python -m unittest: `FAILED (failures=1, errors=2)`.
        rule("unittest", r"^FAILED \(([^()]*)\)$", counted),
        // pytest: `==== 5 failed, 2 passed, 1 skipped, 2 errors in 0.01s ====`.
        rule(
            "pytest",
            r"^(?:=+ )?((?:\d+ [a-z]+, )*\d+ [a-z]+) in [0-9.]+s(?: \([0-9:.]+\))?(?: =+)?$",
            counted,
        ),
        // cargo test: `test result: FAILED. 0 passed; 1 failed; …`.
        rule(
            "cargo test",
            r"^test result: FAILED\. \d+ passed; (\d+) failed;",
            first,
        ),
        // go test: `--- FAIL: TestX (0.00s)`, subtests indented.
        rule("go test", r"^\s*--- FAIL: ", one),
        // jest `Tests:       4 failed, …`, vitest `      Tests  4 failed | …`.
        rule("jest/vitest", r"^\s*Tests:?\s+(\d+) failed\b", first),
        // TAP (tape, node:test): `# fail 1`.
        rule("tap", r"^# fail\s+(\d+)$", first),
        // prove: `Failed 1/2 subtests`.
        rule("prove", r"^Failed (\d+)/\d+ subtests", first),
        // mocha: `  1 failing`.
        rule("mocha", r"^\s*(\d+) failing$", first),
        // ctest: `50% tests passed, 1 tests failed out of 2`.
        rule(
            "ctest",
            r"^\d+% tests passed, (\d+) tests? failed out of \d+$",
            first,
        ),
    ]
});

/// The failures the summary lines of `text` report, by runner (a runner
/// whose summary says 0 failed is left out).
pub(crate) fn failures(text: &str) -> BTreeMap<&'static str, u64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for (name, regex, count) in RULES.iter() {
            if let Some(caps) = regex.captures(line) {
                let n = count(&caps);
                if n > 0 {
                    let total: &mut u64 = out.entry(*name).or_default();
                    *total = total.saturating_add(n);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(path: &str) -> String {
        let root = env!("CARGO_MANIFEST_DIR");
        std::fs::read_to_string(format!("{root}/tests/fixtures/diagnostics/{path}")).unwrap()
    }

    fn only(name: &'static str, n: u64) -> BTreeMap<&'static str, u64> {
        BTreeMap::from([(name, n)])
    }

    #[test]
    fn real_runners_summaries_count_their_failures() {
        assert_eq!(
            failures(&fixture("pytest/pytest-default.txt")),
            only("pytest", 7)
        );
        assert_eq!(failures(&fixture("pytest/pytest-q.txt")), only("pytest", 7));
        assert_eq!(
            failures(&fixture("pytest/pytest-interrupted.txt")),
            only("pytest", 1)
        );
        assert_eq!(
            failures(&fixture("cargo-json/test.txt")),
            only("cargo test", 1)
        );
        assert_eq!(failures(&fixture("go/test.txt")), only("go test", 4));
        assert_eq!(failures(&fixture("jest/jest.txt")), only("jest/vitest", 4));
        assert_eq!(
            failures(&fixture("vitest/vitest-run.txt")),
            only("jest/vitest", 4)
        );
        assert_eq!(failures(&fixture("tap/tape.txt")), only("tap", 1));
        assert_eq!(
            failures(&fixture("tap/prove-v.stdout.txt")),
            only("prove", 1)
        );
    }

    #[test]
    fn unittest_counts_failures_and_errors_not_skips() {
        assert_eq!(failures("FAILED (failures=1)\n"), only("unittest", 1));
        assert_eq!(
            failures("Ran 4 tests in 0.001s\n\nFAILED (failures=1, errors=2, skipped=1)\r\n"),
            only("unittest", 3)
        );
        assert_eq!(failures("OK (skipped=1)\n"), BTreeMap::new());
        assert_eq!(
            failures("  FAILED (failures=1)  inside a line\n"),
            BTreeMap::new()
        );
    }

    #[test]
    fn a_passing_summary_reports_nothing() {
        assert_eq!(failures("==== 3 passed in 0.01s ====\n"), BTreeMap::new());
        assert_eq!(
            failures("test result: ok. 3 passed; 0 failed; 0 ignored\n"),
            BTreeMap::new()
        );
        assert_eq!(failures("# fail  0\n"), BTreeMap::new());
    }
}
