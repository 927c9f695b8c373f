//! Process handling (docs/cli.md, docs/evidence.md): timeouts kill the whole tree,
//! nothing is left running, output is bounded, checks run in parallel up to
//! `--jobs`, and Ctrl-C/SIGTERM write partial evidence and exit 130.

#[cfg(unix)]
use std::time::Duration;

#[cfg(unix)]
use crate::support::wait_until;
use crate::support::{Test, assert_no_leftovers, check};

const ALLOW: &str = "[settings]\nallow = [\"sh\", \"sleep\", \"true\"]\n";

#[test]
fn a_timeout_kills_the_whole_tree() {
    // A unique duration marks this test's processes.
    let run = Test::new()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"tree\"\nrun = [\"sh\", \"-c\", \"sleep 977 & sleep 977\"]\ntimeout = \"1s\"\n"
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let tree = check(&run.json_stdout(), "tree").clone();
    assert_eq!(tree["status"], "fail");
    assert_eq!(tree["timed_out"], true);
    assert_eq!(tree["exit_code"], serde_json::Value::Null);
    // Killed at its timeout (the evidence's clock), not waited for: no
    // `sleep 977` is left.
    assert!(tree["duration_ms"].as_u64().unwrap() >= 1000);
    assert_no_leftovers("sleep 977");
}

#[test]
fn a_check_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let run = Test::new()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"stubborn\"\nrun = [\"sh\", \"-c\", \"trap '' TERM; sleep 978 & sleep 978; wait\"]\ntimeout = \"500ms\"\n"
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    assert_eq!(check(&run.json_stdout(), "stubborn")["timed_out"], true);
    assert_no_leftovers("sleep 978");
}

#[test]
fn background_leftovers_of_a_passing_check_are_killed() {
    let run = Test::new()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"leaky\"\nrun = [\"sh\", \"-c\", \"sleep 979 > /dev/null 2>&1 & echo started\"]\n"
        ))
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(
        check(&run.json_stdout(), "leaky")["stdout_excerpt"],
        "started\n"
    );
    assert_no_leftovers("sleep 979");
}

#[test]
fn a_leftover_holding_the_output_pipes_ends_with_its_check() {
    // The background `sleep` keeps stdout and stderr open after `sh` exits:
    // the check ends at `sh`'s exit (its exit code, its output) and the
    // leftover is killed then, not waited for.
    let run = Test::new()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"holder\"\nrun = [\"sh\", \"-c\", \"sleep 983 & echo started; echo oops >&2; exit 4\"]\n"
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let holder = check(&run.json_stdout(), "holder").clone();
    assert_eq!(holder["exit_code"], 4);
    assert_eq!(holder["timed_out"], false);
    assert_eq!(holder["stdout_excerpt"], "started\n");
    assert_eq!(holder["stderr_excerpt"], "oops\n");
    assert_no_leftovers("sleep 983");
}

#[test]
fn a_check_that_closes_its_output_is_still_waited_for_and_timed_out() {
    // After its pipes close, run-check waits for the exit itself: the exit
    // code of a later exit counts, and a process that never exits times out.
    let run = Test::new()
        .config(&format!(
            "{ALLOW}[[check]]\nname = \"late\"\nrun = [\"sh\", \"-c\", \"exec >/dev/null 2>&1; sleep 0.3; exit 3\"]\n\
             [[check]]\nname = \"never\"\nrun = [\"sh\", \"-c\", \"exec >/dev/null 2>&1; sleep 976\"]\ntimeout = \"500ms\"\n"
        ))
        .args(&["--format", "json"])
        .run()
        .status(1);
    let evidence = run.json_stdout();
    let late = check(&evidence, "late");
    assert_eq!(late["exit_code"], 3);
    assert_eq!(late["timed_out"], false);
    assert!(late["duration_ms"].as_u64().unwrap() >= 300, "{late}");
    let never = check(&evidence, "never");
    assert_eq!(never["timed_out"], true);
    assert_eq!(never["exit_code"], serde_json::Value::Null);
    assert_no_leftovers("sleep 976");
}

#[test]
fn excerpts_keep_head_and_tail_with_the_omitted_count() {
    // 5000 lines of "line N"; keep 64 bytes at each end.
    let run = Test::new()
        .config(
            "[settings]\nallow = [\"sh\"]\nexcerpt_bytes = 64\n\
             [[check]]\nname = \"chatty\"\nrun = [\"sh\", \"-c\", \"i=1; while [ $i -le 5000 ]; do echo line $i; i=$((i+1)); done\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .success();
    let chatty = check(&run.json_stdout(), "chatty").clone();
    let excerpt = chatty["stdout_excerpt"].as_str().unwrap();
    let total = chatty["stdout_bytes"].as_u64().unwrap();
    // Lines 1-9 take 7 bytes, 10-99 8, 100-999 9, 1000-5000 10.
    assert_eq!(total, 9 * 7 + 90 * 8 + 900 * 9 + 4001 * 10);
    assert_eq!(chatty["excerpt_truncated"], true);
    assert!(excerpt.starts_with("line 1\nline 2\n"), "{excerpt}");
    assert!(excerpt.ends_with("line 4999\nline 5000\n"), "{excerpt}");
    assert!(
        excerpt.contains(&format!("\n… [{} bytes omitted] …\n", total - 128)),
        "{excerpt}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn four_hundred_megabytes_of_output_keep_memory_flat() {
    use crate::support::wait_with_peak_rss;
    // 400 MB of 50-byte lines, then a last line to find in the excerpt.
    let test = Test::new()
        .config(
            "[settings]\nallow = [\"sh\"]\n\
             [[check]]\nname = \"flood\"\nrun = [\"sh\", \"-c\", \"yes 0123456789012345678901234567890123456789012345678 | head -c 400000000; echo LAST-LINE-MARKER\"]\ntimeout = \"5m\"\n",
        )
        .args(&["--format", "json", "--out", "ev.json"]);
    let mut child = test.command().spawn().expect("spawn");
    let (exit, peak_kib) = wait_with_peak_rss(&mut child);
    assert_eq!(exit.code(), Some(0));
    assert!(peak_kib < 40 * 1024, "peak RSS {peak_kib} KiB");
    let text = std::fs::read_to_string(test.path().join("ev.json")).unwrap();
    let ev: serde_json::Value = serde_json::from_str(&text).unwrap();
    let flood = check(&ev, "flood");
    assert_eq!(
        flood["stdout_bytes"],
        400_000_000u64 + "LAST-LINE-MARKER\n".len() as u64
    );
    assert!(
        flood["stdout_excerpt"]
            .as_str()
            .unwrap()
            .ends_with("\nLAST-LINE-MARKER\n")
    );
    assert_eq!(flood["excerpt_truncated"], true);
}

fn sleepers(n: usize) -> String {
    let mut text = ALLOW.to_string();
    for i in 0..n {
        text.push_str(&format!(
            "[[check]]\nname = \"sleep{i}\"\nrun = [\"sleep\", \"1\"]\n"
        ));
    }
    text
}

#[test]
fn four_sleeps_take_about_one_second_with_four_jobs() {
    let run = Test::new()
        .config(&sleepers(4))
        .args(&["--jobs", "4", "--format", "json"])
        .run()
        .success();
    // From the evidence's own clock, not the test's (shared, noisy
    // machines): with four jobs the four sleeps all ran at once, each
    // starting before any ended.
    let spans = spans(&run.json_stdout());
    assert_eq!(spans.len(), 4);
    let last_start = spans.iter().map(|s| s.0).max().unwrap();
    let first_end = spans.iter().map(|s| s.1).min().unwrap();
    assert!(last_start < first_end, "{spans:?}");
}

#[test]
fn four_sleeps_take_about_four_seconds_with_one_job() {
    let run = Test::new()
        .config(&sleepers(4))
        .args(&["--jobs", "1", "--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(ev["summary"]["passed"], 4);
    // One at a time: each starts once the one before has ended (the
    // evidence's milliseconds are rounded, hence the 1 ms).
    let mut spans = spans(&ev);
    spans.sort_unstable();
    for pair in spans.windows(2) {
        assert!(pair[1].0 + 1 >= pair[0].1, "{spans:?}");
    }
}

/// Each check's `(started_ms, started_ms + duration_ms)`, from the run's
/// start.
fn spans(ev: &serde_json::Value) -> Vec<(u64, u64)> {
    ev["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let start = c["started_ms"].as_u64().unwrap();
            (start, start + c["duration_ms"].as_u64().unwrap())
        })
        .collect()
}

#[cfg(unix)]
fn interrupt_with(signal: libc::c_int) {
    let marker = if signal == libc::SIGINT {
        "sleep 981"
    } else {
        "sleep 982"
    };
    let config = format!(
        "{ALLOW}[[check]]\nname = \"quick\"\nrun = [\"true\"]\n\
         [[check]]\nname = \"long\"\nrun = [\"sh\", \"-c\", \"{marker} & {marker}\"]\nneeds = [\"quick\"]\n\
         [[check]]\nname = \"later\"\nrun = [\"true\"]\nneeds = [\"long\"]\n"
    );
    let test = Test::new()
        .config(&config)
        .args(&["--format", "json", "--out", "ev.json"]);
    let mut child = test.command().spawn().expect("spawn");
    assert!(
        wait_until(Duration::from_secs(20), || crate::support::live_processes(
            marker
        )
        .len()
            >= 2),
        "the long check never started"
    );
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let ev: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(test.path().join("ev.json")).unwrap())
            .unwrap();
    assert_eq!(ev["summary"]["exit_code"], 130);
    assert_eq!(ev["summary"]["all_checks_passed"], false);
    assert_eq!(check(&ev, "quick")["status"], "pass");
    for name in ["long", "later"] {
        assert_eq!(check(&ev, name)["status"], "skip", "{name}");
        assert_eq!(check(&ev, name)["skip_reason"], "interrupted", "{name}");
    }
    assert!(
        ev["summary"]["banner"]
            .as_str()
            .unwrap()
            .starts_with("Interrupted: 1 of 3")
    );
    assert_no_leftovers(marker);
    // The judge never passes a run that did not finish: its one passing
    // check scores 100, but the interruption is a Critical issue, and the
    // decision sends the loop back to validate.
    let judged = std::process::Command::new(crate::support::bin())
        .args(["judge", "ev.json"])
        .current_dir(test.path())
        .output()
        .unwrap();
    assert_eq!(judged.status.code(), Some(1));
    let verdict: serde_json::Value = serde_json::from_slice(&judged.stdout).unwrap();
    assert_eq!(verdict["recommendation"], "ITERATE");
    // Among the Critical issues (listed in the judge's priority order).
    let critical: Vec<&serde_json::Value> = verdict["issues"]["critical"]
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| &issue["description"])
        .collect();
    assert!(
        critical.contains(&&serde_json::json!(
            "the run was interrupted: 2 of 3 checks did not run (long, later)"
        )),
        "{critical:?}"
    );
    assert_eq!(
        (
            &verdict["decision"]["decision"],
            &verdict["decision"]["next_agent"]
        ),
        (
            &serde_json::json!("BLOCKED"),
            &serde_json::json!("VALIDATE")
        )
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_partial_evidence_and_exits_130() {
    interrupt_with(libc::SIGINT);
}

#[cfg(unix)]
#[test]
fn sigterm_writes_partial_evidence_and_exits_130() {
    interrupt_with(libc::SIGTERM);
}
