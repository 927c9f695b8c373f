//! What is particular to a check's own `[[check.rule]]` patterns: which of
//! them may join the union prefilter (`union_safe`), and the union itself
//! (`union_of`).

use regex::{Regex, RegexBuilder};

use super::{Compiled, Pass};

/// Whether a custom pattern matches the same substring of a whole text
/// (compiled multi-line, CRLF-aware) as of any of its lines: not when it uses
/// `\A` or `\z`, or inline flags that turn `m` or `R` off or turn on verbose
/// mode (whose comments would swallow the union's closing parenthesis).
/// Conservative: a false `false` only costs speed.
pub(super) fn union_safe(pattern: &str) -> bool {
    if pattern.contains(r"\A") || pattern.contains(r"\z") {
        return false;
    }
    // `(?flags)` and `(?flags:...)`, not `(?:`, `(?P<name>` or `(?<name>`.
    let mut rest = pattern;
    while let Some(at) = rest.find("(?") {
        rest = &rest[at + 2..];
        let flags: String = rest
            .chars()
            .take_while(|c| "imsRUux-".contains(*c))
            .collect();
        if flags.contains('-') || flags.contains('x') {
            return false;
        }
    }
    true
}

/// The multi-line, CRLF-aware union of the `Pass::Union` patterns; `None`
/// when there are none or it does not compile.
pub(super) fn union_of(compiled: &[Compiled]) -> Option<Regex> {
    let parts: Vec<String> = compiled
        .iter()
        .filter(|c| c.pass == Pass::Union)
        .map(|c| format!("(?:{})", c.regex.as_str()))
        .collect();
    if parts.is_empty() {
        return None;
    }
    RegexBuilder::new(&parts.join("|"))
        .multi_line(true)
        .crlf(true)
        .build()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ALL, aws_key, every_line, hits_of, matcher, raw_hits};
    use super::*;
    use crate::config::ScanRule;
    use run_check_documents::evidence::DiagSeverity;

    fn custom(id: &str, pattern: &str, message: Option<&str>, severity: DiagSeverity) -> ScanRule {
        ScanRule {
            id: id.to_string(),
            pattern: Regex::new(pattern).unwrap(),
            message: message.map(str::to_string),
            severity,
        }
    }

    #[test]
    fn custom_rules() {
        let m = matcher(
            &[],
            vec![
                custom("no-todo", "TODO", None, DiagSeverity::Warning),
                custom(
                    "line-start",
                    r"\Afoo",
                    Some("foo first"),
                    DiagSeverity::Error,
                ),
                custom("whole-line", r"^bar$", None, DiagSeverity::Error),
            ],
        );
        let text = "a TODO\r\nfoo\r\nbar\r\nx foo bar\n";
        assert_eq!(
            hits_of(&m, text),
            vec![
                ("no-todo".to_string(), 1, 3),
                ("line-start".to_string(), 2, 1),
                ("whole-line".to_string(), 3, 1),
            ]
        );
        assert_eq!(m.rule(0).message, "matches pattern no-todo");
        assert_eq!(m.rule(0).severity, DiagSeverity::Warning);
        assert_eq!(m.rule(1).message, "foo first");
        assert_eq!(m.rule(1).suggestion, None);
    }

    #[test]
    fn union_safety_of_custom_patterns() {
        assert!(union_safe(r"dbg!\("));
        assert!(union_safe(r"(?i)todo"));
        assert!(union_safe(r"^(?:a|b)$"));
        assert!(union_safe(r"(?P<x>a)"));
        assert!(!union_safe(r"\Aa"));
        assert!(!union_safe(r"a\z"));
        assert!(!union_safe(r"(?-m)^a"));
        assert!(!union_safe(r"(?i-R)a$"));
        assert!(!union_safe("(?x) a # comment"));
    }

    /// A tiny deterministic generator (no `rand` dependency).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    /// The union prefilter never changes what is found: the same hits as
    /// checking every line with every rule, on generated texts mixing
    /// matches, near misses, CRLF and bare CR line ends, and blank lines.
    #[test]
    fn the_union_prefilter_finds_what_line_by_line_finds() {
        let customs = || {
            vec![
                custom("todo", "(?i)todo", None, DiagSeverity::Warning),
                custom("ends", "x$", None, DiagSeverity::Error),
                custom("starts", "^y", None, DiagSeverity::Error),
                custom("anchored", r"\Az", None, DiagSeverity::Error),
                custom("empty", "q*", None, DiagSeverity::Note),
                custom("span", r"a[^b]*c", None, DiagSeverity::Error),
            ]
        };
        let fast = matcher(&ALL, customs());
        let slow = every_line(&fast);
        assert!(fast.needles.is_some() && fast.union.is_some());
        let key = aws_key();
        let token = format!("api_key = \"{}\"", "k9-f8-e7-d6");
        let pieces: Vec<&str> = vec![
            "#[ignore]",
            "#[ignore_this]",
            "assert True",
            "assert True ==",
            "dbg!(x)",
            "dbg!",
            "console.log(1)",
            "debugger",
            "x",
            "y",
            "z",
            "todo",
            "a",
            "c",
            "b",
            "é",
            " ",
            "\t",
            "expect(1).toBe(1)",
            "expect(1).toBe(2)",
            "assert_eq!(1, 1)",
            &key,
            &token,
            "t.Skip(",
            "breakpoint()",
            ".breakpoint()",
            "password = \"",
            "\"",
        ];
        let ends = ["\n", "\n", "\n", "\r\n", "\r", ""];
        let mut rng = Lcg(7);
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.next(8) {
                for _ in 0..rng.next(4) {
                    text.push_str(pieces[rng.next(pieces.len())]);
                    if rng.next(2) == 0 {
                        text.push(' ');
                    }
                }
                text.push_str(ends[rng.next(ends.len())]);
            }
            assert_eq!(raw_hits(&fast, &text), raw_hits(&slow, &text), "{text:?}");
        }
    }
}
