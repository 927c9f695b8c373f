//! `run-check report`: an evidence file rendered in a report format, from
//! the document alone (no worktree, config or git), through the function
//! the check run renders with, so the report is the one that run printed
//! with that `--format`, its times those the evidence records.

use crate::bounded;
use crate::cli::ReportArgs;
use crate::error::Error;
use crate::json_input;
use crate::output::Output;
use run_check_documents::evidence::Evidence;
use run_check_documents::exit_code;

/// `run-check report`: exit 0 when the evidence passed, 1 when it did not,
/// 2 when it cannot be read (then nothing is written).
pub(crate) fn report(args: &ReportArgs) -> Result<i32, Error> {
    let (name, bytes) = bounded::read_input(&args.evidence, "read evidence")?;
    let evidence = json_input::evidence(&name, &bytes)?;
    let output = Output::open(args.out.as_deref())?;
    let delivery = super::Delivery {
        all_diagnostics: args.all_diagnostics,
        quiet: args.quiet,
    };
    super::deliver(output, args.format, &evidence, delivery)?;
    Ok(outcome(&evidence))
}

/// 0 for PASS evidence, 1 for any other (FAIL, ERROR, interrupted): the
/// report was rendered and the run it records did not pass. 2 stays what
/// it is for every command, input that cannot be used.
pub(super) fn outcome(evidence: &Evidence) -> i32 {
    match evidence.summary.exit_code {
        exit_code::PASS => exit_code::PASS,
        _ => exit_code::FAIL,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use clap::ValueEnum;

    use super::*;
    use crate::report::{self, Format};

    /// The sample evidence with what a hostile check prints (escape
    /// sequences, C1 and C0 controls, a CR, workflow commands) in its
    /// output, a diagnostic and a file name, and a score of 17 digits.
    fn hostile() -> Evidence {
        let mut evidence = report::sample_evidence();
        let noise = "a\u{1b}]0;title\u{7}b \u{1b}[2Jc\u{9b}31m \u{0}d\re\n::add-mask::x\n  ::error::f\nh ##[error]i\n\u{1b}Punterminated";
        let failing = evidence
            .checks
            .iter_mut()
            .find(|c| c.status.is_failure())
            .expect("a failing check");
        failing.stdout_excerpt = noise.into();
        failing.stderr_excerpt = format!("{noise}\n");
        failing.score = Some(94.677_225_431_448_95);
        let diagnostic = evidence.diagnostics.first_mut().expect("a diagnostic");
        diagnostic.message = noise.into();
        diagnostic.file = Some("src/\u{1b}[31ma.c".into());
        evidence
    }

    /// What `report` renders from the evidence file a run wrote equals what
    /// that run rendered from its evidence in memory, in every format: the
    /// file is the run's `json` report, read by the one evidence reader.
    #[test]
    fn every_format_of_the_written_evidence_is_the_runs_report() {
        for evidence in [
            hostile(),
            report::sample_evidence(),
            report::sample_passing(),
        ] {
            let written = report::render(Format::Json, &evidence);
            let read = json_input::evidence(Path::new("ev.json"), &written).expect("evidence");
            for &format in Format::value_variants() {
                let run = String::from_utf8(report::render(format, &evidence)).unwrap();
                let again = String::from_utf8(report::render(format, &read)).unwrap();
                assert_eq!(again, run, "{format:?}");
            }
        }
    }

    #[test]
    fn only_pass_evidence_exits_0() {
        let mut evidence = report::sample_passing();
        assert_eq!(outcome(&evidence), 0);
        for code in [1, 2, 130] {
            evidence.summary.exit_code = code;
            assert_eq!(outcome(&evidence), 1, "{code}");
        }
    }
}
