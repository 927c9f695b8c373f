//! `run-check merge`: joins the evidence of shards (`--shard K/N` runs on
//! several CI machines) into one document whose checks, diagnostics, summary,
//! banner and exit code are those of the union (SPEC section 11).
//!
//! It refuses, unless `--force`: evidence of different commits or modes, a
//! shard given twice, shards of different splits, and a split with missing
//! shards. A check present in two inputs is always an error (which result
//! would be the truth?).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::Error;
use crate::evidence::{self, Evidence, ReadOnly, SCHEMA_VERSION};
use crate::json_input;
use crate::meta::MergedFrom;
use crate::output::Output;
use crate::report;

/// `merge` options.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard evidence files (`--format json` outputs)
    #[arg(required = true, value_name = "EVIDENCE")]
    pub inputs: Vec<PathBuf>,
    /// Write the merged evidence to FILE atomically [default: stdout]
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Merge evidence of different commits, modes or incomplete splits
    #[arg(long)]
    pub force: bool,
}

/// Runs `run-check merge`; exits with the merged run's exit code.
pub fn run(args: &MergeArgs, argv: Vec<String>) -> Result<i32, Error> {
    let mut docs = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        docs.push((path.clone(), read(path)?));
    }
    if !args.force {
        consistent(&docs)?;
    }
    let output = Output::open(args.out.as_deref())?;
    let merged = merge(docs, argv)?;
    output.write(&report::render(report::Format::Json, &merged))?;
    if args.out.is_some() {
        eprintln!("{}", merged.summary.banner);
    }
    Ok(merged.summary.exit_code)
}

/// One evidence document. Syntax, encoding and the version are checked as
/// for every JSON input (`json_input`); the shape by its types, whose error
/// keeps serde's line and column.
fn read(path: &Path) -> Result<Evidence, Error> {
    let bytes = std::fs::read(path).map_err(|err| Error::io("read evidence", path, err))?;
    let value = json_input::parse_document(path, &bytes)?;
    json_input::object(&value, "$")
        .and_then(|document| {
            json_input::schema_version(document, "evidence", u64::from(SCHEMA_VERSION))
        })
        .map_err(|problem| problem.into_error(path, ""))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    serde_json::from_slice(bytes).map_err(|err| Error::Config {
        path: path.to_path_buf(),
        location: Some((err.line(), err.column().max(1))),
        key: None,
        message: format!(
            "not an evidence document: {}",
            json_input::syntax_message(&err)
        ),
    })
}

fn mismatch(what: &str, a: &Path, b: &Path, x: &str, y: &str) -> Error {
    Error::Usage(format!(
        "cannot merge: `{}` is {what} `{x}` but `{}` is {what} `{y}` (use --force to merge anyway)",
        a.display(),
        b.display()
    ))
}

/// Same commit, same mode, one split with every shard exactly once.
fn consistent(docs: &[(PathBuf, Evidence)]) -> Result<(), Error> {
    let (first_path, first) = &docs[0];
    let commit = |e: &Evidence| e.meta.git.commit.clone().unwrap_or_else(|| "none".into());
    for (path, doc) in &docs[1..] {
        if commit(doc) != commit(first) {
            return Err(mismatch(
                "of commit",
                first_path,
                path,
                &commit(first),
                &commit(doc),
            ));
        }
        if doc.mode != first.mode {
            return Err(mismatch(
                "in mode",
                first_path,
                path,
                &first.mode,
                &doc.mode,
            ));
        }
    }
    let shards: Vec<_> = docs
        .iter()
        .filter_map(|(p, d)| d.meta.shard.as_ref().map(|s| (p, s)))
        .collect();
    let Some((_, split)) = shards.first() else {
        return Ok(());
    };
    let mut seen = BTreeSet::new();
    for (path, shard) in &shards {
        if shard.count != split.count {
            return Err(Error::Usage(format!(
                "cannot merge: `{}` is a shard of {} but others are shards of {} (use --force)",
                path.display(),
                shard.count,
                split.count
            )));
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
    Ok(())
}

/// The union document.
fn merge(docs: Vec<(PathBuf, Evidence)>, argv: Vec<String>) -> Result<Evidence, Error> {
    // The order of the unsharded run, when a shard recorded it.
    let order: Vec<String> = docs
        .iter()
        .find_map(|(_, d)| {
            d.meta
                .shard
                .as_ref()
                .map(|s| s.checks_before_sharding.clone())
        })
        .unwrap_or_default();
    let rank = |name: &str| order.iter().position(|n| n == name).unwrap_or(usize::MAX);

    let mut checks = Vec::new();
    let mut diagnostics = Vec::new();
    let mut owner: Vec<(String, PathBuf)> = Vec::new();
    let mut read_only = ReadOnly {
        verified: true,
        modified: Vec::new(),
        error: None,
    };
    let mut merged_from = Vec::new();
    let mut commands = Vec::new();
    let mut duration_ms = 0;
    let mut interrupted = false;
    let (mut task, mut change_budget) = (None, None);
    let mut meta = docs[0].1.meta.clone();
    let mode = docs[0].1.mode.clone();
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
            owner.push((check.name.clone(), path.clone()));
        }
        checks.extend(doc.checks);
        diagnostics.extend(doc.diagnostics);
        read_only.verified &= doc.contracts.read_only.verified;
        read_only.modified.extend(doc.contracts.read_only.modified);
        if read_only.error.is_none() {
            read_only.error = doc.contracts.read_only.error;
        }
        task = task.or(doc.contracts.task);
        change_budget = change_budget.or(doc.contracts.change_budget);
        commands.extend(doc.meta.commands);
        // Shards run side by side: the merged run took as long as the slowest.
        duration_ms = duration_ms.max(doc.summary.duration_ms);
        interrupted |= doc.summary.exit_code == crate::exit_code::INTERRUPTED;
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
    checks.sort_by(|a, b| {
        rank(&a.name)
            .cmp(&rank(&b.name))
            .then_with(|| a.name.cmp(&b.name))
    });
    // Diagnostics follow their checks; run-check's own (read-only) go last.
    diagnostics.sort_by_key(|d| {
        checks
            .iter()
            .position(|c| c.name == d.check)
            .unwrap_or(usize::MAX)
    });
    read_only.modified.sort();
    read_only.modified.dedup();
    let summary = evidence::summarize(&checks, duration_ms, interrupted, &read_only);
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
        contracts: evidence::Contracts {
            read_only,
            task,
            change_budget,
        },
    })
}
