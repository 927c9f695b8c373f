//! The rules of a scan: the built-in rule sets of docs/checks-toml.md and a
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
//! Each hit says whether its line carries a `run-check: allow` comment
//! (`lines::allowed`); the caller counts those instead of reporting them.
//!
//! One file per family of rules: the built-in sets (`skipped_tests`,
//! `placeholder_asserts`, `secrets` with its policy, `debug_leftovers`), each
//! a table of `Builtin`s; `custom`, the union prefilter of custom patterns;
//! `lines`, the walk over lines and the check of one. This file holds what
//! they share and the `Matcher` that compiles them and dispatches a text.

use regex::Regex;

use crate::config::ScanRule;
use custom::{union_of, union_safe};
use run_check_documents::evidence::DiagSeverity;

/// ASCII word boundary: the lazy DFA handles it on any text (a Unicode `\b`
/// makes it give up on non-ASCII text).
macro_rules! wb {
    () => {
        r"(?-u:\b)"
    };
}

mod custom;
mod debug_leftovers;
mod lines;
mod placeholder_asserts;
mod secrets;
mod skipped_tests;

pub(crate) use lines::{ALLOW, allowed};
pub(crate) use secrets::redact_path;

/// One hit: the index of the rule (in `Matcher::rule`) and a 1-based line and
/// column (the column counts characters of the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Index of the rule.
    pub(crate) rule: usize,
    /// 1-based line.
    pub(crate) line: u64,
    /// 1-based column, in characters.
    pub(crate) column: u64,
    /// The line carries a `run-check: allow` comment: the hit is silenced
    /// (counted, not reported).
    pub(crate) allowed: bool,
}

/// What a compiled rule reports.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// `<set>/<name>` for a built-in rule, the `id` of a custom one.
    pub(crate) id: String,
    /// Severity of a finding.
    pub(crate) severity: DiagSeverity,
    /// Message of a finding (never contains matched text).
    pub(crate) message: String,
    /// Suggested fix (`None` for secrets and custom rules).
    pub(crate) suggestion: Option<&'static str>,
    /// The built-in set of the rule (`None` for a custom rule).
    set: Option<&'static str>,
    /// A hit of another rule of the same set on the line replaces this
    /// rule's (the generic credential rule yields to a known token format).
    yields: bool,
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
    /// Group `name` is a credential's name and group `dq`, `sq` or `bare`
    /// its value, which looks real (`secrets::real_credential`).
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

/// The built-in rule sets, in the order their rules are compiled.
const SETS: &[&[Builtin]] = &[
    skipped_tests::RULES,
    placeholder_asserts::RULES,
    secrets::RULES,
    debug_leftovers::RULES,
];

/// Every built-in rule definition, set by set.
fn builtins() -> impl Iterator<Item = &'static Builtin> {
    SETS.iter().flat_map(|set| set.iter())
}

/// How the lines a rule is checked on are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Lines that hold one of the rule's needles (built-in rules).
    Needles,
    /// Lines the union of the union-safe custom rules points at.
    Union,
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
pub(crate) struct Matcher {
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
    pub(crate) fn new(sets: &[String], custom: &[ScanRule]) -> Matcher {
        let mut rules: Vec<Rule> = Vec::new();
        let mut compiled = Vec::new();
        for def in builtins().filter(|d| sets.iter().any(|s| s == d.set)) {
            let id = format!("{}/{}", def.set, def.name);
            let rule = match rules.iter().position(|r| r.id == id) {
                Some(index) => index,
                None => {
                    rules.push(Rule {
                        id,
                        severity: DiagSeverity::Error,
                        message: format!("{}: {}", def.what, def.why),
                        suggestion: def.suggestion,
                        set: Some(def.set),
                        yields: matches!(def.verify, Verify::Credential),
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
                set: None,
                yields: false,
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
    pub(crate) fn rule(&self, index: usize) -> &Rule {
        &self.rules[index]
    }

    /// Whether there is no rule at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.compiled.is_empty()
    }

    /// Every hit of `text`, in line order per pass (the caller sorts).
    pub(crate) fn scan(&self, text: &str, out: &mut impl FnMut(Hit)) {
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

#[cfg(test)]
mod tests {
    use super::debug_leftovers::DEBUG;
    use super::placeholder_asserts::PLACEHOLDER;
    use super::secrets::SECRETS;
    use super::skipped_tests::SKIPPED;
    use super::*;

    pub(super) const ALL: [&str; 4] = [SKIPPED, PLACEHOLDER, SECRETS, DEBUG];

    pub(super) fn matcher(sets: &[&str], custom: Vec<ScanRule>) -> Matcher {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Matcher::new(&sets, &custom)
    }

    /// The matcher without prefilters: every rule on every line.
    pub(super) fn every_line(m: &Matcher) -> Matcher {
        let mut slow = m.clone();
        slow.needles = None;
        slow.union = None;
        for c in &mut slow.compiled {
            c.pass = Pass::EveryLine;
        }
        slow
    }

    pub(super) fn raw_hits(m: &Matcher, text: &str) -> Vec<(String, u64, u64)> {
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
    pub(super) fn hits_of(m: &Matcher, text: &str) -> Vec<(String, u64, u64)> {
        let fast = raw_hits(m, text);
        assert_eq!(fast, raw_hits(&every_line(m), text), "{text:?}");
        fast
    }

    /// Hits of every built-in rule set.
    pub(super) fn hits(text: &str) -> Vec<(String, u64, u64)> {
        hits_of(&matcher(&ALL, Vec::new()), text)
    }

    /// The rule ids found on a one-line text.
    fn rules_on(line: &str) -> Vec<String> {
        hits(line).into_iter().map(|(rule, _, _)| rule).collect()
    }

    #[track_caller]
    pub(super) fn found(line: &str, rule: &str) {
        assert_eq!(rules_on(line), vec![rule.to_string()], "line: {line}");
    }

    #[track_caller]
    pub(super) fn clean(line: &str) {
        assert_eq!(rules_on(line), Vec::<String>::new(), "line: {line}");
    }

    /// Secret samples are assembled at run time so that this file holds no
    /// literal that a secret scanner (this one, or a host's) would flag.
    pub(super) fn aws_key() -> String {
        format!("AKIA{}", "Q7R2M4X9T1B6N3P8")
    }

    pub(super) fn github_token() -> String {
        format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    }

    #[test]
    fn every_built_in_rule_has_needles_without_line_ends() {
        for def in builtins() {
            assert!(!def.needles.is_empty(), "{}", def.name);
            for needle in def.needles {
                assert!(!needle.is_empty() && !needle.contains(['\n', '\r']));
            }
        }
    }
}
