//! The Node detector: package.json scripts `lint`, `typecheck`, `build` and
//! `test` (and `format` as a fix), run with the package manager the lockfile
//! or the `packageManager` field names — npm, pnpm or yarn.
//!
//! A script that writes files (`eslint --fix`, `prettier --write`, or a
//! script it runs: `writers`) is never run as a check. When it is one simple
//! command of a known tool, the check runs the tool's read-only form through
//! the package manager instead (`npm exec --no -- eslint .`, which never
//! installs anything); otherwise it is left out, and checks.toml says why.
//! A `format` script stays the `[[fix]]` it is, and its read-only form (or
//! a `format:check`-like script) becomes the `format` check.
//!
//! Each check's comment in checks.toml says why it is there (which script,
//! what it checks). The tools' own parsers are set when the script runs the
//! tool: eslint, tsc, vitest, jest. No environment is set: `CI=true` would
//! turn vitest's colour on, and the test runners run once without it
//! (run-check gives a check no terminal: vitest watches only when stdin is
//! one, `vitest run` never; jest only with `--watch`/`--watchAll`).

use std::path::Path;

use super::writers::{self, Context};
use super::{Check, FAST_STRICT, Fix, Found, STRICT, globs, is_file, read};

/// Script names that check formatting, read-only by their name (and checked).
const FORMAT_CHECKS: &[&str] = &[
    "format:check",
    "format-check",
    "check:format",
    "check-format",
    "fmt:check",
    "prettier:check",
];

/// package.json scripts `lint`, `typecheck`, `build`, `test`, run with the
/// package manager its lockfile names.
pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let text = read(root, "package.json")?;
    let manifest: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            notes.push(format!("package.json is not valid JSON ({err}); skipped"));
            return None;
        }
    };
    let lockfiles = [
        ("pnpm-lock.yaml", "pnpm"),
        ("yarn.lock", "yarn"),
        ("package-lock.json", "npm"),
        ("npm-shrinkwrap.json", "npm"),
    ];
    let lock = lockfiles.iter().find(|(file, _)| is_file(root, file));
    let manager = match lock {
        Some((_, manager)) => *manager,
        // No lockfile: the `packageManager` field (corepack), else npm.
        None => match manifest["packageManager"].as_str() {
            Some(pm) if pm.starts_with("pnpm@") => "pnpm",
            Some(pm) if pm.starts_with("yarn@") => "yarn",
            _ => "npm",
        },
    };
    let mut files = vec!["package.json".to_string()];
    files.extend(lock.map(|(file, _)| file.to_string()));
    let scripts = manifest["scripts"].as_object();
    let script = |name: &str| -> Option<&str> {
        scripts
            .and_then(|s| s.get(name))
            .and_then(|s| s.as_str())
            .filter(|s| !s.trim().is_empty())
    };
    let mut sources = globs(&[
        "**/*.js",
        "**/*.jsx",
        "**/*.mjs",
        "**/*.cjs",
        "**/*.ts",
        "**/*.tsx",
        "**/*.mts",
        "**/*.cts",
        "**/*.vue",
        "**/*.svelte",
        "package.json",
        "**/tsconfig*.json",
        "**/.eslintrc*",
        "**/eslint.config.*",
    ]);
    sources.extend(lock.map(|(file, _)| file.to_string()));
    let run = |name: &str| vec![manager.to_string(), "run".to_string(), name.to_string()];
    let uses = |text: &str, tools: &[&str]| {
        text.split(|c: char| c.is_whitespace() || "&|;()".contains(c))
            .any(|word| tools.contains(&word))
    };

    let ruff = super::python::ruff_config(root);
    let context = Context {
        scripts: scripts
            .map(|s| {
                s.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
        targets: Vec::new(),
        ruff_fixes: ruff.fix,
        ruff_fix_only: ruff.fix_only,
    };
    // The package manager's way to run a package's binary, never installing.
    let exec: &[&str] = match manager {
        "pnpm" => &["pnpm", "exec"],
        "yarn" => &["yarn", "run"],
        _ => &["npm", "exec", "--no", "--"],
    };
    let mut refused = Vec::new();
    let mut refusal_notes = Vec::new();
    let mut lifecycle_notes = Vec::new();
    // npm runs `preX` and `postX` around `npm run X`: a `posttest` that
    // audits needs the network, one that publishes writes. The check runs
    // the script alone (`--ignore-scripts` skips only those), and init says
    // what it left out.
    let hooks = |name: &str| -> Vec<String> {
        match manager {
            "npm" => [format!("pre{name}"), format!("post{name}")]
                .into_iter()
                .filter(|hook| script(hook).is_some())
                .collect(),
            _ => Vec::new(),
        }
    };
    // Script `name` as check `check`: `manager run name` when it is
    // read-only; its read-only form when it writes and has one; else none.
    let mut adopt = |name: &str, check: &str, modes: &'static [&'static str]| -> Option<Check> {
        let text = script(name)?;
        let left_out = hooks(name);
        let writes = if left_out.is_empty() {
            writers::script_writes(name, &context)
        } else {
            writers::script_alone_writes(name, &context)
        };
        let Some(why) = writes else {
            if left_out.is_empty() {
                return Some(Check {
                    run: run(name),
                    ..Check::new(check, &[], modes)
                });
            }
            let shown: Vec<String> = left_out
                .iter()
                .map(|hook| format!("`{hook}` (`{}`)", script(hook).unwrap_or_default().trim()))
                .collect();
            lifecycle_notes.push(format!(
                "package.json {} not run by check `{check}`: it runs `npm run --ignore-scripts {name}`, the script alone (add a check of its own if it checks something)",
                shown.join(" and ")
            ));
            return Some(
                Check {
                    run: super::argv(&["npm", "run", "--ignore-scripts", name]),
                    ..Check::new(check, &[], modes)
                }
                .comment(format!(
                    "`--ignore-scripts`: `npm run {name}` would also run {}, which may need the network or write; the check runs the script alone.",
                    left_out.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(" and ")
                )),
            );
        };
        match writers::read_only_variant(text) {
            Some(words) => {
                let mut argv: Vec<String> = exec.iter().map(|w| w.to_string()).collect();
                argv.extend(words.iter().cloned());
                Some(
                    Check {
                        run: argv,
                        ..Check::new(check, &[], modes)
                    }
                    .comment(format!(
                        "package.json `{name}` writes files ({why}); a check must leave the tree unchanged, so this runs `{}` instead.",
                        words.join(" ")
                    )),
                )
            }
            None => {
                refusal_notes.push(format!(
                    "package.json `{name}` writes files ({why}); not used as a check"
                ));
                refused.push(format!(
                    "Not a check: package.json `{name}` writes files ({why}), and a check must leave the tree unchanged. Add a read-only `{check}` check by hand."
                ));
                None
            }
        }
    };

    // Why a check is there, before what init changed about it.
    let purpose = |check: Check, why: String| -> Check {
        let comment = match &check.comment {
            Some(more) => format!("{why}\n{more}"),
            None => why,
        };
        check.comment(comment)
    };
    let shown = |name: &str| {
        format!(
            "package.json `{name}` (`{}`)",
            script(name).unwrap_or_default().trim()
        )
    };

    let mut checks = Vec::new();
    if let Some(mut check) = adopt("lint", "lint", FAST_STRICT) {
        check = purpose(
            check.paths(sources.clone()),
            format!("The project's linter: {}.", shown("lint")),
        );
        if script("lint").is_some_and(|text| uses(text, &["eslint", "next"])) {
            check = check.parser("eslint");
        }
        checks.push(check);
    }
    for name in ["typecheck", "type-check"] {
        if script(name).is_some() {
            if let Some(mut check) = adopt(name, "typecheck", FAST_STRICT) {
                check = purpose(
                    check.paths(sources.clone()),
                    format!("Type checking: {}.", shown(name)),
                );
                if script(name).is_some_and(|text| uses(text, &["tsc", "vue-tsc"])) {
                    check = check.parser("tsc");
                }
                checks.push(check);
            }
            break;
        }
    }
    if let Some(mut check) = adopt("build", "build", STRICT) {
        check = purpose(
            check,
            format!("The build: {}; strict mode only (slower).", shown("build")),
        );
        if script("build").is_some_and(|text| uses(text, &["tsc", "vue-tsc"])) {
            check = check.parser("tsc");
        }
        checks.push(check);
    }
    match script("test") {
        // npm init's placeholder fails on purpose; it is no test suite.
        Some(text) if text.contains("no test specified") => {
            notes.push("package.json `test` is npm's placeholder; not used".into());
        }
        // Asked to watch, vitest and jest never end: a check would time out.
        Some(text)
            if uses(text, &["vitest", "jest"]) && uses(text, &["--watch", "--watchAll", "-w"]) =>
        {
            notes.push(format!(
                "package.json `test` (`{}`) watches and never ends; not used as a check",
                text.trim()
            ));
        }
        Some(text) => {
            if let Some(mut check) = adopt("test", "test", STRICT) {
                let runner = if uses(text, &["vitest"]) {
                    check = check.parser("vitest");
                    "vitest"
                } else if uses(text, &["jest"]) {
                    check = check.parser("jest");
                    "jest"
                } else {
                    "the test runner"
                };
                checks.push(purpose(
                    check,
                    format!(
                        "The test suite: {}; strict mode only. It runs once: a check has no terminal, so {runner} does not watch. CI is not set: running once does not need it, and it turns vitest's colour on. Without it vitest and jest write a snapshot that is missing (the gate then reports the tree modified): commit snapshots.",
                        shown("test")
                    ),
                ));
            }
        }
        None => {}
    }
    // Formatting, checked: a format-check script, else the read-only form
    // of the `format` script.
    match FORMAT_CHECKS.iter().find(|name| script(name).is_some()) {
        Some(name) => checks.extend(adopt(name, "format", FAST_STRICT).map(|check| {
            let check = purpose(check, format!("Formatting: {}.", shown(name)));
            if script(name).is_some_and(|text| uses(text, &["prettier"])) {
                check.parser("prettier")
            } else {
                check
            }
        })),
        None => {
            if let Some(text) = script("format")
                && writers::script_writes("format", &context).is_some()
                && let Some(words) = writers::read_only_variant(text)
            {
                let mut argv: Vec<String> = exec.iter().map(|w| w.to_string()).collect();
                argv.extend(words.iter().cloned());
                let mut check = Check {
                    run: argv,
                    ..Check::new("format", &[], FAST_STRICT)
                };
                if words.first().is_some_and(|w| w == "prettier") {
                    check = check.parser("prettier");
                }
                checks.push(
                    check
                    .comment(format!(
                        "Formatting: the read-only form of package.json `format` (a writer, run by `run-check fix`): `{}`.",
                        words.join(" ")
                    )),
                );
            }
        }
    }
    notes.extend(refusal_notes);
    notes.extend(lifecycle_notes);
    let fixes = match script("format") {
        Some(_) => vec![Fix {
            name: "format".into(),
            run: run("format"),
        }],
        None => Vec::new(),
    };
    if checks.is_empty() {
        notes.push(format!(
            "package.json has none of the scripts lint, typecheck, build, test; no {manager} checks"
        ));
        return None;
    }
    Some(Found {
        ecosystem: manager.into(),
        files,
        checks,
        fixes,
        refused,
    })
}
