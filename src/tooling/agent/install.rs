//! `agent install` / `agent uninstall`: the agents' hook configurations and
//! instruction files (docs/agents.md).
//!
//! A settings file is merged: run-check's entries (the ones whose command is
//! `run-check agent hook AGENT EVENT`) are added where missing, and every
//! other key, hook and entry stays where it was; a file that already has
//! them is not written at all, so a second install changes no byte.
//! `uninstall` takes out exactly those entries (and the groups, event lists
//! and `hooks` table they leave empty); a file left with nothing else is
//! removed. An instruction file is ours when it carries [`skill::MARKER`].
//! A file run-check cannot merge into (not a JSON object, a `hooks` that is
//! not a table) or an instruction file without the marker is never
//! replaced without `--force`: the command fails naming it and writes
//! nothing. Every change is planned before the first is written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::command_lines;
use super::json::{Json, object, string};
use crate::agent::protocol::{Agent, Event, Format, Settings, plugin, skill};
use crate::error::Error;

/// How much longer an agent waits for the hook than the hook lets its gate
/// run (`[agent] timeout`): a gate stopped at that deadline has 5 s to
/// write what finished before it is killed, then the hook judges the round
/// and answers; the agent must still be listening, or it discards the
/// answer (Claude Code) or lets the agent go without one (Cursor, Copilot).
const HOOK_MARGIN: Duration = Duration::from_secs(60);

/// The seconds an agent waits for the hook whose gate may run for
/// `timeout` (`[agent] timeout`): `timeout` + [`HOOK_MARGIN`], rounded up.
pub(crate) fn hook_seconds(timeout: Duration) -> u64 {
    let total = timeout.saturating_add(HOOK_MARGIN);
    total.as_secs() + u64::from(total.subsec_nanos() > 0)
}

/// One file's change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    /// The file, relative to the repository's top level.
    pub(crate) path: PathBuf,
    pub(crate) action: Action,
}

/// What happens to a file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Already as it should be.
    Unchanged,
    /// Written (created or replaced) with these bytes.
    Write { bytes: String, existed: bool },
    /// Deleted.
    Remove,
}

impl Change {
    /// `created .claude/settings.json`, `would remove ...`.
    pub(crate) fn describe(&self, dry_run: bool) -> String {
        let verb = match (&self.action, dry_run) {
            (Action::Unchanged, _) => "unchanged",
            (Action::Write { existed: false, .. }, false) => "created",
            (Action::Write { existed: true, .. }, false) => "updated",
            (Action::Remove, false) => "removed",
            (Action::Write { existed: false, .. }, true) => "would create",
            (Action::Write { existed: true, .. }, true) => "would update",
            (Action::Remove, true) => "would remove",
        };
        format!("{verb} {}", self.path.display())
    }
}

/// The command an agent's configuration runs for `event`.
pub(crate) fn command(agent: Agent, event: &str) -> String {
    format!("run-check agent hook {} {event}", agent.name())
}

/// The command an agent's configuration runs for its pre-tool event
/// (`agent guard`), `None` for an agent without one.
pub(crate) fn guard_command(agent: Agent) -> Option<String> {
    let pre_tool = agent.pre_tool()?;
    Some(format!(
        "run-check agent guard {} {}",
        agent.name(),
        pre_tool.event
    ))
}

/// The seconds an agent waits for the guard: it answers in milliseconds,
/// and one that hangs must not hold every tool call for the gate's
/// deadline (the agents let the call through when a pre-tool hook times
/// out).
const GUARD_SECONDS: u64 = 10;

/// The agents `install` sets up when none is named: those whose folder the
/// repository has, else Claude Code.
pub(crate) fn present(root: &Path) -> Vec<Agent> {
    let found: Vec<Agent> = Agent::ALL
        .into_iter()
        .filter(|agent| root.join(agent.protocol().folder).exists())
        .collect();
    if found.is_empty() {
        Agent::ALL[..1].to_vec()
    } else {
        found
    }
}

/// The agents whose files hold something of run-check's (`uninstall`
/// without a name).
pub(crate) fn installed(root: &Path) -> Result<Vec<Agent>, Error> {
    let mut found = Vec::new();
    for agent in Agent::ALL {
        if uninstall(root, &[agent])?
            .iter()
            .any(|c| c.action != Action::Unchanged)
        {
            found.push(agent);
        }
    }
    Ok(found)
}

/// The changes `install` makes for `agents` under `root`; each hook entry's
/// timeout field (where the agent has one) says `seconds`, in the agent's
/// unit, also in an entry an earlier install wrote. With `guard` the
/// agent's pre-tool event gets `agent guard` beside the stop hook; without
/// it, an entry an earlier install wrote is taken out.
pub(crate) fn install(
    root: &Path,
    agents: &[Agent],
    force: bool,
    seconds: u64,
    guard: bool,
) -> Result<Vec<Change>, Error> {
    let mut changes = Vec::new();
    for &agent in agents {
        let settings = agent.protocol().settings;
        let path = settings.path;
        let existing = read(root, path)?;
        let bytes = match settings.format {
            Format::Hooks => merged(agent, existing.as_deref(), force, seconds, guard)?,
            Format::Plugin(text) => {
                owned(path, existing.as_deref(), plugin::MARKER, force)?;
                text(agent.name(), seconds)
            }
            Format::TestCommand => {
                let command = command(agent, agent.events()[1]);
                command_lines::add(existing.as_deref(), &command, force)
                    .map_err(|why| refuse(path, &why))?
            }
        };
        changes.push(Change {
            path: PathBuf::from(path),
            action: written(existing.as_deref(), bytes),
        });
        if let Some((path, text)) = agent.protocol().instructions {
            let text = text();
            let existing = read(root, path)?;
            owned(path, existing.as_deref(), skill::MARKER, force)?;
            changes.push(Change {
                path: PathBuf::from(path),
                action: written(existing.as_deref(), text),
            });
        }
    }
    Ok(changes)
}

/// A hooks settings file's text with run-check's entries for `agent`
/// merged in.
fn merged(
    agent: Agent,
    existing: Option<&str>,
    force: bool,
    seconds: u64,
    guard: bool,
) -> Result<String, Error> {
    let settings = agent.protocol().settings;
    let mut document = match existing {
        None => Json::Object(Vec::new()),
        Some(text) => match mergeable(text) {
            Ok(document) => document,
            Err(_) if force => Json::Object(Vec::new()),
            Err(why) => return Err(refuse(settings.path, &why)),
        },
    };
    for (event, kind) in agent.protocol().events {
        add(
            &mut document,
            &settings,
            &command(agent, event),
            kind == Event::Stop,
            seconds,
        );
    }
    if let Some(command) = guard_command(agent) {
        match guard {
            true => add(&mut document, &settings, &command, false, GUARD_SECONDS),
            false => {
                remove(&mut document, &settings, &[command]);
            }
        }
    }
    Ok(document.pretty())
}

/// Refuses a file run-check writes whole when one without `marker` is
/// there (unless `force`).
fn owned(path: &str, existing: Option<&str>, marker: &str, force: bool) -> Result<(), Error> {
    match existing {
        Some(current) if !current.contains(marker) && !force => {
            Err(refuse(path, "run-check did not write it"))
        }
        _ => Ok(()),
    }
}

/// The changes `uninstall` makes for `agents` under `root`.
pub(crate) fn uninstall(root: &Path, agents: &[Agent]) -> Result<Vec<Change>, Error> {
    let mut changes = Vec::new();
    for &agent in agents {
        let settings = agent.protocol().settings;
        let path = settings.path;
        if let Some(text) = read(root, path)? {
            let action = match settings.format {
                Format::Hooks => unmerged(agent, &text),
                Format::Plugin(_) => match text.contains(plugin::MARKER) {
                    true => Action::Remove,
                    false => Action::Unchanged,
                },
                Format::TestCommand => match command_lines::remove(&text) {
                    Some(kept) if kept.is_empty() => Action::Remove,
                    Some(kept) => written(Some(&text), kept),
                    None => Action::Unchanged,
                },
            };
            changes.push(Change {
                path: PathBuf::from(path),
                action,
            });
        }
        if let Some((path, _)) = agent.protocol().instructions
            && let Some(text) = read(root, path)?
        {
            changes.push(Change {
                path: PathBuf::from(path),
                action: if text.contains(skill::MARKER) {
                    Action::Remove
                } else {
                    Action::Unchanged
                },
            });
        }
    }
    Ok(changes)
}

/// A hooks settings file without run-check's entries for `agent`. A file
/// run-check cannot read as settings holds nothing of run-check's: it is
/// left alone.
fn unmerged(agent: Agent, text: &str) -> Action {
    let settings = agent.protocol().settings;
    let Ok(mut document) = mergeable(text) else {
        return Action::Unchanged;
    };
    let commands: Vec<String> = (agent.events().iter())
        .map(|e| command(agent, e))
        .chain(guard_command(agent))
        .collect();
    if !remove(&mut document, &settings, &commands) {
        Action::Unchanged
    } else if holds_nothing(&document) {
        Action::Remove
    } else {
        written(Some(text), document.pretty())
    }
}

/// Writes the changes, each file atomically; a removed instruction file's
/// folder goes too when it is left empty.
pub(crate) fn apply(root: &Path, changes: &[Change]) -> Result<(), Error> {
    for change in changes {
        let full = root.join(&change.path);
        match &change.action {
            Action::Unchanged => {}
            Action::Write { bytes, .. } => {
                if let Some(dir) = full.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|err| Error::io("create the directory of", &change.path, err))?;
                }
                crate::output::replace_as(
                    &full,
                    &change.path,
                    crate::output::FileKind::Regular,
                    bytes.as_bytes(),
                )?;
            }
            Action::Remove => {
                std::fs::remove_file(&full)
                    .map_err(|err| Error::io("remove", &change.path, err))?;
                // The folders install made for it go when it leaves them
                // empty (remove_dir refuses others), up to the top level.
                for dir in change.path.ancestors().skip(1) {
                    if dir.as_os_str().is_empty() || std::fs::remove_dir(root.join(dir)).is_err() {
                        break;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The text of `root/path`, `None` when there is no such file.
fn read(root: &Path, path: &str) -> Result<Option<String>, Error> {
    let full = root.join(path);
    match crate::bounded::read(&full, crate::bounded::CONFIG) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::Input {
                path: PathBuf::from(path),
                location: None,
                key: None,
                message: "not UTF-8 text".into(),
            }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io("read", Path::new(path), err)),
    }
}

/// The error for a file install will not touch.
fn refuse(path: &str, why: &str) -> Error {
    Error::Input {
        path: PathBuf::from(path),
        location: None,
        key: None,
        message: format!(
            "{why}; run-check does not replace a file it cannot merge into \
             (--force replaces it)"
        ),
    }
}

/// `bytes` as the new content of a file that had `existing`.
fn written(existing: Option<&str>, bytes: String) -> Action {
    match existing {
        Some(current) if current == bytes => Action::Unchanged,
        _ => Action::Write {
            existed: existing.is_some(),
            bytes,
        },
    }
}

/// `text` as a settings document run-check can merge into: a JSON object
/// whose `hooks` (when present) is an object of arrays.
fn mergeable(text: &str) -> Result<Json, String> {
    let document = Json::parse(text).map_err(|err| format!("not valid JSON ({err})"))?;
    if !matches!(document, Json::Object(_)) {
        return Err("not a JSON object".into());
    }
    match document.get("hooks") {
        None => {}
        Some(Json::Object(events)) => {
            if let Some((event, _)) = events.iter().find(|(_, v)| !matches!(v, Json::Array(_))) {
                return Err(format!("`hooks.{event}` is not an array"));
            }
        }
        Some(_) => return Err("`hooks` is not an object".into()),
    }
    Ok(document)
}

/// The entry that runs `command`, as `settings` lists one.
fn entry(settings: &Settings, command: &str, stop: bool, seconds: u64) -> Json {
    let mut fields: Vec<(&str, Json)> = Vec::new();
    if settings.typed {
        fields.push(("type", string("command")));
    }
    for key in settings.command_keys {
        fields.push((*key, string(command)));
    }
    if let Some(timeout) = settings.timeout {
        let value = timeout.unit.of(seconds);
        fields.push((timeout.key, Json::Number(value.into())));
    }
    if let Some(key) = settings.loop_limit
        && stop
    {
        let limit = crate::config::AgentConfig::default().max_blocks;
        fields.push((key, Json::Number(limit.into())));
    }
    let inner = Json::Object(fields.into_iter().map(|(k, v)| (k.into(), v)).collect());
    match settings.grouped {
        true => object([("hooks", Json::Array(vec![inner]))]),
        false => inner,
    }
}

/// The event (as spelled in the command) that `command` handles.
fn event_of(command: &str) -> &str {
    command.rsplit(' ').next().unwrap_or(command)
}

/// Does this entry (a group's inner entry when grouped) run `command`?
fn runs(item: &Json, settings: &Settings, command: &str) -> bool {
    let key = settings.command_keys.first().copied().unwrap_or("command");
    item.get(key).and_then(Json::as_str) == Some(command)
}

/// Adds the entry for `command` unless one is there; one that is gets
/// `seconds` as its timeout (so a changed `[agent] timeout` reaches the
/// agent with the next install, and an unchanged one changes no byte).
fn add(document: &mut Json, settings: &Settings, command: &str, stop: bool, seconds: u64) {
    // A new file of a format with a `version` needs it; an existing one
    // keeps what it has.
    if settings.version
        && document.is_empty()
        && let Json::Object(entries) = document
    {
        entries.push(("version".into(), Json::Number(1.into())));
    }
    let Some(hooks) = document.entry("hooks", Json::Object(Vec::new())) else {
        return;
    };
    let Some(Json::Array(list)) = hooks.entry(event_of(command), Json::Array(Vec::new())) else {
        return;
    };
    let mut present = false;
    for item in list.iter_mut() {
        let ours: Vec<&mut Json> = match (settings.grouped, item) {
            (true, Json::Object(fields)) => fields
                .iter_mut()
                .filter(|(key, _)| key == "hooks")
                .flat_map(|(_, inner)| match inner {
                    Json::Array(inner) => inner.iter_mut().collect(),
                    _ => Vec::new(),
                })
                .filter(|h| runs(h, settings, command))
                .collect(),
            (false, item) if runs(item, settings, command) => vec![item],
            _ => Vec::new(),
        };
        for found in ours {
            present = true;
            set_timeout(found, settings, seconds);
        }
    }
    if !present {
        list.push(entry(settings, command, stop, seconds));
    }
}

/// Sets the timeout field of an entry of run-check's to `seconds`.
fn set_timeout(entry: &mut Json, settings: &Settings, seconds: u64) {
    if let Some(timeout) = settings.timeout
        && let Some(value) = entry.entry(timeout.key, Json::Null)
    {
        *value = Json::Number(timeout.unit.of(seconds).into());
    }
}

/// Takes out every entry that runs one of `commands`, and what that leaves
/// empty; true when anything was taken out.
fn remove(document: &mut Json, settings: &Settings, commands: &[String]) -> bool {
    let mut removed = false;
    let Some(Json::Object(events)) = document.entry("hooks", Json::Object(Vec::new())) else {
        return false;
    };
    for (_, list) in events.iter_mut() {
        let Json::Array(items) = list else { continue };
        let before = items.len();
        match settings.grouped {
            true => {
                for item in items.iter_mut() {
                    if !matches!(item.get("hooks"), Some(Json::Array(_))) {
                        continue;
                    }
                    if let Some(Json::Array(inner)) = item.entry("hooks", Json::Array(Vec::new())) {
                        let count = inner.len();
                        inner.retain(|h| !commands.iter().any(|c| runs(h, settings, c)));
                        if inner.len() != count {
                            removed = true;
                            // A group emptied by it goes with it (an empty
                            // group the user wrote stays).
                            if inner.is_empty() {
                                *item = Json::Null;
                            }
                        }
                    }
                }
                items.retain(|item| *item != Json::Null);
            }
            false => {
                items.retain(|item| !commands.iter().any(|c| runs(item, settings, c)));
            }
        }
        removed |= items.len() != before;
    }
    if removed {
        events.retain(|(_, list)| !list.is_empty());
        if events.is_empty() {
            document.remove("hooks");
        }
    }
    removed
}

/// A settings document with nothing left but run-check's `version`.
fn holds_nothing(document: &Json) -> bool {
    match document {
        Json::Object(entries) => entries.iter().all(|(k, _)| k == "version"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: &str = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test)\"\n    ]\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify-send done\"\n          }\n        ]\n      }\n    ]\n  },\n  \"model\": \"opus\"\n}\n";

    #[test]
    fn merging_keeps_other_hooks_and_taking_out_restores_the_bytes() {
        for agent in Agent::ALL {
            let layout = &agent.protocol().settings;
            let mut document = mergeable(SETTINGS).unwrap();
            add(
                &mut document,
                layout,
                "run-check agent hook claude Stop",
                true,
                600,
            );
            add(
                &mut document,
                layout,
                "run-check agent hook claude SessionStart",
                false,
                600,
            );
            let once = document.pretty();
            add(
                &mut document,
                layout,
                "run-check agent hook claude Stop",
                true,
                600,
            );
            assert_eq!(document.pretty(), once);
            assert!(once.contains("notify-send done"), "{once}");
            let commands = [
                "run-check agent hook claude Stop".to_string(),
                "run-check agent hook claude SessionStart".to_string(),
            ];
            assert!(remove(&mut document, layout, &commands));
            assert_eq!(document.pretty(), SETTINGS);
            assert!(!document.pretty().contains("run-check"));
        }
    }
}
