//! The result cache attacked as the code under test would attack it
//! (docs/cache.md, THREAT_MODEL.md "Result cache"): a file hidden by an
//! ignore rule that shadows a module, a `version` command that leaves a
//! process behind to edit the worktree later or edits it at once, and a
//! store folder that is a link into the worktree. Each test plays the
//! attack on a committed repository with the local store in a temp folder
//! (`XDG_CACHE_HOME`); the remote's side is in `cache_remote.rs`.

#![cfg(unix)]

use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

#[cfg(target_os = "linux")]
use crate::support::wait_until;
use crate::support::{Test, check, git};

/// `shadow.sh`: what an import sees. It fails when the package
/// `src/calc/` exists beside the module `src/calc.py`, as Python would
/// import the package (a shadowing `__init__.py`) instead of the module.
const SHADOW: &str = "#!/bin/sh\nif [ -e src/calc/__init__.py ]; then echo 'calc is the shadow package'; exit 1; fi\necho 'calc is src/calc.py'\n";

/// Two cached checks that see the shadow: one keyed on every file (no
/// `inputs` nor `paths`), one on `inputs`.
const SHADOWED: &str = r#"
[settings]
allow = ["./shadow.sh"]

[[check]]
name = "every-file"
run = ["./shadow.sh"]
modes = ["fast", "strict"]
cache = true
parser = "none"

[[check]]
name = "inputs"
run = ["./shadow.sh", "inputs"]
modes = ["fast", "strict"]
cache = true
inputs = ["src/**/*.py"]
parser = "none"
"#;

/// A committed repository with `config`, `src/calc.py` and `shadow.sh`,
/// its store in `side/cache`.
fn repository(config: &str, side: &TempDir) -> Test {
    let test = Test::new()
        .config(config)
        .file("src/calc.py", "def add(a, b):\n    return a + b\n")
        .file(".gitignore", "ev.json\n")
        .script("shadow.sh", SHADOW)
        .env(
            "XDG_CACHE_HOME",
            &side.path().join("cache").display().to_string(),
        );
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test
}

fn side() -> TempDir {
    tempfile::Builder::new()
        .prefix("run-check-cache-attack-")
        .tempdir()
        .expect("tempdir")
}

/// Runs the gate with `args`, expecting `code`; the evidence.
#[track_caller]
fn gate(test: Test, args: &[&str], code: i32) -> (Test, Value) {
    let run = test
        .again()
        .args(&["--format", "json"])
        .args(args)
        .run()
        .status(code);
    let evidence = run.json_stdout();
    (run.test, evidence)
}

/// The two routes that hide a new `src/calc/__init__.py` from `git
/// status`: a `.gitignore` that ignores itself and the file, and
/// `.git/info/exclude`.
pub(crate) fn hide(route: &str, worktree: &Path) {
    std::fs::create_dir_all(worktree.join("src/calc")).unwrap();
    std::fs::write(
        worktree.join("src/calc/__init__.py"),
        "raise SystemExit(1)\n",
    )
    .unwrap();
    match route {
        "self-ignoring .gitignore" => std::fs::write(
            worktree.join("src/.gitignore"),
            ".gitignore\ncalc/__init__.py\n",
        )
        .unwrap(),
        ".git/info/exclude" => {
            let exclude = worktree.join(".git/info/exclude");
            let mut rules = std::fs::read_to_string(&exclude).unwrap_or_default();
            rules.push_str("src/calc/__init__.py\n");
            std::fs::write(&exclude, rules).unwrap();
        }
        other => panic!("no route {other}"),
    }
}

#[test]
fn a_shadow_hidden_by_an_ignore_rule_changes_the_key() {
    for route in ["self-ignoring .gitignore", ".git/info/exclude"] {
        let side = side();
        let test = repository(SHADOWED, &side);
        // The green commit's passes are stored.
        let (test, stored) = gate(test, &[], 0);
        for name in ["every-file", "inputs"] {
            assert_eq!(check(&stored, name)["cache"]["status"], "miss", "{route}");
        }
        hide(route, test.path());
        assert_eq!(
            git(test.path(), &["status", "--porcelain"]),
            "",
            "{route}: git status shows nothing"
        );
        // Without the cache the gate is red...
        let (test, fresh) = gate(test, &["--no-cache"], 1);
        assert_eq!(check(&fresh, "inputs")["status"], "fail", "{route}");
        // ...and a strict run that reads the store is red too: both keys
        // changed, both checks ran.
        let (_test, cached) = gate(test, &["--cache"], 1);
        for name in ["every-file", "inputs"] {
            let entry = check(&cached, name);
            assert_eq!(entry["status"], "fail", "{route}: {name}: {entry}");
            assert_eq!(entry["cache"]["status"], "miss", "{route}: {name}");
        }
    }
}

/// A `version` command that leaves a process behind, which edits
/// `src/calc.py` two seconds later (after the run ended with exit 0 and
/// `modified []`). It waits until that process has written its pid.
#[cfg(target_os = "linux")]
const DAEMON: &str = "#!/bin/sh\nsh -c 'echo $$ > \"$SIDE/daemon.pid\"; sleep 2; echo \"# edited later\" >> src/calc.py' >/dev/null 2>&1 &\nwhile [ ! -s \"$SIDE/daemon.pid\" ]; do sleep 0.01; done\necho 'tool 1.0'\n";

/// Whether process `pid` still runs (a zombie does not).
#[cfg(target_os = "linux")]
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

#[test]
#[cfg(target_os = "linux")]
fn nothing_a_version_command_starts_outlives_it() {
    let side = side();
    let config = format!("{SHADOWED}version = [\"./daemon.sh\"]\n").replace(
        "allow = [\"./shadow.sh\"]",
        "allow = [\"./shadow.sh\", \"./daemon.sh\"]",
    );
    let test = repository(&config, &side)
        .script("daemon.sh", DAEMON)
        .env("SIDE", &side.path().display().to_string());
    git(test.path(), &["add", "daemon.sh"]);
    git(test.path(), &["commit", "-q", "-m", "daemon"]);
    let before = std::fs::read_to_string(test.path().join("src/calc.py")).unwrap();
    let (test, evidence) = gate(test, &[], 0);
    assert_eq!(
        evidence["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    let pid = std::fs::read_to_string(side.path().join("daemon.pid")).expect("the daemon started");
    let pid = pid.trim();
    // Bounded: a daemon left alive would have written within it.
    assert!(
        wait_until(Duration::from_secs(30), || !alive(pid)),
        "the version command's daemon {pid} still runs"
    );
    assert_eq!(
        std::fs::read_to_string(test.path().join("src/calc.py")).unwrap(),
        before,
        "a process the version command started edited the worktree after the run"
    );
}

/// A `version` command that edits a file at once: a dirty file, whose
/// first snapshot must be taken before the keys are made.
const EDITOR: &str = "#!/bin/sh\necho '# edited by version' >> src/calc.py\necho 'tool 1.0'\n";

#[test]
fn a_version_command_runs_inside_the_read_only_window() {
    let side = side();
    let config = format!("{SHADOWED}version = [\"./editor.sh\"]\n").replace(
        "allow = [\"./shadow.sh\"]",
        "allow = [\"./shadow.sh\", \"./editor.sh\"]",
    );
    let test = repository(&config, &side).script("editor.sh", EDITOR);
    git(test.path(), &["add", "editor.sh"]);
    git(test.path(), &["commit", "-q", "-m", "editor"]);
    // Dirty before the run: the status lists it, the snapshot hashes it.
    std::fs::write(
        test.path().join("src/calc.py"),
        "def add(a, b):\n    return b + a\n",
    )
    .unwrap();
    let (_test, evidence) = gate(test, &[], 1);
    let modified = &evidence["contracts"]["read_only"]["modified"];
    assert_eq!(modified, &serde_json::json!(["src/calc.py"]), "{evidence}");
}

#[test]
fn a_store_folder_linked_into_the_worktree_is_refused() {
    let side = side();
    let link = side.path().join("store");
    let config = format!("[cache]\ndir = \"{}\"\n{SHADOWED}", link.display());
    let test = repository(&config, &side);
    let stash = test.path().join(".stash");
    std::fs::create_dir(&stash).unwrap();
    std::os::unix::fs::symlink(&stash, &link).unwrap();
    let run = test
        .again()
        .args(&["--format", "json", "--mode", "fast"])
        .run()
        .success();
    assert!(
        run.stderr.contains("is inside the worktree"),
        "{}",
        run.stderr
    );
    let evidence = run.json_stdout();
    assert_eq!(check(&evidence, "inputs")["cache"]["status"], "off");
    assert_eq!(files_under(&stash), Vec::<PathBuf>::new());
    assert_eq!(git(run.test.path(), &["status", "--porcelain"]), "");
}

/// A check that makes the store folder a link into the worktree while the
/// run runs (it passed the check at the start): nothing is stored there.
#[test]
fn a_store_folder_made_a_link_during_the_run_is_refused() {
    let side = side();
    let store = side.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let relink = format!(
        "#!/bin/sh\nrm -rf '{store}' && ln -s \"$PWD/.stash\" '{store}'\n",
        store = store.display()
    );
    let config = format!("[cache]\ndir = \"{}\"\n{SHADOWED}", store.display()).replace(
        "allow = [\"./shadow.sh\"]",
        "allow = [\"./shadow.sh\", \"./relink.sh\"]",
    ) + "\n[[check]]\nname = \"relink\"\nrun = [\"./relink.sh\"]\nmodes = [\"fast\"]\n";
    let test = repository(&config, &side).script("relink.sh", &relink);
    std::fs::create_dir(test.path().join(".stash")).unwrap();
    git(test.path(), &["add", "relink.sh"]);
    git(test.path(), &["commit", "-q", "-m", "relink"]);
    let run = test
        .again()
        .args(&["--format", "json", "--mode", "fast", "--jobs", "1"])
        .run()
        .success();
    assert!(
        std::fs::symlink_metadata(&store).is_ok_and(|m| m.file_type().is_symlink()),
        "the check relinked the store"
    );
    assert!(
        run.stderr.contains("is inside the worktree"),
        "{}",
        run.stderr
    );
    assert_eq!(
        files_under(&run.test.path().join(".stash")),
        Vec::<PathBuf>::new()
    );
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
