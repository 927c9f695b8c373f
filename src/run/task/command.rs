//! Whether an `acceptance.commands` entry runs run-check's strict JSON gate:
//! a small reader of shell, PowerShell and `cmd` command lines (words,
//! quotes, chaining, redirections, nested `-c` strings) that never runs
//! anything. It decides only; the violation is worded by the task module.

/// Whether the command line `command` runs run-check's strict gate with a
/// JSON report.
///
/// Accepted: a program named `run-check` (or `run-check.exe`, any
/// directory, e.g. `./target/release/run-check`), the wrapper
/// `run-check.sh` run directly or by `sh`/`bash`/`zsh`/`dash`/`ksh`, the
/// wrapper `run-check.ps1` run directly, after PowerShell's `&`, or by
/// `pwsh`/`powershell` (options such as `-NoProfile -ExecutionPolicy Bypass
/// -File` allowed), and a shell's `-c` / PowerShell's `-Command` / `cmd /c`
/// command string holding such a command; leading `NAME=value` assignments
/// are skipped. The arguments must hold `--mode strict` and `--format json`
/// (or `--mode=strict`, `--format=json`), each exactly once (run-check
/// rejects a repeated flag), in any order among other options, optionally
/// after the `check` subcommand; another subcommand (`list`, `judge`, ...),
/// `--help` or `--version` does not count, and the default mode (strict) is
/// not enough: the task must name the flag (docs/task.md). A command line may chain
/// commands with `&&`, `||`, `;`, `|` or newlines and redirect output
/// (`> runs/T/run-check.json`); quotes are removed, backslashes are kept
/// (Windows paths). Not accepted: `make` targets, `cargo run`, or a command
/// that only mentions run-check (`echo run-check ...`).
pub(crate) fn runs_strict_json(command: &str) -> bool {
    runs_strict_json_at(command, 0)
}

/// Nesting limit for `sh -c "..."` inside `pwsh -Command "..."` and so on.
const MAX_NESTING: usize = 3;

fn runs_strict_json_at(command: &str, depth: usize) -> bool {
    depth <= MAX_NESTING
        && simple_commands(command)
            .iter()
            .any(|words| simple_command_runs(words, depth))
}

/// The simple commands of a command line, each as its words: quotes removed,
/// split at unquoted `&&`, `||`, `|`, `;` and newlines.
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    let mut chars = line.chars().peekable();
    fn end_word(commands: &mut [Vec<String>], word: &mut String, in_word: &mut bool) {
        if *in_word {
            if let Some(last) = commands.last_mut() {
                last.push(std::mem::take(word));
            }
            *in_word = false;
        }
    }
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                word.push(c);
            }
            continue;
        }
        let separator = match c {
            '\'' | '"' => {
                quote = Some(c);
                in_word = true;
                false
            }
            '\n' | ';' => true,
            '|' => {
                chars.next_if_eq(&'|');
                true
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                true
            }
            c if c.is_whitespace() => {
                end_word(&mut commands, &mut word, &mut in_word);
                false
            }
            c => {
                word.push(c);
                in_word = true;
                false
            }
        };
        if separator {
            end_word(&mut commands, &mut word, &mut in_word);
            commands.push(Vec::new());
        }
    }
    end_word(&mut commands, &mut word, &mut in_word);
    commands.retain(|words| !words.is_empty());
    commands
}

/// The file name of a program word, lower-cased (`.\Run-Check.ps1` →
/// `run-check.ps1`).
fn program_name(word: &str) -> String {
    word.rsplit(['/', '\\'])
        .next()
        .unwrap_or(word)
        .to_ascii_lowercase()
}

/// `NAME=value` before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn simple_command_runs(words: &[String], depth: usize) -> bool {
    let mut words = words;
    while words.first().is_some_and(|w| is_assignment(w)) {
        words = &words[1..];
    }
    if words.first().is_some_and(|w| w == "&") {
        words = &words[1..];
    }
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let name = program_name(program);
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    match name {
        "run-check" | "run-check.sh" | "run-check.ps1" => args_run_strict_json(args),
        "sh" | "bash" | "zsh" | "dash" | "ksh" => {
            interpreted(args, "run-check.sh", depth, &["-o", "-O", "+o", "+O"])
        }
        "pwsh" | "powershell" => interpreted(
            args,
            "run-check.ps1",
            depth,
            &[
                "-executionpolicy",
                "-ep",
                "-ex",
                "-workingdirectory",
                "-wd",
                "-inputformat",
                "-outputformat",
                "-settingsfile",
                "-configurationname",
            ],
        ),
        "cmd" => match args.split_first() {
            Some((flag, rest)) if matches!(flag.to_ascii_lowercase().as_str(), "/c" | "/k") => {
                runs_strict_json_at(&rest.join(" "), depth + 1)
            }
            _ => false,
        },
        _ => false,
    }
}

/// `args` of a shell (`sh`-like or PowerShell): options, then either a
/// command string (`-c`, `-Command`) or the wrapper `script` and its
/// arguments. `valued` lists (lower-case) options that take a value.
fn interpreted(args: &[String], script: &str, depth: usize, valued: &[&str]) -> bool {
    let powershell = script.ends_with(".ps1");
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let lower = arg.to_ascii_lowercase();
        if powershell && matches!(lower.as_str(), "-c" | "-command") {
            // PowerShell joins the remaining arguments into the command.
            return runs_strict_json_at(&args[i + 1..].join(" "), depth + 1);
        }
        if !powershell && lower.starts_with('-') && !lower.starts_with("--") && lower.contains('c')
        {
            // `sh -c`, `bash -lc`: the next argument is the command.
            return args
                .get(i + 1)
                .is_some_and(|command| runs_strict_json_at(command, depth + 1));
        }
        if valued.contains(&lower.as_str()) {
            i += 2;
        } else if lower.starts_with('-') || lower.starts_with('+') {
            // `-File` is an option too: the script follows it.
            i += 1;
        } else {
            return program_name(arg) == script && args_run_strict_json(&args[i + 1..]);
        }
    }
    false
}

/// run-check's options that take a value as the next argument.
const VALUED_OPTIONS: [&str; 11] = [
    "--out",
    "--config",
    "--worktree",
    "--task",
    "--only",
    "--skip",
    "--jobs",
    "--changed-since",
    "--shard",
    "--timings",
    "--mode",
];

/// A shell redirection word; `Some(true)` when its target is the next word
/// (`>`, `2>>`), `Some(false)` when it is self-contained (`>out`, `2>&1`).
fn redirection(word: &str) -> Option<bool> {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest
        .strip_prefix(['&', '*'])
        .filter(|r| r.starts_with('>'))
        .unwrap_or(rest);
    let target = rest
        .strip_prefix(">>")
        .or_else(|| rest.strip_prefix('>'))
        .or_else(|| rest.strip_prefix('<'))?;
    Some(target.is_empty())
}

/// run-check's arguments hold `--mode strict` and `--format json` once each
/// and no other subcommand, `--help` or `--version`.
fn args_run_strict_json(args: &[String]) -> bool {
    let mut modes = Vec::new();
    let mut formats = Vec::new();
    let mut i = usize::from(args.first().is_some_and(|a| a == "check"));
    while let Some(arg) = args.get(i) {
        if let Some(takes_next) = redirection(arg) {
            i += 1 + usize::from(takes_next);
            continue;
        }
        let next = args.get(i + 1).map(String::as_str);
        match arg.as_str() {
            "--mode" => modes.push(next),
            "--format" => formats.push(next),
            "-h" | "--help" | "-V" | "--version" => return false,
            // A subcommand other than `check` (`list --format json`).
            word if i == 0 && !word.starts_with('-') => return false,
            word => {
                if let Some(mode) = word.strip_prefix("--mode=") {
                    modes.push(Some(mode));
                } else if let Some(format) = word.strip_prefix("--format=") {
                    formats.push(Some(format));
                }
            }
        }
        i += if VALUED_OPTIONS.contains(&arg.as_str()) || arg == "--format" {
            2
        } else {
            1
        };
    }
    modes == [Some("strict")] && formats == [Some("json")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_strict_json_commands() {
        for command in [
            "run-check --mode strict --format json",
            "run-check --format json --mode strict",
            "run-check --mode=strict --format=json",
            "run-check check --mode strict --format json",
            "run-check --mode strict --quiet --format json --out runs/T-1/run-check.json",
            "run-check --task runs/T-1/task.json --mode strict --format json",
            "run-check --only json --mode strict --format json",
            "  run-check   --mode strict --format json  ",
            "run-check --mode 'strict' --format \"json\"",
            "./run-check.sh --mode strict --format json",
            "sh run-check.sh --mode strict --format json",
            "bash ./run-check.sh --format json --mode strict",
            "bash -lc './run-check.sh --mode strict --format json'",
            "sh -c \"run-check --mode strict --format json\"",
            "run-check.ps1 --mode strict --format json",
            ".\\run-check.ps1 --mode strict --format json",
            "& .\\run-check.ps1 --mode strict --format json",
            "pwsh ./run-check.ps1 --mode strict --format json",
            "pwsh -NoProfile -File ./run-check.ps1 --mode strict --format json",
            "powershell.exe -NoProfile -ExecutionPolicy Bypass -File .\\run-check.ps1 --mode strict --format json",
            "pwsh -Command ./run-check.ps1 --mode strict --format json",
            "pwsh -c \"& ./run-check.ps1 --mode strict --format json\"",
            "cmd /c run-check.exe --mode strict --format json",
            "C:\\tools\\run-check.exe --mode strict --format json",
            "./target/release/run-check --mode strict --format json",
            "/usr/local/bin/run-check --mode strict --format json",
            "RUST_LOG=debug run-check --mode strict --format json",
            "run-check --mode strict --format json > runs/T-1/run-check.json",
            "run-check --mode strict --format json >runs/T-1/run-check.json 2>&1",
            "run-check --mode strict > out.json --format json",
            "run-check --mode strict --format json | tee runs/T-1/run-check.json",
            "cd sub && run-check --mode strict --format json",
            "cargo build; ./run-check.sh --mode strict --format json",
            "cargo test\n./run-check.sh --mode strict --format json",
        ] {
            assert!(runs_strict_json(command), "should accept: {command}");
        }
    }

    #[test]
    fn rejected_commands() {
        for command in [
            "",
            "cargo test",
            "run-check",
            "run-check --format json",
            "run-check --mode strict",
            "run-check --mode fast --format json",
            "run-check --mode strict --format text",
            "run-check --mode strict --format junit",
            "run-check --mode STRICT --format json",
            "run-check --mode strict --format JSON",
            "run-check --mode strict --mode strict --format json",
            "run-check --mode strict --format json --format json",
            "run-check --mode strict --format",
            "run-check --mode --format json",
            "run-check --mode strict --format json --help",
            "run-check --mode strict --format json -V",
            "run-check list --mode strict --format json",
            "run-check judge --mode strict --format json",
            "run-check --out --mode strict --format json",
            "run-check --mode strict --format=jsonl",
            "run-check --mode= strict --format json",
            "run-check-old --mode strict --format json",
            "my-run-check --mode strict --format json",
            "echo run-check --mode strict --format json",
            "echo 'run-check --mode strict --format json'",
            "# run-check --mode strict --format json",
            "make check-strict",
            "cargo run -- --mode strict --format json",
            "bash run-check.ps1 --mode strict --format json",
            "pwsh run-check.sh --mode strict --format json",
            "sh -c 'cargo test' run-check --mode strict --format json",
            "run-check --mode strict > --format json",
            "run-check --mode strict | jq --format json",
            "run-check --mode strict && run-check --format json",
        ] {
            assert!(!runs_strict_json(command), "should reject: {command}");
        }
    }

    #[test]
    fn redirections() {
        assert_eq!(redirection(">"), Some(true));
        assert_eq!(redirection("2>>"), Some(true));
        assert_eq!(redirection("&>"), Some(true));
        assert_eq!(redirection("*>"), Some(true));
        assert_eq!(redirection(">out.json"), Some(false));
        assert_eq!(redirection("2>&1"), Some(false));
        assert_eq!(redirection("<in"), Some(false));
        assert_eq!(redirection("--format"), None);
        assert_eq!(redirection("2"), None);
        assert_eq!(redirection("&"), None);
    }
}
