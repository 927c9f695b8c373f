//! Artifacts end to end (docs/checks-toml.md, docs/evidence.md): a check's `artifacts` globs
//! are recorded in its evidence entry with size and sha256, and JUnit XML and
//! SARIF files among them become diagnostics of that check.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support::{Test, check};

/// A fixture captured from a real tool (see tests/fixtures/artifacts/README.md).
fn fixture(name: &str) -> String {
    let path = crate::support::repo_root()
        .join("tests/fixtures/artifacts")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn diagnostics_of<'a>(ev: &'a Value, name: &str) -> Vec<&'a Value> {
    ev["diagnostics"]
        .as_array()
        .expect("diagnostics array")
        .iter()
        .filter(|d| d["check"] == name)
        .collect()
}

fn config(run: &str, artifacts: &str) -> String {
    format!(
        "version = 1\n[settings]\nallow = [\"sh\", \"true\"]\n\
         [[check]]\nname = \"tests\"\nrun = {run}\nartifacts = {artifacts}\n"
    )
}

#[test]
fn an_existing_junit_report_is_recorded_and_its_failures_become_diagnostics() {
    let junit = fixture("pytest-junit.xml");
    let run = Test::new()
        .file("reports/junit.xml", &junit)
        .file("reports/nested/other.xml", &junit)
        .file("reports/notes.txt", "not a report")
        .config(&config(r#"["sh", "-c", "exit 1"]"#, r#"["reports/*.xml"]"#))
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let ev = run.json_file("ev.json");
    let tests = check(&ev, "tests");
    // `*` does not cross `/`: only reports/junit.xml.
    let artifacts = tests["artifacts"].as_array().expect("artifacts array");
    assert_eq!(artifacts.len(), 1, "{artifacts:?}");
    assert_eq!(artifacts[0]["path"], "reports/junit.xml");
    assert_eq!(artifacts[0]["bytes"], junit.len() as u64);
    assert_eq!(artifacts[0]["sha256"], sha256(&junit));

    let found = diagnostics_of(&ev, "tests");
    let rules: Vec<_> = found
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        rules,
        [
            "test_sample.test_add_fails",
            "test_sample.TestStrings.test_join_fails",
            "test_sample.test_uses_broken_fixture",
        ]
    );
    assert!(found.iter().all(|d| d["severity"] == "error"));
    assert_eq!(
        found[0]["message"],
        "assert 4 == 5\n +  where 4 = add(2, 2)"
    );
    assert_eq!(tests["diagnostics_count"], 3);
}

#[test]
fn junit_file_and_line_attributes_are_kept() {
    let run = Test::new()
        .file("out/junit.xml", &fixture("pytest-junit-xunit1.xml"))
        .config(&config(r#"["sh", "-c", "exit 1"]"#, r#"["out/junit.xml"]"#))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let found = diagnostics_of(&ev, "tests");
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0]["file"], "test_sample.py");
    // pytest writes the 0-based line of the test function; it is kept as written.
    assert_eq!(found[0]["line"], 11);
}

#[test]
fn sarif_results_keep_rule_level_and_location() {
    let test = Test::new();
    let root = test.path().canonicalize().unwrap();
    // ruff's real report, its absolute file:// URIs pointed into this worktree.
    let root_uri = root.to_string_lossy().replace('\\', "/");
    let root_uri = root_uri.trim_start_matches('/');
    let sarif = fixture("ruff.sarif").replace("file:///tmp/fx/", &format!("file:///{root_uri}/"));
    let run = test
        .file("reports/lint/ruff.sarif", &sarif)
        .file("reports/eslint.sarif", &fixture("eslint.sarif"))
        .config(&config(r#"["true"]"#, r#"["reports/**/*.sarif"]"#))
        .args(&["--format", "json"])
        .run();
    let ev = run.json_stdout();
    let tests = check(&ev, "tests");
    let paths: Vec<_> = tests["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["reports/eslint.sarif", "reports/lint/ruff.sarif"]);
    let found = diagnostics_of(&ev, "tests");
    assert_eq!(found.len(), 10, "{found:#?}");
    let eqeqeq = found
        .iter()
        .find(|d| d["rule"] == "eqeqeq")
        .expect("eqeqeq");
    assert_eq!(eqeqeq["severity"], "warning");
    assert_eq!(
        (eqeqeq["line"].as_u64(), eqeqeq["column"].as_u64()),
        (Some(3), Some(9))
    );
    let f821 = found.iter().find(|d| d["rule"] == "F821").expect("F821");
    assert_eq!(f821["severity"], "error");
    assert_eq!(f821["message"], "Undefined name `undefined_name`");
    assert_eq!(
        f821["file"], "lint/sample.py",
        "made relative to the worktree"
    );
    assert_eq!(f821["line"], 9);
    assert_eq!(f821["column"], 12);
    // Parsers only read: the check exited 0, so it passes, diagnostics or not.
    assert_eq!(tests["status"], "pass");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn an_artifact_the_check_writes_into_ignored_output_is_read_after_it_ran() {
    let junit = fixture("node-junit.xml");
    let run = Test::new()
        .file(".gitignore", "build/\n")
        .file("fixture.xml", &junit)
        .config(&config(
            r#"["sh", "-c", "mkdir -p build/test && cp fixture.xml build/test/junit.xml; exit 1"]"#,
            r#"["build/**/junit.xml"]"#,
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let tests = check(&ev, "tests");
    assert_eq!(tests["artifacts"][0]["path"], "build/test/junit.xml");
    assert_eq!(tests["artifacts"][0]["sha256"], sha256(&junit));
    let rules: Vec<_> = diagnostics_of(&ev, "tests")
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        rules,
        ["test.subtracts <wrong> & fails", "test.nested throws"]
    );
}

#[test]
fn malformed_and_unrelated_artifacts_are_recorded_without_diagnostics() {
    let run = Test::new()
        .file(
            "reports/broken.xml",
            "<testsuites><testcase name=\"x\"><failure",
        )
        .file(
            "reports/pom.xml",
            "<project><testcase name=\"x\"><failure/></testcase></project>",
        )
        .file(
            "reports/broken.sarif",
            "{\"version\": \"2.1.0\", \"runs\": [",
        )
        .file(
            "reports/package.json",
            "{\"name\": \"x\", \"version\": \"2.1.0\"}",
        )
        .config(&config(r#"["true"]"#, r#"["reports/*"]"#))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    let tests = check(&ev, "tests");
    assert_eq!(tests["status"], "pass");
    assert_eq!(tests["artifacts"].as_array().unwrap().len(), 4);
    assert!(diagnostics_of(&ev, "tests").is_empty());
}

#[test]
fn globs_that_match_nothing_record_nothing() {
    let run = Test::new()
        .config(&config(
            r#"["true"]"#,
            r#"["reports/*.xml", "target/nextest/default/junit.xml"]"#,
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "tests")["artifacts"], serde_json::json!([]));
}
