//! The release artifacts of scripts/package.sh, installed the way users
//! install them, each into a clean environment, then `--version` and a real
//! gate through what was installed: the musl binary from its archive, the
//! Linux wheel in a fresh venv, the npm tarballs in a fresh folder (offline).
//! The Windows artifacts are checked for their contents here (the .exe in
//! them is byte-identical to the one scripts/wine-smoke.sh runs under wine).
//!
//! The slow tests build the packages (one release build per target) and are
//! `#[ignore]`d: `bash scripts/package-tests.sh` (CI runs it) installs what
//! they need and runs them; `cargo test --test integration -- --ignored
//! packaging` runs them when the prerequisites are there. The launcher's
//! logic and the version checks are fast and always run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use crate::support::{FAILING, Test, check, repo_root};

const VERSION: &str = env!("CARGO_PKG_VERSION");

const LINUX: &str = "x86_64-unknown-linux-musl";
const WINDOWS: &str = "x86_64-pc-windows-gnu";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a command to completion; panics with its output unless it succeeds.
#[track_caller]
fn run_ok(command: &mut Command) -> Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

/// The dist/ directory of one scripts/package.sh run (the default targets),
/// built once for all the tests of this module, under target/.
fn dist() -> &'static Path {
    static DIST: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = DIST.get_or_init(|| {
        let root = repo_root();
        let dist = root.join("target").join("packaging-tests").join("dist");
        let output = Command::new("bash")
            .arg(root.join("scripts").join("package.sh"))
            .env("RUN_CHECK_DIST", &dist)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("spawn bash scripts/package.sh: {e}"))?;
        if output.status.success() {
            Ok(dist)
        } else {
            Err(format!(
                "scripts/package.sh failed ({}):\n{}",
                output.status,
                text(&output.stderr)
            ))
        }
    });
    match built {
        Ok(dist) => dist,
        Err(why) => panic!("{why}"),
    }
}

/// The release binary of a target, as the build left it in target/.
fn built_binary(target: &str, exe: &str) -> PathBuf {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    target_dir.join(target).join("release").join(exe)
}

/// The programs every package ships side by side (run-check finds the other
/// two in its own folder).
const COMPANIONS: [&str; 2] = ["run-check-mcp", "run-check-remote"];

/// Each companion program in `dir` is the one built for `target` (`suffix`
/// is `.exe` on Windows).
#[track_caller]
fn assert_companions(dir: &Path, target: &str, suffix: &str) {
    for name in COMPANIONS {
        let exe = format!("{name}{suffix}");
        assert_eq!(
            read(&dir.join(&exe)),
            read(&built_binary(target, &exe)),
            "{exe} in {}",
            dir.display()
        );
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `--version` through `program` (with `args` before it).
#[track_caller]
fn assert_version(program: &Path, args: &[&str]) {
    let output = run_ok(Command::new(program).args(args).arg("--version"));
    assert_eq!(text(&output.stdout), format!("run-check {VERSION}\n"));
    assert_eq!(text(&output.stderr), "");
}

/// A real gate through `program`: a passing and a failing check, the exit
/// code and the evidence passed through; then `--only ok` passes.
#[track_caller]
fn assert_gate(program: &Path, args: &[&str]) {
    let test = Test::new().config(FAILING);
    let output = Command::new(program)
        .args(args)
        .args(["--format", "json", "--out", "ev.json"])
        .current_dir(test.path())
        .stdin(Stdio::null())
        .output()
        .expect("spawn the gate");
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr).lines().last(),
        Some("1 of 2 checks failed: bad")
    );
    let evidence: serde_json::Value =
        serde_json::from_slice(&read(&test.path().join("ev.json"))).unwrap();
    assert_eq!(check(&evidence, "ok")["status"], "pass");
    assert_eq!(check(&evidence, "bad")["status"], "fail");
    assert_eq!(check(&evidence, "bad")["exit_code"], 1);
    assert_eq!(evidence["summary"]["exit_code"], 1);
    assert_eq!(evidence["meta"]["tool"]["version"], VERSION);
    assert_eq!(evidence["meta"]["platform"]["os"], "linux");

    let output = Command::new(program)
        .args(args)
        .args(["--only", "ok"])
        .current_dir(test.path())
        .stdin(Stdio::null())
        .output()
        .expect("spawn the gate");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).lines().last(),
        Some("All checks passed!")
    );
}

/// `program mcp` answers an MCP `initialize` (one JSON-RPC line on stdin,
/// then end of input) as the server: `run-check mcp` reached the
/// `run-check-mcp` installed beside the binary.
#[track_caller]
fn assert_mcp(program: &Path) {
    use std::io::Write;
    let dir = tempdir();
    let mut child = Command::new(program)
        .arg("mcp")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn run-check mcp");
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"packaging","version":"1"}}}"#;
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{initialize}\n").as_bytes())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let reply: serde_json::Value =
        serde_json::from_str(text(&output.stdout).lines().next().unwrap_or_default())
            .unwrap_or_else(|err| panic!("{err}: {}", text(&output.stdout)));
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["serverInfo"]["name"], "run-check");
    assert_eq!(reply["result"]["serverInfo"]["version"], VERSION);
}

/// Whether an ELF file has a program interpreter (PT_INTERP): a static
/// binary has none, so no libc of the system is involved.
fn has_interpreter(elf: &[u8]) -> bool {
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(elf[4], 2, "not a 64-bit ELF file");
    let u16_at = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    (0..phnum).any(|i| {
        let at = phoff + i * phentsize;
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) == 3
    })
}

/// Asserts that `bytes` are a Windows x86_64 executable (PE32+, AMD64).
#[track_caller]
fn assert_windows_x64_exe(bytes: &[u8]) {
    assert_eq!(&bytes[..2], b"MZ");
    let pe = u32::from_le_bytes(bytes[0x3c..0x40].try_into().unwrap()) as usize;
    assert_eq!(&bytes[pe..pe + 4], b"PE\0\0");
    assert_eq!(u16::from_le_bytes([bytes[pe + 4], bytes[pe + 5]]), 0x8664);
}

fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("run-check-packaging-")
        .tempdir()
        .expect("tempdir")
}

/// The files of a tar.gz, extracted into `into`.
fn untar(archive: &Path, into: &Path) {
    run_ok(
        Command::new("tar")
            .arg("-xzf")
            .arg(archive)
            .arg("-C")
            .arg(into),
    );
}

/// The file names in a zip (a wheel), via python3's zipfile.
fn zip_names(archive: &Path) -> Vec<String> {
    let output = run_ok(
        Command::new("python3")
            .args([
                "-c",
                "import sys, zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)",
            ])
            .arg(archive),
    );
    let mut names: Vec<String> = text(&output.stdout).lines().map(String::from).collect();
    names.sort();
    names
}

fn unzip(archive: &Path, into: &Path) {
    run_ok(
        Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(archive)
            .arg(into),
    );
}

// ---------------------------------------------------------------------------
// Fast: versions and the npm launcher's logic
// ---------------------------------------------------------------------------

fn npm_manifest() -> serde_json::Value {
    let path = repo_root().join("packaging/npm/run-check/package.json");
    serde_json::from_slice(&read(&path)).expect("package.json is JSON")
}

#[test]
fn packaging_npm_launcher_version_matches_cargo() {
    let manifest = npm_manifest();
    assert_eq!(manifest["version"], VERSION);
    assert_eq!(
        manifest["bin"],
        serde_json::json!({"run-check": "bin/run-check.js"})
    );
    // No install script: the binary comes in the platform package's tarball.
    assert_eq!(manifest.get("scripts"), None);
    let optional = manifest["optionalDependencies"].as_object().unwrap();
    let names: Vec<&str> = optional.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "run-check-darwin-arm64",
            "run-check-darwin-x64",
            "run-check-linux-arm64",
            "run-check-linux-x64",
            "run-check-win32-x64"
        ]
    );
    for (name, version) in optional {
        assert_eq!(version, VERSION, "{name}");
    }
}

/// Every manifest a registry page is made from (crates.io's Cargo.toml,
/// PyPI's pyproject.toml, npm's package.json; `scripts/package.sh` copies
/// the launcher's into the platform packages) links the same repository
/// and homepage, and README.md's clone command names it.
#[test]
fn packaging_every_manifest_names_one_repository() {
    let cargo: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap()).unwrap();
    let url = cargo["package"]["repository"].as_str().expect("repository");
    assert!(url.starts_with("https://"), "{url}");
    assert_eq!(cargo["package"]["homepage"].as_str(), Some(url));
    let documents: toml::Table = toml::from_str(
        &std::fs::read_to_string(repo_root().join("crates/run-check-documents/Cargo.toml"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(documents["package"]["repository"].as_str(), Some(url));
    assert_eq!(documents["package"]["homepage"].as_str(), Some(url));
    let pyproject: toml::Table = toml::from_str(
        &std::fs::read_to_string(repo_root().join("packaging/pypi/pyproject.toml")).unwrap(),
    )
    .unwrap();
    let urls = &pyproject["project"]["urls"];
    assert_eq!(urls["Homepage"].as_str(), Some(url));
    assert_eq!(urls["Repository"].as_str(), Some(url));
    let npm = npm_manifest();
    assert_eq!(npm["homepage"], url);
    assert_eq!(
        npm["repository"],
        serde_json::json!({"type": "git", "url": url})
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    assert!(readme.contains(&format!("git clone {url}")), "README.md");
    let install = std::fs::read_to_string(repo_root().join("docs/install.md")).unwrap();
    assert!(
        install.contains(&format!("git clone {url}")),
        "docs/install.md"
    );
}

#[test]
fn packaging_pyproject_builds_the_binary_with_cargos_version() {
    let text = std::fs::read_to_string(repo_root().join("packaging/pypi/pyproject.toml")).unwrap();
    let pyproject: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(pyproject["project"]["name"].as_str(), Some("run-check"));
    // The version is Cargo.toml's, read by maturin.
    assert_eq!(
        pyproject["project"]["dynamic"].as_array().unwrap(),
        &vec![toml::Value::from("version")]
    );
    assert_eq!(
        pyproject["tool"]["maturin"]["bindings"].as_str(),
        Some("bin")
    );
    assert_eq!(
        pyproject["tool"]["maturin"]["manifest-path"].as_str(),
        Some("../../Cargo.toml")
    );
}

/// Node, when installed; missing, the test fails (`support::missing`).
fn node() -> Option<&'static str> {
    let found = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        return Some("node");
    }
    crate::support::missing("node is not on PATH");
    None
}

/// A preload script for node that redefines process.platform and
/// process.arch, written into `dir`.
fn pretend(dir: &Path, platform: &str, arch: &str) -> PathBuf {
    let preload = dir.join("pretend.js");
    std::fs::write(
        &preload,
        format!(
            "Object.defineProperty(process, 'platform', {{ value: '{platform}' }});\n\
             Object.defineProperty(process, 'arch', {{ value: '{arch}' }});\n"
        ),
    )
    .unwrap();
    preload
}

/// Runs the launcher of packaging/npm as if on `platform`-`arch`.
fn launcher_as(platform: &str, arch: &str) -> Option<Output> {
    let node = node()?;
    let dir = tempdir();
    let output = Command::new(node)
        .arg("--require")
        .arg(pretend(dir.path(), platform, arch))
        .arg(repo_root().join("packaging/npm/run-check/bin/run-check.js"))
        .arg("--version")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("spawn node");
    Some(output)
}

/// A stand-in for the binary, for the launcher's pass-through: prints its
/// arguments one a line, then `exit N` exits N; `wait` prints `ready` and
/// waits (30 s at most), exiting 42 on SIGTERM.
#[cfg(unix)]
const STAND_IN: &str = r#"#!/bin/sh
printf '%s\n' "$@"
case "$1" in
    exit) exit "$2" ;;
    wait)
        trap 'echo got-term; exit 42' TERM
        echo ready
        i=0
        while [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done ;;
esac
"#;

/// node_modules with the launcher of packaging/npm and a linux-x64 platform
/// package whose binary is [`STAND_IN`]; returns the node command that runs
/// the launcher as on linux-x64.
#[cfg(unix)]
fn launcher_with_stand_in(dir: &Path) -> Option<Command> {
    use std::os::unix::fs::PermissionsExt;
    let node = node()?;
    let modules = dir.join("node_modules");
    let launcher = modules.join("run-check");
    std::fs::create_dir_all(launcher.join("bin")).unwrap();
    let source = repo_root().join("packaging/npm/run-check");
    for file in ["package.json", "bin/run-check.js"] {
        std::fs::copy(source.join(file), launcher.join(file)).unwrap();
    }
    let platform = modules.join("run-check-linux-x64");
    std::fs::create_dir_all(platform.join("bin")).unwrap();
    std::fs::write(
        platform.join("package.json"),
        format!(r#"{{ "name": "run-check-linux-x64", "version": "{VERSION}" }}"#),
    )
    .unwrap();
    let binary = platform.join("bin/run-check");
    std::fs::write(&binary, STAND_IN).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut command = Command::new(node);
    command
        .arg("--require")
        .arg(pretend(dir, "linux", "x64"))
        .arg(launcher.join("bin/run-check.js"))
        .current_dir(dir)
        .stdin(Stdio::null());
    Some(command)
}

#[cfg(unix)]
#[test]
fn packaging_npm_launcher_passes_arguments_output_and_exit_code_through() {
    let dir = tempdir();
    let Some(mut launcher) = launcher_with_stand_in(dir.path()) else {
        return;
    };
    let output = launcher
        .args(["exit", "7", "a b", "", "--mode=strict"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(7), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "exit\n7\na b\n\n--mode=strict\n");
    assert_eq!(text(&output.stderr), "");
}

#[cfg(unix)]
#[test]
fn packaging_npm_launcher_forwards_sigterm_but_not_sigint() {
    use std::io::BufRead;
    let dir = tempdir();
    let Some(mut launcher) = launcher_with_stand_in(dir.path()) else {
        return;
    };
    let mut child = launcher
        .arg("wait")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while line != "ready\n" {
        line.clear();
        assert_ne!(stdout.read_line(&mut line).unwrap(), 0, "no `ready` line");
    }
    let pid = child.id().to_string();
    let signal = |name: &str| {
        run_ok(Command::new("kill").arg(format!("-{name}")).arg(&pid));
    };
    // SIGINT to the launcher alone: ignored (a terminal's Ctrl-C reaches the
    // binary itself); both keep running.
    signal("INT");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the launcher died of SIGINT"
    );
    // SIGTERM: forwarded; the binary's exit code comes back.
    signal("TERM");
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "got-term\n");
    assert_eq!(status.code(), Some(42));
}

#[test]
fn packaging_npm_launcher_on_an_unsupported_platform_prints_one_line() {
    let Some(output) = launcher_as("aix", "ppc64") else {
        return;
    };
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "run-check: no prebuilt binary for aix-ppc64 (prebuilt: darwin-arm64, darwin-x64, \
         linux-arm64, linux-x64, win32-x64); build it from source with a Rust toolchain: \
         `cargo install --path .` in a checkout of run-check\n"
    );
}

#[test]
fn packaging_npm_launcher_without_its_platform_package_prints_one_line() {
    // Supported, but the optional dependency is not installed (the source tree
    // has no node_modules): what `npm i --omit=optional` leaves.
    let Some(output) = launcher_as("linux", "arm64") else {
        return;
    };
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "run-check: the package run-check-linux-arm64 that holds the binary for linux-arm64 \
         is not installed; reinstall without --omit=optional / --no-optional (it is an \
         optional dependency of run-check)\n"
    );
}

// ---------------------------------------------------------------------------
// Slow: the artifacts of scripts/package.sh
// ---------------------------------------------------------------------------

#[test]
#[ignore = "slow: builds packages; run with scripts/package-tests.sh or cargo test -- --ignored packaging"]
fn packaging_dist_holds_every_artifact_with_checksums() {
    let dist = dist();
    let mut files = Vec::new();
    for entry in walk(dist) {
        files.push(
            entry
                .strip_prefix(dist)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/"),
        );
    }
    files.sort();
    let expected = [
        "SHA256SUMS".to_string(),
        format!("npm/run-check-{VERSION}.tgz"),
        format!("npm/run-check-linux-x64-{VERSION}.tgz"),
        format!("npm/run-check-win32-x64-{VERSION}.tgz"),
        format!("run-check-{VERSION}-{WINDOWS}.zip"),
        format!("run-check-{VERSION}-{LINUX}.tar.gz"),
        format!(
            "wheels/run_check-{VERSION}-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.musllinux_1_2_x86_64.whl"
        ),
        format!("wheels/run_check-{VERSION}-py3-none-win_amd64.whl"),
    ];
    assert_eq!(files, expected);
    // SHA256SUMS names every other file, and `sha256sum -c` agrees.
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    let named: Vec<&str> = sums
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(
        named,
        expected[1..].iter().map(String::as_str).collect::<Vec<_>>()
    );
    run_ok(
        Command::new("sha256sum")
            .args(["-c", "--quiet", "SHA256SUMS"])
            .current_dir(dist),
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
#[ignore = "slow: builds packages; run with scripts/package-tests.sh or cargo test -- --ignored packaging"]
fn packaging_musl_binary_is_static_and_runs_a_gate() {
    let dist = dist();
    let dir = tempdir();
    untar(
        &dist.join(format!("run-check-{VERSION}-{LINUX}.tar.gz")),
        dir.path(),
    );
    let unpacked = dir.path().join(format!("run-check-{VERSION}-{LINUX}"));
    let binary = unpacked.join("run-check");
    assert!(unpacked.join("README.md").is_file());
    assert!(
        !has_interpreter(&read(&binary)),
        "the musl binary asks for a dynamic loader"
    );
    assert_eq!(read(&binary), read(&built_binary(LINUX, "run-check")));
    assert_companions(&unpacked, LINUX, "");
    assert_version(&binary, &[]);
    assert_gate(&binary, &[]);
    assert_mcp(&binary);
}

#[test]
#[ignore = "slow: builds packages; run with scripts/package-tests.sh or cargo test -- --ignored packaging"]
fn packaging_linux_wheel_installs_into_a_fresh_venv_and_runs_a_gate() {
    let wheel = dist().join(format!(
        "wheels/run_check-{VERSION}-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.musllinux_1_2_x86_64.whl"
    ));
    let dir = tempdir();
    let venv = dir.path().join("venv");
    run_ok(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    // --no-index: nothing but the wheel, no registry.
    run_ok(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
            ])
            .arg(&wheel),
    );
    let installed = venv.join("bin/run-check");
    assert_eq!(read(&installed), read(&built_binary(LINUX, "run-check")));
    assert_companions(&venv.join("bin"), LINUX, "");
    assert_version(&installed, &[]);
    assert_gate(&installed, &[]);
    assert_mcp(&installed);
    // pip knows it, so `pip uninstall run-check` removes it.
    let shown = run_ok(Command::new(venv.join("bin/pip")).args(["show", "--files", "run-check"]));
    let shown = text(&shown.stdout);
    assert!(shown.contains(&format!("Version: {VERSION}\n")), "{shown}");
    assert!(shown.contains("bin/run-check\n"), "{shown}");
    assert!(shown.contains("bin/run-check-mcp\n"), "{shown}");
    assert!(shown.contains("bin/run-check-remote\n"), "{shown}");
}

#[test]
#[ignore = "slow: builds packages; run with scripts/package-tests.sh or cargo test -- --ignored packaging"]
fn packaging_windows_artifacts_hold_the_exe() {
    let dist = dist();
    let exe = read(&built_binary(WINDOWS, "run-check.exe"));
    assert_windows_x64_exe(&exe);
    for name in COMPANIONS {
        assert_windows_x64_exe(&read(&built_binary(WINDOWS, &format!("{name}.exe"))));
    }

    let wheel = dist.join(format!("wheels/run_check-{VERSION}-py3-none-win_amd64.whl"));
    let scripts = format!("run_check-{VERSION}.data/scripts");
    let data = format!("{scripts}/run-check.exe");
    let data_server = format!("{scripts}/run-check-mcp.exe");
    let data_remote = format!("{scripts}/run-check-remote.exe");
    let info = format!("run_check-{VERSION}.dist-info");
    let names = zip_names(&wheel);
    let mut shipped: Vec<&String> = names.iter().filter(|n| !n.starts_with(&info)).collect();
    shipped.sort();
    assert_eq!(shipped, [&data_server, &data_remote, &data], "{names:?}");
    let dir = tempdir();
    unzip(&wheel, dir.path());
    assert_eq!(read(&dir.path().join(&data)), exe);
    assert_companions(&dir.path().join(&scripts), WINDOWS, ".exe");
    let wheel_meta = std::fs::read_to_string(dir.path().join(&info).join("WHEEL")).unwrap();
    assert!(
        wheel_meta.lines().any(|l| l == "Tag: py3-none-win_amd64"),
        "{wheel_meta}"
    );

    let zip = dist.join(format!("run-check-{VERSION}-{WINDOWS}.zip"));
    let stem = format!("run-check-{VERSION}-{WINDOWS}");
    assert_eq!(
        zip_names(&zip),
        [
            format!("{stem}/"),
            format!("{stem}/README.md"),
            format!("{stem}/run-check-mcp.exe"),
            format!("{stem}/run-check-remote.exe"),
            format!("{stem}/run-check.exe")
        ]
    );
    unzip(&zip, dir.path());
    assert_eq!(read(&dir.path().join(&stem).join("run-check.exe")), exe);
    assert_companions(&dir.path().join(&stem), WINDOWS, ".exe");

    let npm = dir.path().join("npm");
    std::fs::create_dir(&npm).unwrap();
    untar(
        &dist.join(format!("npm/run-check-win32-x64-{VERSION}.tgz")),
        &npm,
    );
    assert_eq!(read(&npm.join("package/bin/run-check.exe")), exe);
    assert_companions(&npm.join("package/bin"), WINDOWS, ".exe");
    let manifest: serde_json::Value =
        serde_json::from_slice(&read(&npm.join("package/package.json"))).unwrap();
    assert_eq!(manifest["os"], serde_json::json!(["win32"]));
    assert_eq!(manifest["cpu"], serde_json::json!(["x64"]));
    assert_eq!(manifest.get("scripts"), None);
}

#[test]
#[ignore = "slow: builds packages; run with scripts/package-tests.sh or cargo test -- --ignored packaging"]
fn packaging_npm_tarballs_install_offline_and_run_a_gate() {
    let dist = dist();
    let dir = tempdir();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{ "name": "consumer", "version": "1.0.0", "private": true }"#,
    )
    .unwrap();
    // Offline, with an empty cache: the tarballs are all there is. npm skips
    // the other platforms' optional dependencies (not in the cache, and their
    // os/cpu would not match anyway).
    let npm_env = |command: &mut Command| {
        command
            .current_dir(&project)
            .env("npm_config_cache", dir.path().join("cache"))
            .env("npm_config_userconfig", dir.path().join("npmrc"))
            .env("npm_config_update_notifier", "false")
            .env("npm_config_fund", "false")
            .env("npm_config_audit", "false");
    };
    let mut install = Command::new("npm");
    install
        .args(["install", "--offline", "--save-dev"])
        .arg(dist.join(format!("npm/run-check-{VERSION}.tgz")))
        .arg(dist.join(format!("npm/run-check-linux-x64-{VERSION}.tgz")));
    npm_env(&mut install);
    run_ok(&mut install);

    let modules = project.join("node_modules");
    assert_eq!(
        read(&modules.join("run-check-linux-x64/bin/run-check")),
        read(&built_binary(LINUX, "run-check"))
    );
    for other in [
        "run-check-win32-x64",
        "run-check-darwin-x64",
        "run-check-linux-arm64",
    ] {
        assert!(!modules.join(other).exists(), "{other} was installed");
    }

    assert_companions(&modules.join("run-check-linux-x64/bin"), LINUX, "");
    let shim = modules.join(".bin/run-check");
    assert_version(&shim, &[]);
    assert_gate(&shim, &[]);
    assert_mcp(&shim);

    // npx from the project runs the local bin, offline.
    let mut npx = Command::new("npx");
    npx.args(["--offline", "--no-install", "run-check", "--version"]);
    npm_env(&mut npx);
    let output = run_ok(&mut npx);
    assert_eq!(text(&output.stdout), format!("run-check {VERSION}\n"));
}
