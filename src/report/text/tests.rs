use super::super::junit::sample;
use super::*;

#[test]
fn a_failing_check_shows_stdout_then_stderr() {
    let mut evidence = sample::evidence();
    // Without diagnostics, which are shown instead of the output.
    evidence.diagnostics.clear();
    evidence.checks[1].stdout_excerpt = (1..=20).map(|i| format!("out {i}\n")).collect();
    evidence.checks[1].stderr_excerpt = "DeprecationWarning: old api\n".into();
    let out = render(&evidence);
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| l.contains(" FAIL lint")).unwrap();
    let mut expected = vec!["      │ ── stdout ──".to_string()];
    expected.extend((9..=20).map(|i| format!("      │ out {i}")));
    expected.push("      │ ── stderr ──".into());
    expected.push("      │ DeprecationWarning: old api".into());
    assert_eq!(lines[at + 1..at + 1 + expected.len()], expected);
    // One stream alone has no label.
    let out = render(&evidence_without_lint_diagnostics());
    assert!(out.contains("      │ waiting…\n"), "{out}");
    assert!(!out.contains("── stdout ──") && !out.contains("── stderr ──"));
}

fn evidence_without_lint_diagnostics() -> Evidence {
    let mut evidence = sample::evidence();
    evidence.diagnostics.clear();
    evidence
}

/// The lines under the check named `name`, up to the next check's.
fn under(out: &str, name: &str) -> Vec<String> {
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap();
    lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("      "))
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn a_failing_check_with_diagnostics_shows_them_instead_of_its_output() {
    let out = render(&sample::evidence());
    assert_eq!(
        under(&out, "lint"),
        [
            "      src/a.c:3:5: error: bad thing",
            "      src/b,c:d.rs:1: warning[W:1]: odd 100% message",
        ]
    );
    assert!(!out.contains("│ \u{1b}") && !out.contains("<bad>"), "{out}");
    // Other checks' diagnostics and the read-only verification's are
    // not this check's: the output is shown.
    let mut evidence = sample::evidence();
    for d in &mut evidence.diagnostics {
        d.check = "unit".into();
    }
    evidence.diagnostics[0].rule = Some("read-only".into());
    evidence.diagnostics[0].check = "lint".into();
    let out = render(&evidence);
    // A warning does not explain a failure: the output's end follows.
    assert_eq!(
        under(&out, "unit"),
        [
            "      src/b,c:d.rs:1: warning[W:1]: odd 100% message",
            "      no error above explains the exit; the output ends:",
            "      │ waiting…",
        ]
    );
    assert!(under(&out, "lint")[0].starts_with("      │ "), "{out}");
    // Without a file, only the severity and the message.
    let mut evidence = sample::evidence();
    evidence.diagnostics[0].file = None;
    evidence.diagnostics.truncate(1);
    // That error names no file, so it explains nothing: the output's
    // end follows.
    let lines = under(&render(&evidence), "lint");
    assert_eq!(
        lines[..3],
        [
            "      error: bad thing",
            "      … and 1 more diagnostic",
            "      no error above explains the exit; the output ends:"
        ]
    );
    assert!(lines[3].starts_with("      │ "), "{lines:?}");
}

#[test]
fn past_twenty_diagnostics_the_rest_are_counted() {
    let mut evidence = sample::evidence();
    evidence.diagnostics = (1..=25)
        .map(|i| sample::diagnostic("lint", Some("f"), Some(i), None, "error", None, "boom"))
        .collect();
    evidence.checks[1].diagnostics_count = 25;
    evidence.checks[1].diagnostics_dropped = 3;
    let mut expected: Vec<String> = (1..=20)
        .map(|i| format!("      f:{i}: error: boom"))
        .collect();
    expected.push("      … and 8 more diagnostics".into());
    assert_eq!(under(&render(&evidence), "lint"), expected);
}

#[test]
fn each_modified_path_is_named_with_the_check_blamed() {
    let mut evidence = sample::evidence();
    evidence.contracts.read_only.modified = vec!["a.txt".into(), "b.txt".into()];
    for (check, file) in [("ok", "a.txt"), ("run-check", "b.txt")] {
        evidence.diagnostics.push(sample::diagnostic(
            check,
            Some(file),
            None,
            None,
            "error",
            Some("read-only"),
            "changed",
        ));
    }
    let out = render(&evidence);
    let lines: Vec<&str> = out.lines().collect();
    let n = lines.len();
    assert_eq!(
        lines[n - 4..n - 2],
        [
            "  modified: a.txt (by check `ok`)",
            "  modified: b.txt (check unknown)"
        ]
    );
    // The blamed check's read-only diagnostic is not listed under it.
    assert!(under(&out, "ok").is_empty(), "{out}");
    assert!(!render(&sample::evidence()).contains("modified:"));
}

#[test]
fn colour_paints_status_words_and_the_banner_only() {
    let evidence = sample::evidence();
    let plain = render(&evidence);
    let coloured = colour(&plain, false);
    let lines: Vec<&str> = coloured.lines().collect();
    let at = lines.iter().position(|l| l.contains(" lint ")).unwrap();
    assert!(
        lines[at].starts_with("\u{1b}[1m\u{1b}[31m FAIL\u{1b}[0m lint "),
        "{coloured}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(format!("\u{1b}[1m\u{1b}[31m{}\u{1b}[0m", evidence.summary.banner).as_str())
    );
    // Diagnostics, the header and the count line stay as they were.
    assert_eq!(lines[at + 1], "      src/a.c:3:5: error: bad thing");
    assert!(!lines[0].contains('\u{1b}'), "{coloured}");
    // Without the escape sequences it is the plain report.
    let stripped = coloured
        .replace("\u{1b}[1m\u{1b}[31m", "")
        .replace("\u{1b}[1m\u{1b}[32m", "")
        .replace("\u{1b}[1m\u{1b}[35m", "")
        .replace("\u{1b}[1m\u{1b}[33m", "")
        .replace("\u{1b}[0m", "");
    assert_eq!(stripped, plain);
}

#[test]
fn leftover_processes_are_named_under_their_check() {
    use run_check_documents::evidence::Leaked;
    let mut evidence = sample::evidence();
    evidence.checks[0].leaked = (1..=5)
        .map(|pid| Leaked {
            pid,
            command: format!("sleep {pid}00"),
        })
        .collect();
    let out = render(&evidence);
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(&evidence.checks[0].name))
        .unwrap();
    assert_eq!(
        lines[at + 1],
        "      left behind: sleep 100 [pid 1]; sleep 200 [pid 2]; sleep 300 [pid 3]; 2 more"
    );
    assert!(!render(&sample::evidence()).contains("left behind"));
}
