//! The Makefile fallback: a Makefile's `lint`, `check` and `test` targets as
//! `make X` checks, used only when no other ecosystem is recognised, and never
//! a target whose recipe runs run-check itself, nor one that writes files
//! (its recipes or its prerequisites' run a fixer or formatter: `writers`).
//! A recipe's output redirection (`./t > out.txt && cmp out.txt exp.txt`)
//! is build output, as the compiler's `-o` is: the target is a check, and
//! each such file .gitignore does not ignore gets a note.
//! A C or C++ project (sources at the root or in `src/`) also gets its build
//! (`make all`, or the default goal) with the gcc parser, and its `check` and
//! `test` run after it, with the gcc parser and a matcher for failed
//! `assert()`s.
//!
//! Two checks never run the same target at once: what each target reaches
//! (its prerequisites and the `make X` of its recipes, transitively) is
//! read from the Makefile, a target whose every recipe another candidate
//! already reaches is no check of its own (`check: test` makes `make test`
//! a second run of the suite), and two checks that reach a common target
//! with a recipe run one after the other (`needs`). Two `make` processes
//! running one recipe at once write the same files: a test suite comparing
//! its output file then fails one run in a few.

use std::collections::BTreeSet;
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

/// Whether the project has C or C++ sources at its root or in a folder
/// at its root (`src/`, `lib/`, `source/`, `tests/`, ...; not a hidden
/// one, nor `node_modules/`, `vendor/` or `third_party/`, someone else's).
fn has_c_sources(root: &Path) -> bool {
    let entries = |dir: &Path| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .collect::<Vec<_>>()
    };
    let is_c = |e: &std::fs::DirEntry| {
        Path::new(&e.file_name())
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| C_EXTENSIONS.contains(&x))
    };
    let top = entries(root);
    top.iter().any(is_c)
        || top.iter().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            e.file_type().is_ok_and(|t| t.is_dir())
                && !name.starts_with('.')
                && !matches!(name.as_str(), "node_modules" | "vendor" | "third_party")
                && entries(&e.path()).iter().any(is_c)
        })
}

/// A note when .gitignore ignores no object file: the build's output
/// would be reported as written by the check.
fn build_note(root: &Path, run: &[&str], notes: &mut Vec<String>) {
    if !super::cmake::gitignore_covers(root, "build.o") {
        notes.push(format!(
            "the build (`{}`) writes objects and programs into the tree, and .gitignore ignores no `*.o`: add what it writes (`*.o`, `*.a`, `*.so`, the programs) to .gitignore (the strict gate reports every file a check creates that git does not ignore)",
            run.join(" ")
        ));
    }
}

/// A note naming the files target `name`'s recipes write through a
/// redirection that .gitignore does not ignore ([`unignored_outputs`]).
fn outputs_note(root: &Path, file: &str, name: &str, targets: &[Target], notes: &mut Vec<String>) {
    let outputs = unignored_outputs(root, name, targets);
    if outputs.is_empty() {
        return;
    }
    let quoted: Vec<String> = outputs.iter().map(|f| format!("`{f}`")).collect();
    notes.push(format!(
        "{file} target `{name}` writes {}, which .gitignore does not ignore: add {} to .gitignore (the strict gate reports every file a check creates that git does not ignore)",
        quoted.join(", "),
        if outputs.len() == 1 { "it" } else { "them" }
    ));
}

/// The files the recipes a check of target `name` runs write through a
/// redirection (`./t > out.txt`, `| tee log`) that .gitignore does not
/// ignore: the strict gate would report them as written by the check.
fn unignored_outputs(root: &Path, name: &str, targets: &[Target]) -> Vec<String> {
    let mut files = BTreeSet::new();
    for target in with_recipes(name, targets) {
        let recipe = targets
            .iter()
            .filter(|t| t.name == target)
            .flat_map(|t| &t.recipe);
        for line in recipe {
            if let Some((_, file)) = writers::redirected(line) {
                files.insert(file);
            }
        }
    }
    files
        .into_iter()
        .filter(|f| !super::cmake::gitignore_covers(root, f))
        .collect()
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

/// The targets `name` reaches: itself, its prerequisites and the targets
/// of the `make X` lines of its recipes, transitively.
fn reach(name: &str, targets: &[Target]) -> BTreeSet<String> {
    let mut reached = BTreeSet::new();
    let mut pending = vec![name.to_string()];
    while let Some(name) = pending.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        let Some(target) = targets.iter().find(|t| t.name == name) else {
            continue;
        };
        pending.extend(target.prerequisites.iter().cloned());
        for line in &target.recipe {
            pending.extend(made(line));
        }
    }
    reached
}

/// The targets a recipe line asks a sub-make for (`$(MAKE) test`,
/// `make -C . check`: the words after `make` up to the next command).
fn made(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i].trim_start_matches(['@', '-', '+']);
        if matches!(word, "make" | "gmake" | "$(MAKE)" | "${MAKE}") {
            i += 1;
            while i < words.len() && !matches!(words[i], "&&" | "||" | ";" | "|") {
                let arg = words[i];
                // `-C dir` and `-f file` take a value.
                if matches!(arg, "-C" | "-f" | "-I" | "-o" | "-W") {
                    i += 1;
                } else if !arg.starts_with('-') && !arg.contains('=') {
                    found.push(arg.trim_end_matches(';').to_string());
                }
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    found
}

/// Of what `name` reaches, the targets with a recipe: what running it
/// runs (a prerequisite without a rule is a source file, only read).
fn with_recipes(name: &str, targets: &[Target]) -> BTreeSet<String> {
    reach(name, targets)
        .into_iter()
        .filter(|n| targets.iter().any(|t| t.name == *n && !t.recipe.is_empty()))
        .collect()
}

/// The candidates (make targets, in order of preference, each with the
/// modes its check would run in) that are no check of their own because
/// another candidate runs all they run, in every mode they would run in:
/// each with the one that does. A `lint` in fast mode stays beside a strict
/// `check` that runs it (the two are then chained, see `overlap`).
fn subsumed(candidates: &[(&str, &[&str])], targets: &[Target]) -> Vec<(String, String)> {
    let reaches: Vec<BTreeSet<String>> =
        candidates.iter().map(|(c, _)| reach(c, targets)).collect();
    let runs: Vec<BTreeSet<String>> = candidates
        .iter()
        .map(|(c, _)| with_recipes(c, targets))
        .collect();
    // `x` runs all that `y` runs, whenever `y` would run.
    let covers = |x: usize, y: usize| {
        runs[y].iter().all(|t| reaches[x].contains(t))
            && candidates[y].1.iter().all(|m| candidates[x].1.contains(m))
    };
    let mut dropped = Vec::new();
    for y in 0..candidates.len() {
        let by =
            (0..candidates.len()).find(|&x| x != y && covers(x, y) && (!covers(y, x) || x < y));
        if let Some(x) = by {
            dropped.push((candidates[y].0.to_string(), candidates[x].0.to_string()));
        }
    }
    dropped
}

/// Whether running `a` and `b` at once would run a common recipe.
fn overlap(a: &str, b: &str, targets: &[Target]) -> bool {
    let b = with_recipes(b, targets);
    with_recipes(a, targets).iter().any(|t| b.contains(t))
}

/// What `writers` needs to know of the project: package.json's scripts
/// (a target may run one), the Makefile's targets and ruff's fix settings.
fn context(root: &Path, targets: &[Target]) -> Context {
    let ruff = super::python::ruff_config(root);
    Context {
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
        redirects_are_output: true,
    }
}

/// The build of a C/C++ project (`make all` when there is one, else the
/// default goal when it builds), unless it recurses or writes.
fn build_goal<'a>(
    file: &str,
    targets: &'a [Target],
    context: &Context,
    notes: &mut Vec<String>,
) -> Option<(&'a str, Vec<&'a str>)> {
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
    let Some((name, run)) = goal else {
        // Said, not only left out: without a build check fast mode compiles
        // nothing, and a commit that breaks the build passes the hook.
        let first = targets
            .first()
            .map_or_else(|| "none".to_string(), |t| format!("`{}`", t.name));
        notes.push(format!(
            "{file} has no `all` target and its default goal ({first}) is no build: no build check, so fast mode compiles nothing; add a check that runs the target that builds the code"
        ));
        return None;
    };
    let target = targets.iter().find(|t| t.name == name);
    if target.is_some_and(|t| t.runs_run_check) {
        notes.push(format!(
            "{file} target `{name}` runs run-check itself; not used (it would recurse)"
        ));
    } else if let Some(why) = writers::target_writes(name, context) {
        notes.push(format!(
            "{file} target `{name}` writes files ({why}); not used as a check"
        ));
    } else {
        return Some((name, run));
    }
    None
}

/// The build's check: the gcc parser, and the assert() matcher when the
/// build runs the tests too (`build_tests`).
fn build_check(file: &str, name: &str, run: &[&str], build_tests: bool) -> Check {
    let mut check = Check::new("build", run, FAST_STRICT)
        .paths(globs(&[
            "**/*.c", "**/*.h", "**/*.cc", "**/*.cpp", "**/*.cxx", "**/*.hpp", file,
        ]))
        .parser("gcc")
        .comment(format!(
            "The build (`{}`) of this C/C++ project: the compiler's errors and warnings, located by the gcc parser. What it builds must be ignored by .gitignore: the strict gate reports files the checks create.",
            run.join(" ")
        ));
    if build_tests {
        check = check.matcher(super::cmake::ASSERT).comment(format!(
            "The build (`{}`) of this C/C++ project, which also runs its tests (`{name}` reaches them): the gcc parser locates the compiler's errors and warnings, the matcher a failed assert(). What it builds must be ignored by .gitignore: the strict gate reports files the checks create.",
            run.join(" ")
        ));
    }
    check
}

/// Targets `lint`, `check` and `test` as candidates, unless they recurse
/// or write; returns the refusals of those that write.
fn targets_as_checks<'a>(
    file: &str,
    targets: &[Target],
    context: &Context,
    candidates: &mut Vec<(&'a str, Vec<&'a str>)>,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut refused = Vec::new();
    for name in ["lint", "check", "test"] {
        match targets.iter().find(|t| t.name == name) {
            Some(t) if t.runs_run_check => notes.push(format!(
                "{file} target `{name}` runs run-check itself; not used (it would recurse)"
            )),
            Some(_) => match writers::target_writes(name, context) {
                None => candidates.push((name, vec!["make", name])),
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
    refused
}

pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let file = ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find(|f| is_file(root, f))?;
    let text = read(root, file)?;
    let targets = parse_targets(&text);
    let context = context(root, &targets);
    let c = has_c_sources(root);
    // The candidates, in order of preference: the build (C/C++ only), then
    // `lint`, `check`, `test`; those that recurse or write are left out.
    let mut candidates: Vec<(&str, Vec<&str>)> = Vec::new();
    if c {
        candidates.extend(build_goal(file, &targets, &context, notes));
    }
    let build_goal = candidates.first().map(|(name, _)| *name);
    if let Some((_, run)) = candidates.first().filter(|_| build_goal.is_some()) {
        build_note(root, run, notes);
    }
    let refused = targets_as_checks(file, &targets, &context, &mut candidates, notes);
    let modes = |name: &str| match name {
        "check" | "test" => STRICT,
        _ => FAST_STRICT,
    };
    let named: Vec<(&str, &[&str])> = candidates.iter().map(|(n, _)| (*n, modes(n))).collect();
    let dropped = subsumed(&named, &targets);
    let by_of = |name: &str| {
        dropped
            .iter()
            .find(|(y, _)| y == name)
            .map(|(_, x)| x.as_str())
    };
    for (y, x) in &dropped {
        let runs = candidates
            .iter()
            .find(|(name, _)| name == x)
            .map_or_else(|| format!("make {x}"), |(_, run)| run.join(" "));
        notes.push(format!(
            "{file} target `{y}` is no check of its own: `{runs}` already runs what it runs (two checks running one recipe at once would write the same files)"
        ));
    }
    // The build runs the tests too when it covers `check` or `test`.
    let build_tests = build_goal.is_some_and(|goal| {
        dropped
            .iter()
            .any(|(y, x)| x == goal && matches!(y.as_str(), "check" | "test"))
    });
    let kept: Vec<&(&str, Vec<&str>)> = candidates
        .iter()
        .filter(|(name, _)| by_of(name).is_none())
        .collect();
    let mut checks: Vec<Check> = Vec::new();
    for (i, (name, run)) in kept.iter().enumerate() {
        let name = *name;
        let is_build = Some(name) == build_goal;
        let mut check = if is_build {
            build_check(file, name, run, build_tests)
        } else {
            let mut check = Check::new(name, run, modes(name)).comment(format!(
                "The {file}'s `{name}` target, as its maintainer runs it."
            ));
            if c && name != "lint" {
                check = check
                    .parser("gcc")
                    .matcher(super::cmake::ASSERT)
                    .comment(format!(
                        "The {file}'s `{name}` target, as its maintainer runs it{}: the gcc parser locates compile errors, the matcher a failed assert() (`prog: file:line: function: Assertion ... failed.`).",
                        if build_goal.is_some() { ", after the build" } else { "" }
                    ));
                if build_goal.is_some() {
                    check = check.needs("build");
                }
            }
            check
        };
        // A common recipe: one after the other.
        for (earlier, _) in &kept[..i] {
            let need = if Some(*earlier) == build_goal {
                "build"
            } else {
                earlier
            };
            if overlap(earlier, name, &targets) && !check.needs.iter().any(|n| n == need) {
                check = check.needs(need);
            }
        }
        outputs_note(root, file, name, &targets, notes);
        checks.push(check);
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
