//! The aggregators: documents in, documents out. The judge turns evidence
//! and history into a verdict, vote tallies reviewers' votes, retry tracks a
//! task's attempts, merge joins the evidence of shards.

pub(crate) mod judge;
pub(crate) mod merge;
pub(crate) mod retry;
pub(crate) mod vote;

/// `text` shown safely ([`crate::sanitize::for_display`]) on one line:
/// whitespace runs, newlines included, become one space, so an item stays
/// one list entry.
pub(crate) fn one_line(text: &str) -> String {
    crate::sanitize::for_display(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
