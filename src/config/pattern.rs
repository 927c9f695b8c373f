//! `paths` and `scan.paths` patterns: the one reading both keys share, so a
//! pattern selects the same files in a fast-mode filter and in a scan.
//!
//! A pattern is a glob relative to the worktree, read the way `.gitignore`
//! reads a pattern that names a directory: `src` and `src/` select everything
//! below `src` (`src` also still matches a file named `src`). `./` and empty
//! components are dropped, so `./src/**` is `src/**`, and `.` alone is the
//! whole worktree. A pattern that could never match a worktree path (absolute,
//! or climbing out with `..`) is refused rather than silently matching nothing:
//! a scan that selects no file passes. Separators are `/`, and also `\` on
//! Windows (where `\` is no escape character).

/// The globs `raw` stands for, normalised (components joined with `/`); the
/// reason it is refused otherwise. The globs are not compiled here.
pub(crate) fn expand(raw: &str) -> Result<Vec<String>, String> {
    let separators: &[char] = if cfg!(windows) { &['/', '\\'] } else { &['/'] };
    let windows_absolute = cfg!(windows) && raw.as_bytes().get(1) == Some(&b':');
    if raw.starts_with(separators) || windows_absolute {
        let relative = raw.trim_start_matches(separators);
        return Err(format!(
            "`{raw}` is absolute; patterns are relative to the worktree (e.g. `{}`)",
            if relative.is_empty() || windows_absolute {
                "src/**"
            } else {
                relative
            }
        ));
    }
    if raw.is_empty() {
        return Err("empty pattern (use `.` or `**` for the whole worktree)".into());
    }
    let components: Vec<&str> = raw
        .split(separators)
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    if components.contains(&"..") {
        return Err(format!(
            "`{raw}` leaves the worktree with `..`; patterns are relative to the worktree"
        ));
    }
    let Some(last) = components.last() else {
        return Ok(vec!["**".into()]);
    };
    let joined = components.join("/");
    if *last == "**" {
        Ok(vec![joined])
    } else if raw.ends_with(separators) {
        Ok(vec![format!("{joined}/**")])
    } else {
        Ok(vec![format!("{joined}/**"), joined])
    }
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[track_caller]
    fn case(raw: &str, expected: &[&str]) {
        assert_eq!(
            expand(raw),
            Ok(expected.iter().map(|s| s.to_string()).collect())
        );
    }

    #[test]
    fn a_directory_covers_everything_below_it() {
        case("src", &["src/**", "src"]);
        case("src/", &["src/**"]);
        case("src/a", &["src/a/**", "src/a"]);
        case("*.rs", &["*.rs/**", "*.rs"]);
        case("src/**", &["src/**"]);
        case("**", &["**"]);
    }

    #[test]
    fn dot_and_empty_components_are_dropped() {
        case("./src/**", &["src/**"]);
        case("./src/", &["src/**"]);
        case("src//a/./b.rs", &["src/a/b.rs/**", "src/a/b.rs"]);
        case(".", &["**"]);
        case("./", &["**"]);
    }

    #[test]
    fn patterns_that_match_nothing_are_refused() {
        assert_eq!(
            expand("/src/**"),
            Err(
                "`/src/**` is absolute; patterns are relative to the worktree (e.g. `src/**`)"
                    .into()
            )
        );
        assert_eq!(
            expand("/"),
            Err("`/` is absolute; patterns are relative to the worktree (e.g. `src/**`)".into())
        );
        assert_eq!(
            expand("src/../../x"),
            Err(
                "`src/../../x` leaves the worktree with `..`; patterns are relative to the worktree"
                    .into()
            )
        );
        assert!(expand("").is_err());
    }

    #[cfg(windows)]
    #[test]
    fn backslash_separates_on_windows() {
        case(r".\src\", &["src/**"]);
        assert!(expand(r"C:\src").is_err());
        assert!(expand(r"\src").is_err());
    }
}
