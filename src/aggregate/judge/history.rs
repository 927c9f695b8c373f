//! The history file of `--history`: JSON lines, one verdict per line, oldest
//! first. `--record` appends this round's verdict.
//!
//! Concurrency: with `--record` the file is opened for reading and
//! appending and locked exclusively (`File::lock`) before it is read, and
//! stays locked until this round's line is written, so concurrent judges
//! take turns: each sees every earlier line, gets the next iteration, and
//! appends one complete line with a single `write_all` (never a lost or torn
//! line). Without `--record` a shared lock is held while reading, so a
//! reader never sees half a line. A missing file is an empty history (and
//! `--record` creates it).
//!
//! Every line must be a verdict, read as the verdict document is read
//! (`run_check_documents::verdict::Verdict`: closed objects, every field
//! required): a blank line, invalid UTF-8, invalid JSON or a missing,
//! unknown or ill-typed field is an error naming the line number
//! (`h.jsonl: line 3: $.overall_score: expected a number, found string`);
//! nothing is skipped or guessed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use run_check_documents::read;

use crate::error::Error;
use crate::json_input::parse_line;

use super::verdict::{Category, DecisionKind, Issue, Scores, Verdict};

/// What the judge needs from one earlier round.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PastRound {
    /// Its iteration; `None` for a `previous_scores` entry.
    pub(crate) iteration: Option<u32>,
    /// Its overall score (null when nothing was scored).
    pub(crate) overall: Option<f64>,
    /// Its dimension scores; `None` when unknown (a `previous_scores` entry).
    pub(crate) scores: Option<Scores>,
    /// Its issues' fingerprints; `None` when unknown.
    pub(crate) fingerprints: Option<Fingerprints>,
    /// Its decision was BLOCKED with an `infrastructure` check.
    pub(crate) infrastructure_blocked: bool,
}

impl PastRound {
    /// A round known only by its overall score (the reference judge's `previous_scores`).
    pub(crate) fn score_only(overall: f64) -> PastRound {
        PastRound {
            overall: Some(overall),
            ..PastRound::default()
        }
    }
}

/// The fingerprints of one round's issues.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Fingerprints {
    /// Of its Critical issues.
    pub(crate) critical: BTreeSet<String>,
    /// Of all its issues.
    pub(crate) all: BTreeSet<String>,
    /// Each fingerprint's id (the first issue's, when several share one).
    pub(crate) ids: BTreeMap<String, String>,
}

/// An open (and locked) history file with its rounds.
#[derive(Debug)]
pub(crate) struct History {
    /// The file as the user named it.
    display: PathBuf,
    /// Open and locked; `None` when the file does not exist (read only).
    file: Option<File>,
    /// The content does not end with a newline (a hand-edited last line).
    needs_newline: bool,
    /// The recorded rounds, oldest first.
    pub(crate) rounds: Vec<PastRound>,
}

impl History {
    /// Opens and reads `path`; with `record`, creates it if missing and keeps
    /// it locked exclusively until [`History::append`] (or drop).
    pub(crate) fn open(path: &Path, record: bool) -> Result<History, Error> {
        let file = if record {
            let file = OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(path)
                .map_err(|err| Error::io("open history file", path, err))?;
            file.lock()
                .map_err(|err| Error::io("lock history file", path, err))?;
            file
        } else {
            match File::open(path) {
                Ok(file) => {
                    file.lock_shared()
                        .map_err(|err| Error::io("lock history file", path, err))?;
                    file
                }
                Err(err) if err.kind() == ErrorKind::NotFound => {
                    return Ok(History {
                        display: path.to_path_buf(),
                        file: None,
                        needs_newline: false,
                        rounds: Vec::new(),
                    });
                }
                Err(err) => return Err(Error::io("open history file", path, err)),
            }
        };
        let length = file.metadata().ok().map(|meta| meta.len());
        let bytes = crate::bounded::read_from(&file, length, crate::bounded::JSON)
            .map_err(|err| Error::io("read history file", path, err))?;
        let rounds = parse(path, &bytes)?;
        Ok(History {
            display: path.to_path_buf(),
            file: Some(file),
            needs_newline: !bytes.is_empty() && !bytes.ends_with(b"\n"),
            rounds,
        })
    }

    /// Appends `verdict` as one line (one `write_all`, then flush) and
    /// releases the lock.
    pub(crate) fn append(mut self, verdict: &Verdict) -> Result<(), Error> {
        let Some(mut file) = self.file.take() else {
            return Err(Error::Internal(
                "history file was opened without --record".into(),
            ));
        };
        let mut line = String::new();
        if self.needs_newline {
            line.push('\n');
        }
        line.push_str(
            &serde_json::to_string(verdict)
                .map_err(|err| Error::Internal(format!("cannot serialise the verdict: {err}")))?,
        );
        line.push('\n');
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|err| Error::io("append to history file", &self.display, err))?;
        file.unlock()
            .map_err(|err| Error::io("unlock history file", &self.display, err))
    }
}

/// The rounds of a history file's bytes; `display` names it in errors.
pub(crate) fn parse(display: &Path, bytes: &[u8]) -> Result<Vec<PastRound>, Error> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let error = |line: usize, message: String| Error::Input {
        path: display.to_path_buf(),
        location: None,
        key: Some(format!("line {line}")),
        message,
    };
    let mut rounds = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = std::str::from_utf8(raw).map_err(|err| {
            error(
                number,
                format!(
                    "not valid UTF-8 (invalid byte at offset {})",
                    err.valid_up_to()
                ),
            )
        })?;
        if text.trim().is_empty() {
            return Err(error(
                number,
                "empty line (each line must be one verdict)".into(),
            ));
        }
        let value = parse_line(text).map_err(|message| error(number, message))?;
        let verdict = read::from_value(value).map_err(|p| error(number, p.to_string()))?;
        rounds.push(round(verdict));
    }
    Ok(rounds)
}

/// What the judge needs of a recorded verdict.
fn round(verdict: Verdict) -> PastRound {
    let fingerprints = |issues: &[Issue]| -> BTreeSet<String> {
        issues.iter().map(|i| i.fingerprint.clone()).collect()
    };
    let decision = &verdict.decision;
    let mut ids = BTreeMap::new();
    for issue in verdict.issues.all() {
        ids.entry(issue.fingerprint.clone())
            .or_insert_with(|| issue.id.clone());
    }
    PastRound {
        iteration: Some(verdict.iteration),
        overall: verdict.overall_score,
        scores: Some(verdict.scores),
        fingerprints: Some(Fingerprints {
            critical: fingerprints(&verdict.issues.critical),
            all: verdict
                .issues
                .all()
                .map(|i| i.fingerprint.clone())
                .collect(),
            ids,
        }),
        infrastructure_blocked: decision.decision == DecisionKind::Blocked
            && decision
                .blocked
                .iter()
                .any(|b| b.category == Category::Infrastructure),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn line(overall: Value, critical: &[&str], blocked: &[&str]) -> String {
        let mut v = serde_json::to_value(crate::aggregate::judge::tests::sample_verdict()).unwrap();
        let issue = v["issues"]["critical"][0].clone();
        v["overall_score"] = overall;
        v["scores"] = json!({"security": 90, "quality": null, "performance": 70.5});
        v["issues"]["critical"] = critical
            .iter()
            .map(|f| {
                let mut i = issue.clone();
                i["fingerprint"] = json!(f);
                i
            })
            .collect();
        v["issues"]["high"] = json!([]);
        v["issues"]["medium"][0]["fingerprint"] = json!("h:f:1");
        v["decision"]["decision"] = json!(if blocked.is_empty() {
            "REWORK"
        } else {
            "BLOCKED"
        });
        v["decision"]["blocked"] = blocked
            .iter()
            .map(|c| json!({"check": "x", "category": c, "reason": "r"}))
            .collect();
        v.to_string()
    }

    fn err(bytes: &str) -> String {
        let e = parse(Path::new("h.jsonl"), bytes.as_bytes()).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        e.to_string()
    }

    #[test]
    fn rounds_are_read_in_order() {
        let text = format!(
            "{}\n{}\n{}",
            line(json!(70), &["a:b:1"], &[]),
            line(json!(null), &[], &["code", "infrastructure"]),
            line(json!(75.5), &[], &["environment"]),
        );
        let rounds = parse(Path::new("h.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(rounds.len(), 3, "a last line without a newline is a line");
        assert_eq!(rounds[0].overall, Some(70.0));
        assert_eq!(
            rounds[0].scores,
            Some(Scores {
                security: Some(90.0),
                quality: None,
                performance: Some(70.5)
            })
        );
        let fp = rounds[0].fingerprints.as_ref().unwrap();
        assert_eq!(fp.critical.iter().collect::<Vec<_>>(), ["a:b:1"]);
        assert_eq!(fp.all.len(), 2);
        assert!(!rounds[0].infrastructure_blocked);
        assert_eq!(rounds[1].overall, None);
        assert!(rounds[1].infrastructure_blocked);
        assert!(!rounds[2].infrastructure_blocked);
        assert_eq!(parse(Path::new("h"), b"").unwrap(), []);
        // CRLF line ends and a byte order mark are accepted.
        let crlf = format!(
            "\u{feff}{}\r\n{}\r\n",
            line(json!(1), &[], &[]),
            line(json!(2), &[], &[])
        );
        assert_eq!(parse(Path::new("h"), crlf.as_bytes()).unwrap().len(), 2);
    }

    #[test]
    fn a_bad_line_is_an_error_naming_its_number() {
        let good = line(json!(70), &[], &[]);
        assert_eq!(
            err(&format!("{good}\n{{\"overall_score\": 7\n")),
            "h.jsonl: line 2: invalid JSON: EOF while parsing an object (column 19)"
        );
        assert_eq!(
            err(&format!("{good}\n\n{good}\n")),
            "h.jsonl: line 2: empty line (each line must be one verdict)"
        );
        let bad = good.replace("\"overall_score\":70", "\"overall_score\":\"70\"");
        assert_ne!(bad, good);
        assert_eq!(
            err(&format!("{good}\n{good}\n{bad}\n")),
            "h.jsonl: line 3: $.overall_score: expected a number, found string"
        );
        let bad = good.replace("\"fingerprint\":\"h:f:1\"", "\"fingerprint\":1");
        assert_eq!(
            err(&bad),
            "h.jsonl: line 1: $.issues.medium[0].fingerprint: expected a string, found number 1"
        );
        let bad = good.replace(",\"low\":[]", "");
        assert_ne!(bad, good);
        assert_eq!(
            err(&bad),
            "h.jsonl: line 1: $.issues.low: missing required field"
        );
        assert_eq!(
            err("[1]\n"),
            "h.jsonl: line 1: $: expected an object, found array"
        );
        let e = parse(Path::new("h.jsonl"), b"\xff\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "h.jsonl: line 1: not valid UTF-8 (invalid byte at offset 0)"
        );
    }

    #[test]
    fn record_appends_one_line_and_reopens_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs/h.jsonl");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // A missing file is an empty history, read only or recording.
        assert_eq!(History::open(&path, false).unwrap().rounds, []);
        assert!(!path.exists(), "reading does not create it");
        let verdict = crate::aggregate::judge::tests::sample_verdict();
        let history = History::open(&path, true).unwrap();
        assert_eq!(history.rounds, []);
        history.append(&verdict).unwrap();
        let history = History::open(&path, true).unwrap();
        assert_eq!(history.rounds.len(), 1);
        history.append(&verdict).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with('\n'));
        // A hand-edited last line without a newline is not glued to.
        let first = text.lines().next().unwrap().to_string();
        std::fs::write(&path, &first).unwrap();
        History::open(&path, true)
            .unwrap()
            .append(&verdict)
            .unwrap();
        assert_eq!(History::open(&path, false).unwrap().rounds.len(), 2);
    }
}
