//! Reading one evidence document (SPEC section 6) into the summary the retry
//! state keeps. Only the fields the tracker needs are checked, but those
//! strictly: a document that is not evidence is an error naming the JSON
//! path, never a silent "failure".

use std::path::Path;

use serde_json::Value;

use super::json::Obj;
use super::state::{EvidenceSummary, Outcome};
use crate::error::Error;
use crate::evidence::{PASS_BANNER, SCHEMA_VERSION};
use crate::json_input::{Problem, parse_document};

/// Reads the evidence at `path` (`-`: stdin).
pub fn load(path: &Path) -> Result<EvidenceSummary, Error> {
    let (bytes, recorded) = if path.as_os_str() == "-" {
        let bytes = crate::bounded::read_from(std::io::stdin().lock(), None, crate::bounded::JSON)
            .map_err(|err| Error::io("read evidence from", Path::new("<stdin>"), err))?;
        (bytes, "-".to_string())
    } else {
        let bytes = crate::bounded::read(path, crate::bounded::JSON)
            .map_err(|err| Error::io("read evidence", path, err))?;
        // Absolute, so the state means the same whoever reads it later and
        // from wherever; symlinks are kept as named.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        (bytes, absolute.display().to_string())
    };
    let value = parse_document(path, &bytes)?;
    summarize(&value, recorded).map_err(|problem| problem.into_error(path, ""))
}

/// The summary of an evidence document; `path` is what to record as its path.
pub fn summarize(value: &Value, path: String) -> Result<EvidenceSummary, Problem> {
    let root = Obj::of(value, "$")?;
    root.version("evidence", SCHEMA_VERSION)?;
    let meta = Obj::of(root.get("meta")?, "$.meta")?;
    let timestamp = meta.str("timestamp")?.to_string();
    let summary = Obj::of(root.get("summary")?, "$.summary")?;
    let code = summary.int("exit_code")?;
    let outcome = Outcome::from_exit_code(code).ok_or_else(|| {
        Problem::new(
            "$.summary.exit_code",
            format!("expected 0 (PASS), 1 (FAIL), 2 (ERROR) or 130 (interrupted), found {code}"),
        )
    })?;
    let passed = summary.bool("all_checks_passed")?;
    let banner = summary.str("banner")?.to_string();
    // PASS is exactly all_checks_passed = true with the pass banner (SPEC
    // section 6): a document that contradicts itself is not evidence.
    if passed != (outcome == Outcome::Pass) {
        return Err(Problem::new(
            "$.summary.all_checks_passed",
            format!("is {passed} but summary.exit_code is {code}"),
        ));
    }
    if passed && banner != PASS_BANNER {
        return Err(Problem::new(
            "$.summary.banner",
            format!("a passing run's banner is {PASS_BANNER:?}, found {banner:?}"),
        ));
    }
    let mut failed_checks = Vec::new();
    let mut errored_checks = Vec::new();
    for (i, check) in root.array("checks")?.iter().enumerate() {
        let path = format!("$.checks[{i}]");
        let check = Obj::of(check, &path)?;
        let name = check.str("name")?;
        match check.word("status", &["pass", "fail", "error", "skip"])? {
            "fail" => failed_checks.push(name.to_string()),
            "error" => errored_checks.push(name.to_string()),
            _ => {}
        }
    }
    Ok(EvidenceSummary {
        path,
        banner,
        failed_checks,
        errored_checks,
        exit_code: outcome.exit_code(),
        outcome,
        timestamp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(code: i64) -> Value {
        json!({
            "schema_version": 1,
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
        })
    }

    #[track_caller]
    fn problem(value: &Value) -> String {
        let p = summarize(value, "ev.json".into()).unwrap_err();
        format!("{}: {}", p.path, p.message)
    }

    #[test]
    fn keeps_what_the_tracker_needs() {
        let s = summarize(&doc(1), "/abs/ev.json".into()).unwrap();
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
            assert_eq!(
                summarize(&doc(code), String::new()).unwrap().outcome,
                outcome
            );
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
