//! A candidate's files after its gate: task, report, change set, the retry
//! record, then the judge's verdict and feedback; and its index entry.

use std::path::Path;

use run_check_documents::candidates::Candidate as Entry;
use run_check_documents::evidence::Evidence;
use run_check_documents::retry::RecordOutput;

use crate::aggregate::judge::route::RetryPoint;
use crate::aggregate::judge::verdict::{Recommendation, Verdict};
use crate::aggregate::judge::{self, input::Source, round};
use crate::aggregate::retry;
use crate::cli::CandidatesArgs;
use crate::config::Config;
use crate::error::Error;
use crate::output::replace;
use crate::report::{self, Format};
use crate::run::changes::FileChange;

use super::Named;
use super::gate::Gated;

/// What every candidate's files are written with.
pub(super) struct Shared<'a> {
    pub(super) args: &'a CandidatesArgs,
    pub(super) task_bytes: &'a [u8],
    pub(super) task_id: &'a str,
    pub(super) base: &'a str,
    pub(super) task_dir: &'a Path,
    /// The trusted `--config` (absolute) and its content, loaded once.
    pub(super) config: Option<(&'a Path, &'a Config)>,
}

impl Shared<'_> {
    /// Writes `candidate`'s files in `dir` and returns its index entry:
    /// task, report, change set, retry record, then the judge.
    pub(super) fn after_gate(
        &self,
        candidate: &Named,
        dir: &Path,
        gated: Gated,
        changes: Result<Vec<FileChange>, String>,
    ) -> Result<Entry, Error> {
        replace(&dir.join("task.json"), self.task_bytes)?;
        if let Some((_, bytes)) = &gated.evidence {
            replace(&dir.join("run-check.json"), bytes)?;
        }
        let report = match &gated.evidence {
            Some((evidence, _)) => report::render(Format::Text, evidence),
            None => format!("{}\n", gated.last_line).into_bytes(),
        };
        replace(&dir.join("run-check.txt"), &report)?;
        replace(
            &dir.join("changeset.txt"),
            changeset_text(self.base, &changes).as_bytes(),
        )?;
        let measured = changes.as_ref().ok().map(|files| {
            let lines = files
                .iter()
                .map(|f| f.lines.map_or(0, |(a, d)| a + d))
                .sum::<u64>();
            (files.len() as u64, lines)
        });
        let entry_dir = self.args.runs.join(self.task_id).join(&candidate.id);
        let Some((evidence, _)) = gated.evidence else {
            return no_verdict(candidate, dir, gated, measured, &entry_dir);
        };
        let evidence_path = std::path::absolute(dir.join("run-check.json"))
            .unwrap_or_else(|_| dir.join("run-check.json"));
        // Record the retry first: the judge's route reads it (rule 5). The
        // limit is `[retry]` of the trusted config, else of the config the
        // evidence was made with.
        let max_retries = self.config.map(|(_, config)| retry::limit(config));
        let recorded = retry::record(&retry::Record {
            task_id: self.task_id,
            phase: self.args.phase,
            subagent: &candidate.id,
            evidence: &evidence_path,
            state: &self.task_dir.join("retry-state.json"),
            max_retries,
            lessons: None,
        })?;
        let verdict = judge_candidate(
            &evidence_path,
            &evidence,
            &dir.join("history.jsonl"),
            self.config,
            &recorded,
        )?;
        replace(
            &dir.join("verdict.json"),
            run_check_documents::pretty(&verdict).as_bytes(),
        )?;
        replace(
            &dir.join("feedback.md"),
            judge::markdown::render(&verdict).as_bytes(),
        )?;
        let budget = evidence.contracts.change_budget.as_ref();
        Ok(Entry {
            id: candidate.id.clone(),
            rank: 1,
            // The judge's PASS: a green gate and every score gate, so a
            // candidate that weakened its own gate (exit 0 by its own
            // checks) is not a passed one.
            passed: verdict.recommendation == Recommendation::Pass,
            exit_code: evidence.summary.exit_code,
            banner: evidence.summary.banner.clone(),
            overall_score: verdict.overall_score,
            route: verdict.route.clone(),
            retry_decision: Some(recorded.decision),
            files_changed: budget.map(|b| b.files_changed).or(measured.map(|m| m.0)),
            loc_changed: budget.map(|b| b.loc_changed).or(measured.map(|m| m.1)),
            dir: entry_dir.display().to_string(),
        })
    }
}

/// The entry (and `feedback.md`) of a candidate whose gate gave no
/// evidence.
fn no_verdict(
    candidate: &Named,
    dir: &Path,
    gated: Gated,
    measured: Option<(u64, u64)>,
    entry_dir: &Path,
) -> Result<Entry, Error> {
    // No evidence: nothing to record or judge; files of an earlier
    // round that would contradict this one go.
    for stale in ["run-check.json", "verdict.json"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let route = judge::verdict::Route {
        next: judge::verdict::NextAgent::User,
        reason: "the gate gave no verdict".into(),
        action: format!("Fix what stopped the gate: {}", gated.last_line),
    };
    let feedback = format!(
        "# Candidate `{}`: no verdict\n\nThe gate gave no verdict \
         (exit {}):\n\n    {}\n\nNext: {}\n",
        candidate.id, gated.code, gated.last_line, route.action
    );
    replace(&dir.join("feedback.md"), feedback.as_bytes())?;
    Ok(Entry {
        id: candidate.id.clone(),
        rank: 1,
        passed: false,
        exit_code: gated.code,
        banner: gated.last_line,
        overall_score: None,
        route,
        retry_decision: None,
        files_changed: measured.map(|m| m.0),
        loc_changed: measured.map(|m| m.1),
        dir: entry_dir.display().to_string(),
    })
}

/// The judge of one candidate's round: what `run-check judge EV --history H
/// --record [--config C] --state S --phase P --subagent ID` does,
/// in-process. `[judge]` is the trusted config's, else the config the
/// evidence was made with (as `judge` reads it).
pub(crate) fn judge_candidate(
    evidence_path: &Path,
    evidence: &Evidence,
    history_path: &Path,
    trusted: Option<(&Path, &Config)>,
    recorded: &RecordOutput,
) -> Result<Verdict, Error> {
    let source = Source::Evidence(Box::new(evidence.clone()));
    let retry = RetryPoint {
        name: format!(
            "{}/{}/{}",
            recorded.task_id,
            recorded.phase.as_str(),
            recorded.subagent
        ),
        retry_count: recorded.retry_count,
        max_retries: recorded.max_retries,
        decision: recorded.decision,
    };
    let judged = round::round(&round::Ask {
        source: &source,
        config: match trusted {
            Some((path, config)) => round::Config::Loaded(path, config),
            None => round::Config::Given(None),
        },
        history: round::Record::Append(history_path),
        retry: Some(&retry),
        file: evidence_path,
    })?;
    Ok(judged.verdict)
}

/// `changeset.txt`: a summary line, then one line per file.
pub(super) fn changeset_text(base: &str, changes: &Result<Vec<FileChange>, String>) -> String {
    let files = match changes {
        Ok(files) => files,
        Err(why) => return format!("changes against `{base}`: not measured: {why}\n"),
    };
    let added: u64 = files.iter().filter_map(|f| f.lines).map(|l| l.0).sum();
    let removed: u64 = files.iter().filter_map(|f| f.lines).map(|l| l.1).sum();
    let mut text = format!(
        "changes against `{base}`: {}, +{added} -{removed}\n",
        crate::output::plural(files.len(), "file")
    );
    for file in files {
        let lines = match file.lines {
            Some((a, d)) => format!("{:>7} {:>7}", format!("+{a}"), format!("-{d}")),
            None => format!("{:>15}", "binary"),
        };
        let note = if file.untracked { " (untracked)" } else { "" };
        text.push_str(&format!(
            "{lines}  {}{note}\n",
            crate::paths::to_slashes(&file.path)
        ));
    }
    text
}
