use super::*;
use crate::test_git::git;

fn entry(path: &str, code: &str, state: &str) -> StatusEntry {
    StatusEntry {
        path: Path::new(path).into(),
        code: code.to_string().into(),
        state: state.into(),
    }
}

#[test]
fn output_fed_in_pieces_parses_as_a_whole() {
    let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    let out = format!(
        "# branch.oid (initial)\0# branch.head main\0\
             2 R. N... 100644 100644 100644 {blob} {blob} R100 new.rs\0old.rs\0\
             1 .M N... 100644 100644 100644 {blob} {blob} a.rs\0? b c\0! d\0? tail"
    );
    let whole = parse_status(out.as_bytes());
    assert_eq!(whole.entries.len(), 4, "{whole:?}");
    // Every split at a record's end, as the pipe may deliver them.
    let ends: Vec<usize> = (0..out.len()).filter(|&i| out.as_bytes()[i] == 0).collect();
    for &end in &ends {
        let mut parser = StatusParser::default();
        parser.feed(&out.as_bytes()[..=end]);
        parser.feed(&out.as_bytes()[end + 1..]);
        assert_eq!(parser.status, whole, "split after byte {end}");
    }
}

#[test]
fn parses_every_record_kind() {
    let oid = "0123456789012345678901234567890123456789";
    let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    let out = format!(
        "# branch.oid {oid}\0# branch.head main\0# branch.upstream origin/main\0\
             1 .M N... 100644 100644 100644 {blob} {blob} src/a file.rs\0\
             2 R. N... 100644 100644 100644 {blob} {blob} R100 new.rs\0old.rs\0\
             u UU N... 100644 100644 100644 100644 {blob} {blob} {blob} both.rs\0\
             ? notes/to do.txt\0! ignored.log\0"
    );
    let status = parse_status(out.as_bytes());
    assert_eq!(status.commit.as_deref(), Some(oid));
    assert_eq!(status.branch.as_deref(), Some("main"));
    assert_eq!(
        status.entries,
        [
            entry(
                "src/a file.rs",
                ".M",
                &format!("N... 100644 100644 100644 {blob} {blob}")
            ),
            entry(
                "new.rs",
                "R.",
                &format!("N... 100644 100644 100644 {blob} {blob} R100")
            ),
            entry(
                "both.rs",
                "UU",
                &format!("N... 100644 100644 100644 100644 {blob} {blob} {blob}")
            ),
            entry("notes/to do.txt", "??", ""),
        ]
    );
}

#[cfg(unix)]
#[test]
fn paths_are_kept_as_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    // Two names that are not UTF-8: decoded, both would be `d\u{fffd}.txt`.
    let mut out = format!("1 .M N... 100644 100644 100644 {blob} {blob} d").into_bytes();
    out.extend_from_slice(b"\xff.txt\0? d\xfe.txt\0? vendor/lib/\0");
    let paths: Vec<Vec<u8>> = parse_status(&out)
        .entries
        .iter()
        .map(|e| e.path.as_os_str().as_bytes().to_vec())
        .collect();
    assert_eq!(
        paths,
        [
            b"d\xff.txt".to_vec(),
            b"d\xfe.txt".to_vec(),
            b"vendor/lib/".to_vec()
        ]
    );
}

#[test]
fn before_the_first_commit_and_detached() {
    let status = parse_status(b"# branch.oid (initial)\0# branch.head (detached)\0");
    assert_eq!(status, Status::default());
}

#[test]
fn a_real_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/a.txt"), "a").unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    assert_eq!(
        Opening::start(&root)
            .and_then(|opening| opening.finish_with(|_, _| ()))
            .map(|_| ())
            .unwrap_err(),
        "not a git repository"
    );
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    let (repo, first) = crate::test_git::open(&root.join("sub"));
    assert_eq!(repo.toplevel(), root);
    assert_eq!(first.unwrap(), repo.status().unwrap());
    let head = repo.resolve("HEAD").unwrap();
    assert_eq!(head.len(), 40);
    assert_eq!(repo.resolve("no-such-branch"), None);
    assert_eq!(repo.resolve("--output=x"), None);

    let clean = repo.status().unwrap();
    assert_eq!(clean.commit.as_deref(), Some(head.as_str()));
    assert_eq!(clean.branch.as_deref(), Some("main"));
    assert!(clean.entries.is_empty());

    std::fs::write(root.join("sub/a.txt"), "b").unwrap();
    std::fs::create_dir(root.join("new")).unwrap();
    std::fs::write(root.join("new/b.txt"), "b").unwrap();
    std::fs::write(root.join("debug.log"), "ignored").unwrap();
    let dirty = repo.status().unwrap();
    let listed: Vec<(&str, &str)> = dirty
        .entries
        .iter()
        .map(|e| (e.path.to_str().unwrap(), e.code.as_ref()))
        .collect();
    assert_eq!(listed, [("sub/a.txt", ".M"), ("new/b.txt", "??")]);

    // Staging the same content again changes nothing; staging new
    // content changes the entry's state (the index's object name).
    git(&root, &["add", "sub/a.txt"]);
    let staged = repo.status().unwrap().entries[0].clone();
    assert_eq!(staged.code, "M.");
    std::fs::write(root.join("sub/a.txt"), "c").unwrap();
    git(&root, &["add", "sub/a.txt"]);
    let restaged = repo.status().unwrap().entries[0].clone();
    assert_eq!(restaged.code, "M.");
    assert_ne!(restaged.state, staged.state);
}
