//! Reading one evidence document (docs/evidence.md) into the summary the retry
//! state keeps and the diagnostics a lesson shows, with the reader every
//! command uses (`json_input::evidence`): a document that is not evidence is
//! an error naming the JSON path, never a silent "failure".

use std::path::Path;

use super::lesson::Diagnostics;
use super::state::{EvidenceSummary, Outcome};
use crate::error::Error;
use run_check_documents::evidence::{Evidence, Status};

/// What [`load`] reads: the summary, the diagnostics a lesson would show,
/// and the config the evidence was made with when it is still there.
type Loaded = (
    EvidenceSummary,
    Diagnostics,
    Option<Result<crate::config::Config, Error>>,
);

/// Reads the evidence at `path` (`-`: stdin): its summary, the diagnostics
/// a lesson would show, and its config ([`crate::config::recorded`]).
pub(crate) fn load(path: &Path) -> Result<Loaded, Error> {
    let (_, bytes) = crate::bounded::read_input(path, "read evidence")?;
    let recorded = if path.as_os_str() == "-" {
        "-".to_string()
    } else {
        // Absolute, so the state means the same whoever reads it later and
        // from wherever; symlinks are kept as named.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        absolute.display().to_string()
    };
    let evidence = crate::json_input::evidence(path, &bytes)?;
    let diagnostics = Diagnostics::of(&evidence);
    let config = crate::config::recorded(&evidence.meta);
    Ok((summarize(evidence, recorded), diagnostics, config))
}

/// The summary of an evidence document; `path` is what to record as its path.
pub(crate) fn summarize(evidence: Evidence, path: String) -> EvidenceSummary {
    let names = |status: Status| -> Vec<String> {
        evidence
            .checks
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.name.clone())
            .collect()
    };
    let code = evidence.summary.exit_code;
    // `Evidence::check` admits exactly these codes.
    let outcome = Outcome::from_exit_code(i64::from(code)).unwrap_or(Outcome::Error);
    EvidenceSummary {
        path,
        failed_checks: names(Status::Fail),
        errored_checks: names(Status::Error),
        exit_code: outcome.exit_code(),
        outcome,
        timestamp: evidence.meta.timestamp,
        banner: evidence.summary.banner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use run_check_documents::evidence::PASS_BANNER;
    use serde_json::{Value, json};

    fn doc(code: i64) -> Value {
        crate::run::evidence::complete(&json!({
            "meta": {"timestamp": "2026-11-21T23:59:00Z"},
            "summary": {
                "all_checks_passed": code == 0,
                "banner": if code == 0 { PASS_BANNER } else { "1 of 3 checks failed: b" },
                "exit_code": code,
            },
            "checks": [
                {"name": "a", "status": "pass"},
                {"name": "b", "status": "fail"},
                {"name": "c", "status": "error"},
                {"name": "d", "status": "skip"},
            ],
        }))
    }

    fn read(value: &Value, path: &str) -> EvidenceSummary {
        summarize(Evidence::from_value(value.clone()).unwrap(), path.into())
    }

    /// The reader's problem with `value` (retry's reader is every command's).
    #[track_caller]
    fn problem(value: &Value) -> String {
        Evidence::from_value(value.clone()).unwrap_err().to_string()
    }

    #[test]
    fn keeps_what_the_tracker_needs() {
        let s = read(&doc(1), "/abs/ev.json");
        assert_eq!(s.path, "/abs/ev.json");
        assert_eq!(s.outcome, Outcome::Fail);
        assert_eq!(s.exit_code, 1);
        assert_eq!(s.failed_checks, ["b"]);
        assert_eq!(s.errored_checks, ["c"]);
        assert_eq!(s.timestamp, "2026-11-21T23:59:00Z");
        assert_eq!(s.banner, "1 of 3 checks failed: b");
        for (code, outcome) in [
            (0, Outcome::Pass),
            (2, Outcome::Error),
            (130, Outcome::Interrupted),
        ] {
            assert_eq!(read(&doc(code), "").outcome, outcome);
        }
    }

    #[test]
    fn what_is_not_evidence_names_the_json_path() {
        let mut v = doc(1);
        v["summary"].as_object_mut().unwrap().remove("exit_code");
        assert_eq!(problem(&v), "$.summary.exit_code: missing required field");
        let mut v = doc(1);
        v["summary"]["exit_code"] = json!("1");
        assert_eq!(
            problem(&v),
            "$.summary.exit_code: expected an integer, found string"
        );
        let mut v = doc(1);
        v["summary"]["exit_code"] = json!(3);
        assert_eq!(
            problem(&v),
            "$.summary.exit_code: expected 0 (PASS), 1 (FAIL), 2 (ERROR) or 130 (interrupted), found 3"
        );
        let mut v = doc(1);
        v["summary"]["all_checks_passed"] = json!(true);
        assert_eq!(
            problem(&v),
            "$.summary.all_checks_passed: is true but summary.exit_code is 1"
        );
        let mut v = doc(0);
        v["summary"]["banner"] = json!("ok");
        assert_eq!(
            problem(&v),
            "$.summary.banner: a passing run's banner is \"All checks passed!\", found \"ok\""
        );
        let mut v = doc(1);
        v["checks"][2]["status"] = json!("broken");
        assert_eq!(
            problem(&v),
            "$.checks[2].status: expected one of \"pass\", \"fail\", \"error\", \"skip\", found \"broken\""
        );
        let mut v = doc(1);
        v["schema_version"] = json!(2);
        assert_eq!(
            problem(&v),
            "$.schema_version: unsupported evidence version 2 (this run-check reads version 1)"
        );
        assert_eq!(problem(&json!([])), "$: expected an object, found array");
        let mut v = doc(1);
        v.as_object_mut().unwrap().remove("meta");
        assert_eq!(problem(&v), "$.meta: missing required field");
    }
}
