//! How every human format shows a check that ran more than once
//! (`retries`): a flaky check (failed, then passed) apart from one that
//! failed every attempt, with how each earlier attempt ended.

use run_check_documents::evidence::{Attempt, CheckRecord, Status};

/// How one attempt ended, in a word or two.
pub(crate) fn attempt_ending(attempt: &Attempt) -> String {
    match (attempt.timed_out, attempt.exit_code) {
        (true, _) => "timed out".into(),
        (false, Some(code)) => format!("exit {code}"),
        (false, None) => "no exit code".into(),
    }
}

/// The note of a check that ran more than once; `None` when it ran once.
/// Flaky: "flaky: passed on attempt 2 after exit 1" (and ", counted as
/// failed (settings.flaky = "fail")" when it failed so); else "3 attempts:
/// exit 1, exit 1, timed out".
pub(crate) fn note(log: &[Attempt], flaky: bool, status: Status) -> Option<String> {
    if log.len() < 2 {
        return None;
    }
    let ends: Vec<String> = log.iter().map(attempt_ending).collect();
    if !flaky {
        return Some(format!("{} attempts: {}", log.len(), ends.join(", ")));
    }
    let earlier = ends[..ends.len() - 1].join(", ");
    let mut note = format!("flaky: passed on attempt {} after {earlier}", log.len());
    if status == Status::Fail {
        note.push_str(", counted as failed (settings.flaky = \"fail\")");
    }
    Some(note)
}

/// `ending` followed by the attempts' [`note`], `; ` between them.
pub(crate) fn with_note(ending: String, log: &[Attempt], flaky: bool, status: Status) -> String {
    match note(log, flaky, status) {
        None => ending,
        Some(note) if ending.is_empty() => note,
        Some(note) => format!("{ending}; {note}"),
    }
}

/// The flaky checks of a run, in evidence order.
pub(crate) fn flaky(checks: &[CheckRecord]) -> Vec<&CheckRecord> {
    checks.iter().filter(|c| c.flaky).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(exit_code: Option<i32>, timed_out: bool) -> Attempt {
        Attempt {
            exit_code,
            duration_ms: 1,
            timed_out,
        }
    }

    #[test]
    fn notes_tell_flaky_from_failing_every_time() {
        let once = [attempt(Some(1), false)];
        assert_eq!(note(&once, false, Status::Fail), None);
        assert_eq!(note(&[], false, Status::Pass), None);
        let flaky = [
            attempt(None, true),
            attempt(Some(1), false),
            attempt(Some(0), false),
        ];
        assert_eq!(
            note(&flaky, true, Status::Pass).as_deref(),
            Some("flaky: passed on attempt 3 after timed out, exit 1")
        );
        assert_eq!(
            with_note(String::new(), &flaky, true, Status::Fail),
            "flaky: passed on attempt 3 after timed out, exit 1, \
             counted as failed (settings.flaky = \"fail\")"
        );
        let failing = [attempt(Some(2), false), attempt(Some(1), false)];
        assert_eq!(
            with_note("exit 1".into(), &failing, false, Status::Fail),
            "exit 1; 2 attempts: exit 2, exit 1"
        );
    }
}
