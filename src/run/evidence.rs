//! The assembly of the evidence document (defined in the
//! `run-check-documents` crate) from a plan and its results. Nothing here
//! runs a process except through `meta`.

use std::time::{Duration, Instant};

use crate::run::meta::Meta;
use crate::run::plan::Plan;
use crate::run::runner::{CheckResult, collect_diagnostics};
use crate::time::millis;
use run_check_documents::exit_code;

pub(crate) use run_check_documents::evidence::{
    CheckRecord, Contracts, Diagnostic, Evidence, Mode, PASS_BANNER, ReadOnly, SCHEMA_VERSION,
    Status, summarize,
};

impl From<crate::config::Mode> for Mode {
    fn from(mode: crate::config::Mode) -> Mode {
        match mode {
            crate::config::Mode::Fast => Mode::Fast,
            crate::config::Mode::Strict => Mode::Strict,
        }
    }
}

/// Builds the document from a finished (or interrupted) run that started
/// at `run_started` and took `duration`.
#[allow(
    clippy::too_many_arguments,
    reason = "each is one part of the document, given by the run"
)]
pub(crate) fn assemble(
    plan: &Plan<'_>,
    results: &[CheckResult],
    meta: Meta,
    run_started: Instant,
    duration: Duration,
    interrupted: bool,
    read_only: ReadOnly,
    read_only_diagnostics: Vec<Diagnostic>,
) -> Evidence {
    let mut diagnostics = Vec::new();
    let checks: Vec<CheckRecord> = plan
        .checks
        .iter()
        .zip(results)
        .map(|(check, result)| {
            if let Some(hit) = &result.cached {
                let before = diagnostics.len();
                diagnostics.extend(hit.diagnostics.iter().cloned());
                if let Some(baseline) = &plan.baseline {
                    baseline.mark(&mut diagnostics[before..]);
                }
                return CheckRecord {
                    config_line: Some(check.config.table_line as u64),
                    diagnostics_count: diagnostics.len() - before,
                    ..hit.record.clone()
                };
            }
            let before = diagnostics.len();
            let dropped = collect_diagnostics(check, result, &plan.worktree, &mut diagnostics);
            if let Some(baseline) = &plan.baseline {
                baseline.mark(&mut diagnostics[before..]);
            }
            let (stdout_excerpt, stdout_bytes, out_cut) = excerpt_fields(result.stdout.as_ref());
            let (stderr_excerpt, stderr_bytes, err_cut) = excerpt_fields(result.stderr.as_ref());
            CheckRecord {
                name: check.name().to_string(),
                status: result.status,
                command: check.argv().to_vec(),
                program: check.program.as_ref().ok().map(|p| p.display().to_string()),
                dimension: check.config.dimension,
                severity: check.config.severity,
                exit_code: result.exit_code,
                duration_ms: millis(result.duration),
                timed_out: result.timed_out,
                stdout_excerpt,
                stderr_excerpt,
                stdout_bytes,
                stderr_bytes,
                excerpt_truncated: out_cut || err_cut,
                artifacts: result.artifacts.artifacts.clone(),
                diagnostics_count: diagnostics.len() - before,
                diagnostics_dropped: dropped,
                score: result.parsed.iter().find_map(|p| p.score),
                skip_reason: result.skip_reason.clone(),
                error: result.error.clone(),
                data: result.parsed.iter().filter_map(|p| p.data.clone()).fold(
                    serde_json::Map::new(),
                    |mut all, data| {
                        all.extend(data);
                        all
                    },
                ),
                leaked: result.leaked.clone(),
                config_line: Some(check.config.table_line as u64),
                started_ms: result
                    .started
                    .map(|at| millis(at.saturating_duration_since(run_started))),
                flaky: result.flaky,
                attempts: result.attempts(),
                attempt_log: result.attempt_log.clone(),
                baseline_suppressed: result.baseline_suppressed,
                cache: check.cache.clone(),
                remote: result.remote.clone(),
            }
        })
        .collect();
    let mut summary = summarize(&checks, millis(duration), interrupted, &read_only);
    let first_read_only = diagnostics.len();
    diagnostics.extend(read_only_diagnostics);
    if let Some(baseline) = &plan.baseline {
        summary.baseline = Some(baseline.path.clone());
        baseline.mark(&mut diagnostics[first_read_only..]);
    }
    Evidence {
        schema_version: SCHEMA_VERSION,
        meta,
        mode: plan.mode.into(),
        summary,
        checks,
        diagnostics,
        contracts: Contracts {
            read_only,
            task: None,
            change_budget: None,
            gate: None,
        },
    }
}

fn excerpt_fields(excerpt: Option<&crate::run::excerpt::Excerpt>) -> (String, u64, bool) {
    match excerpt {
        Some(e) => (e.render(), e.total(), e.truncated()),
        None => (String::new(), 0, false),
    }
}

/// Tests' shorthand for evidence: `partial` completed into a whole
/// document that every reader accepts. Missing members of the document,
/// `meta`, `summary`, `contracts` and each check and diagnostic are filled
/// in (a check passes with no output, a diagnostic is an error); the
/// summary, unless given, is that of the checks.
pub fn complete(partial: &serde_json::Value) -> serde_json::Value {
    use serde_json::{Value, json};
    fn fill(value: &mut Value, defaults: Value) {
        if let (Value::Object(value), Value::Object(defaults)) = (value, defaults) {
            for (key, default) in defaults {
                match value.get_mut(&key) {
                    Some(given) if given.is_object() && default.is_object() => fill(given, default),
                    Some(_) => {}
                    None => {
                        value.insert(key, default);
                    }
                }
            }
        }
    }
    let mut doc = partial.clone();
    let check = json!({
        "command": [], "program": null, "dimension": "quality", "severity": "high",
        "exit_code": null, "duration_ms": 0, "timed_out": false, "stdout_excerpt": "",
        "stderr_excerpt": "", "stdout_bytes": 0, "stderr_bytes": 0, "excerpt_truncated": false,
        "artifacts": [], "diagnostics_count": 0, "diagnostics_dropped": 0, "score": null,
        "skip_reason": null, "error": null, "data": {}, "leaked": [],
    });
    let diagnostic = json!({
        "check": "", "file": null, "line": null, "column": null, "severity": "error",
        "rule": null, "message": "", "suggestion": null,
    });
    for (key, defaults) in [("checks", check), ("diagnostics", diagnostic)] {
        if let Some(Value::Array(items)) = doc.get_mut(key) {
            for item in items {
                // A skipped or errored check says why.
                let why = match item["status"].as_str() {
                    Some("skip") => json!({"skip_reason": "not run"}),
                    Some("error") => json!({"error": "could not start"}),
                    _ => json!({}),
                };
                fill(item, why);
                fill(item, defaults.clone());
            }
        }
    }
    let statuses: Vec<String> = doc["checks"]
        .as_array()
        .map(|checks| {
            checks
                .iter()
                .filter_map(|c| c["status"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let count = |status: &str| statuses.iter().filter(|s| **s == status).count();
    let exit_code = if count("error") > 0 {
        exit_code::ERROR
    } else if count("fail") > 0 {
        exit_code::FAIL
    } else {
        exit_code::PASS
    };
    fill(
        &mut doc,
        json!({
            "schema_version": SCHEMA_VERSION,
            "meta": {
                "tool": {"name": "run-check", "version": "0.1.0"},
                "timestamp": "2026-11-21T23:59:00Z",
                "platform": {"os": "linux", "arch": "x86_64", "os_version": null, "cpus": 2, "memory_bytes": 0},
                "cwd": "/w", "worktree": "/w",
                "git": {"commit": null, "branch": null, "dirty": null},
                "config": {"path": "checks.toml", "sha256": "0".repeat(64)},
                "task": null, "argv": ["run-check"], "commands": [],
                "changes": null, "shard": null, "merged_from": null,
            },
            "mode": "strict",
            "summary": {
                "all_checks_passed": exit_code == exit_code::PASS,
                "banner": if exit_code == exit_code::PASS { PASS_BANNER } else { "checks failed" },
                "duration_ms": 0, "total": statuses.len(), "passed": count("pass"),
                "failed": count("fail"), "errored": count("error"), "skipped": count("skip"),
                "exit_code": exit_code,
            },
            "checks": [],
            "diagnostics": [],
            "contracts": {
                "read_only": {"verified": false, "modified": [], "error": null},
                "task": null, "change_budget": null, "gate": null,
            },
        }),
    );
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Dimension, Severity};

    fn record(name: &str, status: Status) -> CheckRecord {
        CheckRecord {
            name: name.into(),
            status,
            command: vec![],
            program: None,
            dimension: Dimension::Quality,
            severity: Severity::High,
            exit_code: None,
            duration_ms: 0,
            timed_out: false,
            stdout_excerpt: String::new(),
            stderr_excerpt: String::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            excerpt_truncated: false,
            artifacts: vec![],
            diagnostics_count: 0,
            diagnostics_dropped: 0,
            score: None,
            skip_reason: None,
            error: None,
            data: Default::default(),
            leaked: vec![],
            config_line: None,
            started_ms: None,
            flaky: false,
            attempts: 1,
            attempt_log: Vec::new(),
            baseline_suppressed: 0,
            cache: Default::default(),
            remote: None,
        }
    }

    #[test]
    fn pass_needs_every_check_passed_or_skipped() {
        let s = summarize(
            &[record("a", Status::Pass), record("b", Status::Skip)],
            5,
            false,
            &ReadOnly::off(),
        );
        assert!(s.all_checks_passed);
        assert_eq!(s.banner, "All checks passed!");
        assert_eq!((s.total, s.passed, s.skipped, s.exit_code), (2, 1, 1, 0));
    }

    #[test]
    fn failures_and_errors_name_the_checks() {
        let checks = [
            record("a", Status::Fail),
            record("b", Status::Pass),
            record("c", Status::Fail),
            record("d", Status::Error),
            record("e", Status::Skip),
        ];
        let s = summarize(&checks, 0, false, &ReadOnly::off());
        assert!(!s.all_checks_passed);
        assert_eq!(
            s.banner,
            "2 of 5 checks failed: a, c; 1 of 5 checks errored: d"
        );
        assert_eq!(s.exit_code, 2);
        let s = summarize(&checks[..3], 0, false, &ReadOnly::off());
        assert_eq!(s.banner, "2 of 3 checks failed: a, c");
        assert_eq!(s.exit_code, 1);
    }

    #[test]
    fn interrupted_runs_exit_130() {
        let s = summarize(
            &[record("a", Status::Pass), record("b", Status::Skip)],
            0,
            true,
            &ReadOnly::off(),
        );
        assert_eq!(s.exit_code, 130);
        assert!(!s.all_checks_passed);
        assert_eq!(s.banner, "Interrupted: 1 of 2 checks finished");
    }

    #[test]
    fn a_modified_worktree_fails_the_run_with_its_banner() {
        let modified = ReadOnly {
            verified: true,
            modified: vec!["src/a.rs".into()],
            error: None,
        };
        let s = summarize(&[record("a", Status::Pass)], 0, false, &modified);
        assert_eq!((s.exit_code, s.all_checks_passed), (1, false));
        assert_eq!(s.banner, "Workspace modified by checks");
        let s = summarize(&[record("a", Status::Fail)], 0, false, &modified);
        assert_eq!(
            s.banner,
            "Workspace modified by checks; 1 of 1 checks failed: a"
        );
        let broken = ReadOnly {
            verified: false,
            modified: vec![],
            error: Some("`git status` failed".into()),
        };
        let s = summarize(&[record("a", Status::Pass)], 0, false, &broken);
        assert_eq!(s.exit_code, 2);
        assert_eq!(
            s.banner,
            "read-only verification failed: `git status` failed"
        );
    }
}
