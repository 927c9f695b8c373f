//! `retries` and `settings.flaky` (docs/checks-toml.md#retries): a failing
//! check run again, a pass on a retry marked `flaky`, every attempt in the
//! evidence, the judge's Low `flaky` issue, the reports naming flaky checks
//! apart, and bad `retries` values refused.
//!
//! The checks count their attempts in a file of a temp directory outside
//! the worktree (named in their argv), so strict mode's read-only
//! verification sees an unchanged worktree and each attempt can differ.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{Run, Test, check, git};

/// A directory outside the worktree for the attempt counters.
fn state() -> TempDir {
    tempfile::Builder::new()
        .prefix("run-check-flaky-")
        .tempdir()
        .expect("tempdir")
}

/// Appends a line to the counter file `$1`, then fails (exit 1) until the
/// file has `$2` lines (0: fails every time, with exit 1).
const COUNTING: &str =
    "echo x >> \"$1\"; n=$(wc -l < \"$1\"); [ \"$2\" -gt 0 ] && [ \"$n\" -ge \"$2\" ]";

/// A checks.toml of one check `flappy` that passes from attempt `pass_on`
/// (0: never), counting into `counter`, with `retries` and `extra` lines.
fn config(counter: &Path, pass_on: u32, retries: u32, settings: &str, extra: &str) -> String {
    let run = json!(["sh", "-c", COUNTING, "sh", counter, pass_on.to_string()]);
    format!(
        "[settings]\nallow = [\"sh\"]\n{settings}\n[[check]]\nname = \"flappy\"\nrun = {run}\nretries = {retries}\nmodes = [\"fast\", \"strict\"]\n{extra}"
    )
}

/// How many attempts the counter file records.
fn attempts(counter: &Path) -> usize {
    std::fs::read_to_string(counter)
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// Runs `test` with `args` and `--format json --out ev.json`; returns the run
/// and the evidence.
fn evidence(test: Test, args: &[&str], code: i32) -> (Run, Value) {
    let run = test
        .args(args)
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(code);
    let ev = run.json_file("ev.json");
    (run, ev)
}

/// The exit codes of a check's `attempt_log`.
fn exit_codes(check: &Value) -> Vec<Value> {
    check["attempt_log"]
        .as_array()
        .expect("attempt_log")
        .iter()
        .map(|a| a["exit_code"].clone())
        .collect()
}

#[test]
fn a_check_that_passes_on_its_second_attempt_is_a_flaky_pass() {
    let dir = state();
    let counter = dir.path().join("count");
    let (run, ev) = evidence(Test::new().config(&config(&counter, 2, 3, "", "")), &[], 0);
    assert_eq!(attempts(&counter), 2, "ran until it passed, no more");
    // The progress lines: the failed attempt, then the check's one end.
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("flappy"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(lines[0].starts_with("RETRY flappy "), "{}", lines[0]);
    assert!(
        lines[0].ends_with("  exit 1; attempt 2 of 4"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with(" PASS flappy "), "{}", lines[1]);
    assert!(
        lines[1].ends_with("  flaky: passed on attempt 2 after exit 1"),
        "{}",
        lines[1]
    );
    let c = check(&ev, "flappy");
    assert_eq!(c["status"], "pass");
    assert_eq!(c["flaky"], true);
    assert_eq!(c["attempts"], 2);
    assert_eq!(exit_codes(c), [json!(1), json!(0)]);
    assert_eq!(c["attempt_log"][0]["timed_out"], false);
    // The check's own fields are the last attempt's; its duration spans
    // them all.
    assert_eq!(c["exit_code"], 0);
    let spent: u64 = c["attempt_log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["duration_ms"].as_u64().unwrap())
        .sum();
    assert!(c["duration_ms"].as_u64().unwrap() >= spent, "{c:#}");
    assert_eq!(ev["summary"]["all_checks_passed"], true);
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(ev["contracts"]["read_only"]["modified"], json!([]));
    let schema = crate::support::schema("evidence");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator.iter_errors(&ev).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn flaky_fail_fails_a_flaky_check_in_strict_mode_only() {
    let dir = state();
    let counter = dir.path().join("count");
    let text = config(&counter, 2, 1, "flaky = \"fail\"", "");
    let (run, ev) = evidence(Test::new().config(&text), &[], 1);
    assert_eq!(attempts(&counter), 2);
    let c = check(&ev, "flappy");
    assert_eq!(
        (&c["status"], &c["flaky"], &c["attempts"]),
        (&json!("fail"), &json!(true), &json!(2))
    );
    assert_eq!(exit_codes(c), [json!(1), json!(0)]);
    assert_eq!(ev["summary"]["failed"], 1);
    assert_eq!(ev["summary"]["banner"], "1 of 1 checks failed: flappy");
    assert_eq!(
        run.stderr.lines().last(),
        Some("1 of 1 checks failed: flappy")
    );

    // Fast mode lets it pass all the same.
    std::fs::remove_file(&counter).unwrap();
    let (_, ev) = evidence(run.test.again(), &["--mode", "fast"], 0);
    assert_eq!(attempts(&counter), 2);
    let c = check(&ev, "flappy");
    assert_eq!((&c["status"], &c["flaky"]), (&json!("pass"), &json!(true)));
}

#[test]
fn a_check_that_always_fails_runs_retries_plus_one_times() {
    let dir = state();
    let counter = dir.path().join("count");
    let (_, ev) = evidence(Test::new().config(&config(&counter, 0, 2, "", "")), &[], 1);
    assert_eq!(attempts(&counter), 3);
    let c = check(&ev, "flappy");
    assert_eq!(
        (&c["status"], &c["flaky"], &c["attempts"]),
        (&json!("fail"), &json!(false), &json!(3))
    );
    assert_eq!(exit_codes(c), [json!(1), json!(1), json!(1)]);
    assert_eq!(c["exit_code"], 1);

    // Without `retries` a failure runs once, and logs no attempts.
    std::fs::remove_file(&counter).unwrap();
    let text = config(&counter, 0, 0, "", "");
    let (_, ev) = evidence(Test::new().config(&text), &[], 1);
    assert_eq!(attempts(&counter), 1);
    let c = check(&ev, "flappy");
    assert_eq!((&c["attempts"], &c["attempt_log"]), (&json!(1), &json!([])));
}

#[test]
fn errors_and_skips_are_not_retried() {
    // A program that is not there errors once; a check whose need failed
    // is skipped; neither starts again.
    let dir = state();
    let counter = dir.path().join("count");
    let text = format!(
        "{}\n[[check]]\nname = \"missing\"\nrun = [\"no-such-program-zz\"]\nretries = 3\n\
         [[check]]\nname = \"later\"\nrun = [\"sh\", \"-c\", \"exit 0\"]\nneeds = [\"flappy\"]\nretries = 3\n",
        config(&counter, 0, 1, "", "")
    )
    .replace("allow = [\"sh\"]", "allow = [\"sh\", \"no-such-program-zz\"]");
    let (_, ev) = evidence(Test::new().config(&text), &[], 2);
    assert_eq!(attempts(&counter), 2);
    let missing = check(&ev, "missing");
    assert_eq!(
        (&missing["status"], &missing["attempts"]),
        (&json!("error"), &json!(0))
    );
    let later = check(&ev, "later");
    assert_eq!(
        (&later["status"], &later["attempts"]),
        (&json!("skip"), &json!(0))
    );
    assert_eq!(later["skip_reason"], "needs `flappy`, which ended `fail`");
}

#[test]
fn a_timeout_is_retried_with_the_same_timeout() {
    // Attempt 1 sleeps past its timeout; attempt 2 passes at once.
    let dir = state();
    let counter = dir.path().join("count");
    let script = "echo x >> \"$1\"; [ \"$(wc -l < \"$1\")\" -ge 2 ] || exec sleep 60";
    let run = json!(["sh", "-c", script, "sh", counter]);
    let text = format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"slow\"\nrun = {run}\ntimeout = \"300ms\"\nretries = 1\n"
    );
    let (_, ev) = evidence(Test::new().config(&text), &[], 0);
    let c = check(&ev, "slow");
    assert_eq!(
        (&c["status"], &c["flaky"], &c["attempts"]),
        (&json!("pass"), &json!(true), &json!(2))
    );
    let log = c["attempt_log"].as_array().unwrap();
    assert_eq!(log[0]["timed_out"], true);
    assert_eq!(log[0]["exit_code"], Value::Null);
    assert!(log[0]["duration_ms"].as_u64().unwrap() >= 300, "{log:?}");
    assert_eq!(
        (&log[1]["timed_out"], &log[1]["exit_code"]),
        (&json!(false), &json!(0))
    );

    // Every attempt times out: each is killed at the same timeout (the run
    // ends long before `sleep 60` would), and the check is a timeout.
    let never = json!(["sh", "-c", "exec sleep 60"]);
    let text = format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"slow\"\nrun = {never}\ntimeout = \"300ms\"\nretries = 1\n"
    );
    let (run, ev) = evidence(Test::new().config(&text), &[], 1);
    assert!(run.elapsed.as_secs() < 50, "{:?}", run.elapsed);
    let c = check(&ev, "slow");
    assert_eq!(
        (&c["status"], &c["timed_out"], &c["flaky"]),
        (&json!("fail"), &json!(true), &json!(false))
    );
    let log = c["attempt_log"].as_array().unwrap();
    assert_eq!(log.len(), 2);
    for attempt in log {
        assert_eq!(attempt["timed_out"], true);
        assert!(attempt["duration_ms"].as_u64().unwrap() >= 300, "{log:?}");
    }
}

#[test]
fn the_judge_raises_a_low_flaky_issue_and_passes() {
    let dir = state();
    let counter = dir.path().join("count");
    let out = dir.path().join("ev.json");
    // A committed gate: an uncommitted checks.toml would be a changed gate,
    // which the judge sends to a person.
    let test = Test::new().config(&config(&counter, 2, 1, "", ""));
    git(test.path(), &["add", "checks.toml"]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    let out_arg = out.to_str().unwrap();
    let run = test
        .args(&["--format", "json", "--out", out_arg])
        .run()
        .success();
    let judged = run.test.again().args(&["judge", out_arg]).run().success();
    let verdict = judged.json_stdout();
    let low = verdict["issues"]["low"].as_array().unwrap();
    assert_eq!(low.len(), 1, "{verdict:#}");
    assert_eq!(low[0]["type"], "flaky");
    assert_eq!(low[0]["source"], "flappy");
    assert_eq!(low[0]["severity"], "Low");
    assert_eq!(
        low[0]["description"],
        "check `flappy` is flaky: it failed 1 time (exit 1) before passing on attempt 2"
    );
    for severity in ["critical", "high", "medium"] {
        assert_eq!(verdict["issues"][severity], json!([]), "{severity}");
    }
    assert_eq!(verdict["recommendation"], "PASS", "{verdict:#}");
    assert_eq!(verdict["decision"]["decision"], "PASS", "{verdict:#}");
}

#[test]
fn the_text_and_html_reports_name_flaky_checks_apart() {
    let dir = state();
    let counter = dir.path().join("count");
    let steady = "[[check]]\nname = \"steady\"\nrun = [\"sh\", \"-c\", \"exit 0\"]\n";
    let test = Test::new().config(&config(&counter, 2, 2, "", steady));
    let run = test.run().success();
    assert!(
        run.stdout
            .contains("Flaky: flappy (passed on attempt 2 after exit 1)\n"),
        "{}",
        run.stdout
    );
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with(" PASS flappy"))
        .expect("flappy's line");
    assert!(
        line.ends_with("flaky: passed on attempt 2 after exit 1"),
        "{line}"
    );
    let steady = run
        .stdout
        .lines()
        .find(|l| l.starts_with(" PASS steady"))
        .expect("steady's line");
    assert!(!steady.contains("flaky"), "{steady}");

    std::fs::remove_file(&counter).unwrap();
    let out = dir.path().join("report.html");
    let run = run
        .test
        .again()
        .args(&["--format", "html", "--out", out.to_str().unwrap()])
        .run()
        .success();
    let _ = run;
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.contains("<h2>Flaky checks (1)</h2>"), "{page}");
    assert!(page.contains("<li data-check=\"flappy\" data-attempts=\"2\">"));
    assert!(page.contains("(1: exit 1 in "));
    assert!(page.contains("<a class=\"bar s-pass flaky\" href=\"#row-flappy\""));
    assert!(page.contains("<a class=\"bar s-pass\" href=\"#row-steady\""));
    assert!(!page.contains("data-check=\"steady\" data-attempts"));
}

#[test]
fn junit_lists_earlier_failed_attempts() {
    let dir = state();
    let counter = dir.path().join("count");
    let out = dir.path().join("report.xml");
    let run = Test::new()
        .config(&config(&counter, 2, 1, "", ""))
        .args(&["--format", "junit", "--out", out.to_str().unwrap()])
        .run()
        .success();
    let _ = run;
    let xml = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("well-formed");
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("flappy"))
        .expect("flappy's testcase");
    let children: Vec<&str> = case
        .children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name())
        .collect();
    assert_eq!(children, ["flakyFailure"], "{xml}");
    let flaky = case.children().find(|n| n.is_element()).unwrap();
    assert_eq!(flaky.attribute("type"), Some("exit"));
    assert!(
        flaky
            .attribute("message")
            .unwrap()
            .starts_with("attempt 1 of 2: exit 1 ("),
        "{xml}"
    );
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("0"));
}

#[test]
fn bad_retries_values_are_config_errors() {
    let dir = state();
    let counter: PathBuf = dir.path().join("count");
    for (value, expected) in [
        (
            "-1",
            "error: checks.toml:7:11: `retries` of check `flappy`: must be an integer from 0 to 10, not -1",
        ),
        (
            "11",
            "error: checks.toml:7:11: `retries` of check `flappy`: must be an integer from 0 to 10, not 11",
        ),
        (
            "\"2\"",
            "error: checks.toml:7:11: check.retries: invalid type: string \"2\", expected i64",
        ),
        (
            "1.5",
            "error: checks.toml:7:11: check.retries: invalid type: floating point `1.5`, expected i64",
        ),
    ] {
        let text =
            config(&counter, 2, 0, "", "").replace("retries = 0", &format!("retries = {value}"));
        let run = Test::new()
            .config(&text)
            .args(&["--out", "ev.json"])
            .run()
            .status(2);
        assert_eq!(run.stdout, "");
        assert_eq!(run.stderr_lines(), [expected], "{value}");
        assert!(!run.test.path().join("ev.json").exists());
        assert_eq!(attempts(&counter), 0, "no check ran");
    }
    // A scan reads the same files again: retries are refused there.
    let run = Test::new()
        .config("[[check]]\nname = \"s\"\nscan = { rules = [\"secrets\"] }\nretries = 2\n")
        .run()
        .status(2);
    assert_eq!(
        run.stderr_lines(),
        [
            "error: checks.toml:4:11: `retries` of check `s`: a `scan` check reads the same files \
          to the same end; only a check with `run` may be retried"
        ]
    );
    // And `settings.flaky` takes `pass` or `fail` only.
    let run = Test::new()
        .config("[settings]\nflaky = \"retry\"\n")
        .run()
        .status(2);
    let lines = run.stderr_lines();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].starts_with("error: checks.toml:2:9: ") && lines[0].contains("`pass`"),
        "{}",
        lines[0]
    );
}
