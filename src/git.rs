//! The git repository holding a worktree, found once per run and asked
//! read-only: every command runs with `--no-optional-locks` (git's switch
//! for `GIT_OPTIONAL_LOCKS=0`, so `git status` never refreshes and writes
//! the index), `--no-pager` and `core.quotePath=false`, with no stdin.
//!
//! The repository is the code under test's, and its config can name
//! programs a git command runs: run-check's git runs none (filters and
//! transports: [`Guard`]; an fsmonitor hook: [`base_args`]).
//!
//! One `git status --porcelain=v2 --branch -z --untracked-files=all` answers
//! what a run needs to know at its start: the commit and branch and whether
//! the worktree is dirty (`meta.git`), the files fast mode compares against
//! (when the base is `HEAD`), and the entries of the first read-only snapshot.
//!
//! Paths stay bytes until they are shown: with `-z` git prints a path as it
//! is stored, and on Unix a file name need not be UTF-8. A lossy conversion
//! would name a file that does not exist (and hash nothing, twice).

mod guard;
mod pins;
pub(crate) mod regular;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub(crate) use guard::git_dir_of;
use guard::{Guard, Overrides};
pub(crate) use pins::verified_setting;

/// A repository's top level and the git that asks it.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    exe: PathBuf,
    /// The repository's top level (canonical).
    toplevel: PathBuf,
    /// Where this worktree's git state lives (shared: a `Repo` is cloned
    /// into every snapshotter).
    dirs: std::sync::Arc<GitDirs>,
    /// The overrides that keep its git from running programs (shared by
    /// the clones: one answer per run).
    guard: std::sync::Arc<std::sync::Mutex<Guard>>,
    /// Files under the git directory that git would open and that are not
    /// regular files, as the latest walk of the git state found them (the
    /// loose refs): no git process starts while there is one.
    hazards: std::sync::Arc<std::sync::Mutex<Vec<(PathBuf, &'static str)>>>,
}

/// Where a worktree's git state lives, as git itself resolves it (a linked
/// worktree's `.git` is a file naming its own git directory, whose refs and
/// config are in the common one; `GIT_INDEX_FILE` and `core.hooksPath` are
/// honoured). Absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GitDirs {
    /// `git rev-parse --absolute-git-dir`: HEAD and the index live here.
    pub(crate) git_dir: PathBuf,
    /// `git rev-parse --git-common-dir`: refs, config, info/exclude.
    pub(crate) common_dir: PathBuf,
    /// `git rev-parse --git-path index`.
    pub(crate) index: PathBuf,
    /// `git rev-parse --git-path hooks` (`core.hooksPath` when set).
    pub(crate) hooks: PathBuf,
    /// `core.excludesFile` (`~` expanded), or git's default
    /// (`$XDG_CONFIG_HOME/git/ignore`, `~/.config/git/ignore`); `None` when
    /// neither can be named.
    pub(crate) excludes_file: Option<PathBuf>,
    /// `core.attributesFile` (`~` expanded), or git's default
    /// (`$XDG_CONFIG_HOME/git/attributes`, `~/.config/git/attributes`).
    pub(crate) attributes_file: Option<PathBuf>,
    /// The global and system config files git reads besides the
    /// repository's (`GIT_CONFIG_GLOBAL` or `~/.gitconfig` and
    /// `$XDG_CONFIG_HOME/git/config`; `GIT_CONFIG_SYSTEM` or
    /// `/etc/gitconfig`): a change there can hide files from `git status`
    /// as well.
    pub(crate) config_files: Vec<PathBuf>,
}

/// One path `git status` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StatusEntry {
    /// Relative to the top level, `/` separators, as git prints it (an
    /// untracked nested repository ends in `/`). Shared: read-only
    /// snapshots keep it as their key without a copy.
    pub(crate) path: std::sync::Arc<Path>,
    /// `XY` for tracked entries (`.M`, `M.`, `D.`, `UU`, ...), `??` for
    /// untracked ones.
    pub(crate) code: std::borrow::Cow<'static, str>,
    /// The rest of the record: submodule state, file modes and object names
    /// of HEAD and the index. Two entries with the same `code` and `state`
    /// have the same staged content.
    pub(crate) state: String,
}

/// An index entry flagged assume-unchanged or skip-worktree: `git status`
/// does not list its edits, so read-only snapshots hash it like a dirty
/// file, and fast mode and the change budget count it when `changed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// Relative to the top level.
    pub(crate) path: PathBuf,
    /// Its file differs from what the index recorded (size or times, or
    /// gone while assume-unchanged).
    pub(crate) changed: bool,
}

/// What `git status --porcelain=v2 --branch` says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Status {
    /// `# branch.oid`: the HEAD commit; `None` before the first commit.
    pub(crate) commit: Option<String>,
    /// `# branch.head`: the branch; `None` when detached.
    pub(crate) branch: Option<String>,
    /// Changed tracked paths (staged or not) and untracked, not ignored
    /// files, in git's order.
    pub(crate) entries: Vec<StatusEntry>,
    /// Entries of the index flagged assume-unchanged or skip-worktree
    /// (found by reading the index, not by `git status`; empty until then).
    pub(crate) hidden: Vec<Hidden>,
    /// Ignored paths, as `--ignored=matching` lists them: a file matched
    /// by a pattern, or a directory matched as a whole (`build/`, not
    /// looked inside). Read-only verification looks at the ignore and
    /// attributes files among them (one that ignores itself is still
    /// read by git) and at what a changed rule newly hides.
    pub(crate) ignored: Vec<std::sync::Arc<Path>>,
}

/// The arguments of the run's `git status` (`--ignore-submodules=none`:
/// a submodule's changes count whatever `.gitmodules` or the config say,
/// as `pins.rs` says).
const STATUS: [&str; 9] = [
    "status",
    "--porcelain=v2",
    "--branch",
    "--no-ahead-behind",
    "-z",
    "--untracked-files=all",
    "--ignored=matching",
    "--no-renames",
    "--ignore-submodules=none",
];

/// The questions of a run's start (the repository, its config, then its
/// status), asked and not yet answered: the caller starts them first thing
/// and does its own work (reading the config) while git runs.
#[derive(Debug)]
pub(crate) struct Opening {
    exe: PathBuf,
    /// `git rev-parse --show-toplevel` and the git directories.
    toplevel: Child,
    /// The guard's question ([`guard::QUESTION`]), or why it did not start.
    config: Result<Child, String>,
    /// The directory git runs in (relative paths git prints are relative
    /// to it).
    dir: PathBuf,
}

/// `rev-parse`'s questions: the top level, then the git directories.
const REV_PARSE: [&str; 8] = [
    "rev-parse",
    "--show-toplevel",
    "--absolute-git-dir",
    "--git-common-dir",
    "--git-path",
    "index",
    "--git-path",
    "hooks",
];

impl Opening {
    /// Starts the repository's two questions in `worktree`: where it is,
    /// and what its config defines that would run a program (the status
    /// waits for that answer: it is asked with the overrides). The error
    /// says that git is missing or could not run.
    pub(crate) fn start(worktree: &Path) -> Result<Opening, String> {
        let exe = git_exe()?;
        if let Some((path, kind)) = regular::discovery_hazard(worktree) {
            return Err(format!(
                "{BLOCKED}`{}` is a {kind}, which git would block on or open as a device (remove it)",
                path.display()
            ));
        }
        let toplevel = command(&exe, worktree, &Overrides::default())
            .args(REV_PARSE)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(failed)?;
        let config = ask_guard(&exe, worktree);
        Ok(Opening {
            exe,
            toplevel,
            config,
            dir: worktree.to_path_buf(),
        })
    }

    /// Waits for the repository and its config, then runs `meanwhile` with
    /// it (the git state is read from files, and the submodules found there
    /// are guarded too: [`Repo::guard_submodules`]). `meanwhile` calls the
    /// function it is given once what the status depends on is read (the
    /// index's submodules guarded, the refs' FIFOs found): the status is
    /// started then, and read once `meanwhile` has read the rest. Not
    /// called, the status is asked after it.
    pub(crate) fn finish_with<T>(
        self,
        meanwhile: impl FnOnce(&Repo, &mut dyn FnMut()) -> T,
    ) -> Result<(Repo, Result<Status, String>, T), String> {
        let output = self.toplevel.wait_with_output();
        let config = self
            .config
            .and_then(|child| config_answer(child.wait_with_output()));
        let output = output.map_err(failed)?;
        let mut lines = output.stdout.split(|&b| b == b'\n');
        let top = String::from_utf8_lossy(lines.next().unwrap_or_default())
            .trim()
            .to_string();
        if !output.status.success() || top.is_empty() {
            return Err("not a git repository".into());
        }
        let config = config?;
        let toplevel = dunce::canonicalize(&top).unwrap_or_else(|_| PathBuf::from(top));
        let mut next = || {
            let line = lines.next().unwrap_or_default();
            let path = path_from_bytes(line.strip_suffix(b"\r").unwrap_or(line));
            let path = self.dir.join(path);
            dunce::canonicalize(&path).unwrap_or(path)
        };
        let git_dir = next();
        let common_dir = next();
        let index = next();
        let hooks = next();
        let answer = guard::parse(&config, &self.dir);
        let dirs = GitDirs {
            excludes_file: global_file(answer.excludes_file.as_deref(), &toplevel, "ignore"),
            attributes_file: global_file(
                answer.attributes_file.as_deref(),
                &toplevel,
                "attributes",
            ),
            config_files: config_files(),
            git_dir,
            common_dir,
            index,
            hooks,
        };
        let mut fixed = dirs.config_files.clone();
        fixed.push(dirs.common_dir.join("config"));
        fixed.push(dirs.git_dir.join("config.worktree"));
        fixed.push(dirs.git_dir.join("HEAD"));
        let folds = pins::folds_case(&toplevel);
        let guard = Guard::new(answer, fixed, folds);
        let repo = Repo {
            exe: self.exe,
            toplevel,
            dirs: std::sync::Arc::new(dirs),
            guard: std::sync::Arc::new(std::sync::Mutex::new(guard)),
            hazards: std::sync::Arc::default(),
        };
        let mut asked = None;
        let found = meanwhile(&repo, &mut || {
            if asked.is_none() {
                asked = Some(repo.ask(&STATUS));
            }
        });
        let status = match asked {
            Some(asked) => asked.and_then(Asked::status),
            None => repo.status(),
        };
        Ok((repo, status, found))
    }
}

/// How the error of [`Opening::start`] begins when a file git's discovery
/// opens is not a regular file: the repository is there, and cannot be
/// asked (a run must not take it for a worktree outside git).
pub(crate) const BLOCKED: &str = "cannot ask git: ";

/// Starts the guard's question ([`guard::QUESTION`]) in `dir`, asked
/// without overrides.
fn ask_guard(exe: &Path, dir: &Path) -> Result<Child, String> {
    command(exe, dir, &Overrides::default())
        .args(guard::QUESTION)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(failed)
}

/// The guard's answer: git's output, empty when no key matched (exit 1),
/// or a one-line error (a config git cannot read fails every question).
fn config_answer(output: std::io::Result<Output>) -> Result<Vec<u8>, String> {
    let output = output.map_err(failed)?;
    match output.status.code() {
        Some(0) => Ok(output.stdout),
        Some(1) => Ok(Vec::new()),
        _ => Err(git_failed("git config", &output.stderr)),
    }
}

/// Why git could not be run.
fn failed(err: std::io::Error) -> String {
    format!("failed to run git: {err}")
}

/// The one-line error of a git command that failed: the first line of its
/// stderr (git's own message).
fn git_failed(command: &str, stderr: &[u8]) -> String {
    let why = String::from_utf8_lossy(stderr);
    let why = why.trim().lines().next().unwrap_or("failed");
    format!("`{command}`: {why}")
}

/// `git -C DIR` asking read-only, without stdin, with `overrides`. The
/// switch, not the variable `GIT_OPTIONAL_LOCKS=0`: a changed environment
/// makes the standard library copy the whole environment for the spawn
/// (≈ 250,000 instructions, counted with callgrind), and git sets the
/// variable for its own children from the switch anyway. (Only a driver
/// whose name holds `=` needs the environment.)
fn command(exe: &Path, dir: &Path, overrides: &Overrides) -> Command {
    let mut command = Command::new(exe);
    command
        .args(base_args(dir))
        .args(pins::ARGS)
        .args(&overrides.args)
        .envs(overrides.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null());
    command
}

/// What every git question starts with: never an optional lock, never a
/// pager, `-C DIR`, paths unquoted. The settings that decide what counts
/// as modified follow ([`pins::ARGS`]: no fsmonitor, no untracked cache,
/// every stat field compared, ...): the repository cannot redefine
/// "unchanged".
fn base_args(dir: &Path) -> [&std::ffi::OsStr; 6] {
    [
        "--no-optional-locks".as_ref(),
        "--no-pager".as_ref(),
        "-C".as_ref(),
        dir.as_os_str(),
        "-c".as_ref(),
        "core.quotePath=false".as_ref(),
    ]
}

/// Runs `git -C DIR ARGS` with `overrides` to its end: stdout, or a
/// one-line error with git's own message.
fn output(exe: &Path, dir: &Path, overrides: &Overrides, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = command(exe, dir, overrides)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    answer(output, args)
}

/// The git on PATH, or why there is none.
fn git_exe() -> Result<PathBuf, String> {
    which::which("git").map_err(|_| "git is not installed".to_string())
}

/// Asks git in `dir` where no run holds a [`Repo`] (`hooks`): its output,
/// trimmed, or a one-line reason. Questions that read no file content
/// (`rev-parse`, `config`): no driver can run.
pub(crate) fn ask(dir: &Path, args: &[&str]) -> Result<String, String> {
    let exe = git_exe()?;
    let out = output(&exe, dir, &Overrides::default(), args)?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// [`ask`]'s stdout as git wrote it (no conversion, no trimming).
pub(crate) fn ask_bytes(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let exe = git_exe()?;
    output(&exe, dir, &Overrides::default(), args)
}

/// What git answered to `git ARGS`: stdout, or a one-line error with git's
/// own message.
fn answer(output: std::io::Result<Output>, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = output.map_err(failed)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        Err(git_failed(
            &format!("git {}", args.join(" ")),
            &output.stderr,
        ))
    }
}

/// `~` or `~/...` with the home directory; other paths as they are.
/// (`~user/` is left as written: git would look that user up.)
fn expand_home(value: &[u8]) -> Option<PathBuf> {
    let value = value.strip_suffix(b"\n").unwrap_or(value);
    if value.is_empty() {
        return None;
    }
    if value == b"~" {
        return std::env::home_dir();
    }
    match value.strip_prefix(b"~/") {
        Some(rest) => Some(std::env::home_dir()?.join(path_from_bytes(rest))),
        None => Some(path_from_bytes(value)),
    }
}

/// A global file of git's (`core.excludesFile`, `core.attributesFile`) as
/// configured (relative to the top level, where git reads it), else git's
/// default `$XDG_CONFIG_HOME/git/NAME` or `~/.config/git/NAME`.
fn global_file(configured: Option<&[u8]>, toplevel: &Path, name: &str) -> Option<PathBuf> {
    if let Some(path) = configured.and_then(expand_home) {
        return Some(toplevel.join(path));
    }
    let xdg = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty());
    match xdg {
        Some(xdg) => Some(PathBuf::from(xdg).join("git").join(name)),
        None => std::env::home_dir().map(|home| home.join(".config/git").join(name)),
    }
}

/// The config files git reads besides the repository's, as git finds them
/// (`git config --show-origin` would cost a process).
pub(super) fn config_files() -> Vec<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let home = std::env::home_dir();
    let mut files = Vec::new();
    match var("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push(PathBuf::from(global)),
        None => {
            files.extend(home.as_ref().map(|home| home.join(".gitconfig")));
            match var("XDG_CONFIG_HOME") {
                Some(xdg) => files.push(PathBuf::from(xdg).join("git/config")),
                None => files.extend(home.as_ref().map(|home| home.join(".config/git/config"))),
            }
        }
    }
    if var("GIT_CONFIG_NOSYSTEM").is_none() {
        let system = var("GIT_CONFIG_SYSTEM").map(PathBuf::from);
        files.push(system.unwrap_or_else(|| PathBuf::from("/etc/gitconfig")));
    }
    files
}

impl Repo {
    /// The top level of the work tree.
    pub(crate) fn toplevel(&self) -> &Path {
        &self.toplevel
    }

    /// Where the worktree's git state lives.
    pub(crate) fn dirs(&self) -> &GitDirs {
        &self.dirs
    }

    /// Runs `git ARGS` at the top level, guarded; stdout, or a one-line
    /// error with git's own message.
    pub(crate) fn run(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        let (child, helping) = self.spawn(args)?;
        let output = child.wait_with_output();
        drop(helping);
        answer(output, args)
    }

    /// Starts `git ARGS` with piped stdout and stderr, registered with the
    /// stop handler until the returned guard is dropped (after the wait).
    fn spawn(
        &self,
        args: &[&str],
    ) -> Result<(std::process::Child, crate::signal::Helping), String> {
        let child = self
            .command(args)?
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(failed)?;
        let helping = crate::signal::helper(&child);
        Ok((child, helping))
    }

    /// A `git ARGS` command at the top level, guarded, for a question that
    /// needs its own pipes; refused while git would block on a file
    /// ([`Repo::blocked`]).
    fn command(&self, args: &[&str]) -> Result<Command, String> {
        if let Some(why) = self.blocked() {
            return Err(why);
        }
        let mut command = command(&self.exe, &self.toplevel, &*self.overrides()?);
        command.args(args);
        Ok(command)
    }

    /// Why no git process may start now: a file git would open is a FIFO,
    /// a socket or a device (`regular.rs`), named as the git state names
    /// it. `None` when every one is a regular file or absent.
    pub(crate) fn blocked(&self) -> Option<String> {
        let hazards = self
            .hazards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fixed = regular::read_by_git(&self.dirs, &self.toplevel);
        let (path, kind) = hazards
            .iter()
            .map(|(path, kind)| (path.as_path(), *kind))
            .next()
            .or_else(|| regular::hazard(&fixed))?;
        Some(format!(
            "`{}` is a {kind}, which git would block on or open as a device: \
             not asked (remove it)",
            path.display()
        ))
    }

    /// The files under the git directory that git would open and that are
    /// not regular files, as a walk of the git state found them (the loose
    /// refs), and those among the files git opens in any question.
    pub(crate) fn found_hazards(&self, found: Vec<(PathBuf, &'static str)>) {
        *self
            .hazards
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = found;
    }

    /// The files every git question may open (`regular.rs`), for the git
    /// state to look at.
    pub(crate) fn read_by_git(&self) -> Vec<PathBuf> {
        regular::read_by_git(&self.dirs, &self.toplevel)
    }

    /// Runs `git ARGS` at the top level, guarded, with `input` on its stdin
    /// (written on a thread, so a large answer cannot block the writing):
    /// its exit code and stdout, or `None` when git could not be run or
    /// did not take the whole input.
    pub(crate) fn feed(&self, args: &[&str], input: Vec<u8>) -> Option<(Option<i32>, Vec<u8>)> {
        use std::io::Write;
        let mut child = self
            .command(args)
            .ok()?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let helping = crate::signal::helper(&child);
        let mut stdin = child.stdin.take()?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let output = child.wait_with_output();
        drop(helping);
        let output = output.ok()?;
        writer.join().ok()?.ok()?;
        Some((output.status.code(), output.stdout))
    }

    /// The overrides every git process gets now: asked again when a file
    /// the last answer came from changed.
    fn overrides(&self) -> Result<std::sync::Arc<Overrides>, String> {
        let mut guard = self
            .guard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.stale() {
            let submodules = guard.submodules().to_vec();
            self.ask_config(&mut guard, submodules)?;
        }
        Ok(guard.overrides())
    }

    /// The repository's own config files (`.git/config`,
    /// `.git/config.worktree`, named so) that set a pinned setting
    /// (`pins.rs`) to something else than its pin, as the run's config
    /// answer found them: run-check's git ignores them, and the gate counts
    /// them as changed since the base (docs/read-only.md says why the base
    /// is git's defaults). The global and system config are the user's,
    /// not the repository's: pinned, never named.
    pub(crate) fn relaxed(&self) -> Vec<String> {
        let guard = self
            .guard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dirs = &self.dirs;
        let mut names: Vec<String> = guard
            .relaxed()
            .into_iter()
            .filter_map(|origin| {
                let origin = dunce::canonicalize(origin).ok()?;
                [&dirs.git_dir, &dirs.common_dir]
                    .into_iter()
                    .find_map(|dir| {
                        let rest = origin.strip_prefix(dir).ok()?;
                        let rest = crate::paths::to_slashes(rest);
                        matches!(rest.as_str(), "config" | "config.worktree")
                            .then(|| format!(".git/{rest}"))
                    })
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Also guards the git of the submodules checked out at `worktrees`
    /// (absolute): `git status` runs `git status` in each, with its own
    /// config.
    pub(crate) fn guard_submodules(&self, worktrees: Vec<PathBuf>) -> Result<(), String> {
        let mut guard = self
            .guard
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if worktrees.is_empty() && guard.submodules().is_empty() {
            return Ok(());
        }
        self.ask_config(&mut guard, worktrees)
    }

    /// Asks the guard's question of the top level and of each submodule
    /// worktree (at once), and puts the answers in force.
    fn ask_config(&self, guard: &mut Guard, submodules: Vec<PathBuf>) -> Result<(), String> {
        let dirs: Vec<&Path> = std::iter::once(self.toplevel.as_path())
            .chain(submodules.iter().map(PathBuf::as_path))
            .collect();
        let children: Vec<Result<Child, String>> =
            dirs.iter().map(|dir| ask_guard(&self.exe, dir)).collect();
        let mut answers = Vec::new();
        for (child, dir) in children.into_iter().zip(&dirs) {
            let out = child.and_then(|child| {
                let helping = crate::signal::helper(&child);
                let output = child.wait_with_output();
                drop(helping);
                config_answer(output)
            })?;
            answers.push(guard::parse(&out, dir));
        }
        let fixed = submodules
            .iter()
            .filter_map(|worktree| git_dir_of(worktree))
            .flat_map(|dir| [dir.join("config"), dir.join("config.worktree")])
            .collect();
        guard.answered(answers, submodules, fixed);
        Ok(())
    }

    /// The commit `revision` names, or `None` when it names none. A revision
    /// that looks like an option names none.
    pub(crate) fn resolve(&self, revision: &str) -> Option<String> {
        if revision.starts_with('-') {
            return None;
        }
        let spec = format!("{revision}^{{commit}}");
        let out = self
            .run(&[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ])
            .ok()?;
        let commit = String::from_utf8_lossy(&out).trim().to_string();
        (!commit.is_empty()).then_some(commit)
    }

    /// The worktree's status: tracked changes (without rename detection),
    /// every untracked file that is not ignored, the ignored paths, and the
    /// branch headers (without counting commits ahead of or behind the
    /// upstream, which can cost more than the status itself).
    pub(crate) fn status(&self) -> Result<Status, String> {
        self.status_of(&STATUS)
    }

    /// `git ARGS` (a `git status --porcelain=v2 -z`), asked and read.
    fn status_of(&self, args: &[&str]) -> Result<Status, String> {
        self.ask(args)?.status()
    }

    /// Starts `git ARGS` (a status): its answer is read by
    /// [`Asked::status`]. stderr is drained on a thread (a git that fills
    /// its pipe with warnings must not stall on it).
    fn ask(&self, args: &[&str]) -> Result<Asked, String> {
        use std::io::Read;
        let (mut child, helping) = self.spawn(args)?;
        let stderr = child.stderr.take();
        let errors = std::thread::spawn(move || {
            let mut kept = Vec::new();
            if let Some(mut stderr) = stderr {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = stderr.read(&mut chunk) {
                    let room = (64 * 1024usize).saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
            kept
        });
        Ok(Asked {
            child,
            helping,
            errors,
            command: format!("git {}", args.join(" ")),
        })
    }

    /// [`Repo::status`] without the untracked files: tracked changes and
    /// the branch headers only.
    pub(crate) fn status_tracked(&self) -> Result<Status, String> {
        let mut args = STATUS;
        for arg in &mut args {
            if arg.starts_with("--untracked-files=") {
                *arg = "--untracked-files=no";
            } else if arg.starts_with("--ignored=") {
                // git lists ignored files only where it lists untracked
                // ones.
                *arg = "--ignored=no";
            }
        }
        self.status_of(&args)
    }
}

/// A `git status` started ([`Repo::ask`]), its answer not yet read.
pub(crate) struct Asked {
    child: std::process::Child,
    helping: crate::signal::Helping,
    errors: std::thread::JoinHandle<Vec<u8>>,
    /// `git ARGS`, for the error.
    command: String,
}

impl Asked {
    /// Reads and parses the answer as git writes it: with 200,000
    /// untracked files git prints for tens of milliseconds, and the
    /// records are parsed meanwhile rather than after a copy of megabytes.
    pub(crate) fn status(mut self) -> Result<Status, String> {
        use std::io::Read;
        let mut parser = StatusParser::default();
        let read = match self.child.stdout.take() {
            Some(mut stdout) => {
                let mut pending: Vec<u8> = Vec::with_capacity(1 << 16);
                let mut chunk = vec![0u8; 1 << 16];
                loop {
                    match stdout.read(&mut chunk) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            pending.extend_from_slice(&chunk[..n]);
                            if let Some(end) = memchr::memrchr(0, &pending) {
                                parser.feed(&pending[..=end]);
                                pending.drain(..=end);
                            }
                        }
                        Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(err) => break Err(err),
                    }
                }
                .map(|()| parser.feed(&pending))
            }
            None => Ok(()),
        };
        let exit = self.child.wait();
        drop(self.helping);
        let errors = self.errors.join().unwrap_or_default();
        read.map_err(failed)?;
        let exit = exit.map_err(failed)?;
        if !exit.success() {
            return Err(git_failed(&self.command, &errors));
        }
        Ok(parser.status)
    }
}

/// The whole output at once.
#[cfg(test)]
fn parse_status(out: &[u8]) -> Status {
    let mut parser = StatusParser::default();
    parser.feed(out);
    parser.status
}

/// Parses `git status --porcelain=v2 --branch -z` output record by record,
/// fed as it arrives, each piece ending where a record ends (after its NUL,
/// or at the end of the output). Records git may add in later versions
/// (unknown headers or kinds) are skipped.
#[derive(Debug, Default)]
struct StatusParser {
    status: Status,
    /// The next record is a rename's original path (kind 2's second
    /// record), which may arrive in the next piece.
    origin_next: bool,
}

impl StatusParser {
    fn feed(&mut self, out: &[u8]) {
        for record in nul_separated(out) {
            if std::mem::take(&mut self.origin_next) {
                continue;
            }
            self.record(record);
        }
    }

    fn record(&mut self, record: &[u8]) {
        let status = &mut self.status;
        if let Some(header) = record.strip_prefix(b"# ") {
            let header = String::from_utf8_lossy(header);
            if let Some(oid) = header.strip_prefix("branch.oid ") {
                status.commit = Some(oid.to_string()).filter(|o| o != "(initial)");
            } else if let Some(head) = header.strip_prefix("branch.head ") {
                status.branch = Some(head.to_string()).filter(|h| h != "(detached)");
            }
            return;
        }
        // The number of space-separated fields before the path, by kind.
        let fields = match record.first() {
            Some(b'1') => 8,
            Some(b'2') => 9,
            Some(b'u') => 10,
            Some(b'!') => {
                if let Some(path) = record.strip_prefix(b"! ") {
                    status.ignored.push(shared_path(path));
                }
                return;
            }
            Some(b'?') => {
                if let Some(path) = record.strip_prefix(b"? ") {
                    status.entries.push(StatusEntry {
                        path: shared_path(path),
                        code: "??".into(),
                        state: String::new(),
                    });
                }
                return;
            }
            _ => return,
        };
        // A rename record (kind 2) is followed by the original path.
        self.origin_next = fields == 9;
        // The fields before the path are ASCII; the path is the rest, bytes
        // as stored (it may hold spaces).
        let mut parts = record.splitn(fields + 1, |&b| b == b' ');
        let _kind = parts.next();
        let code = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
        let code = std::borrow::Cow::Owned(code);
        let rest: Vec<&[u8]> = parts.collect();
        let Some((path, state)) = rest.split_last() else {
            return;
        };
        if rest.len() != fields - 1 {
            return;
        }
        let state: Vec<String> = state
            .iter()
            .map(|field| String::from_utf8_lossy(field).into_owned())
            .collect();
        status.entries.push(StatusEntry {
            path: shared_path(path),
            code,
            state: state.join(" "),
        });
    }
}

/// The records of `-z` output (a memchr per record: 200,000 of them for as
/// many untracked files).
fn nul_separated(mut rest: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(0, rest).unwrap_or(rest.len());
        let record = &rest[..end];
        rest = rest.get(end + 1..).unwrap_or_default();
        Some(record)
    })
}

/// [`path_from_bytes`], shared (one allocation, no copy made to share it).
fn shared_path(bytes: &[u8]) -> std::sync::Arc<Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::sync::Arc::from(Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        path_from_bytes(bytes).into()
    }
}

/// A path git printed with `-z`: its bytes as they are on Unix; on Windows
/// git prints UTF-8.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

#[cfg(test)]
mod tests;
