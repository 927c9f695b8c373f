//! `agent install`'s gate of HEAD (docs/agents.md, "Install on a red
//! HEAD"): every failure blocks an agent (`[agent] new_only = false`), so
//! what the repository already fails on must be excused by a committed
//! baseline, or the first stop of every session would block on failures
//! the agent did not make. Install gates the worktree once, as a check run
//! would (the one child-gate runner, as the hook runs it); when it is red
//! it plans the evidence as the baseline file and `baseline = "PATH"` in
//! checks.toml's `[agent]` table, both to be committed with the hooks.
//!
//! - The worktree is gated as it is: a dirty worktree is gated with its
//!   changes (install says so), as building HEAD elsewhere would miss the
//!   untracked build outputs and tools the checks need.
//! - With `[agent] baseline` already set, the gate reads it: HEAD's
//!   failures all in it, nothing is written (a second install changes no
//!   byte); otherwise the file is written again, from a gate without it.
//! - checks.toml is edited as text, so the user's comments and layout
//!   stay: the key is added under the `[agent]` header, or an `[agent]`
//!   table is appended; the result is parsed again and must hold the key.
//! - A file at the baseline's path that is not evidence is never replaced
//!   without `--force`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::install::{Action, Change};
use crate::agent::gate::{self, Ended, Gate};
use crate::config::Config;
use crate::error::Error;
use run_check_documents::evidence::Evidence;

/// Where install writes the baseline when checks.toml names none: a
/// folder of run-check's own at the top level, so it is committed and
/// reviewed (out of `.git`), kept apart from the code (a `*.json` lint or
/// formatter of the top level does not take it for a project file), and
/// named for the gate it excuses (the agents', not CI's `--baseline`).
pub(crate) const DEFAULT_PATH: &str = ".run-check/agent-baseline.json";

/// What install adds for the baseline: the files, and what to tell the
/// user.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) changes: Vec<Change>,
    pub(crate) notes: Vec<String>,
}

/// Gates the worktree at `root` with `config` (read from `config_path`,
/// relative to `root`) and plans the baseline when it is red.
pub(crate) fn plan(
    root: &Path,
    config_path: &Path,
    config: &Config,
    force: bool,
) -> Result<Plan, Error> {
    let keyed = config.agent.baseline.clone();
    let relative = keyed.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_PATH));
    let existing = existing(root, &relative, force)?;
    let mut plan = Plan::default();
    if let Some(note) = dirty(root) {
        plan.notes.push(note);
    }
    let used = keyed.as_ref().filter(|_| existing.is_some());
    let mut gated = run(root, config, used.map(|r| root.join(r)).as_deref());
    if used.is_some() && matches!(&gated, Ok((e, _)) if e.summary.exit_code == 1) {
        gated = run(root, config, None);
    } else if let (Some(path), Ok((evidence, _))) = (used, &gated)
        && evidence.summary.exit_code == 0
    {
        plan.notes.push(format!(
            "HEAD's failures are all in {}: the baseline is unchanged",
            path.display()
        ));
        return Ok(plan);
    }
    let (evidence, bytes) = match gated {
        Ok(gated) => gated,
        Err(why) => {
            plan.notes.push(format!(
                "HEAD could not be gated ({why}): no baseline written; the hook will \
                 block on every failure"
            ));
            return Ok(plan);
        }
    };
    match evidence.summary.exit_code {
        0 => plan
            .notes
            .push("HEAD passes the gate: no baseline is needed".into()),
        1 => red(
            &mut plan,
            root,
            config_path,
            &relative,
            keyed.is_none(),
            (&evidence, bytes),
            existing.is_some(),
        )?,
        code => plan.notes.push(format!(
            "the gate of HEAD ended with exit {code} ({}): no baseline written (a baseline \
             excuses failures, not a check that could not run); fix it and install again",
            evidence.summary.banner
        )),
    }
    Ok(plan)
}

/// The baseline file and the key planned, and what to commit.
fn red(
    plan: &mut Plan,
    root: &Path,
    config_path: &Path,
    relative: &Path,
    add_key: bool,
    (evidence, bytes): (&Evidence, Vec<u8>),
    existed: bool,
) -> Result<(), Error> {
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::Internal("the gate printed evidence that is not UTF-8".into()))?;
    plan.changes.push(Change {
        path: relative.to_path_buf(),
        action: Action::Write {
            bytes: text,
            existed,
        },
    });
    let mut commit = vec![relative.display().to_string()];
    if add_key {
        let current = std::fs::read_to_string(root.join(config_path))
            .map_err(|err| Error::io("read", config_path, err))?;
        let edited =
            with_key(&current, &relative.to_string_lossy()).map_err(|why| Error::Config {
                path: config_path.to_path_buf(),
                location: None,
                key: Some("agent.baseline".into()),
                message: why,
            })?;
        plan.changes.push(Change {
            path: config_path.to_path_buf(),
            action: Action::Write {
                bytes: edited,
                existed: true,
            },
        });
        commit.push(config_path.display().to_string());
    }
    let failed: Vec<&str> = evidence
        .checks
        .iter()
        .filter(|c| c.status == run_check_documents::evidence::Status::Fail)
        .map(|c| c.name.as_str())
        .collect();
    plan.notes.push(format!(
        "HEAD is red ({} of {} checks failed: {}): {} records these failures and \
         `[agent] baseline` names it, so the hook excuses them and blocks on every other; \
         commit {} with the hooks (until then every stop tells you the gate changed)",
        failed.len(),
        evidence.checks.len(),
        failed.join(", "),
        relative.display(),
        commit.join(" and ")
    ));
    Ok(())
}

/// The file at the baseline's path: `Some` when it is evidence, `None`
/// when there is none; an error when it is something else and not
/// `force`.
fn existing(root: &Path, relative: &Path, force: bool) -> Result<Option<()>, Error> {
    let full = root.join(relative);
    match crate::bounded::read_regular(&full, crate::bounded::JSON) {
        Ok(bytes) if crate::json_input::evidence(relative, &bytes).is_ok() => Ok(Some(())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ if force => Ok(None),
        _ => Err(Error::Input {
            path: relative.to_path_buf(),
            location: None,
            key: None,
            message: "not run-check evidence: install does not replace it (--force replaces it)"
                .into(),
        }),
    }
}

/// A note when the worktree differs from HEAD.
fn dirty(root: &Path) -> Option<String> {
    let status =
        crate::git::ask(root, &["status", "--porcelain", "--untracked-files=normal"]).ok()?;
    (!status.trim().is_empty()).then(|| {
        "the worktree has uncommitted changes: it was gated as it is, so a baseline excuses \
         what they fail on too (commit or stash them and install again for HEAD alone)"
            .to_string()
    })
}

/// The gate of the worktree in `[agent] mode`, with `baseline`: its
/// evidence and the bytes it printed, or why there is none.
fn run(
    root: &Path,
    config: &Config,
    baseline: Option<&Path>,
) -> Result<(Evidence, Vec<u8>), String> {
    let exe = std::env::current_exe()
        .map_err(|err| format!("cannot find run-check's own binary: {err}"))?;
    let mut args: Vec<OsString> = vec!["--worktree".into(), root.into()];
    args.extend(["--mode", config.agent.mode.as_str()].map(OsString::from));
    if let Some(baseline) = baseline {
        args.extend(["--baseline".into(), baseline.into()]);
    }
    let gated = Gate {
        exe: &exe,
        args,
        dir: Some(root),
        jobs: None,
        cancelled: &|| false,
        deadline: None,
    }
    .run()
    .map_err(|err| format!("cannot start the gate: {err}"))?;
    let last = gated.last_line().unwrap_or("").trim().to_string();
    let killed = matches!(gated.ended, Ended::Killed(_));
    match gate::verdict_of(gated.ended, gated.output, last.clone()).evidence {
        Some(found) => Ok(found),
        None if killed => Err("the gate was killed before it wrote its evidence".into()),
        None => Err(last),
    }
}

/// checks.toml's `text` with `baseline = "PATH"` in its `[agent]` table,
/// the rest byte for byte: the line goes right under the `[agent]` header
/// (its line ending the file's), else an `[agent]` table is appended; the
/// first of the two that parses with the key. Why not, when `[agent]` is
/// written another way (inline, dotted keys).
fn with_key(text: &str, path: &str) -> Result<String, String> {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let line = format!("baseline = {}{eol}", toml::Value::String(path.into()));
    let mut offset = 0;
    let mut under = None;
    for piece in text.split_inclusive('\n') {
        offset += piece.len();
        let head = piece.split('#').next().unwrap_or_default();
        if head.split_whitespace().collect::<String>() == "[agent]" {
            let ended = if piece.ends_with('\n') { "" } else { eol };
            under = Some(format!(
                "{}{ended}{line}{}",
                &text[..offset],
                &text[offset..]
            ));
            break;
        }
    }
    let sep = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        eol
    };
    let appended = format!("{text}{sep}{eol}[agent]{eol}{line}");
    let holds = |edited: &String| {
        toml::from_str::<toml::Table>(edited).is_ok_and(|parsed| {
            parsed
                .get("agent")
                .and_then(|agent| agent.get("baseline"))
                .and_then(toml::Value::as_str)
                == Some(path)
        })
    };
    under
        .into_iter()
        .chain([appended])
        .find(holds)
        .ok_or_else(|| {
            "cannot add `baseline` to checks.toml's `[agent]` table, which is not written as an \
         `[agent]` header line: add `baseline = ...` there yourself and install again"
                .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::with_key;

    #[test]
    fn the_key_goes_under_the_header_and_the_rest_stays() {
        let text = "# mine\n[settings]\nallow = [\"x\"]\n\n[agent] # the hook\nmode = \"fast\"\n";
        assert_eq!(
            with_key(text, ".run-check/agent-baseline.json").unwrap(),
            "# mine\n[settings]\nallow = [\"x\"]\n\n[agent] # the hook\n\
             baseline = \".run-check/agent-baseline.json\"\nmode = \"fast\"\n"
        );
        assert_eq!(
            with_key("[settings]\r\nallow = []", "b.json").unwrap(),
            "[settings]\r\nallow = []\r\n\r\n[agent]\r\nbaseline = \"b.json\"\r\n"
        );
        // Written another way: refused, not guessed.
        for other in ["agent = { mode = \"fast\" }\n", "agent.mode = \"fast\"\n"] {
            assert!(with_key(other, "b.json").is_err(), "{other}");
        }
        // A header inside a string is not one.
        let tricky = "x = \"\"\"\n[agent]\n\"\"\"\n";
        assert!(
            with_key(tricky, "b.json")
                .unwrap()
                .ends_with("[agent]\nbaseline = \"b.json\"\n")
        );
    }
}
