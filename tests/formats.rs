//! Report formats end to end (docs/cli.md, docs/evidence.md): the real binary writes
//! `--format junit|sarif|github|markdown` reports, validated structurally
//! (an XML parser, a JSON parser, the workflow-command grammar).

use regex::Regex;
use serde_json::Value;

use crate::support::{Run, Test};

/// One passing check and one failing check that prints a gcc-style error.
const CONFIG: &str = r#"version = 1
[settings]
allow = ["sh", "true"]

[[check]]
name = "ok"
run = ["true"]

[[check]]
name = "bad"
run = ["sh", "-c", "echo 'src/a.c:3:5: error: bad thing' >&2; exit 1"]
parser = "gcc"
"#;

const PASSING: &str = r#"version = 1
[settings]
allow = ["true"]

[[check]]
name = "ok"
run = ["true"]
"#;

const BANNER: &str = "1 of 2 checks failed: bad";

/// Runs `config` with `--format F --out report.F`; returns the run and the
/// report text.
fn report(config: &str, format: &str, code: i32) -> (Run, String) {
    let out = format!("report.{format}");
    let run = Test::new()
        .config(config)
        .args(&["--format", format, "--out", &out])
        .run()
        .status(code);
    assert_eq!(run.stdout, "", "--out leaves stdout empty");
    let text = std::fs::read_to_string(run.test.path().join(&out))
        .unwrap_or_else(|e| panic!("read {out}: {e}\n--- stderr\n{}", run.stderr));
    (run, text)
}

fn elements<'a, 'i>(doc: &'a roxmltree::Document<'i>, name: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    doc.descendants().filter(|n| n.has_tag_name(name)).collect()
}

#[test]
fn junit_has_one_testcase_per_check_and_the_failure() {
    let (_run, xml) = report(CONFIG, "junit", 1);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("2"));
    assert_eq!(root.attribute("failures"), Some("1"));
    assert_eq!(root.attribute("errors"), Some("0"));
    let suites = elements(&doc, "testsuite");
    assert_eq!(suites.len(), 1);
    assert_eq!(suites[0].attribute("name"), Some("run-check strict"));
    let cases = elements(&doc, "testcase");
    let names: Vec<_> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(names, ["ok", "bad"]);
    assert!(
        cases
            .iter()
            .all(|c| c.attribute("classname") == Some("run-check.strict"))
    );
    assert!(
        cases
            .iter()
            .all(|c| c.attribute("time").unwrap().parse::<f64>().is_ok())
    );
    let failures = elements(&doc, "failure");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].parent().unwrap().attribute("name"), Some("bad"));
    assert_eq!(
        failures[0].attribute("message"),
        Some("bad failed (exit 1)")
    );
    let body = failures[0].text().unwrap_or_default();
    assert!(body.contains("src/a.c:3:5: error: bad thing"), "{body}");
    let banner = elements(&doc, "property")
        .into_iter()
        .find(|p| p.attribute("name") == Some("banner"))
        .and_then(|p| p.attribute("value"));
    assert_eq!(banner, Some(BANNER));
}

#[test]
fn junit_of_errors_skips_and_control_characters_is_well_formed() {
    let config = r#"version = 1
[settings]
allow = ["sh", "no-such-program-zz"]

[[check]]
name = "noisy"
run = ["sh", "-c", "printf 'a\\001b\\033[31mred\\033[0m <&> \"q\"\\n' >&2; exit 4"]

[[check]]
name = "gone"
run = ["no-such-program-zz"]

[[check]]
name = "after"
run = ["sh", "-c", "true"]
needs = ["noisy"]
"#;
    let (_run, xml) = report(config, "junit", 2);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    let counts: Vec<_> = ["tests", "failures", "errors", "skipped"]
        .iter()
        .map(|a| root.attribute(*a).unwrap())
        .collect();
    assert_eq!(counts, ["3", "1", "1", "1"]);
    let failure = &elements(&doc, "failure")[0];
    let body = failure.text().unwrap();
    assert!(
        body.contains("red <&> \"q\""),
        "colour stripped, text escaped: {body:?}"
    );
    assert!(!body.contains('\u{1}') && !body.contains('\u{1b}'));
    let error = &elements(&doc, "error")[0];
    assert_eq!(error.parent().unwrap().attribute("name"), Some("gone"));
    assert!(!error.attribute("message").unwrap().is_empty());
    let skipped = &elements(&doc, "skipped")[0];
    assert_eq!(skipped.parent().unwrap().attribute("name"), Some("after"));
}

#[test]
fn junit_of_a_passing_run() {
    let (_run, xml) = report(PASSING, "junit", 0);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(doc.root_element().attribute("failures"), Some("0"));
    assert!(elements(&doc, "failure").is_empty() && elements(&doc, "error").is_empty());
}

#[test]
fn sarif_has_the_diagnostic_as_a_result_with_its_region() {
    let (_run, text) = report(CONFIG, "sarif", 1);
    let sarif: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["tool"]["driver"]["name"], "run-check");
    assert!(run["tool"]["driver"]["version"].is_string());
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let results = run["results"].as_array().unwrap();
    let result = results
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 3)
        .unwrap_or_else(|| panic!("no result on line 3: {results:?}"));
    assert_eq!(result["level"], "error");
    assert_eq!(result["message"]["text"], "bad thing");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/a.c");
    assert_eq!(location["region"]["startColumn"], 5);
    // Every rule a result names is declared.
    let rules: Vec<_> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    for r in results {
        assert!(rules.contains(&r["ruleId"]), "{r}");
    }
}

#[test]
fn sarif_of_a_failing_check_without_diagnostics_is_not_empty() {
    let config = "version = 1\n[settings]\nallow = [\"false\"]\n[[check]]\nname = \"f\"\nrun = [\"false\"]\n";
    let (_run, text) = report(config, "sarif", 1);
    let sarif: Value = serde_json::from_str(&text).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "run-check/f");
    assert_eq!(results[0]["level"], "error");
    assert!(
        results[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains('f')
    );

    let (_run, text) = report(PASSING, "sarif", 0);
    let sarif: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}

#[test]
fn github_lines_are_workflow_commands_or_plain_and_the_banner_is_last() {
    let (_run, text) = report(CONFIG, "github", 1);
    let command =
        Regex::new(r"^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::.*$").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        if line.starts_with("::") {
            assert!(command.is_match(line), "not a workflow command: {line}");
        } else {
            assert!(!line.starts_with("##["), "{line}");
        }
    }
    assert_eq!(lines.last(), Some(&BANNER));
    let error = lines
        .iter()
        .find(|l| l.starts_with("::error file=src/a.c,"))
        .unwrap_or_else(|| panic!("no annotation for src/a.c:\n{text}"));
    assert!(error.contains("line=3"), "{error}");
    assert!(error.contains("col=5"), "{error}");
    assert!(error.ends_with("::bad thing"), "{error}");
    assert!(lines.iter().any(|l| l.starts_with("PASS ok ")), "{text}");
    assert!(lines.iter().any(|l| l.starts_with("FAIL bad ")), "{text}");
}

#[test]
fn github_escapes_messages_and_properties() {
    let config = r#"version = 1
[settings]
allow = ["sh"]

[[check]]
name = "esc"
run = ["sh", "-c", "echo 'src/x,y.c:7:1: warning: 100% sure, a::b' >&2; exit 1"]
parser = "gcc"
"#;
    let (_run, text) = report(config, "github", 1);
    let line = text
        .lines()
        .find(|l| l.starts_with("::warning "))
        .unwrap_or_else(|| panic!("no warning annotation:\n{text}"));
    assert!(
        line.starts_with("::warning file=src/x%2Cy.c,line=7,col=1,"),
        "{line}"
    );
    assert!(line.ends_with("::100%25 sure, a::b"), "{line}");
    // The failing check has a diagnostic, but only a warning: the run's
    // failure is still an error annotation.
    assert!(text.lines().any(|l| l.starts_with("::error ")), "{text}");
}

#[test]
fn github_on_stdout_without_out() {
    let run = Test::new()
        .config(PASSING)
        .args(&["--format", "github"])
        .run()
        .success();
    assert_eq!(run.stdout.lines().last(), Some("All checks passed!"));
    assert!(
        !run.stdout.lines().any(|l| l.starts_with("::")),
        "{}",
        run.stdout
    );
}

#[test]
fn markdown_has_the_banner_and_a_table() {
    let (_run, text) = report(CONFIG, "markdown", 1);
    assert!(text.contains(BANNER), "{text}");
    assert!(text.lines().next().unwrap().contains('❌'), "{text}");
    assert!(
        text.contains("| Check | Status | Time | Details |"),
        "{text}"
    );
    assert!(text.contains("|---|---|---|---|"));
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[1].contains("`bad`") && rows[1].contains("fail"),
        "{}",
        rows[1]
    );
    assert!(text.contains("<details><summary>bad"), "{text}");
    assert!(text.contains("src/a.c:3:5"), "{text}");

    let (_run, text) = report(PASSING, "markdown", 0);
    assert!(text.starts_with("### ✅ All checks passed!"), "{text}");
}

/// A failing check that says what failed on stdout and warns on stderr.
const BOTH_STREAMS: &str = r#"version = 1
[settings]
allow = ["sh"]

[[check]]
name = "test"
parser = "none"
run = ["sh", "-c", "echo 'FAILED test_x - AssertionError: 4 != 5'; echo 'DeprecationWarning: old api' >&2; exit 1"]
"#;

#[test]
fn junit_and_markdown_show_stdout_then_stderr() {
    let (_run, xml) = report(BOTH_STREAMS, "junit", 1);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let failure = elements(&doc, "failure")[0];
    assert_eq!(
        failure.text(),
        Some(
            "--- stdout ---\nFAILED test_x - AssertionError: 4 != 5\n\
             --- stderr ---\nDeprecationWarning: old api\n"
        )
    );
    let (_run, markdown) = report(BOTH_STREAMS, "markdown", 1);
    assert!(
        markdown.contains(
            "**stdout**\n\n```text\nFAILED test_x - AssertionError: 4 != 5\n```\n\n\
             **stderr**\n\n```text\nDeprecationWarning: old api\n```\n"
        ),
        "{markdown}"
    );
}

/// A failing check that plays the attacker with its output: a window
/// title, a screen clear, an OSC 8 link, a charset switch, an 8-bit CSI,
/// DCS, APC, PM and SOS strings (a terminal hides their payload), the DEC
/// line-drawing charset (which redraws `lqk` as a box), a lone ESC, NUL, a lone CR that hides what it overwrites, and GitHub Actions
/// workflow commands (`::`, after blanks, after a CR, and the legacy `##[`
/// anywhere in a line); on stderr a gcc-style error whose message carries
/// escapes, parsed into a diagnostic.
const HOSTILE: &str = r#"version = 1
[settings]
allow = ["sh"]

[[check]]
name = "hostile"
parser = "gcc"
run = ["sh", "-c", '''
printf '\033]0;pwned-title\007\033[2Jcleared\n'
printf 'see \033]8;;http://evil.example/\007click\033]8;;\007 here\n'
printf 'charset \033(Bswitch \302\2332Jc1 dcs \033P1$r0m\033\\shown \033_apc\033\\ \033^pm\033\\ \033Xsos\033\\ \033(0lqk\033(B lone\033\n'
printf 'nul:\000:end\ttab\n'
printf 'visible\rhidden\n'
printf '::add-mask::x\n'
printf '  ::error::forged\n'
printf '::stop-commands::tok\n'
printf 'note ##[error]legacy\n'
printf 'ok\r::error::cr-forged\n'
printf 'src/a.c:3:5: error: bad \033]0;t\007\033P+q544e\033\\thing \033[31mred\033[0m \000 ::error::in-msg\n' >&2
exit 1
''']
"#;

/// The control characters no human report may carry.
fn assert_no_controls(format: &str, text: &str) {
    for (i, c) in text.char_indices() {
        let bad = matches!(c, '\u{1b}' | '\u{7}' | '\u{0}' | '\r' | '\u{80}'..='\u{9f}')
            || (c.is_control() && c != '\n' && c != '\t');
        assert!(
            !bad,
            "{format}: control character {c:?} at byte {i}: {:?}",
            &text[i.saturating_sub(40)..(i + 40).min(text.len())]
        );
    }
}

/// No line (split at CR or LF, as the Actions runner reads them) starts a
/// workflow command after the blanks the runner trims, and no `##[`
/// legacy command stands anywhere.
fn assert_no_workflow_commands(format: &str, text: &str) {
    for line in text.split(['\r', '\n']) {
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::"),
            "{format}: command line {line:?}"
        );
        assert!(!line.contains("##["), "{format}: legacy command {line:?}");
    }
}

#[test]
fn reports_carry_no_terminal_escapes_and_no_workflow_commands() {
    // text on stdout, as a CI log prints it; unparsed, as text shows a
    // check's diagnostics instead of its output.
    let unparsed = HOSTILE.replace("parser = \"gcc\"", "parser = \"none\"");
    let run = Test::new().config(&unparsed).run().status(1);
    let mut reports = vec![("text".to_string(), run.stdout.clone())];
    for format in ["markdown", "junit"] {
        let (_run, text) = report(HOSTILE, format, 1);
        reports.push((format.to_string(), text));
    }
    for (format, text) in &reports {
        assert_no_controls(format, text);
        assert_no_workflow_commands(format, text);
        // Defused, not hidden: the reader still sees what was printed,
        // the overwritten text included.
        for shown in [
            "cleared",
            "see click here",
            "c1 dcs shown    lqk lone\n",
            "nul:␀:end",
            "visible\n",
            "\\::add-mask::x",
            "\\::stop-commands::tok",
            "##\\[error]legacy",
            "\\::error::cr-forged",
        ] {
            let shown = shown.replace('\n', "");
            assert!(text.contains(&shown), "{format} lacks {shown:?}:\n{text}");
        }
        assert!(!text.contains("pwned-title") && !text.contains("evil.example"));
    }
    let xml = &reports[2].1;
    roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    // The forged lines keep their indentation.
    assert!(
        reports[0].1.contains("│   \\::error::forged"),
        "{}",
        reports[0].1
    );
    // Parsed, text shows the diagnostic, defused too.
    let text = Test::new().config(HOSTILE).run().status(1).stdout;
    assert_no_controls("text", &text);
    assert_no_workflow_commands("text", &text);
    assert!(
        text.contains("\n      src/a.c:3:5: error: bad thing red ␀ ::error::in-msg\n"),
        "{text}"
    );
}

/// A check with 22 gcc-style errors, and one that writes a file into the
/// worktree (long enough for a snapshot of its own, so it is blamed).
const DIAGNOSED_AND_WRITER: &str = r#"version = 1
[settings]
allow = ["sh"]

[[check]]
name = "writer"
run = ["sh", "-c", "sleep 1; echo x > w.txt"]

[[check]]
name = "cc"
parser = "gcc"
run = ["sh", "-c", 'for n in $(seq 1 22); do echo "src/a.c:$n:5: error: boom $n"; done; exit 1']
"#;

#[test]
fn text_names_diagnostics_and_the_modified_paths_with_their_check() {
    let run = Test::new()
        .config(DIAGNOSED_AND_WRITER)
        .args(&["--mode", "strict", "--jobs", "1"])
        .run()
        .status(1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(" FAIL cc "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let mut expected: Vec<String> = (1..=20)
        .map(|n| format!("      src/a.c:{n}:5: error: boom {n}"))
        .collect();
    expected.push("      … and 2 more diagnostics".into());
    assert_eq!(lines[at + 1..at + 22], expected, "{}", run.stdout);
    assert!(
        lines.contains(&"  modified: w.txt (by check `writer`)"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_keeps_the_output_minus_escape_sequences() {
    let run = Test::new()
        .config(HOSTILE)
        .args(&["--format", "json", "--out", "e.json"])
        .run()
        .status(1);
    let raw = std::fs::read_to_string(run.test.path().join("e.json")).unwrap();
    // No raw control character, ESC or C1 in the file: JSON escapes the
    // rest (NUL as \u0000, CR as \r).
    assert_no_controls("json", &raw);
    let evidence = run.json_file("e.json");
    let check = crate::support::check(&evidence, "hostile");
    let stdout = check["stdout_excerpt"].as_str().unwrap();
    assert_eq!(
        stdout,
        "cleared\nsee click here\ncharset switch 2Jc1 dcs shown    lqk lone\nnul:\u{0}:end\ttab\nvisible\rhidden\n\
         ::add-mask::x\n  ::error::forged\n::stop-commands::tok\nnote ##[error]legacy\n\
         ok\r::error::cr-forged\n"
    );
    // The parser's diagnostic: message without the escapes, NUL kept.
    let diagnostic = &evidence["diagnostics"][0];
    assert_eq!(diagnostic["file"], "src/a.c");
    assert_eq!(diagnostic["line"], 3);
    assert_eq!(diagnostic["message"], "bad thing red \u{0} ::error::in-msg");
    // SARIF is JSON too: the same message.
    let (_run, text) = report(HOSTILE, "sarif", 1);
    assert_no_controls("sarif", &text);
    let sarif: Value = serde_json::from_str(&text).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["message"]["text"] == "bad thing red \u{0} ::error::in-msg"),
        "{results:?}"
    );
}

#[test]
fn github_annotations_cannot_be_forged_by_output() {
    let (_run, text) = report(HOSTILE, "github", 1);
    assert_no_controls("github", &text);
    let command =
        Regex::new(r"^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::[^\r\n]*$")
            .unwrap();
    let lines: Vec<&str> = text.split(['\r', '\n']).filter(|l| !l.is_empty()).collect();
    for line in &lines {
        if line.trim_start().starts_with("::") {
            assert!(command.is_match(line), "forged command: {line:?}\n{text}");
        }
        assert!(!line.contains("##["), "{line:?}");
    }
    // Exactly the run's own annotation: the diagnostic of src/a.c.
    let annotations: Vec<&&str> = lines.iter().filter(|l| l.starts_with("::")).collect();
    assert_eq!(
        annotations,
        [&"::error file=src/a.c,line=3,col=5,title=hostile::bad thing red ␀ ::error::in-msg"]
    );
    assert_eq!(lines.last(), Some(&"1 of 1 checks failed: hostile"));
}
