//! Config + command line → Plan: which checks this run executes, in which
//! order, with resolved facts (absolute program paths from `which`, effective
//! timeouts, absolute working directories, `needs` as indices). Building a plan
//! spawns nothing, so `list` and policy checks are free of side effects.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobSet, GlobSetBuilder};

use crate::config::{CheckConfig, CheckKind, Config, Mode, git_args};
use crate::error::Error;

/// What to select from the config.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    pub(crate) mode: Mode,
    /// `--only` names (empty: all).
    pub(crate) only: Vec<String>,
    /// `--skip` names.
    pub(crate) skip: Vec<String>,
    /// `--jobs`, overriding `settings.jobs`.
    pub(crate) jobs: Option<usize>,
    /// `--no-fail-fast`.
    pub(crate) no_fail_fast: bool,
    /// Fast mode's changed files (worktree-relative); `None`: no filtering.
    pub(crate) changed: Option<Vec<String>>,
    /// `--shard K/N` (and `--timings`): run only shard K (1-based) of N.
    pub(crate) shard: Option<Sharding>,
}

/// `--shard K/N`, balanced by `--timings` when given.
#[derive(Debug, Clone)]
pub(crate) struct Sharding {
    pub(crate) shard: Shard,
    /// `--timings`: an earlier run's durations balancing the shards; `None`:
    /// the hash split.
    pub(crate) timings: Option<Timings>,
}

/// `--timings EV.json`: what an earlier run's checks cost (docs/merge.md).
#[derive(Debug, Clone)]
pub(crate) struct Timings {
    /// The file as named on the command line (recorded in `meta.shard`).
    pub(crate) path: String,
    /// Milliseconds per check that ran to a verdict (pass or fail): a
    /// skipped or errored check's duration is not what it costs.
    pub(crate) durations: HashMap<String, u64>,
}

impl Timings {
    /// The durations of `evidence`'s checks that passed or failed; a name
    /// given twice (a hand-made file) counts at its longest.
    pub(crate) fn of(path: String, evidence: &run_check_documents::evidence::Evidence) -> Timings {
        use run_check_documents::evidence::Status;
        let mut durations: HashMap<String, u64> = HashMap::new();
        for check in &evidence.checks {
            if matches!(check.status, Status::Pass | Status::Fail) {
                let at = durations.entry(check.name.clone()).or_default();
                *at = (*at).max(check.duration_ms);
            }
        }
        Timings { path, durations }
    }

    /// The shard (1-based, of `count`) of each of `names` (the checks
    /// selected before sharding, unique): the ones without a duration where
    /// the hash puts them ([`Shard::of`]), each counting as the mean known
    /// duration; then the known ones longest first (ties by name) onto the
    /// least loaded shard (ties: the lowest index). A function of the names,
    /// the durations and `count` alone, so every shard's run computes the
    /// same split.
    pub(crate) fn split(&self, names: &[String], count: u32) -> Vec<u32> {
        let mut shard = vec![0u32; names.len()];
        let mut known: Vec<(u64, &str, usize)> = Vec::new();
        let mut unknown = Vec::new();
        for (i, name) in names.iter().enumerate() {
            match self.durations.get(name) {
                Some(&ms) => known.push((ms, name, i)),
                None => unknown.push(i),
            }
        }
        // In u128 and saturating: a hand-made file may hold any u64.
        let mean = match known.len() as u128 {
            0 => 0,
            n => {
                let sum: u128 = known.iter().map(|(ms, _, _)| u128::from(*ms)).sum();
                u64::try_from(sum / n).unwrap_or(u64::MAX)
            }
        };
        // Loads of the shards holding something; every other shard is empty.
        // (N may be far above the number of checks: no array of N loads.)
        let mut loads: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
        for i in unknown {
            let k = Shard::of(&names[i], count);
            shard[i] = k;
            let load = loads.entry(k).or_default();
            *load = load.saturating_add(mean);
        }
        known.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (ms, _, i) in known {
            let least = loads.iter().map(|(&k, &load)| (load, k)).min();
            let empty = (loads.len() < count as usize)
                .then(|| (1..=count).find(|k| !loads.contains_key(k)))
                .flatten()
                .map(|k| (0, k));
            let (_, k) = match (least, empty) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap_or((0, 1)),
            };
            shard[i] = k;
            let load = loads.entry(k).or_default();
            *load = load.saturating_add(ms);
        }
        shard
    }
}

/// One shard of a run split across machines (docs/merge.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    /// 1-based index.
    pub(crate) index: u32,
    /// Number of shards.
    pub(crate) count: u32,
}

impl Shard {
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub(crate) fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard `{text}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard (1-based) a check belongs to: a hash of its name alone, so
    /// adding or removing other checks never moves it.
    pub(crate) fn of(name: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(name.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32 + 1
    }

    /// Whether check `name` runs in this shard.
    pub(crate) fn contains(&self, name: &str) -> bool {
        Shard::of(name, self.count) == self.index
    }
}

/// A resolved run.
#[derive(Debug)]
pub(crate) struct Plan<'c> {
    pub(crate) mode: Mode,
    /// Absolute, canonical worktree.
    pub(crate) worktree: PathBuf,
    /// Effective parallelism (at least 1).
    pub(crate) jobs: usize,
    /// Stop launching after the first failure (fast mode unless --no-fail-fast).
    pub(crate) fail_fast: bool,
    /// A flaky check (failed, then passed on a retry) fails: strict mode
    /// under `settings.flaky = "fail"`.
    pub(crate) flaky_fails: bool,
    /// Bytes kept from each end of each stream.
    pub(crate) excerpt_bytes: usize,
    /// The selected checks, in file order.
    pub(crate) checks: Vec<PlannedCheck<'c>>,
    /// With `--shard`: the shard, and every check selected before sharding
    /// (in file order), so `merge` can restore the order.
    pub(crate) shard: Option<(Shard, Vec<String>)>,
    /// With `--timings`: the file as named on the command line.
    pub(crate) timings: Option<String>,
    /// `--baseline`: the diagnostics of an earlier evidence, which do not
    /// fail a check (set after `build`).
    pub(crate) baseline: Option<crate::run::baseline::Baseline>,
}

/// One selected check with its resolved facts.
#[derive(Debug)]
pub(crate) struct PlannedCheck<'c> {
    /// The check as configured.
    pub(crate) config: &'c CheckConfig,
    /// The program's real path (canonical, every symlink resolved: what the
    /// evidence records), or why it could not be found.
    pub(crate) program: Result<PathBuf, String>,
    /// The path to execute (and `argv[0]`) when it is not `program`: a
    /// listed path or a PATH entry that reaches its file through a symlink
    /// runs by that path, as a shell would run it, so a virtualenv's
    /// `bin/python` finds its `pyvenv.cfg` and a multi-call program
    /// (rustup's `cargo`, busybox's `grep`) sees the name it was called by.
    pub(crate) exec: Option<PathBuf>,
    /// Effective timeout.
    pub(crate) timeout: Duration,
    /// Absolute working directory.
    pub(crate) cwd: PathBuf,
    /// Indices (in `Plan::checks`) of the selected checks this one needs.
    pub(crate) needs: Vec<usize>,
    /// Why the check is skipped before it starts (fast mode's `paths`).
    pub(crate) skip: Option<String>,
    /// Its result found in the result cache: it does not start (set after
    /// `build`, by `cache::begin`).
    pub(crate) hit: Option<Box<crate::run::cache::Cached>>,
    /// Its evidence's `cache` field when it is not a hit (`off` unless
    /// `cache::begin` made its key).
    pub(crate) cache: run_check_documents::evidence::CacheUse,
}

impl PlannedCheck<'_> {
    /// The check's name.
    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    /// The argv as configured (empty for scan checks).
    pub(crate) fn argv(&self) -> &[String] {
        match &self.config.kind {
            CheckKind::Run(argv) => argv,
            CheckKind::Scan(_) => &[],
        }
    }
}

/// Logical CPUs, at least 1.
pub(crate) fn logical_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Builds the plan of `selection` over `config` in `worktree` (canonical).
pub(crate) fn build<'c>(
    config: &'c Config,
    worktree: &Path,
    selection: &Selection,
) -> Result<Plan<'c>, Error> {
    for (flag, names) in [("--only", &selection.only), ("--skip", &selection.skip)] {
        for name in names {
            let Some(check) = config.checks.iter().find(|c| &c.name == name) else {
                return Err(Error::Usage(format!(
                    "{flag} `{name}`: no check of that name in {}",
                    config.path.display()
                )));
            };
            // Asking for a check the mode leaves out would run nothing and
            // pass; skipping one is harmless, so `--skip` stays accepted.
            if flag == "--only" && !check.modes.contains(&selection.mode) {
                let modes: Vec<&str> = check.modes.iter().map(|m| m.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--only `{name}`: the check does not run in {} mode (its modes: {})",
                    selection.mode.as_str(),
                    if modes.is_empty() {
                        "none".to_string()
                    } else {
                        modes.join(", ")
                    }
                )));
            }
        }
    }
    let selected: Vec<&CheckConfig> = config
        .checks
        .iter()
        .filter(|c| c.modes.contains(&selection.mode))
        .filter(|c| selection.only.is_empty() || selection.only.contains(&c.name))
        .filter(|c| !selection.skip.contains(&c.name))
        .collect();
    let shard = selection.shard.as_ref().map(|sharding| {
        let all: Vec<String> = selected.iter().map(|c| c.name.clone()).collect();
        (sharding.shard, all)
    });
    let selected: Vec<&CheckConfig> = match (&selection.shard, &shard) {
        (
            Some(Sharding {
                shard,
                timings: Some(timings),
            }),
            Some((_, all)),
        ) => {
            let split = timings.split(all, shard.count);
            selected
                .into_iter()
                .zip(split)
                .filter(|(_, k)| *k == shard.index)
                .map(|(c, _)| c)
                .collect()
        }
        (Some(Sharding { shard, .. }), _) => selected
            .into_iter()
            .filter(|c| shard.contains(&c.name))
            .collect(),
        (None, _) => selected,
    };

    let mut checks = Vec::with_capacity(selected.len());
    let mut resolver = Resolver::default();
    for check in &selected {
        let cwd = resolver.cwd(config, worktree, check)?;
        // A need that is not selected in this run orders nothing.
        let needs = check
            .needs
            .iter()
            .filter_map(|need| selected.iter().position(|c| &c.name == need))
            .collect();
        let (program, exec) = resolver.check_program(config, worktree, check)?;
        let skip = match &selection.changed {
            Some(changed) => match resolver.paths(config, check)? {
                Some(set) if !changed.iter().any(|f| set.is_match(f)) => {
                    Some(no_match_reason(&check.path_globs))
                }
                _ => None,
            },
            None => None,
        };
        checks.push(PlannedCheck {
            config: check,
            program,
            exec,
            timeout: check.timeout.unwrap_or(config.settings.timeout),
            cwd,
            needs,
            skip,
            hit: None,
            cache: Default::default(),
        });
    }
    let jobs = match selection.jobs.unwrap_or(config.settings.jobs) {
        0 => logical_cpus(),
        n => n,
    };
    Ok(Plan {
        mode: selection.mode,
        worktree: worktree.to_path_buf(),
        jobs,
        fail_fast: selection.mode == Mode::Fast && !selection.no_fail_fast,
        flaky_fails: selection.mode == Mode::Strict
            && config.settings.flaky == crate::config::FlakyPolicy::Fail,
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard,
        timings: selection
            .shard
            .as_ref()
            .and_then(|s| s.timings.as_ref())
            .map(|t| t.path.clone()),
        baseline: None,
    })
}

/// The plan of `run-check fix`: the `[[fix]]` commands (all, or those named
/// by `only`), one at a time in file order — they write, so never in parallel.
pub(crate) fn build_fixes<'c>(
    config: &'c Config,
    worktree: &Path,
    only: &[String],
) -> Result<Plan<'c>, Error> {
    for name in only {
        if !config.fixes.iter().any(|f| &f.name == name) {
            return Err(Error::Usage(format!(
                "--only `{name}`: no fix of that name in {}",
                config.path.display()
            )));
        }
    }
    let mut checks = Vec::new();
    let mut resolver = Resolver::default();
    for fix in config
        .fixes
        .iter()
        .filter(|f| only.is_empty() || only.contains(&f.name))
    {
        let (program, exec) = resolver.check_program(config, worktree, fix)?;
        checks.push(PlannedCheck {
            config: fix,
            program,
            exec,
            timeout: fix.timeout.unwrap_or(config.settings.timeout),
            cwd: resolver.cwd(config, worktree, fix)?,
            needs: Vec::new(),
            skip: None,
            hit: None,
            cache: Default::default(),
        });
    }
    Ok(Plan {
        mode: Mode::Strict,
        worktree: worktree.to_path_buf(),
        jobs: 1,
        fail_fast: false,
        flaky_fails: false,
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard: None,
        timings: None,
        baseline: None,
    })
}

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

/// Programs that run a string or a file as a script: a symlink that leads
/// to one is a shell, whatever it is called. Compared by file name, ignoring
/// ASCII case and a `.exe`. busybox and toybox are shells when run by their
/// own name (`busybox sh -c ...`).
pub(crate) const SHELL_PROGRAMS: [&str; 24] = [
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "ksh93",
    "mksh",
    "lksh",
    "pdksh",
    "oksh",
    "ash",
    "yash",
    "rbash",
    "posh",
    "csh",
    "tcsh",
    "fish",
    "nu",
    "elvish",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
    "busybox",
];

/// Multi-call programs that act as the tool they are called as: `grep` or
/// `./bin/grep` linked to busybox runs busybox's `grep` (run-check runs a
/// link by its own name), so only one run by its own name is a shell.
const MULTI_CALL: [&str; 2] = ["busybox", "toybox"];

/// Whether the file name of `path` names a shell (`SHELL_PROGRAMS`, or
/// toybox).
pub(crate) fn is_shell(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    SHELL_PROGRAMS.contains(&name) || name == "toybox"
}

fn is_multi_call(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.to_ascii_lowercase())
        .is_some_and(|n| MULTI_CALL.contains(&n.strip_suffix(".exe").unwrap_or(&n)))
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

/// Whether `allow` lists the shell `real` itself: an entry that names a
/// shell and resolves to the same file.
fn shell_listed(real: &Path, worktree: &Path, allow: &[String]) -> bool {
    allow.iter().any(|entry| {
        let name = entry.rsplit(['/', '\\']).next().unwrap_or(entry);
        if !is_shell(Path::new(name)) {
            return false;
        }
        let path = if entry.contains(['/', '\\']) {
            Some(listed_path(entry, worktree))
        } else {
            which::which(entry).ok()
        };
        path.and_then(|p| dunce::canonicalize(p).ok())
            .is_some_and(|p| p == real)
    })
}

/// The path a listed program with a separator names: absolute as written,
/// else relative to the worktree (`/` and `\` both separate,
/// docs/checks-toml.md, so a config written on Windows (`.\scripts\lint.sh`) runs elsewhere
/// too).
fn listed_path(program: &str, worktree: &Path) -> PathBuf {
    if Path::new(program).is_absolute() {
        return PathBuf::from(program);
    }
    let mut path = worktree.to_path_buf();
    path.extend(
        program
            .split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != "."),
    );
    path
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
    Ok(AtStart { cwd })
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

/// Fast mode's skip reason: the first three globs of `paths`, the rest
/// counted (`+12 more`), so the line stays readable.
fn no_match_reason(globs: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut shown = globs[..globs.len().min(SHOWN)].join(", ");
    if globs.len() > SHOWN {
        shown.push_str(&format!(", +{} more", globs.len() - SHOWN));
    }
    format!("no changed file matches `paths` ({shown})")
}

#[cfg(test)]
mod tests;
