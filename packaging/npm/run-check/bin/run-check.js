#!/usr/bin/env node
// The `run-check` command of the npm package: finds the binary of this
// platform's package (an optional dependency, installed by npm only where its
// `os` and `cpu` match) and runs it with the same arguments, stdio inherited,
// and its exit code passed through. Nothing is downloaded: the binary is in
// the platform package's tarball. See docs/install.md of run-check.
"use strict";

const { spawn } = require("child_process");
const path = require("path");
const { constants } = require("os");

const manifest = require("../package.json");
const binaryName = process.platform === "win32" ? "run-check.exe" : "run-check";

// One line on stderr and exit 2 (run-check's ERROR), never a stack trace.
function fail(message) {
  process.stderr.write(`run-check: ${message}\n`);
  process.exit(2);
}

// The platform packages are the optional dependencies: run-check-<platform>-<arch>,
// with process.platform and process.arch as Node names them. The Linux binaries
// are static (musl), so one package serves glibc and musl systems alike.
const prefix = `${manifest.name}-`;
const supported = Object.keys(manifest.optionalDependencies || {})
  .filter((name) => name.startsWith(prefix))
  .map((name) => name.slice(prefix.length));
const platform = `${process.platform}-${process.arch}`;

if (!supported.includes(platform)) {
  fail(
    `no prebuilt binary for ${platform} (prebuilt: ${supported.join(", ")}); ` +
      "build it from source with a Rust toolchain: `cargo install --path .` in a checkout of run-check",
  );
}

const platformPackage = `${prefix}${platform}`;
let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), "bin", binaryName);
} catch (_) {
  fail(
    `the package ${platformPackage} that holds the binary for ${platform} is not installed; ` +
      "reinstall without --omit=optional / --no-optional (it is an optional dependency of run-check)",
  );
}

// Ctrl-C and a closed terminal reach the whole foreground process group, the
// binary included: the shim only stays alive to pass its exit code on (a
// forwarded second SIGINT would make run-check kill its checks at once
// instead of terminating them). SIGTERM is usually sent to one process (a CI
// runner, `timeout`), so it is forwarded. The handlers are in place before
// the binary starts: a Ctrl-C in the instant after the spawn would otherwise
// kill the shim and lose the binary's exit code.
const ignore = () => {};
process.on("SIGINT", ignore);
process.on("SIGHUP", ignore);
let child = null;
process.on("SIGTERM", () => {
  if (child === null) {
    process.exit(128 + constants.signals.SIGTERM);
  }
  child.kill("SIGTERM");
});

child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

child.on("error", (error) => {
  fail(`cannot run ${binary}: ${error.message}`);
});

child.on("exit", (code, signal) => {
  if (code !== null) {
    process.exit(code);
  }
  // Killed by a signal: exit as a shell reports it, 128 + the signal number.
  process.exit(128 + (constants.signals[signal] || 0));
});
