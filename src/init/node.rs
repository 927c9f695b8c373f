//! The Node detector: package.json scripts `lint`, `typecheck`, `build` and
//! `test` (and `format` as a fix), run with the package manager the lockfile
//! or the `packageManager` field names — npm, pnpm or yarn.

use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, globs, is_file, read};

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

    let mut checks = Vec::new();
    if let Some(text) = script("lint") {
        let mut check = Check {
            run: run("lint"),
            ..Check::new("lint", &[], FAST_STRICT)
        }
        .paths(sources.clone());
        if uses(text, &["eslint", "next"]) {
            check = check.parser("eslint");
        }
        checks.push(check);
    }
    for name in ["typecheck", "type-check"] {
        if let Some(text) = script(name) {
            let mut check = Check {
                run: run(name),
                ..Check::new("typecheck", &[], FAST_STRICT)
            }
            .paths(sources.clone());
            if uses(text, &["tsc", "vue-tsc"]) {
                check = check.parser("tsc");
            }
            checks.push(check);
            break;
        }
    }
    if let Some(text) = script("build") {
        let mut check = Check {
            run: run("build"),
            ..Check::new("build", &[], STRICT)
        };
        if uses(text, &["tsc", "vue-tsc"]) {
            check = check.parser("tsc");
        }
        checks.push(check);
    }
    match script("test") {
        // npm init's placeholder fails on purpose; it is no test suite.
        Some(text) if text.contains("no test specified") => {
            notes.push("package.json `test` is npm's placeholder; not used".into());
        }
        Some(_) => checks.push(
            Check {
                run: run("test"),
                ..Check::new("test", &[], STRICT)
            }
            .env("CI", "true")
            .comment("CI=true: test runners run once instead of watching."),
        ),
        None => {}
    }
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
    })
}
