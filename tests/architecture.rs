//! The map of ARCHITECTURE.md holds: the folders that take documents or text
//! (`report/`, `aggregate/`, `parse/`, `scan/`) never import the check
//! pipeline (`run/`), the pipeline never imports what renders, aggregates or
//! wires it, the base modules import none of the folders above them, no two
//! modules import each other through a circle (between src/'s top-level
//! modules, between the modules of run/, and between the runner's files), and
//! the document crate imports nothing of the binary, and nothing takes
//! `exit_code` through lib.rs. And the code reads in pieces: no function
//! over 100 lines, no inline test module over 150. Reads every production
//! source; unit tests (`#[cfg(test)] mod tests` and the files such a
//! declaration names) are left out, whatever a file is called.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::repo_root;

/// The `.rs` files under `dir`, recursively; `dir` itself when it is a
/// file; none when it does not exist.
fn sources(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return dir
            .is_file()
            .then(|| dir.to_path_buf())
            .into_iter()
            .collect();
    }
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The places in `folder` (under src/) that name `crate::FORBIDDEN…`, for
/// each forbidden module, outside test-only modules.
fn imports_of(folder: &str, forbidden: &[&str]) -> Vec<String> {
    let root = repo_root();
    let mut found = Vec::new();
    for file in sources(&root.join(folder)) {
        for (n, line) in code_lines(&file) {
            for module in forbidden {
                if line.contains(&format!("crate::{module}")) {
                    let rel = file.strip_prefix(&root).unwrap().display();
                    found.push(format!("{rel}:{n}: {line}"));
                }
            }
        }
    }
    found
}

#[test]
fn documents_in_documents_out_never_import_the_pipeline() {
    for folder in ["src/report", "src/aggregate", "src/parse", "src/scan"] {
        let found = imports_of(folder, &["run::", "commands", "tooling"]);
        assert!(
            found.is_empty(),
            "{folder} imports run/:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn the_pipeline_never_imports_reports_aggregators_or_commands() {
    let found = imports_of("src/run", &["report", "aggregate", "tooling", "commands"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_document_crate_imports_nothing_of_the_binary() {
    let root = repo_root();
    for file in sources(&root.join("crates/run-check-documents/src")) {
        let text = fs::read_to_string(&file).unwrap();
        assert!(!text.contains("run_check::"), "{}", file.display());
    }
    let manifest = fs::read_to_string(root.join("crates/run-check-documents/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    let names: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    for name in &names {
        assert!(
            ["serde", "serde_json", "schemars", "serde_path_to_error"].contains(name),
            "the document crate depends on {name}"
        );
    }
    assert!(names.contains(&"serde"), "{names:?}");
}

/// The modules every folder may use (ARCHITECTURE.md's last lines of the
/// map): a file or a folder of src/ each.
const BASE: [&str; 13] = [
    "bounded",
    "console",
    "digest",
    "duration",
    "error",
    "git",
    "jobs",
    "json_input",
    "output",
    "paths",
    "sanitize",
    "signal",
    "time",
];

#[test]
fn the_base_imports_no_folder_above_it() {
    let above = ["run::", "report", "aggregate", "commands", "tooling", "cli"];
    let mut found = Vec::new();
    for module in BASE {
        found.extend(imports_of(&format!("src/{module}.rs"), &above));
        found.extend(imports_of(&format!("src/{module}"), &above));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// One import of a module graph: the importing node, the imported one, and
/// where (`file:line`).
type Edges = BTreeMap<(String, String), String>;

/// The code of `file` outside test-only items, with 1-based line numbers:
/// an item under `#[cfg(test)]` (to its matching brace, or its `;`) and
/// comments are left out.
fn code_lines(file: &Path) -> Vec<(usize, String)> {
    // Test-only by what declares it, never by its name: a production file
    // may be named like a test (scan/rules/skipped_tests.rs).
    if test_only_files().contains(file) {
        return Vec::new();
    }
    let text = fs::read_to_string(file).unwrap();
    let mut code = Vec::new();
    let mut lines = text.lines().map(str::trim).enumerate();
    while let Some((n, line)) = lines.next() {
        if is_test_cfg(line) {
            let (mut depth, mut opened) = (0, false);
            for (_, item) in lines.by_ref() {
                if item.starts_with("#[") && !opened {
                    continue;
                }
                depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
                opened |= item.contains('{');
                if (opened && depth <= 0) || (!opened && item.ends_with(';')) {
                    break;
                }
            }
        } else if !line.starts_with("//") {
            code.push((n + 1, line.to_string()));
        }
    }
    code
}

/// Whether `line` compiles what follows only for tests: `#[cfg(test)]`,
/// or `#[cfg(all(test, ...))]`.
fn is_test_cfg(line: &str) -> bool {
    line == "#[cfg(test)]" || line.starts_with("#[cfg(all(test,")
}

/// The files of modules declared `#[cfg(test)] mod NAME;` (a test-only
/// module in a file of its own, such as the config's property tests).
fn test_only_files() -> &'static BTreeSet<PathBuf> {
    static FILES: std::sync::OnceLock<BTreeSet<PathBuf>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let mut found = BTreeSet::new();
        for file in sources(&repo_root().join("src")) {
            let text = fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            // A module's children live beside mod.rs (and lib.rs), else in
            // the folder named after its file.
            let stem = file.file_stem().unwrap().to_string_lossy();
            let dir = match stem.as_ref() {
                "mod" | "lib" | "main" => file.parent().unwrap().to_path_buf(),
                _ => file.with_extension(""),
            };
            for pair in lines.windows(2) {
                // `mod NAME;`, whatever its visibility (`pub(crate) mod`).
                let declared = pair[1]
                    .split_once("mod ")
                    .filter(|(vis, _)| vis.is_empty() || vis.starts_with("pub"))
                    .and_then(|(_, rest)| rest.strip_suffix(';'));
                if let (true, Some(name)) = (is_test_cfg(pair[0]), declared) {
                    found.insert(dir.join(format!("{name}.rs")));
                    found.insert(dir.join(name).join("mod.rs"));
                }
            }
        }
        found
    })
}

/// The first path segment of each path `text` names after `prefix`
/// (`crate::`, `super::`): `crate::a::b` names `a`, `crate::{a, b::c}`
/// names `a` and `b`, across lines.
fn named_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(ident(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.push(ident(&item));
        } else {
            names.push(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The imports between `nodes`: for each file of `files` (with the node it
/// belongs to), each node it names after one of `prefixes`, resolved by
/// `alias` (a `#[path]` module's name to its files' nodes).
fn edges(
    files: &[(String, PathBuf)],
    prefixes: &[&str],
    alias: &BTreeMap<String, Vec<String>>,
) -> Edges {
    let root = repo_root();
    let nodes: BTreeSet<&String> = files.iter().map(|(node, _)| node).collect();
    let mut edges = Edges::new();
    for (from, file) in files {
        let code = code_lines(file);
        for (i, (line, text)) in code.iter().enumerate() {
            for prefix in prefixes {
                // A group may span lines (`use crate::{` ... `};`): read to
                // its end, credited to the line that opens it.
                let named = if text.ends_with(&format!("{prefix}{{")) {
                    let end = code[i..].iter().position(|(_, l)| l.contains('}'));
                    let end = i + end.unwrap_or(0);
                    let group: Vec<&str> = code[i..=end].iter().map(|(_, l)| l.as_str()).collect();
                    named_after(&group.join(" "), prefix)
                } else {
                    named_after(text, prefix)
                };
                for name in named {
                    let targets = alias.get(&name).cloned().unwrap_or_else(|| vec![name]);
                    for to in targets {
                        if &to != from && nodes.contains(&to) {
                            let rel = file.strip_prefix(&root).unwrap().display();
                            edges
                                .entry((from.clone(), to))
                                .or_insert_with(|| format!("{rel}:{line}"));
                        }
                    }
                }
            }
        }
    }
    edges
}

/// The circles of `edges`, each as the imports that make it (`a -> b
/// (file:line)`): one found, its closing import set aside, then the next.
fn circles(edges: &Edges) -> Vec<String> {
    let mut left = edges.clone();
    let mut found = Vec::new();
    while let Some(circle) = circle(&left) {
        left.remove(circle.last().unwrap());
        let imports: Vec<String> = circle
            .iter()
            .map(|(from, to)| format!("{from} -> {to} ({})", edges[&(from.clone(), to.clone())]))
            .collect();
        found.push(imports.join(", "));
    }
    found
}

/// A circle of `edges`, as its imports in order, or nothing.
fn circle(edges: &Edges) -> Option<Vec<(String, String)>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    // Depth first; a node met again while on the path closes a circle.
    fn visit<'a>(
        node: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(start) = path.iter().position(|n| *n == node) {
            let mut found = path[start..].to_vec();
            found.push(node);
            return Some(found);
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for to in next.get(node).into_iter().flatten() {
            if let Some(found) = visit(to, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for node in next.keys() {
        if let Some(found) = visit(node, &next, &mut Vec::new(), &mut done) {
            let pairs = found.windows(2);
            return Some(
                pairs
                    .map(|w| (w[0].to_string(), w[1].to_string()))
                    .collect(),
            );
        }
    }
    None
}

/// Each source file under `dir` with the module directly under `dir` it
/// belongs to (`a.rs` and `a/...` are `a`), but for the `skip`ped ones.
fn modules_of(dir: &Path, skip: &[&str]) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for file in sources(dir) {
        let rel = file.strip_prefix(dir).unwrap();
        let first = rel.components().next().unwrap().as_os_str();
        let node = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if !skip.contains(&node.as_str()) {
            files.push((node, file));
        }
    }
    files
}

#[test]
fn no_circle_between_the_top_level_modules() {
    let files = modules_of(&repo_root().join("src"), &["lib", "main"]);
    let edges = edges(&files, &["crate::"], &BTreeMap::new());
    assert!(edges.len() > 20, "the imports were not read: {edges:?}");
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn no_circle_between_the_modules_of_run() {
    let run = repo_root().join("src/run");
    let files = modules_of(&run, &["mod"]);
    // `super::` names a sibling in run/'s own files and its folders' mod.rs.
    let children: Vec<(String, PathBuf)> = files
        .iter()
        .filter(|(_, f)| {
            let parent = f.parent();
            parent == Some(run.as_path())
                || (f.ends_with("mod.rs") && parent.and_then(Path::parent) == Some(run.as_path()))
        })
        .cloned()
        .collect();
    let mut imports = edges(&files, &["crate::run::"], &BTreeMap::new());
    imports.extend(edges(&children, &["super::"], &BTreeMap::new()));
    assert!(imports.len() > 10, "the imports were not read: {imports:?}");
    let circles = circles(&imports);
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn no_circle_between_the_runner_s_files() {
    let runner = repo_root().join("src/run/runner");
    let files: Vec<(String, PathBuf)> = sources(&runner)
        .into_iter()
        .filter(|f| f.parent() == Some(runner.as_path()) && !f.ends_with("mod.rs"))
        .map(|f| (f.file_stem().unwrap().to_string_lossy().into_owned(), f))
        .collect();
    // `#[path = "unix.rs"] mod platform;`: `platform` is each such file.
    let mut alias: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let parent = fs::read_to_string(runner.join("mod.rs")).unwrap();
    let lines: Vec<&str> = parent.lines().map(str::trim).collect();
    for pair in lines.windows(2) {
        let path = pair[0]
            .strip_prefix("#[path = \"")
            .and_then(|p| p.strip_suffix(".rs\"]"));
        let name = pair[1]
            .strip_prefix("mod ")
            .and_then(|m| m.strip_suffix(';'));
        if let (Some(path), Some(name)) = (path, name) {
            alias.entry(name.into()).or_default().push(path.into());
        }
    }
    let edges = edges(&files, &["super::", "crate::run::runner::"], &alias);
    assert!(!edges.is_empty(), "the imports were not read");
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// `text` with comments and the insides of string and char literals blanked
/// (newlines kept), so that the braces left are the code's.
fn blanked(text: &str) -> String {
    let b = text.as_bytes();
    let find = |from: usize, what: &[u8]| {
        (b[from.min(b.len())..].windows(what.len()))
            .position(|w| w == what)
            .map_or(b.len(), |at| from + at + what.len())
    };
    let ident = |i: usize| i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let raw = b[i] == b'r' && (!ident(i) || (b[i - 1] == b'b' && !ident(i - 1)));
        let hashes = rest.iter().skip(1).take_while(|c| **c == b'#').count();
        let end = if rest.starts_with(b"//") {
            find(i, b"\n") - 1
        } else if rest.starts_with(b"/*") {
            find(i + 2, b"*/")
        } else if raw && rest.get(1 + hashes) == Some(&b'"') {
            let close = [&b"\""[..], &b"#".repeat(hashes)].concat();
            find(i + 2 + hashes, &close)
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if b[i] == b'\'' && (rest.get(1) == Some(&b'\\') || rest.get(2) == Some(&b'\'')) {
            find(i + 2, b"'")
        } else {
            i + 1
        };
        let end = end.clamp(i + 1, b.len());
        if end == i + 1 {
            out.push(b[i]);
        } else {
            out.extend(
                b[i..end]
                    .iter()
                    .map(|c| if *c == b'\n' { b'\n' } else { b' ' }),
            );
        }
        i = end;
    }
    String::from_utf8(out).expect("blanking keeps UTF-8")
}

/// The line (0-based) where the item starting at `start` ends: its matching
/// brace, or its `;` when it opens none.
fn item_end(lines: &[&str], start: usize) -> usize {
    // A `;` inside brackets (`[u8; 4]` in a signature) ends nothing.
    let (mut depth, mut nested) = (0i64, 0i64);
    for (n, line) in lines.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                '(' | '[' => nested += 1,
                ')' | ']' => nested -= 1,
                ';' if depth == 0 && nested == 0 => return n,
                _ => continue,
            }
            if depth == 0 && c == '}' {
                return n;
            }
        }
    }
    lines.len() - 1
}

/// A line that starts a function: `fn`, after any of `pub(...)`, `const`,
/// `async`, `unsafe`, `extern "C"`.
fn starts_fn(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words
        .find(|w| {
            !(w.starts_with("pub")
                || ["const", "async", "unsafe", "extern", "\"", "\"\""].contains(w))
        })
        .is_some_and(|w| w == "fn")
}

/// The functions of `file` over `max` lines and its inline test modules
/// over 150, one line each; and how many functions it read.
fn long_items(file: &Path, max: usize) -> (Vec<String>, usize) {
    let root = repo_root();
    let (mut long, mut functions) = (Vec::new(), 0);
    let text = blanked(&fs::read_to_string(file).unwrap());
    let lines: Vec<&str> = text.lines().collect();
    let code = code_lines(file);
    let rel = file.strip_prefix(&root).unwrap().display();
    let mut n = 0;
    while n < lines.len() {
        let line = lines[n].trim();
        let test_module = line == "#[cfg(test)]"
            && lines
                .get(n + 1)
                .is_some_and(|l| l.trim_end().ends_with('{') && starts_mod(l));
        if test_module {
            let end = item_end(&lines, n + 1);
            if end - n > 150 {
                long.push(format!(
                    "{rel}:{}: an inline test module of {} lines",
                    n + 1,
                    end - n
                ));
            }
            n = end + 1;
        } else if starts_fn(line) && code.iter().any(|(c, _)| *c == n + 1) {
            let end = item_end(&lines, n);
            functions += 1;
            if end + 1 - n > max {
                long.push(format!(
                    "{rel}:{}: a function of {} lines",
                    n + 1,
                    end + 1 - n
                ));
            }
            n = end + 1;
        } else {
            n += 1;
        }
    }
    (long, functions)
}

#[test]
fn no_function_over_100_lines_and_no_inline_test_module_over_150() {
    let (mut long, mut functions) = (Vec::new(), 0);
    for file in sources(&repo_root().join("src")) {
        let (found, read) = long_items(&file, 100);
        long.extend(found);
        functions += read;
    }
    assert!(
        functions > 1000,
        "only {functions} functions read: is the reader blind?"
    );
    assert!(
        long.is_empty(),
        "split these along their ideas:\n{}",
        long.join("\n")
    );
}

/// `commands/agent*` and `commands/mcp*`: the files of the thin commands
/// over the agent layer.
fn agent_commands() -> Vec<PathBuf> {
    let commands = repo_root().join("src/commands");
    let mut files = Vec::new();
    for entry in fs::read_dir(&commands).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("agent") || name.starts_with("mcp") {
            files.extend(sources(&path));
        }
    }
    files
}

#[test]
fn the_agent_commands_are_thin() {
    let files = agent_commands();
    assert!(
        files.len() >= 3,
        "the agent commands were not found: {files:?}"
    );
    let (mut long, mut functions) = (Vec::new(), 0);
    for file in &files {
        let (found, read) = long_items(file, 40);
        long.extend(found);
        functions += read;
    }
    assert!(functions > 10, "only {functions} functions read");
    assert!(
        long.is_empty(),
        "commands/agent* and commands/mcp* parse, call agent/ and print; \
         move the logic to agent/:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_agent_layer_imports_neither_commands_nor_cli() {
    let agent = repo_root().join("src/agent");
    assert!(sources(&agent).len() > 3, "src/agent was not read");
    let mut found = imports_of("src/agent", &["commands", "cli"]);
    // Nor by climbing out of agent/ with `super::`.
    for file in sources(&agent) {
        for (n, line) in code_lines(&file) {
            let below = file.strip_prefix(&agent).unwrap().components().count();
            let depth = below + usize::from(!file.ends_with("mod.rs"));
            if line.contains(&"super::".repeat(depth)) {
                found.push(format!("{}:{n}: {line}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The judge round every caller goes through, and its callers.
const ROUND: &str = "src/aggregate/judge/round.rs";
const ROUND_CALLERS: [&str; 4] = [
    "src/agent/mcp/mod.rs",
    "src/agent/session/mod.rs",
    "src/commands/candidates/after.rs",
    "src/commands/documents.rs",
];

#[test]
fn the_judge_round_has_four_callers_and_no_one_goes_around_it() {
    let root = repo_root();
    assert!(
        fs::read_to_string(root.join(ROUND))
            .unwrap()
            .contains("pub(crate) fn round("),
        "{ROUND} has no `round` function"
    );
    let (mut callers, mut around) = (BTreeSet::new(), Vec::new());
    for file in sources(&root.join("src")) {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for (n, line) in code_lines(&file) {
            if line.contains("round::round(") {
                callers.insert(rel.clone());
            }
            let judge = rel.starts_with("src/aggregate/judge/");
            if !judge && line.contains("evaluate(&") {
                around.push(format!("{rel}:{n}: {line}"));
            }
        }
    }
    let expected: BTreeSet<String> = ROUND_CALLERS.iter().map(|s| s.to_string()).collect();
    assert_eq!(callers, expected, "the callers of {ROUND}'s `round`");
    assert!(
        around.is_empty(),
        "judged without the round:\n{}",
        around.join("\n")
    );
}

/// The protocol table: the one place that names an agent.
const PROTOCOL_TABLE: &str = "src/agent/protocol/table.rs";

#[test]
fn no_agent_is_named_outside_the_protocol_table() {
    let root = repo_root();
    let table = fs::read_to_string(root.join(PROTOCOL_TABLE)).unwrap();
    let names: Vec<String> = table
        .lines()
        .filter_map(|l| l.trim().strip_prefix("name: \""))
        .filter_map(|l| l.split('"').next())
        .map(str::to_string)
        .collect();
    assert!(
        names.len() >= 4,
        "the table's rows were not read: {names:?}"
    );
    let mut found = Vec::new();
    for file in sources(&root.join("src")) {
        if file == root.join(PROTOCOL_TABLE) {
            continue;
        }
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in code_lines(&file) {
            for name in &names {
                let mut variant = name.clone();
                variant[..1].make_ascii_uppercase();
                if line.contains(&format!("\"{name}\""))
                    || line.contains(&format!("Agent::{variant}"))
                {
                    found.push(format!("{rel}:{n}: {line}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "an agent's protocol is a row of {PROTOCOL_TABLE}, not a match elsewhere:\n{}",
        found.join("\n")
    );
}

/// `mod NAME {`, after any `pub(...)`.
fn starts_mod(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words
        .find(|w| !w.starts_with("pub"))
        .is_some_and(|w| w == "mod")
}

/// Test-only files are known by their declaration, not their name: every
/// `tests.rs` is declared `#[cfg(test)]`, and a production file named like
/// a test (`scan/rules/skipped_tests.rs`) is read.
#[test]
fn every_production_file_is_read() {
    let root = repo_root();
    let mut unread = Vec::new();
    for file in sources(&root.join("src")) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let test_only = test_only_files().contains(&file);
        if name == "tests.rs" && !test_only {
            unread.push(format!("{} is not declared #[cfg(test)]", file.display()));
        }
        if !test_only && code_lines(&file).is_empty() {
            unread.push(format!("{} reads as no code", file.display()));
        }
    }
    let skipped = root.join("src/scan/rules/skipped_tests.rs");
    assert!(
        !code_lines(&skipped).is_empty(),
        "{} was skipped",
        skipped.display()
    );
    assert!(unread.is_empty(), "{}", unread.join("\n"));
}

/// `exit_code` is the documents crate's: no module takes it through a
/// re-export of lib.rs (`crate::exit_code`), which would tie every layer
/// to the crate's root.
#[test]
fn nothing_takes_exit_code_through_lib_rs() {
    let root = repo_root();
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(
        !lib.lines()
            .any(|l| l.trim().starts_with("pub use") && l.contains("exit_code")),
        "lib.rs re-exports exit_code"
    );
    let mut found = Vec::new();
    for file in sources(&root.join("src")) {
        let text = fs::read_to_string(&file).unwrap();
        let names = named_after(&text, "crate::");
        if names.iter().any(|n| n == "exit_code") {
            found.push(file.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(
        found.is_empty(),
        "crate::exit_code in: {}",
        found.join(", ")
    );
}

/// The module path of `file` under src/ (`src/config/span.rs` is
/// `config::span`, `src/config/mod.rs` `config`, `src/lib.rs` the root).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
        path.pop();
    }
    path
}

/// Every module path `text` (the code of the module at `at`) names
/// through `crate::`, `super::` or `self::`, made absolute, groups
/// (`crate::{a, b::{c, d}}`) expanded.
fn paths_named(text: &str, at: &[String]) -> Vec<Vec<String>> {
    /// The paths of a path tail starting at `rest` (after `prefix::`).
    fn tail(rest: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        tail(&group[start..i], prefix.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        tail(&group[start..i], prefix.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut path = prefix;
        if ident.is_empty() || ident == "self" {
            out.push(path);
            return;
        }
        path.push(ident.clone());
        match rest[ident.len()..].trim_start().strip_prefix("::") {
            Some(more) => tail(more, path, out),
            None => out.push(path),
        }
    }
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in text.match_indices(start) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            // The module a relative path starts from: the file's own module
            // is `self` (a mod.rs is its folder's), its parent `super` (each
            // further `super::` one up).
            let mut base: Vec<String> = match start {
                "crate::" => Vec::new(),
                "self::" => at.to_vec(),
                _ => at[..at.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &text[i + start.len()..];
            while let Some(more) = rest.strip_prefix("super::") {
                base.pop();
                rest = more;
            }
            tail(rest, base, &mut out);
        }
    }
    out
}

/// No circle between the modules of any folder of src/: at every level,
/// the siblings (each with what lies below it) import each other one way
/// only, through `crate::`, `super::` or `self::` paths alike.
#[test]
fn no_circle_anywhere_in_src() {
    let src = repo_root().join("src");
    let files: Vec<(Vec<String>, PathBuf)> = sources(&src)
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")) && *f != src.join("main.rs"))
        .map(|f| (module_path(&src, &f), f))
        .collect();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges_by_folder: BTreeMap<Vec<String>, Edges> = BTreeMap::new();
    let root = repo_root();
    for (at, file) in &files {
        let code: Vec<String> = code_lines(file).into_iter().map(|(_, l)| l).collect();
        let text = code.join("\n");
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        for named in paths_named(&text, at) {
            // The longest prefixes shared with `at`: the folder where the
            // two paths part; its children are the two siblings.
            let common = at.iter().zip(&named).take_while(|(a, b)| a == b).count();
            let (Some(from), Some(to)) = (at.get(common), named.get(common)) else {
                continue;
            };
            let mut target = at[..common].to_vec();
            target.push(to.clone());
            if !modules.contains(&target) {
                continue;
            }
            edges_by_folder
                .entry(at[..common].to_vec())
                .or_default()
                .entry((from.clone(), to.clone()))
                .or_insert_with(|| rel.clone());
        }
    }
    assert!(
        edges_by_folder.len() > 10 && edges_by_folder.contains_key(&vec!["config".to_string()]),
        "the imports were not read: {:?}",
        edges_by_folder.keys()
    );
    let mut found = Vec::new();
    for (folder, edges) in &edges_by_folder {
        for circle in circles(edges) {
            found.push(format!("in {}: {circle}", folder.join("::")));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}
