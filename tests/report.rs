//! `run-check report EVIDENCE --format F [--out FILE]` (docs/cli.md#report):
//! an evidence file rendered in every format of the check run, from any
//! directory, as the run printed it; exit 0 for PASS evidence, 1 for any
//! other, 2 for input it cannot read, which then writes nothing.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use regex::Regex;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{Test, bin};

/// One passing check and one failing check whose output plays the
/// attacker (a window title, colours, a workflow command) and whose stderr
/// holds a gcc-style error the parser turns into a diagnostic.
const CONFIG: &str = r#"version = 1
[settings]
allow = ["sh", "true"]

[[check]]
name = "ok"
run = ["true"]

[[check]]
name = "bad"
parser = "gcc"
run = ["sh", "-c", '''
printf 'title \033]0;pwned\007 \033[31mred\033[0m nul:\000 cr\rover\n'
printf '::add-mask::x\n  ::error::forged\nnote ##[error]legacy\n'
printf 'src/lib.rs:3:5: error: boom \033[1m::error::in-msg\n' >&2
exit 1
''']
"#;

const PASSING: &str = r#"version = 1
[settings]
allow = ["true"]

[[check]]
name = "ok"
run = ["true"]
"#;

/// run-check with `args` in `dir`, `stdin` on its stdin.
fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(bin());
    command
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let Some(input) = stdin else {
        return command.stdin(Stdio::null()).output().expect("run-check");
    };
    let mut child = command.stdin(Stdio::piped()).spawn().expect("run-check");
    let mut pipe = child.stdin.take().expect("stdin");
    std::io::Write::write_all(&mut pipe, input).expect("write stdin");
    drop(pipe);
    child.wait_with_output().expect("run-check")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// The check run in `test`'s worktree with `--format F --out OUT` (outside
/// the worktree, so every run sees the same worktree); returns the
/// worktree for the next run, the report and the run's stderr.
fn gate(test: Test, format: &str, code: i32, out: &Path) -> (Test, String, String) {
    let path = out.to_str().expect("UTF-8 path");
    let run = test
        .args(&["--quiet", "--format", format, "--out", path])
        .run()
        .status(code);
    let report = std::fs::read_to_string(out).expect("the run's report");
    (run.test.again(), report, run.stderr)
}

/// A worktree of `config` and the report of its run in `format`.
fn gate_once(config: &str, format: &str, code: i32, out: &Path) -> (String, String) {
    let (_, report, stderr) = gate(Test::new().config(config), format, code, out);
    (report, stderr)
}

/// A directory of its own (no checks.toml, no git) to run `report` in.
fn elsewhere() -> TempDir {
    tempfile::Builder::new()
        .prefix("run-check-report-")
        .tempdir()
        .expect("tempdir")
}

/// The formats a flag `--format` of `args --help` lists.
fn formats(args: &[&str]) -> Vec<String> {
    let out = Command::new(bin())
        .args(args)
        .arg("--help")
        .output()
        .expect("run-check");
    let help = text(&out.stdout);
    help.lines()
        .skip_while(|l| !l.trim_start().starts_with("--format <FORMAT>"))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("--"))
        .filter_map(|l| l.trim_start().strip_prefix("- "))
        .filter_map(|l| l.split(':').next())
        .map(str::to_string)
        .collect()
}

/// What differs between two runs of the same checks in the same worktree:
/// their times (the durations of text, github, markdown and junit, the
/// timestamp of junit and sarif, the duration of sarif's summary, html's
/// timeline: its bars' offsets, widths and rows).
fn untimed(report: &str) -> String {
    let times = Regex::new(
        r#"(?s)<section id="timeline-section">.*?</section>|\b\d+\.\d{2,3}s?\b|\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)?|"duration_ms": \d+"#,
    )
    .unwrap();
    times.replace_all(report, "<time>").into_owned()
}

/// The strongest comparison a test can make. A run writes one report, so
/// no run prints both its evidence and another format of it, and a second
/// run of the same checks in the same worktree differs from the first only
/// in its times. So: (1) `json`: `report` of the run's evidence reproduces
/// that very file, byte for byte; (2) every other format: a second run of
/// the same checks with `--format F` printed what `report --format F`
/// prints from the first run's evidence, but for the times (`report` shows
/// those the evidence records, the first run's). The unit test
/// `every_format_of_the_written_evidence_is_the_runs_report` compares the
/// renderings of one evidence exactly. `report` runs in a directory of its
/// own (no checks.toml, no git), with relative paths.
#[test]
fn report_prints_what_the_run_printed_in_every_format() {
    let dir = elsewhere();
    let test = Test::new().config(CONFIG);
    let (mut test, evidence, _) = gate(test, "json", 1, &dir.path().join("ev.json"));
    let all = formats(&["report"]);
    assert_eq!(all, formats(&[]), "report and the check run share formats");
    assert_eq!(
        all,
        [
            "text", "json", "junit", "sarif", "github", "markdown", "html"
        ]
    );
    for format in &all {
        let out = run_in(dir.path(), &["report", "ev.json", "--format", format], None);
        assert_eq!(out.status.code(), Some(1), "{format}: {out:?}");
        let report = text(&out.stdout);
        if format == "json" {
            assert_eq!(report, evidence);
            continue;
        }
        let out = dir.path().join(format!("run.{format}"));
        let (next, run, _) = gate(test, format, 1, &out);
        test = next;
        assert_eq!(untimed(&report), untimed(&run), "{format}");
        assert_ne!(untimed(&report), report, "{format}: times are shown");
    }
}

/// The run's stderr after its progress lines is the banner when the report
/// is not text on stdout; so is `report`'s.
#[test]
fn the_banner_ends_stderr_unless_text_goes_to_stdout() {
    let dir = elsewhere();
    let (_, run_stderr) = gate_once(CONFIG, "json", 1, &dir.path().join("ev.json"));
    assert_eq!(run_stderr, "1 of 2 checks failed: bad\n");
    let cases = [
        (vec!["--format", "junit"], run_stderr.as_str()),
        (vec!["--format", "text", "--out", "t.txt"], &run_stderr),
        (vec!["--format", "text"], ""),
    ];
    for (args, stderr) in cases {
        let mut all = vec!["report", "ev.json"];
        all.extend(&args);
        let out = run_in(dir.path(), &all, None);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&out.stderr), stderr, "{args:?}");
    }
}

/// run-check.txt beside run-check.json: `--out` writes the report
/// atomically (a temporary sibling renamed over it) and stdout gets
/// nothing; `-` reads the evidence from stdin.
#[test]
fn out_writes_the_file_and_stdin_reads_the_evidence() {
    let dir = elsewhere();
    let (evidence, _) = gate_once(CONFIG, "json", 1, &dir.path().join("run-check.json"));
    std::fs::write(dir.path().join("run-check.txt"), "old").unwrap();
    let args = [
        "report",
        "run-check.json",
        "--format",
        "text",
        "--out",
        "run-check.txt",
    ];
    let out = run_in(dir.path(), &args, None);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(dir.path().join("run-check.txt")).unwrap();
    assert!(
        written.ends_with("1 of 2 checks failed: bad\n"),
        "{written}"
    );
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["run-check.json", "run-check.txt"]);

    let stdin = run_in(
        dir.path(),
        &["report", "-", "--format", "text"],
        Some(evidence.as_bytes()),
    );
    assert_eq!(stdin.status.code(), Some(1), "{stdin:?}");
    assert_eq!(text(&stdin.stdout), written);
}

/// PASS evidence exits 0; FAIL, ERROR and interrupted evidence exit 1 (the
/// report was rendered; the run did not pass); 2 is for bad input only.
#[test]
fn the_exit_code_says_whether_the_evidence_passed() {
    let dir = elsewhere();
    gate_once(PASSING, "json", 0, &dir.path().join("pass.json"));
    gate_once(CONFIG, "json", 1, &dir.path().join("fail.json"));
    let errored = "version = 1\n[settings]\nallow = [\"no-such-program-zz\"]\n\
                   [[check]]\nname = \"gone\"\nrun = [\"no-such-program-zz\"]\n";
    gate_once(errored, "json", 2, &dir.path().join("error.json"));
    for (file, code) in [("pass.json", 0), ("fail.json", 1), ("error.json", 1)] {
        let out = run_in(dir.path(), &["report", file, "--format", "text"], None);
        assert_eq!(out.status.code(), Some(code), "{file}: {out:?}");
    }
    // An interrupted run's evidence, as a run writes it when cancelled.
    let mut interrupted: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("pass.json")).unwrap())
            .unwrap();
    interrupted["summary"]["exit_code"] = json!(130);
    interrupted["summary"]["all_checks_passed"] = json!(false);
    interrupted["summary"]["banner"] = json!("Interrupted");
    std::fs::write(dir.path().join("int.json"), interrupted.to_string()).unwrap();
    let out = run_in(
        dir.path(),
        &["report", "int.json", "--format", "sarif"],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["invocations"][0]["exitCode"], 130);
}

/// Input that is not evidence: exit 2, one line naming the file (and the
/// line and column, or the JSON path), nothing on stdout, and no `--out`
/// file, neither created nor replaced.
#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let dir = elsewhere();
    let (evidence, _) = gate_once(PASSING, "json", 0, &dir.path().join("ev.json"));
    let mut wrong: Value = serde_json::from_str(&evidence).unwrap();
    wrong["checks"][0]["exit_code"] = json!("zero");
    std::fs::write(dir.path().join("wrong.json"), wrong.to_string()).unwrap();
    std::fs::write(
        dir.path().join("broken.json"),
        "{\n  \"schema_version\": 1,\n}",
    )
    .unwrap();
    std::fs::write(dir.path().join("kept.txt"), "old").unwrap();
    let expected = [
        (
            "wrong.json",
            None,
            "error: wrong.json: $.checks[0].exit_code: expected an integer, found string",
        ),
        (
            "broken.json",
            None,
            "error: broken.json:3:1: invalid JSON: trailing comma",
        ),
        (
            "-",
            Some(&b"[]"[..]),
            "error: <stdin>: $: expected an object, found array",
        ),
        (
            "missing.json",
            None,
            "error: failed to read evidence `missing.json`: ",
        ),
    ];
    for (input, stdin, line) in expected {
        for out in ["new.txt", "kept.txt"] {
            let args = ["report", input, "--format", "text", "--out", out];
            let run = run_in(dir.path(), &args, stdin);
            let stderr = text(&run.stderr);
            assert_eq!(run.status.code(), Some(2), "{input}: {stderr}");
            assert!(stderr.starts_with(line), "{input}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{input}: {stderr}");
            assert!(run.stdout.is_empty(), "{input}");
        }
    }
    assert!(!dir.path().join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("kept.txt")).unwrap(),
        "old"
    );
    let names = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 4, "no temporary file left");
    // A format the check run does not have, or none, is a usage error.
    let run = run_in(dir.path(), &["report", "ev.json", "--format", "pdf"], None);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).starts_with("error: invalid value 'pdf'"));
    let run = run_in(dir.path(), &["report", "ev.json"], None);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--format"), "{run:?}");
}

/// An evidence file is untrusted too: one written by hand with raw escape
/// sequences, controls and workflow commands (a run's own evidence has its
/// escape sequences stripped already) is rendered as a run renders its
/// checks' output: `json` without escape sequences, the human formats with
/// controls visible and workflow commands defused, the banner on stderr
/// too.
#[test]
fn a_hostile_evidence_file_is_sanitized_as_a_run_is() {
    let dir = elsewhere();
    let (evidence, _) = gate_once(CONFIG, "json", 1, &dir.path().join("ev.json"));
    let mut hostile: Value = serde_json::from_str(&evidence).unwrap();
    let noise = "t\u{1b}]0;hijacked\u{7} \u{1b}[2J\u{9b}1m \u{0}x\ry\n::add-mask::s\n ##[error]z";
    hostile["checks"][1]["stdout_excerpt"] = json!(noise);
    hostile["diagnostics"][0]["message"] = json!(noise);
    hostile["summary"]["banner"] = json!(format!("{noise}\n::error::banner"));
    std::fs::write(dir.path().join("hostile.json"), hostile.to_string()).unwrap();
    for format in formats(&["report"]) {
        let out = run_in(
            dir.path(),
            &["report", "hostile.json", "--format", &format],
            None,
        );
        assert_eq!(out.status.code(), Some(1), "{format}: {out:?}");
        let (report, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(!report.contains("hijacked"), "{format}: {report}");
        for shown in [&report, &stderr] {
            assert!(
                !shown.contains(['\u{1b}', '\u{7}', '\u{9b}']),
                "{format}: {shown:?}"
            );
        }
        // The banner on stderr is shown as the human reports show text.
        let banner = match format.as_str() {
            "text" => "",
            _ => "t 1m ␀x\ny\n\\::add-mask::s\n ##\\[error]z\n\\::error::banner\n",
        };
        assert_eq!(stderr, banner, "{format}");
        if format == "json" || format == "sarif" {
            assert!(!report.contains("\\u001b"), "{format}: {report}");
            continue;
        }
        for shown in [&report, &stderr] {
            for line in shown.split(['\r', '\n']) {
                assert!(
                    !line.trim_start().starts_with("::")
                        || format == "github" && line.starts_with("::error file="),
                    "{format}: {line:?}"
                );
                assert!(!line.contains("##["), "{format}: {line:?}");
                assert!(!line.contains(['\u{0}', '\r']), "{format}: {line:?}");
            }
        }
        for shown in ["␀x", "\\::add-mask::s", "##\\[error]z"] {
            assert!(report.contains(shown), "{format} lacks {shown:?}: {report}");
        }
    }
}

/// A C library whose `make check` compiles with warnings (real gcc), then
/// runs its tests, one of which fails: the only diagnostics are the
/// warnings, the cause is in the output's last lines.
pub(crate) const WARNED_MAKE: &[(&str, &str)] = &[
    (
        "Makefile",
        "check: lint test\n\nlint:\n\tgcc -Wall -fsyntax-only sum.c\n\ntest:\n\tsh ./test.sh\n",
    ),
    (
        "sum.c",
        "int sum(int a, int b)\n{\n    int unused;\n    return a + b;\n}\n",
    ),
    (
        "test.sh",
        "i=1\nwhile [ $i -le 20 ]; do echo \"ok $i - case $i\"; i=$((i + 1)); done\necho 'not ok 21 - sum(1, 2): expected 3, got 4'\nexit 1\n",
    ),
    (
        "checks.toml",
        "version = 1\n[settings]\nallow = [\"make\"]\n\n[[check]]\nname = \"check\"\nrun = [\"make\", \"check\"]\nparser = \"gcc\"\nmodes = [\"fast\", \"strict\"]\n",
    ),
];

/// When no located error explains a failure (here gcc's warnings only),
/// `text` lists the diagnostics and then the output's last lines, which
/// hold the cause; `markdown` unfolds the check's output; `html` says so
/// and shows the excerpt's end first, the earlier lines folded under it.
/// A check whose error is at the end of its output shows no tail.
#[test]
fn a_failure_no_error_explains_shows_the_outputs_last_lines() {
    let mut test = Test::new();
    for (path, text) in WARNED_MAKE {
        test = test.file(path, text);
    }
    let run = test
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let dir = run.test.path();
    let evidence: Value = run.json_file("ev.json");
    let diagnostics = crate::support::diagnostics_of(&evidence, "check");
    assert!(!diagnostics.is_empty(), "{evidence}");
    assert!(
        diagnostics.iter().all(|d| d["severity"] == "warning"),
        "{diagnostics:?}"
    );

    let text_report = text(&run_in(dir, &["report", "ev.json", "--format", "text"], None).stdout);
    let lines: Vec<&str> = text_report.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(" FAIL check "))
        .unwrap_or_else(|| panic!("{text_report}"));
    assert!(
        lines[at + 1].starts_with("      sum.c:3:9: warning[-Wunused-variable]: unused variable"),
        "{text_report}"
    );
    let ends = lines
        .iter()
        .position(|l| *l == "      no error above explains the exit; the output ends:")
        .unwrap_or_else(|| panic!("{text_report}"));
    assert!(ends > at + 1, "{text_report}");
    let tail: Vec<&str> = lines[ends + 1..]
        .iter()
        .take_while(|l| l.starts_with("      │ "))
        .copied()
        .collect();
    assert_eq!(tail.first(), Some(&"      │ ── stdout ──"), "{text_report}");
    assert!(
        tail.contains(&"      │ not ok 21 - sum(1, 2): expected 3, got 4"),
        "{text_report}"
    );
    assert!(
        tail.iter()
            .any(|l| l.starts_with("      │ make: *** [Makefile:") && l.ends_with("test] Error 1")),
        "{text_report}"
    );
    // The first test lines are not among the last ones.
    assert!(!tail.contains(&"      │ ok 1 - case 1"), "{text_report}");

    let markdown = text(&run_in(dir, &["report", "ev.json", "--format", "markdown"], None).stdout);
    assert!(
        markdown.contains("<details open><summary>check — exit 2"),
        "{markdown}"
    );
    assert!(
        markdown.contains("not ok 21 - sum(1, 2): expected 3, got 4"),
        "{markdown}"
    );

    let html = text(&run_in(dir, &["report", "ev.json", "--format", "html"], None).stdout);
    assert!(
        html.contains("<p class=\"cause\">No error above explains the exit; the output ends:</p>"),
        "{html}"
    );
    // stdout's excerpt: its last 12 lines first, the earlier ones folded.
    let pre = Regex::new(r#"(?s)<pre class="excerpt" data-stream="stdout">(.*?)</pre>\n<details class="earlier"><summary>the (\d+) lines before these</summary><pre data-stream="stdout">(.*?)</pre></details>"#)
        .unwrap();
    let caps = pre.captures(&html).unwrap_or_else(|| panic!("{html}"));
    let last: Vec<&str> = caps[1].lines().collect();
    assert_eq!(last.len(), 12, "{html}");
    assert_eq!(
        last.last().copied(),
        Some("not ok 21 - sum(1, 2): expected 3, got 4")
    );
    let earlier: Vec<&str> = caps[3].lines().collect();
    assert_eq!(caps[2].parse::<usize>().unwrap(), earlier.len());
    assert!(earlier.contains(&"ok 1 - case 1"), "{html}");

    // An error at the end of the output explains the exit: no tail.
    let mut test = run.test.again();
    test = test.file("sum.c", "int sum(int a, int b)\n{\n    return a + c;\n}\n");
    test = test.file("test.sh", "exit 0\n");
    let run = test.args(&["--format", "text"]).run().status(1);
    assert!(
        run.stdout.contains("      sum.c:3:16: error: ") && run.stdout.contains("undeclared"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("no error above explains") && !run.stdout.contains("│ "),
        "{}",
        run.stdout
    );
}
