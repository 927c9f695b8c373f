//! `run-check completions SHELL` and `run-check man [COMMAND]...`
//! (docs/cli.md#completions-and-manual-pages): the bash script is loaded by
//! a real bash and asked to complete; the other shells' scripts name every
//! command; the manual pages are roff that `man -l` renders.

#[cfg(unix)]
use std::path::Path;
#[cfg(unix)]
use std::process::Command;

use crate::support::Test;

/// Every subcommand of `run-check --help` but `help`.
const SUBCOMMANDS: [&str; 15] = [
    "check",
    "list",
    "validate",
    "fix",
    "report",
    "merge",
    "judge",
    "vote",
    "retry",
    "candidates",
    "schema",
    "init",
    "hooks",
    "completions",
    "man",
];

/// The output of `run-check ARGS`, which must exit 0 with nothing on stderr.
#[track_caller]
fn generated(args: &[&str]) -> String {
    let run = Test::bare().args(args).run().success();
    assert_eq!(run.stderr, "", "run-check {}", args.join(" "));
    run.stdout
}

#[test]
fn every_state_of_the_bash_script_has_its_case() {
    // The script's word loop moves between states (`cmd="..."`); each
    // must have its `case` arm, or that command's options never complete
    // (clap-rs/clap#6421, worked around in commands/completions.rs).
    let script = generated(&["completions", "bash"]);
    let states: std::collections::BTreeSet<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("cmd=\""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|state| !state.is_empty())
        .collect();
    assert!(states.contains("run__check__subcmd__retry__subcmd__record"));
    assert!(states.len() > 20, "{states:?}");
    for state in states {
        assert!(
            script.contains(&format!("\n        {state})\n")),
            "no case for {state}"
        );
    }
    assert!(!script.contains("run__subcmd__check"));
}

/// What bash completes for the command line `words` (the cursor at the end
/// of the last word), with the script of `run-check completions bash`
/// sourced: COMP_WORDS/COMP_CWORD as bash sets them, then the function that
/// `complete -F` registered, called as bash calls it. One candidate a line.
#[cfg(unix)]
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let program = r#"
source "$1" || exit 3
shift
spec=$(complete -p run-check) || exit 4
function=${spec#* -F }
function=${function%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(( $# - 1 ))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
prev=
[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
"$function" run-check "${COMP_WORDS[COMP_CWORD]}" "$prev"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let out = Command::new("bash")
        .arg("-c")
        .arg(program)
        .arg("bash")
        .arg(script)
        .args(words)
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "bash: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(unix)]
#[test]
fn bash_completion_loads_and_completes_commands_options_and_values() {
    let temp = tempfile::tempdir().expect("tempdir");
    let script = temp.path().join("run-check.bash");
    std::fs::write(&script, generated(&["completions", "bash"])).expect("write script");

    assert_eq!(bash_completes(&script, &["run-check", "ju"]), ["judge"]);
    assert_eq!(
        bash_completes(&script, &["run-check", "c"]),
        ["check", "candidates", "cache", "completions"]
    );
    assert_eq!(bash_completes(&script, &["run-check", "--mo"]), ["--mode"]);
    assert_eq!(
        bash_completes(&script, &["run-check", "--mode", ""]),
        ["fast", "strict"]
    );
    // A subcommand's own options and values (clap_complete 4.6.11 alone
    // completes none of them for a hyphenated name: commands/completions.rs).
    assert_eq!(
        bash_completes(&script, &["run-check", "judge", "--hi"]),
        ["--history"]
    );
    assert_eq!(
        bash_completes(&script, &["run-check", "report", "e.json", "--format", ""]),
        [
            "text", "json", "junit", "sarif", "github", "markdown", "html"
        ]
    );
    assert_eq!(
        bash_completes(&script, &["run-check", "retry", "record", "--ph"]),
        ["--phase"]
    );
    assert_eq!(
        bash_completes(&script, &["run-check", "completions", ""]),
        [
            "-h",
            "--help",
            "bash",
            "elvish",
            "fish",
            "powershell",
            "zsh"
        ]
    );
}

/// A shell, the line its script is loaded by, how a command is named in it,
/// and how the option `--changed-since` is.
type Expected = (&'static str, &'static str, fn(&str) -> String, &'static str);

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    // The line each shell loads the script by, how a command is named in
    // it, and how the option `--changed-since` is.
    let shells: [Expected; 4] = [
        (
            "zsh",
            "#compdef run-check\n",
            |c| format!("'{c}:"),
            "'--changed-since=[",
        ),
        (
            "fish",
            "complete -c run-check ",
            |c| format!(" -a \"{c}\" "),
            " -l changed-since ",
        ),
        (
            "powershell",
            "Register-ArgumentCompleter -Native -CommandName 'run-check' -ScriptBlock {",
            |c| format!("[CompletionResult]::new('{c}', '{c}',"),
            "[CompletionResult]::new('--changed-since', '--changed-since',",
        ),
        (
            "elvish",
            "set edit:completion:arg-completer[run-check] = {|@words|",
            |c| format!("cand {c} '"),
            "cand --changed-since '",
        ),
    ];
    for (shell, loader, command, option) in shells {
        let script = generated(&["completions", shell]);
        assert!(script.contains(loader), "{shell}: no `{loader}`");
        for sub in SUBCOMMANDS {
            assert!(
                script.contains(&command(sub)),
                "{shell}: `{sub}` not offered (looked for `{}`)",
                command(sub)
            );
        }
        assert!(script.contains(option), "{shell}: no `{option}`");
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let run = Test::bare().args(&["completions", "tcsh"]).run().status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: invalid value 'tcsh' for '<SHELL>' [possible values: bash, elvish, fish, powershell, zsh] (see `run-check completions --help`)\n  tip: a similar value exists: 'zsh'\n"
    );
}

/// The `.SH` section names of a roff page, in order.
fn sections(page: &str) -> Vec<&str> {
    page.lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect()
}

#[test]
fn the_manual_page_is_roff_listing_every_command() {
    let page = generated(&["man"]);
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        page.contains(&format!(".TH run-check 1  \"run-check {version}\" \n")),
        "title line:\n{page}"
    );
    assert_eq!(
        sections(&page),
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            // The check run's option groups of `--help`.
            "\"WHICH CHECKS\"",
            "REPORT",
            "WHERE",
            "RUNNING",
            "\"TASK AND BASELINE\"",
            "SUBCOMMANDS",
            "VERSION"
        ]
    );
    assert!(page.contains(
        ".SH NAME\nrun\\-check \\- The single read\\-only verification gate of a repository\n"
    ));
    // Each command as the page of its own, `help` left out.
    for sub in SUBCOMMANDS {
        let entry = format!(".TP\nrun\\-check\\-{}(1)\n", sub.replace('-', "\\-"));
        assert!(page.contains(&entry), "no {entry:?}");
    }
    assert!(!page.contains("run\\-check\\-help(1)"));
    assert!(page.contains("\\fB\\-\\-changed\\-since\\fR"));
}

#[test]
fn a_command_has_its_own_page() {
    let page = generated(&["man", "retry", "record"]);
    let version = env!("CARGO_PKG_VERSION");
    assert!(page.contains(&format!(
        ".TH run-check-retry-record 1  \"run-check {version}\" \n"
    )));
    assert!(page.contains(".SH SYNOPSIS\n\\fBrun\\-check retry record\\fR "));
    assert!(page.contains("\\fB\\-\\-subagent\\fR"));
    assert_eq!(
        sections(&page),
        ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS"]
    );

    let run = Test::bare().args(&["man", "retry", "nope"]).run().status(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: man: no command `retry nope` (the commands of `run-check retry`: record, status, reset)\n"
    );
    let run = Test::bare().args(&["man", "judge", "nope"]).run().status(2);
    assert_eq!(
        run.stderr,
        "error: man: no command `judge nope` (`run-check judge` has no commands)\n"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn man_renders_the_page() {
    let temp = tempfile::tempdir().expect("tempdir");
    let file = temp.path().join("run-check-judge.1");
    std::fs::write(&file, generated(&["man", "judge"])).expect("write page");
    let out = match Command::new("man")
        .arg("-l")
        .arg(&file)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .env("LC_ALL", "C")
        .output()
    {
        Ok(out) => out,
        Err(err) => {
            crate::support::missing(&format!("man cannot run: {err}"));
            return;
        }
    };
    assert!(
        out.status.success(),
        "man -l: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert_eq!(
        first.split_whitespace().collect::<Vec<_>>(),
        [
            "run-check-judge(1)",
            "General",
            "Commands",
            "Manual",
            "run-check-judge(1)"
        ]
    );
    assert!(text.contains("\nNAME\n"), "{text}");
    assert!(
        text.contains("\nSYNOPSIS\n       run-check judge [--history]"),
        "{text}"
    );
    assert!(text.contains("\n       --record\n"), "{text}");
}
