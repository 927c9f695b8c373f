//! The documentation lives in the repository: README.md stays an
//! introduction, no file points at documents a clone does not have, every
//! relative link of the Markdown docs resolves, `--help` speaks to a
//! user, and docs/exit-codes.md gives every command's exit codes. Cheap: reads files and runs `--help`, no network.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{bin, repo_root};

/// README.md is what a new user reads first; the reference is in docs/.
const README_MAX_BYTES: u64 = 15_000;

/// The product contract's folder beside a development checkout (written in
/// two pieces so that this file does not contain it).
fn outside_folder() -> String {
    ["..", "/shared"].concat()
}

/// The repository's files: tracked, plus new ones not ignored.
fn repository_files() -> Vec<PathBuf> {
    let root = repo_root();
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&root)
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    let mut seen = HashSet::new();
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
        .filter(|p| seen.insert(p.clone()) && root.join(p).is_file())
        .collect()
}

/// The user documentation: README.md, ARCHITECTURE.md, docs/ and the
/// benchmark's README.
fn markdown_docs() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "bench/README.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let mut in_docs: Vec<PathBuf> = fs::read_dir(repo_root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| PathBuf::from("docs").join(p.file_name().expect("name")))
        .collect();
    in_docs.sort();
    docs.extend(in_docs);
    docs
}

/// A mention of the product contract's source documents ("seed 004",
/// "seed-000's", "seeds/"), case-insensitive.
fn mentions_a_seed(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut from = 0;
    while let Some(at) = lower[from..].find("seed") {
        let start = from + at;
        let mut i = start + 4;
        if bytes.get(i) == Some(&b's') && bytes.get(i + 1) == Some(&b'/') {
            return Some(line_at(text, start));
        }
        if matches!(bytes.get(i), Some(b' ' | b'-' | b'_')) {
            i += 1;
        }
        if bytes
            .get(i..i + 3)
            .is_some_and(|d| d[0] == b'0' && d[1] == b'0' && d[2].is_ascii_digit())
        {
            return Some(line_at(text, start));
        }
        from = start + 4;
    }
    None
}

/// The word `SPEC` (the product contract), as a whole word.
fn mentions_the_spec(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("SPEC") {
        let start = from + at;
        let end = start + 4;
        let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if !word(start.checked_sub(1).and_then(|i| bytes.get(i))) && !word(bytes.get(end)) {
            return Some(line_at(text, start));
        }
        from = end;
    }
    None
}

/// `text` with comment leaders (`//!`, `///`, `//`, `#`, `*`) taken off each
/// line and the lines joined by a space, so that a word split over a comment
/// line break ("seed\n// 000") is found; offsets are into this text.
fn unwrapped(text: &str) -> String {
    text.lines()
        .map(|line| {
            line.trim_start()
                .trim_start_matches(['/', '!', '#', '*', '-', '>'])
                .trim_start()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A pointer to the project's internal issues or audits ("issue 7",
/// "Issue #15", "audit 2"), which a reader of a clone cannot follow. An
/// issue of another project named with its repository
/// (`owner/name issue 12`, a URL) is a reference a reader can follow.
fn mentions_an_internal_issue(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    for word in ["issue", "audit"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word) {
            let start = from + at;
            from = start + word.len();
            let mut i = from;
            if start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
                continue;
            }
            while matches!(bytes.get(i), Some(b' ' | b'#')) {
                i += 1;
            }
            if i == from || !bytes.get(i).is_some_and(u8::is_ascii_digit) {
                continue;
            }
            let before = lower[..start].trim_end();
            let owner = before.rsplit(' ').next().unwrap_or("");
            if owner.contains('/') || owner.contains("github") {
                continue;
            }
            return Some(format!("…{}…", &text[start..(i + 4).min(text.len())]));
        }
    }
    None
}

/// The line holding byte `at`, for messages.
fn line_at(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let number = text[..at].matches('\n').count() + 1;
    format!("line {number}: {}", text[start..end].trim())
}

#[test]
fn readme_is_an_introduction_under_15000_bytes() {
    let size = fs::metadata(repo_root().join("README.md"))
        .expect("README.md")
        .len();
    assert!(
        size <= README_MAX_BYTES,
        "README.md is {size} bytes, over {README_MAX_BYTES}: move reference material to docs/"
    );
}

#[test]
fn no_file_points_outside_the_repository() {
    let root = repo_root();
    let outside = outside_folder();
    let mut found = Vec::new();
    let files = repository_files();
    assert!(
        files.iter().any(|f| f == Path::new("README.md")),
        "README.md not among the repository's files"
    );
    for file in &files {
        let Ok(text) = fs::read_to_string(root.join(file)) else {
            continue; // binary
        };
        let name = file.to_string_lossy().replace('\\', "/");
        if let Some(at) = text.find(&outside) {
            found.push(format!("{name}: {}", line_at(&text, at)));
        }
        // This test names what it looks for.
        if name == "tests/docs.rs" {
            continue;
        }
        if let Some(line) = mentions_a_seed(&text) {
            found.push(format!("{name}: {line}"));
        }
        // Every file a reader opens (the code, its tests, the scripts, the
        // benchmark): no pointer to what only the team had, also when a
        // comment's line break splits it. Captured tool output is what the
        // tool printed.
        let unwrapped = unwrapped(&text);
        if !name.starts_with("tests/fixtures/") {
            if let Some(line) = mentions_an_internal_issue(&unwrapped) {
                found.push(format!("{name}: {line}"));
            }
            if let Some(line) = mentions_a_seed(&unwrapped) {
                found.push(format!("{name}: {line}"));
            }
        }
        // Code and its comments point to docs/, not to the contract's
        // sections.
        let code = ["src/", "crates/", "tests/", "scripts/", "bench/"]
            .iter()
            .any(|folder| name.starts_with(folder));
        if code && let Some(line) = mentions_the_spec(&text) {
            found.push(format!("{name}: {line}"));
        }
    }
    for doc in markdown_docs() {
        let text = fs::read_to_string(root.join(&doc)).expect("doc");
        if let Some(line) = mentions_the_spec(&text) {
            found.push(format!("{}: {line}", doc.display()));
        }
    }
    assert!(
        found.is_empty(),
        "files refer to documents a clone does not have:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_of_this_test_see_what_they_look_for() {
    assert!(mentions_a_seed("as seed 004 says").is_some());
    assert!(mentions_a_seed("a Seed-000 input").is_some());
    assert!(mentions_a_seed("see seeds/004_x.md").is_some());
    assert!(mentions_a_seed("a fixed seed keeps it; BOOTSTRAP_SEED = 7").is_none());
    assert!(mentions_the_spec("SPEC section 6").is_some());
    assert!(mentions_the_spec("(SPEC: a Critical issue)").is_some());
    assert!(mentions_the_spec("a SPECIAL case, RUN_SPEC_X").is_none());
    assert!(mentions_an_internal_issue("as issue 7 asks").is_some());
    assert!(mentions_an_internal_issue("(Issue #15)").is_some());
    assert!(mentions_an_internal_issue("Audit 2, F10: the regex").is_some());
    assert!(mentions_an_internal_issue(&unwrapped("the scores (issue\n    // 12) say")).is_some());
    assert!(mentions_a_seed(&unwrapped("by the scores (seed\n// 000 judges)")).is_some());
    assert!(mentions_an_internal_issue("anthropics/claude-code issue 11726").is_none());
    assert!(mentions_an_internal_issue("two `scan-skipped` issues, 3 checks").is_none());
    assert!(mentions_an_internal_issue("the issues 4 and 5 of a tool's tracker").is_none());
    let links =
        links("[a](b.md) `[c](d.md)` [e](https://x) [f](#g)\n```\n[h](i.md)\n```\n[j](k.md#l)");
    assert_eq!(links, ["b.md", "#g", "k.md#l"]);
    assert_eq!(slug("The gate's own `files`"), "the-gates-own-files");
    assert_eq!(slug("checks[]"), "checks");
    assert_eq!(slug("Tests and CI"), "tests-and-ci");
}

/// Markdown with fenced code blocks and inline code spans removed.
fn prose(text: &str) -> String {
    let mut kept = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            kept.push('\n');
            continue;
        }
        if !fenced {
            kept.push_str(line);
        }
        kept.push('\n');
    }
    // Code spans: a run of N backticks up to the next run of exactly N.
    let mut out = String::new();
    let chars: Vec<char> = kept.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let n = chars[j..].iter().take_while(|c| **c == '`').count();
                if n == run {
                    close = Some(j + n);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => i = end,
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text,
/// outside code, that are not web addresses.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = prose[from..].find("](") {
        let start = from + at + 2;
        let Some(len) = prose[start..].find(')') else {
            break;
        };
        let target = prose[start..start + len].trim();
        let web = ["http://", "https://", "mailto:"]
            .iter()
            .any(|p| target.starts_with(p));
        if !web && !target.is_empty() {
            found.push(target.to_string());
        }
        from = start + len;
    }
    found
}

/// GitHub's anchor of a heading: lower case, punctuation dropped (but `-`
/// and `_`), spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets
/// `-1`, `-2`, ... as on GitHub).
fn anchors(text: &str) -> HashSet<String> {
    let mut anchors = HashSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while !anchors.insert(anchor.clone()) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
        }
    }
    anchors
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = repo_root();
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in markdown_docs() {
        let text = fs::read_to_string(root.join(&doc)).expect("doc");
        let dir = root.join(&doc).parent().expect("dir").to_path_buf();
        for target in links(&text) {
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                root.join(&doc)
            } else {
                dir.join(path)
            };
            if !file.exists() {
                broken.push(format!("{}: ({target}): no such file", doc.display()));
                continue;
            }
            if let Some(anchor) = anchor
                && file.extension().is_some_and(|e| e == "md")
            {
                let their = fs::read_to_string(&file).expect("linked doc");
                if !anchors(&their).contains(anchor) {
                    broken.push(format!(
                        "{}: ({target}): no heading `#{anchor}`",
                        doc.display()
                    ));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the parser blind?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The folders of `src/` that hold more than one file of code (a folder
/// holding only `mod.rs` and its `tests.rs` is one module, not a place to
/// find), by path relative to `src/`.
fn folders_of_code(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let mut code = 0;
    for entry in fs::read_dir(dir).expect("src/ folder") {
        let path = entry.expect("src/ entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            folders_of_code(&path, &format!("{rel}{name}/"), out);
        } else if name.ends_with(".rs") && name != "tests.rs" {
            code += 1;
        }
    }
    if code > 1 {
        out.push(rel.to_string());
    }
}

/// ARCHITECTURE.md's map is how a newcomer finds the code: every folder of
/// `src/` that holds more than one file of code is named in it (`name/`),
/// and every folder it names exists, so a move that forgets the map fails
/// here.
#[test]
fn the_architecture_map_names_every_folder_and_only_folders() {
    let root = repo_root();
    let text = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let map = text
        .split_once("## The map")
        .and_then(|(_, after)| after.split("```").nth(1))
        .expect("ARCHITECTURE.md has its map in a code block under `## The map`");
    let named: HashSet<&str> = map
        .split(|c: char| !(c.is_alphanumeric() || "_-/.".contains(c)))
        .filter_map(|word| word.strip_suffix('/'))
        .filter_map(|word| word.rsplit('/').next())
        .collect();
    let mut folders = Vec::new();
    folders_of_code(&root.join("src"), "", &mut folders);
    folders.retain(|f| !f.is_empty());
    assert!(
        folders.len() > 15,
        "only {folders:?} found: is the walk blind?"
    );
    let unnamed: Vec<&String> = folders
        .iter()
        .filter(|f| !named.contains(f.trim_end_matches('/').rsplit('/').next().expect("name")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md's map does not name src/{unnamed:?}"
    );
    let exists = |name: &str| {
        name == "src"
            || root.join("crates").join(name).is_dir()
            || walk_has_folder(&root.join("src"), name)
    };
    let mut gone: Vec<&&str> = named.iter().filter(|n| !exists(n)).collect();
    gone.sort();
    assert!(
        gone.is_empty(),
        "ARCHITECTURE.md's map names folders that do not exist: {gone:?}"
    );
}

/// Whether a folder of this name stands anywhere below `dir`.
fn walk_has_folder(dir: &Path, name: &str) -> bool {
    fs::read_dir(dir).expect("src/ folder").any(|entry| {
        let path = entry.expect("src/ entry").path();
        path.is_dir()
            && (path.file_name().is_some_and(|n| n == name) || walk_has_folder(&path, name))
    })
}

/// The subcommands a help text lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_help_text_speaks_to_a_user() {
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut problems = Vec::new();
    let mut seen = 0;
    let outside = outside_folder();
    while let Some(path) = pending.pop() {
        let mut args = path.clone();
        args.push("--help".to_string());
        let out = Command::new(bin()).args(&args).output().expect("run-check");
        assert!(
            out.status.success(),
            "`run-check {}` failed",
            args.join(" ")
        );
        let help = String::from_utf8(out.stdout).expect("UTF-8 help");
        seen += 1;
        let checked = help.clone();
        let command = format!("run-check {}", args.join(" "));
        if let Some(line) = mentions_the_spec(&checked) {
            problems.push(format!("{command}: {line}"));
        }
        if let Some(line) = mentions_a_seed(&checked) {
            problems.push(format!("{command}: {line}"));
        }
        if checked.contains(&outside) {
            problems.push(format!("{command}: names {outside}"));
        }
        for sub in subcommands(&help) {
            let mut next = path.clone();
            next.push(sub);
            pending.push(next);
        }
    }
    assert!(
        seen >= 15,
        "only {seen} help texts: were the subcommands found?"
    );
    assert!(problems.is_empty(), "help texts:\n{}", problems.join("\n"));
}

/// Every command's path (`["agent", "hook"]`), from `--help` down: the
/// commands with no subcommands of their own.
fn leaf_commands() -> Vec<Vec<String>> {
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut leaves = Vec::new();
    while let Some(path) = pending.pop() {
        let out = Command::new(bin())
            .args(&path)
            .arg("--help")
            .output()
            .expect("run-check");
        let subs = subcommands(&String::from_utf8_lossy(&out.stdout));
        if subs.is_empty() && !path.is_empty() {
            leaves.push(path.clone());
        }
        for sub in subs {
            let mut next = path.clone();
            next.push(sub);
            pending.push(next);
        }
    }
    leaves.sort();
    leaves
}

/// docs/exit-codes.md's "Every command" table has a row for every command
/// (its name, or its group's, in backquotes in the first column), so a
/// script knows what each exit code means wherever it calls run-check.
#[test]
fn every_command_has_its_exit_codes_documented() {
    let text = fs::read_to_string(repo_root().join("docs/exit-codes.md")).unwrap();
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "## Every command")
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let named: HashSet<String> = table
        .iter()
        .filter_map(|row| row.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2).map(str::to_string))
        .collect();
    let leaves = leaf_commands();
    assert!(leaves.len() >= 20, "only {leaves:?}: were they found?");
    let missing: Vec<String> = leaves
        .iter()
        .filter(|path| {
            let name = path.join(" ");
            // `agent hook AGENT EVENT` names `agent hook`; `candidates`
            // names each of its subcommands.
            !named
                .iter()
                .any(|n| *n == name || n.starts_with(&format!("{name} ")) || *n == path[0])
        })
        .map(|path| path.join(" "))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/exit-codes.md, \"Every command\", has no row for: {}",
        missing.join(", ")
    );
}
