#!/usr/bin/env bash
# html-screenshot.sh - regenerate docs/img/html-report.png, the screenshot of
# the `html` report that docs/formats.md shows.
#
# Usage: bash scripts/html-screenshot.sh [RUN_CHECK]
#
# Runs a small sample gate in a temp directory with RUN_CHECK (default: the
# debug build, built first): five checks, three at a time; `build` runs the
# real gcc (after 0.4 s) on a C file with an error and warnings, and fails; `package`
# needs it, so it is skipped. Then `run-check report --format html` and
# headless Chromium (Debian's `chromium`, with the flags a machine without
# network needs) screenshot the page at 1200x900.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if [ $# -ge 1 ]; then
    run_check=$(realpath "$1")
else
    cargo build -q
    run_check=$repo/target/debug/run-check
fi
command -v chromium >/dev/null || { echo "html-screenshot.sh: chromium is not installed (apt-get install chromium)" >&2; exit 2; }
command -v gcc >/dev/null || { echo "html-screenshot.sh: gcc is not installed" >&2; exit 2; }

work=$(mktemp -d)
# The flaky check's counter, outside the worktree (the gate is read-only).
counter=$(mktemp)
trap 'rm -rf "$work" "$counter"' EXIT
cd "$work"
git init -q -b main
git -c user.name=sample -c user.email=sample@example.invalid commit -q --allow-empty -m init
mkdir src
cat > src/parse.c <<'EOF'
int parse(const char *text) {
    int unused;
    return lenght(text);
}

int count(void) {
    return missing + 1;
}
EOF
cat > checks.toml <<EOF
version = 1
[settings]
allow = ["sleep", "sh"]
jobs = 3

[[check]]
name = "fmt"
run = ["sleep", "0.3"]

[[check]]
name = "build"
# After a pause, so that its bar is wide enough to read whatever the cache.
run = ["sh", "-c", "sleep 0.4 && exec gcc -fsyntax-only -Wall -fdiagnostics-color=never src/parse.c"]
parser = "gcc"

[[check]]
name = "unit"
run = ["sleep", "1.2"]

[[check]]
name = "docs"
run = ["sleep", "0.5"]

[[check]]
name = "e2e"
# Fails its first attempt, passes its retry: a flaky check.
run = ["sh", "-c", "sleep 0.3; n=\$(cat \"\$1\"); echo x >> \"\$1\"; [ -n \"\$n\" ]", "e2e", "$counter"]
retries = 1

[[check]]
name = "package"
run = ["sleep", "0.1"]
needs = ["build"]
EOF
git add -A
git -c user.name=sample -c user.email=sample@example.invalid commit -q -m sample
"$run_check" --quiet --format json --out "$work/ev.json" || true
"$run_check" report "$work/ev.json" --format html --out "$work/page.html" || true
mkdir -p "$repo/docs/img"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars \
    --screenshot="$repo/docs/img/html-report.png" --window-size=1200,900 \
    "file://$work/page.html" 2>/dev/null
echo "wrote docs/img/html-report.png"
