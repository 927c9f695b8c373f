//! CI and hook integrations (docs/ci.md): action.yml and the example
//! workflows against SchemaStore's published schemas (the fixtures under
//! tests/fixtures/schemastore/), the action's `run:` steps run by bash as
//! the runner runs them, and .pre-commit-hooks.yaml through the real
//! `prek try-repo`.

// The steps, hooks and templates run under bash: Unix only; elsewhere the
// schema tests alone run.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{FAILING, bin, git, repo_root};

/// A YAML file of the repository, as JSON.
#[track_caller]
fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A SchemaStore schema of tests/fixtures/schemastore/, compiled.
fn schemastore(name: &str) -> jsonschema::Validator {
    let path = repo_root().join("tests/fixtures/schemastore").join(name);
    let text = std::fs::read_to_string(&path).expect("schema fixture");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The schema's errors for `document`, one a line.
fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn action_yml_is_valid_against_schemastores_schema() {
    let validator = schemastore("github-actions.json");
    let action = yaml(&repo_root().join("action.yml"));
    assert_eq!(errors(&validator, &action), Vec::<String>::new());
    // The schema does reject a broken action: the check is not vacuous.
    let mut broken = action.clone();
    broken["runs"]["using"] = "docker-compose".into();
    assert!(!errors(&validator, &broken).is_empty(), "runs.using");
    let mut broken = action.clone();
    broken["inputs"]["mode"]["required"] = "yes".into();
    assert_eq!(
        errors(&validator, &broken),
        [r#"/inputs/mode/required: "yes" is not of type "boolean""#]
    );
    assert_eq!(action["runs"]["using"], "composite");
    // The version it installs is this one: a release bumps both.
    assert_eq!(
        action["inputs"]["version"]["default"],
        env!("CARGO_PKG_VERSION")
    );
}

#[test]
fn example_workflows_are_valid_and_shown_in_the_docs() {
    let docs = std::fs::read_to_string(repo_root().join("docs/ci.md")).expect("docs/ci.md");
    let github = schemastore("github-workflows.json");
    let gitlab = schemastore("gitlab-ci.json");
    let templates = [
        ("github/run-check.yml", &github),
        ("github/run-check-sharded.yml", &github),
        ("gitlab/run-check.gitlab-ci.yml", &gitlab),
    ];
    for (name, validator) in templates {
        let path = repo_root().join("ci-templates").join(name);
        let workflow = yaml(&path);
        assert_eq!(errors(validator, &workflow), Vec::<String>::new(), "{name}");
        let text = std::fs::read_to_string(&path).expect("template");
        assert!(
            docs.contains(&format!("```yaml\n{text}```\n")),
            "docs/ci.md does not show ci-templates/{name} as it is"
        );
    }
    let broken: Value = serde_json::json!({"on": "push", "jobs": {"a": {"runs-on": 3}}});
    assert!(!errors(&github, &broken).is_empty());
    let broken: Value = serde_json::json!({"job": {"parallel": "three", "script": ["x"]}});
    assert!(!errors(&gitlab, &broken).is_empty());

    // The templates and the docs' hooks name this version.
    let version = env!("CARGO_PKG_VERSION");
    for name in ["github/run-check.yml", "github/run-check-sharded.yml"] {
        let text = std::fs::read_to_string(repo_root().join("ci-templates").join(name)).unwrap();
        let uses: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- uses: OWNER/run-check@"))
            .collect();
        assert!(!uses.is_empty(), "{name}");
        assert!(
            uses.iter().all(|v| *v == format!("v{version}")),
            "{name}: {uses:?}"
        );
    }
    let gitlab = yaml(&repo_root().join("ci-templates/gitlab/run-check.gitlab-ci.yml"));
    assert_eq!(gitlab["variables"]["RUN_CHECK_VERSION"], version);
    assert!(docs.contains(&format!("additional_dependencies: [run-check=={version}]")));
    assert!(docs.contains(&format!("rev: v{version}\n")));

    // The sharded workflow's artifacts are the ones the action names.
    let sharded = yaml(&repo_root().join("ci-templates/github/run-check-sharded.yml"));
    let download = &sharded["jobs"]["merge"]["steps"][1];
    assert_eq!(download["uses"], "actions/download-artifact@v4");
    assert_eq!(download["with"]["pattern"], "run-check-evidence-shard-*");
    assert_eq!(
        sharded["jobs"]["merge"]["steps"][2]["with"]["merge-from"],
        "shards"
    );
}

/// A composite step of action.yml: its condition, environment and script.
#[derive(Debug)]
struct Step {
    name: String,
    condition: Option<String>,
    env: BTreeMap<String, String>,
    run: Option<String>,
    uses: Option<String>,
    with: BTreeMap<String, String>,
}

fn strings(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(k, v)| (k.clone(), v.as_str().expect("a string").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn action_steps() -> (Value, Vec<Step>) {
    let action = yaml(&repo_root().join("action.yml"));
    let steps = action["runs"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|step| {
            if step.get("run").is_some() {
                assert_eq!(step["shell"], "bash", "{step:#}");
            }
            Step {
                name: step["name"].as_str().expect("name").to_string(),
                condition: step["if"].as_str().map(str::to_string),
                env: strings(&step["env"]),
                run: step["run"].as_str().map(str::to_string),
                uses: step["uses"].as_str().map(str::to_string),
                with: strings(&step["with"]),
            }
        })
        .collect();
    (action, steps)
}

/// One simulated invocation of the action: a runner temp directory, the
/// files GitHub hands each step, the inputs given.
struct Runner {
    temp: tempfile::TempDir,
    action: Value,
    inputs: BTreeMap<String, String>,
    /// The gate step's outputs once it ran.
    outputs: BTreeMap<String, String>,
    path: std::ffi::OsString,
}

/// What a step printed and exited with.
struct StepRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Runner {
    fn new(action: &Value, inputs: &[(&str, &str)]) -> Runner {
        let temp = tempfile::tempdir().expect("tempdir");
        // run-check from this build on PATH, as the install step would put
        // it (that step itself needs the PyPI package: docs/ci.md).
        let dir = bin().parent().expect("bin dir").to_path_buf();
        let mut dirs = vec![dir];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        Runner {
            temp,
            action: action.clone(),
            inputs: inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            outputs: BTreeMap::new(),
            path: std::env::join_paths(dirs).expect("PATH"),
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.temp.path().join(name)
    }

    /// An input as the step sees it: given, else action.yml's default.
    fn input(&self, name: &str) -> String {
        if let Some(value) = self.inputs.get(name) {
            return value.clone();
        }
        let declared = &self.action["inputs"][name];
        assert!(declared.is_object(), "no input `{name}` in action.yml");
        declared["default"].as_str().unwrap_or_default().to_string()
    }

    /// Evaluates the `${{ … }}` expressions the action uses in `env:` and
    /// `with:`: `inputs.NAME` and `steps.gate.outputs.NAME`. Any other
    /// expression fails the test, so this stays what the action needs.
    fn evaluate(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("closed expression") + start;
            let expression = rest[start + 3..end].trim();
            if let Some(name) = expression.strip_prefix("inputs.") {
                out.push_str(&self.input(name));
            } else if let Some(name) = expression.strip_prefix("steps.gate.outputs.") {
                out.push_str(self.outputs.get(name).map_or("", String::as_str));
            } else {
                panic!("expression the test cannot evaluate: {expression}");
            }
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// Runs a `run:` step as a runner does: its script in a file, run by
    /// `bash --noprofile --norc -eo pipefail`, in the workspace, with the
    /// step's env; GITHUB_OUTPUT is a fresh file per step, read back.
    fn run(&mut self, step: &Step, workspace: &Path) -> StepRun {
        let script = self.file("step.sh");
        std::fs::write(&script, step.run.as_deref().expect("a run step")).expect("script");
        let output_file = self.file("output");
        std::fs::write(&output_file, "").expect("GITHUB_OUTPUT");
        let mut command = Command::new(bash());
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(workspace)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.temp.path())
            .env("RUNNER_TEMP", self.temp.path())
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_STEP_SUMMARY", self.file("summary.md"))
            .env("GITHUB_PATH", self.file("path"))
            .env("CI", "true")
            .stdin(Stdio::null());
        for (name, value) in &step.env {
            command.env(name, self.evaluate(value));
        }
        let out = command.output().expect("bash");
        let written = std::fs::read_to_string(&output_file).expect("GITHUB_OUTPUT");
        if step.name == "Run the gate" {
            for line in written.lines() {
                let (name, value) = line.split_once('=').expect("NAME=VALUE");
                self.outputs.insert(name.to_string(), value.to_string());
            }
        } else {
            assert_eq!(written, "", "{}: outputs", step.name);
        }
        StepRun {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn outputs(&self) -> Vec<(&str, &str)> {
        self.outputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.file("summary.md")).unwrap_or_default()
    }
}

/// bash, found on the test's PATH (a step may be given another PATH, which
/// `Command` would search).
fn bash() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("bash"))
        .find(|path| path.is_file())
        .expect("bash on PATH")
}

/// A git repository holding `config` as checks.toml, committed.
fn workspace(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("checks.toml"), config).expect("checks.toml");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

fn step<'a>(steps: &'a [Step], name: &str) -> &'a Step {
    steps
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

#[cfg(unix)]
#[test]
fn the_action_steps_run_in_order_and_report_a_failing_gate() {
    let (action, steps) = action_steps();
    let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Install run-check",
            "Run the gate",
            "Upload SARIF to code scanning",
            "Upload the evidence",
            "Verdict"
        ]
    );
    // Installing needs the PyPI package: not run here; `version: path`
    // skips it and uses the run-check on PATH, as this test does.
    assert_eq!(
        steps[0].condition.as_deref(),
        Some("inputs.version != 'path'")
    );
    assert_eq!(
        steps[2].uses.as_deref(),
        Some("github/codeql-action/upload-sarif@v4")
    );
    assert_eq!(steps[3].uses.as_deref(), Some("actions/upload-artifact@v4"));

    let repo = workspace(FAILING);
    let mut runner = Runner::new(&action, &[("version", "path")]);
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(0), "stderr: {}", gate.stderr);
    let dir = runner.temp.path().join("run-check");
    let path = |name: &str| dir.join(name).display().to_string();
    assert_eq!(
        runner.outputs(),
        [
            ("artifact-name", "run-check-evidence"),
            ("dir", dir.display().to_string().as_str()),
            ("evidence", path("run-check.json").as_str()),
            ("exit-code", "1"),
            ("passed", "false"),
            ("sarif", path("run-check.sarif").as_str()),
            ("sarif-category", "run-check"),
        ]
    );
    // Annotations: the `github` report on stdout.
    let annotations: Vec<&str> = gate
        .stdout
        .lines()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert_eq!(annotations, ["::error title=bad::bad failed (exit 1)"]);
    assert!(
        gate.stdout.ends_with("1 of 2 checks failed: bad\n"),
        "{}",
        gate.stdout
    );
    // The job summary: the markdown report.
    assert!(
        runner
            .summary()
            .starts_with("### ❌ 1 of 2 checks failed: bad\n"),
        "{}",
        runner.summary()
    );
    // The files the upload steps are given.
    let evidence: Value =
        serde_json::from_str(&std::fs::read_to_string(path("run-check.json")).unwrap()).unwrap();
    assert_eq!(evidence["summary"]["exit_code"], 1);
    assert_eq!(evidence["mode"], "strict");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(path("run-check.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let text = std::fs::read_to_string(path("run-check.txt")).unwrap();
    assert!(text.ends_with("1 of 2 checks failed: bad\n"), "{text}");
    let upload_sarif = step(&steps, "Upload SARIF to code scanning");
    assert_eq!(
        runner.evaluate(&upload_sarif.with["sarif_file"]),
        path("run-check.sarif")
    );
    assert_eq!(runner.evaluate(&upload_sarif.with["category"]), "run-check");
    let upload = step(&steps, "Upload the evidence");
    assert_eq!(runner.evaluate(&upload.with["name"]), "run-check-evidence");
    assert_eq!(
        runner.evaluate(&upload.with["path"]),
        dir.display().to_string()
    );
    // Nothing was written into the worktree.
    assert_eq!(
        git(repo.path(), &["status", "--porcelain", "--ignored"]),
        ""
    );

    let verdict = runner.run(step(&steps, "Verdict"), repo.path());
    assert_eq!(verdict.code, Some(1));
    assert_eq!(
        verdict.stdout,
        "::error title=run-check::the gate did not pass (exit 1)\n"
    );
}

#[cfg(unix)]
#[test]
fn the_action_passes_inputs_as_arguments() {
    let (action, steps) = action_steps();
    let repo = workspace(FAILING);
    // `only` and `skip` are lists, one name a line.
    let mut runner = Runner::new(
        &action,
        &[
            ("version", "path"),
            ("only", "ok\nbad\n"),
            ("skip", "bad"),
            ("jobs", "1"),
            ("changed-since", "HEAD"),
        ],
    );
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(0), "stderr: {}", gate.stderr);
    assert_eq!(
        runner.outputs.get("exit-code").map(String::as_str),
        Some("0")
    );
    assert_eq!(
        runner.outputs.get("passed").map(String::as_str),
        Some("true")
    );
    let evidence: Value =
        serde_json::from_str(&std::fs::read_to_string(&runner.outputs["evidence"]).unwrap())
            .unwrap();
    assert_eq!(evidence["mode"], "strict");
    let argv: Vec<&str> = evidence["meta"]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        argv[1..],
        [
            "--mode",
            "strict",
            "--format",
            "json",
            "--out",
            runner.outputs["evidence"].as_str(),
            "--changed-since",
            "HEAD",
            "--jobs",
            "1",
            "--only",
            "ok",
            "--only",
            "bad",
            "--skip",
            "bad"
        ]
    );
    let verdict = runner.run(step(&steps, "Verdict"), repo.path());
    assert_eq!((verdict.code, verdict.stdout.as_str()), (Some(0), ""));

    // `baseline` and `timings` are passed as the options of the same name.
    let earlier = repo.path().join("earlier.json");
    std::fs::copy(&runner.outputs["evidence"], &earlier).unwrap();
    let earlier = earlier.to_str().unwrap();
    let mut runner = Runner::new(
        &action,
        &[
            ("version", "path"),
            ("shard", "1/1"),
            ("timings", earlier),
            ("baseline", earlier),
            ("only", "ok"),
        ],
    );
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(0), "stderr: {}", gate.stderr);
    let evidence: Value =
        serde_json::from_str(&std::fs::read_to_string(&runner.outputs["evidence"]).unwrap())
            .unwrap();
    assert_eq!(evidence["summary"]["baseline"], earlier);
    assert_eq!(evidence["meta"]["shard"]["timings"], earlier);

    // run-check missing from PATH: an error annotation, no outputs.
    let mut runner = Runner::new(&action, &[("version", "path")]);
    runner.path = "/nonexistent".into();
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(2));
    assert_eq!(
        gate.stdout,
        "::error title=run-check::run-check is not on PATH (input version: path installs nothing)\n"
    );
    let verdict = runner.run(step(&steps, "Verdict"), repo.path());
    assert_eq!(verdict.code, Some(1));
    assert_eq!(
        verdict.stdout,
        "::error title=run-check::the gate did not pass (exit unknown)\n"
    );
}

#[cfg(unix)]
#[test]
fn the_action_runs_shards_and_merges_them() {
    let (action, steps) = action_steps();
    let repo = workspace(FAILING);
    let shards = tempfile::tempdir().expect("tempdir");
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let mut runner = Runner::new(&action, &[("version", "path"), ("shard", &shard)]);
        let gate = runner.run(step(&steps, "Run the gate"), repo.path());
        assert_eq!(gate.code, Some(0), "stderr: {}", gate.stderr);
        let suffix = format!("-shard-{k}-of-2");
        assert_eq!(
            runner.outputs["artifact-name"],
            format!("run-check-evidence{suffix}")
        );
        assert_eq!(
            runner.outputs["sarif-category"],
            format!("run-check{suffix}")
        );
        let dir = runner.temp.path().join("run-check");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let base = format!("run-check{suffix}");
        assert_eq!(
            files,
            [
                format!("{base}.json"),
                format!("{base}.sarif"),
                format!("{base}.txt")
            ]
        );
        // As download-artifact with merge-multiple puts them in one folder.
        for file in files {
            std::fs::copy(dir.join(&file), shards.path().join(&file)).unwrap();
        }
    }
    let shards_dir = shards.path().display().to_string();
    let mut runner = Runner::new(&action, &[("version", "path"), ("merge-from", &shards_dir)]);
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(0), "stderr: {}", gate.stderr);
    assert_eq!(runner.outputs["exit-code"], "1");
    assert_eq!(runner.outputs["artifact-name"], "run-check-evidence");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(&runner.outputs["evidence"]).unwrap())
            .unwrap();
    let names: Vec<&str> = merged["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ok", "bad"]);
    assert_eq!(merged["meta"]["merged_from"].as_array().unwrap().len(), 2);
    let annotations: Vec<&str> = gate
        .stdout
        .lines()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert_eq!(annotations, ["::error title=bad::bad failed (exit 1)"]);

    // An empty folder: one error annotation.
    let empty = tempfile::tempdir().expect("tempdir");
    let empty_dir = empty.path().display().to_string();
    let mut runner = Runner::new(&action, &[("version", "path"), ("merge-from", &empty_dir)]);
    let gate = runner.run(step(&steps, "Run the gate"), repo.path());
    assert_eq!(gate.code, Some(2));
    assert_eq!(
        gate.stdout,
        format!("::error title=run-check::no evidence (*.json) in merge-from: {empty_dir}\n")
    );
}

/// Writes the wheel the PyPI package is (maturin's `bindings = "bin"`: the
/// program as the wheel's one script), holding a stand-in script, into
/// `dir`, with `python`'s zipfile.
#[cfg(unix)]
fn stand_in_wheel(python: &Path, dir: &Path) {
    let program = r##"
import base64, hashlib, sys, zipfile
version = sys.argv[2]
stem = "run_check-" + version
files = {
    stem + ".data/scripts/run-check": ("#!/bin/sh\necho 'run-check " + version + " (stand-in)'\n").encode(),
    stem + ".dist-info/METADATA": ("Metadata-Version: 2.1\nName: run-check\nVersion: " + version + "\n").encode(),
    stem + ".dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(sys.argv[1] + "/" + stem + "-py3-none-any.whl", "w") as wheel:
    for name, data in files.items():
        info = zipfile.ZipInfo(name)
        info.external_attr = 0o100755 << 16
        wheel.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(name + ",sha256=" + digest + "," + str(len(data)))
    record.append(stem + ".dist-info/RECORD,,")
    wheel.writestr(stem + ".dist-info/RECORD", "\n".join(record) + "\n")
"##;
    let status = Command::new(python)
        .arg("-c")
        .arg(program)
        .arg(dir)
        .arg(env!("CARGO_PKG_VERSION"))
        .status()
        .expect("python");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn the_install_step_puts_only_run_check_on_path() {
    // The venv of scripts/install-test-tools.sh: a python with pip.
    let Some(prek) = prek() else { return };
    let venv_bin = prek.parent().expect("venv bin").to_path_buf();
    let (action, steps) = action_steps();
    let install = step(&steps, "Install run-check");
    let index = tempfile::tempdir().expect("tempdir");
    stand_in_wheel(&venv_bin.join("python3"), index.path());

    // pip finds `run-check==VERSION` in a folder instead of PyPI.
    let mut install = Step {
        name: install.name.clone(),
        condition: None,
        env: install.env.clone(),
        run: install.run.clone(),
        uses: None,
        with: BTreeMap::new(),
    };
    install.env.insert("PIP_NO_INDEX".into(), "1".into());
    install
        .env
        .insert("PIP_FIND_LINKS".into(), index.path().display().to_string());
    install
        .env
        .insert("PIP_ROOT_USER_ACTION".into(), "ignore".into());
    let mut runner = Runner::new(&action, &[]);
    runner.path =
        std::env::join_paths([venv_bin.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
            .expect("PATH");
    let repo = workspace(FAILING);
    let run = runner.run(&install, repo.path());
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let target = runner.temp.path().join("run-check-install");
    let bin_dir = target.join("bin");
    assert_eq!(
        std::fs::read_to_string(runner.file("path")).unwrap(),
        format!("{}\n", bin_dir.display())
    );
    let mut on_path: Vec<String> = std::fs::read_dir(&bin_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_path.sort();
    assert_eq!(on_path, ["run-check"], "only run-check joins PATH");
    let out = Command::new(bin_dir.join("run-check"))
        .output()
        .expect("installed run-check");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("run-check {} (stand-in)\n", env!("CARGO_PKG_VERSION"))
    );
}

/// prek from scripts/install-test-tools.sh (`.tools/python/bin/prek`).
/// Missing: the test fails (`support::missing`).
fn prek() -> Option<PathBuf> {
    crate::support::test_tool("python/bin/prek")
}

/// The ```yaml blocks of a markdown text, unindented (a block inside a
/// list item is indented as its item).
fn yaml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(indent) = line.strip_suffix("```yaml").filter(|i| i.trim().is_empty()) else {
            continue;
        };
        let mut block = String::new();
        for line in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            block.push_str(line.strip_prefix(indent).unwrap_or(line));
            block.push('\n');
        }
        blocks.push(block);
    }
    blocks
}

/// A sample project: one fast and strict check that fails while a `.txt`
/// file holds `FIXME`, and a strict-only check.
const SAMPLE: &str = r#"version = 1

[settings]
allow = ["sh", "true"]

[[check]]
name = "no-fixme"
run = ["sh", "check.sh"]
modes = ["fast", "strict"]
paths = ["*.txt"]

[[check]]
name = "strict-only"
run = ["true"]
"#;

#[cfg(unix)]
#[test]
fn pre_commit_hooks_run_through_prek_try_repo() {
    let Some(prek) = prek() else { return };
    // The hook repository: this repository's manifest, committed alone.
    let hooks = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        repo_root().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .expect("copy manifest");
    git(hooks.path(), &["init", "-q", "-b", "main"]);
    git(hooks.path(), &["add", "-A"]);
    git(hooks.path(), &["commit", "-q", "-m", "hooks"]);

    let home = tempfile::tempdir().expect("tempdir");
    let dir = bin().parent().expect("bin dir").to_path_buf();
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(dirs).expect("PATH");
    let prek_in = |repo: &Path, args: &[&str]| {
        let out = Command::new(&prek)
            .args(args)
            .current_dir(repo)
            .env("PATH", &path)
            .env("PREK_HOME", home.path())
            .env("NO_COLOR", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .stdin(Stdio::null())
            .output()
            .expect("prek");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };

    let out = prek_in(
        hooks.path(),
        &["validate-manifest", ".pre-commit-hooks.yaml"],
    );
    assert_eq!(out.0, Some(0), "{}", out.1);

    // The configs docs/ci.md shows are valid.
    let docs = std::fs::read_to_string(repo_root().join("docs/ci.md")).expect("docs/ci.md");
    let configs = yaml_blocks(&docs)
        .into_iter()
        .filter(|block| block.starts_with("repos:\n"))
        .collect::<Vec<_>>();
    assert_eq!(configs.len(), 2, "the -system hooks and the local hook");
    for config in configs {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(".pre-commit-config.yaml"), &config).unwrap();
        let out = prek_in(dir.path(), &["validate-config", ".pre-commit-config.yaml"]);
        assert_eq!(out.0, Some(0), "{config}\n{}", out.1);
    }

    let sample = tempfile::tempdir().expect("tempdir");
    let repo = sample.path();
    std::fs::write(repo.join("checks.toml"), SAMPLE).unwrap();
    std::fs::write(repo.join("check.sh"), "! grep -n FIXME -- *.txt\n").unwrap();
    std::fs::write(repo.join("notes.txt"), "first\n").unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "init"]);
    let hook_repo = hooks.path().display().to_string();

    // A passing commit: the fast gate runs on the staged change, passes.
    std::fs::write(repo.join("notes.txt"), "first\nsecond\n").unwrap();
    git(repo, &["add", "notes.txt"]);
    let (code, text) = prek_in(repo, &["try-repo", &hook_repo, "run-check-system"]);
    assert_eq!(code, Some(0), "{text}");
    let hook_line = |text: &str, name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .map(|l| l.rsplit('.').next().unwrap_or_default().to_string())
    };
    assert_eq!(
        hook_line(&text, "run-check (fast, read-only)").as_deref(),
        Some("Passed"),
        "{text}"
    );
    git(repo, &["commit", "-q", "-m", "second"]);

    // A failing commit: refused, with the report.
    std::fs::write(repo.join("notes.txt"), "first\nFIXME third\n").unwrap();
    git(repo, &["add", "notes.txt"]);
    let (code, text) = prek_in(repo, &["try-repo", &hook_repo, "run-check-system"]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        hook_line(&text, "run-check (fast, read-only)").as_deref(),
        Some("Failed"),
        "{text}"
    );
    assert!(text.contains("- hook id: run-check-system\n"), "{text}");
    assert!(text.contains("1 of 1 checks failed: no-fixme"), "{text}");
    assert!(text.contains("│ 2:FIXME third\n"), "{text}");

    // The push hook runs strict: every strict check.
    let (code, text) = prek_in(
        repo,
        &[
            "try-repo",
            &hook_repo,
            "run-check-system-push",
            "--hook-stage",
            "pre-push",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        hook_line(&text, "run-check (strict)").as_deref(),
        Some("Failed"),
        "{text}"
    );
    assert!(text.contains("1 of 2 checks failed: no-fixme"), "{text}");
    // The commit hook is not a push hook.
    let (code, text) = prek_in(
        repo,
        &[
            "try-repo",
            &hook_repo,
            "run-check-system",
            "--hook-stage",
            "pre-push",
        ],
    );
    assert!(code != Some(1) && !text.contains("Failed"), "{text}");
}

/// The `script:` lines of a job of the GitLab template run by bash with
/// `-eo pipefail`, as GitLab's shell runs them, in `repo` with `env`.
fn gitlab_job(job: &str, repo: &Path, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let template = yaml(&repo_root().join("ci-templates/gitlab/run-check.gitlab-ci.yml"));
    let lines: Vec<&str> = template[job]["script"]
        .as_array()
        .expect("script")
        .iter()
        .map(|l| l.as_str().expect("a line"))
        .collect();
    let dir = bin().parent().expect("bin dir").to_path_buf();
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
        .arg(lines.join("\n"))
        .current_dir(repo)
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[cfg(unix)]
#[test]
fn the_gitlab_template_shards_and_merges() {
    let repo = workspace(FAILING);
    let mut failed = Vec::new();
    for k in ["1", "2"] {
        let (code, text) = gitlab_job(
            "run-check",
            repo.path(),
            &[("CI_NODE_INDEX", k), ("CI_NODE_TOTAL", "2")],
        );
        let evidence: Value = serde_json::from_str(
            &std::fs::read_to_string(repo.path().join(format!("run-check-{k}.json"))).unwrap(),
        )
        .unwrap_or_else(|e| panic!("shard {k}: {e}\n{text}"));
        let has_bad = evidence["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "bad");
        assert_eq!(code, Some(if has_bad { 1 } else { 0 }), "shard {k}: {text}");
        if has_bad {
            failed.push(k);
        }
        let junit =
            std::fs::read_to_string(repo.path().join(format!("run-check-{k}.xml"))).unwrap();
        assert!(junit.starts_with("<?xml"), "{junit}");
    }
    assert_eq!(failed.len(), 1, "`bad` is in one shard");
    let (code, text) = gitlab_job("run-check-merge", repo.path(), &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("1 of 2 checks failed: bad\n"), "{text}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path().join("run-check.json")).unwrap())
            .unwrap();
    assert_eq!(merged["summary"]["exit_code"], 1);
    assert_eq!(merged["meta"]["merged_from"].as_array().unwrap().len(), 2);
}

/// macOS is claimed, so this repository's own strict gate type-checks and
/// lints the crate for both macOS targets beside Windows, and CI's install
/// step adds the three targets' standard libraries the gate needs.
#[test]
fn the_own_gate_checks_both_macos_targets_and_ci_installs_them() {
    let config: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo_root().join("checks.toml")).unwrap()).unwrap();
    let checks = config["check"].as_array().unwrap();
    let run_of = |name: &str| -> Vec<String> {
        let check = checks
            .iter()
            .find(|c| c["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("checks.toml has no check `{name}`"));
        check["run"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    };
    for (name, target) in [
        ("macos-x86_64", "x86_64-apple-darwin"),
        ("macos-aarch64", "aarch64-apple-darwin"),
    ] {
        assert_eq!(
            run_of(name),
            [
                "cargo",
                "clippy",
                "--target",
                target,
                "--all-targets",
                "--",
                "-D",
                "warnings"
            ]
        );
    }
    assert!(run_of("windows").contains(&"x86_64-pc-windows-gnu".to_string()));
    // The strict mode runs them (no `modes` restricting them).
    let listed = Command::new(bin())
        .args(["list", "--mode", "strict", "--format", "json"])
        .current_dir(repo_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed = String::from_utf8_lossy(&listed.stdout);
    for name in ["windows", "macos-x86_64", "macos-aarch64"] {
        assert!(listed.contains(&format!("\"{name}\"")), "{listed}");
    }
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim()
            == "rustup target add x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin"),
        "{ci}"
    );
}
