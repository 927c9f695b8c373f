//! `candidates summary` (docs/candidates.md, "The root logs"): the root
//! `PROGRESS.md` and `SUMMARY.md`, written by this one writer from every
//! `DIR/<task_id>/<candidate>/` (its `run-check.json`, `verdict.json` and,
//! where the candidate wrote them, its own `PROGRESS.md` and `SUMMARY.md`),
//! so candidates never edit a root log at once.
//!
//! The generated text sits between two marker lines and is a function of
//! the files alone (tasks and candidates in name order, no clock): a second
//! run on the same files writes the same bytes. What the user wrote outside
//! the markers is kept. A candidate's own lines are untrusted text: shown
//! with control characters made visible, bounded, and never able to close
//! the generated block early (a marker inside them is defused).

use std::path::{Path, PathBuf};

use run_check_documents::candidates::Index;
use run_check_documents::evidence::Evidence;
use run_check_documents::verdict::Verdict;

use crate::cli::CandidatesSummaryArgs;
use crate::error::Error;

const BEGIN: &str = "<!-- run-check candidates summary: begin -->";
const END: &str = "<!-- run-check candidates summary: end -->";
/// What a marker in a candidate's text becomes (it stays readable).
const MARKER_WORDS: &str = "<!-- run-check candidates summary";
/// The most of one candidate log shown: its last lines.
const LOG_LINES: usize = 200;

/// One candidate's files, as read.
struct Candidate {
    id: String,
    evidence: Option<Evidence>,
    verdict: Option<Verdict>,
    progress: Option<String>,
    summary: Option<String>,
}

/// One task's folder.
struct Task {
    id: String,
    index: Option<Index>,
    candidates: Vec<Candidate>,
}

/// `candidates summary`: writes the two root files.
pub(crate) fn summary(args: &CandidatesSummaryArgs) -> Result<i32, Error> {
    let cwd = std::env::current_dir()
        .map_err(|err| Error::Environment(format!("cannot read the current directory: {err}")))?;
    let root = crate::git::ask(&cwd, &["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .map_err(|why| Error::Environment(format!("not in a git repository ({why})")))?;
    let tasks = read_runs(&args.runs)?;
    let shown_runs = args.runs.display().to_string();
    let progress = progress_text(&tasks, &shown_runs);
    let summary = summary_text(&tasks, &shown_runs);
    let mut written = Vec::new();
    for (name, text) in [("PROGRESS.md", progress), ("SUMMARY.md", summary)] {
        let path = root.join(name);
        let old = match crate::bounded::read_regular(&path, crate::bounded::LOG) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| Error::Input {
                path: path.clone(),
                location: None,
                key: None,
                message: "is not UTF-8 text".into(),
            })?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(Error::io("read", &path, err)),
        };
        let new = spliced(&old, &text).map_err(|message| Error::Input {
            path: path.clone(),
            location: None,
            key: None,
            message,
        })?;
        written.push((path, new));
    }
    // Both are decided before either is written: a bad one leaves both.
    for (path, text) in &written {
        crate::output::replace(path, text.as_bytes())?;
    }
    let names: Vec<String> = written
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    super::super::printed(format!(
        "wrote {} ({} task(s), {} candidate(s))\n",
        names.join(" and "),
        tasks.len(),
        tasks.iter().map(|t| t.candidates.len()).sum::<usize>()
    ))
}

/// `old` with the generated block replaced by `block` (appended when it
/// has none).
fn spliced(old: &str, block: &str) -> Result<String, String> {
    let generated = format!("{BEGIN}\n{block}{END}\n");
    let begin = old.lines().position(|line| line == BEGIN);
    let end = old.lines().position(|line| line == END);
    match (begin, end) {
        (None, None) if old.is_empty() => Ok(generated),
        (None, None) => {
            let sep = if old.ends_with('\n') { "\n" } else { "\n\n" };
            Ok(format!("{old}{sep}{generated}"))
        }
        (Some(b), Some(e)) if b < e => {
            let lines: Vec<&str> = old.split_inclusive('\n').collect();
            let before: String = lines[..b].concat();
            let after: String = lines[e + 1..].concat();
            Ok(format!("{before}{generated}{after}"))
        }
        _ => Err(format!(
            "its markers are broken (one of `{BEGIN}` and `{END}` is missing or they are out \
             of order): put them back or remove both"
        )),
    }
}

/// Every task folder of `runs` and its candidates, in name order.
fn read_runs(runs: &Path) -> Result<Vec<Task>, Error> {
    let mut tasks = Vec::new();
    for (id, dir) in folders(runs)? {
        let index_path = dir.join("index.json");
        let index = read_json::<Index>(&index_path)?;
        let mut candidates = Vec::new();
        for (cid, cdir) in folders(&dir)? {
            candidates.push(Candidate {
                evidence: read_json(&cdir.join("run-check.json"))?,
                verdict: read_json(&cdir.join("verdict.json"))?,
                progress: read_log(&cdir.join("PROGRESS.md"))?,
                summary: read_log(&cdir.join("SUMMARY.md"))?,
                id: cid,
            });
        }
        tasks.push(Task {
            id,
            index,
            candidates,
        });
    }
    Ok(tasks)
}

/// The sub-folders of `dir` (not links), sorted by name; none when `dir`
/// does not exist.
fn folders(dir: &Path) -> Result<Vec<(String, PathBuf)>, Error> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(Error::io("read", dir, err)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| Error::io("read", dir, err))?;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if let (true, Some(name)) = (is_dir, entry.file_name().to_str()) {
            found.push((name.to_string(), entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, Error> {
    match crate::bounded::read_regular(path, crate::bounded::JSON) {
        Ok(bytes) => crate::json_input::typed(path, &bytes).map(Some),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io("read", path, err)),
    }
}

/// A candidate's own log: its last [`LOG_LINES`] lines, made safe to show.
fn read_log(path: &Path) -> Result<Option<String>, Error> {
    let bytes = match crate::bounded::read_regular(path, crate::bounded::LOG) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // A candidate's file that cannot be shown is said so in its
        // section; it does not stop the other candidates' summary.
        Err(err) => return Ok(Some(format!("(not shown: {err})\n"))),
    };
    let text = String::from_utf8_lossy(&bytes);
    let shown = crate::sanitize::for_display(&text)
        .replace(MARKER_WORDS, "<!~~ run-check candidates summary");
    let lines: Vec<&str> = shown.lines().collect();
    let left_out = lines.len().saturating_sub(LOG_LINES);
    let mut out = String::new();
    if left_out > 0 {
        out.push_str(&format!("(… {left_out} earlier lines left out)\n"));
    }
    for line in &lines[left_out..] {
        out.push_str(line);
        out.push('\n');
    }
    Ok(Some(out))
}

/// An overall score as the logs show it: one decimal, `-` for none.
fn score(overall: Option<f64>) -> String {
    overall.map_or("-".to_string(), |s| format!("{s:.1}"))
}

/// One candidate's result in a few words.
fn result_line(candidate: &Candidate) -> String {
    let gate = match &candidate.evidence {
        Some(ev) => format!(
            "{} ({} of {} checks passed)",
            if ev.summary.all_checks_passed {
                "PASS"
            } else {
                "FAIL"
            },
            ev.summary.passed,
            ev.summary.total
        ),
        None => "no evidence".to_string(),
    };
    let judged = match &candidate.verdict {
        Some(v) => format!(
            ", score {}, next {}",
            score(v.overall_score),
            v.route.next.as_str()
        ),
        None => String::new(),
    };
    format!("{gate}{judged}")
}

fn progress_text(tasks: &[Task], runs: &str) -> String {
    let mut out = String::new();
    for task in tasks {
        out.push_str(&format!("\n## Task {}\n", task.id));
        for candidate in &task.candidates {
            out.push_str(&format!(
                "\n### {} / {}\n\n- result: {}\n- files: {runs}/{}/{}/\n",
                task.id,
                candidate.id,
                result_line(candidate),
                task.id,
                candidate.id
            ));
            if let Some(log) = &candidate.progress {
                out.push_str(&format!("\n{log}"));
            }
        }
    }
    out.push('\n');
    out
}

fn summary_text(tasks: &[Task], runs: &str) -> String {
    let mut out = String::new();
    for task in tasks {
        out.push_str(&format!("\n## Task {}\n\n", task.id));
        match &task.index {
            Some(index) => {
                out.push_str(&format!("Round {}, ranked:\n\n", index.round));
                for c in &index.candidates {
                    out.push_str(&format!(
                        "{}. {}: {}, exit {}, score {}, next {}\n",
                        c.rank,
                        c.id,
                        if c.passed { "passed" } else { "failed" },
                        c.exit_code,
                        score(c.overall_score),
                        c.route.next.as_str()
                    ));
                }
            }
            None => out.push_str(&format!("No index yet ({runs}/{}/index.json).\n", task.id)),
        }
        for candidate in task.candidates.iter().filter(|c| c.summary.is_some()) {
            out.push_str(&format!("\n### {} / {}\n\n", task.id, candidate.id));
            out.push_str(candidate.summary.as_deref().unwrap_or(""));
        }
    }
    out.push('\n');
    out
}
