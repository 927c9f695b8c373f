//! `meta` of the evidence: tool, time, platform, git facts (from the run's one
//! `git status`), config identity, argv and the executed commands.

use serde::{Deserialize, Serialize};

use crate::git::Status;

/// `meta`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    /// run-check's name and version.
    pub tool: Tool,
    /// Start of the run, RFC 3339 UTC.
    pub timestamp: String,
    /// The machine.
    pub platform: Platform,
    /// run-check's working directory.
    pub cwd: String,
    /// The worktree the checks ran in.
    pub worktree: String,
    /// Git facts of the worktree (nulls outside git).
    pub git: Git,
    /// The config file.
    pub config: ConfigRef,
    /// The task contract, when `--task` was given.
    pub task: Option<serde_json::Value>,
    /// run-check's own argv.
    pub argv: Vec<String>,
    /// The commands that were executed, for humans (quoted, not for a shell).
    pub commands: Vec<String>,
    /// Fast mode's changed files (null in strict mode).
    #[serde(default)]
    pub changes: Option<ChangeSet>,
    /// With `--shard K/N`: which shard this is.
    #[serde(default)]
    pub shard: Option<ShardInfo>,
    /// In a merged document: the shard evidence it was merged from.
    #[serde(default)]
    pub merged_from: Option<Vec<MergedFrom>>,
}

/// `meta.shard`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShardInfo {
    /// 1-based shard index.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
    /// Every check the run selected before sharding, in file order.
    pub checks_before_sharding: Vec<String>,
}

/// One entry of `meta.merged_from`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MergedFrom {
    /// The evidence file as named on the command line.
    pub path: String,
    /// Its `meta.shard`, when it had one.
    pub shard: Option<ShardInfo>,
    /// Its `meta.timestamp`.
    pub timestamp: String,
    /// Its `summary.exit_code`.
    pub exit_code: i32,
}

/// `meta.changes`: what fast mode compared against.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChangeSet {
    /// `--changed-since`.
    pub base: String,
    /// How many files changed.
    pub files_changed: usize,
    /// The changed files (the first 1000).
    pub files: Vec<String>,
    /// Why no filtering happened (e.g. not a git repository), else null.
    pub note: Option<String>,
}

/// `meta.tool`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    /// `run-check`.
    pub name: String,
    /// Semver.
    pub version: String,
}

/// `meta.platform`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Platform {
    /// `linux`, `macos`, `windows`, ...
    pub os: String,
    /// `x86_64`, `aarch64`, ...
    pub arch: String,
    /// e.g. `Debian GNU/Linux 12`.
    pub os_version: Option<String>,
    /// Logical CPUs.
    pub cpus: usize,
    /// Total memory.
    pub memory_bytes: u64,
}

/// `meta.git`.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct Git {
    /// HEAD commit (40 hex).
    pub commit: Option<String>,
    /// Current branch; null when detached or outside git.
    pub branch: Option<String>,
    /// Whether the worktree had changes (tracked or untracked) at the start.
    pub dirty: Option<bool>,
}

/// `meta.config`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigRef {
    /// As the user named it.
    pub path: String,
    /// sha256 of its bytes.
    pub sha256: String,
}

/// This run-check.
pub fn tool() -> Tool {
    Tool {
        name: "run-check".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Now, RFC 3339 UTC with seconds.
pub fn timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The machine, asking sysinfo for memory only.
pub fn platform() -> Platform {
    use sysinfo::{MemoryRefreshKind, RefreshKind, System};
    let memory_bytes = System::new_with_specifics(
        RefreshKind::nothing().with_memory(MemoryRefreshKind::nothing().with_ram()),
    )
    .map_or(0, |system| system.total_memory());
    let os_version = match (System::name(), System::os_version()) {
        (Ok(name), Ok(version)) => Some(format!("{name} {version}")),
        (Ok(name), Err(_)) => Some(name),
        _ => System::long_os_version().ok(),
    };
    Platform {
        os: std::env::consts::OS.into(),
        arch: std::env::consts::ARCH.into(),
        os_version,
        cpus: crate::plan::logical_cpus(),
        memory_bytes,
    }
}

impl Git {
    /// The facts in the run's `git status`; all null outside git.
    pub fn of(status: Option<&Status>) -> Git {
        match status {
            None => Git::default(),
            Some(status) => Git {
                commit: status.commit.clone(),
                branch: status.branch.clone(),
                dirty: Some(!status.entries.is_empty()),
            },
        }
    }
}

/// An argv rendered for humans: plain words as they are, others single-quoted.
pub fn display_command(argv: &[String]) -> String {
    argv.iter()
        .map(|arg| {
            let plain = !arg.is_empty()
                && arg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+@%^".contains(&b));
            if plain {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn commands_are_quoted_for_humans() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            display_command(&argv(&["cargo", "clippy", "--", "-D", "warnings"])),
            "cargo clippy -- -D warnings"
        );
        assert_eq!(
            display_command(&argv(&["sh", "-c", "echo 'hi' there", ""])),
            "sh -c 'echo '\\''hi'\\'' there' ''"
        );
    }

    #[test]
    fn timestamp_is_rfc3339_utc_seconds() {
        let t = timestamp();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z'));
        assert!(chrono::DateTime::parse_from_rfc3339(&t).is_ok());
    }

    #[test]
    fn facts_of_a_real_repository() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| crate::test_git::git(dir.path(), args);
        run(&["init", "-q", "-b", "main"]);
        run(&["commit", "-q", "--allow-empty", "-m", "first"]);
        let facts = |dir: &Path| {
            let (_, status) = crate::git::open(dir).unwrap();
            Git::of(Some(&status.unwrap()))
        };
        assert_eq!(Git::of(None), Git::default());
        let facts_now = facts(dir.path());
        let commit = facts_now.commit.clone().unwrap();
        assert_eq!(commit.len(), 40);
        assert!(commit.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(facts_now.branch.as_deref(), Some("main"));
        assert_eq!(facts_now.dirty, Some(false));
        std::fs::write(dir.path().join("new.txt"), "x").unwrap();
        assert_eq!(facts(dir.path()).dirty, Some(true));
        run(&["checkout", "-q", "--detach"]);
        assert_eq!(facts(dir.path()).branch, None);
    }
}
