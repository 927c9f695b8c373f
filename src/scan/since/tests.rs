use super::*;

/// A base whose files are `files` (path, text); `changed` lists the
/// files that differ from it.
struct Fake {
    files: Vec<(&'static str, &'static str)>,
    changed: Vec<&'static str>,
    asked: std::sync::Mutex<Vec<String>>,
}

impl Base for Fake {
    fn changed(&self, files: &[String]) -> Result<HashSet<String>, String> {
        Ok(files
            .iter()
            .filter(|f| self.changed.contains(&f.as_str()))
            .cloned()
            .collect())
    }

    fn contents(&self, files: &[String]) -> Result<HashMap<String, Vec<u8>>, String> {
        self.asked.lock().unwrap().extend(files.iter().cloned());
        Ok(self
            .files
            .iter()
            .filter(|(path, _)| files.iter().any(|f| f == path))
            .map(|(path, text)| (path.to_string(), text.as_bytes().to_vec()))
            .collect())
    }
}

fn finding(line: u64) -> (u64, Diagnostic) {
    (
        line,
        Diagnostic {
            line: Some(line),
            message: "m".into(),
            ..Default::default()
        },
    )
}

/// (allowed, allowed_new, lines of the findings that stand).
fn weigh(base: &Fake, rel: &str, now: &str, strict: bool) -> (u64, u64, Vec<u64>) {
    let hits: Vec<(u64, Diagnostic)> = now
        .split('\n')
        .enumerate()
        .filter(|(_, line)| rules::allowed(line))
        .map(|(i, _)| finding(i as u64 + 1))
        .collect();
    // The file as it is now, read again to be aligned with its base.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("now");
    std::fs::write(&path, now).unwrap();
    let mut marked = Marked::new(rel.to_string(), path);
    marked.add(now, 1, hits);
    let marked = vec![marked];
    let context = Context {
        base: Some(base),
        strict,
    };
    let settled = settle(marked, Vec::new(), context);
    let lines = settled.standing.iter().filter_map(|d| d.line).collect();
    (settled.allowed, settled.allowed_new, lines)
}

const OLD: &str = "a = 1\nk = \"X\"  # run-check: allow\n";

/// A skip excused above one test of two.
const SKIPS: &str =
    "@skip  # run-check: allow\ndef test_old():\n    pass\ndef test_new():\n    pass\n";

#[test]
fn a_marker_line_is_old_only_where_the_base_had_it() {
    let base = Fake {
        files: vec![("a.py", OLD)],
        changed: vec!["a.py", "new.py"],
        asked: Default::default(),
    };
    // Re-indented, with lines added around it: old.
    let indented = "b = 2\na = 1\n    k = \"X\"  # run-check: allow\nc = 3\n";
    assert_eq!(weigh(&base, "a.py", indented, true), (1, 0, vec![]));
    // Moved from above one test to above another: the diff deletes and
    // adds it, new.
    let tests = Fake {
        files: vec![("t.py", SKIPS)],
        changed: vec!["t.py"],
        asked: Default::default(),
    };
    let moved = "def test_old():\n    pass\n@skip  # run-check: allow\ndef test_new():\n    pass\n";
    assert_eq!(weigh(&tests, "t.py", moved, true), (0, 1, vec![3]));
    assert_eq!(weigh(&tests, "t.py", SKIPS, true), (1, 0, vec![]));
    // Copied once more (in place of `a = 1`): the copy the diff adds is
    // new and stands.
    let copied = "k = \"X\"  # run-check: allow\nk = \"X\"  # run-check: allow\n";
    assert_eq!(weigh(&base, "a.py", copied, true), (1, 1, vec![1]));
    // The old marker line edited to hold another value: new.
    let edited = "a = 1\nk = \"Y\"  # run-check: allow\n";
    assert_eq!(weigh(&base, "a.py", edited, true), (0, 1, vec![2]));
    // A marker added to an old line: new.
    let added = "a = 1  # run-check: allow\nk = \"X\"  # run-check: allow\n";
    assert_eq!(weigh(&base, "a.py", added, true), (1, 1, vec![1]));
    // A file the base did not have: every marker is new.
    assert_eq!(weigh(&base, "new.py", OLD, true), (0, 1, vec![2]));
    // Fast mode: new markers silence, and are counted.
    assert_eq!(weigh(&base, "new.py", OLD, false), (1, 1, vec![]));
}

#[test]
fn an_unchanged_file_is_not_read_at_the_base() {
    let base = Fake {
        files: vec![],
        changed: vec![],
        asked: Default::default(),
    };
    assert_eq!(weigh(&base, "a.py", OLD, true), (1, 0, vec![]));
    assert!(base.asked.lock().unwrap().is_empty());
}

#[test]
fn skipped_files_list_changed_ones_first_and_are_bounded() {
    let base = Fake {
        files: vec![],
        changed: vec!["z.fifo", "src/target.py"],
        asked: Default::default(),
    };
    let mut not_read: Vec<NotRead> = (0..MAX_SKIPPED + 5)
        .map(|i| NotRead {
            rel: format!("a{i:03}.py"),
            reason: Reason::Unreadable,
            target: None,
        })
        .collect();
    not_read.push(NotRead {
        rel: "z.fifo".into(),
        reason: Reason::NotAFile,
        target: None,
    });
    // A link that did not change to a file that did.
    not_read.push(NotRead {
        rel: "src/link.py".into(),
        reason: Reason::LinkOutsidePaths,
        target: Some("src/target.py".into()),
    });
    let context = Context {
        base: Some(&base),
        strict: true,
    };
    let settled = settle(Vec::new(), not_read, context);
    assert_eq!(settled.skipped_total, MAX_SKIPPED as u64 + 7);
    assert_eq!(settled.skipped.len(), MAX_SKIPPED);
    let first: Vec<(&str, &str, Option<bool>)> = settled.skipped[..3]
        .iter()
        .map(|s| (s.file.as_str(), s.reason.as_str(), s.changed))
        .collect();
    assert_eq!(
        first,
        [
            ("src/link.py", "link-outside-paths", Some(true)),
            ("z.fifo", "not-a-file", Some(true)),
            ("a000.py", "unreadable", Some(false)),
        ]
    );
    // The changed ones fail the scan, each an error at its file.
    let failing: Vec<(&str, &str)> = settled
        .standing
        .iter()
        .map(|d| (d.file.as_deref().unwrap(), d.rule.as_deref().unwrap()))
        .collect();
    assert_eq!(
        failing,
        [("z.fifo", SKIPPED_RULE), ("src/link.py", SKIPPED_RULE)]
    );
    assert!(
        settled
            .standing
            .iter()
            .all(|d| d.severity == run_check_documents::evidence::DiagSeverity::Error)
    );
    // Without a base: unknown.
    let context = Context {
        base: None,
        strict: true,
    };
    let one = vec![NotRead {
        rel: "x".into(),
        reason: Reason::NotAFile,
        target: None,
    }];
    assert_eq!(settle(Vec::new(), one, context).skipped[0].changed, None);
    // A FIFO is never the base's: changed, whatever git says.
    let fifo = vec![NotRead {
        rel: "p".into(),
        reason: Reason::NotAFile,
        target: None,
    }];
    let context = Context {
        base: Some(&base),
        strict: false,
    };
    let settled = settle(Vec::new(), fifo, context);
    assert_eq!(settled.skipped[0].changed, Some(true));
    assert_eq!(settled.standing.len(), 1);
}
