//! `run-check init`: writes a starter checks.toml for the project it finds in
//! the worktree — Cargo, npm / pnpm / yarn, Python (pytest, ruff, black,
//! mypy, only when the project declares them), Go, CMake (configure, build,
//! ctest), and a Makefile's build and `test` / `check` / `lint` targets when
//! nothing else is recognised — plus a `secrets` scan. Every check carries a
//! comment saying why it is there.
//!
//! It never overwrites: when checks.toml exists (as anything, a dangling
//! symlink included) it exits 2 and changes nothing, and the file is created
//! with a no-clobber rename of a temporary file, so a checks.toml that
//! appears meanwhile is not replaced either. The text it writes is parsed
//! with `config::parse` before it is written: init cannot write a file that
//! `run-check validate` rejects. It reads only the project's manifests and
//! runs nothing.
//!
//! Layout: this module is the starter's model (`Check`, `Fix`,
//! `Found`), the detection driver, and the checked, no-clobber write. One
//! detector per ecosystem (`cargo`, `node`, `python`, `go`, `cmake`, and
//! `make` as the fallback) turns manifests into checks; `render` turns what they found into
//! the checks.toml text.

mod cargo;
mod cmake;
mod go;
mod make;
mod node;
mod python;
mod render;
mod writers;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::error::Error;
use crate::output::plural;

const FAST_STRICT: &[&str] = &["fast", "strict"];
const STRICT: &[&str] = &["strict"];

/// One `[[check]]` of the starter.
#[derive(Debug, Clone, PartialEq)]
struct Check {
    name: String,
    /// argv; empty for the scan.
    run: Vec<String>,
    modes: &'static [&'static str],
    paths: Vec<String>,
    parser: Option<&'static str>,
    env: Vec<(&'static str, &'static str)>,
    /// A comment line above the check.
    comment: Option<String>,
    /// Checks that run first (`needs`).
    needs: Vec<String>,
    /// `[[check.matcher]]`s: a regex with a `message` group.
    matchers: Vec<&'static str>,
}

/// One `[[fix]]` of the starter.
#[derive(Debug, Clone, PartialEq)]
struct Fix {
    name: String,
    run: Vec<String>,
}

/// What one detector found.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    /// `Cargo`, `npm`, `Python`, ...
    ecosystem: String,
    /// The files that identified it.
    files: Vec<String>,
    checks: Vec<Check>,
    fixes: Vec<Fix>,
    /// Scripts or targets not adopted because they write files: comment
    /// paragraphs for checks.toml, saying why.
    refused: Vec<String>,
}

/// Everything init found in a worktree.
#[derive(Debug, Default)]
struct Detected {
    found: Vec<Found>,
    /// Lines for the user (what was seen but not used, and why).
    notes: Vec<String>,
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn globs(globs: &[&str]) -> Vec<String> {
    argv(globs)
}

impl Fix {
    fn new(name: &str, run: &[&str]) -> Fix {
        Fix {
            name: name.into(),
            run: argv(run),
        }
    }
}

impl Check {
    fn new(name: &str, run: &[&str], modes: &'static [&'static str]) -> Check {
        Check {
            name: name.into(),
            run: argv(run),
            modes,
            paths: Vec::new(),
            parser: None,
            env: Vec::new(),
            comment: None,
            needs: Vec::new(),
            matchers: Vec::new(),
        }
    }

    fn needs(mut self, name: &str) -> Check {
        self.needs.push(name.into());
        self
    }

    fn matcher(mut self, regex: &'static str) -> Check {
        self.matchers.push(regex);
        self
    }

    fn paths(mut self, paths: Vec<String>) -> Check {
        self.paths = paths;
        self
    }

    fn parser(mut self, parser: &'static str) -> Check {
        self.parser = Some(parser);
        self
    }

    fn env(mut self, name: &'static str, value: &'static str) -> Check {
        self.env.push((name, value));
        self
    }

    fn comment(mut self, comment: impl Into<String>) -> Check {
        self.comment = Some(comment.into());
        self
    }
}

/// Writes the starter checks.toml into `worktree` (`display` names it in
/// messages); returns what to tell the user.
pub(crate) fn write(worktree: &Path, display: &Path) -> Result<String, Error> {
    let target = worktree.join("checks.toml");
    if target.symlink_metadata().is_ok() {
        return Err(exists(display));
    }
    let detected = detect(worktree);
    let text = render::render(&detected);
    // A bug here must never reach the user's repository as a broken file.
    let config = crate::config::parse(&text, display, String::new()).map_err(|err| {
        Error::Internal(format!(
            "init produced an invalid checks.toml (a bug in run-check): {err}"
        ))
    })?;
    match crate::output::create_new_as(&target, display, text.as_bytes()) {
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(exists(display));
        }
        result => result?,
    }

    let mut out = String::new();
    for found in &detected.found {
        let names = |list: Vec<&str>| list.join(", ");
        let checks = if found.checks.is_empty() {
            "no check (the notes say why)".to_string()
        } else {
            format!(
                "checks {}",
                names(found.checks.iter().map(|c| c.name.as_str()).collect())
            )
        };
        let _ = write!(
            out,
            "detected {} ({}): {checks}",
            found.ecosystem,
            found.files.join(", "),
        );
        if !found.fixes.is_empty() {
            let _ = write!(
                out,
                "; fixes {}",
                names(found.fixes.iter().map(|f| f.name.as_str()).collect())
            );
        }
        out.push('\n');
    }
    if detected.found.is_empty() {
        out.push_str("detected no Cargo, npm, pnpm, yarn, Python, Go, CMake or Makefile project\n");
    }
    for note in &detected.notes {
        let _ = writeln!(out, "note: {note}");
    }
    if detected.found.iter().all(|f| f.checks.is_empty()) {
        out.push_str("note: no check runs a tool: the gate runs only the secrets scan, and its pass says nothing of the build or the tests; add checks by hand (docs/checks-toml.md)\n");
    }
    let _ = writeln!(
        out,
        "wrote {}: {} ({} in fast mode), {}; allowed programs: {}",
        display.display(),
        plural(config.checks.len(), "check"),
        config
            .checks
            .iter()
            .filter(|c| c.modes.contains(&crate::config::Mode::Fast))
            .count(),
        plural(config.fixes.len(), "fix"),
        if config.settings.allow.is_empty() {
            "none".to_string()
        } else {
            config.settings.allow.join(", ")
        }
    );
    // Strict first: right after init nothing has changed since the last
    // commit, so fast mode (only the checks whose `paths` changed) would run
    // nothing and prove nothing about the new gate.
    out.push_str(
        "next: review it, then `run-check validate` and `run-check --mode strict` (every check, once); \
         then `run-check --mode fast` before each commit (the checks whose files changed)\n",
    );
    Ok(out)
}

fn exists(display: &Path) -> Error {
    Error::Usage(format!(
        "`{}` already exists; `run-check init` never overwrites it (edit it, or move it away and run init again)",
        display.display()
    ))
}

// ---- detection ----

/// A detector: the project root, notes for the user, what it found.
type Detector = fn(&Path, &mut Vec<String>) -> Option<Found>;

fn detect(root: &Path) -> Detected {
    let mut detected = Detected::default();
    let detectors: [Detector; 5] = [
        cargo::detect,
        node::detect,
        python::detect,
        go::detect,
        cmake::detect,
    ];
    for detector in detectors {
        if let Some(found) = detector(root, &mut detected.notes) {
            detected.found.push(found);
        }
    }
    let make = make::detect(root, &mut detected.notes);
    if let Some(make) = make {
        if detected.found.is_empty() {
            detected.found.push(make);
        } else if !make.checks.is_empty() {
            let targets: Vec<&str> = make
                .checks
                .iter()
                .map(|c| c.run.get(1).map_or("(the default goal)", String::as_str))
                .collect();
            detected.notes.push(format!(
                "Makefile targets {} not used: the checks above run the tools directly (add `make` checks by hand if the targets check more)",
                targets.join(", ")
            ));
        }
    }
    // Two ecosystems may propose the same name (`test`): later ones are
    // prefixed with their ecosystem.
    let mut names = BTreeSet::new();
    let mut fix_names = BTreeSet::new();
    for found in &mut detected.found {
        let prefix = found.ecosystem.to_ascii_lowercase();
        let mut renamed = Vec::new();
        for check in &mut found.checks {
            if !names.insert(check.name.clone()) {
                let name = format!("{prefix}-{}", check.name);
                renamed.push((
                    std::mem::replace(&mut check.name, name.clone()),
                    name.clone(),
                ));
                names.insert(name);
            }
        }
        // `needs` name checks of the same ecosystem.
        for check in &mut found.checks {
            for need in &mut check.needs {
                if let Some((_, new)) = renamed.iter().find(|(old, _)| old == need) {
                    need.clone_from(new);
                }
            }
        }
        for fix in &mut found.fixes {
            if !fix_names.insert(fix.name.clone()) {
                fix.name = format!("{prefix}-{}", fix.name);
                fix_names.insert(fix.name.clone());
            }
        }
    }
    detected
}

fn is_file(root: &Path, name: &str) -> bool {
    root.join(name).is_file()
}

fn read(root: &Path, name: &str) -> Option<String> {
    crate::bounded::read_text(&root.join(name), crate::bounded::PROJECT_FILE)
}
