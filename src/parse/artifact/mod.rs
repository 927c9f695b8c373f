//! Reports a check writes as `artifacts`, parsed into diagnostics by the
//! file's name: JUnit XML (`junit`) and SARIF 2.1.0 (`sarif`). Nothing here
//! fails: a malformed report yields no diagnostics.

mod junit;
mod sarif;

use crate::parse::Diagnostic;

/// Longest message kept from an artifact, in bytes (the rest is cut with `…`).
const MAX_MESSAGE: usize = 4096;

/// The diagnostics of one artifact, by its name and contents; empty for
/// anything that is not JUnit XML or SARIF 2.1.0.
pub(crate) fn parse(name: &str, contents: &[u8]) -> Vec<Diagnostic> {
    let extension = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "xml" => junit::junit(contents),
        "sarif" | "json" => sarif::sarif(contents),
        _ => Vec::new(),
    }
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// At most `MAX_MESSAGE` bytes, trailing whitespace removed.
fn clip(message: String) -> String {
    crate::parse::clip(message.trim_end(), MAX_MESSAGE)
}

#[cfg(test)]
mod tests;
