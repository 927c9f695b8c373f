//! `--shard K/N` and `run-check merge` (docs/merge.md): shards cover every
//! check exactly once, and merging them reproduces the unsharded summary,
//! banner and exit code; inconsistent inputs are refused unless `--force`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{Test, git};

/// Twelve checks, two of which fail and one errors.
fn config() -> String {
    let mut text =
        String::from("[settings]\nallow = [\"true\", \"false\", \"no-such-program-zz\"]\n");
    for i in 0..12 {
        let program = match i {
            3 | 8 => "false",
            5 => "no-such-program-zz",
            _ => "true",
        };
        text.push_str(&format!(
            "[[check]]\nname = \"c{i:02}\"\nrun = [\"{program}\"]\n"
        ));
    }
    text
}

fn repo() -> Test {
    let test = Test::new().config(&config()).file(".gitignore", "runs/\n");
    git(test.path(), &["add", "."]);
    git(test.path(), &["commit", "-q", "-m", "checks"]);
    std::fs::create_dir(test.path().join("runs")).unwrap();
    test
}

fn names(ev: &Value) -> Vec<String> {
    ev["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

/// Runs run-check in `dir` with `args`, returning (exit code, stdout, stderr).
fn run_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = std::process::Command::new(crate::support::bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn read(dir: &std::path::Path, path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(path)).unwrap()).unwrap()
}

#[test]
fn shards_cover_every_check_once_and_merge_reproduces_the_whole() {
    let test = repo();
    let dir = test.path();
    let (code, _, _) = run_in(dir, &["--format", "json", "--out", "runs/all.json"]);
    assert_eq!(code, Some(2));
    let whole = read(dir, "runs/all.json");

    let mut seen = BTreeSet::new();
    let mut total = 0;
    for k in 1..=3 {
        let out = format!("runs/shard{k}.json");
        let shard = format!("{k}/3");
        run_in(dir, &["--shard", &shard, "--format", "json", "--out", &out]);
        let ev = read(dir, &out);
        assert_eq!(ev["meta"]["shard"]["index"], k);
        assert_eq!(ev["meta"]["shard"]["count"], 3);
        total += names(&ev).len();
        seen.extend(names(&ev));
    }
    assert_eq!(total, 12, "a check ran in two shards");
    assert_eq!(seen, names(&whole).into_iter().collect::<BTreeSet<_>>());

    let (code, stdout, stderr) = run_in(
        dir,
        &[
            "merge",
            "runs/shard3.json",
            "runs/shard1.json",
            "runs/shard2.json",
            "--out",
            "runs/merged.json",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stdout, "");
    let merged = read(dir, "runs/merged.json");
    // Same checks in the same (config) order, same counts, banner, exit code.
    assert_eq!(names(&merged), names(&whole));
    for key in [
        "all_checks_passed",
        "banner",
        "total",
        "passed",
        "failed",
        "errored",
        "skipped",
        "exit_code",
    ] {
        assert_eq!(
            merged["summary"][key], whole["summary"][key],
            "summary.{key}"
        );
    }
    assert_eq!(
        merged["summary"]["banner"],
        "2 of 12 checks failed: c03, c08; 1 of 12 checks errored: c05"
    );
    assert_eq!(stderr.lines().last(), merged["summary"]["banner"].as_str());
    let from = merged["meta"]["merged_from"].as_array().unwrap();
    assert_eq!(from.len(), 3);
    assert_eq!(from[0]["path"], "runs/shard3.json");
    assert_eq!(merged["meta"]["shard"], Value::Null);
    assert_eq!(merged["meta"]["commands"].as_array().unwrap().len(), 11);
}

#[test]
fn merge_refuses_inconsistent_inputs_unless_forced() {
    let test = repo();
    let dir = test.path();
    run_in(
        dir,
        &[
            "--shard",
            "1/2",
            "--format",
            "json",
            "--out",
            "runs/s1.json",
        ],
    );
    run_in(
        dir,
        &[
            "--shard",
            "2/2",
            "--format",
            "json",
            "--out",
            "runs/s2.json",
        ],
    );

    let (code, _, stderr) = run_in(dir, &["merge", "runs/s1.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: cannot merge: missing shard 2/2 (use --force to merge what is here)\n"
    );

    let (code, _, stderr) = run_in(dir, &["merge", "runs/s1.json", "runs/s1.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: cannot merge: shard 1/2 is given twice (use --force)\n"
    );

    // A new commit: the second shard no longer matches the first.
    std::fs::write(dir.join("extra.txt"), "x").unwrap();
    git(dir, &["add", "extra.txt"]);
    git(dir, &["commit", "-q", "-m", "more"]);
    run_in(
        dir,
        &[
            "--shard",
            "2/2",
            "--format",
            "json",
            "--out",
            "runs/s2.json",
        ],
    );
    let (code, _, stderr) = run_in(dir, &["merge", "runs/s1.json", "runs/s2.json"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: cannot merge: `runs/s1.json` is of commit `"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);

    // --force merges anyway; stdout gets the document.
    let (code, stdout, _) = run_in(dir, &["merge", "--force", "runs/s1.json", "runs/s2.json"]);
    let merged: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(merged["summary"]["total"], 12);
    assert_eq!(
        code,
        merged["summary"]["exit_code"].as_i64().map(|c| c as i32)
    );

    // The same check twice is never merged.
    let (code, _, stderr) = run_in(dir, &["merge", "--force", "runs/s1.json", "runs/s1.json"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("is in both `runs/s1.json` and `runs/s1.json`"),
        "{stderr}"
    );
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let test = repo().file("runs/junk.json", "{\"schema_version\": 1}\n");
    let dir = test.path();
    let (code, _, stderr) = run_in(dir, &["merge", "runs/junk.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: runs/junk.json: $.meta: missing required field\n"
    );
    // Syntax and version are worded as for every JSON input.
    for (text, expected) in [
        (
            "",
            "error: runs/bad.json:1:1: invalid JSON: EOF while parsing a value\n",
        ),
        (
            "{\"schema_version\": 2, \"checks\": 1}",
            "error: runs/bad.json: $.schema_version: unsupported evidence version 2 \
             (this run-check reads version 1)\n",
        ),
    ] {
        std::fs::write(dir.join("runs/bad.json"), text).unwrap();
        let (code, _, stderr) = run_in(dir, &["merge", "runs/bad.json"]);
        assert_eq!(code, Some(2));
        assert_eq!(stderr, expected);
    }
    let (code, _, stderr) = run_in(dir, &["--shard", "4/3"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: --shard `4/3`: expected K/N with 1 <= K <= N, e.g. 2/4\n"
    );
    let (code, _, _) = run_in(dir, &["merge", "runs/missing.json"]);
    assert_eq!(code, Some(2));
}

/// `path`'s evidence with `meta.shard` replaced by `shard` (`None`: removed).
fn rewrite(dir: &std::path::Path, from: &str, to: &str, shard: Option<Value>) {
    let mut ev = read(dir, from);
    match shard {
        Some(shard) => ev["meta"]["shard"] = shard,
        None => {
            ev["meta"].as_object_mut().unwrap().remove("shard");
        }
    }
    std::fs::write(dir.join(to), ev.to_string()).unwrap();
}

#[test]
fn a_whole_run_merges_alone_and_never_with_shards() {
    let test = repo();
    let dir = test.path();
    for (args, out) in [
        (vec![], "runs/whole.json"),
        (vec!["--shard", "1/2"], "runs/s1.json"),
        (vec!["--shard", "2/2"], "runs/s2.json"),
    ] {
        let mut args = args;
        args.extend(["--format", "json", "--out", out]);
        run_in(dir, &args);
    }
    let whole = read(dir, "runs/whole.json");
    assert_eq!(whole["meta"]["shard"], Value::Null);

    // Alone, it is the whole run (1/1): same checks, summary and exit code.
    let (code, stdout, stderr) = run_in(dir, &["merge", "runs/whole.json"]);
    assert_eq!(code, Some(2), "c05 errors: {stderr}");
    let merged: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(names(&merged), names(&whole));
    for field in [
        "total",
        "passed",
        "failed",
        "errored",
        "banner",
        "exit_code",
    ] {
        assert_eq!(merged["summary"][field], whole["summary"][field], "{field}");
    }
    assert_eq!(merged["meta"]["merged_from"][0]["shard"], Value::Null);

    // With shards, in either order, the error names the whole run's file.
    for inputs in [
        ["runs/s1.json", "runs/whole.json", "runs/s2.json"],
        ["runs/whole.json", "runs/s1.json", "runs/s2.json"],
    ] {
        let mut args = vec!["merge"];
        args.extend(inputs);
        let (code, stdout, stderr) = run_in(dir, &args);
        assert_eq!(code, Some(2));
        assert!(stdout.is_empty());
        assert_eq!(
            stderr,
            "error: runs/whole.json: $.meta.shard: missing: a run without --shard is the \
             whole run (1/1) and cannot be merged with the shards of `runs/s1.json` \
             (use --force)\n"
        );
    }
    // Two whole runs: the second is named.
    rewrite(dir, "runs/s1.json", "runs/other.json", None);
    let (code, _, stderr) = run_in(dir, &["merge", "runs/whole.json", "runs/other.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: runs/other.json: $.meta.shard: missing: a run without --shard is the whole \
         run (1/1), and so is `runs/whole.json` (use --force)\n"
    );
}

#[test]
fn an_impossible_or_disagreeing_shard_count_names_its_file() {
    let test = repo();
    let dir = test.path();
    run_in(
        dir,
        &[
            "--shard",
            "1/2",
            "--format",
            "json",
            "--out",
            "runs/s1.json",
        ],
    );
    run_in(
        dir,
        &[
            "--shard",
            "2/2",
            "--format",
            "json",
            "--out",
            "runs/s2.json",
        ],
    );
    let before = read(dir, "runs/s2.json")["meta"]["shard"]["checks_before_sharding"].clone();
    let shard = |index: u32, count: u32| {
        Some(serde_json::json!({"index": index, "count": count, "checks_before_sharding": before}))
    };

    // count 0 is named in its own file, whichever comes first, even forced.
    rewrite(dir, "runs/s2.json", "runs/zero.json", shard(2, 0));
    for args in [
        vec!["merge", "runs/s1.json", "runs/zero.json"],
        vec!["merge", "runs/zero.json", "runs/s1.json"],
        vec!["merge", "--force", "runs/s1.json", "runs/zero.json"],
    ] {
        let (code, _, stderr) = run_in(dir, &args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(
            stderr, "error: runs/zero.json: $.meta.shard.count: must be at least 1, found 0\n",
            "{args:?}"
        );
    }
    // An index outside 1..count.
    rewrite(dir, "runs/s2.json", "runs/high.json", shard(3, 2));
    let (code, _, stderr) = run_in(dir, &["merge", "runs/s1.json", "runs/high.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: runs/high.json: $.meta.shard.index: must be between 1 and the count (2), \
         found 3\n"
    );
    // Shards of different splits: the one that disagrees with the first.
    rewrite(dir, "runs/s2.json", "runs/of3.json", shard(2, 3));
    let (code, _, stderr) = run_in(dir, &["merge", "runs/s1.json", "runs/of3.json"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: runs/of3.json: $.meta.shard.count: 3, but `runs/s1.json` is a shard of 2 \
         (use --force)\n"
    );
    // The pair as written merges.
    let (code, stdout, _) = run_in(dir, &["merge", "runs/s1.json", "runs/s2.json"]);
    let merged: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(merged["summary"]["total"], 12);
    assert_eq!(merged["summary"]["exit_code"], 2);
    assert_eq!(code, Some(2));
}

/// The shard (1..=3) of each check of `config()` in a `K/3` split, from
/// real runs with `extra` options.
fn membership(dir: &std::path::Path, count: u32, extra: &[&str]) -> Vec<Vec<String>> {
    (1..=count)
        .map(|k| {
            let out = format!("runs/m{k}of{count}.json");
            let shard = format!("{k}/{count}");
            let mut args = vec!["--shard", &shard, "--format", "json", "--out", &out];
            args.extend(extra);
            let (code, _, stderr) = run_in(dir, &args);
            assert!(matches!(code, Some(0..=2)), "{stderr}");
            names(&read(dir, &out))
        })
        .collect()
}

/// The merged evidence of a hash split into 3, its durations set: c00 2 s
/// down to c08 0.3 s; c05 (errored) and c09 (set to skipped) have none, and
/// c10 and c11 are not in it.
fn merged_timings(dir: &std::path::Path) -> Vec<Vec<String>> {
    let hashed = membership(dir, 3, &[]);
    let (code, _, stderr) = run_in(
        dir,
        &[
            "merge",
            "runs/m1of3.json",
            "runs/m2of3.json",
            "runs/m3of3.json",
            "--out",
            "runs/timings.json",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    let mut ev = read(dir, "runs/timings.json");
    let durations = [
        ("c00", 2000),
        ("c01", 1700),
        ("c02", 1400),
        ("c03", 1100),
        ("c04", 900),
        ("c05", 5000),
        ("c06", 700),
        ("c07", 500),
        ("c08", 300),
        ("c09", 9000),
    ];
    let checks = ev["checks"].as_array_mut().unwrap();
    checks.retain(|c| !matches!(c["name"].as_str(), Some("c10" | "c11")));
    for check in checks.iter_mut() {
        let name = check["name"].as_str().unwrap().to_string();
        let ms = durations.iter().find(|(n, _)| *n == name).unwrap().1;
        check["duration_ms"] = ms.into();
        if name == "c09" {
            check["status"] = "skip".into();
            check["skip_reason"] = "interrupted".into();
        }
    }
    assert_eq!(ev["checks"][5]["status"], "error");
    std::fs::write(dir.join("runs/timings.json"), ev.to_string()).unwrap();
    hashed
}

#[test]
fn timings_split_longest_first_and_unknown_checks_follow_the_hash() {
    let test = repo();
    let dir = test.path();
    let hashed = merged_timings(dir);
    let split = membership(dir, 3, &["--timings", "runs/timings.json"]);
    // c05, c09, c10, c11 have no usable duration: where the hash split put
    // them, each counting as the mean known duration (8600 / 8 = 1075), so
    // the shards start at 0, 3225 (c05, c10, c11) and 1075 (c09). Then
    // longest first onto the least loaded: c00 → 1, c01 → 3, c02 → 1,
    // c03 → 3, c04 → 2, c06 → 1, c07 → 3, c08 → 1.
    assert_eq!(
        split,
        [
            vec!["c00", "c02", "c06", "c08"],
            vec!["c04", "c05", "c10", "c11"],
            vec!["c01", "c03", "c07", "c09"],
        ]
    );
    for unknown in ["c05", "c09", "c10", "c11"] {
        let at =
            |shards: &[Vec<String>]| shards.iter().position(|s| s.iter().any(|n| n == unknown));
        assert_eq!(at(&split), at(&hashed), "{unknown}");
    }
    // Evidence of an earlier run-check, without the fields added since,
    // times the same split.
    let mut older = read(dir, "runs/timings.json");
    crate::support::first_version(&mut older);
    std::fs::write(dir.join("runs/older.json"), older.to_string()).unwrap();
    assert_eq!(membership(dir, 3, &["--timings", "runs/older.json"]), split);
    membership(dir, 3, &["--timings", "runs/timings.json"]);
    let ev = read(dir, "runs/m2of3.json");
    assert_eq!(ev["meta"]["shard"]["timings"], "runs/timings.json");
    assert_eq!(
        ev["meta"]["shard"]["checks_before_sharding"]
            .as_array()
            .unwrap()
            .len(),
        12
    );
    let hashed_ev = read(dir, "runs/timings.json");
    assert_eq!(
        hashed_ev["meta"]["merged_from"][0]["shard"]["timings"],
        Value::Null
    );
    // `merge` joins them as it joins any split.
    let (code, _, stderr) = run_in(
        dir,
        &[
            "merge",
            "runs/m1of3.json",
            "runs/m2of3.json",
            "runs/m3of3.json",
            "--out",
            "runs/merged.json",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    let merged = read(dir, "runs/merged.json");
    assert_eq!(
        names(&merged),
        (0..12).map(|i| format!("c{i:02}")).collect::<Vec<_>>()
    );
    assert_eq!(
        merged["summary"]["banner"],
        "2 of 12 checks failed: c03, c08; 1 of 12 checks errored: c05"
    );
}

#[test]
fn every_check_runs_in_exactly_one_timed_shard_for_any_count() {
    let test = repo();
    let dir = test.path();
    merged_timings(dir);
    let all: Vec<String> = (0..12).map(|i| format!("c{i:02}")).collect();
    for count in 1..=4 {
        let shards = membership(dir, count, &["--timings", "runs/timings.json"]);
        let mut seen: Vec<String> = shards.concat();
        seen.sort();
        assert_eq!(seen, all, "{count} shards");
    }
    // More shards than checks: some are empty, and still every check runs once.
    let shards = membership(dir, 13, &["--timings", "runs/timings.json"]);
    assert_eq!(shards.concat().len(), 12);
    assert_eq!(shards.iter().filter(|s| s.is_empty()).count(), 1);
}

#[test]
fn bad_timings_are_one_line_errors_worded_as_every_reader_words_them() {
    let test = repo();
    let dir = test.path();
    run_in(dir, &["--format", "json", "--out", "runs/all.json"]);
    let mut ev = read(dir, "runs/all.json");
    ev["checks"][2]["duration_ms"] = "fast".into();
    std::fs::write(dir.join("runs/bad.json"), ev.to_string()).unwrap();
    std::fs::write(dir.join("runs/syntax.json"), "{\"checks\": [").unwrap();
    for (file, expected) in [
        (
            "runs/bad.json",
            "error: runs/bad.json: $.checks[2].duration_ms: expected a non-negative integer, \
             found string\n",
        ),
        (
            "runs/syntax.json",
            "error: runs/syntax.json:1:12: invalid JSON: EOF while parsing a list\n",
        ),
    ] {
        let (code, stdout, stderr) = run_in(
            dir,
            &[
                "--shard",
                "1/2",
                "--timings",
                file,
                "--out",
                "runs/out.json",
            ],
        );
        assert_eq!(code, Some(2));
        assert_eq!((stdout.as_str(), stderr.as_str()), ("", expected));
        assert!(!dir.join("runs/out.json").exists());
        // The same words as `judge` reading the same file.
        let (code, _, judged) = run_in(dir, &["judge", file]);
        assert_eq!((code, judged.as_str()), (Some(2), expected));
    }
    let (code, _, stderr) = run_in(
        dir,
        &[
            "--shard",
            "1/2",
            "--timings",
            "runs/none.json",
            "--out",
            "runs/out.json",
        ],
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: ") && stderr.contains("runs/none.json"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
    assert!(!dir.join("runs/out.json").exists());
    // --timings needs --shard.
    let (code, _, stderr) = run_in(
        dir,
        &["--timings", "runs/all.json", "--out", "runs/out.json"],
    );
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: the following required arguments were not provided: --shard <K/N> \
         (see `run-check --help`)\n"
    );
    assert!(!dir.join("runs/out.json").exists());
}

/// Shards split by different `--timings` (here one timed, one by the hash)
/// can leave a check in no shard: merge refuses, naming them, unless
/// `--force`; shards of different selections are refused too.
#[test]
fn a_check_in_no_shard_is_refused_unless_forced() {
    let test = repo();
    let dir = test.path();
    merged_timings(dir);
    let hashed = membership(dir, 2, &[]);
    for k in [1, 2] {
        let from = dir.join(format!("runs/m{k}of2.json"));
        std::fs::copy(from, dir.join(format!("runs/h{k}.json"))).unwrap();
    }
    // runs/m1of2.json is now shard 1 split by the timings.
    let timed = membership(dir, 2, &["--timings", "runs/timings.json"]);
    // Shard 1 timed, shard 2 by the hash: some check is in neither.
    let lost: Vec<&String> = timed[1]
        .iter()
        .filter(|name| !hashed[1].contains(name))
        .collect();
    assert!(!lost.is_empty(), "{timed:?} {hashed:?}");
    let (code, stdout, stderr) = run_in(dir, &["merge", "runs/m1of2.json", "runs/h2.json"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let names: Vec<String> = lost.iter().map(|n| format!("`{n}`")).collect();
    assert!(stderr.contains(&names.join(", ")), "{stderr} {lost:?}");
    assert!(
        stderr.contains("--timings runs/timings.json and the hash split"),
        "{stderr}"
    );
    // --force merges what is there (a check in both is still refused).
    let both = timed[0].iter().any(|n| hashed[1].contains(n));
    let (code, _, stderr) = run_in(
        dir,
        &["merge", "--force", "runs/m1of2.json", "runs/h2.json"],
    );
    if both {
        assert!(stderr.contains("is in both"), "{stderr}");
    } else {
        assert!(
            matches!(code, Some(0..=2)) && !stderr.contains("no shard"),
            "{stderr}"
        );
    }

    // A shard of another selection (`--skip`): runs/m2of2.json.
    membership(dir, 2, &["--skip", "c00"]);
    let (code, _, stderr) = run_in(dir, &["merge", "runs/h1.json", "runs/m2of2.json"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(
            "runs/m2of2.json: $.meta.shard.checks_before_sharding: differs from that of `runs/h1.json`"
        ),
        "{stderr}"
    );
}
