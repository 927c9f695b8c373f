//! The task contract (docs/task.md): `--task` records the task as given in
//! `meta.task`, lists broken limits in `contracts.task.violations`, measures
//! the change against `--changed-since` into `contracts.change_budget`; an
//! unreadable or ill-typed task file is ERROR (exit 2, one stderr line, no
//! check run, no report).
//!
//! The task file and the report live in `runs/T-1/`, ignored by git (docs/task.md
//! puts artifacts in `runs/<task_id>/`), so they are not part of the change
//! under test; the one check touches `runs/ran-marker`, proving it ran
//! without modifying the worktree.

use serde_json::{Value, json};

use crate::support::{Run, Test, check, git};

const CONFIG: &str = r#"[settings]
allow = ["touch"]

[[check]]
name = "marker"
run = ["touch", "runs/ran-marker"]
"#;

const TASK: &str = "runs/T-1/task.json";
const EVIDENCE: &str = "runs/T-1/ev.json";

/// A valid task, with a field the schema does not know.
fn task() -> Value {
    json!({
        "id": "T-1",
        "title": "Count the lines",
        "description": "Add a line counter so the budget can be checked.",
        "risk": "low",
        "parallel_count": 1,
        "acceptance": {
            "commands": ["cargo test", "./run-check.sh --mode strict --format json"],
            "criteria": "summary.all_checks_passed = true"
        },
        "estimated_loc": 120,
        "files_involved": ["src/lib.txt", "new.txt"],
        "public_contracts_touched": "N/A",
        "x-owner": {"team": "gate"}
    })
}

/// A committed repository (checks.toml, `.gitignore` with `runs/`, a
/// three-line `src/lib.txt`) with `task` written to `runs/T-1/task.json`.
fn repo(task: &str) -> Test {
    let test = Test::new()
        .config(CONFIG)
        .file(".gitignore", "runs/\n")
        .file("src/lib.txt", "one\ntwo\nthree\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test.file(TASK, task)
}

fn run(test: Test) -> Run {
    test.args(&["--task", TASK, "--format", "json", "--out", EVIDENCE])
        .run()
}

fn budget(files: u64, loc: u64, exceeded: bool) -> Value {
    json!({"base": "HEAD", "files_changed": files, "loc_changed": loc,
           "max_files": 10, "max_loc": 400, "exceeded": exceeded})
}

#[test]
fn a_valid_task_is_recorded_with_the_change_budget() {
    // The change under test: one line of a tracked file (1 added + 1
    // deleted) and a new five-line file: 2 files, 7 lines.
    let test = repo(&task().to_string())
        .file("src/lib.txt", "one\nTWO\nthree\n")
        .file("new.txt", "1\n2\n3\n4\n5\n");
    let run = run(test).success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(ev["meta"]["task"], task(), "meta.task is the task as given");
    assert_eq!(
        ev["contracts"]["task"],
        json!({"id": "T-1", "valid": true, "violations": []})
    );
    assert_eq!(ev["contracts"]["change_budget"], budget(2, 7, false));
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(check(&ev, "marker")["status"], "pass");
    assert!(run.test.path().join("runs/ran-marker").exists());
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(ev["contracts"]["read_only"]["modified"], json!([]));
}

#[test]
fn broken_limits_are_violations_not_errors() {
    let mut task = task();
    task["parallel_count"] = json!(6);
    task["acceptance"]["commands"] = json!(["run-check --mode fast --format json"]);
    task["estimated_loc"] = json!(401);
    task["files_involved"] = json!((0..11).map(|i| format!("f{i}")).collect::<Vec<_>>());
    let run = run(repo(&task.to_string()));
    // The checks passed: violations are reported, the exit code is the checks'.
    let run = run.success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(ev["meta"]["task"], task);
    assert_eq!(
        ev["contracts"]["task"],
        json!({"id": "T-1", "valid": false, "violations": [
            {"field": "parallel_count", "message": "must be between 1 and 5, found 6"},
            {"field": "acceptance.commands",
             "message": "no command runs `run-check --mode strict --format json`"},
            {"field": "estimated_loc", "message": "401 exceeds the hard limit of 400"},
            {"field": "files_involved", "message": "11 files exceed the hard limit of 10"},
        ]})
    );
    assert_eq!(ev["contracts"]["change_budget"], budget(0, 0, false));
}

#[test]
fn integers_as_the_schema_reads_them_and_empty_contract_lists() {
    // `2.0` is an integer to the published schema, so to `--task` too; a
    // number too big for 64 bits is a broken limit, not an ERROR; an empty
    // `public_contracts_touched` list is as empty as `""`.
    let text = task()
        .to_string()
        .replace("\"parallel_count\":1", "\"parallel_count\":2.0")
        .replace(
            "\"estimated_loc\":120",
            "\"estimated_loc\":1000000000000000000000000000000",
        )
        .replace(
            "\"public_contracts_touched\":\"N/A\"",
            "\"public_contracts_touched\":[\"\"]",
        );
    assert!(text.contains("2.0") && text.contains("[\"\"]"), "{text}");
    let run = run(repo(&text)).success();
    let ev = run.json_file(EVIDENCE);
    // `meta.task` is the task as read: `2.0` is written 2.
    assert_eq!(ev["meta"]["task"]["parallel_count"], json!(2));
    assert_eq!(
        ev["contracts"]["task"]["violations"],
        json!([
            {"field": "estimated_loc",
             "message": "1000000000000000019884624838656 exceeds the hard limit of 400"},
            {"field": "public_contracts_touched",
             "message": "must not be empty; use \"N/A\" when no public contract is touched"},
        ])
    );
}

#[test]
fn the_change_budget_at_its_limits() {
    // 10 files, 400 lines: within the budget.
    let mut test = repo(&task().to_string()).file("big.txt", &"x\n".repeat(391));
    for i in 0..9 {
        test = test.file(&format!("f{i}.txt"), "x\n");
    }
    let run = run(test).success();
    let budget_of = |run: &Run| run.json_file(EVIDENCE)["contracts"]["change_budget"].clone();
    assert_eq!(budget_of(&run), budget(10, 400, false));

    // 401 lines.
    let root = run.test.path().to_path_buf();
    std::fs::write(root.join("big.txt"), "x\n".repeat(392)).unwrap();
    let run = run.test.run().success();
    assert_eq!(budget_of(&run), budget(10, 401, true));

    // 11 files, 400 lines (an empty file changes no line).
    std::fs::write(root.join("big.txt"), "x\n".repeat(391)).unwrap();
    std::fs::write(root.join("empty.txt"), "").unwrap();
    let run = run.test.run().success();
    assert_eq!(budget_of(&run), budget(11, 400, true));
}

#[test]
fn the_budget_is_measured_against_changed_since() {
    let test = repo(&task().to_string()).file("src/lib.txt", "one\ntwo\nthree\nfour\n");
    git(test.path(), &["commit", "-q", "-am", "four"]);
    let run = test
        .args(&["--changed-since", "HEAD~1"])
        .args(&["--task", TASK, "--format", "json", "--out", EVIDENCE])
        .run()
        .success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(
        ev["contracts"]["change_budget"],
        json!({"base": "HEAD~1", "files_changed": 1, "loc_changed": 1,
               "max_files": 10, "max_loc": 400, "exceeded": false})
    );
}

#[test]
fn the_report_being_written_is_not_part_of_the_change() {
    // `--out ev.json` at the (not ignored) top: the budget is measured before
    // the report's temporary file exists, and the report a second run
    // replaces (an untracked file by then) is run-check's own, not the
    // change under test.
    let first = repo(&task().to_string())
        .args(&["--task", TASK, "--format", "json", "--out", "ev.json"])
        .run()
        .success();
    let ev = first.json_file("ev.json");
    assert_eq!(ev["contracts"]["change_budget"], budget(0, 0, false));
    let second = first.test.run().success();
    let ev = second.json_file("ev.json");
    assert_eq!(ev["contracts"]["change_budget"], budget(0, 0, false));
    assert_eq!(ev["contracts"]["read_only"]["modified"], json!([]));
}

#[cfg(unix)]
#[test]
fn files_run_checks_streams_go_to_are_not_part_of_the_change() {
    // `run-check --task … >out.txt 2>stderr.log` inside the worktree.
    let test = repo(&task().to_string()).args(&["--task", TASK, "--format", "json"]);
    let file = |name: &str| std::fs::File::create(test.path().join(name)).unwrap();
    // From an earlier run: not empty, so they would count lines too.
    std::fs::write(test.path().join("stderr.log"), "earlier\n").unwrap();
    let status = test
        .command()
        .stdout(file("out.txt"))
        .stderr(
            std::fs::OpenOptions::new()
                .append(true)
                .open(test.path().join("stderr.log"))
                .unwrap(),
        )
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(test.path().join("out.txt")).unwrap();
    let ev: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(ev["contracts"]["change_budget"], budget(0, 0, false));
}

#[test]
fn a_rename_is_one_file_with_the_lines_it_changed() {
    let lines: String = (1..=450).map(|i| format!("{i}\n")).collect();
    let test = repo(&task().to_string()).file("big.txt", &lines);
    git(test.path(), &["add", "big.txt"]);
    git(test.path(), &["commit", "-q", "-m", "big"]);
    git(test.path(), &["mv", "big.txt", "renamed.txt"]);
    // Staged, against HEAD: git says 1 file, 0 lines; so does the budget.
    let run = run(test).success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(ev["contracts"]["change_budget"], budget(1, 0, false));
    // Committed, against the commit before.
    git(run.test.path(), &["commit", "-q", "-m", "rename"]);
    let run = run
        .test
        .args(&["--changed-since", "HEAD~1"])
        .run()
        .success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(
        ev["contracts"]["change_budget"],
        json!({"base": "HEAD~1", "files_changed": 1, "loc_changed": 0,
               "max_files": 10, "max_loc": 400, "exceeded": false})
    );
}

#[test]
fn without_a_task_the_contracts_are_null() {
    let test = repo("{}");
    let run = test
        .args(&["--format", "json", "--out", EVIDENCE])
        .run()
        .success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(ev["meta"]["task"], Value::Null);
    assert_eq!(ev["contracts"]["task"], Value::Null);
    assert_eq!(ev["contracts"]["change_budget"], Value::Null);
}

/// Exit 2, nothing on stdout, the one stderr `line`, no check ran and no
/// report was written.
#[track_caller]
fn assert_rejected(run: &Run, line: &str, exact: bool) {
    assert_eq!(
        run.code,
        Some(2),
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.stdout, "");
    let lines = run.stderr_lines();
    assert_eq!(lines.len(), 1, "exactly one stderr line:\n{}", run.stderr);
    if exact {
        assert_eq!(lines[0], line);
    } else {
        assert!(
            lines[0].starts_with(line),
            "{:?} does not start with {line:?}",
            lines[0]
        );
    }
    assert!(
        !run.test.path().join("runs/ran-marker").exists(),
        "a check ran"
    );
    assert!(
        !run.test.path().join(EVIDENCE).exists(),
        "a report was written"
    );
}

#[test]
fn an_ill_typed_task_is_an_error_naming_the_json_path() {
    let mut bad_command = task();
    bad_command["acceptance"]["commands"][1] = json!(42);
    let mut missing = task();
    missing.as_object_mut().unwrap().remove("estimated_loc");
    let mut bad_risk = task();
    bad_risk["risk"] = json!("urgent");
    let mut fraction = task();
    fraction["parallel_count"] = json!(1.5);
    for (task, expected) in [
        (
            bad_command,
            "$.acceptance.commands[1]: expected a string, found number 42",
        ),
        (missing, "$.estimated_loc: missing required field"),
        (
            bad_risk,
            "$.risk: expected one of \"low\", \"medium\", \"high\", found \"urgent\"",
        ),
        (
            fraction,
            "$.parallel_count: expected an integer, found number 1.5",
        ),
        (json!([]), "$: expected an object, found array"),
    ] {
        let run = run(repo(&task.to_string()));
        assert_rejected(&run, &format!("error: {TASK}: {expected}"), true);
    }
}

#[test]
fn a_task_that_is_not_json_is_an_error_with_line_and_column() {
    let run = run(repo("{\n  \"id\": \"T-1\",\n}\n"));
    assert_rejected(
        &run,
        &format!("error: {TASK}:3:1: invalid JSON: trailing comma"),
        true,
    );
}

#[test]
fn a_missing_or_unreadable_task_file_is_an_error() {
    let run = repo(&task().to_string())
        .args(&[
            "--task",
            "runs/none.json",
            "--format",
            "json",
            "--out",
            EVIDENCE,
        ])
        .run();
    assert_rejected(
        &run,
        "error: failed to read task file `runs/none.json`: ",
        false,
    );
    // A directory cannot be read as a file.
    let run = repo(&task().to_string())
        .args(&["--task", "runs/T-1", "--format", "json", "--out", EVIDENCE])
        .run();
    assert_rejected(&run, "error: failed to read task file `runs/T-1`: ", false);
}

#[test]
fn a_missing_base_revision_is_an_error() {
    let run = repo(&task().to_string())
        .args(&["--changed-since", "no-such-rev"])
        .args(&["--task", TASK, "--format", "json", "--out", EVIDENCE])
        .run();
    assert_rejected(
        &run,
        "error: --changed-since `no-such-rev`: no such revision in this repository",
        true,
    );
}

#[test]
fn an_edit_hidden_by_assume_unchanged_counts_in_the_budget() {
    // `git diff` does not see it; every line of the file counts, as for a
    // new file.
    let test = repo(&task().to_string());
    git(
        test.path(),
        &["update-index", "--assume-unchanged", "src/lib.txt"],
    );
    let test = test.file("src/lib.txt", "one\ntwo\nthree\nfour\n");
    let run = run(test).success();
    let ev = run.json_file(EVIDENCE);
    assert_eq!(ev["contracts"]["change_budget"], budget(1, 4, false));
}
