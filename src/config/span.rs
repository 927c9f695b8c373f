//! Where in the file: the dotted key of a line (for toml's own errors), the
//! table a header opens, and the keys errors name. Text in, words out: the
//! `Validator` (validate.rs) turns spans into lines and errors with these,
//! and this file knows nothing of it, so the two do not import each other.

use std::fmt::{self, Display};

/// A byte range of the config text.
pub(super) type Span = std::ops::Range<usize>;

/// The dotted key assigned on the line holding `offset`, qualified by the
/// table header above it (`check.parser`), when the line is a `key = value`.
pub(super) fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    if key.is_empty() || key.starts_with('[') || key.contains(char::is_whitespace) {
        return None;
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|header| {
            header
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string()
        });
    Some(match table {
        Some(table) if !table.is_empty() => format!("{table}.{key}"),
        _ => key.to_string(),
    })
}

/// The table a header line holding `offset` opens (`check` for `[check]` or
/// `[[check]]`), and whether it is an array-of-tables header.
pub(super) fn header_at(text: &str, offset: usize) -> Option<(&str, bool)> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    // The header is what stands between the brackets; after them only a
    // comment may follow, whatever it holds (`[[check]]  # the "unit"
    // suite`: a quote in the comment must not hide the header, or the
    // check would be placed at the header of the one before it).
    let (open, close, array) = if line.starts_with("[[") {
        ("[[", "]]", true)
    } else {
        ("[", "]", false)
    };
    let body = line.strip_prefix(open)?;
    let end = body.find(close)?;
    let rest = body[end + close.len()..].trim_start();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    let inner = body[..end].trim();
    (!inner.is_empty() && !inner.contains(['[', ']'])).then_some((inner, array))
}

/// An error's key as the value functions take it: a name (`check.name`) or
/// an [`Of`], made into text only on the error path.
pub(super) trait Key: Display + Copy {}
impl<T: Display + Copy> Key for T {}

/// An error's key `` `key` of check `name` ``, formatted only when an error
/// is made: a config of 500 checks would otherwise format thousands of keys
/// at every start.
#[derive(Clone, Copy)]
pub(super) struct Of<'a> {
    pub(super) key: &'a str,
    /// `check` or `fix`.
    pub(super) table: &'a str,
    pub(super) name: &'a str,
}

impl Display for Of<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` of {} `{}`", self.key, self.table, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::{ALLOW, rejects};

    #[test]
    fn a_check_s_table_line_is_its_header_line() {
        // Lines: 1-2 settings, 3 header, 4 comment, 5 blank, 6 name; then a
        // check whose name follows `run` (header 9, name 11) and is followed
        // by a `[check.env]` table; a fix (header 15, name 16).
        let text = format!(
            "{ALLOW}[[check]]   # the first\n# why it is here\n\nname = \"a\"\nrun = [\"true\"]\n\n\
             [[check]]\nrun = [\"true\"]\nname = \"b\"\n[check.env]\nX = \"1\"\n\n\
             [[fix]]\nname = \"f\"\nrun = [\"sh\"]\n"
        );
        let config = crate::config::tests::load_str(&text).unwrap();
        let lines: Vec<(usize, usize)> = config
            .checks
            .iter()
            .chain(&config.fixes)
            .map(|c| (c.table_line, c.line))
            .collect();
        assert_eq!(lines, [(3, 6), (9, 11), (15, 16)]);
    }

    #[test]
    fn a_bad_value_names_its_key() {
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\nparser = \"nope\"\n"),
            "checks.toml:6:10: check.parser: unknown variant `nope`, expected one of `auto`, \
             `none`, `gcc`, `rustc`, `cargo-json`, `tsc`, `pytest`, `mypy`, `eslint`, `go`, \
             `rustfmt`, `diff`, `vitest`, `jest`, `tap`, `cmake`, `prettier`, \
             `phase-result`",
        );
        rejects(
            "[settings]\njobs = \"two\"\n",
            "checks.toml:2:8: settings.jobs: invalid type: string \"two\", expected usize",
        );
        assert_eq!(
            key_at("[[check]]\nname = 1\n", 12),
            Some("check.name".into())
        );
        assert_eq!(key_at("top = 1\n", 3), Some("top".into()));
        assert_eq!(key_at("[[check]\n", 3), None);
    }

    #[test]
    fn a_table_error_names_its_table() {
        rejects(
            &format!("{ALLOW}[check]\nname = \"t\"\nrun = [\"true\"]\n"),
            "checks.toml:3:1: check: must be an array of tables: write [[check]]",
        );
        rejects(
            &format!("check = {{ name = \"t\", run = [\"true\"] }}\n{ALLOW}"),
            "checks.toml:1:9: check: must be an array of tables: write [[check]]",
        );
        rejects(
            &format!("{ALLOW}[[check]]\nname = \"t\"\nrun = [\"true\"]\n[fix]  # one\n"),
            "checks.toml:6:1: fix: must be an array of tables: write [[fix]]",
        );
        rejects(
            &format!("{ALLOW}[[check]]\nrun = [\"true\"]\n"),
            "checks.toml:3:1: check: missing field `name`",
        );
        rejects(
            &format!(
                "{ALLOW}[[check]]\nname = \"s\"\nscan = {{ rules = [] }}\n[[check.rule]]\nid = \"x\"\n"
            ),
            "checks.toml:6:1: check.rule: missing field `pattern`",
        );
        assert_eq!(
            header_at("a = 1\n[[check]] # x\n", 8),
            Some(("check", true))
        );
        assert_eq!(header_at("[ judge ]\n", 0), Some(("judge", false)));
        assert_eq!(
            header_at("[[check]]  # the \"unit\" suite, don't\n", 0),
            Some(("check", true))
        );
        assert_eq!(header_at("[x] = 1\n", 0), None);
        assert_eq!(header_at("a = 1\n", 0), None);
        assert_eq!(header_at("[[check]\n", 0), None);
    }
}
