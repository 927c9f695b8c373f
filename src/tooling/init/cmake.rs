//! The CMake detector: a top-level CMakeLists.txt gets what its maintainer
//! runs — configure into `build/`, build, and, when it enables testing
//! (`enable_testing()` or `include(CTest)`), `ctest --output-on-failure` —
//! with the gcc parser for the compiler's diagnostics and the cmake parser
//! for CMake's own errors (with their reason) and the failed tests (at
//! their assertion's line, else by name).

use std::path::Path;

use super::{Check, FAST_STRICT, Found, STRICT, globs, read};

/// The build directory the checks configure and build into.
pub(super) const BUILD_DIR: &str = "build";

/// glibc's `assert()` failure, `prog: file:line: function: Assertion `expr' failed.`
pub(super) const ASSERT: &str =
    r"^[^:\s]+: (?P<file>[^:]+):(?P<line>\d+): (?P<message>.*Assertion .+ failed\.)$";

/// The CMake sources, C and C++ included: what fast mode rebuilds for.
fn sources() -> Vec<String> {
    globs(&[
        "**/CMakeLists.txt",
        "**/*.cmake",
        "**/*.c",
        "**/*.h",
        "**/*.cc",
        "**/*.cpp",
        "**/*.cxx",
        "**/*.hh",
        "**/*.hpp",
        "**/*.hxx",
    ])
}

/// Whether the CMake text enables testing (commands are case-insensitive,
/// and may have blanks before their parenthesis); comments are skipped.
fn enables_testing(text: &str) -> bool {
    text.lines().any(|line| {
        let code: String = line
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        code.contains("enable_testing(") || code.contains("include(ctest)")
    })
}

/// Whether `.gitignore` at the root ignores the build directory.
fn ignores_build(root: &Path) -> bool {
    gitignore_ignores(root, BUILD_DIR)
}

/// Whether `.gitignore` at the root ignores the folder `dir` at the root
/// (`dir`, `/dir`, `dir/`, `/dir/`, `dir*`, `dir-*`, `*dir*`): read as a
/// reviewer would, not as git matches.
pub(super) fn gitignore_ignores(root: &Path, dir: &str) -> bool {
    read(root, ".gitignore").is_some_and(|text| {
        text.lines().map(str::trim).any(|l| {
            let l = l.trim_start_matches('/').trim_end_matches('/');
            l == dir || l == format!("{dir}*") || l == format!("{dir}-*") || l == format!("*{dir}*")
        })
    })
}

/// Whether `.gitignore` at the root ignores the file `path` (relative to
/// the root), read as a reviewer would: a line that is the path, its name,
/// a folder it is in, or a glob (`*.out`, `test-*`) matching its name.
pub(super) fn gitignore_covers(root: &Path, path: &str) -> bool {
    let path = path.trim_start_matches("./");
    let name = path.rsplit('/').next().unwrap_or(path);
    let folders: Vec<&str> = path.split('/').collect();
    let folders = &folders[..folders.len().saturating_sub(1)];
    read(root, ".gitignore").is_some_and(|text| {
        text.lines().map(str::trim).any(|l| {
            let l = l.trim_start_matches('/').trim_end_matches('/');
            if l.is_empty() || l.starts_with(['#', '!']) {
                return false;
            }
            l == path
                || l == name
                || folders.contains(&l)
                || globset::Glob::new(l).is_ok_and(|g| g.compile_matcher().is_match(name))
        })
    })
}

pub(super) fn detect(root: &Path, notes: &mut Vec<String>) -> Option<Found> {
    let text = read(root, "CMakeLists.txt")?;
    if !ignores_build(root) {
        notes.push(format!(
            "CMake builds into `{BUILD_DIR}/`, which .gitignore does not ignore: the strict gate would report the build's files as written by the checks (add `{BUILD_DIR}/` to .gitignore)"
        ));
    }
    let mut checks = vec![
        Check::new("configure", &["cmake", "-S", ".", "-B", BUILD_DIR], FAST_STRICT)
            .paths(sources())
            .parser("cmake")
            .comment(format!(
                "Configure the CMake project into `{BUILD_DIR}/` (keep it in .gitignore: the strict gate counts every file a check creates that git does not ignore). The cmake parser locates `CMake Error at file:line` with its reason."
            )),
        Check::new("build", &["cmake", "--build", BUILD_DIR], FAST_STRICT)
            .paths(sources())
            .needs("configure")
            .parser("gcc")
            .comment(
                "Build every target: the compiler's errors and warnings, located by the gcc parser (`file:line:col: error: ...`).",
            ),
    ];
    if enables_testing(&text) {
        checks.push(
            Check::new(
                "ctest",
                &[
                    "ctest",
                    "--test-dir",
                    BUILD_DIR,
                    "--output-on-failure",
                    "--no-tests=error",
                ],
                STRICT,
            )
            .needs("build")
            .parser("cmake")
            .comment(
                "The tests CMakeLists.txt registers (it calls enable_testing()), after the build; --output-on-failure shows a failing test's output, --no-tests=error fails when none is registered (CMake 3.20 or newer). The cmake parser locates a failed test at its assertion's file:line (assert(), `file:line: Failure`), else names it.",
            ),
        );
    }
    Some(Found {
        ecosystem: "CMake".into(),
        files: vec!["CMakeLists.txt".into()],
        checks,
        fixes: Vec::new(),
        refused: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn testing_is_enabled_by_either_command_in_any_case() {
        assert!(enables_testing("project(x)\nenable_testing()\n"));
        assert!(enables_testing("ENABLE_TESTING ( )\n"));
        assert!(enables_testing("include(CTest)\n"));
        assert!(!enables_testing("# enable_testing()\nproject(x)\n"));
        assert!(!enables_testing(
            "add_executable(enable_testing_demo x.c)\n"
        ));
    }

    #[test]
    fn the_assert_matcher_reads_a_real_line() {
        let assert = regex::Regex::new(ASSERT).unwrap();
        let caps = assert
            .captures(
                "test_add: /tmp/p/tests/test_add.c:5: main: Assertion `add(2, 2) == 5' failed.",
            )
            .unwrap();
        assert_eq!(&caps["file"], "/tmp/p/tests/test_add.c");
        assert_eq!(&caps["line"], "5");
        assert_eq!(&caps["message"], "main: Assertion `add(2, 2) == 5' failed.");
    }
}
