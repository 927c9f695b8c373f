//! The `placeholder-asserts` rule set: assertions that always pass (of a
//! constant true, or of a literal against itself) in Python, Rust and
//! JavaScript tests.

use super::{Builtin, Verify};

/// Literal operands of Rust asserts: numbers, booleans, strings, chars.
macro_rules! rust_lit {
    () => {
        r#"(true|false|-?[0-9][0-9A-Za-z_.]*|"[^"\\]*"|'[^'\\]')"#
    };
}

/// Literal operands of Python asserts.
macro_rules! py_lit {
    () => {
        r#"(True|False|None|-?[0-9][0-9A-Za-z_.]*|"[^"\\]*"|'[^'\\]*')"#
    };
}

/// Literal operands of JavaScript expectations.
macro_rules! js_lit {
    () => {
        r#"(true|false|null|undefined|-?[0-9][0-9A-Za-z_.]*|"[^"\\]*"|'[^'\\]*')"#
    };
}

/// The set's name.
pub(super) const PLACEHOLDER: &str = "placeholder-asserts";

const PLACEHOLDER_WHY: &str = "it always passes, so it checks nothing and the test proves \
                               nothing";
const PLACEHOLDER_SUGGESTION: &str = "assert on the behaviour under test, or delete the assertion";

/// The set's rules.
pub(super) const RULES: &[Builtin] = &[
    Builtin {
        set: PLACEHOLDER,
        name: "python-assert-true",
        pattern: concat!(
            wb!(),
            r"assert(?:[ \t]+True|[ \t]*\([ \t]*True[ \t]*\))[ \t]*(?:$|[,#;])"
        ),
        verify: Verify::Always,
        needles: &["True"],
        what: "a Python assertion of the constant True",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "python-assert-true",
        pattern: r"\.assert(?:True\([ \t]*True|False\([ \t]*False)[ \t]*[,)]",
        verify: Verify::Always,
        needles: &[".assertTrue(", ".assertFalse("],
        what: "a Python assertion of the constant True",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "python-assert-same",
        pattern: concat!(
            wb!(),
            "assert[ \t]+",
            py_lit!(),
            "[ \t]*==[ \t]*",
            py_lit!(),
            "[ \t]*(?:$|[,#;])"
        ),
        verify: Verify::SameOperands,
        needles: &["assert"],
        what: "a Python assertion that compares a literal with itself",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "python-assert-same",
        pattern: concat!(
            r"\.assertEquals?\([ \t]*",
            py_lit!(),
            "[ \t]*,[ \t]*",
            py_lit!(),
            "[ \t]*[,)]"
        ),
        verify: Verify::SameOperands,
        needles: &[".assertEqual"],
        what: "a Python assertion that compares a literal with itself",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "rust-assert-true",
        pattern: concat!(wb!(), r"(?:debug_)?assert!\([ \t]*true[ \t]*[,)]"),
        verify: Verify::Always,
        needles: &["assert!("],
        what: "a Rust `assert!` of the constant true",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "rust-assert-same",
        pattern: concat!(
            wb!(),
            r"(?:debug_)?assert_eq!\([ \t]*",
            rust_lit!(),
            "[ \t]*,[ \t]*",
            rust_lit!(),
            "[ \t]*[,)]"
        ),
        verify: Verify::SameOperands,
        needles: &["assert_eq!("],
        what: "a Rust `assert_eq!` of a literal with itself",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "js-expect-literal",
        pattern: concat!(
            wb!(),
            r"expect\([ \t]*",
            js_lit!(),
            r"[ \t]*\)\.to(?:Be|Equal|StrictEqual)\([ \t]*",
            js_lit!(),
            r"[ \t]*\)"
        ),
        verify: Verify::SameOperands,
        needles: &["expect("],
        what: "a JavaScript expectation of a literal against itself",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
    Builtin {
        set: PLACEHOLDER,
        name: "js-expect-literal",
        pattern: concat!(
            wb!(),
            r"expect\([ \t]*(?:true[ \t]*\)\.toBeTruthy|false[ \t]*\)\.toBeFalsy)\([ \t]*\)"
        ),
        verify: Verify::Always,
        needles: &["expect("],
        what: "a JavaScript expectation of a literal against itself",
        why: PLACEHOLDER_WHY,
        suggestion: Some(PLACEHOLDER_SUGGESTION),
    },
];

#[cfg(test)]
mod tests {
    use super::super::tests::{clean, found};

    #[test]
    fn placeholder_asserts() {
        found("    assert True", "placeholder-asserts/python-assert-true");
        found(
            "assert True  # TODO",
            "placeholder-asserts/python-assert-true",
        );
        found(
            "assert True, \"later\"",
            "placeholder-asserts/python-assert-true",
        );
        found("assert(True)", "placeholder-asserts/python-assert-true");
        found(
            "self.assertTrue(True)",
            "placeholder-asserts/python-assert-true",
        );
        found("assert 1 == 1", "placeholder-asserts/python-assert-same");
        found(
            "self.assertEqual('a', 'a')",
            "placeholder-asserts/python-assert-same",
        );
        found("    assert!(true);", "placeholder-asserts/rust-assert-true");
        found(
            "debug_assert!(true, \"x\");",
            "placeholder-asserts/rust-assert-true",
        );
        found("assert_eq!(1, 1);", "placeholder-asserts/rust-assert-same");
        found(
            "assert_eq!(\"a\", \"a\", \"same\");",
            "placeholder-asserts/rust-assert-same",
        );
        found(
            "expect(true).toBe(true);",
            "placeholder-asserts/js-expect-literal",
        );
        found(
            "expect(1).toEqual(1)",
            "placeholder-asserts/js-expect-literal",
        );
        found(
            "expect(true).toBeTruthy()",
            "placeholder-asserts/js-expect-literal",
        );

        clean("assert True == compute()");
        clean("assert Truthy");
        // A string that mentions the pattern is not a statement.
        clean("message = \"assert True\"");
        clean("self.assertTrue(result)");
        clean("assert 1 == 2");
        clean("assert!(true_value);");
        clean("assert!(ok);");
        clean("assert_eq!(1, 2);");
        clean("assert_eq!(x, 1);");
        clean("expect(true).toBe(false)");
        clean("expect(x).toBe(true)");
        clean("expect(true).not.toBe(true)");
        // Comments are not parsed: a commented-out placeholder is reported.
        found("# assert True", "placeholder-asserts/python-assert-true");
    }
}
