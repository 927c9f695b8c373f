//! A test-command configuration (Aider's `.aider.conf.yml`): run-check's
//! two lines, `test-cmd` running the hook and `auto-test: true`, below a
//! marker line at the end of the file; every other line stays as it was,
//! byte for byte. The user's own `test-cmd` or `auto-test` (the agent runs
//! one test command) is refused without `--force`; with it, those lines
//! are commented out behind a prefix that `uninstall` takes off again.

/// The line above run-check's two lines.
const MARKER: &str = "# written by `run-check agent install`: the gate runs after each change; \
                      `run-check agent uninstall` removes these lines";

/// Added to the marker when install put a line break before it (the file
/// did not end with one), so that uninstall takes that out too.
const JOINED: &str = " (and the line break above)";

/// The prefix of a user's line that `--force` commented out.
const COMMENTED: &str = "# commented out by `run-check agent install`: ";

/// The keys run-check sets.
const KEYS: [&str; 2] = ["test-cmd", "auto-test"];

/// Is `line` (without its line break) a top-level `KEY:` of ours?
fn sets_key(line: &str) -> bool {
    KEYS.iter().any(|key| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })
}

/// `existing` (the file's text, `None` when there is none) with run-check's
/// lines for `command`; `Err` names the user's own line when `force` is
/// not given.
pub(crate) fn add(existing: Option<&str>, command: &str, force: bool) -> Result<String, String> {
    let text = existing.unwrap_or("");
    // Built again from the file without run-check's lines, so a second
    // install with the same command changes no byte; lines an earlier
    // `--force` commented out stay commented out.
    let forced = text.split_inclusive('\n').any(|l| l.starts_with(COMMENTED));
    let kept = remove(text);
    let text = kept.as_deref().unwrap_or(text);
    let force = force || forced;
    let ours = format!("test-cmd: {command}\nauto-test: true\n");
    let mut out = String::new();
    for (number, line) in text.split_inclusive('\n').enumerate() {
        if sets_key(line.trim_end_matches(['\n', '\r'])) {
            if !force {
                return Err(format!(
                    "line {} sets `{}` already: the agent runs one test command (put \
                     `run-check agent hook ...` in it yourself, or --force comments yours out)",
                    number + 1,
                    line.split(':').next().unwrap_or("").trim()
                ));
            }
            out.push_str(COMMENTED);
        }
        out.push_str(line);
    }
    let joined = !out.is_empty() && !out.ends_with('\n');
    if joined {
        out.push('\n');
    }
    out.push_str(MARKER);
    if joined {
        out.push_str(JOINED);
    }
    out.push('\n');
    out.push_str(&ours);
    Ok(out)
}

/// `text` without run-check's lines and with the user's lines that
/// `--force` commented out restored; `None` when it holds nothing of
/// run-check's.
pub(crate) fn remove(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut found = false;
    let mut skip = 0;
    for (at, line) in lines.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        let bare = line.trim_end_matches(['\n', '\r']);
        let marker = bare.strip_prefix(MARKER);
        if let Some(rest) = marker.filter(|rest| rest.is_empty() || *rest == JOINED) {
            found = true;
            skip = lines[at + 1..]
                .iter()
                .take(2)
                .take_while(|l| sets_key(l.trim_end_matches(['\n', '\r'])))
                .count();
            if rest == JOINED && out.ends_with('\n') {
                out.pop();
            }
            continue;
        }
        match line.strip_prefix(COMMENTED) {
            Some(original) => {
                found = true;
                out.push_str(original);
            }
            None => out.push_str(line),
        }
    }
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMAND: &str = "run-check agent hook aider stop";

    #[test]
    fn adding_and_removing_restores_every_byte() {
        for original in [
            None,
            Some(""),
            Some("model: sonnet\nread: AGENTS.md\n"),
            Some("model: sonnet\r\nlint: true"),
        ] {
            let added = add(original, COMMAND, false).unwrap();
            assert!(
                added.ends_with("\ntest-cmd: run-check agent hook aider stop\nauto-test: true\n"),
                "{added:?}"
            );
            assert_eq!(add(Some(&added), COMMAND, false).unwrap(), added);
            assert_eq!(remove(&added).as_deref(), Some(original.unwrap_or("")));
        }
        assert_eq!(remove("model: sonnet\n"), None);
    }

    #[test]
    fn the_users_own_test_command_is_kept_unless_forced() {
        let original = "test-cmd: pytest -q\nauto-test: false\nmodel: x\n";
        let err = add(Some(original), COMMAND, false).unwrap_err();
        assert!(err.starts_with("line 1 sets `test-cmd`"), "{err}");
        let forced = add(Some(original), COMMAND, true).unwrap();
        assert!(forced.starts_with(COMMENTED), "{forced}");
        assert_eq!(forced.matches("\ntest-cmd:").count(), 1, "{forced}");
        assert_eq!(remove(&forced).as_deref(), Some(original));
    }
}
