//! `run-check agent`: the gate inside coding agents (docs/agents.md).

use std::io::Write;
use std::path::Path;

use crate::cli::{AgentArgs, AgentCommand, AgentFeedbackArgs};
use crate::error::Error;
use crate::report::feedback;
use crate::{bounded, json_input};

/// The feedback's bound when neither `--max-chars` nor checks.toml gives
/// one: room for a dozen located problems, well under the 10,000
/// characters past which Claude Code shows the model a 2 KB preview.
pub(crate) const DEFAULT_MAX_CHARS: usize = 4000;

/// `run-check agent ...`.
pub(crate) fn agent(args: &AgentArgs) -> Result<i32, Error> {
    match &args.command {
        AgentCommand::Feedback(args) => feedback(args),
    }
}

/// `agent feedback [EVIDENCE] [--max-chars N]`: the feedback on stdout;
/// exit 0 for PASS evidence, 1 for any other (as `report`).
fn feedback(args: &AgentFeedbackArgs) -> Result<i32, Error> {
    let path = args.evidence.as_deref().unwrap_or(Path::new("-"));
    let (name, bytes) = bounded::read_input(path, "read evidence")?;
    let evidence = json_input::evidence(&name, &bytes)?;
    let shown = (path != Path::new("-")).then(|| path.display().to_string());
    let text = feedback::render(
        &evidence,
        &feedback::Options {
            max_chars: args.max_chars.unwrap_or(DEFAULT_MAX_CHARS),
            next: None,
            evidence_path: shown.as_deref(),
        },
    );
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|err| Error::Environment(format!("cannot write the feedback: {err}")))?;
    Ok(match evidence.summary.exit_code {
        0 => 0,
        _ => 1,
    })
}
