use super::snapshotter::merge_into;
use super::walk::{BATCH, hash_file, hash_path, par_map, tree_hash};
use super::*;
use crate::test_git::git;

fn paths(changes: Vec<Change>) -> Vec<String> {
    changes.into_iter().map(|c| c.path).collect()
}

fn kinds(changes: Vec<Change>) -> Vec<(String, &'static str)> {
    changes.into_iter().map(|c| (c.path, c.kind)).collect()
}

#[test]
fn git_snapshots_see_edits_creations_deletions_and_staging() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    std::fs::write(root.join("dirty.txt"), "d").unwrap();
    std::fs::write(root.join(".gitignore"), "out/\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    std::fs::write(root.join("dirty.txt"), "dirty before").unwrap();
    let (repo, _) = crate::test_git::open(&root);
    let snap = Snapshotter::new(&root, Some(&repo));
    let before = snap.first(None, Duration::ZERO).unwrap();
    assert_eq!(before.len(), 1);
    let again = || snap.again(&before, &[]).unwrap();
    assert_eq!(paths(before.diff(&again())), Vec::<String>::new());

    std::fs::create_dir(root.join("out")).unwrap();
    std::fs::write(root.join("out/ignored.bin"), "x").unwrap();
    assert_eq!(paths(before.diff(&again())), Vec::<String>::new());

    std::fs::write(root.join("dirty.txt"), "dirty, then changed").unwrap();
    std::fs::write(root.join("a.txt"), "edited").unwrap();
    std::fs::create_dir(root.join("new")).unwrap();
    std::fs::write(root.join("new/file.txt"), "n").unwrap();
    assert_eq!(
        kinds(before.diff(&again())),
        [
            ("a.txt".to_string(), "changed"),
            ("dirty.txt".to_string(), "changed"),
            ("new/file.txt".to_string(), "created")
        ]
    );
    std::fs::write(root.join("a.txt"), "a").unwrap();
    std::fs::remove_dir_all(root.join("new")).unwrap();
    std::fs::write(root.join("dirty.txt"), "dirty before").unwrap();
    git(&root, &["add", "dirty.txt"]);
    // Same content, but now staged: the status code changed.
    assert_eq!(paths(before.diff(&again())), ["dirty.txt"]);
    // Staged, then re-staged with other content: the status code is as
    // before, the index is not.
    let staged = snap.first(None, Duration::ZERO).unwrap();
    std::fs::write(root.join("dirty.txt"), "other").unwrap();
    git(&root, &["add", "dirty.txt"]);
    assert_eq!(
        paths(staged.diff(&snap.again(&staged, &[]).unwrap())),
        ["dirty.txt"]
    );
    std::fs::remove_file(root.join("a.txt")).unwrap();
    let gone = before.diff(&again());
    assert_eq!(
        gone[0],
        Change {
            path: "a.txt".into(),
            kind: "deleted",
            key: "a.txt".into(),
            timed: true,
        }
    );
}

/// An entry with git's `code`: nothing at the path (`None`), or
/// something there (what, the kind of a change does not look at).
fn entry(code: &str, hash: Option<u8>) -> Entry {
    Entry {
        code: Code::of(code),
        state: String::new(),
        seen: hash.map_or(Seen::Absent, |b| Seen::Tree([b; 32])),
    }
}

#[test]
fn merging_in_place_keeps_every_entry_once_in_order() {
    let keyed = |names: &[&str]| -> Vec<(Key, Entry)> {
        names
            .iter()
            .map(|n| (Key::from(Path::new(n)), entry("??", Some(n.len() as u8))))
            .collect()
    };
    let cases: [(&[&str], &[&str]); 6] = [
        (&["b", "d", "f"], &[]),
        (&["b", "d", "f"], &["a"]),
        (&["b", "d", "f"], &["g", "h"]),
        (&["b", "d", "f"], &["a", "c", "e", "g"]),
        (&[], &["a", "c"]),
        (&["a/x", "a/y", "b/z"], &[".t", "a/xx", "b"]),
    ];
    for (all, rest) in cases {
        let mut merged = keyed(all);
        merge_into(&mut merged, keyed(rest));
        let mut want: Vec<&str> = all.iter().chain(rest).copied().collect();
        want.sort_unstable();
        let got: Vec<String> = merged
            .iter()
            .map(|(key, _)| key.to_string_lossy().into_owned())
            .collect();
        assert_eq!(got, want, "{all:?} + {rest:?}");
        // Each entry kept its own record.
        for (key, entry) in &merged {
            assert!(
                matches!(entry.seen, Seen::Tree([b, ..]) if usize::from(b) == bytes(key).len())
            );
        }
    }
}

#[test]
fn a_change_is_named_by_what_happened_to_the_file() {
    let kind = |before: Option<Entry>, after: Option<Entry>| {
        Change::new(Path::new("p"), before.as_ref(), after.as_ref()).kind
    };
    let cases = [
        // git: a new untracked file; one edited; one removed.
        (None, Some(entry("??", Some(1))), "created"),
        (
            Some(entry("??", Some(1))),
            Some(entry("??", Some(2))),
            "changed",
        ),
        (Some(entry("??", Some(1))), None, "deleted"),
        // git: a clean tracked file edited, staged, deleted.
        (None, Some(entry(".M", Some(1))), "changed"),
        (None, Some(entry("A.", Some(1))), "changed"),
        (None, Some(entry(".D", None)), "deleted"),
        // git: a dirty tracked file edited again, deleted, put back as
        // committed; a deleted one brought back.
        (
            Some(entry(".M", Some(1))),
            Some(entry(".M", Some(2))),
            "changed",
        ),
        (
            Some(entry(".M", Some(1))),
            Some(entry(".D", None)),
            "deleted",
        ),
        (Some(entry(".M", Some(1))), None, "changed"),
        (Some(entry(".D", None)), None, "created"),
        (
            Some(entry(".D", None)),
            Some(entry(".M", Some(2))),
            "created",
        ),
        // git: an untracked file staged as it was.
        (
            Some(entry("??", Some(1))),
            Some(entry("A.", Some(1))),
            "changed",
        ),
        // outside git.
        (None, Some(entry("", Some(1))), "created"),
        (
            Some(entry("", Some(1))),
            Some(entry("", Some(2))),
            "changed",
        ),
        (Some(entry("", Some(1))), None, "deleted"),
    ];
    for (before, after, expected) in cases {
        let what = format!("{before:?} -> {after:?}");
        assert_eq!(kind(before, after), expected, "{what}");
    }
}

#[test]
fn hashing_many_files_keeps_each_hash_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Three batches and a bit: every thread count from 1 up takes part.
    let mut paths: Vec<PathBuf> = (0..3 * BATCH + 5)
        .map(|i| {
            let path = root.join(format!("f{i:03}"));
            std::fs::write(&path, format!("content {i}")).unwrap();
            path
        })
        .collect();
    std::fs::write(root.join("abc"), "abc").unwrap();
    paths.insert(7, root.join("abc"));
    paths.insert(20, root.join("missing"));
    paths.insert(30, root.to_path_buf());
    for threads in [1, 2, 3] {
        let hashes = par_map(&paths, threads, || (), |_, path| hash_path(path));
        assert_eq!(hashes.len(), paths.len());
        // sha256("abc"), FIPS 180-2's first example.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let hex: String = hashes[7]
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, abc);
        assert_eq!(hashes[20], None);
        // The directory: a hash of the tree under it.
        assert_eq!(hashes[30], Some(tree_hash(root)));
        for (i, (path, hash)) in paths.iter().zip(&hashes).enumerate() {
            if i != 30 {
                assert_eq!(*hash, hash_file(path), "{}", path.display());
            }
        }
    }
}

#[test]
fn a_change_among_many_dirty_files_is_the_only_one_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    for i in 0..4 * BATCH {
        std::fs::write(root.join(format!("u{i:03}")), format!("{i}")).unwrap();
    }
    let (repo, _) = crate::test_git::open(&root);
    let snap = Snapshotter::new(&root, Some(&repo));
    let before = snap.first(None, Duration::ZERO).unwrap();
    assert_eq!(before.len(), 4 * BATCH);
    std::fs::write(root.join("u037"), "edited").unwrap();
    assert_eq!(
        kinds(before.diff(&snap.again(&before, &[]).unwrap())),
        [("u037".to_string(), "changed")]
    );
}

/// A worktree of `UNREAD_MIN` and more untracked files in ten folders,
/// with an empty folder below one, a folder of ignored files below
/// another, and a tracked folder.
#[cfg(target_os = "linux")]
fn many_untracked() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitignore"), "out/\n").unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "tracked"]);
    for d in 0..10 {
        std::fs::create_dir(root.join(format!("d{d}"))).unwrap();
        for f in 0..=UNREAD_MIN / 10 {
            let path = root.join(format!("d{d}/f{f:03}"));
            std::fs::write(path, format!("file {d}/{f}\n")).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("d0/empty/deeper")).unwrap();
    std::fs::create_dir_all(root.join("d1/out/objects")).unwrap();
    std::fs::write(root.join("d1/out/objects/a.o"), "o").unwrap();
    (dir, root)
}

#[cfg(target_os = "linux")]
#[test]
fn untracked_files_are_not_listed_again_unless_a_folder_of_theirs_changed() {
    let (_dir, root) = many_untracked();
    let (repo, _) = crate::test_git::open(&root);
    let snap = Snapshotter::new(&root, Some(&repo)).submodules(false);
    let before = snap.first(None, Duration::ZERO).unwrap();
    if Trust::default().dir(&root).is_none() {
        // A file system whose clock is not trusted: always listed.
        assert!(before.tree.is_none());
        return;
    }
    assert!(before.tree.is_some());
    let again = snap.again(&before, &[]).unwrap();
    assert!(!again.listed_untracked);
    assert_eq!(paths(before.diff(&again)), Vec::<String>::new());

    // An edit in place, a tracked file: seen without a listing.
    std::fs::write(root.join("d2/f000"), "FILE 2/0\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    let again = snap.again(&before, &[]).unwrap();
    assert!(!again.listed_untracked);
    assert_eq!(paths(before.diff(&again)), ["d2/f000", "src/lib.rs"]);

    // A new file of a tracked folder is a new untracked root.
    std::fs::write(root.join("src/new.rs"), "").unwrap();
    let again = snap.again(&before, &[]).unwrap();
    assert!(!again.listed_untracked);
    assert_eq!(
        kinds(before.diff(&again)),
        [
            ("d2/f000".to_string(), "changed"),
            ("src/lib.rs".to_string(), "changed"),
            ("src/new.rs".to_string(), "created"),
        ]
    );
    std::fs::remove_file(root.join("src/new.rs")).unwrap();

    // Ignored files in a folder of ignored files: listed again, and no
    // change.
    std::fs::write(root.join("d1/out/objects/b.o"), "o").unwrap();
    let again = snap.again(&before, &[]).unwrap();
    assert!(again.listed_untracked);
    assert_eq!(paths(before.diff(&again)), ["d2/f000", "src/lib.rs"]);

    // A file in the empty folder's empty folder (no listed file near).
    std::fs::write(root.join("d0/empty/deeper/new"), "n").unwrap();
    let again = snap.again(&before, &[]).unwrap();
    assert!(again.listed_untracked);
    assert_eq!(
        paths(before.diff(&again)),
        ["d0/empty/deeper/new", "d2/f000", "src/lib.rs"]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn files_an_edited_gitignore_no_longer_ignores_are_listed() {
    // An untracked `.gitignore` edited in place leaves its folder as it
    // was; the files it stops ignoring are untracked now.
    let (_dir, root) = many_untracked();
    std::fs::write(root.join("d2/.gitignore"), "*.log\n").unwrap();
    std::fs::write(root.join("d2/debug.log"), "l").unwrap();
    let (repo, _) = crate::test_git::open(&root);
    let snap = Snapshotter::new(&root, Some(&repo)).submodules(false);
    let before = snap.first(None, Duration::ZERO).unwrap();
    std::fs::write(root.join("d2/.gitignore"), "*.tmp\n").unwrap();
    let again = snap.again(&before, &[]).unwrap();
    assert!(again.listed_untracked);
    assert_eq!(
        kinds(before.diff(&again)),
        [
            ("d2/.gitignore".to_string(), "changed"),
            ("d2/debug.log".to_string(), "created"),
        ]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn every_way_to_add_or_remove_an_untracked_name_is_listed_again() {
    type Change = fn(&Path);
    let changes: [(&str, Change, &[&str]); 6] = [
        (
            "hard link",
            |r| std::fs::hard_link(r.join("d3/f000"), r.join("d3/link")).unwrap(),
            &["d3/f000", "d3/link"],
        ),
        (
            "removal",
            |r| std::fs::remove_file(r.join("d4/f001")).unwrap(),
            &["d4/f001"],
        ),
        (
            "rename",
            |r| std::fs::rename(r.join("d5/f000"), r.join("d5/renamed")).unwrap(),
            &["d5/f000", "d5/renamed"],
        ),
        (
            "new folder",
            |r| {
                std::fs::create_dir_all(r.join("d6/new/deep")).unwrap();
                std::fs::write(r.join("d6/new/deep/x"), "x").unwrap();
            },
            &["d6/new/deep/x"],
        ),
        (
            "new root folder",
            |r| {
                std::fs::create_dir(r.join("fresh")).unwrap();
                std::fs::write(r.join("fresh/x"), "x").unwrap();
            },
            &["fresh/x"],
        ),
        (
            "ignored folder made plain",
            |r| std::fs::rename(r.join("d1/out"), r.join("d1/was-out")).unwrap(),
            &["d1/was-out/objects/a.o"],
        ),
    ];
    for (what, change, expected) in changes {
        let (_dir, root) = many_untracked();
        let (repo, _) = crate::test_git::open(&root);
        let snap = Snapshotter::new(&root, Some(&repo)).submodules(false);
        let before = snap.first(None, Duration::ZERO).unwrap();
        change(&root);
        let again = snap.again(&before, &[]).unwrap();
        assert!(again.listed_untracked, "{what}");
        assert_eq!(paths(before.diff(&again)), expected, "{what}");
    }
}

/// Many untracked files: the first snapshot leaves them unread (where
/// the clock is trusted), and every way of changing one is still found.
#[cfg(unix)]
#[test]
fn many_untracked_files_left_unread_still_show_every_change() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join(".gitignore"), "spare/\n").unwrap();
    let per_dir = UNREAD_MIN / 10 + 1;
    for d in 0..10 {
        std::fs::create_dir(root.join(format!("d{d}"))).unwrap();
        for f in 0..per_dir {
            let path = root.join(format!("d{d}/f{f:03}"));
            std::fs::write(path, format!("file {d}/{f}\n")).unwrap();
        }
    }
    // Prepared before the run, in an ignored folder: a copy of d2/f002
    // and of the whole of d3.
    std::fs::create_dir_all(root.join("spare/d3")).unwrap();
    std::fs::copy(root.join("d2/f002"), root.join("spare/f002")).unwrap();
    for f in 0..per_dir {
        let name = format!("f{f:03}");
        std::fs::copy(
            root.join("d3").join(&name),
            root.join("spare/d3").join(&name),
        )
        .unwrap();
    }
    let (repo, _) = crate::test_git::open(&root);
    let snap = Snapshotter::new(&root, Some(&repo));
    let before = snap.first(None, Duration::ZERO).unwrap();
    let mut trust = Trust::default();
    let trusted = trust.dir(&root).is_some();
    assert_eq!(before.unread, trusted);
    assert_eq!(before.len(), 10 * per_dir + 1);
    assert_eq!(
        paths(before.diff(&snap.again(&before, &[]).unwrap())),
        Vec::<String>::new()
    );

    // Same size, mtime put back: only the ctime tells.
    let edited = root.join("d0/f000");
    let mtime = std::fs::metadata(&edited).unwrap().modified().unwrap();
    std::fs::write(&edited, "FILE 0/0\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&edited)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    // A mode bit.
    let mut mode = std::fs::metadata(root.join("d1/f001"))
        .unwrap()
        .permissions();
    mode.set_mode(mode.mode() | 0o111);
    std::fs::set_permissions(root.join("d1/f001"), mode).unwrap();
    // An identical copy, prepared before the run, renamed into place.
    std::fs::rename(root.join("spare/f002"), root.join("d2/f002")).unwrap();
    // The whole folder swapped for an identical copy.
    std::fs::rename(root.join("d3"), root.join("spare/old-d3")).unwrap();
    std::fs::rename(root.join("spare/d3"), root.join("d3")).unwrap();
    // A temporary file created and removed next to listed files: no
    // change of theirs.
    std::fs::write(root.join("d4/tmp"), "t").unwrap();
    std::fs::remove_file(root.join("d4/tmp")).unwrap();
    let mut expected = vec![
        "d0/f000".to_string(),
        "d1/f001".to_string(),
        "d2/f002".to_string(),
    ];
    expected.extend((0..per_dir).map(|f| format!("d3/f{f:03}")));
    let changes = before.diff(&snap.again(&before, &[]).unwrap());
    assert!(changes.iter().all(|c| c.kind == "changed"), "{changes:?}");
    assert_eq!(paths(changes), expected);
}

#[test]
fn a_verifier_made_of_the_runs_status_ignores_run_checks_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    let (repo, status) = crate::test_git::open(&root);
    let status = status.unwrap();
    let snapshotter = Snapshotter::new(&root, Some(&repo));
    let mut verifier =
        Verifier::start(snapshotter, Some((&status, Duration::ZERO)), false).unwrap();
    std::fs::write(root.join(".report.tmp"), "").unwrap();
    verifier.ignore(&root.join(".report.tmp"));
    std::fs::write(root.join("a.txt"), "changed").unwrap();
    let (read_only, diagnostics) = verifier.finish();
    assert!(read_only.verified);
    assert_eq!(read_only.modified, ["a.txt"]);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].message, "changed while the checks ran");
}

#[test]
fn walk_snapshots_honour_gitignore_and_skip_build_output() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(root.join("keep.txt"), "k").unwrap();
    let snap = Snapshotter::Walk {
        worktree: root.clone(),
    };
    let before = snap.first(None, Duration::ZERO).unwrap();
    assert_eq!(before.len(), 2);
    let again = || snap.again(&before, &[]).unwrap();
    std::fs::write(root.join("x.log"), "ignored").unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::write(root.join("target/debug/out"), "built").unwrap();
    assert_eq!(paths(before.diff(&again())), Vec::<String>::new());
    std::fs::write(root.join("keep.txt"), "changed").unwrap();
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    assert_eq!(
        kinds(before.diff(&again())),
        [
            (".gitignore".to_string(), "deleted"),
            ("keep.txt".to_string(), "changed"),
            ("x.log".to_string(), "created")
        ]
    );
}
