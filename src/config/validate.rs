//! The `Validator` and its top-level pass: `version`, `[settings]`, `[judge]`,
//! every `[[check]]`, the `needs` graph, then every `[[fix]]`, in that order
//! (the first error found is the one reported).

use std::collections::HashMap;
use std::fmt::Display;
use std::path::Path;

use crate::error::Error;

use super::raw::RawConfig;
use super::span::{Of, Span, header_at};
use super::{CheckConfig, CheckKind, Config, Dimension, Parser, Severity};

/// Validates a parsed file against the text it came from, so every error can
/// name its line, column and key.
pub(super) struct Validator<'a> {
    pub(super) text: &'a str,
    pub(super) path: &'a Path,
    /// Offsets of every `\n`, so a check's line is a binary search, not a
    /// scan from the top (a 500-check config would be quadratic).
    pub(super) newlines: Vec<usize>,
}

impl Validator<'_> {
    pub(super) fn validate(&self, raw: RawConfig, sha256: String) -> Result<Config, Error> {
        if let Some(version) = &raw.version
            && *version.get_ref() != 1
        {
            return Err(self.err(
                version.span(),
                "version",
                format!(
                    "unsupported version {} (this run-check reads version 1)",
                    version.get_ref()
                ),
            ));
        }
        let settings = self.settings(raw.settings)?;
        let cache = raw.cache.map(|c| self.cache(c)).transpose()?;
        let remote = raw.remote.map(|r| self.remote(r)).transpose()?;
        let judge = raw.judge.map(|j| self.judge(j)).transpose()?;
        let agent = self.agent(raw.agent)?;
        let gate = self.gate(raw.gate)?;

        let mut checks = Vec::with_capacity(raw.check.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for raw_check in raw.check {
            let on_remote = self.remote_check(&raw_check, remote.is_some())?;
            let mut check = self.check(raw_check, &settings, &seen)?;
            check.remote = on_remote;
            seen.insert(check.name.clone(), checks.len());
            checks.push(check);
        }
        // `needs` spans were checked for existence in `check`, except for
        // forward references; check those and cycles now.
        self.needs(&checks)?;

        let mut fixes: Vec<CheckConfig> = Vec::with_capacity(raw.fix.len());
        for fix in raw.fix {
            let name_key = "fix.name";
            self.name(&fix.name, name_key)?;
            if fixes.iter().any(|f| f.name == *fix.name.get_ref()) {
                return Err(self.err(
                    fix.name.span(),
                    name_key,
                    format!("duplicate fix name `{}`", fix.name.get_ref()),
                ));
            }
            let of = |key| Of {
                key,
                table: "fix",
                name: fix.name.get_ref(),
            };
            let run = self.argv(&fix.run, &settings.allow, of("run"))?;
            let timeout = (fix.timeout.as_ref())
                .map(|t| self.duration(t, of("timeout")))
                .transpose()?;
            let cwd = self.cwd(&fix.cwd, of("cwd"))?;
            let env = self.env(fix.env, &settings.allow_env, of("env"))?;
            let line = self.line_of(fix.name.span().start);
            let table_line = self.table_line(fix.name.span().start, "fix");
            fixes.push(CheckConfig {
                name: fix.name.into_inner(),
                line,
                table_line: table_line.unwrap_or(line),
                kind: CheckKind::Run(run),
                modes: Vec::new(),
                dimension: Dimension::Quality,
                severity: Severity::High,
                timeout,
                retries: 0,
                cwd,
                env,
                paths: None,
                path_globs: Vec::new(),
                needs: Vec::new(),
                parser: Parser::None,
                artifacts: Vec::new(),
                leave_running: false,
                score: None,
                matchers: Vec::new(),
                cache: None,
                remote: false,
            });
        }

        Ok(Config {
            path: self.path.to_path_buf(),
            sha256,
            settings,
            judge: judge.unwrap_or_default(),
            retry: raw.retry,
            agent,
            cache: cache.unwrap_or_default(),
            remote,
            gate,
            checks,
            fixes,
        })
    }
}

/// Spans to lines and one-line errors: the `Validator`'s own, beside it,
/// so span.rs, which these use, needs nothing of this file.
impl Validator<'_> {
    /// 1-based line of the `[[table]]` header opening the table that holds
    /// `offset`: the first header above it, when it is `[[table]]`.
    pub(super) fn table_line(&self, offset: usize, table: &str) -> Option<usize> {
        let offset = offset.min(self.text.len());
        let mut end = self.text[..offset].rfind('\n')?;
        loop {
            let start = self.text[..end].rfind('\n').map_or(0, |i| i + 1);
            if let Some(header) = header_at(self.text, start) {
                return (header == (table, true)).then(|| self.line_of(start));
            }
            if start == 0 {
                return None;
            }
            end = start - 1;
        }
    }

    /// 1-based line of a byte offset.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }

    pub(super) fn err(&self, span: Span, key: impl Display, message: impl Into<String>) -> Error {
        Error::config_at(
            self.path,
            self.text,
            Some(span),
            Some(key.to_string()),
            message,
        )
    }
}
