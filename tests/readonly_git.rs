//! What git decides for read-only verification cannot be shaped by the
//! code under test: run-check's git runs no filter program from any config
//! level or attributes file, a forged stat cache in the index hides no
//! edit, an ignore file that hides itself (and what it hides) is a change,
//! and so is a FIFO or socket a check leaves.

use std::path::{Path, PathBuf};

use crate::readonly::assert_modified;
use crate::support::{Test, check, git};

/// The original content of `src/a.py`, and the edit a check makes (same
/// size, so git must compare content, through the filter).
const ORIGINAL: &str = "print(1)\n";
const EDITED: &str = "print(2)\n";

/// A place outside the worktree: the filter's scripts and marker.
struct Outside {
    dir: tempfile::TempDir,
}

impl Outside {
    fn new() -> Outside {
        Outside {
            dir: tempfile::Builder::new()
                .prefix("run-check-outside-")
                .tempdir()
                .unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The file a filter creates when git runs it.
    fn marker(&self) -> PathBuf {
        self.path().join("filter-ran")
    }

    /// A clean filter that marks that it ran and answers the committed
    /// content whatever it is given (so git sees no edit).
    fn clean_filter(&self) -> String {
        std::fs::write(self.path().join("original"), ORIGINAL).unwrap();
        self.script(
            "clean.sh",
            &format!(
                "#!/bin/sh\ntouch '{}'\ncat >/dev/null\ncat '{}'\n",
                self.marker().display(),
                self.path().join("original").display()
            ),
        )
    }

    /// A long-running (`process`) filter that marks that it ran.
    fn process_filter(&self) -> String {
        self.script(
            "process.sh",
            &format!(
                "#!/bin/sh\ntouch '{}'\nsleep 30 &\nexit 0\n",
                self.marker().display()
            ),
        )
    }

    fn script(&self, name: &str, text: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = self.path().join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    fn assert_never_ran(&self) {
        assert!(
            !self.marker().exists(),
            "a filter ran: {}",
            self.marker().display()
        );
    }
}

/// A repository with `src/a.py` committed, and a check that edits it.
fn repo() -> Test {
    let test = Test::new().file("src/a.py", ORIGINAL);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test.config(&format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"printf '{}' > src/a.py\"]\n",
        EDITED.replace('\n', "\\\\n")
    ))
    .args(&["--format", "json", "--out", "ev.json"])
}

/// The gate failed, the edit named.
#[track_caller]
fn assert_edit_found(run: &crate::support::Run) {
    assert_modified(run, &["src/a.py"]);
}

#[test]
fn a_clean_filter_of_the_repository_never_runs_and_hides_no_edit() {
    let outside = Outside::new();
    let test = repo();
    let root = test.path().to_path_buf();
    git(
        &root,
        &["config", "filter.f.clean", &outside.clean_filter()],
    );
    git(&root, &["config", "filter.f.required", "true"]);
    // Committed attributes: no change of the run's.
    std::fs::write(root.join(".gitattributes"), "*.py filter=f\n").unwrap();
    git(
        &root,
        &["-c", "filter.f.clean=cat", "add", ".gitattributes"],
    );
    git(&root, &["commit", "-q", "-m", "attributes"]);
    // The filter works as the attacker meant: git itself sees no edit.
    std::fs::write(root.join("src/a.py"), EDITED).unwrap();
    assert_eq!(
        git(&root, &["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
    std::fs::write(root.join("src/a.py"), ORIGINAL).unwrap();
    git(
        &root,
        &["-c", "filter.f.clean=cat", "update-index", "--refresh"],
    );
    std::fs::remove_file(outside.marker()).unwrap();

    assert_edit_found(&test.run());
    outside.assert_never_ran();
}

#[test]
fn a_process_filter_given_by_info_attributes_never_runs() {
    let outside = Outside::new();
    let test = repo();
    let root = test.path().to_path_buf();
    git(
        &root,
        &["config", "filter.p.process", &outside.process_filter()],
    );
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(root.join(".git/info/attributes"), "*.py filter=p\n").unwrap();

    assert_edit_found(&test.run());
    outside.assert_never_ran();
}

#[test]
fn filters_of_the_global_and_xdg_config_never_run() {
    for variant in ["~/.gitconfig", "XDG"] {
        let outside = Outside::new();
        let home = outside.path().join("home");
        let xdg = outside.path().join("xdg");
        std::fs::create_dir_all(xdg.join("git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        if variant == "XDG" {
            // A process filter given to every `.py` by the XDG attributes.
            std::fs::write(
                xdg.join("git/config"),
                format!(
                    "[filter \"x\"]\n\tprocess = {}\n\trequired = true\n",
                    outside.process_filter()
                ),
            )
            .unwrap();
            std::fs::write(xdg.join("git/attributes"), "*.py filter=x\n").unwrap();
        } else {
            // A clean filter defined in an included file, given by
            // `core.attributesFile`.
            std::fs::write(
                home.join(".gitconfig"),
                "[include]\n\tpath = filters.inc\n[core]\n\tattributesFile = ~/attrs\n",
            )
            .unwrap();
            std::fs::write(
                home.join("filters.inc"),
                format!("[filter \"g\"]\n\tclean = {}\n", outside.clean_filter()),
            )
            .unwrap();
            std::fs::write(home.join("attrs"), "*.py filter=g\n").unwrap();
        }
        let test = repo()
            .env("HOME", &home.display().to_string())
            .env("XDG_CONFIG_HOME", &xdg.display().to_string());
        assert_edit_found(&test.run());
        outside.assert_never_ran();
    }
}

/// Rewrites the cached stat data of one entry of a version 2 index to
/// those of its file now, and the index's SHA-1 checksum after it, as an
/// attacker would (no re-hashing of the file).
const FORGE: &str = r#"import hashlib, os, struct, sys
path = sys.argv[1].encode()
data = bytearray(open(".git/index", "rb").read())
assert data[:4] == b"DIRC" and struct.unpack(">I", data[4:8])[0] == 2
count = struct.unpack(">I", data[8:12])[0]
pos = 12
for _ in range(count):
    flags = struct.unpack(">H", data[pos + 60:pos + 62])[0]
    name = bytes(data[pos + 62:pos + 62 + (flags & 0xFFF)])
    if name == path:
        st = os.lstat(path)
        fields = [int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime),
                  st.st_mtime_ns % 10**9, st.st_dev, st.st_ino]
        data[pos:pos + 24] = struct.pack(">6I", *[f & 0xFFFFFFFF for f in fields])
        data[pos + 28:pos + 40] = struct.pack(">3I", st.st_uid, st.st_gid, st.st_size)
    pos += (62 + (flags & 0xFFF) + 8) & ~7
data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
open(".git/index", "wb").write(bytes(data))
"#;

/// A repository whose check runs `script` (with `forge.py` beside the
/// worktree); `src/a.py` committed.
fn with_check(script: &str, outside: &Outside) -> Test {
    std::fs::write(outside.path().join("forge.py"), FORGE).unwrap();
    let script = script.replace(
        "FORGE",
        &outside.path().join("forge.py").display().to_string(),
    );
    let test = Test::new().file("src/a.py", ORIGINAL);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test.config(&format!(
        "[settings]\nallow = [\"sh\", \"python3\", \"git\"]\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"{script}\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"])
}

#[test]
fn an_edit_hidden_by_a_forged_stat_cache_is_found_by_content() {
    let outside = Outside::new();
    // Same size, then the file's new stat data written into its entry once
    // a second has passed (so the entry is not racy to git).
    let test = with_check(
        "printf 'print(2)\\\\n' > src/a.py; sleep 1.1; python3 FORGE src/a.py",
        &outside,
    );
    let run = test.run();
    assert_edit_found(&run);
    let root = run.test.path();
    // The forgery holds for git: it sees no edit.
    assert_eq!(
        git(root, &["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/a.py")).unwrap(),
        EDITED
    );
}

#[test]
fn a_stat_refresh_by_a_check_is_no_change() {
    let outside = Outside::new();
    // A check that touches a clean file and runs `git status`, which
    // refreshes the entry's stat data in the index: the content is the
    // blob's.
    let test = with_check(
        "sleep 1.1; touch src/a.py; git status --porcelain",
        &outside,
    );
    let root = test.path().to_path_buf();
    let before = std::fs::read(root.join(".git/index")).unwrap();
    let run = test.run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    // The check did refresh the index.
    assert_ne!(std::fs::read(root.join(".git/index")).unwrap(), before);
}

/// A repository with `src/a.py` committed, whose check runs `script`.
fn hiding(script: &str) -> Test {
    let test = Test::new().file("src/a.py", ORIGINAL);
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test.config(&format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"{script}\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"])
}

#[test]
fn a_new_gitignore_that_hides_itself_and_a_new_file_is_a_change() {
    let test = hiding("printf '*\\\\n' > src/.gitignore; echo x > src/conftest.py");
    let run = test.run();
    assert_modified(&run, &["src/.gitignore", "src/conftest.py"]);
    // git itself sees nothing.
    assert_eq!(
        git(run.test.path(), &["status", "--porcelain", "--", "src"]),
        ""
    );
}

#[test]
fn an_edited_gitignore_that_ignores_itself_is_a_change_with_what_it_newly_hides() {
    // Before the run: a `.gitignore` that ignores itself and the logs.
    let test = hiding("printf '*\\\\n' > src/.gitignore; echo x > src/conftest.py")
        .file("src/.gitignore", ".gitignore\n*.log\n")
        .file("src/old.log", "ignored before the run\n");
    assert_modified(&test.run(), &["src/.gitignore", "src/conftest.py"]);
}

#[test]
fn a_file_hidden_by_info_exclude_is_a_change() {
    let test = hiding("echo src/conftest.py >> .git/info/exclude; echo x > src/conftest.py");
    assert_modified(&test.run(), &[".git/info/exclude", "src/conftest.py"]);
}

#[test]
fn a_gitattributes_that_ignores_itself_is_a_change() {
    let test = hiding("printf '.gitattributes\\\\n' > .gitignore; echo '* -text' > .gitattributes")
        .file(".gitignore", "");
    git(test.path(), &["add", ".gitignore"]);
    git(test.path(), &["commit", "-q", "-m", "ignore"]);
    assert_modified(&test.run(), &[".gitattributes", ".gitignore"]);
}

#[test]
fn a_fifo_or_socket_left_outside_git_is_a_change() {
    let test = Test::bare()
        .config(
            "[settings]\nallow = [\"sh\", \"python3\"]\n[[check]]\nname = \"writer\"\n\
             run = [\"sh\", \"-c\", \"mkfifo pipe; python3 -c 'import socket; \
             socket.socket(socket.AF_UNIX).bind(\\\"sock\\\")'\"]\n",
        )
        .args(&["--format", "json", "--out", "ev.json"]);
    assert_modified(&test.run(), &["pipe", "sock"]);
}

/// A repository with `src/a.py` committed and `target/` ignored, whose
/// check runs `script` (python3 allowed too).
fn special(script: &str) -> Test {
    let test = Test::new()
        .file("src/a.py", ORIGINAL)
        .file(".gitignore", "target/\nev.json\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "code"]);
    test.config(&format!(
        "[settings]\nallow = [\"sh\", \"python3\"]\n[[check]]\nname = \"writer\"\n\
         run = [\"sh\", \"-c\", \"{script}\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"])
}

/// The gate failed, exactly `paths` modified, each one `read-only`
/// diagnostic naming its creation (checks run in parallel: no culprit is
/// named); git lists none of them.
#[track_caller]
fn assert_created(run: &crate::support::Run, paths: &[&str]) {
    assert_modified(run, paths);
    let ev = run.json_file("ev.json");
    let diagnostics: Vec<(&str, &str, &str)> = ev["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "read-only")
        .map(|d| {
            (
                d["check"].as_str().unwrap(),
                d["file"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str, &str)> = paths
        .iter()
        // One check ran: the change is stamped within its run alone.
        .map(|path| ("writer", *path, "created by check `writer`"))
        .collect();
    assert_eq!(diagnostics, expected);
    let listed = git(run.test.path(), &["status", "--porcelain", "-uall"]);
    for path in paths {
        assert!(!listed.contains(path), "{listed}");
    }
}

#[test]
fn a_fifo_a_check_leaves_in_a_git_worktree_is_a_change() {
    let run = special("mkfifo src/p").run();
    assert_created(&run, &["src/p"]);
}

#[test]
fn a_socket_a_check_leaves_in_a_git_worktree_is_a_change() {
    let run = special(
        "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind(\\\"src/s.sock\\\")'",
    )
    .run();
    assert_created(&run, &["src/s.sock"]);
}

#[test]
fn a_fifo_in_a_folder_a_check_creates_is_a_change() {
    let run = special("mkdir -p src/d/e && mkfifo src/d/p src/d/e/q").run();
    assert_created(&run, &["src/d/e/q", "src/d/p"]);
}

#[test]
fn a_fifo_at_the_top_of_the_worktree_is_a_change() {
    let run = special("mkfifo top.pipe").run();
    assert_created(&run, &["top.pipe"]);
}

#[test]
fn a_fifo_in_an_ignored_folder_is_no_change() {
    let run = special("mkdir -p target/debug && mkfifo target/p target/debug/q").run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    // The check did leave them.
    let root = run.test.path();
    assert!(root.join("target/debug/q").exists());
}

#[test]
fn a_fifo_matched_by_an_ignore_pattern_is_no_change() {
    let run = special("mkfifo src/x.sock")
        .file("src/.gitignore", "*.sock\n")
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
}

#[test]
fn a_fifo_there_before_the_run_is_no_change_and_a_clean_run_passes() {
    let test = special("true");
    let status = std::process::Command::new("mkfifo")
        .arg(test.path().join("src/old"))
        .status()
        .unwrap();
    assert!(status.success());
    let run = test.run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "All checks passed!");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
    assert_eq!(check(&ev, "writer")["status"], "pass");
}

#[test]
fn a_fifo_left_by_one_of_checks_run_one_at_a_time_names_it() {
    let run = special("mkfifo src/p").args(&["--jobs", "1"]).run();
    assert_modified(&run, &["src/p"]);
    let ev = run.json_file("ev.json");
    let diagnostic = ev["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "read-only")
        .unwrap();
    assert_eq!(diagnostic["check"], "writer");
    assert_eq!(diagnostic["file"], "src/p");
    assert_eq!(diagnostic["message"], "created by check `writer`");
}

#[test]
fn a_fifo_beside_only_ignored_files_is_a_change() {
    // `logs/` holds no tracked and no untracked file git lists: only
    // ignored ones.
    let run = special("mkfifo logs/p")
        .file("logs/old.log", "ignored\n")
        .file(".git/info/exclude", "*.log\n")
        .run();
    assert_created(&run, &["logs/p"]);
}

#[test]
fn a_fifo_in_an_empty_folder_there_before_the_run_is_a_change() {
    // git lists nothing in `src/spool/` or `deep/a/b/` (empty folders), so
    // no listing names them; the FIFO moves only its own folder's change
    // time (not that of `src/`, which holds a tracked file).
    let test = special("mkfifo src/spool/p deep/a/b/q");
    for dir in ["src/spool", "deep/a/b"] {
        std::fs::create_dir_all(test.path().join(dir)).unwrap();
    }
    let run = test.run();
    assert_created(&run, &["deep/a/b/q", "src/spool/p"]);
}

#[test]
fn an_empty_folder_there_before_the_run_passes_untouched() {
    let test = special("true");
    std::fs::create_dir_all(test.path().join("spool/empty")).unwrap();
    let run = test.run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!([])
    );
}

#[test]
fn a_fifo_in_place_of_a_tracked_file_is_a_change_named_once() {
    let run = special("rm src/a.py && mkfifo src/a.py").run();
    assert_modified(&run, &["src/a.py"]);
    let ev = run.json_file("ev.json");
    let messages: Vec<&str> = ev["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "read-only")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["changed by check `writer`"]);
}
