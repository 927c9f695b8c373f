//! Workload L's task set (bench/feedback/tasks/) checked against the real
//! binary: every task's patch applies cleanly to its clean project and
//! changes exactly the lines its defects table lists; and on a task, the
//! hook, stop after stop, names a location of every defect, so an agent
//! that repairs one named defect per stop is let go green after as many
//! blocked stops as the task has defects. c-matrix needs gcc and make;
//! py-inventory the Python tools of scripts/install-test-tools.sh. The
//! whole set is run by `python3 bench/run.py --only L`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent_hooks::{CLAUDE, Reply, hook_with};
use crate::support::{git, repo_root, state_home, test_tool};

/// One defect of a task's table: the file and line the patch changes and
/// the locations a reader of the tools' output is sent to.
struct Defect {
    file: String,
    line: usize,
    at: Vec<String>,
}

fn defects(task: &Path) -> Vec<Defect> {
    let text = std::fs::read_to_string(task.join("defects.json")).unwrap();
    let table: Value = serde_json::from_str(&text).unwrap();
    table["defects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Defect {
            file: d["file"].as_str().unwrap().to_string(),
            line: usize::try_from(d["line"].as_u64().unwrap()).unwrap(),
            at: d["at"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect(),
        })
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// Where `location` first occurs in `text` as a whole location (`a.c:1`
/// is not found in `a.c:12`), if it does.
fn position(text: &str, location: &str) -> Option<usize> {
    text.match_indices(location)
        .find(|(at, _)| {
            !text[at + location.len()..].starts_with(|c: char| c.is_ascii_digit())
                && !text[..*at].ends_with(|c: char| c.is_alphanumeric() || c == '/')
        })
        .map(|(at, _)| at)
}

/// The task's clean project committed in a fresh repository (under `dir`)
/// with its patch applied, after checking that the patch applies cleanly
/// and changes exactly the lines the table lists.
fn patched(name: &str, dir: &Path) -> PathBuf {
    let task = tasks().join(name);
    let repo = dir.join(name);
    copy_tree(&task.join("clean"), &repo);
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "clean"]);
    let patch = task.join("defects.patch").display().to_string();
    git(&repo, &["apply", "--check", &patch]);
    git(&repo, &["apply", &patch]);
    let table = defects(&task);
    assert!((1..=6).contains(&table.len()), "{name}: 1-6 defects");
    let mut changed = 0;
    for file in git(&repo, &["diff", "--name-only"]).lines() {
        let (old, new) = (
            lines(&task.join("clean").join(file)),
            lines(&repo.join(file)),
        );
        assert_eq!(
            old.len(),
            new.len(),
            "{name}: the patch keeps {file}'s lines"
        );
        for (i, (a, b)) in old.iter().zip(&new).enumerate() {
            let listed = table.iter().any(|d| d.file == file && d.line == i + 1);
            assert_eq!(
                a != b,
                listed,
                "{name}: {file}:{} changed iff listed",
                i + 1
            );
            changed += usize::from(a != b);
        }
    }
    assert_eq!(changed, table.len(), "{name}: one changed line per defect");
    repo
}

fn tasks() -> PathBuf {
    repo_root().join("bench/feedback/tasks")
}

/// `agent hook claude EVENT` for the repository, with `path` first on PATH.
fn stop_or_start(repo: &Path, path: Option<&Path>, event: &str, continued: bool) -> Reply {
    let mut input = serde_json::json!({
        "session_id": "bench", "cwd": repo.display().to_string(),
        "hook_event_name": event, "transcript_path": repo.join("t.jsonl").display().to_string(),
    });
    if event == "Stop" {
        input["stop_hook_active"] = Value::Bool(continued);
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    let dirs = path
        .map(Path::to_path_buf)
        .into_iter()
        .chain(std::env::split_paths(&search));
    let search = PathBuf::from(std::env::join_paths(dirs).unwrap());
    let home = state_home(repo);
    let env: [(&str, &Path); 3] = [
        ("XDG_STATE_HOME", &home),
        ("CLAUDE_PROJECT_DIR", repo),
        ("PATH", &search),
    ];
    hook_with("claude", event, input.to_string().as_bytes(), repo, &env)
}

/// The patched task, stopped again and again by an agent that repairs, at
/// each block, the open defect whose location comes first in the reason
/// (restoring its one line from the clean project). Returns how many stops
/// were blocked; panics when a reason names no open defect.
fn repair_from_the_hook(name: &str, path: Option<&Path>) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let repo = patched(name, dir.path());
    // The session's base is the clean commit; the patch is the agent's work.
    assert!(
        stop_or_start(&repo, path, "SessionStart", false)
            .blocked(CLAUDE)
            .is_none()
    );
    let task = tasks().join(name);
    let table = defects(&task);
    let mut open: Vec<&Defect> = table.iter().collect();
    let mut blocks = 0;
    while let Some(reason) = stop_or_start(&repo, path, "Stop", blocks > 0).blocked(CLAUDE) {
        blocks += 1;
        assert!(
            blocks <= table.len(),
            "{name}: more blocks than defects:\n{reason}"
        );
        let named = open
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                d.at.iter()
                    .filter_map(|at| position(&reason, at))
                    .min()
                    .map(|p| (p, i))
            })
            .min();
        let Some((_, i)) = named else {
            panic!("{name}: stop {blocks} names none of the open defects' locations:\n{reason}");
        };
        let defect = open.remove(i);
        let file = repo.join(&defect.file);
        let mut text = lines(&file);
        text[defect.line - 1] =
            lines(&task.join("clean").join(&defect.file))[defect.line - 1].clone();
        std::fs::write(&file, text.join("\n")).unwrap();
    }
    assert!(
        open.is_empty(),
        "{name}: let go with {} defects open",
        open.len()
    );
    blocks
}

fn have(tool: &str) -> bool {
    let search = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&search).any(|dir| dir.join(tool).is_file());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "`{tool}` is missing"
        );
        eprintln!("SKIPPED (not a pass): `{tool}` not on PATH");
    }
    found
}

#[test]
fn every_task_patch_applies_and_changes_only_the_lines_its_table_lists() {
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(tasks())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for name in &names {
        let table = defects(&tasks().join(name));
        for d in &table {
            let own = format!("{}:{}", d.file, d.line);
            assert!(
                d.at.contains(&own) || d.at.contains(&d.file),
                "{name}: {own} is a key"
            );
        }
        patched(name, dir.path());
    }
}

#[test]
fn c_matrix_is_green_after_one_blocked_stop_per_defect() {
    if !have("gcc") || !have("make") {
        return;
    }
    assert_eq!(repair_from_the_hook("c-matrix", None), 1);
}

#[test]
fn py_inventory_is_green_after_one_blocked_stop_per_defect() {
    let Some(bin) = test_tool("python/bin") else {
        return;
    };
    assert_eq!(repair_from_the_hook("py-inventory", Some(&bin)), 5);
}

/// The C tasks whose tests print their failures (`file:line:test:FAIL`) on
/// stdout while make adds one line on stderr: the feedback of a failure
/// without a parsed location must show stdout's last lines too, or the
/// reason names make's line, not the test's, and the agent is stuck.
#[test]
fn c_tasks_with_failing_tests_are_green_after_one_blocked_stop_per_defect() {
    for (name, count) in [("c-calc", 5), ("c-ringbuf", 4), ("c-strutil", 2)] {
        assert_eq!(repair_from_the_hook(name, None), count, "{name}");
    }
}
