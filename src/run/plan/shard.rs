//! `--shard K/N`: a run's share of the checks, by a hash of the name or
//! balanced by an earlier run's durations (`--timings`).

use super::*;

/// `--shard K/N`, balanced by `--timings` when given.
#[derive(Debug, Clone)]
pub(crate) struct Sharding {
    pub(crate) shard: Shard,
    /// `--timings`: an earlier run's durations balancing the shards; `None`:
    /// the hash split.
    pub(crate) timings: Option<Timings>,
}

/// `--timings EV.json`: what an earlier run's checks cost (docs/merge.md).
#[derive(Debug, Clone)]
pub(crate) struct Timings {
    /// The file as named on the command line (recorded in `meta.shard`).
    pub(crate) path: String,
    /// Milliseconds per check that ran to a verdict (pass or fail): a
    /// skipped or errored check's duration is not what it costs.
    pub(crate) durations: HashMap<String, u64>,
}

impl Timings {
    /// The durations of `evidence`'s checks that passed or failed; a name
    /// given twice (a hand-made file) counts at its longest.
    pub(crate) fn of(path: String, evidence: &run_check_documents::evidence::Evidence) -> Timings {
        use run_check_documents::evidence::Status;
        let mut durations: HashMap<String, u64> = HashMap::new();
        for check in &evidence.checks {
            if matches!(check.status, Status::Pass | Status::Fail) {
                let at = durations.entry(check.name.clone()).or_default();
                *at = (*at).max(check.duration_ms);
            }
        }
        Timings { path, durations }
    }

    /// The shard (1-based, of `count`) of each of `names` (the checks
    /// selected before sharding, unique): the ones without a duration where
    /// the hash puts them ([`Shard::of`]), each counting as the mean known
    /// duration; then the known ones longest first (ties by name) onto the
    /// least loaded shard (ties: the lowest index). A function of the names,
    /// the durations and `count` alone, so every shard's run computes the
    /// same split.
    pub(crate) fn split(&self, names: &[String], count: u32) -> Vec<u32> {
        let mut shard = vec![0u32; names.len()];
        let mut known: Vec<(u64, &str, usize)> = Vec::new();
        let mut unknown = Vec::new();
        for (i, name) in names.iter().enumerate() {
            match self.durations.get(name) {
                Some(&ms) => known.push((ms, name, i)),
                None => unknown.push(i),
            }
        }
        // In u128 and saturating: a hand-made file may hold any u64.
        let sum: u128 = known.iter().map(|(ms, _, _)| u128::from(*ms)).sum();
        let mean = sum.checked_div(known.len() as u128).unwrap_or(0);
        let mean = u64::try_from(mean).unwrap_or(u64::MAX);
        // Loads of the shards holding something; every other shard is empty.
        // (N may be far above the number of checks: no array of N loads.)
        let mut loads: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
        for i in unknown {
            let k = Shard::of(&names[i], count);
            shard[i] = k;
            let load = loads.entry(k).or_default();
            *load = load.saturating_add(mean);
        }
        known.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (ms, _, i) in known {
            let least = loads.iter().map(|(&k, &load)| (load, k)).min();
            let empty = (loads.len() < count as usize)
                .then(|| (1..=count).find(|k| !loads.contains_key(k)))
                .flatten()
                .map(|k| (0, k));
            let (_, k) = match (least, empty) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap_or((0, 1)),
            };
            shard[i] = k;
            let load = loads.entry(k).or_default();
            *load = load.saturating_add(ms);
        }
        shard
    }
}

/// One shard of a run split across machines (docs/merge.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    /// 1-based index.
    pub(crate) index: u32,
    /// Number of shards.
    pub(crate) count: u32,
}

impl Shard {
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub(crate) fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard `{text}`: expected K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard (1-based) a check belongs to: a hash of its name alone, so
    /// adding or removing other checks never moves it.
    pub(crate) fn of(name: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(name.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32 + 1
    }

    /// Whether check `name` runs in this shard.
    pub(crate) fn contains(&self, name: &str) -> bool {
        Shard::of(name, self.count) == self.index
    }
}

/// The checks of `selected` in this run's shard (all of them without
/// `--shard`), and the shard with the names of every selected check (what
/// the evidence records).
pub(super) fn select<'c>(
    selected: Vec<&'c CheckConfig>,
    sharding: Option<&Sharding>,
) -> (Vec<&'c CheckConfig>, Option<(Shard, Vec<String>)>) {
    let Some(sharding) = sharding else {
        return (selected, None);
    };
    let all: Vec<String> = selected.iter().map(|c| c.name.clone()).collect();
    let shard = sharding.shard;
    let selected = match &sharding.timings {
        Some(timings) => {
            let split = timings.split(&all, shard.count);
            selected
                .into_iter()
                .zip(split)
                .filter(|(_, k)| *k == shard.index)
                .map(|(c, _)| c)
                .collect()
        }
        None => selected
            .into_iter()
            .filter(|c| shard.contains(&c.name))
            .collect(),
    };
    (selected, Some((shard, all)))
}
