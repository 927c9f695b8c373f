//! `[remote]` and a check's `remote = true` (docs/remote.md).

use super::RemoteSettings;
use super::raw::{RawCheck, RawRemote};
use super::span::Of;
use super::validate::Validator;
use crate::error::Error;

impl Validator<'_> {
    /// `[remote]`: `endpoint` a `grpc://` or `grpcs://` URL naming a host
    /// and port; `token_env` a variable name.
    pub(super) fn remote(&self, raw: RawRemote) -> Result<RemoteSettings, Error> {
        let text = raw.endpoint.get_ref();
        let rest = text
            .strip_prefix("grpc://")
            .or_else(|| text.strip_prefix("grpcs://"));
        let valid = rest.is_some_and(|rest| {
            let host = rest.trim_end_matches('/');
            !host.is_empty()
                && !host.contains(['/', '?', '#'])
                && !host.contains(char::is_whitespace)
        });
        if !valid {
            return Err(self.err(
                raw.endpoint.span(),
                "remote.endpoint",
                "must be grpc://HOST:PORT or grpcs://HOST:PORT, e.g. \"grpc://127.0.0.1:50051\"",
            ));
        }
        if let Some(name) = &raw.token_env {
            self.env_name(name, "remote.token_env")?;
        }
        Ok(RemoteSettings {
            endpoint: text.trim_end_matches('/').to_string(),
            instance: raw.instance.unwrap_or_default(),
            token_env: raw.token_env.map(|t| t.into_inner()),
            platform: raw.platform.into_iter().collect(),
            jobs: raw.jobs,
        })
    }

    /// A check's `remote`: `true` only for a check with `run`, with a
    /// `[remote]` table, and without `artifacts` (not downloaded yet).
    pub(super) fn remote_check(&self, raw: &RawCheck, configured: bool) -> Result<bool, Error> {
        let Some(remote) = raw.remote.as_ref().filter(|r| *r.get_ref()) else {
            return Ok(false);
        };
        let of = Of {
            key: "remote",
            table: "check",
            name: raw.name.get_ref(),
        };
        let why = if !configured {
            Some("needs a `[remote]` table naming the cluster (docs/remote.md)")
        } else if raw.scan.is_some() {
            Some("a `scan` check starts no process; only a check with `run` runs remotely")
        } else if !raw.artifacts.is_empty() {
            Some(
                "a remote check's `artifacts` are not downloaded by this version; drop `artifacts` or `remote`",
            )
        } else {
            None
        };
        match why {
            Some(why) => Err(self.err(remote.span(), of, why)),
            None => Ok(true),
        }
    }
}
