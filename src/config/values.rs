//! One value at a time: names, durations, globs, regexes, `cwd` and `env`,
//! each checked where it is written and reported under the key it was given.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use globset::Glob;
use regex::Regex;
use toml::Spanned;

use crate::duration;
use crate::error::Error;

use super::span::Key;
use super::validate::Validator;
use super::{env, pattern};

impl Validator<'_> {
    pub(super) fn name(&self, name: &Spanned<String>, key: impl Key) -> Result<(), Error> {
        let text = name.get_ref();
        let valid = !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !valid {
            let message = format!("invalid name `{text}` (use letters, digits, `_`, `.`, `-`)");
            return Err(self.err(name.span(), key, message));
        }
        Ok(())
    }

    /// An environment variable name: not empty, without `=` or NUL.
    pub(super) fn env_name(&self, raw: &Spanned<String>, key: impl Key) -> Result<(), Error> {
        let name = raw.get_ref();
        if name.is_empty() || name.contains(['=', '\0']) {
            let message = format!("invalid environment variable name `{name}`");
            return Err(self.err(raw.span(), key, message));
        }
        Ok(())
    }

    pub(super) fn duration(&self, raw: &Spanned<String>, key: impl Key) -> Result<Duration, Error> {
        duration::parse(raw.get_ref()).map_err(|why| {
            self.err(
                raw.span(),
                key,
                format!(
                    "invalid duration `{}`: {why} (e.g. \"500ms\", \"90s\", \"2m\", \"1h\", \"7d\")",
                    raw.get_ref()
                ),
            )
        })
    }

    /// A `paths` or `scan.paths` pattern (`pattern::expand`) as the globs it
    /// stands for; errors quote the pattern as written.
    pub(super) fn pattern(&self, raw: &Spanned<String>, key: impl Key) -> Result<Vec<Glob>, Error> {
        let expanded =
            pattern::expand(raw.get_ref()).map_err(|why| self.err(raw.span(), key, why))?;
        expanded
            .iter()
            .map(|glob| {
                Glob::new(glob).map_err(|err| {
                    self.err(
                        raw.span(),
                        key,
                        format!("invalid glob `{}`: {}", raw.get_ref(), err.kind()),
                    )
                })
            })
            .collect()
    }

    pub(super) fn regex(&self, raw: &Spanned<String>, key: impl Key) -> Result<Regex, Error> {
        Regex::new(raw.get_ref()).map_err(|err| {
            let why = err.to_string();
            let why = why.lines().last().unwrap_or("invalid").trim();
            let why = why.strip_prefix("error: ").unwrap_or(why).to_string();
            self.err(
                raw.span(),
                key,
                format!("invalid regex `{}`: {why}", raw.get_ref()),
            )
        })
    }

    /// A `cwd` relative to the worktree that may not leave it (lexically; `plan`
    /// also resolves symlinks).
    pub(super) fn cwd(
        &self,
        raw: &Option<Spanned<String>>,
        key: impl Key,
    ) -> Result<PathBuf, Error> {
        let Some(raw) = raw else {
            return Ok(PathBuf::new());
        };
        let mut out = PathBuf::new();
        for component in Path::new(raw.get_ref()).components() {
            match component {
                Component::CurDir => {}
                Component::Normal(part) => out.push(part),
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(self.err(raw.span(), key, "may not leave the worktree"));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(self.err(
                        raw.span(),
                        key,
                        "must be relative to the worktree, not absolute",
                    ));
                }
            }
        }
        Ok(out)
    }

    /// A check's `env`: names that can be set, and none that loads code
    /// (`env::loads_code`) unless `settings.allow_env` lists it. The error
    /// points at the key itself.
    pub(super) fn env(
        &self,
        env: BTreeMap<Spanned<String>, String>,
        allow_env: &[String],
        key: impl Key,
    ) -> Result<BTreeMap<String, String>, Error> {
        let mut out = BTreeMap::new();
        for (name, value) in env {
            self.env_name(&name, key)?;
            let text = name.get_ref();
            if let Some(why) = env::loads_code(text)
                && !env::allowed(text, allow_env)
            {
                return Err(self.err(
                    name.span(),
                    key,
                    format!(
                        "`{text}` may make the program load other code ({why}); \
                         list it in `settings.allow_env` to allow it"
                    ),
                ));
            }
            out.insert(name.into_inner(), value);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::config::tests::{ALLOW, load_str, rejects};

    #[test]
    fn bad_duration() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ntimeout = \"5x\"\n"),
            "checks.toml:6:11: `timeout` of check `t`: invalid duration `5x`: unknown unit `x` \
             (use ms, s, m, h or d) (e.g. \"500ms\", \"90s\", \"2m\", \"1h\", \"7d\")",
        );
    }

    #[test]
    fn bad_glob_and_regex() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\npaths = [\"src/[\"]\n"),
            "checks.toml:6:10: `paths` of check `t`: invalid glob `src/[`: unclosed character class; missing ']'",
        );
        let err = load_str(&format!(
            "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nscore = {{ regex = '(' }}\n"
        ))
        .unwrap_err();
        assert!(
            err.starts_with("checks.toml:6:19: `score.regex` of check `t`: invalid regex `(`"),
            "{err}"
        );
    }

    #[test]
    fn cwd_may_not_escape() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ncwd = \"a/../..\"\n"),
            "checks.toml:6:7: `cwd` of check `t`: may not leave the worktree",
        );
        let config = load_str(&format!(
            "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\ncwd = \"./a/b/..\"\n"
        ))
        .unwrap();
        assert_eq!(config.checks[0].cwd, PathBuf::from("a"));
    }

    #[test]
    fn env_keys_that_load_code_are_refused_at_their_key() {
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n\
                 env = {{ A = \"1\", LD_PRELOAD = \"./evil.so\" }}\n"
            ),
            "checks.toml:6:18: `env` of check `t`: `LD_PRELOAD` may make the program load \
             other code (the dynamic loader loads libraries it names); list it in \
             `settings.allow_env` to allow it",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n[check.env]\n\
                 GIT_CONFIG_COUNT = \"1\"\n"
            ),
            "checks.toml:7:1: `env` of check `t`: `GIT_CONFIG_COUNT` may make the program load \
             other code (git runs programs or reads configuration it names); list it in \
             `settings.allow_env` to allow it",
        );
        rejects(
            &format!("{ALLOW}[[fix]]\nname = \"f\"\nrun = [\"true\"]\nenv = {{ path = \"x\" }}\n"),
            "checks.toml:6:9: `env` of fix `f`: `path` may make the program load other code \
             (programs are looked up on it, also by the program's own children); list it in \
             `settings.allow_env` to allow it",
        );
        let config = load_str(
            "[settings]\nallow = [\"true\"]\nallow_env = [\"ld_preload\"]\n[[check]]\n\
             name = \"t\"\nrun = [\"true\"]\nenv = { LD_PRELOAD = \"x.so\", CI = \"1\" }\n",
        )
        .unwrap();
        assert_eq!(config.checks[0].env["LD_PRELOAD"], "x.so");
        assert_eq!(config.settings.allow_env, ["ld_preload"]);
        rejects(
            "[settings]\nallow_env = [\"A=B\"]\n",
            "checks.toml:2:14: settings.allow_env: invalid environment variable name `A=B`",
        );
    }
}
