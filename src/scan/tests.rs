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
fn walk_honours_gitignore_and_skips_binary_big_and_git_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", b"generated/\n*.log\n");
    write(root, "src/a.rs", b"fn f() {\n    dbg!(1);\n}\n");
    write(root, "src/generated/b.rs", b"dbg!(2);\n");
    write(root, "debug.log", b"dbg!(3);\n");
    write(root, ".git/hooks/x.rs", b"dbg!(4);\n");
    write(root, ".env.rs", b"dbg!(5);\n");
    write(root, "bin.dat", b"dbg!(6);\n\0\n");
    let mut big = b"dbg!(7);\n".to_vec();
    big.resize(MAX_FILE_BYTES as usize + 1, b' ');
    write(root, "big.rs", &big);
    let mut edge = b"dbg!(8);\n".to_vec();
    edge.resize(MAX_FILE_BYTES as usize, b' ');
    write(root, "edge.rs", &edge);
    // Binary: a NUL beyond the sniffed head does not count.
    let mut late_nul = b"dbg!(9);\n".to_vec();
    late_nul.resize(BINARY_SNIFF_BYTES + 10, b' ');
    late_nul.push(0);
    write(root, "late_nul.rs", &late_nul);

    let result = run(&config(&[], &["debug-leftovers"]), root, NO_BASE);
    let rule = "debug-leftovers/rust-dbg".to_string();
    assert_eq!(
        summary(&result),
        vec![
            (".env.rs".to_string(), 1, rule.clone()),
            ("edge.rs".to_string(), 1, rule.clone()),
            ("late_nul.rs".to_string(), 1, rule.clone()),
            ("src/a.rs".to_string(), 2, rule.clone()),
        ]
    );
    assert_eq!(result.dropped, 0);
    // What was not read is listed, with why (ignored files are not).
    let skipped: Vec<(&str, Reason, Option<bool>)> = result
        .skipped
        .iter()
        .map(|s| (s.file.as_str(), s.reason, s.changed))
        .collect();
    assert_eq!(
        skipped,
        [
            ("big.rs", Reason::TooLarge, None),
            ("bin.dat", Reason::Binary, None),
        ]
    );
    assert_eq!(result.skipped_total, 2);
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
fn symlinks_are_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.rs", b"dbg!(outside);\n");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path(), root.join("linked_dir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("linked.rs")).unwrap();
    write(root, "own.rs", b"dbg!(own);\n");
    // Links to a file the scan reads hide nothing; the others are listed.
    write(root, "src/real.rs", b"fn f() {}\n");
    write(root, "docs/other.rs", b"dbg!(other);\n");
    std::os::unix::fs::symlink("real.rs", root.join("src/alias.rs")).unwrap();
    std::os::unix::fs::symlink("../docs/other.rs", root.join("src/other.rs")).unwrap();
    std::os::unix::fs::symlink("nowhere.rs", root.join("src/dangling.rs")).unwrap();
    let result = run(&config(&[], &["debug-leftovers"]), root, NO_BASE);
    assert_eq!(summary(&result).len(), 2);
    assert_eq!(result.found[0].file.as_deref(), Some("docs/other.rs"));
    assert_eq!(result.found[1].file.as_deref(), Some("own.rs"));
    let links: Vec<&str> = result.skipped.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(links, ["linked.rs", "linked_dir", "src/dangling.rs"]);
    assert!(
        result
            .skipped
            .iter()
            .all(|s| s.reason == Reason::LinkOutsidePaths)
    );
    let only_src = run(&config(&["src/**"], &["debug-leftovers"]), root, NO_BASE);
    let links: Vec<&str> = only_src.skipped.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(links, ["src/dangling.rs", "src/other.rs"]);
    assert_eq!(
        read_text(&root.join("linked.rs"), &mut Vec::new()),
        Err(Reason::Unreadable)
    );
    // A file gone mid-walk (or never there) and a directory: skipped.
    assert_eq!(
        read_text(&root.join("gone.rs"), &mut Vec::new()),
        Err(Reason::Unreadable)
    );
    assert_eq!(read_text(root, &mut Vec::new()), Err(Reason::Unreadable));
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
