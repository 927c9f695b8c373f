use super::*;
use run_check_documents::evidence::DiagSeverity;

const KEY: (&str, Phase, &str) = ("T-1", Phase::Verify, "impl-a");

#[test]
fn the_file_name_keeps_safe_characters_and_maps_the_rest() {
    assert_eq!(
        file_name("2026-11-25", KEY, 1),
        "2026-11-25_T-1-verify-impl-a.md"
    );
    assert_eq!(
        file_name("2026-11-25", KEY, 2),
        "2026-11-25_T-1-verify-impl-a_2.md"
    );
    assert_eq!(
        file_name("2026-11-25", ("../../x", Phase::Fix, "a/b"), 1),
        "2026-11-25_.._.._x-fix-a_b.md"
    );
    for hostile in [
        "..",
        "../..",
        "/etc/passwd",
        "C:\\Windows",
        "a:b",
        "x\u{0}y",
        "CON",
        "é ü",
        "*?<>|\"",
        ".hidden",
        "a\u{202e}b",
    ] {
        let name = file_name("2026-11-25", (hostile, Phase::Verify, hostile), 1);
        assert!(name.starts_with("2026-11-25_"), "{name}");
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
            "{hostile:?} → {name}"
        );
        let path = Path::new("dir").join(&name);
        assert_eq!(path.parent(), Some(Path::new("dir")), "{hostile:?}");
        assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(&*name));
    }
    // At most 64 characters of each name: the whole stays short enough
    // for every file system (255 bytes).
    let long = "x".repeat(1000);
    let name = file_name(
        "2026-11-25",
        (&long, Phase::Verify, &long),
        MAX_FILES_PER_NAME,
    );
    assert_eq!(name.len(), 10 + 1 + 64 + 8 + 64 + 4 + 3);
    assert!(name.len() < 255);
}

fn summary(outcome: Outcome) -> EvidenceSummary {
    EvidenceSummary {
        path: "/abs/ev.json".into(),
        banner: if outcome == Outcome::Pass {
            "All checks passed!".into()
        } else {
            "1 of 3 checks failed: test".into()
        },
        failed_checks: if outcome == Outcome::Pass {
            vec![]
        } else {
            vec!["test".into()]
        },
        errored_checks: vec![],
        exit_code: outcome.exit_code(),
        outcome,
        timestamp: "2026-11-21T23:59:00Z".into(),
    }
}

fn point_after(outcomes: &[Outcome]) -> Point {
    let mut state = super::super::State::default();
    let mut point = None;
    for &outcome in outcomes {
        point = Some(super::super::apply(
            &mut state,
            KEY,
            summary(outcome),
            3,
            "2026-11-25T12:00:00Z".into(),
        ));
    }
    point.expect("one record at least")
}

fn diagnostic(check: &str, message: &str) -> Diagnostic {
    Diagnostic {
        check: check.into(),
        file: Some("src/a.rs".into()),
        line: Some(3),
        column: Some(7),
        severity: DiagSeverity::Error,
        rule: Some("E1".into()),
        message: message.into(),
        suggestion: None,
        new: None,
    }
}

#[test]
fn a_lesson_fills_symptom_and_evidence_and_leaves_three_headings() {
    let point = point_after(&[Outcome::Fail, Outcome::Fail]);
    let diagnostics = Diagnostics {
        first: vec![
            diagnostic("test", "assertion failed: x == 1"),
            Diagnostic {
                file: None,
                line: None,
                column: None,
                rule: None,
                ..diagnostic("test", "no location")
            },
        ],
        total: 9,
    };
    let text = render(
        &point,
        Decision::Retry,
        "2026-11-25T12:00:00Z",
        &diagnostics,
    );
    assert_eq!(
        text,
        "# Lesson: task \"T-1\", phase verify, subagent \"impl-a\"\n\
             \n\
             Written by `run-check retry record` at 2026-11-25T12:00:00Z, after 2 failed attempts (decision RETRY, max_retries 3).\n\
             \n\
             ## symptom\n\
             \n\
             1 of 3 checks failed: test\n\
             \n\
             - failed checks: test\n\
             \n\
             ## evidence\n\
             \n\
             - path: /abs/ev.json\n\
             - exit code: 1 (fail)\n\
             - checks ran at: 2026-11-21T23:59:00Z\n\
             - diagnostics (first 2 of 9):\n\
             \x20 - src/a.rs:3:7: assertion failed: x == 1 (error, test, E1)\n\
             \x20 - no location (error, test)\n\
             \n\
             ## root_cause\n\
             \n\
             ## fix\n\
             \n\
             ## prevention\n"
    );
    let none = render(&point, Decision::Retry, "t", &Diagnostics::default());
    assert!(none.contains("\n- diagnostics: none\n"), "{none}");
}

#[test]
fn a_resolved_points_lesson_is_its_last_failure() {
    let point = point_after(&[Outcome::Fail, Outcome::Fail, Outcome::Pass]);
    let text = render(&point, Decision::Resolved, "t", &Diagnostics::default());
    assert!(text.contains(
        "at t, when the point passed after 2 failed attempts (decision RESOLVED, max_retries 3).\n\
             The symptom and the evidence are the last failed attempt's.\n"
    ), "{text}");
    assert!(text.contains("## symptom\n\n1 of 3 checks failed: test\n\n- failed checks: test\n"));
    assert!(text.contains("- exit code: 1 (fail)\n"));
    assert!(text.contains("- diagnostics: not kept by the retry state;"));
    assert!(text.contains("- passing evidence: /abs/ev.json\n"));
    assert!(!text.contains("All checks passed!"));
}

/// A check's output cannot replay escapes, add a heading or a workflow
/// command, nor stretch a lesson without bound.
#[test]
fn what_came_from_a_check_is_shown_safely_on_one_line() {
    let mut point = point_after(&[Outcome::Fail, Outcome::Fail]);
    point.last_evidence.banner = "\u{1b}]0;owned\u{7}\u{1b}[31mred\u{1b}[0m\n## fix\nrm -rf".into();
    point.last_evidence.failed_checks = vec!["a\u{1b}[2Jb".into()];
    point
        .last_evidence
        .errored_checks
        .extend((0..25).map(|i| format!("e{i}")));
    let long = "y".repeat(1000);
    let diagnostics = Diagnostics {
        first: vec![
            diagnostic("test", "line one\n## root_cause\n::error::x\u{7}"),
            diagnostic("test", &long),
        ],
        total: 2,
    };
    let text = render(&point, Decision::Retry, "t", &diagnostics);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "# Lesson: task \"T-1\", phase verify, subagent \"impl-a\"",
            "## symptom",
            "## evidence",
            "## root_cause",
            "## fix",
            "## prevention"
        ]
    );
    assert!(text.contains("\nred ## fix rm -rf\n"), "{text}");
    assert!(text.contains("- failed checks: ab\n"), "{text}");
    let errored: Vec<String> = (0..MAX_CHECK_NAMES).map(|i| format!("e{i}")).collect();
    assert!(
        text.contains(&format!(
            "- errored checks: {} and 5 more\n",
            errored.join(", ")
        )),
        "{text}"
    );
    // The workflow command was at a line's start in the message: defused.
    assert!(
        text.contains("line one ## root_cause \\::error::x␇ (error"),
        "{text}"
    );
    assert!(text.contains(&format!(": {}… (error", "y".repeat(MAX_MESSAGE_CHARS))));
    assert!(!text.lines().any(|l| l.trim_start().starts_with("::")));
}

#[test]
fn cut_keeps_the_first_characters() {
    assert_eq!(one_line("abc", 3), "abc");
    assert_eq!(one_line("abcd", 3), "abc…");
    assert_eq!(one_line("éèêë", 2), "éè…");
    let mut point = point_after(&[Outcome::Fail, Outcome::Fail]);
    point.last_evidence.banner = "b".repeat(5000);
    let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
    assert!(text.contains(&format!("\n{}…\n", "b".repeat(MAX_BANNER_CHARS))));
}

#[test]
fn diagnostics_are_the_first_five_of_the_failing_checks() {
    let mut evidence: Evidence = crate::report::sample_evidence();
    let failing: Vec<String> = evidence
        .checks
        .iter()
        .filter(|c| c.status.is_failure())
        .map(|c| c.name.clone())
        .collect();
    let passing = evidence
        .checks
        .iter()
        .find(|c| !c.status.is_failure())
        .map(|c| c.name.clone())
        .unwrap();
    evidence.diagnostics = vec![diagnostic(&passing, "a warning of a passing check")];
    for i in 0..8 {
        evidence
            .diagnostics
            .push(diagnostic(&failing[i % failing.len()], &format!("d{i}")));
    }
    evidence
        .diagnostics
        .push(diagnostic("run-check", "read-only"));
    let shown = Diagnostics::of(&evidence);
    assert_eq!(shown.total, 9);
    let messages: Vec<&str> = shown.first.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["d0", "d1", "d2", "d3", "d4"]);
}

#[test]
fn write_creates_keeps_and_never_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let lessons = dir.path().join("a/b");
    let point = point_after(&[Outcome::Fail, Outcome::Fail]);
    let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
    // Created with its parents.
    let path = write(&lessons, "2026-11-25", KEY, &text).unwrap();
    assert_eq!(path, lessons.join("2026-11-25_T-1-verify-impl-a.md"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // The point's lesson, filled in since (with CRLF line ends), is
    // kept as it is.
    let filled = format!("{text}The cache was stale.\n").replace('\n', "\r\n");
    std::fs::write(&path, &filled).unwrap();
    let again = render(&point, Decision::Subtask, "later", &Diagnostics::default());
    assert_eq!(write(&lessons, "2026-11-25", KEY, &again).unwrap(), path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), filled);
    // Another point whose ids map to the same name gets the next file.
    let other = ("T/1", Phase::Verify, "impl-a");
    let mut point_b = point.clone();
    point_b.task_id = "T/1".into();
    let text_b = render(&point_b, Decision::Retry, "t", &Diagnostics::default());
    let path_b = write(&lessons, "2026-11-25", other, &text_b).unwrap();
    assert_eq!(path_b, lessons.join("2026-11-25_T_1-verify-impl-a.md"));
    let other = ("T:1", Phase::Verify, "impl-a");
    point_b.task_id = "T:1".into();
    let text_c = render(&point_b, Decision::Retry, "t", &Diagnostics::default());
    let path_c = write(&lessons, "2026-11-25", other, &text_c).unwrap();
    assert_eq!(path_c, lessons.join("2026-11-25_T_1-verify-impl-a_2.md"));
    assert_eq!(std::fs::read_to_string(&path_b).unwrap(), text_b);
    assert_eq!(
        write(&lessons, "2026-11-25", other, &text_c).unwrap(),
        path_c
    );
    // A file of the user's under the name is left alone.
    let date = "2026-11-26";
    std::fs::write(lessons.join(file_name(date, KEY, 1)), "mine\n").unwrap();
    let path = write(&lessons, date, KEY, &text).unwrap();
    assert_eq!(path, lessons.join(file_name(date, KEY, 2)));
    assert_eq!(
        std::fs::read_to_string(lessons.join(file_name(date, KEY, 1))).unwrap(),
        "mine\n"
    );
    // No temporary file is left.
    let mut names: Vec<String> = std::fs::read_dir(&lessons)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "2026-11-25_T-1-verify-impl-a.md",
            "2026-11-25_T_1-verify-impl-a.md",
            "2026-11-25_T_1-verify-impl-a_2.md",
            "2026-11-26_T-1-verify-impl-a.md",
            "2026-11-26_T-1-verify-impl-a_2.md",
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_or_fifo_under_the_name_is_never_followed_nor_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, "untouched\n").unwrap();
    let lessons = dir.path().join("lessons");
    std::fs::create_dir(&lessons).unwrap();
    let date = "2026-11-25";
    std::os::unix::fs::symlink(&outside, lessons.join(file_name(date, KEY, 1))).unwrap();
    let fifo = lessons.join(file_name(date, KEY, 2));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let point = point_after(&[Outcome::Fail, Outcome::Fail]);
    let text = render(&point, Decision::Retry, "t", &Diagnostics::default());
    let path = write(&lessons, date, KEY, &text).unwrap();
    assert_eq!(path, lessons.join(file_name(date, KEY, 3)));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched\n");
}

#[test]
fn a_lessons_path_that_is_a_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let err = write(&file.join("sub"), "2026-11-25", KEY, "# x\n").unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "failed to create the lessons directory `{}`",
            file.join("sub").display()
        )),
        "{err}"
    );
}
