//! The `html` report in a real browser (docs/formats.md): headless Chromium
//! (Debian's `chromium`) loads the page a real run's evidence renders to,
//! dumps its DOM and takes a screenshot. Missing Chromium (installed by
//! scripts/install-test-tools.sh): the test fails (`support::missing`).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::Value;

use crate::support::{Test, check};

/// Three checks of different lengths, two at a time: `short` and `long`
/// start together, `compile` when `short` ends; `compile` fails with gcc
/// diagnostics in two files and prints markup that must stay text;
/// `after` needs it, so it is skipped and never starts.
const CONFIG: &str = r#"version = 1
[settings]
allow = ["sleep", "sh"]
jobs = 2

[[check]]
name = "short"
run = ["sleep", "0.2"]

[[check]]
name = "long"
run = ["sleep", "1.0"]

[[check]]
name = "compile"
run = ["sh", "-c", "sleep 0.6; echo '<img src=x onerror=alert(1)></pre><script>document.title=1</script>'; printf 'src/a.c:3:5: error: bad thing\nsrc/b.c:7:1: warning: odd thing\nsrc/a.c:9:2: error: worse thing\n' >&2; exit 1"]
parser = "gcc"

[[check]]
name = "after"
run = ["sleep", "0"]
needs = ["compile"]
"#;

/// `chromium` on PATH, or None (a loud skip) outside CI.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("chromium"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        crate::support::missing("chromium is not installed (Debian: `apt-get install chromium`)");
    }
    found
}

/// Runs headless Chromium on `page` with `args` (the flags a closed network
/// needs: no background connections), its stdout into `out`; fails after
/// two minutes.
fn run_chromium(chromium: &Path, dir: &Path, page: &Path, args: &[&str], out: &Path) {
    let profile = tempfile::tempdir_in(dir).unwrap();
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium {args:?}: {status}");
            return;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {args:?} still running after 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The attributes of an element's start tag, as Chromium serializes them.
fn attributes(tag: &str) -> std::collections::HashMap<String, String> {
    let attribute = Regex::new(r#"([a-z-]+)="([^"]*)""#).unwrap();
    attribute
        .captures_iter(tag)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect()
}

/// A CSS percentage (`12.345%`) as a number.
fn percent(style: &str, property: &str) -> f64 {
    let re = Regex::new(&format!(r"(?:^|;)\s*{property}:\s*([0-9.]+)%")).unwrap();
    let caps = re
        .captures(style)
        .unwrap_or_else(|| panic!("{property} in {style:?}"));
    caps[1].parse().unwrap()
}

#[test]
fn chromium_draws_a_bar_per_check_and_lists_the_failure_first() {
    let Some(chromium) = chromium() else { return };
    let run = Test::new()
        .config(CONFIG)
        .args(&["--format", "json", "--out", "ev.json"])
        .run()
        .status(1);
    let dir = run.test.path().to_path_buf();
    let evidence: Value = run.json_file("ev.json");
    let report = Command::new(crate::support::bin())
        .args([
            "report",
            "ev.json",
            "--format",
            "html",
            "--out",
            "page.html",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(1), "{report:?}");
    let page = dir.join("page.html");

    let dom_file = dir.join("dom.html");
    run_chromium(&chromium, &dir, &page, &["--dump-dom"], &dom_file);
    let dom = std::fs::read_to_string(&dom_file).unwrap();

    // One bar per check, in the evidence's order, at its start offset and
    // for its duration.
    let bar = Regex::new(r#"<a class="bar [^>]*>"#).unwrap();
    let bars: Vec<_> = bar
        .find_iter(&dom)
        .map(|m| attributes(m.as_str()))
        .collect();
    let names: Vec<&str> = bars.iter().map(|b| b["data-check"].as_str()).collect();
    assert_eq!(names, ["short", "long", "compile"], "{dom}");
    // A check that never started has no start offset and no bar.
    assert_eq!(check(&evidence, "after")["status"], "skip");
    assert_eq!(check(&evidence, "after")["started_ms"], Value::Null);
    assert!(
        dom.contains("Not drawn (did not start, or no start time recorded): <code>after</code>")
    );
    let span: f64 = Regex::new(r#"id="timeline" data-span-ms="([0-9]+)""#)
        .unwrap()
        .captures(&dom)
        .expect("the timeline's span")[1]
        .parse()
        .unwrap();
    let run_ms = evidence["summary"]["duration_ms"].as_u64().unwrap() as f64;
    let mut widths = Vec::new();
    for bar in &bars {
        let record = check(&evidence, &bar["data-check"]);
        let start = record["started_ms"].as_u64().expect("started_ms");
        let duration = record["duration_ms"].as_u64().unwrap();
        assert_eq!(bar["data-start-ms"], start.to_string());
        assert_eq!(bar["data-duration-ms"], duration.to_string());
        assert_eq!(bar["data-status"], record["status"].as_str().unwrap());
        let (left, width) = (
            percent(&bar["style"], "left"),
            percent(&bar["style"], "width"),
        );
        assert!(
            (left - start as f64 * 100.0 / span).abs() < 0.001,
            "{bar:?}"
        );
        assert!(
            (width - duration as f64 * 100.0 / span).abs() < 0.001,
            "{bar:?}"
        );
        widths.push((width, duration as f64));
    }
    // The span is the run's duration (every check ends within it).
    assert!(span >= run_ms, "span {span} < run {run_ms}");
    // Widths are proportional to durations (to the 3 decimals written) and
    // the sleeps are ordered: short 0.2 s < compile 0.6 s < long 1.0 s.
    let (w_short, d_short) = widths[0];
    for &(w, d) in &widths {
        assert!((w / w_short - d / d_short).abs() < 0.01, "{widths:?}");
    }
    assert!(widths[0].1 >= 200.0 && widths[2].1 >= 600.0 && widths[1].1 >= 1000.0);
    assert!(widths[0].0 < widths[2].0 && widths[2].0 < widths[1].0);
    // `short` and `long` start together on two rows; `compile` starts when
    // `short` ended, on its row.
    let rows: Vec<&str> = bars.iter().map(|b| b["data-row"].as_str()).collect();
    assert_eq!(rows, ["0", "1", "0"], "{bars:?}");

    // The failing check comes before the table of all checks, with its
    // diagnostics grouped by file, in order of first appearance.
    let failed = dom
        .find(r#"<section id="failed">"#)
        .expect("failed section");
    let table = dom.find(r#"<section id="checks">"#).expect("checks table");
    assert!(failed < table);
    let articles: Vec<_> = Regex::new(r#"<article class="check" id="check-([^"]+)""#)
        .unwrap()
        .captures_iter(&dom)
        .map(|c| c[1].to_string())
        .collect();
    assert_eq!(articles, ["compile"]);
    let files: Vec<(String, String)> = Regex::new(
        r#"<div class="file" data-file="([^"]*)"><code>[^<]*</code> \(([0-9]+)\)</div>"#,
    )
    .unwrap()
    .captures_iter(&dom)
    .map(|c| (c[1].to_string(), c[2].to_string()))
    .collect();
    assert_eq!(
        files,
        [
            ("src/a.c".to_string(), "2".to_string()),
            ("src/b.c".to_string(), "1".to_string())
        ]
    );
    let items: Vec<String> = Regex::new(r"<li>(.*?)</li>")
        .unwrap()
        .captures_iter(&dom[failed..table])
        .map(|c| c[1].to_string())
        .collect();
    assert_eq!(
        items,
        [
            r#"<code>3:5</code> <span class="sev-error">error</span> bad thing"#,
            r#"<code>9:2</code> <span class="sev-error">error</span> worse thing"#,
            r#"<code>7:1</code> <span class="sev-warning">warning</span> odd thing"#,
        ]
    );
    // What the check printed is text: no element of it reached the DOM.
    assert!(!dom.contains("<img"), "{dom}");
    assert!(!dom.contains("<script"), "{dom}");
    assert!(dom.contains(
        "&lt;img src=x onerror=alert(1)&gt;&lt;/pre&gt;&lt;script&gt;document.title=1&lt;/script&gt;"
    ));
    assert!(dom.contains("<title>run-check: 1 of 4 checks failed: compile</title>"));

    // The page renders to a PNG of the window's size.
    let png = dir.join("page.png");
    run_chromium(
        &chromium,
        &dir,
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,900",
        ],
        &dir.join("screenshot.log"),
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(
        (&bytes[12..16], size(16), size(20)),
        (&b"IHDR"[..], 1200, 900)
    );
}

/// A flaky check (fails, then passes on its retry; it counts its attempts
/// in a file outside the worktree) in the browser: its bar is striped (class
/// `flaky`, its tooltip tells the attempts), and the Flaky checks section
/// lists it with each attempt.
#[test]
fn chromium_shows_a_flaky_check_apart() {
    let Some(chromium) = chromium() else { return };
    let state = tempfile::tempdir().unwrap();
    let counter = state.path().join("count");
    let run = serde_json::json!([
        "sh",
        "-c",
        "echo x >> \"$1\"; [ \"$(wc -l < \"$1\")\" -ge 2 ]",
        "sh",
        counter
    ]);
    let config = format!(
        "[settings]\nallow = [\"sh\"]\n[[check]]\nname = \"flappy\"\nrun = {run}\nretries = 1\n\
         [[check]]\nname = \"steady\"\nrun = [\"sh\", \"-c\", \"exit 0\"]\n"
    );
    let run = Test::new()
        .config(&config)
        .args(&["--format", "html", "--out", "page.html"])
        .run()
        .success();
    let dir = run.test.path().to_path_buf();
    let dom_file = dir.join("dom.html");
    run_chromium(
        &chromium,
        &dir,
        &dir.join("page.html"),
        &["--dump-dom"],
        &dom_file,
    );
    let dom = std::fs::read_to_string(&dom_file).unwrap();

    let bar = Regex::new(r#"<a class="bar [^>]*>"#).unwrap();
    let bars: Vec<_> = bar
        .find_iter(&dom)
        .map(|m| attributes(m.as_str()))
        .collect();
    let classes: Vec<(&str, &str)> = bars
        .iter()
        .map(|b| (b["data-check"].as_str(), b["class"].as_str()))
        .collect();
    assert_eq!(
        classes,
        [("flappy", "bar s-pass flaky"), ("steady", "bar s-pass")],
        "{dom}"
    );
    assert!(
        bars[0]["title"].ends_with("; flaky: passed on attempt 2 after exit 1"),
        "{:?}",
        bars[0]
    );
    let section = Regex::new(r#"(?s)<section id="flaky">.*?</section>"#)
        .unwrap()
        .find(&dom)
        .expect("the Flaky checks section")
        .as_str();
    assert!(section.contains("<h2>Flaky checks (1)</h2>"), "{section}");
    assert!(
        section.contains(r#"<li data-check="flappy" data-attempts="2">"#),
        "{section}"
    );
    assert!(section.contains("(1: exit 1 in "), "{section}");
    assert!(!section.contains("steady"), "{section}");
}
