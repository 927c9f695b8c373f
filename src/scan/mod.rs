//! Built-in `scan` checks (docs/checks-toml.md): no process, just the worktree's
//! files read and matched against the check's rules (`rules/`).
//!
//! The walk is the `ignore` crate's parallel walker rooted at the worktree,
//! honouring `.gitignore` files and `.git/info/exclude` (also outside a git
//! repository) and nothing that lives outside the worktree: no ignore files of
//! parent directories, no global git excludes, no `.ignore` files. Hidden
//! files are scanned (`.env`, `.github/`), `.git` is not, and symlinks are
//! never followed (a symlink is not a file to read, and files are opened with
//! `O_NOFOLLOW`, so a path swapped for a symlink mid-walk is not read either).
//! `scan.paths` patterns (read by `config::pattern`: relative to the
//! worktree, `/` separators, a directory selects everything below it; `*`
//! does not cross `/`, `**` does) select the files read, and directories no
//! glob can reach are not entered. A file over
//! `MAX_FILE_BYTES`, with a NUL byte in its first `BINARY_SNIFF_BYTES`, or
//! that cannot be opened or read (gone, unreadable, not a regular file) is
//! skipped. Invalid UTF-8 is replaced, never an error.
//!
//! A line with a `run-check: allow` comment (`rules::lines::allowed`) yields
//! no finding: its hits are counted in `ScanResult::allowed`, which the
//! check's evidence carries as `data.allowed`.
//!
//! Findings are deterministic: sorted by (path, line, column, rule). At most
//! `MAX_PER_CHECK` are kept (errors before lower severities, then in that
//! order), the rest are counted in `ScanResult::dropped`, so memory stays
//! bounded however many lines match.

mod rules;

use std::io::Read;
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::config::{DiagSeverity, ScanConfig, pattern};
use crate::parse::{Diagnostic, MAX_PER_CHECK};

/// Files larger than this are not read.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// A NUL byte within the first this many bytes makes a file binary.
pub(crate) const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct ScanResult {
    /// Findings sorted by (path, line, column, rule); paths relative to the
    /// worktree with `/` separators. At most `MAX_PER_CHECK`.
    pub(crate) found: Vec<Diagnostic>,
    /// Findings beyond `MAX_PER_CHECK`, not kept.
    pub(crate) dropped: u64,
    /// Findings silenced by a `run-check: allow` comment on their line: not
    /// reported, only counted (the check's `data.allowed`).
    pub(crate) allowed: u64,
}

/// Scans the worktree with the check's rules.
pub(crate) fn run(scan: &ScanConfig, worktree: &Path) -> ScanResult {
    let matcher = rules::Matcher::new(&scan.rules, &scan.custom);
    if matcher.is_empty() {
        return ScanResult::default();
    }
    let selection = Arc::new(Selection::new(&scan.paths));
    let shared = Shared {
        kept: Mutex::new(Kept::default()),
    };
    let mut builder = WalkBuilder::new(worktree);
    builder
        .standard_filters(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .threads(0);
    let root = worktree.to_path_buf();
    let filter = Arc::clone(&selection);
    builder.filter_entry(move |entry| {
        if entry.file_name() == ".git" {
            return false;
        }
        if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
            return true;
        }
        match relative(entry.path(), &root) {
            Some(rel) => filter.may_contain(&rel),
            None => false,
        }
    });
    let mut visitors = Visitors {
        matcher: &matcher,
        selection: &selection,
        root: worktree,
        shared: &shared,
    };
    builder.build_parallel().visit(&mut visitors);

    let mut kept = shared.kept.into_inner().unwrap_or_else(|e| e.into_inner());
    kept.compact();
    kept.found.sort_by(|a, b| order(a).cmp(&order(b)));
    ScanResult {
        found: kept.found,
        dropped: kept.dropped,
        allowed: kept.allowed,
    }
}

/// Output order: (path, line, column, rule, message).
fn order(f: &Diagnostic) -> (&str, u64, u64, &str, &str) {
    (
        f.file.as_deref().unwrap_or(""),
        f.line.unwrap_or(0),
        f.column.unwrap_or(0),
        f.rule.as_deref().unwrap_or(""),
        &f.message,
    )
}

/// Which findings are kept over the cap: errors first (so a failing scan
/// always shows why), then output order.
fn retention(f: &Diagnostic) -> (u8, (&str, u64, u64, &str, &str)) {
    let rank = match f.severity {
        DiagSeverity::Error => 0,
        DiagSeverity::Warning => 1,
        DiagSeverity::Note => 2,
        DiagSeverity::Info => 3,
        DiagSeverity::Help => 4,
    };
    (rank, order(f))
}

/// Findings kept so far and the counts of the dropped and allowed ones.
#[derive(Default)]
struct Kept {
    found: Vec<Diagnostic>,
    dropped: u64,
    allowed: u64,
}

impl Kept {
    fn push(&mut self, found: Diagnostic) {
        self.found.push(found);
        if self.found.len() >= 2 * MAX_PER_CHECK {
            self.compact();
        }
    }

    /// Keeps the `MAX_PER_CHECK` first by `retention`.
    fn compact(&mut self) {
        if self.found.len() > MAX_PER_CHECK {
            self.found.sort_by(|a, b| retention(a).cmp(&retention(b)));
            self.dropped += (self.found.len() - MAX_PER_CHECK) as u64;
            self.found.truncate(MAX_PER_CHECK);
        }
    }

    fn merge(&mut self, other: Kept) {
        self.dropped += other.dropped;
        self.allowed += other.allowed;
        for found in other.found {
            self.push(found);
        }
    }
}

/// State shared by the walker's threads.
struct Shared {
    kept: Mutex<Kept>,
}

/// Builds one `Visitor` per walker thread.
struct Visitors<'a> {
    matcher: &'a rules::Matcher,
    selection: &'a Selection,
    root: &'a Path,
    shared: &'a Shared,
}

impl<'s> ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            matcher: self.matcher.clone(),
            selection: self.selection,
            root: self.root,
            shared: self.shared,
            kept: Kept::default(),
            buf: Vec::new(),
        })
    }
}

/// One walker thread: its own regex caches, buffer and findings, merged into
/// `Shared` when the thread ends.
struct Visitor<'a> {
    matcher: rules::Matcher,
    selection: &'a Selection,
    root: &'a Path,
    shared: &'a Shared,
    kept: Kept,
    buf: Vec<u8>,
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        // An unreadable directory or a vanished entry is skipped.
        if let Ok(entry) = entry
            && entry.file_type().is_some_and(|t| t.is_file())
            && let Some(rel) = relative(entry.path(), self.root)
            && self.selection.matches(&rel)
        {
            self.file(entry.path(), rel);
        }
        WalkState::Continue
    }
}

impl Visitor<'_> {
    fn file(&mut self, path: &Path, rel: String) {
        if !read_text(path, &mut self.buf) {
            return;
        }
        // `from_utf8` first: its ASCII fast path beats the lossy decoder.
        let text = match std::str::from_utf8(&self.buf) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.buf),
        };
        let matcher = &self.matcher;
        let kept = &mut self.kept;
        matcher.scan(&text, &mut |hit| {
            if hit.allowed {
                kept.allowed += 1;
                return;
            }
            let rule = matcher.rule(hit.rule);
            kept.push(Diagnostic {
                file: Some(rel.clone()),
                line: Some(hit.line),
                column: Some(hit.column),
                severity: rule.severity,
                rule: Some(rule.id.clone()),
                message: rule.message.clone(),
                suggestion: rule.suggestion.map(str::to_string),
                ..Default::default()
            });
        });
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let kept = std::mem::take(&mut self.kept);
        let mut shared = self.shared.kept.lock().unwrap_or_else(|e| e.into_inner());
        shared.merge(kept);
    }
}

/// Reads a regular file of at most `MAX_FILE_BYTES` into `buf` without
/// following a symlink; `false` when it is not one, cannot be read, or is
/// binary.
fn read_text(path: &Path, buf: &mut Vec<u8>) -> bool {
    let Some((file, meta)) = crate::paths::open_regular(path) else {
        return false;
    };
    if meta.len() > MAX_FILE_BYTES {
        return false;
    }
    buf.clear();
    buf.reserve(meta.len() as usize);
    // A file that grew past the limit since the metadata is skipped too.
    if file.take(MAX_FILE_BYTES + 1).read_to_end(buf).is_err() || buf.len() as u64 > MAX_FILE_BYTES
    {
        return false;
    }
    let head = &buf[..buf.len().min(BINARY_SNIFF_BYTES)];
    memchr::memchr(0, head).is_none()
}

/// `path` relative to `root` with `/` separators; `None` outside it.
fn relative(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(&part.to_string_lossy());
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The files `scan.paths` selects.
struct Selection {
    /// `None`: every file.
    globs: Option<GlobSet>,
    /// The literal leading directories of each glob, when every glob has
    /// them (`src/**` → `["src"]`); `None` when some glob can match anywhere.
    prefixes: Option<Vec<Vec<String>>>,
}

impl Selection {
    fn new(paths: &[String]) -> Selection {
        if paths.is_empty() {
            return Selection {
                globs: None,
                prefixes: None,
            };
        }
        let mut builder = GlobSetBuilder::new();
        let mut prefixes = Some(Vec::new());
        // Config validation refuses patterns `expand` refuses and invalid
        // globs, so skipping them here only guards a config built in code.
        let globs = paths.iter().filter_map(|raw| pattern::expand(raw).ok());
        for normalized in globs.flatten() {
            let Ok(glob) = GlobBuilder::new(&normalized)
                .literal_separator(true)
                .backslash_escape(!cfg!(windows))
                .build()
            else {
                continue;
            };
            builder.add(glob);
            let components: Vec<&str> = normalized.split('/').collect();
            let literal = |c: &str| !c.contains(['*', '?', '[', ']', '{', '}', '\\']);
            // The last component names files, so it is never a directory
            // prefix on its own.
            let dirs = &components[..components.len() - 1];
            let fixed: Vec<String> = dirs
                .iter()
                .take_while(|c| literal(c))
                .map(|c| c.to_string())
                .collect();
            let exact = components.iter().all(|c| literal(c));
            match (&mut prefixes, fixed.is_empty()) {
                (Some(list), false) => list.push(fixed),
                // One literal path at the top (`src` itself): no directory
                // needs entering for it.
                (Some(_), true) if exact => {}
                _ => prefixes = None,
            }
        }
        Selection {
            // An empty set (every glob unusable) matches nothing.
            globs: Some(builder.build().unwrap_or_else(|_| GlobSet::empty())),
            prefixes,
        }
    }

    fn matches(&self, rel: &str) -> bool {
        self.globs.as_ref().is_none_or(|set| set.is_match(rel))
    }

    /// Whether the directory `rel` may hold a selected file.
    fn may_contain(&self, rel: &str) -> bool {
        let Some(prefixes) = &self.prefixes else {
            return self.globs.as_ref().is_none_or(|set| !set.is_empty());
        };
        let dir: Vec<&str> = rel.split('/').collect();
        prefixes
            .iter()
            .any(|prefix| prefix.iter().zip(&dir).all(|(p, d)| p.as_str() == *d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

        let result = run(&config(&[], &["debug-leftovers"]), root);
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
            let result = run(&config(paths, &["debug-leftovers"]), root);
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
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), root.join("linked.rs"))
            .unwrap();
        write(root, "own.rs", b"dbg!(own);\n");
        let result = run(&config(&[], &["debug-leftovers"]), root);
        assert_eq!(summary(&result).len(), 1);
        assert_eq!(result.found[0].file.as_deref(), Some("own.rs"));
        assert!(!read_text(&root.join("linked.rs"), &mut Vec::new()));
        // A file gone mid-walk (or never there) and a directory: skipped.
        assert!(!read_text(&root.join("gone.rs"), &mut Vec::new()));
        assert!(!read_text(root, &mut Vec::new()));
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
        let result = run(&scan, root);
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
        let first = run(&scan, root);
        assert_eq!(first.found.len(), 400);
        for _ in 0..3 {
            assert_eq!(run(&scan, root).found, first.found);
        }
        let mut sorted = first.found.clone();
        sorted.sort_by(|a, b| order(a).cmp(&order(b)));
        assert_eq!(sorted, first.found);
    }
}
