//! The aggregators: documents in, documents out. The judge turns evidence
//! and history into a verdict, vote tallies reviewers' votes, retry tracks a
//! task's attempts, merge joins the evidence of shards.

pub(crate) mod judge;
pub(crate) mod merge;
pub(crate) mod retry;
pub(crate) mod vote;
