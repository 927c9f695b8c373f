//! `git` arguments that make git run another program (docs/checks-toml.md):
//! with only `git` listed, `git -c 'alias.x=!sh -c ...' x` would run a shell
//! the whitelist never saw. Such an argument is refused unless the program
//! it names is itself listed in `settings.allow`.
//!
//! The rule, as an attacker is read:
//! - `-c KEY=VALUE` (before the subcommand, and `clone`'s `-c`/`--config`,
//!   glued or abbreviated) with a key that holds a program: matched by the
//!   variable's name (`*command`, `*cmd`, `*program`, `*helper`, `*driver`,
//!   `*hook`, `*editor`, `*pager`, `textconv`, `clean`, `smudge`, `process`,
//!   `uploadpack`, ... compared without case, as git compares section and
//!   variable names), so a key git adds later under such a name is caught
//!   too; over-matching refuses a harmless key, never runs a program. An
//!   alias runs a program only as `!...`; any other alias is git arguments
//!   again and is read by the same rule (`ls-remote --upload-pack=...`).
//! - The program a value names: git runs a value with a space or a shell
//!   character (run-command.c's `SHELL_META`) through `sh -c`, so such a
//!   value needs `sh` listed; a plain word (or words separated by spaces
//!   alone, which `sh` splits and runs as they are) needs its first word
//!   listed as written, and a first word that is git is read again by this
//!   rule.
//! - Always refused: `include.path` (a file can set any key),
//!   `core.hooksPath` (but `/dev/null`), `protocol.allow` and
//!   `protocol.ext.allow` (but `never`: `ext::` URLs run commands),
//!   `--exec-path=DIR`, `--template`, a program key given by
//!   `--config-env` (its value is read when git runs), and the subcommands
//!   that exist to run programs (`difftool`, `mergetool`, `filter-branch`,
//!   `bisect run`, `submodule foreach`, ...).
//! - Options of subcommands that name a program: `--upload-pack`,
//!   `--receive-pack`, `--exec`, `--extcmd`, `--tool`,
//!   `--open-files-in-pager` (any abbreviation git accepts), `clone -u`,
//!   `rebase -x`, `grep -O`.
//!
//! What a repository's own configuration or attributes make git run is not
//! an argument: docs/THREAT_MODEL.md says what holds there.

/// How deep aliases and nested `git` words are read before giving up (each
/// level is a strictly shorter string, so this only bounds the work).
const MAX_DEPTH: usize = 8;

/// The characters that make git run a command through `sh -c`
/// (run-command.c, `SHELL_META`); space and tab split plain words.
const SHELL_META: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '#', '~', '=',
    '%', '\n', '\r',
];

/// Variable names (the last part of a key, lowercase) that hold a program.
const PROGRAM_NAMES: &[&str] = &[
    "tool",
    "guitool",
    "clean",
    "smudge",
    "process",
    "path",
    "vcs",
    "external",
    "askpass",
    "gitproxy",
    "fsmonitor",
    "httpd",
    "difffilter",
    "smtpserver",
    "uploadpack",
    "receivepack",
];

/// Endings of variable names that hold a program (`sshcommand`,
/// `alternaterefscommand`, `sendmailcmd`, `packobjectshook`, ...).
const PROGRAM_SUFFIXES: &[&str] = &[
    "command", "cmd", "program", "prog", "helper", "driver", "hook", "editor", "pager", "viewer",
    "browser", "textconv", "tunnel",
];

/// Values that are booleans to git: a key that takes one (`core.fsmonitor`,
/// `pager.<cmd>`) then names no program.
const BOOLS: &[&str] = &["true", "false", "yes", "no", "on", "off"];

/// Subcommands whose purpose is to run a program they are given or
/// configured with.
const RUNNERS: &[&str] = &[
    "difftool",
    "mergetool",
    "filter-branch",
    "instaweb",
    "web--browse",
    "send-email",
    "daemon",
    "remote-ext",
    "submodule--helper",
];

/// The global options that take the next word as their value (git 2.47's
/// `handle_options`).
const GLOBAL_WITH_VALUE: &[&str] = &[
    "git-dir",
    "work-tree",
    "namespace",
    "attr-source",
    "shallow-file",
];

/// Long options that take a program (any prefix of the name is accepted by
/// git's option parser when it is unambiguous, so any prefix is read).
const PROGRAM_OPTIONS: &[&str] = &["upload-pack", "receive-pack", "exec", "extcmd", "tool"];

/// Whether `program` (a listed name or path, or a resolved file) is git,
/// by its file name: `git`, `/usr/bin/git`, `./git`, `GIT.EXE`.
pub(crate) fn is_git(program: &str) -> bool {
    let name = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    name == "git" || name == "git.exe"
}

/// Why git run with `args` (the arguments after the program) would run a
/// program `allow` does not list, or `None` when it would run none.
pub(crate) fn refused(args: &[String], allow: &[String]) -> Option<String> {
    Reader { allow }.args(args, 0).err()
}

/// What a configuration key does with its value.
enum Key {
    /// Names no program.
    Harmless,
    /// `alias.*`: `!command`, or git arguments.
    Alias,
    /// Names a program, except for these values (lowercase), and except
    /// for a boolean where `bools` (a pager or fsmonitor switched on or
    /// off).
    Program {
        idle: &'static [&'static str],
        bools: bool,
    },
    /// `submodule.*.update`: a program only as `!command`.
    BangProgram,
    /// Refused, except for these values (lowercase), with why.
    Never(&'static [&'static str], &'static str),
}

/// The kind of `key` (`section[.subsection].name`); `None` for a key git
/// would refuse as malformed.
fn key_kind(key: &str) -> Option<Key> {
    // git refuses a key with spaces around it; read it as if it did not.
    let (section, rest) = key.trim().split_once('.')?;
    let (subsection, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    let section = section.trim().to_ascii_lowercase();
    let name = name.trim().to_ascii_lowercase();
    let kind = match (section.as_str(), name.as_str()) {
        ("alias", _) => Key::Alias,
        ("include" | "includeif", _) => Key::Never(
            &[],
            "makes git read configuration from a file, which can name any program",
        ),
        ("pager", _) => Key::Program {
            idle: &["cat"],
            bools: true,
        },
        // Booleans, colours and layouts only (`color.pager`,
        // `advice.waitingForEditor`, `column.clean`).
        ("advice" | "color" | "column", _) => Key::Harmless,
        ("diff", "cachetextconv") | ("submodule", "path") => Key::Harmless,
        ("submodule", "update") => Key::BangProgram,
        ("core", "hookspath") => Key::Never(
            &["/dev/null"],
            "makes git run the hooks of the folder it names",
        ),
        ("protocol", "allow") if subsection.is_none_or(|s| s.eq_ignore_ascii_case("ext")) => {
            Key::Never(
                &["never"],
                "lets a URL run any command (git's `ext::` transport)",
            )
        }
        ("core", "fsmonitor") => Key::Program {
            idle: &[],
            bools: true,
        },
        // git runs no editor for `:` and no pager for `cat`.
        (_, "editor") => Key::Program {
            idle: &[":"],
            bools: false,
        },
        (_, "pager") => Key::Program {
            idle: &["cat"],
            bools: false,
        },
        (_, name)
            if PROGRAM_NAMES.contains(&name)
                || PROGRAM_SUFFIXES.iter().any(|s| name.ends_with(s)) =>
        {
            Key::Program {
                idle: &[],
                bools: false,
            }
        }
        _ => Key::Harmless,
    };
    Some(kind)
}

struct Reader<'a> {
    allow: &'a [String],
}

impl Reader<'_> {
    /// Reads git's arguments: global options up to the subcommand, then the
    /// subcommand's. Before the subcommand an option takes the next word
    /// as git's own option parser does; after it nothing is skipped: a
    /// value is read as a value and then as an argument, so a flag taken
    /// for an option with a value (`grep -c`) hides nothing.
    fn args(&self, args: &[String], depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("nests aliases and commands too deeply to be checked".into());
        }
        let mut sub: Option<String> = None;
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            let next = args.get(i + 1).map(String::as_str);
            let global = sub.is_none();
            i += 1;
            // Read wherever they stand: a misread subcommand (a global
            // option of a later git taking a word) still hides none.
            if arg == "-c" || arg == "--config-env" {
                let shown = format!("{arg} {}", next.unwrap_or(""));
                if arg == "-c" {
                    self.config(&shown, next, depth)?;
                } else {
                    config_env(&shown, next)?;
                }
                if global {
                    i += 1;
                }
                continue;
            }
            if let Some(spec) = arg.strip_prefix("--config-env=") {
                config_env(arg, Some(spec))?;
                continue;
            }
            if arg.starts_with("--exec-path=") {
                return Err(format!(
                    "`{arg}` makes git run its own commands from the folder it names"
                ));
            }
            if let Some(long) = arg.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                };
                if name.is_empty() {
                    continue;
                }
                if global {
                    if value.is_none() && GLOBAL_WITH_VALUE.contains(&name) {
                        i += 1;
                    }
                    continue;
                }
                let shown = match value {
                    Some(_) => arg.to_string(),
                    None => format!("{arg} {}", next.unwrap_or("")),
                };
                if "config".starts_with(name) {
                    self.config(&shown, value.or(next), depth)?;
                } else if "template".starts_with(name) {
                    return Err(format!(
                        "`{shown}` copies the hooks of a folder into a repository, where git \
                         runs them"
                    ));
                } else if "open-files-in-pager".starts_with(name) {
                    // Its program only ever follows `=`.
                    match value {
                        Some(pager) if !pager.is_empty() => self.program(arg, pager, depth)?,
                        _ => return Err(configured_pager(arg)),
                    }
                } else if PROGRAM_OPTIONS.iter().any(|o| o.starts_with(name))
                    && let Some(value) = value.or(next)
                {
                    self.program(&shown, value, depth)?;
                }
                continue;
            }
            if arg.len() > 1 && arg.starts_with('-') {
                if global {
                    if arg == "-C" {
                        i += 1;
                    }
                } else if let Some(sub) = &sub {
                    self.short(sub, arg, next, depth)?;
                }
                continue;
            }
            if global {
                subcommand(arg, &args[i..])?;
                sub = Some(arg.to_ascii_lowercase());
            }
        }
        Ok(())
    }

    /// A bundle of short options of subcommand `sub` (`-x CMD`, `-qxCMD`,
    /// `-Ocmd`): the letters that take a program or configuration.
    fn short(&self, sub: &str, arg: &str, next: Option<&str>, depth: usize) -> Result<(), String> {
        let letters: &[char] = match sub {
            "clone" => &['c', 'u'],
            "rebase" => &['x'],
            "grep" => &['O'],
            _ => &[],
        };
        let bundle = &arg[1..];
        let Some((at, letter)) = bundle.char_indices().find(|(_, c)| letters.contains(c)) else {
            return Ok(());
        };
        let glued = &bundle[at + letter.len_utf8()..];
        if letter == 'O' {
            // `-O` takes its program glued or not at all.
            if glued.is_empty() {
                return Err(configured_pager(arg));
            }
            return self.program(arg, glued, depth);
        }
        let (shown, value) = if glued.is_empty() {
            (format!("{arg} {}", next.unwrap_or("")), next)
        } else {
            (arg.to_string(), Some(glued))
        };
        match (letter, value) {
            ('c', value) => self.config(&shown, value, depth),
            (_, Some(value)) => self.program(&shown, value, depth),
            (_, None) => Ok(()),
        }
    }

    /// One `KEY=VALUE` of `-c`, shown in errors as `shown`.
    fn config(&self, shown: &str, spec: Option<&str>, depth: usize) -> Result<(), String> {
        // Without `=` a key is the boolean true, and git refuses it for
        // every key that holds a program.
        let Some((key, value)) = spec.and_then(|s| s.split_once('=')) else {
            return Ok(());
        };
        match key_kind(key) {
            None | Some(Key::Harmless) => Ok(()),
            Some(Key::Alias) => self.alias(shown, value, depth),
            Some(Key::Program { idle, bools }) => {
                let lower = value.trim().to_ascii_lowercase();
                if idle.contains(&lower.as_str()) || bools && is_bool(&lower) {
                    return Ok(());
                }
                self.program(shown, value, depth)
            }
            Some(Key::BangProgram) => match value.trim_start().strip_prefix('!') {
                Some(command) => self.program(shown, command, depth),
                None => Ok(()),
            },
            Some(Key::Never(unless, why)) => {
                if unless.contains(&value.trim().to_ascii_lowercase().as_str()) {
                    Ok(())
                } else {
                    Err(format!("`{shown}` {why}"))
                }
            }
        }
    }

    /// An alias value: `!command` runs it; anything else is git arguments.
    fn alias(&self, shown: &str, value: &str, depth: usize) -> Result<(), String> {
        let value = value.trim_start();
        if value.starts_with('!') {
            return self.program(shown, value, depth);
        }
        let Some(words) = split_cmdline(value) else {
            // git refuses an alias with an unclosed quote.
            return Ok(());
        };
        self.args(&words, depth + 1)
            .map_err(|why| format!("{why} (in the alias `{shown}`)"))
    }

    /// The program a value names (a leading `!`, as aliases, credential
    /// helpers and submodule updates write it, is dropped): allowed when
    /// listed, a git one read again.
    fn program(&self, shown: &str, value: &str, depth: usize) -> Result<(), String> {
        let command = value.strip_prefix('!').unwrap_or(value).trim();
        if command.is_empty() {
            return Ok(());
        }
        // With `sh` listed, whatever git runs is no more than a check could.
        if self.allow.iter().any(|entry| lists_sh(entry)) {
            return Ok(());
        }
        if command.contains(SHELL_META) {
            return Err(format!(
                "`{shown}` makes git run `{command}` through `sh -c`, and `settings.allow` does \
                 not list `sh` (an allowed git runs only listed programs)"
            ));
        }
        let mut words = command.split([' ', '\t']).filter(|w| !w.is_empty());
        let first = words.next().unwrap_or(command);
        if !self.allow.iter().any(|entry| entry == first) {
            return Err(format!(
                "`{shown}` makes git run `{first}`, which `settings.allow` does not list (an \
                 allowed git runs only listed programs)"
            ));
        }
        if is_git(first) {
            let rest: Vec<String> = words.map(str::to_string).collect();
            return self.args(&rest, depth + 1);
        }
        Ok(())
    }
}

/// `--config-env KEY=VARIABLE`: a key that could name a program gets its
/// value when git runs, out of the whitelist's sight.
fn config_env(shown: &str, spec: Option<&str>) -> Result<(), String> {
    let Some((key, _)) = spec.and_then(|s| s.rsplit_once('=')) else {
        return Ok(());
    };
    match key_kind(key) {
        None | Some(Key::Harmless) => Ok(()),
        Some(_) => Err(format!(
            "`{shown}` gives `{key}` the value of an environment variable when git runs, where \
             the whitelist cannot see the program it names (give it with `-c`)"
        )),
    }
}

/// A subcommand that exists to run programs, or one of its modes that does.
fn subcommand(name: &str, rest: &[String]) -> Result<(), String> {
    let lower = name.to_ascii_lowercase();
    let runs = RUNNERS.contains(&lower.as_str())
        || lower == "bisect" && rest.iter().any(|a| a == "run")
        || lower == "submodule" && rest.iter().any(|a| a == "foreach");
    if runs {
        let what = match lower.as_str() {
            "bisect" => "git bisect run".to_string(),
            "submodule" => "git submodule foreach".to_string(),
            _ => format!("git {name}"),
        };
        return Err(format!(
            "`{what}` runs the programs it is given or configured with"
        ));
    }
    Ok(())
}

fn configured_pager(shown: &str) -> String {
    format!("`{shown}` makes git run the pager it is configured with")
}

/// Whether `value` (lowercase) is a boolean to git (a number counts).
fn is_bool(value: &str) -> bool {
    value.is_empty() || BOOLS.contains(&value) || value.bytes().all(|b| b.is_ascii_digit())
}

/// Whether allow entry `entry` lists the shell git runs commands with:
/// `sh` by name, or an absolute path to a file named `sh` (ASCII case
/// ignored, a `.exe` dropped). A path into the worktree is a script that
/// happens to be called `sh`, not git's shell.
fn lists_sh(entry: &str) -> bool {
    let file = entry
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(entry)
        .to_ascii_lowercase();
    let named = file.strip_suffix(".exe").unwrap_or(&file) == "sh";
    named && (file.len() == entry.len() || std::path::Path::new(entry).is_absolute())
}

/// An alias split into words as git splits it (alias.c, `split_cmdline`):
/// whitespace separates, `'` and `"` quote, `\` escapes outside single
/// quotes. `None` for an unclosed quote or a trailing `\`, which git refuses.
fn split_cmdline(text: &str) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    let mut quoted: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (None, c) if c.is_ascii_whitespace() => {
                while chars.peek().is_some_and(char::is_ascii_whitespace) {
                    chars.next();
                }
                words.push(String::new());
            }
            (None, '\'' | '"') => quoted = Some(c),
            (Some(q), c) if c == q => quoted = None,
            (q, '\\') if q != Some('\'') => words.last_mut()?.push(chars.next()?),
            (_, c) => words.last_mut()?.push(c),
        }
    }
    quoted.is_none().then_some(words)
}

#[cfg(test)]
mod tests;
