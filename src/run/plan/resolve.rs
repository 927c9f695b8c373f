//! Program and working-directory resolution: `which` or a path relative to
//! the worktree, symlinks followed and judged against the whitelist, and
//! again when a check starts (`at_start`).

use super::shell::{is_multi_call, is_shell, shell_listed};
use super::*;

/// Looks each program up, canonicalises each working directory and compiles
/// each list of `paths` globs once, however many checks share them (a lookup
/// on PATH is a dozen system calls; compiling builds a regex per glob, which
/// would be most of what loading a config costs).
#[derive(Default)]
pub(crate) struct Resolver<'c> {
    programs: HashMap<&'c str, Result<Resolved, Unusable>>,
    cwds: HashMap<&'c Path, PathBuf>,
    paths: HashMap<&'c [String], Result<GlobSet, String>>,
}

impl<'c> Resolver<'c> {
    /// `resolve_program` of a check's (or fix's) `run[0]`, remembered: the
    /// real path and the path to execute, or why it was not found (the
    /// check's `error`). A program the whitelist does not cover once its
    /// symlinks are followed is a config error naming the check. Scan
    /// checks have no program.
    #[allow(clippy::type_complexity)]
    pub(crate) fn check_program(
        &mut self,
        config: &Config,
        worktree: &Path,
        check: &'c CheckConfig,
    ) -> Result<(Result<PathBuf, String>, Option<PathBuf>), Error> {
        let CheckKind::Run(argv) = &check.kind else {
            return Ok((Err("scan".into()), None));
        };
        let allow = &config.settings.allow;
        let resolved = self
            .programs
            .entry(&argv[0])
            .or_insert_with(|| resolve_program(&argv[0], worktree, allow));
        let refused = |why: String| Error::Config {
            path: config.path.clone(),
            location: Some((check.line, 1)),
            key: Some(format!(
                "`run` of {} `{}`",
                if config.fixes.iter().any(|f| std::ptr::eq(f, check)) {
                    "fix"
                } else {
                    "check"
                },
                check.name
            )),
            message: why,
        };
        match resolved {
            Ok(found) => {
                // git under another name (`./tools/vcs` -> git): its
                // arguments are git's. A name that says git was read when
                // the config loaded.
                let real_name = found.real.file_name().and_then(|n| n.to_str());
                if real_name.is_some_and(git_args::is_git)
                    && !git_args::is_git(&argv[0])
                    && let Some(why) = git_args::refused(&argv[1..], allow)
                {
                    return Err(refused(why));
                }
                Ok((Ok(found.real.clone()), found.exec.clone()))
            }
            Err(Unusable::NotFound(why)) => Ok((Err(why.clone()), None)),
            Err(Unusable::Refused(why)) => Err(refused(why.clone())),
        }
    }

    /// The check's `paths` as one matcher (`None` without `paths`). The
    /// error (a set too large for the regex engine) names the check.
    pub(crate) fn paths(
        &mut self,
        config: &Config,
        check: &'c CheckConfig,
    ) -> Result<Option<&GlobSet>, Error> {
        let Some(globs) = &check.paths else {
            return Ok(None);
        };
        let compiled = self
            .paths
            .entry(check.path_globs.as_slice())
            .or_insert_with(|| {
                let mut builder = GlobSetBuilder::new();
                for glob in globs {
                    builder.add(glob.clone());
                }
                builder.build().map_err(|err| err.to_string())
            });
        match compiled {
            Ok(set) => Ok(Some(set)),
            Err(why) => Err(Error::Config {
                path: config.path.clone(),
                location: Some((check.line, 1)),
                key: Some(format!("`paths` of check `{}`", check.name)),
                message: why.clone(),
            }),
        }
    }

    /// `resolve_cwd`, remembered (an error names the check, so it is not).
    pub(crate) fn cwd(
        &mut self,
        config: &Config,
        worktree: &Path,
        check: &'c CheckConfig,
    ) -> Result<PathBuf, Error> {
        if let Some(cwd) = self.cwds.get(check.cwd.as_path()) {
            return Ok(cwd.clone());
        }
        let cwd = resolve_cwd(config, worktree, check)?;
        self.cwds.insert(&check.cwd, cwd.clone());
        Ok(cwd)
    }
}

/// A program found: its real path, and the path to execute when that is
/// not the real path (see `PlannedCheck::exec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Canonical, every symlink followed.
    pub(crate) real: PathBuf,
    /// The listed path or PATH entry, when a symlink leads from it to `real`.
    pub(crate) exec: Option<PathBuf>,
}

/// Why a listed program cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unusable {
    /// It is not there: the check's `error` status (the machine's fault,
    /// not the file's).
    NotFound(String),
    /// Its symlinks lead where the whitelist does not reach: a config error.
    Refused(String),
}

/// Resolves a whitelisted program: a name with a path separator relative to
/// the worktree, a bare name on PATH with `which`; then follows every
/// symlink (docs/checks-toml.md). A program reached through a symlink runs
/// by the path that reached it (`Resolved::exec`), wherever the link leads;
/// refused is a link that leads to a shell that `allow` does not list
/// (unless the listed name is a shell itself, as `sh` leading to `dash`, or
/// the target is a multi-call program that acts as the name it is run by).
pub(crate) fn resolve_program(
    program: &str,
    worktree: &Path,
    allow: &[String],
) -> Result<Resolved, Unusable> {
    let bare = !program.contains(['/', '\\']);
    let listed = if bare {
        which::which(program)
            .map_err(|_| Unusable::NotFound(format!("program `{program}` not found on PATH")))?
    } else {
        let path = listed_path(program, worktree);
        if !path.is_file() {
            return Err(Unusable::NotFound(format!(
                "program `{program}` not found in the worktree"
            )));
        }
        path
    };
    // A file that exists but cannot be canonicalised (a Windows app
    // execution alias is a reparse point that cannot be opened as a file)
    // is taken as it is found.
    let real = dunce::canonicalize(&listed).unwrap_or_else(|_| listed.clone());
    // The listed path read lexically (`..` removed, no link followed):
    // where the config says the program is.
    let plain = crate::paths::lexical(&listed);
    if real == plain {
        return Ok(Resolved { real, exec: None });
    }
    // The shell rule holds on the real file: what the kernel runs. A link
    // to busybox named `grep` runs busybox's `grep` (it is run by the
    // link's name), one named `sh` is a shell by its listed name.
    let name_is_shell = is_shell(Path::new(
        program.rsplit(['/', '\\']).next().unwrap_or(program),
    ));
    let multi_call_by_name = is_multi_call(&real) && !is_multi_call(&listed);
    if is_shell(&real)
        && !name_is_shell
        && !multi_call_by_name
        && !shell_listed(&real, worktree, allow)
    {
        return Err(Unusable::Refused(format!(
            "program `{program}` is a symlink to the shell `{}`, which `settings.allow` \
             does not list (a shell runs only when it is itself listed)",
            real.display()
        )));
    }
    Ok(Resolved {
        real,
        // Run by the path that was listed (or found on PATH), as a shell
        // runs it: a virtualenv's `bin/python` is a link to the base
        // interpreter and finds its environment only through its own path.
        // `at_start` checks again that it still leads to `real`.
        exec: Some(listed),
    })
}

/// Whether `check`'s program is a path (in the worktree, or absolute),
/// not a bare name looked up on PATH: a path an earlier check can create.
pub(crate) fn is_path(check: &CheckConfig) -> bool {
    matches!(&check.kind, CheckKind::Run(argv) if argv[0].contains(['/', '\\']))
}

/// What a check starts with, resolved again when it starts
/// (docs/checks-toml.md): an earlier check (through `needs`) may have turned
/// its `cwd` into a symlink out of the worktree, or its program's path into
/// a link to another file, since the plan was built. The error is the
/// check's one-line `error`; it does not run.
#[derive(Debug)]
pub(crate) struct AtStart {
    /// The working directory, canonical now.
    pub(crate) cwd: PathBuf,
    /// The program looked up now, for a check whose program was not there
    /// when the run began (`PlannedCheck::later`): its real path and the
    /// path to execute.
    pub(crate) program: Option<Resolved>,
}

/// Resolves `check`'s `cwd` and its program again. A `cwd` that no longer
/// exists, or that now lies outside the worktree, and a program whose path
/// to execute now leads to another file than planned (an earlier check
/// re-pointed a link or put one in the file's place: a virtualenv's
/// `python` turned into a link to a shell), are errors. The worktree itself
/// (`cwd` unset) is not resolved again: a check cannot turn it into a
/// symlink. Costs one `realpath` of the program per check start.
pub(crate) fn at_start(check: &PlannedCheck<'_>, worktree: &Path) -> Result<AtStart, String> {
    let cwd = if check.config.cwd.as_os_str().is_empty() {
        check.cwd.clone()
    } else {
        let cwd = worktree.join(&check.config.cwd);
        let real = dunce::canonicalize(&cwd)
            .map_err(|_| format!("working directory `{}` does not exist", cwd.display()))?;
        if !real.starts_with(worktree) {
            return Err(format!(
                "`cwd` `{}` resolves to `{}` when the check starts, outside the worktree \
                 (an earlier check changed it); not run",
                check.config.cwd.display(),
                real.display()
            ));
        }
        real
    };
    if let (Err(_), Some(allow), [program, ..]) = (&check.program, &check.later, check.argv()) {
        return match resolve_program(program, worktree, allow) {
            Ok(found) => Ok(AtStart {
                cwd,
                program: Some(found),
            }),
            Err(Unusable::NotFound(why)) => Err(format!(
                "{why} when the check started, after the checks it needs ran"
            )),
            Err(Unusable::Refused(why)) => Err(why),
        };
    }
    if let (Ok(planned), [program, ..]) = (&check.program, check.argv()) {
        let path = check.exec.as_deref().unwrap_or(planned);
        // A program that is gone is left to the spawn, which says so.
        if let Ok(now) = dunce::canonicalize(path)
            && now != *planned
        {
            return Err(format!(
                "program `{program}` resolves to `{}` when the check starts, not `{}` as when \
                 the run began (an earlier check replaced it); not run",
                now.display(),
                planned.display()
            ));
        }
    }
    Ok(AtStart { cwd, program: None })
}

/// The absolute working directory of a check; one that resolves (through a
/// symlink) outside the worktree is a config error. One that does not exist is
/// left for the runner to report as the check's error.
fn resolve_cwd(config: &Config, worktree: &Path, check: &CheckConfig) -> Result<PathBuf, Error> {
    let cwd = worktree.join(&check.cwd);
    if let Ok(real) = dunce::canonicalize(&cwd) {
        if !real.starts_with(worktree) {
            return Err(Error::Config {
                path: config.path.clone(),
                location: Some((check.line, 1)),
                key: Some(format!("`cwd` of check `{}`", check.name)),
                message: format!("resolves to {}, outside the worktree", real.display()),
            });
        }
        return Ok(real);
    }
    Ok(cwd)
}
