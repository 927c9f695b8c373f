//! `--baseline EV.json` (docs/baseline.md): the diagnostics an earlier
//! evidence already had are old (`new: false`), every other one is new. A
//! diagnostic is known by its check, rule, file and message with its
//! numbers ignored ([`normal`]); its line is not part of it, so a finding
//! moved by inserted lines is still old. Each known diagnostic matches at
//! most one diagnostic of the run: three findings where the baseline had
//! two are two old ones and one new one.
//!
//! A failing check passes only when the baseline explains all of it
//! ([`Baseline::unexplained`]): its diagnostics, and also its exit code
//! and the failures its output reports without a location (a test
//! runner's summary line, `parse::summary`), which no diagnostic carries.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use run_check_documents::evidence::{Diagnostic, Evidence};

/// The check name of the read-only verification's diagnostics: a change
/// made by a check is never old.
const READ_ONLY_CHECK: &str = "run-check";

/// The rule of the diagnostic that names what the baseline does not
/// explain of a failure whose diagnostics are all old.
pub(crate) const UNEXPLAINED: &str = "baseline-unexplained";

/// What a diagnostic is known by (also the identity of an agent
/// session's debts, which are compared the way a baseline is).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub(crate) struct Key {
    check: String,
    rule: Option<String>,
    file: Option<String>,
    /// The message with its numbers ignored ([`normal`]).
    message: String,
}

impl Key {
    pub(crate) fn of(diagnostic: &Diagnostic) -> Key {
        Key {
            check: diagnostic.check.clone(),
            rule: diagnostic.rule.clone(),
            file: diagnostic.file.as_deref().map(|f| f.replace('\\', "/")),
            message: normal(&diagnostic.message),
        }
    }
}

/// The diagnostics of an earlier evidence.
#[derive(Debug, Clone)]
pub(crate) struct Baseline {
    /// The file as named on the command line (`summary.baseline`).
    pub(crate) path: String,
    /// The lines each known diagnostic was found at (`None`: no line).
    known: HashMap<Key, Vec<Option<u64>>>,
    /// The checks that exited non-zero in the baseline: their exit code
    /// and the failures their output reported without a location.
    failed: HashMap<String, Failed>,
}

/// How a check failed in the baseline.
#[derive(Debug, Clone)]
struct Failed {
    exit_code: i32,
    /// By test runner (`parse::summary`).
    unlocated: BTreeMap<&'static str, u64>,
}

impl Baseline {
    /// The baseline of `evidence`, read from `path`.
    pub(crate) fn of(path: String, evidence: &Evidence) -> Baseline {
        let mut known: HashMap<Key, Vec<Option<u64>>> = HashMap::new();
        for diagnostic in &evidence.diagnostics {
            if diagnostic.check != READ_ONLY_CHECK {
                known
                    .entry(Key::of(diagnostic))
                    .or_default()
                    .push(diagnostic.line);
            }
        }
        let failed = evidence
            .checks
            .iter()
            .filter_map(|c| {
                let exit_code = c.exit_code.filter(|code| *code != 0)?;
                let unlocated = unlocated(&[&c.stdout_excerpt, &c.stderr_excerpt]);
                Some((
                    c.name.clone(),
                    Failed {
                        exit_code,
                        unlocated,
                    },
                ))
            })
            .collect();
        Baseline {
            path,
            known,
            failed,
        }
    }

    /// What the baseline does not explain of check `name`'s failure, which
    /// exited with `exit_code` and printed `outputs` (its stdout and
    /// stderr, or their excerpts), beyond its diagnostics: `None` when it
    /// failed the same way there (docs/baseline.md#what-passes). It must
    /// have exited non-zero there, with the same code, and each test
    /// runner's failures reported without a location must be ones it
    /// reported there, no more of them.
    pub(crate) fn unexplained(
        &self,
        name: &str,
        exit_code: Option<i32>,
        outputs: &[&str],
        dir: &Path,
    ) -> Option<String> {
        if let Some(unbuilt) = crate::parse::unbuilt::unbuilt(outputs) {
            return Some(not_built(&unbuilt, dir));
        }
        let Some(before) = self.failed.get(name) else {
            return Some("the check did not fail in the baseline".to_string());
        };
        if exit_code != Some(before.exit_code) {
            let now = exit_code.map_or_else(|| "no exit code".to_string(), |c| format!("exit {c}"));
            return Some(format!(
                "{now}, where the baseline's run exited {}",
                before.exit_code
            ));
        }
        let new: Vec<String> = unlocated(outputs)
            .into_iter()
            .filter_map(|(runner, n)| {
                let had = before.unlocated.get(runner).copied().unwrap_or(0);
                (n > had).then(|| format!("{runner} reports {n} failed, the baseline's run {had}"))
            })
            .collect();
        (!new.is_empty()).then(|| new.join("; "))
    }

    /// Sets `new` on each of `diagnostics` (one check's, or any: each check
    /// is matched on its own) and returns how many are old. Where the run
    /// has more diagnostics of one key than the baseline, those at a line
    /// the baseline had are old first, then the others in order.
    pub(crate) fn mark(&self, diagnostics: &mut [Diagnostic]) -> usize {
        let mut by_key: HashMap<Key, Vec<usize>> = HashMap::new();
        for (i, diagnostic) in diagnostics.iter_mut().enumerate() {
            diagnostic.new = Some(true);
            if diagnostic.check != READ_ONLY_CHECK {
                by_key.entry(Key::of(diagnostic)).or_default().push(i);
            }
        }
        let mut old = 0;
        for (key, found) in by_key {
            let Some(lines) = self.known.get(&key) else {
                continue;
            };
            let mut left: Vec<Option<u64>> = lines.clone();
            let mut unmatched = Vec::new();
            for i in found {
                match left.iter().position(|&line| line == diagnostics[i].line) {
                    Some(at) => {
                        left.swap_remove(at);
                        diagnostics[i].new = Some(false);
                        old += 1;
                    }
                    None => unmatched.push(i),
                }
            }
            for i in unmatched.into_iter().take(left.len()) {
                diagnostics[i].new = Some(false);
                old += 1;
            }
        }
        old
    }
}

/// Why a check whose build stopped short is never excused: the units it
/// did not build were not checked, so its diagnostics are not all there
/// are. Names the crates that did not compile and the workspace members
/// (of the manifests at `dir`, where the check ran) that depend on them.
fn not_built(unbuilt: &crate::parse::unbuilt::Unbuilt, dir: &Path) -> String {
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let failed: Vec<String> = unbuilt.failed.iter().cloned().collect();
    if failed.is_empty() {
        return "cargo stopped before building every unit (`build failed, waiting for other jobs`): what it did not build was not checked".to_string();
    }
    let unchecked = crate::run::unchecked::dependents(dir, &unbuilt.failed);
    let what = if unchecked.is_empty() {
        "what depends on it (tests, binaries, other crates) was not checked".to_string()
    } else {
        format!("crates not checked: {}", quoted(&unchecked))
    };
    format!(
        "cargo did not build every unit ({} could not compile): {what}",
        quoted(&failed)
    )
}

/// The failures without a location that `outputs` report, by test runner.
fn unlocated(outputs: &[&str]) -> BTreeMap<&'static str, u64> {
    let mut all = BTreeMap::new();
    for output in outputs {
        for (runner, n) in crate::parse::summary::failures(output) {
            let total: &mut u64 = all.entry(runner).or_default();
            *total = total.saturating_add(n);
        }
    }
    all
}

/// A message as the baseline compares it: every run of digits (and a hex
/// number such as `0x7ffd5a2c`) is `#`, and runs of white space are one
/// space, so "line too long (121 > 100)" and "line too long (130 > 100)",
/// or "expected 2 arguments, found 3" and "… found 1", are one finding, and a
/// message that embeds its own line or a count still matches when the code
/// around it moves. Any other change of wording is a new finding.
pub(crate) fn normal(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.trim().chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if c.is_ascii_digit() {
            let hex = c == '0' && chars.next_if(|&x| x == 'x' || x == 'X').is_some();
            let digit = if hex {
                char::is_ascii_hexdigit
            } else {
                char::is_ascii_digit
            };
            while chars.next_if(digit).is_some() {}
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(check: &str, file: &str, line: u64, rule: &str, message: &str) -> Diagnostic {
        Diagnostic {
            check: check.into(),
            file: Some(file.into()),
            line: Some(line),
            rule: Some(rule.into()),
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    fn baseline(diagnostics: Vec<Diagnostic>) -> Baseline {
        let mut evidence =
            Evidence::from_value(crate::run::evidence::complete(&serde_json::json!({})))
                .expect("evidence");
        evidence.diagnostics = diagnostics;
        Baseline::of("base.json".into(), &evidence)
    }

    fn news(diagnostics: &[Diagnostic]) -> Vec<Option<bool>> {
        diagnostics.iter().map(|d| d.new).collect()
    }

    #[test]
    fn numbers_and_white_space_do_not_count() {
        assert_eq!(
            normal("line too long (121 > 100 characters)"),
            "line too long (# > # characters)"
        );
        assert_eq!(normal("  a\t\tb \n c "), "a b c");
        assert_eq!(normal("object at 0x7ffd5a2c0 freed"), "object at # freed");
        assert_eq!(normal("x1y22"), "x#y#");
        assert_eq!(normal("unused `é` 3"), "unused `é` #");
    }

    #[test]
    fn a_moved_finding_is_old_and_a_reworded_one_new() {
        let base = baseline(vec![
            diagnostic("lint", "a.py", 3, "F401", "`os` imported but unused"),
            diagnostic("lint", "a.py", 9, "E501", "Line too long (120 > 88)"),
        ]);
        let mut now = vec![
            diagnostic("lint", "a.py", 13, "F401", "`os` imported but unused"),
            diagnostic("lint", "a.py", 19, "E501", "Line too long (131 > 88)"),
            diagnostic("lint", "a.py", 20, "F401", "`sys` imported but unused"),
            diagnostic("lint", "b.py", 3, "F401", "`os` imported but unused"),
            diagnostic("other", "a.py", 3, "F401", "`os` imported but unused"),
        ];
        assert_eq!(base.mark(&mut now), 2);
        assert_eq!(
            news(&now),
            [Some(false), Some(false), Some(true), Some(true), Some(true)]
        );
    }

    #[test]
    fn each_known_finding_matches_once_and_its_own_line_first() {
        let base = baseline(vec![
            diagnostic("lint", "a.py", 5, "F841", "unused variable"),
            diagnostic("lint", "a.py", 8, "F841", "unused variable"),
        ]);
        let mut now = vec![
            diagnostic("lint", "a.py", 2, "F841", "unused variable"),
            diagnostic("lint", "a.py", 5, "F841", "unused variable"),
            diagnostic("lint", "a.py", 8, "F841", "unused variable"),
        ];
        assert_eq!(base.mark(&mut now), 2);
        assert_eq!(news(&now), [Some(true), Some(false), Some(false)]);
        // Moved, one more: the first two in order are the old ones.
        let mut moved = vec![
            diagnostic("lint", "a.py", 6, "F841", "unused variable"),
            diagnostic("lint", "a.py", 9, "F841", "unused variable"),
            diagnostic("lint", "a.py", 12, "F841", "unused variable"),
        ];
        assert_eq!(base.mark(&mut moved), 2);
        assert_eq!(news(&moved), [Some(false), Some(false), Some(true)]);
    }

    #[test]
    fn a_change_the_checks_made_is_never_old() {
        let base = baseline(vec![diagnostic(
            READ_ONLY_CHECK,
            "src/a.rs",
            1,
            "read-only",
            "modified",
        )]);
        let mut now = vec![diagnostic(
            READ_ONLY_CHECK,
            "src/a.rs",
            1,
            "read-only",
            "modified",
        )];
        assert_eq!(base.mark(&mut now), 0);
        assert_eq!(news(&now), [Some(true)]);
    }

    #[test]
    fn windows_separators_match() {
        let base = baseline(vec![diagnostic("lint", "src\\a.c", 1, "w", "m")]);
        let mut now = vec![diagnostic("lint", "src/a.c", 4, "w", "m")];
        assert_eq!(base.mark(&mut now), 1);
    }
}
