use super::super::junit::sample;
use super::*;

fn render_json(evidence: &Evidence) -> Value {
    serde_json::from_str(&render(evidence)).expect("valid JSON")
}

#[test]
fn one_run_with_the_tool_and_invocation() {
    let v = render_json(&sample::evidence());
    assert_eq!(v["$schema"], SCHEMA);
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"].as_array().unwrap().len(), 1);
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "run-check");
    assert_eq!(run["tool"]["driver"]["version"], "0.1.0");
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    assert_eq!(run["invocations"][0]["exitCode"], 2);
    assert_eq!(
        run["originalUriBaseIds"]["SRCROOT"]["uri"],
        "file:///w/my%20repo/"
    );
    assert_eq!(
        run["properties"]["banner"],
        sample::evidence().summary.banner
    );
}

#[test]
fn diagnostics_become_results_and_failing_checks_without_any_too() {
    let v = render_json(&sample::evidence());
    let run = &v["runs"][0];
    let results = run["results"].as_array().unwrap();
    let ids: Vec<_> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "run-check/lint",
            "run-check/lint/W:1",
            "run-check/unit",
            "run-check/gone"
        ]
    );
    let first = &results[0];
    assert_eq!(first["level"], "error");
    assert_eq!(first["message"]["text"], "bad thing");
    let location = &first["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/a.c");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "SRCROOT");
    assert_eq!(
        location["region"],
        serde_json::json!({"startLine": 3, "startColumn": 5})
    );
    assert_eq!(results[1]["level"], "warning");
    assert_eq!(
        results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/b%2Cc%3Ad.rs"
    );
    assert_eq!(
        results[1]["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 1})
    );
    assert_eq!(
        results[2]["message"]["text"],
        "unit timed out; process tree killed"
    );
    // No diagnostic: at the config (outside the worktree here, so an
    // absolute URI), at the check's `[[check]]` line, else its first.
    assert_eq!(
        results[2]["locations"][0]["physicalLocation"],
        serde_json::json!({
            "artifactLocation": {"uri": "file:///w/checks.toml"},
            "region": {"startLine": 1},
        })
    );
    assert_eq!(
        results[3]["message"]["text"],
        "gone errored: program `zz` not found on PATH"
    );
    // One rule per distinct id, and each result points at its own.
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 4);
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
    }
}

#[test]
fn levels_and_locations() {
    let mut evidence = sample::passing();
    evidence.diagnostics = ["error", "warning", "note", "info", "help"]
        .iter()
        .map(|s| sample::diagnostic("ok", None, Some(2), None, s, Some("r"), "m"))
        .collect();
    evidence.diagnostics.push(sample::diagnostic(
        "ok",
        Some("/elsewhere/x y.rs"),
        None,
        Some(4),
        "warning",
        None,
        "",
    ));
    evidence.diagnostics.push(sample::diagnostic(
        "ok",
        Some("C:\\src\\z.rs"),
        Some(1),
        Some(1),
        "error",
        None,
        "z",
    ));
    let v = render_json(&evidence);
    let results = v["runs"][0]["results"].as_array().unwrap();
    let levels: Vec<_> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(
        levels,
        [
            "error", "warning", "note", "note", "note", "warning", "error"
        ]
    );
    // No file: the check's table in the config (a line alone is not a
    // location: it is a line of the tool's file, not of the config).
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "file:///w/checks.toml"
    );
    let outside = &results[5]["locations"][0]["physicalLocation"];
    assert_eq!(
        outside["artifactLocation"]["uri"],
        "file:///elsewhere/x%20y.rs"
    );
    assert!(outside["artifactLocation"].get("uriBaseId").is_none());
    assert_eq!(
        outside["region"],
        serde_json::json!({"startLine": 1}),
        "no line: the file's first (GitHub needs a start line)"
    );
    assert_eq!(results[5]["ruleId"], "run-check/ok");
    assert_eq!(results[5]["message"]["text"], "(no message)");
    assert_eq!(
        results[6]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "file:///C:/src/z.rs"
    );
    assert_eq!(
        v["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_passing_run_has_no_results_and_a_failing_run_always_has_one() {
    let v = render_json(&sample::passing());
    assert_eq!(v["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
    let mut evidence = sample::passing();
    evidence.summary.all_checks_passed = false;
    evidence.summary.exit_code = 130;
    evidence.summary.banner = "Interrupted: 1 of 2 checks finished".into();
    let v = render_json(&evidence);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "run-check/run");
    assert_eq!(
        results[0]["message"]["text"],
        "Interrupted: 1 of 2 checks finished"
    );
}

#[test]
fn rendering_is_deterministic() {
    let evidence = sample::evidence();
    assert_eq!(render(&evidence), render(&evidence));
}
