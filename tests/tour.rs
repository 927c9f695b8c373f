//! README.md's "A 5-minute tour", run as a new user would: every command
//! of its console blocks, in order, in a fresh Cargo project, each output
//! compared with the one the README prints. In the README's outputs `…`
//! stands for what varies (a path, a time, lines left out): alone on a line
//! it matches any number of lines, inside a line any text; durations
//! (`0.20s`) match any duration.

use std::path::Path;
use std::process::Command;

use regex::Regex;

use crate::support::{bin, git, repo_root};

/// One `$ command` of a console block and the output printed under it.
#[derive(Debug)]
struct Step {
    command: String,
    expected: Vec<String>,
}

/// The console blocks of the tour section, in order, as steps.
fn tour() -> Vec<Vec<Step>> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let start = readme.find("## A 5-minute tour").expect("the tour section");
    let end = start
        + readme[start..]
            .find("\n## Exit codes")
            .expect("the next section");
    let section = &readme[start..end];
    let mut blocks = Vec::new();
    let mut rest = section;
    while let Some(at) = rest.find("```console\n") {
        let body = &rest[at + "```console\n".len()..];
        let close = body.find("\n```").expect("a closed block");
        let mut steps: Vec<Step> = Vec::new();
        for line in body[..close].lines() {
            match line.strip_prefix("$ ") {
                Some(command) => steps.push(Step {
                    command: command.to_string(),
                    expected: Vec::new(),
                }),
                None => steps
                    .last_mut()
                    .expect("output under a command")
                    .expected
                    .push(line.to_string()),
            }
        }
        blocks.push(steps);
        rest = &body[close..];
    }
    blocks
}

/// Whether `actual` lines match `expected` (see the module's comment).
fn matches(expected: &[String], actual: &[String]) -> bool {
    let duration = Regex::new(r"\b\d+\.\d\ds\b").unwrap();
    let line_pattern = |line: &str| {
        let parts: Vec<String> = duration
            .replace_all(line, "\u{0}")
            .split('…')
            .map(|part| regex::escape(part).replace('\u{0}', r"\d+\.\d\ds"))
            .collect();
        Regex::new(&format!("^{}$", parts.join(".*"))).unwrap()
    };
    fn go(expected: &[String], actual: &[String], pattern: &dyn Fn(&str) -> Regex) -> bool {
        match expected.split_first() {
            None => actual.is_empty(),
            Some((first, rest)) if first.trim() == "…" => {
                (0..=actual.len()).any(|skip| go(rest, &actual[skip..], pattern))
            }
            Some((first, rest)) => actual.split_first().is_some_and(|(line, more)| {
                pattern(first).is_match(line) && go(rest, more, pattern)
            }),
        }
    }
    go(expected, actual, &line_pattern)
}

/// Runs one README command in `dir`: `run-check ...` is the binary under
/// test, `git ...` is git, `cargo ...` is cargo, `echo $?` prints the last
/// exit code. Returns
/// its exit code and what it printed.
fn run(dir: &Path, command: &str, last: i32) -> (i32, Vec<String>) {
    if command == "echo $?" {
        return (0, vec![last.to_string()]);
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut process = match words[0] {
        "run-check" => Command::new(bin()),
        "git" => Command::new("git"),
        "cargo" => Command::new("cargo"),
        other => panic!("the tour runs `{other}`: teach this test to run it"),
    };
    let args: Vec<String> = words[1..]
        .iter()
        .map(|w| w.trim_matches('\'').to_string())
        .collect();
    // stdout and stderr into one file, as a terminal shows them: in the
    // order they were written (the check run's progress, then its report;
    // `list`'s count line after its list).
    let log = dir.parent().unwrap().join("tour-output.log");
    let file = std::fs::File::create(&log).unwrap();
    let status = process
        .args(&args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("CARGO_TERM_COLOR", "never")
        // The project's build beside it, not in the caller's target dir.
        .env("CARGO_TARGET_DIR", dir.parent().unwrap().join("target"))
        .stdin(std::process::Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    (status.code().unwrap_or(-1), lines)
}

/// Every command of the tour gives the output the README prints, in a
/// fresh `cargo new` project committed once, with the one edit the prose
/// asks for (`fn unused() {}` in src/main.rs) made where it asks.
#[test]
fn the_readme_tour_prints_what_the_readme_says() {
    if which::which("cargo").is_err() {
        crate::support::missing("cargo is not on PATH");
        return;
    }
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert!(
        readme.contains("In a fresh Rust project (`cargo new demo && cd demo`, committed once)")
    );
    assert!(
        readme.contains(
            "Add `fn unused() {}` to\n`src/main.rs` first, on a line of its own at the end"
        )
    );
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("demo");
    let created = Command::new("cargo")
        .args(["new", "--quiet", "--vcs", "git", "demo"])
        .current_dir(temp.path())
        .env("CARGO_TARGET_DIR", temp.path().join("target"))
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "new"]);
    let blocks = tour();
    assert!(blocks.len() >= 5, "{blocks:?}");
    let mut last = 0;
    for (i, steps) in blocks.iter().enumerate() {
        // The prose before the second block: something to find.
        if i == 1 {
            let main = dir.join("src/main.rs");
            let mut text = std::fs::read_to_string(&main).unwrap();
            text.push_str("fn unused() {}\n");
            std::fs::write(&main, text).unwrap();
        }
        for step in steps {
            let (code, actual) = run(&dir, &step.command, last);
            assert!(
                matches(&step.expected, &actual),
                "README tour: `$ {}` printed (exit {code}):\n{}\n--- the README says:\n{}",
                step.command,
                actual.join("\n"),
                step.expected.join("\n")
            );
            last = code;
        }
    }
}

#[test]
fn the_matcher_reads_ellipses_and_durations() {
    let v = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(
        &v(&["a 0.20s", "…", "z"]),
        &v(&["a 1.05s", "b", "c", "z"])
    ));
    assert!(matches(&v(&["a", "…", "z"]), &v(&["a", "z"])));
    assert!(matches(&v(&["x …/y (z …)"]), &v(&["x /tmp/q/y (z w)"])));
    assert!(!matches(&v(&["a", "z"]), &v(&["a", "b", "z"])));
    assert!(!matches(&v(&["a 0.20s"]), &v(&["a 0.2s"])));
    assert!(!matches(&v(&["a"]), &v(&["a", "b"])));
}
