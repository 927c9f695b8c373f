//! The map of ARCHITECTURE.md holds: the folders that take documents or text
//! (`report/`, `aggregate/`, `parse/`, `scan/`) never import the check
//! pipeline (`run/`), the pipeline never imports what renders, aggregates or
//! wires it, and the document crate imports nothing of the binary. Reads the
//! sources; unit tests (`#[cfg(test)] mod tests`) are left out.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::repo_root;

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The places in `folder` (under src/) that name `crate::FORBIDDEN…`, for
/// each forbidden module, outside test-only modules.
fn imports_of(folder: &str, forbidden: &[&str]) -> Vec<String> {
    let root = repo_root();
    let mut found = Vec::new();
    for file in sources(&root.join(folder)) {
        let text = fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The code ends where a test-only module starts.
        let end = lines
            .windows(2)
            .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].contains("mod "))
            .unwrap_or(lines.len());
        for (n, line) in lines[..end].iter().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for module in forbidden {
                if line.contains(&format!("crate::{module}")) {
                    let rel = file.strip_prefix(&root).unwrap().display();
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn documents_in_documents_out_never_import_the_pipeline() {
    for folder in ["src/report", "src/aggregate", "src/parse", "src/scan"] {
        let found = imports_of(folder, &["run::", "commands", "tooling"]);
        assert!(
            found.is_empty(),
            "{folder} imports run/:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_pipeline_never_imports_reports_aggregators_or_commands() {
    let found = imports_of("src/run", &["report", "aggregate", "tooling", "commands"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_document_crate_imports_nothing_of_the_binary() {
    let root = repo_root();
    for file in sources(&root.join("crates/run-check-documents/src")) {
        let text = fs::read_to_string(&file).unwrap();
        assert!(!text.contains("run_check::"), "{}", file.display());
    }
    let manifest = fs::read_to_string(root.join("crates/run-check-documents/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    let names: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    for name in &names {
        assert!(
            ["serde", "serde_json", "schemars", "serde_path_to_error"].contains(name),
            "the document crate depends on {name}"
        );
    }
    assert!(names.contains(&"serde"), "{names:?}");
}

/// The modules of `run/runner/` that each module's code (its unit tests left
/// out) names: `super::NAME` or `crate::run::runner::NAME`.
fn runner_edges() -> Vec<(String, String)> {
    let dir = repo_root().join("src/run/runner");
    let modules: Vec<String> = sources(&dir)
        .iter()
        .filter_map(|f| f.file_stem()?.to_str().map(str::to_string))
        .collect();
    let mut edges = Vec::new();
    for file in sources(&dir) {
        let from = file.file_stem().unwrap().to_str().unwrap().to_string();
        let text = fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        for to in &modules {
            let named = [format!("super::{to}"), format!("crate::run::runner::{to}")];
            if *to != from && from != "mod" && named.iter().any(|n| code.contains(n.as_str())) {
                edges.push((from.clone(), to.clone()));
            }
        }
    }
    edges
}

/// No import circle between the runner's modules: each one's imports point
/// one way, so a module can be read knowing only those below it.
#[test]
fn the_runner_modules_import_each_other_one_way() {
    let edges = runner_edges();
    let reaches = |from: &str, to: &str| {
        let mut seen = vec![from.to_string()];
        let mut at = 0;
        while at < seen.len() {
            for (a, b) in &edges {
                if *a == seen[at] && !seen.contains(b) {
                    seen.push(b.clone());
                }
            }
            at += 1;
        }
        seen.iter().any(|m| m == to)
    };
    for (a, b) in &edges {
        assert!(
            !reaches(b, a),
            "run/runner: {a} -> {b} -> ... -> {a}: {edges:?}"
        );
    }
    assert!(
        edges.contains(&("process".into(), "child".into())),
        "{edges:?}"
    );
}
