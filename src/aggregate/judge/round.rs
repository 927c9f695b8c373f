//! The judge round, the one way every caller judges: the `judge` command,
//! `agent hook`, `candidates` and the MCP server's `run_checks`. A source
//! (evidence or aggregator input), the history and the config give the
//! verdict and its route as values ([`route::Step`]): the roll-back
//! iteration and the problems, never read back out of the sentences.

use std::path::Path;

use super::history::History;
use super::input::Source;
use super::route::{self, RetryPoint};
use super::verdict::Verdict;
use crate::config;
use crate::error::Error;

/// The `[judge]` a round is judged with.
#[derive(Clone, Copy)]
pub(crate) enum Config<'a> {
    /// `--config PATH`; without it the config the evidence names, else the
    /// defaults ([`super::judge_config`]).
    Given(Option<&'a Path>),
    /// A config already loaded, named `path` in `config_used`.
    Loaded(&'a Path, &'a config::Config),
}

/// The history a round reads, and what becomes of it.
#[derive(Clone, Copy)]
pub(crate) enum Record<'a> {
    /// No history: the first round.
    Nothing,
    /// Read, not written.
    Read(&'a Path),
    /// Read, and the verdict appended (the file and its folders created
    /// when missing).
    Append(&'a Path),
    /// Read and held locked: the caller decides whether to append.
    Hold(&'a Path),
}

/// One round to judge.
#[derive(Clone, Copy)]
pub(crate) struct Ask<'a> {
    pub(crate) source: &'a Source,
    pub(crate) config: Config<'a>,
    pub(crate) history: Record<'a>,
    /// The retry tracker's failure point, when there is one.
    pub(crate) retry: Option<&'a RetryPoint>,
    /// Names the input in errors.
    pub(crate) file: &'a Path,
}

/// A judged round.
#[derive(Debug)]
pub(crate) struct Judged {
    pub(crate) verdict: Verdict,
    /// The route as values.
    pub(crate) step: route::Step,
    /// The history, locked, for [`Record::Hold`].
    pub(crate) history: Option<History>,
}

/// Judges one round. Bad input changes nothing: the thresholds (a weight
/// sum in aggregator input) are checked before the history file or its
/// folder is created.
pub(crate) fn round(ask: &Ask<'_>) -> Result<Judged, Error> {
    let (config, config_used) = match ask.config {
        Config::Given(path) => super::judge_config(path, ask.source)?,
        Config::Loaded(path, config) => super::used(config, path),
    };
    if let Source::Aggregator(a) = ask.source {
        super::thresholds::resolve(&config, &a.tech_stack, ask.file)?;
    }
    let history = match ask.history {
        Record::Nothing => None,
        Record::Read(path) => Some(History::open(path, false)?),
        Record::Append(path) | Record::Hold(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|err| Error::io("create the directory of", path, err))?;
            }
            Some(History::open(path, true)?)
        }
    };
    let rounds = history.as_ref().map_or(&[][..], |h| h.rounds.as_slice());
    let (verdict, step) = super::evaluate(&super::Round {
        source: ask.source,
        config: &config,
        config_used: config_used.as_ref(),
        history: rounds,
        retry: ask.retry,
        file: ask.file,
    })?;
    let history = match (ask.history, history) {
        (Record::Append(_), Some(history)) => {
            history.append(&verdict)?;
            None
        }
        (Record::Hold(_), history) => history,
        _ => None,
    };
    Ok(Judged {
        verdict,
        step,
        history,
    })
}
