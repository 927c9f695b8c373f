//! The cache key of a check: a canonical JSON document of everything that
//! can change the check's result, and its sha256 (docs/cache.md).
//!
//! The document is a `serde_json::Value` whose objects are sorted maps
//! (serde_json without `preserve_order`), written without whitespace: the
//! same facts give the same bytes on every machine. It holds the format,
//! run-check's version and target, the check's fields that reach its result
//! (argv, `cwd`, effective timeout, retries, parser, matchers, score,
//! artifacts, excerpt size, `leave_running`, the cache's own `inputs`,
//! `env_keys` and `version`), the resolved program and its sha256, the
//! `version` command's output, the values of `env_keys` and of `env` (as
//! sha256s: `cache key` prints the document, and a value may be a secret),
//! and every input file's path, mode and content hash.
//!
//! Input files are the worktree's tracked files (the index) and its
//! untracked, non-ignored ones (the run's `git status`). A tracked file the
//! status does not list is clean: its blob id in the index is its hash, so
//! a clean tree is never read. The others (changed, untracked, flagged
//! assume-unchanged or skip-worktree and changed) are hashed as blobs by
//! one `git hash-object --stdin-paths` (the same id a commit of them would
//! give, so committing a file does not change the key); a symlink is its
//! link text's sha256.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::config::{CheckConfig, CheckKind, Config};
use crate::digest::hex;
use crate::git::{Repo, Status};
use crate::run::plan::PlannedCheck;
use crate::run::snapshot::{IndexEntry, OwnFiles};

mod hidden;
mod patterns;

use patterns::Patterns;

/// The key document's format; a change of what the document holds bumps it.
pub(crate) const FORMAT: u32 = 3;
/// How long a `version` command may run.
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);
/// A `version` output longer than this is keyed by its sha256, not copied.
const VERSION_TEXT: usize = 4096;
/// The bytes of a `version` stream kept from each end: a longer one is
/// keyed by these and its length.
const VERSION_KEEP: usize = 512 * 1024;

/// A check's key: the document and its sha256 (64 hex digits).
#[derive(Debug, Clone)]
pub(crate) struct Key {
    pub(crate) hex: String,
    pub(crate) document: Value,
    /// The input list whose sha256 the document holds.
    pub(crate) inputs: Arc<Value>,
}

/// The facts of one run the keys are made of, gathered once for every
/// cached check of the run.
pub(crate) struct Facts<'a> {
    pub(crate) config: &'a Config,
    /// The worktree, canonical.
    pub(crate) worktree: &'a Path,
    pub(crate) git: Option<(&'a Repo, &'a Status)>,
    pub(crate) own: &'a OwnFiles,
}

/// One file the keys may hold.
struct File {
    /// Worktree-relative, `/` separators.
    rel: String,
    /// Top-level relative, as git names it (for `hash-object`).
    git_path: PathBuf,
    /// The mode, as git writes it (`100644`, `100755`, `120000`, ...).
    mode: String,
    /// Its hash when known without reading it (a clean tracked file).
    hash: Option<String>,
    /// Why the check cannot be keyed when this file is an input (a nested
    /// repository, a changed submodule).
    unkeyable: Option<String>,
}

/// Makes the key of each of `checks` that has `cache = true` (`None` for
/// the others); a check whose key cannot be made has `Err(why)`.
pub(crate) fn keys(
    facts: &Facts<'_>,
    checks: &[&PlannedCheck<'_>],
) -> Vec<Option<Result<Key, String>>> {
    let found = match facts.git {
        Some((repo, status)) => files(facts, repo, status).map(|files| (repo, files)),
        None => Err("the worktree is not in a git repository".to_string()),
    };
    let (repo, files) = match found {
        Ok(found) => found,
        Err(why) => {
            return checks
                .iter()
                .map(|c| c.config.cache.as_ref().map(|_| Err(why.clone())))
                .collect();
        }
    };
    // Which files each check's inputs hold: each file matched once.
    let matched =
        Patterns::new(checks.iter().map(|check| patterns_of(check.config))).map(|patterns| {
            let selected = patterns.select(files.iter().map(|f| f.rel.as_str()));
            (patterns, selected)
        });
    let chosen: Vec<Option<Result<Vec<usize>, String>>> = (checks.iter().enumerate())
        .map(|(at, check)| {
            check.config.cache.as_ref()?;
            Some(match &matched {
                Ok((patterns, selected)) => Ok(match patterns.group_of(at) {
                    Some(group) => selected[group].clone(),
                    None => (0..files.len()).collect(),
                }),
                Err(why) => Err(why.clone()),
            })
        })
        .collect();
    let patterns = matched.as_ref().ok().map(|(patterns, _)| patterns);
    let (hidden, scopes) = hidden_scopes(facts, repo, &files, patterns, &chosen);
    // The files to hash: the changed ones any check holds, hashed at once.
    let wanted: BTreeSet<usize> = chosen
        .iter()
        .flatten()
        .flatten()
        .flatten()
        .chain(scopes.iter().flatten().flat_map(hidden::Scope::listed))
        .copied()
        .filter(|&i| files[i].hash.is_none() && files[i].unkeyable.is_none())
        .collect();
    let hashed = hash_files(repo, &files, &wanted);
    let hidden_hashed = hidden.hash(repo, &scopes);
    let mut versions: HashMap<Vec<String>, Result<Value, String>> = HashMap::new();
    let mut programs: HashMap<PathBuf, Result<String, String>> = HashMap::new();
    let hash_of = |i: usize| -> Result<String, String> {
        let file = &files[i];
        if let Some(why) = &file.unkeyable {
            return Err(why.clone());
        }
        match &file.hash {
            Some(hash) => Ok(hash.clone()),
            None => hashed
                .get(&i)
                .cloned()
                .ok_or_else(|| format!("cannot read `{}`", file.rel))?,
        }
    };
    // The input list of each group of checks with the same patterns, and
    // its digest, made once: the key holds the digest, so that twenty
    // checks over the whole tree write and hash the list once.
    let mut lists: HashMap<Option<usize>, Result<Inputs, String>> = HashMap::new();
    let group_of = |at: usize| match &matched {
        Ok((patterns, _)) => patterns.group_of(at),
        Err(_) => None,
    };
    (checks.iter().enumerate())
        .zip(chosen)
        .zip(&scopes)
        .map(|(((at, check), inputs), scope)| {
            let inputs = inputs?;
            Some(inputs.and_then(|inputs| {
                let listed = lists
                    .entry(group_of(at))
                    .or_insert_with(|| Inputs::of(&inputs, &files, &hash_of))
                    .clone()?;
                let ignore = match scope {
                    Some(scope) => hidden.document(scope, &files, &hash_of, &hidden_hashed)?,
                    None => Value::Null,
                };
                document(facts, check, (listed, ignore), &mut versions, &mut programs)
            }))
        })
        .collect()
}

/// A check's input files as its key holds them: the list of each file's
/// path, mode and hash (what `cache key` prints), and its sha256 (what
/// the key document holds).
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    pub(crate) list: Arc<Value>,
    sha256: String,
}

impl Inputs {
    /// The files `inputs` (indices in `files`), hashed by `hash_of`.
    fn of(
        inputs: &[usize],
        files: &[File],
        hash_of: &dyn Fn(usize) -> Result<String, String>,
    ) -> Result<Inputs, String> {
        let mut listed = Vec::with_capacity(inputs.len());
        for &i in inputs {
            let file = &files[i];
            let hash = hash_of(i)?;
            listed.push(json!({"path": file.rel, "mode": file.mode, "hash": hash}));
        }
        let list = Value::Array(listed);
        let bytes = serde_json::to_vec(&list).map_err(|err| err.to_string())?;
        Ok(Inputs {
            sha256: hex(&Sha256::digest(&bytes)),
            list: Arc::new(list),
        })
    }
}

/// What ignore rules hide (`hidden`), gathered once, and the part of it
/// in each check's key (`None` for a check whose inputs are not known).
fn hidden_scopes(
    facts: &Facts<'_>,
    repo: &Repo,
    files: &[File],
    patterns: Option<&Patterns>,
    chosen: &[Option<Result<Vec<usize>, String>>],
) -> (hidden::Hidden, Vec<Option<hidden::Scope>>) {
    let none = Status::default();
    let status = facts.git.map_or(&none, |(_, status)| status);
    let hidden = hidden::Hidden::gather(facts, repo, status, files);
    let scopes = (chosen.iter().enumerate())
        .map(|(at, inputs)| {
            let inputs = inputs.as_ref()?.as_ref().ok()?;
            let patterns = patterns?;
            Some(hidden.scope(patterns, patterns.group_of(at), files, inputs))
        })
        .collect();
    (hidden, scopes)
}

/// The key document of `check` with its input files `listed` and what
/// ignore rules hide from them (`ignore`).
fn document(
    facts: &Facts<'_>,
    check: &PlannedCheck<'_>,
    (listed, ignore): (Inputs, Value),
    versions: &mut HashMap<Vec<String>, Result<Value, String>>,
    programs: &mut HashMap<PathBuf, Result<String, String>>,
) -> Result<Key, String> {
    let config = check.config;
    let Some(cache) = &config.cache else {
        return Err("not cached".into());
    };
    let program = check.program.as_ref().map_err(Clone::clone)?;
    let program_hash = programs
        .entry(program.clone())
        .or_insert_with(|| file_sha256(program))
        .clone()?;
    let version = match &cache.version {
        Some(argv) => versions
            .entry(argv.clone())
            .or_insert_with(|| version_output(facts, argv))
            .clone()?,
        None => Value::Null,
    };
    let env: BTreeMap<&str, String> = config
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), value_hash(v.as_bytes())))
        .collect();
    let env_keys: BTreeMap<&str, Value> = cache
        .env_keys
        .iter()
        .map(|k| {
            let value = std::env::var_os(k).map(|v| value_hash(v.as_encoded_bytes()));
            (k.as_str(), value.map_or(Value::Null, Value::String))
        })
        .collect();
    let document = json!({
        "format": FORMAT,
        "run_check": {"version": env!("CARGO_PKG_VERSION"), "target": target()},
        "check": check_fields(facts.config, config, check),
        "program": {"path": program.display().to_string(), "sha256": program_hash},
        "version": version,
        "env": env,
        "env_keys": env_keys,
        "inputs": {"files": listed.list.as_array().map_or(0, Vec::len), "sha256": listed.sha256},
        "ignore": ignore,
    });
    let bytes = serde_json::to_vec(&document).map_err(|err| err.to_string())?;
    Ok(Key {
        hex: hex(&Sha256::digest(&bytes)),
        document,
        inputs: listed.list,
    })
}

/// The check's fields that can change its result (its name too: the
/// stored entry carries it). `modes`, `paths` (when `inputs` is given),
/// `needs`, `dimension` and `severity` do not reach the check's process;
/// `dimension` and `severity` are in the stored entry, so they are keyed.
fn check_fields(config: &Config, check: &CheckConfig, planned: &PlannedCheck<'_>) -> Value {
    let argv: &[String] = match &check.kind {
        CheckKind::Run(argv) => argv,
        CheckKind::Scan(_) => &[],
    };
    let cache = check.cache.as_ref();
    json!({
        "name": check.name,
        "run": argv,
        "cwd": crate::paths::to_slashes(&check.cwd),
        "timeout_ms": u64::try_from(planned.timeout.as_millis()).unwrap_or(u64::MAX),
        "retries": check.retries,
        "parser": check.parser,
        "matchers": check.matchers.iter().map(|m| json!({
            "regex": m.regex.as_str(), "severity": m.severity,
        })).collect::<Vec<_>>(),
        "score": check.score.as_ref().map(|r| r.as_str()),
        "artifacts": check.artifacts,
        "excerpt_bytes": config.settings.excerpt_bytes,
        "leave_running": check.leave_running,
        "dimension": check.dimension,
        "severity": check.severity,
        "paths": check.path_globs,
        "inputs": cache.map(|c| &c.input_globs),
        "env_keys": cache.map(|c| &c.env_keys),
        "version_command": cache.and_then(|c| c.version.as_ref()),
    })
}

/// The worktree-relative paths (`/`) of the worktree's files as
/// [`files`] lists them, but for nested repositories: a remote check's
/// input root (docs/remote.md).
pub(crate) fn listed(facts: &Facts<'_>) -> Result<Vec<String>, String> {
    let Some((repo, status)) = facts.git else {
        return Err("the worktree is not in a git repository".to_string());
    };
    Ok(files(facts, repo, status)?
        .into_iter()
        .filter(|f| f.unkeyable.is_none())
        .map(|f| f.rel)
        .collect())
}

/// The worktree's files: the index's entries inside it, then the
/// untracked, non-ignored files of the status; run-check's own output
/// files left out.
fn files(facts: &Facts<'_>, repo: &Repo, status: &Status) -> Result<Vec<File>, String> {
    let top = repo.toplevel();
    let prefix = facts
        .worktree
        .strip_prefix(top)
        .map_err(|_| "the worktree is not inside its repository's top level".to_string())?;
    let prefix = crate::paths::to_slashes(prefix);
    let inside = |git_path: &str| -> Option<String> {
        if prefix.is_empty() {
            return Some(git_path.to_string());
        }
        git_path
            .strip_prefix(prefix.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .map(str::to_string)
    };
    // Tracked paths the status lists as changed (or unmerged), and those
    // flagged entries whose file changed: read, not trusted.
    let mut changed: HashSet<&Path> = status
        .entries
        .iter()
        .filter(|e| e.code != "??")
        .map(|e| &*e.path)
        .collect();
    changed.extend(
        status
            .hidden
            .iter()
            .filter(|h| h.changed)
            .map(|h| h.path.as_path()),
    );
    let entries = crate::run::snapshot::index_entries(repo)
        .ok_or_else(|| "cannot read the git index".to_string())?;
    let mut files = Vec::with_capacity(entries.len());
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    for IndexEntry {
        path,
        mode,
        oid,
        stage,
    } in entries
    {
        if !seen.insert(path.clone()) {
            continue; // the other stages of an unmerged path
        }
        let git_path = crate::git::path_from_bytes(&path);
        let Some(rel) = inside(&String::from_utf8_lossy(&path)) else {
            continue;
        };
        if facts.own.contains(&top.join(&git_path)) {
            continue;
        }
        let clean = stage == 0 && !changed.contains(git_path.as_path());
        let mut file = File {
            rel,
            mode: format!("{mode:06o}"),
            hash: clean.then(|| hex(&oid)),
            unkeyable: None,
            git_path,
        };
        if !clean {
            describe(&mut file, top, Some(mode));
        }
        files.push(file);
    }
    for entry in status.entries.iter().filter(|e| e.code == "??") {
        let git_path = entry.path.to_path_buf();
        let text = crate::paths::to_slashes(&git_path);
        let Some(rel) = inside(text.trim_end_matches('/')) else {
            continue;
        };
        if facts.own.contains(&top.join(&git_path)) {
            continue;
        }
        let mut file = File {
            rel,
            git_path,
            mode: String::new(),
            hash: None,
            unkeyable: text
                .ends_with('/')
                .then(|| format!("`{text}` is a nested repository, whose files git does not list")),
        };
        if file.unkeyable.is_none() {
            describe(&mut file, top, None);
        }
        files.push(file);
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(files)
}

/// A changed or untracked file as it is now: its mode, and for what is
/// not a regular file its hash (a deleted file is `deleted`, a symlink
/// its link text's sha256) or why it cannot be keyed.
fn describe(file: &mut File, top: &Path, index_mode: Option<u32>) {
    let path = top.join(&file.git_path);
    match std::fs::symlink_metadata(&path) {
        Err(_) => {
            file.mode = "deleted".into();
            file.hash = Some("deleted".into());
        }
        Ok(meta) if meta.file_type().is_symlink() => {
            file.mode = "120000".into();
            file.hash = Some(match std::fs::read_link(&path) {
                Ok(target) => value_hash(target.as_os_str().as_encoded_bytes()),
                Err(err) => format!("unreadable: {}", err.kind()),
            });
        }
        Ok(meta) if meta.is_dir() || index_mode == Some(0o160000) => {
            file.mode = "160000".into();
            file.unkeyable = Some(format!(
                "`{}` is a changed submodule or a directory",
                file.rel
            ));
        }
        Ok(meta) => file.mode = mode_of(&meta, index_mode).into(),
    }
}

/// A regular file's mode as git records it: executable or not.
#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata, _index_mode: Option<u32>) -> &'static str {
    use std::os::unix::fs::PermissionsExt;
    match meta.permissions().mode() & 0o111 {
        0 => "100644",
        _ => "100755",
    }
}

/// A regular file's mode as git records it: Windows has no executable
/// bit, so a tracked file keeps its index mode (git's `core.fileMode =
/// false`).
#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata, index_mode: Option<u32>) -> &'static str {
    match index_mode {
        Some(0o100755) => "100755",
        _ => "100644",
    }
}

/// A cached check's patterns: `inputs`, else `paths`; `None` for neither
/// (every file is an input) and for a check that is not cached.
fn patterns_of(check: &CheckConfig) -> Option<&[globset::Glob]> {
    let cache = check.cache.as_ref()?;
    cache.inputs.as_deref().or(check.paths.as_deref())
}

/// The blob ids of the regular files among `wanted` (one `git
/// hash-object --stdin-paths`); a file git cannot be asked about (a name
/// with a newline) or when git fails, its content's sha256.
fn hash_files(
    repo: &Repo,
    files: &[File],
    wanted: &BTreeSet<usize>,
) -> HashMap<usize, Result<String, String>> {
    let by_content = |i: usize| {
        file_sha256(&repo.toplevel().join(&files[i].git_path)).map(|h| format!("sha256:{h}"))
    };
    let mut out = HashMap::new();
    let mut asked: Vec<usize> = Vec::new();
    let mut input = Vec::new();
    for &i in wanted {
        let bytes = files[i].git_path.as_os_str().as_encoded_bytes();
        if bytes.contains(&b'\n') {
            out.insert(i, by_content(i));
            continue;
        }
        input.extend_from_slice(bytes);
        input.push(b'\n');
        asked.push(i);
    }
    if asked.is_empty() {
        return out;
    }
    let answer = repo
        .feed(&["hash-object", "--stdin-paths"], input)
        .filter(|(code, _)| *code == Some(0))
        .map(|(_, stdout)| {
            stdout
                .split(|&b| b == b'\n')
                .filter(|line| !line.is_empty())
                .map(|line| String::from_utf8_lossy(line).into_owned())
                .collect::<Vec<_>>()
        })
        .filter(|ids| ids.len() == asked.len());
    match answer {
        Some(ids) => out.extend(asked.into_iter().zip(ids.into_iter().map(Ok))),
        None => out.extend(asked.into_iter().map(|i| (i, by_content(i)))),
    }
    out
}

/// The `version` command's output, run once per run in the worktree with
/// null stdin, as a check runs (`runner::alone`: contained, timed, none of
/// the cache's secrets): `{"exit_code", "stdout", "stderr"}`, each stream
/// as text when short, else as its sha256. A command that cannot start, is
/// not allowed, runs past its time or is interrupted leaves the check
/// uncached.
fn version_output(facts: &Facts<'_>, argv: &[String]) -> Result<Value, String> {
    use crate::run::runner::{alone, process::End};
    let shown = crate::run::meta::display_command(argv);
    let resolved =
        crate::run::plan::resolve_program(&argv[0], facts.worktree, &facts.config.settings.allow)
            .map_err(|why| match why {
            crate::run::plan::Unusable::NotFound(why)
            | crate::run::plan::Unusable::Refused(why) => {
                format!("`version` command `{shown}`: {why}")
            }
        })?;
    let exec = resolved.exec.unwrap_or(resolved.real);
    let cancel =
        crate::signal::current().map_err(|why| format!("`version` command `{shown}`: {why}"))?;
    let remove = facts.config.cache.secrets();
    let ran = alone::run(
        &alone::Alone {
            program: &exec,
            args: &argv[1..],
            cwd: facts.worktree,
            remove: &remove,
            timeout: VERSION_TIMEOUT,
            keep: VERSION_KEEP,
        },
        cancel,
    );
    let exit_code = match ran.end {
        End::Exited(code) => Some(code),
        End::Signaled(_) => None,
        End::TimedOut => {
            return Err(format!(
                "`version` command `{shown}` ran past {}s",
                VERSION_TIMEOUT.as_secs()
            ));
        }
        End::Interrupted => return Err(format!("`version` command `{shown}` was interrupted")),
        End::Failed(why) => {
            return Err(format!(
                "`version` command `{shown}` could not start: {why}"
            ));
        }
    };
    let text = |excerpt: &crate::run::excerpt::Excerpt| {
        let mut bytes = excerpt.bytes();
        if !excerpt.truncated()
            && bytes.len() <= VERSION_TEXT
            && let Ok(text) = std::str::from_utf8(&bytes)
        {
            return text.to_string();
        }
        // Past both ends: what was left out is counted.
        if excerpt.truncated() {
            bytes.extend_from_slice(format!("\n{} bytes in all", excerpt.total()).as_bytes());
        }
        value_hash(&bytes)
    };
    Ok(json!({
        "command": argv,
        "exit_code": exit_code,
        "stdout": text(&ran.stdout),
        "stderr": text(&ran.stderr),
    }))
}

/// The sha256 of a file's content, hex.
fn file_sha256(path: &Path) -> Result<String, String> {
    let mut file = std::fs::File::open(path)
        .map_err(|err| format!("cannot read `{}`: {err}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match std::io::Read::read(&mut file, &mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(format!("cannot read `{}`: {err}", path.display())),
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// A value as the document holds it: `sha256:` and its hash.
fn value_hash(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

/// The target run-check was built for: architecture, OS and C library.
fn target() -> String {
    let env = if cfg!(target_env = "musl") {
        "musl"
    } else if cfg!(target_env = "gnu") {
        "gnu"
    } else if cfg!(target_env = "msvc") {
        "msvc"
    } else {
        "none"
    };
    format!("{}-{}-{env}", std::env::consts::ARCH, std::env::consts::OS)
}
