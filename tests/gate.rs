//! `contracts.gate` (docs/evidence.md, docs/task.md), played as the attacker: a
//! candidate that weakens its own gate (deletes a failing check from
//! checks.toml, edits `./scripts/lint.sh` to `exit 0`, edits the script an
//! interpreter runs, also one a config outside the worktree runs, commits a
//! baseline regenerated over its new finding) gets a PASS, but never a
//! silent one: the evidence lists the changed gate files, the text report
//! says so, and under `--task` each undeclared one is a task violation. A
//! task's `base` (or `--changed-since`) makes committed changes count.

use serde_json::{Value, json};

use crate::support::{Run, Test, check, git};

/// `ok` passes; `lint` (a script run by path) and `style` (a script run by
/// an interpreter) fail: the gate as the base revision defines it.
const CONFIG: &str = r#"[settings]
allow = ["true", "./scripts/lint.sh", "sh"]

[[check]]
name = "ok"
run = ["true"]

[[check]]
name = "lint"
run = ["./scripts/lint.sh"]

[[check]]
name = "style"
run = ["sh", "scripts/style.sh"]
"#;

const FAILING: &str = "#!/bin/sh\necho 'src/a.txt:1: problem' >&2\nexit 1\n";
const WEAKENED: &str = "#!/bin/sh\nexit 0\n";
const EVIDENCE: &str = "runs/ev.json";
const TASK: &str = "runs/task.json";

/// A committed repository with the gate of [`CONFIG`] (a tag `base` on its
/// commit); `runs/` is ignored.
fn repo() -> Test {
    let test = Test::new()
        .config(CONFIG)
        .file(".gitignore", "runs/\n")
        .file("src/a.txt", "a\n")
        .script("scripts/lint.sh", FAILING)
        .script("scripts/style.sh", FAILING);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    git(test.path(), &["tag", "base"]);
    std::fs::create_dir(test.path().join("runs")).unwrap();
    test
}

/// `CONFIG` without the checks named.
fn without(names: &[&str]) -> String {
    CONFIG
        .split("\n[[check]]\n")
        .filter(|part| {
            !names
                .iter()
                .any(|n| part.contains(&format!("name = \"{n}\"")))
        })
        .collect::<Vec<_>>()
        .join("\n[[check]]\n")
}

fn task(files_involved: &[&str], base: Option<&str>) -> String {
    let mut task = json!({
        "id": "T-1",
        "title": "Tidy",
        "description": "Tidy the code.",
        "risk": "low",
        "parallel_count": 1,
        "acceptance": {
            "commands": ["run-check --mode strict --format json"],
            "criteria": "summary.all_checks_passed = true"
        },
        "estimated_loc": 10,
        "files_involved": files_involved,
        "public_contracts_touched": "N/A"
    });
    if let Some(base) = base {
        task["base"] = json!(base);
    }
    task.to_string()
}

fn strict(test: Test, extra: &[&str]) -> Run {
    test.args(&["--format", "json", "--out", EVIDENCE, "--quiet"])
        .args(extra)
        .run()
}

fn evidence(run: &Run) -> Value {
    run.json_file(EVIDENCE)
}

fn gate(ev: &Value) -> &Value {
    &ev["contracts"]["gate"]
}

#[test]
fn an_untouched_gate_is_reported_unchanged() {
    let run = strict(repo(), &[]).status(1);
    let ev = evidence(&run);
    assert_eq!(*gate(&ev), json!({"changed": [], "base": "HEAD"}));
    // A change outside the gate is not a gate change.
    let test = run.test.again().file("src/a.txt", "b\n");
    let run = strict(test, &[]).status(1);
    assert_eq!(gate(&evidence(&run))["changed"], json!([]));
}

#[test]
fn a_check_deleted_from_the_config_is_listed() {
    let test = repo().config(&without(&["lint", "style"]));
    let run = strict(test, &[]).success();
    let ev = evidence(&run);
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(
        *gate(&ev),
        json!({"changed": ["checks.toml"], "base": "HEAD"})
    );
    // The text report says so above its tally.
    let run = run.test.again().args(&["--quiet"]).run().success();
    assert!(
        run.stdout
            .contains("\nGate changed against HEAD: checks.toml\n1 check: 1 pass"),
        "{}",
        run.stdout
    );
    // Staged, it is still a change against HEAD.
    git(run.test.path(), &["add", "checks.toml"]);
    let run = strict(run.test.again(), &[]).success();
    assert_eq!(gate(&evidence(&run))["changed"], json!(["checks.toml"]));
}

#[test]
fn a_script_edited_to_exit_0_is_listed_whether_run_by_path_or_by_an_interpreter() {
    let test = repo()
        .script("scripts/lint.sh", WEAKENED)
        .script("scripts/style.sh", WEAKENED);
    let run = strict(test, &[]).success();
    let ev = evidence(&run);
    assert_eq!(ev["summary"]["all_checks_passed"], true);
    assert_eq!(
        gate(&ev)["changed"],
        json!(["scripts/lint.sh", "scripts/style.sh"])
    );
    // Replaced by a symlink to a passing program outside the worktree: it
    // runs (a link may leave the worktree, as a virtualenv's `python`
    // does), the evidence records the real file it ran, and the link is
    // listed as a changed gate file.
    #[cfg(unix)]
    {
        let test = repo();
        std::fs::remove_file(test.path().join("scripts/lint.sh")).unwrap();
        std::os::unix::fs::symlink("/bin/true", test.path().join("scripts/lint.sh")).unwrap();
        let run = strict(test, &[]).status(1);
        let ev = evidence(&run);
        let lint = crate::support::check(&ev, "lint");
        assert_eq!(lint["status"], "pass");
        assert_eq!(
            lint["program"],
            dunce::canonicalize("/bin/true").unwrap().to_str().unwrap()
        );
        assert_eq!(gate(&ev)["changed"], json!(["scripts/lint.sh"]));
        // Replaced by a symlink to a passing script inside the worktree: the
        // link and its target are listed.
        let test = repo().script("scripts/ok.sh", WEAKENED);
        std::fs::remove_file(test.path().join("scripts/lint.sh")).unwrap();
        std::os::unix::fs::symlink("ok.sh", test.path().join("scripts/lint.sh")).unwrap();
        let run = strict(test, &[]);
        assert_eq!(
            gate(&evidence(&run))["changed"],
            json!(["scripts/lint.sh", "scripts/ok.sh"])
        );
    }
}

#[test]
fn with_a_task_an_undeclared_gate_change_is_a_violation() {
    let test = repo()
        .script("scripts/lint.sh", WEAKENED)
        .file(TASK, &task(&["src/a.txt"], None));
    // `style` still fails: the task contract is data beside the checks.
    let run = strict(test, &["--task", TASK]).status(1);
    let ev = evidence(&run);
    assert_eq!(gate(&ev)["changed"], json!(["scripts/lint.sh"]));
    assert_eq!(
        ev["contracts"]["task"],
        json!({
            "id": "T-1",
            "valid": false,
            "violations": [{
                "field": "files_involved",
                "message": "the gate changed: `scripts/lint.sh` differs from `HEAD` and is not listed"
            }]
        })
    );
    // Declared (as `./scripts/lint.sh`), the same change is no violation.
    let test = run
        .test
        .again()
        .file(TASK, &task(&["src/a.txt", "./scripts/lint.sh"], None));
    let run = strict(test, &["--task", TASK]).status(1);
    let ev = evidence(&run);
    assert_eq!(gate(&ev)["changed"], json!(["scripts/lint.sh"]));
    assert_eq!(ev["contracts"]["task"]["valid"], true);
    assert_eq!(ev["contracts"]["task"]["violations"], json!([]));
}

#[test]
fn a_committed_gate_change_counts_against_the_tasks_base() {
    let test = repo().config(&without(&["lint", "style"]));
    git(
        test.path(),
        &["commit", "-q", "-am", "drop the failing checks"],
    );
    // Against HEAD, the commit hid it.
    let test = test.file(TASK, &task(&["src/a.txt"], None));
    let run = strict(test, &["--task", TASK]).success();
    let ev = evidence(&run);
    assert_eq!(*gate(&ev), json!({"changed": [], "base": "HEAD"}));
    assert_eq!(ev["contracts"]["change_budget"]["files_changed"], 0);

    // Against the task's base it is listed, a violation, and in the budget.
    let test = run
        .test
        .again()
        .file(TASK, &task(&["src/a.txt"], Some("base")));
    let run = strict(test, &["--task", TASK]).success();
    let ev = evidence(&run);
    assert_eq!(
        *gate(&ev),
        json!({"changed": ["checks.toml"], "base": "base"})
    );
    assert_eq!(ev["contracts"]["change_budget"]["base"], "base");
    assert_eq!(ev["contracts"]["change_budget"]["files_changed"], 1);
    assert_eq!(
        ev["contracts"]["task"]["violations"],
        json!([{
            "field": "files_involved",
            "message": "the gate changed: `checks.toml` differs from `base` and is not listed"
        }])
    );
    // `--changed-since` overrides the task's base.
    let run = strict(
        run.test.again(),
        &["--task", TASK, "--changed-since", "HEAD"],
    )
    .success();
    let ev = evidence(&run);
    assert_eq!(*gate(&ev), json!({"changed": [], "base": "HEAD"}));
    assert_eq!(ev["contracts"]["change_budget"]["base"], "HEAD");
    // Fast mode measures against the same base.
    let run = strict(run.test.again(), &["--task", TASK, "--mode", "fast"]).success();
    assert_eq!(gate(&evidence(&run))["changed"], json!(["checks.toml"]));
}

#[test]
fn without_a_task_changed_since_is_the_base() {
    let test = repo().script("scripts/style.sh", WEAKENED);
    git(test.path(), &["commit", "-q", "-am", "weaken"]);
    let run = strict(test, &["--changed-since", "base"]).status(1);
    let ev = evidence(&run);
    assert_eq!(
        *gate(&ev),
        json!({"changed": ["scripts/style.sh"], "base": "base"})
    );
}

#[test]
fn a_task_base_that_does_not_exist_is_an_error_naming_the_task_file() {
    for base in ["no-such-rev", "--output=x"] {
        let test = repo().file(TASK, &task(&["src/a.txt"], Some(base)));
        let run = strict(test, &["--task", TASK]).status(2);
        assert_eq!(
            run.stderr,
            format!("error: {TASK}: $.base: no such revision `{base}` in this repository\n")
        );
        assert!(!run.test.path().join(EVIDENCE).exists());
    }
    // Ill-typed or blank: the task file's type error.
    for (base, message) in [
        (json!(3), "expected a string, found number 3"),
        (
            json!(" "),
            "must name a git revision, found an empty string",
        ),
    ] {
        let mut value: Value = serde_json::from_str(&task(&[], None)).unwrap();
        value["base"] = base;
        let test = repo().file(TASK, &value.to_string());
        let run = strict(test, &["--task", TASK]).status(2);
        assert_eq!(run.stderr, format!("error: {TASK}: $.base: {message}\n"));
    }
}

/// A config kept outside the worktree (`--config`, a copy the code under
/// test cannot edit) still watches what it runs from the worktree: its
/// programs and the files its checks' arguments name, `--opt=VALUE` too.
/// The config itself is no gate file, and the worktree's own checks.toml,
/// which this run does not use, is none either.
#[test]
fn a_config_outside_the_worktree_still_watches_what_it_runs() {
    let outside = tempfile::tempdir().unwrap();
    let config = outside.path().join("checks.toml");
    let trusted = format!(
        "{CONFIG}\n[[check]]\nname = \"rules\"\nrun = [\"true\", \"--rules=conf/rules.txt\"]\n"
    );
    std::fs::write(&config, &trusted).unwrap();
    let config = config.to_str().unwrap();
    let run = strict(repo(), &["--config", config]).status(1);
    assert_eq!(
        *gate(&evidence(&run)),
        json!({"changed": [], "base": "HEAD"})
    );
    // The candidate weakens both scripts, adds the rules file the config
    // names, and edits files the trusted config does not run.
    let test = run
        .test
        .again()
        .script("scripts/lint.sh", WEAKENED)
        .script("scripts/style.sh", WEAKENED)
        .file("conf/rules.txt", "allow everything\n")
        .file("src/a.txt", "b\n")
        .config(&without(&["lint", "style"]));
    let run = strict(test, &["--config", config]).success();
    let ev = evidence(&run);
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(
        *gate(&ev),
        json!({
            "changed": ["conf/rules.txt", "scripts/lint.sh", "scripts/style.sh"],
            "base": "HEAD"
        })
    );
    // Committed, they count against the base they are measured from.
    git(run.test.path(), &["add", "."]);
    git(run.test.path(), &["commit", "-q", "-m", "weaken"]);
    let run = strict(
        run.test.again(),
        &["--config", config, "--changed-since", "base"],
    )
    .success();
    assert_eq!(
        *gate(&evidence(&run)),
        json!({
            "changed": ["conf/rules.txt", "scripts/lint.sh", "scripts/style.sh"],
            "base": "base"
        })
    );
}

/// A config inside the worktree is a gate file itself; of its checks'
/// arguments only an interpreter's script is watched, not a file a check
/// merely reads (the code under test, edited every round).
#[test]
fn a_config_inside_watches_an_interpreters_script_not_the_files_a_check_reads() {
    let config = format!(
        "{CONFIG}\n[[check]]\nname = \"rules\"\nrun = [\"true\", \"src/a.txt\", \"--rules=conf/rules.txt\"]\n"
    );
    let test = repo().config(&config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "rules"]);
    let test = test
        .script("scripts/style.sh", WEAKENED)
        .file("conf/rules.txt", "allow everything\n")
        .file("src/a.txt", "b\n");
    let run = strict(test, &[]).status(1);
    assert_eq!(
        *gate(&evidence(&run)),
        json!({"changed": ["scripts/style.sh"], "base": "HEAD"})
    );
}

/// Checks that reach their scripts through a shell's `-c` string (one with
/// an argument, one that sources a file and runs a script by a bare name)
/// and through `python3 -m`: each script the candidate weakens is a
/// changed gate file. A trusted config (outside) counts every word of the
/// string, a file its commands only read too; a config inside counts what
/// the string runs, not the code under test it reads.
#[test]
fn what_a_shell_string_or_a_module_runs_is_part_of_the_gate() {
    const INDIRECT: &str = r#"[settings]
allow = ["sh", "python3"]

[[check]]
name = "shell"
run = ["sh", "-c", "scripts/lint.sh --strict src/a.txt"]

[[check]]
name = "sourced"
run = ["sh", "-c", ". ./env.sh && lint.sh"]

[[check]]
name = "module"
run = ["python3", "-m", "tools.lint"]
"#;
    let outside = tempfile::tempdir().unwrap();
    let trusted = outside.path().join("checks.toml");
    std::fs::write(&trusted, INDIRECT).unwrap();
    for config in [Some(trusted.to_str().unwrap()), None] {
        let test = Test::new()
            .config(INDIRECT)
            .file(".gitignore", "runs/\n")
            .file("src/a.txt", "a\n")
            .script("scripts/lint.sh", FAILING)
            .script("lint.sh", FAILING)
            .file("env.sh", "PATH=\"$PWD:$PATH\"\n")
            .file("tools/__init__.py", "")
            .file("tools/lint.py", "import sys\nsys.exit(1)\n");
        git(test.path(), &["add", "."]);
        git(test.path(), &["commit", "-q", "-m", "base"]);
        std::fs::create_dir(test.path().join("runs")).unwrap();
        let args: Vec<&str> = config.iter().flat_map(|c| ["--config", c]).collect();
        let run = strict(test, &args).status(1);
        assert_eq!(check(&evidence(&run), "shell")["status"], "fail");
        assert_eq!(check(&evidence(&run), "sourced")["status"], "fail");
        assert_eq!(check(&evidence(&run), "module")["status"], "fail");
        assert_eq!(
            *gate(&evidence(&run)),
            json!({"changed": [], "base": "HEAD"})
        );
        let test = run
            .test
            .again()
            .script("scripts/lint.sh", WEAKENED)
            .script("lint.sh", WEAKENED)
            .file("tools/lint.py", "")
            .file("src/a.txt", "b\n");
        let run = strict(test, &args).success();
        let mut expected = vec!["lint.sh", "scripts/lint.sh", "src/a.txt", "tools/lint.py"];
        if config.is_none() {
            expected.retain(|f| *f != "src/a.txt");
        }
        assert_eq!(
            *gate(&evidence(&run)),
            json!({"changed": expected, "base": "HEAD"}),
            "config {config:?}"
        );
    }
}

#[test]
fn outside_git_there_is_no_gate() {
    let test = Test::bare().config(&without(&["lint", "style"]));
    std::fs::create_dir(test.path().join("runs")).unwrap();
    let run = strict(test, &[]).success();
    assert_eq!(*gate(&evidence(&run)), Value::Null);
}

/// docs/baseline.md's committed baseline, abused: the change adds a
/// finding and commits a baseline regenerated over it, so the check passes
/// by the baseline. Against `HEAD` nothing changed; against the base the
/// change is measured from (`--changed-since`), the baseline is a changed
/// gate file.
#[cfg(unix)]
#[test]
fn a_baseline_regenerated_and_committed_is_a_changed_gate_against_the_base() {
    let config = "[settings]\nallow = [\"./scripts/lint.sh\"]\n\n[[check]]\nname = \"lint\"\nrun = [\"./scripts/lint.sh\"]\nparser = \"gcc\"\n";
    let lint = "#!/bin/sh\ngrep -n BAD src/*.txt | while IFS=: read -r f n text; do echo \"$f:$n:1: error: $text\"; done\n! grep -q BAD src/*.txt\n";
    let baseline = "run-check-baseline.json";
    let test = Test::new()
        .config(config)
        .file(".gitignore", "runs/\n")
        .file("src/a.txt", "BAD old\n")
        .script("scripts/lint.sh", lint);
    let regenerate = |test: Test| {
        test.args(&["--format", "json", "--out", baseline, "--quiet"])
            .run()
            .status(1)
            .test
    };
    let test = regenerate(test);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    git(test.path(), &["tag", "base"]);
    std::fs::create_dir(test.path().join("runs")).unwrap();
    let test = regenerate(test.again().file("src/b.txt", "BAD new\n"));
    git(test.path(), &["add", "."]);
    git(
        test.path(),
        &["commit", "-q", "-m", "feature (and a fresh baseline)"],
    );
    // Against HEAD the commit hides it: the excuse is invisible.
    let run = strict(test.again(), &["--baseline", baseline]).success();
    let ev = evidence(&run);
    assert_eq!(ev["checks"][0]["baseline_suppressed"], 2);
    assert_eq!(*gate(&ev), json!({"changed": [], "base": "HEAD"}));
    // Against the base, the baseline is the gate's file that changed.
    let run = strict(
        run.test.again(),
        &["--baseline", baseline, "--changed-since", "base"],
    )
    .success();
    assert_eq!(
        *gate(&evidence(&run)),
        json!({"changed": [baseline], "base": "base"})
    );
    // So is it through a task's base, and undeclared it is a violation.
    let test = run
        .test
        .again()
        .file(TASK, &task(&["src/b.txt"], Some("base")));
    let run = strict(test, &["--baseline", baseline, "--task", TASK]).success();
    let ev = evidence(&run);
    assert_eq!(*gate(&ev), json!({"changed": [baseline], "base": "base"}));
    assert_eq!(
        ev["contracts"]["task"]["violations"],
        json!([{
            "field": "files_involved",
            "message": format!("the gate changed: `{baseline}` differs from `base` and is not listed")
        }])
    );
}

/// Shards of one run merge into one gate.
#[test]
fn merged_shards_keep_the_gate() {
    let test = repo().config(&without(&["lint", "style"]));
    let dir = test.path().to_path_buf();
    for (k, out) in [("1/2", "runs/s1.json"), ("2/2", "runs/s2.json")] {
        let status = std::process::Command::new(crate::support::bin())
            .args(["--shard", k, "--format", "json", "--out", out, "--quiet"])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.code().is_some());
    }
    let out = std::process::Command::new(crate::support::bin())
        .args(["merge", "runs/s1.json", "runs/s2.json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        merged["contracts"]["gate"],
        json!({"changed": ["checks.toml"], "base": "HEAD"})
    );
}

/// A program run through a symlink: editing the file it points to (inside
/// the worktree) changes the gate as much as editing the link.
#[cfg(unix)]
#[test]
fn the_file_a_symlinked_program_runs_is_part_of_the_gate() {
    let config = "[settings]\nallow = [\"./bin/lint\"]\n\n[[check]]\nname = \"lint\"\nrun = [\"./bin/lint\"]\n";
    let test = Test::new()
        .config(config)
        .file(".gitignore", "runs/\n")
        .script("scripts/real-lint.sh", FAILING);
    std::fs::create_dir(test.path().join("bin")).unwrap();
    std::os::unix::fs::symlink("../scripts/real-lint.sh", test.path().join("bin/lint")).unwrap();
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    std::fs::create_dir(test.path().join("runs")).unwrap();
    let run = strict(test, &[]).status(1);
    assert_eq!(gate(&evidence(&run))["changed"], json!([]));
    let test = run.test.again().script("scripts/real-lint.sh", WEAKENED);
    let run = strict(test, &[]).success();
    assert_eq!(
        gate(&evidence(&run))["changed"],
        json!(["scripts/real-lint.sh"])
    );
}

#[test]
fn a_gate_change_hidden_from_git_status_by_an_index_flag_is_listed() {
    // The candidate flags its config and script assume-unchanged or
    // skip-worktree before it edits them, so `git status` shows nothing.
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let test = repo();
        git(
            test.path(),
            &["update-index", flag, "checks.toml", "scripts/lint.sh"],
        );
        let test = test
            .config(&without(&["style"]))
            .script("scripts/lint.sh", WEAKENED);
        let status = std::process::Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(test.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&status.stdout), "", "{flag}");
        let run = strict(test, &[]).success();
        assert_eq!(
            gate(&evidence(&run))["changed"],
            json!(["checks.toml", "scripts/lint.sh"]),
            "{flag}"
        );
    }
}

/// Before the first commit there is no `HEAD` to compare the gate with:
/// no gate contract, and no "Gate changed against HEAD" line for a
/// newcomer's first run.
#[test]
fn before_the_first_commit_there_is_no_gate_to_compare() {
    let test = Test::bare().config(&without(&["lint", "style"]));
    git(test.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir(test.path().join("runs")).unwrap();
    let run = test
        .args(&["--mode", "strict", "--format", "text"])
        .run()
        .success();
    assert!(!run.stdout.contains("Gate changed"), "{}", run.stdout);
    let run = run
        .test
        .again()
        .args(&["--format", "json", "--out", "runs/ev.json"])
        .run()
        .success();
    let ev: Value = run.json_file("runs/ev.json");
    assert_eq!(ev["meta"]["git"]["commit"], Value::Null);
    assert_eq!(ev["contracts"]["gate"], Value::Null);
}

/// `[gate] files`: a check's script reads a rule file it imports by itself
/// (`tools/lint_rules.py`, named by no argument of the config). Without
/// the key the candidate that edits the rule to let everything pass, adds
/// a rule beside it and deletes another passes with `gate.changed []`;
/// with `[gate] files = ["tools/**"]` (in the worktree's config, or in a
/// trusted one outside) each of the three is a changed gate file.
#[test]
fn gate_files_declare_what_a_check_reads_indirectly() {
    const LINT: &str = "import sys\nsys.path.insert(0, 'tools')\nimport lint_rules\n\
                        sys.exit(0 if lint_rules.OK else 1)\n";
    let declared = "\n[gate]\nfiles = [\"tools/**\"]\n";
    let base = "[settings]\nallow = [\"python3\"]\n\n[[check]]\nname = \"lint\"\n\
                run = [\"python3\", \"scripts/lint.py\"]\n";
    let outside = tempfile::tempdir().unwrap();
    let trusted = outside.path().join("checks.toml");
    std::fs::write(&trusted, format!("{base}{declared}")).unwrap();
    let trusted = trusted.to_str().unwrap();
    for (config, args) in [
        (base.to_string(), vec![]),
        (format!("{base}{declared}"), vec![]),
        (base.to_string(), vec!["--config", trusted]),
    ] {
        let test = Test::new()
            .config(&config)
            .file(".gitignore", "runs/\n__pycache__/\n")
            .file("scripts/lint.py", LINT)
            .file("tools/lint_rules.py", "OK = False\n")
            .file("tools/old_rule.py", "STRICT = True\n");
        git(test.path(), &["add", "."]);
        git(test.path(), &["commit", "-q", "-m", "base"]);
        git(test.path(), &["tag", "base"]);
        std::fs::create_dir(test.path().join("runs")).unwrap();
        let run = strict(test, &args).status(1);
        assert_eq!(gate(&evidence(&run))["changed"], json!([]));
        // The attack: the rule edited and committed, one added, one deleted.
        let test = run.test.again().file("tools/lint_rules.py", "OK = True\n");
        git(test.path(), &["commit", "-q", "-am", "rules: relax"]);
        let test = test.file("tools/new_rule.py", "LOOSE = True\n");
        std::fs::remove_file(test.path().join("tools/old_rule.py")).unwrap();
        let mut with_base = args.clone();
        with_base.extend(["--changed-since", "base"]);
        let run = strict(test, &with_base).success();
        let ev = evidence(&run);
        assert_eq!(ev["summary"]["banner"], "All checks passed!");
        let expected: &[&str] = if config.contains("[gate]") || !args.is_empty() {
            &[
                "tools/lint_rules.py",
                "tools/new_rule.py",
                "tools/old_rule.py",
            ]
        } else {
            &[]
        };
        assert_eq!(
            *gate(&ev),
            json!({"changed": expected, "base": "base"}),
            "{config} {args:?}"
        );
    }
}
