//! A Remote Execution cluster on loopback for the remote checks' tests:
//! tests/remote_cluster.py (BuildGrid from `.tools/buildgrid` on a plain
//! and a TLS port, a private PostgreSQL on a Unix socket,
//! tests/remote_worker.py) started once per
//! test process and shared; it stops when this process ends, whatever
//! way, because it waits on a pipe only this process holds. On Linux the
//! process also waits for it at its exit (PostgreSQL stopped, the folder
//! removed), so no part of it outlives the tests: a gate running them
//! finds nothing left behind.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::Duration;

/// The longest wait for the cluster to be up (PostgreSQL, its schema,
/// BuildGrid, the worker), on a loaded machine.
const START_BOUND: Duration = Duration::from_secs(240);

/// A running cluster: its endpoint, and the pipe whose end stops it.
pub(crate) struct Cluster {
    pub(crate) endpoint: String,
    /// The same cluster over TLS (`grpcs://`), its certificate signed by
    /// the CA in `ca`, which only a client told so trusts.
    pub(crate) tls_endpoint: String,
    pub(crate) ca: PathBuf,
    stdin: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
}

/// The cluster of this test process, once started.
static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();

/// How long the exit waits for the cluster to stop.
#[cfg(target_os = "linux")]
const STOP_BOUND: Duration = Duration::from_secs(60);

/// At the test process's exit: closes the cluster's pipe and waits (at
/// most [`STOP_BOUND`]) for it to stop.
#[cfg(target_os = "linux")]
extern "C" fn stop_at_exit() {
    let Some(Some(cluster)) = CLUSTER.get() else {
        return;
    };
    drop(
        cluster
            .stdin
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(),
    );
    let mut child = cluster.child.lock().unwrap_or_else(|p| p.into_inner());
    let started = std::time::Instant::now();
    while matches!(child.try_wait(), Ok(None)) && started.elapsed() < STOP_BOUND {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The shared cluster whose worker corrupts the stdout of an action that
/// prints [`TAMPER_MARKER`] (the digest of the real output, another
/// content), or `None` when BuildGrid is not installed and skipping is
/// asked for (`support::missing`; otherwise the test fails).
pub(crate) fn shared() -> Option<&'static Cluster> {
    CLUSTER
        .get_or_init(|| {
            let python = crate::support::test_tool("buildgrid/bin/python")?;
            let cluster = start(&python, 16);
            // SAFETY: `stop_at_exit` is a plain function that only locks
            // this static's mutexes and waits; it runs once, at exit.
            #[cfg(target_os = "linux")]
            unsafe {
                libc::atexit(stop_at_exit);
            }
            Some(cluster)
        })
        .as_ref()
}

/// What an action prints to have its stdout tampered with by the worker.
pub(crate) const TAMPER_MARKER: &str = "please-tamper-with-this-output";

fn start(python: &PathBuf, slots: u32) -> Cluster {
    let dir = tempfile::Builder::new()
        .prefix("run-check-cluster-")
        .tempdir()
        .expect("tempdir")
        // remote_cluster.py removes it when it stops (a static is never
        // dropped).
        .keep();
    let script = crate::support::repo_root().join("tests/remote_cluster.py");
    let mut child = Command::new(python)
        .arg(&script)
        .arg(&dir)
        .args([
            "--slots",
            &slots.to_string(),
            "--tamper-marker",
            TAMPER_MARKER,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start tests/remote_cluster.py");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = match rx.recv_timeout(START_BOUND) {
        Ok(line) => line,
        Err(_) => {
            let _ = child.kill();
            panic!("the cluster was not up within {START_BOUND:?}");
        }
    };
    let ready: Vec<&str> = line.split_whitespace().collect();
    let ["ready", port, tls_port, ca] = ready.as_slice() else {
        let _ = child.kill();
        panic!("the cluster did not start (its errors are above): {line:?}");
    };
    let stdin = child.stdin.take().expect("stdin");
    Cluster {
        endpoint: format!("grpc://127.0.0.1:{port}"),
        tls_endpoint: format!("grpcs://127.0.0.1:{tls_port}"),
        ca: PathBuf::from(ca),
        stdin: Mutex::new(Some(stdin)),
        child: Mutex::new(child),
    }
}

/// tests/remote_tamper_proxy.py in front of a cluster: every blob the
/// client reads from the CAS through it comes back with a byte flipped.
/// It stops when this value is dropped (the end of the test, or its
/// panic), or when the test process ends.
pub(crate) struct TamperProxy {
    pub(crate) endpoint: String,
    /// What the proxy tampered with, one `tampered METHOD` a line.
    log: PathBuf,
    _dir: tempfile::TempDir,
    child: Child,
}

/// The longest wait for the proxy to listen.
const PROXY_BOUND: Duration = Duration::from_secs(60);

impl TamperProxy {
    pub(crate) fn start(cluster: &Cluster) -> Self {
        let python = crate::support::repo_root().join(".tools/buildgrid/bin/python");
        let upstream = cluster.endpoint.rsplit(':').next().expect("port");
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("proxy.log");
        let script = crate::support::repo_root().join("tests/remote_tamper_proxy.py");
        let mut child = Command::new(python)
            .arg(&script)
            .arg(upstream)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("proxy log"))
            .spawn()
            .expect("start tests/remote_tamper_proxy.py");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(PROXY_BOUND).unwrap_or_default();
        let mut proxy = TamperProxy {
            endpoint: String::new(),
            log,
            _dir: dir,
            child,
        };
        let Some(port) = line.trim().strip_prefix("ready ") else {
            panic!(
                "the tamper proxy did not start within {PROXY_BOUND:?}: {line:?}\n{}",
                proxy.log()
            );
        };
        proxy.endpoint = format!("grpc://127.0.0.1:{port}");
        proxy
    }

    /// What it tampered with so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for TamperProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
