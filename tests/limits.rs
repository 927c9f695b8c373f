//! Input limits: every file a user names (config, task, evidence, judge,
//! vote and retry input, history, merge and report input) is refused when
//! larger than its limit, after reading at most one byte more: `/dev/zero`,
//! a sparse file of a terabyte and an endless stdin each end in exit 2 with
//! one line naming the file and the limit, within seconds and with little
//! memory.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{Test, bin};

const CONFIG: &str = r#"[settings]
allow = ["true"]

[[check]]
name = "ok"
run = ["true"]
"#;

/// A worktree with a passing config, its evidence (`ev.json`) and a sparse
/// file of 1 TiB (`big`).
fn setup() -> Test {
    let test = Test::new().config(CONFIG);
    let out = Command::new(bin())
        .args(["--format", "json", "--out", "ev.json", "--quiet"])
        .current_dir(test.path())
        .stdin(Stdio::null())
        .output()
        .expect("run-check");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let big = std::fs::File::create(test.path().join("big")).expect("create big");
    big.set_len(1 << 40).expect("sparse file");
    test
}

/// Runs run-check with `args` in `dir` (stdin from `stdin`), and asserts
/// exit 2, one line on stderr naming `file` and the limit, and
/// (on Linux) a peak resident set under 200 MiB.
#[track_caller]
fn refused(dir: &Path, args: &[&str], stdin: Option<&str>, file: &str, limit: &str) {
    let mut command = Command::new(bin());
    command
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(path) => command.stdin(std::fs::File::open(path).expect("stdin file")),
        None => command.stdin(Stdio::null()),
    };
    let mut child = command.spawn().expect("spawn run-check");
    #[cfg(target_os = "linux")]
    let (status, peak_kib) = crate::support::wait_with_peak_rss(&mut child);
    #[cfg(not(target_os = "linux"))]
    let (status, peak_kib) = (child.wait().expect("wait"), 0u64);
    let output = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {stderr}");
    assert!(
        lines[0].contains(file) && lines[0].contains(limit),
        "{args:?}: names `{file}` and `{limit}`: {stderr}"
    );
    assert!(output.stdout.is_empty(), "{args:?}: no output");
    assert!(
        peak_kib < 200 * 1024,
        "{args:?}: peak resident set {peak_kib} KiB"
    );
}

const CONFIG_LIMIT: &str = "larger than 4 MiB, the limit for a config file";
const TASK_LIMIT: &str = "larger than 4 MiB, the limit for a task file";
const JSON_LIMIT: &str = "larger than 64 MiB, the limit for a JSON input";

#[test]
fn an_oversized_config_is_refused_by_every_command() {
    let test = setup();
    let dir = test.path();
    for config in ["/dev/zero", "big"] {
        if config.starts_with("/dev") && !Path::new(config).exists() {
            continue;
        }
        refused(dir, &["--config", config], None, config, CONFIG_LIMIT);
        refused(
            dir,
            &["--mode", "fast", "--config", config],
            None,
            config,
            CONFIG_LIMIT,
        );
        for command in ["validate", "list", "fix"] {
            refused(
                dir,
                &[command, "--config", config],
                None,
                config,
                CONFIG_LIMIT,
            );
        }
        refused(
            dir,
            &["judge", "ev.json", "--config", config],
            None,
            config,
            CONFIG_LIMIT,
        );
    }
    // Nothing was written beside the inputs.
    assert!(!dir.join("runs").exists());
}

#[test]
fn an_oversized_task_is_refused() {
    let test = setup();
    for task in ["/dev/zero", "big"] {
        if task.starts_with("/dev") && !Path::new(task).exists() {
            continue;
        }
        refused(
            test.path(),
            &["--format", "json", "--out", "out.json", "--task", task],
            None,
            task,
            TASK_LIMIT,
        );
        assert!(!test.path().join("out.json").exists(), "no partial output");
    }
}

#[test]
fn oversized_json_inputs_are_refused_by_every_reader() {
    let test = setup();
    let dir = test.path();
    for input in ["/dev/zero", "big"] {
        if input.starts_with("/dev") && !Path::new(input).exists() {
            continue;
        }
        refused(dir, &["merge", input], None, input, JSON_LIMIT);
        refused(dir, &["merge", "ev.json", input], None, input, JSON_LIMIT);
        refused(dir, &["judge", input], None, input, JSON_LIMIT);
        refused(
            dir,
            &["judge", "ev.json", "--history", input],
            None,
            input,
            JSON_LIMIT,
        );
        refused(dir, &["vote", input], None, input, JSON_LIMIT);
        let report = ["report", input, "--format", "text", "--out", "r.txt"];
        refused(dir, &report, None, input, JSON_LIMIT);
        let record = |evidence: &str, state: &str| {
            [
                "retry",
                "record",
                "--task",
                "T-1",
                "--phase",
                "verify",
                "--subagent",
                "a",
                "--evidence",
                evidence,
                "--state",
                state,
            ]
            .map(String::from)
        };
        let args = record(input, "state.json");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(dir, &args, None, input, JSON_LIMIT);
        let args = record("ev.json", input);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(dir, &args, None, input, JSON_LIMIT);
        refused(
            dir,
            &["retry", "status", "--state", input],
            None,
            input,
            JSON_LIMIT,
        );
    }
    assert!(!dir.join("state.json").exists(), "no state written");
    assert!(!dir.join("r.txt").exists(), "no report written");
}

#[cfg(unix)]
#[test]
fn an_endless_stdin_is_refused() {
    let test = setup();
    let dir = test.path();
    let zero = "/dev/zero";
    if !Path::new(zero).exists() {
        return;
    }
    refused(dir, &["vote", "-"], Some(zero), "<stdin>", JSON_LIMIT);
    refused(dir, &["judge", "-"], Some(zero), "<stdin>", JSON_LIMIT);
    let report = ["report", "-", "--format", "json"];
    refused(dir, &report, Some(zero), "<stdin>", JSON_LIMIT);
    refused(
        dir,
        &[
            "retry",
            "record",
            "--task",
            "T-1",
            "--phase",
            "verify",
            "--subagent",
            "a",
            "--evidence",
            "-",
            "--state",
            "state.json",
        ],
        Some(zero),
        "<stdin>",
        JSON_LIMIT,
    );
}

/// A document under the byte limit whose values would take a GiB to parse
/// (60 MiB of `0,`) is refused by its count of values, before parsing.
#[test]
fn a_document_of_too_many_values_is_refused_before_parsing() {
    let test = setup();
    let dir = test.path();
    let mut text = String::with_capacity(60 << 20);
    text.push_str("{\"schema_version\": 1, \"x\": [");
    text.push_str(&"0,".repeat(30 << 20));
    text.push_str("0]}");
    std::fs::write(dir.join("flat.json"), text).unwrap();
    let limit = "more than 1000000 JSON values, the limit for one input";
    refused(dir, &["merge", "flat.json"], None, "flat.json", limit);
    refused(dir, &["judge", "flat.json"], None, "flat.json", limit);
    refused(dir, &["vote", "flat.json"], None, "flat.json", limit);
    let report = ["report", "flat.json", "--format", "json"];
    refused(dir, &report, None, "flat.json", limit);
}

/// An input at the limit's scale but under it still reads: a 3 MiB config
/// (mostly a comment) is a valid config.
#[test]
fn a_large_config_under_the_limit_still_reads() {
    let comment = format!("# {}\n", "x".repeat(3 * 1024 * 1024));
    let test = Test::new().config(&format!("{comment}{CONFIG}"));
    let run = test.args(&["validate"]).run().success();
    assert!(run.stdout.contains("valid (1 check,"), "{}", run.stdout);
}

/// Every file `candidates` reads from `--runs` (left there by a past round,
/// or replaced by anyone who can write there) is read within a bound: each
/// linked to `/dev/zero` stops the round before anything is written, with
/// one line naming the file and the limit.
#[cfg(unix)]
#[test]
fn candidates_reads_every_file_of_its_runs_folder_within_a_bound() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let candidate = Test::new().config(CONFIG);
    crate::support::git(candidate.path(), &["add", "."]);
    crate::support::git(candidate.path(), &["commit", "-q", "-m", "config"]);
    let project = tempfile::tempdir().unwrap();
    let task = serde_json::json!({
        "id": "T-1", "title": "t", "description": "d", "risk": "low",
        "parallel_count": 1,
        "acceptance": {"commands": ["run-check --mode strict --format json"],
                       "criteria": "passes"},
        "estimated_loc": 1, "files_involved": [], "public_contracts_touched": "N/A",
        "base": "main"
    });
    std::fs::write(project.path().join("task.json"), task.to_string()).unwrap();
    let named = format!("c={}", candidate.path().display());
    for (file, limit) in [
        (
            "runs/T-1/rounds",
            "larger than 1 MiB, the limit for a round counter",
        ),
        ("runs/T-1/index.json", JSON_LIMIT),
        ("runs/T-1/retry-state.json", JSON_LIMIT),
        ("runs/T-1/c/history.jsonl", JSON_LIMIT),
    ] {
        let runs = project.path().join("runs");
        let _ = std::fs::remove_dir_all(&runs);
        let link = project.path().join(file);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let out = Command::new(bin())
            .args(["candidates", "--task", "task.json", &named])
            .current_dir(project.path())
            .stdin(Stdio::null())
            .output()
            .expect("run-check candidates");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{file}: {stderr}");
        assert!(
            lines[0].contains(&format!("`{file}`")) && lines[0].ends_with(limit),
            "{file}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{file}");
        // Nothing was written: no candidate file, no index, no round.
        assert!(!runs.join("T-1/c/task.json").exists(), "{file}");
        assert!(!runs.join("T-1/index.md").exists(), "{file}");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{file}"
        );
    }
}
