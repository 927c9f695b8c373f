//! `[agent] baseline`: the committed evidence that excuses what the
//! repository already fails on (docs/agents.md, "Debts"). A stop's gate
//! reads it as `--baseline` with `--changed-since` the session's base, so
//! the gate compares it with the base as any baseline inside the worktree
//! (docs/baseline.md): one the agent edited or regenerated since the base
//! is a changed gate, which the user is told about.
//!
//! What the gate could not read must not end the loop: a baseline that is
//! missing, not a regular file, outside the worktree once its folders'
//! links are followed (git would not compare it with the base), or not
//! evidence, is not used, so every failure counts, and the user is told.

use std::path::{Path, PathBuf};

use crate::config::AgentConfig;

/// The committed baseline's path, `None` without the key, or why it is
/// not used.
pub(super) fn baseline(worktree: &Path, config: &AgentConfig) -> Result<Option<PathBuf>, String> {
    let Some(relative) = &config.baseline else {
        return Ok(None);
    };
    let path = worktree.join(relative);
    let not_used = |why: String| {
        format!(
            "`[agent] baseline` {} {why}: it was not used, every failure counts",
            relative.display()
        )
    };
    let inside = dunce::canonicalize(&path)
        .ok()
        .zip(dunce::canonicalize(worktree).ok())
        .is_some_and(|(file, top)| file.starts_with(top));
    let bytes = crate::bounded::read_regular(&path, crate::bounded::JSON)
        .map_err(|err| not_used(format!("cannot be read ({err})")))?;
    if !inside {
        return Err(not_used("lies outside the worktree".into()));
    }
    crate::json_input::evidence(&path, &bytes)
        .map_err(|err| not_used(format!("is not evidence ({err})")))?;
    Ok(Some(path))
}
