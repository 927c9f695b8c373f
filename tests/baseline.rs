//! `--baseline EV.json` (docs/baseline.md): a gate adopted on code with old
//! findings fails only on new ones, in every report format; moved findings
//! still match, reworded ones are new; a timeout or a check without
//! diagnostics is never excused; readers (judge, merge, report) agree.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Test, bin, check, git, test_tool};

/// Five old findings of ruff's pyflakes rules: three unused imports, two
/// unused variables.
const OLD: &str =
    "import os\nimport sys\nimport json\n\n\ndef f():\n    x = 1\n    y = 2\n    return 0\n";

/// ruff on the worktree with only pyflakes' rules, whatever ruff config the
/// machine has.
const RUFF: &str = r#"version = 1
[settings]
allow = ["ruff"]
[[check]]
name = "lint"
run = ["ruff", "check", "--isolated", "--select", "F", "--no-cache", "--output-format", "concise", "."]
"#;

/// `PATH` with `dir` first.
fn path_with(dir: &Path) -> String {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

/// A committed repository with `OLD` in `app.py`, the ruff check, and the
/// evidence of its gate (exit 1, five findings) in `base.json` of a temp
/// folder outside the worktree (returned to keep it, with `PATH` and that
/// file's path). `None` when ruff is not installed (outside CI).
fn ruff_repo() -> Option<(Test, tempfile::TempDir, String, String)> {
    let ruff = test_tool("python/bin/ruff")?;
    let path = path_with(ruff.parent().unwrap());
    let test = Test::new().config(RUFF).file("app.py", OLD);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "old code"]);
    let out = tempfile::tempdir().unwrap();
    let base = out.path().join("base.json");
    let test = test
        .env("PATH", &path)
        .args(&["--format", "json", "--out", base.to_str().unwrap(), "-q"])
        .run()
        .status(1)
        .test;
    let evidence: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    assert_eq!(evidence["diagnostics"].as_array().unwrap().len(), 5);
    let base = base.to_str().unwrap().to_string();
    Some((test.again(), out, path, base))
}

fn diagnostics(evidence: &Value) -> &Vec<Value> {
    evidence["diagnostics"].as_array().unwrap()
}

fn messages(evidence: &Value, new: bool) -> Vec<String> {
    diagnostics(evidence)
        .iter()
        .filter(|d| d["new"] == new)
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

/// Runs the gate with `args` and returns (exit code, stdout, stderr).
fn gate(test: &Test, path: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let output = std::process::Command::new(bin())
        .args(args)
        .env("PATH", path)
        .current_dir(test.path())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn five_old_findings_and_one_new_fail_only_on_the_new_one_in_every_format() {
    let Some((test, _out, path, base)) = ruff_repo() else {
        return;
    };
    let base = base.as_str();
    // Three lines above move every old finding; `re` is new.
    std::fs::write(test.path().join("app.py"), format!("import re\n\n\n{OLD}")).unwrap();
    let (code, json, _) = gate(&test, &path, &["--baseline", base, "--format", "json"]);
    assert_eq!(code, Some(1), "{json}");
    let evidence: Value = serde_json::from_str(&json).unwrap();
    let lint = check(&evidence, "lint");
    assert_eq!(lint["status"], "fail");
    assert_eq!(lint["baseline_suppressed"], 5);
    assert_eq!(evidence["summary"]["baseline"], base);
    assert_eq!(messages(&evidence, true), ["`re` imported but unused"]);
    assert_eq!(messages(&evidence, false).len(), 5);
    // The old ones moved by three lines and still matched.
    let first_old = diagnostics(&evidence)
        .iter()
        .find(|d| d["new"] == false)
        .unwrap();
    assert_eq!(first_old["line"], 4);

    let old = "`os` imported but unused";
    let new = "`re` imported but unused";
    for format in ["text", "markdown", "junit", "html", "github"] {
        let (code, report, _) = gate(&test, &path, &["--baseline", base, "--format", format]);
        assert_eq!(code, Some(1), "{format}: {report}");
        // Reports list diagnostics; the tool's own output (`F401 [*] …`,
        // in the excerpts some formats show) is what it printed, old
        // findings and all.
        let listed: Vec<&str> = report
            .lines()
            .filter(|l| l.contains("imported but unused") && !l.contains("[*]"))
            .collect();
        assert_eq!(listed.len(), 1, "{format}: {report}");
        assert!(listed[0].contains("re\\` imported") || listed[0].contains("re` imported"));
    }
    let (_, github, _) = gate(&test, &path, &["--baseline", base, "--format", "github"]);
    let errors: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{github}");
    assert!(
        errors[0].starts_with("::error file=app.py,line=1,col=8,"),
        "{github}"
    );
    assert!(errors[0].ends_with(new), "{github}");

    let (_, sarif, _) = gate(&test, &path, &["--baseline", base, "--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0]["message"]["text"], new);
    assert_eq!(results[0]["baselineState"], "new");

    // --all-diagnostics shows the old ones too, marked.
    let (_, sarif, _) = gate(
        &test,
        &path,
        &["--baseline", base, "--format", "sarif", "--all-diagnostics"],
    );
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    crate::sarif::schema_valid(&sarif);
    let states: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["baselineState"].as_str().unwrap())
        .collect();
    assert_eq!(states.iter().filter(|s| **s == "unchanged").count(), 5);
    assert_eq!(states.iter().filter(|s| **s == "new").count(), 1);
    let (_, github, _) = gate(
        &test,
        &path,
        &[
            "--baseline",
            base,
            "--format",
            "github",
            "--all-diagnostics",
        ],
    );
    assert_eq!(
        github.lines().filter(|l| l.starts_with("::error")).count(),
        6
    );
    let (_, text, _) = gate(&test, &path, &["--baseline", base, "--all-diagnostics"]);
    assert!(
        text.contains(&format!("{old} (old: in the baseline)")),
        "{text}"
    );
    for format in ["text", "markdown", "html"] {
        let (_, report, _) = gate(
            &test,
            &path,
            &["--baseline", base, "--format", format, "--all-diagnostics"],
        );
        assert_eq!(
            report.matches("old: in the baseline").count(),
            5,
            "{format}: {report}"
        );
    }
}

#[test]
fn old_findings_moved_by_inserted_lines_pass_and_a_reworded_one_is_new() {
    let Some((test, _out, path, base)) = ruff_repo() else {
        return;
    };
    let base = base.as_str();
    let moved = format!(
        "\"\"\"A docstring.\"\"\"\n\n\n{}",
        OLD.replace("def f", "\n\ndef f")
    );
    std::fs::write(test.path().join("app.py"), &moved).unwrap();
    let (code, json, stderr) = gate(&test, &path, &["--baseline", base, "--format", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let evidence: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(evidence["summary"]["banner"], "All checks passed!");
    let lint = check(&evidence, "lint");
    assert_eq!(
        (&lint["status"], &lint["exit_code"]),
        (&"pass".into(), &1.into())
    );
    assert_eq!(lint["baseline_suppressed"], 5);
    assert!(messages(&evidence, true).is_empty(), "{json}");
    let (code, text, _) = gate(&test, &path, &["--baseline", base]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("PASS lint"), "{text}");
    assert!(
        text.contains("exit 1; 5 old diagnostics (baseline)"),
        "{text}"
    );

    // `y` renamed: ruff's message names the variable, so it is a new finding.
    std::fs::write(
        test.path().join("app.py"),
        moved.replace("y = 2", "why = 2"),
    )
    .unwrap();
    let (code, json, _) = gate(&test, &path, &["--baseline", base, "--format", "json"]);
    assert_eq!(code, Some(1));
    let evidence: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        messages(&evidence, true),
        ["Local variable `why` is assigned to but never used"]
    );
    assert_eq!(check(&evidence, "lint")["baseline_suppressed"], 4);
}

/// A check printing `app.c:LINE:1: error: MESSAGE` for each argument pair,
/// then exiting 1 (or sleeping, with `sleep` first; or exiting 0, with
/// `pass` first).
const PRINTS: &str = "#!/bin/sh\ncode=1\nif [ \"$1\" = sleep ]; then shift; sleep_after=1; fi\nif [ \"$1\" = pass ]; then shift; code=0; fi\nwhile [ $# -gt 1 ]; do echo \"app.c:$1:1: error: $2\"; shift 2; done\nif [ -n \"$sleep_after\" ]; then sleep 5; fi\nexit $code\n";

fn printing(checks: &[(&str, &[&str])], extra: &str) -> Test {
    let mut config = String::from("version = 1\n[settings]\nallow = [\"./p.sh\"]\n");
    config.push_str(extra);
    for (name, args) in checks {
        let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
        config.push_str(&format!(
            "[[check]]\nname = \"{name}\"\nrun = [\"./p.sh\", {}]\nparser = \"gcc\"\nmodes = [\"fast\", \"strict\"]\n",
            args.join(", ")
        ));
    }
    let test = Test::new().script("p.sh", PRINTS).config(&config);
    commit(&test);
    test
}

/// Replaces `from` by `to` in checks.toml, committed.
fn edit_config(test: &Test, from: &str, to: &str) {
    let path = test.path().join("checks.toml");
    let config = std::fs::read_to_string(&path).unwrap().replace(from, to);
    std::fs::write(&path, config).unwrap();
    commit(test);
}

/// Commits the worktree: the gate's files unchanged against HEAD.
fn commit(test: &Test) {
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
}

/// Writes the evidence of `test`'s gate to `dir/NAME`; returns its path.
fn evidence_file(test: &Test, dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let file = dir.join(name);
    let mut all = vec!["--format", "json", "--out", file.to_str().unwrap(), "-q"];
    all.extend(args);
    let output = std::process::Command::new(bin())
        .args(&all)
        .current_dir(test.path())
        .output()
        .unwrap();
    assert!(file.exists(), "{}", String::from_utf8_lossy(&output.stderr));
    file
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A check that passed in the baseline while printing a diagnostic (or the
/// code under test printing one that looks like it) and fails now, with
/// nothing located but that old diagnostic, is not failing for old reasons.
#[test]
fn a_timeout_a_failure_without_diagnostics_and_a_check_that_passed_before_are_never_excused() {
    let out = tempfile::tempdir().unwrap();
    let test = printing(
        &[
            ("slow", &["sleep", "1", "old"]),
            ("bare", &[]),
            ("known", &["2", "old"]),
            ("forged", &["pass", "4", "old"]),
        ],
        "timeout = \"1s\"\n",
    );
    let base = evidence_file(&test, out.path(), "base.json", &[]);
    let base_evidence = read(&base);
    assert_eq!(check(&base_evidence, "slow")["timed_out"], true);
    assert_eq!(check(&base_evidence, "forged")["status"], "pass");
    edit_config(&test, "\"pass\", ", "");
    let args = ["--baseline", base.to_str().unwrap()];
    let now = read(&evidence_file(&test, out.path(), "now.json", &args));
    assert_eq!(check(&now, "slow")["status"], "fail");
    assert_eq!(check(&now, "slow")["timed_out"], true);
    assert_eq!(check(&now, "slow")["baseline_suppressed"], 1);
    assert_eq!(check(&now, "bare")["status"], "fail");
    assert_eq!(check(&now, "known")["status"], "pass");
    assert_eq!(check(&now, "forged")["status"], "fail");
    assert_eq!(check(&now, "forged")["baseline_suppressed"], 1);
    assert_eq!(
        now["summary"]["banner"],
        "3 of 4 checks failed: slow, bare, forged"
    );
}

#[test]
fn fast_mode_does_not_stop_at_a_check_failing_only_for_old_findings() {
    let out = tempfile::tempdir().unwrap();
    let test = printing(&[("first", &["1", "known"]), ("second", &["2", "old"])], "");
    let base = evidence_file(&test, out.path(), "base.json", &["--jobs", "1"]);
    // `second` now has a new finding too; `first` only its old one.
    edit_config(&test, "\"2\", \"old\"", "\"2\", \"old\", \"3\", \"fresh\"");
    let now = evidence_file(
        &test,
        out.path(),
        "now.json",
        &[
            "--mode",
            "fast",
            "--jobs",
            "1",
            "--baseline",
            base.to_str().unwrap(),
        ],
    );
    let now = read(&now);
    assert_eq!(check(&now, "first")["status"], "pass");
    assert_eq!(
        check(&now, "second")["status"],
        "fail",
        "not skipped by fail-fast"
    );
    assert_eq!(messages(&now, true), ["fresh"]);

    // The judge sees one issue, the new finding; `report` shows it alone
    // unless asked for all.
    let now_path = out.path().join("now.json");
    let judged = std::process::Command::new(bin())
        .args(["judge", now_path.to_str().unwrap()])
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&judged.stdout).unwrap();
    let described: Vec<&str> = ["critical", "high", "medium", "low"]
        .iter()
        .flat_map(|s| verdict["issues"][s].as_array().unwrap())
        .map(|i| i["description"].as_str().unwrap())
        .collect();
    assert_eq!(described.len(), 1, "{verdict:#}");
    assert!(described[0].contains("fresh"), "{verdict:#}");
    let report = |extra: &[&str]| {
        let mut args = vec!["report", now_path.to_str().unwrap(), "--format", "github"];
        args.extend(extra);
        let output = std::process::Command::new(bin())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(report(&[]).matches("::error file=").count(), 1);
    assert_eq!(
        report(&["--all-diagnostics"])
            .matches("::error file=")
            .count(),
        3
    );
}

#[test]
fn merge_refuses_shards_of_different_baselines_and_keeps_a_shared_one() {
    let out = tempfile::tempdir().unwrap();
    let test = printing(&[("a", &["1", "old"]), ("b", &["2", "old"])], "");
    let base = evidence_file(&test, out.path(), "base.json", &[]);
    let base = base.to_str().unwrap();
    let one = evidence_file(
        &test,
        out.path(),
        "1.json",
        &["--shard", "1/2", "--baseline", base],
    );
    let two = evidence_file(
        &test,
        out.path(),
        "2.json",
        &["--shard", "2/2", "--baseline", base],
    );
    let bare = evidence_file(&test, out.path(), "bare.json", &["--shard", "2/2"]);
    let merge = |files: &[&Path]| {
        std::process::Command::new(bin())
            .arg("merge")
            .args(files)
            .output()
            .unwrap()
    };
    let merged = merge(&[&one, &two]);
    assert_eq!(merged.status.code(), Some(0));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(merged["summary"]["baseline"], base);
    assert_eq!(merged["summary"]["all_checks_passed"], true);
    let refused = merge(&[&one, &bare]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert!(stderr.contains("no --baseline"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_baseline_that_cannot_be_read_is_an_error_before_anything_runs() {
    let out = tempfile::tempdir().unwrap();
    let test = printing(&[("a", &["1", "old"])], "");
    let bad = out.path().join("bad.json");
    std::fs::write(&bad, "{\"schema_version\": 1}").unwrap();
    let report = out.path().join("ev.json");
    for baseline in [bad.clone(), out.path().join("missing.json")] {
        let output = std::process::Command::new(bin())
            .args(["--baseline", baseline.to_str().unwrap(), "--format", "json"])
            .args(["--out", report.to_str().unwrap()])
            .current_dir(test.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(baseline.to_str().unwrap()), "{stderr}");
        assert!(!report.exists());
    }
    // --all-diagnostics shows what a baseline marked: without one, a usage error.
    let output = std::process::Command::new(bin())
        .args(["--all-diagnostics", "--out", report.to_str().unwrap()])
        .current_dir(test.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--baseline"), "{stderr}");
    assert!(!report.exists());
}

/// A failure for old diagnostics only is a pass at once: `retries` do not
/// run it again.
#[test]
fn a_check_failing_only_for_old_findings_is_not_retried() {
    let out = tempfile::tempdir().unwrap();
    let counter = out.path().join("runs");
    let script = "#!/bin/sh\necho run >> \"$1\"\necho 'app.c:1:1: error: old'\nexit 1\n";
    let config = format!(
        "version = 1\n[settings]\nallow = [\"./count.sh\"]\n[[check]]\nname = \"lint\"\nrun = [\"./count.sh\", {:?}]\nparser = \"gcc\"\nretries = 2\n",
        counter.to_str().unwrap()
    );
    let test = Test::new().script("count.sh", script).config(&config);
    commit(&test);
    let base = evidence_file(&test, out.path(), "base.json", &[]);
    assert_eq!(check(&read(&base), "lint")["attempts"], 3);
    std::fs::remove_file(&counter).unwrap();
    let args = ["--baseline", base.to_str().unwrap()];
    let now = read(&evidence_file(&test, out.path(), "now.json", &args));
    let lint = check(&now, "lint");
    assert_eq!(lint["status"], "pass");
    assert_eq!(lint["attempts"], 1);
    assert_eq!(lint["flaky"], false);
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "run\n");
}

/// A baseline inside the worktree is one of the gate's files: edited
/// against the base, it is in `contracts.gate.changed` (the judge's
/// Critical `gate-changed`), so a candidate cannot grow it silently.
#[test]
fn an_edited_baseline_inside_the_worktree_is_a_changed_gate() {
    let test = printing(&[("lint", &["1", "old"])], "");
    let base = evidence_file(&test, test.path(), "base.json", &[]);
    commit(&test);
    let out = tempfile::tempdir().unwrap();
    let args = ["--baseline", "base.json"];
    let now = read(&evidence_file(&test, out.path(), "now.json", &args));
    assert_eq!(check(&now, "lint")["status"], "pass");
    assert_eq!(now["contracts"]["gate"]["changed"], serde_json::json!([]));
    // The candidate adds its new finding to the baseline.
    let mut grown = read(&base);
    let mut forged = grown["diagnostics"][0].clone();
    forged["message"] = "fresh".into();
    grown["diagnostics"].as_array_mut().unwrap().push(forged);
    std::fs::write(&base, grown.to_string()).unwrap();
    edit_config(&test, "\"1\", \"old\"", "\"1\", \"old\", \"2\", \"fresh\"");
    // (edit_config committed the grown baseline too: go back to the base.)
    git(test.path(), &["reset", "-q", "--soft", "HEAD~1"]);
    let now = read(&evidence_file(&test, out.path(), "now.json", &args));
    let changed = &now["contracts"]["gate"]["changed"];
    assert!(
        changed.as_array().unwrap().iter().any(|f| f == "base.json"),
        "{changed}"
    );
}

/// A `ci` check that runs the lint, then the unit tests, in one command:
/// real gcc (its located error, read by the gcc parser) and real
/// `python3 -m unittest`, which reports a failing test only by its
/// summary, `FAILED (failures=1)`, with no location.
const CI: &str = r#"version = 1
[settings]
allow = ["sh"]
[[check]]
name = "ci"
run = ["sh", "ci.sh"]
parser = "gcc"
"#;

const CI_SH: &str = "cc -fsyntax-only -Werror=unused-variable lint.c; lint=$?\n\
python3 -m unittest test_calc; tests=$?\n\
[ \"$lint\" -eq 0 ] && [ \"$tests\" -eq 0 ]\n";

fn unit_test(expected: u32) -> String {
    format!(
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        \
         self.assertEqual(1 + 1, {expected})\n"
    )
}

/// The baseline knows the old lint finding; the change breaks a unit test.
/// The check's only diagnostic is old and its exit code is the baseline's,
/// but the failure unittest reports without a location is new: the check
/// fails, and a diagnostic names what the baseline does not explain. A
/// baseline whose run had that failure too excuses it.
#[test]
fn a_failure_without_a_location_the_baseline_did_not_have_is_not_excused() {
    let out = tempfile::tempdir().unwrap();
    let test = Test::new()
        .config(CI)
        .file("ci.sh", CI_SH)
        .file(
            "lint.c",
            "int f(void) {\n    int unused;\n    return 0;\n}\n",
        )
        .file("test_calc.py", &unit_test(2));
    commit(&test);
    let base = evidence_file(&test, out.path(), "base.json", &[]);
    let base_evidence = read(&base);
    assert_eq!(check(&base_evidence, "ci")["exit_code"], 1);
    assert_eq!(diagnostics(&base_evidence).len(), 1, "{base_evidence:#}");
    assert!(
        !check(&base_evidence, "ci")["stderr_excerpt"]
            .as_str()
            .unwrap()
            .contains("FAILED")
    );

    std::fs::write(test.path().join("test_calc.py"), unit_test(3)).unwrap();
    let args = ["--baseline", base.to_str().unwrap()];
    let now = read(&evidence_file(&test, out.path(), "now.json", &args));
    let ci = check(&now, "ci");
    assert!(
        ci["stderr_excerpt"]
            .as_str()
            .unwrap()
            .contains("FAILED (failures=1)"),
        "{ci:#}"
    );
    assert_eq!(
        (&ci["status"], &ci["exit_code"]),
        (&json!("fail"), &json!(1))
    );
    assert_eq!(ci["baseline_suppressed"], 1);
    assert_eq!(now["summary"]["all_checks_passed"], false);
    let new: Vec<(&str, &str)> = diagnostics(&now)
        .iter()
        .filter(|d| d["new"] == true)
        .map(|d| (d["rule"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        new,
        [(
            "baseline-unexplained",
            "failed for what the baseline does not explain: unittest reports 1 failed, \
             the baseline's run 0"
        )]
    );

    // The same failure in the baseline's run: old, excused.
    let failing = evidence_file(&test, out.path(), "failing.json", &[]);
    let args = ["--baseline", failing.to_str().unwrap()];
    let again = read(&evidence_file(&test, out.path(), "again.json", &args));
    assert_eq!(check(&again, "ci")["status"], "pass");
    assert_eq!(check(&again, "ci")["baseline_suppressed"], 1);
}

/// A workspace of two crates: `root` depends on `dep`, which has an old
/// needless `return` (clippy) that the baseline knows.
fn two_crate_workspace() -> Test {
    Test::new()
        .file(
            "Cargo.toml",
            "[package]\nname = \"root\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\ndep = { path = \"dep\" }\n\n[workspace]\nmembers = [\"dep\"]\n",
        )
        .file(
            "dep/Cargo.toml",
            "[package]\nname = \"dep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file(
            "dep/src/lib.rs",
            "pub fn f() -> i32 {\n    let x = 1;\n    return x;\n}\n",
        )
        .file("src/lib.rs", "pub fn g() -> i32 {\n    dep::f()\n}\n")
        .file(".gitignore", "/target\n")
}

#[test]
fn a_new_finding_in_a_crate_cargo_never_checked_is_not_passed_by_the_baseline() {
    let test = two_crate_workspace();
    let dir = test.path().to_path_buf();
    let lock = std::process::Command::new("cargo")
        .args(["generate-lockfile", "--offline"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(lock.status.success(), "{lock:?}");
    let test = test.args(&["init"]).run().success().test;
    let config: Value =
        toml::from_str(&std::fs::read_to_string(dir.join("checks.toml")).unwrap()).unwrap();
    let clippy = config["check"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "clippy")
        .unwrap();
    assert_eq!(
        clippy["run"],
        serde_json::json!([
            "cargo",
            "clippy",
            "--workspace",
            "--all-targets",
            "--keep-going",
            "--",
            "-D",
            "warnings"
        ])
    );
    commit(&test);
    let out = tempfile::tempdir().unwrap();
    let base = out.path().join("base.json");
    let path = std::env::var("PATH").unwrap();
    let only_clippy = ["--only", "clippy", "--format", "json"];
    let (code, json, err) = gate(
        &test,
        &path,
        &[&only_clippy[..], &["--out", base.to_str().unwrap()]].concat(),
    );
    assert_eq!(code, Some(1), "{json}{err}");
    let old = read(&base);
    assert_eq!(diagnostics(&old).len(), 1, "{old:#}");
    assert_eq!(diagnostics(&old)[0]["file"], "dep/src/lib.rs");

    // A new unused variable in the root crate, which cargo never reaches:
    // `dep` did not compile.
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn g() -> i32 {\n    let unused = 3;\n    dep::f()\n}\n",
    )
    .unwrap();
    let base = base.to_str().unwrap();
    let (code, json, err) = gate(
        &test,
        &path,
        &[&only_clippy[..], &["--baseline", base]].concat(),
    );
    assert_eq!(code, Some(1), "{json}{err}");
    let evidence: Value = serde_json::from_str(&json).unwrap();
    let clippy = check(&evidence, "clippy");
    assert_eq!(clippy["status"], "fail", "{clippy:#}");
    assert_eq!(clippy["baseline_suppressed"], 1);
    assert_eq!(
        messages(&evidence, true),
        [
            "failed for what the baseline does not explain: cargo did not build every unit (`dep` could not compile): crates not checked: `root`"
        ]
    );
    // The text report says so too.
    let (_, text, _) = gate(&test, &path, &["--only", "clippy", "--baseline", base]);
    assert!(text.contains("crates not checked: `root`"), "{text}");
}
