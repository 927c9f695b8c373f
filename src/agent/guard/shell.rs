//! The shell commands that skip or rewrite the gate, found after the
//! shell's own word splitting: `git commit` / `push` with `--no-verify`
//! (or commit's `-n`), `git -c core.hooksPath=...`, `git update-index
//! --assume-unchanged` / `--skip-worktree`, `git config` setting one of
//! the settings the verification pins, `run-check agent uninstall`, and
//! `rm` of run-check's state or the hooks folder.
//!
//! A command string is cut into simple commands at the unquoted operators
//! (`;`, `&`, `|`, `&&`, `||`, a line end, `(`, `)`, `` ` ``, `$(`), each
//! split into words by `shlex` (POSIX quoting), and `sh -c` / `bash -c`
//! strings are looked into the same way. What cannot be split (an
//! unclosed quote) is let through: the guard prevents the obvious, and the
//! stop gate still sees what it let through. Not followed: variables,
//! aliases, functions, `eval`, scripts the command runs.

use std::path::{Path, PathBuf};

use super::Denial;

/// How deep `sh -c "bash -c '...'"` is looked into.
const DEPTH: u8 = 4;

/// What the shell rules need to know of the repository.
pub(crate) struct Context<'a> {
    /// The directory the command runs in.
    pub(crate) cwd: &'a Path,
    /// Folders whose removal is denied (run-check's state, the hooks),
    /// absolute and lexically normal.
    pub(crate) protected: &'a [PathBuf],
}

/// The first rule `command` breaks, `None` when it breaks none or cannot
/// be split.
pub(crate) fn check(command: &str, context: &Context<'_>) -> Option<Denial> {
    check_depth(command, context, 0)
}

fn check_depth(command: &str, context: &Context<'_>, depth: u8) -> Option<Denial> {
    for segment in segments(command)? {
        let Some(words) = shlex::split(segment) else {
            continue;
        };
        if let Some(denial) = simple(&words, context, depth) {
            return Some(denial);
        }
    }
    None
}

/// `text` cut at its unquoted operators; `None` when a quote is left open.
fn segments(text: &str) -> Option<Vec<&str>> {
    let mut segments = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut word_start = true;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                chars.next();
            }
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if word_start => {
                // A comment runs to the line's end.
                segments.push(&text[start..at]);
                let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
                while chars.next_if(|(i, _)| *i < end).is_some() {}
                start = end;
            }
            (None, ';' | '&' | '|' | '\n' | '(' | ')' | '`') => {
                segments.push(&text[start..at]);
                start = at + 1;
            }
            (None, '$') if chars.peek().is_some_and(|(_, n)| *n == '(') => {
                segments.push(&text[start..at]);
                chars.next();
                start = at + 2;
            }
            _ => {}
        }
        word_start = quote.is_none() && (c.is_whitespace() || ";&|()`".contains(c));
    }
    if quote.is_some() {
        return None;
    }
    segments.push(&text[start..]);
    Some(
        segments
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect(),
    )
}

/// The rules of one simple command's words.
fn simple(words: &[String], context: &Context<'_>, depth: u8) -> Option<Denial> {
    let mut words = words;
    // `GIT_CONFIG_KEY_0=core.hooksPath git commit`: the environment's
    // config outranks the repository's, as `-c` does.
    while let Some((first, rest)) = words.split_first() {
        let Some((name, value)) = first.split_once('=') else {
            break;
        };
        if !is_name(name) {
            break;
        }
        if name.to_ascii_uppercase().starts_with("GIT_CONFIG")
            && value.to_ascii_lowercase().contains("core.hookspath")
        {
            return Some(hooks_path(first));
        }
        words = rest;
    }
    let (program, args) = words.split_first()?;
    let name = base_name(program);
    match name.as_str() {
        "sudo" | "command" | "exec" | "nohup" | "time" | "nice" | "env" => {
            let rest: Vec<String> = args
                .iter()
                .skip_while(|a| a.starts_with('-'))
                .cloned()
                .collect();
            simple(&rest, context, depth)
        }
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" => {
            let inline = inline_script(args)?;
            (depth < DEPTH)
                .then(|| check_depth(inline, context, depth + 1))
                .flatten()
        }
        "git" => git(args),
        "run-check" => {
            let positional: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .collect();
            positional
                .windows(2)
                .any(|pair| pair == ["agent", "uninstall"])
                .then(|| Denial {
                    rule: "agent-uninstall",
                    what: "`run-check agent uninstall` removes the gate the agent is held to"
                        .into(),
                    instead: "leave the hooks installed; if they must go, the user runs it",
                })
        }
        "rm" | "rmdir" | "unlink" => remove(args, context),
        _ => None,
    }
}

/// `sh -c SCRIPT`, `bash -lc SCRIPT`: the script.
fn inline_script(args: &[String]) -> Option<&str> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" || !arg.starts_with('-') {
            return None;
        }
        if !arg.starts_with("--") && arg[1..].contains('c') {
            return iter.next().map(String::as_str);
        }
    }
    None
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A program's name without its folder and `.exe`, in lower case.
fn base_name(program: &str) -> String {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let name = name.to_ascii_lowercase();
    name.strip_suffix(".exe")
        .map_or(name.clone(), str::to_string)
}

fn hooks_path(what: &str) -> Denial {
    Denial {
        rule: "hooks-path",
        what: format!("`{what}` replaces the repository's hooks, where the gate runs"),
        instead: "run git without overriding core.hooksPath and fix what the hooks report",
    }
}

/// `rm` of run-check's state or the hooks folder, or of a folder holding
/// them (`rm -rf .git`).
fn remove(args: &[String], context: &Context<'_>) -> Option<Denial> {
    let mut options = true;
    for arg in args {
        if options && arg == "--" {
            options = false;
            continue;
        }
        if options && arg.starts_with('-') && arg.len() > 1 {
            continue;
        }
        let target = crate::paths::lexical(&context.cwd.join(arg));
        let hit = context
            .protected
            .iter()
            .find(|dir| dir.starts_with(&target) || target.starts_with(dir));
        if let Some(dir) = hit {
            return Some(Denial {
                rule: "gate-state",
                what: format!(
                    "`rm {arg}` would remove {}, which the gate keeps for itself",
                    dir.display()
                ),
                instead: "leave run-check's state and the hooks in place and fix what the gate reports",
            });
        }
    }
    None
}

/// The rules of `git ARGS`.
fn git(args: &[String]) -> Option<Denial> {
    let mut iter = args.iter();
    let sub = loop {
        let arg = iter.next()?;
        match arg.as_str() {
            "-c" => {
                let setting = iter.next()?;
                let key = setting.split('=').next().unwrap_or(setting);
                if key.eq_ignore_ascii_case("core.hooksPath") {
                    return Some(hooks_path(&format!("git -c {setting}")));
                }
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => {
                iter.next();
            }
            _ if arg.starts_with("--config-env=") => {
                let key = arg["--config-env=".len()..].split('=').next().unwrap_or("");
                if key.eq_ignore_ascii_case("core.hooksPath") {
                    return Some(hooks_path(arg));
                }
            }
            _ if arg.starts_with('-') => {}
            _ => break arg.as_str(),
        }
    };
    let rest: Vec<&str> = iter.map(String::as_str).collect();
    match sub {
        "commit" => skips_hooks(&rest, true).then(|| no_verify("commit")),
        "push" => skips_hooks(&rest, false).then(|| no_verify("push")),
        "update-index" => rest
            .iter()
            .find(|a| matches!(**a, "--assume-unchanged" | "--skip-worktree"))
            .map(|flag| Denial {
                rule: "index-flags",
                what: format!(
                    "`git update-index {flag}` hides a file's changes from git, and so from the gate"
                ),
                instead: "leave the index flags alone and commit or revert the change",
            }),
        "config" => config(&rest),
        _ => None,
    }
}

/// `git commit` / `push` options that skip the hooks: `--no-verify` (or a
/// prefix git takes for it: `--no-veri`), and commit's `-n`, alone or in
/// a cluster before an option that takes a value (`-anm msg`).
fn skips_hooks(args: &[&str], commit: bool) -> bool {
    // Options whose value is the next argument (a message `-m -n` is not
    // an option).
    const VALUED: [&str; 14] = [
        "-m",
        "-F",
        "-c",
        "-C",
        "-t",
        "--message",
        "--file",
        "--author",
        "--date",
        "--template",
        "--reuse-message",
        "--reedit-message",
        "--fixup",
        "--squash",
    ];
    let mut skip = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match *arg {
            "--" => break,
            "--verify" => skip = false,
            _ if arg.len() >= "--no-veri".len() && "--no-verify".starts_with(arg) => skip = true,
            _ if commit && VALUED.contains(arg) => {
                iter.next();
            }
            _ if commit && arg.starts_with('-') && !arg.starts_with("--") => {
                for c in arg[1..].chars() {
                    if c == 'n' {
                        skip = true;
                    }
                    if "mFcCtSu".contains(c) {
                        if arg.ends_with(c) && "mFcCt".contains(c) {
                            iter.next();
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    skip
}

fn no_verify(what: &str) -> Denial {
    Denial {
        rule: "no-verify",
        what: format!("`git {what} --no-verify` skips the repository's hooks, where the gate runs"),
        instead: "run it without --no-verify (or -n) and fix what the hook reports",
    }
}

/// `git config` that sets or unsets one of the settings the verification
/// pins or reads ([`crate::git::verified_setting`]).
fn config(args: &[&str]) -> Option<Denial> {
    const READS: [&str; 8] = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--list",
        "-l",
        "get",
        "list",
        "--show-origin",
    ];
    const VALUED: [&str; 6] = ["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let mut positional = Vec::new();
    let mut writes = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if READS.contains(arg) {
            return None;
        }
        if VALUED.contains(arg) {
            iter.next();
        } else if matches!(
            *arg,
            "--unset"
                | "--unset-all"
                | "--add"
                | "--replace-all"
                | "--rename-section"
                | "--remove-section"
                | "set"
                | "unset"
                | "rename-section"
                | "remove-section"
        ) {
            writes = true;
        } else if !arg.starts_with('-') {
            positional.push(*arg);
        }
    }
    let key = positional.first()?;
    // `git config KEY VALUE` sets; `git config KEY` only reads.
    if !(writes || positional.len() > 1) {
        return None;
    }
    let hit = crate::git::verified_setting(key)
        || key.eq_ignore_ascii_case("core")
        || key.eq_ignore_ascii_case("index");
    hit.then(|| Denial {
        rule: "git-config",
        what: format!("`git config {key}` changes a setting the gate's verification depends on"),
        instead: "leave git's settings as they are and fix what the gate reports",
    })
}

#[cfg(test)]
mod tests;
