//! Report formats rendered from one `Evidence`. Renderers only consume data:
//! they never run processes or touch files (`output` writes).

mod github;
mod junit;
mod markdown;
mod sarif;
mod text;

use crate::evidence::Evidence;

/// A report format of the check run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human summary; the last line is the banner.
    Text,
    /// The evidence document (SPEC section 6).
    Json,
    /// JUnit XML: one testcase per check.
    Junit,
    /// SARIF 2.1.0: one run, diagnostics as results.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=F,line=L,col=C::msg`).
    Github,
    /// A Markdown table for a pull-request comment.
    Markdown,
}

/// Renders `evidence` in `format`.
pub fn render(format: Format, evidence: &Evidence) -> Vec<u8> {
    match format {
        Format::Text => text::render(evidence).into_bytes(),
        Format::Json => json(evidence),
        Format::Junit => junit::render(evidence).into_bytes(),
        Format::Sarif => sarif::render(evidence).into_bytes(),
        Format::Github => github::render(evidence).into_bytes(),
        Format::Markdown => markdown::render(evidence).into_bytes(),
    }
}

/// Pretty JSON with a final newline.
pub fn json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    // Serialising our own plain structs cannot fail (no maps with non-string
    // keys, no failing Serialize impls).
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

pub use text::status_word;
