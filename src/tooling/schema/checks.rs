//! The JSON Schema of checks.toml (docs/checks-toml.md), following the raw structs
//! of `config`, with Taplo hints (`x-taplo`) for editor completion.

use serde_json::{Value, json};

use super::DIALECT;
use super::blocks::{DIAG_SEVERITIES, DIMENSIONS, MODES, NAME_PATTERN, SEVERITIES, closed, string};

const DURATION_PATTERN: &str = r"^\s*([0-9]+(ms|s|m|h|d))+\s*$";
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

fn taplo_init(keys: &[&str]) -> Value {
    json!({"initKeys": keys})
}

fn duration(description: &str, default: Option<&str>) -> Value {
    let mut schema = json!({
        "type": "string",
        "pattern": DURATION_PATTERN,
        "description": format!("{description} A duration: a whole number with a unit ms, s, m, h or d, or a sum such as \"1m30s\"; at least 1ms, at most 7d."),
        "examples": ["500ms", "90s", "2m", "1h", "7d"],
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
        "description": "Extra environment variables (the check also inherits run-check's environment). Values never appear in the evidence. A key that makes a program load other code (LD_PRELOAD, LD_*, DYLD_*, PATH, BASH_ENV, ENV, GIT_CONFIG_*, GIT_EXEC_PATH, NODE_OPTIONS, PYTHONPATH, PYTHONSTARTUP, PERL5OPT, RUBYOPT, RUSTFLAGS, RUSTC_WRAPPER, JAVA_TOOL_OPTIONS, HOME, ...; any case) is a config error unless `settings.allow_env` lists it.",
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

/// The JSON Schema of checks.toml (docs/checks-toml.md), for editors and linters
/// that validate TOML against JSON Schema. `checks.schema.json` at the
/// repository root is this, pretty-printed.
pub(crate) fn checks() -> Value {
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
                "description": "The whitelist: `run[0]` of every check and fix must equal an entry as written. A shell (sh, bash, pwsh, cmd, ...) runs only when it is itself listed. Symlinks are followed: a listed path inside the worktree that leads out of it, or a link to a shell that is not itself listed, is a config error; the evidence records the real path.",
                "items": {"type": "string", "minLength": 1},
                "examples": [["cargo", "git", "python3", "./scripts/lint.sh"]],
            },
            "allow_env": {
                "type": "array",
                "default": [],
                "description": "Environment keys that make a program load other code (LD_PRELOAD, GIT_CONFIG_*, RUSTFLAGS, ...) which a check's or fix's `env` may set all the same; compared ignoring case. Every other such key is a config error.",
                "items": {"type": "string", "minLength": 1, "pattern": "^[^=\\u0000]+$"},
                "examples": [["RUSTFLAGS"]],
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
        "Thresholds of `run-check judge`; each key optional (the judge's defaults).",
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
                    "paths": {"type": "array", "items": {"type": "string"}, "default": [], "description": "Globs of the files to scan, relative to the worktree (`./` dropped; a directory such as `src` or `src/` means everything below it; `*` does not cross `/`, `**` does; absolute or `..` patterns are refused); empty: every file."},
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
                "description": "Fast mode: run only when a changed file (against `--changed-since`, staged, or untracked) matches one of these globs, relative to the worktree (`./` dropped; a directory such as `src` or `src/` means everything below it; `*` and `**` both cross `/`; absolute or `..` patterns are refused).",
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
            "leave_running": {"type": "boolean", "default": false, "description": "Let the processes this check leaves behind (a build daemon such as Gradle's or sccache's server) outlive it and run-check; they are still listed in the evidence's `leaked`. Default: every process the check started is killed when it ends. Only for a check with `run`."},
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
    use run_check_documents::pretty;

    #[test]
    fn the_committed_checks_schema_is_checks() {
        let committed = include_str!("../../../checks.schema.json");
        assert!(
            committed == pretty(&checks()),
            "checks.schema.json is stale: run `run-check schema checks > checks.schema.json`"
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
allow_env = ["RUSTFLAGS"]
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
env = { CARGO_TERM_COLOR = "never", RUSTFLAGS = "-D warnings" }
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
