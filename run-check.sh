#!/usr/bin/env bash
# run-check.sh - the "true entry" of run-check on Linux and macOS.
#
# Finds the run-check binary and execs it with every argument unchanged, so
# its exit code (0 PASS, 1 FAIL, 2 ERROR, 130 interrupted) comes back as is.
# Lookup order:
#   1. $RUN_CHECK_BIN, if set (must be an executable file)
#   2. <dir of this script>/target/release/run-check, if executable
#   3. run-check on PATH (never this script itself)
#   4. in run-check's own checkout (<dir>/Cargo.toml's package is run-check):
#      cargo build --release --quiet --manifest-path <dir>/Cargo.toml, then 2.
#      Elsewhere (a copy in another project) it says how to install run-check.
# The wrapper itself prints nothing on stdout; build output goes to stderr.
# When nothing can be found or built it prints one line on stderr and exits 2.
set -euo pipefail

die() {
    printf 'run-check.sh: %s\n' "$*" >&2
    exit 2
}

# Resolve a path through any chain of symlinks (portable: no readlink -f,
# which older macOS lacks). Prints an absolute path.
resolve() {
    local src=$1 dir
    while [ -L "$src" ]; do
        dir=$(cd -P -- "$(dirname -- "$src")" >/dev/null 2>&1 && pwd) || return 1
        src=$(readlink -- "$src")
        case $src in
            /*) ;;
            *) src=$dir/$src ;;
        esac
    done
    dir=$(cd -P -- "$(dirname -- "$src")" >/dev/null 2>&1 && pwd) || return 1
    printf '%s/%s\n' "$dir" "$(basename -- "$src")"
}

SELF=$(resolve "${BASH_SOURCE[0]}") || die "cannot resolve the location of this script"
SCRIPT_DIR=$(dirname -- "$SELF")

is_exe() {
    [ -f "$1" ] && [ -x "$1" ]
}

find_bin() {
    # 1. explicit override
    if [ -n "${RUN_CHECK_BIN:-}" ]; then
        is_exe "$RUN_CHECK_BIN" || die "RUN_CHECK_BIN=$RUN_CHECK_BIN is not an executable file"
        printf '%s\n' "$RUN_CHECK_BIN"
        return 0
    fi

    # 2. a release build next to this script (.exe under Git Bash/MSYS)
    local cand
    for cand in "$SCRIPT_DIR/target/release/run-check" "$SCRIPT_DIR/target/release/run-check.exe"; do
        if is_exe "$cand"; then
            printf '%s\n' "$cand"
            return 0
        fi
    done

    # 3. run-check on PATH, skipping this script (e.g. a symlink to it) and
    #    any wrapper that is already running (guards against two wrappers
    #    on PATH calling each other forever).
    if [ -z "${RUN_CHECK_WRAPPER_ACTIVE:-}" ]; then
        local p
        while IFS= read -r p; do
            [ -n "$p" ] || continue
            if [ "$(resolve "$p" 2>/dev/null || true)" != "$SELF" ]; then
                printf '%s\n' "$p"
                return 0
            fi
        done < <(type -aP run-check 2>/dev/null || true)
    fi

    return 1
}

# find_bin: 0 found (path on stdout), 1 nothing found, 2 error already reported
rc=0
BIN=$(find_bin) || rc=$?
[ "$rc" -ne 2 ] || exit 2
if [ "$rc" -ne 0 ]; then
    # 4. build it, only in run-check's own checkout: a copy of this script
    #    in another Cargo project must not build that project, which holds
    #    no run-check to find afterwards.
    grep -qx 'name = "run-check"' "$SCRIPT_DIR/Cargo.toml" 2>/dev/null \
        || die "no run-check binary found (not $SCRIPT_DIR/target/release/run-check, not on PATH): install run-check (docs/install.md of its repository: a release's package, or cargo install --path <run-check checkout>), or set RUN_CHECK_BIN"
    command -v cargo >/dev/null 2>&1 || die "no run-check binary found and cargo is not installed (install Rust from https://rustup.rs or set RUN_CHECK_BIN)"
    echo "run-check.sh: building run-check (cargo build --release) ..." >&2
    cargo build --release --quiet --manifest-path "$SCRIPT_DIR/Cargo.toml" >&2 \
        || die "cargo build --release failed (see the errors above)"
    TARGET_DIR=${CARGO_TARGET_DIR:-$SCRIPT_DIR/target}
    BIN=
    for cand in "$TARGET_DIR/release/run-check" "$TARGET_DIR/release/run-check.exe"; do
        if is_exe "$cand"; then
            BIN=$cand
            break
        fi
    done
    [ -n "$BIN" ] || die "cargo build succeeded but $TARGET_DIR/release/run-check is missing"
fi

export RUN_CHECK_WRAPPER_ACTIVE=1
# ${1+"$@"}: every argument unchanged, also safe under set -u on old bash 3.2
exec "$BIN" ${1+"$@"}
