//! One `[[check]]`: its name, `run` (whitelisted) or `scan` (rule sets and
//! `[[check.rule]]`s), timeout, `cwd`, `env`, `paths`, artifacts, `score`,
//! `[[check.matcher]]`s and its own `needs` (the graph is `needs`).

use std::collections::HashMap;

use toml::Spanned;

use crate::error::Error;

use super::raw::{RawCheck, RawMatcher, RawRule, RawScan, RawScore};
use super::span::Of;
use super::validate::Validator;
use super::{
    CacheSpec, CheckConfig, CheckKind, DiagSeverity, Dimension, MAX_RETRIES, Matcher, Mode,
    SCAN_RULE_SETS, ScanConfig, ScanRule, Settings, Severity,
};

impl Validator<'_> {
    pub(super) fn check(
        &self,
        raw: RawCheck,
        settings: &Settings,
        seen: &HashMap<String, usize>,
    ) -> Result<CheckConfig, Error> {
        self.name(&raw.name, "check.name")?;
        let name = raw.name.get_ref().clone();
        if seen.contains_key(&name) {
            return Err(self.err(
                raw.name.span(),
                "check.name",
                format!("duplicate check name `{name}`"),
            ));
        }
        let of = |key| Of {
            key,
            table: "check",
            name: &name,
        };
        let kind = self.kind(&raw, settings, &name)?;
        let cache = self.cache_spec(&raw, &kind, settings, &name)?;
        let modes = raw.modes.unwrap_or_else(|| vec![Mode::Strict]);
        let timeout = (raw.timeout.as_ref())
            .map(|t| self.duration(t, of("timeout")))
            .transpose()?;
        let retries = self.retries(raw.retries.as_ref(), &kind, of("retries"))?;
        let cwd = self.cwd(&raw.cwd, of("cwd"))?;
        let env = self.env(raw.env, &settings.allow_env, of("env"))?;
        let (paths, path_globs) = self.globs(raw.paths.as_deref(), of("paths"))?;
        // Artifacts read patterns as `paths` and `scan.paths` do.
        for glob in &raw.artifacts {
            self.pattern(glob, of("artifacts"))?;
        }
        let score = (raw.score.as_ref())
            .map(|score| self.score(score, of("score.regex")))
            .transpose()?;
        let matchers = self.matchers(&raw.matcher, of("matcher.regex"))?;
        let mut needs = Vec::with_capacity(raw.needs.len());
        for need in &raw.needs {
            if *need.get_ref() == name {
                return Err(self.err(need.span(), of("needs"), "a check cannot need itself"));
            }
            needs.push(need.get_ref().clone());
        }
        let leave_running = match &raw.leave_running {
            Some(leave) if *leave.get_ref() && matches!(kind, CheckKind::Scan(_)) => {
                return Err(self.err(
                    leave.span(),
                    of("leave_running"),
                    "a `scan` check starts no process; only a check with `run` may leave processes running",
                ));
            }
            Some(leave) => *leave.get_ref(),
            None => false,
        };
        let line = self.line_of(raw.name.span().start);
        Ok(CheckConfig {
            name,
            line,
            table_line: self
                .table_line(raw.name.span().start, "check")
                .unwrap_or(line),
            kind,
            modes,
            dimension: raw.dimension.unwrap_or(Dimension::Quality),
            severity: raw.severity.unwrap_or(Severity::High),
            timeout,
            retries,
            cwd,
            env,
            paths,
            path_globs,
            needs,
            parser: raw.parser.unwrap_or_default(),
            artifacts: raw.artifacts.into_iter().map(Spanned::into_inner).collect(),
            leave_running,
            score,
            matchers,
            cache,
            remote: false,
        })
    }

    /// Exactly one of `run` (an argv under the whitelist) and `scan`;
    /// `[[check.rule]]`s only with `scan`.
    fn kind(&self, raw: &RawCheck, settings: &Settings, name: &str) -> Result<CheckKind, Error> {
        let of = |key| Of {
            key,
            table: "check",
            name,
        };
        let kind = match (&raw.run, &raw.scan) {
            (Some(run), None) => CheckKind::Run(self.argv(run, &settings.allow, of("run"))?),
            (None, Some(scan)) => CheckKind::Scan(self.scan(scan, &raw.rule, name)?),
            (Some(run), Some(_)) => {
                return Err(self.err(run.span(), of("run"), "has both `run` and `scan`; keep one"));
            }
            (None, None) => {
                return Err(self.err(
                    raw.name.span(),
                    format!("check `{name}`"),
                    "has neither `run` nor `scan`",
                ));
            }
        };
        if !raw.rule.is_empty() && raw.scan.is_none() {
            return Err(self.err(
                raw.rule[0].id.span(),
                of("rule"),
                "`[[check.rule]]` applies only to `scan` checks",
            ));
        }
        Ok(kind)
    }

    /// Patterns of `paths` or `inputs`, and the globs as written.
    fn globs(
        &self,
        globs: Option<&[Spanned<String>]>,
        key: Of,
    ) -> Result<(Option<Vec<globset::Glob>>, Vec<String>), Error> {
        let Some(globs) = globs else {
            return Ok((None, Vec::new()));
        };
        let mut parsed = Vec::with_capacity(globs.len());
        for glob in globs {
            parsed.extend(self.pattern(glob, key)?);
        }
        let written = globs.iter().map(|g| g.get_ref().clone()).collect();
        Ok((Some(parsed), written))
    }

    /// `score.regex`, with a capture group holding the score.
    fn score(&self, score: &RawScore, key: Of) -> Result<regex::Regex, Error> {
        let regex = self.regex(&score.regex, key)?;
        if regex.captures_len() < 2 {
            let message = "needs a capture group holding the score";
            return Err(self.err(score.regex.span(), key, message));
        }
        Ok(regex)
    }

    /// `[[check.matcher]]`s, each with a named group `message`.
    fn matchers(&self, raw: &[RawMatcher], key: Of) -> Result<Vec<Matcher>, Error> {
        let mut matchers = Vec::with_capacity(raw.len());
        for m in raw {
            let regex = self.regex(&m.regex, key)?;
            if !regex.capture_names().any(|n| n == Some("message")) {
                return Err(self.err(
                    m.regex.span(),
                    key,
                    "needs a named group `message` (also: file, line, column, severity, rule)",
                ));
            }
            matchers.push(Matcher {
                regex,
                severity: m.severity.unwrap_or(DiagSeverity::Error),
            });
        }
        Ok(matchers)
    }

    /// `cache = true` and the keys that only apply with it: `inputs`
    /// (patterns as `paths`), `env_keys` (names), `version` (an argv under
    /// the whitelist, as `run`).
    fn cache_spec(
        &self,
        raw: &RawCheck,
        kind: &CheckKind,
        settings: &Settings,
        name: &str,
    ) -> Result<Option<CacheSpec>, Error> {
        let of = |key| Of {
            key,
            table: "check",
            name,
        };
        let on = raw.cache.as_ref().is_some_and(|c| *c.get_ref());
        if !on {
            let stray = [
                raw.inputs
                    .as_ref()
                    .and_then(|i| i.first())
                    .map(|i| ("inputs", i.span())),
                raw.env_keys.first().map(|e| ("env_keys", e.span())),
                raw.version.as_ref().map(|v| ("version", v.span())),
            ];
            if let Some((key, span)) = stray.into_iter().flatten().next() {
                return Err(self.err(
                    span,
                    of(key),
                    "applies only to a cached check; add `cache = true` or remove it",
                ));
            }
            return Ok(None);
        }
        if let (Some(cache), CheckKind::Scan(_)) = (&raw.cache, kind) {
            return Err(self.err(
                cache.span(),
                of("cache"),
                "a `scan` check reads the files against the base revision, which no key holds; only a check with `run` can be cached",
            ));
        }
        if let (Some(cache), Some(_)) = (&raw.cache, raw.artifacts.first()) {
            return Err(self.err(
                cache.span(),
                of("cache"),
                "a cached check that is not run writes no `artifacts`, and run-check does not restore them; drop `artifacts` or `cache`",
            ));
        }
        let (inputs, input_globs) = self.globs(raw.inputs.as_deref(), of("inputs"))?;
        let mut env_keys: Vec<String> = Vec::with_capacity(raw.env_keys.len());
        for key in &raw.env_keys {
            self.env_name(key, of("env_keys"))?;
            let text = key.get_ref();
            if env_keys.contains(text) {
                return Err(self.err(
                    key.span(),
                    of("env_keys"),
                    format!("`{text}` is listed twice"),
                ));
            }
            env_keys.push(text.clone());
        }
        let version = (raw.version.as_ref())
            .map(|argv| self.argv(argv, &settings.allow, of("version")))
            .transpose()?;
        Ok(Some(CacheSpec {
            inputs,
            input_globs,
            env_keys,
            version,
        }))
    }

    /// `retries`: 0..=`MAX_RETRIES`, and only for a check with `run` (a
    /// scan reads the same files again to the same end).
    fn retries(&self, raw: Option<&Spanned<i64>>, kind: &CheckKind, key: Of) -> Result<u32, Error> {
        let Some(raw) = raw else { return Ok(0) };
        let value = *raw.get_ref();
        let retries = match u32::try_from(value) {
            Ok(n) if n <= MAX_RETRIES => n,
            _ => {
                return Err(self.err(
                    raw.span(),
                    key,
                    format!("must be an integer from 0 to {MAX_RETRIES}, not {value}"),
                ));
            }
        };
        if retries > 0 && matches!(kind, CheckKind::Scan(_)) {
            return Err(self.err(
                raw.span(),
                key,
                "a `scan` check reads the same files to the same end; only a check with `run` may be retried",
            ));
        }
        Ok(retries)
    }

    fn scan(
        &self,
        raw: &Spanned<RawScan>,
        rules: &[RawRule],
        name: &str,
    ) -> Result<ScanConfig, Error> {
        let of = |key| Of {
            key,
            table: "check",
            name,
        };
        let scan = raw.get_ref();
        for glob in &scan.paths {
            self.pattern(glob, of("scan.paths"))?;
        }
        for rule in &scan.rules {
            if !SCAN_RULE_SETS.contains(&rule.get_ref().as_str()) {
                return Err(self.err(
                    rule.span(),
                    of("scan.rules"),
                    format!(
                        "unknown rule set `{}` (known: {})",
                        rule.get_ref(),
                        SCAN_RULE_SETS.join(", ")
                    ),
                ));
            }
        }
        if scan.rules.is_empty() && rules.is_empty() {
            return Err(self.err(
                raw.span(),
                of("scan"),
                "has no rules: list `rules` or add `[[check.rule]]`",
            ));
        }
        let mut custom = Vec::with_capacity(rules.len());
        for rule in rules {
            if rule.id.get_ref().trim().is_empty() {
                return Err(self.err(rule.id.span(), of("rule.id"), "empty rule id"));
            }
            custom.push(ScanRule {
                id: rule.id.get_ref().clone(),
                pattern: self.regex(&rule.pattern, of("rule.pattern"))?,
                message: rule.message.clone(),
                severity: rule.severity.unwrap_or(DiagSeverity::Error),
            });
        }
        Ok(ScanConfig {
            paths: scan.paths.iter().map(|p| p.get_ref().clone()).collect(),
            rules: scan.rules.iter().map(|r| r.get_ref().clone()).collect(),
            custom,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::config::tests::{ALLOW, rejects};

    #[test]
    fn duplicate_names() {
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"true\"]\n"
            ),
            "checks.toml:7:8: check.name: duplicate check name `t`",
        );
    }

    #[test]
    fn run_and_scan_exclusive() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\n"),
            "checks.toml:4:8: check `t`: has neither `run` nor `scan`",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nscan = {{ rules = [\"secrets\"] }}\n"
            ),
            "checks.toml:5:7: `run` of check `t`: has both `run` and `scan`; keep one",
        );
    }

    #[test]
    fn unknown_scan_rule_set() {
        rejects(
            "[[check]]\nname = \"s\"\nscan = { rules = [\"nope\"] }\n",
            "checks.toml:3:19: `scan.rules` of check `s`: unknown rule set `nope` \
             (known: skipped-tests, placeholder-asserts, secrets, debug-leftovers)",
        );
    }

    #[test]
    fn retries_are_bounded_and_only_for_run_checks() {
        use crate::config::tests::load_str;
        let run = format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n");
        assert_eq!(load_str(&run).unwrap().checks[0].retries, 0);
        assert_eq!(
            load_str(&format!("{run}retries = 10\n")).unwrap().checks[0].retries,
            10
        );
        for (value, shown) in [
            ("-1", "-1"),
            ("11", "11"),
            ("9223372036854775807", "9223372036854775807"),
        ] {
            rejects(
                &format!("{run}retries = {value}\n"),
                &format!(
                    "checks.toml:6:11: `retries` of check `t`: must be an integer from 0 to 10, not {shown}"
                ),
            );
        }
        let err = load_str(&format!("{run}retries = \"2\"\n")).unwrap_err();
        assert!(
            err.starts_with("checks.toml:6:11: ") && err.contains("retries"),
            "{err}"
        );
        rejects(
            "[[check]]\nname = \"s\"\nscan = { rules = [\"secrets\"] }\nretries = 1\n",
            "checks.toml:4:11: `retries` of check `s`: a `scan` check reads the same files to the same end; \
             only a check with `run` may be retried",
        );
        // 0 says what a scan does anyway.
        load_str("[[check]]\nname = \"s\"\nscan = { rules = [\"secrets\"] }\nretries = 0\n")
            .unwrap();
    }

    #[test]
    fn settings_flaky() {
        use crate::config::FlakyPolicy;
        use crate::config::tests::load_str;
        assert_eq!(load_str("").unwrap().settings.flaky, FlakyPolicy::Pass);
        let config = load_str("[settings]\nflaky = \"fail\"\n").unwrap();
        assert_eq!(config.settings.flaky, FlakyPolicy::Fail);
        let err = load_str("[settings]\nflaky = \"retry\"\n").unwrap_err();
        assert!(
            err.starts_with("checks.toml:2:9: ") && err.contains("`pass`"),
            "{err}"
        );
    }
}
