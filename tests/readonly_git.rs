//! What git decides for read-only verification cannot be shaped by the
//! code under test: run-check's git runs no filter program from any config
//! level or attributes file, a forged stat cache in the index hides no
//! edit, an ignore file that hides itself (and what it hides) is a change,
//! and so is a FIFO or socket a check leaves.

use std::path::{Path, PathBuf};

use serde_json::Value;

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

/// Runs the gate: it fails, the edit named.
#[track_caller]
fn assert_edit_found(test: Test) -> Value {
    let run = test.run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let ev = run.json_file("ev.json");
    assert_eq!(ev["summary"]["banner"], "Workspace modified by checks");
    assert_eq!(ev["contracts"]["read_only"]["verified"], true);
    assert_eq!(
        ev["contracts"]["read_only"]["modified"],
        serde_json::json!(["src/a.py"])
    );
    assert_eq!(check(&ev, "writer")["status"], "pass");
    ev
}

#[test]
fn a_clean_filter_of_the_repository_never_runs_and_hides_no_edit() {
    let outside = Outside::new();
    let test = repo();
    let root = test.path().to_path_buf();
    git(&root, &["config", "filter.f.clean", &outside.clean_filter()]);
    git(&root, &["config", "filter.f.required", "true"]);
    // Committed attributes: no change of the run's.
    std::fs::write(root.join(".gitattributes"), "*.py filter=f\n").unwrap();
    git(&root, &["-c", "filter.f.clean=cat", "add", ".gitattributes"]);
    git(&root, &["commit", "-q", "-m", "attributes"]);
    // The filter works as the attacker meant: git itself sees no edit.
    std::fs::write(root.join("src/a.py"), EDITED).unwrap();
    assert_eq!(git(&root, &["status", "--porcelain", "--untracked-files=no"]), "");
    std::fs::write(root.join("src/a.py"), ORIGINAL).unwrap();
    git(&root, &["-c", "filter.f.clean=cat", "update-index", "--refresh"]);
    std::fs::remove_file(outside.marker()).unwrap();

    assert_edit_found(test);
    outside.assert_never_ran();
}

#[test]
fn a_process_filter_given_by_info_attributes_never_runs() {
    let outside = Outside::new();
    let test = repo();
    let root = test.path().to_path_buf();
    git(&root, &["config", "filter.p.process", &outside.process_filter()]);
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    std::fs::write(root.join(".git/info/attributes"), "*.py filter=p\n").unwrap();

    assert_edit_found(test);
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
        assert_edit_found(test);
        outside.assert_never_ran();
    }
}
