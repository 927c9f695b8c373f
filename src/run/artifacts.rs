//! A check's `artifacts`: files matched by worktree-relative globs, recorded
//! with size and sha256, and JUnit XML / SARIF 2.1.0 among them parsed into
//! diagnostics (docs/evidence.md).
//!
//! Globs use globset syntax with `/` as the separator; `*` and `?` do not
//! cross a `/` (`**` does); a pattern naming a folder (`reports`,
//! `reports/`) matches the files below it (`config::pattern`, shared with
//! `paths` and `scan.paths`). Only the directory the glob's literal leading
//! components name is walked, never anything outside the worktree: a glob that
//! is absolute or contains `..` matches nothing, symlinked directories are
//! not descended, a symlinked file counts only when it resolves inside the
//! worktree, `.git` directories are not entered by a wildcard, and only
//! regular files are read (a FIFO never blocks the run). A file name that is
//! not valid UTF-8 is matched as its bytes and recorded with U+FFFD in place
//! of what is not UTF-8. Unreadable files and directories are skipped. Nothing here fails: a malformed artifact is
//! recorded and yields no diagnostics.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::DiagSeverity;
use crate::parse::Diagnostic;
use crate::run::evidence::Artifact;

/// Files larger than this are recorded (size, hash) but not parsed.
pub(crate) const MAX_PARSE_BYTES: u64 = 16 * 1024 * 1024;
/// Longest message kept from an artifact, in bytes (the rest is cut with `…`).
pub(crate) const MAX_MESSAGE: usize = 4096;
/// XML nodes parsed at most per file (a bound on memory, far above any real
/// report of `MAX_PARSE_BYTES`).
const MAX_XML_NODES: u32 = 8_000_000;

/// What a check's artifact globs matched.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    /// Matched files.
    pub(crate) artifacts: Vec<Artifact>,
    /// Diagnostics parsed from JUnit XML and SARIF files.
    pub(crate) found: Vec<Diagnostic>,
}

/// Collects the artifacts matching `globs` (relative to the worktree): each
/// file once, sorted by path, with the diagnostics of its JUnit XML and SARIF
/// files in that order.
pub(crate) fn collect(globs: &[String], worktree: &Path) -> Collected {
    let mut collected = Collected::default();
    if globs.is_empty() {
        return collected;
    }
    let Ok(root) = dunce::canonicalize(worktree) else {
        return collected;
    };
    let mut matched = BTreeMap::new();
    // A pattern naming a folder (`reports`, `reports/`) stands for the
    // files below it, as in `paths` and `scan.paths`.
    let expanded = globs
        .iter()
        .filter_map(|glob| crate::config::pattern::expand(glob).ok())
        .flatten();
    for glob in expanded {
        if let Some(pattern) = Pattern::new(&glob) {
            pattern.walk(&root, &mut matched);
        }
    }
    for (rel, path) in matched {
        // A name that is not UTF-8 is recorded with U+FFFD in its place.
        let rel = rel.to_string_lossy();
        let Some((artifact, contents)) = read(&rel, &path) else {
            continue;
        };
        if let Some(contents) = contents {
            collected.found.extend(parse(&rel, &contents));
        }
        collected.artifacts.push(artifact);
    }
    collected
}

/// One glob, split into the literal directory to walk and the matcher.
#[derive(Debug)]
struct Pattern {
    /// Literal leading components (all of them when the glob has no
    /// metacharacter: then it names one file).
    prefix: Vec<String>,
    /// Whether every component is literal.
    literal: bool,
    /// Levels below the prefix a match can be at; `None` with a `**`.
    depth: Option<usize>,
    matcher: GlobMatcher,
}

impl Pattern {
    /// `None` for a glob that could leave the worktree (absolute, `..`) or
    /// does not parse.
    fn new(glob: &str) -> Option<Pattern> {
        // `/` is the separator everywhere; Windows paths cannot contain `\`,
        // so there it is taken as a separator too.
        let glob = if cfg!(windows) {
            glob.replace('\\', "/")
        } else {
            glob.to_string()
        };
        if glob.starts_with('/') || has_drive(&glob) {
            return None;
        }
        let components: Vec<&str> = glob
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        if components.is_empty() || components.contains(&"..") {
            return None;
        }
        let normalized = components.join("/");
        let matcher = GlobBuilder::new(&normalized)
            .literal_separator(true)
            .backslash_escape(!cfg!(windows))
            .build()
            .ok()?
            .compile_matcher();
        let fixed = components.iter().take_while(|c| !is_glob(c)).count();
        let rest = &components[fixed..];
        Some(Pattern {
            prefix: components[..fixed].iter().map(|c| c.to_string()).collect(),
            literal: rest.is_empty(),
            depth: if rest.iter().any(|c| c.contains("**")) {
                None
            } else {
                Some(rest.len())
            },
            matcher,
        })
    }

    /// Adds the files of the worktree `root` (canonical) this glob matches to
    /// `out` (relative path with `/` → absolute path). Names are matched as
    /// the bytes they are, so one that is not UTF-8 is matched too.
    fn walk(&self, root: &Path, out: &mut BTreeMap<OsString, PathBuf>) {
        let mut start = root.to_path_buf();
        start.extend(&self.prefix);
        if self.literal {
            let rel = self.prefix.join("/");
            if regular_file_inside(&start, root) && self.matcher.is_match(&rel) {
                out.insert(rel.into(), start);
            }
            return;
        }
        // The literal prefix may itself pass through a symlink: it must stay
        // inside the worktree.
        match dunce::canonicalize(&start) {
            Ok(real) if real.starts_with(root) => {}
            _ => return,
        }
        let mut stack = vec![(start, OsString::from(self.prefix.join("/")), 0usize)];
        while let Some((dir, rel, depth)) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name();
                let mut child_rel = rel.clone();
                if !child_rel.is_empty() {
                    child_rel.push("/");
                }
                child_rel.push(&name);
                let path = entry.path();
                if kind.is_dir() {
                    let deeper = self.depth.is_none_or(|max| depth + 1 < max);
                    if deeper && name != ".git" {
                        stack.push((path, child_rel, depth + 1));
                    }
                } else if (kind.is_file() || kind.is_symlink())
                    && self.matcher.is_match(Path::new(&child_rel))
                    && regular_file_inside(&path, root)
                {
                    out.insert(child_rel, path);
                }
            }
        }
    }
}

/// Whether a glob component has a globset metacharacter.
fn is_glob(component: &str) -> bool {
    component.contains(['*', '?', '[', ']', '{', '}'])
        || (!cfg!(windows) && component.contains('\\'))
}

/// `C:...`: a Windows drive prefix.
fn has_drive(glob: &str) -> bool {
    let bytes = glob.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// A regular file (after resolving a symlink) whose real path is inside
/// `root`.
fn regular_file_inside(path: &Path, root: &Path) -> bool {
    let Ok(link) = fs::symlink_metadata(path) else {
        return false;
    };
    if link.is_file() {
        // Not a link itself; its directory may be reached through one (a
        // literal glob prefix), so that must resolve inside too.
        return path.starts_with(root)
            && path
                .parent()
                .and_then(|p| dunce::canonicalize(p).ok())
                .is_some_and(|p| p.starts_with(root));
    }
    if !link.file_type().is_symlink() {
        return false;
    }
    match (fs::metadata(path), dunce::canonicalize(path)) {
        (Ok(meta), Ok(real)) => meta.is_file() && real.starts_with(root),
        _ => false,
    }
}

/// Reads one matched file: its record, and its contents when small enough to
/// parse. `None` when it cannot be read.
fn read(rel: &str, path: &Path) -> Option<(Artifact, Option<Vec<u8>>)> {
    let file = fs::File::open(path).ok()?;
    let mut contents = Vec::new();
    (&file)
        .take(MAX_PARSE_BYTES + 1)
        .read_to_end(&mut contents)
        .ok()?;
    let mut hasher = Sha256::new();
    hasher.update(&contents);
    let mut bytes = contents.len() as u64;
    let parse = bytes <= MAX_PARSE_BYTES;
    if !parse {
        contents = Vec::new();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut reader = &file;
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    hasher.update(&buffer[..n]);
                    bytes += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
    let artifact = Artifact {
        path: rel.to_string(),
        bytes,
        sha256: crate::config::hex(&hasher.finalize()),
    };
    Some((artifact, parse.then_some(contents)))
}

/// The diagnostics of one artifact, by its name and contents; empty for
/// anything that is not JUnit XML or SARIF 2.1.0.
pub(crate) fn parse(name: &str, contents: &[u8]) -> Vec<Diagnostic> {
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "xml" => junit(contents),
        "sarif" | "json" => sarif(contents),
        _ => Vec::new(),
    }
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// XML text: UTF-8 (BOM optional, invalid bytes replaced), or UTF-16 with
/// a byte-order mark (as some .NET loggers write).
fn decode(contents: &[u8]) -> String {
    let utf16 = |bytes: &[u8], from: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = bytes.chunks_exact(2).map(|p| from([p[0], p[1]])).collect();
        String::from_utf16_lossy(&units)
    };
    if let Some(rest) = contents.strip_prefix(b"\xFF\xFE") {
        utf16(rest, u16::from_le_bytes)
    } else if let Some(rest) = contents.strip_prefix(b"\xFE\xFF") {
        utf16(rest, u16::from_be_bytes)
    } else {
        String::from_utf8_lossy(strip_bom(contents)).into_owned()
    }
}

/// JUnit XML: one error per `<testcase>` with a `<failure>` or `<error>`,
/// placed by its `file` and `line` attributes, else by the stack frames of
/// its text (` ❯ path:line:col`, `at fn (path:line:col)`). Empty when the root is neither `testsuites` nor `testsuite`, or the XML
/// is malformed.
pub(crate) fn junit(contents: &[u8]) -> Vec<Diagnostic> {
    let text = decode(contents);
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let Ok(doc) = roxmltree::Document::parse_with_options(&text, options) else {
        return Vec::new();
    };
    let root = doc.root_element();
    if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
        return Vec::new();
    }
    let mut found = Vec::new();
    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        let Some(problem) = case
            .children()
            .find(|n| n.is_element() && matches!(n.tag_name().name(), "failure" | "error"))
        else {
            continue;
        };
        // A classname that is the test's file (vitest) or repeats its name
        // (jest-junit) adds nothing to the name.
        let rule = match (attr(case, "classname"), attr(case, "name")) {
            (Some(class), Some(name)) if class == name || looks_like_path(class) => {
                Some(name.to_string())
            }
            (Some(class), Some(name)) => Some(format!("{class}.{name}")),
            (None, Some(name)) => Some(name.to_string()),
            (Some(class), None) => Some(class.to_string()),
            (None, None) => None,
        };
        // Text nodes only: an element's own `text()` is its first child's
        // text, which would count that text twice.
        let text: String = problem
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .collect();
        let message = attr(problem, "message")
            .map(str::to_string)
            .or_else(|| {
                text.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| problem.tag_name().name().to_string());
        let mut file = attr(case, "file").map(str::to_string);
        let mut line = attr(case, "line")
            .and_then(|l| l.parse().ok())
            .filter(|&l| l > 0);
        let mut column = None;
        // No line given (vitest, jest-junit, node --test): the failure
        // text's first stack frame in the testcase's file (its `file`
        // attribute, else a classname that is a path, as vitest writes);
        // without a `file` attribute, else the text's first frame outside
        // node_modules; else the classname's file without a line.
        if line.is_none() {
            let classname = attr(case, "classname").filter(|c| looks_like_path(c));
            let named = file.as_deref().or(classname);
            let frame =
                crate::parse::vitest::stack_location(&text, named).filter(|(path, _, _)| {
                    file.as_deref()
                        .is_none_or(|f| crate::parse::vitest::same_file(path, f))
                });
            match frame {
                Some((path, at, col)) => {
                    file = Some(path);
                    line = Some(at);
                    column = Some(col);
                }
                None => file = file.or(classname.map(str::to_string)),
            }
        }
        found.push(Diagnostic {
            file,
            line,
            column,
            severity: DiagSeverity::Error,
            rule,
            message: clip(message),
            ..Default::default()
        });
    }
    found
}

/// Whether a classname names a file (`tests/x.test.ts`) rather than a
/// dotted class (`pkg.TestX`).
fn looks_like_path(classname: &str) -> bool {
    classname.contains(['/', '\\'])
        || classname.rsplit_once('.').is_some_and(|(_, ext)| {
            ["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"].contains(&ext)
        })
}

/// A non-blank attribute, trimmed.
fn attr<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute(name)
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// SARIF 2.1.0: one diagnostic per result (results of kind `pass` or
/// `notApplicable`, and suppressed ones, are not problems and are left out).
/// Empty when the JSON is malformed or not SARIF 2.1.0.
pub(crate) fn sarif(contents: &[u8]) -> Vec<Diagnostic> {
    // A report a check wrote is untrusted: as many values as a user's JSON
    // input at most, so parsing it stays bounded in memory.
    if crate::json_input::values(contents) > crate::json_input::MAX_VALUES {
        return Vec::new();
    }
    let Ok(doc) = serde_json::from_slice::<Value>(strip_bom(contents)) else {
        return Vec::new();
    };
    let Some(runs) = doc["runs"].as_array().filter(|_| doc["version"] == "2.1.0") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for run in runs {
        let rules = run.pointer("/tool/driver/rules").and_then(Value::as_array);
        let Some(results) = run["results"].as_array() else {
            continue;
        };
        for result in results {
            if matches!(result["kind"].as_str(), Some("pass" | "notApplicable"))
                || suppressed(result)
            {
                continue;
            }
            found.push(sarif_result(run, rules, result));
        }
    }
    found
}

fn suppressed(result: &Value) -> bool {
    result["suppressions"].as_array().is_some_and(|list| {
        list.iter()
            .any(|s| matches!(s["status"].as_str(), None | Some("accepted")))
    })
}

fn sarif_result(run: &Value, rules: Option<&Vec<Value>>, result: &Value) -> Diagnostic {
    let rule_id = result["ruleId"]
        .as_str()
        .or_else(|| result.pointer("/rule/id").and_then(Value::as_str));
    let index = result["ruleIndex"]
        .as_u64()
        .or_else(|| result.pointer("/rule/index").and_then(Value::as_u64));
    let descriptor = rules.and_then(|rules| {
        index
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| rules.get(i))
            .or_else(|| rule_id.and_then(|id| rules.iter().find(|r| r["id"] == id)))
    });
    let rule_id = rule_id.or_else(|| descriptor.and_then(|d| d["id"].as_str()));
    let level = result["level"].as_str().or_else(|| {
        descriptor
            .and_then(|d| d.pointer("/defaultConfiguration/level"))
            .and_then(Value::as_str)
    });
    let severity = match level {
        Some("error") => DiagSeverity::Error,
        Some("note") => DiagSeverity::Note,
        Some("none") => DiagSeverity::Info,
        // `warning`, absent (SARIF's default) or unknown.
        _ => DiagSeverity::Warning,
    };
    let message = result["message"]["text"]
        .as_str()
        .or_else(|| result["message"]["markdown"].as_str())
        .map(|text| placeholders(text, &result["message"]["arguments"]))
        .or_else(|| {
            descriptor
                .and_then(|d| d.pointer("/shortDescription/text"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .or_else(|| rule_id.map(str::to_string))
        .unwrap_or_else(|| "(no message)".to_string());
    let physical = result.pointer("/locations/0/physicalLocation");
    let artifact = physical.map(|p| &p["artifactLocation"]);
    let uri = artifact.and_then(|a| {
        a["uri"].as_str().or_else(|| {
            let index = usize::try_from(a["index"].as_u64()?).ok()?;
            run["artifacts"]
                .get(index)?
                .pointer("/location/uri")?
                .as_str()
        })
    });
    let region = physical.map(|p| &p["region"]);
    let number = |key: &str| region.and_then(|r| r[key].as_u64()).filter(|&n| n > 0);
    Diagnostic {
        file: uri.map(uri_to_path).filter(|f| !f.is_empty()),
        line: number("startLine"),
        column: number("startLine").and(number("startColumn")),
        severity,
        rule: rule_id.map(str::to_string),
        message: clip(message),
        ..Default::default()
    }
}

/// SARIF message placeholders: `{0}` is the first argument; `{{`/`}}` are
/// literal braces.
fn placeholders(text: &str, arguments: &Value) -> String {
    let arguments = arguments.as_array();
    if arguments.is_none() && !text.contains("{{") && !text.contains("}}") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if let Some((number, after)) = tail.strip_prefix('{').and_then(|t| t.split_once('}'))
        {
            match number
                .parse::<usize>()
                .ok()
                .and_then(|n| arguments?.get(n)?.as_str())
            {
                Some(arg) => out.push_str(arg),
                None => {
                    out.push('{');
                    out.push_str(number);
                    out.push('}');
                }
            }
            rest = after;
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A SARIF `uri` as a path: `file://` stripped (a Windows drive loses its
/// leading `/`), percent-escapes decoded.
fn uri_to_path(uri: &str) -> String {
    let path = match uri.strip_prefix("file://") {
        Some(rest) if rest.starts_with('/') => {
            let bytes = rest.as_bytes();
            if bytes.len() >= 3 && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
                &rest[1..]
            } else {
                rest
            }
        }
        // `file://host/share/x`: a UNC path.
        Some(rest) => return format!("//{}", percent_decode(rest)),
        None => uri.strip_prefix("file:").unwrap_or(uri),
    };
    percent_decode(path)
}

fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// At most `MAX_MESSAGE` bytes, trailing whitespace removed.
fn clip(message: String) -> String {
    crate::parse::clip(message.trim_end(), MAX_MESSAGE)
}

#[cfg(test)]
mod tests {
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

    fn error(rule: &str, message: &str) -> Diagnostic {
        Diagnostic {
            rule: Some(rule.into()),
            message: message.into(),
            severity: DiagSeverity::Error,
            ..Diagnostic::default()
        }
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
    fn a_real_pytest_report_names_failures_and_errors() {
        let found = parse("junit.xml", &fixture("pytest-junit.xml"));
        assert_eq!(
            found,
            vec![
                error(
                    "test_sample.test_add_fails",
                    "assert 4 == 5\n +  where 4 = add(2, 2)"
                ),
                error(
                    "test_sample.TestStrings.test_join_fails",
                    "AssertionError: joined with the wrong separator\nassert 'x-y' == 'x,y'\n  \n  - x,y\n  + x-y"
                ),
                error(
                    "test_sample.test_uses_broken_fixture",
                    "failed on setup with \"RuntimeError: fixture setup exploded\""
                ),
            ]
        );
        // xunit1 adds file and line attributes (pytest's line is 0-based; it is
        // taken as written).
        let found = parse("junit.xml", &fixture("pytest-junit-xunit1.xml"));
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].file.as_deref(), Some("test_sample.py"));
        assert_eq!(found[0].line, Some(11));
    }

    #[test]
    fn a_real_node_report_with_testcases_outside_any_testsuite() {
        let found = junit(&fixture("node-junit.xml"));
        let rules: Vec<_> = found.iter().map(|f| f.rule.as_deref().unwrap()).collect();
        assert_eq!(
            rules,
            ["test.subtracts <wrong> & fails", "test.nested throws"]
        );
        assert_eq!(found[0].message, "3 - 1 should be 1 (it is not)2 !== 1");
        assert_eq!(found[1].message, "boom");
        // No file or line attributes: the first frame outside node's own.
        let places: Vec<_> = found
            .iter()
            .map(|f| (f.file.as_deref().unwrap(), f.line, f.column))
            .collect();
        assert_eq!(
            places,
            [
                ("/tmp/nt/math.test.js", Some(9), Some(10)),
                ("/tmp/nt/math.test.js", Some(15), Some(11)),
            ]
        );
    }

    fn located(file: &str, line: u64, column: u64, rule: &str, message: &str) -> Diagnostic {
        Diagnostic {
            file: Some(file.into()),
            line: Some(line),
            column: Some(column),
            ..error(rule, message)
        }
    }

    #[test]
    fn a_real_vitest_report_is_located_by_its_failure_text() {
        // Classname = the file, no file or line attribute: the ` ❯ ` frame in
        // that file (the test's line, also when a helper threw).
        let found = junit(include_bytes!(
            "../../tests/fixtures/diagnostics/vitest/vitest-junit.xml"
        ));
        assert_eq!(
            found,
            vec![
                located(
                    "tests/broken.test.ts",
                    2,
                    1,
                    "tests/broken.test.ts",
                    "Cannot find module '../src/missing' imported from '/work/proj/tests/broken.test.ts'"
                ),
                located(
                    "tests/math.test.ts",
                    6,
                    15,
                    "adds two numbers",
                    "expected 2 to be 3 // Object.is equality"
                ),
                located(
                    "tests/math.test.ts",
                    16,
                    14,
                    "parseAmount > blank input > returns zero",
                    "empty amount: \"  \""
                ),
                located(
                    "tests/strings.test.ts",
                    5,
                    54,
                    "shouts",
                    "expected { name: 'ADA', role: 'admin' } to deeply equal { name: 'ADA', role: 'owner' }"
                ),
                located(
                    "tests/strings.test.ts",
                    12,
                    9,
                    "throws directly",
                    "not implemented yet"
                ),
            ]
        );
    }

    #[test]
    fn a_real_jest_junit_report_is_located_by_its_failure_text() {
        // jest-junit names no file: the first `at` frame outside node_modules
        // (jest's own frames are skipped); a helper that threw is that frame.
        let found = junit(include_bytes!(
            "../../tests/fixtures/diagnostics/jest/jest-junit.xml"
        ));
        assert_eq!(
            found,
            vec![
                located(
                    "/work/proj/tests/math.test.js",
                    5,
                    15,
                    "adds two numbers",
                    "Error: expect(received).toBe(expected) // Object.is equality"
                ),
                located(
                    "/work/proj/src/parse.js",
                    3,
                    11,
                    "parseAmount blank input returns zero",
                    "RangeError: empty amount: \"  \""
                ),
                located(
                    "/work/proj/tests/strings.test.js",
                    3,
                    54,
                    "shouts",
                    "Error: expect(received).toEqual(expected) // deep equality"
                ),
                located(
                    "/work/proj/tests/strings.test.js",
                    10,
                    9,
                    "throws directly",
                    "TypeError: not implemented yet"
                ),
            ]
        );
    }

    #[test]
    fn a_file_attribute_limits_the_frames_and_a_line_attribute_wins() {
        let xml = br#"<testsuite>
<testcase classname="a" name="t1" file="tests/a.test.js"><failure>x
    at helper (src/h.js:3:1)
    at Object.t (tests/a.test.js:7:2)</failure></testcase>
<testcase classname="a" name="t2" file="tests/b.test.js"><failure>y
    at helper (src/h.js:3:1)</failure></testcase>
<testcase classname="a" name="t3" file="tests/c.test.js" line="4"><failure>z
    at Object.t (tests/c.test.js:9:9)</failure></testcase>
<testcase classname="tests/d.test.ts" name="t4"><failure>w</failure></testcase>
</testsuite>"#;
        let places: Vec<_> = junit(xml)
            .into_iter()
            .map(|f| (f.rule.unwrap(), f.file.unwrap(), f.line, f.column))
            .collect();
        assert_eq!(
            places,
            [
                ("a.t1".into(), "tests/a.test.js".into(), Some(7), Some(2)),
                ("a.t2".into(), "tests/b.test.js".into(), None, None),
                ("a.t3".into(), "tests/c.test.js".into(), Some(4), None),
                ("t4".into(), "tests/d.test.ts".into(), None, None),
            ]
        );
    }

    #[test]
    fn junit_body_without_message_appears_once() {
        // A failure whose only text is its body, exactly as a user reported it.
        let xml = br#"<testsuite name="s">
<testcase classname="A" name="fbody"><failure>failure body only</failure></testcase>
<testcase classname="A" name="ebody"><error type="RuntimeError">error body only</error></testcase>
<testcase classname="A" name="cdata"><failure><![CDATA[cdata body]]></failure></testcase>
</testsuite>
"#;
        assert_eq!(
            junit(xml),
            vec![
                error("A.fbody", "failure body only"),
                error("A.ebody", "error body only"),
                error("A.cdata", "cdata body"),
            ]
        );
        // Text split by a child element is joined once, in order.
        let nested = b"<testsuite><testcase name='t'><failure>ab<b>cd</b>ef</failure></testcase></testsuite>";
        assert_eq!(junit(nested), vec![error("t", "abcdef")]);
    }

    #[test]
    fn junit_shapes() {
        let found = junit(&fixture("edge-junit.xml"));
        assert_eq!(
            found,
            vec![
                Diagnostic {
                    file: Some("src/mod.rs".into()),
                    line: Some(42),
                    ..error("pkg.Mod.with_attrs", "expected <1> & got 2")
                },
                error("no_classname", "first line of the error text"),
                error("pkg.empty_failure", "failure"),
                error("pkg.two_failures", "first"),
            ]
        );
        // Not a JUnit root, malformed, truncated, not UTF-8: nothing.
        assert!(junit(b"<project><testcase name='x'><failure/></testcase></project>").is_empty());
        assert!(junit(b"<testsuite><testcase name='x'><failure>").is_empty());
        assert!(junit(b"").is_empty());
        assert!(junit(b"\xff\xfe<\x00").is_empty());
        // UTF-16 with a byte-order mark, both byte orders.
        let xml = "<?xml version='1.0' encoding='UTF-16'?><testsuite><testcase name='t'><failure message='é'/></testcase></testsuite>";
        let mut le = vec![0xFF, 0xFE];
        let mut be = vec![0xFE, 0xFF];
        for unit in xml.encode_utf16() {
            le.extend(unit.to_le_bytes());
            be.extend(unit.to_be_bytes());
        }
        assert_eq!(junit(&le), vec![error("t", "é")]);
        assert_eq!(junit(&be), vec![error("t", "é")]);
        // Entities defined by a DTD are fine; a billion laughs is refused.
        let dtd = b"<?xml version='1.0'?><!DOCTYPE t [<!ENTITY m 'boom'>]>\
            <testsuite><testcase name='t'><failure message='&m;'/></testcase></testsuite>";
        assert_eq!(junit(dtd), vec![error("t", "boom")]);
        let mut laughs = String::from("<?xml version='1.0'?><!DOCTYPE t [<!ENTITY a0 'lol'>");
        for i in 1..12 {
            let prev = format!("&a{};", i - 1);
            laughs.push_str(&format!("<!ENTITY a{i} '{}'>", prev.repeat(10)));
        }
        laughs.push_str(
            "]><testsuite><testcase name='t'><failure message='&a11;'/></testcase></testsuite>",
        );
        assert!(junit(laughs.as_bytes()).len() <= 1);
    }

    #[test]
    fn real_sarif_from_ruff_and_eslint() {
        let found = parse("lint.sarif", &fixture("ruff.sarif"));
        assert_eq!(found.len(), 5);
        assert_eq!(
            found[0],
            Diagnostic {
                file: Some("/tmp/fx/lint/sample.py".into()),
                line: Some(1),
                column: Some(8),
                severity: DiagSeverity::Error,
                rule: Some("F401".into()),
                message: "`os` imported but unused".into(),
                ..Default::default()
            }
        );
        assert_eq!(found[4].rule.as_deref(), Some("F821"));
        assert_eq!((found[4].line, found[4].column), (Some(9), Some(12)));

        let found = parse("eslint.sarif.json", &fixture("eslint.sarif"));
        let summary: Vec<_> = found
            .iter()
            .map(|f| (f.rule.as_deref().unwrap(), f.severity, f.line.unwrap()))
            .collect();
        assert_eq!(
            summary,
            [
                ("no-unused-vars", DiagSeverity::Error, 1),
                ("prefer-const", DiagSeverity::Error, 1),
                ("eqeqeq", DiagSeverity::Warning, 3),
                ("no-console", DiagSeverity::Warning, 4),
                ("prefer-const", DiagSeverity::Error, 6),
            ]
        );
        assert_eq!(found[3].file.as_deref(), Some("/tmp/esl/src/app.js"));
    }

    #[test]
    fn sarif_shapes() {
        let found = sarif(&fixture("edge.sarif"));
        let expect = |rule: &str, severity, message: &str| Diagnostic {
            rule: Some(rule.into()),
            severity,
            message: message.into(),
            ..Diagnostic::default()
        };
        assert_eq!(
            found,
            vec![
                Diagnostic {
                    file: Some("src/with space.c".into()),
                    line: Some(4),
                    ..expect("R-none", DiagSeverity::Info, "level none is informational")
                },
                Diagnostic {
                    file: Some("/abs/dir/x.c".into()),
                    line: Some(7),
                    column: Some(2),
                    ..expect("R-absent", DiagSeverity::Warning, "no level means warning")
                },
                expect(
                    "R-default-note",
                    DiagSeverity::Note,
                    "rule by index, level from its defaultConfiguration"
                ),
                Diagnostic {
                    file: Some("lib/y.c".into()),
                    ..expect("R-plain", DiagSeverity::Error, "rule by reference object")
                },
                expect("S1", DiagSeverity::Warning, "from the second run"),
            ]
        );
        // Not SARIF 2.1.0, malformed, or a plain JSON file: nothing.
        assert!(
            sarif(br#"{"version":"2.0.0","runs":[{"results":[{"message":{"text":"x"}}]}]}"#)
                .is_empty()
        );
        assert!(sarif(br#"{"version":"2.1.0","runs":[{"results":[{"mess"#).is_empty());
        assert!(parse("package.json", br#"{"name":"x","version":"2.1.0"}"#).is_empty());
        assert!(parse("notes.txt", &fixture("ruff.sarif")).is_empty());
    }

    #[test]
    fn sarif_kinds_suppressions_arguments_and_uris() {
        let doc = br#"{"version":"2.1.0","runs":[{"artifacts":[{"location":{"uri":"file:///C:/src/a%2Bb.rs"}}],"results":[
            {"ruleId":"ok","kind":"pass","message":{"text":"fine"}},
            {"ruleId":"hidden","suppressions":[{"kind":"inSource"}],"message":{"text":"x"}},
            {"ruleId":"shown","suppressions":[{"kind":"external","status":"rejected"}],
             "message":{"text":"{0} is {1} {{literally}} {7}","arguments":["x","bad"]},
             "locations":[{"physicalLocation":{"artifactLocation":{"index":0},"region":{"startColumn":3}}}]},
            {"ruleId":"unc","level":"note","message":{"text":"m"},
             "locations":[{"physicalLocation":{"artifactLocation":{"uri":"file://server/share/x.c"},"region":{"startLine":0}}}]}
        ]}]}"#;
        let found = sarif(doc);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].message, "x is bad {literally} {7}");
        assert_eq!(found[0].file.as_deref(), Some("C:/src/a+b.rs"));
        assert_eq!((found[0].line, found[0].column), (None, None));
        assert_eq!(found[1].file.as_deref(), Some("//server/share/x.c"));
        assert_eq!(found[1].line, None);
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("%e2%9c%93%zz"), "✓%zz");
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
        assert_eq!(huge.sha256, crate::config::hex(&Sha256::digest(&big)));
        // 3 JUnit failures, then ruff's 5 results: files in path order.
        assert_eq!(c.found.len(), 8);
        assert_eq!(
            c.found[0].rule.as_deref(),
            Some("test_sample.test_add_fails")
        );
        assert_eq!(c.found[3].rule.as_deref(), Some("F401"));
    }

    #[test]
    fn long_messages_are_clipped_on_a_char_boundary() {
        let long = "é".repeat(MAX_MESSAGE);
        let clipped = clip(long);
        assert!(clipped.len() <= MAX_MESSAGE + '…'.len_utf8());
        assert!(clipped.ends_with('…'));
        assert_eq!(clip("x  \n".into()), "x");
    }
}
