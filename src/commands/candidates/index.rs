//! The ranked index: best first, written under its lock unless a later
//! round wrote one, and rendered as text or Markdown.

use std::path::Path;

use run_check_documents::candidates::{Candidate as Entry, Index};
use run_check_documents::retry::Decision;

use crate::aggregate::retry;
use crate::error::Error;

use super::inputs::index_round;
use super::write;

/// Sorts best first (passed, then higher overall score, then fewer changed
/// lines, null last, then id) and numbers the ranks.
pub(super) fn rank(entries: &mut [Entry]) {
    entries.sort_by(|a, b| {
        b.passed
            .cmp(&a.passed)
            .then_with(|| match (a.overall_score, b.overall_score) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| match (a.loc_changed, b.loc_changed) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.id.cmp(&b.id))
    });
    for (n, entry) in entries.iter_mut().enumerate() {
        entry.rank = u32::try_from(n + 1).unwrap_or(u32::MAX);
    }
}

/// Writes `index.json` and `index.md` under the index's lock, unless a
/// later round already wrote its index (rounds running at once end in any
/// order; the index is the latest round's).
pub(super) fn write_index(task_dir: &Path, index: &Index) -> Result<(), Error> {
    let path = task_dir.join("index.json");
    let _lock = retry::state::Lock::acquire(&path)?;
    let newer = index_round(&path)?.is_some_and(|round| round > u64::from(index.round));
    if newer {
        return Ok(());
    }
    write(&path, run_check_documents::pretty(index).as_bytes())?;
    write(&task_dir.join("index.md"), markdown(index).as_bytes())
}

/// A score with two decimals, or `-`.
fn score(score: Option<f64>) -> String {
    score.map_or("-".into(), |s| format!("{s:.2}"))
}

fn count(n: Option<u64>) -> String {
    n.map_or("-".into(), |n| n.to_string())
}

fn retry_word(decision: Option<Decision>) -> &'static str {
    decision.map_or("-", Decision::as_str)
}

/// `--format text`: an aligned table and a closing line.
pub(super) fn text(index: &Index, task_dir: &Path) -> String {
    let rows: Vec<[String; 8]> = index
        .candidates
        .iter()
        .map(|c| {
            [
                c.rank.to_string(),
                c.id.clone(),
                c.exit_code.to_string(),
                score(c.overall_score),
                count(c.loc_changed),
                c.route.next.as_str().to_string(),
                retry_word(c.retry_decision).to_string(),
                c.banner.clone(),
            ]
        })
        .collect();
    let mut text = format!(
        "task `{}`, round {} ({})\n",
        index.task_id,
        index.round,
        task_dir.display()
    );
    text.push_str(&crate::output::table(
        [
            "RANK",
            "CANDIDATE",
            "EXIT",
            "SCORE",
            "LINES",
            "ROUTE",
            "RETRY",
            "BANNER",
        ],
        &rows,
    ));
    let passed = index.candidates.iter().filter(|c| c.passed).count();
    text.push_str(&format!(
        "{passed} of {} passed",
        crate::output::plural(index.candidates.len(), "candidate")
    ));
    match index.candidates.first().filter(|c| c.passed) {
        Some(best) => text.push_str(&format!("; best: {}\n", best.id)),
        None => text.push('\n'),
    }
    crate::sanitize::for_display(&text).into_owned()
}

/// `index.md` (and `--format markdown`): a table and each route's action.
pub(super) fn markdown(index: &Index) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut md = format!(
        "# Candidates of task `{}`, round {}\n\n\
         | rank | candidate | exit | score | files | lines | route | retry | banner |\n\
         |---:|---|---:|---:|---:|---:|---|---|---|\n",
        cell(&index.task_id),
        index.round
    );
    for c in &index.candidates {
        md.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            c.rank,
            cell(&c.id),
            c.exit_code,
            score(c.overall_score),
            count(c.files_changed),
            count(c.loc_changed),
            c.route.next.as_str(),
            retry_word(c.retry_decision),
            cell(&c.banner)
        ));
    }
    md.push_str("\n## Next steps\n\n");
    for c in &index.candidates {
        md.push_str(&format!(
            "- `{}` ({}): {}\n",
            cell(&c.id),
            c.route.next.as_str(),
            cell(&c.route.action)
        ));
    }
    crate::sanitize::for_display(&md).into_owned()
}
