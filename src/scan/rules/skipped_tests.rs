//! The `skipped-tests` rule set: tests that report success without running
//! (an ignored Rust test; a skipped pytest, unittest, JavaScript or Go test)
//! and focused JavaScript tests, which silently skip every other test of
//! their file.

use super::{Builtin, Verify};

/// The set's name.
pub(super) const SKIPPED: &str = "skipped-tests";

const SKIP_WHY: &str = "it reports success without running, so the suite proves less \
                        than it claims";
const SKIP_SUGGESTION: &str = "run the test (fix it if it fails) or delete it";
const ONLY_WHY: &str = "every other test of the file is silently skipped";
const ONLY_SUGGESTION: &str = "remove the focus";

/// The set's rules.
pub(super) const RULES: &[Builtin] = &[
    Builtin {
        set: SKIPPED,
        name: "rust-ignore",
        pattern: r"#\[[ \t]*ignore[ \t]*(?:\]|=)",
        verify: Verify::Always,
        needles: &["ignore"],
        what: "an ignored Rust test (an `ignore` attribute)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "python-skip",
        pattern: concat!(wb!(), r"pytest\.mark\.skip(?:if)?", wb!()),
        verify: Verify::Always,
        needles: &["pytest.mark.skip"],
        what: "a skipped Python test (a pytest or unittest skip marker)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "python-skip",
        pattern: concat!(wb!(), r"unittest\.skip(?:If|Unless)?", wb!()),
        verify: Verify::Always,
        needles: &["unittest.skip"],
        what: "a skipped Python test (a pytest or unittest skip marker)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "js-skip",
        pattern: concat!(
            wb!(),
            r"(?:it|describe|test|context)\.skip(?:\.each)?[ \t]*[(`]"
        ),
        verify: Verify::Always,
        needles: &[".skip"],
        what: "a skipped JavaScript test (`.skip` or an `x`-prefixed block)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "js-skip",
        pattern: concat!(wb!(), r"x(?:it|describe|test|context)[ \t]*\("),
        verify: Verify::FreeCall,
        needles: &["xit", "xdescribe", "xtest", "xcontext"],
        what: "a skipped JavaScript test (`.skip` or an `x`-prefixed block)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "js-only",
        pattern: concat!(wb!(), r"(?:it|describe|test|context)\.only[ \t]*\("),
        verify: Verify::Always,
        needles: &[".only"],
        what: "a focused JavaScript test (`.only` or `fdescribe`)",
        why: ONLY_WHY,
        suggestion: Some(ONLY_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "js-only",
        pattern: concat!(wb!(), r"fdescribe[ \t]*\("),
        verify: Verify::FreeCall,
        needles: &["fdescribe"],
        what: "a focused JavaScript test (`.only` or `fdescribe`)",
        why: ONLY_WHY,
        suggestion: Some(ONLY_SUGGESTION),
    },
    Builtin {
        set: SKIPPED,
        name: "go-skip",
        pattern: concat!(wb!(), r"t\.Skip(?:f|Now)?\("),
        verify: Verify::Always,
        needles: &["t.Skip"],
        what: "a skipped Go test (`t.Skip`)",
        why: SKIP_WHY,
        suggestion: Some(SKIP_SUGGESTION),
    },
];

#[cfg(test)]
mod tests {
    use super::super::tests::{clean, found};

    #[test]
    fn skipped_tests() {
        found("    #[ignore]", "skipped-tests/rust-ignore");
        found(
            "#[ignore = \"needs a database\"]",
            "skipped-tests/rust-ignore",
        );
        found(
            "@pytest.mark.skip(reason=\"flaky\")",
            "skipped-tests/python-skip",
        );
        found(
            "@pytest.mark.skipif(sys.platform == 'win32', reason='x')",
            "skipped-tests/python-skip",
        );
        found("pytestmark = pytest.mark.skip", "skipped-tests/python-skip");
        found("@unittest.skip(\"later\")", "skipped-tests/python-skip");
        found(
            "@unittest.skipUnless(HAS_GPU, \"gpu\")",
            "skipped-tests/python-skip",
        );
        found("it.skip('adds', () => {})", "skipped-tests/js-skip");
        found("describe.skip(\"suite\", () => {", "skipped-tests/js-skip");
        found("test.skip(\"x\", fn)", "skipped-tests/js-skip");
        found("  xit('adds', () => {})", "skipped-tests/js-skip");
        found("xdescribe('suite', () => {", "skipped-tests/js-skip");
        found("it.only('adds', () => {})", "skipped-tests/js-only");
        found("\tt.Skip(\"flaky on CI\")", "skipped-tests/go-skip");
        found("t.Skipf(\"no %s\", name)", "skipped-tests/go-skip");
        found("t.SkipNow()", "skipped-tests/go-skip");

        clean("#[ignore_this]");
        clean("#[should_panic]");
        clean("raise unittest.SkipTest('x')");
        clean("pytest.mark.skipper");
        clean("process.exit(1)");
        clean("sys.exit(0)");
        clean("def xit(self):");
        clean("list.skip(3)");
        clean("if t.Skipped() {");
        clean("st.Skip(\"x\")");
    }
}
