//! Windows process trees: each check's process is assigned to its own Job
//! Object, so `TerminateJobObject` reaches every process it started. The job is
//! created with KILL_ON_JOB_CLOSE, so dropping the `Tree` also ends leftovers.
//! The process is created suspended and runs only once it is in its job
//! (`release`), so nothing it starts can escape the job by starting early.

use std::io;
use std::os::windows::process::CommandExt;
use std::process::{Command, ExitStatus};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED, OpenProcess, OpenThread, PROCESS_SET_QUOTA,
    PROCESS_TERMINATE, ResumeThread, THREAD_SUSPEND_RESUME,
};

/// Prepares the command before spawn: its own console process group, so the
/// console's Ctrl-C reaches run-check only (mirrors the Unix process group),
/// and suspended until `release`.
pub(crate) fn prepare(command: &mut Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_SUSPENDED);
}

/// Lets the suspended child `pid` run (after `Tree::adopt`, or after it
/// failed): resumes its one thread, found in a snapshot of the system's
/// threads (the standard library keeps the thread handle to itself).
pub(crate) fn release(pid: u32) -> io::Result<()> {
    // SAFETY: CreateToolhelp32Snapshot has no memory-safety preconditions.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: zeroed is a valid THREADENTRY32; dwSize is set as required.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    let mut resumed = 0;
    // SAFETY: `snapshot` is valid and `entry` a live, sized THREADENTRY32.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: OpenThread has no memory-safety preconditions.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if !thread.is_null() {
                // SAFETY: `thread` is a valid handle we own, closed once.
                unsafe {
                    if ResumeThread(thread) != u32::MAX {
                        resumed += 1;
                    }
                    CloseHandle(thread);
                }
            }
        }
        // SAFETY: as for Thread32First.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    // SAFETY: `snapshot` is a handle we own, closed once.
    unsafe { CloseHandle(snapshot) };
    match resumed {
        0 => Err(io::Error::other("its thread was not found to resume")),
        _ => Ok(()),
    }
}

/// The process tree of one running check: a Job Object.
#[derive(Debug)]
pub(crate) struct Tree {
    job: HANDLE,
}

// SAFETY: a job handle may be used from any thread.
unsafe impl Send for Tree {}
// SAFETY: the Win32 job functions used here are thread-safe.
unsafe impl Sync for Tree {}

impl Tree {
    /// Creates a job and assigns the freshly spawned child `pid` to it.
    pub(crate) fn adopt(pid: u32) -> io::Result<Tree> {
        // SAFETY: null security attributes and name are allowed.
        let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if job.is_null() {
            return Err(io::Error::last_os_error());
        }
        let tree = Tree { job };
        // SAFETY: zeroed is a valid JOBOBJECT_EXTENDED_LIMIT_INFORMATION.
        let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `info` is a live struct of the size passed.
        let ok = unsafe {
            SetInformationJobObject(
                job,
                JobObjectExtendedLimitInformation,
                (&raw const info).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: OpenProcess has no memory-safety preconditions.
        let process = unsafe { OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, 0, pid) };
        if process.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both handles are valid; the process handle is closed once.
        let ok = unsafe { AssignProcessToJobObject(job, process) };
        // SAFETY: `process` is a handle we own.
        unsafe { CloseHandle(process) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(tree)
    }

    /// Ends every process of the tree. Windows has no polite SIGTERM for
    /// console programs in another process group, so this is a kill.
    pub(crate) fn terminate(&self) {
        self.kill();
    }

    /// Ends every process of the tree.
    pub(crate) fn kill(&self) {
        // SAFETY: `job` is a valid job handle owned by self.
        unsafe { TerminateJobObject(self.job, 1) };
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // SAFETY: `job` is a valid handle owned by self, closed once.
        unsafe { CloseHandle(self.job) };
    }
}

/// No special wait here (mirrors Unix `wait_exit`): `SharedChild`'s timed
/// wait already waits on the process handle.
pub(crate) fn wait_exit(_pid: u32, _deadline: std::time::Instant) -> Option<bool> {
    None
}

/// Windows processes always have an exit code; there is no signal.
pub(crate) fn signal_of(_status: &ExitStatus) -> Option<String> {
    None
}
