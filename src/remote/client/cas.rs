//! The cluster's CAS: which blobs it lacks (`FindMissingBlobs`), sending
//! them (`BatchUpdateBlobs`, ByteStream `Write` for a large one) and
//! reading one back (`BatchReadBlobs`, ByteStream `Read`), its digest
//! checked before any byte is used.

use sha2::{Digest as _, Sha256};

use super::Cluster;
use super::proto::build::bazel::remote::execution::v2::{
    BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest, FindMissingBlobsRequest,
    batch_update_blobs_request,
};
use super::proto::google::bytestream::{ReadRequest, WriteRequest};
use super::tree::{Blobs, Source};
use crate::digest::hex;

/// Blobs up to this size go in batches, larger ones through ByteStream
/// (gRPC's default message limit is 4 MiB; a batch stays under it).
const BATCH_BYTES: i64 = 2 * 1024 * 1024;
/// How many digests one `FindMissingBlobs` asks about.
const FIND_CHUNK: usize = 4096;
/// ByteStream's chunk.
const CHUNK: usize = 1024 * 1024;

/// Sends the blobs the cluster lacks; gives how many, and their bytes.
pub(crate) async fn upload(cluster: &Cluster, blobs: &Blobs) -> Result<(u64, u64), String> {
    let digests: Vec<Digest> = blobs.by_hash.values().map(|(d, _)| d.clone()).collect();
    let mut missing = Vec::new();
    for chunk in digests.chunks(FIND_CHUNK) {
        let request = FindMissingBlobsRequest {
            instance_name: cluster.instance.clone(),
            blob_digests: chunk.to_vec(),
            digest_function: 0,
        };
        let response = cluster
            .cas()
            .find_missing_blobs(cluster.request(request))
            .await
            .map_err(|s| cluster.status("FindMissingBlobs", &s))?;
        missing.extend(response.into_inner().missing_blob_digests);
    }
    let mut sent = (0u64, 0u64);
    let mut batch: Vec<batch_update_blobs_request::Request> = Vec::new();
    let mut batch_bytes = 0i64;
    for digest in missing {
        let Some((_, source)) = blobs.by_hash.get(&digest.hash) else {
            return Err(format!(
                "the cluster asked for a blob never offered: {}",
                digest.hash
            ));
        };
        let data = read_source(source)?;
        if digest_of(&data) != digest {
            return Err(format!(
                "a file changed while it was sent (blob {})",
                digest.hash
            ));
        }
        sent.0 += 1;
        sent.1 += data.len() as u64;
        if digest.size_bytes > BATCH_BYTES {
            write_stream(cluster, &digest, data).await?;
            continue;
        }
        if batch_bytes + digest.size_bytes > BATCH_BYTES {
            send_batch(cluster, std::mem::take(&mut batch)).await?;
            batch_bytes = 0;
        }
        batch_bytes += digest.size_bytes;
        batch.push(batch_update_blobs_request::Request {
            digest: Some(digest),
            data,
            compressor: 0,
        });
    }
    if !batch.is_empty() {
        send_batch(cluster, batch).await?;
    }
    Ok(sent)
}

fn read_source(source: &Source) -> Result<Vec<u8>, String> {
    match source {
        Source::Bytes(bytes) => Ok(bytes.clone()),
        Source::File(path) => {
            std::fs::read(path).map_err(|err| format!("cannot read {}: {err}", path.display()))
        }
    }
}

fn digest_of(data: &[u8]) -> Digest {
    super::tree::digest_of(data)
}

async fn send_batch(
    cluster: &Cluster,
    requests: Vec<batch_update_blobs_request::Request>,
) -> Result<(), String> {
    let request = BatchUpdateBlobsRequest {
        instance_name: cluster.instance.clone(),
        requests,
        digest_function: 0,
    };
    let response = cluster
        .cas()
        .batch_update_blobs(cluster.request(request))
        .await
        .map_err(|s| cluster.status("BatchUpdateBlobs", &s))?;
    for one in response.into_inner().responses {
        if let Some(status) = one.status.filter(|s| s.code != 0) {
            return Err(format!(
                "the cluster refused a blob (BatchUpdateBlobs: code {}: {})",
                status.code, status.message
            ));
        }
    }
    Ok(())
}

/// One large blob through ByteStream `Write`.
async fn write_stream(cluster: &Cluster, digest: &Digest, data: Vec<u8>) -> Result<(), String> {
    let name = format!(
        "{}uploads/{}/blobs/{}/{}",
        instance_prefix(&cluster.instance),
        upload_id(),
        digest.hash,
        digest.size_bytes
    );
    let total = data.len();
    let requests: Vec<WriteRequest> = (0..total.max(1))
        .step_by(CHUNK)
        .map(|offset| {
            let end = (offset + CHUNK).min(total);
            WriteRequest {
                resource_name: if offset == 0 {
                    name.clone()
                } else {
                    String::new()
                },
                write_offset: offset as i64,
                finish_write: end == total,
                data: data[offset..end].to_vec(),
            }
        })
        .collect();
    cluster
        .bytestream()
        .write(cluster.request(tokio_stream(requests)))
        .await
        .map_err(|s| cluster.status("ByteStream.Write", &s))?;
    Ok(())
}

/// A stream of the requests, for a client-streaming call.
fn tokio_stream<T: Send + 'static>(
    items: Vec<T>,
) -> impl tonic::codegen::tokio_stream::Stream<Item = T> {
    tonic::codegen::tokio_stream::iter(items)
}

/// A name unique to this upload (the process and the time).
fn upload_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("run-check-{}-{nanos}", std::process::id())
}

fn instance_prefix(instance: &str) -> String {
    if instance.is_empty() {
        String::new()
    } else {
        format!("{instance}/")
    }
}

/// A blob's bytes, refused unless they hash to its digest: a cluster (or
/// anything between) that answers other bytes makes the check an error,
/// never a result. `limit` bounds what is read into memory.
pub(crate) async fn read(
    cluster: &Cluster,
    digest: &Digest,
    limit: u64,
) -> Result<Vec<u8>, String> {
    if digest.size_bytes < 0 || digest.size_bytes as u64 > limit {
        return Err(format!(
            "the cluster's output blob {}/{} is over the {limit}-byte limit",
            digest.hash, digest.size_bytes
        ));
    }
    if digest.size_bytes == 0 {
        return verified(digest, Vec::new());
    }
    let data = if digest.size_bytes <= BATCH_BYTES {
        read_batch(cluster, digest).await?
    } else {
        read_stream(cluster, digest).await?
    };
    verified(digest, data)
}

fn verified(digest: &Digest, data: Vec<u8>) -> Result<Vec<u8>, String> {
    let actual = hex(&Sha256::digest(&data));
    if actual != digest.hash || data.len() as i64 != digest.size_bytes {
        return Err(format!(
            "the cluster returned a blob whose digest does not match: asked for {}/{}, got {actual}/{}",
            digest.hash,
            digest.size_bytes,
            data.len()
        ));
    }
    Ok(data)
}

async fn read_batch(cluster: &Cluster, digest: &Digest) -> Result<Vec<u8>, String> {
    let request = BatchReadBlobsRequest {
        instance_name: cluster.instance.clone(),
        digests: vec![digest.clone()],
        acceptable_compressors: Vec::new(),
        digest_function: 0,
    };
    let response = cluster
        .cas()
        .batch_read_blobs(cluster.request(request))
        .await
        .map_err(|s| cluster.status("BatchReadBlobs", &s))?;
    let Some(one) = response.into_inner().responses.into_iter().next() else {
        return Err("the cluster answered BatchReadBlobs with no blob".to_string());
    };
    if let Some(status) = one.status.filter(|s| s.code != 0) {
        return Err(format!(
            "the cluster could not read blob {} (BatchReadBlobs: code {}: {})",
            digest.hash, status.code, status.message
        ));
    }
    Ok(one.data.to_vec())
}

async fn read_stream(cluster: &Cluster, digest: &Digest) -> Result<Vec<u8>, String> {
    let name = format!(
        "{}blobs/{}/{}",
        instance_prefix(&cluster.instance),
        digest.hash,
        digest.size_bytes
    );
    let request = ReadRequest {
        resource_name: name,
        read_offset: 0,
        read_limit: 0,
    };
    let mut stream = cluster
        .bytestream()
        .read(cluster.request(request))
        .await
        .map_err(|s| cluster.status("ByteStream.Read", &s))?
        .into_inner();
    let mut data = Vec::new();
    while let Some(chunk) = stream
        .message()
        .await
        .map_err(|s| cluster.status("ByteStream.Read", &s))?
    {
        data.extend_from_slice(&chunk.data);
        if data.len() as i64 > digest.size_bytes {
            break;
        }
    }
    Ok(data)
}
