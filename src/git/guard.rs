//! What keeps run-check's git processes from running any program but git.
//!
//! The repository under test decides what its git runs: `.git/config`,
//! the global and system config and their includes can define a filter
//! driver (`filter.<name>.clean`, `.smudge`, `.process`), and any attributes
//! file (`.gitattributes` anywhere, `.git/info/attributes`,
//! `core.attributesFile`) can give it to a path. `git status` then pipes a
//! changed file through that program to compare it with the index, so the
//! program decides what is "unchanged", and can start a daemon that
//! outlives the gate. Attributes cannot be turned off (`--attr-source`
//! replaces only the in-tree files; `info/attributes` is always read), but
//! a driver is nothing without its config: git's `apply_filter` (convert.c)
//! runs a filter only when its command is not empty (`cmd && *cmd`,
//! `drv->process && *drv->process`). So one question, `git config
//! --get-regexp`, lists every driver name the config defines at any level
//! (git itself follows the includes and reads `GIT_CONFIG_*`), and every
//! git process of run-check gets `-c filter.<name>.clean=` (and `smudge`,
//! `process`, `required=false`, so that git does not stop on a filter it
//! may not run) for each. The same answer names each
//! `protocol.<name>.allow` (overridden with `never`, beside
//! `protocol.allow=never`): a lazy fetch of a partial clone would start a
//! transport (`ext::` runs a shell command) and a credential helper.
//!
//! The answer holds while the config is what it was: the files it came
//! from (every config file git reads, the files their includes name,
//! `HEAD` for `includeIf.onbranch`) are read again before each git process
//! (a few small files), and a change asks again. Submodules: `git status`
//! runs `git status` in each checked-out submodule, whose config can define
//! drivers of its own, so each submodule's config is asked too (the `-c`
//! options reach git's child processes through `GIT_CONFIG_PARAMETERS`).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

/// The config keys asked: the drivers that run programs, the transports,
/// the includes (whose files the answer depends on), the excludes and
/// attributes files (read-only verification watches them), and the pinned
/// settings (`pins.rs`: where the repository relaxes one, the
/// gate says so).
pub(super) const KEYS: &str = concat!(
    r"^(filter|protocol|include|includeif)\.|^core\.(excludesfile|attributesfile)$|",
    "^core\\.(checkstat|trustctime|ignorestat|fsmonitor|untrackedcache|splitindex|filemode|symlinks|ignorecase)$|^index\\.skiphash$|^diff\\.ignoresubmodules$"
);

/// The question, after the common arguments.
pub(super) const QUESTION: [&str; 5] = ["config", "-z", "--show-origin", "--get-regexp", KEYS];

/// What one repository's config answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Answer {
    /// The filter drivers defined (their subsection names, as stored).
    filters: BTreeSet<String>,
    /// The protocols given a `protocol.<name>.allow`.
    protocols: BTreeSet<String>,
    /// The files the answer came from, and those their includes name.
    sources: BTreeSet<PathBuf>,
    /// The last `core.excludesFile`, as written.
    pub(super) excludes_file: Option<Vec<u8>>,
    /// The last `core.attributesFile`, as written.
    pub(super) attributes_file: Option<Vec<u8>>,
    /// Each pinned setting found (`pins.rs`), in git's order: the file it
    /// came from (`None`: the command line or the environment), its key and
    /// its value (`None`: written without `=`).
    pinned: Vec<(Option<PathBuf>, String, Option<Vec<u8>>)>,
}

/// Parses the answer of [`QUESTION`] asked in `dir` (`-z --show-origin`:
/// `file:PATH`, then `KEY\nVALUE`, or `KEY` alone for a key without a
/// value). Paths git printed relative are relative to `dir`.
pub(super) fn parse(out: &[u8], dir: &Path) -> Answer {
    let mut answer = Answer::default();
    let mut records = out.split(|&b| b == 0);
    while let (Some(origin), Some(entry)) = (records.next(), records.next()) {
        let origin = origin
            .strip_prefix(b"file:")
            .map(|path| dir.join(super::path_from_bytes(path)));
        if let Some(origin) = &origin {
            answer.sources.insert(origin.clone());
        }
        let (key, value) = match memchr::memchr(b'\n', entry) {
            Some(at) => (&entry[..at], Some(&entry[at + 1..])),
            None => (entry, None),
        };
        let key = String::from_utf8_lossy(key);
        let (section, rest) = key.split_once('.').unwrap_or((&key, ""));
        let (subsection, name) = match rest.rsplit_once('.') {
            Some((subsection, name)) => (Some(subsection), name),
            None => (None, rest),
        };
        match (section, subsection, name) {
            ("filter", Some(driver), _) => {
                answer.filters.insert(driver.to_string());
            }
            ("protocol", Some(protocol), _) => {
                answer.protocols.insert(protocol.to_string());
            }
            ("include" | "includeif", _, "path") => {
                if let Some(path) = value.and_then(|v| include_path(v, origin.as_deref())) {
                    answer.sources.insert(path);
                }
            }
            ("core", None, "excludesfile") => answer.excludes_file = value.map(<[u8]>::to_vec),
            ("core", None, "attributesfile") => {
                answer.attributes_file = value.map(<[u8]>::to_vec);
            }
            ("core" | "index" | "diff", None, _) => {
                answer
                    .pinned
                    .push((origin.clone(), key.to_string(), value.map(<[u8]>::to_vec)));
            }
            _ => {}
        }
    }
    answer
}

/// The file an include names: `~/` is the home directory, a relative path
/// is relative to the file holding the include (git's rule).
fn include_path(value: &[u8], origin: Option<&Path>) -> Option<PathBuf> {
    let path = super::expand_home(value)?;
    if path.is_absolute() {
        return Some(path);
    }
    Some(origin?.parent()?.join(path))
}

/// The overrides every git process of a run gets, and what they were
/// derived from.
#[derive(Debug)]
pub(super) struct Guard {
    /// The top level's answer, then one per submodule asked.
    answers: Vec<Answer>,
    /// The submodule worktrees whose config was asked.
    submodules: Vec<PathBuf>,
    /// Files the answers depend on besides their sources (the config
    /// files git reads even when they define nothing, `HEAD`).
    fixed: Vec<PathBuf>,
    /// Each file the answers depend on, with its content hash when asked
    /// (`None`: not there).
    stamps: Vec<(PathBuf, Option<[u8; 32]>)>,
    /// The overrides of the answers.
    overrides: Arc<Overrides>,
    /// Whether the worktree's file system folds case (the pin of
    /// `core.ignoreCase`).
    folds: bool,
}

/// Config given to a git process on top of the repository's.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Overrides {
    /// `-c KEY=VALUE` arguments.
    pub(super) args: Vec<OsString>,
    /// Environment variables: a key that holds `=` (a driver named `a=b`)
    /// cannot be given with `-c`, which splits at the first `=`; it goes
    /// into `GIT_CONFIG_KEY_<n>` / `GIT_CONFIG_VALUE_<n>` instead.
    pub(super) env: Vec<(OsString, OsString)>,
}

impl Guard {
    /// A guard of the top level's `answer`, which depends on `fixed` too;
    /// `folds`: the worktree's file system folds case.
    pub(super) fn new(answer: Answer, fixed: Vec<PathBuf>, folds: bool) -> Guard {
        let mut guard = Guard {
            answers: vec![answer],
            submodules: Vec::new(),
            fixed,
            stamps: Vec::new(),
            overrides: Arc::default(),
            folds,
        };
        guard.settle();
        guard
    }

    /// The overrides in force.
    pub(super) fn overrides(&self) -> Arc<Overrides> {
        Arc::clone(&self.overrides)
    }

    /// Whether a file the answers depend on changed since they were given.
    pub(super) fn stale(&self) -> bool {
        self.stamps
            .iter()
            .any(|(path, stamp)| stamp_of(path) != *stamp)
    }

    /// The files of the top level's config that set a pinned setting to
    /// something else than its pin (the last value of a key wins, as in
    /// git).
    pub(super) fn relaxed(&self) -> Vec<&Path> {
        let Some(top) = self.answers.first() else {
            return Vec::new();
        };
        let mut last: Vec<(&str, &Path, bool)> = Vec::new();
        // Only the config files: the command line holds the pins
        // themselves (the question is asked with them).
        for (origin, key, value) in &top.pinned {
            let Some(origin) = origin else {
                continue;
            };
            let relaxes = super::pins::relaxes(key, value.as_deref(), self.folds);
            last.retain(|(k, _, _)| *k != key.as_str());
            last.push((key, origin, relaxes));
        }
        last.into_iter()
            .filter_map(|(_, origin, relaxes)| relaxes.then_some(origin))
            .collect()
    }

    /// The submodule worktrees asked.
    pub(super) fn submodules(&self) -> &[PathBuf] {
        &self.submodules
    }

    /// Replaces the answers (the top level's first, then the submodules'
    /// of `submodules`, each with the config file it reads).
    pub(super) fn answered(
        &mut self,
        answers: Vec<Answer>,
        submodules: Vec<PathBuf>,
        more_fixed: Vec<PathBuf>,
    ) {
        self.answers = answers;
        self.submodules = submodules;
        for path in more_fixed {
            if !self.fixed.contains(&path) {
                self.fixed.push(path);
            }
        }
        self.settle();
    }

    /// Stamps the files and derives the overrides.
    fn settle(&mut self) {
        let files: BTreeSet<&PathBuf> = self
            .answers
            .iter()
            .flat_map(|a| &a.sources)
            .chain(&self.fixed)
            .collect();
        self.stamps = files
            .into_iter()
            .map(|path| (path.clone(), stamp_of(path)))
            .collect();
        let filters: BTreeSet<&String> = self.answers.iter().flat_map(|a| &a.filters).collect();
        let protocols: BTreeSet<&String> = self.answers.iter().flat_map(|a| &a.protocols).collect();
        let folds = super::pins::ignore_case_arg(self.folds);
        let (key, value) = folds.split_once('=').unwrap_or((folds, ""));
        let mut pairs: Vec<(String, &str)> =
            vec![("protocol.allow".into(), "never"), (key.into(), value)];
        for driver in filters {
            for (name, value) in [
                ("clean", ""),
                ("smudge", ""),
                ("process", ""),
                ("required", "false"),
            ] {
                pairs.push((format!("filter.{driver}.{name}"), value));
            }
        }
        for protocol in protocols {
            pairs.push((format!("protocol.{protocol}.allow"), "never"));
        }
        self.overrides = Arc::new(overrides_of(&pairs, env_count()));
    }
}

/// `GIT_CONFIG_COUNT` as run-check was given it (entries it already holds
/// come first).
fn env_count() -> usize {
    std::env::var("GIT_CONFIG_COUNT")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// `-c` arguments for `pairs`, and environment entries (numbered from
/// `first`) for keys `-c` cannot carry.
fn overrides_of(pairs: &[(String, &str)], first: usize) -> Overrides {
    let mut overrides = Overrides::default();
    let mut count = first;
    for (key, value) in pairs {
        if key.contains('=') || key.contains('\n') {
            overrides.env.push((
                format!("GIT_CONFIG_KEY_{count}").into(),
                OsString::from(key),
            ));
            overrides.env.push((
                format!("GIT_CONFIG_VALUE_{count}").into(),
                OsString::from(value),
            ));
            count += 1;
        } else {
            overrides.args.push("-c".into());
            overrides.args.push(format!("{key}={value}").into());
        }
    }
    if count > first {
        overrides
            .env
            .push(("GIT_CONFIG_COUNT".into(), count.to_string().into()));
    }
    overrides
}

/// A file's content hash, `None` when it is not there; one that is not a
/// regular file is never opened (a FIFO would block: `regular.rs`), and
/// stamped by its kind.
fn stamp_of(path: &Path) -> Option<[u8; 32]> {
    match super::regular::read(path) {
        super::regular::Found::File(bytes) => Some(Sha256::digest(&bytes).into()),
        super::regular::Found::Other(kind) => Some(Sha256::digest(kind.as_bytes()).into()),
        super::regular::Found::Absent => None,
    }
}

/// The git directory of the submodule (or nested repository) checked out
/// at `worktree`: its `.git` directory, or the one its `.git` file names.
pub(crate) fn git_dir_of(worktree: &Path) -> Option<PathBuf> {
    let dot_git = worktree.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = super::regular::read(&dot_git).bytes()?;
    let text = text.strip_prefix(b"gitdir:")?.trim_ascii();
    Some(worktree.join(super::path_from_bytes(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_names_drivers_protocols_includes_and_files() {
        let out = b"file:.git/config\0filter.lfs.clean\ngit-lfs clean -- %f\0\
                    file:.git/config\0filter.a.b=c.process\nx\0\
                    file:.git/config\0filter.f.required\0\
                    file:/home/u/.gitconfig\0protocol.ext.allow\nalways\0\
                    file:/home/u/.gitconfig\0protocol.allow\nalways\0\
                    file:/home/u/.gitconfig\0include.path\nmore.inc\0\
                    file:/home/u/.gitconfig\0includeif.onbranch:main.path\n/etc/x.inc\0\
                    command line:\0core.excludesfile\nign\0\
                    file:.git/config\0core.attributesfile\nattrs\0";
        let answer = parse(out, Path::new("/repo"));
        let names = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>();
        assert_eq!(names(&answer.filters), ["a.b=c", "f", "lfs"]);
        assert_eq!(names(&answer.protocols), ["ext"]);
        let sources: Vec<&Path> = answer.sources.iter().map(PathBuf::as_path).collect();
        assert_eq!(
            sources,
            [
                Path::new("/etc/x.inc"),
                Path::new("/home/u/.gitconfig"),
                Path::new("/home/u/more.inc"),
                Path::new("/repo/.git/config"),
            ]
        );
        assert_eq!(answer.excludes_file.as_deref(), Some(&b"ign"[..]));
        assert_eq!(answer.attributes_file.as_deref(), Some(&b"attrs"[..]));
    }

    #[test]
    fn a_key_with_an_equals_sign_goes_through_the_environment() {
        let pairs = [
            ("filter.f.clean".to_string(), ""),
            ("filter.a=b.clean".to_string(), ""),
        ];
        let overrides = overrides_of(&pairs, 2);
        assert_eq!(overrides.args, ["-c", "filter.f.clean="]);
        let env: Vec<(String, String)> = overrides
            .env
            .iter()
            .map(|(k, v)| (k.to_string_lossy().into(), v.to_string_lossy().into()))
            .collect();
        assert_eq!(
            env,
            [
                ("GIT_CONFIG_KEY_2".into(), "filter.a=b.clean".into()),
                ("GIT_CONFIG_VALUE_2".into(), String::new()),
                ("GIT_CONFIG_COUNT".into(), "3".into()),
            ]
        );
    }
}
