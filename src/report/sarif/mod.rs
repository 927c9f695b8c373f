//! The `sarif` report: SARIF 2.1.0 with one run. Every evidence diagnostic
//! is a result (`ruleId` `run-check/<check>/<rule>`, or `run-check/<check>`
//! without a rule: [`rule_id`]); a failing or erroring check without a located error-level
//! diagnostic is one result of its own (`run-check/<check>`), and a run that
//! did not pass but has no result at all gets one (`run-check/run`) carrying
//! the banner, so a failing run never renders as empty SARIF.
//!
//! Every result has a location with a line, as GitHub's code scanning
//! requires (it rejects the whole file for one result without): a
//! diagnostic's own file and line; otherwise the line of its check's
//! `[[check]]` table in the config (`checks[].config_line`), or the config's
//! first line for the run's own result and for evidence written before
//! `config_line` existed. Every rule has a short and a full description and
//! a help text, which GitHub also requires.
//!
//! File paths are worktree-relative URIs (forward slashes, percent-encoded)
//! with `uriBaseId` `SRCROOT`, which `originalUriBaseIds` maps to the
//! worktree; paths outside the worktree are absolute `file://` URIs.

use serde::Serialize;
use serde_json::{Map, Value};

use run_check_documents::evidence::{CheckRecord, Diagnostic, Evidence};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The `uriBaseId` of worktree-relative paths.
const SRCROOT: &str = "SRCROOT";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    automation_details: AutomationDetails,
    invocations: [Invocation<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<Map<String, Value>>,
    results: Vec<SarifResult>,
    properties: Value,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'a str,
    version: &'a str,
    semantic_version: &'a str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    short_description: Message,
    full_description: Message,
    help: Message,
}

#[derive(Serialize)]
struct AutomationDetails {
    id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation<'a> {
    execution_successful: bool,
    exit_code: i32,
    start_time_utc: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: [Location; 1],
    /// With `--baseline` (docs/baseline.md): `new`, or `unchanged` for a
    /// diagnostic the baseline knows (shown with `--all-diagnostics`).
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    properties: Value,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u64>,
}

/// Rule ids in order of first use, each with its index.
#[derive(Default)]
struct Rules {
    list: Vec<Rule>,
}

/// What a rule says of itself: short, full, help.
struct Described {
    short: String,
    full: String,
    help: String,
}

impl Rules {
    /// The index of rule `id`, added with what `describe` says when new.
    fn index(&mut self, id: &str, describe: impl FnOnce() -> Described) -> usize {
        if let Some(i) = self.list.iter().position(|r| r.id == id) {
            return i;
        }
        let Described { short, full, help } = describe();
        self.list.push(Rule {
            id: id.to_string(),
            short_description: Message { text: short },
            full_description: Message { text: full },
            help: Message { text: help },
        });
        self.list.len() - 1
    }
}

/// Where results without a file of their own point: the config file, as a
/// URI (worktree-relative when it lies inside the worktree).
struct ConfigFile {
    uri: String,
    uri_base_id: Option<&'static str>,
}

impl ConfigFile {
    fn of(evidence: &Evidence) -> ConfigFile {
        let meta = &evidence.meta;
        let named = std::path::Path::new(&meta.config.path);
        let absolute = if named.is_absolute() {
            named.to_path_buf()
        } else {
            std::path::Path::new(&meta.cwd).join(named)
        };
        let worktree = std::path::Path::new(&meta.worktree);
        let absolute = crate::paths::lexical(&absolute);
        let relative = absolute
            .strip_prefix(crate::paths::lexical(worktree))
            .ok()
            .map(crate::paths::to_slashes)
            .filter(|p| !p.is_empty());
        let (uri, uri_base_id) =
            file_uri(&relative.unwrap_or_else(|| absolute.to_string_lossy().into_owned()));
        ConfigFile { uri, uri_base_id }
    }

    /// A location at `line` of the config (the first line when unknown).
    fn at(&self, line: Option<u64>) -> Location {
        Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: self.uri.clone(),
                    uri_base_id: self.uri_base_id,
                },
                region: Some(Region {
                    start_line: line.filter(|&l| l > 0).unwrap_or(1),
                    start_column: None,
                }),
            },
        }
    }
}

pub(super) fn render(evidence: &Evidence) -> String {
    let s = &evidence.summary;
    let config = ConfigFile::of(evidence);
    let config_line = |check: &str| {
        evidence
            .checks
            .iter()
            .find(|c| c.name == check)
            .and_then(|c| c.config_line)
    };
    let mut rules = Rules::default();
    let mut results = Vec::new();
    for d in &evidence.diagnostics {
        let unlocated = || config.at(config_line(&d.check));
        results.push(diagnostic_result(d, &mut rules, unlocated));
    }
    for check in &evidence.checks {
        results.extend(check_result(check, evidence, &config, &mut rules));
    }
    if results.is_empty() && !s.all_checks_passed {
        results.push(run_result(&s.banner, &config, &mut rules));
    }
    let meta = &evidence.meta;
    let original_uri_base_ids = directory_uri(&meta.worktree).map(|uri| {
        let mut map = Map::new();
        map.insert(SRCROOT.into(), serde_json::json!({ "uri": uri }));
        map
    });
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "run-check",
                    version: &meta.tool.version,
                    semantic_version: &meta.tool.version,
                    rules: rules.list,
                },
            },
            automation_details: AutomationDetails {
                id: format!("run-check/{}/", evidence.mode),
            },
            invocations: [Invocation {
                execution_successful: s.all_checks_passed,
                exit_code: s.exit_code,
                start_time_utc: &meta.timestamp,
            }],
            original_uri_base_ids,
            results,
            properties: serde_json::json!({
                "mode": evidence.mode,
                "banner": s.banner,
                "commit": meta.git.commit,
                "branch": meta.git.branch,
                "summary": {
                    "total": s.total, "passed": s.passed, "failed": s.failed,
                    "errored": s.errored, "skipped": s.skipped, "duration_ms": s.duration_ms,
                },
            }),
        }],
    };
    run_check_documents::pretty(&log)
}

/// A failing or erroring check's own result, unless one of its error-level
/// diagnostics already points at a file.
fn check_result(
    check: &CheckRecord,
    evidence: &Evidence,
    config: &ConfigFile,
    rules: &mut Rules,
) -> Option<SarifResult> {
    let located_error = super::of_check(&evidence.diagnostics, &check.name).any(|d| {
        d.severity == run_check_documents::evidence::DiagSeverity::Error
            && d.file.as_deref().is_some_and(|f| !f.is_empty())
    });
    if !check.status.is_failure() || located_error {
        return None;
    }
    let outcome = super::outcome(check);
    let id = rule_id(&check.name, None);
    let describe = || Described {
        short: format!("The check `{}` of the config passes", check.name),
        full: format!(
            "The check `{}` (`{}`) exits 0 within its timeout. A result of \
             this rule points at the check's table in the config: the check \
             failed and none of its diagnostics names a file.",
            check.name,
            check.command.join(" ")
        ),
        help: format!(
            "Read the check's output in the evidence (checks[].stdout_excerpt \
             and stderr_excerpt of `{}`), or run `run-check --only {}` to see it.",
            check.name, check.name
        ),
    };
    Some(SarifResult {
        rule_index: rules.index(&id, describe),
        rule_id: id,
        level: "error",
        message: Message {
            text: format!("{} {outcome}", check.name),
        },
        locations: [config.at(check.config_line)],
        baseline_state: None,
        properties: serde_json::json!({ "check": check.name }),
    })
}

/// The result of a run that did not pass and has no other result.
fn run_result(banner: &str, config: &ConfigFile, rules: &mut Rules) -> SarifResult {
    let id = "run-check/run";
    let describe = || Described {
        short: "The run-check run passes".into(),
        full: "Every check of the mode passes and no check changes the worktree. A \
               result of this rule points at the config: the run did not pass and \
               no check or diagnostic says why (an interrupted run, say)."
            .into(),
        help: "Read the banner and the evidence's summary; run `run-check` again.".into(),
    };
    SarifResult {
        rule_index: rules.index(id, describe),
        rule_id: id.into(),
        level: "error",
        message: Message {
            text: banner.to_string(),
        },
        locations: [config.at(None)],
        baseline_state: None,
        properties: serde_json::json!({}),
    }
}

/// The one scheme of every `ruleId`: `run-check/<check>` for a check's own
/// result and its diagnostics without a rule (or whose rule is the check's
/// name), `run-check/<check>/<rule>`
/// for a diagnostic with one (`run-check/ruff/F401`), so a tool's code is
/// always under the check that ran it, whichever tool prints codes and
/// whichever does not. The run's own findings (check `run-check`) are
/// `run-check/<rule>` (`run-check/read-only`).
fn rule_id(check: &str, rule: Option<&str>) -> String {
    // A parser that names its rule after the tool (black's `black`) adds
    // nothing to the check's own id.
    match rule.filter(|r| !r.is_empty() && *r != check) {
        Some(rule) if check == "run-check" => format!("run-check/{rule}"),
        Some(rule) => format!("run-check/{check}/{rule}"),
        None => format!("run-check/{check}"),
    }
}

/// A diagnostic as a result: at its own file and line, or where
/// `unlocated` says when it names no file.
fn diagnostic_result(
    d: &Diagnostic,
    rules: &mut Rules,
    unlocated: impl FnOnce() -> Location,
) -> SarifResult {
    let id = rule_id(&d.check, d.rule.as_deref());
    let level = match d.severity.as_str() {
        "error" => "error",
        "note" | "info" | "help" => "note",
        _ => "warning",
    };
    let text = if d.message.trim().is_empty() {
        d.rule.clone().unwrap_or_else(|| "(no message)".into())
    } else {
        d.message.clone()
    };
    let location = match d.file.as_deref().filter(|f| !f.is_empty()) {
        Some(file) => {
            let (uri, uri_base_id) = file_uri(file);
            Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation { uri, uri_base_id },
                    // A file without a line is its first line: GitHub needs
                    // a region with a start line.
                    region: Some(Region {
                        start_line: d.line.filter(|&l| l > 0).unwrap_or(1),
                        start_column: d.line.filter(|&l| l > 0).and(d.column.filter(|&c| c > 0)),
                    }),
                },
            }
        }
        None => unlocated(),
    };
    let mut properties = serde_json::json!({ "check": d.check, "severity": d.severity });
    if let Some(suggestion) = &d.suggestion {
        properties["suggestion"] = suggestion.clone().into();
    }
    // The tool's own code, where it has one, is what its documentation
    // knows.
    let code = d.rule.as_deref().filter(|r| !r.is_empty()).unwrap_or(&id);
    let describe = || Described {
        short: format!("`{code}`, reported by the check `{}`", d.check),
        full: format!(
            "The tool run by the check `{}` reported `{code}`: run-check relays what \
             the tool printed, located where the tool said.",
            d.check
        ),
        help: format!(
            "See the documentation of the tool run by the check `{}` for `{code}`.",
            d.check
        ),
    };
    SarifResult {
        rule_index: rules.index(&id, describe),
        rule_id: id,
        level,
        message: Message { text },
        locations: [location],
        baseline_state: d.new.map(|new| if new { "new" } else { "unchanged" }),
        properties,
    }
}

/// A diagnostic's file as a URI: relative paths stay relative (to
/// `SRCROOT`), absolute ones become `file://` URIs.
fn file_uri(file: &str) -> (String, Option<&'static str>) {
    let file = file.replace('\\', "/");
    let drive =
        file.len() >= 2 && file.as_bytes()[0].is_ascii_alphabetic() && file.as_bytes()[1] == b':';
    if file.starts_with("//") {
        // A UNC path: file://host/share/...
        (format!("file:{}", encode(&file, true)), None)
    } else if file.starts_with('/') {
        (format!("file://{}", encode(&file, true)), None)
    } else if drive {
        (format!("file:///{}", encode(&file, true)), None)
    } else {
        (encode(&file, false), Some(SRCROOT))
    }
}

/// The worktree as a directory URI (ending in `/`); `None` when it is not
/// absolute.
fn directory_uri(worktree: &str) -> Option<String> {
    let (uri, base) = file_uri(worktree);
    if base.is_some() || worktree.is_empty() {
        return None;
    }
    Some(if uri.ends_with('/') {
        uri
    } else {
        format!("{uri}/")
    })
}

/// Percent-encodes everything but unreserved characters and `/` (and `:`
/// when `colon` allows it, for a drive letter in an absolute URI).
fn encode(path: &str, colon: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
            || (colon && b == b':');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
