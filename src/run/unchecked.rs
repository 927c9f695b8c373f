//! The workspace crates a failed cargo build left unchecked: the members
//! that depend, directly or through other members, on a crate that did not
//! compile. Read from the manifests only (the root `Cargo.toml`'s
//! `[workspace] members`, a trailing `*` expanded, and each member's
//! dependency tables), so it runs nothing; a manifest it cannot read
//! names nothing rather than failing the run.

use std::collections::BTreeSet;
use std::path::Path;

/// One member: its package name and the names it depends on.
type Member = (String, BTreeSet<String>);

/// The members of the workspace at `dir` that depend on one of `failed`
/// (not those themselves), sorted.
pub(crate) fn dependents(dir: &Path, failed: &BTreeSet<String>) -> Vec<String> {
    let members = members(dir);
    let mut out: BTreeSet<String> = BTreeSet::new();
    let mut bad: BTreeSet<String> = failed.iter().map(|n| key(n)).collect();
    loop {
        let before = out.len();
        for (name, deps) in &members {
            if !bad.contains(&key(name)) && deps.iter().any(|d| bad.contains(&key(d))) {
                out.insert(name.clone());
            }
        }
        bad.extend(out.iter().map(|n| key(n)));
        if out.len() == before {
            return out.into_iter().collect();
        }
    }
}

/// Cargo treats `-` and `_` in a crate's name alike.
fn key(name: &str) -> String {
    name.replace('-', "_")
}

fn manifest(dir: &Path) -> Option<toml::Table> {
    let text = crate::bounded::read_text(&dir.join("Cargo.toml"), crate::bounded::PROJECT_FILE)?;
    text.parse().ok()
}

fn members(dir: &Path) -> Vec<Member> {
    let Some(root) = manifest(dir) else {
        return Vec::new();
    };
    let mut dirs = BTreeSet::new();
    let listed = root
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array);
    for pattern in listed.into_iter().flatten().filter_map(toml::Value::as_str) {
        match pattern.strip_suffix("/*") {
            Some(parent) => {
                let entries = std::fs::read_dir(dir.join(parent)).into_iter().flatten();
                for entry in entries.flatten() {
                    dirs.insert(entry.path());
                }
            }
            None => {
                dirs.insert(dir.join(pattern));
            }
        }
    }
    let mut out: Vec<Member> = member(&root).into_iter().collect();
    out.extend(
        dirs.iter()
            .filter_map(|d| manifest(d))
            .filter_map(|m| member(&m)),
    );
    out
}

/// The package name and dependency names of a manifest (`None`: a virtual
/// manifest, no `[package]`).
fn member(manifest: &toml::Table) -> Option<Member> {
    let name = manifest.get("package")?.get("name")?.as_str()?.to_string();
    let mut tables: Vec<&toml::Value> = Vec::new();
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    tables.extend(kinds.iter().filter_map(|k| manifest.get(*k)));
    let targets = manifest.get("target").and_then(toml::Value::as_table);
    for target in targets.into_iter().flat_map(|t| t.values()) {
        tables.extend(kinds.iter().filter_map(|k| target.get(*k)));
    }
    let mut deps = BTreeSet::new();
    for table in tables.iter().filter_map(|t| t.as_table()) {
        for (name, spec) in table {
            // `alias = { package = "real-name", ... }`
            let real = spec.get("package").and_then(toml::Value::as_str);
            deps.insert(real.unwrap_or(name).to_string());
        }
    }
    Some((name, deps))
}
