//! `run-check init` on a sample npm project — eslint (its `lint` script
//! fixes), tsc, prettier and vitest, the real tools of
//! `scripts/install-test-tools.sh` — then the gate it wrote: clean, it
//! passes; with one defect of each kind, each check fails and its
//! diagnostic names the file and line.

/// The real tools under `.tools/node` (Unix: their node_modules is linked
/// into the project).
#[cfg(unix)]
mod real_tools {
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use crate::init::{check, init};
    use crate::support::Test;
    use crate::support::status;

    /// `.tools/node/node_modules` with the tools this test runs. Missing: the
    /// test fails (`support::missing`).
    fn node_modules() -> Option<PathBuf> {
        let modules = crate::support::repo_root().join(".tools/node/node_modules");
        let missing: Vec<&str> = ["eslint", "prettier", "tsc", "vitest"]
            .into_iter()
            .filter(|tool| !modules.join(".bin").join(tool).exists())
            .collect();
        if missing.is_empty() {
            return Some(modules);
        }
        crate::support::missing(&format!(
            "{} is not in {}",
            missing.join(", "),
            modules.display()
        ));
        None
    }

    /// The sample project: every file already formatted as prettier would.
    const PROJECT: &[(&str, &str)] = &[
        (
            "package.json",
            r#"{
  "name": "demo",
  "private": true,
  "type": "module",
  "scripts": {
    "lint": "eslint --fix .",
    "typecheck": "tsc --noEmit -p .",
    "test": "vitest run",
    "format": "prettier --write ."
  }
}
"#,
        ),
        (
            "tsconfig.json",
            r#"{
  "compilerOptions": {
    "allowJs": true,
    "checkJs": true,
    "noEmit": true,
    "strict": true,
    "module": "nodenext",
    "target": "es2022",
    "skipLibCheck": true
  },
  "include": ["src"]
}
"#,
        ),
        (
            "eslint.config.mjs",
            "export default [{ rules: { \"no-var\": \"error\", \"prefer-const\": \"error\" } }];\n",
        ),
        (
            "src/price.js",
            "/**\n * @param {number} cents\n * @returns {string}\n */\n\
             export function formatPrice(cents) {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n",
        ),
        (
            "tests/price.test.js",
            "import { expect, test } from \"vitest\";\n\
             import { formatPrice } from \"../src/price.js\";\n\n\
             test(\"formats cents\", () => {\n  expect(formatPrice(1234)).toBe(\"$12.34\");\n});\n",
        ),
        (".gitignore", "node_modules\n"),
    ];

    /// One defect of each kind, each in its own file.
    const DEFECTS: &[(&str, &str)] = &[
        // tsc (checkJs): TS2322 at 2:14.
        (
            "src/total.js",
            "/** @type {number} */\nexport const total = \"12\";\n",
        ),
        // eslint: no-var at 1:1.
        ("src/legacy.js", "var count = 1;\nexport { count };\n"),
        // prettier: not formatted.
        ("src/ugly.js", "export const ugly = {a:1};\n"),
        // vitest: a failing assertion at 5:29.
        (
            "tests/total.test.js",
            "import { expect, test } from \"vitest\";\n\
             import { formatPrice } from \"../src/price.js\";\n\n\
             test(\"rounds half cents\", () => {\n  expect(formatPrice(1005)).toBe(\"$10.06\");\n});\n",
        ),
    ];

    /// `PATH` with `dir` first.
    fn path_with(dir: &Path) -> String {
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs)
            .unwrap()
            .into_string()
            .expect("a UTF-8 PATH")
    }

    /// The strict gate in `dir`, no `CI` in its environment: exit code and
    /// JSON evidence.
    fn gate(dir: &Path, path: &str) -> (Option<i32>, Value, String) {
        let output = std::process::Command::new(crate::support::bin())
            .args(["--mode", "strict", "--format", "json"])
            .current_dir(dir)
            .env("PATH", path)
            .env_remove("CI")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let evidence: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("evidence: {e}\n{stderr}"));
        (output.status.code(), evidence, stderr)
    }

    /// The diagnostics of check `name`: file, line, column, rule.
    fn places(evidence: &Value, name: &str) -> Vec<(Value, Value, Value, Value)> {
        crate::support::diagnostics_of(evidence, name)
            .into_iter()
            .map(|d| {
                (
                    d["file"].clone(),
                    d["line"].clone(),
                    d["column"].clone(),
                    d["rule"].clone(),
                )
            })
            .collect()
    }

    #[test]
    fn init_on_an_npm_project_gates_eslint_tsc_prettier_and_vitest() {
        let Some(modules) = node_modules() else {
            return;
        };
        let test = PROJECT
            .iter()
            .fold(Test::new(), |test, (file, text)| test.file(file, text));
        std::os::unix::fs::symlink(&modules, test.path().join("node_modules")).unwrap();
        let path = path_with(&modules.join(".bin"));
        let (config, text, run) = init(test.env("PATH", &path));
        let dir = run.test.path();

        // What init wrote: the scripts, the writers' read-only forms, each
        // tool's parser, no environment, and why each check is there.
        assert_eq!(
            check(&config, "lint")["run"],
            json!(["npm", "exec", "--no", "--", "eslint", "."])
        );
        assert_eq!(check(&config, "lint")["parser"], "eslint");
        assert_eq!(
            check(&config, "typecheck")["run"],
            json!(["npm", "run", "typecheck"])
        );
        assert_eq!(check(&config, "typecheck")["parser"], "tsc");
        assert_eq!(check(&config, "test")["run"], json!(["npm", "run", "test"]));
        assert_eq!(check(&config, "test")["parser"], "vitest");
        assert_eq!(
            check(&config, "format")["run"],
            json!(["npm", "exec", "--no", "--", "prettier", "--check", "."])
        );
        assert_eq!(check(&config, "format")["parser"], "prettier");
        for name in ["lint", "typecheck", "test", "format"] {
            assert!(check(&config, name).get("env").is_none(), "{name}: {text}");
        }
        let comments = text.replace("\n# ", " ");
        for why in [
            "The project's linter: package.json `lint` (`eslint --fix .`).",
            "Type checking: package.json `typecheck` (`tsc --noEmit -p .`).",
            "The test suite: package.json `test` (`vitest run`); strict mode only. It runs once: a check has no terminal, so vitest does not watch.",
            "Formatting: the read-only form of package.json `format`",
        ] {
            assert!(comments.contains(why), "{why}\n{text}");
        }

        // Clean: every check passes.
        let (code, evidence, stderr) = gate(dir, &path);
        assert_eq!(code, Some(0), "{stderr}\n{evidence:#}");
        for name in ["lint", "typecheck", "test", "format"] {
            assert_eq!(status(&evidence, name), "pass", "{name}: {evidence:#}");
        }

        // One defect of each kind: each check fails, each defect located.
        for (file, text) in DEFECTS {
            std::fs::write(dir.join(file), text).unwrap();
        }
        let (code, evidence, stderr) = gate(dir, &path);
        assert_eq!(code, Some(1), "{stderr}\n{evidence:#}");
        for name in ["lint", "typecheck", "test", "format"] {
            assert_eq!(status(&evidence, name), "fail", "{name}: {evidence:#}");
        }
        assert_eq!(
            places(&evidence, "typecheck"),
            [(json!("src/total.js"), json!(2), json!(14), json!("TS2322"))]
        );
        assert_eq!(
            places(&evidence, "lint"),
            [(json!("src/legacy.js"), json!(1), json!(1), json!("no-var"))]
        );
        assert_eq!(
            places(&evidence, "test"),
            [(
                json!("tests/total.test.js"),
                json!(5),
                json!(29),
                json!("rounds half cents")
            )]
        );
        // prettier --check names the file only.
        assert_eq!(
            places(&evidence, "format"),
            [(
                json!("src/ugly.js"),
                Value::Null,
                Value::Null,
                json!("prettier")
            )]
        );
        let message = evidence["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["check"] == "test")
            .unwrap()["message"]
            .as_str()
            .unwrap();
        assert!(
            message.starts_with(
                "AssertionError: expected '$10.05' to be '$10.06' // Object.is equality"
            ),
            "{message}"
        );
        // Without CI=true vitest prints no colour of its own (only its diff
        // lines are coloured, and run-check strips that).
        assert!(!message.contains('\u{1b}'), "{message:?}");
        let read_only = &evidence["contracts"]["read_only"];
        assert_eq!(read_only["verified"], true, "{read_only}");
        assert_eq!(read_only["modified"], json!([]), "{read_only}");
    }
}

/// A test script that watches never ends: no check, a note.
#[test]
fn a_watching_test_script_is_not_a_check() {
    for script in ["vitest --watch", "jest --watchAll", "vitest -w"] {
        let test = crate::support::Test::bare().file(
            "package.json",
            &format!(r#"{{"scripts": {{"lint": "eslint .", "test": "{script}"}}}}"#),
        );
        let (config, _, run) = crate::init::init(test);
        let names: Vec<&str> = config["check"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["lint", "secrets"], "{script}");
        assert!(
            run.stdout.contains(&format!(
                "note: package.json `test` (`{script}`) watches and never ends; not used as a check"
            )),
            "{}",
            run.stdout
        );
    }
}

/// A test script that runs the build first: no `build` check of its own
/// (the build would run twice per gate), and a note saying why. A build
/// no adopted script runs keeps its check.
#[test]
fn a_build_that_the_test_script_runs_gets_no_check_of_its_own() {
    let names = |config: &serde_json::Value| -> Vec<String> {
        config["check"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    let test = crate::support::Test::bare().file(
        "package.json",
        r#"{"scripts": {"build": "tsc -p .", "test": "npm run build && node test.js"}}"#,
    );
    let (config, _, run) = crate::init::init(test);
    assert_eq!(names(&config), ["test", "secrets"]);
    assert!(
        run.stdout.contains(
            "note: package.json `test` (`npm run build && node test.js`) runs the build itself; \
             no `build` check of its own (the build would run twice per gate)"
        ),
        "{}",
        run.stdout
    );
    let test = crate::support::Test::bare().file(
        "package.json",
        r#"{"scripts": {"build": "tsc -p .", "test": "node test.js"}}"#,
    );
    let (config, _, run) = crate::init::init(test);
    assert_eq!(names(&config), ["build", "test", "secrets"]);
    assert!(
        !run.stdout.contains("runs the build itself"),
        "{}",
        run.stdout
    );
}

/// npm runs `pretest` and `posttest` around `npm run test`; the check runs
/// the script alone, init says what it left out, and the strict gate passes
/// twice on the clean project although `posttest` needs the network and
/// `pretest` writes a file (the real npm, offline).
#[cfg(unix)]
#[test]
fn npm_lifecycle_scripts_are_left_out_of_the_check_and_named() {
    let on_path = |program: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|dir| dir.join(program).is_file())
    };
    if !(on_path("npm") && on_path("node")) {
        crate::support::missing("npm and node are not on PATH");
        return;
    }
    let test = crate::support::Test::bare()
        .file(
            "package.json",
            r#"{
  "name": "demo",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "pretest": "node -e \"require('fs').writeFileSync('pre.txt', 'x')\"",
    "test": "node test.js",
    "posttest": "npx npm@'>=10.2' audit"
  }
}
"#,
        )
        .file("package-lock.json", "{\"name\": \"demo\", \"version\": \"1.0.0\", \"lockfileVersion\": 3, \"requires\": true, \"packages\": {\"\": {\"name\": \"demo\", \"version\": \"1.0.0\"}}}\n")
        .file("test.js", "const assert = require('assert');\nassert.strictEqual(1 + 1, 2);\nconsole.log('ok');\n");
    let (config, text, run) = crate::init::init(test);
    let test_check = crate::init::check(&config, "test");
    assert_eq!(
        test_check["run"],
        serde_json::json!(["npm", "run", "--ignore-scripts", "test"])
    );
    assert!(
        text.contains("`--ignore-scripts`: `npm run test` would also run `pretest` and `posttest`"),
        "{text}"
    );
    assert!(
        run.stdout.contains(
            "note: package.json `pretest` (`node -e \"require('fs').writeFileSync('pre.txt', 'x')\"`) and `posttest` (`npx npm@'>=10.2' audit`) not run by check `test`: it runs `npm run --ignore-scripts test`, the script alone"
        ),
        "{}",
        run.stdout
    );
    let dir = run.test.path().to_path_buf();
    for _ in 0..2 {
        let output = std::process::Command::new(crate::support::bin())
            .args(["--mode", "strict", "--format", "json"])
            .current_dir(&dir)
            // No network: an audit would fail (and npm must not look).
            .env("npm_config_offline", "true")
            .env("npm_config_registry", "http://127.0.0.1:9/")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let evidence: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(output.status.code(), Some(0), "{evidence:#}");
        assert_eq!(crate::support::status(&evidence, "test"), "pass");
        assert_eq!(
            evidence["contracts"]["read_only"]["modified"],
            serde_json::json!([])
        );
        assert!(!dir.join("pre.txt").exists(), "pretest ran");
    }
}
