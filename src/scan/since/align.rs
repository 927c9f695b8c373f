//! Which lines of a file are the base's own lines, where they stand: a
//! line diff (Myers' algorithm, the one `git diff` uses by default) of the
//! base's text and the file's, lines compared trimmed (a re-indented line
//! is the same line).
//!
//! A `run-check: allow` marker excuses the findings of its own line only:
//! the line must be one the diff keeps from the base, not one it deletes
//! in one place and adds in another. So a marker line moved above another
//! test (`@pytest.mark.skip  # run-check: allow` taken from an old flaky
//! test to a new failing one) is new, as is its copy; a line whose
//! neighbours changed is still old.

use std::hash::{DefaultHasher, Hash, Hasher};

/// The most lines inserted plus deleted the diff looks through; a file
/// changed more than this keeps no base line (its markers are new: the
/// scan errs towards reporting).
pub(super) const MAX_EDITS: usize = 2000;

/// The hash of a line as compared: trimmed, a CR before the line end left
/// out.
pub(super) fn line_hash(line: &[u8]) -> u64 {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut hasher = DefaultHasher::new();
    line.trim_ascii().hash(&mut hasher);
    hasher.finish()
}

/// For each line of `now` (by index), the index of the line of `base` it
/// is kept as, when it is; `None` when the two differ by more than
/// [`MAX_EDITS`] lines.
pub(super) fn kept(base: &[u64], now: &[u64]) -> Option<Vec<Option<usize>>> {
    let mut out = vec![None; now.len()];
    let head = base.iter().zip(now).take_while(|(a, b)| a == b).count();
    let tail = base[head..]
        .iter()
        .rev()
        .zip(now[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    for (i, kept) in out.iter_mut().enumerate().take(head) {
        *kept = Some(i);
    }
    for (i, kept) in out.iter_mut().rev().enumerate().take(tail) {
        *kept = Some(base.len() - 1 - i);
    }
    let (a, b) = (&base[head..base.len() - tail], &now[head..now.len() - tail]);
    let pairs = myers(a, b)?;
    // Each pair keeps two equal lines, in order: anything else would be a
    // fault of the walk, and then nothing is kept (the scan errs towards
    // reporting).
    let valid = pairs
        .iter()
        .all(|&(x, y)| x < a.len() && y < b.len() && a[x] == b[y])
        && pairs.windows(2).all(|w| w[0].0 > w[1].0 && w[0].1 > w[1].1);
    if !valid {
        return None;
    }
    for (x, y) in pairs {
        out[head + y] = Some(head + x);
    }
    Some(out)
}

/// The pairs (index in `a`, index in `b`) of equal lines a shortest edit
/// script keeps; `None` beyond [`MAX_EDITS`].
fn myers(a: &[u64], b: &[u64]) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    if a.len().abs_diff(b.len()) > MAX_EDITS {
        return None;
    }
    let offset = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    // The furthest x on each diagonal k in -d..=d, before step d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max.min(MAX_EDITS) as isize {
        trace.push(v[(offset - d) as usize..=(offset + d) as usize].to_vec());
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| v[(offset + k) as usize];
            let mut x = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
                at(k + 1)
            } else {
                at(k - 1) + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(offset + k) as usize] = x;
            if x >= n && y >= m {
                return Some(back(&trace, n, m));
            }
        }
    }
    None
}

/// The kept pairs, walking `trace` back from (`n`, `m`).
fn back(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<(usize, usize)> {
    let (mut x, mut y) = (n, m);
    let mut pairs = Vec::new();
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let at = |k: isize| v[(k + d) as usize];
        let k = x - y;
        let (px, py) = if d == 0 {
            (0, 0)
        } else {
            let pk = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
                k + 1
            } else {
                k - 1
            };
            (at(pk), at(pk) - pk)
        };
        while x > px && y > py {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        x = px;
        y = py;
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(text: &str) -> Vec<u64> {
        text.split('\n').map(|l| line_hash(l.as_bytes())).collect()
    }

    #[test]
    fn kept_lines_are_those_a_diff_does_not_touch() {
        let base = hashes("a\nskip\ndef old\nb\ndef new\nc");
        // `skip` moved from above `old` to above `new`.
        let now = hashes("a\ndef old\nb\n  skip\ndef new\nc");
        let found = kept(&base, &now).unwrap();
        assert_eq!(found, [Some(0), Some(2), Some(3), None, Some(4), Some(5)]);
        // Re-indented, and with lines added around it: kept.
        let now = hashes("x\na\n    skip  \ny\ndef old\nb\ndef new\nc");
        let found = kept(&base, &now).unwrap();
        assert_eq!(found[2], Some(1));
        assert_eq!(found[0], None);
        // Nothing in common, and the same text.
        assert_eq!(kept(&hashes("a"), &hashes("b")), Some(vec![None]));
        let same = hashes("a\nb");
        assert_eq!(kept(&same, &same), Some(vec![Some(0), Some(1)]));
    }

    #[test]
    fn a_file_changed_beyond_the_bound_keeps_nothing() {
        let base = vec![1u64; 10];
        let now: Vec<u64> = (0..(MAX_EDITS as u64 + 20)).collect();
        assert_eq!(kept(&base, &now), None);
    }
}
