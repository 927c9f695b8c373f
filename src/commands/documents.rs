//! The commands over documents: `judge`, `vote`, `retry` and `merge`
//! (`aggregate/`), and `schema` (`tooling/schema/`); each reads its
//! input, checks it, and prints the result.

use run_check_documents::pretty;
use run_check_documents::retry::StatusOutput;
use run_check_documents::vote::VoteInput;

use crate::aggregate::judge;
use crate::aggregate::judge::round::{self, Record};
use crate::aggregate::retry::{self, state::Point};
use crate::aggregate::{merge as shards, vote};
use crate::cli::{JudgeArgs, JudgeFormat, MergeArgs, SchemaArgs, VoteArgs};
use crate::cli::{RecordArgs, ResetArgs, RetryAction, RetryArgs, RetryFormat, StatusArgs};
use crate::error::Error;
use crate::output::Output;
use crate::report;
use crate::tooling::schema::{by_name, names};

use super::printed;

/// Runs `run-check judge`: the round judged with its `--history`, recorded
/// with `--record`; exits 0 for `PASS`, 1 for any other recommendation.
pub(crate) fn judge(args: &JudgeArgs) -> Result<i32, Error> {
    let (display, bytes) = crate::bounded::read_input(&args.input, "read judge input")?;
    let value = crate::json_input::typed(&display, &bytes)?;
    let source =
        judge::input::read(value).map_err(|p| crate::json_input::from_problem(&display, p))?;
    let retry = match (&args.state, &args.phase, &args.subagent) {
        (Some(state), Some(phase), Some(subagent)) => {
            judge::retry_point(state, phase, subagent, &source, &display)?
        }
        _ => None,
    };
    let history = match (args.history.as_deref(), args.record) {
        (None, _) => Record::Nothing,
        (Some(path), false) => Record::Read(path),
        (Some(path), true) => Record::Append(path),
    };
    let verdict = round::round(&round::Ask {
        source: &source,
        config: round::Config::Given(args.config.as_deref()),
        history,
        retry: retry.as_ref(),
        file: &display,
    })?
    .verdict;
    let text = match args.format {
        JudgeFormat::Json => pretty(&verdict),
        JudgeFormat::Markdown => judge::markdown::render(&verdict),
        JudgeFormat::Text => judge::text::render(&verdict),
    };
    printed(text)?;
    Ok(judge::exit_code_of(&verdict))
}

/// Runs `run-check vote`: reads and checks the input, aggregates it and
/// prints the result on stdout.
pub(crate) fn vote(args: &VoteArgs) -> Result<i32, Error> {
    let (name, bytes) = crate::bounded::read_input(&args.input, "read vote input")?;
    let input: VoteInput = crate::json_input::typed(&name, &bytes)?;
    input
        .check()
        .map_err(|problem| crate::json_input::from_problem(&name, problem))?;
    printed(super::document(
        args.format,
        &vote::aggregate::aggregate(&input),
    )?)
}

/// Runs `run-check retry record|status|reset`: the state file's failure
/// points, printed as JSON or text.
pub(crate) fn retry(args: &RetryArgs) -> Result<i32, Error> {
    match &args.action {
        RetryAction::Record(args) => record(args),
        RetryAction::Status(args) => status(args),
        RetryAction::Reset(args) => reset(args),
    }
}

fn record(args: &RecordArgs) -> Result<i32, Error> {
    let max_retries = retry::max_retries(args.config.as_deref())?;
    let output = retry::record(&retry::Record {
        task_id: &args.task_id,
        phase: args.phase,
        subagent: &args.subagent,
        evidence: &args.evidence,
        state: &args.state.path,
        max_retries,
        lessons: args.lessons.as_deref(),
    })?;
    let text = match args.format {
        RetryFormat::Json => pretty(&output),
        // What evidence says (its banner) is shown safely, as every human
        // report shows a document's text.
        RetryFormat::Text => {
            let line = format!("{}\n", retry::record_line(&output));
            crate::sanitize::for_display(&line).into_owned()
        }
    };
    printed(text)?;
    Ok(retry::decision_exit_code(output.decision))
}

fn status(args: &StatusArgs) -> Result<i32, Error> {
    let points = retry::status(args.task_id.as_deref(), &args.state.path)?;
    printed(match args.format {
        RetryFormat::Json => pretty(&StatusOutput { points }),
        RetryFormat::Text => {
            let points: Vec<&Point> = points.iter().collect();
            let text = retry::status_text(&points, args.task_id.as_deref(), &args.state.path);
            crate::sanitize::for_display(&text).into_owned()
        }
    })
}

fn reset(args: &ResetArgs) -> Result<i32, Error> {
    let (task_id, subagent) = (&args.task_id, args.subagent.as_deref());
    let removed = retry::reset(task_id, args.phase, subagent, &args.state.path)?;
    let mut what = format!("task `{task_id}`");
    if let Some(phase) = args.phase {
        what.push_str(&format!(", phase {}", phase.as_str()));
    }
    if let Some(subagent) = subagent {
        what.push_str(&format!(", subagent `{subagent}`"));
    }
    let removed = crate::output::plural(removed, "failure point");
    printed(format!("reset {removed} of {what}\n"))
}

/// Runs `run-check merge`: the shards' evidence, checked for one split
/// unless `--force`, merged; exits with the merged run's exit code.
pub(crate) fn merge(args: &MergeArgs, argv: Vec<String>) -> Result<i32, Error> {
    let mut docs = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        docs.push((path.clone(), crate::json_input::evidence_file(path)?));
    }
    if !args.force {
        shards::consistent(&docs)?;
    }
    let output = Output::open(args.out.as_deref())?;
    let merged = shards::merge(docs, argv)?;
    output.write(&report::render(args.format, &merged))?;
    if args.out.is_some() && !args.quiet {
        super::banner(&merged);
    }
    Ok(merged.summary.exit_code)
}

/// Runs `run-check schema NAME`: prints the schema, pretty, on stdout.
pub(crate) fn schema(args: &SchemaArgs) -> Result<i32, Error> {
    let schema = by_name(&args.name).ok_or_else(|| {
        Error::Usage(format!(
            "unknown schema `{}` (expected one of: {})",
            args.name,
            names().collect::<Vec<_>>().join(", ")
        ))
    })?;
    printed(pretty(&schema))
}
