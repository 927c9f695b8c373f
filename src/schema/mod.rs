//! JSON Schemas (draft 2020-12) of the documents run-check reads and writes:
//! the evidence (SPEC section 6), the task contract (SPEC section 7) and
//! checks.toml (SPEC section 3, for editors: Taplo / Even Better TOML read
//! JSON Schema). `run-check schema NAME` prints them.
//!
//! The schemas describe what the code does, field for field: `evidence()`
//! follows the serde structs of `evidence` and `meta` (closed objects, so a
//! misspelled field fails), `task()` follows the type rules of `task` (its
//! limits are violations, not schema errors), `checks()` follows the raw
//! structs of `config`. Every schema is self-contained (no `$ref`), so
//! editors with partial `$ref` support still complete every key. Nothing
//! here reads or writes a file.
//!
//! Where a schema cannot say what the loader says, the schema is the more
//! permissive of the two (a document the tool accepts is never rejected by
//! its schema): a duration of zero, a `needs` naming an unknown check, a
//! `2.0` where the task loader wants an integer.

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::Error;
use crate::exit_code;
use crate::output::Output;

/// The JSON Schema dialect of every schema here.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema names `by_name` knows, in the order `run-check schema` lists them.
pub const NAMES: &[&str] = &[
    "evidence",
    "verdict",
    "vote-input",
    "vote-output",
    "task",
    "retry-state",
    "checks",
];

/// `run-check schema` options.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The schema to print
    #[arg(value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(NAMES))]
    pub name: String,
}

/// Runs `run-check schema NAME`: prints the schema, pretty, on stdout.
pub fn run(args: &SchemaArgs) -> Result<i32, Error> {
    let schema = by_name(&args.name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown schema `{}` (expected one of: {})",
            args.name,
            NAMES.join(", ")
        ))
    })?;
    Output::Stdout.write(pretty(&schema).as_bytes())?;
    Ok(exit_code::PASS)
}

/// The schema called `name` (`evidence`, `task`, `checks`).
pub fn by_name(name: &str) -> Option<Value> {
    match name {
        "evidence" => Some(evidence()),
        "task" => Some(task()),
        "checks" => Some(checks()),
        "verdict" => Some(crate::judge::verdict_schema()),
        "vote-input" => Some(crate::vote::input_schema()),
        "vote-output" => Some(crate::vote::output_schema()),
        "retry-state" => Some(crate::retry::state_schema()),
        _ => None,
    }
}

/// A schema as `run-check schema` prints it and as `checks.schema.json` is
/// committed: two-space indentation, keys sorted, a final newline.
pub fn pretty<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

// ---- building blocks ----

fn describe(mut schema: Value, description: &str) -> Value {
    schema["description"] = json!(description);
    schema
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

/// A non-negative integer.
fn count(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": description})
}

fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

/// `schema` or null: `null` joins the `type` list, and the `enum` when there is one.
fn nullable(mut schema: Value) -> Value {
    if let Some(kind) = schema.get("type").cloned() {
        let mut kinds = match kind {
            Value::Array(kinds) => kinds,
            one => vec![one],
        };
        kinds.push(json!("null"));
        schema["type"] = Value::Array(kinds);
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.push(Value::Null);
    }
    if let Some(Value::String(text)) = schema.get_mut("description") {
        text.push_str(" Null when absent.");
    }
    schema
}

/// A closed object: exactly `properties`, of which `required` must be present.
fn closed(description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

const NAME_PATTERN: &str = "^[A-Za-z0-9_.-]+$";
const SHA256_PATTERN: &str = "^[0-9a-f]{64}$";
const DURATION_PATTERN: &str = r"^\s*([0-9]+(ms|s|m|h))+\s*$";
const MODES: [&str; 2] = ["fast", "strict"];
const DIMENSIONS: [&str; 3] = ["security", "quality", "performance"];
const SEVERITIES: [&str; 4] = ["critical", "high", "medium", "low"];
const DIAG_SEVERITIES: [&str; 5] = ["error", "warning", "note", "info", "help"];
const STATUSES: [&str; 4] = ["pass", "fail", "error", "skip"];
const PARSERS: [(&str, &str); 11] = [
    (
        "auto",
        "Everything that carries its own marker (cargo JSON, rustc, tsc, mypy, gcc-style lines with a severity word, pytest summaries, eslint); never invents a diagnostic.",
    ),
    ("none", "No parsing."),
    (
        "gcc",
        "`file:line:col: severity: message` (gcc, clang, shellcheck -f gcc, eslint -f unix), and ruff concise / go vet lines.",
    ),
    (
        "rustc",
        "rustc / clippy human output: `error[E0308]: ...` with its ` --> file:line:col`.",
    ),
    (
        "cargo-json",
        "cargo `--message-format=json` compiler messages.",
    ),
    ("tsc", "TypeScript: `file(l,c): error TSxxxx: ...`."),
    (
        "pytest",
        "pytest's short summary `FAILED path::test - msg` with the test's line.",
    ),
    ("mypy", "mypy: `file:line[:col]: error: msg  [code]`."),
    ("eslint", "eslint stylish and compact output."),
    (
        "go",
        "go build / go vet locations and go test `--- FAIL: TestX`.",
    ),
    (
        "phase-result",
        "A `PHASE_RESULT:` block of `- key: value` lines into the check's `data`.",
    ),
];

// ---- evidence ----

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
        "The read-only, task and change-budget contracts.",
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
        }),
        &["read_only", "task", "change_budget"],
    )
}

// ---- task ----

/// The JSON Schema of the task contract (`--task`, SPEC section 7). It checks
/// types only: broken limits (`estimated_loc` over 400, more than 10
/// `files_involved`, `parallel_count` outside 1..5, no strict JSON gate in
/// `acceptance.commands`, blank strings) are violations listed in
/// `contracts.task`, not schema errors.
pub fn task() -> Value {
    let mut schema = task_body();
    schema["$schema"] = json!(DIALECT);
    schema["$id"] = json!("https://run-check.dev/schema/task.json");
    schema["title"] = json!("run-check task contract");
    schema
}

fn string_or_strings(description: &str) -> Value {
    json!({
        "description": description,
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    })
}

fn task_body() -> Value {
    json!({
        "type": "object",
        "description": "A task contract (seed 004 section 1). Every field is required; unknown fields are allowed and kept. Limits (estimated_loc ≤ 400, files_involved ≤ 10, parallel_count 1..5, a `run-check --mode strict --format json` acceptance command, non-blank strings) are checked by run-check and reported as violations, not here.",
        "properties": {
            "id": string("Stable reference, e.g. `T-2026-02-02-001`."),
            "title": string("One-line title."),
            "description": string("What to do and why (one intent)."),
            "risk": {"enum": crate::task::RISKS, "description": "`low`, `medium` or `high`."},
            "parallel_count": {"type": "integer", "description": "Parallel candidate implementations (1..5; suggested: low 1, medium 2, high 3-5)."},
            "acceptance": {
                "type": "object",
                "description": "How the task is accepted.",
                "properties": {
                    "commands": strings("Acceptance commands; must include `run-check --mode strict --format json`."),
                    "criteria": string_or_strings("Pass conditions (judged on the JSON evidence)."),
                },
                "required": ["commands", "criteria"],
            },
            "estimated_loc": count("Estimated lines changed (target 100-300, hard limit 400)."),
            "files_involved": strings("Files expected to change (hard limit 10)."),
            "public_contracts_touched": string_or_strings("Public interfaces or contracts changed: `\"N/A\"` if none, a description, or a list."),
        },
        "required": [
            "id", "title", "description", "risk", "parallel_count", "acceptance",
            "estimated_loc", "files_involved", "public_contracts_touched",
        ],
    })
}

// ---- checks.toml ----

fn taplo_init(keys: &[&str]) -> Value {
    json!({"initKeys": keys})
}

fn duration(description: &str, default: Option<&str>) -> Value {
    let mut schema = json!({
        "type": "string",
        "pattern": DURATION_PATTERN,
        "description": format!("{description} A duration: a number with a unit ms, s, m or h, or a sum such as \"1m30s\"."),
        "examples": ["500ms", "90s", "2m", "1h"],
    });
    if let Some(default) = default {
        schema["default"] = json!(default);
    }
    schema
}

fn cwd() -> Value {
    json!({
        "type": "string",
        "default": ".",
        "description": "Working directory, relative to the worktree; may not leave it (also not through a symlink).",
    })
}

fn env() -> Value {
    json!({
        "type": "object",
        "description": "Extra environment variables (the check also inherits run-check's environment). Values never appear in the evidence.",
        "propertyNames": {"minLength": 1, "pattern": "^[^=\\u0000]+$"},
        "additionalProperties": {"type": "string"},
        "examples": [{"CARGO_TERM_COLOR": "never"}],
    })
}

fn run_argv(of: &str) -> Value {
    json!({
        "type": "array",
        "description": format!("The {of}'s argv, never a shell string. `run[0]` must equal an entry of `settings.allow` as written; a bare name is looked up on PATH, a name with `/` or `\\` is relative to the worktree."),
        "minItems": 1,
        "prefixItems": [{"type": "string", "minLength": 1, "description": "The program, as listed in `settings.allow`."}],
        "items": {"type": "string"},
        "examples": [["cargo", "clippy", "--all-targets", "--", "-D", "warnings"]],
    })
}

fn diag_severity(description: &str) -> Value {
    json!({"enum": DIAG_SEVERITIES, "default": "error", "description": description})
}

/// The JSON Schema of checks.toml (SPEC section 3), for editors and linters
/// that validate TOML against JSON Schema. `checks.schema.json` at the
/// repository root is this, pretty-printed.
pub fn checks() -> Value {
    json!({
        "$schema": DIALECT,
        "$id": "https://run-check.dev/schema/checks.json",
        "title": "run-check checks.toml",
        "description": "The checks of a repository's read-only verification gate. Validate with `run-check validate`; list a mode's checks with `run-check list --mode fast`.",
        "type": "object",
        "properties": {
            "version": {"const": 1, "default": 1, "description": "The config format version; only 1 is accepted."},
            "settings": settings(),
            "judge": judge(),
            "retry": closed(
                "The retry tracker (`run-check retry`).",
                json!({
                    "max_retries": {"type": "integer", "minimum": 0, "default": 3, "description": "Retries per failure point before escalation (SUBTASK or BLOCKED)."},
                }),
                &[],
            ),
            "check": {
                "type": "array",
                "description": "The checks, in the order they start (subject to `needs` and `jobs`).",
                "items": check(),
            },
            "fix": {
                "type": "array",
                "description": "Writing commands, run only by `run-check fix`, one at a time in file order; a check run never runs them.",
                "items": fix(),
            },
        },
        "additionalProperties": false,
    })
}

fn settings() -> Value {
    closed(
        "Settings for every check.",
        json!({
            "jobs": {"type": "integer", "minimum": 0, "default": 0, "description": "Checks run in parallel; 0 = logical CPUs. `--jobs` overrides it."},
            "timeout": duration("Default per-check timeout.", Some("10m")),
            "excerpt_bytes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 67_108_864,
                "default": crate::config::DEFAULT_EXCERPT_BYTES,
                "description": "Per stream, keep the first N and the last N bytes of a check's output.",
            },
            "allow": {
                "type": "array",
                "default": [],
                "description": "The whitelist: `run[0]` of every check and fix must equal an entry as written. A shell (sh, bash, pwsh, cmd, ...) runs only when it is itself listed.",
                "items": {"type": "string", "minLength": 1},
                "examples": [["cargo", "git", "python3", "./scripts/lint.sh"]],
            },
        }),
        &[],
    )
}

fn judge() -> Value {
    let score = |description: &str, default: u32| json!({"type": "number", "minimum": 0, "maximum": 100, "default": default, "description": description});
    let limit = |description: &str, default: u32| json!({"type": "integer", "minimum": 0, "default": default, "description": description});
    let weight = |description: &str, default: f64| json!({"type": "number", "minimum": 0, "maximum": 1, "default": default, "description": description});
    closed(
        "Thresholds of `run-check judge`; each key optional (defaults of seed 000).",
        json!({
            "security_min": score("Minimum security score.", 85),
            "quality_min": score("Minimum quality score.", 80),
            "performance_min": score("Minimum performance score.", 80),
            "overall_min": score("Minimum overall (weighted) score.", 80),
            "max_critical_issues": limit("Most critical issues a pass may have.", 0),
            "max_high_issues": limit("Most high issues a pass may have.", 2),
            "max_iterations": {"type": "integer", "minimum": 1, "default": 5, "description": "The iteration at which a failing result becomes FAIL_MAX_ITERATIONS."},
            "stall_threshold": score("Smallest improvement of the overall score that is not a stall.", 5),
            "stall_rounds": limit("Rounds of small improvement that make a stall.", 2),
            "weights": closed(
                "Dimension weights; they must sum to 1.0 (±0.001).",
                json!({
                    "security": weight("Weight of the security score.", 0.4),
                    "quality": weight("Weight of the quality score.", 0.35),
                    "performance": weight("Weight of the performance score.", 0.25),
                }),
                &["security", "quality", "performance"],
            ),
        }),
        &[],
    )
}

fn check() -> Value {
    let mut check = closed(
        "One check: `run` (a whitelisted program) or `scan` (a built-in scan, no process).",
        json!({
            "name": {"type": "string", "pattern": NAME_PATTERN, "description": "Unique name: letters, digits, `_`, `.`, `-`."},
            "run": run_argv("check"),
            "scan": closed(
                "A built-in scan of the worktree's files (honours .gitignore; skips binary files and files over 1 MiB); fails on any error-level finding.",
                json!({
                    "paths": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Globs of the files to scan, relative to the worktree; empty: every file."},
                    "rules": {
                        "type": "array",
                        "default": [],
                        "description": "Built-in rule sets.",
                        "items": {
                            "enum": crate::config::SCAN_RULE_SETS,
                            "x-taplo": {"docs": {"enumValues": [
                                "`#[ignore]`, `@pytest.mark.skip`, `it.skip(`, `xit(`, `t.Skip(`, ...",
                                "`assert True`, `assert!(true)`, `expect(true).toBe(true)`, ...",
                                "AWS access key ids, private key blocks, GitHub tokens, `password = \"...\"` (never copied into evidence)",
                                "`dbg!(`, `console.log(`, `breakpoint()`",
                            ]}},
                        },
                    },
                }),
                &[],
            ),
            "modes": {
                "type": "array",
                "items": {"enum": MODES},
                "default": ["strict"],
                "description": "The modes that run this check: `fast` (developer loop, change-filtered by `paths`, fail-fast) and/or `strict` (acceptance gate).",
            },
            "dimension": {"enum": DIMENSIONS, "default": "quality", "description": "The judge dimension the check scores into."},
            "severity": {"enum": SEVERITIES, "default": "high", "description": "The severity of the issues the check raises when it fails."},
            "timeout": duration("This check's timeout (default `settings.timeout`); the whole process tree is killed.", None),
            "cwd": cwd(),
            "env": env(),
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Fast mode: run only when a changed file (against `--changed-since`, staged, or untracked) matches one of these globs; `*` does not cross `/`, `**` does.",
                "examples": [["**/*.rs", "Cargo.toml", "Cargo.lock"]],
            },
            "needs": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Checks this one runs after; a failed need skips it."},
            "parser": {
                "enum": PARSERS.map(|(name, _)| name),
                "default": "auto",
                "description": "How the check's output is read for diagnostics.",
                "x-taplo": {"docs": {"enumValues": PARSERS.map(|(_, doc)| doc)}},
            },
            "artifacts": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Globs relative to the worktree of files the check writes; recorded with their sha256; JUnit XML and SARIF are parsed into diagnostics."},
            "score": closed(
                "The check's 0..100 score, read from its output.",
                json!({
                    "regex": {"type": "string", "description": "The first capture group of the last match is the score, e.g. 'coverage: (\\d+(?:\\.\\d+)?)%'."},
                }),
                &["regex"],
            ),
            "matcher": {
                "type": "array",
                "description": "Custom problem matchers, applied to every output line.",
                "items": {
                    "type": "object",
                    "description": "A regex with named groups `message` (required), `file`, `line`, `column`, `severity`, `rule`.",
                    "properties": {
                        "regex": {"type": "string", "description": "E.g. '^(?P<file>[^:]+):(?P<line>\\d+): (?P<message>.+)$'."},
                        "severity": diag_severity("Severity when the regex has no `severity` group."),
                    },
                    "required": ["regex"],
                    "additionalProperties": false,
                    "x-taplo": taplo_init(&["regex"]),
                },
            },
            "rule": {
                "type": "array",
                "description": "Custom rules of a `scan` check.",
                "items": {
                    "type": "object",
                    "description": "One custom scan rule.",
                    "properties": {
                        "id": string("Rule id, reported as the diagnostic's rule."),
                        "pattern": string("A regex matched against each line."),
                        "message": string("The finding's message (never the matched text)."),
                        "severity": diag_severity("A scan fails on any error-level finding."),
                    },
                    "required": ["id", "pattern"],
                    "additionalProperties": false,
                    "x-taplo": taplo_init(&["id", "pattern"]),
                },
            },
        }),
        &["name"],
    );
    check["oneOf"] = json!([{"required": ["run"]}, {"required": ["scan"]}]);
    check["dependentRequired"] = json!({"rule": ["scan"]});
    check["x-taplo"] = taplo_init(&["name", "run"]);
    check
}

fn fix() -> Value {
    let mut fix = closed(
        "One writing command (e.g. a formatter), run only by `run-check fix`.",
        json!({
            "name": {"type": "string", "pattern": NAME_PATTERN, "description": "Unique name: letters, digits, `_`, `.`, `-`."},
            "run": run_argv("fix"),
            "timeout": duration("This fix's timeout (default `settings.timeout`).", None),
            "cwd": cwd(),
            "env": env(),
        }),
        &["name", "run"],
    );
    fix["x-taplo"] = taplo_init(&["name", "run"]);
    fix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_checks_schema_is_checks() {
        let committed = include_str!("../../checks.schema.json");
        assert!(
            committed == pretty(&checks()),
            "checks.schema.json is stale: run `run-check schema checks > checks.schema.json`"
        );
    }

    #[test]
    fn every_schema_is_a_valid_2020_12_schema() {
        for name in ["evidence", "task", "checks"] {
            let schema = by_name(name).unwrap();
            assert_eq!(
                schema["$id"],
                format!("https://run-check.dev/schema/{name}.json")
            );
        }
        for &name in NAMES {
            let schema = by_name(name).unwrap();
            assert_eq!(schema["$schema"], DIALECT, "{name}");
            assert!(schema["title"].is_string(), "{name}");
            if let Err(err) = jsonschema::meta::validate(&schema) {
                panic!("{name}: {err}");
            }
            jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(by_name("verdict-x"), None);
    }

    #[test]
    fn nullable_adds_null_to_type_and_enum() {
        assert_eq!(
            nullable(json!({"type": "string"})),
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            nullable(json!({"enum": ["a"], "description": "A."})),
            json!({"enum": ["a", null], "description": "A. Null when absent."})
        );
    }

    /// Every key the config structs accept appears in the checks schema:
    /// a key missing here would be flagged by editors in a valid file.
    #[test]
    fn checks_schema_accepts_the_reference_config() {
        let text = r#"
version = 1
[settings]
jobs = 0
timeout = "1m30s"
excerpt_bytes = 8192
allow = ["cargo", "./scripts/lint.sh"]
[judge]
security_min = 85
quality_min = 80.5
performance_min = 80
overall_min = 80
max_critical_issues = 0
max_high_issues = 2
max_iterations = 5
stall_threshold = 5
stall_rounds = 2
weights = { security = 0.4, quality = 0.35, performance = 0.25 }
[retry]
max_retries = 3
[[check]]
name = "clippy"
run = ["cargo", "clippy"]
modes = ["fast", "strict"]
dimension = "quality"
severity = "high"
timeout = "5m"
cwd = "."
env = { CARGO_TERM_COLOR = "never" }
paths = ["**/*.rs"]
needs = ["scan"]
parser = "cargo-json"
artifacts = ["target/junit.xml"]
score = { regex = 'coverage: (\d+)%' }
[[check.matcher]]
regex = '^(?P<message>.+)$'
severity = "warning"
[[check]]
name = "scan"
scan = { paths = ["src/**"], rules = ["skipped-tests", "placeholder-asserts", "secrets", "debug-leftovers"] }
[[check.rule]]
id = "no-dbg"
pattern = 'dbg!\('
message = "remove dbg!"
severity = "note"
[[fix]]
name = "fmt"
run = ["cargo", "fmt"]
timeout = "2m"
cwd = "."
env = { A = "1" }
"#;
        crate::config::parse(text, std::path::Path::new("checks.toml"), String::new()).unwrap();
        let value: Value = toml::from_str(text).unwrap();
        let validator = jsonschema::validator_for(&checks()).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        for (bad, why) in [
            ("[settings]\njob = 1\n", "misspelled key"),
            ("[settings]\ntimeout = \"10\"\n", "duration without unit"),
            ("[[check]]\nname = \"a\"\n", "neither run nor scan"),
            (
                "[[check]]\nname = \"a\"\nrun = [\"x\"]\nscan = {}\n",
                "both run and scan",
            ),
            ("[[check]]\nname = \"a b\"\nrun = [\"x\"]\n", "bad name"),
            ("[[check]]\nname = \"a\"\nrun = []\n", "empty run"),
            (
                "[[check]]\nname = \"a\"\nrun = [\"x\"]\nparser = \"json\"\n",
                "unknown parser",
            ),
            (
                "[[check]]\nname = \"a\"\nrun = [\"x\"]\n[[check.rule]]\nid = \"r\"\npattern = \"p\"\n",
                "rule outside scan",
            ),
            ("version = 2\n", "version"),
        ] {
            let value: Value = toml::from_str(bad).unwrap();
            assert!(!validator.is_valid(&value), "{why} accepted");
        }
    }
}
