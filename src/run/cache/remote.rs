//! The remote store: a Bazel HTTP remote cache (bazel-remote, nginx with
//! WebDAV, any server speaking that protocol), holding the same result
//! blobs as the local store (docs/cache.md).
//!
//! ```text
//! GET/PUT {remote}/cas/{sha256}   the result blob (the stored entry, JSON)
//! GET/PUT {remote}/ac/{key}       a REAPI `ActionResult` (protobuf) whose one
//!                                 output file names that blob by digest
//! ```
//!
//! The blob is written before its `ActionResult`, so a validating server
//! (bazel-remote checks that an action result's blobs exist) accepts it
//! and a reader never finds a pointer to a missing blob.
//!
//! Nothing here can fail a run or make it slower than the timeout: every
//! request of a phase (the lookups before the checks start, the writes
//! after the evidence is assembled) shares one deadline, `TIMEOUT` from
//! the phase's first request (not from the phase's start: the keys'
//! `version` commands may take a minute before it); the first failure
//! (unreachable, refused, a status other than 200 or 404, past the
//! deadline) prints one warning line, even under `--quiet` (a warning is
//! not a progress line), is kept for the evidence (`error`), and the
//! remote is not asked again in this run. Every blob read is checked
//! against its digest and then as the local store checks its own
//! (`store::verify`); anything wrong is a miss.
//!
//! The bearer token is read from the environment and only ever put in the
//! `Authorization` header: no message, `Debug` output or evidence holds it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use prost::Message;

use super::store::{self, Entry};

/// How long a phase may spend on the remote in all.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);
/// The largest `ActionResult` read (ours is about 120 bytes).
const MAX_ACTION_RESULT: u64 = 64 * 1024;
/// The output file's path in the `ActionResult`: what a person browsing
/// the cache with Bazel's tools sees.
pub(crate) const RESULT_PATH: &str = "run-check/result.json";

/// REAPI `build.bazel.remote.execution.v2.Digest`.
#[derive(Clone, PartialEq, Message)]
pub(crate) struct Digest {
    /// The lower-case hex sha256 of the blob.
    #[prost(string, tag = "1")]
    pub(crate) hash: String,
    /// The blob's size in bytes.
    #[prost(int64, tag = "2")]
    pub(crate) size_bytes: i64,
}

/// REAPI `OutputFile` (the fields run-check writes; a server's others are
/// skipped when read).
#[derive(Clone, PartialEq, Message)]
pub(crate) struct OutputFile {
    #[prost(string, tag = "1")]
    pub(crate) path: String,
    #[prost(message, optional, tag = "2")]
    pub(crate) digest: Option<Digest>,
    #[prost(bool, tag = "4")]
    pub(crate) is_executable: bool,
}

/// REAPI `ExecutedActionMetadata`: only `worker`, so that the message is
/// never empty (the REAPI's advice, as a sanity check for servers).
#[derive(Clone, PartialEq, Message)]
pub(crate) struct ExecutedActionMetadata {
    #[prost(string, tag = "1")]
    pub(crate) worker: String,
}

/// REAPI `ActionResult`: `output_files` (2), `exit_code` (4),
/// `execution_metadata` (9).
#[derive(Clone, PartialEq, Message)]
pub(crate) struct ActionResult {
    #[prost(message, repeated, tag = "2")]
    pub(crate) output_files: Vec<OutputFile>,
    #[prost(int32, tag = "4")]
    pub(crate) exit_code: i32,
    #[prost(message, optional, tag = "9")]
    pub(crate) execution_metadata: Option<ExecutedActionMetadata>,
}

/// The action result that points to a result blob.
pub(crate) fn action_result(digest: &str, size: usize) -> ActionResult {
    ActionResult {
        output_files: vec![OutputFile {
            path: RESULT_PATH.into(),
            digest: Some(Digest {
                hash: digest.into(),
                size_bytes: i64::try_from(size).unwrap_or(i64::MAX),
            }),
            is_executable: false,
        }],
        exit_code: 0,
        execution_metadata: Some(ExecutedActionMetadata {
            worker: format!("run-check {}", env!("CARGO_PKG_VERSION")),
        }),
    }
}

/// The digest an action result read back points to, when it is one run-check
/// wrote: one output file at `RESULT_PATH`, a sha256, a size in bounds.
fn pointed(bytes: &[u8]) -> Option<(String, u64)> {
    let result = ActionResult::decode(bytes).ok()?;
    let [file] = result.output_files.as_slice() else {
        return None;
    };
    let digest = file.digest.as_ref()?;
    let size = u64::try_from(digest.size_bytes).ok()?;
    (result.exit_code == 0
        && file.path == RESULT_PATH
        && store::is_hex64(&digest.hash)
        && size <= store::MAX_BLOB)
        .then(|| (digest.hash.clone(), size))
}

/// One run's use of the remote.
pub(crate) struct Remote {
    /// The URL without a trailing `/`.
    base: String,
    /// The URL as messages show it (no user information).
    shown: String,
    token: Option<String>,
    /// Built at the first request: a run whose cached checks all hit
    /// locally never builds it. Shared by the lookups asked at once (its
    /// connections are kept open for the next request).
    agent: OnceLock<ureq::Agent>,
    /// The end of the current phase's time, set by its first request.
    deadline: Mutex<Option<Instant>>,
    /// Set by the first failure: the remote is not asked again.
    broken: AtomicBool,
    /// The first failure, as its warning says it (the evidence's
    /// `cache.remote_error`).
    error: Mutex<Option<String>>,
}

impl std::fmt::Debug for Remote {
    // By hand: a derived `Debug` would print the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("remote", &self.shown)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("broken", &self.broken())
            .finish()
    }
}

/// Why a request did not give an answer to use.
enum Failure {
    /// Nothing there (404): a miss, nothing to say.
    Absent,
    /// Anything else: a miss, one warning, the remote set aside.
    Broken(String),
}

impl Remote {
    /// The remote at `url`, with the bearer token of the variable
    /// `token_env` (when set and not empty). The HTTP client is built at
    /// the first request, so a run that asks no remote never pays for it.
    pub(crate) fn new(url: &str, token_env: Option<&str>) -> Remote {
        let token = token_env
            .and_then(std::env::var_os)
            .map(|value| value.to_string_lossy().trim().to_string())
            .filter(|value| !value.is_empty());
        let remote = Remote {
            base: url.trim_end_matches('/').to_string(),
            shown: shown(url),
            token,
            agent: OnceLock::new(),
            deadline: Mutex::new(None),
            broken: AtomicBool::new(false),
            error: Mutex::new(None),
        };
        // A header value is visible ASCII; saying which character is wrong
        // would say something about the secret.
        if let Some(token) = &remote.token
            && !token.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
        {
            remote.fail(format!(
                "the token in ${} is not a valid HTTP header value",
                token_env.unwrap_or_default()
            ));
        }
        remote
    }

    /// The client: no redirects (an entry is at its address or nowhere),
    /// statuses as answers, not errors.
    fn agent(&self) -> &ureq::Agent {
        self.agent.get_or_init(|| {
            let config = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_global(Some(TIMEOUT))
                .user_agent(format!("run-check/{}", env!("CARGO_PKG_VERSION")));
            // Windows and macOS are built with the system's TLS (Cargo.toml).
            #[cfg(any(windows, target_os = "macos"))]
            let config = config.tls_config(
                ureq::tls::TlsConfig::builder()
                    .provider(ureq::tls::TlsProvider::NativeTls)
                    .build(),
            );
            let config = config.build();
            ureq::Agent::new_with_config(config)
        })
    }

    /// Starts a phase: its requests share one `TIMEOUT` from the first
    /// of them.
    pub(crate) fn phase(&self) {
        *lock(&self.deadline) = None;
    }

    /// The failure that set the remote aside in this run, one line.
    pub(crate) fn error(&self) -> Option<String> {
        lock(&self.error).clone()
    }

    /// Whether a failure set the remote aside.
    fn broken(&self) -> bool {
        self.broken.load(Ordering::Acquire)
    }

    /// The entry stored under `key` for check `name`, read and verified;
    /// `None` for a miss (nothing there, anything wrong, a failure).
    pub(crate) fn get(&self, key: &str, name: &str) -> Option<Entry> {
        if self.broken() || !store::is_hex64(key) {
            return None;
        }
        let action = self.fetch(&format!("ac/{key}"), MAX_ACTION_RESULT)?;
        let Some((digest, size)) = pointed(&action) else {
            self.fail(format!(
                "`ac/{key}` is not an action result run-check wrote: a miss"
            ));
            return None;
        };
        let blob = self.fetch(&format!("cas/{digest}"), size)?;
        if blob.len() as u64 != size {
            self.fail(format!(
                "`cas/{digest}` is {} bytes, its digest says {size}: a miss",
                blob.len()
            ));
            return None;
        }
        let entry = store::verify(&blob, &digest, key, name);
        if entry.is_none() {
            self.fail(format!(
                "`cas/{digest}` does not match its digest or is not a pass of `{name}` under this key: a miss"
            ));
        }
        entry
    }

    /// Stores a result blob (`store::blob_of`) under `key`: the blob, then
    /// its action result. Whether it was stored.
    pub(crate) fn put(&self, key: &str, blob: &[u8], digest: &str) -> bool {
        if self.broken() {
            return false;
        }
        let action = action_result(digest, blob.len()).encode_to_vec();
        self.send(&format!("cas/{digest}"), blob) && self.send(&format!("ac/{key}"), &action)
    }

    /// The body of `GET {remote}/{path}`, at most `limit` bytes.
    fn fetch(&self, path: &str, limit: u64) -> Option<Vec<u8>> {
        match self.request(path, None, limit) {
            Ok(body) => return Some(body),
            Err(Failure::Broken(why)) => self.fail(why),
            Err(Failure::Absent) => {}
        }
        None
    }

    /// `PUT {remote}/{path}` with `body`; any 2xx is stored.
    fn send(&self, path: &str, body: &[u8]) -> bool {
        let why = match self.request(path, Some(body), 0) {
            Ok(_) => return true,
            Err(Failure::Absent) => format!("PUT `{path}` answered 404 Not Found"),
            Err(Failure::Broken(why)) => why,
        };
        self.fail(why);
        false
    }

    /// One request within the phase's deadline.
    fn request(&self, path: &str, put: Option<&[u8]>, limit: u64) -> Result<Vec<u8>, Failure> {
        let method = if put.is_some() { "PUT" } else { "GET" };
        let deadline = *lock(&self.deadline).get_or_insert_with(|| Instant::now() + TIMEOUT);
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failure::Broken(format!(
                "{method} `{path}`: no time left of the {}s the remote may take",
                TIMEOUT.as_secs()
            )));
        }
        let url = format!("{}/{path}", self.base);
        let answer = match put {
            Some(body) => self
                .authorized(self.agent().put(&url))
                .header("Content-Type", "application/octet-stream")
                .config()
                .timeout_global(Some(left))
                .build()
                .send(body),
            None => self
                .authorized(self.agent().get(&url))
                .config()
                .timeout_global(Some(left))
                .build()
                .call(),
        };
        let mut response = answer.map_err(|err| Failure::Broken(transport(method, path, &err)))?;
        let status = response.status();
        if status.as_u16() == 404 && put.is_none() {
            return Err(Failure::Absent);
        }
        let wanted = match put {
            Some(_) => status.is_success(),
            None => status.as_u16() == 200,
        };
        if !wanted {
            return Err(Failure::Broken(format!(
                "{method} `{path}` answered {status}"
            )));
        }
        if put.is_some() {
            return Ok(Vec::new());
        }
        response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|err| Failure::Broken(transport(method, path, &err)))
    }

    /// `request` with the bearer token, when there is one.
    fn authorized<B>(&self, request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        match &self.token {
            Some(token) => request.header("Authorization", format!("Bearer {token}")),
            None => request,
        }
    }

    /// The first failure of the run: one warning line (also under
    /// `--quiet`), kept for the evidence, and the remote is not asked
    /// again.
    fn fail(&self, why: String) {
        if !self.broken.swap(true, Ordering::AcqRel) {
            // One line, whatever a transport error's text holds.
            let line = format!("remote {}: {why}", self.shown).replace(char::is_control, " ");
            eprintln!("run-check: cache: {line}; the remote is not used for the rest of this run");
            *lock(&self.error) = Some(line);
        }
    }
}

/// `mutex` locked (a lookup that panicked left nothing half-written in a
/// deadline or a message).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A transport error as a message (ureq's own words: they hold neither
/// the headers nor the token).
fn transport(method: &str, path: &str, err: &ureq::Error) -> String {
    match err {
        ureq::Error::Timeout(_) => format!(
            "{method} `{path}` did not answer within the {}s the remote may take",
            TIMEOUT.as_secs()
        ),
        ureq::Error::BodyExceedsLimit(limit) => {
            format!("{method} `{path}` answered more than {limit} bytes")
        }
        other => format!("{method} `{path}` failed: {other}"),
    }
}

/// A URL without its user information (`user:password@`), for messages.
fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    format!("{scheme}://{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_result_round_trips_and_only_ours_is_read() {
        let digest = "ab".repeat(32);
        let bytes = action_result(&digest, 42).encode_to_vec();
        assert_eq!(pointed(&bytes), Some((digest.clone(), 42)));
        // The REAPI field numbers: output_files 2 (a message), its path 1
        // and digest 2, the digest's hash 1 and size_bytes 2.
        assert_eq!(bytes[0], 2 << 3 | 2);
        let two = ActionResult {
            output_files: vec![action_result(&digest, 1).output_files[0].clone(); 2],
            ..action_result(&digest, 1)
        };
        assert_eq!(pointed(&two.encode_to_vec()), None, "two outputs");
        let mut other = action_result(&digest, 1);
        other.output_files[0].path = "bazel-out/k8/bin/x".into();
        assert_eq!(pointed(&other.encode_to_vec()), None, "another path");
        let mut big = action_result(&digest, 1);
        big.output_files[0].digest.as_mut().unwrap().size_bytes = i64::MAX;
        assert_eq!(pointed(&big.encode_to_vec()), None, "too large");
        assert_eq!(pointed(b"\xff\xff\xff"), None, "not protobuf");
    }

    #[test]
    fn messages_show_no_user_information() {
        assert_eq!(
            shown("https://user:secret@cache.example/run-check"),
            "https://cache.example/run-check"
        );
        assert_eq!(shown("http://127.0.0.1:9090"), "http://127.0.0.1:9090");
        let remote = Remote {
            base: String::new(),
            shown: String::new(),
            token: Some("s3cr3t".into()),
            agent: OnceLock::new(),
            deadline: Mutex::new(None),
            broken: AtomicBool::new(false),
            error: Mutex::new(None),
        };
        assert!(!format!("{remote:?}").contains("s3cr3t"));
    }
}
