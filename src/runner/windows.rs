//! Windows process trees: each check's process is assigned to its own Job
//! Object, so `TerminateJobObject` reaches every process it started. The job is
//! created with KILL_ON_JOB_CLOSE, so dropping the `Tree` also ends leftovers.
//! A process spawned by the check before the assignment (a window of
//! microseconds after spawn) can escape the job; this is the documented limit.

use std::io;
use std::os::windows::process::CommandExt;
use std::process::{Command, ExitStatus};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, OpenProcess, PROCESS_SET_QUOTA, PROCESS_TERMINATE,
};

/// Prepares the command before spawn: its own console process group, so the
/// console's Ctrl-C reaches run-check only (mirrors the Unix process group).
pub(crate) fn prepare(command: &mut Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP);
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

/// Windows processes always have an exit code; there is no signal.
pub(crate) fn signal_of(_status: &ExitStatus) -> Option<String> {
    None
}
