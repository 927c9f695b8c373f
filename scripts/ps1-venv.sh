#!/usr/bin/env bash
# ps1-venv.sh [VENV_DIR] - a Python venv able to run scripts/ps1_syntax.py.
#
# Creates (if missing) a venv at ${1:-target/ps1-venv} with `python3 -m venv`,
# installs the pinned tree-sitter packages into it (quietly, output on
# stderr) and prints the absolute path of the venv's python on stdout, and
# nothing else. Idempotent: when the venv's python already imports both
# modules at the pinned versions it only prints the path.
#
# Needs python3 >= 3.10 and, on first use, access to PyPI.
# Environment: PYTHON overrides the interpreter used to create the venv.
# Exit: 0 ok (path on stdout); 1 the venv could not be set up (one line on
# stderr, after pip's own messages).
#
# Used by the Rust test that syntax-checks run-check.ps1, so that
# `cargo test` needs nothing installed by hand. Safe to call from tests
# running in parallel (a lock directory serialises the setup).
set -euo pipefail

TREE_SITTER_VERSION=0.26.1
TREE_SITTER_POWERSHELL_VERSION=0.26.4

die() {
    printf 'ps1-venv.sh: %s\n' "$*" >&2
    exit 1
}

VENV=${1:-target/ps1-venv}
PYTHON=${PYTHON:-python3}

mkdir -p -- "$(dirname -- "$VENV")" || die "cannot create the parent of $VENV"
VENV=$(cd -P -- "$(dirname -- "$VENV")" && pwd)/$(basename -- "$VENV")

venv_python() {
    if [ -x "$VENV/bin/python" ]; then
        printf '%s\n' "$VENV/bin/python"
    elif [ -x "$VENV/Scripts/python.exe" ]; then   # Git Bash on Windows
        printf '%s\n' "$VENV/Scripts/python.exe"
    else
        return 1
    fi
}

# True when the venv's python imports both modules at the pinned versions.
ready() {
    local py
    py=$(venv_python) || return 1
    "$py" - "$TREE_SITTER_VERSION" "$TREE_SITTER_POWERSHELL_VERSION" >/dev/null 2>&1 <<'EOF'
import sys
from importlib.metadata import version
import tree_sitter, tree_sitter_powershell
tree_sitter.Language(tree_sitter_powershell.language())
ok = version("tree-sitter") == sys.argv[1] and version("tree-sitter-powershell") == sys.argv[2]
sys.exit(0 if ok else 1)
EOF
}

if ready; then
    venv_python
    exit 0
fi

# Serialise setup between concurrent callers (mkdir is atomic everywhere;
# flock is not on macOS). A lock older than 10 minutes is taken as stale.
LOCK=$VENV.lock
waited=0
until mkdir -- "$LOCK" 2>/dev/null; do
    if [ -n "$(find "$LOCK" -maxdepth 0 -mmin +10 2>/dev/null)" ]; then
        rmdir -- "$LOCK" 2>/dev/null || true
        continue
    fi
    [ "$waited" -lt 600 ] || die "timed out waiting for the lock $LOCK"
    sleep 1
    waited=$((waited + 1))
done
trap 'rmdir -- "$LOCK" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Another caller may have finished the setup while we waited.
if ready; then
    venv_python
    exit 0
fi

PY=$(venv_python) || PY=
if [ -z "$PY" ] || ! "$PY" -m pip --version >/dev/null 2>&1; then
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found; install Python 3.10 or newer"
    # --clear: a half-made venv (e.g. created without pip) is made anew.
    "$PYTHON" -m venv --clear -- "$VENV" >&2 || die "$PYTHON -m venv $VENV failed (on Debian/Ubuntu: apt-get install python3-venv)"
    PY=$(venv_python) || die "no python in the new venv $VENV"
fi

"$PY" -m pip install --quiet --disable-pip-version-check \
    "tree-sitter==$TREE_SITTER_VERSION" \
    "tree-sitter-powershell==$TREE_SITTER_POWERSHELL_VERSION" >&2 \
    || die "pip install tree-sitter==$TREE_SITTER_VERSION tree-sitter-powershell==$TREE_SITTER_POWERSHELL_VERSION failed"

ready || die "the venv $VENV still cannot import tree_sitter and tree_sitter_powershell"
printf '%s\n' "$PY"
