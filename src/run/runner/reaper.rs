//! Linux: the process facts containment needs, read from /proc, and the
//! calls that act on them. run-check makes itself a child subreaper
//! (`prctl(PR_SET_CHILD_SUBREAPER)`), so a process a check started whose
//! parent dies is re-parented to run-check, not to init: whatever escaped a
//! check's process group (`setsid`, `setpgid`, a double fork, `nohup`)
//! stays below run-check and is found among its own children.
//!
//! Only run-check's direct children are ever signalled by pid: none of them
//! can be reaped by anyone but run-check, so their pids cannot be reused
//! behind its back. A killed process's children become run-check's children
//! in turn and are killed then, level by level.

use std::io::Read;

/// The longest command line kept in `leaked`, in bytes.
pub(crate) const COMMAND_BYTES: usize = 512;
/// The most of a process's environment read to find the cookie.
const ENVIRON_BYTES: u64 = 4 << 20;
/// The most descendants listed under one process.
const MAX_LISTED: usize = 10_000;

/// Makes run-check the reaper of its orphaned descendants; says whether
/// that worked (Linux 3.4 and later, unless a sandbox refuses it). Must run
/// before the first check starts: only processes started after it count.
pub(crate) fn acquire() -> bool {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok()
}

/// The children of run-check's main thread, where the kernel re-parents
/// every orphan: to the subreaper's first living thread, its main thread
/// (`find_new_reaper` in kernel/exit.c), whichever thread started the
/// check. (A check's main process is the child of the thread that started
/// it, but it is no orphan.) One `pread` per check: the file is opened
/// once per run and read from its start each time (a `seq_file`, made
/// anew by a read at offset 0), which is the whole cost of containment
/// when nothing escaped.
pub(crate) fn orphans() -> Vec<u32> {
    static FILE: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    let file = FILE.get_or_init(|| {
        std::fs::File::open(format!("/proc/self/task/{}/children", std::process::id())).ok()
    });
    match file.as_ref().map(read_from_start) {
        Some(Ok(text)) => text
            .split(|b| b.is_ascii_whitespace())
            .filter_map(|p| std::str::from_utf8(p).ok()?.parse::<u32>().ok())
            .collect(),
        // No such file (a kernel without CONFIG_PROC_CHILDREN).
        _ => children("self"),
    }
}

/// The whole of `file` read from offset 0 with `pread` (no size probe, no
/// seek): one call when it is empty.
fn read_from_start(file: &std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read_at(&mut chunk, text.len() as u64) {
            Ok(0) => return Ok(text),
            Ok(n) => text.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// Every process whose parent is `ppid`, by a scan of /proc (for kernels
/// without the `children` files).
fn children_by_scan(ppid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|text| parent_of(&text))
                == Some(ppid)
        })
        .collect()
}

/// The parent pid in a /proc/PID/stat line.
fn parent_of(text: &str) -> Option<u32> {
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// The children of process `pid` (`self` for run-check), every thread's
/// (a process started by a worker thread is that thread's child).
pub(crate) fn children(pid: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    let mut text = String::new();
    let mut read_any = false;
    for task in tasks.flatten() {
        text.clear();
        let path = task.path().join("children");
        if std::fs::File::open(path)
            .and_then(|mut file| file.read_to_string(&mut text))
            .is_err()
        {
            continue;
        }
        read_any = true;
        found.extend(
            text.split_ascii_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    if !read_any {
        let pid = match pid {
            "self" => Some(std::process::id()),
            pid => pid.parse().ok(),
        };
        if let Some(pid) = pid {
            return children_by_scan(pid);
        }
    }
    found
}

/// What /proc/PID/stat says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    /// Exited, not yet reaped.
    pub(crate) zombie: bool,
    /// When it started, in clock ticks since boot (tells a reused pid apart).
    pub(crate) start: u64,
}

/// The state and start time of `pid`; `None` when it is gone.
pub(crate) fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// Parses a /proc/PID/stat line: the fields after the command name in
/// parentheses (which may itself hold spaces and parentheses).
fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    // After the state: ppid, pgrp, session, tty_nr, tpgid, flags, minflt,
    // cminflt, majflt, cmajflt, utime, stime, cutime, cstime, priority,
    // nice, num_threads, itrealvalue, then starttime.
    let start = fields.nth(18)?.parse().ok()?;
    Some(Stat {
        zombie: state == "Z" || state == "X",
        start,
    })
}

/// The clock ticks since boot now, on the clock of `Stat::start`.
pub(crate) fn now_ticks() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    let hz = rustix::param::clock_ticks_per_second().max(1);
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(now.tv_nsec).unwrap_or(0);
    secs.saturating_mul(hz) + nanos * hz / 1_000_000_000
}

/// The command line of `pid`, arguments joined by spaces, cut at
/// `COMMAND_BYTES`; `[name]` when it has none (a zombie).
pub(crate) fn command(pid: u32) -> String {
    let mut bytes = Vec::new();
    let read = std::fs::File::open(format!("/proc/{pid}/cmdline"))
        .and_then(|file| file.take(COMMAND_BYTES as u64).read_to_end(&mut bytes));
    if read.is_err() || bytes.is_empty() {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        return format!("[{}]", join_command(comm.trim_end().as_bytes()));
    }
    join_command(&bytes)
}

/// NUL-separated arguments as one line: NULs become spaces, the trailing
/// one goes, invalid UTF-8 and control characters (a check chooses its
/// processes' arguments; reports print them) become U+FFFD; cut at a
/// character boundary.
fn join_command(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\0").unwrap_or(bytes);
    let mut text: String = String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| match c {
            '\0' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect();
    text.truncate(text.floor_char_boundary(COMMAND_BYTES));
    text
}

/// The value of the environment entry `key` of process `pid`, as it was
/// when the process started (`None`: not set, or the environment is not
/// readable: another user's process, or one made non-dumpable).
pub(crate) fn environ_value(pid: u32, key: &str) -> Option<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(format!("/proc/{pid}/environ"))
        .and_then(|file| file.take(ENVIRON_BYTES).read_to_end(&mut bytes))
        .ok()?;
    find_entry(&bytes, key)
}

/// The value of `key` in NUL-separated `KEY=VALUE` entries: the first
/// entry, the one libc's `getenv` reads.
fn find_entry(environ: &[u8], key: &str) -> Option<String> {
    environ.split(|&b| b == 0).find_map(|entry| {
        let value = entry.strip_prefix(key.as_bytes())?.strip_prefix(b"=")?;
        Some(String::from_utf8_lossy(value).into_owned())
    })
}

/// `pid` and every process below it, parents before children (at most
/// `MAX_LISTED`; a process that starts meanwhile may be missed: it is found
/// when its parent is killed and it becomes run-check's child).
pub(crate) fn tree(pid: u32) -> Vec<u32> {
    let mut found = vec![pid];
    let mut next = 0;
    while next < found.len() && found.len() < MAX_LISTED {
        found.extend(children(&found[next].to_string()));
        next += 1;
    }
    found.truncate(MAX_LISTED);
    found
}

/// Kills `pid` (SIGKILL): a child of run-check, so the pid is its.
pub(crate) fn kill(pid: u32) {
    // An unreaped child of this process: the pid names no other process.
    if let Some(pid) = pid_of(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Reaps the exited child `pid` (never any other: a running check's exit
/// status stays for its own wait); says whether it was reaped.
pub(crate) fn reap(pid: u32) -> bool {
    let Some(pid) = pid_of(pid) else {
        return false;
    };
    let reaped = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
    matches!(reaped, Ok(Some((reaped, _))) if reaped == pid)
}

fn pid_of(pid: u32) -> Option<rustix::process::Pid> {
    rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_past_odd_command_names() {
        let line = "4242 (a) b (c) d) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100\n";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                zombie: false,
                start: 987654
            })
        );
        let zombie = "7 (sh) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0\n";
        assert!(parse_stat(zombie).unwrap().zombie);
        assert_eq!(parse_stat("7 (sh) S 1"), None);
        assert_eq!(parent_of(line), Some(1));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn command_lines_are_joined_and_cut() {
        assert_eq!(join_command(b"sleep\x001000\x00"), "sleep 1000");
        assert_eq!(join_command(b"a\xffb\0"), "a\u{fffd}b");
        assert_eq!(
            join_command(b"echo\0\x1b]0;title\x07\0"),
            "echo \u{fffd}]0;title\u{fffd}"
        );
        let long = "é".repeat(COMMAND_BYTES);
        let cut = join_command(long.as_bytes());
        assert!(cut.len() <= COMMAND_BYTES && cut.len() >= COMMAND_BYTES - 1);
    }

    #[test]
    fn environment_entries_are_found_by_whole_key() {
        let environ = b"RUN_CHECK_RUN_IDX=no\0PATH=/bin\0RUN_CHECK_RUN_ID=abc-3\0";
        assert_eq!(
            find_entry(environ, "RUN_CHECK_RUN_ID").as_deref(),
            Some("abc-3")
        );
        assert_eq!(find_entry(environ, "HOME"), None);
    }

    #[test]
    fn this_process_is_seen_with_its_children() {
        let mut child = std::process::Command::new("sleep")
            .arg("974")
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(children("self").contains(&pid));
        assert!(children_by_scan(std::process::id()).contains(&pid));
        assert!(orphans().iter().all(|&p| p != 0));
        let me = stat(std::process::id()).unwrap();
        assert!(!me.zombie);
        assert!(me.start <= now_ticks());
        // Until it has exec'd, the child runs this test's program.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while command(pid) != "sleep 974" && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(command(pid), "sleep 974");
        assert!(tree(std::process::id()).contains(&pid));
        assert!(!reap(pid));
        kill(pid);
        child.wait().unwrap();
        assert_eq!(stat(pid), None);
    }
}
