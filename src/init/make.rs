//! The Makefile fallback: a Makefile's `lint`, `check` and `test` targets as
//! `make X` checks, used only when no other ecosystem is recognised, and never
//! a target whose recipe runs run-check itself.

use std::path::Path;

use super::{Check, FAST_STRICT, Found, STRICT, is_file, read};

/// The targets a Makefile defines, with whether a recipe line of theirs
/// mentions run-check (calling it from a check would recurse).
fn make_targets(text: &str) -> Vec<(String, bool)> {
    let mut targets: Vec<(String, bool)> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') {
            if line.contains("run-check") {
                for &i in &current {
                    targets[i].1 = true;
                }
            }
            continue;
        }
        current.clear();
        let line = line.split('#').next().unwrap_or("");
        let Some((names, rest)) = line.split_once(':') else {
            continue;
        };
        // `x := 1`, `x ::= 1` are assignments; `a: b` and `a:: b` are rules.
        if rest.starts_with('=') || names.contains('=') || rest.starts_with(":=") {
            continue;
        }
        // A `target: prerequisites ; recipe` one-liner.
        let recipe_mentions = rest
            .split_once(';')
            .is_some_and(|(_, recipe)| recipe.contains("run-check"));
        for name in names.split_whitespace() {
            if name.starts_with('.') || name.contains(['%', '$']) {
                continue;
            }
            let index = match targets.iter().position(|(n, _)| n == name) {
                Some(i) => i,
                None => {
                    targets.push((name.to_string(), false));
                    targets.len() - 1
                }
            };
            targets[index].1 |= recipe_mentions;
            current.push(index);
        }
    }
    targets
}

/// A Makefile's `lint`, `check` and `test` targets as `make X` checks.
pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let file = ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find(|f| is_file(root, f))?;
    let text = read(root, file)?;
    let targets = make_targets(&text);
    let mut checks = Vec::new();
    for (name, modes) in [("lint", FAST_STRICT), ("check", STRICT), ("test", STRICT)] {
        match targets.iter().find(|(n, _)| n == name) {
            Some((_, true)) => notes.push(format!(
                "{file} target `{name}` runs run-check itself; not used (it would recurse)"
            )),
            Some((_, false)) => checks.push(Check::new(name, &["make", name], modes)),
            None => {}
        }
    }
    if checks.is_empty() {
        return None;
    }
    Some(Found {
        ecosystem: "Make".into(),
        files: vec![file.to_string()],
        checks,
        fixes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_targets_are_rules_not_assignments() {
        let text = ".PHONY: test lint\nCC := gcc\nX = a:b\ntest lint: build\n\tpytest\ncheck:\n\t./run-check.sh --mode strict\nbuild:: ; cc x.c\n%.o: %.c\n\tcc $<\n";
        assert_eq!(
            make_targets(text),
            vec![
                ("test".to_string(), false),
                ("lint".to_string(), false),
                ("check".to_string(), true),
                ("build".to_string(), false),
            ]
        );
    }
}
