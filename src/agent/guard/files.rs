//! The gate's files, as the guard knows them from checks.toml alone: the
//! config itself, the committed agent baseline, `[gate] files`, the
//! programs and scripts the config runs from the worktree (the ones
//! `contracts.gate` watches: `run/gate.rs`), every agent's hook and
//! instruction files, and anything under run-check's state folder or the
//! hooks folder of the git directory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Denial;
use crate::agent::protocol::Agent;
use crate::config::Config;

/// The gate's files of one worktree.
pub(crate) struct GateFiles {
    /// Canonical worktree.
    worktree: PathBuf,
    /// Worktree-relative, `/` separators.
    exact: BTreeSet<String>,
    /// `[gate] files`.
    declared: Option<globset::GlobSet>,
    /// Folders nothing may be written in (absolute, lexically normal).
    pub(crate) protected: Vec<PathBuf>,
}

impl GateFiles {
    /// The files of `config` (found at `config_file`; `None` when it could
    /// not be loaded: the config file and the agents' files still count).
    pub(crate) fn new(
        worktree: &Path,
        git_dirs: &[PathBuf],
        config_file: &Path,
        config: Option<&Config>,
    ) -> GateFiles {
        let mut exact = BTreeSet::new();
        let relative = |path: &Path| {
            let path = crate::paths::lexical(path);
            path.strip_prefix(worktree)
                .ok()
                .map(crate::paths::to_slashes)
                .filter(|p| !p.is_empty())
        };
        exact.insert("checks.toml".to_string());
        exact.extend(relative(config_file));
        for agent in Agent::ALL {
            let protocol = agent.protocol();
            exact.insert(protocol.settings.path.to_string());
            exact.extend(protocol.instructions.map(|(path, _)| path.to_string()));
        }
        let mut declared = None;
        if let Some(config) = config {
            if let Some(baseline) = &config.agent.baseline {
                exact.extend(relative(&worktree.join(baseline)));
            }
            declared = config.gate.files.clone();
            let selection = crate::run::plan::Selection::all(crate::config::Mode::Strict);
            if let Ok(plan) = crate::run::plan::build(config, worktree, &selection) {
                let baseline = config.agent.baseline.as_ref().map(|b| worktree.join(b));
                exact.extend(crate::run::gate::files(
                    config,
                    config_file,
                    worktree,
                    &plan,
                    baseline.as_deref(),
                ));
            }
        }
        let mut protected = Vec::new();
        for git_dir in git_dirs {
            protected.push(git_dir.join("run-check"));
            protected.push(git_dir.join("hooks"));
        }
        GateFiles {
            worktree: worktree.to_path_buf(),
            exact,
            declared,
            protected,
        }
    }

    /// The denial of a write of `path` (relative to `cwd`), when it is one
    /// of the gate's files.
    pub(crate) fn write(&self, path: &str, cwd: &Path) -> Option<Denial> {
        let full = crate::paths::lexical(&cwd.join(path));
        // Through a symlinked folder too: the folder as the OS resolves it.
        let resolved = full
            .parent()
            .and_then(|dir| dunce::canonicalize(dir).ok())
            .zip(full.file_name())
            .map(|(dir, name)| dir.join(name));
        for candidate in std::iter::once(&full).chain(resolved.as_ref()) {
            if let Some(dir) = self.protected.iter().find(|d| candidate.starts_with(d)) {
                return Some(Denial {
                    rule: "gate-file",
                    what: format!(
                        "`{path}` is under {}, which only run-check and git write",
                        dir.display()
                    ),
                    instead: "leave it alone and fix the code the checks report",
                });
            }
            let Some(relative) = candidate
                .strip_prefix(&self.worktree)
                .ok()
                .map(crate::paths::to_slashes)
            else {
                continue;
            };
            let declared = self
                .declared
                .as_ref()
                .is_some_and(|set| set.is_match(&relative));
            if self.exact.contains(&relative) || declared {
                return Some(Denial {
                    rule: "gate-file",
                    what: format!(
                        "`{relative}` is one of the gate's files (what decides pass or fail)"
                    ),
                    instead: "fix the code the checks report; if the gate itself must change, ask the user",
                });
            }
        }
        None
    }
}
