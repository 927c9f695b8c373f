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
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicProcessIdList, JobObjectExtendedLimitInformation, QueryInformationJobObject,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED, OpenProcess, OpenThread, PROCESS_NAME_WIN32,
    PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SET_QUOTA, PROCESS_TERMINATE,
    QueryFullProcessImageNameW, ResumeThread, THREAD_SUSPEND_RESUME,
};

use run_check_documents::evidence::Leaked;

/// The most leftover processes of one job listed in `leaked`.
const MAX_LISTED: usize = 1024;

/// `JOBOBJECT_BASIC_PROCESS_ID_LIST` with room for `MAX_LISTED` ids.
#[repr(C)]
struct ProcessIds {
    assigned: u32,
    listed: u32,
    ids: [usize; MAX_LISTED],
}

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
        if !tree.limit(JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) {
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

    /// The processes still in the job besides `main` (its first process),
    /// each with its program's path (another process's command line is
    /// not readable without reading its memory).
    pub(crate) fn leftovers(&self, main: u32) -> Vec<Leaked> {
        // SAFETY: zeroed is a valid id list to be filled in.
        let mut list: Box<ProcessIds> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `list` is live, of the size passed; the job handle is ours.
        let ok = unsafe {
            QueryInformationJobObject(
                self.job,
                JobObjectBasicProcessIdList,
                (&raw mut *list).cast(),
                std::mem::size_of::<ProcessIds>() as u32,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Vec::new();
        }
        let listed = (list.listed as usize).min(MAX_LISTED);
        list.ids[..listed]
            .iter()
            .filter_map(|&id| u32::try_from(id).ok())
            .filter(|&pid| pid != main)
            .map(|pid| Leaked {
                pid,
                command: image_path(pid).unwrap_or_default(),
            })
            .collect()
    }

    /// Lets the job's processes outlive it (`leave_running`): closing the
    /// job no longer kills them.
    pub(crate) fn keep(&self) {
        self.limit(0);
    }

    /// Sets the job's limit flags (all others off); says whether it did.
    fn limit(&self, flags: JOB_OBJECT_LIMIT) -> bool {
        // SAFETY: zeroed is a valid JOBOBJECT_EXTENDED_LIMIT_INFORMATION.
        let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        info.BasicLimitInformation.LimitFlags = flags;
        // SAFETY: `info` is a live struct of the size passed; the job is ours.
        let ok = unsafe {
            SetInformationJobObject(
                self.job,
                JobObjectExtendedLimitInformation,
                (&raw const info).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        ok != 0
    }
}

/// The full path of process `pid`'s program.
fn image_path(pid: u32) -> Option<String> {
    // SAFETY: OpenProcess has no memory-safety preconditions.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return None;
    }
    let mut buf = [0u16; 1024];
    let mut len = buf.len() as u32;
    // SAFETY: `buf` holds `len` u16s; the handle is valid and closed once.
    let ok = unsafe {
        let ok =
            QueryFullProcessImageNameW(process, PROCESS_NAME_WIN32, buf.as_mut_ptr(), &mut len);
        CloseHandle(process);
        ok
    };
    (ok != 0).then(|| String::from_utf16_lossy(&buf[..(len as usize).min(buf.len())]))
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
