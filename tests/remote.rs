//! Remote checks (docs/remote.md) against a real Remote Execution API
//! server: BuildGrid on loopback with a worker that runs each action on
//! this machine in a folder built from the input root (tests/support/
//! cluster.rs). Upload and execute; a second run that uploads nothing; a
//! failure located by its parser from the remote output; the cluster's
//! timeout; Ctrl-C cancelling the operation; a cluster that is down,
//! refuses the action, or returns a tampered blob (inline in the
//! result, or read from the CAS through a proxy that flips its bytes);
//! `--remote=auto` falling back and saying so.

#![cfg(unix)]

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::support::cluster::{self, TAMPER_MARKER};
use crate::support::{Test, check, diagnostics_of, git, wait_until};

/// A committed worktree whose checks.toml has `[remote]` at `endpoint`
/// (`remote_extra` more keys) and `checks`; `data.txt` holds a nonce, so
/// each test's input root is new to the shared cluster.
fn repo(endpoint: &str, remote_extra: &str, checks: &str) -> Test {
    let nonce = format!("{:?}", std::time::SystemTime::now());
    let config = format!(
        "[settings]\nallow = [\"sh\", \"./fail.sh\"]\n\n[remote]\nendpoint = \"{endpoint}\"\ninstance = \"main\"\n{remote_extra}\n{checks}"
    );
    let test = Test::new()
        .config(&config)
        .file("data.txt", &format!("data {nonce}\n"))
        .file("src/a.c", "int main(void) { return 0 }\n")
        .file(".gitignore", "ev.json\n")
        .script(
            "fail.sh",
            "#!/bin/sh\necho 'src/a.c:1:28: error: expected ; before } token'\nexit 1\n",
        );
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test
}

/// Runs the gate (JSON evidence on stdout) expecting `code`.
#[track_caller]
fn gate(test: Test, args: &[&str], code: i32) -> (Value, String, Test) {
    let run = test
        .again()
        .args(&["--format", "json", "--mode", "strict"])
        .args(args)
        .run()
        .status(code);
    (run.json_stdout(), run.stderr.clone(), run.test)
}

fn endpoint() -> Option<String> {
    cluster::shared().map(|c| c.endpoint.clone())
}

const CAT: &str = "[[check]]\nname = \"cat\"\nrun = [\"sh\", \"-c\", \"cat data.txt; echo on-the-worker >&2\"]\nremote = true\n";

#[test]
fn a_check_runs_on_the_cluster_and_a_second_run_uploads_nothing() {
    let Some(endpoint) = endpoint() else { return };
    let test = repo(&endpoint, "", CAT);
    let data = std::fs::read_to_string(test.path().join("data.txt")).expect("data");
    let (evidence, _, test) = gate(test, &[], 0);
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "pass", "{cat:#}");
    assert_eq!(cat["exit_code"], 0);
    assert_eq!(cat["stdout_excerpt"], data.as_str());
    assert_eq!(cat["stderr_excerpt"], "on-the-worker\n");
    let remote = &cat["remote"];
    assert_eq!(remote["endpoint"], endpoint.as_str());
    assert_eq!(remote["instance"], "main");
    assert!(
        remote["worker"]
            .as_str()
            .is_some_and(|w| w.starts_with("test-worker-")),
        "{remote:#}"
    );
    let digest = remote["action_digest"].as_str().expect("action_digest");
    assert!(digest.len() > 65 && digest.contains('/'), "{digest}");
    // The new data.txt, the root directory, the command and the action at
    // least.
    assert!(
        remote["uploaded_blobs"].as_u64().expect("blobs") >= 4,
        "{remote:#}"
    );
    assert!(
        remote["queued_ms"].is_u64() && remote["executed_ms"].is_u64(),
        "{remote:#}"
    );

    // Nothing changed: the cluster has every blob; the action runs again
    // (no `cache = true`, so `do_not_cache`).
    let (again, _, _test) = gate(test, &[], 0);
    let cat = check(&again, "cat");
    assert_eq!(cat["status"], "pass");
    assert_eq!(cat["stdout_excerpt"], data.as_str());
    assert_eq!(cat["remote"]["uploaded_blobs"], 0, "{:#}", cat["remote"]);
    assert_eq!(cat["remote"]["uploaded_bytes"], 0);
    assert_eq!(cat["remote"]["action_digest"], digest);
    assert_eq!(cat["remote"]["cached_result"], false);
}

#[test]
fn a_failure_on_the_cluster_is_located_by_its_parser() {
    let Some(endpoint) = endpoint() else { return };
    let checks =
        "[[check]]\nname = \"cc\"\nrun = [\"./fail.sh\"]\nparser = \"gcc\"\nremote = true\n";
    let (evidence, _, _test) = gate(repo(&endpoint, "", checks), &[], 1);
    let cc = check(&evidence, "cc");
    assert_eq!(cc["status"], "fail", "{cc:#}");
    assert_eq!(cc["exit_code"], 1);
    assert!(cc["remote"]["worker"].is_string());
    let found = diagnostics_of(&evidence, "cc");
    assert_eq!(found.len(), 1, "{evidence:#}");
    assert_eq!(found[0]["file"], "src/a.c");
    assert_eq!(found[0]["line"], 1);
    assert_eq!(found[0]["column"], 28);
}

#[test]
fn the_cluster_ends_an_action_at_the_check_s_timeout() {
    let Some(endpoint) = endpoint() else { return };
    let checks = "[[check]]\nname = \"slow\"\nrun = [\"sh\", \"-c\", \"echo started; sleep 60\"]\ntimeout = \"1s\"\nremote = true\n";
    let (evidence, _, _test) = gate(repo(&endpoint, "", checks), &[], 1);
    let slow = check(&evidence, "slow");
    assert_eq!(slow["status"], "fail", "{slow:#}");
    assert_eq!(slow["timed_out"], true);
    assert_eq!(slow["exit_code"], Value::Null);
    assert_eq!(slow["stdout_excerpt"], "started\n");
    assert!(slow["remote"]["worker"].is_string(), "{slow:#}");
}

#[test]
fn ctrl_c_cancels_the_remote_operation() {
    let Some(endpoint) = endpoint() else { return };
    let side = tempfile::tempdir().expect("tempdir");
    let beat = side.path().join("beat");
    let checks = format!(
        "[[check]]\nname = \"forever\"\nrun = [\"sh\", \"-c\", \"while true; do echo x >> '{}'; sleep 0.1; done\"]\ntimeout = \"10m\"\nremote = true\n",
        beat.display()
    );
    let test = repo(&endpoint, "", &checks).args(&["--format", "json", "--mode", "strict"]);
    let mut child = test.command().spawn().expect("spawn run-check");
    // The action is running on the worker once it beats.
    assert!(
        wait_until(Duration::from_secs(120), || size(&beat) > 0),
        "the action never started"
    );
    // SAFETY: kill(2) on the child's pid, which it has not been reaped yet.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0, "SIGINT");
    let output = wait_output(&mut child);
    let evidence: Value = serde_json::from_slice(&output).expect("evidence");
    assert_eq!(check(&evidence, "forever")["skip_reason"], "interrupted");
    // The worker killed the action: it beats no more.
    let still = |previous: &mut u64| {
        let now = size(&beat);
        let same = now == *previous;
        *previous = now;
        same
    };
    let mut last = size(&beat);
    let mut quiet_polls = 0;
    let stopped = wait_until(Duration::from_secs(60), || {
        std::thread::sleep(Duration::from_millis(300));
        if still(&mut last) {
            quiet_polls += 1;
        } else {
            quiet_polls = 0;
        }
        quiet_polls >= 5
    });
    assert!(stopped, "the action kept running after Ctrl-C");
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn wait_output(child: &mut std::process::Child) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    child.wait().expect("wait");
    out
}

/// A port on 127.0.0.1 where nothing listens.
fn dead_endpoint() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    format!("grpc://127.0.0.1:{port}")
}

#[test]
fn a_cluster_that_is_down_makes_the_check_an_error_naming_it() {
    // No cluster needed: nothing listens there.
    let endpoint = dead_endpoint();
    let (evidence, _, _test) = gate(repo(&endpoint, "", CAT), &[], 2);
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "error", "{cat:#}");
    let error = cat["error"].as_str().expect("error");
    assert!(
        error.contains(&format!("cannot reach the cluster at {endpoint}")),
        "{error}"
    );
    assert_eq!(cat["remote"]["endpoint"], endpoint.as_str());
    assert_eq!(cat["remote"]["fallback"], Value::Null);
    // Never a silent local run.
    assert_eq!(cat["stdout_excerpt"], "");
}

#[test]
fn remote_auto_runs_the_checks_here_when_the_cluster_is_down_and_says_so() {
    let endpoint = dead_endpoint();
    let test = repo(&endpoint, "", CAT);
    let data = std::fs::read_to_string(test.path().join("data.txt")).expect("data");
    let (evidence, stderr, _test) = gate(test, &["--remote=auto"], 0);
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "pass", "{cat:#}");
    assert_eq!(cat["stdout_excerpt"], data.as_str());
    let fallback = cat["remote"]["fallback"].as_str().expect("fallback");
    assert!(fallback.contains("cannot reach the cluster"), "{fallback}");
    assert_eq!(cat["remote"]["action_digest"], Value::Null);
    assert!(
        stderr.contains("--remote=auto runs the remote checks here"),
        "{stderr}"
    );
}

#[test]
fn no_remote_runs_every_check_here() {
    let endpoint = dead_endpoint();
    let (evidence, _, _test) = gate(repo(&endpoint, "", CAT), &["--no-remote"], 0);
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "pass", "{cat:#}");
    assert!(cat.get("remote").is_none(), "{cat:#}");
}

#[test]
fn a_refused_action_is_an_error_with_the_cluster_s_status() {
    let Some(endpoint) = endpoint() else { return };
    // BuildGrid refuses a platform property its scheduler does not know
    // (FAILED_PRECONDITION); an errored check is exit 2 (docs/exit-codes.md).
    let test = repo(&endpoint, "platform = { gpu = \"yes\" }\n", CAT);
    let (evidence, _, _test) = gate(test, &[], 2);
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "error", "{cat:#}");
    let error = cat["error"].as_str().expect("error");
    assert!(
        error.contains(&format!("the cluster at {endpoint}"))
            && error.contains("FAILED_PRECONDITION"),
        "{error}"
    );
}

#[test]
fn a_tampered_output_blob_is_an_error_and_never_shown() {
    let Some(endpoint) = endpoint() else { return };
    let checks = format!(
        "[[check]]\nname = \"tampered\"\nrun = [\"sh\", \"-c\", \"echo {TAMPER_MARKER}; cat data.txt\"]\nremote = true\n"
    );
    let (evidence, _, _test) = gate(repo(&endpoint, "", &checks), &[], 2);
    let tampered = check(&evidence, "tampered");
    assert_eq!(tampered["status"], "error", "{tampered:#}");
    let error = tampered["error"].as_str().expect("error");
    assert!(
        error.contains("the cluster returned inline output whose digest does not match"),
        "{error}"
    );
    assert_eq!(tampered["stdout_excerpt"], "");
}

/// `yes WORD | head -c LEN`: what the check prints, and its digest.
fn repeated(word: &str, len: usize) -> (String, String) {
    use sha2::{Digest as _, Sha256};
    let line = format!("{word}\n");
    let text: Vec<u8> = line.bytes().cycle().take(len).collect();
    let hash: String = Sha256::digest(&text)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (
        format!("yes {word} | head -c {len}"),
        format!("{hash}/{len}"),
    )
}

#[test]
fn a_blob_read_from_the_cas_that_does_not_match_its_digest_is_an_error() {
    let Some(cluster) = cluster::shared() else {
        return;
    };
    // Between the client and the cluster, a proxy flips a byte of every
    // blob the client reads from the CAS. The worker never inlines
    // stdout, so both outputs are read from the CAS: 100 kB in a
    // BatchReadBlobs, 3 MB (over the client's 2 MiB batch) through
    // ByteStream.Read.
    let proxy = cluster::TamperProxy::start(cluster);
    let (small, small_digest) = repeated("small", 100_000);
    let (big, big_digest) = repeated("big", 3_000_000);
    let checks = format!(
        "[[check]]\nname = \"small\"\nrun = [\"sh\", \"-c\", \"{small}\"]\nremote = true\n\
         [[check]]\nname = \"big\"\nrun = [\"sh\", \"-c\", \"{big}\"]\nremote = true\n"
    );
    let (evidence, _, _test) = gate(repo(&proxy.endpoint, "", &checks), &[], 2);
    for (name, digest) in [("small", &small_digest), ("big", &big_digest)] {
        let c = check(&evidence, name);
        assert_eq!(c["status"], "error", "{c:#}");
        let error = c["error"].as_str().expect("error");
        assert!(
            error.contains(&format!(
                "the cluster returned a blob whose digest does not match: asked for {digest}, got "
            )),
            "{error}"
        );
        // Nothing of the tampered bytes reaches the evidence.
        assert_eq!(c["stdout_excerpt"], "", "{c:#}");
    }
    // The tampering went through both ways of reading a blob.
    let log = proxy.log();
    assert!(
        log.contains(
            "tampered /build.bazel.remote.execution.v2.ContentAddressableStorage/BatchReadBlobs"
        ),
        "{log}"
    );
    assert!(
        log.contains("tampered /google.bytestream.ByteStream/Read"),
        "{log}"
    );
}

#[test]
fn remote_needs_a_remote_table() {
    let test = Test::new().config(
        "[settings]\nallow = [\"sh\"]\n\n[[check]]\nname = \"x\"\nrun = [\"sh\", \"-c\", \"true\"]\nremote = true\n",
    );
    let run = test.args(&["--mode", "strict"]).run().status(2);
    assert!(
        run.stderr.contains("check.x.remote") || run.stderr.contains("remote"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("needs a `[remote]` table"),
        "{}",
        run.stderr
    );
}

#[test]
fn remote_checks_have_slots_of_their_own_beside_the_local_jobs() {
    let Some(endpoint) = endpoint() else { return };
    // One local slot (`--jobs 1`), four remote ones: the four remote
    // checks run at once, and the local check beside them.
    let mut checks =
        String::from("[[check]]\nname = \"here\"\nrun = [\"sh\", \"-c\", \"sleep 1\"]\n");
    for i in 0..4 {
        checks.push_str(&format!(
            "[[check]]\nname = \"r{i}\"\nrun = [\"sh\", \"-c\", \"sleep 2\"]\nremote = true\n"
        ));
    }
    let (evidence, _, _test) = gate(repo(&endpoint, "jobs = 4\n", &checks), &["--jobs", "1"], 0);
    let spans: Vec<(u64, u64)> = ["here", "r0", "r1", "r2", "r3"]
        .iter()
        .map(|name| {
            let c = check(&evidence, name);
            assert_eq!(c["status"], "pass", "{c:#}");
            let start = c["started_ms"].as_u64().expect("started_ms");
            (
                start,
                start + c["duration_ms"].as_u64().expect("duration_ms"),
            )
        })
        .collect();
    // Every check started before any of them ended: all five overlapped.
    let last_start = spans.iter().map(|s| s.0).max().expect("spans");
    let first_end = spans.iter().map(|s| s.1).min().expect("spans");
    assert!(last_start < first_end, "{spans:?}");
}

/// This repository's own gate, its cheap checks: `fmt` as checks.toml has
/// it, a `cargo metadata` check, and the secrets scan (a scan is
/// run-check's own code and runs here either way: docs/remote.md).
fn own_gate(remote: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    let var = |name: &str, default: String| std::env::var(name).unwrap_or(default);
    let env = format!(
        "env = {{ CARGO_TERM_COLOR = \"never\", CARGO_HOME = \"{}\", RUSTUP_HOME = \"{}\" }}\n",
        var("CARGO_HOME", format!("{home}/.cargo")),
        var("RUSTUP_HOME", format!("{home}/.rustup")),
    );
    format!(
        "[settings]\nallow = [\"cargo\"]\nallow_env = [\"CARGO_HOME\", \"RUSTUP_HOME\"]\n\n{remote}\n\
         [[check]]\nname = \"fmt\"\nrun = [\"cargo\", \"fmt\", \"--all\", \"--\", \"--check\", \"--color\", \"never\"]\n\
         timeout = \"2m\"\nremote = true\n{env}\n\
         [[check]]\nname = \"metadata\"\nrun = [\"cargo\", \"metadata\", \"--format-version\", \"1\", \"--no-deps\", \"--offline\"]\n\
         timeout = \"2m\"\nremote = true\n{env}\n\
         [[check]]\nname = \"secrets\"\nscan = {{ paths = [\"src/**\", \"notes/**\"], rules = [\"secrets\"] }}\n"
    )
}

/// What a run's result is made of, without where or when it ran.
fn verdict(evidence: &Value) -> Value {
    let checks: Vec<Value> = (evidence["checks"].as_array().expect("checks").iter())
        .map(|c| serde_json::json!([c["name"], c["status"], c["exit_code"]]))
        .collect();
    serde_json::json!({"checks": checks, "diagnostics": evidence["diagnostics"]})
}

#[test]
fn this_repository_s_own_cheap_checks_give_the_same_verdict_on_the_cluster() {
    let Some(endpoint) = endpoint() else { return };
    let test = Test::bare();
    let root = crate::support::repo_root();
    git(
        test.path(),
        &["clone", "-q", &root.display().to_string(), "."],
    );
    // A change to gate: a line rustfmt rewrites, and a key-shaped secret.
    let lib = test.path().join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).expect("lib.rs");
    text.push_str("\nfn  spaced ( )  { }\n");
    std::fs::write(&lib, text).expect("lib.rs");
    let key = ["AKIA", "Z7QW3RT5YU2IO8PL"].concat();
    std::fs::create_dir_all(test.path().join("notes")).expect("notes");
    std::fs::write(test.path().join("notes/aws.txt"), format!("key = {key}\n")).expect("notes");
    let remote = format!("[remote]\nendpoint = \"{endpoint}\"\ninstance = \"main\"\n");
    let config = tempfile::tempdir().expect("tempdir");
    let path = config.path().join("gate.toml");
    std::fs::write(&path, own_gate(&remote)).expect("config");
    let config_arg = path.display().to_string();
    let base = [
        "--config",
        &config_arg,
        "--format",
        "json",
        "--mode",
        "strict",
    ];
    let here = test.args(&base).args(&["--no-remote"]).run().status(1);
    let local = here.json_stdout();
    let there = here.test.again().args(&base).run().status(1);
    let remote_run = there.json_stdout();
    assert_eq!(verdict(&remote_run), verdict(&local), "{remote_run:#}");
    // The comparison weighs something: each check gave its result, fmt
    // and the scan located their finding, and the two run checks ran on
    // the cluster.
    assert_eq!(status_of(&local, "fmt"), "fail");
    assert_eq!(status_of(&local, "metadata"), "pass");
    assert_eq!(status_of(&local, "secrets"), "fail");
    assert!(
        diagnostics_of(&local, "fmt")
            .iter()
            .any(|d| d["file"] == "src/lib.rs"),
        "{local:#}"
    );
    assert!(!diagnostics_of(&local, "secrets").is_empty(), "{local:#}");
    for name in ["fmt", "metadata"] {
        assert!(
            check(&remote_run, name)["remote"]["worker"].is_string(),
            "{remote_run:#}"
        );
        assert!(check(&local, name).get("remote").is_none());
    }
}

fn status_of<'a>(evidence: &'a Value, name: &str) -> &'a str {
    check(evidence, name)["status"].as_str().expect("status")
}

#[test]
fn a_tls_endpoint_is_reached_with_the_ca_the_environment_names() {
    let Some(cluster) = cluster::shared() else {
        return;
    };
    // BuildGrid's TLS port: its certificate is signed by a CA made by the
    // cluster's script, which no system store holds.
    let endpoint = cluster.tls_endpoint.as_str();
    let test = repo(endpoint, "", CAT);
    let data = std::fs::read_to_string(test.path().join("data.txt")).expect("data");
    let ca = cluster.ca.display().to_string();
    let run = test
        .again()
        .env("SSL_CERT_FILE", &ca)
        .args(&["--format", "json", "--mode", "strict"])
        .run()
        .status(0);
    let evidence = run.json_stdout();
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "pass", "{cat:#}");
    assert_eq!(cat["stdout_excerpt"], data.as_str());
    assert_eq!(cat["remote"]["endpoint"], endpoint);
    assert!(cat["remote"]["worker"].is_string(), "{cat:#}");

    // Without the CA, the certificate is not trusted: an error naming the
    // endpoint, never a run over an unverified connection.
    let empty = tempfile::tempdir().expect("tempdir");
    let nothing = empty.path().join("none.pem");
    std::fs::write(&nothing, "").expect("empty CA file");
    let run = run
        .test
        .again()
        .env("SSL_CERT_FILE", &nothing.display().to_string())
        .args(&["--format", "json", "--mode", "strict"])
        .run()
        .status(2);
    let evidence = run.json_stdout();
    let cat = check(&evidence, "cat");
    assert_eq!(cat["status"], "error", "{cat:#}");
    let error = cat["error"].as_str().expect("error");
    assert!(
        error.contains(&format!("cannot reach the cluster at {endpoint}")),
        "{error}"
    );
    assert_eq!(cat["stdout_excerpt"], "");
}
