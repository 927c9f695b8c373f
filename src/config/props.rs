//! Property tests over checks.toml: random documents whose values
//! (durations, numbers, floats, paths, program names, environment keys,
//! regexes) come from generators that favour the edges (0, negatives,
//! `u64::MAX`, `nan`, `inf`, `..`, absolute paths, NUL bytes), fed through
//! [`super::parse`] and, when valid, `plan::build` and `plan::at_start`. No
//! input may panic; an error is one line that starts with the file's name;
//! a valid config yields only bounded values (timeouts within 1 ms ..
//! 7 days, so `Instant::now() + timeout` cannot overflow).
//!
//! `cargo test --lib config::props` runs them (256 cases each, a second or
//! two); `PROPTEST_CASES=100000 cargo test --release --lib config::props`
//! searches longer. A failure prints the smallest document found.

use std::path::Path;
use std::time::Instant;

use proptest::prelude::*;

use crate::config::Mode;
use crate::duration;
use crate::run::plan::{self, Selection};

/// A TOML string literal of `text` (escaped as TOML needs).
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Durations: well-formed, at the edges, and junk.
fn duration_text() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        (0u64..2000).prop_map(|n| n.to_string()),
        Just(u64::MAX.to_string()),
        Just("2562047788015215".to_string()),
        Just("18446744073709551616".to_string()),
        Just("604800000".to_string()),
        Just("604800001".to_string()),
        Just("168".to_string()),
        Just("7".to_string()),
        "[0-9]{1,25}",
    ];
    let unit = prop::sample::select(vec![
        "ms", "s", "m", "h", "d", "", "x", "S", "us", "µs", " ", "-",
    ]);
    let valid = (1u64..1000, prop::sample::select(vec!["ms", "s", "m", "h"]))
        .prop_map(|(n, u)| format!("{n}{u}"));
    prop_oneof![
        6 => valid,
        2 => prop::collection::vec((number, unit), 1..4).prop_map(|parts| {
            parts
                .into_iter()
                .map(|(n, u)| format!("{n}{u}"))
                .collect::<String>()
        }),
        1 => "[0-9a-zµ .+-]{0,12}",
    ]
}

/// An integer as TOML writes it, from anywhere in i64.
fn integer() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => (1i64..300).prop_map(|n| n.to_string()),
        1 => (-3i64..1).prop_map(|n| n.to_string()),
        1 => Just(i64::MAX.to_string()),
        1 => Just(i64::MIN.to_string()),
        1 => Just(u32::MAX.to_string()),
        1 => Just((u64::from(u32::MAX) + 1).to_string()),
        1 => Just("67108864".to_string()),
        1 => Just("67108865".to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
    ]
}

/// A float as TOML writes it, `nan` and `inf` included.
fn float() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0.0f64..100.0).prop_map(|f| format!("{f:?}")),
        1 => (-10.0f64..110.0).prop_map(|f| format!("{f:?}")),
        1 => prop::sample::select(vec![
            "nan", "+nan", "-nan", "inf", "-inf", "0.0", "1.0", "100.0", "1e308", "-1e308",
            "5e-324", "0.4",
        ])
        .prop_map(str::to_string),
        1 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
    ]
}

/// A path as a `cwd` or a program may be written.
fn path_text() -> impl Strategy<Value = String> {
    let part = prop::sample::select(vec![
        ".", "..", "a", "src", "target", "/", "\\", "C:", "~", "", "\0", "sh", "lint.sh", "true",
        "bash", "dash", "busybox", "..\\..", "/etc", "/bin/sh", "\u{202e}",
    ]);
    prop_oneof![
        6 => prop::sample::select(vec![".", "src", "./src/../src", "true", "sh", "./lint.sh"])
            .prop_map(str::to_string),
        2 => prop::collection::vec(part, 1..5).prop_map(|parts| parts.join("/")),
        1 => "[a-z./\\\\]{0,10}",
    ]
}

/// An environment key: ordinary, code-loading, in any case, or malformed.
fn env_key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec!["CI", "NO_COLOR", "CARGO_TERM_COLOR", "RUST_LOG"])
            .prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "CI", "LD_PRELOAD", "ld_preload", "PATH", "Path", "GIT_CONFIG_COUNT",
            "RUSTFLAGS", "DYLD_X", "CARGO_TARGET_X_LINKER", "CARGO_TARGET_DIR", "A=B", "",
            "\0", "BASH_FUNC_x%%", "ENV",
        ])
        .prop_map(str::to_string),
        1 => "[A-Za-z_]{1,12}",
    ]
}

/// A regex as a `score` or a matcher may be written.
fn regex_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            r"coverage: (\d+)%",
            r"(?P<file>[^:]+):(?P<line>\d+): (?P<message>.+)",
            "(",
            "a{99999}",
            "",
            "(?P<message>x)",
        ])
        .prop_map(str::to_string),
        1 => "[()a-z\\\\d+*?.{}0-9\\[\\]^$|]{0,12}",
    ]
}

/// `s` with probability `p`, else absent.
fn some<S: Strategy>(p: f64, s: S) -> impl Strategy<Value = Option<S::Value>> {
    prop::option::weighted(p, s)
}

/// A TOML array of string literals.
fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| quoted(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `[judge]` table (or nothing) with some thresholds and weights.
fn judge_table() -> impl Strategy<Value = String> {
    let weights = prop_oneof![
        3 => Just(("0.4".to_string(), "0.35".to_string(), "0.25".to_string())),
        1 => (float(), float(), float()),
    ];
    let judge = some(
        0.3,
        (
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "security_min",
                        "quality_min",
                        "performance_min",
                        "overall_min",
                        "stall_threshold",
                    ]),
                    float(),
                ),
                0..3,
            ),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "max_critical_issues",
                        "max_high_issues",
                        "max_iterations",
                        "stall_rounds",
                    ]),
                    integer(),
                ),
                0..3,
            ),
            some(0.5, weights),
        ),
    );
    judge.prop_map(|judge| {
        let mut text = String::new();
        if let Some((floats, ints, weights)) = judge {
            text += "[judge]\n";
            let mut seen = Vec::new();
            for (key, value) in floats {
                if !seen.contains(&key) {
                    seen.push(key);
                    text += &format!("{key} = {value}\n");
                }
            }
            for (key, value) in ints {
                if !seen.contains(&key) {
                    seen.push(key);
                    text += &format!("{key} = {value}\n");
                }
            }
            if let Some((s, q, p)) = weights {
                text +=
                    &format!("weights = {{ security = {s}, quality = {q}, performance = {p} }}\n");
            }
        }
        text
    })
}

/// One check's values: program, arguments, timeout, cwd, env, score and
/// matcher regexes, whether the program is allowed, retries.
type Check = (
    String,
    Vec<String>,
    Option<String>,
    Option<String>,
    Vec<(String, String)>,
    Option<String>,
    Option<String>,
    bool,
    Option<String>,
);

fn check() -> impl Strategy<Value = Check> {
    (
        path_text(),
        prop::collection::vec("[a-z -]{0,6}", 0..3),
        some(0.4, duration_text()),
        some(0.5, path_text()),
        prop::collection::vec((env_key(), "[a-z]{0,4}"), 0..3),
        some(0.2, regex_text()),
        some(0.2, regex_text()),
        prop::bool::weighted(0.9),
        some(0.3, integer()),
    )
}

/// The `[[check]]` table of check `c{i}`, which needs the one before it.
fn check_table(i: usize, check: Check) -> String {
    let (program, args, timeout, cwd, env, score, matcher, _, retries) = check;
    let mut text = format!("[[check]]\nname = \"c{i}\"\n");
    let mut argv = vec![program];
    argv.extend(args);
    text += &format!("run = [{}]\n", list(&argv));
    text += "modes = [\"fast\", \"strict\"]\n";
    if let Some(timeout) = timeout {
        text += &format!("timeout = {}\n", quoted(&timeout));
    }
    if let Some(cwd) = cwd {
        text += &format!("cwd = {}\n", quoted(&cwd));
    }
    if let Some(retries) = retries {
        text += &format!("retries = {retries}\n");
    }
    if i > 0 {
        text += &format!("needs = [\"c{}\"]\n", i - 1);
    }
    if let Some(score) = score {
        text += &format!("score = {{ regex = {} }}\n", quoted(&score));
    }
    let mut keys = Vec::new();
    let pairs: Vec<String> = env
        .into_iter()
        .filter(|(k, _)| {
            let new = !keys.contains(k);
            keys.push(k.clone());
            new
        })
        .map(|(k, v)| format!("{} = {}", quoted(&k), quoted(&v)))
        .collect();
    text += &format!("env = {{ {} }}\n", pairs.join(", "));
    if let Some(matcher) = matcher {
        text += &format!("[[check.matcher]]\nregex = {}\n", quoted(&matcher));
    }
    text
}

/// One checks.toml document built from the generators above, each key
/// present or not.
fn document() -> impl Strategy<Value = String> {
    // Each key is often absent, so that one bad value does not hide the
    // others: a good share of the documents is valid (see
    // `the_documents_reach_the_planner`).
    let settings = (
        some(0.3, integer()),
        some(0.5, duration_text()),
        some(0.3, integer()),
        prop::collection::vec(path_text(), 0..4),
        prop::collection::vec(env_key(), 0..3),
    );
    (
        settings,
        judge_table(),
        some(0.2, integer()),
        prop::collection::vec(check(), 0..4),
    )
        .prop_map(|(settings, judge, max_retries, checks)| {
            let (jobs, timeout, excerpt, mut allow, allow_env) = settings;
            let mut text = String::from("[settings]\n");
            if let Some(jobs) = jobs {
                text += &format!("jobs = {jobs}\n");
            }
            if let Some(timeout) = timeout {
                text += &format!("timeout = {}\n", quoted(&timeout));
            }
            if let Some(excerpt) = excerpt {
                text += &format!("excerpt_bytes = {excerpt}\n");
            }
            // Most programs are listed, so checks get past the whitelist.
            allow.extend(checks.iter().filter(|c| c.7).map(|c| c.0.clone()));
            text += &format!("allow = [{}]\n", list(&allow));
            text += &format!("allow_env = [{}]\n", list(&allow_env));
            text += &judge;
            if let Some(n) = max_retries {
                text += &format!("[retry]\nmax_retries = {n}\n");
            }
            for (i, check) in checks.into_iter().enumerate() {
                text += &check_table(i, check);
            }
            text
        })
}

/// The property: `text` loads into a valid config or one clean error, and
/// a valid config plans into bounded values without a panic.
fn loads_cleanly(text: &str, worktree: &Path) -> Result<(), TestCaseError> {
    let config = match super::parse(text, Path::new("checks.toml"), String::new()) {
        Ok(config) => config,
        Err(err) => {
            let message = err.to_string();
            prop_assert!(
                message.starts_with("checks.toml"),
                "error does not name the file: {message}"
            );
            prop_assert!(!message.contains('\n'), "error is not one line: {message}");
            return Ok(());
        }
    };
    prop_assert!((duration::MIN..=duration::MAX).contains(&config.settings.timeout));
    prop_assert!((1..=64 * 1024 * 1024).contains(&config.settings.excerpt_bytes));
    for check in config.checks.iter().chain(&config.fixes) {
        if let Some(timeout) = check.timeout {
            prop_assert!((duration::MIN..=duration::MAX).contains(&timeout));
        }
        prop_assert!(!check.cwd.is_absolute());
        prop_assert!(check.retries <= super::MAX_RETRIES);
    }
    for mode in [Mode::Fast, Mode::Strict] {
        let selection = Selection {
            changed: Some(vec!["src/a.rs".into()]),
            ..Selection::all(mode)
        };
        let plan = match plan::build(&config, worktree, &selection) {
            Ok(plan) => plan,
            Err(err) => {
                let message = err.to_string();
                prop_assert!(message.starts_with("checks.toml"), "{message}");
                prop_assert!(!message.contains('\n'), "{message}");
                continue;
            }
        };
        prop_assert!(plan.jobs >= 1);
        for check in &plan.checks {
            prop_assert!(Instant::now().checked_add(check.timeout).is_some());
            prop_assert!(check.cwd.starts_with(worktree), "{:?}", check.cwd);
            if let Err(why) = plan::at_start(check, worktree) {
                prop_assert!(!why.contains('\n'), "{why}");
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_duration_parses_or_is_refused_within_bounds(text in duration_text()) {
        match duration::parse(&text) {
            Ok(d) => {
                prop_assert!((duration::MIN..=duration::MAX).contains(&d), "{text}: {d:?}");
                prop_assert!(Instant::now().checked_add(d).is_some());
                // What `list` prints reads back as the same duration.
                prop_assert_eq!(duration::parse(&duration::display(d)), Ok(d));
            }
            Err(why) => prop_assert!(!why.is_empty() && !why.contains('\n')),
        }
    }

    #[test]
    fn any_string_as_a_duration_never_panics(text in ".{0,40}") {
        let _ = duration::parse(&text);
    }

    #[test]
    fn any_document_loads_or_fails_cleanly(text in document()) {
        let dir = tempfile::tempdir().unwrap();
        let worktree = dunce::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(worktree.join("src")).unwrap();
        loads_cleanly(&text, &worktree)?;
    }

    /// The document with one byte replaced: TOML syntax errors anywhere.
    #[test]
    fn a_mangled_document_fails_cleanly(
        text in document(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(vec![b'"', b'[', b']', b'=', b'\n', b'{', b'}', b'\\', b'#']),
    ) {
        let mut bytes = text.into_bytes();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            let dir = tempfile::tempdir().unwrap();
            let worktree = dunce::canonicalize(dir.path()).unwrap();
            loads_cleanly(&text, &worktree)?;
        }
    }
}

/// The generator is no use if every document is an error: a good share
/// must load and plan, so the properties reach `plan::build` and
/// `plan::at_start` with edge values that validated.
#[test]
fn the_documents_reach_the_planner() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let dir = tempfile::tempdir().unwrap();
    let worktree = dunce::canonicalize(dir.path()).unwrap();
    let strategy = document();
    let (mut valid, mut planned_checks) = (0, 0);
    for _ in 0..300 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        if let Ok(config) = super::parse(&text, Path::new("checks.toml"), String::new()) {
            valid += 1;
            let selection = Selection::all(Mode::Strict);
            if let Ok(plan) = plan::build(&config, &worktree, &selection) {
                planned_checks += plan.checks.len();
            }
        }
    }
    assert!(valid >= 30, "only {valid} of 300 documents were valid");
    assert!(planned_checks >= 20, "only {planned_checks} checks planned");
}
