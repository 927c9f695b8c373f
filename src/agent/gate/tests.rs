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
    // Ctrl-C's answer: the evidence of what finished, exit 130. The trap
    // is set up first, long before the deadline.
    let exe = script(
        temp.path(),
        "trap 'echo interrupted; exit 130' INT\nwhile :; do sleep 0.05; done",
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
