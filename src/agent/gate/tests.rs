use super::*;

/// A stand-in gate: a script that ignores its arguments.
fn script(dir: &Path, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("gate.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn run(exe: &Path, deadline: Option<Duration>, cancelled: &dyn Fn() -> bool) -> Gated {
    Gate {
        exe,
        args: vec!["--worktree".into(), "w".into()],
        dir: None,
        jobs: None,
        cancelled,
        deadline,
    }
    .run()
    .unwrap()
}

#[test]
fn the_output_is_the_gate_s_stdout_and_its_exit_code_and_arguments() {
    let temp = tempfile::tempdir().unwrap();
    let exe = script(
        temp.path(),
        "echo \"$@\"; echo oops >&2; echo last >&2; exit 1",
    );
    let gated = run(&exe, None, &|| false);
    assert_eq!(gated.ended, Ended::Code(1));
    assert_eq!(gated.stopped, None);
    assert_eq!(gated.last_line(), Some("last"));
    assert_eq!(
        gated.output.unwrap(),
        b"check --worktree w --format json --quiet\n"
    );
}

#[test]
fn a_deadline_interrupts_the_gate_and_keeps_what_it_printed() {
    let temp = tempfile::tempdir().unwrap();
    // Ctrl-C's answer: the evidence of what finished, exit 130. The
    // handler is set up first, long before the deadline. Not a shell's
    // `trap`: a shell cannot trap a signal ignored when it started, as
    // SIGINT is in everything started in the background without job
    // control (`cargo test &` in a script); perl's handler is installed
    // whatever it inherited, as run-check's own is.
    let exe = script(
        temp.path(),
        "exec perl -e '$SIG{INT} = sub { print \"interrupted\\n\"; exit 130 }; sleep 1 while 1'",
    );
    let gated = run(&exe, Some(Duration::from_secs(1)), &|| false);
    assert_eq!(gated.stopped, Some(Stop::Deadline { killed: false }));
    assert_eq!(gated.ended, Ended::Code(130));
    assert_eq!(gated.output.unwrap(), b"interrupted\n");
}

#[test]
fn a_gate_that_ignores_its_deadline_is_killed_after_the_grace() {
    let temp = tempfile::tempdir().unwrap();
    let exe = script(
        temp.path(),
        "trap '' INT\necho started\nwhile :; do sleep 0.05; done",
    );
    let gated = run(&exe, Some(Duration::from_secs(1)), &|| false);
    assert_eq!(gated.stopped, Some(Stop::Deadline { killed: true }));
    assert_eq!(gated.ended, Ended::Killed("killed by signal 9".into()));
    let verdict = verdict_of(gated.ended, gated.output, String::new());
    assert!(verdict.evidence.is_none());
    assert!(
        verdict.last_line.starts_with("no verdict: "),
        "{}",
        verdict.last_line
    );
}

#[test]
fn a_cancelled_gate_is_asked_to_stop_as_on_sigterm() {
    let temp = tempfile::tempdir().unwrap();
    let ready = temp.path().join("ready");
    let exe = script(
        temp.path(),
        &format!(
            "trap 'echo terminated; exit 130' TERM\ntouch '{}'\nwhile :; do sleep 0.05; done",
            ready.display()
        ),
    );
    // Cancelled once the gate is ready to hear it.
    let gated = run(&exe, None, &|| ready.exists());
    assert_eq!(gated.stopped, Some(Stop::Cancelled));
    assert_eq!(gated.ended, Ended::Code(130));
    assert_eq!(gated.output.unwrap(), b"terminated\n");
}

#[test]
fn a_gate_stopped_by_a_signal_is_ended_and_has_no_verdict() {
    let temp = tempfile::tempdir().unwrap();
    // A gate that would answer SIGTERM with a passing "evidence", stopped
    // by its own child before it can (as a check's `kill -STOP $PPID`).
    let exe = script(
        temp.path(),
        "trap 'echo terminated; exit 0' TERM\nsh -c 'kill -STOP $PPID'\nwhile :; do sleep 0.05; done",
    );
    let gated = run(&exe, None, &|| false);
    assert_eq!(
        gated.stopped,
        Some(Stop::Suspended {
            signal: libc::SIGSTOP,
            killed: false
        })
    );
    // Resumed and asked to stop, it did: what it then printed is no
    // verdict all the same.
    assert_eq!(gated.output.as_deref().unwrap(), b"terminated\n");
    let verdict = verdict_of(gated.ended, gated.output, String::new());
    assert!(verdict.evidence.is_none());
    assert_eq!(verdict.code, run_check_documents::exit_code::ERROR);
    assert_eq!(
        verdict.last_line,
        "no verdict: the gate was stopped by SIGSTOP and left stopped, \
         then terminated by the runner before it finished"
    );
}

#[test]
fn a_gate_stopped_again_and_again_is_killed_after_the_grace() {
    let temp = tempfile::tempdir().unwrap();
    // The stopper stops once its parent is gone (it is then another
    // process's child), so that no other process is ever stopped.
    let exe = script(
        temp.path(),
        "trap '' TERM\n\
         sh -c 'while [ \"$(ps -o ppid= -p $$ | tr -d \" \")\" = \"$PPID\" ]; do \
         kill -STOP $PPID; sleep 0.02; done' &\n\
         while :; do sleep 0.05; done",
    );
    let gated = run(&exe, None, &|| false);
    assert_eq!(
        gated.stopped,
        Some(Stop::Suspended {
            signal: libc::SIGSTOP,
            killed: true
        })
    );
    assert!(
        matches!(&gated.ended, Ended::Killed(how) if how.ends_with("then killed by the runner")),
        "{:?}",
        gated.ended
    );
}
