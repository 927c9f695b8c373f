//! The clock as the documents write it.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// Now, in UTC.
pub(crate) fn now() -> DateTime<Utc> {
    Utc::now()
}

/// Now, RFC 3339 UTC with seconds (`meta.timestamp`, a retry's
/// `recorded_at`).
pub(crate) fn timestamp() -> String {
    rfc3339(now())
}

/// `at` as the documents write a time: RFC 3339 UTC with seconds.
pub(crate) fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A duration as the documents write it: milliseconds, saturating.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
