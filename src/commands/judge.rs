//! `run-check judge`: the input read, the round judged with its
//! `--history` (`aggregate/judge/`), recorded with `--record`, printed.

use crate::aggregate::judge::{self, history::History, input::Source};
use crate::cli::{JudgeArgs, JudgeFormat};
use crate::error::Error;

/// Runs `run-check judge`; exits 0 for `PASS`, 1 for any other
/// recommendation.
pub(crate) fn judge(args: &JudgeArgs) -> Result<i32, Error> {
    let (display, bytes) = crate::bounded::read_input(&args.input, "read judge input")?;
    let value = crate::json_input::typed(&display, &bytes)?;
    let source =
        judge::input::read(value).map_err(|p| crate::json_input::from_problem(&display, p))?;
    let (thresholds, config_used) = judge::judge_config(args.config.as_deref(), &source)?;
    // Bad input changes nothing: the thresholds (a weight sum in the input)
    // are checked before `--record` creates the history file or its folder.
    if let Source::Aggregator(a) = &source {
        judge::thresholds::resolve(&thresholds, &a.tech_stack, &display)?;
    }
    let retry = match (&args.state, &args.phase, &args.subagent) {
        (Some(state), Some(phase), Some(subagent)) => {
            judge::retry_point(state, phase, subagent, &source, &display)?
        }
        _ => None,
    };
    let history = args
        .history
        .as_deref()
        .map(|path| {
            if args.record
                && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            {
                std::fs::create_dir_all(dir)
                    .map_err(|err| Error::io("create the directory of", path, err))?;
            }
            History::open(path, args.record)
        })
        .transpose()?;
    let rounds = history.as_ref().map_or(&[][..], |h| h.rounds.as_slice());
    let verdict = judge::evaluate(&judge::Round {
        source: &source,
        config: &thresholds,
        config_used: config_used.as_ref(),
        history: rounds,
        retry: retry.as_ref(),
        file: &display,
    })?;
    if let Some(history) = history
        && args.record
    {
        history.append(&verdict)?;
    }
    let text = match args.format {
        JudgeFormat::Json => run_check_documents::pretty(&verdict),
        JudgeFormat::Markdown => judge::markdown::render(&verdict),
        JudgeFormat::Text => judge::text::render(&verdict),
    };
    crate::output::Output::Stdout.write(text.as_bytes())?;
    Ok(judge::exit_code_of(&verdict))
}
