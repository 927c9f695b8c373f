//! Property tests of the judge over generated evidence: whatever the
//! checks, diagnostics, scores, contracts and history, a red gate
//! (`summary.all_checks_passed` false) is never `PASS` nor `FINISH`, and the
//! verdict's three pointers (`route`, `decision.next_agent`, `next_action`)
//! never point two ways.
//!
//! `cargo test --lib judge::props` runs them (256 cases);
//! `PROPTEST_CASES=100000 cargo test --release --lib judge::props` searches
//! longer. A failure prints the smallest evidence found.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::history;
use super::input::Source;
use super::verdict::{DecisionKind, NextAgent, Recommendation};
use super::{Round, evaluate};
use crate::config::JudgeConfig;
use run_check_documents::evidence::Evidence;

/// One check: status, dimension, severity, a found score, a timeout, an error.
fn check() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("pass"), Just("fail"), Just("error"), Just("skip")],
        prop_oneof![Just("security"), Just("quality"), Just("performance")],
        prop_oneof![Just("critical"), Just("high"), Just("medium"), Just("low")],
        proptest::option::of(0.0f64..=100.0),
        any::<bool>(),
        prop_oneof![
            Just("program `ruff` not found on PATH"),
            Just("killed by SIGKILL"),
            Just("boom")
        ],
        proptest::option::of(prop_oneof![Just("completed"), Just("failed"), Just("OK")]),
    )
        .prop_map(
            |(status, dimension, severity, score, timed_out, error, claim)| {
                let mut c = json!({"status": status, "dimension": dimension, "severity": severity,
                    "timed_out": timed_out && status == "fail"});
                if let Some(score) = score {
                    c["score"] = json!(score);
                }
                if status == "error" {
                    c["error"] = json!(error);
                }
                if let Some(claim) = claim {
                    c["data"] = json!({"status": claim});
                }
                c
            },
        )
}

/// A diagnostic of check `c<n>` (or of run-check itself).
fn diagnostic() -> impl Strategy<Value = Value> {
    (
        0usize..6,
        prop_oneof![
            Just("error"),
            Just("warning"),
            Just("note"),
            Just("info"),
            Just("help")
        ],
        proptest::option::of(prop_oneof![Just("read-only"), Just("E501"), Just("unit")]),
        proptest::option::of(1u64..50),
    )
        .prop_map(|(n, severity, rule, line)| {
            let check = if n == 5 {
                "run-check".to_string()
            } else {
                format!("c{n}")
            };
            json!({"check": check, "file": line.map(|_| "src/a.rs"), "line": line,
                "column": null, "severity": severity, "rule": rule, "message": "m",
                "suggestion": null})
        })
}

/// Evidence of up to 5 checks and 8 diagnostics, with contracts; its
/// summary as the run would write it, except `all_checks_passed` and the
/// exit code, which are generated too (a red gate for a reason no check
/// shows, such as a task contract).
fn evidence() -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec(check(), 0..5),
        proptest::collection::vec(diagnostic(), 0..8),
        proptest::collection::vec(prop_oneof![Just("src/a.rs"), Just("x")], 0..2),
        proptest::collection::vec(prop_oneof![Just("checks.toml"), Just("t.sh")], 0..2),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(checks, diagnostics, modified, gate, exceeded, red)| {
            let checks: Vec<Value> = checks
                .into_iter()
                .enumerate()
                .map(|(n, mut c)| {
                    c["name"] = json!(format!("c{n}"));
                    c
                })
                .collect();
            let mut e = super::tests::evidence(json!(checks), json!(diagnostics));
            e["contracts"]["read_only"]["modified"] = json!(modified);
            e["contracts"]["gate"] = json!({"changed": gate, "base": "HEAD"});
            e["contracts"]["change_budget"] = json!({"base": "HEAD", "files_changed": 1,
                "loc_changed": 1, "max_files": 10, "max_loc": 400, "exceeded": exceeded});
            if red && e["summary"]["all_checks_passed"] == json!(true) {
                e["summary"]["all_checks_passed"] = json!(false);
                e["summary"]["exit_code"] = json!(1);
                e["summary"]["banner"] = json!("Task contract violated");
            }
            e
        })
}

/// Judges `value` after `history` (verdicts, oldest first).
fn judge(value: &Value, history: &[super::verdict::Verdict]) -> super::verdict::Verdict {
    let evidence = Evidence::from_value(value.clone()).expect("generated evidence reads");
    let lines: Vec<String> = history
        .iter()
        .map(|v| serde_json::to_string(v).unwrap())
        .collect();
    let rounds = history::parse(Path::new("h"), lines.join("\n").as_bytes()).unwrap();
    evaluate(&Round {
        source: &Source::Evidence(Box::new(evidence)),
        config: &JudgeConfig::default(),
        config_used: None,
        history: &rounds,
        retry: None,
        file: Path::new("ev.json"),
    })
    .expect("default thresholds judge any evidence")
    .0
}

proptest! {
    #[test]
    fn a_red_gate_is_never_a_pass_and_the_pointers_agree(
        rounds in proptest::collection::vec(evidence(), 1..5)
    ) {
        let mut history = Vec::new();
        for value in &rounds {
            let v = judge(value, &history);
            let green = value["summary"]["all_checks_passed"] == json!(true);
            if !green {
                prop_assert_ne!(v.recommendation, Recommendation::Pass);
                prop_assert!(!v.passed);
                prop_assert_ne!(v.route.next, NextAgent::Finish);
                prop_assert_ne!(v.decision.decision, DecisionKind::Pass);
            }
            prop_assert_eq!(v.decision.next_agent, v.route.next);
            prop_assert_eq!(&v.next_action, &v.route.action);
            prop_assert_eq!(
                v.recommendation == Recommendation::Pass,
                v.route.next == NextAgent::Finish
            );
            // Every issue has a distinct id.
            let mut ids: Vec<&str> = v.issues.all().map(|i| i.id.as_str()).collect();
            ids.sort_unstable();
            let n = ids.len();
            ids.dedup();
            prop_assert_eq!(ids.len(), n);
            // A modified path or changed gate is a Critical issue.
            let modified = value["contracts"]["read_only"]["modified"].as_array().unwrap();
            let gate = value["contracts"]["gate"]["changed"].as_array().unwrap();
            if !modified.is_empty() || !gate.is_empty() {
                prop_assert!(v.issue_counts.critical > 0);
            }
            history.push(v);
        }
    }
}
