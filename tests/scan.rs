//! Built-in scan checks end to end (docs/checks-toml.md): the real binary scans a
//! temp worktree; findings land in `diagnostics[]` with worktree-relative
//! files, lines and `<set>/<name>` rules; secrets never reach any output;
//! `.gitignore`d files are not read, binary and oversized ones are, and a
//! changed file the scan cannot read fails it; warnings alone pass.
//!
//! Secret samples are assembled at run time so that this file holds no
//! literal a secret scanner would flag; the other patterns are written out
//! (this file trips its own rule sets: scan it only with that in mind). The
//! corpus of tests/fixtures/secrets/ holds its tokens defused by a `%%`,
//! removed when it is copied into a test worktree.

use serde_json::{Value, json};

use crate::support::{Test, bin, check, git, repo_root};

const SCAN: &str = r#"
[[check]]
name = "anti-cheat"
scan = { paths = ["src/**", "tests/**"], rules = ["skipped-tests", "placeholder-asserts", "secrets", "debug-leftovers"] }

[[check.rule]]
id = "no-fixme"
pattern = 'FIXME\b'
message = "resolve the FIXME before merging"
"#;

fn aws_key() -> String {
    format!("AKIA{}", "Z3X8C1V6B9N2M5Q7")
}

fn github_token() -> String {
    format!("gh{}_{}", "p", "Zq81Xw72Ce63Vr54Bt45Ny36Mu27Li18Ko09")
}

fn password() -> String {
    format!("{}-{}", "Tr0ub4dor", "horse-staple-93")
}

/// (file, line, rule) of every diagnostic of check `name`, sorted.
fn found(ev: &Value, name: &str) -> Vec<(String, u64, String)> {
    let mut out: Vec<(String, u64, String)> = ev["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["check"] == name)
        .map(|d| {
            (
                d["file"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["rule"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn row(file: &str, line: u64, rule: &str) -> (String, u64, String) {
    (file.to_string(), line, rule.to_string())
}

/// A worktree with every rule set's pattern at known lines, plus files that
/// must not be read and files that hide nothing by being binary or large.
fn cheating_tree() -> Test {
    let mut big = "dbg!(big);\n".to_string();
    big.push_str(&" ".repeat(1024 * 1024));
    Test::new()
        .config(SCAN)
        .file(".gitignore", "src/generated/\n")
        .file(
            "src/lib.rs",
            "pub fn add(a: u32, b: u32) -> u32 {\n    dbg!(a + b)\n}\n\n#[test]\n#[ignore]\nfn adds() {\n    assert!(true);\n}\n// FIXME: overflow\n",
        )
        .file(
            "tests/test_app.py",
            "import pytest\n\n@pytest.mark.skip(reason=\"later\")\ndef test_app():\n    assert True\n    breakpoint()\n",
        )
        .file(
            "tests/app.test.js",
            "it.skip('adds', () => {\n  expect(true).toBe(true);\n  console.log('here');\n});\n",
        )
        .file(
            "tests/app_test.go",
            "package app\n\nfunc TestApp(t *testing.T) {\n\tt.Skip(\"flaky\")\n}\n",
        )
        .file(
            "src/settings.py",
            &format!(
                "DEBUG = False\npassword = \"{}\"\nAWS_ID = \"{}\"\nGH = \"{}\"\n",
                password(),
                aws_key(),
                github_token()
            ),
        )
        // Not read: ignored, outside `paths`. Read: binary, over 1 MiB.
        .file("src/generated/out.rs", "dbg!(generated);\n")
        .file("docs/example.rs", "dbg!(docs);\n")
        .file("src/blob.bin", "dbg!(blob);\n\0\0\0\n")
        .file("src/big.rs", &big)
}

fn expected() -> Vec<(String, u64, String)> {
    let mut rows = vec![
        row("src/big.rs", 1, "debug-leftovers/rust-dbg"),
        row("src/blob.bin", 1, "debug-leftovers/rust-dbg"),
        row("src/lib.rs", 2, "debug-leftovers/rust-dbg"),
        row("src/lib.rs", 6, "skipped-tests/rust-ignore"),
        row("src/lib.rs", 8, "placeholder-asserts/rust-assert-true"),
        row("src/lib.rs", 10, "no-fixme"),
        row("src/settings.py", 2, "secrets/credential-assignment"),
        row("src/settings.py", 3, "secrets/aws-access-key-id"),
        row("src/settings.py", 4, "secrets/github-token"),
        row("tests/app.test.js", 1, "skipped-tests/js-skip"),
        row(
            "tests/app.test.js",
            2,
            "placeholder-asserts/js-expect-literal",
        ),
        row("tests/app.test.js", 3, "debug-leftovers/js-console-log"),
        row("tests/app_test.go", 4, "skipped-tests/go-skip"),
        row("tests/test_app.py", 3, "skipped-tests/python-skip"),
        row(
            "tests/test_app.py",
            5,
            "placeholder-asserts/python-assert-true",
        ),
        row("tests/test_app.py", 6, "debug-leftovers/python-breakpoint"),
    ];
    rows.sort();
    rows
}

#[test]
fn every_rule_set_is_reported_with_file_line_and_rule() {
    let run = cheating_tree().args(&["--format", "json"]).run().status(1);
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "anti-cheat")["status"], "fail");
    assert_eq!(ev["summary"]["exit_code"], 1);
    assert_eq!(ev["summary"]["all_checks_passed"], false);
    assert_eq!(found(&ev, "anti-cheat"), expected());
    let diagnostics = ev["diagnostics"].as_array().unwrap();
    assert!(diagnostics.iter().all(|d| d["severity"] == "error"));
    let fixme = diagnostics
        .iter()
        .find(|d| d["rule"] == "no-fixme")
        .unwrap();
    assert_eq!(fixme["message"], "resolve the FIXME before merging");
    assert_eq!(fixme["column"], 4);
    assert_eq!(
        check(&ev, "anti-cheat")["diagnostics_count"].as_u64(),
        Some(expected().len() as u64)
    );
    // Diagnostics come sorted by file, then line.
    let order: Vec<(String, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn secrets_never_reach_evidence_or_any_report() {
    let secrets = [aws_key(), github_token(), password()];
    for format in ["json", "text", "sarif", "github", "markdown", "junit"] {
        let run = cheating_tree().args(&["--format", format]).run().status(1);
        for secret in &secrets {
            // Neither the whole value nor its distinctive tail.
            for text in [secret.as_str(), &secret[secret.len() - 8..]] {
                assert!(!run.stdout.contains(text), "{format} stdout has a secret");
                assert!(!run.stderr.contains(text), "{format} stderr has a secret");
            }
        }
        if format == "json" {
            let ev = run.json_stdout();
            let secrets_found: Vec<&Value> = ev["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["rule"].as_str().unwrap().starts_with("secrets/"))
                .collect();
            assert_eq!(secrets_found.len(), 3);
            for d in secrets_found {
                assert_eq!(d["suggestion"], Value::Null);
                assert!(d["message"].as_str().unwrap().contains("value not shown"));
            }
        }
    }
    // The evidence file too.
    let run = cheating_tree()
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let text = std::fs::read_to_string(run.test.path().join("ev.json")).unwrap();
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()));
    }
}

#[test]
fn the_text_report_names_the_rule_and_file() {
    let run = cheating_tree().run().status(1);
    assert!(run.stdout.contains("anti-cheat"), "{}", run.stdout);
    assert!(
        run.stdout.lines().last().unwrap().contains("anti-cheat"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_clean_tree_passes() {
    let run = Test::new()
        .config(SCAN)
        .file(
            "src/lib.rs",
            "/// Adds.\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n",
        )
        .file(
            "tests/test_app.py",
            "def test_add():\n    assert add(1, 2) == 3\n    password = os.environ[\"PW\"]\n",
        )
        .args(&["--format", "json"])
        .run()
        .success();
    assert_eq!(found(&run.json_stdout(), "anti-cheat"), vec![]);
    assert_eq!(check(&run.json_stdout(), "anti-cheat")["status"], "pass");
}

#[test]
fn ignored_files_are_not_read_and_binary_and_oversized_ones_are() {
    let mut big = " ".repeat(1024 * 1024);
    big.push_str("\ndbg!(big);\n");
    let run = Test::new()
        .config(SCAN)
        .file(".gitignore", "src/generated/\n")
        .file("src/generated/out.rs", "dbg!(generated);\n")
        .file("src/blob.bin", "\0\ndbg!(blob);\n")
        .file("src/big.rs", &big)
        .file("src/ok.rs", "pub fn ok() {}\n")
        .args(&["--format", "json"])
        .run()
        .status(1);
    assert_eq!(
        found(&run.json_stdout(), "anti-cheat"),
        vec![
            row("src/big.rs", 2, "debug-leftovers/rust-dbg"),
            row("src/blob.bin", 2, "debug-leftovers/rust-dbg"),
        ]
    );
}

#[test]
fn gitignore_counts_outside_a_git_repository() {
    let run = Test::bare()
        .config(SCAN)
        .file(".gitignore", "build/\n")
        .file("src/build/gen.rs", "dbg!(x);\n")
        .file("src/main.rs", "fn main() {\n    dbg!(1);\n}\n")
        .args(&["--format", "json"])
        .run()
        .status(1);
    assert_eq!(
        found(&run.json_stdout(), "anti-cheat"),
        vec![row("src/main.rs", 2, "debug-leftovers/rust-dbg")]
    );
}

#[test]
fn warning_rules_alone_pass_with_warning_diagnostics() {
    let run = Test::new()
        .config(
            "[[check]]\nname = \"todos\"\nscan = { paths = [\"src/**\"] }\n\
             [[check.rule]]\nid = \"todo\"\npattern = 'TODO'\nseverity = \"warning\"\n",
        )
        .file("src/lib.rs", "// TODO: later\npub fn f() {}\n")
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(check(&ev, "todos")["status"], "pass");
    let d = &ev["diagnostics"][0];
    assert_eq!(d["file"], "src/lib.rs");
    assert_eq!(d["line"], 1);
    assert_eq!(d["column"], 4);
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["rule"], "todo");
    assert_eq!(d["message"], "matches pattern todo");
}

/// A link out of the worktree is never followed: when it is part of the
/// change, the scan fails on it (a `scan-skipped` finding at the link);
/// once committed with the base, it is only listed.
#[cfg(unix)]
#[test]
fn symlinks_out_of_the_worktree_are_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("leak.rs"), "dbg!(outside);\n").unwrap();
    let test = Test::new()
        .config(SCAN)
        .file("src/ok.rs", "pub fn ok() {}\n");
    std::os::unix::fs::symlink(outside.path(), test.path().join("src/linked")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("leak.rs"),
        test.path().join("src/leak.rs"),
    )
    .unwrap();
    let run = test.args(&["--format", "json"]).run().status(1);
    assert_eq!(
        found(&run.json_stdout(), "anti-cheat"),
        vec![
            row("src/leak.rs", 0, "scan-skipped"),
            row("src/linked", 0, "scan-skipped"),
        ]
    );
    let test = committed(run.test.again());
    let run = test.args(&["--format", "json"]).run().success();
    let ev = run.json_stdout();
    assert_eq!(found(&ev, "anti-cheat"), vec![]);
    let skipped = &check(&ev, "anti-cheat")["data"]["skipped"];
    assert_eq!(skipped.as_array().unwrap().len(), 2);
}

#[test]
fn a_directory_in_scan_paths_scans_everything_below_it() {
    // `src` and `src/` read as `.gitignore` reads them: the directory and
    // everything below it. Before, both scanned nothing and passed.
    let config = r#"
[[check]]
name = "dir"
scan = { paths = ["src"], rules = ["debug-leftovers"] }

[[check]]
name = "dirslash"
scan = { paths = ["./src/"], rules = ["debug-leftovers"] }

[[check]]
name = "glob"
scan = { paths = ["src/**"], rules = ["debug-leftovers"] }
"#;
    let run = Test::new()
        .config(config)
        .file("src/main.rs", "dbg!(1);\n")
        .file("src/deep/lib.rs", "dbg!(2);\n")
        .file("other/x.rs", "dbg!(3);\n")
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let expected = [
        row("src/deep/lib.rs", 1, "debug-leftovers/rust-dbg"),
        row("src/main.rs", 1, "debug-leftovers/rust-dbg"),
    ];
    for name in ["dir", "dirslash", "glob"] {
        assert_eq!(check(&ev, name)["status"], "fail", "{name}");
        assert_eq!(found(&ev, name), expected, "{name}");
    }
}

/// A worktree holding the files of tests/fixtures/secrets/`dir` (every `%%`
/// removed: the corpus keeps its fabricated tokens defused) and a scan check
/// `secrets` with the rule sets `rules`.
fn corpus(dir: &str, rules: &str) -> Test {
    let root = repo_root().join("tests/fixtures/secrets").join(dir);
    let mut test = Test::new().config(&format!(
        "[[check]]\nname = \"secrets\"\nscan = {{ paths = [\"corpus/**\"], rules = [{rules}] }}\n"
    ));
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{}", root.display());
    for name in names {
        let text = std::fs::read_to_string(root.join(&name)).unwrap();
        test = test.file(&format!("corpus/{name}"), &text.replace("%%", ""));
    }
    test
}

#[test]
fn the_secrets_corpus_flags_every_token_format_on_its_lines() {
    let run = corpus("positive", "\"secrets\"")
        .args(&["--format", "json"])
        .run()
        .status(1);
    let ev = run.json_stdout();
    let mut expected = Vec::new();
    let mut rows = |file: &str, lines: &[u64], rule: &str| {
        for &line in lines {
            expected.push(row(&format!("corpus/{file}"), line, rule));
        }
    };
    rows("aws.py", &[5, 10], "secrets/aws-access-key-id");
    rows("generic.env", &[2, 3], "secrets/credential-assignment");
    rows("generic.json", &[3], "secrets/credential-assignment");
    rows("generic.py", &[3, 5, 6], "secrets/credential-assignment");
    rows("generic.rs", &[1, 4], "secrets/credential-assignment");
    rows("generic.yaml", &[3, 4], "secrets/credential-assignment");
    // ghp_, gho_, ghu_ (assigned to GITHUB_TOKEN: reported once), ghs_,
    // ghr_, github_pat_.
    rows("github.sh", &[5, 6, 7, 8, 9, 10], "secrets/github-token");
    rows("gitlab.toml", &[3], "secrets/gitlab-token");
    rows("google.html", &[4], "secrets/google-api-key");
    rows("jwt.http", &[3], "secrets/jwt");
    // RSA, OPENSSH, EC, PKCS#8, encrypted PKCS#8, PGP; not the END lines.
    rows(
        "private_keys.pem",
        &[1, 4, 7, 8, 9, 10],
        "secrets/private-key",
    );
    rows("slack.js", &[3, 4, 5, 6], "secrets/slack-token");
    rows("stripe.rb", &[3, 4], "secrets/stripe-live-key");
    expected.sort();
    assert_eq!(found(&ev, "secrets"), expected);
    assert_eq!(check(&ev, "secrets")["status"], "fail");
    assert_eq!(check(&ev, "secrets")["data"], nothing_allowed_or_skipped());
    // Every rule of the set has its file.
    let mut rules: Vec<&str> = expected.iter().map(|r| r.2.as_str()).collect();
    rules.sort();
    rules.dedup();
    assert_eq!(
        rules,
        [
            "secrets/aws-access-key-id",
            "secrets/credential-assignment",
            "secrets/github-token",
            "secrets/gitlab-token",
            "secrets/google-api-key",
            "secrets/jwt",
            "secrets/private-key",
            "secrets/slack-token",
            "secrets/stripe-live-key",
        ]
    );
}

#[test]
fn the_secrets_corpus_of_test_fixtures_and_placeholders_passes() {
    // A second check proves the lines of the issue are read: a warning rule
    // that finds credential names assigned a value.
    let names = r#"
[[check]]
name = "names"
scan = { paths = ["corpus/**"] }

[[check.rule]]
id = "credential-name"
pattern = '''(?i)(passw(or)?d|secret_?key|token|api_?key)["']?[ \t]*[:=]'''
severity = "warning"
"#;
    let test = corpus("negative", "\"secrets\"");
    let config = std::fs::read_to_string(test.path().join("checks.toml")).unwrap();
    let run = test
        .config(&format!("{config}{names}"))
        .args(&["--format", "json"])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(found(&ev, "secrets"), vec![]);
    let read = found(&ev, "names");
    for line in [
        row("corpus/.env.example", 4, "credential-name"),
        row("corpus/cjson_test.json", 6, "credential-name"),
        row("corpus/docker-compose.yml", 19, "credential-name"),
        row("corpus/settings.py", 6, "credential-name"),
        row("corpus/test_signer.py", 12, "credential-name"),
    ] {
        assert!(read.contains(&line), "{line:?} not read: {read:?}");
    }
    assert_eq!(check(&ev, "secrets")["status"], "pass");
    assert_eq!(check(&ev, "secrets")["data"], nothing_allowed_or_skipped());
}

/// The `data` of a scan that silenced nothing and read every file.
fn nothing_allowed_or_skipped() -> Value {
    json!({ "allowed": 0, "allowed_new": 0, "skipped": [], "skipped_total": 0 })
}

/// Commits everything: the base the change is weighed against.
fn committed(test: Test) -> Test {
    git(test.path(), &["add", "-A"]);
    git(test.path(), &["commit", "-q", "-m", "base"]);
    test
}

#[test]
fn run_check_allow_silences_its_line_and_is_counted() {
    // The markers are the base's (committed): they silence their lines.
    let run = committed(corpus("allowed", "\"secrets\", \"debug-leftovers\""))
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let ev = run.json_file("ev.json");
    // Not silenced: a line without the comment, and `run-check: allowed`.
    assert_eq!(
        found(&ev, "secrets"),
        vec![
            row("corpus/client.js", 3, "secrets/slack-token"),
            row("corpus/docs_samples.py", 4, "secrets/github-token"),
        ]
    );
    // Silenced: one finding on each of docs_samples.py:2, :3, client.js:1,
    // page.html:1 and seed.sql:1, two on client.js:2 (a token in a
    // `console.log`).
    let secrets = check(&ev, "secrets");
    assert_eq!(
        secrets["data"],
        json!({ "allowed": 7, "allowed_new": 0, "skipped": [], "skipped_total": 0 })
    );
    assert_eq!(secrets["diagnostics_count"], 2);
}

#[test]
fn this_repository_passes_its_own_secrets_scan() {
    // The corpus's defused tokens, the docs and the tests that spell secrets
    // out (assembled at run time) hold nothing the set flags.
    let test =
        Test::bare().config("[[check]]\nname = \"secrets\"\nscan = { rules = [\"secrets\"] }\n");
    let config = test.path().join("checks.toml");
    let root = repo_root();
    let run = test
        .args(&[
            "--worktree",
            root.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--format",
            "json",
        ])
        .run()
        .success();
    let ev = run.json_stdout();
    assert_eq!(found(&ev, "secrets"), vec![]);
    let data = &check(&ev, "secrets")["data"];
    assert_eq!(
        (&data["allowed"], &data["allowed_new"]),
        (&json!(0), &json!(0))
    );
    // The images of the docs are read too (and hold nothing): nothing is
    // left unread.
    assert_eq!(data["skipped"], json!([]), "{data}");
}

/// A `secrets` scan of `src/**`.
const SECRETS_IN_SRC: &str = r#"
[[check]]
name = "secrets"
dimension = "security"
modes = ["fast", "strict"]
scan = { paths = ["src/**"], rules = ["secrets", "debug-leftovers"] }
"#;

/// An AWS access key id of its own per `n` (assembled at run time).
fn key(n: u8) -> String {
    format!("AKIA{}{n}", "Z3X8C1V6B9N2M5Q")
}

/// (file, line, rule) of a finding.
type Row = (String, u64, String);

/// Runs the strict gate (or with `args`) and returns its exit code, the
/// secrets check's findings and `data`, and the worktree to run again.
fn gate(test: Test, args: &[&str]) -> (Option<i32>, Vec<Row>, Value, Test) {
    let run = test.args(&[&["--format", "json"], args].concat()).run();
    let ev = run.json_stdout();
    let data = check(&ev, "secrets")["data"].clone();
    (run.code, found(&ev, "secrets"), data, run.test.again())
}

/// (allowed, allowed_new) of a scan's `data`.
fn counts(data: &Value) -> (u64, u64) {
    (
        data["allowed"].as_u64().unwrap(),
        data["allowed_new"].as_u64().unwrap(),
    )
}

#[test]
fn allow_markers_the_change_adds_silence_nothing_in_strict_mode() {
    let aws = "secrets/aws-access-key-id";
    let old = format!("SAMPLE = \"{}\"  # run-check: allow", key(1));
    let test = committed(
        Test::new()
            .config(SECRETS_IN_SRC)
            .file("src/settings.py", &format!("DEBUG = False\n{old}\n")),
    );
    // The base's marker silences its line, and is counted.
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!((code, findings, counts(&data)), (Some(0), vec![], (1, 0)));

    // The attack: a new secret on a line that carries its own marker.
    let new = format!("KEY = \"{}\"  # run-check: allow", key(2));
    let test = test.file("src/settings.py", &format!("DEBUG = False\n{old}\n{new}\n"));
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/settings.py", 3, aws)]);
    assert_eq!(counts(&data), (1, 1));

    // Committed on the agent's branch, weighed against the branch it
    // started from: the same.
    git(test.path(), &["checkout", "-q", "-b", "agent"]);
    git(test.path(), &["commit", "-q", "-am", "add a key"]);
    let (code, findings, data, test) = gate(test, &["--changed-since", "main"]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/settings.py", 3, aws)]);
    assert_eq!(counts(&data), (1, 1));
    git(test.path(), &["checkout", "-q", "main"]);

    // A copy of the old marker line: the copy is new.
    let test = test.file("src/settings.py", &format!("{old}\nDEBUG = False\n{old}\n"));
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/settings.py", 1, aws)]);
    assert_eq!(counts(&data), (1, 1));

    // The old marker line edited to hold another key: new.
    let edited = old.replace(&key(1), &key(3));
    let test = test.file("src/settings.py", &format!("DEBUG = False\n{edited}\n"));
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/settings.py", 2, aws)]);
    assert_eq!(counts(&data), (0, 1));

    // A marker in a new file: new.
    let test = test
        .file("src/settings.py", &format!("DEBUG = False\n{old}\n"))
        .file("src/more.py", &format!("{new}\n"));
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/more.py", 1, aws)]);
    assert_eq!(counts(&data), (1, 1));
    std::fs::remove_file(test.path().join("src/more.py")).unwrap();

    // The old line re-indented into a new block: still the base's.
    let moved = format!("DEBUG = False\nif True:\n    {old}\n");
    let test = test.file("src/settings.py", &moved);
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!((code, findings, counts(&data)), (Some(0), vec![], (1, 0)));

    // A "marker" inside a string literal is no marker at all.
    let quoted = format!("KEY = \"{} # run-check: allow\"\n", key(4));
    let test = test.file("src/settings.py", &format!("{old}\n{quoted}"));
    let (code, findings, data, test) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(findings, vec![row("src/settings.py", 2, aws)]);
    assert_eq!(counts(&data), (1, 0));

    // Fast mode (the developer's loop, the pre-commit hook): a new marker
    // silences its line, and is counted as new.
    let test = test.file("src/settings.py", &format!("DEBUG = False\n{old}\n{new}\n"));
    let (code, findings, data, _) = gate(test, &["--mode", "fast"]);
    assert_eq!((code, findings, counts(&data)), (Some(0), vec![], (2, 1)));
}

/// The attack on markers matched by their text anywhere in their file: an
/// excused skip moved from the old flaky test it was written for to a new
/// test that fails, in the same file (and the same line copied to excuse
/// a second one). Each is a new marker: in strict mode it silences
/// nothing.
#[test]
fn an_allow_marker_moved_to_another_test_of_its_file_excuses_nothing() {
    const TESTS: &str = r#"
[[check]]
name = "anti-cheat"
scan = { paths = ["tests/**"], rules = ["skipped-tests"] }
"#;
    let skip = "@pytest.mark.skip(reason=\"flaky on CI\")  # run-check: allow";
    let old_test = "def test_retry_timing():\n    assert retry(3) == 3\n";
    let new_test = "def test_new_feature():\n    assert feature() == 42\n";
    let base = format!("import pytest\n\n\n{skip}\n{old_test}\n\n{new_test}");
    let test = committed(Test::new().config(TESTS).file("tests/test_app.py", &base));
    let run = test.args(&["--format", "json"]).run();
    assert_eq!(run.code, Some(0), "the base's marker excuses its own line");
    let ev = run.json_stdout();
    assert_eq!(counts(&check(&ev, "anti-cheat")["data"]), (1, 0));

    // The marker moved above the new, failing test.
    let moved = format!("import pytest\n\n\n{old_test}\n\n{skip}\n{new_test}");
    let test = run.test.again().file("tests/test_app.py", &moved);
    let run = test.args(&["--format", "json"]).run();
    let ev = run.json_stdout();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let rule = "skipped-tests/python-skip";
    assert_eq!(
        found(&ev, "anti-cheat"),
        vec![row("tests/test_app.py", 8, rule)]
    );
    assert_eq!(counts(&check(&ev, "anti-cheat")["data"]), (0, 1));

    // Kept where it was, and copied above the new test too: the copy is new.
    let copied = format!("import pytest\n\n\n{skip}\n{old_test}\n\n{skip}\n{new_test}");
    let test = run.test.again().file("tests/test_app.py", &copied);
    let run = test.args(&["--format", "json"]).run();
    let ev = run.json_stdout();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        found(&ev, "anti-cheat"),
        vec![row("tests/test_app.py", 9, rule)]
    );
    assert_eq!(counts(&check(&ev, "anti-cheat")["data"]), (1, 1));
}

/// The attack that used to hide a secret from the scan: behind a NUL
/// byte, after 1 MiB of padding, and in a file outside `scan.paths` that a
/// file inside links to. Each is read now, and found.
#[cfg(unix)]
#[test]
fn a_secret_behind_a_nul_byte_padding_or_a_link_is_found() {
    let test = committed(
        Test::new()
            .config(SECRETS_IN_SRC)
            .file("src/ok.py", "x = 1\n")
            .file("src/logo.bin", "\u{0}png\n"),
    );
    let padded = format!("{}\nKEY = \"{}\"\n", " ".repeat(1024 * 1024), key(5));
    let test = test
        .file("src/nul.py", &format!("\u{0}\nKEY = \"{}\"\n", key(4)))
        .file("src/padded.py", &padded)
        .file("vendor/secret.py", &format!("KEY = \"{}\"\n", key(6)));
    std::os::unix::fs::symlink("../vendor/secret.py", test.path().join("src/config.py")).unwrap();
    let (code, findings, data, _) = gate(test, &[]);
    let aws = "secrets/aws-access-key-id";
    assert_eq!(code, Some(1));
    assert_eq!(
        findings,
        vec![
            row("src/nul.py", 2, aws),
            row("src/padded.py", 2, aws),
            row("vendor/secret.py", 1, aws),
        ]
    );
    assert_eq!(data["skipped"], json!([]));
    assert_eq!(data["skipped_total"], 0);
}

/// What the scan still cannot read (a FIFO, a link out of the worktree) is
/// listed with why and whether it changed; a changed one fails the scan
/// in both modes, an unchanged one does not.
#[cfg(unix)]
#[test]
fn files_the_scan_cannot_read_are_listed_and_fail_it_when_changed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("k.py"), "KEY = None\n").unwrap();
    let old = Test::new()
        .config(SECRETS_IN_SRC)
        .file("src/ok.py", "x = 1\n");
    std::os::unix::fs::symlink(outside.path().join("k.py"), old.path().join("src/old.py")).unwrap();
    let test = committed(old);
    let made = std::process::Command::new("mkfifo")
        .arg(test.path().join("src/pipe.py"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    std::os::unix::fs::symlink(outside.path().join("k.py"), test.path().join("src/new.py"))
        .unwrap();
    let expected = json!([
        {"file": "src/new.py", "reason": "link-outside-paths", "changed": true},
        {"file": "src/pipe.py", "reason": "not-a-file", "changed": true},
        {"file": "src/old.py", "reason": "link-outside-paths", "changed": false},
    ]);
    let mut test = test;
    for mode in ["strict", "fast"] {
        let (code, findings, data, again) = gate(test, &["--mode", mode]);
        assert_eq!(code, Some(1), "{mode}");
        assert_eq!(
            findings,
            vec![
                row("src/new.py", 0, "scan-skipped"),
                row("src/pipe.py", 0, "scan-skipped"),
            ],
            "{mode}"
        );
        assert_eq!(data["skipped"], expected, "{mode}");
        assert_eq!(data["skipped_total"], 3);
        test = again;
    }
}

/// A link to a file inside the worktree is followed: a change of that
/// file is read through the link, whether the link itself changed or not.
#[cfg(unix)]
#[test]
fn a_link_that_did_not_change_to_a_file_that_did_is_read() {
    let test = Test::new()
        .config(SECRETS_IN_SRC)
        .file("src/ok.py", "x = 1\n")
        .file("vendor/secret.py", "KEY = None\n");
    std::os::unix::fs::symlink("../vendor/secret.py", test.path().join("src/config.py")).unwrap();
    let test = committed(test);
    let (code, _, data, test) = gate(test, &[]);
    assert_eq!((code, &data["skipped"]), (Some(0), &json!([])));
    let test = test.file("vendor/secret.py", &format!("KEY = \"{}\"\n", key(6)));
    let (code, findings, _, _) = gate(test, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(
        findings,
        vec![row("vendor/secret.py", 1, "secrets/aws-access-key-id")]
    );
}

#[test]
fn a_secret_in_a_path_is_masked_in_every_format() {
    let key = key(7);
    let masked = format!("AKIA{}", "*".repeat(16));
    let test = Test::new()
        .config(SECRETS_IN_SRC)
        .file(&format!("src/{key}/app.py"), "import os\n\nbreakpoint()\n");
    #[cfg(unix)]
    {
        let made = std::process::Command::new("mkfifo")
            .arg(test.path().join(format!("src/{key}/pipe")))
            .status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    }
    let run = test
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let ev = run.json_file("ev.json");
    // Still located: the masked file and the line.
    let file = format!("src/{masked}/app.py");
    let mut rows = vec![row(&file, 3, "debug-leftovers/python-breakpoint")];
    // The FIFO the scan cannot read, masked where it is listed and where
    // it fails the scan.
    if cfg!(unix) {
        let pipe = format!("src/{masked}/pipe");
        rows.push(row(&pipe, 0, "scan-skipped"));
        let skipped = &check(&ev, "secrets")["data"]["skipped"];
        assert_eq!(skipped[0]["file"], pipe);
    }
    assert_eq!(found(&ev, "secrets"), rows);
    let evidence = run.test.path().join("ev.json");
    let text = std::fs::read_to_string(&evidence).unwrap();
    assert!(!text.contains(&key[4..]));
    assert!(!run.stdout.contains(&key[4..]) && !run.stderr.contains(&key[4..]));
    for format in [
        "text", "json", "markdown", "junit", "sarif", "github", "html",
    ] {
        let output = std::process::Command::new(bin())
            .args(["report", evidence.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{format}");
        let out = String::from_utf8_lossy(&output.stdout);
        // Not the key, nor its part after the prefix.
        assert!(!out.contains(&key[4..]), "{format} shows the key:\n{out}");
        // SARIF percent-encodes the `*`.
        let shown = match format {
            "sarif" => file.replace('*', "%2A"),
            _ => file.clone(),
        };
        assert!(
            out.contains(&shown),
            "{format} does not name {shown}:\n{out}"
        );
    }
}

/// The scan's blind spots, played by the code under test: a skipped test
/// and a placeholder assert in a test file padded past 1 MiB, holding a
/// NUL byte, or reached through a link from outside `scan.paths`. Each
/// fails the gate on those findings, and the judge does not let the round
/// finish.
#[cfg(unix)]
#[test]
fn a_cheating_test_file_padded_binary_or_linked_fails_the_gate_and_the_judge() {
    const TESTS: &str = r#"
[[check]]
name = "anti-cheat"
scan = { paths = ["tests/**"], rules = ["skipped-tests", "placeholder-asserts"] }
"#;
    let cheat = "import unittest\n\n\nclass T(unittest.TestCase):\n    \
                 @unittest.skip(\"later\")\n    def test_add(self):\n        assert True\n";
    for route in ["padded", "nul", "linked"] {
        let test = committed(
            Test::new()
                .config(TESTS)
                .file(".gitignore", "runs/\n")
                .file("tests/test_ok.py", "x = 1\n"),
        );
        std::fs::create_dir(test.path().join("runs")).unwrap();
        let (test, file) = match route {
            "padded" => {
                let padded = format!("{}\n{cheat}", "#".repeat(1024 * 1024 + 1));
                (
                    test.file("tests/test_calc.py", &padded),
                    "tests/test_calc.py",
                )
            }
            "nul" => (
                test.file("tests/test_calc.py", &format!("# \u{0}\n{cheat}")),
                "tests/test_calc.py",
            ),
            _ => {
                let test = test.file("vendor/test_calc.py", &format!("#\n{cheat}"));
                std::os::unix::fs::symlink(
                    "../vendor/test_calc.py",
                    test.path().join("tests/test_calc.py"),
                )
                .unwrap();
                (test, "vendor/test_calc.py")
            }
        };
        let run = test
            .args(&["--format", "json", "--out", "runs/ev.json", "--quiet"])
            .run();
        assert_eq!(run.code, Some(1), "{route}: {}", run.stderr);
        let ev = run.json_file("runs/ev.json");
        assert_eq!(
            found(&ev, "anti-cheat"),
            vec![
                row(file, 6, "skipped-tests/python-skip"),
                row(file, 8, "placeholder-asserts/python-assert-true"),
            ],
            "{route}"
        );
        let verdict = std::process::Command::new(bin())
            .args(["judge", "runs/ev.json"])
            .current_dir(run.test.path())
            .output()
            .unwrap();
        let verdict: Value = serde_json::from_slice(&verdict.stdout).unwrap();
        assert_eq!(verdict["passed"], false, "{route}");
        assert_ne!(verdict["route"]["next"], "FINISH", "{route}: {verdict:#}");
    }
}
