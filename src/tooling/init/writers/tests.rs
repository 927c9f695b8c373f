use super::*;

fn context() -> Context {
    let scripts = [
        ("lint", "npm run lint:js && npm run lint:css"),
        ("lint:js", "eslint ."),
        ("lint:css", "stylelint --fix '**/*.css'"),
        ("check", "run-s check:*"),
        ("check:types", "tsc --noEmit"),
        ("check:fmt", "prettier --write ."),
        ("test", "jest"),
        ("pretest", "npm run format"),
        ("format", "prettier -w ."),
        ("build", "tsc -p ."),
        ("loop", "npm run loop"),
    ];
    Context {
        scripts: scripts
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect(),
        targets: vec![
            ("lint".into(), vec!["fmt".into()], vec!["@flake8 .".into()]),
            ("fmt".into(), vec![], vec!["\tblack .".into()]),
            (
                "test".into(),
                vec![],
                vec!["-pytest -q".into(), "$(MAKE) vet".into()],
            ),
            ("vet".into(), vec![], vec!["go vet ./...".into()]),
        ],
        ruff_fixes: false,
        ruff_fix_only: false,
        redirects_are_output: false,
    }
}

#[test]
fn writers_are_recognised() {
    let c = Context::default();
    for line in [
        "eslint --fix .",
        "eslint . --fix-type problem --fix",
        "prettier --write .",
        "prettier -w src",
        "npx prettier --write=true .",
        "cross-env NODE_ENV=x stylelint --fix src",
        "biome check --write .",
        "biome check --apply .",
        "biome format --write .",
        "black .",
        "python -m black src",
        "isort .",
        "uv run ruff format",
        "ruff check --fix",
        "cargo fmt",
        "cargo fmt --all",
        "rustfmt src/main.rs",
        "gofmt -w .",
        "go fmt ./...",
        "go mod tidy",
        "sed -i s/a/b/ f",
        "tsc && eslint --fix .",
        "jest -u",
        "npm run format",
        "oxlint --fix",
        "rubocop -A",
        "eslint --cache .",
    ] {
        assert!(writes(line, &c).is_some(), "{line}");
    }
    for line in [
        "eslint .",
        "eslint --fix-dry-run .",
        "prettier --check .",
        "prettier -c .",
        "biome check .",
        "biome ci .",
        "black --check .",
        "isort --check-only .",
        "ruff check",
        "ruff format --check",
        "cargo fmt --all -- --check",
        "cargo clippy -- -D warnings",
        "rustfmt --check src/main.rs",
        "gofmt -l .",
        "go vet ./...",
        "tsc --noEmit",
        "jest --ci",
        "npm run lint",
        "echo 'eslint --fix' in a string",
    ] {
        assert_eq!(writes(line, &c), None, "{line}");
    }
    let fixing = Context {
        ruff_fixes: true,
        ..Context::default()
    };
    assert!(writes("ruff check .", &fixing).is_some());
    assert!(writes("ruff .", &fixing).is_some());
    assert_eq!(writes("ruff check --no-fix .", &fixing), None);
    let fix_only = Context {
        ruff_fix_only: true,
        ..Context::default()
    };
    assert!(writes("ruff check --no-fix .", &fix_only).is_some());
    assert_eq!(writes("ruff check --no-fix-only .", &fix_only), None);
    assert_eq!(writes("perl -w x.pl", &fix_only), None);
}

#[test]
fn redirections_to_files_write_and_to_the_streams_do_not() {
    let c = Context::default();
    for (line, why) in [
        ("./runtests > test.out", "`> test.out`"),
        ("./runtests>>log.txt && cmp log.txt expected", "`> log.txt`"),
        ("cc x.c 2> errors.txt", "`> errors.txt`"),
        ("./t &> all.log", "`> all.log`"),
        ("./t >| forced.txt", "`> forced.txt`"),
        ("./t | tee result.txt", "`tee result.txt`"),
        ("./t | tee -a 'out.txt'", "`tee out.txt`"),
    ] {
        assert_eq!(writes(line, &c).as_deref(), Some(why), "{line}");
    }
    for line in [
        "./runtests > /dev/null",
        "./runtests 2>&1 | grep -v noise",
        "echo failed >&2",
        "echo 'a > b' \"c > d\"",
        "./t 2>/dev/null",
        "./t | tee /dev/stderr",
        "test $$n -gt 1",
    ] {
        assert_eq!(writes(line, &c), None, "{line}");
    }
}

#[test]
fn scripts_and_targets_are_followed() {
    let c = context();
    assert_eq!(
        script_writes("lint", &c).as_deref(),
        Some("`stylelint --fix` (via `npm run lint:css`)")
    );
    assert_eq!(
        script_writes("check", &c).as_deref(),
        Some("`prettier --write` (via `run-s check:*`)")
    );
    assert_eq!(
        script_writes("test", &c).as_deref(),
        Some("`prettier -w` (via `npm run format`) (in its `pretest` script)")
    );
    assert_eq!(script_writes("build", &c), None);
    assert_eq!(script_writes("loop", &c), None);
    assert_eq!(
        target_writes("lint", &c).as_deref(),
        Some("`black without --check` (in its prerequisite `fmt`)")
    );
    assert_eq!(target_writes("test", &c), None);
}

#[test]
fn simple_scripts_have_a_read_only_variant() {
    let v = |s: &str| read_only_variant(s).map(|w| w.join(" "));
    assert_eq!(v("eslint --fix .").as_deref(), Some("eslint ."));
    assert_eq!(
        v("eslint --fix --fix-type problem src").as_deref(),
        Some("eslint src")
    );
    assert_eq!(
        v("prettier --write .").as_deref(),
        Some("prettier --check .")
    );
    assert_eq!(
        v("prettier -w --check src").as_deref(),
        Some("prettier --check src")
    );
    assert_eq!(
        v("npx stylelint --fix '**/*.css'").as_deref(),
        Some("stylelint **/*.css")
    );
    assert_eq!(v("biome check --write .").as_deref(), Some("biome check ."));
    assert_eq!(v("jest -u").as_deref(), Some("jest"));
    assert_eq!(
        v("eslint --cache --cache-location .cache/x --fix .").as_deref(),
        Some("eslint .")
    );
    assert_eq!(v("eslint --fix . && tsc"), None);
    assert_eq!(v("black ."), None);
    assert_eq!(v("./scripts/fix.sh --fix"), None);
    assert_eq!(v("eslint --fix $DIR"), None);
}
