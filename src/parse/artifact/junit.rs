//! JUnit XML reports (pytest, vitest, jest-junit, node --test, .NET loggers).

use crate::parse::Diagnostic;
use run_check_documents::evidence::DiagSeverity;

use super::{clip, strip_bom};

/// XML nodes parsed at most per file (a bound on memory, far above any real
/// report of `run::artifacts::MAX_PARSE_BYTES`).
const MAX_XML_NODES: u32 = 8_000_000;

/// XML text: UTF-8 (BOM optional, invalid bytes replaced), or UTF-16 with
/// a byte-order mark (as some .NET loggers write).
fn decode(contents: &[u8]) -> String {
    let utf16 = |bytes: &[u8], from: fn([u8; 2]) -> u16| {
        let units: Vec<u16> = bytes.chunks_exact(2).map(|p| from([p[0], p[1]])).collect();
        String::from_utf16_lossy(&units)
    };
    if let Some(rest) = contents.strip_prefix(b"\xFF\xFE") {
        utf16(rest, u16::from_le_bytes)
    } else if let Some(rest) = contents.strip_prefix(b"\xFE\xFF") {
        utf16(rest, u16::from_be_bytes)
    } else {
        String::from_utf8_lossy(strip_bom(contents)).into_owned()
    }
}

/// JUnit XML: one error per `<testcase>` with a `<failure>` or `<error>`,
/// placed by its `file` and `line` attributes, else by the stack frames of
/// its text (` ❯ path:line:col`, `at fn (path:line:col)`). Empty when the root is neither `testsuites` nor `testsuite`, or the XML
/// is malformed.
pub(super) fn junit(contents: &[u8]) -> Vec<Diagnostic> {
    let text = decode(contents);
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let Ok(doc) = roxmltree::Document::parse_with_options(&text, options) else {
        return Vec::new();
    };
    let root = doc.root_element();
    if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
        return Vec::new();
    }
    let mut found = Vec::new();
    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        let Some(problem) = case
            .children()
            .find(|n| n.is_element() && matches!(n.tag_name().name(), "failure" | "error"))
        else {
            continue;
        };
        // A classname that is the test's file (vitest) or repeats its name
        // (jest-junit) adds nothing to the name.
        let rule = match (attr(case, "classname"), attr(case, "name")) {
            (Some(class), Some(name)) if class == name || looks_like_path(class) => {
                Some(name.to_string())
            }
            (Some(class), Some(name)) => Some(format!("{class}.{name}")),
            (None, Some(name)) => Some(name.to_string()),
            (Some(class), None) => Some(class.to_string()),
            (None, None) => None,
        };
        // Text nodes only: an element's own `text()` is its first child's
        // text, which would count that text twice.
        let text: String = problem
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .collect();
        let message = attr(problem, "message")
            .map(str::to_string)
            .or_else(|| {
                text.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| problem.tag_name().name().to_string());
        let mut file = attr(case, "file").map(str::to_string);
        let mut line = attr(case, "line").and_then(crate::parse::position);
        let mut column = None;
        // No line given (vitest, jest-junit, node --test): the failure
        // text's first stack frame in the testcase's file (its `file`
        // attribute, else a classname that is a path, as vitest writes);
        // without a `file` attribute, else the text's first frame outside
        // node_modules; else the classname's file without a line.
        if line.is_none() {
            let classname = attr(case, "classname").filter(|c| looks_like_path(c));
            let named = file.as_deref().or(classname);
            let frame =
                crate::parse::vitest::stack_location(&text, named).filter(|(path, _, _)| {
                    file.as_deref()
                        .is_none_or(|f| crate::parse::vitest::same_file(path, f))
                });
            match frame {
                Some((path, at, col)) => {
                    file = Some(path);
                    line = Some(at);
                    column = Some(col);
                }
                None => file = file.or(classname.map(str::to_string)),
            }
        }
        found.push(Diagnostic {
            file,
            line,
            column,
            severity: DiagSeverity::Error,
            rule,
            message: clip(message),
            ..Default::default()
        });
    }
    found
}

/// Whether a classname names a file (`tests/x.test.ts`) rather than a
/// dotted class (`pkg.TestX`).
fn looks_like_path(classname: &str) -> bool {
    classname.contains(['/', '\\'])
        || classname.rsplit_once('.').is_some_and(|(_, ext)| {
            ["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"].contains(&ext)
        })
}

/// A non-blank attribute, trimmed.
fn attr<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute(name)
        .map(str::trim)
        .filter(|v| !v.is_empty())
}
