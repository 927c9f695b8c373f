#!/usr/bin/env bash
# package-tests.sh - the slow packaging tests of tests/packaging.rs: build the
# release artifacts with scripts/package.sh (into target/packaging-tests/dist),
# install each into a clean environment (the musl binary from its archive, the
# Linux wheel in a fresh venv, the npm tarballs offline in a fresh folder) and
# run `run-check --version` and a real gate through it; check the Windows
# wheel, zip and npm package hold the .exe.
#
# Usage: bash scripts/package-tests.sh     (.ci/run calls it after `cargo test`)
#
# First installs what the tests need, when missing: the Rust targets
# x86_64-unknown-linux-musl and x86_64-pc-windows-gnu, Debian's musl-tools and
# mingw-w64, maturin (pinned, into .tools/maturin). npm, node and python3 must
# be on PATH. The cost is one release build per target (a few minutes each on
# 2 cores, reused by later runs and by scripts/wine-smoke.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/package.sh --setup
started=$(date +%s)
cargo test --test integration -- --ignored packaging
printf 'package-tests: %ss\n' "$(( $(date +%s) - started ))" >&2
