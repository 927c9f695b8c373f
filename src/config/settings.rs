//! `[settings]`, `[judge]`, and the program whitelist that `settings.allow`
//! imposes on every `run`.

use toml::Spanned;

use crate::error::Error;

use super::raw::{RawAgent, RawGate, RawSettings};
use super::span::Key;
use super::validate::Validator;
use run_check_documents::read::{self, Problem};

use super::{
    AgentConfig, CacheSettings, DEFAULT_EXCERPT_BYTES, DEFAULT_TIMEOUT, GateConfig, JudgeConfig,
    SHELLS, Settings, Thresholds, Weights,
};

impl Validator<'_> {
    pub(super) fn settings(&self, raw: RawSettings) -> Result<Settings, Error> {
        let timeout = match &raw.timeout {
            Some(t) => self.duration(t, "settings.timeout")?,
            None => DEFAULT_TIMEOUT,
        };
        let excerpt_bytes = match &raw.excerpt_bytes {
            Some(n) => {
                let value = *n.get_ref();
                if value == 0 || value > 64 * 1024 * 1024 {
                    return Err(self.err(
                        n.span(),
                        "settings.excerpt_bytes",
                        "must be between 1 and 67108864",
                    ));
                }
                value as usize
            }
            None => DEFAULT_EXCERPT_BYTES,
        };
        let mut allow = Vec::with_capacity(raw.allow.len());
        for entry in raw.allow {
            if entry.get_ref().trim().is_empty() {
                return Err(self.err(entry.span(), "settings.allow", "empty program name"));
            }
            allow.push(entry.into_inner());
        }
        let mut allow_env = Vec::with_capacity(raw.allow_env.len());
        for entry in raw.allow_env {
            self.env_name(&entry, "settings.allow_env")?;
            allow_env.push(entry.into_inner());
        }
        Ok(Settings {
            jobs: raw.jobs.unwrap_or(0),
            timeout,
            excerpt_bytes,
            allow,
            allow_env,
            flaky: raw.flaky.unwrap_or_default(),
        })
    }

    /// `[agent]` over its defaults, each number within its bounds.
    pub(super) fn agent(&self, raw: RawAgent) -> Result<AgentConfig, Error> {
        let defaults = AgentConfig::default();
        let bounded = |value: &Option<Spanned<i64>>, key: &str, min: i64, max: i64| match value {
            Some(v) if !(min..=max).contains(v.get_ref()) => {
                Err(self.err(v.span(), key, format!("must be between {min} and {max}")))
            }
            Some(v) => Ok(Some(*v.get_ref())),
            None => Ok(None),
        };
        let max_chars = bounded(
            &raw.max_chars,
            "agent.max_chars",
            AgentConfig::MIN_CHARS as i64,
            AgentConfig::MAX_CHARS_LIMIT as i64,
        )?;
        // Claude Code and Copilot end a turn themselves after 8 consecutive
        // blocks: a larger bound would never be reached, and the agent,
        // not run-check, would decide when the user is told.
        let max_blocks = match &raw.max_blocks {
            Some(v) if *v.get_ref() > i64::from(AgentConfig::MAX_BLOCKS_LIMIT) => {
                return Err(self.err(
                    v.span(),
                    "agent.max_blocks",
                    format!(
                        "must be between 0 and {}: Claude Code and GitHub Copilot end a turn \
                         after 8 consecutive blocks themselves, so a larger bound is never reached",
                        AgentConfig::MAX_BLOCKS_LIMIT
                    ),
                ));
            }
            _ => bounded(&raw.max_blocks, "agent.max_blocks", 0, 8)?,
        };
        let timeout = match &raw.timeout {
            Some(t) => self.agent_timeout(t)?,
            None => defaults.timeout,
        };
        Ok(AgentConfig {
            mode: raw.mode.unwrap_or(defaults.mode),
            max_chars: max_chars.map_or(defaults.max_chars, |n| n as usize),
            max_blocks: max_blocks.map_or(defaults.max_blocks, |n| n as u32),
            new_only: raw.new_only.unwrap_or(defaults.new_only),
            baseline: raw
                .baseline
                .as_ref()
                .map(|path| self.agent_baseline(path))
                .transpose()?,
            timeout,
            guard: raw.guard.unwrap_or(defaults.guard),
        })
    }

    /// `[gate]`: `files`, each a pattern as `paths` reads it, compiled
    /// into one set (an error names the pattern as written).
    pub(super) fn gate(&self, raw: RawGate) -> Result<GateConfig, Error> {
        let Some(first) = raw.files.first() else {
            return Ok(GateConfig::default());
        };
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in &raw.files {
            for glob in self.pattern(pattern, "gate.files")? {
                builder.add(glob);
            }
        }
        let files = builder
            .build()
            .map_err(|err| self.err(first.span(), "gate.files", format!("invalid globs: {err}")))?;
        Ok(GateConfig { files: Some(files) })
    }

    /// `agent.baseline`: a file the repository commits, so a relative path
    /// that stays inside the worktree and out of the git directory (where
    /// nothing is committed and the agent's shell writes freely).
    fn agent_baseline(&self, path: &Spanned<String>) -> Result<std::path::PathBuf, Error> {
        use std::path::{Component, Path};
        let text = path.get_ref();
        let as_path = Path::new(text);
        let drive = text.as_bytes().get(1) == Some(&b':');
        let why = if text.trim().is_empty() || text.contains('\0') {
            Some("must name a file")
        } else if as_path.has_root() || as_path.is_absolute() || drive {
            Some("must be a path relative to the worktree, not an absolute one")
        } else if as_path.components().any(|c| c == Component::ParentDir) {
            Some("must stay inside the worktree (no `..`)")
        } else if as_path
            .components()
            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
        {
            Some("must be a committed file, not under `.git`")
        } else {
            None
        };
        match why {
            Some(why) => Err(self.err(
                path.span(),
                "agent.baseline",
                format!("`{text}`: {why} (a committed evidence file, e.g. \".run-check/agent-baseline.json\")"),
            )),
            None => Ok(as_path.to_path_buf()),
        }
    }

    /// `agent.timeout`: a duration of at most [`AgentConfig::TIMEOUT_LIMIT`].
    fn agent_timeout(&self, raw: &Spanned<String>) -> Result<std::time::Duration, Error> {
        let timeout = self.duration(raw, "agent.timeout")?;
        if timeout > AgentConfig::TIMEOUT_LIMIT {
            return Err(self.err(
                raw.span(),
                "agent.timeout",
                format!(
                    "`{}` is longer than \"1h\", the most an agent is left waiting for its \
                     stop hook",
                    raw.get_ref()
                ),
            ));
        }
        Ok(timeout)
    }

    /// `[cache]`: `dir` absolute or under `~/`; `remote` an http(s) URL;
    /// `token_env` a variable name.
    pub(super) fn cache(&self, raw: super::raw::RawCache) -> Result<CacheSettings, Error> {
        if let Some(dir) = &raw.dir {
            let text = dir.get_ref();
            let absolute = std::path::Path::new(text).is_absolute() || text.starts_with("~/");
            if !absolute || text.contains('\0') {
                return Err(self.err(
                    dir.span(),
                    "cache.dir",
                    format!("`{text}`: must be an absolute path or start with `~/` (a store inside the worktree would be one of its files)"),
                ));
            }
        }
        if let Some(remote) = &raw.remote {
            let text = remote.get_ref();
            let host = text
                .strip_prefix("http://")
                .or_else(|| text.strip_prefix("https://"))
                .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
            if host.is_none_or(|host| host.is_empty() || host.contains(char::is_whitespace)) {
                return Err(self.err(
                    remote.span(),
                    "cache.remote",
                    "must be an http:// or https:// URL naming a host, e.g. \"http://127.0.0.1:9090/run-check\"",
                ));
            }
        }
        if let Some(name) = &raw.token_env {
            self.env_name(name, "cache.token_env")?;
        }
        Ok(CacheSettings {
            dir: raw.dir.map(Spanned::into_inner),
            remote: raw.remote.map(Spanned::into_inner),
            remote_write: raw.remote_write.is_some_and(|w| *w.get_ref()),
            token_env: raw.token_env.map(Spanned::into_inner),
        })
    }

    /// `[judge]` over the defaults: the thresholds read as the judge reads
    /// them (`run_check_documents::verdict::Thresholds`), `weights` whole.
    pub(super) fn judge(&self, raw: Spanned<toml::Table>) -> Result<JudgeConfig, Error> {
        let span = raw.span();
        let mut table = raw.into_inner();
        let message = |err: &toml::de::Error| err.message().to_string();
        // A weight has no line of its own: the `weights` line is the place.
        let fail = |at: &str, problem: Problem| {
            let path = problem.path.unwrap_or_default();
            let key = format!("judge{at}{}", path.trim_start_matches('$'));
            let place = self.key_in_table(span.clone(), if at.is_empty() { &key } else { at });
            self.err(place, key, problem.message)
        };
        let weights = match table.remove("weights") {
            Some(w) => read::from_deserializer(w, message).map_err(|p| fail(".weights", p))?,
            None => Weights::default(),
        };
        if let Some(sum) = weights.wrong_sum() {
            let at = self.key_in_table(span.clone(), "judge.weights");
            return Err(self.err(
                at,
                "judge.weights",
                format!("weights sum to {sum}, not 1.0 (±0.001)"),
            ));
        }
        let mut all = toml::Table::try_from(Thresholds::default())
            .map_err(|err| Error::Internal(format!("cannot write the thresholds: {err}")))?;
        all.extend(table);
        let thresholds =
            read::from_deserializer(toml::Value::Table(all), message).map_err(|p| fail("", p))?;
        Ok(JudgeConfig {
            thresholds,
            weights,
        })
    }

    /// Where `key` (`table.name`) is written in the table whose span is
    /// `table`: the line `name = ...` between the table's header and the
    /// next header, else the table itself (an inline or dotted table). The
    /// judge's values are checked after parsing, when serde's spans are
    /// only the table's.
    fn key_in_table(&self, table: std::ops::Range<usize>, key: &str) -> std::ops::Range<usize> {
        let name = key.rsplit('.').next().unwrap_or(key);
        let mut offset = table.start;
        let rest = self.text.get(table.start..).unwrap_or_default();
        for (i, line) in rest.split_inclusive('\n').enumerate() {
            let trimmed = line.trim_start();
            if i > 0 && trimmed.starts_with('[') {
                break;
            }
            if let Some(after) = trimmed.strip_prefix(name)
                && after.trim_start().starts_with('=')
            {
                let start = offset + (line.len() - trimmed.len());
                return start..start + name.len();
            }
            offset += line.len();
        }
        table
    }

    /// The whitelist rule of docs/checks-toml.md: `run[0]` must equal an entry of
    /// `settings.allow` as written.
    pub(super) fn argv(
        &self,
        raw: &Spanned<Vec<String>>,
        allow: &[String],
        key: impl Key,
    ) -> Result<Vec<String>, Error> {
        let argv = raw.get_ref();
        let Some(program) = argv.first() else {
            return Err(self.err(
                raw.span(),
                key,
                "must name a program: `run = [\"prog\", ...]`",
            ));
        };
        if program.is_empty() || argv.iter().any(|arg| arg.contains('\0')) {
            return Err(self.err(raw.span(), key, "empty program name or NUL byte in argv"));
        }
        if !allow.iter().any(|entry| entry == program) {
            let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
            let hint = if SHELLS.contains(&base) {
                " (a shell runs only when it is itself listed)"
            } else {
                ""
            };
            return Err(self.err(
                raw.span(),
                key,
                format!(
                    "program `{program}` is not in `settings.allow`{hint}; add it there to allow it"
                ),
            ));
        }
        if super::git_args::is_git(program)
            && let Some(why) = super::git_args::refused(&argv[1..], allow)
        {
            return Err(self.err(raw.span(), key, why));
        }
        Ok(argv.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::tests::{ALLOW, load_str, rejects};

    #[test]
    fn whitelist() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"rm\", \"-rf\", \"/\"]\n"),
            "checks.toml:5:7: `run` of check `t`: program `rm` is not in `settings.allow`; add it there to allow it",
        );
        rejects(
            "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"bash\", \"-c\", \"x\"]\n",
            "checks.toml:5:7: `run` of check `t`: program `bash` is not in `settings.allow` \
             (a shell runs only when it is itself listed); add it there to allow it",
        );
    }

    #[test]
    fn judge_weights_must_sum_to_one() {
        rejects(
            "[judge]\nweights = { security = 0.5, quality = 0.5, performance = 0.5 }\n",
            "checks.toml:2:1: judge.weights: weights sum to 1.5, not 1.0 (±0.001)",
        );
        let config =
            load_str("[judge]\nweights = { security = 0.4, quality = 0.35, performance = 0.25 }\n")
                .unwrap();
        assert_eq!(config.judge.weights.quality, 0.35);
    }

    #[test]
    fn judge_value_errors_point_at_their_key() {
        rejects(
            "[judge]\nquality_min = 80\n  security_min = 150\n",
            "checks.toml:3:3: judge.security_min: 150 is outside 0..100",
        );
        rejects(
            "[judge]\nmax_iterations = 0\n[settings]\n",
            "checks.toml:2:1: judge.max_iterations: must be at least 1",
        );
        // An inline table has no line of its own per key: the table it is.
        rejects(
            "judge = { overall_min = 101 }\n",
            "checks.toml:1:9: judge.overall_min: 101 is outside 0..100",
        );
    }

    /// Every number of `[settings]`, `[judge]` and
    /// `[retry]` is bounded by validation: out of range, negative, NaN and
    /// infinite values are config errors naming the key, never a panic or
    /// a wrapped value.
    #[test]
    fn numbers_out_of_range_are_config_errors() {
        for (text, expected) in [
            (
                "[settings]\nexcerpt_bytes = 0\n",
                "checks.toml:2:17: settings.excerpt_bytes: must be between 1 and 67108864",
            ),
            (
                "[settings]\nexcerpt_bytes = 67108865\n",
                "checks.toml:2:17: settings.excerpt_bytes: must be between 1 and 67108864",
            ),
            (
                "[settings]\nexcerpt_bytes = -1\n",
                "checks.toml:2:17: settings.excerpt_bytes: invalid value: integer `-1`, expected u64",
            ),
            (
                "[settings]\njobs = -1\n",
                "checks.toml:2:8: settings.jobs: invalid value: integer `-1`, expected usize",
            ),
            (
                "[judge]\nsecurity_min = nan\n",
                "checks.toml:2:1: judge.security_min: NaN is outside 0..100",
            ),
            (
                "[judge]\noverall_min = inf\n",
                "checks.toml:2:1: judge.overall_min: inf is outside 0..100",
            ),
            (
                "[judge]\nstall_threshold = -inf\n",
                "checks.toml:2:1: judge.stall_threshold: -inf is outside 0..100",
            ),
            (
                "[judge]\nquality_min = -0.5\n",
                "checks.toml:2:1: judge.quality_min: -0.5 is outside 0..100",
            ),
            (
                "[judge]\nweights = { security = nan, quality = 0.5, performance = 0.5 }\n",
                "checks.toml:2:1: judge.weights.security: expected a weight within 0..1, found NaN",
            ),
            (
                "[judge]\nweights = { security = inf, quality = -inf, performance = 1.0 }\n",
                "checks.toml:2:1: judge.weights.quality: expected a weight within 0..1, found -inf",
            ),
            (
                "[judge]\nmax_iterations = 4294967296\n",
                "checks.toml:2:1: judge.max_iterations: expected an integer from 0 to 4294967295, \
                 found number 4294967296",
            ),
            (
                "[judge]\nstall_rounds = -1\n",
                "checks.toml:2:1: judge.stall_rounds: expected a non-negative integer, found number -1",
            ),
            (
                "[judge]\nsecutiry_min = 1\n",
                "checks.toml:2:1: judge.secutiry_min: unknown field (expected security_min, \
                 quality_min, performance_min, overall_min, max_critical_issues, max_high_issues, \
                 max_iterations, stall_threshold or stall_rounds)",
            ),
        ] {
            rejects(text, expected);
        }
        for text in [
            "[retry]\nmax_retries = -1\n",
            "[retry]\nmax_retries = 4294967296\n",
        ] {
            let err = load_str(text).unwrap_err();
            assert!(
                err.starts_with("checks.toml:2:") && err.contains("expected u32"),
                "{err}"
            );
        }
        // The largest values are accepted and used only in comparisons
        // (`jobs` beyond the number of checks starts no more workers than
        // there are checks: tests/resolve.rs).
        let config = load_str(
            "[settings]\njobs = 9223372036854775807\nexcerpt_bytes = 67108864\n\
             [judge]\nstall_rounds = 4294967295\nmax_iterations = 4294967295\n\
             [retry]\nmax_retries = 4294967295\n",
        )
        .unwrap();
        assert_eq!(config.settings.jobs, 9223372036854775807);
        assert_eq!(config.judge.thresholds.stall_rounds, u32::MAX);
    }
}
