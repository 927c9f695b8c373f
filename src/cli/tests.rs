use super::*;
use clap::CommandFactory;

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn config_root_stops_at_the_git_top_level() {
    let temp = tempfile::tempdir().unwrap();
    let mkdir = |path: &str| std::fs::create_dir_all(temp.path().join(path)).unwrap();
    let touch = |path: &str| std::fs::write(temp.path().join(path), "").unwrap();
    let root = |path: &str| config_root(&temp.path().join(path));
    // Outside git: the current directory only, never a parent's config.
    mkdir("outside/sub");
    touch("outside/checks.toml");
    assert_eq!(root("outside/sub"), None);
    assert_eq!(root("outside"), Some(0));
    // A repository (`.git` a directory) below a folder with a config.
    mkdir("repo/.git");
    mkdir("repo/a/b");
    touch("checks.toml");
    assert_eq!(root("repo/a/b"), None, "above the top level");
    touch("repo/checks.toml");
    assert_eq!(root("repo/a/b"), Some(2));
    touch("repo/a/checks.toml");
    assert_eq!(root("repo/a/b"), Some(1), "the nearest wins");
    // A linked worktree or a submodule: `.git` is a file.
    mkdir("repo/sub/x");
    touch("repo/sub/.git");
    assert_eq!(
        root("repo/sub/x"),
        None,
        "the outer repository's is not taken"
    );
}

#[test]
fn resolved_keeps_given_locations() {
    let given = Location {
        config: Some("c.toml".into()),
        worktree: None,
    };
    assert_eq!(given.resolved().worktree, None);
    let given = Location {
        config: None,
        worktree: Some("w".into()),
    };
    assert_eq!(given.resolved().worktree, Some(PathBuf::from("w")));
}

#[test]
fn bare_options_mean_check() {
    let cli =
        Cli::try_parse_from(["run-check", "--mode", "fast", "--only", "a", "--only", "b"]).unwrap();
    assert!(cli.command.is_none());
    assert_eq!(cli.check.mode, Mode::Fast);
    assert_eq!(cli.check.only, ["a", "b"]);
    let cli = Cli::try_parse_from(["run-check", "check", "--format", "json"]).unwrap();
    assert!(matches!(cli.command, Some(Command::Check(ref a)) if a.format == Format::Json));
}

/// The check run's own parser reads what the whole command reads as a
/// check run, and leaves everything else to it.
#[test]
fn the_check_runs_parser_agrees_with_the_whole_command() {
    use std::ffi::OsString;
    let words = |line: &str| -> Vec<OsString> {
        std::iter::once("run-check")
            .chain(line.split_whitespace())
            .map(OsString::from)
            .collect()
    };
    for line in [
        "",
        "--mode fast --format json --out ev.json --quiet",
        "--mode strict --jobs 1 --config c.toml --worktree w",
        "--only list --only judge --skip check --no-fail-fast",
        "-o report.txt --format sarif --changed-since main",
        "--only=validate --verify-read-only --remote --cache",
    ] {
        let args = words(line);
        let fast = CheckArgs::alone(&args).unwrap_or_else(|| panic!("`{line}` not taken"));
        let full = Cli::try_parse_from(&args).unwrap();
        assert!(full.command.is_none(), "{line}");
        assert_eq!(format!("{fast:?}"), format!("{:?}", full.check), "{line}");
    }
    for line in [
        "check --format json",
        "list",
        "--mode fast list",
        "judge ev.json",
        "--help",
        "-h",
        "--version",
        "-V",
        "--mode",
        "--mode sometimes",
        "--no-such-flag",
        "--cache --no-cache",
        "--all-diagnostics",
        "stray",
        "-- --mode fast",
    ] {
        assert!(CheckArgs::alone(&words(line)).is_none(), "`{line}` taken");
    }
    let cli = Cli::parse_args(&words("list")).unwrap();
    assert!(matches!(cli.command, Some(Command::List(_))));
    let err = Cli::parse_args(&words("--version")).unwrap_err();
    assert_eq!(err.kind(), clap::error::ErrorKind::DisplayVersion);
}

proptest::proptest! {
    /// Any line of options, values, subcommand names and mistakes: the
    /// check run's parser takes it only where the whole command reads
    /// it as a check run, and then reads the same.
    #[test]
    fn the_check_runs_parser_never_reads_otherwise(
        picks in proptest::collection::vec(0usize..WORDS.len(), 0..8)
    ) {
        let args: Vec<std::ffi::OsString> = std::iter::once("run-check")
            .chain(picks.iter().map(|&i| WORDS[i]))
            .map(Into::into)
            .collect();
        if let Some(fast) = CheckArgs::alone(&args) {
            let full = Cli::try_parse_from(&args);
            proptest::prop_assert!(full.is_ok(), "{args:?}: {:?}", full.err());
            let full = full.unwrap();
            proptest::prop_assert!(full.command.is_none(), "{args:?}");
            proptest::prop_assert_eq!(format!("{fast:?}"), format!("{:?}", full.check));
        }
    }
}

/// What the property test draws from: every kind of word a command
/// line of run-check holds.
const WORDS: &[&str] = &[
    "--mode",
    "fast",
    "strict",
    "--format",
    "json",
    "text",
    "sarif",
    "--out",
    "-o",
    "ev.json",
    "--only",
    "--skip",
    "a",
    "--jobs",
    "-j",
    "2",
    "0",
    "--config",
    "c.toml",
    "--worktree",
    "w",
    "--changed-since",
    "main",
    "--shard",
    "1/2",
    "--timings",
    "--baseline",
    "--all-diagnostics",
    "--no-fail-fast",
    "--verify-read-only",
    "--cache",
    "--no-cache",
    "--remote",
    "--remote=auto",
    "--no-remote",
    "--quiet",
    "-q",
    "--task",
    "check",
    "list",
    "validate",
    "judge",
    "cache",
    "agent",
    "--help",
    "-h",
    "--version",
    "-V",
    "--",
    "--nope",
    "--mode=fast",
    "--only=list",
];
