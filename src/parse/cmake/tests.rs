use super::*;
use crate::parse::tests::feed;

fn parse(text: &str) -> Vec<Diagnostic> {
    feed(&mut Cmake::default(), text).0
}

fn row(d: &Diagnostic) -> (Option<&str>, Option<u64>, DiagSeverity, Option<&str>, &str) {
    (
        d.file.as_deref(),
        d.line,
        d.severity,
        d.rule.as_deref(),
        d.message.as_str(),
    )
}

#[test]
fn a_cmake_error_keeps_its_reason() {
    let found = parse(include_str!(
        "../../../tests/fixtures/diagnostics/cmake/configure-missing.txt"
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        row(&found[0]),
        (
            Some("CMakeLists.txt"),
            Some(5),
            DiagSeverity::Error,
            Some("find_package"),
            "By not providing \"FindNoSuchPackage.cmake\" in CMAKE_MODULE_PATH this project \
                 has asked CMake to find a package configuration file provided by \
                 \"NoSuchPackage\", but CMake did not find one.\n\
                 Could not find a package configuration file provided by \"NoSuchPackage\" \
                 with any of the following names:\n\
                 NoSuchPackageConfig.cmake nosuchpackage-config.cmake\n\
                 Add the installation prefix of \"NoSuchPackage\" to CMAKE_PREFIX_PATH or set \
                 \"NoSuchPackage_DIR\" to a directory containing one of the above files.  If \
                 \"NoSuchPackage\" provides a separate development package or SDK, be sure it \
                 has been installed."
        )
    );
}

#[test]
fn each_cmake_message_is_one_diagnostic_with_its_command() {
    let found = parse(include_str!(
        "../../../tests/fixtures/diagnostics/cmake/configure-errors.txt"
    ));
    let rows: Vec<_> = found.iter().map(row).collect();
    assert_eq!(
        rows,
        [
            (
                Some("CMakeLists.txt"),
                Some(3),
                DiagSeverity::Warning,
                Some("message"),
                "the option FOO is deprecated"
            ),
            (
                Some("CMakeLists.txt"),
                Some(4),
                DiagSeverity::Error,
                Some("message"),
                "VERSION must be set"
            ),
            (
                Some("CMakeLists.txt"),
                Some(5),
                DiagSeverity::Error,
                Some("foo_bar"),
                "Unknown CMake command \"foo_bar\"."
            ),
        ]
    );
}

#[test]
fn a_failed_ctest_is_placed_at_its_assertion() {
    let found = parse(include_str!(
        "../../../tests/fixtures/diagnostics/cmake/ctest.txt"
    ));
    let rows: Vec<_> = found.iter().map(row).collect();
    assert_eq!(
        rows,
        [
            (
                Some("/work/proj/tests/test_assert.c"),
                Some(4),
                DiagSeverity::Error,
                Some("test_assert"),
                "main: Assertion `add(2, 2) == 5' failed."
            ),
            (
                Some("/work/proj/tests/test_check.c"),
                Some(10),
                DiagSeverity::Error,
                Some("test_check"),
                "assertion failed: add(1, 2) == 4"
            ),
            (
                Some("/work/proj/tests/test_failure.c"),
                Some(7),
                DiagSeverity::Error,
                Some("test_failure"),
                "Failure\nExpected equality of these values:\n  add(2, 3)\n    Which is: 5\n  6"
            ),
        ]
    );
}

#[test]
fn a_failed_ctest_without_its_output_is_named_from_the_list() {
    // The capture without the tests' output: what ctest prints when
    // `--output-on-failure` is not given.
    let text: String = include_str!("../../../tests/fixtures/diagnostics/cmake/ctest.txt")
        .lines()
        .filter(|l| {
            RESULT.is_match(l)
                || START.is_match(l)
                || LISTED.is_match(l)
                || !l.starts_with(['/', '[', ' ', 't'])
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!text.contains("Failure"), "{text}");
    let rows: Vec<_> = parse(&text)
        .iter()
        .map(|d| (d.rule.clone(), d.file.clone(), d.message.clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (
                Some("test_assert".into()),
                None,
                "test_assert (Subprocess aborted)".into()
            ),
            (
                Some("test_check".into()),
                None,
                "test_check (Failed)".into()
            ),
            (
                Some("test_failure".into()),
                None,
                "test_failure (Failed)".into()
            ),
        ]
    );
}

#[test]
fn the_auto_parser_reads_cmake_and_ctest() {
    for (fixture, count) in [
        (
            include_str!("../../../tests/fixtures/diagnostics/cmake/ctest.txt"),
            3,
        ),
        (
            include_str!("../../../tests/fixtures/diagnostics/cmake/configure-errors.txt"),
            3,
        ),
    ] {
        let mut auto = crate::parse::Auto::default();
        let mut out = Vec::new();
        for line in fixture.lines() {
            auto.line(line, &mut out);
        }
        auto.finish(&mut out);
        assert_eq!(out, parse(fixture));
        assert_eq!(out.len(), count);
    }
}
