//! `run-check hooks install`: installs the read-only git hooks
//! (docs/init-and-hooks.md): `pre-commit` runs the fast gate, `pre-push` the strict gate,
//! each with `--format json --out <git dir>/run-check/<hook>.json`, so a hook
//! never writes into the worktree or the index. When the gate does not pass,
//! the hook shows the evidence's `text` report (`run-check report EVIDENCE
//! --format text`, on stderr): each failed check's diagnostics or output
//! tail, then its refusal. The hook texts are the
//! templates in the repository's `hooks/` directory, compiled in.
//!
//! A hook runs the run-check binary that installed it: its absolute path
//! is written into the hook (`@RUN_CHECK_BIN@` in the template), so the
//! code a hook gates cannot swap the gate for a script of its own (a
//! `./run-check.sh` that exits 0). `$RUN_CHECK_BIN` still overrides it: the
//! committer's environment, not the worktree's.
//!
//! The hooks directory is git's own answer (`git rev-parse --git-path
//! hooks`), so `core.hooksPath` and linked worktrees are respected. A hook is
//! ours when one of its first lines is `# run-check hook vN`. Ours is
//! replaced freely (reinstalling is idempotent); any other file there is
//! foreign and is never overwritten or deleted: without `--force` the
//! command exits 2 and changes nothing, with `--force` the foreign hook is
//! renamed to `<name>.run-check-backup` (`.1`, `.2`, ... when that exists).
//! Fix or format hooks are never installed: checking never writes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// What every version of the marker starts with.
const MARKER_PREFIX: &str = "# run-check hook v";
/// The suffix of a foreign hook moved away by `--force`.
pub(crate) const BACKUP_SUFFIX: &str = ".run-check-backup";

/// A hook run-check provides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    /// Before a commit: `run-check --mode fast`
    PreCommit,
    /// Before a push: `run-check --mode strict`
    PrePush,
}

impl Hook {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Hook::PreCommit => "pre-commit",
            Hook::PrePush => "pre-push",
        }
    }

    /// The hook's text (LF line endings whatever the checkout did), with
    /// `@RUN_CHECK_BIN@` where the installing binary's path goes.
    pub(crate) fn template(self) -> String {
        let text = match self {
            Hook::PreCommit => include_str!("../../hooks/pre-commit"),
            Hook::PrePush => include_str!("../../hooks/pre-push"),
        };
        text.replace("\r\n", "\n")
    }

    fn mode(self) -> &'static str {
        match self {
            Hook::PreCommit => "fast",
            Hook::PrePush => "strict",
        }
    }
}

/// The placeholder of the templates that the binary's path replaces.
const BIN_PLACEHOLDER: &str = "@RUN_CHECK_BIN@";
/// The placeholder of the templates that the baseline's path replaces
/// (empty without `--baseline`).
const BASELINE_PLACEHOLDER: &str = "@RUN_CHECK_BASELINE@";

/// The hook as installed for the binary at `exe` with `baseline` (as the
/// hook reads it: relative to the top level, or absolute): the template
/// with each path quoted for `sh` (inside single quotes, where only `'` is
/// special). A path with a line break or that is not Unicode cannot be
/// written into the hook as one word: an error, not a hook that runs
/// something else.
fn rendered(hook: Hook, exe: &Path, baseline: Option<&Path>) -> Result<String, Error> {
    let exe = sh_word(exe, "run-check's path")?;
    let baseline = baseline
        .map(|path| sh_word(path, "the baseline's path"))
        .transpose()?
        .unwrap_or_default();
    Ok(hook
        .template()
        .replace(BIN_PLACEHOLDER, &exe)
        .replace(BASELINE_PLACEHOLDER, &baseline))
}

/// `path` to go between a hook's single quotes.
fn sh_word(path: &Path, what: &str) -> Result<String, Error> {
    let unusable = |why: &str| {
        Error::Environment(format!(
            "cannot record {what} `{}` in the hook: {why}",
            path.display()
        ))
    };
    let text = path.to_str().ok_or_else(|| unusable("it is not Unicode"))?;
    if text.contains(['\n', '\r']) {
        return Err(unusable("it holds a line break"));
    }
    // Git for Windows runs hooks in its MSYS `sh`, which takes `C:/x`
    // as readily as `C:\x` and leaves no backslash to misread.
    let text = if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.to_string()
    };
    Ok(text.replace('\'', "'\\''"))
}

/// `--baseline`'s file as the hooks record it, after reading it as
/// evidence (a file the hook could not use is refused now, not at the
/// next commit): relative to the worktree's top level when inside it, so
/// the repository can move; absolute otherwise.
fn baseline(path: &Path, top: &Path) -> Result<PathBuf, Error> {
    crate::json_input::evidence_file(path)?;
    let real = dunce::canonicalize(path).map_err(|err| Error::io("read evidence", path, err))?;
    Ok(match real.strip_prefix(top) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => real,
    })
}

/// The running binary, as the hooks record it.
fn current_exe() -> Result<PathBuf, Error> {
    let exe = std::env::current_exe().map_err(|err| {
        Error::Environment(format!("cannot tell where run-check itself is: {err}"))
    })?;
    Ok(dunce::canonicalize(&exe).unwrap_or(exe))
}

/// What is at a hook's path now.
#[derive(Debug, PartialEq)]
enum Existing {
    Missing,
    /// Ours; `true` when it is already this version's text.
    Ours(bool),
    Foreign,
}

/// Whether `text` carries the run-check marker in its first lines.
fn is_ours(text: &str) -> bool {
    text.lines().take(5).any(|line| {
        line.trim_end()
            .strip_prefix(MARKER_PREFIX)
            .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn existing(path: &Path, template: &str) -> Existing {
    let Ok(metadata) = path.symlink_metadata() else {
        return Existing::Missing;
    };
    // A symlink or a directory is someone's setup, whatever it points at.
    if !metadata.file_type().is_file() {
        return Existing::Foreign;
    }
    match crate::bounded::read(path, crate::bounded::PROJECT_FILE) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            if is_ours(&text) {
                Existing::Ours(text == template)
            } else {
                Existing::Foreign
            }
        }
        Err(_) => Existing::Foreign,
    }
}

/// Where a repository's hooks go.
struct Repository {
    /// The worktree's top level.
    top: PathBuf,
    /// The hooks directory (absolute).
    hooks: PathBuf,
    /// This worktree's git directory, where the hooks write their evidence.
    git_dir: PathBuf,
}

/// The repository around `worktree`.
fn locate(worktree: &Path, shown: &Path) -> Result<Repository, Error> {
    let not_a_worktree = |why: String| {
        Error::Usage(format!(
            "`{}` is not in a git worktree; hooks need one ({why})",
            shown.display()
        ))
    };
    let git = crate::git::ask;
    let inside = git(worktree, &["rev-parse", "--is-inside-work-tree"]).map_err(not_a_worktree)?;
    if inside != "true" {
        return Err(not_a_worktree("inside the git directory".into()));
    }
    let top = git(worktree, &["rev-parse", "--show-toplevel"]).map_err(not_a_worktree)?;
    let top = dunce::canonicalize(&top).unwrap_or_else(|_| PathBuf::from(top));
    // Relative answers (`.git/hooks`, a relative core.hooksPath) are
    // relative to where git was asked: the top level.
    let ask = |args: &[&str]| git(&top, args).map_err(Error::Environment);
    let hooks = top.join(ask(&["rev-parse", "--git-path", "hooks"])?);
    let git_dir = PathBuf::from(ask(&["rev-parse", "--absolute-git-dir"])?);
    Ok(Repository {
        top,
        hooks,
        git_dir,
    })
}

/// `<name>.run-check-backup`, or the first free `.N` after it.
fn backup_path(path: &Path) -> PathBuf {
    let numbered = |n: u32| {
        let mut name = path.as_os_str().to_owned();
        name.push(BACKUP_SUFFIX);
        if n > 0 {
            name.push(format!(".{n}"));
        }
        PathBuf::from(name)
    };
    (0..)
        .map(numbered)
        .find(|candidate| candidate.symlink_metadata().is_err())
        .unwrap_or_else(|| numbered(0))
}

/// What `hooks install` is asked to do.
pub(crate) struct Install<'a> {
    /// The hooks (none: both).
    pub(crate) hooks: &'a [Hook],
    /// Move a foreign hook away rather than refuse.
    pub(crate) force: bool,
    /// The evidence the hooks pass to `--baseline`.
    pub(crate) baseline: Option<&'a Path>,
    /// Say what would change; change nothing.
    pub(crate) dry_run: bool,
}

/// Installs the hooks `ask` names into the hooks directory of the
/// repository around `worktree` (`shown` as the user named it); returns
/// what to tell the user.
pub(crate) fn install(worktree: &Path, shown: &Path, ask: &Install<'_>) -> Result<String, Error> {
    let repository = locate(worktree, shown)?;
    let chosen = chosen(ask.hooks);
    // Decide everything before touching anything: a refusal changes nothing.
    let exe = current_exe()?;
    let baseline = ask
        .baseline
        .map(|path| self::baseline(path, &repository.top))
        .transpose()?;
    let plan = plan(&repository, &chosen, &exe, baseline.as_deref(), ask.force)?;
    let mut out = write(&repository, plan, ask.dry_run)?;
    notes(&mut out, &repository, &exe, baseline.as_deref());
    Ok(out)
}

/// `hooks` without repeats, in the order given; none is both.
fn chosen(hooks: &[Hook]) -> Vec<Hook> {
    let mut chosen: Vec<Hook> = Vec::new();
    for hook in if hooks.is_empty() {
        &[Hook::PreCommit, Hook::PrePush][..]
    } else {
        hooks
    } {
        if !chosen.contains(hook) {
            chosen.push(*hook);
        }
    }
    chosen
}

/// Removes the hooks of `hooks` (none: both) that run-check wrote from the
/// repository around `worktree`; a hook someone else wrote stays, and so
/// does a hook `install --force` moved away (its path is named, to move
/// back by hand). Returns what to tell the user.
pub(crate) fn uninstall(
    worktree: &Path,
    shown: &Path,
    hooks: &[Hook],
    dry_run: bool,
) -> Result<String, Error> {
    let repository = locate(worktree, shown)?;
    let would = if dry_run { "would remove" } else { "removed" };
    let mut out = String::new();
    for hook in chosen(hooks) {
        let (name, path) = (hook.name(), repository.hooks.join(hook.name()));
        match existing(&path, "") {
            Existing::Missing => {
                let _ = writeln!(out, "{name}: not installed ({})", path.display());
            }
            Existing::Foreign => {
                let _ = writeln!(
                    out,
                    "{name}: {} was not written by run-check; left alone",
                    path.display()
                );
            }
            Existing::Ours(_) => {
                if !dry_run {
                    std::fs::remove_file(&path)
                        .map_err(|err| Error::io("remove the hook", &path, err))?;
                }
                let _ = writeln!(out, "{name}: {would} {}", path.display());
            }
        }
        let mut moved = path.as_os_str().to_owned();
        moved.push(BACKUP_SUFFIX);
        let moved = PathBuf::from(moved);
        if moved.symlink_metadata().is_ok() {
            let _ = writeln!(
                out,
                "{name}: a hook `hooks install --force` moved away is at {}; move it back by hand to use it",
                moved.display()
            );
        }
    }
    Ok(out)
}

/// Each hook's [`Planned`] install; refused when a foreign
/// hook is in the way and `force` is not given.
fn plan(
    repository: &Repository,
    hooks: &[Hook],
    exe: &Path,
    baseline: Option<&Path>,
    force: bool,
) -> Result<Vec<Planned>, Error> {
    let plan = hooks
        .iter()
        .map(|&hook| {
            let path = repository.hooks.join(hook.name());
            let text = rendered(hook, exe, baseline)?;
            let state = existing(&path, &text);
            Ok((hook, path, text, state))
        })
        .collect::<Result<Vec<Planned>, Error>>()?;
    let foreign: Vec<String> = plan
        .iter()
        .filter(|(.., state)| *state == Existing::Foreign)
        .map(|(_, path, ..)| format!("`{}`", path.display()))
        .collect();
    if !foreign.is_empty() && !force {
        let (subject, verb) = match foreign.len() {
            1 => (foreign[0].clone(), "exists and was"),
            _ => (foreign.join(" and "), "exist and were"),
        };
        return Err(Error::Usage(format!(
            "{subject} {verb} not installed by run-check; nothing changed (rerun with --force to move it to `<name>{BACKUP_SUFFIX}` and install run-check's)"
        )));
    }
    Ok(plan)
}

/// A hook to install: its path, its text and what is there now.
type Planned = (Hook, PathBuf, String, Existing);

/// Moves the foreign hooks of `plan` away and writes each hook that is
/// not up to date; returns a line for each. A dry run changes nothing and
/// says what it would do.
fn write(repository: &Repository, plan: Vec<Planned>, dry_run: bool) -> Result<String, Error> {
    if !dry_run {
        std::fs::create_dir_all(&repository.hooks)
            .map_err(|err| Error::io("create the hooks directory", &repository.hooks, err))?;
    }
    let (moved, installed) = match dry_run {
        true => ("would move", "would install"),
        false => ("moved", "installed"),
    };
    let mut out = String::new();
    for (hook, path, template, state) in plan {
        let name = hook.name();
        match state {
            Existing::Ours(true) => {
                let _ = writeln!(out, "{name}: up to date ({})", path.display());
                continue;
            }
            Existing::Foreign => {
                let backup = backup_path(&path);
                if !dry_run {
                    std::fs::rename(&path, &backup)
                        .map_err(|err| Error::io("move the existing hook", &path, err))?;
                }
                let _ = writeln!(
                    out,
                    "{name}: {moved} the existing hook to {}",
                    backup.display()
                );
            }
            Existing::Missing | Existing::Ours(false) => {}
        }
        if !dry_run {
            crate::output::replace_as(
                &path,
                &path,
                crate::output::FileKind::Executable,
                template.as_bytes(),
            )?;
        }
        let _ = writeln!(
            out,
            "{name}: {installed} {} (runs run-check --mode {} --format json --out {})",
            path.display(),
            hook.mode(),
            repository
                .git_dir
                .join("run-check")
                .join(format!("{name}.json"))
                .display()
        );
    }
    Ok(out)
}

/// The closing lines: the binary the hooks run, the baseline, and what
/// the worktree could change.
fn notes(out: &mut String, repository: &Repository, exe: &Path, baseline: Option<&Path>) {
    let _ = writeln!(out, "the hooks run {}", exe.display());
    if let Some(path) = baseline {
        let _ = writeln!(
            out,
            "the hooks pass --baseline {}: only diagnostics it does not have fail (install again without --baseline to drop it)",
            path.display()
        );
        if path.is_relative() {
            let _ = writeln!(
                out,
                "note: the baseline lies inside the worktree, where the code the hooks gate can add to it; review its changes as you review the gate's"
            );
        }
    }
    if exe.starts_with(&repository.top) {
        let _ = writeln!(
            out,
            "warning: that binary lies inside the worktree, where the code the hooks gate can rewrite it; install run-check outside the repository and run `run-check hooks install` with it"
        );
    }
    if !repository.top.join("checks.toml").exists() {
        let _ = writeln!(
            out,
            "warning: no checks.toml in {}: the hooks fail until there is one (`run-check init` writes a starter)",
            repository.top.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_marked_posix_sh() {
        for hook in [Hook::PreCommit, Hook::PrePush] {
            let text = hook.template();
            assert!(text.starts_with("#!/bin/sh\n"), "{}", hook.name());
            assert_eq!(
                text.lines().nth(1),
                Some(format!("{MARKER_PREFIX}3").as_str())
            );
            assert!(is_ours(&text));
            assert!(
                text.contains(&format!("--mode {} --format json --out", hook.mode())),
                "{}",
                hook.name()
            );
            // Hooks never run writers.
            let code = text.lines().filter(|l| !l.trim_start().starts_with('#'));
            for line in code {
                assert!(
                    !line.split_whitespace().any(|w| w == "fix" || w == "fmt"),
                    "{line}"
                );
            }
        }
    }

    /// The recorded path is one `sh` word whatever it holds: the hook's
    /// `installed=` line, evaluated by a real `sh`, gives the path back.
    #[cfg(unix)]
    #[test]
    fn the_recorded_path_is_one_shell_word() {
        for exe in [
            "/opt/run check/bin/run-check",
            "/tmp/it's $(x) `y` \\/run-check",
        ] {
            let text = rendered(Hook::PreCommit, Path::new(exe), Some(Path::new(exe))).unwrap();
            let line = text
                .lines()
                .find(|line| line.starts_with("installed="))
                .unwrap();
            let base = text
                .lines()
                .find(|line| line.starts_with("baseline="))
                .unwrap();
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "{line}\n{base}\nprintf '%s|%s' \"$installed\" \"$baseline\""
                ))
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&output.stdout),
                format!("{exe}|{exe}")
            );
        }
        let broken = rendered(Hook::PrePush, Path::new("/tmp/a\nb/run-check"), None);
        assert!(broken.is_err());
        let broken = rendered(
            Hook::PrePush,
            Path::new("/bin/run-check"),
            Some(Path::new("a\nb.json")),
        );
        assert!(broken.is_err());
    }

    #[test]
    fn ours_means_a_marker_line_of_any_version() {
        assert!(is_ours("#!/bin/sh\n# run-check hook v1\n"));
        assert!(is_ours("#!/bin/sh\n# run-check hook v12\r\n"));
        assert!(!is_ours("#!/bin/sh\n# run-check hook v\n"));
        assert!(!is_ours("#!/bin/sh\necho '# run-check hook v1'\n"));
        assert!(!is_ours("#!/bin/sh\n\n\n\n\n\n# run-check hook v1\n"));
    }

    #[test]
    fn backups_never_replace_backups() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("pre-commit");
        assert_eq!(
            backup_path(&hook),
            dir.path().join("pre-commit.run-check-backup")
        );
        std::fs::write(dir.path().join("pre-commit.run-check-backup"), "a").unwrap();
        assert_eq!(
            backup_path(&hook),
            dir.path().join("pre-commit.run-check-backup.1")
        );
        std::fs::write(dir.path().join("pre-commit.run-check-backup.1"), "b").unwrap();
        assert_eq!(
            backup_path(&hook),
            dir.path().join("pre-commit.run-check-backup.2")
        );
    }
}
