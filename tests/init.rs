//! `run-check init`: sample projects of every kind it detects, the checks,
//! whitelist and parsers it writes, `validate` on its output, and its
//! never-overwrite rule.

use serde_json::Value;

use crate::support::Test;

/// Sample projects: a name and its files. Shared with `schema.rs`, which
/// validates init's output against the checks.toml schema.
pub(crate) const PROJECTS: &[(&str, &[(&str, &str)])] = &[
    (
        "cargo",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("src/lib.rs", "pub fn f() {}\n"),
        ],
    ),
    (
        "npm",
        &[
            (
                "package.json",
                r#"{"name": "demo", "scripts": {"lint": "eslint .", "typecheck": "tsc --noEmit", "build": "tsc -p .", "test": "jest", "format": "prettier -w ."}}"#,
            ),
            ("package-lock.json", "{}"),
        ],
    ),
    (
        "pnpm",
        &[
            (
                "package.json",
                r#"{"scripts": {"lint": "next lint", "test": "vitest run"}}"#,
            ),
            ("pnpm-lock.yaml", "lockfileVersion: '9.0'\n"),
        ],
    ),
    (
        "python",
        &[(
            "pyproject.toml",
            "[project]\nname = \"demo\"\ndependencies = [\"requests\"]\n\n[project.optional-dependencies]\ndev = [\"pytest>=8\", \"ruff\", \"mypy==1.10\"]\n",
        )],
    ),
    ("go", &[("go.mod", "module example.com/demo\n\ngo 1.22\n")]),
    (
        "cmake",
        &[
            ("CMakeLists.txt", CMAKE_LISTS),
            (".gitignore", "build/\n"),
            ("src/add.h", "int add(int a, int b);\n"),
            ("src/add.c", ADD_C),
            ("tests/test_add.c", TEST_ADD_C),
        ],
    ),
    (
        "make-c",
        &[
            ("Makefile", C_MAKEFILE),
            (".gitignore", "demo_test\n"),
            ("src/add.h", "int add(int a, int b);\n"),
            ("src/add.c", ADD_C),
            ("tests/test_add.c", TEST_ADD_C),
        ],
    ),
    (
        "make",
        &[(
            "Makefile",
            ".PHONY: lint test check build\nlint:\n\tshellcheck *.sh\ntest: build\n\t./run-tests\ncheck: lint test\nbuild:\n\tcc -o demo demo.c\n",
        )],
    ),
    ("empty", &[("README.md", "nothing to detect\n")]),
];

/// A CMake project with one library, one test program and testing enabled.
const CMAKE_LISTS: &str = "cmake_minimum_required(VERSION 3.13)
project(demo C)
enable_testing()
add_library(demo src/add.c)
target_include_directories(demo PUBLIC src)
add_executable(test_add tests/test_add.c)
target_link_libraries(test_add demo)
add_test(NAME test_add COMMAND test_add)
";

/// A Makefile building and running the same test program.
const C_MAKEFILE: &str = "CFLAGS = -Wall
.PHONY: all test
all: demo_test
demo_test: tests/test_add.c src/add.c src/add.h
\t$(CC) $(CFLAGS) -Isrc -o demo_test tests/test_add.c src/add.c
test: all
\t./demo_test
";

const ADD_C: &str = "#include \"add.h\"\n\nint add(int a, int b) { return a + b; }\n";

const TEST_ADD_C: &str = "#include <assert.h>\n#include \"add.h\"\n\nint main(void) {\n    assert(add(2, 2) == 4);\n    return 0;\n}\n";

/// A temp directory (not a git repository) holding project `name`.
pub(crate) fn project(name: &str) -> Test {
    let (_, files) = PROJECTS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no project {name}"));
    files
        .iter()
        .fold(Test::bare(), |test, (path, text)| test.file(path, text))
}

/// Runs `init` in `test`, asserts success, and returns the written
/// checks.toml as JSON and as text.
#[track_caller]
pub(crate) fn init(test: Test) -> (Value, String, crate::support::Run) {
    let run = test.args(&["init"]).run().success();
    let text = std::fs::read_to_string(run.test.path().join("checks.toml")).expect("checks.toml");
    let value: Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (value, text, run)
}

fn names(config: &Value) -> Vec<&str> {
    config["check"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

/// The `[[check]]` called `name` of a config read as JSON.
pub(crate) fn check<'a>(config: &'a Value, name: &str) -> &'a Value {
    config["check"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {config:#}"))
}

fn allow(config: &Value) -> Vec<&str> {
    config["settings"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect()
}

/// `run-check validate` on the directory of `run` exits 0.
#[track_caller]
fn validates(run: &crate::support::Run) {
    let output = std::process::Command::new(crate::support::bin())
        .args(["validate", "--worktree"])
        .arg(run.test.path())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "validate: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains(": valid ("));
}

#[test]
fn cargo_project() {
    let (config, text, run) = init(project("cargo"));
    assert_eq!(names(&config), ["fmt", "clippy", "test", "secrets"]);
    assert_eq!(allow(&config), ["cargo"]);
    assert_eq!(
        check(&config, "fmt")["run"],
        serde_json::json!(["cargo", "fmt", "--all", "--", "--check"])
    );
    // rustfmt's `Diff in file:line:` hunks become diagnostics.
    assert_eq!(check(&config, "fmt")["parser"], "rustfmt");
    assert_eq!(
        check(&config, "fmt")["modes"],
        serde_json::json!(["fast", "strict"])
    );
    let clippy = check(&config, "clippy");
    assert_eq!(
        clippy["run"],
        serde_json::json!([
            "cargo",
            "clippy",
            "--workspace",
            "--all-targets",
            "--keep-going",
            "--",
            "-D",
            "warnings"
        ])
    );
    assert_eq!(clippy["parser"], "rustc");
    assert!(
        clippy["paths"]
            .as_array()
            .unwrap()
            .contains(&"**/*.rs".into())
    );
    assert_eq!(
        check(&config, "test")["modes"],
        serde_json::json!(["strict"])
    );
    // A failing unit test must not hide a failing integration test.
    assert_eq!(
        check(&config, "test")["run"],
        serde_json::json!(["cargo", "test", "--workspace", "--no-fail-fast"])
    );
    assert!(check(&config, "test")["env"].get("INSTA_UPDATE").is_none());
    // Each check says why it is there.
    let text = unwrapped(&text);
    for why in [
        "Formatting as rustfmt would (rustfmt.toml honoured), checked only",
        "Clippy's lints on every target (tests, examples, benches too), warnings as errors",
        "--no-fail-fast: cargo otherwise stops at the first failing test binary, and a failing unit test would hide a failing integration test.",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
    assert_eq!(
        config["fix"][0]["run"],
        serde_json::json!(["cargo", "fmt", "--all"])
    );
    let secrets = check(&config, "secrets");
    assert_eq!(secrets["scan"]["rules"], serde_json::json!(["secrets"]));
    assert_eq!(secrets["dimension"], "security");
    assert_eq!(secrets["severity"], "critical");
    // A commented header explains how to edit.
    assert!(text.starts_with("# checks.toml"), "{text}");
    assert!(text.contains("settings.allow"));
    assert!(
        run.stdout
            .contains("detected Cargo (Cargo.toml): checks fmt, clippy, test; fixes fmt"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "wrote checks.toml: 4 checks (3 in fast mode), 1 fix; allowed programs: cargo"
        ),
        "{}",
        run.stdout
    );
    validates(&run);
}

#[test]
fn cargo_leaves_out_nightly_benches_and_says_nothing_of_an_ignored_lock() {
    // A crate whose bench needs nightly Rust (`#![feature(test)]`), with a
    // stable bench beside it, and a .gitignore that ignores Cargo.lock (as
    // some libraries do): no lock file to commit.
    let test = Test::new()
        .file(".gitignore", "/target\nCargo.lock\n")
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .file("src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n")
        .file(
            "benches/speed.rs",
            "#![feature(test)]\nextern crate test;\n\n#[bench]\nfn add(b: &mut test::Bencher) {\n    \
             b.iter(|| demo::add(1, 2));\n}\n",
        )
        .file("benches/plain.rs", "fn main() {\n    println!(\"{}\", demo::add(1, 2));\n}\n");
    let (config, text, run) = init(test);
    assert_eq!(
        check(&config, "clippy")["run"],
        serde_json::json!([
            "cargo",
            "clippy",
            "--workspace",
            "--lib",
            "--bins",
            "--tests",
            "--examples",
            "--keep-going",
            "--",
            "-D",
            "warnings"
        ])
    );
    assert!(
        unwrapped(&text).contains(
            "The benches are left out (--lib --bins --tests --examples instead of --all-targets): benches/speed.rs need nightly Rust"
        ),
        "{text}"
    );
    assert!(
        run.stdout.contains(
            "note: benches/speed.rs need nightly Rust (`#![feature(test)]`): clippy checks every target but the benches"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("no Cargo.lock"), "{}", run.stdout);
    validates(&run);
    // The gate's clippy passes on a stable toolchain, where --all-targets
    // failed on the bench (error[E0554]: `#![feature]` may not be used on
    // the stable release channel).
    let output = std::process::Command::new(crate::support::bin())
        .args(["--mode", "fast", "--format", "json"])
        .current_dir(run.test.path())
        .output()
        .unwrap();
    let evidence: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        crate::support::status(&evidence, "clippy"),
        "pass",
        "{evidence:#}"
    );
}

#[test]
fn cargo_tests_with_insta_write_no_snapshot_files() {
    let test = Test::bare()
        .file(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[dev-dependencies]\ninsta = \"1\"\n",
        )
        .file("src/lib.rs", "");
    let (config, _, run) = init(test);
    assert_eq!(check(&config, "test")["env"]["INSTA_UPDATE"], "no");
    validates(&run);
}

#[test]
fn npm_project_runs_its_scripts() {
    let (config, _, run) = init(project("npm"));
    assert_eq!(
        names(&config),
        ["lint", "typecheck", "build", "test", "format", "secrets"]
    );
    // `format` (`prettier -w .`) is the fix; its read-only form the check.
    assert_eq!(
        check(&config, "format")["run"],
        serde_json::json!(["npm", "exec", "--no", "--", "prettier", "--check", "."])
    );
    assert_eq!(allow(&config), ["npm"]);
    let lint = check(&config, "lint");
    assert_eq!(lint["run"], serde_json::json!(["npm", "run", "lint"]));
    assert_eq!(lint["parser"], "eslint");
    assert_eq!(lint["modes"], serde_json::json!(["fast", "strict"]));
    assert!(
        lint["paths"]
            .as_array()
            .unwrap()
            .contains(&"**/*.ts".into())
    );
    assert_eq!(check(&config, "typecheck")["parser"], "tsc");
    assert_eq!(check(&config, "build")["parser"], "tsc");
    let test = check(&config, "test");
    assert_eq!(test["run"], serde_json::json!(["npm", "run", "test"]));
    assert_eq!(test["modes"], serde_json::json!(["strict"]));
    // No CI=true (it turns vitest's colour on); jest's parser.
    assert!(test.get("env").is_none());
    assert_eq!(test["parser"], "jest");
    assert_eq!(
        config["fix"][0]["run"],
        serde_json::json!(["npm", "run", "format"])
    );
    validates(&run);
}

#[test]
fn pnpm_lockfile_picks_pnpm() {
    let (config, _, run) = init(project("pnpm"));
    assert_eq!(names(&config), ["lint", "test", "secrets"]);
    assert_eq!(allow(&config), ["pnpm"]);
    assert_eq!(
        check(&config, "lint")["run"],
        serde_json::json!(["pnpm", "run", "lint"])
    );
    assert_eq!(check(&config, "lint")["parser"], "eslint");
    assert_eq!(
        check(&config, "test")["run"],
        serde_json::json!(["pnpm", "run", "test"])
    );
    assert!(config.get("fix").is_none());
    assert!(
        run.stdout
            .contains("detected pnpm (package.json, pnpm-lock.yaml)"),
        "{}",
        run.stdout
    );
    validates(&run);
}

#[test]
fn npm_placeholder_test_script_is_not_a_check() {
    let test = Test::bare()
        .file(
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "xo"}}"#,
        )
        .file("yarn.lock", "");
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["lint", "secrets"]);
    assert_eq!(
        check(&config, "lint")["run"],
        serde_json::json!(["yarn", "run", "lint"])
    );
    assert!(check(&config, "lint").get("parser").is_none());
    assert!(
        run.stdout
            .contains("note: package.json `test` is npm's placeholder; not used")
    );
    validates(&run);
}

#[test]
fn python_project_declaring_pytest_ruff_mypy() {
    let (config, text, run) = init(project("python"));
    assert_eq!(
        names(&config),
        ["ruff", "ruff-format", "mypy", "pytest", "secrets"]
    );
    assert_eq!(allow(&config), ["ruff", "mypy", "pytest"]);
    let ruff = check(&config, "ruff");
    assert_eq!(
        ruff["run"],
        serde_json::json!([
            "ruff",
            "check",
            "--no-fix",
            "--no-fix-only",
            "--no-cache",
            "--output-format",
            "concise"
        ])
    );
    assert_eq!(ruff["parser"], "gcc");
    assert_eq!(ruff["modes"], serde_json::json!(["fast", "strict"]));
    // ruff is declared and black is not: ruff's formatter, checked.
    let format = check(&config, "ruff-format");
    assert_eq!(
        format["run"],
        serde_json::json!(["ruff", "format", "--check", "--no-cache"])
    );
    assert_eq!(format["env"]["RUFF_OUTPUT_FORMAT"], "concise");
    assert!(
        unwrapped(&text).contains(
            "checked only (`run-check fix` formats): ruff is declared and black is not; delete this check if the project does not format with ruff."
        ),
        "{text}"
    );
    assert_eq!(format["parser"], "gcc");
    assert_eq!(
        format["matcher"][0]["regex"],
        "^(?P<message>Would reformat): (?P<file>.+)$"
    );
    // mypy writes no .mypy_cache into the tree.
    assert_eq!(
        check(&config, "mypy")["run"],
        serde_json::json!(["mypy", "--cache-dir", "/dev/null", "."])
    );
    assert_eq!(check(&config, "mypy")["parser"], "mypy");
    let pytest = check(&config, "pytest");
    assert_eq!(pytest["parser"], "pytest");
    assert_eq!(pytest["modes"], serde_json::json!(["strict"]));
    assert_eq!(pytest["env"]["PYTHONDONTWRITEBYTECODE"], "1");
    validates(&run);
}

#[test]
fn python_uses_only_the_tools_it_declares() {
    let test = Test::bare()
        .file("requirements-dev.txt", "# dev\npytest==8.2\npytest-cov\n")
        .file("requirements.txt", "flask\n")
        .file("mypy.ini", "[mypy]\nfiles = src\n");
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["mypy", "pytest", "secrets"]);
    // mypy's configuration names its files: no target on the command line.
    assert_eq!(
        check(&config, "mypy")["run"],
        serde_json::json!(["mypy", "--cache-dir", "/dev/null"])
    );
    assert!(
        run.stdout
            .contains("detected Python (requirements-dev.txt, requirements.txt, mypy.ini)"),
        "{}",
        run.stdout
    );

    let test = Test::bare().file(
        "pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\"pytest-cov\"]\n",
    );
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["secrets"]);
    assert!(allow(&config).is_empty());
    assert!(
        run.stdout
            .contains("declares none of pytest, ruff, black, mypy"),
        "{}",
        run.stdout
    );
    validates(&run);
}

#[test]
fn python_mypy_targets_come_from_a_factor_conditional_tox_command() {
    // tox runs mypy only in its `mypy` environment, on two files: the
    // command is behind the factor prefix `mypy:`. `mypy .` would check
    // the whole tree (thousands of errors in a real project).
    let test = Test::bare()
        .file(
            "pyproject.toml",
            "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[dependency-groups]\ndev = [\"mypy\"]\n",
        )
        .file(
            "tox.ini",
            "[tox]\nenv_list = py3, mypy\n\n[testenv]\ncommands =\n    \
             py3: python -c \"import pkg\"\n    \
             mypy: mypy src/pkg/__init__.pyi tests/typing_check.py\n",
        );
    let (config, text, run) = init(test);
    assert_eq!(
        check(&config, "mypy")["run"],
        serde_json::json!([
            "mypy",
            "--cache-dir",
            "/dev/null",
            "src/pkg/__init__.pyi",
            "tests/typing_check.py"
        ])
    );
    assert!(
        unwrapped(&text).contains(
            "Type checking of src/pkg/__init__.pyi tests/typing_check.py (as tox.ini runs it)"
        ),
        "{text}"
    );
    validates(&run);
}

#[test]
fn python_black_is_the_formatter_unless_ruff_configures_one() {
    // black and ruff declared: black formats, ruff lints.
    let test = Test::bare().file("requirements-dev.txt", "black==26.10.1\nruff\n");
    let (config, text, run) = init(test);
    assert_eq!(names(&config), ["ruff", "black", "secrets"]);
    let black = check(&config, "black");
    // `--diff`: black's unified diff, each hunk located by the diff parser
    // (`black --check` alone names only the file).
    assert_eq!(
        black["run"],
        serde_json::json!(["black", "--check", "--diff", "."])
    );
    assert_eq!(black["modes"], serde_json::json!(["fast", "strict"]));
    assert_eq!(black["parser"], "diff");
    assert!(black.get("matcher").is_none(), "{black}");
    assert!(
        unwrapped(&text)
            .contains("Formatting as black would (the project declares black), checked only"),
        "{text}"
    );
    assert_eq!(
        config["fix"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["run"].clone())
            .collect::<Vec<_>>(),
        [
            serde_json::json!(["ruff", "check", "--fix"]),
            serde_json::json!(["black", "."])
        ]
    );
    validates(&run);

    // ruff configures its formatter: that one, not black.
    let test = Test::bare().file(
        "pyproject.toml",
        "[tool.black]\nline-length = 100\n\n[tool.ruff.format]\nquote-style = \"single\"\n",
    );
    let (config, text, run) = init(test);
    assert_eq!(names(&config), ["ruff", "ruff-format", "secrets"]);
    assert!(
        unwrapped(&text).contains(
            "checked only (`run-check fix` formats): the ruff configuration has a [format] table."
        ),
        "{text}"
    );
    validates(&run);
}

#[test]
fn cmake_project_configures_builds_and_runs_ctest() {
    let (config, text, run) = init(project("cmake"));
    assert_eq!(names(&config), ["configure", "build", "ctest", "secrets"]);
    assert_eq!(allow(&config), ["cmake", "ctest"]);
    let configure = check(&config, "configure");
    assert_eq!(
        configure["run"],
        serde_json::json!(["cmake", "-S", ".", "-B", "build"])
    );
    assert_eq!(configure["modes"], serde_json::json!(["fast", "strict"]));
    assert_eq!(configure["parser"], "cmake");
    assert_eq!(configure.get("matcher"), None);
    let build = check(&config, "build");
    assert_eq!(
        build["run"],
        serde_json::json!(["cmake", "--build", "build"])
    );
    assert_eq!(build["needs"], serde_json::json!(["configure"]));
    assert_eq!(build["parser"], "gcc");
    assert!(
        build["paths"]
            .as_array()
            .unwrap()
            .contains(&"**/CMakeLists.txt".into())
    );
    let ctest = check(&config, "ctest");
    assert_eq!(
        ctest["run"],
        serde_json::json!([
            "ctest",
            "--test-dir",
            "build",
            "--output-on-failure",
            "--no-tests=error"
        ])
    );
    assert_eq!(ctest["modes"], serde_json::json!(["strict"]));
    assert_eq!(ctest["needs"], serde_json::json!(["build"]));
    assert_eq!(ctest["parser"], "cmake");
    assert_eq!(ctest.get("matcher"), None);
    let text = unwrapped(&text);
    for why in [
        "Configure the CMake project into `build/`",
        "Build every target: the compiler's errors and warnings, located by the gcc parser",
        "The tests CMakeLists.txt registers (it calls enable_testing()), after the build;",
    ] {
        assert!(text.contains(why), "{why}\n{text}");
    }
    assert!(
        run.stdout
            .contains("detected CMake (CMakeLists.txt): checks configure, build, ctest\n"),
        "{}",
        run.stdout
    );
    // .gitignore ignores build/: no note.
    assert!(!run.stdout.contains("note:"), "{}", run.stdout);
    validates(&run);

    // Without enable_testing(): no ctest; build/ not ignored: a note.
    let test = Test::bare().file("CMakeLists.txt", "project(x C)\nadd_executable(x x.c)\n");
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["configure", "build", "secrets"]);
    assert!(
        run.stdout.contains(
            "note: CMake builds into `build/`, which .gitignore does not ignore: the strict gate would report the build's files as written by the checks (add `build/` to .gitignore)"
        ),
        "{}",
        run.stdout
    );

    // Beside a package.json with a `build` script, the CMake checks are
    // prefixed, and their `needs` follow.
    let test = project("cmake").file("package.json", r#"{"scripts": {"build": "tsc -p ."}}"#);
    let (config, _, run) = init(test);
    assert_eq!(
        names(&config),
        ["build", "configure", "cmake-build", "ctest", "secrets"]
    );
    assert_eq!(
        check(&config, "ctest")["needs"],
        serde_json::json!(["cmake-build"])
    );
    validates(&run);
}

#[test]
fn makefile_c_project_builds_then_tests() {
    let (config, text, run) = init(project("make-c"));
    assert_eq!(names(&config), ["build", "test", "secrets"]);
    assert_eq!(allow(&config), ["make"]);
    let build = check(&config, "build");
    assert_eq!(build["run"], serde_json::json!(["make", "all"]));
    assert_eq!(build["parser"], "gcc");
    assert_eq!(build["modes"], serde_json::json!(["fast", "strict"]));
    let test = check(&config, "test");
    assert_eq!(test["run"], serde_json::json!(["make", "test"]));
    assert_eq!(test["needs"], serde_json::json!(["build"]));
    assert_eq!(test["parser"], "gcc");
    assert_eq!(
        test["matcher"][0]["regex"],
        r"^[^:\s]+: (?P<file>[^:]+):(?P<line>\d+): (?P<message>.*Assertion .+ failed\.)$"
    );
    assert!(
        unwrapped(&text).contains("The build (`make all`) of this C/C++ project"),
        "{text}"
    );
    validates(&run);

    // No `all`: the default goal, when it builds.
    let test = Test::bare()
        .file(
            "Makefile",
            "demo: demo.c\n\tcc -o demo demo.c\ncheck: demo\n\t./demo\n",
        )
        .file("demo.c", "int main(void) { return 0; }\n");
    let (config, _, _) = init(test);
    assert_eq!(names(&config), ["build", "check", "secrets"]);
    assert_eq!(check(&config, "build")["run"], serde_json::json!(["make"]));
    assert_eq!(
        check(&config, "check")["needs"],
        serde_json::json!(["build"])
    );

    // A default goal that is the test target is no build.
    let test = Test::bare()
        .file("Makefile", "test:\n\tcc -o t t.c && ./t\n")
        .file("t.c", "int main(void) { return 0; }\n");
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["test", "secrets"]);
    assert!(check(&config, "test").get("needs").is_none());
    // ... and init says there is no build check, and why.
    assert!(
        format!("{}{}", run.stdout, run.stderr).contains(
            "Makefile has no `all` target and its default goal (`test`) is no build: no build check, so fast mode compiles nothing"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn every_check_says_why_it_is_there() {
    for name in ["cargo", "python", "go", "cmake", "make", "make-c"] {
        let (_, text, _) = init(project(name));
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if *line == "[[check]]" && lines[i + 1] != "name = \"secrets\"" {
                assert!(
                    lines[i - 1].starts_with("# "),
                    "{name}: no comment above {}\n{text}",
                    lines[i + 1]
                );
            }
        }
    }
}

#[test]
fn go_project() {
    let (config, _, run) = init(project("go"));
    assert_eq!(names(&config), ["vet", "test", "secrets"]);
    assert_eq!(allow(&config), ["go"]);
    let vet = check(&config, "vet");
    assert_eq!(vet["run"], serde_json::json!(["go", "vet", "./..."]));
    assert_eq!(vet["parser"], "go");
    assert_eq!(
        vet["paths"],
        serde_json::json!(["**/*.go", "go.mod", "go.sum"])
    );
    assert_eq!(
        check(&config, "test")["run"],
        serde_json::json!(["go", "test", "./..."])
    );
    assert_eq!(check(&config, "test")["parser"], "go");
    validates(&run);
}

#[test]
fn makefile_targets_when_nothing_else_is_recognised() {
    let (config, _, run) = init(project("make"));
    // `check` runs `lint` and `test`: `test` is no check of its own, and
    // `lint` stays for fast mode, run before `check` (never at once).
    assert_eq!(names(&config), ["lint", "check", "secrets"]);
    assert_eq!(
        check(&config, "check")["needs"],
        serde_json::json!(["lint"])
    );
    assert!(
        run.stdout
            .contains("note: Makefile target `test` is no check of its own: `make check` already runs what it runs"),
        "{}",
        run.stdout
    );
    assert_eq!(allow(&config), ["make"]);
    assert_eq!(
        check(&config, "lint")["run"],
        serde_json::json!(["make", "lint"])
    );
    assert_eq!(
        check(&config, "lint")["modes"],
        serde_json::json!(["fast", "strict"])
    );
    assert_eq!(
        check(&config, "check")["modes"],
        serde_json::json!(["strict"])
    );
    validates(&run);

    // A recipe that writes a file through a redirection writes build
    // output: a check, with a note while .gitignore does not ignore it.
    let test = Test::bare().file(
        "Makefile",
        "test:\n\t./run-tests > test.out && cmp test.out expected.out\ncheck: test\nlint:\n\tshellcheck x.sh 2>/dev/null\n",
    );
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["lint", "check", "secrets"]);
    assert!(
        run.stdout.contains(
            "note: Makefile target `check` writes `test.out`, which .gitignore does not ignore: add it to .gitignore"
        ),
        "{}",
        run.stdout
    );

    // Beside a recognised project, the Makefile is only mentioned.
    let test = project("go").file("Makefile", "test:\n\tgo test ./...\n");
    let (config, _, run) = init(test);
    assert_eq!(allow(&config), ["go"]);
    assert!(
        run.stdout.contains("note: Makefile targets test not used"),
        "{}",
        run.stdout
    );

    // A target that runs run-check itself would recurse.
    let test = Test::bare().file(
        "Makefile",
        "check:\n\t./run-check.sh --mode strict\nlint:\n\tshellcheck x.sh\n",
    );
    let (config, _, run) = init(test);
    assert_eq!(names(&config), ["lint", "secrets"]);
    assert!(
        run.stdout.contains("target `check` runs run-check itself"),
        "{}",
        run.stdout
    );
}

#[test]
fn several_ecosystems_get_unique_names() {
    let mut test = project("cargo");
    for (path, text) in PROJECTS.iter().find(|(n, _)| *n == "go").unwrap().1 {
        test = test.file(path, text);
    }
    let (config, _, run) = init(test);
    assert_eq!(
        names(&config),
        ["fmt", "clippy", "test", "vet", "go-test", "secrets"]
    );
    assert_eq!(allow(&config), ["cargo", "go"]);
    assert_eq!(
        config["fix"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["fmt", "go-fmt"]
    );
    validates(&run);
}

#[test]
fn an_unrecognised_project_gets_the_secrets_scan() {
    let (config, text, run) = init(project("empty"));
    assert_eq!(names(&config), ["secrets"]);
    assert!(allow(&config).is_empty());
    assert!(
        text.contains("# name = \"anti-cheat\""),
        "commented example"
    );
    assert!(
        run.stdout
            .contains("detected no Cargo, npm, pnpm, yarn, Python, Go, CMake or Makefile project")
    );
    validates(&run);
}

#[test]
fn no_line_is_longer_than_79_columns_but_a_regex() {
    // A project's own line-length lint (an editorconfig checker, taplo)
    // must not fail on the file init wrote: long arrays are wrapped.
    for (name, _) in PROJECTS {
        let (_, text, run) = init(project(name));
        for line in text.lines().filter(|l| !l.starts_with("regex = ")) {
            assert!(line.chars().count() <= 79, "{name}: {line}");
        }
        validates(&run);
    }
    // The commented example, uncommented, is a valid check.
    let (_, text, run) = init(project("empty"));
    let example = text
        .split("(uncomment to use):\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("# "))
        .map(|l| &l[2..])
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(
        run.test.path().join("checks.toml"),
        format!("{text}\n{example}\n"),
    )
    .unwrap();
    validates(&run);
}

#[test]
fn output_is_deterministic() {
    let (_, first, _) = init(project("npm"));
    let (_, second, _) = init(project("npm"));
    assert_eq!(first, second);
}

#[test]
fn never_overwrites() {
    let before = "# mine\nversion = 1\n[settings]\nallow = []\n";
    let run = project("cargo")
        .config(before)
        .args(&["init"])
        .run()
        .status(2);
    assert_eq!(
        run.stderr,
        "error: `checks.toml` already exists; `run-check init` never overwrites it (edit it, or move it away and run init again)\n"
    );
    assert_eq!(run.stdout, "");
    assert_eq!(
        std::fs::read(run.test.path().join("checks.toml")).unwrap(),
        before.as_bytes()
    );
    // No temporary file is left behind.
    let mut entries: Vec<String> = std::fs::read_dir(run.test.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    entries.sort();
    assert_eq!(entries, ["Cargo.toml", "checks.toml", "src"]);
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_counts_as_existing() {
    let test = project("go");
    std::os::unix::fs::symlink("elsewhere.toml", test.path().join("checks.toml")).unwrap();
    let run = test.args(&["init"]).run().status(2);
    assert!(run.stderr.contains("already exists"), "{}", run.stderr);
    assert!(!run.test.path().join("elsewhere.toml").exists());
}

#[test]
fn worktree_option_and_errors() {
    let outer = Test::bare();
    std::fs::create_dir(outer.path().join("proj")).unwrap();
    std::fs::write(outer.path().join("proj/go.mod"), "module x\n").unwrap();
    let run = outer.args(&["init", "--worktree", "proj"]).run().success();
    assert!(
        run.stdout.contains("wrote proj/checks.toml: 3 checks"),
        "{}",
        run.stdout
    );
    assert!(run.test.path().join("proj/checks.toml").is_file());
    assert!(!run.test.path().join("checks.toml").exists());
    let again = std::process::Command::new(crate::support::bin())
        .args(["init", "--worktree", "proj"])
        .current_dir(run.test.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.starts_with("error: `proj/checks.toml` already exists"),
        "{stderr}"
    );

    let run = Test::bare()
        .args(&["init", "--worktree", "missing"])
        .run()
        .status(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("error: --worktree `missing`:"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_broken_manifest_is_a_note_not_an_error() {
    let test = Test::bare()
        .file("package.json", "{ not json")
        .file("pyproject.toml", "[project\n")
        .file("go.mod", "module x\n");
    let (config, _, run) = init(test);
    assert_eq!(allow(&config), ["go"]);
    assert!(
        run.stdout.contains("note: package.json is not valid JSON"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("note: pyproject.toml is not valid TOML"),
        "{}",
        run.stdout
    );
}

/// checks.toml's text with its wrapped comment lines joined.
fn unwrapped(text: &str) -> String {
    text.replace("\n# ", " ")
}

/// init writes read-only gates: its checks run with the real ruff, eslint
/// and prettier on projects configured to fix (Unix: the node_modules of
/// the test tools is linked into the project).
#[cfg(unix)]
mod real_tools {
    use serde_json::Value;

    use super::{check, init, unwrapped, validates};
    use crate::support::Test;

    pub(super) use crate::support::test_tool;

    /// `PATH` with `dir` first.
    pub(super) fn path_with(dir: &std::path::Path) -> std::ffi::OsString {
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).unwrap()
    }

    /// Every file of `dir` (not under `.git` or `node_modules`) with its bytes.
    pub(super) fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
        let mut files = std::collections::BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = entry.path();
                let kind = entry.file_type().unwrap();
                if kind.is_dir() && name != ".git" && name != "node_modules" {
                    stack.push(path);
                } else if kind.is_file() {
                    let relative = path.strip_prefix(dir).unwrap().display().to_string();
                    files.insert(relative, std::fs::read(&path).unwrap());
                }
            }
        }
        files
    }

    /// Runs init in `test` (PATH led by `bin`), then the gate in `mode` with
    /// JSON evidence on stdout; asserts the gate fails and leaves every file
    /// byte-identical. Returns checks.toml (parsed) and each mode's evidence.
    fn init_then_gate(test: Test, bin: &std::path::Path) -> (Value, String, Vec<Value>) {
        let path = path_with(bin);
        let (config, text, run) = init(test.env("PATH", path.to_str().unwrap()));
        validates(&run);
        let dir = run.test.path();
        let before = tree(dir);
        let mut evidence = Vec::new();
        for mode in ["fast", "strict"] {
            let output = std::process::Command::new(crate::support::bin())
                .args(["--mode", mode, "--format", "json"])
                .current_dir(dir)
                .env("PATH", &path)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{mode}: {stderr}\n{text}");
            let value: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(value["summary"]["all_checks_passed"], false);
            let after = tree(dir);
            for (file, bytes) in &before {
                assert_eq!(
                    after.get(file),
                    Some(bytes),
                    "{mode}: the gate changed {file}\n{stderr}"
                );
            }
            assert_eq!(
                after.keys().collect::<Vec<_>>(),
                before.keys().collect::<Vec<_>>(),
                "{mode}: the gate created or deleted files"
            );
            evidence.push(value);
        }
        let strict = &evidence[1]["contracts"]["read_only"];
        assert_eq!(strict["verified"], true, "{strict}");
        assert_eq!(strict["modified"], serde_json::json!([]), "{strict}");
        (config, text, evidence)
    }

    use crate::support::status;

    #[test]
    fn ruff_configured_to_fix_is_checked_without_fixing() {
        let Some(ruff) = test_tool("python/bin/ruff") else {
            return;
        };
        let bin = ruff.parent().unwrap().to_path_buf();
        // `fix = true`, then `fix-only = true` (which `--no-fix` alone does not
        // turn off: ruff would delete the import and exit 0).
        for setting in ["fix = true", "fix-only = true"] {
            let source = "import os\n\nx = 1\n";
            let test = Test::new()
                .file(
                    "pyproject.toml",
                    &format!(
                        "[project]\nname = \"demo\"\nversion = \"0\"\n\n[tool.ruff]\n{setting}\n"
                    ),
                )
                .file("app.py", source);
            let (config, text, evidence) = init_then_gate(test, &bin);
            let run = &check(&config, "ruff")["run"];
            assert_eq!(run[2], "--no-fix", "{text}");
            assert_eq!(run[3], "--no-fix-only", "{text}");
            assert!(
                unwrapped(&text).contains(&format!("configuration sets `{setting}`")),
                "{text}"
            );
            assert_eq!(
                config["fix"][0]["run"],
                serde_json::json!(["ruff", "check", "--fix"])
            );
            for (mode, evidence) in ["fast", "strict"].iter().zip(&evidence) {
                assert_eq!(status(evidence, "ruff"), "fail", "{mode} {setting}");
                let found = evidence["diagnostics"].as_array().unwrap().iter().any(|d| {
                    d["check"] == "ruff"
                        && d["file"] == "app.py"
                        && d["line"] == 1
                        && d.to_string().contains("F401")
                });
                assert!(found, "{mode} {setting}: {}", evidence["diagnostics"]);
            }
        }
    }

    #[test]
    fn npm_scripts_that_fix_are_not_run_as_checks() {
        let Some(modules) = test_tool("node/node_modules") else {
            return;
        };
        let source = "var a = 1\nconsole.log( a )\n";
        let test = Test::new()
            .file(
                "package.json",
                r#"{"name": "demo", "private": true, "scripts": {"lint": "eslint --fix .", "format": "prettier --write ."}}"#,
            )
            .file(
                "eslint.config.mjs",
                "export default [{ rules: { \"no-var\": \"error\", \"prefer-const\": \"error\" } }];\n",
            )
            .file("src/app.js", source)
            .file(".gitignore", "node_modules\n");
        std::os::unix::fs::symlink(&modules, test.path().join("node_modules")).unwrap();
        let bin = modules.join(".bin");
        let (config, text, evidence) = init_then_gate(test, &bin);
        // Neither script runs as it is: their read-only forms do, through npm
        // exec (which never installs), and the writer stays a fix.
        assert_eq!(
            check(&config, "lint")["run"],
            serde_json::json!(["npm", "exec", "--no", "--", "eslint", "."])
        );
        assert_eq!(check(&config, "lint")["parser"], "eslint");
        assert_eq!(
            check(&config, "format")["run"],
            serde_json::json!(["npm", "exec", "--no", "--", "prettier", "--check", "."])
        );
        assert_eq!(
            config["fix"][0]["run"],
            serde_json::json!(["npm", "run", "format"])
        );
        assert!(
            unwrapped(&text).contains(
                "package.json `lint` writes files (`eslint --fix`); a check must leave the tree unchanged, so this runs `eslint .` instead."
            ),
            "{text}"
        );
        for (mode, evidence) in ["fast", "strict"].iter().zip(&evidence) {
            assert_eq!(status(evidence, "lint"), "fail", "{mode}: {evidence}");
            let no_var = evidence["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["check"] == "lint" && d["rule"] == "no-var");
            assert!(no_var, "{mode}: {}", evidence["diagnostics"]);
            // Fast mode stops at the first failure; strict runs both.
            if *mode == "strict" {
                assert_eq!(status(evidence, "format"), "fail", "{evidence}");
            }
        }
    }
}

#[test]
fn pnpm_and_yarn_run_the_read_only_form_through_their_exec() {
    for (lock, exec) in [
        ("pnpm-lock.yaml", &["pnpm", "exec"][..]),
        ("yarn.lock", &["yarn", "run"]),
    ] {
        let test = Test::bare()
            .file(
                "package.json",
                r#"{"scripts": {"lint": "eslint --fix --cache src", "test": "vitest run -u"}}"#,
            )
            .file(lock, "");
        let (config, _, run) = init(test);
        let mut lint: Vec<&str> = exec.to_vec();
        lint.extend(["eslint", "src"]);
        assert_eq!(check(&config, "lint")["run"], serde_json::json!(lint));
        let mut test: Vec<&str> = exec.to_vec();
        test.extend(["vitest", "run"]);
        assert_eq!(check(&config, "test")["run"], serde_json::json!(test));
        assert!(check(&config, "test").get("env").is_none());
        validates(&run);
    }
}

#[test]
fn scripts_and_targets_that_write_without_a_read_only_form_are_refused() {
    let test = Test::bare().file(
        "package.json",
        r#"{"scripts": {"lint": "npm run lint:js && npm run lint:css", "lint:js": "eslint .", "lint:css": "stylelint --fix '**/*.css'", "test": "jest"}}"#,
    );
    let (config, text, run) = init(test);
    assert_eq!(names(&config), ["test", "secrets"]);
    assert!(
        unwrapped(&text).contains(
            "Not a check: package.json `lint` writes files (`stylelint --fix` (via `npm run lint:css`)), and a check must leave the tree unchanged."
        ),
        "{text}"
    );
    assert!(
        run.stdout
            .contains("note: package.json `lint` writes files"),
        "{}",
        run.stdout
    );
    validates(&run);

    let test = Test::bare().file(
        "Makefile",
        ".PHONY: lint fmt test\nlint: fmt\n\tflake8 .\nfmt:\n\tblack .\ntest:\n\tpytest -q\n",
    );
    let (config, text, run) = init(test);
    assert_eq!(names(&config), ["test", "secrets"]);
    assert!(
        unwrapped(&text)
            .contains("`lint` writes files (`black without --check` (in its prerequisite `fmt`))"),
        "{text}"
    );
    validates(&run);
}

/// Every ecosystem's starter gate on a sample project, with the real tools:
/// init, then the strict gate on the clean project (PASS), then with
/// defects injected (FAIL, each defect located in the evidence), the tree
/// left unchanged every time.
#[cfg(unix)]
mod gates {
    use std::ffi::OsString;
    use std::path::Path;

    use serde_json::Value;

    use super::real_tools::{path_with, test_tool, tree};
    use super::{check, init, project, validates};
    use crate::support::Test;

    /// A program on PATH (the system's build tools: cmake, cc, make).
    /// Missing: the test fails (`support::missing`).
    fn on_path(program: &str) -> bool {
        crate::support::on_path(program)
    }

    /// The strict gate in `dir` (JSON evidence on stdout) with `env` added:
    /// asserts its exit code, that it verified the tree read-only and that
    /// every file outside `build_output` (paths .gitignore ignores) is as
    /// before. Returns the evidence.
    #[track_caller]
    fn strict(dir: &Path, env: &[(&str, OsString)], build_output: &[&str], code: i32) -> Value {
        let kept = |files: std::collections::BTreeMap<String, Vec<u8>>| {
            files
                .into_iter()
                .filter(|(f, _)| !build_output.iter().any(|o| f.starts_with(o)))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let before = kept(tree(dir));
        let mut command = std::process::Command::new(crate::support::bin());
        command
            .args(["--mode", "strict", "--format", "json"])
            .current_dir(dir)
            .stdin(std::process::Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let evidence: Value =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        assert_eq!(output.status.code(), Some(code), "{stderr}\n{evidence:#}");
        let read_only = &evidence["contracts"]["read_only"];
        assert_eq!(read_only["verified"], true, "{read_only}");
        assert_eq!(read_only["modified"], serde_json::json!([]), "{read_only}");
        assert_eq!(kept(tree(dir)), before, "the gate changed the tree");
        evidence
    }

    use crate::support::status;

    /// Check `name`'s diagnostics as (file, line, column, rule, message).
    fn located(evidence: &Value, name: &str) -> Vec<(Value, Value, Value, Value, String)> {
        crate::support::diagnostics_of(evidence, name)
            .into_iter()
            .map(|d| {
                (
                    d["file"].clone(),
                    d["line"].clone(),
                    d["column"].clone(),
                    d["rule"].clone(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The text report and the agent's feedback of `evidence`, run in
    /// `dir`.
    fn reports(dir: &Path, evidence: &Value) -> (String, String) {
        let report = tempfile::tempdir().unwrap();
        let ev = report.path().join("ev.json");
        std::fs::write(&ev, evidence.to_string()).unwrap();
        let shown = |args: &[&str]| {
            let out = std::process::Command::new(crate::support::bin())
                .args(args)
                .arg(&ev)
                .current_dir(dir)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        (
            shown(&["report", "--format", "text"]),
            shown(&["agent", "feedback"]),
        )
    }

    /// Every check of the evidence passed.
    #[track_caller]
    fn all_pass(evidence: &Value) {
        for c in evidence["checks"].as_array().unwrap() {
            assert_eq!(c["status"], "pass", "{c:#}");
        }
        assert_eq!(evidence["diagnostics"], serde_json::json!([]));
    }

    fn write(dir: &Path, file: &str, text: &str) {
        std::fs::write(dir.join(file), text).unwrap();
    }

    const LIB_RS: &str = "pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn unit() {
        assert_eq!(super::add(1, 1), 2);
    }
}
";

    /// A needless `return` (clippy), `fn  spaced` (rustfmt), a failing unit test.
    const LIB_RS_DEFECTS: &str = "pub fn add(a: i32, b: i32) -> i32 {
    return a + b;
}

pub fn  spaced() {}

#[cfg(test)]
mod tests {
    #[test]
    fn unit() {
        assert_eq!(super::add(1, 1), 3);
    }
}
";

    /// The strict gate in `dir` with `env`: its exit code and evidence.
    fn strict_run(dir: &Path, env: &[(&str, OsString)]) -> (Option<i32>, Value) {
        let mut command = std::process::Command::new(crate::support::bin());
        command
            .args(["--mode", "strict", "--format", "json"])
            .current_dir(dir)
            .stdin(std::process::Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        let evidence: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        (output.status.code(), evidence)
    }

    #[test]
    fn a_library_crate_without_a_lock_file_or_an_ignored_target_is_told_what_to_do() {
        let test = Test::new()
            .file(
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            )
            .file("src/lib.rs", LIB_RS);
        let (_, _, run) = init(test);
        for note in [
            "note: Cargo builds into `target/`, which .gitignore does not ignore: add `/target` to .gitignore",
            "note: no Cargo.lock: the first cargo check writes one and the strict gate reports it as modified; commit it (`cargo generate-lockfile`, then `git add Cargo.lock`), or ignore it",
        ] {
            assert!(run.stdout.contains(note), "{}", run.stdout);
        }
        let dir = run.test.path().to_path_buf();
        let env = [
            ("CARGO_TARGET_DIR", dir.join("target").into_os_string()),
            ("CARGO_TERM_COLOR", "never".into()),
            ("CARGO_NET_OFFLINE", "true".into()),
        ];
        // As the note says: the lock file is written (cargo hides `target/`
        // itself, with its own `target/.gitignore`).
        let (code, evidence) = strict_run(&dir, &env);
        assert_eq!(code, Some(1), "{evidence:#}");
        let modified = &evidence["contracts"]["read_only"]["modified"];
        assert_eq!(modified, &serde_json::json!(["Cargo.lock"]), "{evidence:#}");
        // The lock file is named after the checks that may have written it.
        let lock = evidence["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["file"] == "Cargo.lock")
            .unwrap();
        assert!(
            lock["message"].as_str().unwrap().starts_with("created by "),
            "{lock}"
        );
        // Following them: `/target` ignored, Cargo.lock committed.
        std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
        crate::support::git(&dir, &["add", "."]);
        crate::support::git(&dir, &["commit", "-q", "-m", "lock"]);
        for _ in 0..2 {
            let (code, evidence) = strict_run(&dir, &env);
            assert_eq!(code, Some(0), "{evidence:#}");
            all_pass(&evidence);
        }
    }

    #[test]
    fn mypy_checks_what_the_projects_own_command_checks() {
        let Some(mypy) = test_tool("python/bin/mypy") else {
            return;
        };
        let path = path_with(mypy.parent().unwrap());
        // tox runs `mypy src/pkg`; the scripts folder would fail `mypy .`.
        let test = Test::new()
            .file(
                "pyproject.toml",
                "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[dependency-groups]\ndev = [\"mypy\", \"pytest\"]\n",
            )
            .file("tox.ini", "[testenv]\ncommands =\n    pytest\n    mypy src/pkg\n")
            .file("src/pkg/__init__.py", "def add(a: int, b: int) -> int:\n    return a + b\n")
            .file("scripts/old.py", "x: int = \"not an int\"\n")
            .file(
                "tests/test_pkg.py",
                "from pkg import add\n\n\ndef test_add() -> None:\n    assert add(2, 2) == 4\n",
            );
        let (config, text, run) = init(test.env("PATH", path.to_str().unwrap()));
        assert_eq!(
            check(&config, "mypy")["run"],
            serde_json::json!(["mypy", "--cache-dir", "/dev/null", "src/pkg"])
        );
        assert!(
            super::unwrapped(&text).contains("Type checking of src/pkg (as tox.ini runs it)"),
            "{text}"
        );
        // The package is not importable from the tests as they stand.
        assert!(
            run.stdout.contains("note: pytest imports `pkg` from src/: unless it is installed in the environment the gate runs in, the tests fail on `import pkg`; install it (`pip install -e .`) or add `pythonpath = [\"src\"]` to [tool.pytest.ini_options]"),
            "{}",
            run.stdout
        );
        let dir = run.test.path().to_path_buf();
        let env = [("PATH", path)];
        // As the note says: the tests fail on the import.
        let evidence = strict(&dir, &env, &[], 1);
        assert_eq!(status(&evidence, "mypy"), "pass");
        assert_eq!(status(&evidence, "pytest"), "fail");
        // Following it, strict twice: green.
        write(
            &dir,
            "pyproject.toml",
            "[project]\nname = \"pkg\"\nversion = \"0\"\n\n[dependency-groups]\ndev = [\"mypy\", \"pytest\"]\n\n[tool.pytest.ini_options]\npythonpath = [\"src\"]\n",
        );
        for _ in 0..2 {
            all_pass(&strict(&dir, &env, &[], 0));
        }
    }

    #[test]
    fn cargo_gate_reports_fmt_clippy_and_every_failing_test_target() {
        let test = Test::new()
            .file(
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            )
            .file(".gitignore", "/target\n")
            .file("src/lib.rs", LIB_RS)
            .file(
                "tests/it.rs",
                "#[test]\nfn integration() {\n    assert_eq!(demo::add(2, 2), 4);\n}\n",
            );
        let (_, _, run) = init(test);
        validates(&run);
        let dir = run.test.path();
        // A real project commits its Cargo.lock; cargo would write one.
        let lock = std::process::Command::new("cargo")
            .args(["generate-lockfile", "--offline"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(lock.status.success(), "{lock:?}");
        let env = [
            ("CARGO_TARGET_DIR", dir.join("target").into_os_string()),
            ("CARGO_TERM_COLOR", "never".into()),
        ];
        all_pass(&strict(dir, &env, &["target/"], 0));

        write(dir, "src/lib.rs", LIB_RS_DEFECTS);
        write(
            dir,
            "tests/it.rs",
            "#[test]\nfn integration() {\n    assert_eq!(demo::add(2, 2), 5);\n}\n",
        );
        let evidence = strict(dir, &env, &["target/"], 1);
        for name in ["fmt", "clippy", "test"] {
            assert_eq!(status(&evidence, name), "fail", "{name}");
        }
        let fmt = located(&evidence, "fmt");
        assert_eq!(fmt.len(), 1, "{fmt:?}");
        assert_eq!(
            (&fmt[0].0, &fmt[0].1, &fmt[0].3),
            (&"src/lib.rs".into(), &5.into(), &"rustfmt".into()),
            "{fmt:?}"
        );
        // rustfmt's hunk starts with context lines (`Diff in src/lib.rs:2:`):
        // the diagnostic is at the first changed line, the message shows it.
        assert_eq!(
            fmt[0].4,
            "not formatted as rustfmt would\n-pub fn  spaced() {}\n+pub fn spaced() {}"
        );
        // The text report and the agent's feedback show the hunk under
        // the diagnostic: its first line alone says only that it differs.
        let (text, feedback) = reports(dir, &evidence);
        assert!(
            text.contains(
                "src/lib.rs:5: error[rustfmt]: not formatted as rustfmt would\n          \
                 -pub fn  spaced() {}\n          +pub fn spaced() {}\n"
            ),
            "{text}"
        );
        assert!(
            feedback.contains(
                "src/lib.rs:5: [fmt rustfmt] not formatted as rustfmt would\n  \
                 -pub fn  spaced() {}\n  +pub fn spaced() {}\n"
            ),
            "{feedback}"
        );
        let clippy = located(&evidence, "clippy");
        assert_eq!(clippy.len(), 1, "{clippy:?}");
        assert_eq!(
            (&clippy[0].0, &clippy[0].1, &clippy[0].2, &clippy[0].3),
            (
                &"src/lib.rs".into(),
                &2.into(),
                &5.into(),
                &"clippy::needless_return".into()
            ),
            "{clippy:?}"
        );
        assert_eq!(clippy[0].4, "unneeded `return` statement");
        // Both failing test targets, each at its assertion.
        let tests = located(&evidence, "test");
        let at: Vec<(&Value, &Value, &Value)> = tests.iter().map(|d| (&d.0, &d.1, &d.3)).collect();
        assert_eq!(
            at,
            [
                (&"src/lib.rs".into(), &11.into(), &"panic".into()),
                (&"tests/it.rs".into(), &3.into(), &"panic".into())
            ],
            "{tests:?}"
        );
        assert!(
            tests[0].4.starts_with("panicked in `tests::unit`"),
            "{tests:?}"
        );
        assert!(
            tests[1].4.starts_with("panicked in `integration`"),
            "{tests:?}"
        );
    }

    /// The Python sample: pytest, ruff (configured to fix), mypy, declared
    /// as a dependency group.
    fn python_sample() -> Test {
        Test::new()
            .file(
                "pyproject.toml",
                "[project]\nname = \"demo\"\nversion = \"0\"\n\n[dependency-groups]\ndev = [\"pytest\", \"ruff\", \"mypy\"]\n\n[tool.ruff]\nfix = true\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
            )
            .file(
                "demo.py",
                "def add(a: int, b: int) -> int:\n    return a + b\n",
            )
            .file(
                "tests/test_demo.py",
                "from demo import add\n\n\ndef test_add() -> None:\n    assert add(2, 2) == 4\n",
            )
    }

    #[test]
    fn python_gate_lints_formats_types_and_tests_without_fixing() {
        let Some(ruff) = test_tool("python/bin/ruff") else {
            return;
        };
        let path = path_with(ruff.parent().unwrap());
        let (config, _, run) = init(python_sample().env("PATH", path.to_str().unwrap()));
        assert_eq!(
            super::names(&config),
            ["ruff", "ruff-format", "mypy", "pytest", "secrets"]
        );
        validates(&run);
        let dir = run.test.path();
        let env = [("PATH", path)];
        all_pass(&strict(dir, &env, &[], 0));

        // An unused import (which `fix = true` would delete), code black and
        // ruff would reformat, a type error, a failing test.
        write(
            dir,
            "demo.py",
            "import os\n\n\ndef add(a: int, b: int) -> int:\n    return a+b\n\n\nx: int = \"s\"\n",
        );
        write(
            dir,
            "tests/test_demo.py",
            "from demo import add\n\n\ndef test_add() -> None:\n    assert add(2, 2) == 5\n",
        );
        let evidence = strict(dir, &env, &[], 1);
        for name in ["ruff", "ruff-format", "mypy", "pytest"] {
            assert_eq!(status(&evidence, name), "fail", "{name}");
        }
        let at = |name: &str| {
            located(&evidence, name)
                .into_iter()
                .map(|d| (d.0, d.1, d.2, d.3, d.4))
                .collect::<Vec<_>>()
        };
        let s = |t: &str| Value::from(t);
        assert_eq!(
            at("ruff"),
            [(
                s("demo.py"),
                1.into(),
                8.into(),
                s("F401"),
                "`os` imported but unused".into()
            )]
        );
        assert_eq!(
            at("ruff-format"),
            [(
                s("demo.py"),
                5.into(),
                13.into(),
                Value::Null,
                "unformatted: File would be reformatted".into()
            )]
        );
        assert_eq!(
            at("mypy"),
            [(
                s("demo.py"),
                8.into(),
                Value::Null,
                s("assignment"),
                "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")".into()
            )]
        );
        assert_eq!(
            at("pytest"),
            [(
                s("tests/test_demo.py"),
                5.into(),
                Value::Null,
                s("tests/test_demo.py::test_add"),
                "assert 4 == 5\n +  where 4 = add(2, 2)".into()
            )]
        );
        // ruff's check never fixes: the tree is unchanged (asserted by `strict`).
        assert_eq!(check(&config, "ruff")["run"][2], "--no-fix");
    }

    #[test]
    fn python_gate_with_black() {
        let Some(black) = test_tool("python/bin/black") else {
            return;
        };
        let path = path_with(black.parent().unwrap());
        let test = Test::new()
            .file("requirements-dev.txt", "black==26.10.1\npytest==9.2.0\n")
            .file("pytest.ini", "[pytest]\npythonpath = .\n")
            .file("app.py", "def double(x: int) -> int:\n    return 2 * x\n")
            .file(
                "test_app.py",
                "from app import double\n\n\ndef test_double() -> None:\n    assert double(2) == 4\n",
            );
        let (config, _, run) = init(test.env("PATH", path.to_str().unwrap()));
        assert_eq!(super::names(&config), ["black", "pytest", "secrets"]);
        let dir = run.test.path();
        let env = [("PATH", path)];
        all_pass(&strict(dir, &env, &[], 0));

        // A newcomer's defect far from the top: black names the file
        // only, unless run with --diff, whose hunk the diff parser locates.
        write(
            dir,
            "app.py",
            &format!(
                "{}\n\n{}\n\ndef triple(x:int)->int:\n    return 3*x\n",
                "def double(x: int) -> int:\n    return 2 * x\n",
                "HALF = 0.5\nTWO = 2\nTHREE = 3\n"
            ),
        );
        let evidence = strict(dir, &env, &[], 1);
        assert_eq!(status(&evidence, "black"), "fail");
        assert_eq!(status(&evidence, "pytest"), "pass");
        let hunk = "-def triple(x:int)->int:\n-    return 3*x\n+def triple(x: int) -> int:\n\
            +    return 3 * x";
        assert_eq!(
            located(&evidence, "black"),
            [(
                "app.py".into(),
                10.into(),
                Value::Null,
                Value::Null,
                format!("would reformat\n{hunk}")
            )]
        );
        // The text report and the agent's feedback show the hunk under the
        // diagnostic, not only its first line.
        let (text, feedback) = reports(dir, &evidence);
        for (output, line, indent) in [
            (&text, "app.py:10: error: would reformat\n", "          "),
            (&feedback, "app.py:10: [black] would reformat\n", "  "),
        ] {
            let expected: String = hunk.lines().map(|l| format!("{indent}{l}\n")).collect();
            assert!(output.contains(&format!("{line}{expected}")), "{output}");
        }
    }

    /// The C sample's checks: a failing test (located at its assert), then
    /// a compile error (located by the gcc parser; the tests are skipped).
    /// `rule`: what the test check's failed assertion is reported with
    /// (the cmake parser names the ctest test; make's matcher nothing).
    fn c_defects(dir: &Path, build: &str, test: &str, rule: Value, build_output: &[&str]) {
        let env = [("LC_ALL", OsString::from("C"))];
        all_pass(&strict(dir, &env, build_output, 0));

        write(
            dir,
            "tests/test_add.c",
            &super::TEST_ADD_C.replace("== 4", "== 5"),
        );
        let evidence = strict(dir, &env, build_output, 1);
        assert_eq!(status(&evidence, build), "pass");
        assert_eq!(status(&evidence, test), "fail");
        let failed = located(&evidence, test);
        assert!(
            failed.contains(&(
                "tests/test_add.c".into(),
                5.into(),
                Value::Null,
                rule,
                "main: Assertion `add(2, 2) == 5' failed.".into()
            )),
            "{failed:?}"
        );

        write(dir, "tests/test_add.c", super::TEST_ADD_C);
        write(dir, "src/add.c", &super::ADD_C.replace("a + b;", "a + b"));
        let evidence = strict(dir, &env, build_output, 1);
        assert_eq!(status(&evidence, build), "fail");
        assert_eq!(status(&evidence, test), "skip");
        let errors = located(&evidence, build);
        assert_eq!(
            errors,
            [(
                "src/add.c".into(),
                3.into(),
                37.into(),
                Value::Null,
                "expected ';' before '}' token".into()
            )]
        );
    }

    /// A C library whose test program writes `results.txt` and compares it
    /// with `expected.txt`: two runs at once truncate each other's file.
    const MINI_C: &str = "#include \"mini.h\"\nint twice(int x) { return 2 * x; }\n";
    const MINI_TEST_C: &str = "#include <assert.h>\n#include <stdio.h>\n#include \"mini.h\"\n\
int main(void) {\n    FILE *f = fopen(\"results.txt\", \"w\");\n    assert(f);\n\
    for (int i = 0; i < 20000; i++) fprintf(f, \"%d\\n\", twice(i));\n    fclose(f);\n\
    assert(twice(2) == 4);\n    return 0;\n}\n";

    /// The Makefile of the C library: `test` runs the suite, `check` needs
    /// `test`, and `all` is `all_prerequisites`.
    fn mini_makefile(all_prerequisites: &str) -> String {
        format!(
            "CC ?= cc\n.PHONY: all test check clean\nall: {all_prerequisites}\n\
libmini.a: mini.o\n\tar rcs libmini.a mini.o\n\
mini.o: mini.c mini.h\n\t$(CC) -Wall -c -o mini.o mini.c\n\
runtests: test_mini.c libmini.a\n\t$(CC) -Wall -o runtests test_mini.c libmini.a\n\
test: runtests\n\t./runtests && cmp results.txt expected.txt\n\
check: test\n\
clean:\n\trm -f mini.o libmini.a runtests results.txt\n"
        )
    }

    fn mini_project(all_prerequisites: &str) -> Test {
        let expected: String = (0..20000).map(|i| format!("{}\n", 2 * i)).collect();
        Test::bare()
            .file("Makefile", &mini_makefile(all_prerequisites))
            .file(".gitignore", "*.o\n*.a\nruntests\nresults.txt\n")
            .file("mini.h", "int twice(int x);\n")
            .file("mini.c", MINI_C)
            .file("test_mini.c", MINI_TEST_C)
            .file("expected.txt", &expected)
    }

    #[test]
    fn make_targets_that_run_the_same_recipes_never_run_at_once() {
        if !(on_path("make") && on_path("cc") && on_path("ar") && on_path("cmp")) {
            return;
        }
        // `all` runs the tests, and `check` is `test`: one check runs them.
        let (config, _, run) = init(mini_project("libmini.a test"));
        let names: Vec<&str> = config["check"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["build", "secrets"], "{config:#}");
        assert_eq!(
            check(&config, "build")["run"],
            serde_json::json!(["make", "all"])
        );
        assert!(check(&config, "build")["matcher"].is_array(), "{config:#}");
        for target in ["check", "test"] {
            assert!(
                run.stdout.contains(&format!(
                    "note: Makefile target `{target}` is no check of its own: `make all` already runs what it runs"
                )),
                "{}",
                run.stdout
            );
        }
        let dir = run.test.path().to_path_buf();
        let env = [("LC_ALL", OsString::from("C"))];
        let output = ["mini.o", "libmini.a", "runtests", "results.txt"];
        // The same result five times in a row.
        for _ in 0..5 {
            all_pass(&strict(&dir, &env, &output, 0));
        }

        // `all` only builds: `check` (which is `test`) runs after the build,
        // and `test` is no check of its own.
        let (config, _, run) = init(mini_project("libmini.a runtests"));
        let names: Vec<&str> = config["check"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["build", "check", "secrets"], "{config:#}");
        assert_eq!(
            check(&config, "check")["needs"],
            serde_json::json!(["build"])
        );
        assert!(
            run.stdout.contains(
                "note: Makefile target `test` is no check of its own: `make check` already runs what it runs"
            ),
            "{}",
            run.stdout
        );
        let dir = run.test.path().to_path_buf();
        for _ in 0..5 {
            all_pass(&strict(&dir, &env, &output, 0));
        }
        // A failing assert is still located, in the check that ran it.
        write(&dir, "mini.c", &MINI_C.replace("2 * x", "3 * x"));
        let evidence = strict(&dir, &env, &output, 1);
        assert_eq!(status(&evidence, "build"), "pass");
        assert_eq!(status(&evidence, "check"), "fail");
        assert!(
            located(&evidence, "check")
                .iter()
                .any(|(file, line, ..)| { file == "test_mini.c" && line == 9 }),
            "{}",
            evidence["diagnostics"]
        );
    }

    #[test]
    fn cmake_gate_locates_a_failing_ctest_and_a_compile_error() {
        if !(on_path("cmake") && on_path("ctest") && on_path("cc")) {
            return;
        }
        let (_, _, run) = init(project("cmake"));
        let dir = run.test.path().to_path_buf();
        // The sample is not a git repository: .gitignore still hides build/.
        c_defects(&dir, "build", "ctest", "test_add".into(), &["build/"]);
        // A failed test located at its assertion is not named a second
        // time, unplaced, from ctest's list of failed tests.
        write(
            &dir,
            "tests/test_add.c",
            &super::TEST_ADD_C.replace("== 4", "== 5"),
        );
        write(&dir, "src/add.c", super::ADD_C);
        let evidence = strict(&dir, &[("LC_ALL", "C".into())], &["build/"], 1);
        let failed = located(&evidence, "ctest");
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert_eq!(failed[0].1, Value::from(5), "{failed:?}");
        assert_eq!(failed[0].3, Value::from("test_add"), "{failed:?}");

        // A CMake error at its line, with the reason CMake prints under it.
        write(&dir, "tests/test_add.c", super::TEST_ADD_C);
        let lists = std::fs::read_to_string(dir.join("CMakeLists.txt")).unwrap();
        write(&dir, "CMakeLists.txt", &format!("{lists}foo_bar(x)\n"));
        let evidence = strict(&dir, &[("LC_ALL", "C".into())], &["build/"], 1);
        assert_eq!(status(&evidence, "configure"), "fail");
        assert_eq!(
            located(&evidence, "configure"),
            [(
                "CMakeLists.txt".into(),
                9.into(),
                Value::Null,
                "foo_bar".into(),
                "Unknown CMake command \"foo_bar\".".to_string()
            )]
        );
    }

    const GO_DEMO: &str = "// Package demo adds.\npackage demo\n\nimport \"fmt\"\n\n\
// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n\
// Show prints a sum.\nfunc Show() {\n\tfmt.Printf(\"%d\\n\", Add(1, 2))\n}\n";
    const GO_TEST: &str = "package demo\n\nimport \"testing\"\n\n\
func TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\t\
t.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";

    #[test]
    fn go_gate_locates_a_vet_report_and_a_failing_test() {
        if !on_path("go") {
            return;
        }
        let (config, _, run) = init(project("go"));
        assert_eq!(super::names(&config), ["vet", "test", "secrets"]);
        let dir = run.test.path().to_path_buf();
        write(&dir, "demo.go", GO_DEMO);
        write(&dir, "demo_test.go", GO_TEST);
        // Go's build cache is outside the tree (GOCACHE, in the home).
        all_pass(&strict(&dir, &[], &[], 0));

        // A printf verb of the wrong type: go vet's report, located (go
        // test runs vet's printf check too, so the test check fails on it).
        write(&dir, "demo.go", &GO_DEMO.replace("Add(1, 2))", "\"x\")"));
        let evidence = strict(&dir, &[], &[], 1);
        let vet = located(&evidence, "vet");
        assert_eq!(
            vet,
            [(
                "demo.go".into(),
                13.into(),
                2.into(),
                Value::Null,
                "fmt.Printf format %d has arg \"x\" of wrong type string".into()
            )],
        );

        // A failing test: named, at its t.Errorf line, with its message.
        write(&dir, "demo.go", GO_DEMO);
        write(&dir, "demo_test.go", &GO_TEST.replace("!= 4", "!= 5"));
        let evidence = strict(&dir, &[], &[], 1);
        assert_eq!(status(&evidence, "vet"), "pass");
        assert_eq!(
            located(&evidence, "test"),
            [(
                "demo_test.go".into(),
                7.into(),
                Value::Null,
                "TestAdd".into(),
                "Add(2, 2) = 4, want 4".into()
            )],
        );
    }

    #[test]
    fn makefile_c_gate_locates_a_failing_test_and_a_compile_error() {
        if !(on_path("make") && on_path("cc")) {
            return;
        }
        let (_, _, run) = init(project("make-c"));
        let dir = run.test.path().to_path_buf();
        c_defects(&dir, "build", "test", Value::Null, &["demo_test"]);
    }
}
