//! SARIF 2.1.0 reports (ruff's, eslint's, any linter that writes SARIF).

use serde_json::Value;

use crate::parse::Diagnostic;
use run_check_documents::evidence::DiagSeverity;

use super::{clip, strip_bom};

/// SARIF 2.1.0: one diagnostic per result (results of kind `pass` or
/// `notApplicable`, and suppressed ones, are not problems and are left out).
/// Empty when the JSON is malformed or not SARIF 2.1.0.
pub(super) fn sarif(contents: &[u8]) -> Vec<Diagnostic> {
    // A report a check wrote is untrusted: as many values as a user's JSON
    // input at most, so parsing it stays bounded in memory.
    if crate::json_input::values(contents) > crate::json_input::MAX_VALUES {
        return Vec::new();
    }
    let Ok(doc) = serde_json::from_slice::<Value>(strip_bom(contents)) else {
        return Vec::new();
    };
    let Some(runs) = doc["runs"].as_array().filter(|_| doc["version"] == "2.1.0") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for run in runs {
        let rules = run.pointer("/tool/driver/rules").and_then(Value::as_array);
        let Some(results) = run["results"].as_array() else {
            continue;
        };
        for result in results {
            if matches!(result["kind"].as_str(), Some("pass" | "notApplicable"))
                || suppressed(result)
            {
                continue;
            }
            found.push(sarif_result(run, rules, result));
        }
    }
    found
}

fn suppressed(result: &Value) -> bool {
    result["suppressions"].as_array().is_some_and(|list| {
        list.iter()
            .any(|s| matches!(s["status"].as_str(), None | Some("accepted")))
    })
}

fn sarif_result(run: &Value, rules: Option<&Vec<Value>>, result: &Value) -> Diagnostic {
    let rule_id = result["ruleId"]
        .as_str()
        .or_else(|| result.pointer("/rule/id").and_then(Value::as_str));
    let index = result["ruleIndex"]
        .as_u64()
        .or_else(|| result.pointer("/rule/index").and_then(Value::as_u64));
    let descriptor = rules.and_then(|rules| {
        index
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| rules.get(i))
            .or_else(|| rule_id.and_then(|id| rules.iter().find(|r| r["id"] == id)))
    });
    let rule_id = rule_id.or_else(|| descriptor.and_then(|d| d["id"].as_str()));
    let level = result["level"].as_str().or_else(|| {
        descriptor
            .and_then(|d| d.pointer("/defaultConfiguration/level"))
            .and_then(Value::as_str)
    });
    let severity = match level {
        Some("error") => DiagSeverity::Error,
        Some("note") => DiagSeverity::Note,
        Some("none") => DiagSeverity::Info,
        // `warning`, absent (SARIF's default) or unknown.
        _ => DiagSeverity::Warning,
    };
    let message = result["message"]["text"]
        .as_str()
        .or_else(|| result["message"]["markdown"].as_str())
        .map(|text| placeholders(text, &result["message"]["arguments"]))
        .or_else(|| {
            descriptor
                .and_then(|d| d.pointer("/shortDescription/text"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .or_else(|| rule_id.map(str::to_string))
        .unwrap_or_else(|| "(no message)".to_string());
    let physical = result.pointer("/locations/0/physicalLocation");
    let artifact = physical.map(|p| &p["artifactLocation"]);
    let uri = artifact.and_then(|a| {
        a["uri"].as_str().or_else(|| {
            let index = usize::try_from(a["index"].as_u64()?).ok()?;
            run["artifacts"]
                .get(index)?
                .pointer("/location/uri")?
                .as_str()
        })
    });
    let region = physical.map(|p| &p["region"]);
    let number = |key: &str| region.and_then(|r| r[key].as_u64()).filter(|&n| n > 0);
    Diagnostic {
        file: uri.map(uri_to_path).filter(|f| !f.is_empty()),
        line: number("startLine"),
        column: number("startLine").and(number("startColumn")),
        severity,
        rule: rule_id.map(str::to_string),
        message: clip(message),
        ..Default::default()
    }
}

/// SARIF message placeholders: `{0}` is the first argument; `{{`/`}}` are
/// literal braces.
fn placeholders(text: &str, arguments: &Value) -> String {
    let arguments = arguments.as_array();
    if arguments.is_none() && !text.contains("{{") && !text.contains("}}") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if let Some((number, after)) = tail.strip_prefix('{').and_then(|t| t.split_once('}'))
        {
            match number
                .parse::<usize>()
                .ok()
                .and_then(|n| arguments?.get(n)?.as_str())
            {
                Some(arg) => out.push_str(arg),
                None => {
                    out.push('{');
                    out.push_str(number);
                    out.push('}');
                }
            }
            rest = after;
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A SARIF `uri` as a path: `file://` stripped (a Windows drive loses its
/// leading `/`), percent-escapes decoded.
fn uri_to_path(uri: &str) -> String {
    let path = match uri.strip_prefix("file://") {
        Some(rest) if rest.starts_with('/') => {
            let bytes = rest.as_bytes();
            if bytes.len() >= 3 && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
                &rest[1..]
            } else {
                rest
            }
        }
        // `file://host/share/x`: a UNC path.
        Some(rest) => return format!("//{}", percent_decode(rest)),
        None => uri.strip_prefix("file:").unwrap_or(uri),
    };
    percent_decode(path)
}

pub(super) fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
