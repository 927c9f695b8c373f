//! The file as serde sees it: one struct per table, `deny_unknown_fields`
//! everywhere, and spans on every value a message may point at. Nothing here
//! checks a value; `validate` turns these into the public types.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::{DiagSeverity, Dimension, Mode, Parser, RetryConfig, Severity};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    pub(super) version: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) settings: RawSettings,
    #[serde(default)]
    pub(super) judge: Option<Spanned<toml::Table>>,
    #[serde(default)]
    pub(super) retry: RetryConfig,
    #[serde(default)]
    pub(super) check: Vec<RawCheck>,
    #[serde(default)]
    pub(super) fix: Vec<RawFix>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSettings {
    pub(super) jobs: Option<usize>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) excerpt_bytes: Option<Spanned<u64>>,
    #[serde(default)]
    pub(super) allow: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) allow_env: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCheck {
    pub(super) name: Spanned<String>,
    pub(super) run: Option<Spanned<Vec<String>>>,
    pub(super) scan: Option<Spanned<RawScan>>,
    pub(super) modes: Option<Vec<Mode>>,
    pub(super) dimension: Option<Dimension>,
    pub(super) severity: Option<Severity>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) cwd: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) env: BTreeMap<Spanned<String>, String>,
    pub(super) paths: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub(super) needs: Vec<Spanned<String>>,
    pub(super) parser: Option<Parser>,
    #[serde(default)]
    pub(super) artifacts: Vec<Spanned<String>>,
    pub(super) leave_running: Option<Spanned<bool>>,
    pub(super) score: Option<RawScore>,
    #[serde(default)]
    pub(super) matcher: Vec<RawMatcher>,
    #[serde(default)]
    pub(super) rule: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScan {
    #[serde(default)]
    pub(super) paths: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) rules: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScore {
    pub(super) regex: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMatcher {
    pub(super) regex: Spanned<String>,
    pub(super) severity: Option<DiagSeverity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    pub(super) id: Spanned<String>,
    pub(super) pattern: Spanned<String>,
    pub(super) message: Option<String>,
    pub(super) severity: Option<DiagSeverity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFix {
    pub(super) name: Spanned<String>,
    pub(super) run: Spanned<Vec<String>>,
    pub(super) timeout: Option<Spanned<String>>,
    pub(super) cwd: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) env: BTreeMap<Spanned<String>, String>,
}
