//! run-check on a terminal (docs/running.md#on-a-terminal), read from a
//! real pseudo-terminal: a tmux pane, its screen captured while the checks
//! run and after. The live view shows the running check with its elapsed
//! time; afterwards each check is listed once, in colour, and without
//! colour under `NO_COLOR`. Piped output (no tmux) has no escape codes
//! unless `CLICOLOR_FORCE` asks, and then only in the `text` report.
//!
//! tmux is needed (scripts/install-test-tools.sh installs it); without it
//! these tests fail (`support::missing`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Test, bin};

/// Three checks: `slow` sleeps until the file `{release}` exists, `bad`
/// fails with a diagnostic the gcc parser reads, `quick` passes.
const CHECKS: &str = r#"version = 1
[settings]
allow = ["./slow.sh", "./bad.sh", "true"]

[[check]]
name = "slow"
run = ["./slow.sh", "{release}"]

[[check]]
name = "bad"
run = ["./bad.sh"]
parser = "gcc"

[[check]]
name = "quick"
run = ["true"]
"#;

/// Sleeps until the test lets it end (the file `$1` appears, outside the
/// worktree, which the run verifies is left alone), so the live view is
/// read however loaded the machine is; at most about 60 s.
const SLOW_SH: &str = "#!/bin/sh
i=0
while [ ! -e \"$1\" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
echo slept
";
const BAD_SH: &str = "#!/bin/sh
echo 'src/a.c:3:5: error: bad thing' >&2
exit 1
";

/// How long the screen is polled for what it should show.
const PATIENCE: Duration = Duration::from_secs(120);

/// The project, and the directory whose `release` file ends `slow`.
fn project() -> (Test, tempfile::TempDir) {
    let gate = tempfile::tempdir().unwrap();
    let release = gate.path().join("release");
    let config = CHECKS.replace("{release}", release.to_str().unwrap());
    let test = Test::new()
        .config(&config)
        .script("slow.sh", SLOW_SH)
        .script("bad.sh", BAD_SH);
    (test, gate)
}

/// Lets `slow` end.
fn release(gate: &tempfile::TempDir) {
    std::fs::write(gate.path().join("release"), "").unwrap();
}

/// run-check piped, with only the colour variables of `env`: exit code,
/// stdout, stderr.
fn piped(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let (test, gate) = project();
    release(&gate);
    let test = test.args(args);
    let mut command = test.command();
    for name in ["CI", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        command.env_remove(name);
    }
    command.env("TERM", "xterm-256color");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run-check");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A tmux server of its own (its own socket), killed when dropped.
struct Tmux {
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    /// None (and a note) when tmux is missing outside CI.
    fn start(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Option<Tmux> {
        let found = Command::new("tmux")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            crate::support::missing("tmux is not installed");
            return None;
        }
        let home = tempfile::tempdir().unwrap();
        let conf = home.path().join("tmux.conf");
        // The pane stays after run-check exits, so its screen can be read.
        std::fs::write(&conf, "set-option -g remain-on-exit on\n").unwrap();
        let tmux = Tmux {
            socket: home.path().join("socket"),
            _dir: home,
        };
        // The pane waits for a line (the Enter sent below), then runs
        // run-check with `args` (a fixed script; the arguments are sh's
        // positional parameters, never parsed) and prints its exit status.
        // The echoed Enter leaves the screen's first line blank: when the
        // pane dies, tmux writes its note on a new bottom line, scrolling
        // the first line away (that blank line, not the report's first).
        let mut command = tmux.command();
        command
            .arg("-f")
            .arg(&conf)
            .args(["new-session", "-d", "-x", "120", "-y", "40", "-c"])
            .arg(dir)
            .args([
                "--",
                "sh",
                "-c",
                "read -r _; \"$@\"; echo \"run-check exited $?\"",
                "sh",
            ])
            .arg(bin())
            .args(args);
        // The server (and so the pane) gets this environment: no CI, no
        // colour variables but those given.
        for name in [
            "CI",
            "NO_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "RUN_CHECK_BIN",
        ] {
            command.env_remove(name);
        }
        command.env("TERM", "xterm-256color");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().expect("tmux");
        assert!(
            output.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(tmux.ask(&["send-keys", "Enter"]).status.success());
        Some(tmux)
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-S").arg(&self.socket).stdin(Stdio::null());
        command
    }

    fn ask(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("tmux")
    }

    /// The pane's screen; with `escapes`, its colours as escape sequences.
    fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-J"];
        if escapes {
            args.push("-e");
        }
        String::from_utf8_lossy(&self.ask(&args).stdout).into_owned()
    }

    /// Polls the screen until `ready` holds; panics with the screen after
    /// [`PATIENCE`].
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen(false);
            if ready(&screen) {
                return screen;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "no {what} on the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for run-check to exit; its exit status (the pane's sh prints
    /// it: tmux may mark a pane dead before it knows its exit status).
    fn wait_for_exit(&self) -> i32 {
        let screen = self.wait_for("run-check's exit", |s| exit_line(s).is_some());
        exit_line(&screen)
            .and_then(|status| status.parse().ok())
            .unwrap_or_else(|| panic!("{screen}"))
    }
}

/// The status in sh's `run-check exited N` line.
fn exit_line(screen: &str) -> Option<&str> {
    screen
        .lines()
        .find_map(|l| l.trim_end().strip_prefix("run-check exited "))
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.ask(&["kill-server"]);
    }
}

/// The screen's lines without leading and trailing blank ones, sh's exit
/// line and tmux's note that the pane is dead.
fn lines(screen: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = screen
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .map(str::trim_end)
        .filter(|l| !l.starts_with("Pane is dead") && !l.starts_with("run-check exited "))
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether `line` is a listing line of check `name` (status word, name).
fn lists(line: &str, name: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!(words.next(), Some("PASS" | "FAIL" | "ERROR" | "SKIP")) && words.next() == Some(name)
}

/// A running check's line: `RUN name` and an elapsed time such as `0.4s`.
fn running_line<'a>(screen: &'a str, name: &str) -> Option<&'a str> {
    screen.lines().find(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.len() == 3
            && words[0] == "RUN"
            && words[1] == name
            && words[2]
                .strip_suffix('s')
                .is_some_and(|t| t.parse::<f64>().is_ok_and(|t| t >= 0.0))
    })
}

#[test]
fn a_terminal_gets_a_live_view_then_each_check_once_in_colour() {
    let (test, gate) = project();
    let dir = test.path();
    let Some(tmux) = Tmux::start(dir, &[], &["--no-fail-fast", "--jobs", "3"]) else {
        return;
    };
    // While `slow` runs: its line with the time so far, below the finished
    // ones, which are not listed yet as the report will list them.
    let live = tmux.wait_for("running `slow` after `bad` and `quick` ended", |s| {
        running_line(s, "slow").is_some()
            && s.lines().any(|l| lists(l, "bad"))
            && s.lines().any(|l| lists(l, "quick"))
    });
    let live_lines = lines(&live);
    assert_eq!(
        live_lines.first().copied(),
        Some("run-check strict: 3 checks, 3 at a time"),
        "{live}"
    );
    let running = running_line(&live, "slow").unwrap();
    assert_eq!(live_lines.last().copied(), Some(running), "{live}");
    // The time moves on.
    let first: f64 = running.split_whitespace().nth(2).unwrap()[..]
        .trim_end_matches('s')
        .parse()
        .unwrap();
    tmux.wait_for("a later elapsed time", |s| {
        running_line(s, "slow").is_some_and(|l| {
            let t: f64 = l.split_whitespace().nth(2).unwrap()[..]
                .trim_end_matches('s')
                .parse()
                .unwrap();
            t > first
        })
    });
    release(&gate);
    assert_eq!(tmux.wait_for_exit(), 1);

    // After the run: the report once, the live view gone.
    let screen = tmux.screen(false);
    let shown = lines(&screen);
    for name in ["slow", "bad", "quick"] {
        assert_eq!(
            shown.iter().filter(|l| lists(l, name)).count(),
            1,
            "`{name}` is listed once:\n{screen}"
        );
    }
    assert!(!screen.contains("RUN"), "{screen}");
    assert!(!screen.contains("3 at a time"), "{screen}");
    assert!(
        shown[0].starts_with("run-check strict · 3 checks · "),
        "{screen}"
    );
    let bad = shown.iter().position(|l| lists(l, "bad")).unwrap();
    assert_eq!(shown[bad + 1], "      src/a.c:3:5: error: bad thing");
    assert_eq!(
        shown[shown.len() - 2..],
        [
            "3 checks: 2 pass, 1 fail, 0 error, 0 skip",
            "1 of 3 checks failed: bad"
        ],
        "{screen}"
    );
    // In colour: red FAIL, green PASS, the banner red.
    let coloured = tmux.screen(true);
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[31m FAIL"),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[32m PASS"),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("\u{1b}[1m\u{1b}[31m1 of 3 checks failed: bad"),
        "{coloured:?}"
    );
}

#[test]
fn no_color_on_a_terminal_keeps_the_live_view_without_colour() {
    let (test, gate) = project();
    let dir = test.path();
    let Some(tmux) = Tmux::start(dir, &[("NO_COLOR", "1")], &["--no-fail-fast"]) else {
        return;
    };
    tmux.wait_for("running `slow`", |s| running_line(s, "slow").is_some());
    release(&gate);
    assert_eq!(tmux.wait_for_exit(), 1);
    let coloured = tmux.screen(true);
    assert!(!coloured.contains('\u{1b}'), "{coloured:?}");
    let screen = tmux.screen(false);
    assert!(lines(&screen).iter().any(|l| lists(l, "bad")), "{screen}");
}

/// With the report in a file, the finished lines stay on the terminal as
/// the one listing, then the banner; the file has no colour.
#[test]
fn with_the_report_elsewhere_the_finished_lines_are_the_listing() {
    let (test, gate) = project();
    let dir = test.path();
    release(&gate);
    let Some(tmux) = Tmux::start(
        dir,
        &[("CLICOLOR_FORCE", "1")],
        &["--no-fail-fast", "--format", "text", "--out", "report.txt"],
    ) else {
        return;
    };
    assert_eq!(tmux.wait_for_exit(), 1);
    let screen = tmux.screen(false);
    let shown = lines(&screen);
    assert_eq!(
        shown[0], "run-check strict: 3 checks, 2 at a time",
        "{screen}"
    );
    for name in ["slow", "bad", "quick"] {
        assert_eq!(
            shown.iter().filter(|l| lists(l, name)).count(),
            1,
            "`{name}` is listed once:\n{screen}"
        );
    }
    assert_eq!(shown.last().copied(), Some("1 of 3 checks failed: bad"));
    assert!(!screen.contains("RUN"), "{screen}");
    let report = std::fs::read_to_string(dir.join("report.txt")).unwrap();
    assert!(!report.contains('\u{1b}'), "{report:?}");
    assert!(report.contains("\n FAIL bad "), "{report}");
}

/// Piped: plain lines, no escape codes, nothing redrawn; `CLICOLOR_FORCE`
/// colours the `text` report on stdout and the progress lines, never a
/// `json` report.
#[test]
fn piped_output_is_plain_unless_colour_is_forced() {
    let (code, stdout, stderr) = piped(&["--no-fail-fast"], &[]);
    assert_eq!(code, Some(1));
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(!stderr.contains("RUN"), "{stderr}");
    assert_eq!(
        stderr.lines().next(),
        Some("run-check strict: 3 checks, 2 at a time")
    );
    assert!(stdout.contains("\n FAIL bad "), "{stdout}");

    let (_, stdout, stderr) = piped(&["--no-fail-fast"], &[("CLICOLOR_FORCE", "1")]);
    let red_bad = "\u{1b}[1m\u{1b}[31m FAIL\u{1b}[0m bad ";
    assert!(stdout.contains(red_bad), "{stdout:?}");
    assert!(stderr.contains(red_bad), "{stderr:?}");
    // NO_COLOR wins over CLICOLOR_FORCE; CLICOLOR_FORCE=0 forces nothing.
    for env in [
        [("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
        [("CLICOLOR_FORCE", "0"), ("CLICOLOR", "1")],
    ] {
        let (_, stdout, stderr) = piped(&["--no-fail-fast"], &env);
        assert!(!stdout.contains('\u{1b}'), "{env:?}: {stdout:?}");
        assert!(!stderr.contains('\u{1b}'), "{env:?}: {stderr:?}");
    }
    // Never in another format.
    let (code, stdout, _) = piped(
        &["--no-fail-fast", "--format", "json"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert_eq!(code, Some(1));
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    let evidence: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(evidence["summary"]["exit_code"], 1);
}
