//! Built-in `scan` checks (docs/checks-toml.md): no process, just the worktree's
//! files read and matched against the check's rules (`rules/`).
//!
//! The walk is the `ignore` crate's parallel walker rooted at the worktree,
//! honouring `.gitignore` files and `.git/info/exclude` (also outside a git
//! repository) and nothing that lives outside the worktree: no ignore files of
//! parent directories, no global git excludes, no `.ignore` files. Hidden
//! files are scanned (`.env`, `.github/`), `.git` is not, nor any
//! `node_modules/` (installed dependencies, whether .gitignore lists it
//! or not: a project without a .gitignore is not blamed for its
//! dependencies' test keys). Files are opened
//! with `O_NOFOLLOW`, so a path swapped for a symlink mid-walk is not read.
//! `scan.paths` patterns (read by `config::pattern`: relative to the
//! worktree, `/` separators, a directory selects everything below it; `*`
//! does not cross `/`, `**` does) select the files read, and directories no
//! glob can reach are not entered. A file is read whatever its size and
//! whatever bytes it holds, in bounded pieces (`read`); invalid UTF-8 is
//! replaced, never an error. A selected symlink to a regular file inside
//! the worktree (outside `scan.paths`, or ignored) is followed once, after
//! the walk, and its findings are the target's: a link cannot lead the scan
//! around a file. What still cannot be read (a FIFO, a link out of the
//! worktree, to a directory or to nothing, a file that cannot be opened) is
//! listed, and when it changed since the base it is an error-level
//! finding of rule `scan-skipped` (`since`): the scan fails.
//!
//! A line with a `run-check: allow` comment (`rules::lines::allowed`) yields
//! no finding: its hits are counted in `ScanResult::allowed`, which the
//! check's evidence carries as `data.allowed`.
//!
//! Findings are deterministic: sorted by (path, line, column, rule). At most
//! `MAX_PER_CHECK` are kept (errors before lower severities, then in that
//! order), the rest are counted in `ScanResult::dropped`, so memory stays
//! bounded however many lines match.

mod read;
mod rules;
mod since;

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::config::{DiagSeverity, ScanConfig, pattern};
use crate::parse::{Diagnostic, MAX_PER_CHECK};
pub(crate) use rules::redact_path;
pub(crate) use since::{Base, Context, Reason, Skipped};

/// A file's text at the base larger than this is not compared with the
/// worktree's (`since`: every marker of such a changed file is new).
pub(crate) const MAX_BASE_BYTES: u64 = 1024 * 1024;

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct ScanResult {
    /// Findings sorted by (path, line, column, rule); paths relative to the
    /// worktree with `/` separators, tokens in them masked. At most
    /// `MAX_PER_CHECK`.
    pub(crate) found: Vec<Diagnostic>,
    /// Findings beyond `MAX_PER_CHECK`, not kept.
    pub(crate) dropped: u64,
    /// Findings silenced by a `run-check: allow` comment on their line: not
    /// reported, only counted (the check's `data.allowed`).
    pub(crate) allowed: u64,
    /// Findings on a line whose marker is new since the base (`since`):
    /// reported in strict mode, silenced (and in `allowed`) in fast mode.
    pub(crate) allowed_new: u64,
    /// Files not read, changed ones first, at most `since::MAX_SKIPPED`.
    pub(crate) skipped: Vec<Skipped>,
    /// Every file not read.
    pub(crate) skipped_total: u64,
}

impl ScanResult {
    /// The check's `data`: `allowed`, `allowed_new`, `skipped` and
    /// `skipped_total` (docs/evidence.md).
    pub(crate) fn data(&self) -> serde_json::Map<String, serde_json::Value> {
        since::data(
            self.allowed,
            self.allowed_new,
            &self.skipped,
            self.skipped_total,
        )
    }
}

/// Scans the worktree with the check's rules, weighing markers and files
/// not read against the base of `context`.
pub(crate) fn run(scan: &ScanConfig, worktree: &Path, context: Context<'_>) -> ScanResult {
    let matcher = rules::Matcher::new(&scan.rules, &scan.custom);
    if matcher.is_empty() {
        return ScanResult::default();
    }
    let selection = Arc::new(Selection::new(&scan.paths));
    let shared = Shared {
        kept: Mutex::new(Kept::default()),
        hasher: RandomState::new(),
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
        // Installed dependencies, someone else's code (their test keys
        // are no secret of this project), ignored or not.
        if entry.file_name() == "node_modules" {
            return false;
        }
        relative(entry.path(), &root).is_some_and(|rel| filter.may_contain(&rel))
    });
    let mut visitors = Visitors {
        matcher: &matcher,
        selection: &selection,
        root: worktree,
        shared: &shared,
    };
    builder.build_parallel().visit(&mut visitors);

    let mut kept = shared.kept.into_inner().unwrap_or_else(|e| e.into_inner());
    let links = std::mem::take(&mut kept.links);
    let mut reader = Reader::new(matcher, kept);
    let unread = follow_links(links, worktree, &mut reader, &shared.hasher);
    let mut kept = reader.kept;
    let mut not_read: Vec<since::NotRead> = std::mem::take(&mut kept.skipped)
        .into_iter()
        .map(|(rel, reason)| since::NotRead {
            rel,
            reason,
            target: None,
        })
        .collect();
    not_read.extend(unread);
    let settled = since::settle(std::mem::take(&mut kept.marked), not_read, context);
    for found in settled.standing {
        kept.push(found);
    }
    kept.compact();
    kept.found.sort_by(|a, b| order(a).cmp(&order(b)));
    ScanResult {
        found: kept.found,
        dropped: kept.dropped,
        allowed: settled.allowed,
        allowed_new: settled.allowed_new,
        skipped: settled.skipped,
        skipped_total: settled.skipped_total,
    }
}

/// Follows the symlinks among `links` (worktree-relative) whose target is
/// a regular file inside the worktree that the scan did not read yet (its
/// findings are the target's, read once however many links lead to it);
/// returns those it cannot follow: out of the worktree or into its git
/// directory, to a directory, or to nothing. Each keeps its target's path
/// when that lies in the worktree, so that a change of the target counts
/// as a change of the link.
fn follow_links(
    links: Vec<String>,
    root: &Path,
    reader: &mut Reader,
    hasher: &RandomState,
) -> Vec<since::NotRead> {
    if links.is_empty() {
        return Vec::new();
    }
    let canonical = dunce::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut unread = Vec::new();
    for rel in links {
        let target = dunce::canonicalize(root.join(&rel))
            .ok()
            .and_then(|target| relative(&target, &canonical))
            .filter(|target| !target.is_empty());
        let readable = target
            .as_deref()
            .filter(|target| !target.split('/').any(|part| part == ".git"));
        if let Some(target) = readable {
            let hash = hasher.hash_one(target);
            if reader.kept.read.contains(&hash) {
                continue;
            }
            let path = canonical.join(target);
            if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
                reader.file(&path, target.to_string(), hash);
                continue;
            }
        }
        unread.push(since::NotRead {
            rel,
            reason: Reason::LinkOutsidePaths,
            target,
        });
    }
    unread
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

/// Findings kept so far, the count of the dropped ones, and what the
/// comparison with the base needs: findings on marker lines, files not
/// read, symlinks, and the files read.
#[derive(Default)]
struct Kept {
    found: Vec<Diagnostic>,
    dropped: u64,
    /// Files with findings on a marker line (silenced or not: `since`).
    marked: Vec<since::Marked>,
    /// Files selected but not read (not symlinks), worktree-relative.
    skipped: Vec<(String, Reason)>,
    /// Symlinks selected, worktree-relative.
    links: Vec<String>,
    /// Hashes of the worktree-relative paths of the files read (a link to
    /// one of them hides nothing).
    read: HashSet<u64>,
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
        self.marked.extend(other.marked);
        self.skipped.extend(other.skipped);
        self.links.extend(other.links);
        self.read.extend(other.read);
        for found in other.found {
            self.push(found);
        }
    }
}

/// State shared by the walker's threads.
struct Shared {
    kept: Mutex<Kept>,
    /// Hashes the paths of `Kept::read`.
    hasher: RandomState,
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
            selection: self.selection,
            root: self.root,
            shared: self.shared,
            reader: Reader::new(self.matcher.clone(), Kept::default()),
        })
    }
}

/// One walker thread: its own reader (regex caches, buffer, findings),
/// merged into `Shared` when the thread ends.
struct Visitor<'a> {
    selection: &'a Selection,
    root: &'a Path,
    shared: &'a Shared,
    reader: Reader,
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        match entry {
            Ok(entry) => self.entry(&entry),
            Err(err) => self.error(&err),
        }
        WalkState::Continue
    }
}

impl Visitor<'_> {
    /// A file is read; a symlink is kept for `follow_links`; anything else
    /// but a directory (a FIFO, a socket) is not read.
    fn entry(&mut self, entry: &DirEntry) {
        let Some(kind) = entry.file_type() else {
            return;
        };
        if kind.is_dir() {
            return;
        }
        let Some(rel) = relative(entry.path(), self.root) else {
            return;
        };
        if !self.selection.matches(&rel) {
            return;
        }
        if kind.is_file() {
            let hash = self.shared.hasher.hash_one(&rel);
            self.reader.file(entry.path(), rel, hash);
        } else if kind.is_symlink() {
            self.reader.kept.links.push(rel);
        } else {
            self.reader.kept.skipped.push((rel, Reason::NotAFile));
        }
    }

    /// An entry the walk could not read (a directory without permission, a
    /// vanished file): not read, when the scan would have read it or below.
    fn error(&mut self, err: &ignore::Error) {
        if let Some(rel) = error_path(err).and_then(|path| relative(path, self.root))
            && !rel.is_empty()
            && (self.selection.matches(&rel) || self.selection.may_contain(&rel))
        {
            self.reader.kept.skipped.push((rel, Reason::Unreadable));
        }
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let kept = std::mem::take(&mut self.reader.kept);
        let mut shared = self.shared.kept.lock().unwrap_or_else(|e| e.into_inner());
        shared.merge(kept);
    }
}

/// Reads files and keeps their findings: a regex cache, a buffer of one
/// piece (`read`), and what was kept.
struct Reader {
    matcher: rules::Matcher,
    kept: Kept,
    buf: Vec<u8>,
    /// The (line, rule) hits of the lines a piece shares with the one
    /// before it (a long line read in segments): a rule hits a line once.
    open: HashSet<(u64, usize)>,
}

impl Reader {
    fn new(matcher: rules::Matcher, kept: Kept) -> Reader {
        Reader {
            matcher,
            kept,
            buf: Vec::new(),
            open: HashSet::new(),
        }
    }

    /// Reads the regular file at `path` (worktree-relative `rel`, whose
    /// hash is `hash`) without following a symlink; when it cannot be
    /// opened or read, it is kept as not read (what was read of it stands).
    fn file(&mut self, path: &Path, rel: String, hash: u64) {
        let Some((mut file, _)) = crate::paths::open_regular(path) else {
            self.kept.skipped.push((rel, Reason::Unreadable));
            return;
        };
        let mut buf = std::mem::take(&mut self.buf);
        let mut marked = since::Marked::new(rel.clone(), path.to_path_buf());
        // The path as findings show it, masked once per file.
        let mut shown: Option<String> = None;
        self.open.clear();
        let read = read::pieces(&mut file, &mut buf, |piece| {
            self.piece(&piece, &rel, &mut shown, &mut marked);
        });
        self.buf = buf;
        if read.is_err() {
            self.kept.skipped.push((rel, Reason::Unreadable));
            return;
        }
        self.kept.read.insert(hash);
        if !marked.is_empty() {
            self.kept.marked.push(marked);
        }
    }

    /// The findings of one piece of the file `rel`.
    fn piece(
        &mut self,
        piece: &read::Piece<'_>,
        rel: &str,
        shown: &mut Option<String>,
        marked: &mut since::Marked,
    ) {
        if !piece.open {
            self.open.clear();
        }
        // `from_utf8` first: its ASCII fast path beats the lossy decoder.
        let text = match std::str::from_utf8(piece.bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(piece.bytes),
        };
        let matcher = &self.matcher;
        let kept = &mut self.kept;
        let open = &mut self.open;
        let mut on_marker: Vec<(u64, Diagnostic)> = Vec::new();
        matcher.scan(&text, &mut |hit| {
            let line = hit.line + piece.first_line - 1;
            let mut column = hit.column;
            if hit.line == 1 {
                column += piece.column_offset;
                if piece.open && !open.insert((line, hit.rule)) {
                    return;
                }
            }
            let file = shown
                .get_or_insert_with(|| rules::redact_path(rel).into_owned())
                .clone();
            let rule = matcher.rule(hit.rule);
            let found = Diagnostic {
                file: Some(file),
                line: Some(line),
                column: Some(column),
                severity: rule.severity,
                rule: Some(rule.id.clone()),
                message: rule.message.clone(),
                suggestion: rule.suggestion.map(str::to_string),
                ..Default::default()
            };
            if hit.allowed {
                on_marker.push((line, found));
            } else {
                kept.push(found);
            }
        });
        if !on_marker.is_empty() {
            marked.add(&text, piece.first_line, on_marker);
        }
    }
}

/// The path an error of the walk is about, when it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } => error_path(err),
        _ => None,
    }
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
mod tests;
