use super::*;

fn denied(command: &str) -> Option<&'static str> {
    let protected = [
        PathBuf::from("/repo/.git/run-check"),
        PathBuf::from("/repo/.git/hooks"),
    ];
    let context = Context {
        cwd: Path::new("/repo"),
        protected: &protected,
    };
    check(command, &context).map(|d| d.rule)
}

#[test]
fn commands_that_skip_the_gate_are_denied() {
    for (command, rule) in [
        ("git commit --no-verify -m x", "no-verify"),
        ("git commit -n -m x", "no-verify"),
        ("git commit -anm x", "no-verify"),
        ("git commit --no-veri -m x", "no-verify"),
        ("git push --no-verify origin main", "no-verify"),
        ("cd src && git commit --no-verify", "no-verify"),
        ("make; git commit --no-verify|cat", "no-verify"),
        ("sh -c 'git commit --no-verify -m x'", "no-verify"),
        ("bash -lc \"sh -c 'git commit -n'\"", "no-verify"),
        ("sudo env A=1 /usr/bin/git commit --no-verify", "no-verify"),
        ("echo $(git commit --no-verify)", "no-verify"),
        ("git -c core.hooksPath=/dev/null commit -m x", "hooks-path"),
        ("git -C sub -c CORE.HOOKSPATH= commit", "hooks-path"),
        ("GIT_CONFIG_KEY_0=core.hooksPath git commit", "hooks-path"),
        (
            "git update-index --assume-unchanged src/x.py",
            "index-flags",
        ),
        ("git update-index --skip-worktree src/x.py", "index-flags"),
        ("git config core.hooksPath /dev/null", "git-config"),
        ("git config --local core.trustctime false", "git-config"),
        ("git config set core.fileMode false", "git-config"),
        ("git config --unset core.hooksPath", "git-config"),
        ("run-check agent uninstall", "agent-uninstall"),
        (
            "./run-check --quiet agent uninstall claude",
            "agent-uninstall",
        ),
        ("rm -rf .git/run-check", "gate-state"),
        ("rm -rf /repo/.git/run-check/agent/s1", "gate-state"),
        ("rm -rf .git", "gate-state"),
        ("rm .git/hooks/pre-commit", "gate-state"),
    ] {
        assert_eq!(denied(command), Some(rule), "{command}");
    }
}

#[test]
fn everything_else_and_what_cannot_be_split_goes_through() {
    for command in [
        "git commit -m x",
        "git commit -m -n",
        "git commit -m 'fix --no-verify handling'",
        "git push -n origin main",
        "git push --verbose",
        "git -c user.name=x commit -m y",
        "git update-index --no-assume-unchanged src/x.py",
        "git update-index --refresh",
        "git config core.hooksPath",
        "git config --get core.hooksPath",
        "git config user.email a@b",
        "git log --no-verify",
        "echo 'git commit --no-verify'",
        "echo git commit --no-verify # ; done",
        "grep -n run-check agent uninstall",
        "rm -rf target build",
        "rm -rf .git/objects/tmp",
        "git commit --no-verify 'unclosed",
        "cargo test && ruff check .",
        "",
    ] {
        assert_eq!(denied(command), None, "{command}");
    }
}

#[test]
fn operators_cut_commands_outside_quotes_only() {
    assert_eq!(
        segments("a 'b;c' && d \"e|f\" # g; h\ni").unwrap(),
        ["a 'b;c' ", " d \"e|f\" ", "i"]
    );
    assert_eq!(segments("a 'b"), None);
}
