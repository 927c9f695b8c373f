use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/artifacts")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(root: &Path, rel: &str, contents: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

fn globs(list: &[&str]) -> Vec<String> {
    list.iter().map(|g| g.to_string()).collect()
}

fn paths(c: &Collected) -> Vec<&str> {
    c.artifacts.iter().map(|a| a.path.as_str()).collect()
}

#[test]
fn the_walk_starts_at_the_literal_prefix() {
    let p = Pattern::new("target/nextest/default/junit.xml").unwrap();
    assert_eq!(p.prefix, ["target", "nextest", "default", "junit.xml"]);
    assert!(p.literal);
    let p = Pattern::new("./reports/**/*.sarif").unwrap();
    assert_eq!(
        (p.prefix.as_slice(), p.literal, p.depth),
        (&["reports".to_string()][..], false, None)
    );
    let p = Pattern::new("out/*/x-[ab].xml").unwrap();
    assert_eq!((p.prefix.len(), p.depth), (1, Some(2)));
    let p = Pattern::new("*.xml").unwrap();
    assert_eq!((p.prefix.len(), p.depth), (0, Some(1)));
    let p = Pattern::new("{a,b}/x.xml").unwrap();
    assert!(p.prefix.is_empty());
    for outside in [
        "../x.xml",
        "a/../../x.xml",
        "/etc/*.xml",
        "C:/x/*.xml",
        "",
        ".",
    ] {
        assert!(Pattern::new(outside).is_none(), "{outside}");
    }
}

#[test]
fn a_pattern_naming_a_folder_records_the_files_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "reports/a.xml", b"a");
    write(root, "reports/deep/b.sarif", b"b");
    write(root, "other/c.xml", b"c");
    for folder in ["reports", "reports/", "./reports"] {
        assert_eq!(
            paths(&collect(&globs(&[folder]), root)),
            ["reports/a.xml", "reports/deep/b.sarif"],
            "{folder}"
        );
    }
    // A file named by its path is still that one file.
    assert_eq!(
        paths(&collect(&globs(&["other/c.xml"]), root)),
        ["other/c.xml"]
    );
}

#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_recorded_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "rep/ok.txt", b"ok\n");
    let odd = root
        .join("rep")
        .join(std::ffi::OsStr::from_bytes(b"a\xffb.txt"));
    fs::write(&odd, b"hi").unwrap();
    let c = collect(&globs(&["rep/*"]), root);
    assert_eq!(paths(&c), ["rep/a\u{FFFD}b.txt", "rep/ok.txt"]);
    assert_eq!(c.artifacts[0].bytes, 2);
    assert_eq!(
        c.artifacts[0].sha256,
        "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"
    );
    // A glob naming the extension matches it too.
    assert_eq!(
        paths(&collect(&globs(&["rep/a*.txt"]), root)),
        ["rep/a\u{FFFD}b.txt"]
    );
}

#[test]
fn globs_match_once_sorted_with_size_and_sha256() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "reports/b.xml", b"abc");
    write(root, "reports/a.txt", b"");
    write(root, "reports/sub/c.xml", b"<x/>");
    write(root, "reports/sub/deep/d.sarif", b"{}");
    write(root, "reports/e.sarif", b"not json");
    write(root, "other/f.xml", b"");
    write(root, ".git/g.xml", b"");
    let c = collect(
        &globs(&[
            "reports/*.xml",
            "reports/**/*.sarif",
            "reports/b.xml",
            "**/c.xml",
        ]),
        root,
    );
    assert_eq!(
        paths(&c),
        [
            "reports/b.xml",
            "reports/e.sarif",
            "reports/sub/c.xml",
            "reports/sub/deep/d.sarif"
        ]
    );
    let b = &c.artifacts[0];
    assert_eq!(b.bytes, 3);
    assert_eq!(
        b.sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(
        c.found.is_empty(),
        "nothing here is a report: {:?}",
        c.found
    );
    // A wildcard never enters .git; a literal path still names what it names.
    assert_eq!(
        paths(&collect(&globs(&["**/g.xml"]), root)),
        Vec::<&str>::new()
    );
    assert_eq!(
        paths(&collect(&globs(&["*/g.xml"]), root)),
        Vec::<&str>::new()
    );
    assert_eq!(
        paths(&collect(&globs(&[".git/g.xml"]), root)),
        [".git/g.xml"]
    );
    // Nothing matched, a missing prefix, a missing file: nothing recorded.
    let none = collect(
        &globs(&["nope/**/*.xml", "reports/missing.xml", "../x.xml"]),
        root,
    );
    assert!(none.artifacts.is_empty());
}

#[cfg(unix)]
#[test]
fn symlinks_never_lead_outside_and_fifos_are_not_read() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.xml", &fixture("pytest-junit.xml"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "reports/real.xml", b"<testsuite/>");
    symlink(outside.path(), root.join("reports/linked-dir")).unwrap();
    symlink(
        outside.path().join("secret.xml"),
        root.join("reports/linked.xml"),
    )
    .unwrap();
    symlink(
        root.join("reports/real.xml"),
        root.join("reports/alias.xml"),
    )
    .unwrap();
    symlink(outside.path(), root.join("out")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("reports/pipe.xml"))
        .status();
    let c = collect(
        &globs(&["reports/**/*.xml", "out/*.xml", "out/secret.xml"]),
        root,
    );
    assert_eq!(paths(&c), ["reports/alias.xml", "reports/real.xml"]);
    assert!(c.found.is_empty());
    if let Ok(status) = status {
        assert!(status.success());
    }
}

#[test]
fn artifacts_are_parsed_by_name_and_large_ones_only_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "reports/junit.xml", &fixture("pytest-junit.xml"));
    write(root, "reports/ruff.sarif", &fixture("ruff.sarif"));
    write(root, "reports/broken.xml", b"<testsuites><testcase");
    let mut big = fixture("pytest-junit.xml");
    big.resize(MAX_PARSE_BYTES as usize + 10, b' ');
    write(root, "reports/huge.xml", &big);
    let c = collect(&globs(&["reports/*"]), root);
    assert_eq!(
        paths(&c),
        [
            "reports/broken.xml",
            "reports/huge.xml",
            "reports/junit.xml",
            "reports/ruff.sarif"
        ]
    );
    let huge = &c.artifacts[1];
    assert_eq!(huge.bytes, big.len() as u64);
    assert_eq!(huge.sha256, crate::digest::hex(&Sha256::digest(&big)));
    // 3 JUnit failures, then ruff's 5 results: files in path order.
    assert_eq!(c.found.len(), 8);
    assert_eq!(
        c.found[0].rule.as_deref(),
        Some("test_sample.test_add_fails")
    );
    assert_eq!(c.found[3].rule.as_deref(), Some("F401"));
}
