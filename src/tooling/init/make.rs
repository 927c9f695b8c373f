//! The Makefile fallback: a Makefile's `lint`, `check` and `test` targets as
//! `make X` checks, used only when no other ecosystem is recognised, and never
//! a target whose recipe runs run-check itself, nor one that writes files
//! (its recipes or its prerequisites' run a fixer or formatter: `writers`).
//! A C or C++ project (sources at the root or in `src/`) also gets its build
//! (`make all`, or the default goal) with the gcc parser, and its `check` and
//! `test` run after it, with the gcc parser and a matcher for failed
//! `assert()`s.

use std::path::Path;

use super::writers::{self, Context};
use super::{Check, FAST_STRICT, Found, STRICT, globs, is_file, read};

/// Targets that are not a build when they are the default goal.
const NOT_BUILDS: &[&str] = &[
    "test",
    "check",
    "lint",
    "clean",
    "distclean",
    "install",
    "format",
    "fmt",
    "help",
];

/// C and C++ source extensions.
const C_EXTENSIONS: &[&str] = &["c", "cc", "cpp", "cxx", "h", "hpp"];

/// Whether the project has C or C++ sources at its root or in `src/`.
fn has_c_sources(root: &Path) -> bool {
    ["", "src"].iter().any(|dir| {
        std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                Path::new(&e.file_name())
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| C_EXTENSIONS.contains(&x))
            })
    })
}

/// One target of a Makefile.
#[derive(Debug, Default, PartialEq)]
struct Target {
    name: String,
    /// A recipe line mentions run-check (calling it from a check would recurse).
    runs_run_check: bool,
    prerequisites: Vec<String>,
    recipe: Vec<String>,
}

/// The targets a Makefile defines, with their prerequisites and recipes.
fn parse_targets(text: &str) -> Vec<Target> {
    let mut targets: Vec<Target> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') {
            for &i in &current {
                targets[i].runs_run_check |= line.contains("run-check");
                targets[i].recipe.push(line.trim().to_string());
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
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        let (prerequisites, recipe) = match rest.split_once(';') {
            Some((prerequisites, recipe)) => (prerequisites, Some(recipe.trim())),
            None => (rest, None),
        };
        for name in names.split_whitespace() {
            if name.starts_with('.') || name.contains(['%', '$']) {
                continue;
            }
            let index = match targets.iter().position(|t| t.name == name) {
                Some(i) => i,
                None => {
                    targets.push(Target {
                        name: name.to_string(),
                        ..Target::default()
                    });
                    targets.len() - 1
                }
            };
            let target = &mut targets[index];
            target
                .prerequisites
                .extend(prerequisites.split_whitespace().map(str::to_string));
            if let Some(recipe) = recipe {
                target.runs_run_check |= recipe.contains("run-check");
                target.recipe.push(recipe.to_string());
            }
            current.push(index);
        }
    }
    targets
}

/// The targets as (name, runs run-check), for the tests.
#[cfg(test)]
fn make_targets(text: &str) -> Vec<(String, bool)> {
    parse_targets(text)
        .into_iter()
        .map(|t| (t.name, t.runs_run_check))
        .collect()
}

/// A Makefile's `lint`, `check` and `test` targets as `make X` checks.
pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let file = ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find(|f| is_file(root, f))?;
    let text = read(root, file)?;
    let targets = parse_targets(&text);
    let ruff = super::python::ruff_config(root);
    let context = Context {
        scripts: read(root, "package.json")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|m| {
                Some(
                    m.get("scripts")?
                        .as_object()?
                        .iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect(),
                )
            })
            .unwrap_or_default(),
        targets: targets
            .iter()
            .map(|t| (t.name.clone(), t.prerequisites.clone(), t.recipe.clone()))
            .collect(),
        ruff_fixes: ruff.fix,
        ruff_fix_only: ruff.fix_only,
    };
    let mut checks = Vec::new();
    let mut refused = Vec::new();
    let c = has_c_sources(root);
    let mut build = None;
    if c {
        // `make all` when there is one, else the default goal (the first
        // target) when it builds.
        let goal = if targets.iter().any(|t| t.name == "all") {
            Some(("all", vec!["make", "all"]))
        } else {
            targets
                .first()
                .filter(|t| !NOT_BUILDS.contains(&t.name.as_str()))
                .map(|t| (t.name.as_str(), vec!["make"]))
        };
        if let Some((name, run)) = goal {
            let target = targets.iter().find(|t| t.name == name);
            if target.is_some_and(|t| t.runs_run_check) {
                notes.push(format!(
                    "{file} target `{name}` runs run-check itself; not used (it would recurse)"
                ));
            } else if let Some(why) = writers::target_writes(name, &context) {
                notes.push(format!(
                    "{file} target `{name}` writes files ({why}); not used as a check"
                ));
            } else {
                checks.push(
                    Check::new("build", &run, FAST_STRICT)
                        .paths(globs(&[
                            "**/*.c", "**/*.h", "**/*.cc", "**/*.cpp", "**/*.cxx", "**/*.hpp", file,
                        ]))
                        .parser("gcc")
                        .comment(format!(
                            "The build (`{}`) of this C/C++ project: the compiler's errors and warnings, located by the gcc parser. What it builds must be ignored by .gitignore: the strict gate reports files the checks create.",
                            run.join(" ")
                        )),
                );
                build = Some("build");
            }
        }
    }
    for (name, modes) in [("lint", FAST_STRICT), ("check", STRICT), ("test", STRICT)] {
        match targets.iter().find(|t| t.name == name) {
            Some(t) if t.runs_run_check => notes.push(format!(
                "{file} target `{name}` runs run-check itself; not used (it would recurse)"
            )),
            Some(_) => match writers::target_writes(name, &context) {
                None => {
                    let mut check = Check::new(name, &["make", name], modes).comment(format!(
                        "The {file}'s `{name}` target, as its maintainer runs it."
                    ));
                    if c && name != "lint" {
                        check = check
                            .parser("gcc")
                            .matcher(super::cmake::ASSERT)
                            .comment(format!(
                                "The {file}'s `{name}` target, as its maintainer runs it{}: the gcc parser locates compile errors, the matcher a failed assert() (`prog: file:line: function: Assertion ... failed.`).",
                                if build.is_some() { ", after the build" } else { "" }
                            ));
                        if let Some(build) = build {
                            check = check.needs(build);
                        }
                    }
                    checks.push(check);
                }
                Some(why) => {
                    notes.push(format!(
                        "{file} target `{name}` writes files ({why}); not used as a check"
                    ));
                    refused.push(format!(
                        "Not a check: {file} target `{name}` writes files ({why}), and a check must leave the tree unchanged. Add a read-only `{name}` check by hand."
                    ));
                }
            },
            None => {}
        }
    }
    if checks.is_empty() && refused.is_empty() {
        return None;
    }
    Some(Found {
        ecosystem: "Make".into(),
        files: vec![file.to_string()],
        checks,
        fixes: Vec::new(),
        refused,
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
