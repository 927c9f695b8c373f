use super::*;

/// No base: markers silence, skipped files' change is unknown.
const NO_BASE: Context<'static> = Context {
    base: None,
    strict: true,
};

fn config(paths: &[&str], rules: &[&str]) -> ScanConfig {
    ScanConfig {
        paths: paths.iter().map(|p| p.to_string()).collect(),
        rules: rules.iter().map(|r| r.to_string()).collect(),
        custom: Vec::new(),
    }
}

fn write(root: &Path, rel: &str, contents: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn summary(result: &ScanResult) -> Vec<(String, u64, String)> {
    result
        .found
        .iter()
        .map(|f| {
            (
                f.file.clone().unwrap(),
                f.line.unwrap(),
                f.rule.clone().unwrap(),
            )
        })
        .collect()
}

#[test]
fn walk_honours_gitignore_and_reads_binary_and_big_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", b"generated/\n*.log\n");
    write(root, "src/a.rs", b"fn f() {\n    dbg!(1);\n}\n");
    write(root, "src/generated/b.rs", b"dbg!(2);\n");
    write(root, "debug.log", b"dbg!(3);\n");
    write(root, ".git/hooks/x.rs", b"dbg!(4);\n");
    write(root, ".env.rs", b"dbg!(5);\n");
    // A NUL byte hides nothing before or after it.
    write(root, "bin.dat", b"\0dbg!(6);\n\0\ndbg!(6);\n");
    // Past the first piece: lines are counted across pieces.
    let mut big = b"dbg!(7);\n".to_vec();
    big.resize(read::PIECE_BYTES * 2 + 5, b' ');
    big.extend_from_slice(b"\n\ndbg!(7);\n");
    write(root, "big.rs", &big);
    // One line of 2.5 pieces: a hit at its end, one column past the rest.
    let mut long = vec![b' '; read::PIECE_BYTES * 5 / 2];
    long.extend_from_slice(b"dbg!(8);\n");
    write(root, "long.rs", &long);

    let result = run(&config(&[], &["debug-leftovers"]), root, NO_BASE);
    let rule = "debug-leftovers/rust-dbg".to_string();
    assert_eq!(
        summary(&result),
        vec![
            (".env.rs".to_string(), 1, rule.clone()),
            ("big.rs".to_string(), 1, rule.clone()),
            ("big.rs".to_string(), 4, rule.clone()),
            ("bin.dat".to_string(), 1, rule.clone()),
            ("bin.dat".to_string(), 3, rule.clone()),
            ("long.rs".to_string(), 1, rule.clone()),
            ("src/a.rs".to_string(), 2, rule.clone()),
        ]
    );
    let long_hit = result
        .found
        .iter()
        .find(|f| f.file.as_deref() == Some("long.rs"));
    assert_eq!(
        long_hit.and_then(|f| f.column),
        Some(read::PIECE_BYTES as u64 * 5 / 2 + 1)
    );
    assert_eq!(result.dropped, 0);
    assert!(result.skipped.is_empty());
    assert_eq!(result.skipped_total, 0);
}

#[test]
fn paths_select_files_with_slash_separators() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for rel in [
        "src/a.rs",
        "src/deep/b.rs",
        "tests/c.rs",
        "docs/d.rs",
        "top.rs",
    ] {
        write(root, rel, b"dbg!(x);\n");
    }
    let files = |paths: &[&str]| -> Vec<String> {
        let result = run(&config(paths, &["debug-leftovers"]), root, NO_BASE);
        result
            .found
            .iter()
            .map(|f| f.file.clone().unwrap())
            .collect()
    };
    assert_eq!(
        files(&["src/**", "./tests/**"]),
        ["src/a.rs", "src/deep/b.rs", "tests/c.rs"]
    );
    assert_eq!(files(&["src/*.rs"]), ["src/a.rs"]);
    assert_eq!(files(&["*.rs"]), ["top.rs"]);
    assert_eq!(
        files(&["**/*.rs"]),
        [
            "docs/d.rs",
            "src/a.rs",
            "src/deep/b.rs",
            "tests/c.rs",
            "top.rs"
        ]
    );
    assert_eq!(files(&["../**", "/etc/**"]), Vec::<String>::new());
    // A directory selects everything below it, with or without `/`.
    assert_eq!(files(&["src"]), ["src/a.rs", "src/deep/b.rs"]);
    assert_eq!(
        files(&["src/", "./tests"]),
        ["src/a.rs", "src/deep/b.rs", "tests/c.rs"]
    );
    assert_eq!(files(&["./src/deep/"]), ["src/deep/b.rs"]);
    assert_eq!(files(&["top.rs"]), ["top.rs"]);
    assert_eq!(files(&["."]).len(), 5);
}

#[test]
fn directories_no_glob_reaches_are_pruned() {
    let selection = Selection::new(&["src/**".to_string(), "a/b/*.rs".to_string()]);
    assert!(selection.may_contain("src"));
    assert!(selection.may_contain("src/x/y"));
    assert!(selection.may_contain("a"));
    assert!(selection.may_contain("a/b"));
    assert!(!selection.may_contain("a/c"));
    assert!(!selection.may_contain("target"));
    let anywhere = Selection::new(&["src/**".to_string(), "**/*.py".to_string()]);
    assert!(anywhere.may_contain("target"));
    let directory = Selection::new(&["src".to_string(), "Cargo.toml".to_string()]);
    assert!(directory.may_contain("src"));
    assert!(directory.may_contain("src/x"));
    assert!(!directory.may_contain("target"));
}

#[cfg(unix)]
#[test]
fn links_to_files_inside_are_followed_and_the_others_listed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.rs", b"dbg!(outside);\n");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path(), root.join("linked_dir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("linked.rs")).unwrap();
    write(root, "own.rs", b"dbg!(own);\n");
    // A link to a file the scan reads hides nothing; one to a file outside
    // `scan.paths` (or ignored) leads the scan there, once.
    write(root, ".gitignore", b"hidden/\n");
    write(root, "hidden/h.rs", b"dbg!(hidden);\n");
    write(root, "src/real.rs", b"fn f() {}\n");
    write(root, "docs/other.rs", b"dbg!(other);\n");
    std::os::unix::fs::symlink("real.rs", root.join("src/alias.rs")).unwrap();
    std::os::unix::fs::symlink("../docs/other.rs", root.join("src/other.rs")).unwrap();
    std::os::unix::fs::symlink("../docs/other.rs", root.join("src/again.rs")).unwrap();
    std::os::unix::fs::symlink("../hidden/h.rs", root.join("src/h.rs")).unwrap();
    std::os::unix::fs::symlink("nowhere.rs", root.join("src/dangling.rs")).unwrap();
    write(root, ".git/config", b"dbg!(git);\n");
    std::os::unix::fs::symlink("../.git/config", root.join("src/git.rs")).unwrap();
    let result = run(&config(&[], &["debug-leftovers"]), root, NO_BASE);
    let files: Vec<&str> = result
        .found
        .iter()
        .filter_map(|f| f.file.as_deref())
        .collect();
    assert_eq!(files, ["docs/other.rs", "hidden/h.rs", "own.rs"]);
    let links: Vec<&str> = result.skipped.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(
        links,
        ["linked.rs", "linked_dir", "src/dangling.rs", "src/git.rs"]
    );
    assert!(
        result
            .skipped
            .iter()
            .all(|s| s.reason == Reason::LinkOutsidePaths)
    );
    let only_src = run(&config(&["src/**"], &["debug-leftovers"]), root, NO_BASE);
    let files: Vec<&str> = only_src
        .found
        .iter()
        .filter_map(|f| f.file.as_deref())
        .collect();
    assert_eq!(files, ["docs/other.rs", "hidden/h.rs"]);
    let links: Vec<&str> = only_src.skipped.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(links, ["src/dangling.rs", "src/git.rs"]);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_listed_and_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.rs", b"dbg!(1);\n");
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("pipe.rs"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let result = run(&config(&[], &["debug-leftovers"]), root, NO_BASE);
    assert_eq!(summary(&result).len(), 1);
    let skipped: Vec<(&str, Reason)> = result
        .skipped
        .iter()
        .map(|s| (s.file.as_str(), s.reason))
        .collect();
    assert_eq!(skipped, [("pipe.rs", Reason::NotAFile)]);
}

#[test]
fn the_cap_keeps_errors_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.txt", "TODO\n".repeat(MAX_PER_CHECK * 3).as_bytes());
    write(root, "z.rs", b"dbg!(x);\n");
    let mut scan = config(&[], &["debug-leftovers"]);
    scan.custom.push(crate::config::ScanRule {
        id: "todo".to_string(),
        pattern: regex::Regex::new("TODO").unwrap(),
        message: None,
        severity: DiagSeverity::Warning,
    });
    let result = run(&scan, root, NO_BASE);
    assert_eq!(result.found.len(), MAX_PER_CHECK);
    assert_eq!(result.dropped, (MAX_PER_CHECK * 2 + 1) as u64);
    // The error of z.rs is kept, in output order: last.
    let last = result.found.last().unwrap();
    assert_eq!(last.file.as_deref(), Some("z.rs"));
    assert_eq!(last.severity, DiagSeverity::Error);
    // The warnings kept are the first lines of a.txt, in order.
    let lines: Vec<u64> = result.found[..MAX_PER_CHECK - 1]
        .iter()
        .map(|f| f.line.unwrap())
        .collect();
    assert_eq!(lines, (1..MAX_PER_CHECK as u64).collect::<Vec<_>>());
}

#[test]
fn results_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..200 {
        write(
            root,
            &format!("d{}/f{i}.py", i % 7),
            b"breakpoint()\nassert True\nx = 1\n",
        );
    }
    let scan = config(&[], &["debug-leftovers", "placeholder-asserts"]);
    let first = run(&scan, root, NO_BASE);
    assert_eq!(first.found.len(), 400);
    for _ in 0..3 {
        assert_eq!(run(&scan, root, NO_BASE).found, first.found);
    }
    let mut sorted = first.found.clone();
    sorted.sort_by(|a, b| order(a).cmp(&order(b)));
    assert_eq!(sorted, first.found);
}
