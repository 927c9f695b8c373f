//! Linux: starts a check's process with `clone(CLONE_VM | CLONE_VFORK |
//! CLONE_PIDFD)` on a stack this thread keeps from spawn to spawn, then
//! `execve`, the way glibc's `posix_spawn` does but without two of its
//! costs. glibc maps a fresh stack for every child and unmaps it after, and
//! that unmap must interrupt the other CPU the child ran on (a TLB
//! shootdown, slow in a VM); and its child asks and resets the handler of
//! each of the 64 signals, 121 system calls per spawn. Here the child resets
//! only the signals run-check handles (found once), and the kernel hands
//! over a pidfd that says when the child exits, with no extra call. For 200
//! trivial checks that is 10% of the wall time on a 2-core VM (bench A).
//!
//! The child shares run-check's memory until it execs, with every signal
//! blocked, so it runs nothing but async-signal-safe libc calls on data the
//! parent prepared; a failed step leaves its errno in that shared data and
//! exits 127, and the parent reports it as `std` does.
//!
//! `spawn` returns `None` where this path is unavailable (a kernel without
//! pidfds, before 5.3, or a sandbox that refuses the clone): the caller then
//! uses the standard library.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::contain::COOKIE;
use super::platform;

/// The child's stack: its frames are a few hundred bytes of libc calls.
const STACK_BYTES: usize = 64 * 1024;

/// Set when the kernel refused the clone: every later spawn uses `std`.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// A started child: its pid, its pidfd, and its status once reaped.
#[derive(Debug)]
pub(crate) struct Child {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    status: std::sync::Mutex<Option<ExitStatus>>,
}

impl Child {
    /// The process id.
    pub(crate) fn id(&self) -> u32 {
        self.pid as u32
    }

    /// A descriptor that becomes readable when the child has exited.
    pub(crate) fn exit_fd(&self) -> BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.pidfd.as_fd()
    }

    fn status(&self) -> Option<ExitStatus> {
        *self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reaps the child if it has exited.
    pub(crate) fn try_wait(&self) -> io::Result<Option<ExitStatus>> {
        self.reap(libc::WNOHANG)
    }

    /// Waits for the child to exit and reaps it.
    pub(crate) fn wait(&self) -> io::Result<ExitStatus> {
        loop {
            match self.reap(0) {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
    }

    fn reap(&self, flags: c_int) -> io::Result<Option<ExitStatus>> {
        let mut guard = self.status.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(status) = *guard {
            return Ok(Some(status));
        }
        let mut raw: c_int = 0;
        // SAFETY: `raw` is a live c_int for the status; `pid` is our unreaped
        // child (a reaped one is answered from `status` above).
        let pid = unsafe { libc::waitpid(self.pid, &mut raw, flags) };
        match pid {
            -1 => Err(io::Error::last_os_error()),
            0 => Ok(None),
            _ => {
                let status = ExitStatus::from_raw(raw);
                *guard = Some(status);
                Ok(Some(status))
            }
        }
    }

    /// Waits until the child exits or `deadline` passes (or a signal
    /// interrupts the wait); reaps it if it exited.
    pub(crate) fn wait_until(&self, deadline: Instant) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status() {
            return Ok(Some(status));
        }
        if platform::wait_fd(self.exit_fd(), deadline) {
            self.try_wait()
        } else {
            Ok(None)
        }
    }

    /// Kills the child (SIGKILL) unless it was reaped already.
    pub(crate) fn kill(&self) -> io::Result<()> {
        let guard = self.status.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_some() {
            return Ok(());
        }
        // SAFETY: kill has no memory-safety preconditions; the pid is our
        // unreaped child, so it names no other process.
        match unsafe { libc::kill(self.pid, libc::SIGKILL) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

/// What the child reads (prepared by the parent) and writes back when a
/// step fails. The parent waits (CLONE_VFORK) until the child has exec'd or
/// exited, so this lives on the parent's stack for the whole child's use.
#[repr(C)]
struct Shared {
    program: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    cwd: *const c_char,
    /// Descriptors for the child's 0, 1 and 2 (all above 2).
    stdio: [c_int; 3],
    /// Signals to set to SIG_DFL before unblocking.
    defaults: *const c_int,
    defaults_len: usize,
    /// Set when a step failed, with its errno.
    failed: bool,
    errno: c_int,
}

/// The child: runs on its own stack in the parent's memory, every signal
/// blocked, until `execve` replaces it. Async-signal-safe libc calls only.
extern "C" fn child_main(arg: *mut c_void) -> c_int {
    let shared = arg.cast::<Shared>();
    // SAFETY: `arg` is the parent's `Shared`, alive and not touched by the
    // parent until this child execs or exits (CLONE_VFORK). Every pointer in
    // it points at data the parent keeps alive for as long; every call below
    // is async-signal-safe and allocates nothing.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        for i in 0..(*shared).defaults_len {
            libc::sigaction(*(*shared).defaults.add(i), &default, std::ptr::null_mut());
        }
        if libc::setpgid(0, 0) != 0 {
            fail(shared);
        }
        // The sources are above 2, so each dup2 makes a new descriptor
        // without FD_CLOEXEC and clobbers no later source.
        for target in 0..3 {
            if libc::dup2((*shared).stdio[target], target as c_int) < 0 {
                fail(shared);
            }
        }
        if libc::chdir((*shared).cwd) != 0 {
            fail(shared);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::execve((*shared).program, (*shared).argv, (*shared).envp);
        fail(shared)
    }
}

/// Records the failed step's errno for the parent and exits.
///
/// # Safety
/// `shared` is the parent's live `Shared` (child side only).
unsafe fn fail(shared: *mut Shared) -> ! {
    // SAFETY: as the caller promises; errno is this thread's.
    unsafe {
        (*shared).errno = *libc::__errno_location();
        (*shared).failed = true;
        libc::_exit(127)
    }
}

/// The stack the children of this thread run on until they exec, with an
/// inaccessible page below it.
struct Stack {
    base: *mut c_void,
    len: usize,
}

impl Stack {
    fn new() -> io::Result<Stack> {
        // SAFETY: sysconf has no memory-safety preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .unwrap_or(4096)
            .max(4096);
        let len = STACK_BYTES + page;
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choosing; no existing memory is affected.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Stack { base, len };
        // SAFETY: the first page of the mapping just made.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The stack's top (it grows down), 16-byte aligned.
    fn top(&self) -> *mut c_void {
        // SAFETY: one past the end of the mapping, which is page-aligned.
        unsafe { self.base.cast::<u8>().add(self.len).cast() }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.base, self.len);
        }
    }
}

thread_local! {
    static STACK: RefCell<Option<Stack>> = const { RefCell::new(None) };
}

/// Facts found once per run-check process.
struct Process {
    /// `/dev/null`, the children's stdin.
    null: OwnedFd,
    /// The signals a child resets to SIG_DFL: those with a handler here
    /// (run-check installs its own before any check runs), and SIGPIPE,
    /// which Rust's runtime ignores and the standard library resets too.
    defaults: Vec<c_int>,
    /// The environment, `KEY=VALUE`, with each key's length, as it was at
    /// the first spawn (run-check never changes its own environment; a
    /// library caller that does would not see the change in its checks).
    env: Vec<(usize, CString)>,
}

fn process() -> Option<&'static Process> {
    static PROCESS: OnceLock<Option<Process>> = OnceLock::new();
    PROCESS
        .get_or_init(|| {
            // pidfd_open (5.3) implies CLONE_PIDFD (5.2).
            platform::pidfd_open(rustix::process::getpid().as_raw_pid()).ok()?;
            let null = std::fs::File::open("/dev/null").ok()?;
            let null = OwnedFd::from(null);
            if null.as_raw_fd() <= 2 {
                return None;
            }
            Some(Process {
                null,
                defaults: handled_signals(),
                env: std::env::vars_os()
                    .filter_map(|(key, value)| {
                        let mut entry = key.as_bytes().to_vec();
                        entry.push(b'=');
                        entry.extend_from_slice(value.as_bytes());
                        Some((key.len(), CString::new(entry).ok()?))
                    })
                    .collect(),
            })
        })
        .as_ref()
}

/// The signals with a handler in this process, and SIGPIPE.
fn handled_signals() -> Vec<c_int> {
    let mut signals = vec![libc::SIGPIPE];
    for signal in 1..=libc::SIGRTMAX() {
        // SAFETY: zeroed is a valid sigaction to be filled in.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a query (null new action) into a live sigaction; signals
        // glibc reserves answer EINVAL and are skipped.
        let queried = unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) };
        if queried == 0
            && old.sa_sigaction != libc::SIG_DFL
            && old.sa_sigaction != libc::SIG_IGN
            && signal != libc::SIGPIPE
        {
            signals.push(signal);
        }
    }
    signals
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        )
    })
}

/// What the child reads, as C strings: the program, the arguments, the
/// working directory, and the environment entries set over run-check's own
/// (`env` without any `COOKIE` or name of `remove`, then `cookie`).
fn c_strings(
    program: &Path,
    args: &[String],
    cwd: &Path,
    (env, remove): (&BTreeMap<String, String>, &[String]),
    cookie: Option<&str>,
) -> io::Result<(CString, Vec<CString>, CString, Vec<CString>)> {
    let program = c_string(program.as_os_str().as_bytes())?;
    let args = args
        .iter()
        .map(|arg| c_string(arg.as_bytes()))
        .collect::<io::Result<Vec<_>>>()?;
    let cwd = c_string(cwd.as_os_str().as_bytes())?;
    let mut extra = env
        .iter()
        .filter(|(key, _)| key.as_str() != COOKIE && !remove.contains(key))
        .map(|(key, value)| c_string(format!("{key}={value}").as_bytes()))
        .collect::<io::Result<Vec<_>>>()?;
    if let Some(cookie) = cookie {
        extra.push(c_string(format!("{COOKIE}={cookie}").as_bytes())?);
    }
    Ok((program, args, cwd, extra))
}

/// Starts `program` with `args` in `cwd`, with `env`'s first part over
/// run-check's own environment, none of its second part (inherited or
/// set), and `cookie` (the containment's `COOKIE`) over both, stdin
/// from /dev/null, stdout and stderr to the given descriptors, as the leader
/// of a new process group. `None`: this path is unavailable here; use the
/// standard library.
pub(crate) fn spawn(
    program: &Path,
    args: &[String],
    cwd: &Path,
    (env, remove): (&BTreeMap<String, String>, &[String]),
    cookie: Option<&str>,
    stdout: BorrowedFd<'_>,
    stderr: BorrowedFd<'_>,
) -> Option<io::Result<Child>> {
    if REFUSED.load(Ordering::Relaxed) {
        return None;
    }
    let process = process()?;
    if stdout.as_raw_fd() <= 2 || stderr.as_raw_fd() <= 2 {
        return None;
    }
    let prepared = c_strings(program, args, cwd, (env, remove), cookie);
    let (program, args, cwd, extra) = match prepared {
        Ok(prepared) => prepared,
        Err(err) => return Some(Err(err)),
    };
    let mut argv: Vec<*const c_char> = Vec::with_capacity(args.len() + 2);
    argv.push(program.as_ptr());
    argv.extend(args.iter().map(|arg| arg.as_ptr()));
    argv.push(std::ptr::null());
    let mut envp: Vec<*const c_char> = Vec::with_capacity(process.env.len() + extra.len() + 1);
    envp.extend(
        process
            .env
            .iter()
            .filter(|(key_len, entry)| {
                let key = std::str::from_utf8(&entry.as_bytes()[..*key_len]);
                !key.is_ok_and(|key| {
                    key == COOKIE || env.contains_key(key) || remove.iter().any(|r| r == key)
                })
            })
            .map(|(_, entry)| entry.as_ptr()),
    );
    envp.extend(extra.iter().map(|entry| entry.as_ptr()));
    envp.push(std::ptr::null());

    let mut shared = Shared {
        program: program.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        cwd: cwd.as_ptr(),
        stdio: [
            process.null.as_raw_fd(),
            stdout.as_raw_fd(),
            stderr.as_raw_fd(),
        ],
        defaults: process.defaults.as_ptr(),
        defaults_len: process.defaults.len(),
        failed: false,
        errno: 0,
    };
    let cloned = STACK.with(|stack| {
        let mut stack = stack.borrow_mut();
        if stack.is_none() {
            *stack = Some(Stack::new()?);
        }
        let top = stack.as_ref().map_or(std::ptr::null_mut(), Stack::top);
        clone(top, &mut shared)
    });
    let (pid, pidfd) = match cloned {
        Ok(cloned) => cloned,
        Err(err) => match err.raw_os_error() {
            // A kernel or sandbox that refuses these flags: use std from now on.
            Some(libc::EINVAL | libc::ENOSYS | libc::EPERM) => {
                REFUSED.store(true, Ordering::Relaxed);
                return None;
            }
            _ => return Some(Err(err)),
        },
    };
    let child = Child {
        pid,
        pidfd,
        status: std::sync::Mutex::new(None),
    };
    // SAFETY: the child has exec'd or exited (CLONE_VFORK), so nothing
    // writes `shared` any more; volatile: the write came from "elsewhere".
    let failed = unsafe { std::ptr::read_volatile(&shared.failed) };
    if failed {
        let errno = shared.errno;
        let _ = child.wait();
        return Some(Err(io::Error::from_raw_os_error(errno)));
    }
    // Everything the child read stays alive until here.
    drop((program, args, cwd, extra, argv, envp));
    Some(Ok(child))
}

/// The clone itself, with every signal blocked around it (the child
/// inherits the mask and unblocks only after resetting handlers).
fn clone(top: *mut c_void, shared: &mut Shared) -> io::Result<(libc::pid_t, OwnedFd)> {
    if top.is_null() {
        return Err(io::Error::other("no stack for the child"));
    }
    // SAFETY: zeroed sigsets are valid; sigfillset fills one.
    let (mut all, mut old): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: live sigsets as the calls require.
    unsafe {
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
    }
    let mut pidfd: c_int = -1;
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD;
    // SAFETY: `top` is the top of this thread's child stack, used by no one
    // else while this thread is suspended in the clone (CLONE_VFORK);
    // `child_main` touches only `shared`, which outlives the child's use of
    // it, and the kernel writes the pidfd into `pidfd` (CLONE_PIDFD).
    let pid = unsafe {
        libc::clone(
            child_main,
            top,
            flags,
            (shared as *mut Shared).cast(),
            &mut pidfd as *mut c_int,
        )
    };
    let err = io::Error::last_os_error();
    // SAFETY: restores this thread's mask from a live sigset.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
    if pid < 0 {
        return Err(err);
    }
    if pidfd >= 0 {
        // SAFETY: the kernel just returned this descriptor to us alone.
        return Ok((pid, unsafe { OwnedFd::from_raw_fd(pidfd) }));
    }
    // Not expected (pidfd_open worked, so CLONE_PIDFD is known): ask for the
    // pidfd of the unreaped child instead.
    match platform::pidfd_open(pid) {
        Ok(pidfd) => Ok((pid, pidfd)),
        Err(err) => {
            // SAFETY: our own unreaped child, killed and reaped.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            Err(io::Error::other(format!(
                "cannot watch the started process: {err}"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::AsFd;

    /// Runs `program args` through `spawn`; its exit status and stdout.
    fn run(program: &str, args: &[&str], env: &[(&str, &str)]) -> io::Result<(ExitStatus, String)> {
        let (mut out_read, out_write) = std::io::pipe()?;
        let (_err_read, err_write) = std::io::pipe()?;
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let cwd = std::env::temp_dir();
        let child = spawn(
            Path::new(program),
            &args,
            &cwd,
            (&env, &[]),
            None,
            out_write.as_fd(),
            err_write.as_fd(),
        )
        .expect("pidfds on the test machine")?;
        drop((out_write, err_write));
        let mut stdout = String::new();
        out_read.read_to_string(&mut stdout)?;
        Ok((child.wait()?, stdout))
    }

    #[test]
    fn the_child_runs_in_its_own_group_with_null_stdin_and_nothing_blocked() {
        // `read` at end of input fails; the group is the shell's own pid;
        // no signal is blocked and SIGPIPE (bit 13) is not ignored. The masks
        // are read by the shell's own process after an `exec`: a shell
        // waiting for a command blocks every signal meanwhile (dash does).
        let script = "read -r line; echo \"read $?\"; \
                      read -r pid comm state ppid pgrp rest < /proc/$$/stat; \
                      [ \"$pgrp\" = \"$$\" ] && echo leader; pwd; \
                      exec grep -E '^Sig(Blk|Ign)' /proc/self/status";
        let (status, out) = run("/bin/sh", &["-c", script], &[]).unwrap();
        assert!(status.success(), "{status:?} {out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "read 1");
        assert_eq!(lines[1], "leader");
        let cwd = std::env::temp_dir();
        assert_eq!(
            Path::new(lines[2]).canonicalize().unwrap(),
            cwd.canonicalize().unwrap()
        );
        assert_eq!(lines[3], "SigBlk:\t0000000000000000");
        let ignored = u64::from_str_radix(lines[4].trim_start_matches("SigIgn:\t"), 16).unwrap();
        assert_eq!(ignored & (1 << (libc::SIGPIPE - 1)), 0, "{}", lines[4]);
    }

    #[test]
    fn the_environment_is_inherited_with_the_checks_entries_over_it() {
        // PATH comes from this process; HOME is replaced; a new name is added.
        let (status, out) = run(
            "/bin/sh",
            &[
                "-c",
                "printf '%s|%s|%s' \"$PATH\" \"$HOME\" \"$RUN_CHECK_PROBE\"",
            ],
            &[("HOME", "/nowhere"), ("RUN_CHECK_PROBE", "a b=c")],
        )
        .unwrap();
        assert!(status.success());
        let path = std::env::var("PATH").unwrap();
        assert_eq!(out, format!("{path}|/nowhere|a b=c"));
        // Replaced, not doubled: one HOME in the child's environment.
        let (_, env) = run("/usr/bin/env", &[], &[("HOME", "/nowhere")]).unwrap();
        assert_eq!(env.lines().filter(|l| l.starts_with("HOME=")).count(), 1);
    }

    #[test]
    fn exit_codes_and_signals_come_back_as_std_statuses() {
        let (status, _) = run("/bin/sh", &["-c", "exit 7"], &[]).unwrap();
        assert_eq!(status.code(), Some(7));
        let (status, _) = run("/bin/sh", &["-c", "kill -TERM $$"], &[]).unwrap();
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    }

    #[test]
    fn failed_steps_are_errors_with_the_childs_errno() {
        let missing = run("/nonexistent/program", &[], &[]).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("not-executable");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        let denied = run(plain.to_str().unwrap(), &[], &[]).unwrap_err();
        assert_eq!(denied.kind(), io::ErrorKind::PermissionDenied);
        let nul = run("/bin/sh", &["a\0b"], &[]).unwrap_err();
        assert_eq!(nul.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_missing_working_directory_fails_the_spawn() {
        let (_r, w) = std::io::pipe().unwrap();
        let err = spawn(
            Path::new("/bin/true"),
            &[],
            Path::new("/nonexistent/dir"),
            (&BTreeMap::new(), &[]),
            None,
            w.as_fd(),
            w.as_fd(),
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn the_exit_descriptor_becomes_readable_at_the_exit() {
        let (_r, w) = std::io::pipe().unwrap();
        let args = ["0.2".to_string()];
        let child = spawn(
            Path::new("/bin/sleep"),
            &args,
            &std::env::temp_dir(),
            (&BTreeMap::new(), &[]),
            None,
            w.as_fd(),
            w.as_fd(),
        )
        .unwrap()
        .unwrap();
        let soon = Instant::now() + std::time::Duration::from_millis(10);
        assert_eq!(child.wait_until(soon).unwrap(), None);
        let later = Instant::now() + std::time::Duration::from_secs(20);
        let status = child.wait_until(later).unwrap().expect("exited");
        assert!(status.success());
        // Reaped once; asking again answers from memory, and kill is a no-op.
        assert_eq!(child.try_wait().unwrap(), Some(status));
        child.kill().unwrap();
    }
}
