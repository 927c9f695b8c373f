//! A Remote Execution cluster on loopback for the remote checks' tests:
//! tests/remote_cluster.py (BuildGrid from `.tools/buildgrid`, a private
//! PostgreSQL on a Unix socket, tests/remote_worker.py) started once per
//! test process and shared; it stops when this process ends, whatever
//! way, because it waits on a pipe only this process holds.

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
    _stdin: Mutex<ChildStdin>,
    _child: Mutex<Child>,
}

/// The shared cluster whose worker corrupts the stdout of an action that
/// prints [`TAMPER_MARKER`] (the digest of the real output, another
/// content), or `None` when BuildGrid is not installed and skipping is
/// asked for (`support::missing`; otherwise the test fails).
pub(crate) fn shared() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| {
            let python = crate::support::test_tool("buildgrid/bin/python")?;
            Some(start(&python, 16))
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
    let Some(port) = line.trim().strip_prefix("ready ") else {
        let _ = child.kill();
        panic!("the cluster did not start (its errors are above): {line:?}");
    };
    let stdin = child.stdin.take().expect("stdin");
    Cluster {
        endpoint: format!("grpc://127.0.0.1:{port}"),
        _stdin: Mutex::new(stdin),
        _child: Mutex::new(child),
    }
}
