//! The JSON Schema of the evidence document (`--format json`, SPEC section 6):
//! meta, summary, check records, diagnostics and contracts, following the
//! serde structs of `evidence` and `meta` field for field.

use serde_json::{Value, json};

use super::DIALECT;
use super::blocks::{
    DIAG_SEVERITIES, DIMENSIONS, MODES, NAME_PATTERN, SEVERITIES, boolean, closed, count, describe,
    nullable, string, strings,
};
use super::task::task_body;

const SHA256_PATTERN: &str = "^[0-9a-f]{64}$";
const STATUSES: [&str; 4] = ["pass", "fail", "error", "skip"];

/// The JSON Schema of the evidence document (`--format json`, SPEC section 6).
pub fn evidence() -> Value {
    json!({
        "$schema": DIALECT,
        "$id": "https://run-check.dev/schema/evidence.json",
        "title": "run-check evidence",
        "description": "The evidence document of one run-check run (`--format json`), or of shards merged by `run-check merge`. PASS is exactly `summary.all_checks_passed = true` with `summary.banner = \"All checks passed!\"`.",
        "type": "object",
        "properties": {
            "schema_version": {
                "const": 1,
                "description": "Version of the evidence format; bumped when a field changes meaning.",
            },
            "meta": meta(),
            "mode": {
                "enum": MODES,
                "description": "The mode that ran: `fast` (developer loop) or `strict` (acceptance gate).",
            },
            "summary": summary(),
            "checks": {
                "type": "array",
                "items": check_record(),
                "description": "One entry per selected check, in checks.toml order.",
            },
            "diagnostics": {
                "type": "array",
                "items": diagnostic(),
                "description": "Every located problem of every check (at most 1000 per check), then the read-only verification's.",
            },
            "contracts": contracts(),
        },
        "required": ["schema_version", "meta", "mode", "summary", "checks", "diagnostics", "contracts"],
        "additionalProperties": false,
    })
}

fn shard_info() -> Value {
    closed(
        "Which shard of a `--shard K/N` run this is.",
        json!({
            "index": {"type": "integer", "minimum": 1, "description": "K: the 1-based shard index."},
            "count": {"type": "integer", "minimum": 1, "description": "N: the number of shards."},
            "checks_before_sharding": strings("Every check the run selected before sharding, in file order."),
        }),
        &["index", "count", "checks_before_sharding"],
    )
}

fn meta() -> Value {
    closed(
        "Where, when and how the run happened.",
        json!({
            "tool": closed(
                "run-check's name and version.",
                json!({
                    "name": {"const": "run-check", "description": "Always `run-check`."},
                    "version": string("run-check's semver."),
                }),
                &["name", "version"],
            ),
            "timestamp": {
                "type": "string",
                "format": "date-time",
                "description": "Start of the run, RFC 3339 UTC with seconds (`2026-11-21T23:59:00Z`).",
            },
            "platform": closed(
                "The machine.",
                json!({
                    "os": string("`linux`, `macos`, `windows`, ..."),
                    "arch": string("`x86_64`, `aarch64`, ..."),
                    "os_version": nullable(string("e.g. `Debian GNU/Linux 12`.")),
                    "cpus": count("Logical CPUs."),
                    "memory_bytes": count("Total memory in bytes (0 when unknown)."),
                }),
                &["os", "arch", "os_version", "cpus", "memory_bytes"],
            ),
            "cwd": string("run-check's working directory, absolute."),
            "worktree": string("The worktree the checks ran in, absolute."),
            "git": closed(
                "Git facts of the worktree at the start; all null outside git.",
                json!({
                    "commit": nullable(json!({
                        "type": "string",
                        "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$",
                        "description": "HEAD commit (hex).",
                    })),
                    "branch": nullable(string("Current branch; null when detached.")),
                    "dirty": nullable(boolean("Whether the worktree had tracked or untracked changes at the start.")),
                }),
                &["commit", "branch", "dirty"],
            ),
            "config": closed(
                "The config file.",
                json!({
                    "path": string("As the user named it."),
                    "sha256": {"type": "string", "pattern": SHA256_PATTERN, "description": "sha256 of its bytes, lower-case hex."},
                }),
                &["path", "sha256"],
            ),
            "task": nullable(describe(task_body(), "The task contract as given with `--task` (unknown fields kept).")),
            "argv": strings("run-check's own arguments, the program name first."),
            "commands": strings("The commands that were executed, quoted for humans (not for a shell)."),
            "changes": nullable(closed(
                "Fast mode's changed files; null in strict mode.",
                json!({
                    "base": string("`--changed-since`."),
                    "files_changed": count("How many files changed."),
                    "files": strings("The changed files, worktree-relative (the first 1000)."),
                    "note": nullable(string("Why no filtering happened (e.g. not a git repository).")),
                }),
                &["base", "files_changed", "files", "note"],
            )),
            "shard": nullable(shard_info()),
            "merged_from": nullable(json!({
                "type": "array",
                "description": "In a document made by `run-check merge`: the shard evidence it was merged from.",
                "items": closed(
                    "One merged evidence file.",
                    json!({
                        "path": string("The evidence file as named on the command line."),
                        "shard": nullable(shard_info()),
                        "timestamp": string("Its `meta.timestamp`."),
                        "exit_code": {"type": "integer", "description": "Its `summary.exit_code`."},
                    }),
                    &["path", "shard", "timestamp", "exit_code"],
                ),
            })),
        }),
        // `changes`, `shard` and `merged_from` are always written, but
        // documents of earlier run-checks lack them (serde reads them as null).
        &[
            "tool",
            "timestamp",
            "platform",
            "cwd",
            "worktree",
            "git",
            "config",
            "task",
            "argv",
            "commands",
        ],
    )
}

fn summary() -> Value {
    let mut summary = closed(
        "Counts, banner and exit code of the run.",
        json!({
            "all_checks_passed": boolean("True exactly when the run passed (exit code 0)."),
            "banner": string("`All checks passed!` exactly when the run passed; otherwise what failed, e.g. `2 of 5 checks failed: clippy, test`."),
            "duration_ms": count("Wall time of the whole run."),
            "total": count("Checks in `checks`."),
            "passed": count("Checks that passed."),
            "failed": count("Checks that failed."),
            "errored": count("Checks that errored."),
            "skipped": count("Checks that were skipped."),
            "exit_code": {
                "enum": [0, 1, 2, 130],
                "description": "The run's exit code: 0 PASS, 1 FAIL, 2 ERROR, 130 interrupted.",
            },
        }),
        &[
            "all_checks_passed",
            "banner",
            "duration_ms",
            "total",
            "passed",
            "failed",
            "errored",
            "skipped",
            "exit_code",
        ],
    );
    // PASS has exactly `all_checks_passed`, the banner and exit code 0.
    let pass = json!({"properties": {
        "all_checks_passed": {"const": true},
        "banner": {"const": crate::evidence::PASS_BANNER},
        "exit_code": {"const": 0},
    }});
    summary["anyOf"] = json!([
        pass,
        {"properties": {
            "all_checks_passed": {"const": false},
            "banner": {"not": {"const": crate::evidence::PASS_BANNER}},
            "exit_code": {"enum": [1, 2, 130]},
        }},
    ]);
    summary
}

fn check_record() -> Value {
    let mut record = closed(
        "One check's result.",
        json!({
            "name": {"type": "string", "pattern": NAME_PATTERN, "description": "The check's name in checks.toml."},
            "status": {
                "enum": STATUSES,
                "description": "`pass` (exit 0), `fail` (non-zero exit or timeout), `error` (not found, could not start, killed by a foreign signal; see `error`), `skip` (see `skip_reason`).",
            },
            "command": strings("argv as configured (empty for a scan)."),
            "program": nullable(string("The resolved absolute path of the program.")),
            "dimension": {"enum": DIMENSIONS, "description": "The judge dimension the check scores into."},
            "severity": {"enum": SEVERITIES, "description": "The severity of the issues the check raises when it fails."},
            "exit_code": nullable(json!({"type": "integer", "description": "The process's exit code, when it exited."})),
            "duration_ms": count("Wall time."),
            "timed_out": boolean("Killed after its timeout (then `status` is `fail`)."),
            "stdout_excerpt": string("The head and tail of stdout, joined by `… [N bytes omitted] …` when cut."),
            "stderr_excerpt": string("The head and tail of stderr, joined by `… [N bytes omitted] …` when cut."),
            "stdout_bytes": count("Bytes written to stdout."),
            "stderr_bytes": count("Bytes written to stderr."),
            "excerpt_truncated": boolean("Whether either excerpt omits bytes."),
            "artifacts": {
                "type": "array",
                "description": "Files matched by the check's `artifacts` globs.",
                "items": closed(
                    "One artifact file.",
                    json!({
                        "path": string("Path relative to the worktree."),
                        "bytes": count("Size."),
                        "sha256": {"type": "string", "pattern": SHA256_PATTERN, "description": "Content hash, lower-case hex."},
                    }),
                    &["path", "bytes", "sha256"],
                ),
            },
            "diagnostics_count": count("Diagnostics of this check in `diagnostics`."),
            "diagnostics_dropped": count("Diagnostics found beyond the cap of 1000 per check, not listed."),
            "score": nullable(json!({"type": "number", "description": "The check's score (`score.regex` of checks.toml), when configured and found."})),
            "skip_reason": nullable(string("Why the check was skipped.")),
            "error": nullable(string("Why the check errored, one line.")),
            "data": {
                "type": "object",
                "description": "The key/value pairs of a `PHASE_RESULT:` block (`parser = \"phase-result\"`).",
            },
            "leaked": {
                "type": "array",
                "default": [],
                "description": "The processes the check started that were still running when it ended (exit, timeout or cancellation), also those that left its process group: killed, or left running when the check has `leave_running = true`. Empty when none; absent in evidence written before this field.",
                "items": closed(
                    "One process left behind.",
                    json!({
                        "pid": count("Its process id."),
                        "command": string("Its command line, arguments joined by spaces (cut at 512 bytes; on Windows the program's path)."),
                    }),
                    &["pid", "command"],
                ),
            },
        }),
        &[
            "name",
            "status",
            "command",
            "program",
            "dimension",
            "severity",
            "exit_code",
            "duration_ms",
            "timed_out",
            "stdout_excerpt",
            "stderr_excerpt",
            "stdout_bytes",
            "stderr_bytes",
            "excerpt_truncated",
            "artifacts",
            "diagnostics_count",
            "diagnostics_dropped",
            "score",
            "skip_reason",
            "error",
            "data",
        ],
    );
    let when = |status: &str, field: &str| {
        json!({
            "if": {"properties": {"status": {"const": status}}},
            "then": {"properties": {field: {"type": "string"}}},
        })
    };
    record["allOf"] = json!([
        when("skip", "skip_reason"),
        when("error", "error"),
        {
            "if": {"properties": {"timed_out": {"const": true}}},
            "then": {"properties": {"status": {"const": "fail"}}},
        },
    ]);
    record
}

fn diagnostic() -> Value {
    let position = |what: &str| nullable(count(what));
    closed(
        "One located problem.",
        json!({
            "check": string("The check that reported it (`run-check` for a change found by the read-only verification while checks ran in parallel)."),
            "file": nullable(string("File, relative to the worktree when inside it.")),
            "line": position("1-based line."),
            "column": position("1-based column."),
            "severity": {"enum": DIAG_SEVERITIES, "description": "The diagnostic's severity."},
            "rule": nullable(string("Rule or code, e.g. `clippy::needless_return`, `read-only`, `secrets/aws-access-key-id`.")),
            "message": string("What is wrong."),
            "suggestion": nullable(string("A suggested fix.")),
        }),
        &[
            "check",
            "file",
            "line",
            "column",
            "severity",
            "rule",
            "message",
            "suggestion",
        ],
    )
}

fn contracts() -> Value {
    closed(
        "The read-only, task, change-budget and gate contracts.",
        json!({
            "read_only": closed(
                "Read-only verification (SPEC section 5): on in strict mode and with `--verify-read-only`.",
                json!({
                    "verified": boolean("Whether the worktree was snapshotted before and after the checks and compared."),
                    "modified": strings("Paths the checks created, deleted or changed (then the run FAILs)."),
                    "error": nullable(string("Why the verification could not be completed (then the run is ERROR).")),
                }),
                // `error` is always written; earlier documents lack it.
                &["verified", "modified"],
            ),
            "task": nullable(closed(
                "The task contract's limits (with `--task`).",
                json!({
                    "id": string("The task's `id`."),
                    "valid": boolean("True when no limit is broken."),
                    "violations": {
                        "type": "array",
                        "description": "Broken limits, in schema order.",
                        "items": closed(
                            "One broken limit.",
                            json!({
                                "field": string("The field at fault, a path without `$.` (e.g. `estimated_loc`)."),
                                "message": string("What is wrong, one line."),
                            }),
                            &["field", "message"],
                        ),
                    },
                }),
                &["id", "valid", "violations"],
            )),
            "change_budget": nullable(closed(
                "The change against `--changed-since` (with `--task`, in git).",
                json!({
                    "base": string("`--changed-since`."),
                    "files_changed": count("Files changed, untracked ones included."),
                    "loc_changed": count("Lines added plus lines deleted."),
                    "max_files": count("The limit on files (10)."),
                    "max_loc": count("The limit on lines (400)."),
                    "exceeded": boolean("Whether either limit is exceeded."),
                }),
                &["base", "files_changed", "loc_changed", "max_files", "max_loc", "exceeded"],
            )),
            "gate": nullable(closed(
                "The gate's own definition changed against the base (in git, with the config inside the worktree): a candidate that weakens its own gate does not pass silently. Absent in evidence written before 2026-11-25 (read as null).",
                json!({
                    "changed": strings("The gate's files (the config; programs and scripts its checks run from inside the worktree) that differ from the base: committed, staged, unstaged or untracked. `[]` when none."),
                    "base": nullable(string("The revision compared against: `--changed-since`, else the task's `base`, else `HEAD`.")),
                }),
                &["changed"],
            )),
        }),
        // `gate` is always written; earlier documents lack it.
        &["read_only", "task", "change_budget"],
    )
}
