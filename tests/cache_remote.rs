//! The remote result cache (docs/cache.md) against a real server: nginx
//! from Debian's packages with WebDAV `PUT`, started here on 127.0.0.1 with
//! a config of its own in a temp folder. A writer fills `/ac/` and `/cas/`;
//! another machine (an empty local store) hits from it; the `/ac/` entry is
//! a REAPI `ActionResult` (decoded here with prost, from field numbers
//! declared here, not run-check's) naming the `/cas/` blob. A token
//! protects it and is never shown. A remote that is down, refuses, answers
//! garbage or never answers changes no result: a miss and one warning.

#![cfg(unix)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use prost::Message;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tempfile::TempDir;

use crate::support::{Test, check, git};

/// REAPI `Digest`, `OutputFile` and `ActionResult` with the field numbers
/// of build/bazel/remote/execution/v2/remote_execution.proto.
#[derive(Clone, PartialEq, Message)]
struct Digest {
    #[prost(string, tag = "1")]
    hash: String,
    #[prost(int64, tag = "2")]
    size_bytes: i64,
}

#[derive(Clone, PartialEq, Message)]
struct OutputFile {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(message, optional, tag = "2")]
    digest: Option<Digest>,
    #[prost(bool, tag = "4")]
    is_executable: bool,
}

#[derive(Clone, PartialEq, Message)]
struct ActionResult {
    #[prost(message, repeated, tag = "2")]
    output_files: Vec<OutputFile>,
    #[prost(int32, tag = "4")]
    exit_code: i32,
}

/// The nginx binary (Debian installs it in /usr/sbin). Missing: the test
/// fails (`support::missing`).
fn nginx_binary() -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nginx"))
        .find(|path| path.is_file());
    if found.is_none() {
        crate::support::missing("nginx is not installed");
    }
    found
}

/// A free port on 127.0.0.1 (bound, then released for the server).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// An nginx serving `/cache/` from a temp folder with WebDAV `PUT`;
/// `http` goes in its `http` block, `guard` in that location first (a
/// token check, a forced status).
struct Nginx {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl Nginx {
    fn start(http: &str, guard: &str) -> Option<Nginx> {
        let binary = nginx_binary()?;
        let dir = tempfile::Builder::new()
            .prefix("run-check-nginx-")
            .tempdir()
            .expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("data/cache")).expect("data");
        let port = free_port();
        let path = root.display();
        // One process in the foreground (no daemon, no workers to switch
        // user), every file it writes in the temp folder.
        let config = format!(
            "daemon off;\nmaster_process off;\npid {path}/nginx.pid;\nerror_log {path}/error.log;\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log {path}/access.log;\n  client_body_temp_path {path}/body;\n\
               proxy_temp_path {path}/proxy;\n  fastcgi_temp_path {path}/fastcgi;\n\
               uwsgi_temp_path {path}/uwsgi;\n  scgi_temp_path {path}/scgi;\n  {http}\n\
               server {{\n    listen 127.0.0.1:{port};\n    root {path}/data;\n\
                 location /cache/ {{\n      {guard}\n      dav_methods PUT;\n\
                   create_full_put_path on;\n      client_max_body_size 64m;\n    }}\n  }}\n}}\n"
        );
        std::fs::write(root.join("nginx.conf"), config).expect("config");
        let child = Command::new(binary)
            .arg("-p")
            .arg(root)
            .arg("-e")
            .arg(root.join("error.log"))
            .arg("-c")
            .arg(root.join("nginx.conf"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn nginx");
        let mut nginx = Nginx { child, port, dir };
        // Ready when it accepts a connection; bounded, and never past its exit.
        for _ in 0..400 {
            if let Some(status) = nginx.child.try_wait().expect("wait") {
                panic!(
                    "nginx exited ({status}): {}",
                    std::fs::read_to_string(nginx.dir.path().join("error.log")).unwrap_or_default()
                );
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(nginx);
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("nginx did not listen on 127.0.0.1:{port}");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/cache", self.port)
    }

    /// The served folder's `ac` or `cas` entries.
    fn entries(&self, kind: &str) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(self.dir.path().join("data/cache").join(kind))
                .map(|dir| dir.map(|e| e.expect("entry").path()).collect())
                .unwrap_or_default();
        found.sort();
        found
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A committed worktree with one cached check that counts its runs in
/// `side/counter`, and `[cache] remote = url`; each "machine" is a local
/// store of its own under `side`.
struct Repo {
    test: Option<Test>,
    side: TempDir,
}

/// What one run showed.
struct Ran {
    evidence: Value,
    stdout: String,
    stderr: String,
}

/// Counts its runs; fails when a package `src/calc/` shadows a module
/// (`cache_attacks::hide`).
const SCRIPT: &str = "#!/bin/sh\necho run >> \"$COUNTERS/counter\"\nif [ -e src/calc/__init__.py ]; then echo shadowed; exit 1; fi\necho checked\n";

impl Repo {
    fn new(url: &str, cache_extra: &str) -> Repo {
        Repo::with(url, cache_extra, "", &[])
    }

    /// `new` with more lines for the check (`check_extra`) and more
    /// scripts (allowed too).
    fn with(url: &str, cache_extra: &str, check_extra: &str, scripts: &[(&str, &str)]) -> Repo {
        let side = tempfile::Builder::new()
            .prefix("run-check-remote-")
            .tempdir()
            .expect("tempdir");
        let allowed: String = scripts
            .iter()
            .map(|(name, _)| format!(", \"./{name}\""))
            .collect();
        let config = format!(
            "[settings]\nallow = [\"./count.sh\"{allowed}]\n\n[cache]\nremote = \"{url}\"\n{cache_extra}\n\
             [[check]]\nname = \"counted\"\nrun = [\"./count.sh\"]\nmodes = [\"fast\", \"strict\"]\n\
             cache = true\ninputs = [\"src/**\"]\nparser = \"none\"\n{check_extra}"
        );
        let mut test = Test::new()
            .config(&config)
            .file("src/a.rs", "fn a() {}\n")
            .file(".gitignore", "ev.json\n")
            .script("count.sh", SCRIPT)
            .env("COUNTERS", &side.path().display().to_string());
        for (name, text) in scripts {
            test = test.script(name, text);
        }
        git(test.path(), &["add", "."]);
        git(test.path(), &["commit", "-q", "-m", "base"]);
        Repo {
            test: Some(test),
            side,
        }
    }

    fn path(&self) -> &Path {
        self.test.as_ref().expect("test").path()
    }

    fn runs(&self) -> usize {
        std::fs::read_to_string(self.side.path().join("counter")).map_or(0, |t| t.lines().count())
    }

    /// The local store of `machine`.
    fn store(&self, machine: &str) -> PathBuf {
        self.side.path().join(machine)
    }

    /// Runs the gate on `machine` with `args` and `env`, expecting exit 0.
    #[track_caller]
    fn run(&mut self, machine: &str, args: &[&str], env: &[(&str, &str)]) -> Ran {
        self.run_expecting(machine, args, env, 0)
    }

    /// `run`, expecting exit `code`.
    #[track_caller]
    fn run_expecting(
        &mut self,
        machine: &str,
        args: &[&str],
        env: &[(&str, &str)],
        code: i32,
    ) -> Ran {
        let test = self
            .test
            .take()
            .expect("test")
            .again()
            .args(&["--format", "json"])
            .args(args);
        let mut command = test.command();
        command.env("XDG_CACHE_HOME", self.store(machine));
        // The servers are on loopback: a proxy of the machine's is not asked.
        command.env("NO_PROXY", "127.0.0.1");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().expect("spawn run-check");
        self.test = Some(test);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(
            output.status.code(),
            Some(code),
            "{stdout}\n--- stderr\n{stderr}"
        );
        let evidence = serde_json::from_str(&stdout).expect("evidence on stdout");
        Ran {
            evidence,
            stdout,
            stderr,
        }
    }
}

/// The stderr lines about the remote.
fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("run-check: cache: remote"))
        .collect()
}

/// The check ran and passed, its result not taken from any cache.
#[track_caller]
fn ran_and_passed(ran: &Ran) {
    let entry = check(&ran.evidence, "counted");
    assert_eq!(entry["status"], "pass", "{entry}");
    assert_eq!(entry["cache"]["status"], "miss", "{entry}");
    assert_eq!(ran.evidence["summary"]["exit_code"], 0);
}

const WRITE: (&str, &str) = ("RUN_CHECK_CACHE_WRITE", "1");

#[test]
fn a_writer_fills_the_remote_and_another_machine_hits_it() {
    let Some(nginx) = Nginx::start("", "") else {
        return;
    };
    let mut repo = Repo::new(&nginx.url(), "");

    // The writer (trusted CI): a miss, run, stored locally and remotely.
    let first = repo.run("writer", &[], &[WRITE]);
    ran_and_passed(&first);
    assert!(warnings(&first.stderr).is_empty(), "{}", first.stderr);
    assert_eq!(repo.runs(), 1);
    let key = check(&first.evidence, "counted")["cache"]["key"]
        .as_str()
        .expect("key")
        .to_string();
    let ac = nginx.entries("ac");
    let cas = nginx.entries("cas");
    assert_eq!(ac.len(), 1, "{ac:?}");
    assert_eq!(cas.len(), 1, "{cas:?}");
    assert_eq!(
        ac[0].file_name().unwrap().to_str().unwrap(),
        key,
        "/ac/{{key}}"
    );

    // /ac/{key} is a REAPI ActionResult whose one output file's digest
    // names the /cas/ blob: its sha256 and its size.
    let action = ActionResult::decode(std::fs::read(&ac[0]).unwrap().as_slice()).expect("protobuf");
    assert_eq!(action.exit_code, 0);
    let [file] = action.output_files.as_slice() else {
        panic!("one output file: {action:?}");
    };
    assert!(!file.is_executable);
    let digest = file.digest.as_ref().expect("digest");
    let blob = std::fs::read(&cas[0]).unwrap();
    assert_eq!(cas[0].file_name().unwrap().to_str().unwrap(), digest.hash);
    assert_eq!(hex(&Sha256::digest(&blob)), digest.hash);
    assert_eq!(digest.size_bytes, blob.len() as i64);
    let stored: Value = serde_json::from_slice(&blob).expect("the blob is the stored entry");
    assert_eq!(stored["key"], key.as_str());
    assert_eq!(stored["check"]["status"], "pass");

    // Another machine, empty local store, strict mode, not a writer: a
    // hit from the remote; the check does not run.
    let second = repo.run("reader", &[], &[]);
    assert_eq!(repo.runs(), 1, "a remote hit does not run the check");
    let entry = check(&second.evidence, "counted");
    assert_eq!(entry["status"], "pass");
    assert_eq!(entry["cache"]["status"], "hit", "{entry}");
    assert_eq!(entry["cache"]["source"], "remote");
    assert_eq!(entry["cache"]["key"], key.as_str());
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    assert_eq!(entry["cache"]["stored_by"]["commit"], head.trim());
    assert_eq!(
        entry["cache"]["duration_ms"],
        check(&first.evidence, "counted")["duration_ms"]
    );
    assert!(warnings(&second.stderr).is_empty(), "{}", second.stderr);
    // The text report says where the hit came from.
    let text = repo
        .test
        .take()
        .unwrap()
        .again()
        .env(
            "XDG_CACHE_HOME",
            &repo.store("reader2").display().to_string(),
        )
        .run()
        .success();
    assert!(text.stdout.contains("CACHED"), "{}", text.stdout);
    assert!(text.stdout.contains("remote"), "{}", text.stdout);
    repo.test = Some(text.test.drop_env(1));

    // The remote hit was kept on the reader's machine: its next fast run
    // is a local hit.
    let third = repo.run("reader", &["--mode", "fast"], &[]);
    assert_eq!(
        check(&third.evidence, "counted")["cache"]["source"],
        "local"
    );
    assert_eq!(repo.runs(), 1);

    // A reader that misses (an input changed) runs the check and stores
    // the pass locally, never in the remote: it may not write.
    std::fs::write(repo.path().join("src/a.rs"), "fn a() { 1 }\n").unwrap();
    let changed = repo.run("reader", &[], &[]);
    ran_and_passed(&changed);
    assert_eq!(repo.runs(), 2);
    assert_eq!(nginx.entries("ac").len(), 1, "a reader wrote to the remote");
    // `--no-cache` neither reads nor writes it.
    git(repo.path(), &["checkout", "src/a.rs"]);
    let off = repo.run("third", &["--no-cache"], &[WRITE]);
    assert_eq!(check(&off.evidence, "counted")["cache"]["status"], "off");
    assert_eq!(repo.runs(), 3);
}

#[test]
fn a_token_protected_remote_works_with_the_token_and_never_shows_it() {
    const TOKEN: &str = "tok-5ecret-d0-not-print";
    let guard = format!("if ($http_authorization != \"Bearer {TOKEN}\") {{ return 401; }}");
    let Some(nginx) = Nginx::start("", &guard) else {
        return;
    };
    let mut repo = Repo::new(
        &nginx.url(),
        "token_env = \"CACHE_TOKEN_FOR_TEST\"\nremote_write = true\n",
    );

    // Without the token: 401, one warning, the check runs and passes.
    let refused = repo.run("a", &[], &[]);
    ran_and_passed(&refused);
    let lines = warnings(&refused.stderr);
    assert_eq!(lines.len(), 1, "{}", refused.stderr);
    assert!(lines[0].contains("401"), "{}", lines[0]);
    assert!(
        nginx.entries("ac").is_empty(),
        "nothing was stored without the token"
    );

    // With it (`remote_write = true` in the config): stored, then a hit
    // on another machine.
    let token = [("CACHE_TOKEN_FOR_TEST", TOKEN)];
    let writer = repo.run("b", &[], &token);
    ran_and_passed(&writer);
    assert!(warnings(&writer.stderr).is_empty(), "{}", writer.stderr);
    assert_eq!(nginx.entries("ac").len(), 1);
    let reader = repo.run("c", &[], &token);
    assert_eq!(
        check(&reader.evidence, "counted")["cache"]["source"],
        "remote"
    );
    assert_eq!(repo.runs(), 2);

    // The token is in no output, no evidence, no local store file, and
    // not in `cache key`.
    let key = repo
        .test
        .as_ref()
        .unwrap()
        .command()
        .args(["cache", "key", "counted"])
        .env("CACHE_TOKEN_FOR_TEST", TOKEN)
        .output()
        .expect("cache key");
    for ran in [&refused, &writer, &reader] {
        assert!(!ran.stdout.contains(TOKEN) && !ran.stderr.contains(TOKEN));
        assert!(!ran.evidence.to_string().contains(TOKEN));
    }
    assert!(!String::from_utf8_lossy(&key.stdout).contains(TOKEN));
    assert!(!String::from_utf8_lossy(&key.stderr).contains(TOKEN));
    for file in walk(repo.side.path()) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "{}",
            file.display()
        );
    }
}

#[test]
fn a_remote_that_is_down_refuses_or_never_answers_changes_no_result() {
    let Some(broken) = Nginx::start("", "return 500;") else {
        return;
    };
    // Accepts connections (the kernel completes them) and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent_url = format!("http://{}/cache", silent.local_addr().unwrap());
    let down_url = format!("http://127.0.0.1:{}/cache", free_port());
    let cases = [
        (down_url.as_str(), "failed"),
        (&broken.url(), "500"),
        (silent_url.as_str(), "did not answer within the 5s"),
    ];
    for (n, (url, why)) in cases.into_iter().enumerate() {
        let mut repo = Repo::new(url, "");
        // A writer and a reader: neither is a failed gate.
        for (machine, env) in [("w", &[WRITE][..]), ("r", &[][..])] {
            let ran = repo.run(machine, &["--mode", "fast"], env);
            ran_and_passed(&ran);
            let lines = warnings(&ran.stderr);
            assert_eq!(lines.len(), 1, "case {n}: {}", ran.stderr);
            assert!(lines[0].contains(why), "case {n}: {}", lines[0]);
            assert!(lines[0].contains("not used for the rest of this run"));
        }
        assert_eq!(repo.runs(), 2, "case {n}: each run ran the check");
        // The local store still works: the writer's machine hits locally.
        let again = repo.run("w", &["--mode", "fast"], &[]);
        assert_eq!(
            check(&again.evidence, "counted")["cache"]["source"],
            "local"
        );
    }
    drop(silent);
}

#[test]
fn a_tampered_remote_blob_is_a_miss() {
    let Some(nginx) = Nginx::start("", "") else {
        return;
    };
    let mut repo = Repo::new(&nginx.url(), "");
    repo.run("writer", &[], &[WRITE]);
    let cas = nginx.entries("cas");
    let blob = std::fs::read(&cas[0]).unwrap();
    // Same length, one byte changed: the size matches, the digest not.
    let mut tampered = blob.clone();
    let at = tampered.iter().position(|&b| b == b'p').expect("a `p`");
    tampered[at] = b'P';
    std::fs::write(&cas[0], &tampered).unwrap();
    let ran = repo.run("reader", &[], &[]);
    ran_and_passed(&ran);
    assert_eq!(repo.runs(), 2);
    let lines = warnings(&ran.stderr);
    assert_eq!(lines.len(), 1, "{}", ran.stderr);
    assert!(
        lines[0].contains("does not match its digest"),
        "{}",
        lines[0]
    );

    // Truncated: the size no longer matches the digest's.
    std::fs::write(&cas[0], &blob[..blob.len() / 2]).unwrap();
    let ran = repo.run("reader2", &[], &[]);
    ran_and_passed(&ran);
    assert_eq!(repo.runs(), 3);

    // An /ac/ entry that is not an action result run-check wrote.
    std::fs::write(&nginx.entries("ac")[0], b"\x0a\x02garbage").unwrap();
    let ran = repo.run("reader3", &[], &[]);
    ran_and_passed(&ran);
    assert_eq!(repo.runs(), 4);
    assert_eq!(warnings(&ran.stderr).len(), 1, "{}", ran.stderr);
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// CREEP (CVE-2025-36852) played against the set-up docs/cache.md shows:
/// everyone reads, only the writers' token writes. A pull request's job
/// that turns writing on (`RUN_CHECK_CACHE_WRITE=1`, or `remote_write` in
/// its own checks.toml) without that token stores nothing; the default
/// branch's job, with it, does, and the pull request reads that.
#[test]
fn a_pull_request_cannot_write_where_only_the_writer_token_may() {
    const WRITER: &str = "writer-t0ken-of-main";
    let map = format!(
        "map $request_method:$http_authorization $run_check_denied {{\n    default 1;\n    ~^(GET|HEAD): 0;\n    \"PUT:Bearer {WRITER}\" 0;\n  }}"
    );
    let Some(nginx) = Nginx::start(&map, "if ($run_check_denied) { return 403; }") else {
        return;
    };
    let mut repo = Repo::new(
        &nginx.url(),
        "token_env = \"RUN_CHECK_CACHE_TOKEN\"\nremote_write = true\n",
    );
    // The pull request: no token (or a read one), writing turned on.
    let pr = repo.run("pr", &[], &[WRITE, ("RUN_CHECK_CACHE_TOKEN", "read-only")]);
    ran_and_passed(&pr);
    let lines = warnings(&pr.stderr);
    assert_eq!(lines.len(), 1, "{}", pr.stderr);
    assert!(
        lines[0].contains("PUT") && lines[0].contains("403"),
        "{}",
        lines[0]
    );
    assert!(
        nginx.entries("ac").is_empty(),
        "the pull request stored nothing"
    );
    // The default branch's job holds the writer token.
    let main = repo.run("main", &[], &[("RUN_CHECK_CACHE_TOKEN", WRITER)]);
    ran_and_passed(&main);
    assert!(warnings(&main.stderr).is_empty(), "{}", main.stderr);
    assert_eq!(nginx.entries("ac").len(), 1);
    // The next pull request reads it without any token.
    let next = repo.run("pr2", &[], &[]);
    assert_eq!(
        check(&next.evidence, "counted")["cache"]["source"],
        "remote"
    );
    assert_eq!(repo.runs(), 2);
}

/// The trusted writer stores the green commit's pass; then a file hidden
/// by an ignore rule shadows a module. A strict reader (another machine,
/// no `--cache`) must not take the stored pass: the key changed.
#[test]
fn a_shadow_hidden_by_an_ignore_rule_misses_the_remote() {
    let Some(nginx) = Nginx::start("", "") else {
        return;
    };
    for route in ["self-ignoring .gitignore", ".git/info/exclude"] {
        let mut repo = Repo::new(&nginx.url(), "");
        let writer = repo.run("writer", &[], &[WRITE]);
        ran_and_passed(&writer);
        crate::cache_attacks::hide(route, repo.path());
        assert_eq!(git(repo.path(), &["status", "--porcelain"]), "", "{route}");
        let reader = repo.run_expecting(&format!("reader-{route}"), &[], &[], 1);
        let entry = check(&reader.evidence, "counted");
        assert_eq!(entry["status"], "fail", "{route}: {entry}");
        assert_eq!(entry["cache"]["status"], "miss", "{route}: {entry}");
        assert_eq!(repo.runs(), 2, "{route}: the reader ran the check");
    }
}

/// A passing check (and a `version` command) that print their whole
/// environment while the run holds the cache's tokens: `token_env`'s
/// variable and `RUN_CHECK_CACHE_TOKEN`. Neither value reaches the
/// evidence, the local store, the remote's blobs or `cache key`.
#[test]
fn a_check_that_prints_its_environment_leaks_no_token() {
    const TOKEN: &str = "tok-env-5ecret-of-the-writer";
    const DEFAULT: &str = "tok-default-5ecret-unused";
    let guard = format!("if ($http_authorization != \"Bearer {TOKEN}\") {{ return 401; }}");
    let Some(nginx) = Nginx::start("", &guard) else {
        return;
    };
    // Short enough to be keyed as text (`cache key` prints it).
    let printenv = "#!/bin/sh\nenv | grep -e TOKEN -e COUNTERS\n";
    let mut repo = Repo::with(
        &nginx.url(),
        "token_env = \"MY_CACHE_TOKEN\"\nremote_write = true\n",
        "version = [\"./printenv.sh\"]\n",
        &[("printenv.sh", printenv)],
    );
    // The check prints its environment too.
    std::fs::write(repo.path().join("count.sh"), format!("{SCRIPT}env\n")).unwrap();
    git(repo.path(), &["commit", "-qam", "print the environment"]);
    let secrets = [
        ("MY_CACHE_TOKEN", TOKEN),
        ("RUN_CHECK_CACHE_TOKEN", DEFAULT),
    ];
    let writer = repo.run("writer", &[], &secrets);
    ran_and_passed(&writer);
    assert_eq!(nginx.entries("ac").len(), 1, "stored with the token");
    let excerpt = check(&writer.evidence, "counted")["stdout_excerpt"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        excerpt.contains("COUNTERS="),
        "the environment was printed: {excerpt}"
    );
    let reader = repo.run("reader", &[], &secrets);
    assert_eq!(
        check(&reader.evidence, "counted")["cache"]["source"],
        "remote"
    );
    // The run's arguments left out.
    let test = repo.test.take().expect("test").again();
    let key = test
        .command()
        .args(["cache", "key", "counted"])
        .envs(secrets)
        .output()
        .expect("cache key");
    repo.test = Some(test);
    let document = String::from_utf8_lossy(&key.stdout).into_owned();
    assert!(
        document.contains("COUNTERS="),
        "the version output is keyed: {document}\n{}",
        String::from_utf8_lossy(&key.stderr)
    );
    for secret in [TOKEN, DEFAULT] {
        for ran in [&writer, &reader] {
            assert!(!ran.stdout.contains(secret), "{secret} in the evidence");
            assert!(!ran.stderr.contains(secret));
        }
        assert!(!document.contains(secret), "{secret} in `cache key`");
        for file in walk(repo.side.path())
            .into_iter()
            .chain(walk(&nginx.dir.path().join("data")))
        {
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{secret} in {}",
                file.display()
            );
        }
    }
}

/// A remote that is down, under `--quiet`: the warning is still on
/// stderr, and the evidence of each check it affected says what failed,
/// for a lookup and for a write.
#[test]
fn a_remote_that_is_down_is_warned_under_quiet_and_in_the_evidence() {
    let down_url = format!("http://127.0.0.1:{}/cache", free_port());
    let mut repo = Repo::new(&down_url, "");
    for (machine, env) in [("w", &[WRITE][..]), ("r", &[][..])] {
        let ran = repo.run(machine, &["--quiet"], env);
        ran_and_passed(&ran);
        let lines = warnings(&ran.stderr);
        assert_eq!(lines.len(), 1, "{machine}: {}", ran.stderr);
        let error = check(&ran.evidence, "counted")["cache"]["remote_error"]
            .as_str()
            .unwrap_or_else(|| panic!("{machine}: no remote_error: {}", ran.stdout))
            .to_string();
        assert!(error.contains(&down_url), "{error}");
        assert!(!error.contains('\n'), "one line: {error}");
    }
    // A local hit never asked the remote: nothing to record.
    let hit = repo.run("w", &["--mode", "fast", "--quiet"], &[]);
    let cache = &check(&hit.evidence, "counted")["cache"];
    assert_eq!(cache["source"], "local");
    assert!(cache.get("remote_error").is_none(), "{cache}");
    assert!(warnings(&hit.stderr).is_empty(), "{}", hit.stderr);
}

/// The remote's 5 s budget starts at its first request: a `version`
/// command that takes longer than that before the lookups does not turn
/// a stored pass into a miss.
#[test]
fn the_remote_budget_starts_at_the_first_request() {
    let Some(nginx) = Nginx::start("", "") else {
        return;
    };
    let slow = "#!/bin/sh\nsleep \"${SLOW_VERSION:-0}\"\necho 'tool 1.0'\n";
    let mut repo = Repo::with(
        &nginx.url(),
        "",
        "version = [\"./slow.sh\"]\n",
        &[("slow.sh", slow)],
    );
    ran_and_passed(&repo.run("writer", &[], &[WRITE]));
    let reader = repo.run("reader", &[], &[("SLOW_VERSION", "6")]);
    let cache = &check(&reader.evidence, "counted")["cache"];
    assert_eq!(cache["status"], "hit", "{cache}\n{}", reader.stderr);
    assert_eq!(cache["source"], "remote");
    assert!(warnings(&reader.stderr).is_empty(), "{}", reader.stderr);
}
