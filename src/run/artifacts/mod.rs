//! A check's `artifacts`: files matched by worktree-relative globs, recorded
//! with size and sha256, and JUnit XML / SARIF 2.1.0 among them parsed into
//! diagnostics by `parse::artifact` (docs/evidence.md).
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
use sha2::{Digest, Sha256};

use crate::parse::Diagnostic;
use run_check_documents::evidence::Artifact;

/// Files larger than this are recorded (size, hash) but not parsed.
pub(crate) const MAX_PARSE_BYTES: u64 = 16 * 1024 * 1024;

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
            collected
                .found
                .extend(crate::parse::artifact::parse(&rel, &contents));
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
            depth: (!rest.iter().any(|c| c.contains("**"))).then_some(rest.len()),
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
        sha256: crate::digest::hex(&hasher.finalize()),
    };
    Some((artifact, parse.then_some(contents)))
}

#[cfg(test)]
mod tests;
