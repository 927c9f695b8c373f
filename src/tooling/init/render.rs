//! Rendering: what the detectors found as the text of checks.toml — the
//! commented header, `[settings]` with the whitelist, one `[[check]]` per
//! check, the `secrets` scan, and the `[[fix]]` writers — with TOML quoting.

use std::fmt::Write as _;

use super::{Check, Detected, Fix};

/// A TOML basic string.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A regex as a TOML literal string (no escapes to read) when it can be one.
fn literal(text: &str) -> String {
    if text.contains('\'') || text.chars().any(char::is_control) {
        quote(text)
    } else {
        format!("'{text}'")
    }
}

fn array<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items.iter().map(|i| quote(i.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

/// The longest line init writes, where it can choose (a regex or a long
/// word stays whole): a project's own line-length lint (yamllint, editorconfig
/// checkers, taplo) must not fail on the file init wrote.
const WIDTH: usize = 79;

/// `key = [items]` with an optional trailing `# note`, one item per line
/// when the line would be longer than `WIDTH`.
fn assign<S: AsRef<str>>(key: &str, items: &[S], note: Option<&str>) -> String {
    let note = note.map(|n| format!("   # {n}")).unwrap_or_default();
    let line = format!("{key} = {}{note}", array(items));
    if line.chars().count() <= WIDTH {
        return line;
    }
    let mut out = format!("{key} = [{note}\n");
    for item in items {
        let _ = writeln!(out, "    {},", quote(item.as_ref()));
    }
    out.push(']');
    out
}

const HEADER: &str = "\
# checks.toml: the checks of run-check, this repository's read-only gate.
# Written by `run-check init`; edit it freely (init never overwrites it).
#
# - `run` is an argv, never a shell string. Its first word must be listed in
#   `settings.allow`, the whitelist; a shell runs only if it is listed too.
# - `modes`: `fast` is the developer loop and the pre-commit hook: a check
#   with `paths` runs only when a changed file matches one of its globs, and
#   the first failure stops the rest. `strict` is the acceptance gate: every
#   strict check runs, and the checks must leave the worktree unchanged.
# - `parser` turns a tool's output into located diagnostics in the evidence.
# - Writers (formatters, fixers) belong in [[fix]]: only `run-check fix` runs
#   them; checking never writes.
# - Check it with `run-check validate`; see what a mode runs with
#   `run-check list --mode fast`; run it with `run-check --mode fast`.
# - Editor completion: save `run-check schema checks` as checks.schema.json
#   and add the line `#:schema ./checks.schema.json` at the top of this file
#   (Taplo / Even Better TOML).
";

pub(super) fn render(detected: &Detected) -> String {
    let mut programs: Vec<&str> = Vec::new();
    let all_runs = detected.found.iter().flat_map(|f| {
        f.checks
            .iter()
            .map(|c| &c.run)
            .chain(f.fixes.iter().map(|x| &x.run))
    });
    for run in all_runs {
        if let Some(program) = run.first()
            && !programs.contains(&program.as_str())
        {
            programs.push(program);
        }
    }
    let mut out = String::from(HEADER);
    out.push_str("\nversion = 1\n\n[settings]\n");
    out.push_str("jobs = 0           # checks run in parallel; 0 = logical CPUs\n");
    out.push_str("timeout = \"10m\"    # default per-check timeout (\"90s\", \"5m\", \"1h\")\n");
    let _ = writeln!(
        out,
        "{}",
        assign(
            "allow",
            &programs,
            Some("the whitelist: every program a check or fix runs")
        )
    );
    for found in &detected.found {
        let _ = writeln!(
            out,
            "\n# --- {} ({}) ---",
            found.ecosystem,
            found.files.join(", ")
        );
        for check in &found.checks {
            render_check(&mut out, check);
        }
        for why in &found.refused {
            out.push('\n');
            comment(&mut out, why);
        }
    }
    out.push_str(
        "\n# --- secrets ---\n\
         # AWS access key ids, private key blocks, GitHub tokens and `password = \"...\"`\n\
         # in every file .gitignore does not ignore (the secret itself is never\n\
         # copied into the evidence). Narrow it with `paths` if test fixtures trip it.\n\
         [[check]]\n\
         name = \"secrets\"\n\
         scan = { rules = [\"secrets\"] }\n\
         modes = [\"fast\", \"strict\"]\n\
         dimension = \"security\"\n\
         severity = \"critical\"\n",
    );
    out.push_str(
        "\n# More built-in scans, e.g. for coding-agent loops (uncomment to use):\n\
         # [[check]]\n\
         # name = \"anti-cheat\"\n\
         # [check.scan]\n\
         # paths = [\"src/**\", \"tests/**\"]\n\
         # rules = [\"skipped-tests\", \"placeholder-asserts\", \"debug-leftovers\"]\n",
    );
    let fixes: Vec<&Fix> = detected.found.iter().flat_map(|f| &f.fixes).collect();
    if !fixes.is_empty() {
        out.push_str("\n# --- writers: only `run-check fix` runs them ---\n");
        for fix in fixes {
            let _ = write!(
                out,
                "\n[[fix]]\nname = {}\n{}\n",
                quote(&fix.name),
                assign("run", &fix.run, None)
            );
        }
    }
    out
}

/// `text` as `#` comment lines, wrapped at about 78 columns.
fn comment(out: &mut String, text: &str) {
    for paragraph in text.lines() {
        let mut line = String::from("#");
        let paragraph: String = paragraph
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        for word in paragraph.split_whitespace() {
            if line.len() > 1 && line.len() + 1 + word.len() > 78 {
                let _ = writeln!(out, "{line}");
                line = String::from("#");
            }
            line.push(' ');
            line.push_str(word);
        }
        let _ = writeln!(out, "{line}");
    }
}

fn render_check(out: &mut String, check: &Check) {
    out.push('\n');
    if let Some(text) = &check.comment {
        comment(out, text);
    }
    let _ = writeln!(out, "[[check]]\nname = {}", quote(&check.name));
    let _ = writeln!(out, "{}", assign("run", &check.run, None));
    let _ = writeln!(out, "{}", assign("modes", check.modes, None));
    if !check.needs.is_empty() {
        let _ = writeln!(out, "{}", assign("needs", &check.needs, None));
    }
    if !check.paths.is_empty() {
        let _ = writeln!(out, "{}", assign("paths", &check.paths, None));
    }
    if let Some(parser) = check.parser {
        let _ = writeln!(out, "parser = {}", quote(parser));
    }
    if !check.env.is_empty() {
        let pairs: Vec<String> = check
            .env
            .iter()
            .map(|(k, v)| format!("{k} = {}", quote(v)))
            .collect();
        let _ = writeln!(out, "env = {{ {} }}", pairs.join(", "));
    }
    for regex in &check.matchers {
        let _ = writeln!(out, "[[check.matcher]]\nregex = {}", literal(regex));
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn quoting_escapes_toml_specials() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("\u{1}"), "\"\\u0001\"");
        assert_eq!(array(&["x", "y"]), r#"["x", "y"]"#);
        assert_eq!(literal(r"^(?P<message>\d+)$"), r"'^(?P<message>\d+)$'");
        assert_eq!(literal("a'b"), r#""a'b""#);
    }

    #[test]
    fn an_empty_project_gets_the_secrets_scan_and_an_empty_whitelist() {
        let text = render(&Detected::default());
        let config = crate::config::parse(&text, Path::new("checks.toml"), String::new()).unwrap();
        assert_eq!(config.checks.len(), 1);
        assert_eq!(config.checks[0].name, "secrets");
        assert!(config.settings.allow.is_empty());
    }
}
