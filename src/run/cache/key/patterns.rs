//! The cached checks' patterns (`inputs`, else `paths`) as one glob set,
//! so that each file of the run is matched once, whatever the number of
//! checks: twenty checks whose inputs are the whole tree cost one match per
//! file, not twenty. Checks with the same patterns share one group, and
//! the files a group holds are listed once.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The patterns of a run's checks.
pub(super) struct Patterns {
    /// Every distinct pattern of every check.
    set: GlobSet,
    /// Each distinct list of patterns: indices in `set`, sorted.
    groups: Vec<Vec<usize>>,
    /// Each check's group; `None` for a check without patterns (every file
    /// is its input) or that is not cached.
    of: Vec<Option<usize>>,
}

impl Patterns {
    /// The patterns of `checks` (`None`: not cached, or no patterns).
    pub(super) fn new<'a>(
        checks: impl Iterator<Item = Option<&'a [Glob]>>,
    ) -> Result<Patterns, String> {
        let mut distinct: Vec<&Glob> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut of = Vec::new();
        for globs in checks {
            let Some(globs) = globs else {
                of.push(None);
                continue;
            };
            let mut group: Vec<usize> = globs
                .iter()
                .map(
                    |glob| match distinct.iter().position(|known| *known == glob) {
                        Some(at) => at,
                        None => {
                            distinct.push(glob);
                            distinct.len() - 1
                        }
                    },
                )
                .collect();
            group.sort_unstable();
            group.dedup();
            let at = match groups.iter().position(|known| *known == group) {
                Some(at) => at,
                None => {
                    groups.push(group);
                    groups.len() - 1
                }
            };
            of.push(Some(at));
        }
        let mut builder = GlobSetBuilder::new();
        for glob in distinct {
            builder.add(glob.clone());
        }
        let set = builder.build().map_err(|err| err.to_string())?;
        Ok(Patterns { set, groups, of })
    }

    /// Check `check`'s group, `None` when it has no patterns.
    pub(super) fn group_of(&self, check: usize) -> Option<usize> {
        self.of.get(check).copied().flatten()
    }

    /// For each group, the indices of `paths` its patterns match: one
    /// match of the whole set per path.
    pub(super) fn select<'a>(&self, paths: impl Iterator<Item = &'a str>) -> Vec<Vec<usize>> {
        let mut chosen = vec![Vec::new(); self.groups.len()];
        if self.groups.is_empty() {
            return chosen;
        }
        let mut hits = Vec::new();
        for (i, path) in paths.enumerate() {
            self.set.matches_into(path, &mut hits);
            if hits.is_empty() {
                continue;
            }
            for (group, patterns) in self.groups.iter().enumerate() {
                if hits.iter().any(|hit| patterns.binary_search(hit).is_ok()) {
                    chosen[group].push(i);
                }
            }
        }
        chosen
    }

    /// Whether `path` is matched by a pattern of `group`.
    pub(super) fn matches(&self, group: usize, path: &str, hits: &mut Vec<usize>) -> bool {
        self.set.matches_into(path, hits);
        let patterns = &self.groups[group];
        hits.iter().any(|hit| patterns.binary_search(hit).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(patterns: &[&str]) -> Vec<Glob> {
        patterns.iter().map(|p| Glob::new(p).unwrap()).collect()
    }

    #[test]
    fn checks_with_the_same_patterns_share_a_group_and_each_path_is_chosen_by_its_own() {
        let a = globs(&["src/**", "*.toml"]);
        let b = globs(&["*.toml", "src/**"]);
        let c = globs(&["docs/*.md"]);
        let checks = [Some(&a[..]), None, Some(&b[..]), Some(&c[..])];
        let patterns = Patterns::new(checks.into_iter()).unwrap();
        assert_eq!(patterns.group_of(0), patterns.group_of(2));
        assert_eq!(patterns.group_of(1), None);
        let paths = ["src/a.rs", "docs/x.md", "checks.toml", "lib/b.rs"];
        let chosen = patterns.select(paths.into_iter());
        assert_eq!(chosen.len(), 2, "one list per distinct set of patterns");
        let group = |check: usize| &chosen[patterns.group_of(check).unwrap()];
        assert_eq!(group(0), &[0, 2]);
        assert_eq!(group(3), &[1]);
        let mut hits = Vec::new();
        assert!(patterns.matches(patterns.group_of(3).unwrap(), "docs/q.md", &mut hits));
        assert!(!patterns.matches(patterns.group_of(3).unwrap(), "src/q.md", &mut hits));
    }
}
