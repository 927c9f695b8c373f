//! `contracts.gate` (docs/evidence.md, docs/task.md): whether the gate's own
//! definition changed against the base revision, so a candidate that weakens
//! its own gate (deletes a check from `checks.toml`, edits
//! `./scripts/lint.sh` to `exit 0`, commits a regenerated baseline) cannot
//! pass silently.
//!
//! The gate's files, each inside the worktree:
//!
//! - the config file, when it lies inside (a `--config` kept outside is
//!   not one: the worktree's code cannot edit it, but what it runs from the
//!   worktree still is);
//! - every `run[0]` of a check written with a path (`./scripts/lint.sh`,
//!   `tools/x`), as written and, when it is a symlink, what it resolves to;
//!   a bare name that `PATH` resolves to a file inside the worktree too;
//! - with a config outside the worktree (a trusted `--config`): every
//!   argument of a check that names a path inside the worktree, relative
//!   to the check's `cwd` (`["sh", "scripts/lint.sh"]`, `["make", "-f",
//!   "ci.mk"]`), and the value of an `--option=VALUE` argument
//!   (`--config=eslint.config.js`): the orchestrator trusts that config to
//!   say what the gate is, and a program runs what its arguments name;
//! - with a config inside the worktree (itself a gate file): the script an
//!   interpreter runs (`["sh", "scripts/lint.sh"]`, `["python3", "-W",
//!   "error", "ci/check.py"]`): for a `run[0]` named like a script
//!   interpreter ([`INTERPRETERS`]), its first argument that is not an
//!   option, relative to the check's `cwd`; none when an option runs inline
//!   code or a module (`-c`, `-e`, `-m`, ...). Not every argument: a file
//!   a check only reads (`ruff check app.py`) is the code under test, and
//!   a change to it would read as a changed gate in every round;
//! - the `--baseline` evidence when it lies inside (it decides which
//!   failures pass: docs/baseline.md);
//! - every file that `[gate] files` declares (globs, in any config): what
//!   the checks depend on but no argument names (a rule file a script
//!   imports). A glob has no list of files to compare, so it is matched
//!   against the changed files themselves: a new, edited or deleted file
//!   under it counts alike.
//!
//! An argument is a candidate path whatever it is (`-q`, `HEAD`, inline
//! code): only the paths that are also among the changed files are
//! reported, and a changed file is a file git lists (new, edited, deleted),
//! so a word that names no file never shows, and a file deleted since the
//! base that an argument still names does. No existence test is needed,
//! so the rule costs one `realpath` per distinct directory the arguments
//! name.
//!
//! Every check of the config counts, not only those of this run's mode: the
//! definition of the gate is the whole file. Not followed (documented in
//! docs/evidence.md): what a script sources or runs, tool configuration a
//! program finds by itself (`Makefile`, `package.json` scripts,
//! `pyproject.toml`) unless an argument names it, `env` values, programs
//! found on `PATH` outside the worktree. Built-in scan rules live in
//! run-check and custom ones in the config, so a scan check has no file of
//! its own.
//!
//! "Changed" is what the change budget and fast mode mean by it: differs
//! between the base revision and the worktree, committed, staged, unstaged
//! or untracked (not ignored). A file git ignores has no version to
//! compare with and is never listed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use run_check_documents::evidence::Gate;

use crate::config::{CheckKind, Config};
use crate::run::plan::Plan;

/// Programs that run a script named by an argument (compared without a
/// trailing version, `.exe` and case: `python3.12` is `python`).
pub(crate) const INTERPRETERS: [&str; 17] = [
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "python",
    "pypy",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "pwsh",
    "powershell",
    "rscript",
];

/// Options of an interpreter after which no script file follows: inline code
/// (`sh -c`, `node -e`, `perl -E`, `pwsh -Command`), a module (`python -m`)
/// or input on stdin (`-`). Compared in lower case.
const INLINE: [&str; 9] = [
    "-c",
    "-e",
    "-m",
    "-",
    "-p",
    "--eval",
    "--print",
    "-command",
    "-encodedcommand",
];

/// The gate's files, worktree-relative with `/` separators, sorted: the
/// config at `config_file` when it lies inside `worktree` (canonical), the
/// programs its checks run and the paths their arguments name inside the
/// worktree, and the `--baseline` evidence when it is inside. `plan` adds
/// the programs it resolved (a bare name on `PATH` inside the worktree).
pub(crate) fn files(
    config: &Config,
    config_file: &Path,
    worktree: &Path,
    plan: &Plan<'_>,
    baseline: Option<&Path>,
) -> Vec<String> {
    let mut inside = Inside::new(worktree);
    let config_inside = inside.of(config_file);
    // A config the worktree's code cannot edit is trusted to say what the
    // gate is, so every file it names there is part of it; a config inside
    // is a gate file itself, and only what it runs is watched with it (its
    // programs and an interpreter's script), not the files a check only
    // reads (`ruff check app.py`), which are the code under test.
    let every_argument = config_inside.is_none();
    let mut files: Vec<String> = config_inside.into_iter().collect();
    if let Some(baseline) = baseline.and_then(|b| dunce::canonicalize(b).ok()) {
        files.extend(inside.of(&baseline));
    }
    for check in &config.checks {
        let CheckKind::Run(argv) = &check.kind else {
            continue;
        };
        let Some(program) = argv.first() else {
            continue;
        };
        if program.contains(['/', '\\']) {
            let path = if Path::new(program).is_absolute() {
                PathBuf::from(program)
            } else {
                worktree.join(slashes(program))
            };
            files.extend(inside.of(&path));
            // A symlink: what it runs, when that is in the worktree too.
            if let Ok(target) = dunce::canonicalize(&path) {
                files.extend(inside.of(&target));
            }
        }
        let cwd = worktree.join(&check.cwd);
        if every_argument {
            for named in argv[1..].iter().filter_map(|arg| named_path(arg)) {
                files.extend(inside.of(&cwd.join(slashes(named))));
            }
        } else if let Some(script) = script(argv) {
            files.extend(inside.of(&cwd.join(slashes(script))));
        }
        for path in indirect(argv, &cwd, every_argument, 0) {
            files.extend(inside.of(&path));
        }
    }
    // Each program once (200 checks of `true` are one `/usr/bin/true`).
    let programs: std::collections::BTreeSet<&Path> = plan
        .checks
        .iter()
        .filter_map(|check| check.program.as_deref().ok())
        .collect();
    for program in programs {
        files.extend(inside.of(program));
    }
    files.sort();
    files.dedup();
    files
}

/// The gate's `files` among the `changed` files (both worktree-relative),
/// and the changed files `declared` (`[gate] files`) matches.
pub(crate) fn changed(
    files: &[String],
    declared: Option<&globset::GlobSet>,
    changed: &[String],
    base: &str,
) -> Gate {
    let changed = changed
        .iter()
        .filter(|file| files.contains(file) || declared.is_some_and(|set| set.is_match(file)))
        .cloned()
        .collect();
    Gate {
        changed,
        base: Some(base.to_string()),
    }
}

/// The gate's changed files that `files_involved` (the task's, as written)
/// does not name: each is a task violation.
pub(crate) fn undeclared<'g>(gate: &'g Gate, files_involved: &[String]) -> Vec<&'g str> {
    let declared: Vec<String> = files_involved.iter().map(|f| normal(f)).collect();
    gate.changed
        .iter()
        .filter(|file| !declared.iter().any(|d| d == *file))
        .map(String::as_str)
        .collect()
}

/// A path as a task names it, compared with the gate's: `/` separators, no
/// `./` steps or trailing `/`.
fn normal(path: &str) -> String {
    path.split(['/', '\\'])
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The interpreter `program` names ([`INTERPRETERS`]), without its path,
/// `.exe`, case and trailing version.
fn interpreter(program: &str) -> Option<&'static str> {
    let name = Path::new(program).file_name()?.to_str()?;
    let name = name.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.iter().copied().find(|known| *known == name)
}

/// The script an interpreter `argv` runs: its first argument that is not an
/// option, unless an option says the code is inline or a module.
fn script(argv: &[String]) -> Option<&str> {
    interpreter(argv.first()?)?;
    let mut args = argv[1..].iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            return args.next().map(String::as_str);
        }
        if INLINE.contains(&arg.to_ascii_lowercase().as_str()) {
            return None;
        }
        if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// The path an argument names, if any: the argument itself, or the value
/// of an `--option=VALUE` (`-` alone is stdin, `--` ends the options).
fn named_path(arg: &str) -> Option<&str> {
    let named = match arg.strip_prefix('-') {
        Some(_) => arg.split_once('=')?.1,
        None => arg,
    };
    (!named.is_empty()).then_some(named)
}

/// Shells whose `-c` string `indirect` splits.
const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "mksh"];

/// Words before a simple command's program that only say how it runs.
const PREFIXES: [&str; 16] = [
    "!", "{", "}", "if", "then", "else", "elif", "do", "while", "until", "exec", "command",
    "builtin", "nohup", "time", "env",
];

/// How deep `sh -c "sh -c '…'"` is followed.
const MAX_DEPTH: u8 = 4;

/// Files inside a package folder that `python -m` may run, at most.
const MAX_PACKAGE_FILES: usize = 4096;

/// The files `argv` runs through an indirection, relative to `cwd`: what a
/// shell's `-c` string runs (each simple command's program, the file a `.`
/// or `source` reads, an interpreter's script, followed into nested `-c`
/// strings and `-m` modules; with `every_word`, a trusted config's rule,
/// also every word of the string, as `files` takes every argument), and
/// the module of `python -m X` (`module_files`). Each path is a candidate:
/// only those among the changed files are reported.
fn indirect(argv: &[String], cwd: &Path, every_word: bool, depth: u8) -> Vec<PathBuf> {
    let Some(name) = argv.first().and_then(|program| interpreter(program)) else {
        return Vec::new();
    };
    if SHELLS.contains(&name)
        && let Some(text) = command_string(&argv[1..])
        && depth < MAX_DEPTH
    {
        return shell_files(text, cwd, every_word, depth);
    }
    if matches!(name, "python" | "pypy")
        && let Some(module) = module(&argv[1..])
    {
        return module_files(module, cwd);
    }
    Vec::new()
}

/// The string a shell runs with `-c` (also in a cluster: `-ec`), skipping
/// the value of `-o`/`-O`; `None` when it runs a file.
fn command_string(args: &[String]) -> Option<&str> {
    let mut inline = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(cluster) = arg.strip_prefix(['-', '+']).filter(|c| !c.is_empty()) else {
            return inline.then_some(arg.as_str());
        };
        if arg == "--" {
            return if inline {
                args.next().map(String::as_str)
            } else {
                None
            };
        }
        if arg.starts_with("--") {
            continue;
        }
        inline |= arg.starts_with('-') && cluster.contains('c');
        if cluster.contains(['o', 'O']) {
            args.next();
        }
    }
    None
}

/// The files a shell's command string runs (see `indirect`).
fn shell_files(text: &str, cwd: &Path, every_word: bool, depth: u8) -> Vec<PathBuf> {
    let split = super::shell_words::split(text);
    // A `cd` moves what later relative paths mean; both readings count.
    let mut dirs = vec![cwd.to_path_buf()];
    let mut out = Vec::new();
    if every_word {
        for named in split.words.iter().filter_map(|word| named_path(word)) {
            out.push(cwd.join(slashes(named)));
        }
    }
    for command in &split.commands {
        let start = command
            .iter()
            .position(|word| !PREFIXES.contains(&word.as_str()))
            .unwrap_or(command.len());
        let command = &command[start..];
        let Some(program) = command.first() else {
            continue;
        };
        let mut named: Vec<&str> = vec![program];
        match program.as_str() {
            "cd" => {
                if let Some(dir) = command.get(1) {
                    dirs.push(cwd.join(slashes(dir)));
                }
                continue;
            }
            "." | "source" => named.extend(command.get(1).map(String::as_str)),
            _ => named.extend(script(command)),
        }
        for dir in &dirs {
            out.extend(named.iter().map(|file| dir.join(slashes(file))));
            out.extend(indirect(command, dir, every_word, depth + 1));
        }
    }
    out
}

/// The module `python -m X` runs (also `-mX`); `None` for a script, `-c`
/// code or stdin.
fn module(args: &[String]) -> Option<&str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-m" => return args.next().map(String::as_str),
            "-c" | "-" | "--" => return None,
            "-W" | "-X" | "--check-hash-based-pycs" => {
                args.next();
            }
            _ if arg.starts_with("-m") => return arg.get(2..),
            _ if arg.starts_with('-') => {}
            _ => return None,
        }
    }
    None
}

/// The files `python -m a.b.c` runs from `cwd` (Python puts the working
/// directory first on `sys.path` for `-m`): `a/__init__.py`,
/// `a/b/__init__.py`, `a/b/c.py`, and the package folder `a/b/c/`
/// (`__init__.py`, `__main__.py` and every file below it, at most
/// [`MAX_PACKAGE_FILES`], links not followed).
fn module_files(module: &str, cwd: &Path) -> Vec<PathBuf> {
    let parts: Vec<&str> = module.split('.').collect();
    if parts
        .iter()
        .any(|part| part.is_empty() || part.contains(['/', '\\']))
    {
        return Vec::new();
    }
    let (last, parents) = parts.split_last().expect("split gives one part");
    let mut dir = cwd.to_path_buf();
    let mut out = Vec::new();
    for part in parents {
        dir.push(part);
        out.push(dir.join("__init__.py"));
    }
    out.push(dir.join(format!("{last}.py")));
    let package = dir.join(last);
    out.push(package.join("__init__.py"));
    out.push(package.join("__main__.py"));
    let mut folders = vec![package];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if out.len() >= MAX_PACKAGE_FILES {
                return out;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && entry.file_name() != "__pycache__" {
                folders.push(entry.path());
            } else if !kind.is_dir() {
                out.push(entry.path());
            }
        }
    }
    out
}

/// `text` with both separators as the platform's.
fn slashes(text: &str) -> PathBuf {
    text.split(['/', '\\']).collect()
}

/// Paths made relative to the worktree when they lie inside it, the
/// directories' symlinks resolved once per directory (a config of 200
/// checks names a handful of directories).
struct Inside<'w> {
    /// Canonical.
    worktree: &'w Path,
    /// Directory (lexical) → canonical, or `None` when it does not exist.
    dirs: BTreeMap<PathBuf, Option<PathBuf>>,
}

impl<'w> Inside<'w> {
    fn new(worktree: &'w Path) -> Inside<'w> {
        Inside {
            worktree,
            dirs: BTreeMap::new(),
        }
    }

    /// `path` relative to the worktree, `/` separators, when it lies
    /// inside it: `.` and `..` steps resolved, the directories' symlinks as
    /// the OS resolves them, the file's own name kept (a symlinked file is
    /// named as written). A path whose directory does not exist is taken
    /// as written.
    fn of(&mut self, path: &Path) -> Option<String> {
        let path = std::path::absolute(path).ok()?;
        let path = crate::paths::lexical(&path);
        let name = path.file_name()?;
        let canonical = path.parent().and_then(|dir| {
            let dirs = &mut self.dirs;
            dirs.entry(dir.to_path_buf())
                .or_insert_with(|| dunce::canonicalize(dir).ok())
                .as_ref()
        });
        let path = canonical.map_or_else(|| path.clone(), |dir| dir.join(name));
        let relative = path.strip_prefix(self.worktree).ok()?;
        (!relative.as_os_str().is_empty()).then(|| crate::paths::to_slashes(relative))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_script_an_interpreter_runs() {
        for (words, expected) in [
            (&["sh", "scripts/lint.sh"][..], Some("scripts/lint.sh")),
            (&["/bin/bash", "-eu", "ci/x.sh", "arg"], Some("ci/x.sh")),
            (&["python3.12", "-W", "tool.py"], Some("tool.py")),
            (&["Python.EXE", "check.py"], Some("check.py")),
            (&["node", "--", "x.js"], Some("x.js")),
            (&["perl", "-E", "say 1"], None),
            (&["sh", "-c", "exit 0"], None),
            (&["python3", "-m", "pytest"], None),
            (&["pwsh", "-Command", "x"], None),
            (&["cargo", "test"], None),
            (&["sh"], None),
        ] {
            assert_eq!(script(&argv(words)), expected, "{words:?}");
        }
    }

    #[test]
    fn the_path_an_argument_names() {
        for (arg, expected) in [
            ("scripts/lint.sh", Some("scripts/lint.sh")),
            ("--config=eslint.config.js", Some("eslint.config.js")),
            ("-c=setup.cfg", Some("setup.cfg")),
            ("--strict", None),
            ("-f", None),
            ("-", None),
            ("--", None),
            ("--x=", None),
            ("", None),
            ("HEAD", Some("HEAD")),
        ] {
            assert_eq!(named_path(arg), expected, "{arg:?}");
        }
    }

    #[test]
    fn paths_inside_the_worktree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("scripts")).unwrap();
        let mut inside = Inside::new(&root);
        assert_eq!(
            inside
                .of(&root.join("scripts/../scripts/./lint.sh"))
                .as_deref(),
            Some("scripts/lint.sh")
        );
        // A file in a folder that does not exist (any more) is named as
        // written: a deleted file is a change too.
        assert_eq!(
            inside.of(&root.join("gone/x.sh")).as_deref(),
            Some("gone/x.sh")
        );
        assert_eq!(inside.of(&root.join("../elsewhere.toml")), None);
        assert_eq!(inside.of(&root), None);
        assert_eq!(inside.of(Path::new("/")), None);
    }

    #[test]
    fn declared_files_are_not_violations() {
        let gate = Gate {
            changed: vec!["checks.toml".into(), "scripts/lint.sh".into()],
            base: Some("HEAD".into()),
        };
        assert_eq!(undeclared(&gate, &[]), ["checks.toml", "scripts/lint.sh"]);
        assert_eq!(
            undeclared(&gate, &argv(&["./scripts\\lint.sh", "src/a.rs"])),
            ["checks.toml"]
        );
        assert!(undeclared(&gate, &argv(&["checks.toml", "scripts/lint.sh/"])).is_empty());
    }

    #[test]
    fn changed_is_the_intersection() {
        let files = argv(&["checks.toml", "scripts/lint.sh"]);
        let changed_files = argv(&["a.rs", "scripts/lint.sh"]);
        assert_eq!(
            changed(&files, None, &changed_files, "v1"),
            Gate {
                changed: vec!["scripts/lint.sh".into()],
                base: Some("v1".into())
            }
        );
        let mut declared = globset::GlobSetBuilder::new();
        declared.add(globset::Glob::new("tools/**").unwrap());
        let declared = declared.build().unwrap();
        let changed_files = argv(&["a.rs", "tools/rules/x.py", "toolsy.py"]);
        assert_eq!(
            changed(&files, Some(&declared), &changed_files, "v1").changed,
            ["tools/rules/x.py"]
        );
    }
}
