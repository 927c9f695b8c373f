//! Config + command line → Plan: which checks this run executes, in which
//! order, with resolved facts (absolute program paths from `which`, effective
//! timeouts, absolute working directories, `needs` as indices). Building a plan
//! spawns nothing, so `list` and policy checks are free of side effects.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobSet, GlobSetBuilder};

use crate::config::{CheckConfig, CheckKind, Config, Mode};
use crate::error::Error;

/// What to select from the config.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The mode.
    pub mode: Mode,
    /// `--only` names (empty: all).
    pub only: Vec<String>,
    /// `--skip` names.
    pub skip: Vec<String>,
    /// `--jobs`, overriding `settings.jobs`.
    pub jobs: Option<usize>,
    /// `--no-fail-fast`.
    pub no_fail_fast: bool,
    /// Fast mode's changed files (worktree-relative); `None`: no filtering.
    pub changed: Option<Vec<String>>,
    /// `--shard K/N`: run only shard K (1-based) of N.
    pub shard: Option<Shard>,
}

/// One shard of a run split across machines (SPEC section 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based index.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub fn parse(text: &str) -> Result<Shard, String> {
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
    pub fn of(name: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(name.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32 + 1
    }

    /// Whether check `name` runs in this shard.
    pub fn contains(&self, name: &str) -> bool {
        Shard::of(name, self.count) == self.index
    }
}

/// A resolved run.
#[derive(Debug)]
pub struct Plan<'c> {
    /// The mode.
    pub mode: Mode,
    /// Absolute, canonical worktree.
    pub worktree: PathBuf,
    /// Effective parallelism (at least 1).
    pub jobs: usize,
    /// Stop launching after the first failure (fast mode unless --no-fail-fast).
    pub fail_fast: bool,
    /// Bytes kept from each end of each stream.
    pub excerpt_bytes: usize,
    /// The selected checks, in file order.
    pub checks: Vec<PlannedCheck<'c>>,
    /// With `--shard`: the shard, and every check selected before sharding
    /// (in file order), so `merge` can restore the order.
    pub shard: Option<(Shard, Vec<String>)>,
}

/// One selected check with its resolved facts.
#[derive(Debug)]
pub struct PlannedCheck<'c> {
    /// The check as configured.
    pub config: &'c CheckConfig,
    /// The absolute program path, or why it could not be found.
    pub program: Result<PathBuf, String>,
    /// Effective timeout.
    pub timeout: Duration,
    /// Absolute working directory.
    pub cwd: PathBuf,
    /// Indices (in `Plan::checks`) of the selected checks this one needs.
    pub needs: Vec<usize>,
    /// Why the check is skipped before it starts (fast mode's `paths`).
    pub skip: Option<String>,
}

impl PlannedCheck<'_> {
    /// The check's name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The argv as configured (empty for scan checks).
    pub fn argv(&self) -> &[String] {
        match &self.config.kind {
            CheckKind::Run(argv) => argv,
            CheckKind::Scan(_) => &[],
        }
    }
}

/// Logical CPUs, at least 1.
pub fn logical_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Builds the plan of `selection` over `config` in `worktree` (canonical).
pub fn build<'c>(
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
    let shard = selection.shard.map(|shard| {
        let all: Vec<String> = selected.iter().map(|c| c.name.clone()).collect();
        (shard, all)
    });
    let selected: Vec<&CheckConfig> = match &selection.shard {
        Some(shard) => selected
            .into_iter()
            .filter(|c| shard.contains(&c.name))
            .collect(),
        None => selected,
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
        let program = match &check.kind {
            CheckKind::Run(argv) => resolver.program(&argv[0], worktree),
            CheckKind::Scan(_) => Err("scan".into()),
        };
        let skip = match &selection.changed {
            Some(changed) => match resolver.paths(config, check)? {
                Some(set) if !changed.iter().any(|f| set.is_match(f)) => Some(format!(
                    "no changed file matches `paths` ({})",
                    check.path_globs.join(", ")
                )),
                _ => None,
            },
            None => None,
        };
        checks.push(PlannedCheck {
            config: check,
            program,
            timeout: check.timeout.unwrap_or(config.settings.timeout),
            cwd,
            needs,
            skip,
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
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard,
    })
}

/// The plan of `run-check fix`: the `[[fix]]` commands (all, or those named
/// by `only`), one at a time in file order — they write, so never in parallel.
pub fn build_fixes<'c>(
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
        checks.push(PlannedCheck {
            config: fix,
            program: match &fix.kind {
                CheckKind::Run(argv) => resolver.program(&argv[0], worktree),
                CheckKind::Scan(_) => Err("scan".into()),
            },
            timeout: fix.timeout.unwrap_or(config.settings.timeout),
            cwd: resolver.cwd(config, worktree, fix)?,
            needs: Vec::new(),
            skip: None,
        });
    }
    Ok(Plan {
        mode: Mode::Strict,
        worktree: worktree.to_path_buf(),
        jobs: 1,
        fail_fast: false,
        excerpt_bytes: config.settings.excerpt_bytes,
        checks,
        shard: None,
    })
}

/// Looks each program up, canonicalises each working directory and compiles
/// each list of `paths` globs once, however many checks share them (a lookup
/// on PATH is a dozen system calls; compiling builds a regex per glob, which
/// would be most of what loading a config costs).
#[derive(Default)]
pub struct Resolver<'c> {
    programs: HashMap<&'c str, Result<PathBuf, String>>,
    cwds: HashMap<&'c Path, PathBuf>,
    paths: HashMap<&'c [String], Result<GlobSet, String>>,
}

impl<'c> Resolver<'c> {
    /// `resolve_program`, remembered.
    pub fn program(&mut self, program: &'c str, worktree: &Path) -> Result<PathBuf, String> {
        self.programs
            .entry(program)
            .or_insert_with(|| resolve_program(program, worktree))
            .clone()
    }

    /// The check's `paths` as one matcher (`None` without `paths`). The
    /// error (a set too large for the regex engine) names the check.
    pub fn paths(
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
    pub fn cwd(
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

/// Resolves a whitelisted program: a name with a path separator relative to
/// the worktree, a bare name on PATH with `which`.
fn resolve_program(program: &str, worktree: &Path) -> Result<PathBuf, String> {
    if !program.contains(['/', '\\']) {
        return which::which(program).map_err(|_| format!("program `{program}` not found on PATH"));
    }
    // SPEC section 3: `/` and `\` both make a path, on every platform, so a
    // config written on Windows (`.\scripts\lint.sh`) runs elsewhere too.
    let path = if Path::new(program).is_absolute() {
        PathBuf::from(program)
    } else {
        let mut path = worktree.to_path_buf();
        path.extend(
            program
                .split(['/', '\\'])
                .filter(|c| !c.is_empty() && *c != "."),
        );
        path
    };
    if !path.is_file() {
        return Err(format!("program `{program}` not found in the worktree"));
    }
    // Recorded canonical (no `.` or `..`, directories' symlinks resolved as
    // the OS resolves them), but keeping the program's own file name: a
    // symlinked tool still runs under the name it was given.
    match (path.parent().map(dunce::canonicalize), path.file_name()) {
        (Some(Ok(dir)), Some(name)) => Ok(dir.join(name)),
        _ => Ok(path),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;

    fn config(text: &str) -> Config {
        config::parse(text, Path::new("checks.toml"), String::new()).unwrap()
    }

    fn selection(mode: Mode) -> Selection {
        Selection {
            mode,
            only: vec![],
            skip: vec![],
            jobs: Some(3),
            no_fail_fast: false,
            changed: None,
            shard: None,
        }
    }

    const TEXT: &str = r#"
[settings]
allow = ["true", "./tool.sh", "definitely-not-a-program-xyz"]
timeout = "7s"
[[check]]
name = "a"
run = ["true"]
modes = ["fast", "strict"]
[[check]]
name = "b"
run = ["./tool.sh"]
needs = ["a"]
timeout = "1s"
[[check]]
name = "c"
run = ["definitely-not-a-program-xyz"]
needs = ["b"]
modes = ["fast"]
"#;

    #[test]
    fn selects_by_mode_and_maps_needs_to_indices() {
        let config = config(TEXT);
        let dir = tempfile::tempdir().unwrap();
        let worktree = dir.path().canonicalize().unwrap();
        let plan = build(&config, &worktree, &selection(Mode::Fast)).unwrap();
        let names: Vec<&str> = plan.checks.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["a", "c"]);
        // `c` needs `b`, which fast mode does not select: no ordering.
        assert!(plan.checks[1].needs.is_empty());
        assert!(plan.fail_fast);
        assert_eq!(plan.jobs, 3);
        assert_eq!(plan.checks[0].timeout, Duration::from_secs(7));
        assert_eq!(
            plan.checks[1].program,
            Err("program `definitely-not-a-program-xyz` not found on PATH".to_string())
        );

        let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
        assert_eq!(plan.checks[1].needs, vec![0]);
        assert_eq!(plan.checks[1].timeout, Duration::from_secs(1));
        assert!(!plan.fail_fast);
        assert_eq!(
            plan.checks[1].program,
            Err("program `./tool.sh` not found in the worktree".to_string())
        );
        std::fs::write(worktree.join("tool.sh"), "").unwrap();
        let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
        assert_eq!(plan.checks[1].program, Ok(worktree.join("tool.sh")));
        assert!(plan.checks[0].program.as_ref().unwrap().is_absolute());
    }

    #[test]
    #[cfg(unix)]
    fn shared_cwds_resolve_once_and_an_escape_still_names_its_check() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("w/sub")).unwrap();
        let worktree = dir.path().join("w").canonicalize().unwrap();
        std::os::unix::fs::symlink(dir.path(), worktree.join("out")).unwrap();
        let text = "[settings]\nallow = [\"true\"]\n\
            [[check]]\nname = \"a\"\nrun = [\"true\"]\ncwd = \"sub\"\n\
            [[check]]\nname = \"b\"\nrun = [\"true\"]\ncwd = \"sub\"\n\
            [[check]]\nname = \"c\"\nrun = [\"true\"]\ncwd = \"out\"\n";
        let config = config(text);
        let mut resolver = Resolver::default();
        let a = resolver.cwd(&config, &worktree, &config.checks[0]).unwrap();
        assert_eq!(a, worktree.join("sub"));
        // Removed after the first lookup: the second check gets the answer
        // remembered, not a fresh (now failing) canonicalisation.
        std::fs::remove_dir(worktree.join("sub")).unwrap();
        let b = resolver.cwd(&config, &worktree, &config.checks[1]).unwrap();
        assert_eq!(b, a);
        let err = resolver
            .cwd(&config, &worktree, &config.checks[2])
            .unwrap_err();
        assert!(err.to_string().contains("`cwd` of check `c`"), "{err}");
        let program = resolver.program("true", &worktree).unwrap();
        assert!(
            program.is_absolute() && program.ends_with("true"),
            "{program:?}"
        );
        assert_eq!(
            resolver.program("./missing.sh", &worktree),
            Err("program `./missing.sh` not found in the worktree".to_string())
        );
    }

    #[test]
    fn shards_are_parsed_strictly_and_split_by_name_alone() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "2", "1/2/3", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        // A name's shard never depends on the other names.
        let names: Vec<String> = (0..50).map(|i| format!("check-{i}")).collect();
        let before: Vec<u32> = names.iter().map(|n| Shard::of(n, 3)).collect();
        assert!(before.iter().all(|&k| (1..=3).contains(&k)));
        // Every shard gets some of 50 names (sha256 spreads them).
        for k in 1..=3 {
            assert!(before.contains(&k), "shard {k} empty");
        }
        assert_eq!(Shard::of("check-7", 3), before[7]);
        assert_eq!(Shard::of("anything", 1), 1);
    }

    #[test]
    fn only_and_skip_filter_and_reject_unknown_names() {
        let config = config(TEXT);
        let dir = tempfile::tempdir().unwrap();
        let mut sel = selection(Mode::Strict);
        sel.skip = vec!["a".into()];
        let plan = build(&config, dir.path(), &sel).unwrap();
        assert_eq!(plan.checks.len(), 1);
        sel.only = vec!["zz".into()];
        let err = build(&config, dir.path(), &sel).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--only `zz`: no check of that name in checks.toml"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_path_program_is_recorded_canonical() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let worktree = root.join("wt");
        std::fs::create_dir_all(worktree.join("scripts")).unwrap();
        for file in [root.join("tool.sh"), worktree.join("scripts/lint.sh")] {
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let lint = worktree.join("scripts").join("lint.sh");
        assert_eq!(
            resolve_program("../tool.sh", &worktree),
            Ok(root.join("tool.sh"))
        );
        assert_eq!(
            resolve_program("./scripts/../scripts/lint.sh", &worktree),
            Ok(lint.clone())
        );
        // `\` separates on every platform (SPEC section 3).
        assert_eq!(
            resolve_program(".\\scripts\\lint.sh", &worktree),
            Ok(lint.clone())
        );
        assert_eq!(resolve_program("scripts\\lint.sh", &worktree), Ok(lint));
        assert_eq!(
            resolve_program("./scripts", &worktree),
            Err("program `./scripts` not found in the worktree".into())
        );
        let absolute = root.join("tool.sh");
        let absolute = absolute.to_str().unwrap();
        assert_eq!(
            resolve_program(absolute, &worktree),
            Ok(root.join("tool.sh"))
        );
    }

    #[test]
    fn paths_patterns_match_as_the_readme_says() {
        let config = config(
            "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"true\"]\n\
             paths = [\"*.rs\", \"./docs/\", \"Makefile\"]\n",
        );
        let mut resolver = Resolver::default();
        let set = resolver.paths(&config, &config.checks[0]).unwrap().unwrap();
        for (path, matches) in [
            ("a.rs", true),
            ("src/deep/a.rs", true),
            ("docs/a/b.md", true),
            ("docs", false),
            ("Makefile", true),
            ("Makefile/x", true),
            ("src/Makefile", false),
            ("README.md", false),
        ] {
            assert_eq!(set.is_match(path), matches, "{path}");
        }
    }

    #[test]
    fn only_a_check_outside_the_mode_is_an_error_and_skip_is_not() {
        let config = config(
            "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"s\"\nrun = [\"true\"]\n\
             [[check]]\nname = \"n\"\nrun = [\"true\"]\nmodes = []\n",
        );
        let dir = tempfile::tempdir().unwrap();
        let mut sel = selection(Mode::Fast);
        sel.skip = vec!["s".into()];
        assert_eq!(build(&config, dir.path(), &sel).unwrap().checks.len(), 0);
        sel.only = vec!["s".into()];
        let err = build(&config, dir.path(), &sel).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--only `s`: the check does not run in fast mode (its modes: strict)"
        );
        sel.only = vec!["n".into()];
        let err = build(&config, dir.path(), &sel).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--only `n`: the check does not run in fast mode (its modes: none)"
        );
    }
}
