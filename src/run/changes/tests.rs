use super::*;
use crate::test_git::git;

fn repo(root: &Path) -> (Repo, Status) {
    let (repo, status) = crate::git::Opening::start(root)
        .unwrap()
        .finish_with(|_, _| ())
        .map(|(repo, status, ())| (repo, status))
        .unwrap();
    (repo, status.unwrap())
}

#[test]
fn tracked_staged_and_untracked_changes_with_line_counts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(root.join("b.txt"), "b\n").unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);

    let (r, s) = repo(&root);
    let clean = changed(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap();
    assert_eq!((clean.files.len(), clean.loc), (0, 0));
    assert!(
        changed_files(&r, &s, &root, "HEAD", &OwnFiles::default())
            .unwrap()
            .is_empty()
    );

    // 1 line changed (1 added + 1 deleted), 1 staged deletion (1 line),
    // 2 untracked lines, an ignored file that does not count.
    std::fs::write(root.join("src/a.rs"), "one\nTWO\nthree\n").unwrap();
    git(&root, &["rm", "-q", "b.txt"]);
    std::fs::write(root.join("new.txt"), "x\ny").unwrap();
    std::fs::write(root.join("debug.log"), "ignored\n").unwrap();
    let (r, s) = repo(&root);
    let changes = changed(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap();
    assert_eq!(changes.files, ["b.txt", "new.txt", "src/a.rs"]);
    assert_eq!(changes.loc, 2 + 1 + 2);
    // From the status alone (base is HEAD), and through `git diff`
    // (the same commit named otherwise is compared the long way).
    assert_eq!(
        changed_files(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap(),
        changes.files
    );
    assert_eq!(
        changed_files(&r, &s, &root, "main", &OwnFiles::default()).unwrap(),
        changes.files
    );

    // Relative to a subdirectory worktree: the budget counts the whole
    // change, fast mode only the files inside the worktree (by either
    // route).
    let sub = changed(&r, &s, &root.join("src"), "HEAD", &OwnFiles::default()).unwrap();
    assert_eq!(sub.files, ["../b.txt", "../new.txt", "a.rs"]);
    for base in ["HEAD", "main"] {
        assert_eq!(
            changed_files(&r, &s, &root.join("src"), base, &OwnFiles::default()).unwrap(),
            ["a.rs"]
        );
    }

    // The `--out` file counts in neither.
    let own = OwnFiles::capture(Some(&root.join("new.txt")));
    assert_eq!(
        changed_files(&r, &s, &root, "HEAD", &own).unwrap(),
        ["b.txt", "src/a.rs"]
    );
    let without = changed(&r, &s, &root, "HEAD", &own).unwrap();
    assert_eq!((without.files.len(), without.loc), (2, 2 + 1));
}

#[test]
fn a_rename_is_one_file_with_the_lines_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let lines: String = (1..=450).map(|i| format!("{i}\n")).collect();
    std::fs::write(root.join("big.txt"), &lines).unwrap();
    let other: String = (1..=450).map(|i| format!("other {i}\n")).collect();
    std::fs::write(root.join("other.txt"), &other).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    // A staged pure rename against HEAD: 1 file, 0 lines.
    git(&root, &["mv", "big.txt", "renamed.txt"]);
    let (r, s) = repo(&root);
    let changes = changed(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap();
    assert_eq!(changes.files, ["renamed.txt"]);
    assert_eq!(changes.loc, 0);
    // Committed, and moved again with one line edited (1 added + 1
    // deleted), against the first commit.
    git(&root, &["commit", "-q", "-m", "rename"]);
    git(&root, &["mv", "other.txt", "moved.txt"]);
    let edited = other.replacen("other 7\n", "other seven\n", 1);
    std::fs::write(root.join("moved.txt"), edited).unwrap();
    git(&root, &["add", "moved.txt"]);
    let (r, s) = repo(&root);
    let changes = changed(&r, &s, &root, "HEAD~1", &OwnFiles::default()).unwrap();
    assert_eq!(changes.files, ["moved.txt", "renamed.txt"]);
    assert_eq!(changes.loc, 2);
}

#[test]
fn numstat_records() {
    let out = b"1\t2\ta.txt\0-\t-\tbin.png\x000\t0\t\0old name.txt\0new name.txt\0\
                    3\t1\t\0x\0y\0";
    let parsed: Vec<(String, u64)> = parse_numstat(out)
        .into_iter()
        .map(|(p, n)| (p.to_str().unwrap().to_string(), n))
        .collect();
    let expected = [("a.txt", 3), ("bin.png", 0), ("new name.txt", 0), ("y", 4)];
    let expected: Vec<(String, u64)> = expected.iter().map(|(p, n)| (p.to_string(), *n)).collect();
    assert_eq!(parsed, expected);
}

#[test]
fn against_an_older_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    git(&root, &["tag", "v1"]);
    std::fs::write(root.join("b.txt"), "b\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "two"]);
    std::fs::write(root.join("c.txt"), "c\n").unwrap();
    let (r, s) = repo(&root);
    // Committed since v1, plus the untracked file.
    assert_eq!(
        changed_files(&r, &s, &root, "v1", &OwnFiles::default()).unwrap(),
        ["b.txt", "c.txt"]
    );
    assert_eq!(
        changed_files(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap(),
        ["c.txt"]
    );
    assert_eq!(
        changed(&r, &s, &root, "v1", &OwnFiles::default())
            .unwrap()
            .loc,
        2
    );
}

#[test]
fn before_the_first_commit_every_file_is_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("staged.txt"), "a\nb\n").unwrap();
    git(&root, &["add", "staged.txt"]);
    std::fs::write(root.join("new.txt"), "c\n").unwrap();
    let (r, s) = repo(&root);
    assert_eq!(s.commit, None);
    assert_eq!(
        changed_files(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap(),
        ["new.txt", "staged.txt"]
    );
    let changes = changed(&r, &s, &root, "HEAD", &OwnFiles::default()).unwrap();
    assert_eq!((changes.files.len(), changes.loc), (2, 3));
    // Another base still has to exist.
    assert!(matches!(
        changed_files(&r, &s, &root, "main", &OwnFiles::default()),
        Err(ChangesError::BadRevision(_))
    ));
}

#[test]
fn a_missing_revision() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["commit", "-q", "--allow-empty", "-m", "one"]);
    let (r, s) = repo(&root);
    assert_eq!(
        changed_files(&r, &s, &root, "no-such-branch", &OwnFiles::default())
            .unwrap_err()
            .to_string(),
        "--changed-since `no-such-branch`: no such revision in this repository"
    );
    assert!(matches!(
        changed(&r, &s, &root, "--output=x", &OwnFiles::default()),
        Err(ChangesError::BadRevision(_))
    ));
    assert!(changed(&r, &s, &root, "HEAD", &OwnFiles::default()).is_ok());
}

#[test]
fn relative_paths() {
    assert_eq!(
        relative_to(Path::new("/r/a/b.rs"), Path::new("/r")),
        "a/b.rs"
    );
    assert_eq!(
        relative_to(Path::new("/r/x.rs"), Path::new("/r/a")),
        "../x.rs"
    );
}
