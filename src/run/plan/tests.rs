use super::no_match_reason;

#[test]
fn a_skip_reason_names_three_globs_and_counts_the_rest() {
    let globs: Vec<String> = (1..=15).map(|i| format!("g{i}/**")).collect();
    assert_eq!(
        no_match_reason(&globs),
        "no changed file matches `paths` (g1/**, g2/**, g3/**, +12 more)"
    );
    assert_eq!(
        no_match_reason(&globs[..3]),
        "no changed file matches `paths` (g1/**, g2/**, g3/**)"
    );
    assert_eq!(
        no_match_reason(&globs[..1]),
        "no changed file matches `paths` (g1/**)"
    );
}

#[cfg(unix)]
use super::resolve::Resolved;
use super::shell::is_shell;
use super::*;
use crate::config;

fn config(text: &str) -> Config {
    config::parse(text, Path::new("checks.toml"), String::new()).unwrap()
}

fn selection(mode: Mode) -> Selection {
    Selection {
        jobs: Some(3),
        ..Selection::all(mode)
    }
}

const TEXT: &str = r#"
[settings]
allow = ["true", "./tool.sh", "definitely-not-a-program-xyz"]
timeout = "7s"
[[check]]
name = "a"
run = ["true"]
modes = ["fast", "strict"]
[[check]]
name = "b"
run = ["./tool.sh"]
needs = ["a"]
timeout = "1s"
[[check]]
name = "c"
run = ["definitely-not-a-program-xyz"]
needs = ["b"]
modes = ["fast"]
"#;

#[test]
fn selects_by_mode_and_maps_needs_to_indices() {
    let config = config(TEXT);
    let dir = tempfile::tempdir().unwrap();
    let worktree = dir.path().canonicalize().unwrap();
    let plan = build(&config, &worktree, &selection(Mode::Fast)).unwrap();
    let names: Vec<&str> = plan.checks.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["a", "c"]);
    // `c` needs `b`, which fast mode does not select: no ordering.
    assert!(plan.checks[1].needs.is_empty());
    assert!(plan.fail_fast);
    assert_eq!(plan.jobs, 3);
    assert_eq!(plan.checks[0].timeout, Duration::from_secs(7));
    assert_eq!(
        plan.checks[1].program,
        Err("program `definitely-not-a-program-xyz` not found on PATH".to_string())
    );

    let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
    assert_eq!(plan.checks[1].needs, vec![0]);
    assert_eq!(plan.checks[1].timeout, Duration::from_secs(1));
    assert!(!plan.fail_fast);
    assert_eq!(
        plan.checks[1].program,
        Err("program `./tool.sh` not found in the worktree".to_string())
    );
    std::fs::write(worktree.join("tool.sh"), "").unwrap();
    let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
    assert_eq!(plan.checks[1].program, Ok(worktree.join("tool.sh")));
    assert!(plan.checks[0].program.as_ref().unwrap().is_absolute());
}

#[test]
#[cfg(unix)]
fn shared_cwds_resolve_once_and_an_escape_still_names_its_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("w/sub")).unwrap();
    let worktree = dir.path().join("w").canonicalize().unwrap();
    std::os::unix::fs::symlink(dir.path(), worktree.join("out")).unwrap();
    let text = "[settings]\nallow = [\"true\"]\n\
            [[check]]\nname = \"a\"\nrun = [\"true\"]\ncwd = \"sub\"\n\
            [[check]]\nname = \"b\"\nrun = [\"true\"]\ncwd = \"sub\"\n\
            [[check]]\nname = \"c\"\nrun = [\"true\"]\ncwd = \"out\"\n";
    let config = config(text);
    let mut resolver = Resolver::default();
    let a = resolver.cwd(&config, &worktree, &config.checks[0]).unwrap();
    assert_eq!(a, worktree.join("sub"));
    // Removed after the first lookup: the second check gets the answer
    // remembered, not a fresh (now failing) canonicalisation.
    std::fs::remove_dir(worktree.join("sub")).unwrap();
    let b = resolver.cwd(&config, &worktree, &config.checks[1]).unwrap();
    assert_eq!(b, a);
    let err = resolver
        .cwd(&config, &worktree, &config.checks[2])
        .unwrap_err();
    assert!(err.to_string().contains("`cwd` of check `c`"), "{err}");
    let (program, _) = resolver
        .check_program(&config, &worktree, &config.checks[0])
        .unwrap();
    let program = program.unwrap();
    assert!(program.is_absolute(), "{program:?}");
    assert_eq!(
        resolve_program("./missing.sh", &worktree, &[]),
        Err(Unusable::NotFound(
            "program `./missing.sh` not found in the worktree".to_string()
        ))
    );
}

#[test]
fn shards_are_parsed_strictly_and_split_by_name_alone() {
    assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
    for bad in [
        "0/4",
        "5/4",
        "1/0",
        "x/2",
        "2",
        "1/2/3",
        "",
        "-1/2",
        "1/4294967296",
        "99999999999999999999/1",
        "1/+",
    ] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    // The largest count is fine, and every name lands in 1..=count.
    let max = Shard::parse("4294967295/4294967295").unwrap();
    assert_eq!(max.count, u32::MAX);
    assert!((1..=u32::MAX).contains(&Shard::of("x", u32::MAX)));
    // A name's shard never depends on the other names.
    let names: Vec<String> = (0..50).map(|i| format!("check-{i}")).collect();
    let before: Vec<u32> = names.iter().map(|n| Shard::of(n, 3)).collect();
    assert!(before.iter().all(|&k| (1..=3).contains(&k)));
    // Every shard gets some of 50 names (sha256 spreads them).
    for k in 1..=3 {
        assert!(before.contains(&k), "shard {k} empty");
    }
    assert_eq!(Shard::of("check-7", 3), before[7]);
    assert_eq!(Shard::of("anything", 1), 1);
}

fn timings(pairs: &[(&str, u64)]) -> Timings {
    Timings {
        path: "ev.json".into(),
        durations: pairs.iter().map(|(n, ms)| (n.to_string(), *ms)).collect(),
    }
}

#[test]
fn timings_split_longest_first_onto_the_least_loaded_shard() {
    let durations = [
        ("a", 2000),
        ("b", 1700),
        ("c", 1400),
        ("d", 1100),
        ("e", 900),
        ("f", 700),
        ("g", 500),
        ("h", 300),
    ];
    let names: Vec<String> = durations.iter().map(|(n, _)| n.to_string()).collect();
    // a→1, b→2, c→3, d→3 (1400), e→2 (1700), f→1 (2000), g→3 (2500),
    // h→2 (2600): loads 2700, 2900, 3000.
    assert_eq!(
        timings(&durations).split(&names, 3),
        [1, 2, 3, 3, 2, 1, 3, 2]
    );
    // Ties: equal durations go by name, equal loads to the lowest index.
    let names: Vec<String> = ["y", "x", "z"].map(String::from).to_vec();
    let even = timings(&[("x", 5), ("y", 5), ("z", 5)]);
    assert_eq!(even.split(&names, 2), [2, 1, 1]);
    // One shard holds everything; more shards than checks leave some
    // empty, without an array of N loads.
    assert_eq!(even.split(&names, 1), [1, 1, 1]);
    assert_eq!(even.split(&names, u32::MAX), [2, 1, 3]);
    // Durations no run writes add up without overflowing.
    let huge = timings(&[("x", u64::MAX), ("y", u64::MAX)]);
    assert_eq!(huge.split(&names, 2), [1, 1, 2]);
}

#[test]
fn checks_without_timings_go_where_the_hash_puts_them() {
    let names: Vec<String> = (0..12).map(|i| format!("check-{i}")).collect();
    // Nothing known: exactly the hash split.
    let none = timings(&[]);
    let hashed: Vec<u32> = names.iter().map(|n| Shard::of(n, 3)).collect();
    assert_eq!(none.split(&names, 3), hashed);
    // Known names outside the selection change nothing.
    assert_eq!(timings(&[("gone", 9000)]).split(&names, 3), hashed);
    // Unknown ones stay on their hash shard, counting as the mean known
    // duration: with three unknown on one shard and three known, the
    // known ones fill the other shards first.
    let on_1: Vec<String> = (0..100)
        .map(|i| format!("new-{i}"))
        .filter(|n| Shard::of(n, 2) == 1)
        .take(3)
        .collect();
    let mut names: Vec<String> = vec!["k1".into(), "k2".into(), "k3".into()];
    names.extend(on_1);
    let split = timings(&[("k1", 100), ("k2", 100), ("k3", 100)]).split(&names, 2);
    // Shard 1 starts at 300 (3 × the mean 100): k1, k2, k3 all go to 2.
    assert_eq!(split, [2, 2, 2, 1, 1, 1]);
}

#[test]
fn only_and_skip_filter_and_reject_unknown_names() {
    let config = config(TEXT);
    let dir = tempfile::tempdir().unwrap();
    let mut sel = selection(Mode::Strict);
    sel.skip = vec!["a".into()];
    let plan = build(&config, dir.path(), &sel).unwrap();
    assert_eq!(plan.checks.len(), 1);
    sel.only = vec!["zz".into()];
    let err = build(&config, dir.path(), &sel).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--only `zz`: no check of that name in checks.toml"
    );
}

#[cfg(unix)]
#[test]
fn a_path_program_is_recorded_canonical() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let worktree = root.join("wt");
    std::fs::create_dir_all(worktree.join("scripts")).unwrap();
    for file in [root.join("tool.sh"), worktree.join("scripts/lint.sh")] {
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let lint = worktree.join("scripts").join("lint.sh");
    let found = |path: PathBuf| {
        Ok(Resolved {
            real: path,
            exec: None,
        })
    };
    let resolve = |program: &str| resolve_program(program, &worktree, &[]);
    assert_eq!(resolve("../tool.sh"), found(root.join("tool.sh")));
    assert_eq!(resolve("./scripts/../scripts/lint.sh"), found(lint.clone()));
    // `\` separates on every platform (docs/checks-toml.md).
    assert_eq!(resolve(".\\scripts\\lint.sh"), found(lint.clone()));
    assert_eq!(resolve("scripts\\lint.sh"), found(lint));
    assert_eq!(
        resolve("./scripts"),
        Err(Unusable::NotFound(
            "program `./scripts` not found in the worktree".into()
        ))
    );
    let absolute = root.join("tool.sh");
    assert_eq!(
        resolve(absolute.to_str().unwrap()),
        found(root.join("tool.sh"))
    );
}

/// docs/checks-toml.md (2026-11-27): a program path that is a symlink
/// runs by the path as listed and is recorded as its target; a shell
/// target not itself listed is refused, wherever it lies.
#[cfg(unix)]
#[test]
fn program_symlinks_run_by_their_path_and_are_judged_by_their_target() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let worktree = root.join("wt");
    std::fs::create_dir_all(worktree.join("scripts")).unwrap();
    let sh = dunce::canonicalize(which::which("sh").unwrap()).unwrap();
    let real_lint = worktree.join("scripts/real-lint");
    std::fs::write(&real_lint, "#!/bin/sh\n").unwrap();
    std::fs::write(root.join("outside"), "#!/bin/sh\n").unwrap();
    symlink(&sh, worktree.join("lint.sh")).unwrap();
    symlink("scripts/real-lint", worktree.join("inner.sh")).unwrap();
    symlink(root.join("outside"), worktree.join("out.sh")).unwrap();
    std::fs::create_dir(worktree.join("bin")).unwrap();
    std::fs::copy(&sh, worktree.join("bin/dash")).unwrap();
    symlink("bin/dash", worktree.join("copy.sh")).unwrap();

    // A link runs by its listed path and is recorded as its target,
    // inside the worktree or out of it (a virtualenv's `python`).
    for (program, real) in [
        ("./inner.sh", &real_lint),
        ("./out.sh", &root.join("outside")),
    ] {
        assert_eq!(
            resolve_program(program, &worktree, &[]),
            Ok(Resolved {
                real: real.clone(),
                exec: Some(worktree.join(&program[2..])),
            })
        );
    }
    // An absolute listed path runs by that path too.
    let absolute = worktree.join("out.sh");
    let found = resolve_program(absolute.to_str().unwrap(), &worktree, &[]).unwrap();
    assert_eq!(found.exec, Some(absolute));
    // A link to a shell, outside the worktree or copied into it under
    // an innocent name: refused unless that shell is itself listed.
    for (program, target) in [
        ("./lint.sh", sh.clone()),
        ("./copy.sh", worktree.join("bin/dash")),
    ] {
        assert_eq!(
            resolve_program(program, &worktree, &[]),
            Err(Unusable::Refused(format!(
                "program `{program}` is a symlink to the shell `{}`, which \
                     `settings.allow` does not list (a shell runs only when it is itself listed)",
                target.display()
            )))
        );
    }
    let listed = ["./bin/dash".to_string()];
    assert!(resolve_program("./copy.sh", &worktree, &listed).is_ok());
    // A directory link counts as much as a file link: `./tools/sh` with
    // `tools` -> the system's bin directory reaches the system's shell,
    // listed by a shell's name: a listed shell, run by the listed path.
    let bin = which::which("sh").unwrap();
    let bin = bin.parent().unwrap();
    symlink(bin, worktree.join("tools")).unwrap();
    let found = resolve_program("./tools/sh", &worktree, &[]).unwrap();
    assert_eq!(found.real, sh);
    assert_eq!(found.exec, Some(worktree.join("tools/sh")));
    // A listed shell name that is a link to another shell is that shell.
    let found = resolve_program("sh", &worktree, &[]).unwrap();
    assert_eq!(found.real, sh);
}

/// A link to a multi-call program runs as the tool its name says (it
/// is run by the link's name); under the program's own name it is a
/// shell, listed by that name.
#[cfg(unix)]
#[test]
fn a_link_to_a_multi_call_program_is_the_tool_it_is_named() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let worktree = dunce::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(worktree.join("bin")).unwrap();
    std::fs::write(worktree.join("bin/busybox"), "").unwrap();
    symlink("busybox", worktree.join("bin/grep")).unwrap();
    symlink("busybox", worktree.join("bin/lint")).unwrap();
    symlink("bin/busybox", worktree.join("box")).unwrap();
    std::fs::create_dir_all(worktree.join("b2")).unwrap();
    symlink(worktree.join("bin/busybox"), worktree.join("b2/busybox")).unwrap();
    let found = resolve_program("./bin/grep", &worktree, &[]).unwrap();
    assert_eq!(found.exec, Some(worktree.join("bin/grep")));
    assert!(resolve_program("./bin/lint", &worktree, &[]).is_ok());
    // `./box` runs busybox as `box`: not an applet, not a shell either.
    assert!(resolve_program("./box", &worktree, &[]).is_ok());
    // By its own name it is a shell, listed by that name.
    assert!(resolve_program("./b2/busybox", &worktree, &[]).is_ok());
    // A link named like no shell to busybox's own name through another
    // link is still judged by the name it is run by.
    symlink("b2/busybox", worktree.join("lint2")).unwrap();
    assert!(resolve_program("./lint2", &worktree, &[]).is_ok());
}

#[test]
fn shells_are_known_by_file_name_in_any_case() {
    for name in [
        "sh",
        "/bin/bash",
        "DASH",
        "pwsh.exe",
        "C:/x/CMD.EXE",
        "busybox",
        "toybox",
    ] {
        assert!(is_shell(Path::new(name)), "{name}");
    }
    for name in ["python3", "cargo", "shellcheck", "rustup", "bashate"] {
        assert!(!is_shell(Path::new(name)), "{name}");
    }
}

#[cfg(unix)]
#[test]
fn at_start_refuses_a_cwd_or_program_changed_since_the_plan() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let worktree = root.join("wt");
    std::fs::create_dir_all(worktree.join("target")).unwrap();
    std::fs::write(worktree.join("lint.sh"), "#!/bin/sh\n").unwrap();
    let config = config(
        "[settings]\nallow = [\"./lint.sh\"]\n[[check]]\nname = \"a\"\nrun = [\"./lint.sh\"]\n\
             cwd = \"target/esc\"\n",
    );
    let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
    let check = &plan.checks[0];
    assert_eq!(
        at_start(check, &worktree).unwrap_err(),
        format!(
            "working directory `{}` does not exist",
            worktree.join("target/esc").display()
        )
    );
    symlink(&root, worktree.join("target/esc")).unwrap();
    assert_eq!(
        at_start(check, &worktree).unwrap_err(),
        format!(
            "`cwd` `target/esc` resolves to `{}` when the check starts, outside the \
                 worktree (an earlier check changed it); not run",
            root.display()
        )
    );
    std::fs::remove_file(worktree.join("target/esc")).unwrap();
    symlink(worktree.join("target"), worktree.join("target/esc")).unwrap();
    assert_eq!(
        at_start(check, &worktree).unwrap().cwd,
        worktree.join("target")
    );
    std::fs::rename(worktree.join("lint.sh"), worktree.join("old.sh")).unwrap();
    symlink("old.sh", worktree.join("lint.sh")).unwrap();
    let err = at_start(check, &worktree).unwrap_err();
    assert!(
        err.starts_with(&format!(
            "program `./lint.sh` resolves to `{}` when the check starts, not `{}`",
            worktree.join("old.sh").display(),
            worktree.join("lint.sh").display()
        )),
        "{err}"
    );

    // A link out of the worktree (a virtualenv's `python`) runs while
    // it leads where it led when the run began; re-pointed, not at all.
    std::fs::create_dir(worktree.join("venv")).unwrap();
    std::fs::write(root.join("python3"), "").unwrap();
    symlink(root.join("python3"), worktree.join("venv/python")).unwrap();
    let config = super::tests::config(
        "[settings]\nallow = [\"./venv/python\"]\n[[check]]\nname = \"a\"\n\
             run = [\"./venv/python\"]\n",
    );
    let plan = build(&config, &worktree, &selection(Mode::Strict)).unwrap();
    let check = &plan.checks[0];
    assert_eq!(check.program, Ok(root.join("python3")));
    assert_eq!(check.exec, Some(worktree.join("venv/python")));
    assert!(at_start(check, &worktree).is_ok());
    std::fs::remove_file(worktree.join("venv/python")).unwrap();
    let sh = dunce::canonicalize(which::which("sh").unwrap()).unwrap();
    symlink(&sh, worktree.join("venv/python")).unwrap();
    assert_eq!(
        at_start(check, &worktree).unwrap_err(),
        format!(
            "program `./venv/python` resolves to `{}` when the check starts, not `{}` as \
                 when the run began (an earlier check replaced it); not run",
            sh.display(),
            root.join("python3").display()
        )
    );
}

#[test]
fn paths_patterns_match_as_the_readme_says() {
    let config = config(
        "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"t\"\nrun = [\"true\"]\n\
             paths = [\"*.rs\", \"./docs/\", \"Makefile\"]\n",
    );
    let mut resolver = Resolver::default();
    let set = resolver.paths(&config, &config.checks[0]).unwrap().unwrap();
    for (path, matches) in [
        ("a.rs", true),
        ("src/deep/a.rs", true),
        ("docs/a/b.md", true),
        ("docs", false),
        ("Makefile", true),
        ("Makefile/x", true),
        ("src/Makefile", false),
        ("README.md", false),
    ] {
        assert_eq!(set.is_match(path), matches, "{path}");
    }
}

#[test]
fn only_a_check_outside_the_mode_is_an_error_and_skip_is_not() {
    let config = config(
        "[settings]\nallow = [\"true\"]\n[[check]]\nname = \"s\"\nrun = [\"true\"]\n\
             [[check]]\nname = \"n\"\nrun = [\"true\"]\nmodes = []\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let mut sel = selection(Mode::Fast);
    sel.skip = vec!["s".into()];
    assert_eq!(build(&config, dir.path(), &sel).unwrap().checks.len(), 0);
    sel.only = vec!["s".into()];
    let err = build(&config, dir.path(), &sel).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--only `s`: the check does not run in fast mode (its modes: strict)"
    );
    sel.only = vec!["n".into()];
    let err = build(&config, dir.path(), &sel).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--only `n`: the check does not run in fast mode (its modes: none)"
    );
}
