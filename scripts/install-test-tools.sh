#!/usr/bin/env bash
# install-test-tools.sh - install the real linters and formatters that the
# init tests run (tests/init.rs: init's gate on projects configured to fix
# must leave the tree unchanged), at pinned versions, into .tools/ of this
# repository (git-ignored). Nothing is installed anywhere else.
#
#   .tools/python/    ruff, via `python3 -m pip install --target`
#                     (the tests run .tools/python/bin/ruff)
#   .tools/node/      eslint, prettier, typescript, vitest (with vite), via
#                     `npm install --prefix` (the tests use
#                     .tools/node/node_modules; tests/init_node.rs runs a
#                     sample project's tsc, eslint, prettier and vitest)
#   .tools/sarif/     Microsoft's SARIF multitool (Linux x86_64 only), via
#                     `npm install --prefix`: tests/sarif.rs validates the
#                     sarif report with GitHub's upload rules
#
# Usage: bash scripts/install-test-tools.sh     (idempotent: a warm re-run
# only checks the versions). .ci/run calls it before `cargo test`; in CI
# (CI=true) a test whose tool is missing fails instead of skipping.
set -euo pipefail

RUFF_VERSION=0.17.6
ESLINT_VERSION=10.15.0
PRETTIER_VERSION=3.10.1
TYPESCRIPT_VERSION=5.9.3
# vitest 3 with vite 7: they run on node 20.
VITEST_VERSION=3.2.7
VITE_VERSION=7.3.8
SARIF_MULTITOOL_VERSION=5.7.0

ROOT=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
TOOLS=$ROOT/.tools
say() { printf 'install-test-tools: %s\n' "$*" >&2; }

mkdir -p -- "$TOOLS"

# ruff: one static binary inside the wheel.
PY=$TOOLS/python
if [ "$("$PY/bin/ruff" --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
    say "installing ruff $RUFF_VERSION into $PY"
    rm -rf -- "$PY"
    python3 -m pip install --quiet --disable-pip-version-check --no-input \
        --root-user-action=ignore \
        --target "$PY" "ruff==$RUFF_VERSION"
fi
"$PY/bin/ruff" --version >&2

# eslint and prettier, with the package eslint's own flat config imports;
# typescript, vitest and vite for the sample npm project's gate.
NODE=$TOOLS/node
want="eslint@$ESLINT_VERSION prettier@$PRETTIER_VERSION typescript@$TYPESCRIPT_VERSION vitest@$VITEST_VERSION vite@$VITE_VERSION"
if [ "$(cat "$NODE/.installed" 2>/dev/null)" != "$want" ]; then
    say "installing $want into $NODE"
    rm -rf -- "$NODE"
    mkdir -p -- "$NODE"
    printf '{"name":"run-check-test-tools","private":true}\n' > "$NODE/package.json"
    npm install --prefix "$NODE" --no-audit --no-fund --no-save --loglevel=error \
        "eslint@$ESLINT_VERSION" "prettier@$PRETTIER_VERSION" \
        "typescript@$TYPESCRIPT_VERSION" "vitest@$VITEST_VERSION" "vite@$VITE_VERSION"
    printf '%s' "$want" > "$NODE/.installed"
fi
printf 'eslint %s\n' "$("$NODE/node_modules/.bin/eslint" --version)" >&2
printf 'prettier %s\n' "$("$NODE/node_modules/.bin/prettier" --version)" >&2
printf 'tsc %s\n' "$("$NODE/node_modules/.bin/tsc" --version)" >&2
printf '%s\n' "$("$NODE/node_modules/.bin/vitest" --version)" >&2

# The SARIF multitool: a self-contained .NET program in an npm package (no
# .NET needed); npm does not mark it executable.
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    SARIF=$TOOLS/sarif
    MULTITOOL=$SARIF/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
    if [ "$(cat "$SARIF/.installed" 2>/dev/null)" != "$SARIF_MULTITOOL_VERSION" ]; then
        say "installing the SARIF multitool $SARIF_MULTITOOL_VERSION into $SARIF"
        rm -rf -- "$SARIF"
        mkdir -p -- "$SARIF"
        printf '{"name":"run-check-sarif-tools","private":true}\n' > "$SARIF/package.json"
        npm install --prefix "$SARIF" --no-audit --no-fund --no-save --loglevel=error \
            "@microsoft/sarif-multitool-linux@$SARIF_MULTITOOL_VERSION"
        chmod +x -- "$MULTITOOL"
        printf '%s' "$SARIF_MULTITOOL_VERSION" > "$SARIF/.installed"
    fi
    DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$MULTITOOL" --version 2>&1 | head -n 1 >&2
fi
