#!/usr/bin/env bash
# install-test-tools.sh - install the real linters, formatters, test runners
# and build tools that the init tests run (tests/init.rs: init on sample
# projects, then its gate, clean and with defects; on projects configured to
# fix it must leave the tree unchanged), at pinned versions, into .tools/ of
# this repository (git-ignored); cmake and go, when missing, from Debian's
# packages.
#
#   .tools/python/    a venv with ruff, pytest, mypy and black, via its pip
#                     (the tests put .tools/python/bin first on PATH)
#   .tools/wheels/    the wheels of pytest and its dependencies, via pip
#                     download: tests/venv.rs makes virtualenvs of its own
#                     and installs pytest into them offline
#   .tools/mcp-wheels/ the wheels of the official MCP Python SDK (`mcp`)
#                     and its dependencies, via pip download
#   .tools/mcp/       a venv with `mcp`, installed offline from those wheels:
#                     tests/mcp.rs drives `run-check mcp` with its client
#   .tools/node/      eslint, prettier, typescript, vitest (with vite), tape
#                     and node-tap (`tap`), via `npm install --prefix` (the
#                     tests use .tools/node/node_modules; tests/init_node.rs
#                     runs a sample project's tsc, eslint, prettier and
#                     vitest; tests/diagnostics.rs runs tape and node-tap
#                     through the tap parser)
#   .tools/sarif/     Microsoft's SARIF multitool (Linux x86_64 only), via
#                     `npm install --prefix`: tests/sarif.rs validates the
#                     sarif report with GitHub's upload rules
#   cmake, ctest, go  Debian's packages cmake and golang-go, `apt-get install -y`
#                     when missing
#   tmux, chromium    Debian's packages, when missing: tests/terminal.rs
#                     reads run-check's screen in a tmux pane, tests/html.rs
#                     renders the html report in headless chromium
#   nginx             Debian's package nginx, when missing: its binary has
#                     the WebDAV module (PUT) built in, the remote cache's
#                     server in tests/cache_remote.rs (the tests start it on
#                     127.0.0.1 with a config of their own; the package's
#                     service is not used)
#   .tools/buildgrid/ a venv with BuildGrid (`buildgrid[database]`, pinned),
#                     the Remote Execution API server tests/remote.rs runs
#                     on loopback (tests/remote_cluster.py), with the
#                     worker tests/remote_worker.py
#   postgresql        Debian's package, when initdb is missing: BuildGrid's
#                     scheduler needs PostgreSQL (it refuses SQLite); the
#                     tests start a private instance on a Unix socket in
#                     their temp folder (the package's service is not used)
#                     (as root; the only tools installed outside .tools/)
#
# Usage: bash scripts/install-test-tools.sh     (idempotent: a warm re-run
# only checks the versions). The README's test command and .ci/run call it
# before `cargo test`: a test whose tool is missing fails (unless
# RUN_CHECK_TEST_SKIP_MISSING_TOOLS=1 asks to skip it, docs/development.md).
set -euo pipefail

RUFF_VERSION=0.17.6
PYTEST_VERSION=9.2.0
MYPY_VERSION=2.4.1
BLACK_VERSION=26.10.1
# The MCP client tests/mcp.rs drives the server with.
MCP_VERSION=2.3.0
ESLINT_VERSION=10.15.0
PRETTIER_VERSION=3.10.1
TYPESCRIPT_VERSION=5.9.3
# vitest 3 with vite 7: they run on node 20.
VITEST_VERSION=3.2.7
VITE_VERSION=7.3.8
SARIF_MULTITOOL_VERSION=5.7.0
# TAP producers the tap parser reads (node-tap 21 runs on node 20).
TAPE_VERSION=5.10.2
TAP_VERSION=21.8.0
# The Remote Execution server of tests/remote.rs (the 0.4 series PyPI
# serves; its `database` extra brings SQLAlchemy and psycopg2).
BUILDGRID_VERSION=0.4.4

ROOT=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
TOOLS=$ROOT/.tools
say() { printf 'install-test-tools: %s\n' "$*" >&2; }
# Each version is read whole before its first line is printed: with
# pipefail, `head` closing the pipe early makes the writer's SIGPIPE the
# script's exit status.
first_line() { printf '%s\n' "${1%%$'\n'*}" >&2; }

mkdir -p -- "$TOOLS"

# ruff, pytest, mypy and black in a venv: their console scripts run with
# the venv's python, so the tests need only put its bin/ on PATH.
PY=$TOOLS/python
# prek (pinned here): tests/integrations.rs runs `prek try-repo` on .pre-commit-hooks.yaml.
want="ruff==$RUFF_VERSION pytest==$PYTEST_VERSION mypy==$MYPY_VERSION black==$BLACK_VERSION prek==0.5.11"
if [ "$(cat "$PY/.installed" 2>/dev/null)" != "$want" ]; then
    say "installing $want into $PY"
    rm -rf -- "$PY"
    python3 -m venv "$PY"
    # shellcheck disable=SC2086 # $want is the list of requirements
    "$PY/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        $want
    printf '%s' "$want" > "$PY/.installed"
fi
# pytest's wheels for the virtualenvs tests/venv.rs makes: pip installs
# from them offline (`--no-index --find-links`), in a second or two.
WHEELS=$TOOLS/wheels
want="pytest==$PYTEST_VERSION"
if [ "$(cat "$WHEELS/.installed" 2>/dev/null)" != "$want" ]; then
    say "downloading the wheels of $want into $WHEELS"
    rm -rf -- "$WHEELS"
    "$PY/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
        --only-binary=:all: --dest "$WHEELS" "$want"
    printf '%s' "$want" > "$WHEELS/.installed"
fi
# The official MCP Python SDK, the real client of tests/mcp.rs: its wheels
# first (pinned, kept like pytest's), then a venv of its own installed from
# them offline, so that the client's dependencies never meet the linters'.
MCP_WHEELS=$TOOLS/mcp-wheels
want="mcp==$MCP_VERSION"
if [ "$(cat "$MCP_WHEELS/.installed" 2>/dev/null)" != "$want" ]; then
    say "downloading the wheels of $want into $MCP_WHEELS"
    rm -rf -- "$MCP_WHEELS"
    "$PY/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
        --only-binary=:all: --dest "$MCP_WHEELS" "$want"
    printf '%s' "$want" > "$MCP_WHEELS/.installed"
fi
MCP_PY=$TOOLS/mcp
if [ "$(cat "$MCP_PY/.installed" 2>/dev/null)" != "$want" ]; then
    say "installing $want into $MCP_PY"
    rm -rf -- "$MCP_PY"
    python3 -m venv "$MCP_PY"
    "$MCP_PY/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        --no-index --find-links "$MCP_WHEELS" "$want"
    printf '%s' "$want" > "$MCP_PY/.installed"
fi
printf 'mcp %s\n' "$("$MCP_PY/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')" >&2
"$PY/bin/ruff" --version >&2
"$PY/bin/pytest" --version >&2
"$PY/bin/mypy" --version >&2
first_line "$("$PY/bin/black" --version)"

# BuildGrid in a venv of its own (its pinned grpcio and protobuf stay out of
# the other tools' way); tests/remote_cluster.py runs with its python.
BG=$TOOLS/buildgrid
want="buildgrid[database]==$BUILDGRID_VERSION"
if [ "$(cat "$BG/.installed" 2>/dev/null)" != "$want" ]; then
    say "installing $want into $BG"
    rm -rf -- "$BG"
    python3 -m venv "$BG"
    "$BG/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$want"
    printf '%s' "$want" > "$BG/.installed"
fi
printf 'buildgrid %s\n' "$("$BG/bin/python" -c 'import importlib.metadata as m; print(m.version("buildgrid"))')" >&2

# eslint and prettier, with the package eslint's own flat config imports;
# typescript, vitest and vite for the sample npm project's gate; tape and
# node-tap, whose TAP the tap parser reads.
NODE=$TOOLS/node
want="eslint@$ESLINT_VERSION prettier@$PRETTIER_VERSION typescript@$TYPESCRIPT_VERSION vitest@$VITEST_VERSION vite@$VITE_VERSION tape@$TAPE_VERSION tap@$TAP_VERSION"
if [ "$(cat "$NODE/.installed" 2>/dev/null)" != "$want" ]; then
    say "installing $want into $NODE"
    rm -rf -- "$NODE"
    mkdir -p -- "$NODE"
    printf '{"name":"run-check-test-tools","private":true}\n' > "$NODE/package.json"
    npm install --prefix "$NODE" --no-audit --no-fund --no-save --loglevel=error \
        "eslint@$ESLINT_VERSION" "prettier@$PRETTIER_VERSION" \
        "typescript@$TYPESCRIPT_VERSION" "vitest@$VITEST_VERSION" "vite@$VITE_VERSION" \
        "tape@$TAPE_VERSION" "tap@$TAP_VERSION"
    printf '%s' "$want" > "$NODE/.installed"
fi
printf 'eslint %s\n' "$("$NODE/node_modules/.bin/eslint" --version)" >&2
printf 'prettier %s\n' "$("$NODE/node_modules/.bin/prettier" --version)" >&2
printf 'tsc %s\n' "$("$NODE/node_modules/.bin/tsc" --version)" >&2
printf '%s\n' "$("$NODE/node_modules/.bin/vitest" --version)" >&2
# `tap --version` looks for tap in the current directory's project.
for pkg in tape tap; do
    printf '%s %s\n' "$pkg" "$(node -p "require('$NODE/node_modules/$pkg/package.json').version")" >&2
done

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
    first_line "$(DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$MULTITOOL" --version 2>&1)"
fi

# Debian's packages of the build tools the init gate tests run, when
# missing: cmake (and ctest) for the CMake sample, golang-go for the Go one.
deb_install() {
    [ "$(id -u)" = 0 ] || { say "$* missing and this is not root: run 'apt-get install -y $*' as root"; exit 1; }
    command -v apt-get >/dev/null || { say "$* missing and there is no apt-get to install it"; exit 1; }
    say "installing $* with apt-get"
    apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }
    # A fresh machine may have no package lists yet: update only when needed.
    { apt_install "$@" || { apt-get update -q && apt_install "$@"; }; } >&2 \
        || { say "apt-get install $* failed"; exit 1; }
}
missing=
if ! command -v cmake >/dev/null || ! command -v ctest >/dev/null; then
    missing="$missing cmake"
fi
command -v go >/dev/null || missing="$missing golang-go"
# git-lfs: tests/readonly_filters.rs checks out a real LFS repository.
command -v git-lfs >/dev/null || missing="$missing git-lfs"
# nginx lives in /usr/sbin, which a non-root PATH may lack.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || missing="$missing nginx"
# tmux: tests/terminal.rs reads run-check's screen in a tmux pane.
command -v tmux >/dev/null || missing="$missing tmux"
# PostgreSQL for BuildGrid's scheduler: Debian keeps initdb and pg_ctl in
# /usr/lib/postgresql/VERSION/bin, off PATH.
if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    missing="$missing postgresql"
fi
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # the list of package names
    deb_install $missing
fi
# chromium: tests/html.rs renders the html report headless. With its
# recommended packages (fonts), unlike the others.
if ! command -v chromium >/dev/null; then
    [ "$(id -u)" = 0 ] || { say "chromium missing and this is not root: run 'apt-get install -y chromium' as root"; exit 1; }
    say "installing chromium with apt-get"
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
        || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; } >&2 \
        || { say "apt-get install chromium failed"; exit 1; }
fi
first_line "$(cmake --version)"
go version >&2
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
nginx_build=$("$NGINX" -V 2>&1)
first_line "$nginx_build"
case "$nginx_build" in
    *--with-http_dav_module*) ;;
    *) say "$NGINX has no WebDAV module (--with-http_dav_module)"; exit 1 ;;
esac
