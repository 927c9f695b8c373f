//! Escaped processes (docs/read-only.md, docs/evidence.md): a check's processes that left its process
//! group (`setsid`, `setpgid`, a double fork, `nohup setsid`), ignore
//! SIGTERM, hold its output pipes or scrub their environment are killed
//! when it ends, listed in `checks[].leaked`, and gone afterwards;
//! `leave_running` keeps them; SIGQUIT and SIGHUP end a run like SIGTERM.
//! Each test marks its processes with a `sleep` duration unique to the test
//! and to this test process (other worktrees run the suite at the same
//! time).

#![cfg(target_os = "linux")]

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Test, check, git, live_processes, wait_until};

/// Starts a process that escapes in the way `argv[1]` names and runs
/// `sleep MARK` (`argv[2]`), prints its pid, waits until it runs `sleep`,
/// then exits 0 (`stay`: sleeps instead, to be timed out or interrupted).
const ESCAPE_PY: &str = r#"import os, shutil, signal, sys, time
mode, mark = sys.argv[1], sys.argv[2]
stay = len(sys.argv) > 3
sleep = shutil.which("sleep")

def runs_sleep(pid):
    for _ in range(3000):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if f.read() == b"sleep\0" + mark.encode() + b"\0":
                    return
        except OSError:
            pass
        time.sleep(0.01)
    sys.exit("never started")

def quiet():
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        os.dup2(null, fd)

r, w = os.pipe()
first = os.fork()
if first == 0:
    os.close(r)
    if mode == "setpgid":
        os.setpgid(0, 0)
    elif mode == "setsid":
        os.setsid()
    elif mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.setsid()
    elif mode == "daemon":
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
    if mode != "holder":
        quiet()
    else:
        os.setsid()
    os.write(w, b"%d\n" % os.getpid())
    if mode == "scrubbed":
        os.setsid()
        os.execve(sleep, ["sleep", mark], {})
    if mode == "nohup":
        os.execvp("nohup", ["nohup", "setsid", "sleep", mark])
    os.execv(sleep, ["sleep", mark])
os.close(w)
if mode == "daemon":
    os.waitpid(first, 0)
pid = int(os.read(r, 64).decode().split()[0])
runs_sleep(pid)
print(pid, flush=True)
if stay:
    time.sleep(1000)
print("END %.3f" % time.clock_gettime(time.CLOCK_MONOTONIC), flush=True)
"#;

/// `sleep` durations unique to a test (`tag`) and to this test process.
fn mark(tag: u32) -> String {
    format!("{}.{}", 1100 + tag, std::process::id())
}

/// A worktree whose checks.toml is `checks` (after a whitelist of sh,
/// python3 and sleep) and that holds escape.py.
fn test(checks: &str) -> Test {
    Test::new()
        .config(&format!(
            "[settings]\nallow = [\"sh\", \"python3\", \"sleep\"]\n{checks}"
        ))
        .file("escape.py", ESCAPE_PY)
}

/// A check running escape.py in `mode`.
fn escape_check(name: &str, mode: &str, mark: &str, extra: &str) -> String {
    format!(
        "[[check]]\nname = \"{name}\"\nrun = [\"python3\", \"escape.py\", \"{mode}\", \"{mark}\"]\n{extra}"
    )
}

/// The pid escape.py printed (its first stdout line).
#[track_caller]
fn printed_pid(check: &Value) -> u64 {
    let out = check["stdout_excerpt"].as_str().unwrap();
    out.lines()
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or_else(|| panic!("no pid printed: {check}"))
}

/// Asserts that no live process runs `sleep MARK` (zombies aside), and
/// none within 2 s of the call: run-check reaps what it kills before it
/// exits, so this holds at once.
#[track_caller]
fn assert_gone(mark: &str) {
    let marker = format!("sleep {mark}");
    wait_until(Duration::from_secs(2), || {
        live_processes(&marker).is_empty()
    });
    let left = live_processes(&marker);
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// One escape: the check passes, its escaped process is listed (pid and
/// command) and gone.
fn escapes_and_is_killed(tag: u32, mode: &str, command: &str) {
    let mark = mark(tag);
    let run = test(&escape_check("escaper", mode, &mark, ""))
        .args(&["--format", "json"])
        .run()
        .success();
    let escaper = check(&run.json_stdout(), "escaper").clone();
    assert_eq!(escaper["status"], "pass");
    let pid = printed_pid(&escaper);
    assert_eq!(
        escaper["leaked"],
        json!([{"pid": pid, "command": command.replace("MARK", &mark)}]),
        "{escaper}"
    );
    assert_gone(&mark);
}

#[test]
fn a_setsid_process_is_killed_and_listed() {
    escapes_and_is_killed(1, "setsid", "sleep MARK");
}

#[test]
fn a_setpgid_process_is_killed_and_listed() {
    escapes_and_is_killed(2, "setpgid", "sleep MARK");
}

#[test]
fn a_double_fork_daemon_is_killed_and_listed() {
    escapes_and_is_killed(3, "daemon", "sleep MARK");
}

#[test]
fn nohup_setsid_is_killed_and_listed() {
    escapes_and_is_killed(4, "nohup", "sleep MARK");
}

#[test]
fn a_process_with_a_scrubbed_environment_is_killed_and_listed() {
    // No cookie to read: one check at a time, its start time says whose.
    escapes_and_is_killed(5, "scrubbed", "sleep MARK");
}

#[test]
fn a_shell_setsid_in_the_background_is_killed_and_listed() {
    let mark = mark(6);
    let run = test(&format!(
        "[[check]]\nname = \"bg\"\nrun = [\"sh\", \"-c\", \"setsid sleep {mark} & sleep 0.5; echo done\"]\n"
    ))
    .args(&["--format", "json"])
    .run()
    .success();
    let bg = check(&run.json_stdout(), "bg").clone();
    let leaked = bg["leaked"].as_array().unwrap();
    assert_eq!(leaked.len(), 1, "{bg}");
    assert_eq!(leaked[0]["command"], format!("sleep {mark}"));
    assert!(leaked[0]["pid"].as_u64().unwrap() > 1);
    assert_gone(&mark);
}

#[test]
fn a_process_ignoring_sigterm_is_killed_at_the_timeout() {
    let mark = mark(7);
    let run = test(&format!(
        "[[check]]\nname = \"stubborn\"\nrun = [\"python3\", \"escape.py\", \"stubborn\", \"{mark}\", \"stay\"]\ntimeout = \"4s\"\n"
    ))
    .args(&["--format", "json"])
    .run()
    .status(1);
    let stubborn = check(&run.json_stdout(), "stubborn").clone();
    assert_eq!(stubborn["status"], "fail");
    assert_eq!(stubborn["timed_out"], true);
    let pid = printed_pid(&stubborn);
    assert_eq!(
        stubborn["leaked"],
        json!([{"pid": pid, "command": format!("sleep {mark}")}]),
        "{stubborn}"
    );
    assert_gone(&mark);
}

/// CLOCK_MONOTONIC in seconds (Python's `time.CLOCK_MONOTONIC`).
fn monotonic() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a live timespec for the result.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as f64 + now.tv_nsec as f64 / 1e9
}

#[test]
fn a_process_holding_the_output_pipes_is_killed_without_waiting_for_it() {
    // The escaped process keeps stdout and stderr open: the check still
    // ends at its main process's exit (its output, its exit code), and the
    // run is over well before the 2 s that run-check would wait for a pipe.
    let mark = mark(8);
    let run = test(&escape_check("holder", "holder", &mark, ""))
        .args(&["--format", "json"])
        .run()
        .success();
    let ended = monotonic();
    let holder = check(&run.json_stdout(), "holder").clone();
    let out = holder["stdout_excerpt"].as_str().unwrap();
    let end: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("END "))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no END line: {holder}"));
    assert!(
        ended - end < 1.8,
        "run-check took {:.3}s after the check",
        ended - end
    );
    let pid = printed_pid(&holder);
    assert_eq!(
        holder["leaked"],
        json!([{"pid": pid, "command": format!("sleep {mark}")}])
    );
    assert_gone(&mark);
}

#[test]
fn an_escaped_writer_never_gets_to_change_a_tracked_file() {
    // The escaped shell would append to a tracked file 2 s after its
    // check ended; killed at the end, it never does.
    let late = format!("2.{}", std::process::id());
    let test = test(&format!(
        "[[check]]\nname = \"sleeper\"\nrun = [\"sh\", \"-c\", \"setsid sh -c 'sleep {late}; echo pwned >> tracked.txt' & sleep 0.5\"]\n"
    ))
    .file("tracked.txt", "original\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-qm", "tracked"]);
    let run = test.args(&["--format", "json"]).run().success();
    let sleeper = check(&run.json_stdout(), "sleeper").clone();
    let commands: Vec<&str> = sleeper["leaked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"].as_str().unwrap())
        .collect();
    assert!(
        commands.contains(&format!("sh -c sleep {late}; echo pwned >> tracked.txt").as_str()),
        "{commands:?}"
    );
    assert!(
        commands.contains(&format!("sleep {late}").as_str()),
        "{commands:?}"
    );
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        std::fs::read_to_string(run.test.path().join("tracked.txt")).unwrap(),
        "original\n"
    );
    assert_gone(&late);
}

#[test]
fn leave_running_keeps_the_process_and_still_lists_it() {
    let mark = mark(9);
    let run = test(&escape_check(
        "daemon",
        "daemon",
        &mark,
        "leave_running = true\n",
    ))
    .args(&["--format", "json"])
    .run()
    .success();
    let daemon = check(&run.json_stdout(), "daemon").clone();
    let pid = printed_pid(&daemon);
    assert_eq!(
        daemon["leaked"],
        json!([{"pid": pid, "command": format!("sleep {mark}")}])
    );
    // It outlived run-check; the test ends it itself.
    let alive = live_processes(&format!("sleep {mark}"));
    assert_eq!(alive.len(), 1, "{alive:?}");
    // SAFETY: kill has no memory-safety preconditions; the pid runs our
    // marked `sleep`, checked just above.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    assert_gone(&mark);
}

#[test]
fn leave_running_does_not_cover_another_checks_processes() {
    // The kept check's cookie does not protect what the next check starts.
    let (kept, other) = (mark(10), mark(11));
    let run = test(&format!(
        "{}{}",
        escape_check("kept", "daemon", &kept, "leave_running = true\n"),
        escape_check("other", "daemon", &other, "needs = [\"kept\"]\n"),
    ))
    .args(&["--format", "json"])
    .run()
    .success();
    let evidence = run.json_stdout();
    let kept_pid = printed_pid(check(&evidence, "kept"));
    assert_eq!(
        check(&evidence, "other")["leaked"][0]["command"],
        format!("sleep {other}")
    );
    assert_gone(&other);
    assert_eq!(live_processes(&format!("sleep {kept}")).len(), 1);
    // SAFETY: as above: our marked, still running `sleep`.
    unsafe { libc::kill(kept_pid as libc::pid_t, libc::SIGKILL) };
    assert_gone(&kept);
}

#[test]
fn parallel_checks_each_get_their_own_leftovers() {
    let marks: Vec<String> = (12..16).map(mark).collect();
    let modes = ["setsid", "setpgid", "daemon", "nohup"];
    let checks: String = modes
        .iter()
        .zip(&marks)
        .map(|(mode, mark)| escape_check(mode, mode, mark, ""))
        .collect();
    let run = test(&checks)
        .args(&["--format", "json", "--jobs", "4"])
        .run()
        .success();
    let evidence = run.json_stdout();
    for (mode, mark) in modes.iter().zip(&marks) {
        let entry = check(&evidence, mode);
        let pid = printed_pid(entry);
        assert_eq!(
            entry["leaked"],
            json!([{"pid": pid, "command": format!("sleep {mark}")}]),
            "{mode}"
        );
        assert_gone(mark);
    }
}

#[test]
fn checks_that_leave_nothing_list_nothing() {
    let run = test("[[check]]\nname = \"clean\"\nrun = [\"sh\", \"-c\", \"sleep 0.1 & wait\"]\n")
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(check(&run.json_stdout(), "clean")["leaked"], json!([]));
}

/// A long check with an escaped process; run-check gets `signal` once the
/// escape runs: exit 130, evidence written, nothing left. `hung_up`: its
/// stderr is gone by then (a closed terminal), which changes nothing.
fn stopped_by(signal: libc::c_int, tag: u32, hung_up: bool) {
    let mark = mark(tag);
    let test = test(&format!(
        "[[check]]\nname = \"quick\"\nrun = [\"sh\", \"-c\", \"exit 0\"]\n\
         [[check]]\nname = \"long\"\nrun = [\"python3\", \"escape.py\", \"setsid\", \"{mark}\", \"stay\"]\nneeds = [\"quick\"]\n\
         [[check]]\nname = \"later\"\nrun = [\"sh\", \"-c\", \"exit 0\"]\nneeds = [\"long\"]\n"
    ))
    .args(&["--format", "json", "--out", "ev.json"]);
    let mut child = test.command().spawn().expect("spawn");
    let marker = format!("sleep {mark}");
    assert!(
        wait_until(Duration::from_secs(30), || !live_processes(&marker)
            .is_empty()),
        "the escape never started"
    );
    if hung_up {
        drop(child.stderr.take());
    }
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let evidence: Value =
        serde_json::from_str(&std::fs::read_to_string(test.path().join("ev.json")).unwrap())
            .unwrap();
    assert_eq!(evidence["summary"]["exit_code"], 130);
    assert_eq!(check(&evidence, "quick")["status"], "pass");
    let long = check(&evidence, "long");
    assert_eq!(long["skip_reason"], "interrupted");
    assert_eq!(long["leaked"][0]["command"], marker, "{long}");
    assert_eq!(check(&evidence, "later")["skip_reason"], "interrupted");
    assert_gone(&mark);
    let escape = format!("escape.py setsid {mark}");
    assert!(live_processes(&escape).is_empty());
}

#[test]
fn sigquit_is_handled_like_sigterm() {
    stopped_by(libc::SIGQUIT, 16, false);
}

#[test]
fn sighup_is_handled_like_sigterm() {
    stopped_by(libc::SIGHUP, 17, false);
}

#[test]
fn sighup_after_the_terminal_closed_still_writes_the_evidence() {
    stopped_by(libc::SIGHUP, 18, true);
}

#[test]
fn leave_running_is_a_key_of_process_checks_only() {
    let run = Test::new()
        .config(
            "[[check]]\nname = \"scan\"\nscan = { rules = [\"secrets\"] }\nleave_running = true\n",
        )
        .args(&["validate"])
        .run()
        .status(2);
    assert!(run.stderr.contains("leave_running"), "{}", run.stderr);
    let run = Test::new()
        .config("[settings]\nallow = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"true\"]\nleave_running = \"yes\"\n")
        .args(&["validate"])
        .run()
        .status(2);
    assert!(run.stderr.contains("leave_running"), "{}", run.stderr);
}
