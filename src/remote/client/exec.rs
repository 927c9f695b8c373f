//! One remote check: the input root and its blobs, the `Command` and the
//! `Action`, the upload of what the cluster lacks, `Execute` with the
//! operation streamed (`WaitExecution` when the stream ends early), then
//! the `ActionResult`'s stdout and stderr read from the CAS, checked, and
//! copied to this program's own.

use std::io::Write as _;
use std::sync::{Arc, Mutex};

use super::proto::build::bazel::remote::execution::v2::{
    Action, ActionResult, Command, Digest, ExecuteRequest, ExecuteResponse, Platform,
    WaitExecutionRequest, command::EnvironmentVariable, platform::Property,
};
use super::proto::google::longrunning::{Operation, operation};
use super::tree::{Blobs, input_root};
use super::{Cluster, cas};
use crate::remote::protocol::{Report, Request};

/// gRPC's DEADLINE_EXCEEDED: the cluster ended the action at its timeout.
const DEADLINE_EXCEEDED: i32 = 4;
/// The most of each stream read into memory (the gate keeps bounded
/// excerpts of what it is given; this bounds what is fetched).
const OUTPUT_LIMIT: u64 = 256 * 1024 * 1024;

/// Runs `request` on the cluster; fills `report` as it goes (the
/// operation's name goes in `operation` for a cancel).
pub(crate) async fn exec(
    cluster: &Cluster,
    request: &Request,
    report: &Arc<Mutex<Report>>,
    operation: &Arc<Mutex<Option<String>>>,
) -> Result<(), String> {
    let mut blobs = Blobs::default();
    let root = input_root(
        std::path::Path::new(&request.worktree),
        &request.files,
        &mut blobs,
    )?;
    let command = command_of(request);
    let command_digest = blobs.message(&command);
    #[allow(
        deprecated,
        reason = "servers of REAPI 2.0-2.1 read the Command's platform; 2.2 the Action's"
    )]
    let action = Action {
        command_digest: Some(command_digest),
        input_root_digest: Some(root),
        timeout: Some(prost_types::Duration {
            seconds: i64::try_from(request.timeout_ms / 1000).unwrap_or(i64::MAX),
            nanos: i32::try_from((request.timeout_ms % 1000) * 1_000_000).unwrap_or(0),
        }),
        do_not_cache: request.do_not_cache,
        salt: Default::default(),
        platform: command.platform.clone(),
    };
    let action_digest = blobs.message(&action);
    lock(report).action_digest = Some(format!(
        "{}/{}",
        action_digest.hash, action_digest.size_bytes
    ));
    let (count, bytes) = cas::upload(cluster, &blobs).await?;
    {
        let mut report = lock(report);
        report.uploaded_blobs = count;
        report.uploaded_bytes = bytes;
    }
    let response = execute(cluster, &action_digest, request.do_not_cache, operation).await?;
    finish(cluster, response, report).await
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `Command`: the check's arguments, working directory, `env` (sorted,
/// as the API requires) and the platform.
fn command_of(request: &Request) -> Command {
    let platform = Platform {
        properties: request
            .platform
            .iter()
            .map(|(name, value)| Property {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
    };
    #[allow(
        deprecated,
        reason = "REAPI v2.0 servers read only `platform` on the Command"
    )]
    let command = Command {
        arguments: request.argv.clone(),
        environment_variables: request
            .env
            .iter()
            .map(|(name, value)| EnvironmentVariable {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
        working_directory: request.cwd.clone(),
        platform: Some(platform),
        ..Default::default()
    };
    command
}

/// `Execute`, its operation followed to the end.
async fn execute(
    cluster: &Cluster,
    action_digest: &Digest,
    do_not_cache: bool,
    operation: &Arc<Mutex<Option<String>>>,
) -> Result<ExecuteResponse, String> {
    let request = ExecuteRequest {
        instance_name: cluster.instance.clone(),
        skip_cache_lookup: do_not_cache,
        action_digest: Some(action_digest.clone()),
        ..Default::default()
    };
    let mut stream = cluster
        .execution()
        .execute(cluster.request(request))
        .await
        .map_err(|s| cluster.status("Execute", &s))?
        .into_inner();
    loop {
        match stream.message().await {
            Ok(Some(op)) => {
                *lock(operation) = Some(op.name.clone());
                if op.done {
                    return done(cluster, op);
                }
            }
            Ok(None) => {}
            Err(status) => return Err(cluster.status("Execute", &status)),
        }
        // The stream ended before the operation did: wait on it again.
        let Some(name) = lock(operation).clone() else {
            return Err("the cluster ended Execute without an operation".to_string());
        };
        stream = cluster
            .execution()
            .wait_execution(cluster.request(WaitExecutionRequest { name }))
            .await
            .map_err(|s| cluster.status("WaitExecution", &s))?
            .into_inner();
    }
}

/// A finished operation's `ExecuteResponse`, or the cluster's error.
fn done(cluster: &Cluster, op: Operation) -> Result<ExecuteResponse, String> {
    match op.result {
        Some(operation::Result::Response(any)) => {
            <ExecuteResponse as prost::Message>::decode(any.value.as_slice())
                .map_err(|err| format!("the cluster's ExecuteResponse is not readable: {err}"))
        }
        Some(operation::Result::Error(status)) => Err(format!(
            "the cluster at {} failed the action: {} ({})",
            cluster.endpoint,
            super::code_name(status.code),
            status.message
        )),
        None => Err("the cluster ended the operation without a result".to_string()),
    }
}

/// The response into the report, and the outputs onto stdout and stderr.
async fn finish(
    cluster: &Cluster,
    response: ExecuteResponse,
    report: &Arc<Mutex<Report>>,
) -> Result<(), String> {
    let status = response.status.unwrap_or_default();
    let result = response.result.unwrap_or_default();
    let timed_out = status.code == DEADLINE_EXCEEDED;
    if status.code != 0 && !timed_out {
        return Err(format!(
            "the cluster at {} could not run the action: {} ({})",
            cluster.endpoint,
            super::code_name(status.code),
            status.message
        ));
    }
    let stdout = output(cluster, &result.stdout_raw, result.stdout_digest.as_ref()).await?;
    let stderr = output(cluster, &result.stderr_raw, result.stderr_digest.as_ref()).await?;
    metadata(&result, &mut lock(report));
    {
        let mut report = lock(report);
        report.cached_result = response.cached_result;
        report.timed_out = timed_out;
        report.exit_code = (!timed_out).then_some(result.exit_code);
    }
    // Nothing is written before every blob was checked.
    let _ = std::io::stdout().lock().write_all(&stdout);
    let _ = std::io::stderr().lock().write_all(&stderr);
    Ok(())
}

/// One stream's bytes: inline (checked against its digest when the
/// cluster gives both) or read from the CAS.
async fn output(cluster: &Cluster, raw: &[u8], digest: Option<&Digest>) -> Result<Vec<u8>, String> {
    match digest {
        Some(digest) if raw.is_empty() => cas::read(cluster, digest, OUTPUT_LIMIT).await,
        Some(digest) => {
            let actual = super::tree::digest_of(raw);
            if actual != *digest {
                return Err(format!(
                    "the cluster returned inline output whose digest does not match: {}/{} named, {}/{} given",
                    digest.hash, digest.size_bytes, actual.hash, actual.size_bytes
                ));
            }
            Ok(raw.to_vec())
        }
        None => Ok(raw.to_vec()),
    }
}

/// The worker and the times of `ExecutedActionMetadata`.
fn metadata(result: &ActionResult, report: &mut Report) {
    let Some(meta) = &result.execution_metadata else {
        return;
    };
    report.worker = Some(meta.worker.clone()).filter(|w| !w.is_empty());
    let between = |a: &Option<prost_types::Timestamp>, b: &Option<prost_types::Timestamp>| {
        let (a, b) = (a.as_ref()?, b.as_ref()?);
        let nanos = (i128::from(b.seconds) - i128::from(a.seconds)) * 1_000_000_000
            + i128::from(b.nanos)
            - i128::from(a.nanos);
        u64::try_from(nanos / 1_000_000).ok()
    };
    report.queued_ms = between(&meta.queued_timestamp, &meta.worker_start_timestamp);
    report.executed_ms = between(
        &meta.execution_start_timestamp,
        &meta.execution_completed_timestamp,
    )
    .or_else(|| {
        between(
            &meta.worker_start_timestamp,
            &meta.worker_completed_timestamp,
        )
    });
}
