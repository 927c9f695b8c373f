//! The conventions of the command line (docs/cli.md, "Conventions"), held
//! against clap's definition of every subcommand: one value name per kind
//! of argument, `-q` wherever a command prints progress or a banner,
//! `--format` wherever it prints a document, `-j`/`-o`/`-q` with their long
//! flags, `--worktree` with one meaning, no option shown twice, and usage
//! errors that point to the command's own help. Every subcommand must be in
//! [`KINDS`], so a new one fails here until it is classified and follows
//! the rules. Then one test per renamed flag: the old spelling still works.

use std::collections::BTreeMap;
use std::process::Command as Process;

use clap::{Arg, Command};

use crate::support::{FAILING, Test, bin, git};

/// What a command prints, which decides the flags it must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prints {
    /// A document a program reads (or a report of one): `--format`.
    Document,
    /// A document with progress or a banner on stderr: `--format` and `-q`.
    DocumentAndBanner,
    /// Progress or a banner on stderr, and no document: `-q`.
    Progress,
    /// Lines saying what it did, a script or page (completions, man), a
    /// reply in an agent's or MCP's own protocol, a JSON Schema (JSON by
    /// definition), or nothing: neither.
    Other,
}

use Prints::*;

/// Every command run-check has, by its path (`""` is `run-check` itself,
/// which runs the checks). A subcommand missing here fails
/// [`every_subcommand_is_classified`].
const KINDS: &[(&str, Prints)] = &[
    ("", DocumentAndBanner),
    ("check", DocumentAndBanner),
    ("list", Document),
    ("validate", Other),
    ("fix", Progress),
    ("report", DocumentAndBanner),
    ("merge", DocumentAndBanner),
    ("judge", Document),
    ("vote", Document),
    ("retry", Other),
    ("retry record", Document),
    ("retry status", Document),
    ("retry reset", Other),
    ("candidates", Document),
    ("candidates create", Document),
    ("candidates cleanup", Other),
    ("candidates summary", Other),
    ("schema", Other),
    ("init", Other),
    ("hooks", Other),
    ("hooks install", Other),
    ("hooks uninstall", Other),
    ("cache", Other),
    ("cache key", Document),
    ("cache stats", Document),
    ("cache clean", Other),
    ("agent", Other),
    ("agent install", Other),
    ("agent uninstall", Other),
    ("agent hook", Other),
    ("agent guard", Other),
    ("agent feedback", Other),
    ("mcp", Other),
    ("completions", Other),
    ("man", Other),
];

/// The value name of each flag that names a thing of one kind, by its
/// long name: a file is `FILE`, a directory `DIR`, an evidence document
/// `EVIDENCE`, an id `ID`, wherever the flag appears.
const VALUE_NAMES: &[(&str, &str)] = &[
    ("config", "FILE"),
    ("out", "FILE"),
    ("task", "FILE"),
    ("state", "FILE"),
    ("history", "FILE"),
    ("session-results", "FILE"),
    ("worktree", "DIR"),
    ("repo", "DIR"),
    ("runs", "DIR"),
    ("lessons", "DIR"),
    ("evidence", "EVIDENCE"),
    ("baseline", "EVIDENCE"),
    ("timings", "EVIDENCE"),
    ("task-id", "ID"),
];

/// The positional arguments that are an evidence file, by command.
const EVIDENCE_POSITIONALS: &[(&str, &str)] = &[
    ("report", "evidence"),
    ("merge", "inputs"),
    ("judge", "input"),
    ("agent feedback", "evidence"),
];

/// Every value name the command line may use: a new argument takes one of
/// these (or adds one here, after docs/cli.md), never a `PATH` that says
/// neither file nor directory, nor a file name like `EV.json`.
const VOCABULARY: &[&str] = &[
    "FILE", "DIR", "EVIDENCE", "ID", "NAME", "N", "REV", "K/N", "SHA256", "PHASE", "COMMAND",
    "SHELL", "AGENT", "EVENT", "HOOK", "WORKTREE", "INPUT", "MODE", "FORMAT",
];

/// Every command with its path, depth first; `help` is clap's own.
fn commands() -> Vec<(String, Command)> {
    fn walk(path: &str, command: &Command, out: &mut Vec<(String, Command)>) {
        out.push((path.to_string(), command.clone()));
        for sub in command.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let joined = match path {
                "" => sub.get_name().to_string(),
                _ => format!("{path} {}", sub.get_name()),
            };
            walk(&joined, sub, out);
        }
    }
    let mut root = run_check::testing::command();
    root.build();
    let mut out = Vec::new();
    walk("", &root, &mut out);
    out
}

fn kind(path: &str) -> Option<Prints> {
    KINDS.iter().find(|(p, _)| *p == path).map(|(_, k)| *k)
}

/// The arguments a user sees in the command's help (not `--help` and
/// `--version`, not the hidden ones).
fn visible(command: &Command) -> impl Iterator<Item = &Arg> {
    command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
}

fn value_name(arg: &Arg) -> Option<String> {
    if !arg.get_action().takes_values() {
        return None;
    }
    match arg.get_value_names() {
        Some(names) => names.first().map(|n| n.to_string()),
        None => Some(arg.get_id().as_str().to_uppercase()),
    }
}

fn long(arg: &Arg) -> Option<&str> {
    arg.get_long()
}

#[test]
fn every_subcommand_is_classified() {
    let unknown: Vec<String> = commands()
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| kind(path).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "commands missing from KINDS (classify them, then follow the rules of docs/cli.md): {unknown:?}"
    );
}

#[test]
fn one_value_name_per_kind_of_argument() {
    let mut seen: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let Some(name) = value_name(arg) else {
                continue;
            };
            let shown = long(arg).map_or_else(|| arg.get_id().to_string(), |l| format!("--{l}"));
            if !VOCABULARY.contains(&name.as_str()) {
                problems.push(format!("`{path}` {shown} <{name}>: not in VOCABULARY"));
            }
            if let Some(flag) = long(arg) {
                if let Some((_, wanted)) = VALUE_NAMES.iter().find(|(l, _)| *l == flag)
                    && name != *wanted
                {
                    problems.push(format!("`{path}` --{flag} <{name}>: want <{wanted}>"));
                }
                seen.entry(flag.to_string())
                    .or_default()
                    .entry(name.clone())
                    .or_default()
                    .push(path.clone());
            }
            if EVIDENCE_POSITIONALS.contains(&(path.as_str(), arg.get_id().as_str()))
                && name != "EVIDENCE"
            {
                problems.push(format!("`{path}` <{name}>: an evidence file is <EVIDENCE>"));
            }
        }
    }
    for (flag, names) in &seen {
        if names.len() > 1 {
            problems.push(format!("--{flag} has several value names: {names:?}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn quiet_and_format_where_a_command_prints_them() {
    let mut problems = Vec::new();
    for (path, command) in commands() {
        let Some(kind) = kind(&path) else { continue };
        let has = |flag: &str| command.get_arguments().find(|a| long(a) == Some(flag));
        let quiet = has("quiet");
        let format = has("format");
        let wants_quiet = matches!(kind, DocumentAndBanner | Progress);
        let wants_format = matches!(kind, Document | DocumentAndBanner);
        if wants_quiet && quiet.and_then(Arg::get_short) != Some('q') {
            problems.push(format!(
                "`{path}` prints progress or a banner: needs -q/--quiet"
            ));
        }
        if wants_format && format.is_none() {
            problems.push(format!("`{path}` prints a document: needs --format"));
        }
        if !wants_format && format.is_some() {
            problems.push(format!("`{path}` has --format: classify it as a document"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn short_flags_and_one_meaning_of_worktree() {
    let shorts = [("quiet", 'q'), ("jobs", 'j'), ("out", 'o')];
    let mut problems = Vec::new();
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let Some(flag) = long(arg) else { continue };
            if let Some((_, short)) = shorts.iter().find(|(l, _)| *l == flag)
                && arg.get_short() != Some(*short)
            {
                problems.push(format!("`{path}` --{flag} without -{short}"));
            }
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            if flag == "worktree" && !help.starts_with("Root the checks run in") {
                problems.push(format!(
                    "`{path}` --worktree means something else ({help}): give it another name"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn no_option_is_shown_twice() {
    let mut problems = Vec::new();
    for (path, command) in commands() {
        let mut helps: BTreeMap<String, String> = BTreeMap::new();
        for arg in visible(&command) {
            let id = arg.get_id().to_string();
            // An old spelling is a hidden alias: `--help` shows one name.
            if arg.get_visible_aliases().is_some_and(|a| !a.is_empty())
                || arg
                    .get_visible_short_aliases()
                    .is_some_and(|a| !a.is_empty())
            {
                problems.push(format!("`{path}` {id}: a visible alias"));
            }
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            if let Some(other) = helps.insert(help.clone(), id.clone()) {
                problems.push(format!("`{path}` {other} and {id} say the same: {help}"));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A wrong flag on each command is a usage error (exit 2) pointing to that
/// command's own help, and clap's tip is on a line of its own.
#[test]
fn usage_errors_point_to_the_commands_own_help() {
    let dir = tempfile::tempdir().unwrap();
    for (path, _) in commands() {
        let mut args: Vec<&str> = path.split_whitespace().collect();
        args.push("--no-such-flag");
        let output = Process::new(bin())
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let command = format!("run-check {path}");
        let wanted =
            format!("(see `{}` --help`)", command.trim_end()).replacen("` --help", " --help", 1);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        let mut lines = stderr.lines();
        let first = lines.next().unwrap_or_default();
        assert!(
            first.starts_with("error: ") && first.ends_with(&wanted),
            "{path}: {stderr}"
        );
        assert!(lines.all(|l| l.starts_with("  tip: ")), "{path}: {stderr}");
    }
    let output = Process::new(bin())
        .args(["retry", "status", "--formt", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].ends_with("(see `run-check retry status --help`)"),
        "{stderr}"
    );
    assert!(lines[1].starts_with("  tip: "), "{stderr}");
}

/// A mistyped flag's tip names the flag as the help shows it, never a
/// hidden old spelling (`--task` of `retry status`, kept for scripts):
/// clap suggests the closest spelling it knows, the hidden ones too.
#[test]
fn a_suggestion_names_the_visible_flag() {
    let test = Test::new();
    let mut hidden = Vec::new();
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let shown = arg.get_visible_aliases().unwrap_or_default();
            for alias in arg.get_all_aliases().unwrap_or_default() {
                if !shown.contains(&alias) {
                    hidden.push((
                        path.clone(),
                        alias.to_string(),
                        arg.get_long().unwrap().to_string(),
                    ));
                }
            }
        }
    }
    assert!(hidden.len() >= 4, "{hidden:?}");
    for (path, alias, long) in hidden {
        let mut args: Vec<&str> = path.split_whitespace().collect();
        // One letter short of the old spelling: closer to it than to
        // anything else the command takes.
        let typo = format!("--{}", &alias[..alias.len() - 1]);
        args.push(&typo);
        let (code, _, stderr) = run(&test, &args);
        assert_eq!(code, Some(2), "{path} {typo}: {stderr}");
        assert!(
            stderr.ends_with(&format!("  tip: a similar argument exists: '--{long}'\n")),
            "{path} {typo}: {stderr}"
        );
    }
}

#[test]
fn agent_hook_without_an_agent_says_what_is_missing() {
    for command in ["hook", "guard"] {
        let output = Process::new(bin())
            .args(["agent", command])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!(
                "error: `run-check agent {command}` needs AGENT and EVENT"
            )),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("see `run-check agent {command} --help`")),
            "{stderr}"
        );
        // An agent reads exit 2 as "block": the reply lets it go.
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "{}\n");
    }
}

// ---- the old spellings ----

/// A passing evidence, made by a real run, in the test's directory.
fn evidence(test: &Test) -> std::path::PathBuf {
    let path = test.path().join("ev.json");
    Process::new(bin())
        .args(["--format", "json", "-q", "-o", "ev.json"])
        .current_dir(test.path())
        .output()
        .unwrap();
    assert!(path.exists(), "no evidence written");
    path
}

fn run(test: &Test, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Process::new(bin())
        .args(args)
        .current_dir(test.path())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

const PASSING: &str =
    "[settings]\nallow = [\"true\"]\n\n[[check]]\nname = \"a\"\nrun = [\"true\"]\n";

/// `retry record|status|reset --task ID`, the contract's spelling, is
/// `--task-id ID` now and still works, with the same answers.
#[test]
fn retry_task_is_still_task_id() {
    let test = Test::new().config(FAILING);
    let ev = evidence(&test);
    let ev = ev.to_str().unwrap();
    for (n, flag) in ["--task", "--task-id"].into_iter().enumerate() {
        let state = format!("state-{n}.json");
        let (code, out, err) = run(
            &test,
            &[
                "retry",
                "record",
                flag,
                "t-1",
                "--phase",
                "verify",
                "--subagent",
                "s",
                "--evidence",
                ev,
                "--state",
                &state,
            ],
        );
        assert_eq!(code, Some(0), "{flag}: {err}");
        let record: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(record["task_id"], "t-1", "{flag}: {out}");
        let (code, out, err) = run(
            &test,
            &[
                "retry", "status", flag, "t-1", "--state", &state, "--format", "json",
            ],
        );
        assert_eq!(code, Some(0), "{flag}: {err}");
        let status: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(status["points"].as_array().map(Vec::len), Some(1), "{out}");
        let (code, out, err) = run(&test, &["retry", "reset", flag, "t-1", "--state", &state]);
        assert_eq!(code, Some(0), "{flag}: {err}");
        assert_eq!(out, "reset 1 failure point of task `t-1`\n", "{flag}");
    }
}

/// `hooks install --worktree DIR`, the old spelling of `--repo DIR`,
/// still installs into that repository.
#[test]
fn hooks_install_worktree_is_still_repo() {
    let test = Test::new().config(PASSING);
    let sub = test.path().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let outside = tempfile::tempdir().unwrap();
    for flag in ["--worktree", "--repo"] {
        let output = Process::new(bin())
            .args([
                "hooks",
                "install",
                flag,
                sub.to_str().unwrap(),
                "pre-commit",
            ])
            .current_dir(outside.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{flag}: {stderr}");
        let hooks = git(test.path(), &["rev-parse", "--git-path", "hooks"]);
        let hook = test.path().join(hooks.trim()).join("pre-commit");
        assert!(hook.is_file(), "{flag}: no hook at {}", hook.display());
        std::fs::remove_file(&hook).unwrap();
    }
}

// ---- the behaviours the conventions brought ----

/// `hooks install --dry-run` writes nothing; `hooks uninstall` removes
/// only run-check's hooks, and its `--dry-run` nothing.
#[test]
fn hooks_dry_run_and_uninstall() {
    let test = Test::new().config(PASSING);
    let hooks = test
        .path()
        .join(git(test.path(), &["rev-parse", "--git-path", "hooks"]).trim());
    let (code, out, err) = run(&test, &["hooks", "install", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("pre-commit: would install"), "{out}");
    assert!(!hooks.join("pre-commit").exists() && !hooks.join("pre-push").exists());
    let (code, _, err) = run(&test, &["hooks", "install"]);
    assert_eq!(code, Some(0), "{err}");
    // A foreign hook stays whatever uninstall is asked.
    std::fs::write(hooks.join("pre-push"), "#!/bin/sh\nexit 0\n").unwrap();
    let (code, out, err) = run(&test, &["hooks", "uninstall", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("pre-commit: would remove"), "{out}");
    assert!(hooks.join("pre-commit").exists());
    let (code, out, err) = run(&test, &["hooks", "uninstall"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!hooks.join("pre-commit").exists(), "{out}");
    assert!(
        out.contains("pre-push: ") && out.contains("left alone"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-push")).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

/// `report -q` and `merge -q` print no banner; without it they do.
#[test]
fn report_and_merge_quiet_silence_the_banner() {
    let test = Test::new().config(PASSING);
    let ev = evidence(&test);
    let ev = ev.to_str().unwrap();
    let (code, _, err) = run(&test, &["report", ev, "--format", "json", "-o", "r.json"]);
    assert_eq!((code, err.as_str()), (Some(0), "All checks passed!\n"));
    let (code, _, err) = run(
        &test,
        &["report", ev, "--format", "json", "-o", "r.json", "-q"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let (code, _, err) = run(&test, &["merge", ev, "-o", "m.json"]);
    assert_eq!((code, err.as_str()), (Some(0), "All checks passed!\n"));
    let (code, _, err) = run(&test, &["merge", ev, "-o", "m.json", "--quiet"]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
}

/// `cache stats --format text` and `vote --format text` print one
/// `path: value` line per value; json stays the default.
#[test]
fn documents_have_a_text_format() {
    let test = Test::new().config(PASSING);
    let cache = test.path().join("cache-home");
    let stats = |format: &[&str]| {
        let output = Process::new(bin())
            .args(["cache", "stats"])
            .args(format)
            .env("XDG_CACHE_HOME", &cache)
            .current_dir(test.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        String::from_utf8(output.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&stats(&[])).unwrap();
    let text = stats(&["--format", "text"]);
    assert!(
        text.contains(&format!("entries: {}\n", json["entries"])),
        "{text}"
    );
    assert!(
        text.contains(&format!("dir: {}\n", json["dir"].as_str().unwrap())),
        "{text}"
    );
}

/// Results on stdout: `list`'s closing line, `fix`'s summary and `cache
/// clean`'s answer; stderr keeps progress.
#[test]
fn results_go_to_stdout() {
    let config = format!("{PASSING}\n[[fix]]\nname = \"f\"\nrun = [\"true\"]\n");
    let test = Test::new().config(&config);
    let (code, out, err) = run(&test, &["list"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.lines().last(),
        Some("1 check in strict mode (checks.toml)")
    );
    assert_eq!(err, "");
    let (code, out, err) = run(&test, &["list", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "{out}"
    );
    let (code, out, err) = run(&test, &["fix", "-q"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "All 1 fixes succeeded\n");
    assert_eq!(err, "");
    let output = Process::new(bin())
        .args(["cache", "clean"])
        .env("XDG_CACHE_HOME", test.path().join("cache-home"))
        .current_dir(test.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.starts_with("emptied the result cache at "), "{out}");
    assert!(output.stderr.is_empty());
}
