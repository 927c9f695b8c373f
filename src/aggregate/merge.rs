//! `run-check merge`: joins the evidence of shards (`--shard K/N` runs on
//! several CI machines) into one document whose checks, diagnostics, summary,
//! banner and exit code are those of the union (docs/merge.md).
//!
//! An evidence without `meta.shard` (a run without `--shard`) is the whole
//! run, shard 1/1: it merges alone.
//!
//! It refuses, unless `--force`: evidence of different commits or modes, a
//! shard given twice, shards of different splits (`meta.shard.count`
//! differs), a whole run given with shards or with another whole run, a
//! split with missing shards, shards of different selections, and a check
//! of the selection that ran in no shard; each refusal names the file at fault (and its
//! JSON path when one field is). Always refused, `--force` or not: a check
//! present in two inputs (which result would be the truth?) and a
//! `meta.shard` that no run writes (`count` 0, `index` outside 1..count).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::Error;
use run_check_documents::evidence::{
    self, CheckRecord, Diagnostic, Evidence, MergedFrom, ReadOnly,
};

/// An error about the field at JSON path `key` of the evidence `path`.
fn at(path: &Path, key: &str, message: impl Into<String>) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        location: None,
        key: Some(key.to_string()),
        message: message.into(),
    }
}

fn mismatch(what: &str, a: &Path, b: &Path, x: &str, y: &str) -> Error {
    Error::Usage(format!(
        "cannot merge: `{}` is {what} `{x}` but `{}` is {what} `{y}` (use --force to merge anyway)",
        a.display(),
        b.display()
    ))
}

/// Same commit, same mode, one split with every shard exactly once.
pub(crate) fn consistent(docs: &[(PathBuf, Evidence)]) -> Result<(), Error> {
    let (first_path, first) = &docs[0];
    let commit = |e: &Evidence| e.meta.git.commit.clone().unwrap_or_else(|| "none".into());
    for (path, doc) in &docs[1..] {
        let (ours, theirs) = (commit(first), commit(doc));
        if ours != theirs {
            return Err(mismatch("of commit", first_path, path, &ours, &theirs));
        }
        let (ours, theirs) = (first.mode.as_str(), doc.mode.as_str());
        if ours != theirs {
            return Err(mismatch("in mode", first_path, path, ours, theirs));
        }
    }
    let (shards, whole): (Vec<_>, Vec<_>) = docs.iter().partition(|(_, d)| d.meta.shard.is_some());
    // A run without `--shard` is the whole run (1/1): it merges alone.
    if let (Some((path, _)), Some((sharded, _))) = (whole.first(), shards.first()) {
        return Err(at(
            path,
            "$.meta.shard",
            format!(
                "missing: a run without --shard is the whole run (1/1) and cannot be \
                 merged with the shards of `{}` (use --force)",
                sharded.display()
            ),
        ));
    }
    if let [(first, _), (path, _), ..] = whole.as_slice() {
        return Err(at(
            path,
            "$.meta.shard",
            format!(
                "missing: a run without --shard is the whole run (1/1), and so is `{}` \
                 (use --force)",
                first.display()
            ),
        ));
    }
    let shards: Vec<_> = shards
        .iter()
        .filter_map(|(p, d)| d.meta.shard.as_ref().map(|s| (p, s)))
        .collect();
    let Some((split_path, split)) = shards.first() else {
        return Ok(());
    };
    let mut seen = BTreeSet::new();
    for (path, shard) in &shards {
        if shard.count != split.count {
            return Err(at(
                path,
                "$.meta.shard.count",
                format!(
                    "{}, but `{}` is a shard of {} (use --force)",
                    shard.count,
                    split_path.display(),
                    split.count
                ),
            ));
        }
        if !seen.insert(shard.index) {
            return Err(Error::Usage(format!(
                "cannot merge: shard {}/{} is given twice (use --force)",
                shard.index, shard.count
            )));
        }
    }
    let missing: Vec<String> = (1..=split.count)
        .filter(|k| !seen.contains(k))
        .map(|k| format!("{k}/{}", split.count))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "cannot merge: missing shard {} (use --force to merge what is here)",
            missing.join(", ")
        )));
    }
    every_check_in_a_shard(docs)
}

/// The shards split one selection, and every check of it ran in one of
/// them: shards split by different `--timings` files (or some by the hash
/// split) can leave a check in none, and a merged PASS must not lack it.
fn every_check_in_a_shard(docs: &[(PathBuf, Evidence)]) -> Result<(), Error> {
    let sharded: Vec<(&PathBuf, &Evidence, &evidence::ShardInfo)> = docs
        .iter()
        .filter_map(|(p, d)| d.meta.shard.as_ref().map(|s| (p, d, s)))
        .collect();
    let Some((first_path, _, first)) = sharded.first() else {
        return Ok(());
    };
    for (path, _, shard) in &sharded[1..] {
        if shard.checks_before_sharding != first.checks_before_sharding {
            return Err(at(
                path,
                "$.meta.shard.checks_before_sharding",
                format!(
                    "differs from that of `{}`: the shards split different selections \
                     (use --force)",
                    first_path.display()
                ),
            ));
        }
    }
    let ran: BTreeSet<&str> = sharded
        .iter()
        .flat_map(|(_, d, _)| d.checks.iter().map(|c| c.name.as_str()))
        .collect();
    let lost: Vec<&str> = first
        .checks_before_sharding
        .iter()
        .map(String::as_str)
        .filter(|name| !ran.contains(name))
        .collect();
    if !lost.is_empty() {
        let timings: BTreeSet<String> = sharded
            .iter()
            .map(|(_, _, s)| match &s.timings {
                Some(t) => format!("--timings {t}"),
                None => "the hash split".into(),
            })
            .collect();
        let timings: Vec<String> = timings.into_iter().collect();
        return Err(Error::Usage(format!(
            "cannot merge: {} ran in no shard ({}); the shards were split by {} \
             (give every shard the same --timings, or use --force)",
            crate::output::plural(lost.len(), "check"),
            lost.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            timings.join(" and ")
        )));
    }
    Ok(())
}

/// The union document.
pub(crate) fn merge(docs: Vec<(PathBuf, Evidence)>, argv: Vec<String>) -> Result<Evidence, Error> {
    let baseline = one_baseline(&docs)?;
    each_check_once(&docs)?;
    let (mut checks, mut diagnostics, mut contracts) = (Vec::new(), Vec::new(), Vec::new());
    let (mut merged_from, mut commands) = (Vec::new(), Vec::new());
    let (mut duration_ms, mut interrupted) = (0, false);
    let mut meta = docs[0].1.meta.clone();
    let mode = docs[0].1.mode;
    for (path, doc) in docs {
        checks.extend(doc.checks);
        diagnostics.extend(doc.diagnostics);
        contracts.push(doc.contracts);
        commands.extend(doc.meta.commands);
        // Shards run side by side: the merged run took as long as the slowest.
        duration_ms = duration_ms.max(doc.summary.duration_ms);
        interrupted |= doc.summary.exit_code == run_check_documents::exit_code::INTERRUPTED;
        if doc.meta.timestamp < meta.timestamp {
            meta.timestamp = doc.meta.timestamp.clone();
        }
        merged_from.push(MergedFrom {
            path: path.display().to_string(),
            shard: doc.meta.shard,
            timestamp: doc.meta.timestamp,
            exit_code: doc.summary.exit_code,
        });
    }
    in_run_order(&mut checks, &mut diagnostics, &merged_from);
    let contracts = union_of(contracts);
    let mut summary = evidence::summarize(&checks, duration_ms, interrupted, &contracts.read_only);
    summary.baseline = baseline;
    meta.argv = argv;
    meta.commands = commands;
    meta.shard = None;
    meta.merged_from = Some(merged_from);
    Ok(Evidence {
        schema_version: evidence::SCHEMA_VERSION,
        meta,
        mode,
        summary,
        checks,
        diagnostics,
        contracts,
    })
}

/// The baseline every input ran with: shards of one run share one
/// (docs/baseline.md).
fn one_baseline(docs: &[(PathBuf, Evidence)]) -> Result<Option<String>, Error> {
    let baseline = &docs[0].1.summary.baseline;
    if let Some((path, doc)) = docs
        .iter()
        .find(|(_, doc)| doc.summary.baseline != *baseline)
    {
        let name = |b: &Option<String>| match b {
            Some(b) => format!("`--baseline {b}`"),
            None => "no --baseline".to_string(),
        };
        return Err(Error::Usage(format!(
            "cannot merge: `{}` ran with {} but `{}` with {}",
            docs[0].0.display(),
            name(baseline),
            path.display(),
            name(&doc.summary.baseline)
        )));
    }
    Ok(baseline.clone())
}

/// A check present in two inputs is refused: which result would be the truth?
fn each_check_once(docs: &[(PathBuf, Evidence)]) -> Result<(), Error> {
    let mut owner: Vec<(&str, &PathBuf)> = Vec::new();
    for (path, doc) in docs {
        for check in &doc.checks {
            if let Some((_, other)) = owner.iter().find(|(name, _)| *name == check.name) {
                return Err(Error::Usage(format!(
                    "cannot merge: check `{}` is in both `{}` and `{}`",
                    check.name,
                    other.display(),
                    path.display()
                )));
            }
            owner.push((&check.name, path));
        }
    }
    Ok(())
}

/// Checks in the order of the unsharded run, when a shard recorded it;
/// diagnostics follow their checks, run-check's own (read-only) go last.
fn in_run_order(checks: &mut [CheckRecord], diagnostics: &mut [Diagnostic], from: &[MergedFrom]) {
    let order = from
        .iter()
        .find_map(|m| m.shard.as_ref())
        .map_or(&[][..], |s| &s.checks_before_sharding);
    let rank = |name: &str| order.iter().position(|n| n == name).unwrap_or(usize::MAX);
    checks.sort_by(|a, b| {
        rank(&a.name)
            .cmp(&rank(&b.name))
            .then_with(|| a.name.cmp(&b.name))
    });
    diagnostics.sort_by_key(|d| {
        checks
            .iter()
            .position(|c| c.name == d.check)
            .unwrap_or(usize::MAX)
    });
}

/// The contracts of the union: read-only holds where it held in every input.
fn union_of(all: Vec<evidence::Contracts>) -> evidence::Contracts {
    let mut read_only = ReadOnly {
        verified: true,
        modified: Vec::new(),
        error: None,
    };
    let (mut task, mut change_budget) = (None, None);
    let mut gate: Option<evidence::Gate> = None;
    for contracts in all {
        read_only.verified &= contracts.read_only.verified;
        read_only.modified.extend(contracts.read_only.modified);
        if read_only.error.is_none() {
            read_only.error = contracts.read_only.error;
        }
        task = task.or(contracts.task);
        change_budget = change_budget.or(contracts.change_budget);
        // Shards of one commit share one gate; any file one of them saw
        // changed is listed.
        if let Some(theirs) = contracts.gate {
            match &mut gate {
                Some(gate) => gate.changed.extend(theirs.changed),
                None => gate = Some(theirs),
            }
        }
    }
    read_only.modified.sort();
    read_only.modified.dedup();
    if let Some(gate) = &mut gate {
        gate.changed.sort();
        gate.changed.dedup();
    }
    evidence::Contracts {
        read_only,
        task,
        change_budget,
        gate,
    }
}
