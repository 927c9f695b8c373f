use super::super::junit::sample;
use super::*;

#[test]
fn heading_table_details_and_diagnostics() {
    let evidence = sample::evidence();
    let out = render(&evidence);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("### ❌ {}", evidence.summary.banner));
    assert!(out.contains(&evidence.summary.banner));
    assert!(lines[2].starts_with("run-check 0.1.0 · `strict` · 5 checks: 1 pass, 2 fail"));
    assert!(
        lines[2].ends_with("· `0123456789ab` (main)"),
        "{}",
        lines[2]
    );
    let table = lines
        .iter()
        .position(|l| *l == "| Check | Status | Time | Details |")
        .unwrap();
    assert_eq!(lines[table + 1], "|---|---|---|---|");
    assert_eq!(
        &lines[table + 2..table + 7],
        [
            "| `ok` | ✅ pass | 0.81s |  |",
            "| `lint` | ❌ fail | 1.50s | exit 3 · 2 diagnostics |",
            "| `unit` | ❌ fail | 1.50s | timed out; process tree killed |",
            "| `gone` | ⚠️ error | 1.50s | program `zz` not found on PATH |",
            "| `later` | ⏭️ skip | — | needs `unit` failed |",
        ]
    );
    // Every table row has exactly 5 unescaped pipes.
    for row in &lines[table..table + 7] {
        assert_eq!(row.replace("\\|", "").matches('|').count(), 5, "{row}");
    }
    assert_eq!(out.matches("<details").count(), 3);
    assert_eq!(out.matches("</details>").count(), 3);
    assert!(out.contains("<details><summary>lint — exit 3</summary>"));
    // `unit` has no located error to explain it: its output unfolded.
    assert!(
        out.contains("<details open><summary>unit — timed out"),
        "{out}"
    );
    assert!(out.contains("#### Diagnostics (2)"));
    assert!(out.contains("- `src/a.c:3:5` — bad thing (error, lint)"));
    assert!(
        out.contains("- `src/b,c:d.rs:1` — odd 100% message second \\| line (warning, lint, W:1)")
    );
}

#[test]
fn the_fence_is_longer_than_any_backtick_run() {
    let out = render(&crate::sanitize::evidence_display(&sample::evidence()));
    // The lint excerpt has a run of three backticks: the fence has four.
    let start = out.find("````text\n").expect("four-backtick fence");
    let rest = &out[start + 9..];
    let end = rest.find("\n````\n").expect("closing fence");
    let body = &rest[..end];
    assert_eq!(body, "error: <bad> & \"worse\" ]]> ␀␇\n```rust\n``` x");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{0}'));
    // Without backticks inside, three.
    assert!(out.contains("```text\nwaiting…\n```\n"));
}

#[test]
fn cells_escape_pipes_newlines_and_html() {
    assert_eq!(cell("a|b\nc<d>&e"), "a\\|b<br>c&lt;d&gt;&amp;e");
    assert_eq!(cell("`x|<y>`"), "`x\\|<y>`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`a"), "`` `a ``");
    assert_eq!(
        inline("*x* <y> | [z](u)"),
        "\\*x\\* &lt;y&gt; \\| \\[z\\](u)"
    );
    let mut evidence = sample::evidence();
    evidence.checks[3].error = Some("bad | pipe\nnext <b>".into());
    let out = render(&evidence);
    assert!(
        out.contains("| `gone` | ⚠️ error | 1.50s | bad \\| pipe<br>next &lt;b&gt; |"),
        "{out}"
    );
    assert!(out.contains("<summary>gone — bad | pipe next &lt;b&gt;</summary>"));
}

#[test]
fn at_most_fifty_diagnostics_with_the_rest_counted() {
    let mut evidence = sample::evidence();
    evidence.diagnostics = (0..70)
        .map(|i| sample::diagnostic("lint", Some("a.rs"), Some(i + 1), None, "error", None, "x"))
        .collect();
    evidence.checks[1].diagnostics_dropped = 5;
    let out = render(&evidence);
    assert!(out.contains("#### Diagnostics (75)"));
    assert_eq!(
        out.lines().filter(|l| l.starts_with("- `a.rs:")).count(),
        MAX_DIAGNOSTICS
    );
    assert!(out.contains(
        "- … and 20 more (see the evidence), plus 5 dropped past the cap of 1000 per check (the evidence only counts them)"
    ));
    assert!(out.contains("| exit 3 · 75 diagnostics |"));
}

#[test]
fn long_excerpts_keep_their_tail() {
    let text: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let shown = tail(&text, MAX_EXCERPT_CHARS);
    assert!(shown.starts_with("… [140 earlier lines not shown]\nline 140\n"));
    assert!(shown.ends_with("line 199\n"));
    let wide = format!("{}\n", "x".repeat(3 * MAX_EXCERPT_CHARS));
    assert!(tail(&wide, MAX_EXCERPT_CHARS).chars().count() <= MAX_EXCERPT_CHARS + 1);
}

#[test]
fn both_streams_are_shown_stdout_first_and_named() {
    let mut evidence = sample::evidence();
    evidence.checks[1].stdout_excerpt = "FAILED test_x\n".into();
    let out = render(&evidence);
    assert!(out.contains(
        "<details><summary>lint — exit 3</summary>\n\n**stdout**\n\n```text\nFAILED test_x\n```\n\n**stderr**\n\n````text\n"
    ), "{out}");
}

/// `n` failing checks, each with about `size` characters on both streams
/// (lines of 100).
fn many_failing(n: usize, size: usize) -> Evidence {
    let mut evidence = sample::evidence();
    let template = evidence.checks[1].clone();
    evidence.diagnostics.clear();
    evidence.checks = (0..n)
        .map(|i| {
            let mut check = template.clone();
            check.name = format!("c{i}");
            let lines = |c: &str| format!("{}\n", c.repeat(99)).repeat(size / 100);
            check.stdout_excerpt = format!("{}last out {i}\n", lines("o"));
            check.stderr_excerpt = format!("{}last err {i}\n", lines("e"));
            check
        })
        .collect();
    evidence
}

#[track_caller]
fn well_formed(out: &str) {
    assert!(out.len() <= MAX_REPORT_BYTES, "{} bytes", out.len());
    assert!(out.chars().count() < 65_536);
    assert_eq!(
        out.matches("<details").count(),
        out.matches("</details>").count()
    );
    // Every fence is closed: the fence lines pair up.
    let fences = out.lines().filter(|l| l.starts_with("```")).count();
    assert_eq!(fences % 2, 0);
}

#[test]
fn many_failing_checks_fit_a_github_comment() {
    // 20 checks x 2 streams x 6000 characters would be ~240 KB.
    let out = render(&many_failing(20, 100_000));
    well_formed(&out);
    assert_eq!(out.matches("<details").count(), 20);
    for i in 0..20 {
        assert!(
            out.contains(&format!("last out {i}\n")),
            "c{i}'s stdout tail"
        );
        assert!(
            out.contains(&format!("last err {i}\n")),
            "c{i}'s stderr tail"
        );
    }
    assert!(out.trim_end().ends_with(
        "_Cut to stay under GitHub's 65,536-character comment limit: the output of 20 checks shortened to its tail. The evidence (`--format json`) has every check, its full excerpts and its diagnostics._"
    ), "{}", &out[out.len() - 400..]);
    // A few small failures are not cut at all.
    let out = render(&many_failing(3, 100));
    well_formed(&out);
    assert!(!out.contains("_Cut to stay"));
}

#[test]
fn hundreds_of_failing_checks_lose_excerpts_then_blocks_then_rows() {
    let out = render(&many_failing(300, 10_000));
    well_formed(&out);
    assert!(out.contains("(output left out to keep this report short; see the evidence)"));
    assert!(out.contains("_Cut to stay under GitHub's 65,536-character comment limit:"));
    let out = render(&many_failing(3000, 10));
    well_formed(&out);
    let rows = out.lines().filter(|l| l.starts_with("| `c")).count();
    assert!(rows < 3000);
    assert!(out.contains(&format!(
        "| … {} more | | | see the evidence |",
        3000 - rows
    )));
    assert!(out.contains(&format!("{} checks left out of the table", 3000 - rows)));
}

#[test]
fn a_passing_run() {
    let out = render(&sample::passing());
    assert!(out.starts_with("### ✅ All checks passed!\n"));
    assert!(!out.contains("<details>") && !out.contains("Diagnostics"));
}
