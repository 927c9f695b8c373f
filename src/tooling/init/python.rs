//! The Python detector: pytest, ruff (lint and format), black and mypy, each
//! only when the project declares it — a dependency in pyproject.toml,
//! requirements files or a Pipfile, or the tool's own configuration
//! (setup.cfg, tox.ini, pytest.ini, ruff.toml, mypy.ini, `[tool.black]`, ...).
//! One formatter is checked: ruff's when ruff configures it, else black when
//! declared, else ruff's when ruff is declared.

use std::collections::BTreeSet;
use std::path::Path;

use super::{Check, FAST_STRICT, Fix, Found, STRICT, argv, globs, is_file, read};

/// What the project's ruff configuration sets (pyproject.toml's
/// `[tool.ruff]`, ruff.toml, .ruff.toml): `fix`, `fix-only`, and whether it
/// configures the formatter (`[format]`).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct RuffConfig {
    pub(crate) fix: bool,
    pub(crate) fix_only: bool,
    pub(crate) format: bool,
}

/// [`RuffConfig`] of the project at `root`.
pub(super) fn ruff_config(root: &Path) -> RuffConfig {
    let mut config = RuffConfig::default();
    let mut apply = |table: Option<&toml::Value>| {
        if let Some(table) = table {
            let set = |key: &str| table.get(key).and_then(toml::Value::as_bool) == Some(true);
            config.fix |= set("fix");
            config.fix_only |= set("fix-only");
            config.format |= table.get("format").is_some();
        }
    };
    if let Some(pyproject) =
        read(root, "pyproject.toml").and_then(|t| toml::from_str::<toml::Value>(&t).ok())
    {
        apply(pyproject.get("tool").and_then(|t| t.get("ruff")));
    }
    for file in ["ruff.toml", ".ruff.toml"] {
        if let Some(ruff) = read(root, file).and_then(|t| toml::from_str::<toml::Value>(&t).ok()) {
            apply(Some(&ruff));
        }
    }
    config
}

/// `Would reformat: app.py` of `ruff format --check` without `--output-format`.
const RUFF_WOULD_REFORMAT: &str = r"^(?P<message>Would reformat): (?P<file>.+)$";

/// tox's factor prefix of a command (`mypy: `, `py311-!lint,typing: `):
/// factors joined by `-` or `,`, each maybe negated, then `: `.
static TOX_FACTORS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^!?[\w.]+(?:\s*[-,]\s*!?[\w.]+)*:\s+(.*)$").expect("valid regex")
});

/// The targets of the project's own `mypy` command, when it is plain: a
/// `commands` line of tox.ini (`mypy src/pkg tests`, also behind a factor
/// prefix: `mypy: mypy src/pkg`) or a
/// `session.run("mypy", "src/pkg")` of noxfile.py, whose arguments are
/// literal paths (no substitution, option or shell syntax). With the file
/// that runs it.
fn mypy_targets(root: &Path) -> Option<(&'static str, Vec<String>)> {
    let plain = |word: &str| {
        !word.is_empty()
            && !word.starts_with('-')
            && word
                .chars()
                .all(|c| c.is_alphanumeric() || "._/-".contains(c))
    };
    let targets = |words: Vec<String>| -> Option<Vec<String>> {
        (!words.is_empty() && words.iter().all(|w| plain(w))).then_some(words)
    };
    if let Some(text) = read(root, "tox.ini") {
        for line in text.lines() {
            let line = line.trim().trim_start_matches("commands").trim_start();
            let line = line.trim_start_matches('=').trim();
            // A factor-conditional command (`mypy: mypy src/pkg`, `py3-typing,
            // lint: …`) runs in the environments those factors name: its
            // command is what follows the prefix.
            let line = TOX_FACTORS.captures(line).map_or(line, |caps| {
                caps.get(1).map_or(line, |command| command.as_str())
            });
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = match words.first() {
                Some(&"mypy") => 1,
                Some(&"python") | Some(&"python3")
                    if words.get(1) == Some(&"-m") && words.get(2) == Some(&"mypy") =>
                {
                    3
                }
                _ => continue,
            };
            if let Some(found) = targets(words[at..].iter().map(|w| w.to_string()).collect()) {
                return Some(("tox.ini", found));
            }
        }
    }
    if let Some(text) = read(root, "noxfile.py") {
        for line in text.lines() {
            let Some(call) = line.trim().strip_prefix("session.run(") else {
                continue;
            };
            let Some(args) = call.strip_suffix(')') else {
                continue;
            };
            let words: Vec<String> = args
                .split(',')
                .map(|a| a.trim().trim_matches(['"', '\'']).to_string())
                .filter(|a| !a.is_empty())
                .collect();
            if words.first().map(String::as_str) == Some("mypy")
                && args.split(',').all(|a| {
                    let a = a.trim();
                    a.is_empty() || (a.len() >= 2 && (a.starts_with('"') || a.starts_with('\'')))
                })
                && let Some(found) = targets(words[1..].to_vec())
            {
                return Some(("noxfile.py", found));
            }
        }
    }
    None
}

/// The name of a requirement (`pytest>=7`, `Ruff[extra]; python_version...`):
/// lower case, `_` and `.` as `-` (PEP 503).
fn requirement_name(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
        .unwrap_or(spec.len());
    let name = &spec[..end];
    (!name.is_empty()).then(|| name.to_ascii_lowercase().replace(['_', '.'], "-"))
}

/// Requirement strings anywhere below `value` (arrays of strings, tables of them).
fn requirement_strings(value: &toml::Value, out: &mut BTreeSet<String>) {
    match value {
        toml::Value::String(spec) => out.extend(requirement_name(spec)),
        toml::Value::Array(items) => items.iter().for_each(|v| requirement_strings(v, out)),
        toml::Value::Table(table) => table.values().for_each(|v| requirement_strings(v, out)),
        _ => {}
    }
}

/// The packages and tool tables a pyproject.toml declares.
fn pyproject_declares(pyproject: &toml::Value, declared: &mut BTreeSet<String>) {
    let at = |path: &[&str]| -> Option<&toml::Value> {
        path.iter().try_fold(pyproject, |value, key| value.get(key))
    };
    // PEP 621 and PEP 735 lists, uv's and pdm's dev lists, hatch environments.
    for path in [
        &["project", "dependencies"][..],
        &["project", "optional-dependencies"],
        &["dependency-groups"],
        &["tool", "uv", "dev-dependencies"],
        &["tool", "pdm", "dev-dependencies"],
    ] {
        if let Some(value) = at(path) {
            requirement_strings(value, declared);
        }
    }
    if let Some(toml::Value::Table(envs)) = at(&["tool", "hatch", "envs"]) {
        for env in envs.values() {
            for key in ["dependencies", "extra-dependencies"] {
                if let Some(value) = env.get(key) {
                    requirement_strings(value, declared);
                }
            }
        }
    }
    // Poetry names packages by key.
    let mut keys = |value: Option<&toml::Value>| {
        if let Some(toml::Value::Table(table)) = value {
            declared.extend(table.keys().filter_map(|k| requirement_name(k)));
        }
    };
    keys(at(&["tool", "poetry", "dependencies"]));
    keys(at(&["tool", "poetry", "dev-dependencies"]));
    if let Some(toml::Value::Table(groups)) = at(&["tool", "poetry", "group"]) {
        for group in groups.values() {
            keys(group.get("dependencies"));
        }
    }
    // A tool's own configuration table declares it too.
    for tool in ["pytest", "ruff", "mypy", "black"] {
        if at(&["tool", tool]).is_some() {
            declared.insert(tool.to_string());
        }
    }
}

/// Requirement lines of a requirements file (`-r`, `-e`, options and comments skipped).
fn requirements_declare(text: &str, declared: &mut BTreeSet<String>) {
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or("").trim();
        if line.starts_with(['#', '-']) {
            continue;
        }
        declared.extend(requirement_name(line));
    }
}

/// INI section headers of a file (`[tool:pytest]` → `tool:pytest`).
fn ini_sections(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix('[')?.strip_suffix(']'))
        .map(|s| s.trim().to_ascii_lowercase())
        .collect()
}

/// The files that make a Python project and the tools they declare (a
/// dependency, or the tool's own configuration).
fn declared(root: &Path, notes: &mut Vec<String>) -> (Vec<String>, BTreeSet<String>) {
    let mut files = Vec::new();
    let mut declared = BTreeSet::new();
    if let Some(text) = read(root, "pyproject.toml") {
        files.push("pyproject.toml".to_string());
        match toml::from_str::<toml::Value>(&text) {
            Ok(pyproject) => pyproject_declares(&pyproject, &mut declared),
            Err(err) => notes.push(format!(
                "pyproject.toml is not valid TOML ({}); its dependencies were not read",
                err.message()
            )),
        }
    }
    let mut requirement_files: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.contains("requirements") && n.ends_with(".txt"))
        .collect();
    requirement_files.extend(
        std::fs::read_dir(root.join("requirements"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".txt"))
            .map(|n| format!("requirements/{n}")),
    );
    requirement_files.sort();
    for file in requirement_files {
        if let Some(text) = read(root, &file) {
            requirements_declare(&text, &mut declared);
            files.push(file);
        }
    }
    if let Some(text) = read(root, "Pipfile") {
        files.push("Pipfile".into());
        if let Ok(pipfile) = toml::from_str::<toml::Value>(&text) {
            for section in ["packages", "dev-packages"] {
                if let Some(toml::Value::Table(table)) = pipfile.get(section) {
                    declared.extend(table.keys().filter_map(|k| requirement_name(k)));
                }
            }
        }
    }
    for (file, sections) in [
        (
            "setup.cfg",
            &[("tool:pytest", "pytest"), ("mypy", "mypy")][..],
        ),
        ("tox.ini", &[("pytest", "pytest")]),
    ] {
        if let Some(text) = read(root, file) {
            files.push(file.to_string());
            let found = ini_sections(&text);
            for (section, tool) in sections {
                if found.iter().any(|s| s == section) {
                    declared.insert(tool.to_string());
                }
            }
        }
    }
    if is_file(root, "setup.py") {
        files.push("setup.py".into());
    }
    let configs = [
        ("pytest.ini", "pytest"),
        ("conftest.py", "pytest"),
        ("ruff.toml", "ruff"),
        (".ruff.toml", "ruff"),
        ("mypy.ini", "mypy"),
        (".mypy.ini", "mypy"),
    ];
    for (file, tool) in configs {
        if is_file(root, file) {
            files.push(file.to_string());
            declared.insert(tool.to_string());
        }
    }
    (files, declared)
}

/// The mypy check: the files mypy's configuration names, else the targets
/// of the project's own `mypy` command, else the tree.
fn mypy_check(root: &Path, sources: &[String]) -> Check {
    let mut paths = sources.to_vec();
    paths.extend(globs(&["mypy.ini", ".mypy.ini"]));
    // `files` in mypy's configuration names the targets; else the tree.
    let configured = read(root, "pyproject.toml")
        .and_then(|t| toml::from_str::<toml::Value>(&t).ok())
        .is_some_and(|p| {
            p.get("tool")
                .and_then(|t| t.get("mypy"))
                .and_then(|m| m.get("files"))
                .is_some()
        })
        || ["mypy.ini", ".mypy.ini", "setup.cfg"].iter().any(|f| {
            read(root, f).is_some_and(|t| {
                t.lines()
                    .any(|l| l.trim_start().starts_with("files") && l.contains('='))
            })
        });
    // Else the targets of the project's own plain `mypy` command in
    // tox.ini or noxfile.py: a project that type-checks only `src/pkg`
    // gives thousands of errors on `mypy .`.
    let commanded = if configured { None } else { mypy_targets(root) };
    let mut run = argv(&["mypy", "--cache-dir", "/dev/null"]);
    let target = match (&commanded, configured) {
        (_, true) => "the files mypy's configuration names".to_string(),
        (Some((file, targets)), false) => {
            run.extend(targets.iter().cloned());
            format!("{} (as {file} runs it)", targets.join(" "))
        }
        (None, false) => {
            run.push(".".into());
            "the whole tree (mypy's configuration names no `files`, and no tox.ini or noxfile.py runs mypy on named targets)".to_string()
        }
    };
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    Check::new("mypy", &run, FAST_STRICT)
        .paths(paths)
        .parser("mypy")
        .comment(format!(
            "Type checking of {target}, as the project configures mypy. --cache-dir /dev/null: mypy writes no .mypy_cache into the tree (on Windows write `nul`)."
        ))
}

/// The pytest check, and a note when the tests import a src/ package
/// nothing puts on their path.
fn pytest_check(root: &Path, notes: &mut Vec<String>) -> Check {
    // A src layout is importable by the tests only once installed
    // (`pip install -e .`) or put on pytest's `pythonpath`: init runs
    // nothing, so it says so instead of finding out.
    let src_packages: Vec<String> = std::fs::read_dir(root.join("src"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("__init__.py").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let on_path = ["pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"]
        .iter()
        .any(|f| read(root, f).is_some_and(|t| t.contains("pythonpath")));
    if let (Some(package), false) = (src_packages.first(), on_path) {
        notes.push(format!(
            "pytest imports `{package}` from src/: unless it is installed in the environment the gate runs in, the tests fail on `import {package}`; install it (`pip install -e .`) or add `pythonpath = [\"src\"]` to [tool.pytest.ini_options]"
        ));
    }
    Check::new("pytest", &["pytest", "-q", "-p", "no:cacheprovider"], STRICT)
        .parser("pytest")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .comment(
            "The test suite; the pytest parser locates each failure at its test's file and line. No .pytest_cache or __pycache__: the strict gate verifies that checks write nothing.",
        )
}

/// The black check: formatting checked only (`run-check fix` formats),
/// with `--diff` so that each change is located.
fn black_check(sources: &[String]) -> Check {
    Check::new("black", &["black", "--check", "--diff", "."], FAST_STRICT)
        .paths(sources.to_vec())
        .parser("diff")
        .comment(
            "Formatting as black would (the project declares black), checked only: `run-check fix` formats. --diff: black prints each change as a unified diff, which the diff parser locates (the file and the line of each hunk's first change, the changed lines in the message); `black --check` alone names only the file.",
        )
}

pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let (files, declared) = declared(root, notes);
    if files.is_empty() {
        return None;
    }
    let sources = globs(&["**/*.py", "**/*.pyi", "pyproject.toml", "setup.cfg"]);
    let mut checks = Vec::new();
    let mut fixes = Vec::new();
    if declared.contains("ruff") {
        let mut paths = sources.clone();
        paths.extend(globs(&["ruff.toml", ".ruff.toml"]));
        let config = ruff_config(root);
        let why = match (config.fix, config.fix_only) {
            (_, true) => "this project's ruff configuration sets `fix-only = true`",
            (true, _) => "this project's ruff configuration sets `fix = true`",
            _ => "a ruff configuration may set `fix = true`",
        };
        checks.push(
            Check::new(
                "ruff",
                &[
                    "ruff",
                    "check",
                    "--no-fix",
                    "--no-fix-only",
                    "--no-cache",
                    "--output-format",
                    "concise",
                ],
                FAST_STRICT,
            )
            .paths(paths.clone())
            .parser("gcc")
            .comment(format!(
                "ruff's lint rules (the project's configuration honoured), each finding as `file:line:col: CODE message` for the gcc parser.\n--no-fix --no-fix-only: {why}, and a check never writes (`run-check fix` runs `ruff check --fix`). --no-cache: no .ruff_cache in the tree."
            )),
        );
        fixes.push(Fix::new("ruff", &["ruff", "check", "--fix"]));
        // The formatter: ruff's when configured, or when black is not there.
        if config.format || !declared.contains("black") {
            let why = if config.format {
                "the ruff configuration has a [format] table"
            } else {
                "ruff is declared and black is not; delete this check if the project does not format with ruff"
            };
            checks.push(
                Check::new(
                    "ruff-format",
                    &["ruff", "format", "--check", "--no-cache"],
                    FAST_STRICT,
                )
                .paths(paths)
                .parser("gcc")
                .env("RUFF_OUTPUT_FORMAT", "concise")
                .matcher(RUFF_WOULD_REFORMAT)
                .comment(format!(
                    "Formatting as `ruff format` would, checked only (`run-check fix` formats): {why}. RUFF_OUTPUT_FORMAT=concise: a recent ruff names each file at its first change (`file:line:col: unformatted: ...`); an older one prints `Would reformat: file`, which the matcher reads."
                )),
            );
            fixes.push(Fix::new("ruff-format", &["ruff", "format"]));
        }
    }
    if declared.contains("black") && !(declared.contains("ruff") && ruff_config(root).format) {
        checks.push(black_check(&sources));
        fixes.push(Fix::new("black", &["black", "."]));
    }
    if declared.contains("mypy") {
        checks.push(mypy_check(root, &sources));
    }
    if declared.contains("pytest") {
        checks.push(pytest_check(root, notes));
    }
    if checks.is_empty() {
        notes.push(format!(
            "Python project ({}) declares none of pytest, ruff, black, mypy; no Python checks",
            files.join(", ")
        ));
        return None;
    }
    Some(Found {
        ecosystem: "Python".into(),
        files,
        checks,
        fixes,
        refused: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_names_are_normalised() {
        for (spec, name) in [
            ("pytest>=7", Some("pytest")),
            ("Ruff[all] ; python_version > '3.8'", Some("ruff")),
            ("mypy_extensions==1", Some("mypy-extensions")),
            ("zope.interface", Some("zope-interface")),
            ("  ", None),
            ("==1", None),
        ] {
            assert_eq!(requirement_name(spec).as_deref(), name, "{spec}");
        }
    }

    #[test]
    fn requirements_files_skip_options_and_comments() {
        let mut declared = BTreeSet::new();
        requirements_declare(
            "# tools\n-r base.txt\n-e .\npytest==8.0  # tests\nruff\n--index-url x\n",
            &mut declared,
        );
        assert_eq!(declared, BTreeSet::from(["pytest".into(), "ruff".into()]));
    }

    #[test]
    fn pyproject_dependencies_everywhere_count() {
        let pyproject: toml::Value = toml::from_str(
            r#"
[project]
dependencies = ["requests"]
[project.optional-dependencies]
test = ["pytest>=8"]
[dependency-groups]
lint = ["ruff", { include-group = "test" }]
[tool.poetry.group.dev.dependencies]
mypy = "^1"
"#,
        )
        .unwrap();
        let mut declared = BTreeSet::new();
        pyproject_declares(&pyproject, &mut declared);
        for tool in ["requests", "pytest", "ruff", "mypy"] {
            assert!(declared.contains(tool), "{tool}: {declared:?}");
        }
        // A pytest plugin is not pytest.
        let mut declared = BTreeSet::new();
        pyproject_declares(
            &toml::from_str("[project]\ndependencies = [\"pytest-cov\"]\n").unwrap(),
            &mut declared,
        );
        assert!(!declared.contains("pytest"));
        // A tool's configuration table declares it.
        let mut declared = BTreeSet::new();
        pyproject_declares(
            &toml::from_str("[tool.pytest.ini_options]\naddopts = \"-q\"\n").unwrap(),
            &mut declared,
        );
        assert!(declared.contains("pytest"));
    }
}
