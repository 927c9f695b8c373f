//! The evidence document of SPEC section 6 and its assembly from a plan and
//! its results. Field order here is the order in the JSON; every field name is
//! part of the contract. Nothing here runs a process except through `meta`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{Dimension, Severity};
use crate::diagnostics;
use crate::exit_code;
use crate::meta::Meta;
use crate::plan::Plan;
use crate::runner::CheckResult;

/// Version of the evidence format; bumped when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;
/// The banner of a passing run, exactly.
pub const PASS_BANNER: &str = "All checks passed!";

/// The status of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Exited 0.
    Pass,
    /// Exited non-zero, or timed out.
    Fail,
    /// Could not be judged: not found, not startable, killed by a foreign signal.
    Error,
    /// Not run (a failed need, fail-fast, interrupted).
    Skip,
}

impl Status {
    /// The word used in evidence and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
            Status::Skip => "skip",
        }
    }

    /// Fail or error.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Error)
    }
}

/// The whole document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evidence {
    /// Format version.
    pub schema_version: u32,
    /// Where, when and how the run happened.
    pub meta: Meta,
    /// `fast` or `strict`.
    pub mode: String,
    /// Counts, banner, exit code.
    pub summary: Summary,
    /// One entry per selected check, in config order.
    pub checks: Vec<CheckRecord>,
    /// Every diagnostic of every check.
    pub diagnostics: Vec<Diagnostic>,
    /// Read-only, task and change-budget contracts.
    pub contracts: Contracts,
}

/// `summary`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// True exactly when the run passed.
    pub all_checks_passed: bool,
    /// `All checks passed!`, or what failed.
    pub banner: String,
    /// Wall time of the whole run.
    pub duration_ms: u64,
    /// Checks in `checks`.
    pub total: usize,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// Checks that errored.
    pub errored: usize,
    /// Checks that were skipped.
    pub skipped: usize,
    /// The process exit code of the run.
    pub exit_code: i32,
}

/// One entry of `checks`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckRecord {
    /// Check name.
    pub name: String,
    /// pass / fail / error / skip.
    pub status: Status,
    /// argv as configured (empty for scans).
    pub command: Vec<String>,
    /// Resolved absolute program path.
    pub program: Option<String>,
    /// Judge dimension.
    pub dimension: Dimension,
    /// Issue severity when it fails (an addition to SPEC's list: the judge
    /// needs it to weigh failures without re-reading checks.toml).
    pub severity: Severity,
    /// Exit code when the process exited.
    pub exit_code: Option<i32>,
    /// Wall time.
    pub duration_ms: u64,
    /// Killed after its timeout.
    pub timed_out: bool,
    /// Head and tail of stdout.
    pub stdout_excerpt: String,
    /// Head and tail of stderr.
    pub stderr_excerpt: String,
    /// Bytes written to stdout.
    pub stdout_bytes: u64,
    /// Bytes written to stderr.
    pub stderr_bytes: u64,
    /// Whether either excerpt omits bytes.
    pub excerpt_truncated: bool,
    /// Recorded artifacts.
    pub artifacts: Vec<Artifact>,
    /// Diagnostics of this check in `diagnostics`.
    pub diagnostics_count: usize,
    /// Diagnostics found beyond the cap of 1000 per check, not listed.
    pub diagnostics_dropped: u64,
    /// The check's 0..100 score, when configured and found.
    pub score: Option<f64>,
    /// Why it was skipped.
    pub skip_reason: Option<String>,
    /// Why it errored.
    pub error: Option<String>,
    /// PHASE_RESULT pairs (parser `phase-result`).
    pub data: serde_json::Map<String, serde_json::Value>,
    /// The processes the check left behind when it ended: killed, or left
    /// running with `leave_running` (absent from evidence written before
    /// this field: none).
    #[serde(default)]
    pub leaked: Vec<Leaked>,
}

/// A process a check left running when it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leaked {
    /// Its process id.
    pub pid: u32,
    /// Its command line, arguments joined by spaces (cut at 512 bytes).
    pub command: String,
}

/// One artifact file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Artifact {
    /// Path relative to the worktree.
    pub path: String,
    /// Size.
    pub bytes: u64,
    /// Content hash, hex.
    pub sha256: String,
}

/// One located problem.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The check that reported it.
    pub check: String,
    /// File, relative to the worktree when inside it.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u64>,
    /// 1-based column.
    pub column: Option<u64>,
    /// error / warning / note / info / help.
    pub severity: String,
    /// Rule or code.
    pub rule: Option<String>,
    /// Message.
    pub message: String,
    /// Suggested fix.
    pub suggestion: Option<String>,
}

/// `contracts`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Contracts {
    /// Read-only verification (SPEC section 5).
    pub read_only: ReadOnly,
    /// Task contract violations (SPEC section 7).
    pub task: Option<serde_json::Value>,
    /// Change budget (SPEC section 7).
    pub change_budget: Option<serde_json::Value>,
    /// The gate's own files changed against the base (SPEC section 6);
    /// `None` when the config lies outside the worktree or outside git, and
    /// in evidence written before the field existed.
    #[serde(default)]
    pub gate: Option<crate::gate::Gate>,
}

/// `contracts.read_only`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadOnly {
    /// Whether the worktree was snapshotted before and after and compared.
    pub verified: bool,
    /// Paths created, deleted or changed by the checks.
    pub modified: Vec<String>,
    /// Why the verification could not be completed (then the run is ERROR).
    #[serde(default)]
    pub error: Option<String>,
}

impl ReadOnly {
    /// Verification was not asked for (fast mode without --verify-read-only).
    pub fn off() -> ReadOnly {
        ReadOnly {
            verified: false,
            modified: Vec::new(),
            error: None,
        }
    }
}

/// The banner of a run whose checks changed the worktree (SPEC section 5).
pub const MODIFIED_BANNER: &str = "Workspace modified by checks";

/// Milliseconds, saturating.
pub fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Builds the document from a finished (or interrupted) run.
pub fn assemble(
    plan: &Plan<'_>,
    results: &[CheckResult],
    meta: Meta,
    duration: Duration,
    interrupted: bool,
    read_only: ReadOnly,
    read_only_diagnostics: Vec<Diagnostic>,
) -> Evidence {
    let mut diagnostics = Vec::new();
    let checks: Vec<CheckRecord> = plan
        .checks
        .iter()
        .zip(results)
        .map(|(check, result)| {
            let before = diagnostics.len();
            let dropped = collect_diagnostics(check, result, &plan.worktree, &mut diagnostics);
            let (stdout_excerpt, stdout_bytes, out_cut) = excerpt_fields(result.stdout.as_ref());
            let (stderr_excerpt, stderr_bytes, err_cut) = excerpt_fields(result.stderr.as_ref());
            CheckRecord {
                name: check.name().to_string(),
                status: result.status,
                command: check.argv().to_vec(),
                program: check.program.as_ref().ok().map(|p| p.display().to_string()),
                dimension: check.config.dimension,
                severity: check.config.severity,
                exit_code: result.exit_code,
                duration_ms: millis(result.duration),
                timed_out: result.timed_out,
                stdout_excerpt,
                stderr_excerpt,
                stdout_bytes,
                stderr_bytes,
                excerpt_truncated: out_cut || err_cut,
                artifacts: result.artifacts.artifacts.clone(),
                diagnostics_count: diagnostics.len() - before,
                diagnostics_dropped: dropped,
                score: result.parsed.iter().find_map(|p| p.score),
                skip_reason: result.skip_reason.clone(),
                error: result.error.clone(),
                data: result.parsed.iter().filter_map(|p| p.data.clone()).fold(
                    serde_json::Map::new(),
                    |mut all, data| {
                        all.extend(data);
                        all
                    },
                ),
                leaked: result.leaked.clone(),
            }
        })
        .collect();
    let summary = summarize(&checks, millis(duration), interrupted, &read_only);
    diagnostics.extend(read_only_diagnostics);
    Evidence {
        schema_version: SCHEMA_VERSION,
        meta,
        mode: plan.mode.as_str().to_string(),
        summary,
        checks,
        diagnostics,
        contracts: Contracts {
            read_only,
            task: None,
            change_budget: None,
            gate: None,
        },
    }
}

/// Appends a check's diagnostics (stdout, stderr, then artifacts), capped at
/// `MAX_PER_CHECK` in all, with files made worktree-relative. Returns how
/// many were dropped.
fn collect_diagnostics(
    check: &crate::plan::PlannedCheck<'_>,
    result: &CheckResult,
    worktree: &std::path::Path,
    out: &mut Vec<Diagnostic>,
) -> u64 {
    let mut dropped: u64 = result.parsed.iter().map(|p| p.dropped).sum();
    let found = result
        .parsed
        .iter()
        .flat_map(|p| &p.found)
        .chain(&result.artifacts.found);
    // Scan findings are worktree-relative already; tool output is relative
    // to the directory the tool ran in.
    let base = match check.config.kind {
        crate::config::CheckKind::Scan(_) => worktree,
        crate::config::CheckKind::Run(_) => check.cwd.as_path(),
    };
    let mut kept = 0;
    for f in found {
        if kept == diagnostics::MAX_PER_CHECK {
            dropped += 1;
            continue;
        }
        kept += 1;
        out.push(Diagnostic {
            check: check.name().to_string(),
            file: f
                .file
                .as_deref()
                .map(|file| diagnostics::relativize(file, base, worktree)),
            line: f.line,
            column: f.column,
            severity: f.severity.as_str().to_string(),
            rule: f.rule.clone(),
            message: f.message.clone(),
            suggestion: f.suggestion.clone(),
        });
    }
    dropped
}

fn excerpt_fields(excerpt: Option<&crate::excerpt::Excerpt>) -> (String, u64, bool) {
    match excerpt {
        Some(e) => (e.render(), e.total(), e.truncated()),
        None => (String::new(), 0, false),
    }
}

/// Counts, banner and exit code of a list of check records.
pub fn summarize(
    checks: &[CheckRecord],
    duration_ms: u64,
    interrupted: bool,
    read_only: &ReadOnly,
) -> Summary {
    let names = |status: Status| -> Vec<&str> {
        checks
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.name.as_str())
            .collect()
    };
    let (failed, errored) = (names(Status::Fail), names(Status::Error));
    let passed = checks.iter().filter(|c| c.status == Status::Pass).count();
    let skipped = checks.iter().filter(|c| c.status == Status::Skip).count();
    let total = checks.len();
    let modified = !read_only.modified.is_empty();
    let exit_code = if interrupted {
        exit_code::INTERRUPTED
    } else if !errored.is_empty() || read_only.error.is_some() {
        exit_code::ERROR
    } else if !failed.is_empty() || modified {
        exit_code::FAIL
    } else {
        exit_code::PASS
    };
    let mut parts = Vec::new();
    if modified {
        parts.push(MODIFIED_BANNER.to_string());
    }
    if !failed.is_empty() {
        parts.push(format!(
            "{} of {total} checks failed: {}",
            failed.len(),
            failed.join(", ")
        ));
    }
    if !errored.is_empty() {
        parts.push(format!(
            "{} of {total} checks errored: {}",
            errored.len(),
            errored.join(", ")
        ));
    }
    if let Some(why) = &read_only.error {
        parts.push(format!("read-only verification failed: {why}"));
    }
    let banner = if interrupted {
        let finished = total - skipped;
        let mut banner = format!("Interrupted: {finished} of {total} checks finished");
        for part in parts {
            banner.push_str("; ");
            banner.push_str(&part);
        }
        banner
    } else if parts.is_empty() {
        PASS_BANNER.to_string()
    } else {
        parts.join("; ")
    };
    Summary {
        all_checks_passed: exit_code == exit_code::PASS,
        banner,
        duration_ms,
        total,
        passed,
        failed: failed.len(),
        errored: errored.len(),
        skipped,
        exit_code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, status: Status) -> CheckRecord {
        CheckRecord {
            name: name.into(),
            status,
            command: vec![],
            program: None,
            dimension: Dimension::Quality,
            severity: Severity::High,
            exit_code: None,
            duration_ms: 0,
            timed_out: false,
            stdout_excerpt: String::new(),
            stderr_excerpt: String::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            excerpt_truncated: false,
            artifacts: vec![],
            diagnostics_count: 0,
            diagnostics_dropped: 0,
            score: None,
            skip_reason: None,
            error: None,
            data: Default::default(),
            leaked: vec![],
        }
    }

    #[test]
    fn pass_needs_every_check_passed_or_skipped() {
        let s = summarize(
            &[record("a", Status::Pass), record("b", Status::Skip)],
            5,
            false,
            &ReadOnly::off(),
        );
        assert!(s.all_checks_passed);
        assert_eq!(s.banner, "All checks passed!");
        assert_eq!((s.total, s.passed, s.skipped, s.exit_code), (2, 1, 1, 0));
    }

    #[test]
    fn failures_and_errors_name_the_checks() {
        let checks = [
            record("a", Status::Fail),
            record("b", Status::Pass),
            record("c", Status::Fail),
            record("d", Status::Error),
            record("e", Status::Skip),
        ];
        let s = summarize(&checks, 0, false, &ReadOnly::off());
        assert!(!s.all_checks_passed);
        assert_eq!(
            s.banner,
            "2 of 5 checks failed: a, c; 1 of 5 checks errored: d"
        );
        assert_eq!(s.exit_code, 2);
        let s = summarize(&checks[..3], 0, false, &ReadOnly::off());
        assert_eq!(s.banner, "2 of 3 checks failed: a, c");
        assert_eq!(s.exit_code, 1);
    }

    #[test]
    fn interrupted_runs_exit_130() {
        let s = summarize(
            &[record("a", Status::Pass), record("b", Status::Skip)],
            0,
            true,
            &ReadOnly::off(),
        );
        assert_eq!(s.exit_code, 130);
        assert!(!s.all_checks_passed);
        assert_eq!(s.banner, "Interrupted: 1 of 2 checks finished");
    }

    #[test]
    fn a_modified_worktree_fails_the_run_with_its_banner() {
        let modified = ReadOnly {
            verified: true,
            modified: vec!["src/a.rs".into()],
            error: None,
        };
        let s = summarize(&[record("a", Status::Pass)], 0, false, &modified);
        assert_eq!((s.exit_code, s.all_checks_passed), (1, false));
        assert_eq!(s.banner, "Workspace modified by checks");
        let s = summarize(&[record("a", Status::Fail)], 0, false, &modified);
        assert_eq!(
            s.banner,
            "Workspace modified by checks; 1 of 1 checks failed: a"
        );
        let broken = ReadOnly {
            verified: false,
            modified: vec![],
            error: Some("`git status` failed".into()),
        };
        let s = summarize(&[record("a", Status::Pass)], 0, false, &broken);
        assert_eq!(s.exit_code, 2);
        assert_eq!(
            s.banner,
            "read-only verification failed: `git status` failed"
        );
    }
}
