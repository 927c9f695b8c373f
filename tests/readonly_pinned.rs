//! The repository's git settings cannot redefine "unchanged": with
//! `core.trustctime=false` (alone, or with `core.checkStat=minimal`) in its
//! `.git/config`, git trusts a file whose size and mtime a check kept, and
//! these tests play the code under test that sets them (one run earlier,
//! or before the gate runs) and then rewrites a file in place. The edit is
//! still found, the weakened gate still counts, and the cache does not
//! answer with the green commit's result.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::readonly::assert_modified;
use crate::support::{Test, bin, git};

/// A moment long before the test (`touch -t`): files are stamped with it
/// so that the index's record of them is not racy (git would read a file
/// stamped within the index's own second, whatever its settings).
const PAST: &str = "202001010000.00";

/// The original `src/a.py` and its same-size edit (`echo` adds the line
/// end).
const ORIGINAL: &str = "print(1)\n";

/// An in-place rewrite of `src/a.py` that keeps its size, inode and mtime:
/// only its ctime (and content) tell.
const IN_PLACE: &str = "echo 'print(2)' > src/a.py && touch -t 202001010000.00 src/a.py";

/// A git built without nanosecond timestamps (Debian's) compares whole
/// seconds of the ctime: an edit in the very second the index recorded
/// the file is beyond any setting (run-check verifies by content an entry
/// whose stat data a check refreshed, but not this). So each attack edits
/// a second after the file was last stamped, as one run after another
/// does.
fn next_second() {
    std::thread::sleep(std::time::Duration::from_millis(1100));
}

/// [`IN_PLACE`] a second after the stamp, as a check.
const IN_PLACE_LATER: &str =
    "sleep 1.1 && echo 'print(2)' > src/a.py && touch -t 202001010000.00 src/a.py";

/// Stamps `paths` with [`PAST`] and refreshes the index's record of them.
fn stamp_past(root: &Path, paths: &[&str]) {
    let status = Command::new("touch")
        .args(["-t", PAST])
        .args(paths)
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success());
    git(root, &["update-index", "--refresh"]);
}

/// `git status --porcelain` of tracked files, as git itself answers under
/// the repository's settings.
fn git_sees(root: &Path) -> String {
    git(root, &["status", "--porcelain", "--untracked-files=no"])
}

/// A committed repository with `src/a.py` and the checks `setter` (sets
/// `settings` in `.git/config`, as code under test can) and `writer` (the
/// in-place edit); `src/a.py` is stamped in the past.
fn repo(settings: &[(&str, &str)]) -> Test {
    let set: Vec<String> = settings
        .iter()
        .map(|(key, value)| format!("git config {key} {value}"))
        .collect();
    let config = format!(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"setter\"\n\
         run = [\"sh\", \"-c\", \"{}\"]\n\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"{IN_PLACE_LATER}\"]\n",
        set.join(" && ")
    );
    let test = Test::new()
        .file("src/a.py", ORIGINAL)
        .file(".gitignore", "ev.json\n")
        .config(&config);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    stamp_past(test.path(), &["src/a.py"]);
    test
}

/// The attack works against git itself: under the settings, the in-place
/// edit leaves `git status` empty. The file is put back (its stat data
/// too) for the gate's own run.
#[track_caller]
fn assert_git_is_blind(root: &Path) {
    let sh = |script: &str| {
        let status = Command::new("sh")
            .args(["-c", script])
            .current_dir(root)
            .status()
            .unwrap();
        assert!(status.success());
    };
    sh(IN_PLACE);
    assert_eq!(git_sees(root), "", "the settings did not blind git");
    sh("echo 'print(1)' > src/a.py && touch -t 202001010000.00 src/a.py");
}

fn strict(test: Test, only: &str) -> crate::support::Run {
    test.args(&["--only", only, "--format", "json", "--out", "ev.json"])
        .run()
}

/// A check sets the settings (its run fails on `.git/config`, and the
/// settings stay); in the next run another check rewrites a tracked file
/// in place, keeping its size and mtime: the edit is found, and the gate
/// says the repository's config relaxed what "unchanged" means.
#[test]
fn settings_a_check_left_in_an_earlier_run_hide_no_in_place_edit() {
    let test = repo(&[("core.trustctime", "false"), ("core.checkStat", "minimal")]);
    let run = strict(test, "setter");
    let ev = run.json_file("ev.json");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        json!([".git/config"])
    );
    assert_git_is_blind(run.test.path());
    let run = strict(run.test.again(), "writer");
    let ev = assert_modified(&run, &["src/a.py"]);
    assert_eq!(ev["contracts"]["gate"]["changed"], json!([".git/config"]));
}

#[test]
fn trustctime_false_alone_hides_no_in_place_write() {
    let test = repo(&[]);
    git(test.path(), &["config", "core.trustctime", "false"]);
    assert_git_is_blind(test.path());
    let run = strict(test, "writer");
    assert_modified(&run, &["src/a.py"]);
}

/// The agent weakens checks.toml in place (same size, mtime kept) under
/// the relaxed settings: `git status` shows nothing, the gate shows the
/// config and the settings.
#[test]
fn a_weakened_config_under_relaxed_settings_is_a_changed_gate() {
    const STRONG: &str = "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"lint\"\nrun = [\"sh\", \"-c\", \"exit 1\"]\n";
    let weak = STRONG.replace("exit 1", "exit 0");
    let test = Test::new().file(".gitignore", "ev.json\n").config(STRONG);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "gate"]);
    stamp_past(test.path(), &["checks.toml"]);
    git(test.path(), &["config", "core.trustctime", "false"]);
    git(test.path(), &["config", "core.checkStat", "minimal"]);
    next_second();
    std::fs::write(test.path().join("checks.toml"), &weak).unwrap();
    stamp_past(test.path(), &["checks.toml"]);
    assert_eq!(git_sees(test.path()), "", "the settings did not blind git");
    let run = test.args(&["--format", "json", "--out", "ev.json"]).run();
    let ev = run.json_file("ev.json");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        ev["contracts"]["gate"],
        json!({"changed": [".git/config", "checks.toml"], "base": "HEAD"})
    );
}

/// `candidates` with a trusted config that runs `scripts/lint.sh`: the
/// candidate relaxes the settings and rewrites the script in place to
/// pass. Its gate exits 0, and still the candidate is not passed: the
/// script and the settings are its changed gate.
#[test]
fn a_candidates_script_rewritten_under_relaxed_settings_does_not_pass() {
    const LINT: &str = "#!/bin/sh\ntest ! -f bug.txt\n";
    const WEAK: &str = "#!/bin/sh\nexit 0 # weakened\n";
    assert_eq!(LINT.len(), WEAK.len());
    let project = tempfile::Builder::new()
        .prefix("run-check-pinned-")
        .tempdir()
        .unwrap();
    let at = |name: &str| project.path().join(name);
    let repo = at("repo");
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    let checks = "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"lint\"\nrun = [\"sh\", \"scripts/lint.sh\"]\n";
    std::fs::write(repo.join("checks.toml"), checks).unwrap();
    std::fs::write(at("trusted.toml"), checks).unwrap();
    std::fs::write(repo.join("scripts/lint.sh"), LINT).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    let task = json!({
        "id": "T-1", "title": "Fix", "description": "bug.txt",
        "risk": "low", "parallel_count": 1,
        "acceptance": {"commands": ["run-check --mode strict --format json"],
                       "criteria": ["lint passes"]},
        "estimated_loc": 10, "files_involved": ["bug.txt"],
        "public_contracts_touched": "N/A", "base": "main"
    });
    std::fs::write(at("task.json"), task.to_string()).unwrap();
    let candidate = at("c1");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            candidate.to_str().unwrap(),
        ],
    );
    std::fs::write(candidate.join("bug.txt"), "bug\n").unwrap();
    stamp_past(&candidate, &["scripts/lint.sh"]);
    git(&candidate, &["config", "core.trustctime", "false"]);
    next_second();
    std::fs::write(candidate.join("scripts/lint.sh"), WEAK).unwrap();
    stamp_past(&candidate, &["scripts/lint.sh"]);
    assert_eq!(git_sees(&candidate), "", "the settings did not blind git");
    let out = Command::new(bin())
        .args(["candidates", "--task", "task.json", "--format", "json"])
        .args(["--config", "trusted.toml", "c1"])
        .current_dir(project.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let index: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &index["candidates"][0];
    assert_eq!(
        (&entry["exit_code"], &entry["passed"]),
        (&json!(0), &json!(false))
    );
    let text = std::fs::read_to_string(at("runs/T-1/c1/run-check.json")).unwrap();
    let evidence: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        evidence["contracts"]["gate"]["changed"],
        json!([".git/config", "scripts/lint.sh"])
    );
}

/// The result cache: a check passed and was stored; then the settings are
/// relaxed and `src/a.py` rewritten in place. The key is not the green
/// commit's, so the run misses and fails, as `--no-cache` does.
#[test]
fn a_cached_pass_is_not_reused_for_a_file_rewritten_under_relaxed_settings() {
    let side = tempfile::tempdir().unwrap();
    let config = "[settings]\nallow = [\"grep\"]\n\n[[check]]\nname = \"unit\"\n\
                  run = [\"grep\", \"-q\", \"print(1)\", \"src/a.py\"]\n\
                  modes = [\"fast\", \"strict\"]\ncache = true\n";
    let test = Test::new()
        .file("src/a.py", ORIGINAL)
        .file(".gitignore", "ev.json\n")
        .config(config)
        .env("XDG_CACHE_HOME", side.path().to_str().unwrap());
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    stamp_past(test.path(), &["src/a.py"]);
    let fast = ["--mode", "fast", "--format", "json", "--out", "ev.json"];
    let run = test.args(&fast).run().success();
    assert_eq!(
        run.json_file("ev.json")["checks"][0]["cache"]["status"],
        "miss"
    );
    let run = run.test.again().args(&fast).run().success();
    assert_eq!(
        run.json_file("ev.json")["checks"][0]["cache"]["status"],
        "hit"
    );
    let root = run.test.path().to_path_buf();
    git(&root, &["config", "core.trustctime", "false"]);
    git(&root, &["config", "core.checkStat", "minimal"]);
    next_second();
    let edit = Command::new("sh")
        .args(["-c", IN_PLACE])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(edit.success());
    assert_eq!(git_sees(&root), "", "the settings did not blind git");
    let run = run.test.again().args(&fast).run().status(1);
    let check = &run.json_file("ev.json")["checks"][0];
    assert_eq!(
        (&check["status"], &check["cache"]["status"]),
        (&json!("fail"), &json!("miss"))
    );
    let run = run.test.again().args(&fast).args(&["--no-cache"]).run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let run = run
        .test
        .again()
        .args(&["--cache", "--format", "json", "--out", "ev.json"])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
}
