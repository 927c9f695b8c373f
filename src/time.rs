//! The clock as the documents write it.

/// Now, RFC 3339 UTC with seconds (`meta.timestamp`, a retry's
/// `recorded_at`).
pub(crate) fn timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
