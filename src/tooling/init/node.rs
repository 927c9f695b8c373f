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
use super::{Check, FAST_STRICT, Fix, Found, STRICT, argv, globs, is_file, read};

/// Script names that check formatting, read-only by their name (and checked).
const FORMAT_CHECKS: &[&str] = &[
    "format:check",
    "format-check",
    "check:format",
    "check-format",
    "fmt:check",
    "prettier:check",
];

/// Lockfiles and the package manager each names.
const LOCKFILES: &[(&str, &str)] = &[
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
];

/// The sources a lint, typecheck or format check reads (`paths`).
const SOURCES: &[&str] = &[
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
];

/// A note for each folder the project's tools write that .gitignore does
/// not ignore: `node_modules/` (the install), `coverage/` (nyc, c8, jest
/// or vitest with coverage), `.nyc_output/` (nyc), `dist/` (a `build`
/// script, or `dist/` named in package.json). The strict gate reports
/// every file a check creates that git does not ignore.
fn ignore_notes(root: &Path, manifest: &serde_json::Value, notes: &mut Vec<String>) {
    let text = manifest.to_string();
    let scripts: String = manifest["scripts"]
        .as_object()
        .map(|s| {
            s.values()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let uses = |tool: &str| {
        scripts
            .split(|c: char| c.is_whitespace() || matches!(c, '&' | ';' | '|' | '('))
            .any(|w| w == tool)
            || ["dependencies", "devDependencies"]
                .iter()
                .any(|k| manifest[k].get(tool).is_some())
    };
    let nyc = uses("nyc");
    let coverage = nyc || uses("c8") || scripts.contains("--coverage");
    let dist = manifest["scripts"].get("build").is_some() || text.contains("dist/");
    let folders = [
        ("node_modules", true, "the install"),
        ("coverage", coverage, "the coverage report"),
        (".nyc_output", nyc, "nyc's raw coverage"),
        ("dist", dist, "the build"),
    ];
    let missing: Vec<String> = folders
        .iter()
        .filter(|(dir, used, _)| *used && !super::cmake::gitignore_ignores(root, dir))
        .map(|(dir, _, what)| format!("`{dir}/` ({what})"))
        .collect();
    if !missing.is_empty() {
        notes.push(format!(
            ".gitignore does not ignore {}: add {} to .gitignore (the strict gate reports every file a check creates that git does not ignore)",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" }
        ));
    }
}

pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let text = read(root, "package.json")?;
    let manifest: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            notes.push(format!("package.json is not valid JSON ({err}); skipped"));
            return None;
        }
    };
    let lock = LOCKFILES.iter().find(|(file, _)| is_file(root, file));
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
    let mut sources = globs(SOURCES);
    sources.extend(lock.map(|(file, _)| file.to_string()));
    let ruff = super::python::ruff_config(root);
    let mut node = Node {
        manager,
        sources,
        context: Context {
            scripts: manifest["scripts"]
                .as_object()
                .map(|s| {
                    s.iter()
                        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                        .collect()
                })
                .unwrap_or_default(),
            targets: Vec::new(),
            ruff_fixes: ruff.fix,
            ruff_fix_only: ruff.fix_only,
            redirects_are_output: false,
        },
        refused: Vec::new(),
        refusal_notes: Vec::new(),
        lifecycle_notes: Vec::new(),
    };
    ignore_notes(root, &manifest, notes);
    let mut checks: Vec<Check> = [node.lint(), node.typecheck(), node.build()]
        .into_iter()
        .flatten()
        .collect();
    checks.extend(node.test(notes));
    checks.extend(node.format());
    if let Some(note) = node.build_run_by_another(&checks) {
        checks.retain(|c| c.name != "build");
        notes.push(note);
    }
    notes.append(&mut node.refusal_notes);
    notes.append(&mut node.lifecycle_notes);
    let fix = node
        .script("format")
        .map(|_| Fix::new("format", &[manager, "run", "format"]));
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
        fixes: Vec::from_iter(fix),
        refused: node.refused,
    })
}

/// What the detector knows of the project, and what it left out (for the
/// notes, in the order init reports them).
struct Node {
    /// npm, pnpm or yarn.
    manager: &'static str,
    sources: Vec<String>,
    /// The scripts, for `writers`.
    context: Context,
    refused: Vec<String>,
    refusal_notes: Vec<String>,
    lifecycle_notes: Vec<String>,
}

/// Whether command line `text` runs one of `tools` (a word of it).
fn uses(text: &str, tools: &[&str]) -> bool {
    text.split(|c: char| c.is_whitespace() || "&|;()".contains(c))
        .any(|word| tools.contains(&word))
}

/// Whether command line `text` runs the `build` script: `npm run build`,
/// `pnpm run build`, `yarn build` and the like, as one of its commands.
fn runs_build(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "&|;()".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).enumerate().any(|(i, pair)| {
        let manager = ["npm", "pnpm", "yarn"].contains(&pair[0]);
        (manager && pair[1] == "run" && words.get(i + 2) == Some(&"build"))
            || (["pnpm", "yarn"].contains(&pair[0]) && pair[1] == "build")
    })
}

/// Why a check is there, before what init changed about it.
fn purpose(check: Check, why: String) -> Check {
    let comment = match &check.comment {
        Some(more) => format!("{why}\n{more}"),
        None => why,
    };
    check.comment(comment)
}

impl Node {
    /// Script `name`, when it is not empty.
    fn script(&self, name: &str) -> Option<&str> {
        let (_, text) = self.context.scripts.iter().find(|(n, _)| n == name)?;
        Some(text.as_str()).filter(|text| !text.trim().is_empty())
    }

    fn shown(&self, name: &str) -> String {
        format!(
            "package.json `{name}` (`{}`)",
            self.script(name).unwrap_or_default().trim()
        )
    }

    /// `words` run with the package manager's way to run a package's
    /// binary, never installing.
    fn exec(&self, words: &[String]) -> Vec<String> {
        let exec: &[&str] = match self.manager {
            "pnpm" => &["pnpm", "exec"],
            "yarn" => &["yarn", "run"],
            _ => &["npm", "exec", "--no", "--"],
        };
        let mut argv = argv(exec);
        argv.extend(words.iter().cloned());
        argv
    }

    /// npm runs `preX` and `postX` around `npm run X`: a `posttest` that
    /// audits needs the network, one that publishes writes. The check runs
    /// the script alone (`--ignore-scripts` skips only those), and init
    /// says what it left out.
    fn hooks(&self, name: &str) -> Vec<String> {
        match self.manager {
            "npm" => [format!("pre{name}"), format!("post{name}")]
                .into_iter()
                .filter(|hook| self.script(hook).is_some())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Script `name` as check `check`: `manager run name` when it is
    /// read-only; its read-only form when it writes and has one; else none.
    fn adopt(&mut self, name: &str, check: &str, modes: &'static [&'static str]) -> Option<Check> {
        let text = self.script(name)?;
        let left_out = self.hooks(name);
        let writes = if left_out.is_empty() {
            writers::script_writes(name, &self.context)
        } else {
            writers::script_alone_writes(name, &self.context)
        };
        let Some(why) = writes else {
            if left_out.is_empty() {
                return Some(Check::new(check, &[self.manager, "run", name], modes));
            }
            let shown: Vec<String> = left_out
                .iter()
                .map(|hook| {
                    format!(
                        "`{hook}` (`{}`)",
                        self.script(hook).unwrap_or_default().trim()
                    )
                })
                .collect();
            self.lifecycle_notes.push(format!(
                "package.json {} not run by check `{check}`: it runs `npm run --ignore-scripts {name}`, the script alone (add a check of its own if it checks something)",
                shown.join(" and ")
            ));
            return Some(
                Check::new(check, &["npm", "run", "--ignore-scripts", name], modes).comment(format!(
                    "`--ignore-scripts`: `npm run {name}` would also run {}, which may need the network or write; the check runs the script alone.",
                    left_out.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(" and ")
                )),
            );
        };
        match writers::read_only_variant(text) {
            Some(words) => Some(
                Check {
                    run: self.exec(&words),
                    ..Check::new(check, &[], modes)
                }
                .comment(format!(
                    "package.json `{name}` writes files ({why}); a check must leave the tree unchanged, so this runs `{}` instead.",
                    words.join(" ")
                )),
            ),
            None => {
                self.refusal_notes.push(format!(
                    "package.json `{name}` writes files ({why}); not used as a check"
                ));
                self.refused.push(format!(
                    "Not a check: package.json `{name}` writes files ({why}), and a check must leave the tree unchanged. Add a read-only `{check}` check by hand."
                ));
                None
            }
        }
    }

    /// Script `name` adopted as check `check`, its comment saying `why`,
    /// and `parser` when the script runs one of `tools`.
    fn adopt_as(
        &mut self,
        (name, check): (&str, &str),
        modes: &'static [&'static str],
        why: String,
        tools: &[&str],
        parser: &'static str,
    ) -> Option<Check> {
        let parsed = uses(self.script(name)?, tools);
        let check = purpose(self.adopt(name, check, modes)?, why);
        Some(if parsed { check.parser(parser) } else { check })
    }

    fn lint(&mut self) -> Option<Check> {
        let why = format!("The project's linter: {}.", self.shown("lint"));
        let check = self.adopt_as(
            ("lint", "lint"),
            FAST_STRICT,
            why,
            &["eslint", "next"],
            "eslint",
        )?;
        Some(check.paths(self.sources.clone()))
    }

    fn typecheck(&mut self) -> Option<Check> {
        let name = ["typecheck", "type-check"]
            .into_iter()
            .find(|name| self.script(name).is_some())?;
        let why = format!("Type checking: {}.", self.shown(name));
        let check = self.adopt_as(
            (name, "typecheck"),
            FAST_STRICT,
            why,
            &["tsc", "vue-tsc"],
            "tsc",
        )?;
        Some(check.paths(self.sources.clone()))
    }

    fn build(&mut self) -> Option<Check> {
        let why = format!(
            "The build: {}; strict mode only (slower).",
            self.shown("build")
        );
        self.adopt_as(("build", "build"), STRICT, why, &["tsc", "vue-tsc"], "tsc")
    }

    /// A check that runs a script that runs the build itself (`"test":
    /// "npm run build && node test.js"`): a `build` check of its own would
    /// build twice per gate, so it is left out and the note says why. Only
    /// the script's own text counts: a `pretest` hook that builds is not
    /// run by the check (`--ignore-scripts`), so there the `build` check
    /// is the only build.
    fn build_run_by_another(&self, checks: &[Check]) -> Option<String> {
        if !checks.iter().any(|c| c.name == "build") {
            return None;
        }
        checks
            .iter()
            .filter(|c| c.name != "build")
            .filter_map(|c| {
                let name = c.run.last()?;
                let text = self.script(name)?;
                // The check runs this script by name (`npm run [--ignore-scripts]
                // NAME`), not a read-only variant of it.
                (c.run.get(1).map(String::as_str) == Some("run")).then_some(())?;
                runs_build(text).then(|| {
                    format!(
                        "package.json `{name}` (`{}`) runs the build itself; no `build` check of \
                         its own (the build would run twice per gate)",
                        text.trim()
                    )
                })
            })
            .next()
    }

    /// The `test` script, unless it is npm's placeholder or watches.
    fn test(&mut self, notes: &mut Vec<String>) -> Option<Check> {
        let text = self.script("test")?;
        // npm init's placeholder fails on purpose; it is no test suite.
        if text.contains("no test specified") {
            notes.push("package.json `test` is npm's placeholder; not used".into());
            return None;
        }
        // Asked to watch, vitest and jest never end: a check would time out.
        if uses(text, &["vitest", "jest"]) && uses(text, &["--watch", "--watchAll", "-w"]) {
            notes.push(format!(
                "package.json `test` (`{}`) watches and never ends; not used as a check",
                text.trim()
            ));
            return None;
        }
        let runner = ["vitest", "jest"]
            .into_iter()
            .find(|runner| uses(text, &[runner]));
        let why = format!(
            "The test suite: {}; strict mode only. It runs once: a check has no terminal, so {} does not watch. CI is not set: running once does not need it, and it turns vitest's colour on. Without it vitest and jest write a snapshot that is missing (the gate then reports the tree modified): commit snapshots.",
            self.shown("test"),
            runner.unwrap_or("the test runner")
        );
        let check = purpose(self.adopt("test", "test", STRICT)?, why);
        Some(match runner {
            Some(runner) => check.parser(runner),
            None => check,
        })
    }

    /// Formatting, checked: a format-check script, else the read-only form
    /// of the `format` script.
    fn format(&mut self) -> Option<Check> {
        if let Some(name) = FORMAT_CHECKS
            .iter()
            .find(|name| self.script(name).is_some())
        {
            let why = format!("Formatting: {}.", self.shown(name));
            return self.adopt_as(
                (name, "format"),
                FAST_STRICT,
                why,
                &["prettier"],
                "prettier",
            );
        }
        let text = self.script("format")?;
        writers::script_writes("format", &self.context)?;
        let words = writers::read_only_variant(text)?;
        let check = Check {
            run: self.exec(&words),
            ..Check::new("format", &[], FAST_STRICT)
        };
        let check = if words.first().is_some_and(|w| w == "prettier") {
            check.parser("prettier")
        } else {
            check
        };
        Some(check.comment(format!(
            "Formatting: the read-only form of package.json `format` (a writer, run by `run-check fix`): `{}`.",
            words.join(" ")
        )))
    }
}
