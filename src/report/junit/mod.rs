//! The `junit` report: JUnit XML with one `<testsuite>` for the mode and one
//! `<testcase>` per check.
//!
//! ```xml
//! <?xml version="1.0" encoding="UTF-8"?>
//! <testsuites name="run-check" tests="3" failures="1" errors="0" skipped="1" time="1.234">
//!   <testsuite name="run-check strict" tests="3" failures="1" errors="0" skipped="1" time="1.234">
//!     <properties>…banner, exit_code, mode, run-check version, commit, branch, timestamp…</properties>
//!     <testcase name="clippy" classname="run-check.strict" time="0.812"/>
//!     <testcase name="test" classname="run-check.strict" time="2.000">
//!       <failure message="test failed (exit 101)" type="exit">excerpt + diagnostics</failure>
//!     </testcase>
//!     <testcase name="docs" classname="run-check.strict" time="0.000">
//!       <skipped message="needs `build` failed"/>
//!     </testcase>
//!   </testsuite>
//! </testsuites>
//! ```
//!
//! A check that ran more than once (`retries`) lists its earlier failed
//! attempts: `<flakyFailure>` inside a flaky check's testcase (passing, or
//! failing beside its `<failure>` under `settings.flaky = "fail"`),
//! `<rerunFailure>` beside the `<failure>` of one that failed every time.
//!
//! A failing run never renders as all-green: when the run did not pass but
//! no check failed (worktree modified, interrupted, read-only verification
//! error) or diagnostics belong to no check, one more testcase named
//! `run-check` carries the banner as its failure (exit 1) or error.

use std::fmt::Write;

use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence, Status};

pub(super) fn render(evidence: &Evidence) -> String {
    let s = &evidence.summary;
    let count = |status: Status| {
        evidence
            .checks
            .iter()
            .filter(|c| c.status == status)
            .count()
    };
    let extra = run_case(evidence);
    let (extra_failures, extra_errors) = match &extra {
        Some(case) if case.kind == "failure" => (1, 0),
        Some(_) => (0, 1),
        None => (0, 0),
    };
    let counts = format!(
        "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"",
        evidence.checks.len() + usize::from(extra.is_some()),
        count(Status::Fail) + extra_failures,
        count(Status::Error) + extra_errors,
        count(Status::Skip),
        seconds(s.duration_ms),
    );
    let classname = format!("run-check.{}", evidence.mode);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"run-check\" {counts}>");
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" {counts}>",
        attr(&format!("run-check {}", evidence.mode))
    );
    out.push_str("    <properties>\n");
    let meta = &evidence.meta;
    let properties = [
        ("banner", Some(s.banner.clone())),
        ("exit_code", Some(s.exit_code.to_string())),
        ("mode", Some(evidence.mode.to_string())),
        ("run-check.version", Some(meta.tool.version.clone())),
        ("timestamp", Some(meta.timestamp.clone())),
        ("commit", meta.git.commit.clone()),
        ("branch", meta.git.branch.clone()),
    ];
    for (name, value) in properties {
        if let Some(value) = value {
            let _ = writeln!(
                out,
                "      <property name=\"{name}\" value=\"{}\"/>",
                attr(&value)
            );
        }
    }
    out.push_str("    </properties>\n");
    for check in &evidence.checks {
        testcase(&mut out, check, &classname, evidence);
    }
    if let Some(case) = extra {
        let _ = writeln!(
            out,
            "    <testcase name=\"run-check\" classname=\"{}\" time=\"{}\">",
            attr(&classname),
            seconds(s.duration_ms)
        );
        let _ = writeln!(
            out,
            "      <{kind} message=\"{}\" type=\"run\">{}</{kind}>",
            attr(&s.banner),
            text(&case.body),
            kind = case.kind
        );
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

fn testcase(out: &mut String, check: &CheckRecord, classname: &str, evidence: &Evidence) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        attr(&check.name),
        attr(classname),
        seconds(if check.status == Status::Skip {
            0
        } else {
            check.duration_ms
        })
    );
    let diagnostics: Vec<&Diagnostic> =
        super::of_check(&evidence.diagnostics, &check.name).collect();
    match check.status {
        Status::Pass if check.attempt_log.len() > 1 => {
            out.push_str(">\n");
            earlier_attempts(out, check);
            out.push_str("    </testcase>\n");
        }
        Status::Pass => out.push_str("/>\n"),
        Status::Skip => {
            out.push_str(">\n");
            match &check.skip_reason {
                Some(reason) => {
                    let _ = writeln!(out, "      <skipped message=\"{}\"/>", attr(reason));
                }
                None => out.push_str("      <skipped/>\n"),
            }
            out.push_str("    </testcase>\n");
        }
        Status::Fail | Status::Error => {
            let (kind, message, kind_type) = if check.status == Status::Error {
                let why = check.error.clone().unwrap_or_else(|| "error".into());
                ("error", why, "error")
            } else if check.timed_out {
                (
                    "failure",
                    format!("{} timed out; process tree killed", check.name),
                    "timeout",
                )
            } else {
                let how = match check.exit_code {
                    Some(code) => format!("exit {code}"),
                    None => "no exit code".into(),
                };
                ("failure", format!("{} failed ({how})", check.name), "exit")
            };
            let _ = writeln!(
                out,
                ">\n      <{kind} message=\"{}\" type=\"{kind_type}\">{}</{kind}>",
                attr(&message),
                text(&failure_body(check, &diagnostics))
            );
            earlier_attempts(out, check);
            out.push_str("    </testcase>\n");
        }
    }
}

/// The failed attempts before a check's last one (`retries`), as nextest
/// and Maven Surefire write them: `<flakyFailure>` for a flaky check,
/// `<rerunFailure>` for one that failed every time; a message and a type
/// only, as the evidence keeps no output of an earlier attempt.
fn earlier_attempts(out: &mut String, check: &CheckRecord) {
    let Some((_, earlier)) = check.attempt_log.split_last() else {
        return;
    };
    let element = if check.flaky {
        "flakyFailure"
    } else {
        "rerunFailure"
    };
    let total = check.attempt_log.len();
    for (i, attempt) in earlier.iter().enumerate() {
        let kind_type = if attempt.timed_out { "timeout" } else { "exit" };
        let message = format!(
            "attempt {} of {total}: {} ({}s)",
            i + 1,
            super::attempts::attempt_ending(attempt),
            seconds(attempt.duration_ms)
        );
        let _ = writeln!(
            out,
            "      <{element} message=\"{}\" type=\"{kind_type}\"/>",
            attr(&message)
        );
    }
}

/// The excerpts (stdout's, then stderr's; each under a `--- name ---` line
/// when both are shown), then one line per diagnostic.
fn failure_body(check: &CheckRecord, diagnostics: &[&Diagnostic]) -> String {
    let mut body = String::new();
    for stream in super::streams(check) {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        if stream.labelled {
            let _ = writeln!(body, "--- {} ---", stream.name);
        }
        body.push_str(stream.text);
    }
    if !diagnostics.is_empty() {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        if !body.is_empty() {
            body.push('\n');
        }
        for d in diagnostics {
            body.push_str(&diagnostic_line(d));
            body.push('\n');
        }
        if check.diagnostics_dropped > 0 {
            let _ = writeln!(
                body,
                "… {} more diagnostics not listed",
                check.diagnostics_dropped
            );
        }
    }
    body
}

/// `file:line:col: severity: message [rule]`, the parts that are known.
fn diagnostic_line(d: &Diagnostic) -> String {
    let mut line = super::file_prefix(d);
    let _ = write!(line, "{}: {}", d.severity, d.message);
    if let Some(rule) = &d.rule {
        let _ = write!(line, " [{rule}]");
    }
    line
}

/// The extra `run-check` testcase, when the checks alone would not show why
/// the run did not pass.
struct RunCase {
    kind: &'static str,
    body: String,
}

fn run_case(evidence: &Evidence) -> Option<RunCase> {
    let s = &evidence.summary;
    if s.exit_code == 0 {
        return None;
    }
    let orphans: Vec<&Diagnostic> = evidence
        .diagnostics
        .iter()
        .filter(|d| !evidence.checks.iter().any(|c| c.name == d.check))
        .collect();
    let read_only = &evidence.contracts.read_only;
    let any_failed = evidence.checks.iter().any(|c| c.status.is_failure());
    if any_failed
        && orphans.is_empty()
        && read_only.modified.is_empty()
        && read_only.error.is_none()
    {
        return None;
    }
    let mut body = format!("{}\n", s.banner);
    for path in &read_only.modified {
        let _ = writeln!(body, "modified: {path}");
    }
    if let Some(why) = &read_only.error {
        let _ = writeln!(body, "read-only verification: {why}");
    }
    for d in orphans {
        body.push_str(&diagnostic_line(d));
        body.push('\n');
    }
    Some(RunCase {
        kind: if s.exit_code == 1 { "failure" } else { "error" },
        body,
    })
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Whether XML 1.0 allows the character at all.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Escapes element text; characters XML 1.0 forbids become U+FFFD.
fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A raw CR would be normalised away by the reader.
            '\r' => out.push_str("&#13;"),
            c if xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// Escapes a double-quoted attribute value; whitespace is written as
/// character references so attribute normalisation keeps it.
fn attr(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push_str(&text(&c.to_string())),
        }
    }
    out
}

/// An evidence document for the renderers' unit tests (shared by the
/// sibling report modules).
#[cfg(test)]
pub(super) mod sample {
    use run_check_documents::evidence::{Diagnostic, Evidence, Status};

    /// Five checks: `ok` passes, `lint` fails (exit 3, two diagnostics,
    /// nasty output), `unit` times out, `gone` errors, `later` is skipped.
    pub(crate) fn evidence() -> Evidence {
        let check = |name: &str, status: &str| {
            serde_json::json!({
                "name": name, "status": status, "command": ["sh"], "program": "/bin/sh",
                "dimension": "quality", "severity": "high", "exit_code": null,
                "duration_ms": 1500, "timed_out": false, "stdout_excerpt": "", "stderr_excerpt": "",
                "stdout_bytes": 0, "stderr_bytes": 0, "excerpt_truncated": false, "artifacts": [],
                "diagnostics_count": 0, "diagnostics_dropped": 0, "score": null, "skip_reason": null,
                "error": null, "data": {}
            })
        };
        let mut ok = check("ok", "pass");
        ok["exit_code"] = 0.into();
        ok["duration_ms"] = 812.into();
        let mut lint = check("lint", "fail");
        lint["exit_code"] = 3.into();
        lint["stderr_excerpt"] =
            "\u{1b}[31merror\u{1b}[0m: <bad> & \"worse\" ]]> \u{0}\u{7}\r\n```rust\n``` x\n".into();
        lint["diagnostics_count"] = 2.into();
        let mut unit = check("unit", "fail");
        unit["timed_out"] = true.into();
        unit["stdout_excerpt"] = "waiting…\n".into();
        let mut gone = check("gone", "error");
        gone["error"] = "program `zz` not found on PATH".into();
        let mut later = check("later", "skip");
        later["skip_reason"] = "needs `unit` failed".into();
        let value = serde_json::json!({
            "schema_version": 1,
            "meta": {
                "tool": {"name": "run-check", "version": "0.1.0"},
                "timestamp": "2026-11-21T23:59:00Z",
                "platform": {"os": "linux", "arch": "x86_64", "os_version": null, "cpus": 2, "memory_bytes": 1},
                "cwd": "/w", "worktree": "/w/my repo",
                "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "branch": "main", "dirty": false},
                "config": {"path": "checks.toml", "sha256": "0".repeat(64)},
                "task": null, "argv": ["run-check"], "commands": []
            },
            "mode": "strict",
            "summary": {
                "all_checks_passed": false,
                "banner": "2 of 5 checks failed: lint, unit; 1 of 5 checks errored: gone",
                "duration_ms": 2345, "total": 5, "passed": 1, "failed": 2, "errored": 1,
                "skipped": 1, "exit_code": 2
            },
            "checks": [ok, lint, unit, gone, later],
            "diagnostics": [],
            "contracts": {"read_only": {"verified": true, "modified": []}, "task": null, "change_budget": null}
        });
        let mut evidence: Evidence = serde_json::from_value(value).expect("sample evidence");
        evidence.diagnostics = vec![
            diagnostic(
                "lint",
                Some("src/a.c"),
                Some(3),
                Some(5),
                "error",
                None,
                "bad thing",
            ),
            diagnostic(
                "lint",
                Some("src/b,c:d.rs"),
                Some(1),
                None,
                "warning",
                Some("W:1"),
                "odd 100% message\nsecond | line",
            ),
        ];
        assert_eq!(evidence.checks[1].status, Status::Fail);
        evidence
    }

    /// A passing run of one check.
    pub(crate) fn passing() -> Evidence {
        let mut evidence = evidence();
        evidence.checks.truncate(1);
        evidence.diagnostics.clear();
        evidence.summary = run_check_documents::evidence::summarize(
            &evidence.checks,
            900,
            false,
            &evidence.contracts.read_only,
        );
        evidence
    }

    /// A diagnostic.
    pub(crate) fn diagnostic(
        check: &str,
        file: Option<&str>,
        line: Option<u64>,
        column: Option<u64>,
        severity: &str,
        rule: Option<&str>,
        message: &str,
    ) -> Diagnostic {
        Diagnostic {
            check: check.into(),
            file: file.map(Into::into),
            line,
            column,
            severity: run_check_documents::evidence::DiagSeverity::from_word(severity)
                .expect("a severity word"),
            rule: rule.map(Into::into),
            message: message.into(),
            suggestion: None,
            new: None,
        }
    }
}

#[cfg(test)]
mod tests;
