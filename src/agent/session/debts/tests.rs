use serde_json::{Value, json};

use super::*;

fn evidence(checks: Value, diagnostics: Value) -> Evidence {
    let value =
        crate::run::evidence::complete(&json!({"checks": checks, "diagnostics": diagnostics}));
    Evidence::from_value(value).unwrap()
}

fn bug(line: u64, new: Option<bool>) -> Value {
    let mut d = json!({"check": "lint", "file": "app.py", "line": line, "rule": "E1",
                       "message": format!("found a BUG marker ({line})")});
    if let Some(new) = new {
        d["new"] = json!(new);
    }
    d
}

fn ledger(dir: &Path) -> Ledger {
    serde_json::from_slice(&std::fs::read(dir.join(FILE)).unwrap()).unwrap()
}

#[test]
fn a_red_stop_owes_its_new_findings_and_a_new_baseline_excuses_none_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let red = evidence(
        json!([{"name": "lint", "status": "fail", "exit_code": 1}]),
        json!([bug(1, Some(false)), bug(2, Some(true))]),
    );
    record(dir.path(), "s1", &red, None).unwrap();
    let owed = &ledger(dir.path()).sessions["s1"].debts;
    assert_eq!(owed.len(), 1, "{owed:?}");
    assert!(
        matches!(&owed[0], Debt::Finding { count: 1, .. }),
        "{owed:?}"
    );

    // The next session's gate sees both: its baseline keeps the old one
    // only (numbers in the message are ignored, as --baseline does).
    let now = evidence(
        json!([{"name": "lint", "status": "fail", "exit_code": 1}]),
        json!([bug(1, None), bug(7, None)]),
    );
    let bytes = unexcused(dir.path(), now, b"unused".to_vec()).unwrap();
    let baseline = crate::json_input::evidence(Path::new("b.json"), &bytes).unwrap();
    assert_eq!(baseline.diagnostics.len(), 1, "{:?}", baseline.diagnostics);
    // Of two of one identity, the one at the line the debt was seen at.
    let again = evidence(
        json!([{"name": "lint", "status": "fail", "exit_code": 1}]),
        json!([bug(1, None), bug(2, None)]),
    );
    let bytes = unexcused(dir.path(), again, Vec::new()).unwrap();
    let baseline = crate::json_input::evidence(Path::new("b.json"), &bytes).unwrap();
    assert_eq!(baseline.diagnostics[0].line, Some(1));
    assert_eq!(baseline.checks[0].exit_code, Some(1));
}

#[test]
fn a_failure_no_diagnostic_locates_is_owed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let red = evidence(
        json!([{"name": "tests", "status": "fail", "exit_code": 1},
               {"name": "slow", "status": "fail", "exit_code": null, "timed_out": true}]),
        json!([]),
    );
    record(dir.path(), "s1", &red, None).unwrap();
    assert_eq!(
        ledger(dir.path()).sessions["s1"].debts,
        vec![Debt::Check {
            check: "tests".into()
        }]
    );
    let now = evidence(
        json!([{"name": "tests", "status": "fail", "exit_code": 1}]),
        json!([]),
    );
    let bytes = unexcused(dir.path(), now, Vec::new()).unwrap();
    let baseline = crate::json_input::evidence(Path::new("b.json"), &bytes).unwrap();
    assert_eq!(baseline.checks[0].exit_code, Some(0));
}

#[test]
fn a_passing_stop_pays_what_it_no_longer_shows_and_keeps_what_it_still_excuses() {
    let dir = tempfile::tempdir().unwrap();
    let red = |line| {
        evidence(
            json!([{"name": "lint", "status": "fail", "exit_code": 1}]),
            json!([bug(line, Some(true))]),
        )
    };
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    record(dir.path(), "s1", &red(1), None).unwrap();
    record(dir.path(), "s2", &red(1), None).unwrap();
    // s3 (started before both) passes with lint still failing, excused by
    // its own baseline: the debts stay.
    let excused = evidence(
        json!([{"name": "lint", "status": "pass", "exit_code": 1, "baseline_suppressed": 1}]),
        json!([bug(1, Some(false))]),
    );
    record(dir.path(), "s3", &excused, Some(before)).unwrap();
    assert_eq!(ledger(dir.path()).sessions.len(), 2);
    // s1 passes for real: everything is paid.
    let green = evidence(
        json!([{"name": "lint", "status": "pass", "exit_code": 0}]),
        json!([]),
    );
    record(dir.path(), "s1", &green, Some(before)).unwrap();
    assert!(ledger(dir.path()).sessions.is_empty());
    // A session started after a debt, passing with it excused: paid (its
    // baseline left the debt out, so the pass shows it gone).
    record(dir.path(), "s2", &red(1), None).unwrap();
    record(
        dir.path(),
        "s4",
        &excused,
        Some(std::time::SystemTime::now()),
    )
    .unwrap();
    assert!(ledger(dir.path()).sessions.is_empty());
    // Nothing owed: the baseline is the gate's bytes as they were.
    let bytes = unexcused(dir.path(), green, b"as printed".to_vec()).unwrap();
    assert_eq!(bytes, b"as printed");
}

#[cfg(unix)]
#[test]
fn a_debts_file_that_is_not_the_hooks_excuses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let green = evidence(
        json!([{"name": "lint", "status": "pass", "exit_code": 0}]),
        json!([]),
    );
    for planted in ["{\"version\": 1}", "[]"] {
        std::fs::write(dir.path().join(FILE), planted).unwrap();
        let why = unexcused(dir.path(), green.clone(), Vec::new()).unwrap_err();
        assert!(why.contains("debts"), "{why}");
    }
    std::fs::remove_file(dir.path().join(FILE)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join(FILE)).unwrap();
    let why = unexcused(dir.path(), green.clone(), Vec::new()).unwrap_err();
    assert!(why.contains("not a regular file"), "{why}");
    // A stop replaces it with the hook's own.
    record(dir.path(), "s1", &green, None).unwrap();
    assert!(ledger(dir.path()).sessions.is_empty());
}
