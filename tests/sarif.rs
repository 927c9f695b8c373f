//! The `sarif` report as GitHub's code scanning receives it: valid against
//! the SARIF 2.1.0 JSON Schema (tests/fixtures/sarif/), every result with a
//! location and a start line (GitHub rejects the whole file for one result
//! without), failures without a located diagnostic at their `[[check]]` line,
//! and, where the SARIF multitool is installed, no error of GitHub's upload
//! rules (`validate --rule-kind "Sarif;Gh;Ghas"`).

use serde_json::Value;

use crate::support::{Test, repo_root};

/// A passing check, a failing one that prints nothing, one with a located
/// error, one whose only diagnostic is a located warning, and one whose
/// diagnostic names no file. The `[[check]]` lines are 6, 11, 16, 22, 28.
const CONFIG: &str = r#"version = 1
[settings]
allow = ["sh", "false", "true"]

# passes
[[check]]
name = "ok"
run = ["true"]

# fails and prints nothing
[[check]]
name = "build"
run = ["false"]

# fails with a located error
[[check]]
name = "located"
run = ["sh", "-c", "echo 'src/a.c:3:5: error: bad thing' >&2; exit 1"]
parser = "gcc"

# fails with only a located warning
[[check]]
name = "warned"
run = ["sh", "-c", "echo 'src/b.c:7:2: warning: unused x' >&2; exit 2"]
parser = "gcc"

# fails with a diagnostic that names no file
[[check]]
name = "unlocated"
run = ["sh", "-c", "echo 'PROBLEM: the database is down'; exit 3"]
parser = "none"
[[check.matcher]]
regex = '^PROBLEM: (?P<message>.+)$'
"#;

fn sarif_of(test: Test) -> (Test, Value) {
    let run = test
        .args(&["--format", "sarif", "--out", "report.sarif"])
        .run()
        .status(1);
    let text = std::fs::read_to_string(run.test.path().join("report.sarif")).unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (run.test, value)
}

pub(crate) fn schema_valid(sarif: &Value) {
    let path = repo_root().join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let mut schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    // The published schema's pattern for `language` (of a run and of a
    // tool component) has a stray `]` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`),
    // which the validator's meta-schema check rejects as a regex; run-check
    // writes no `language`, so the test reads it as the language tag it means.
    let mut fixed = 0;
    for pointer in [
        "/definitions/run/properties/language/pattern",
        "/definitions/toolComponent/properties/language/pattern",
    ] {
        let language = schema.pointer_mut(pointer).expect(pointer);
        assert_eq!(language, "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$");
        *language = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
        fixed += 1;
    }
    assert_eq!(fixed, 2);
    let validator = jsonschema::draft7::new(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{sarif:#}");
}

/// `(ruleId, uri, startLine, startColumn)` of every result, asserting each
/// has exactly one location with a start line.
fn located(sarif: &Value) -> Vec<(String, String, u64, Option<u64>)> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let locations = r["locations"].as_array().unwrap_or_else(|| panic!("{r}"));
            assert_eq!(locations.len(), 1, "{r}");
            let physical = &locations[0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap().to_string(),
                physical["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                physical["region"]["startLine"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{r}")),
                physical["region"]["startColumn"].as_u64(),
            )
        })
        .collect()
}

#[test]
fn every_result_has_a_location_and_the_file_is_valid_sarif_2_1_0() {
    let (test, sarif) = sarif_of(Test::new().config(CONFIG));
    schema_valid(&sarif);
    let s = |x: &str| x.to_string();
    assert_eq!(
        located(&sarif),
        [
            // The diagnostics, where the tools put them...
            (s("run-check/located"), s("src/a.c"), 3, Some(5)),
            (s("run-check/warned"), s("src/b.c"), 7, Some(2)),
            // ...the one naming no file at its check's `[[check]]` line...
            (s("run-check/unlocated"), s("checks.toml"), 28, None),
            // ...and the failing checks without a located error, there too.
            (s("run-check/build"), s("checks.toml"), 11, None),
            (s("run-check/warned"), s("checks.toml"), 22, None),
            (s("run-check/unlocated"), s("checks.toml"), 28, None),
        ]
    );
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results[2]["message"]["text"], "the database is down");
    assert_eq!(results[3]["message"]["text"], "build failed (exit 1)");
    for result in results {
        let base = &result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"];
        assert_eq!(base, "SRCROOT", "{result}");
    }
    // Every rule says what it checks and how to fix it (GitHub requires a
    // full description and a help text).
    for rule in sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        for key in ["shortDescription", "fullDescription", "help"] {
            let text = rule[key]["text"].as_str().unwrap_or_default();
            assert!(!text.trim().is_empty(), "{key} of {rule}");
        }
    }
    multitool_finds_no_error(&test.path().join("report.sarif"));
}

#[test]
fn a_config_outside_the_worktree_root_and_older_evidence_still_locate() {
    // The config named from a subdirectory: the location is still
    // worktree-relative.
    let test = Test::new().file("gate/checks.toml", CONFIG);
    let run = test
        .args(&[
            "--config",
            "gate/checks.toml",
            "--format",
            "json",
            "--out",
            "ev.json",
        ])
        .run()
        .status(1);
    let dir = run.test.path().to_path_buf();
    let report = |evidence: &str| {
        let out = std::process::Command::new(crate::support::bin())
            .args(["report", evidence, "--format", "sarif"])
            .current_dir(&dir)
            .output()
            .unwrap();
        // `report` exits with the code of the run it renders.
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
        schema_valid(&sarif);
        sarif
    };
    let sarif = report("ev.json");
    let build = located(&sarif)
        .into_iter()
        .find(|(rule, ..)| rule == "run-check/build")
        .unwrap();
    assert_eq!((build.1.as_str(), build.2), ("gate/checks.toml", 11));

    // Evidence written before `config_line` existed: the config's first line.
    let mut evidence: Value =
        serde_json::from_slice(&std::fs::read(dir.join("ev.json")).unwrap()).unwrap();
    for check in evidence["checks"].as_array_mut().unwrap() {
        check.as_object_mut().unwrap().remove("config_line");
    }
    std::fs::write(dir.join("old.json"), evidence.to_string()).unwrap();
    let sarif = report("old.json");
    let build = located(&sarif)
        .into_iter()
        .find(|(rule, ..)| rule == "run-check/build")
        .unwrap();
    assert_eq!((build.1.as_str(), build.2), ("gate/checks.toml", 1));
}

#[test]
fn an_interrupted_run_without_any_failure_points_at_the_config() {
    // `report` of an evidence whose run did not pass but names no failing
    // check: the run's own result, at the config's first line.
    let config =
        "version = 1\n[settings]\nallow = [\"true\"]\n[[check]]\nname = \"ok\"\nrun = [\"true\"]\n";
    let run = Test::new()
        .config(config)
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(0);
    let path = run.test.path().join("ev.json");
    let mut evidence: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    evidence["summary"]["all_checks_passed"] = false.into();
    evidence["summary"]["exit_code"] = 130.into();
    evidence["summary"]["banner"] = "Interrupted: 1 of 1 checks finished".into();
    std::fs::write(&path, evidence.to_string()).unwrap();
    let out = std::process::Command::new(crate::support::bin())
        .args(["report", "ev.json", "--format", "sarif"])
        .current_dir(run.test.path())
        .output()
        .unwrap();
    let sarif: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    schema_valid(&sarif);
    assert_eq!(
        located(&sarif),
        [("run-check/run".into(), "checks.toml".into(), 1, None)]
    );
}

/// Microsoft's SARIF multitool, with GitHub's rule sets, reports no error.
/// Installed by scripts/install-test-tools.sh (Linux x86_64 only); missing,
/// the test fails (`support::missing`).
fn multitool_finds_no_error(sarif: &std::path::Path) {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return;
    }
    let tool = repo_root()
        .join(".tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    if !tool.exists() {
        crate::support::missing(&format!("{} is not installed", tool.display()));
        return;
    }
    let log = sarif.with_file_name("validation.sarif");
    let out = std::process::Command::new(&tool)
        .args(["validate", "--rule-kind", "Sarif;Gh;Ghas", "--output"])
        .arg(&log)
        .arg(sarif)
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // Its findings, as SARIF: no error-level one.
    let findings: Value = serde_json::from_slice(&std::fs::read(&log).unwrap()).unwrap();
    let errors: Vec<&Value> = findings["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{stdout}");
    // And it did read the file: the rules it ran are listed.
    assert!(stdout.contains("1 files scanned"), "{stdout}");
}

/// A gate as a newcomer writes one: headers with comments that hold
/// quotes, a check whose only diagnostic is a located warning, one that
/// prints nothing parseable, one with tool codes (ruff) and one whose
/// parser names its rule after the tool (black).
const FIRST_DAY: &str = r#"version = 1
[settings]
allow = ["sh"]

[[check]]  # ruff: the "lint" step
name = "ruff"
run = ["sh", "-c", "echo 'app.py:1:8: F401 [*] `os` imported but unused'; exit 1"]
parser = "auto"

[[check]]  # black's "format" step, don't write
name = "black"
run = ["sh", "-c", "echo 'would reformat app.py' >&2; exit 1"]
parser = "auto"

[[check]]  # the "unit" suite: prints nothing a parser reads
name = "pytest"
run = ["sh", "-c", "echo 'E   ImportError: no module named app'; exit 2"]
parser = "auto"

[[check]]  # 'warn' only
name = "mypy"
run = ["sh", "-c", "echo 'app.py:3: note: see here'; exit 1"]
parser = "auto"
"#;

/// A failing check with no located error is reported at its own
/// `[[check]]` line, whatever comment its header carries (a quote in it
/// once made the header invisible, and the check was placed at the one
/// before), never at another check's line or at another check's
/// diagnostic; `ruleId` is `run-check/<check>[/<rule>]` for every tool.
#[test]
fn a_failing_check_without_a_located_error_is_at_its_own_line() {
    let (test, sarif) = sarif_of(Test::new().config(FIRST_DAY));
    schema_valid(&sarif);
    let s = |x: &str| x.to_string();
    assert_eq!(
        located(&sarif),
        [
            (s("run-check/ruff/F401"), s("app.py"), 1, Some(8)),
            (s("run-check/black"), s("app.py"), 1, None),
            (s("run-check/mypy"), s("app.py"), 3, None),
            (s("run-check/pytest"), s("checks.toml"), 15, None),
            (s("run-check/mypy"), s("checks.toml"), 20, None),
        ]
    );
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    for result in results {
        let check = result["properties"]["check"].as_str().unwrap();
        assert!(
            result["ruleId"]
                .as_str()
                .unwrap()
                .starts_with(&format!("run-check/{check}")),
            "{result}"
        );
    }
    // The rule of a tool's code says the tool's code.
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let f401 = rules
        .iter()
        .find(|r| r["id"] == "run-check/ruff/F401")
        .unwrap();
    assert_eq!(
        f401["shortDescription"]["text"],
        "`F401`, reported by the check `ruff`"
    );
    multitool_finds_no_error(&test.path().join("report.sarif"));
}
