//! `meta` of the evidence: tool, time, platform, git facts (from the run's one
//! `git status`), config identity, argv and the executed commands.

use crate::git::Status;

pub(crate) use crate::time::timestamp;
pub(crate) use run_check_documents::evidence::{
    ChangeSet, ConfigRef, Git, Meta, Platform, ShardInfo, Tool, display_command,
};

/// This run-check.
pub(crate) fn tool() -> Tool {
    Tool {
        name: "run-check".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// The machine, asking sysinfo for memory only.
pub(crate) fn platform() -> Platform {
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
        cpus: crate::run::plan::logical_cpus(),
        memory_bytes,
    }
}

/// The git facts in the run's `git status`; all null outside git.
pub(crate) fn git(status: Option<&Status>) -> Git {
    status.map_or_else(Git::default, |status| Git {
        commit: status.commit.clone(),
        branch: status.branch.clone(),
        dirty: Some(!status.entries.is_empty()),
    })
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
            let (_, status) = crate::test_git::open(dir);
            git(Some(&status.unwrap()))
        };
        assert_eq!(git(None), Git::default());
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
