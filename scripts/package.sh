#!/usr/bin/env bash
# package.sh - build the release artifacts of run-check into dist/.
#
# Usage: bash scripts/package.sh [TARGET...]
#        bash scripts/package.sh --setup [TARGET...]   (prerequisites only)
#
# TARGET is a Rust target triple; without one, the targets this machine can
# build (Linux x86_64 with musl, Windows x86_64 cross-built with mingw-w64):
#
#   x86_64-unknown-linux-musl    static binary; wheel tagged manylinux_2_17 and
#                                musllinux_1_2; npm package run-check-linux-x64
#   x86_64-pc-windows-gnu        run-check.exe; wheel win_amd64; npm package
#                                run-check-win32-x64
#
# The release matrix (docs/release.md) runs the same script on other runners
# for aarch64-unknown-linux-musl, x86_64-apple-darwin and aarch64-apple-darwin.
# For each target it writes into dist/ (or $RUN_CHECK_DIST):
#
#   run-check-VERSION-TARGET.tar.gz (.zip for Windows)   the binaries, README.md
#   wheels/run_check-VERSION-py3-none-TAG.whl            built by maturin
#   npm/run-check-PLATFORM-ARCH-VERSION.tgz              built by npm pack
#
# and, whatever the targets, npm/run-check-VERSION.tgz (the launcher package)
# and SHA256SUMS over everything in dist/. There is one release build per
# target, the `release` profile of Cargo.toml, made by maturin (`cargo rustc
# --profile release --target TARGET`) into the normal target directory: a
# `cargo build --release --target TARGET` (scripts/wine-smoke.sh) reuses it.
#
# Prerequisites, installed when missing (idempotent): the Rust targets
# (rustup), maturin MATURIN_VERSION into .tools/maturin (a venv, git-ignored),
# Debian's musl-tools for a musl target and mingw-w64 for windows-gnu (apt-get,
# as root). npm and python3 must be on PATH.
#
# Exit: 0 built; 2 could not build (the reason on stderr).
set -euo pipefail

MATURIN_VERSION=1.16.0

ROOT=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
cd "$ROOT"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
DIST=${RUN_CHECK_DIST:-$ROOT/dist}
TOOLS=$ROOT/.tools

say() { printf 'package: %s\n' "$*" >&2; }
cannot() { say "cannot build: $*"; exit 2; }

# The first `version = "..."` line is the package's; sed quits there (no
# pipe into head, whose early exit would be sed's SIGPIPE under pipefail).
VERSION=$(sed -n '/^version *= *"/{s/^version *= *"\(.*\)"/\1/p;q}' Cargo.toml)
[ -n "$VERSION" ] || cannot "no version in Cargo.toml"

SETUP_ONLY=0
if [ "${1:-}" = --setup ]; then
    SETUP_ONLY=1
    shift
fi
if [ $# -eq 0 ]; then
    set -- x86_64-unknown-linux-musl x86_64-pc-windows-gnu
fi

command -v npm >/dev/null || cannot "npm is not on PATH"
command -v python3 >/dev/null || cannot "python3 is not on PATH"

# The npm launcher's version and its optional dependencies' versions are
# written by hand at a release (docs/release.md); a mismatch would publish a
# launcher that installs another version's binary.
NPM_MAIN=$ROOT/packaging/npm/run-check
python3 - "$NPM_MAIN/package.json" "$VERSION" <<'PY' || cannot "packaging/npm/run-check/package.json does not match Cargo.toml's version $VERSION"
import json, sys
manifest = json.load(open(sys.argv[1], encoding="utf-8"))
version = sys.argv[2]
wrong = [f"version {manifest['version']}"] if manifest["version"] != version else []
wrong += [f"{name} {v}" for name, v in manifest.get("optionalDependencies", {}).items() if v != version]
if wrong:
    print("package: " + ", ".join(wrong), file=sys.stderr)
    sys.exit(1)
PY

# The platform packages carry the launcher's homepage and repository (set at
# a release, docs/release.md), so every registry page links the source.
REPOSITORY=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["repository"]["url"])' "$NPM_MAIN/package.json") \
    || cannot "packaging/npm/run-check/package.json has no repository.url"

# ---------------------------------------------------------------------------
# Prerequisites
# ---------------------------------------------------------------------------

apt_install() {
    [ "$(id -u)" = 0 ] || cannot "$* missing and this is not root: apt-get install -y $*"
    command -v apt-get >/dev/null || cannot "$* missing and there is no apt-get"
    say "installing $* with apt-get"
    { env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
        || { apt-get update -q && env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }; } \
        >"$TARGET_DIR/package-apt.log" 2>&1 || cannot "apt-get install -y $* failed (see $TARGET_DIR/package-apt.log)"
}

mkdir -p -- "$TARGET_DIR" "$TOOLS"
SYSROOT=$(rustc --print sysroot) || cannot "rustc not found"
for target in "$@"; do
    if [ ! -d "$SYSROOT/lib/rustlib/$target" ]; then
        say "adding the Rust target $target"
        rustup target add "$target" >&2 || cannot "rustup target add $target failed"
    fi
    case $target in
        *-linux-musl) command -v musl-gcc >/dev/null || apt_install musl-tools ;;
        *-windows-gnu) command -v x86_64-w64-mingw32-gcc >/dev/null || apt_install mingw-w64 ;;
    esac
done

MATURIN=$TOOLS/maturin/bin/maturin
if [ "$(cat "$TOOLS/maturin/.installed" 2>/dev/null)" != "$MATURIN_VERSION" ]; then
    say "installing maturin $MATURIN_VERSION into $TOOLS/maturin"
    rm -rf -- "$TOOLS/maturin"
    python3 -m venv "$TOOLS/maturin" || cannot "python3 -m venv failed"
    "$TOOLS/maturin/bin/pip" install -q "maturin==$MATURIN_VERSION" >&2 || cannot "pip install maturin==$MATURIN_VERSION failed"
    printf '%s\n' "$MATURIN_VERSION" >"$TOOLS/maturin/.installed"
fi
[ "$SETUP_ONLY" = 0 ] || exit 0

# ---------------------------------------------------------------------------
# Per target: wheel (and with it the release build), archive, npm package
# ---------------------------------------------------------------------------

rm -rf -- "$DIST"
mkdir -p -- "$DIST/wheels" "$DIST/npm" "$DIST/stage"

# The npm name of a target: run-check-<process.platform>-<process.arch>.
npm_platform() {
    case $1 in
        x86_64-unknown-linux-musl) echo linux x64 ;;
        aarch64-unknown-linux-musl) echo linux arm64 ;;
        x86_64-pc-windows-gnu | x86_64-pc-windows-msvc) echo win32 x64 ;;
        x86_64-apple-darwin) echo darwin x64 ;;
        aarch64-apple-darwin) echo darwin arm64 ;;
        *) return 1 ;;
    esac
}

for target in "$@"; do
    read -r os cpu <<<"$(npm_platform "$target")" || cannot "no npm platform for the target $target (see npm_platform in $0)"
    # run-check, the MCP server `run-check mcp` hands over to and the remote
    # execution client a `[remote]` checks.toml runs, beside it in every
    # package: run-check finds both in its own folder (src/commands/mcp/mod.rs
    # and docs/remote.md say why they are programs of their own).
    exes=(run-check run-check-mcp run-check-remote)
    compat=()
    case $target in
        *-windows-*) exes=(run-check.exe run-check-mcp.exe run-check-remote.exe) ;;
        # A static binary runs on every Linux: one wheel for glibc and musl
        # systems, as maturin ships its own.
        *-linux-musl) compat=(--compatibility manylinux2014 musllinux_1_2) ;;
    esac

    say "$target: release build and wheel (maturin $MATURIN_VERSION)"
    started=$(date +%s)
    (cd packaging/pypi && "$MATURIN" build --quiet --release --target "$target" "${compat[@]}" --out "$DIST/wheels") >&2 \
        || cannot "maturin build --target $target failed"
    built=$TARGET_DIR/$target/release
    for exe in "${exes[@]}"; do
        [ -f "$built/$exe" ] || cannot "the build did not produce $built/$exe"
    done
    say "$target: built in $(( $(date +%s) - started ))s"

    # The archive of the binaries alone (the "prebuilt binary" of the README).
    stage=$DIST/stage/run-check-$VERSION-$target
    mkdir -p -- "$stage"
    for exe in "${exes[@]}"; do cp -- "$built/$exe" "$stage/$exe"; done
    cp -- README.md "$stage/README.md"
    case $target in
        *-windows-*)
            (cd "$DIST/stage" && python3 -m zipfile -c "$DIST/run-check-$VERSION-$target.zip" "run-check-$VERSION-$target") \
                || cannot "zip of $target failed" ;;
        *)
            tar -C "$DIST/stage" -czf "$DIST/run-check-$VERSION-$target.tar.gz" "run-check-$VERSION-$target" \
                || cannot "tar of $target failed" ;;
    esac

    # The npm platform package: the binaries, os/cpu so that npm installs it
    # only where it runs, and no scripts.
    name=run-check-$os-$cpu
    pkg=$DIST/stage/npm/$name
    mkdir -p -- "$pkg/bin"
    files=()
    for exe in "${exes[@]}"; do
        cp -- "$built/$exe" "$pkg/bin/$exe"
        chmod 755 "$pkg/bin/$exe"
        files+=("\"bin/$exe\"")
    done
    sed -e "s/@PACKAGE@/$name/g" -e "s/@PLATFORM@/$os-$cpu ($target)/g" \
        packaging/npm/platform/README.md >"$pkg/README.md"
    cat >"$pkg/package.json" <<JSON
{
  "name": "$name",
  "version": "$VERSION",
  "description": "The run-check binary for $os-$cpu ($target); install run-check instead",
  "license": "MIT OR Apache-2.0",
  "homepage": "$REPOSITORY",
  "repository": {"type": "git", "url": "$REPOSITORY"},
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": [$(IFS=,; echo "${files[*]}"), "README.md"],
  "preferUnplugged": true
}
JSON
    (cd "$pkg" && npm pack --silent --pack-destination "$DIST/npm" >/dev/null) || cannot "npm pack of $name failed"
done

say "npm: the launcher package run-check"
cp -R -- "$NPM_MAIN" "$DIST/stage/npm/run-check"
(cd "$DIST/stage/npm/run-check" && npm pack --silent --pack-destination "$DIST/npm" >/dev/null) \
    || cannot "npm pack of run-check failed"

rm -rf -- "$DIST/stage"
# sha256sum (GNU coreutils) or, on macOS runners, shasum -a 256: same format.
SHA256=(sha256sum)
command -v sha256sum >/dev/null || SHA256=(shasum -a 256)
# shellcheck disable=SC2094  # find skips SHA256SUMS, the file being written
(cd "$DIST" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs "${SHA256[@]}" >SHA256SUMS) \
    || cannot "${SHA256[*]} failed"
say "artifacts in $DIST:"
(cd "$DIST" && find . -type f | LC_ALL=C sort | sed 's|^\./|  |') >&2
