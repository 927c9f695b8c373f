//! `run-check-remote`: the Remote Execution API client (feature `remote`).
//!
//! ```text
//! run-check-remote exec REQUEST REPORT
//! run-check-remote probe REQUEST REPORT
//! ```
//!
//! `exec` runs one check on the cluster (`exec.rs`); `probe` asks the
//! cluster's capabilities, which `--remote=auto` does once before a run.
//! Both write their [`Report`] to REPORT (atomically) and exit 0; the
//! action's outputs are this program's stdout and stderr. SIGTERM or
//! SIGINT (the gate's timeout, Ctrl-C) cancel the remote operation first.

mod cas;
mod exec;
mod proto;
mod tree;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use proto::build::bazel::remote::execution::v2::{
    GetCapabilitiesRequest, capabilities_client::CapabilitiesClient,
    content_addressable_storage_client::ContentAddressableStorageClient,
    execution_client::ExecutionClient,
};
use proto::google::bytestream::byte_stream_client::ByteStreamClient;
use proto::google::longrunning::{CancelOperationRequest, operations_client::OperationsClient};
use tonic::transport::Channel;

use crate::remote::protocol::{Report, Request};

/// How long connecting may take before the cluster counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a cancel may take when the gate stops the check.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest request file read (10,000 paths are well under it).
const REQUEST_LIMIT: u64 = 256 * 1024 * 1024;

/// A connection to the cluster and what every call carries.
pub(crate) struct Cluster {
    channel: Channel,
    instance: String,
    endpoint: String,
    token: Option<String>,
}

impl Cluster {
    /// `message` with the bearer token, when there is one.
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(token) = &self.token
            && let Ok(value) = format!("Bearer {token}").parse()
        {
            request.metadata_mut().insert("authorization", value);
        }
        request
    }

    fn cas(&self) -> ContentAddressableStorageClient<Channel> {
        ContentAddressableStorageClient::new(self.channel.clone())
            .max_decoding_message_size(64 * 1024 * 1024)
    }

    fn execution(&self) -> ExecutionClient<Channel> {
        ExecutionClient::new(self.channel.clone())
    }

    fn bytestream(&self) -> ByteStreamClient<Channel> {
        ByteStreamClient::new(self.channel.clone())
    }

    /// A gRPC failure as one line naming the cluster, the call and its
    /// status (the token is never part of it).
    fn status(&self, call: &str, status: &tonic::Status) -> String {
        let message = status.message().replace(['\n', '\r'], " ");
        format!(
            "the cluster at {} answered {call} with {}: {message}",
            self.endpoint,
            code_name(status.code() as i32)
        )
    }
}

/// google.rpc.Code's name.
pub(crate) fn code_name(code: i32) -> String {
    format!("{:?}", tonic::Code::from_i32(code)).to_uppercase_words()
}

/// `DeadlineExceeded` as gRPC writes it: `DEADLINE_EXCEEDED`.
trait UpperWords {
    fn to_uppercase_words(&self) -> String;
}

impl UpperWords for String {
    fn to_uppercase_words(&self) -> String {
        let mut out = String::new();
        for (i, c) in self.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }
}

/// The program's `main`: its exit code.
pub(crate) fn main(args: Vec<std::ffi::OsString>) -> i32 {
    let [_, verb, request, report] = args.as_slice() else {
        eprintln!("usage: run-check-remote exec|probe REQUEST REPORT");
        return 2;
    };
    let verb = verb.to_string_lossy().into_owned();
    let report_path = std::path::PathBuf::from(report);
    let outcome = match read_request(std::path::Path::new(request)) {
        Ok(request) => run(&verb, &request),
        Err(why) => Report {
            error: Some(why),
            ..Report::default()
        },
    };
    match write_report(&report_path, &outcome) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("run-check-remote: {why}");
            2
        }
    }
}

fn read_request(path: &std::path::Path) -> Result<Request, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path)
        .map_err(|err| format!("cannot read the request {}: {err}", path.display()))?;
    let mut text = Vec::new();
    file.take(REQUEST_LIMIT)
        .read_to_end(&mut text)
        .map_err(|err| format!("cannot read the request {}: {err}", path.display()))?;
    serde_json::from_slice(&text).map_err(|err| format!("the request is not readable: {err}"))
}

fn write_report(path: &std::path::Path, report: &Report) -> Result<(), String> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .map_err(|err| format!("cannot write the report: {err}"))?;
    serde_json::to_writer(&mut file, report)
        .map_err(|err| format!("cannot write the report: {err}"))?;
    file.persist(path)
        .map_err(|err| format!("cannot write the report: {err}"))?;
    Ok(())
}

/// Runs `verb` on a current-thread runtime, stopped by a signal.
fn run(verb: &str, request: &Request) -> Report {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            return Report {
                error: Some(format!("cannot start the gRPC client: {err}")),
                ..Report::default()
            };
        }
    };
    let report = Arc::new(Mutex::new(Report::default()));
    let operation = Arc::new(Mutex::new(None::<String>));
    runtime.block_on(async {
        let work = async {
            let cluster = connect(request).await?;
            match verb {
                "exec" => exec::exec(&cluster, request, &report, &operation).await,
                "probe" => probe(&cluster).await,
                other => Err(format!("unknown verb {other:?}")),
            }
        };
        tokio::select! {
            outcome = work => {
                if let Err(why) = outcome {
                    lock(&report).error = Some(why);
                }
            }
            () = stopped() => {
                cancel(request, &operation).await;
                lock(&report).cancelled = true;
            }
        }
    });
    lock(&report).clone()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A channel to the request's endpoint (`grpc://` plain, `grpcs://` TLS).
async fn connect(request: &Request) -> Result<Cluster, String> {
    let token =
        match &request.token_env {
            None => None,
            Some(name) => Some(std::env::var(name).map_err(|_| {
                format!("the token variable {name} ([remote] token_env) is not set")
            })?),
        };
    let (url, tls) = if let Some(rest) = request.endpoint.strip_prefix("grpc://") {
        (format!("http://{rest}"), false)
    } else if let Some(rest) = request.endpoint.strip_prefix("grpcs://") {
        (format!("https://{rest}"), true)
    } else {
        return Err(format!(
            "[remote] endpoint {:?} is not grpc://HOST:PORT or grpcs://HOST:PORT",
            request.endpoint
        ));
    };
    let mut endpoint = tonic::transport::Endpoint::from_shared(url)
        .map_err(|err| format!("[remote] endpoint {:?}: {err}", request.endpoint))?;
    if tls {
        endpoint = with_tls(endpoint, &request.endpoint)?;
    }
    let channel = endpoint
        .connect_timeout(CONNECT_TIMEOUT)
        .connect()
        .await
        .map_err(|err| {
            format!(
                "cannot reach the cluster at {}: {}",
                request.endpoint,
                error_chain(&err)
            )
        })?;
    Ok(Cluster {
        channel,
        instance: request.instance.clone(),
        endpoint: request.endpoint.clone(),
        token,
    })
}

/// TLS for `grpcs://`: the server's certificate is verified against the
/// system's roots, or only those of the file `SSL_CERT_FILE` names (a
/// cluster with a private CA), and its name against the endpoint's host.
#[cfg(not(any(windows, target_os = "macos")))]
fn with_tls(
    endpoint: tonic::transport::Endpoint,
    name: &str,
) -> Result<tonic::transport::Endpoint, String> {
    endpoint
        .tls_config(tonic::transport::ClientTlsConfig::new().with_native_roots())
        .map_err(|err| format!("[remote] endpoint {name:?}: TLS: {}", error_chain(&err)))
}

/// Windows and macOS builds have no TLS stack for gRPC yet (ring's C code
/// is not built for them here; docs/remote.md).
#[cfg(any(windows, target_os = "macos"))]
fn with_tls(
    _: tonic::transport::Endpoint,
    name: &str,
) -> Result<tonic::transport::Endpoint, String> {
    Err(format!(
        "{name}: TLS (grpcs://) is not supported by this platform's build yet (docs/remote.md)"
    ))
}

/// An error and its sources, on one line.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(next) = source {
        text.push_str(": ");
        text.push_str(&next.to_string());
        source = next.source();
    }
    text
}

/// `GetCapabilities`: the cluster answers and serves this instance.
async fn probe(cluster: &Cluster) -> Result<(), String> {
    CapabilitiesClient::new(cluster.channel.clone())
        .get_capabilities(cluster.request(GetCapabilitiesRequest {
            instance_name: cluster.instance.clone(),
        }))
        .await
        .map_err(|s| cluster.status("GetCapabilities", &s))?;
    Ok(())
}

/// Resolves at SIGTERM, SIGINT or SIGHUP (Unix), or Ctrl-C (Windows).
#[cfg(unix)]
async fn stopped() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}

#[cfg(not(unix))]
async fn stopped() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// `CancelOperation` for the running operation, bounded: the gate kills
/// this program after its grace anyway.
async fn cancel(request: &Request, operation: &Arc<Mutex<Option<String>>>) {
    let Some(name) = lock(operation).clone() else {
        return;
    };
    let attempt = async {
        let cluster = connect(request).await?;
        OperationsClient::new(cluster.channel.clone())
            .cancel_operation(cluster.request(CancelOperationRequest { name }))
            .await
            .map_err(|s| cluster.status("CancelOperation", &s))
    };
    let _ = tokio::time::timeout(CANCEL_TIMEOUT, attempt).await;
}
