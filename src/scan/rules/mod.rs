//! The rules of a scan: the built-in rule sets of SPEC section 3 and a
//! check's `[[check.rule]]`s, compiled into one `Matcher` that finds every
//! (rule, line) hit of a file's text.
//!
//! Every rule is defined on a single line: its regex runs against the line's
//! text (without the `\n` and one trailing `\r`), and a line yields at most one
//! finding per rule (the leftmost). Running every regex on every line would
//! be slow, so lines are picked by prefilters that run over the whole text
//! and only skip work, never findings:
//! - Built-in rules list *needles*, literals one of which every match
//!   contains (`dbg!(` for `dbg!\(`, `AKIA`/`ASIA` for AWS key ids). One
//!   alternation of all needles (searched with the regex crate's SIMD literal
//!   searchers) finds the lines that hold one; a line is checked only with the
//!   rules whose needles it holds.
//! - Custom patterns are joined into one multi-line, CRLF-aware *union*
//!   regex: its earliest-ending match lies on or before the first line where
//!   a custom rule matches, that line is checked, and the search resumes on
//!   the next one. This holds because each joined pattern matches the same
//!   substring of the whole text as of the line; patterns that may not
//!   (`\A`, `\z`, inline flags that turn off `m` or `R`, verbose mode) and
//!   files with a bare `\r` are checked on every line instead.
//!
//! Patterns are textual: comments and string literals are not parsed, so a
//! pattern written in a comment is reported like code (`# assert True` is a
//! finding; `"assert True"` inside a string literal is not, because a
//! placeholder assert must end its statement). A repository that spells
//! these patterns out, as run-check's own tests do, trips its own scan: give
//! such a check a narrower `paths` list. Messages never quote the matched
//! text, so no rule (built-in or custom) copies a secret into evidence or
//! output.
//!
//! Policy of the `secrets` set, to keep false positives cheap to avoid:
//! AWS's documented example keys (ending in `EXAMPLE`) and tokens whose body
//! is one repeated character are placeholders; a credential assignment
//! (`password`, `passwd`, `secret`, `token`, `api_key`, `secret_key`,
//! `private_key`, `access_key`, in lower, upper or capitalised case, ending
//! the assigned name) counts only with a quoted literal of at least six
//! characters that has no whitespace, is not a reference or template
//! (`$VAR`, `${..}`, `{{..}}`, `%s`, `<..>`) and is not a placeholder word
//! (`changeme`, `example`, `dummy`, `xxxx`, `your_...`, ...).

use regex::{Captures, Regex, RegexBuilder};

use crate::config::{DiagSeverity, ScanRule};

/// One hit: the index of the rule (in `Matcher::rule`) and a 1-based line and
/// column (the column counts characters of the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Index of the rule.
    pub rule: usize,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u64,
}

/// What a compiled rule reports.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `<set>/<name>` for a built-in rule, the `id` of a custom one.
    pub id: String,
    /// Severity of a finding.
    pub severity: DiagSeverity,
    /// Message of a finding (never contains matched text).
    pub message: String,
    /// Suggested fix (`None` for secrets and custom rules).
    pub suggestion: Option<&'static str>,
}

/// An extra test of a regex match that a regex alone cannot express.
#[derive(Debug, Clone, Copy)]
enum Verify {
    /// Every match counts.
    Always,
    /// Groups 1 and 2 (two literal operands) are the same text.
    SameOperands,
    /// Not a method (`.x(`) or a definition (`def x(`, `fn x(`).
    FreeCall,
    /// Only blanks before the match on its line (a statement of its own).
    LineStart,
    /// Group 1 or 2 is a credential-like value, not a placeholder.
    Credential,
    /// The whole match is a key or token, not an example or placeholder.
    RealToken,
}

/// A built-in rule definition. Several definitions may share a rule name.
struct Builtin {
    set: &'static str,
    name: &'static str,
    pattern: &'static str,
    verify: Verify,
    /// Literals, one of which every match contains (the literal prefilter
    /// looks for lines that hold one; none may contain a line end).
    needles: &'static [&'static str],
    /// What was found (never the matched text).
    what: &'static str,
    /// Why it matters.
    why: &'static str,
    suggestion: Option<&'static str>,
}

/// ASCII word boundary: the lazy DFA handles it on any text (a Unicode `\b`
/// makes it give up on non-ASCII text).
macro_rules! wb {
    () => {
        r"(?-u:\b)"
    };
}

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

const SKIPPED: &str = "skipped-tests";
const PLACEHOLDER: &str = "placeholder-asserts";
const SECRETS: &str = "secrets";
const DEBUG: &str = "debug-leftovers";

const SKIP_WHY: &str = "it reports success without running, so the suite proves less \
                        than it claims";
const SKIP_SUGGESTION: &str = "run the test (fix it if it fails) or delete it";
const ONLY_WHY: &str = "every other test of the file is silently skipped";
const ONLY_SUGGESTION: &str = "remove the focus";
const PLACEHOLDER_WHY: &str = "it always passes, so it checks nothing and the test proves \
                               nothing";
const PLACEHOLDER_SUGGESTION: &str = "assert on the behaviour under test, or delete the assertion";
const SECRET_WHY: &str = "anyone who can read the repository can use it; remove it, rotate \
                          it, and load it from the environment or a secret store";
const DEBUG_PRINT_WHY: &str = "debug output in code that ships";
const DEBUG_STOP_WHY: &str = "it stops the program in a debugger";
const DEBUG_SUGGESTION: &str = "remove it before merging";

/// The built-in rules, by set.
const BUILTINS: &[Builtin] = &[
    // skipped-tests
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
    // placeholder-asserts
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
    // secrets: messages and suggestions never name the value.
    Builtin {
        set: SECRETS,
        name: "aws-access-key-id",
        pattern: concat!(wb!(), r"(?:AKIA|ASIA)[0-9A-Z]{16}", wb!()),
        verify: Verify::RealToken,
        needles: &["AKIA", "ASIA"],
        what: "an AWS access key id (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "private-key",
        pattern: r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
        verify: Verify::Always,
        needles: &["PRIVATE KEY"],
        what: "a private key block (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "github-token",
        pattern: concat!(wb!(), r"gh[pousr]_[A-Za-z0-9]{36,251}", wb!()),
        verify: Verify::RealToken,
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        what: "a GitHub token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "github-token",
        pattern: concat!(wb!(), r"github_pat_[A-Za-z0-9_]{22,251}", wb!()),
        verify: Verify::RealToken,
        needles: &["github_pat_"],
        what: "a GitHub token (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    Builtin {
        set: SECRETS,
        name: "credential-assignment",
        pattern: concat!(
            // The name ends with a keyword, in lower, upper or capitalised
            // case (not case-insensitive: exact literals keep the union's
            // literal prefilter fast).
            r"(?:[Pp]assw(?:or)?d|PASSW(?:OR)?D|[Ss]ecret|SECRET|[Tt]oken|TOKEN",
            r"|(?:[Aa]pi|API)[_-]?(?:[Kk]ey)|API[_-]?KEY",
            r"|(?:[Ss]ecret|[Pp]rivate|[Aa]ccess)[_-]?[Kk]ey|(?:SECRET|PRIVATE|ACCESS)[_-]?KEY)",
            r#"["']?[ \t]*"#,
            r"(?::=|=>|=|:(?:[ \t]*(?:&(?:'static[ \t]+)?str|str|string|String)[ \t]*=)?)",
            r#"[ \t]*(?:"([^"\n]*)"|'([^'\n]*)')"#
        ),
        verify: Verify::Credential,
        needles: &[
            "assword", "asswd", "ASSWORD", "ASSWD", "ecret", "ECRET", "oken", "OKEN", "key", "Key",
            "KEY",
        ],
        what: "a password, token or key assigned a string literal (value not shown)",
        why: SECRET_WHY,
        suggestion: None,
    },
    // debug-leftovers
    Builtin {
        set: DEBUG,
        name: "rust-dbg",
        pattern: concat!(wb!(), r"dbg!\("),
        verify: Verify::Always,
        needles: &["dbg!("],
        what: "a `dbg!` macro left in",
        why: DEBUG_PRINT_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "js-console-log",
        pattern: concat!(wb!(), r"console\.log\("),
        verify: Verify::Always,
        needles: &["console.log("],
        what: "a `console.log` call left in",
        why: DEBUG_PRINT_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "js-debugger",
        pattern: concat!(wb!(), r"debugger[ \t]*;?[ \t]*$"),
        verify: Verify::LineStart,
        needles: &["debugger"],
        what: "a `debugger` statement left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "python-breakpoint",
        pattern: concat!(wb!(), r"breakpoint\(\)"),
        verify: Verify::FreeCall,
        needles: &["breakpoint()"],
        what: "a `breakpoint` call left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
    Builtin {
        set: DEBUG,
        name: "python-pdb",
        pattern: concat!(wb!(), r"(?:i?pdb|pudb)\.set_trace\("),
        verify: Verify::Always,
        needles: &[".set_trace("],
        what: "a `set_trace` call left in",
        why: DEBUG_STOP_WHY,
        suggestion: Some(DEBUG_SUGGESTION),
    },
];

/// Lowercased words that mark a credential value as a placeholder.
const PLACEHOLDER_WORDS: &[&str] = &[
    "changeme",
    "change_me",
    "change-me",
    "example",
    "placeholder",
    "dummy",
    "redacted",
    "replace",
    "your_",
    "your-",
    "yourpassword",
    "yoursecret",
    "yourtoken",
    "xxxx",
    "****",
    "....",
    "todo",
    "fixme",
];

/// Lowercased values that are placeholders as a whole.
const PLACEHOLDER_VALUES: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "default",
    "testing",
    "foobar",
    "undefined",
    "notasecret",
];

/// Shortest credential value reported.
const MIN_CREDENTIAL_CHARS: usize = 6;

/// Whether a credential assignment's value looks real. Policy: not empty, at
/// least `MIN_CREDENTIAL_CHARS` characters, no whitespace (that is prose: a
/// prompt or a label), not a reference or template (`$VAR`, `${..}`, `{{..}}`,
/// `%s`, `<..>`), not a placeholder word (`changeme`, `example`, `xxxx`,
/// `your_...`, ...), not one character repeated.
fn real_credential(value: &str) -> bool {
    if value.chars().count() < MIN_CREDENTIAL_CHARS || value.chars().any(char::is_whitespace) {
        return false;
    }
    if value.starts_with(['$', '%', '<', '#', '{']) || value.contains("${") || value.contains("{{")
    {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if PLACEHOLDER_VALUES.contains(&lower.as_str())
        || PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
    {
        return false;
    }
    !one_char_repeated(value)
}

/// Whether a key or token (prefix and all) is real. Policy: AWS's documented
/// example keys end in `EXAMPLE`; a body of one repeated character
/// (`ghp_xxxx...`) is a placeholder.
fn real_token(token: &str) -> bool {
    if token.ends_with("EXAMPLE") {
        return false;
    }
    let body = token.rsplit('_').next().unwrap_or(token);
    let body = body
        .strip_prefix("AKIA")
        .or_else(|| body.strip_prefix("ASIA"))
        .unwrap_or(body);
    !one_char_repeated(body)
}

fn one_char_repeated(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => chars.all(|c| c == first),
        None => true,
    }
}

/// Whether a custom pattern matches the same substring of a whole text
/// (compiled multi-line, CRLF-aware) as of any of its lines: not when it uses
/// `\A` or `\z`, or inline flags that turn `m` or `R` off or turn on verbose
/// mode (whose comments would swallow the union's closing parenthesis).
/// Conservative: a false `false` only costs speed.
fn union_safe(pattern: &str) -> bool {
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

/// How the lines a rule is checked on are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Lines that hold one of the rule's needles (built-in rules).
    Needles,
    /// Lines the union of the union-safe custom rules points at.
    Union,
    /// Every line.
    EveryLine,
}

/// One compiled rule: its per-line regex and what it reports.
#[derive(Debug, Clone)]
struct Compiled {
    /// Index into `Matcher::rules` (definitions sharing a name share it).
    rule: usize,
    regex: Regex,
    verify: Verify,
    /// The built-in rule's needles (empty for custom rules).
    needles: &'static [&'static str],
    pass: Pass,
}

/// Every rule of a scan, compiled; clone it per thread (a clone has its own
/// regex caches).
#[derive(Debug, Clone)]
pub struct Matcher {
    rules: Vec<Rule>,
    compiled: Vec<Compiled>,
    /// The needles of the `Pass::Needles` rules: an alternation of literals,
    /// which the regex crate searches with its literal (SIMD) searchers.
    needles: Option<Regex>,
    /// The union of the `Pass::Union` patterns, multi-line and CRLF-aware.
    union: Option<Regex>,
}

impl Matcher {
    /// The built-in sets named in `sets` (unknown names are ignored: config
    /// validation rejects them) and the custom rules.
    pub fn new(sets: &[String], custom: &[ScanRule]) -> Matcher {
        let mut rules: Vec<Rule> = Vec::new();
        let mut compiled = Vec::new();
        for def in BUILTINS.iter().filter(|d| sets.iter().any(|s| s == d.set)) {
            let id = format!("{}/{}", def.set, def.name);
            let rule = match rules.iter().position(|r| r.id == id) {
                Some(index) => index,
                None => {
                    rules.push(Rule {
                        id,
                        severity: DiagSeverity::Error,
                        message: format!("{}: {}", def.what, def.why),
                        suggestion: def.suggestion,
                    });
                    rules.len() - 1
                }
            };
            compiled.push(Compiled {
                rule,
                regex: Regex::new(def.pattern).expect("built-in scan patterns compile"),
                verify: def.verify,
                needles: def.needles,
                pass: Pass::Needles,
            });
        }
        for custom in custom {
            rules.push(Rule {
                id: custom.id.clone(),
                severity: custom.severity,
                message: custom
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("matches pattern {}", custom.id)),
                suggestion: None,
            });
            compiled.push(Compiled {
                rule: rules.len() - 1,
                regex: custom.pattern.clone(),
                verify: Verify::Always,
                needles: &[],
                pass: if union_safe(custom.pattern.as_str()) {
                    Pass::Union
                } else {
                    Pass::EveryLine
                },
            });
        }
        let needles = needles_of(&compiled);
        let union = union_of(&compiled);
        for c in &mut compiled {
            // A prefilter that does not compile (a custom pattern too big, or
            // with duplicate group names, for the union): every line.
            if (c.pass == Pass::Needles && needles.is_none())
                || (c.pass == Pass::Union && union.is_none())
            {
                c.pass = Pass::EveryLine;
            }
        }
        Matcher {
            rules,
            compiled,
            needles,
            union,
        }
    }

    /// What rule `index` reports.
    pub fn rule(&self, index: usize) -> &Rule {
        &self.rules[index]
    }

    /// Whether there is no rule at all.
    pub fn is_empty(&self) -> bool {
        self.compiled.is_empty()
    }

    /// Every hit of `text`, in line order per pass (the caller sorts).
    pub fn scan(&self, text: &str, out: &mut impl FnMut(Hit)) {
        let bytes = text.as_bytes();
        if let Some(needles) = &self.needles {
            // Needles hold no line end, so a line holds a needle exactly when
            // the whole text holds one within that line.
            self.lines_at(
                text,
                |pos| needles.find_at(text, pos).map(|m| m.start()),
                |c, line| c.pass == Pass::Needles && c.needles.iter().any(|n| line.contains(n)),
                out,
            );
        }
        // The union agrees with the per-line patterns only where every `\r`
        // ends a line.
        let union = self.union.as_ref().filter(|_| {
            memchr::memchr_iter(b'\r', bytes).all(|i| bytes.get(i + 1) == Some(&b'\n'))
        });
        if let Some(union) = union {
            // The earliest end of a union match lies on or before the first
            // line where a union rule matches, and never before `pos`.
            self.lines_at(
                text,
                |pos| union.shortest_match_at(text, pos),
                |c, _| c.pass == Pass::Union,
                out,
            );
        }
        let every_line =
            |c: &Compiled| c.pass == Pass::EveryLine || (c.pass == Pass::Union && union.is_none());
        if self.compiled.iter().any(every_line) {
            self.lines_at(text, Some, |c, _| every_line(c), out);
        }
    }

    /// Checks the lines `next_hit` points at: from a line start `pos`, it
    /// returns an offset on the next line worth checking (`None`: no more).
    /// Each such line is checked with the rules `which` selects.
    fn lines_at(
        &self,
        text: &str,
        mut next_hit: impl FnMut(usize) -> Option<usize>,
        which: impl Fn(&Compiled, &str) -> bool,
        out: &mut impl FnMut(Hit),
    ) {
        let bytes = text.as_bytes();
        let mut cursor = Cursor {
            bytes,
            start: 0,
            line_no: 1,
        };
        let mut pos = 0;
        while pos < bytes.len() {
            let Some(offset) = next_hit(pos) else {
                break;
            };
            let (start, line_no) = cursor.line_of(offset);
            if start >= bytes.len() {
                break; // past the last line end: no line there
            }
            let newline = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
            let line = line_text(text, start, newline);
            self.line(line, line_no, |c| which(c, line), out);
            match newline {
                Some(newline) => pos = newline + 1,
                None => break,
            }
        }
    }

    /// Checks one line with the rules `which` selects: at most one hit per
    /// rule (its leftmost).
    fn line(
        &self,
        line: &str,
        line_no: u64,
        which: impl Fn(&Compiled) -> bool,
        out: &mut impl FnMut(Hit),
    ) {
        let mut hits: Vec<(usize, usize)> = Vec::new(); // (rule, byte offset)
        for c in self.compiled.iter().filter(|c| which(c)) {
            let Some(at) = c.first(line) else {
                continue;
            };
            match hits.iter_mut().find(|(rule, _)| *rule == c.rule) {
                Some(hit) => hit.1 = hit.1.min(at),
                None => hits.push((c.rule, at)),
            }
        }
        for (rule, at) in hits {
            out(Hit {
                rule,
                line: line_no,
                column: line[..at].chars().count() as u64 + 1,
            });
        }
    }
}

/// Line starts and numbers of offsets visited in increasing order.
struct Cursor<'t> {
    bytes: &'t [u8],
    /// Start of the line last returned.
    start: usize,
    line_no: u64,
}

impl Cursor<'_> {
    /// The start and 1-based number of the line holding `offset` (a line's
    /// `\n` belongs to it; `offset` may be the text's length).
    fn line_of(&mut self, offset: usize) -> (usize, u64) {
        let skipped = memchr::memchr_iter(b'\n', &self.bytes[self.start..offset]).count();
        if skipped > 0 {
            self.line_no += skipped as u64;
            self.start = memchr::memrchr(b'\n', &self.bytes[..offset]).map_or(0, |i| i + 1);
        }
        (self.start, self.line_no)
    }
}

impl Compiled {
    /// Byte offset of the first verified match on the line.
    fn first(&self, line: &str) -> Option<usize> {
        if matches!(self.verify, Verify::Always) {
            return self.regex.find(line).map(|m| m.start());
        }
        self.regex
            .captures_iter(line)
            .find(|caps| verified(self.verify, caps, line))
            .map(|caps| caps.get(0).map_or(0, |m| m.start()))
    }
}

fn verified(verify: Verify, caps: &Captures<'_>, line: &str) -> bool {
    let whole = caps.get(0).expect("group 0");
    let before = &line[..whole.start()];
    match verify {
        Verify::Always => true,
        Verify::SameOperands => match (caps.get(1), caps.get(2)) {
            (Some(a), Some(b)) => a.as_str() == b.as_str(),
            _ => false,
        },
        Verify::FreeCall => {
            let before = before.trim_end();
            !(before.ends_with('.')
                || before.ends_with("def")
                || before.ends_with("fn")
                || before.ends_with("function"))
        }
        Verify::LineStart => before.trim().is_empty(),
        Verify::Credential => caps
            .get(1)
            .or_else(|| caps.get(2))
            .is_some_and(|v| real_credential(v.as_str())),
        Verify::RealToken => real_token(whole.as_str()),
    }
}

/// A line's text: without its `\n` and one trailing `\r`.
fn line_text(text: &str, start: usize, newline: Option<usize>) -> &str {
    let line = &text[start..newline.unwrap_or(text.len())];
    line.strip_suffix('\r').unwrap_or(line)
}

/// The alternation of every `Pass::Needles` rule's needles; `None` when
/// there are none or it does not compile.
fn needles_of(compiled: &[Compiled]) -> Option<Regex> {
    let mut needles: Vec<&str> = compiled
        .iter()
        .filter(|c| c.pass == Pass::Needles)
        .flat_map(|c| c.needles.iter().copied())
        .collect();
    needles.sort_unstable();
    needles.dedup();
    if needles.is_empty() {
        return None;
    }
    let parts: Vec<String> = needles.iter().map(|n| regex::escape(n)).collect();
    Regex::new(&parts.join("|")).ok()
}

/// The multi-line, CRLF-aware union of the `Pass::Union` patterns; `None`
/// when there are none or it does not compile.
fn union_of(compiled: &[Compiled]) -> Option<Regex> {
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
    use super::*;

    const ALL: [&str; 4] = [SKIPPED, PLACEHOLDER, SECRETS, DEBUG];

    fn matcher(sets: &[&str], custom: Vec<ScanRule>) -> Matcher {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Matcher::new(&sets, &custom)
    }

    /// The matcher without prefilters: every rule on every line.
    fn every_line(m: &Matcher) -> Matcher {
        let mut slow = m.clone();
        slow.needles = None;
        slow.union = None;
        for c in &mut slow.compiled {
            c.pass = Pass::EveryLine;
        }
        slow
    }

    fn raw_hits(m: &Matcher, text: &str) -> Vec<(String, u64, u64)> {
        let mut out = Vec::new();
        m.scan(text, &mut |hit: Hit| {
            out.push((m.rule(hit.rule).id.clone(), hit.line, hit.column))
        });
        out.sort_by(|a, b| (a.1, a.2, &a.0).cmp(&(b.1, b.2, &b.0)));
        out
    }

    /// Hits sorted by line, column and rule; the prefilters must not change
    /// them (which also proves the needles of every matched sample).
    #[track_caller]
    fn hits_of(m: &Matcher, text: &str) -> Vec<(String, u64, u64)> {
        let fast = raw_hits(m, text);
        assert_eq!(fast, raw_hits(&every_line(m), text), "{text:?}");
        fast
    }

    /// Hits of every built-in rule set.
    fn hits(text: &str) -> Vec<(String, u64, u64)> {
        hits_of(&matcher(&ALL, Vec::new()), text)
    }

    /// The rule ids found on a one-line text.
    fn rules_on(line: &str) -> Vec<String> {
        hits(line).into_iter().map(|(rule, _, _)| rule).collect()
    }

    #[track_caller]
    fn found(line: &str, rule: &str) {
        assert_eq!(rules_on(line), vec![rule.to_string()], "line: {line}");
    }

    #[track_caller]
    fn clean(line: &str) {
        assert_eq!(rules_on(line), Vec::<String>::new(), "line: {line}");
    }

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

    #[test]
    fn debug_leftovers() {
        found("    let y = dbg!(a + b);", "debug-leftovers/rust-dbg");
        found(
            "console.log(\"here\", x);",
            "debug-leftovers/js-console-log",
        );
        found("  debugger;", "debug-leftovers/js-debugger");
        found("debugger", "debug-leftovers/js-debugger");
        found("    breakpoint()", "debug-leftovers/python-breakpoint");
        found("import pdb; pdb.set_trace()", "debug-leftovers/python-pdb");
        found("ipdb.set_trace()", "debug-leftovers/python-pdb");

        clean("mydbg!(x)");
        clean("console.error(\"failed\")");
        clean("def breakpoint():");
        clean("fn breakpoint() {}");
        clean("self.breakpoint()");
        clean("const debugger = 1;");
        clean("// then call the debugger;");
    }

    /// Secret samples are assembled at run time so that this file holds no
    /// literal that a secret scanner (this one, or a host's) would flag.
    fn aws_key() -> String {
        format!("AKIA{}", "Q7R2M4X9T1B6N3P8")
    }

    fn github_token() -> String {
        format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    }

    #[test]
    fn secrets() {
        let key = aws_key();
        found(&format!("aws_id = {key}"), "secrets/aws-access-key-id");
        found(
            &format!("-----BEGIN {}PRIVATE KEY-----", "RSA "),
            "secrets/private-key",
        );
        found(
            &format!("-----BEGIN {}PRIVATE KEY-----", "OPENSSH "),
            "secrets/private-key",
        );
        found(
            &format!("-----BEGIN PRIVATE {}-----", "KEY"),
            "secrets/private-key",
        );
        found(&format!("x {}", github_token()), "secrets/github-token");
        found(
            &format!("x {}", github_token().replace("ghp_", "ghs_")),
            "secrets/github-token",
        );
        let fine_grained = format!(
            "github_pat_{}_{}",
            "1".repeat(11) + "ABCDEFGHIJK",
            "xY7".repeat(20)
        );
        found(&format!("GH={fine_grained}"), "secrets/github-token");
        for line in [
            "password = \"hunter2!x\"",
            "  DB_PASSWORD: \"s3cr3t-P4ss\"",
            "{\"api_key\": \"k-9f8e7d6c\"}",
            "let token = \"abc123def\";",
            "const API_KEY: &str = \"q9w8e7r6t5\";",
            "password: str = 'p4ssw0rd!'",
            "client_secret := \"zz9-yy8-xx7\"",
        ] {
            found(line, "secrets/credential-assignment");
        }

        clean("AKIAIOSFODNN7EXAMPLE");
        clean("AKIA1234567890ABCDE");
        clean(&format!("-----BEGIN PUBLIC {}-----", "KEY"));
        clean(&format!("ghx_{}", &github_token()[4..]));
        clean(&github_token()[..39]);
        clean(&format!("ghp_{}", "x".repeat(36)));
        for line in [
            "password = \"\"",
            "password = \"changeme\"",
            "password = \"${DB_PASSWORD}\"",
            "password = os.environ[\"DB_PASSWORD\"]",
            "password_hint = \"first pet\"",
            "tokenizer = \"bert-base\"",
            "if password == \"hunter22\":",
            "password = \"Enter your password\"",
            "token = \";\"",
            "password = \"xxxxxxxx\"",
            "api_key = \"<your api key>\"",
            "secret = \"example-secret\"",
        ] {
            clean(line);
        }
    }

    #[test]
    fn secret_findings_never_carry_the_secret() {
        let secrets = [
            aws_key(),
            github_token(),
            "hunter2!x".to_string(),
            format!("-----BEGIN {}PRIVATE KEY-----", "EC "),
        ];
        let text = format!(
            "id = {}\ntok = {}\npassword = \"{}\"\n{}\n",
            secrets[0], secrets[1], secrets[2], secrets[3]
        );
        let m = matcher(&[SECRETS], Vec::new());
        let mut seen = 0;
        m.scan(&text, &mut |hit: Hit| {
            seen += 1;
            let rule = m.rule(hit.rule);
            assert_eq!(rule.suggestion, None);
            let shown = format!("{} {}", rule.id, rule.message);
            for secret in &secrets {
                // No 5-character piece of a secret's distinctive part.
                let body = secret.trim_start_matches("-----BEGIN ");
                let chars: Vec<char> = body.chars().collect();
                for window in chars.windows(5) {
                    let piece: String = window.iter().collect();
                    if piece
                        .chars()
                        .all(|c| c.is_ascii_alphabetic() && c.is_ascii_lowercase())
                    {
                        continue; // an English word fragment, not the secret
                    }
                    assert!(
                        !shown.contains(&piece),
                        "`{piece}` of a secret in `{shown}`"
                    );
                }
                assert!(!shown.contains(secret.as_str()));
            }
        });
        assert_eq!(seen, 4);
    }

    #[test]
    fn lines_and_columns() {
        let text = "fn main() {\r\n    let x = 1;\r\n    dbg!(x);\r\n}\r\n";
        assert_eq!(
            hits(text),
            vec![("debug-leftovers/rust-dbg".to_string(), 3, 5)]
        );
        // Columns count characters, not bytes.
        assert_eq!(
            hits("é dbg!(x)\n"),
            vec![("debug-leftovers/rust-dbg".to_string(), 1, 3)]
        );
        // One finding per rule per line (the leftmost); several rules may share a line.
        assert_eq!(
            hits("dbg!(a); dbg!(b); console.log(c)"),
            vec![
                ("debug-leftovers/rust-dbg".to_string(), 1, 1),
                ("debug-leftovers/js-console-log".to_string(), 1, 19),
            ]
        );
        // The last line needs no newline; an empty file has no lines.
        assert_eq!(
            hits("\n\nxit('a', f)"),
            vec![("skipped-tests/js-skip".to_string(), 3, 1)]
        );
        assert_eq!(hits(""), vec![]);
    }

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
    fn every_built_in_rule_has_needles_without_line_ends() {
        for def in BUILTINS {
            assert!(!def.needles.is_empty(), "{}", def.name);
            for needle in def.needles {
                assert!(!needle.is_empty() && !needle.contains(['\n', '\r']));
            }
        }
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
