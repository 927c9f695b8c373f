//! Which commands write the tree: init adopts a project's scripts and
//! Makefile targets as checks only when they are read-only (a check must
//! leave the worktree unchanged; writers belong in `[[fix]]`).
//!
//! [`writes`] reads a shell command line the way a reviewer would: it splits
//! it into commands (`&&`, `||`, `;`, `|`, `&`, parentheses), skips
//! environment assignments and wrappers (`npx`, `cross-env`, `pnpm exec`,
//! `python -m`, `uv run`, ...), follows `npm run X` (with npm's `preX` and
//! `postX`), `run-s`/`run-p`/`npm-run-all` and `make X` into the scripts and
//! targets it was given, and knows the writing forms of the common fixers
//! and formatters: `--fix`, `--write`, `--apply`, `prettier -w`, `black`
//! and `isort` without their check flags, `ruff format` without `--check`,
//! `ruff check` where the project configures `fix`, `cargo fmt` and
//! `rustfmt` without `--check`, `gofmt -w`, `go fmt`, `go mod tidy`,
//! `-i`/`--in-place` editors, snapshot updates (`jest -u`), ... It is a
//! heuristic for the starter file, not a proof: the strict gate's read-only
//! verification is what catches a check that writes.
//!
//! [`read_only_variant`] turns a simple one-command script of a known tool
//! into its checking form (`eslint --fix .` → `eslint .`,
//! `prettier --write .` → `prettier --check .`).

use std::collections::BTreeSet;

/// What a command line can refer to: package.json scripts and Makefile
/// targets (recipe lines), and whether the project configures ruff to fix.
#[derive(Debug, Default)]
pub(super) struct Context {
    /// package.json `scripts`.
    pub(crate) scripts: Vec<(String, String)>,
    /// Makefile targets: name, prerequisites, recipe lines.
    pub(crate) targets: Vec<(String, Vec<String>, Vec<String>)>,
    /// pyproject.toml / ruff.toml set `fix = true`.
    pub(crate) ruff_fixes: bool,
    /// pyproject.toml / ruff.toml set `fix-only = true` (which `--no-fix`
    /// alone does not turn off).
    pub(crate) ruff_fix_only: bool,
    /// An output redirection (`> out.txt`, `tee log`) is build output, not
    /// a write of the tree: a Makefile's targets, whose checks init runs
    /// one after the other where they share a recipe, and whose files it
    /// asks .gitignore to ignore ([`redirected`]).
    pub(crate) redirects_are_output: bool,
}

impl Context {
    fn script(&self, name: &str) -> Option<&str> {
        self.scripts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_str())
    }

    /// Scripts whose names match `pattern` (`lint:*` as npm-run-all globs).
    fn scripts_matching(&self, pattern: &str) -> Vec<&str> {
        let prefix = pattern.strip_suffix('*');
        self.scripts
            .iter()
            .filter(|(n, _)| prefix.map_or(n == pattern, |prefix| n.starts_with(prefix)))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    fn target(&self, name: &str) -> Option<&(String, Vec<String>, Vec<String>)> {
        self.targets.iter().find(|(n, _, _)| n == name)
    }
}

/// Why package.json script `name` (with npm's `pre`/`post` scripts) writes
/// files, if it does: e.g. "`eslint --fix`".
pub(super) fn script_writes(name: &str, context: &Context) -> Option<String> {
    run_script(name, context, &mut BTreeSet::new())
}

/// Why package.json script `name` alone (without npm's `pre`/`post`
/// scripts: `npm run --ignore-scripts`) writes files, if it does.
pub(super) fn script_alone_writes(name: &str, context: &Context) -> Option<String> {
    let mut seen = BTreeSet::from([format!("script:{name}")]);
    line_writes(context.script(name)?, context, &mut seen)
}

/// Why Makefile target `name` (its prerequisites and recipes) writes files.
pub(super) fn target_writes(name: &str, context: &Context) -> Option<String> {
    make_target(name, context, &mut BTreeSet::new())
}

/// Why the command line `line` writes files, if it does.
pub(super) fn writes(line: &str, context: &Context) -> Option<String> {
    line_writes(line, context, &mut BTreeSet::new())
}

fn run_script(name: &str, context: &Context, seen: &mut BTreeSet<String>) -> Option<String> {
    if !seen.insert(format!("script:{name}")) {
        return None;
    }
    for hook in [
        format!("pre{name}"),
        name.to_string(),
        format!("post{name}"),
    ] {
        if let Some(text) = context.script(&hook)
            && let Some(why) = line_writes(text, context, seen)
        {
            return Some(if hook == name {
                why
            } else {
                format!("{why} (in its `{hook}` script)")
            });
        }
    }
    None
}

fn make_target(name: &str, context: &Context, seen: &mut BTreeSet<String>) -> Option<String> {
    if !seen.insert(format!("target:{name}")) {
        return None;
    }
    let (_, prerequisites, recipe) = context.target(name)?;
    for line in recipe {
        let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
        if let Some(why) = line_writes(line, context, seen) {
            return Some(why);
        }
    }
    for prerequisite in prerequisites {
        if let Some(why) = make_target(prerequisite, context, seen) {
            return Some(format!("{why} (in its prerequisite `{prerequisite}`)"));
        }
    }
    None
}

fn line_writes(line: &str, context: &Context, seen: &mut BTreeSet<String>) -> Option<String> {
    if !context.redirects_are_output
        && let Some(why) = redirect(line)
    {
        return Some(why);
    }
    commands(line)
        .iter()
        .find_map(|words| command_writes(words, context, seen))
}

/// The output redirection of the shell line `line` that writes a file
/// (`>`, `>>`, `&>`, `2>`, `>|`), or the `tee` that does, if any: a recipe that
/// writes a file is no check even when the file is ignored, since two
/// checks running it at once would write the same file. `/dev/null` and
/// the standard streams are not files of the tree, nor is `>&2` (a
/// duplicated descriptor).
fn redirect(line: &str) -> Option<String> {
    redirected(line).map(|(form, file)| format!("`{form} {file}`"))
}

/// The file the shell line `line` writes through an output redirection or
/// `tee` ([`redirect`]), as (`>` or `tee`, the file).
pub(super) fn redirected(line: &str) -> Option<(&'static str, String)> {
    let harmless = |file: &str| {
        file.is_empty()
            || file.starts_with('&')
            || file.starts_with('$')
            || matches!(
                file,
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
            )
    };
    let chars: Vec<char> = line.chars().collect();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\\') => i += 1,
            (None, '\'' | '"') => quote = Some(c),
            (None, '>') => {
                let mut j = i + 1;
                while j < chars.len() && matches!(chars[j], '>' | '|') {
                    j += 1;
                }
                if chars.get(j) == Some(&'&') {
                    // `>&2`: a descriptor, unless `>&` names a file (bash's
                    // `>& file`), which is rare enough to let pass.
                    i = j + 1;
                    continue;
                }
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                let file: String = chars[j..]
                    .iter()
                    .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | '&' | '|' | ')'))
                    .filter(|c| !matches!(c, '\'' | '"'))
                    .collect();
                if !harmless(&file) {
                    return Some((">", file));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    for words in commands(line) {
        let words = skip_wrappers(&words);
        if words.first().is_some_and(|w| program(w) == "tee")
            && let Some(file) = words[1..]
                .iter()
                .find(|w| !w.starts_with('-') && !harmless(w))
        {
            return Some(("tee", file.clone()));
        }
    }
    None
}

/// The commands of a shell line, each as words without their quotes.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => flush(&mut word, &mut words),
            (None, '&' | '|' | ';' | '(' | ')' | '`') => {
                flush(&mut word, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            (None, c) => word.push(c),
        }
    }
    flush(&mut word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

/// The program name of a word (`./node_modules/.bin/eslint` → `eslint`).
fn program(word: &str) -> &str {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    base.strip_suffix(".exe")
        .or_else(|| base.strip_suffix(".cmd"))
        .unwrap_or(base)
}

/// Drops environment assignments and wrappers that run the next word.
fn skip_wrappers(words: &[String]) -> &[String] {
    let mut rest = words;
    loop {
        let Some(first) = rest.first() else {
            return rest;
        };
        let name = program(first);
        let skip = if first.contains('=') && !first.starts_with('-') {
            1
        } else {
            match name {
                "npx" | "pnpx" | "bunx" | "cross-env" | "env" | "nice" | "time" | "exec"
                | "command" | "dotenv" | "nohup" => {
                    1 + rest[1..]
                        .iter()
                        .take_while(|w| w.starts_with('-') || w.contains('='))
                        .count()
                }
                "python" | "python3" | "py" if rest.get(1).map(String::as_str) == Some("-m") => 2,
                "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                    if rest.get(1).map(String::as_str) == Some("run") =>
                {
                    2 + rest[2..].iter().take_while(|w| w.starts_with('-')).count()
                }
                "npm" | "pnpm" | "yarn" | "bun"
                    if matches!(rest.get(1).map(String::as_str), Some("exec" | "x" | "dlx")) =>
                {
                    2 + rest[2..].iter().take_while(|w| w.starts_with('-')).count()
                }
                _ => 0,
            }
        };
        if skip == 0 {
            return rest;
        }
        rest = &rest[skip.min(rest.len())..];
        if rest.first().map(String::as_str) == Some("--") {
            rest = &rest[1..];
        }
    }
}

/// Package-manager subcommands that are not scripts.
const MANAGER_COMMANDS: &[&str] = &[
    "install", "i", "ci", "add", "remove", "exec", "x", "dlx", "publish", "pack", "audit",
    "version", "init", "create", "link", "update", "outdated", "why", "list", "ls",
];

/// Script names that are writers by name, when the script itself is not
/// known (a Makefile calling `npm run format` without a package.json).
fn writer_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(name.as_str(), "format" | "fmt" | "fix")
        || name.starts_with("format:")
        || name.starts_with("fix:")
        || name.ends_with(":fix")
        || name.ends_with(":write")
        || name.ends_with("-fix")
        || (name.contains("format") && !name.contains("check"))
}

fn command_writes(
    words: &[String],
    context: &Context,
    seen: &mut BTreeSet<String>,
) -> Option<String> {
    let words = skip_wrappers(words);
    let (first, args) = words.split_first()?;
    let tool = program(first);
    if let Some(followed) = follow(tool, args, context, seen) {
        return followed;
    }
    // Flags that write whatever the tool.
    for arg in args {
        let flag = arg.split('=').next().unwrap_or(arg);
        if matches!(
            flag,
            "--fix"
                | "--fix-dangerously"
                | "--fix-suggestions"
                | "--write"
                | "--apply"
                | "--apply-unsafe"
                | "--in-place"
                | "--autocorrect"
                | "--autocorrect-all"
                | "--auto-correct"
                | "--auto-correct-all"
        ) {
            return Some(format!("`{tool} {flag}`"));
        }
    }
    tool_writes(tool, args, context).map(|what| format!("`{what}`"))
}

/// Scripts and targets a runner (`npm run`, `run-s`, `concurrently`,
/// `make`) runs, followed; `None` when `tool` runs none.
fn follow(
    tool: &str,
    args: &[String],
    context: &Context,
    seen: &mut BTreeSet<String>,
) -> Option<Option<String>> {
    let sub = args.first().map(String::as_str).unwrap_or("");
    let say = |what: &str| Some(format!("`{what}`"));
    match tool {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = match sub {
                "run" | "run-script" | "rum" | "urn" => args.get(1).map(String::as_str),
                "test" | "t" | "tst" | "start" | "stop" | "restart" => Some(match sub {
                    "t" | "tst" => "test",
                    s => s,
                }),
                // `pnpm lint`, `yarn lint`, `bun lint` run scripts too.
                s if tool != "npm" && !s.starts_with('-') && !MANAGER_COMMANDS.contains(&s) => {
                    Some(s)
                }
                _ => None,
            };
            if let Some(script) = script {
                if context.script(script).is_some() {
                    return Some(
                        run_script(script, context, seen)
                            .map(|why| format!("{why} (via `{tool} run {script}`)")),
                    );
                }
                if writer_name(script) {
                    return Some(say(&format!("{tool} run {script}")));
                }
            }
            return Some(None);
        }
        "run-s" | "run-p" | "npm-run-all" | "npm-run-all2" => {
            for pattern in args.iter().filter(|a| !a.starts_with('-')) {
                for script in context.scripts_matching(pattern) {
                    if let Some(why) = run_script(script, context, seen) {
                        return Some(Some(format!("{why} (via `{tool} {pattern}`)")));
                    }
                }
                if context.scripts.is_empty() && writer_name(pattern) {
                    return Some(say(&format!("{tool} {pattern}")));
                }
            }
            return Some(None);
        }
        "concurrently" => {
            for arg in args.iter().filter(|a| !a.starts_with('-')) {
                let line = match arg.strip_prefix("npm:") {
                    Some(script) => format!("npm run {script}"),
                    None => arg.clone(),
                };
                if let Some(why) = line_writes(&line, context, seen) {
                    return Some(Some(why));
                }
            }
            return Some(None);
        }
        "make" | "$(MAKE)" | "${MAKE}" | "gmake" => {
            for target in args
                .iter()
                .filter(|a| !a.starts_with('-') && !a.contains('='))
            {
                if let Some(why) = make_target(target, context, seen) {
                    return Some(Some(format!("{why} (via `make {target}`)")));
                }
            }
            return Some(None);
        }
        _ => {}
    }
    None
}

/// What `tool` writes by its own arguments (without the backquotes).
fn tool_writes(tool: &str, args: &[String], context: &Context) -> Option<String> {
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.as_str()));
    let sub = args.first().map(String::as_str).unwrap_or("");
    match tool {
        "prettier" => has(&["-w"]).then(|| format!("{tool} -w")),
        // A cache file in the project (`.eslintcache`) is a write too.
        "eslint" | "stylelint" if has(&["--cache"]) => Some(format!("{tool} --cache")),
        "biome" | "rome" => None,
        "ruff" => {
            let checking = !matches!(
                sub,
                "format"
                    | "rule"
                    | "config"
                    | "linter"
                    | "clean"
                    | "version"
                    | "help"
                    | "server"
                    | "analyze"
            );
            let configured = (context.ruff_fixes && !has(&["--no-fix", "--diff"]))
                || (context.ruff_fix_only && !has(&["--no-fix-only", "--diff"]));
            match sub {
                "format" if !has(&["--check", "--diff"]) => Some("ruff format".into()),
                _ if checking && configured => Some(
                    "ruff check (the project's ruff configuration sets `fix` or `fix-only`)".into(),
                ),
                _ => None,
            }
        }
        "black" | "blue" => {
            (!has(&["--check", "--diff", "--version"])).then(|| format!("{tool} without --check"))
        }
        "isort" => (!has(&[
            "--check-only",
            "--check",
            "-c",
            "--diff",
            "--df",
            "--version",
        ]))
        .then(|| "isort without --check-only".into()),
        "pyupgrade" | "add-trailing-comma" | "reorder-python-imports" | "pycln" => {
            (!has(&["--check", "--diff"])).then(|| tool.to_string())
        }
        _ if in_place(tool).is_some_and(&has) => {
            let flags = in_place(tool).unwrap_or(&[]);
            let flag = args.iter().find(|a| flags.contains(&a.as_str()));
            Some(format!("{tool} {}", flag.map(String::as_str).unwrap_or("")))
        }
        "cargo" => match sub {
            "fmt" if !has(&["--check"]) => Some("cargo fmt without --check".into()),
            "fix" => Some("cargo fix".into()),
            _ => None,
        },
        "rustfmt" => {
            (!has(&["--check", "--version", "-V"])).then(|| "rustfmt without --check".into())
        }
        "go" => match sub {
            "fmt" | "fix" | "generate" => Some(format!("go {sub}")),
            "mod" if args.get(1).map(String::as_str) == Some("tidy") => Some("go mod tidy".into()),
            _ => None,
        },
        "dprint" if sub == "fmt" => Some("dprint fmt".into()),
        "terraform" | "tofu" if sub == "fmt" && !has(&["-check"]) => Some(format!("{tool} fmt")),
        "mix" if sub == "format" && !has(&["--check-formatted"]) => Some("mix format".into()),
        "dotnet" if sub == "format" && !has(&["--verify-no-changes"]) => {
            Some("dotnet format".into())
        }
        "swiftformat" => (!has(&["--lint"])).then(|| "swiftformat without --lint".into()),
        "jest" | "vitest" => has(&["-u", "--updateSnapshot", "--update", "--update-snapshots"])
            .then(|| format!("{tool} -u (updates snapshots)")),
        _ => None,
    }
}

/// The flags with which `tool` edits files in place.
fn in_place(tool: &str) -> Option<&'static [&'static str]> {
    Some(match tool {
        "autopep8" | "autoflake" | "docformatter" | "yapf" | "clang-format" | "sed" | "perl" => {
            &["-i"]
        }
        "gofmt" | "goimports" | "gofumpt" | "shfmt" => &["-w"],
        "rubocop" | "standardrb" => &["-a", "-A"],
        "ktlint" => &["-F", "--format"],
        _ => return None,
    })
}

/// Tools whose writing flags can simply be dropped (or, for prettier,
/// replaced by `--check`) to check instead.
const REWRITABLE: &[&str] = &[
    "eslint",
    "stylelint",
    "xo",
    "standard",
    "oxlint",
    "tslint",
    "markdownlint",
    "markdownlint-cli2",
    "biome",
    "prettier",
    "jest",
    "vitest",
];

/// The read-only form of a script that is one simple command of a known
/// tool: the tool and its arguments, writing flags dropped. None when the
/// script is anything more (several commands, shell syntax, variables).
pub(super) fn read_only_variant(script: &str) -> Option<Vec<String>> {
    if script.contains(['&', '|', ';', '(', ')', '`', '$', '<', '>', '\\', '\n']) {
        return None;
    }
    let commands = commands(script);
    let [words] = commands.as_slice() else {
        return None;
    };
    let words = skip_wrappers(words);
    let (first, args) = words.split_first()?;
    let tool = program(first);
    if !REWRITABLE.contains(&tool) || first.contains(['/', '\\']) {
        return None;
    }
    let mut out = vec![tool.to_string()];
    let mut skip_next = false;
    let checks_already = args
        .iter()
        .any(|a| ["--check", "-c", "--list-different", "-l"].contains(&a.as_str()));
    let mut checking = false;
    for arg in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let flag = arg.split('=').next().unwrap_or(arg);
        match (tool, flag) {
            (
                _,
                "--fix" | "--fix-dangerously" | "--fix-suggestions" | "--apply" | "--apply-unsafe"
                | "--unsafe",
            ) => {}
            (_, "--fix-type") if !arg.contains('=') => skip_next = true,
            ("eslint" | "stylelint", "--cache") => {}
            ("eslint" | "stylelint", "--cache-location" | "--cache-strategy")
                if !arg.contains('=') =>
            {
                skip_next = true
            }
            ("eslint" | "stylelint", "--cache-location" | "--cache-strategy") => {}
            (_, "--fix-type") => {}
            ("prettier", "--write" | "-w") => {
                if !checks_already && !checking {
                    out.push("--check".into());
                    checking = true;
                }
            }
            (_, "--write") => {}
            ("jest" | "vitest", "-u" | "--updateSnapshot" | "--update" | "--update-snapshots") => {}
            _ => out.push(arg.clone()),
        }
    }
    writes(&out.join(" "), &Context::default())
        .is_none()
        .then_some(out)
}

#[cfg(test)]
mod tests;
