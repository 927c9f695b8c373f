//! `run-check init`: writes a starter checks.toml for the project it finds in
//! the worktree — Cargo, npm / pnpm / yarn, Python (pytest, ruff, mypy, only
//! when the project declares them), Go, and a Makefile's `test` / `check` /
//! `lint` targets when nothing else is recognised — plus a `secrets` scan.
//!
//! It never overwrites: when checks.toml exists (as anything, a dangling
//! symlink included) it exits 2 and changes nothing, and the file is created
//! with a no-clobber rename of a temporary file, so a checks.toml that
//! appears meanwhile is not replaced either. The text it writes is parsed
//! with `config::parse` before it is written: init cannot write a file that
//! `run-check validate` rejects. It reads only the project's manifests and
//! runs nothing.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::exit_code;

/// `init` options.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The repository root to write checks.toml into [default: current directory]
    #[arg(long, value_name = "PATH")]
    pub worktree: Option<PathBuf>,
}

const FAST_STRICT: &[&str] = &["fast", "strict"];
const STRICT: &[&str] = &["strict"];

/// One `[[check]]` of the starter.
#[derive(Debug, Clone, PartialEq)]
struct Check {
    name: String,
    /// argv; empty for the scan.
    run: Vec<String>,
    modes: &'static [&'static str],
    paths: Vec<String>,
    parser: Option<&'static str>,
    env: Vec<(&'static str, &'static str)>,
    /// A comment line above the check.
    comment: Option<String>,
}

/// One `[[fix]]` of the starter.
#[derive(Debug, Clone, PartialEq)]
struct Fix {
    name: String,
    run: Vec<String>,
}

/// What one detector found.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    /// `Cargo`, `npm`, `Python`, ...
    ecosystem: String,
    /// The files that identified it.
    files: Vec<String>,
    checks: Vec<Check>,
    fixes: Vec<Fix>,
}

/// Everything init found in a worktree.
#[derive(Debug, Default)]
struct Detected {
    found: Vec<Found>,
    /// Lines for the user (what was seen but not used, and why).
    notes: Vec<String>,
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn globs(globs: &[&str]) -> Vec<String> {
    argv(globs)
}

impl Check {
    fn new(name: &str, run: &[&str], modes: &'static [&'static str]) -> Check {
        Check {
            name: name.into(),
            run: argv(run),
            modes,
            paths: Vec::new(),
            parser: None,
            env: Vec::new(),
            comment: None,
        }
    }

    fn paths(mut self, paths: Vec<String>) -> Check {
        self.paths = paths;
        self
    }

    fn parser(mut self, parser: &'static str) -> Check {
        self.parser = Some(parser);
        self
    }

    fn env(mut self, name: &'static str, value: &'static str) -> Check {
        self.env.push((name, value));
        self
    }

    fn comment(mut self, comment: impl Into<String>) -> Check {
        self.comment = Some(comment.into());
        self
    }
}

/// Runs `run-check init`.
pub fn run(args: &InitArgs) -> Result<i32, Error> {
    let given = args.worktree.clone().unwrap_or_else(|| PathBuf::from("."));
    let worktree = dunce::canonicalize(&given)
        .map_err(|err| Error::Usage(format!("--worktree `{}`: {err}", given.display())))?;
    if !worktree.is_dir() {
        return Err(Error::Usage(format!(
            "--worktree `{}` is not a directory",
            given.display()
        )));
    }
    let display = match &args.worktree {
        Some(dir) => dir.join("checks.toml"),
        None => PathBuf::from("checks.toml"),
    };
    let target = worktree.join("checks.toml");
    if target.symlink_metadata().is_ok() {
        return Err(exists(&display));
    }
    let detected = detect(&worktree);
    let text = render(&detected);
    // A bug here must never reach the user's repository as a broken file.
    let config = crate::config::parse(&text, &display, String::new()).map_err(|err| {
        Error::Internal(format!(
            "init produced an invalid checks.toml (a bug in run-check): {err}"
        ))
    })?;
    write_new(&target, &display, text.as_bytes())?;

    let mut out = String::new();
    for found in &detected.found {
        let names = |list: Vec<&str>| list.join(", ");
        let _ = write!(
            out,
            "detected {} ({}): checks {}",
            found.ecosystem,
            found.files.join(", "),
            names(found.checks.iter().map(|c| c.name.as_str()).collect())
        );
        if !found.fixes.is_empty() {
            let _ = write!(
                out,
                "; fixes {}",
                names(found.fixes.iter().map(|f| f.name.as_str()).collect())
            );
        }
        out.push('\n');
    }
    if detected.found.is_empty() {
        out.push_str("detected no Cargo, npm, pnpm, yarn, Python, Go or Makefile project\n");
    }
    for note in &detected.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let _ = writeln!(
        out,
        "wrote {}: {} ({} in fast mode), {}; allowed programs: {}",
        display.display(),
        plural(config.checks.len(), "check"),
        config
            .checks
            .iter()
            .filter(|c| c.modes.contains(&crate::config::Mode::Fast))
            .count(),
        plural(config.fixes.len(), "fix"),
        if config.settings.allow.is_empty() {
            "none".to_string()
        } else {
            config.settings.allow.join(", ")
        }
    );
    out.push_str("next: review it, then `run-check validate` and `run-check --mode fast`\n");
    crate::output::Output::Stdout.write(out.as_bytes())?;
    Ok(exit_code::PASS)
}

/// `1 check`, `2 checks`, `1 fix`, `0 fixes`.
fn plural(n: usize, noun: &str) -> String {
    match (n, noun.ends_with('x')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        (_, false) => format!("{n} {noun}s"),
    }
}

fn exists(display: &Path) -> Error {
    Error::Usage(format!(
        "`{}` already exists; `run-check init` never overwrites it (edit it, or move it away and run init again)",
        display.display()
    ))
}

/// Creates `target` with `bytes` atomically (a temporary sibling, renamed
/// without clobbering).
fn write_new(target: &Path, display: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".run-check-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|err| Error::io("create", display, std::io::Error::from(err.kind())))?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|err| Error::io("write", display, err))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = temp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    match temp.persist_noclobber(target) {
        Ok(_) => Ok(()),
        Err(err) if err.error.kind() == std::io::ErrorKind::AlreadyExists => Err(exists(display)),
        Err(err) => Err(Error::io("create", display, err.error)),
    }
}

// ---- detection ----

/// A detector: the project root, notes for the user, what it found.
type Detector = fn(&Path, &mut Vec<String>) -> Option<Found>;

fn detect(root: &Path) -> Detected {
    let mut detected = Detected::default();
    let detectors: [Detector; 4] = [cargo, node, python, go];
    for detector in detectors {
        if let Some(found) = detector(root, &mut detected.notes) {
            detected.found.push(found);
        }
    }
    let make = make(root, &mut detected.notes);
    if let Some(make) = make {
        if detected.found.is_empty() {
            detected.found.push(make);
        } else {
            let targets: Vec<&str> = make.checks.iter().map(|c| c.run[1].as_str()).collect();
            detected.notes.push(format!(
                "Makefile targets {} not used: the checks above run the tools directly (add `make` checks by hand if the targets check more)",
                targets.join(", ")
            ));
        }
    }
    // Two ecosystems may propose the same name (`test`): later ones are
    // prefixed with their ecosystem.
    let mut names = BTreeSet::new();
    let mut fix_names = BTreeSet::new();
    for found in &mut detected.found {
        let prefix = found.ecosystem.to_ascii_lowercase();
        for check in &mut found.checks {
            if !names.insert(check.name.clone()) {
                check.name = format!("{prefix}-{}", check.name);
                names.insert(check.name.clone());
            }
        }
        for fix in &mut found.fixes {
            if !fix_names.insert(fix.name.clone()) {
                fix.name = format!("{prefix}-{}", fix.name);
                fix_names.insert(fix.name.clone());
            }
        }
    }
    detected
}

fn is_file(root: &Path, name: &str) -> bool {
    root.join(name).is_file()
}

fn read(root: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(root.join(name)).ok()
}

/// Cargo.toml: rustfmt, clippy with warnings as errors, the tests.
fn cargo(root: &Path, _notes: &mut Vec<String>) -> Option<Found> {
    if !is_file(root, "Cargo.toml") {
        return None;
    }
    let rust = || globs(&["**/*.rs", "**/Cargo.toml", "Cargo.lock"]);
    Some(Found {
        ecosystem: "Cargo".into(),
        files: vec!["Cargo.toml".into()],
        checks: vec![
            Check::new(
                "fmt",
                &["cargo", "fmt", "--all", "--", "--check"],
                FAST_STRICT,
            )
            .paths(globs(&["**/*.rs", "rustfmt.toml", ".rustfmt.toml"]))
            .parser("none")
            .comment("Formatting, checked only: `run-check fix` formats."),
            Check::new(
                "clippy",
                &[
                    "cargo",
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
                FAST_STRICT,
            )
            .paths(rust())
            .parser("rustc")
            .env("CARGO_TERM_COLOR", "never"),
            Check::new("test", &["cargo", "test", "--workspace"], STRICT)
                .parser("rustc")
                .env("CARGO_TERM_COLOR", "never"),
        ],
        fixes: vec![Fix {
            name: "fmt".into(),
            run: argv(&["cargo", "fmt", "--all"]),
        }],
    })
}

/// package.json scripts `lint`, `typecheck`, `build`, `test`, run with the
/// package manager its lockfile names.
fn node(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
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
    for tool in ["pytest", "ruff", "mypy"] {
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

/// pytest, ruff and mypy, each only when the project declares it (a
/// dependency, or the tool's own configuration).
fn python(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
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
    if files.is_empty() {
        return None;
    }
    let sources = globs(&["**/*.py", "**/*.pyi", "pyproject.toml", "setup.cfg"]);
    let mut checks = Vec::new();
    if declared.contains("ruff") {
        let mut paths = sources.clone();
        paths.extend(globs(&["ruff.toml", ".ruff.toml"]));
        checks.push(
            Check::new(
                "ruff",
                &["ruff", "check", "--no-cache", "--output-format", "concise"],
                FAST_STRICT,
            )
            .paths(paths)
            .parser("gcc"),
        );
    }
    if declared.contains("mypy") {
        let mut paths = sources.clone();
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
        let run: &[&str] = if configured {
            &["mypy"]
        } else {
            &["mypy", "."]
        };
        checks.push(
            Check::new("mypy", run, FAST_STRICT)
                .paths(paths)
                .parser("mypy"),
        );
    }
    if declared.contains("pytest") {
        checks.push(
            Check::new("pytest", &["pytest", "-q", "-p", "no:cacheprovider"], STRICT)
                .parser("pytest")
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .comment(
                    "No .pytest_cache or __pycache__: the strict gate verifies that checks write nothing.",
                ),
        );
    }
    if checks.is_empty() {
        notes.push(format!(
            "Python project ({}) declares none of pytest, ruff, mypy; no Python checks",
            files.join(", ")
        ));
        return None;
    }
    Some(Found {
        ecosystem: "Python".into(),
        files,
        checks,
        fixes: Vec::new(),
    })
}

/// go.mod: `go vet` and `go test` over every package.
fn go(root: &Path, _notes: &mut Vec<String>) -> Option<Found> {
    if !is_file(root, "go.mod") {
        return None;
    }
    Some(Found {
        ecosystem: "Go".into(),
        files: vec!["go.mod".into()],
        checks: vec![
            Check::new("vet", &["go", "vet", "./..."], FAST_STRICT)
                .paths(globs(&["**/*.go", "go.mod", "go.sum"]))
                .parser("go"),
            Check::new("test", &["go", "test", "./..."], STRICT).parser("go"),
        ],
        fixes: vec![Fix {
            name: "fmt".into(),
            run: argv(&["go", "fmt", "./..."]),
        }],
    })
}

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
fn make(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
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

// ---- rendering ----

/// A TOML basic string.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn array<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items.iter().map(|i| quote(i.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

const HEADER: &str = "\
# checks.toml: the checks of run-check, this repository's read-only gate.
# Written by `run-check init`; edit it freely (init never overwrites it).
#
# - `run` is an argv, never a shell string. Its first word must be listed in
#   `settings.allow`, the whitelist; a shell runs only if it is listed too.
# - `modes`: `fast` is the developer loop and the pre-commit hook: a check
#   with `paths` runs only when a changed file matches one of its globs, and
#   the first failure stops the rest. `strict` is the acceptance gate: every
#   strict check runs, and the checks must leave the worktree unchanged.
# - `parser` turns a tool's output into located diagnostics in the evidence.
# - Writers (formatters, fixers) belong in [[fix]]: only `run-check fix` runs
#   them; checking never writes.
# - Check it with `run-check validate`; see what a mode runs with
#   `run-check list --mode fast`; run it with `run-check --mode fast`.
# - Editor completion: save `run-check schema checks` as checks.schema.json
#   and add the line `#:schema ./checks.schema.json` at the top of this file
#   (Taplo / Even Better TOML).
";

fn render(detected: &Detected) -> String {
    let mut programs: Vec<&str> = Vec::new();
    let all_runs = detected.found.iter().flat_map(|f| {
        f.checks
            .iter()
            .map(|c| &c.run)
            .chain(f.fixes.iter().map(|x| &x.run))
    });
    for run in all_runs {
        if let Some(program) = run.first()
            && !programs.contains(&program.as_str())
        {
            programs.push(program);
        }
    }
    let mut out = String::from(HEADER);
    out.push_str("\nversion = 1\n\n[settings]\n");
    out.push_str("jobs = 0           # checks run in parallel; 0 = logical CPUs\n");
    out.push_str("timeout = \"10m\"    # default per-check timeout (\"90s\", \"5m\", \"1h\")\n");
    let _ = writeln!(
        out,
        "allow = {}   # the whitelist: every program a check or fix runs",
        array(&programs)
    );
    for found in &detected.found {
        let _ = writeln!(
            out,
            "\n# --- {} ({}) ---",
            found.ecosystem,
            found.files.join(", ")
        );
        for check in &found.checks {
            render_check(&mut out, check);
        }
    }
    out.push_str(
        "\n# --- secrets ---\n\
         # AWS access key ids, private key blocks, GitHub tokens and `password = \"...\"`\n\
         # in every file .gitignore does not ignore (the secret itself is never\n\
         # copied into the evidence). Narrow it with `paths` if test fixtures trip it.\n\
         [[check]]\n\
         name = \"secrets\"\n\
         scan = { rules = [\"secrets\"] }\n\
         modes = [\"fast\", \"strict\"]\n\
         dimension = \"security\"\n\
         severity = \"critical\"\n",
    );
    out.push_str(
        "\n# More built-in scans, e.g. for coding-agent loops (uncomment to use):\n\
         # [[check]]\n\
         # name = \"anti-cheat\"\n\
         # scan = { paths = [\"src/**\", \"tests/**\"], rules = [\"skipped-tests\", \"placeholder-asserts\", \"debug-leftovers\"] }\n",
    );
    let fixes: Vec<&Fix> = detected.found.iter().flat_map(|f| &f.fixes).collect();
    if !fixes.is_empty() {
        out.push_str("\n# --- writers: only `run-check fix` runs them ---\n");
        for fix in fixes {
            let _ = write!(
                out,
                "\n[[fix]]\nname = {}\nrun = {}\n",
                quote(&fix.name),
                array(&fix.run)
            );
        }
    }
    out
}

fn render_check(out: &mut String, check: &Check) {
    out.push('\n');
    if let Some(comment) = &check.comment {
        let _ = writeln!(out, "# {comment}");
    }
    let _ = writeln!(out, "[[check]]\nname = {}", quote(&check.name));
    let _ = writeln!(out, "run = {}", array(&check.run));
    let _ = writeln!(out, "modes = {}", array(check.modes));
    if !check.paths.is_empty() {
        let _ = writeln!(out, "paths = {}", array(&check.paths));
    }
    if let Some(parser) = check.parser {
        let _ = writeln!(out, "parser = {}", quote(parser));
    }
    if !check.env.is_empty() {
        let pairs: Vec<String> = check
            .env
            .iter()
            .map(|(k, v)| format!("{k} = {}", quote(v)))
            .collect();
        let _ = writeln!(out, "env = {{ {} }}", pairs.join(", "));
    }
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

    #[test]
    fn quoting_escapes_toml_specials() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("\u{1}"), "\"\\u0001\"");
        assert_eq!(array(&["x", "y"]), r#"["x", "y"]"#);
    }

    #[test]
    fn an_empty_project_gets_the_secrets_scan_and_an_empty_whitelist() {
        let text = render(&Detected::default());
        let config = crate::config::parse(&text, Path::new("checks.toml"), String::new()).unwrap();
        assert_eq!(config.checks.len(), 1);
        assert_eq!(config.checks[0].name, "secrets");
        assert!(config.settings.allow.is_empty());
    }
}
