#!/usr/bin/env bash
# wine-smoke.sh - smoke-test the Windows build of run-check under wine.
#
# Usage: bash scripts/wine-smoke.sh
#
# No Windows machine is available, so this cross-builds run-check for
# x86_64-pc-windows-gnu and runs the .exe under wine (Debian's wine64, 8.0)
# against small checks.toml files, asserting what docs/running.md and
# docs/exit-codes.md promise (statuses, timeouts, exit codes) on the Windows
# process code (src/run/runner/windows.rs: one Job Object per check). Prints PASS/FAIL per case and a summary.
#
# Steps (each idempotent, so a warm re-run only runs the cases):
#   1. installs wine64 and mingw-w64 with apt-get when missing;
#   2. builds the .exe (normal target dir) and the bcryptprimitives.dll stub
#      (scripts/wine/bcryptprimitives.c, into target/wine/);
#   3. initialises a private wine prefix in target/wine/prefix;
#   4. runs the cases in a temporary directory.
#
# Exit: 0 every case passed; 1 a case failed; 2 the smoke test could not run
# (tools missing and not installable, build failure, broken prefix).
set -uo pipefail   # no -e: the cases run commands that are meant to fail

ROOT=$(cd -P -- "$(dirname -- "$0")/.." && pwd)
cd "$ROOT" || exit 2
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
TRIPLE=x86_64-pc-windows-gnu
EXE=$TARGET/$TRIPLE/release/run-check.exe
WORK=$ROOT/target/wine
STUB_SRC=$ROOT/scripts/wine/bcryptprimitives.c
STUB_DLL=$WORK/bcryptprimitives.dll
SCRIPT_START=$(date +%s%3N)

say() { printf 'wine-smoke: %s\n' "$*" >&2; }
cannot() { say "cannot run: $*"; exit 2; }
now_ms() { date +%s%3N; }

mkdir -p -- "$WORK" || cannot "cannot create $WORK"

# Two runs at once would share the prefix and kill each other's wineserver at
# the end; serialise them. Wine commands get `9>&-` so that no wine process
# (the wineserver daemon outlives a command) keeps holding the lock.
exec 9>"$WORK/.lock"
if ! flock -n 9; then
    say "another wine-smoke run holds $WORK/.lock; waiting"
    flock 9
fi

# ---------------------------------------------------------------------------
# 1. Tools
# ---------------------------------------------------------------------------

# Debian's wine64 package has no /usr/bin/wine (that is the `wine` package, which
# would also pull in 32-bit wine); its loader lives in /usr/lib/wine.
find_tool() {
    local candidate
    for candidate in "$@"; do
        command -v -- "$candidate" 2>/dev/null && return 0
    done
    return 1
}
find_wine() { find_tool wine64 /usr/lib/wine/wine64 wine; }
find_wineserver() { find_tool wineserver64 /usr/lib/wine/wineserver64 wineserver /usr/lib/wine/wineserver; }

if ! find_wine >/dev/null || ! find_wineserver >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
    [ "$(id -u)" = 0 ] || cannot "wine64 or mingw-w64 is missing and this is not root: run 'apt-get install -y wine64 mingw-w64' as root"
    command -v apt-get >/dev/null || cannot "wine64 or mingw-w64 is missing and there is no apt-get to install them"
    say "installing wine64 and mingw-w64 with apt-get (log: $WORK/apt.log)"
    apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wine64 mingw-w64; }
    # A fresh machine may have no package lists yet: update only when needed.
    { apt_install || { apt-get update -q && apt_install; }; } >"$WORK/apt.log" 2>&1 \
        || cannot "apt-get install wine64 mingw-w64 failed (see $WORK/apt.log)"
fi
WINE=$(find_wine) || cannot "wine64 was installed but its loader was not found"
WINESERVER=$(find_wineserver) || cannot "wine64 was installed but wineserver was not found"

# rustup cannot download targets here; the std for windows-gnu must be present.
SYSROOT=$(rustc --print sysroot 2>/dev/null) || cannot "rustc not found"
[ -d "$SYSROOT/lib/rustlib/$TRIPLE" ] \
    || cannot "the Rust target $TRIPLE is not installed: rustup target add $TRIPLE"

# ---------------------------------------------------------------------------
# 2. Build
# ---------------------------------------------------------------------------

# No CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER here: rustc's default linker for
# this target already is x86_64-w64-mingw32-gcc (from mingw-w64), and cargo
# fingerprints the variable, so setting it would make this script and a plain
# `cargo build --target x86_64-pc-windows-gnu` relink each other's build
# (minutes with thin LTO on 2 cores).
say "building run-check.exe ($TRIPLE, release)"
BUILD_START=$(now_ms)
cargo build --quiet --release --target "$TRIPLE" || cannot "cargo build --release --target $TRIPLE failed"
[ -f "$EXE" ] || cannot "the build did not produce $EXE"
say "build took $(( ($(now_ms) - BUILD_START) / 1000 ))s"

# Rust's std (1.78+) seeds its RNG with ProcessPrng from bcryptprimitives.dll,
# which wine 8 lacks: without the stub the exe does not even load. See the
# comment in the .c file. Rebuilt only when the source is newer.
if [ ! -f "$STUB_DLL" ] || [ "$STUB_SRC" -nt "$STUB_DLL" ]; then
    say "building the bcryptprimitives.dll stub"
    x86_64-w64-mingw32-gcc -shared -O2 -Wall -o "$STUB_DLL.tmp" "$STUB_SRC" -ladvapi32 \
        || cannot "x86_64-w64-mingw32-gcc could not build $STUB_DLL"
    mv -f -- "$STUB_DLL.tmp" "$STUB_DLL" || cannot "cannot write $STUB_DLL"
fi

# ---------------------------------------------------------------------------
# 3. Wine prefix
# ---------------------------------------------------------------------------

export WINEPREFIX=$WORK/prefix
export WINEARCH=win64
export WINEDEBUG=-all     # wine's fixme/err chatter would pollute run-check's stderr
export DISPLAY=           # no GUI: wineboot must not open windows or wait for one
# Don't offer to download wine-mono / wine-gecko (a dialog, and no network).
export WINEDLLOVERRIDES="mscoree,mshtml="

if [ ! -f "$WINEPREFIX/system.reg" ]; then
    say "initialising the wine prefix $WINEPREFIX (log: $WORK/wineboot.log)"
    # wineboot complains about syswow64\rundll32.exe: 64-bit-only wine has no
    # 32-bit side, which run-check does not need.
    { "$WINE" wineboot --init && "$WINESERVER" -w; } >"$WORK/wineboot.log" 2>&1 9>&-
    [ -f "$WINEPREFIX/system.reg" ] || cannot "wineboot did not create $WINEPREFIX (see $WORK/wineboot.log)"
fi
# System32 rather than next to the exe: the exe then runs straight from cargo's
# target dir and the stub never lands beside a real build output.
SYSTEM32=$WINEPREFIX/drive_c/windows/system32
cmp -s -- "$STUB_DLL" "$SYSTEM32/bcryptprimitives.dll" \
    || cp -f -- "$STUB_DLL" "$SYSTEM32/bcryptprimitives.dll" \
    || cannot "cannot copy the stub into $SYSTEM32"

# ---------------------------------------------------------------------------
# 4. Cases
# ---------------------------------------------------------------------------

# Keep this prefix's wineserver (and wine's background services) up between the
# cases instead of restarting them for each run-check.exe (wine's default is
# 3 s). Bounded, so a killed script leaves nothing running for long; cleanup
# ends it at once.
"$WINESERVER" -p30 >/dev/null 2>&1 9>&-

# The real interpreter, not a version-manager shim (pyenv's costs ~0.2 s per
# call, and the cases make ~30).
PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || cannot "python3 not found"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/run-check-wine.XXXXXX") || cannot "mktemp failed"
FAILED_CASES=()
PASSED=0

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    # Ends whatever is left in *this* prefix (a surviving check, an idle
    # wineserver); other prefixes are not touched.
    "$WINESERVER" -k >/dev/null 2>&1
    if [ ${#FAILED_CASES[@]} -eq 0 ]; then
        rm -rf -- "$TMP"
    else
        say "kept the case directories for inspection: $TMP"
    fi
}
trap cleanup EXIT

# new_case NAME: a fresh worktree $TMP/NAME (cwd); outputs go beside it, never
# into it, so they cannot count as a worktree modification (docs/read-only.md).
new_case() {
    CASE=$1
    CASE_ERRORS=()
    CASE_START=$(now_ms)
    DIR=$TMP/$CASE
    OUT=$TMP/$CASE.stdout
    ERR=$TMP/$CASE.stderr
    EV=$DIR/ev.json
    mkdir -p -- "$DIR" || cannot "cannot create $DIR"
    cd -- "$DIR" || cannot "cannot enter $DIR"
}

# run_exe [--guard SECONDS] ARGS...: runs run-check.exe in the case dir; sets RC.
# The guard keeps a broken build (e.g. a kill that does not work) from hanging
# the smoke test: `timeout` exits 124 then.
run_exe() {
    local guard=60
    if [ "$1" = --guard ]; then guard=$2; shift 2; fi
    timeout -k 5 "$guard" "$WINE" "$EXE" "$@" >"$OUT" 2>"$ERR" 9>&-
    RC=$?
}

# ev EXPR: a value of the case's evidence, as JSON (strings unquoted).
# In EXPR, `d` is the document and `c` maps check names to checks.
ev() {
    "$PYTHON" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    c = {check["name"]: check for check in d["checks"]}
    v = eval(sys.argv[2])
except Exception as err:
    v = "<%s: %s>" % (type(err).__name__, err)
print(v if isinstance(v, str) else json.dumps(v))
' "$EV" "$1"
}

fail_because() { CASE_ERRORS+=("$*"); }
# expect LABEL EXPECTED ACTUAL
expect() {
    [ "$3" = "$2" ] || fail_because "$1: expected '$2', got '$3'"
}
# expect_has LABEL NEEDLE HAYSTACK
expect_has() {
    case $3 in *"$2"*) ;; *) fail_because "$1: expected to contain '$2', got '$3'" ;; esac
}
expect_hasnt() {
    case $3 in *"$2"*) fail_because "$1: expected not to contain '$2', got '$3'" ;; *) ;; esac
}
# expect_match LABEL ERE ACTUAL
expect_match() {
    [[ $3 =~ $2 ]] || fail_because "$1: expected to match /$2/, got '$3'"
}

end_case() {
    local description=$1 line took
    took=$(( ($(now_ms) - CASE_START) / 100 ))
    took="$((took / 10)).$((took % 10))s"
    cd -- "$TMP" || exit 2
    if [ ${#CASE_ERRORS[@]} -eq 0 ]; then
        printf 'PASS  %s (%s)\n' "$description" "$took"
        PASSED=$((PASSED + 1))
    else
        printf 'FAIL  %s (%s)\n' "$description" "$took"
        for line in "${CASE_ERRORS[@]}"; do printf '        %s\n' "$line"; done
        if [ -s "$ERR" ]; then
            printf '        stderr of run-check:\n'
            sed 's/^/          | /' "$ERR" | head -n 20
        fi
        FAILED_CASES+=("$CASE")
    fi
}

say "wine: $("$WINE" --version 2>/dev/null 9>&- || echo unknown), prefix: $WINEPREFIX"
say "cases run in $TMP"

# --- --version ----------------------------------------------------------------
new_case version
run_exe --version
expect "exit code" 0 "$RC"
VERSION=$(sed -n '/^version *= *"/{s/^version *= *"\(.*\)"/\1/p;q}' "$ROOT/Cargo.toml")
expect "stdout" "run-check $VERSION" "$(tr -d '\r' <"$OUT")"
end_case "--version exits 0 and prints run-check $VERSION"

# --- a passing and a failing check ------------------------------------------
new_case pass-fail
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["cmd"]
[[check]]
name = "ok"
run = ["cmd", "/c", "exit 0"]
[[check]]
name = "bad"
run = ["cmd", "/c", "exit 3"]
EOF
run_exe --format json --out ev.json
expect "exit code" 1 "$RC"
expect "ok.status" pass "$(ev 'c["ok"]["status"]')"
expect "ok.exit_code" 0 "$(ev 'c["ok"]["exit_code"]')"
expect "bad.status" fail "$(ev 'c["bad"]["status"]')"
expect "bad.exit_code" 3 "$(ev 'c["bad"]["exit_code"]')"
expect "bad.timed_out" false "$(ev 'c["bad"]["timed_out"]')"
expect "ok.program" 'C:\windows\system32\cmd.exe' "$(ev 'c["ok"]["program"]')"
expect "summary.exit_code" 1 "$(ev 'd["summary"]["exit_code"]')"
expect "summary.banner" "1 of 2 checks failed: bad" "$(ev 'd["summary"]["banner"]')"
expect "last stderr line (banner)" "1 of 2 checks failed: bad" "$(tr -d '\r' <"$ERR" | tail -n 1)"
expect "stdout with --out" "" "$(cat "$OUT")"
end_case "pass + fail (cmd /c exit 3): exit 1, statuses, exit_code 3, banner"

# --- a missing program --------------------------------------------------------
new_case missing-program
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["no-such-program-xyz"]
[[check]]
name = "ghost"
run = ["no-such-program-xyz", "--help"]
EOF
run_exe --format json --out ev.json
expect "exit code" 2 "$RC"
expect "ghost.status" error "$(ev 'c["ghost"]["status"]')"
expect_has "ghost.error" "not found" "$(ev 'c["ghost"]["error"]')"
expect "summary.errored" 1 "$(ev 'd["summary"]["errored"]')"
end_case "allowed but missing program: status error, exit 2"

# --- a config error -----------------------------------------------------------
new_case config-error
cat >checks.toml <<'EOF'
version = 1
bogus = true
[settings]
allow = ["cmd"]
[[check]]
name = "never"
run = ["cmd", "/c", "exit 0"]
EOF
run_exe --format json --out ev.json
expect "exit code" 2 "$RC"
expect "stderr line count" 1 "$(grep -c . "$ERR")"
expect_has "stderr" "checks.toml" "$(cat "$ERR")"
expect_has "stderr" "bogus" "$(cat "$ERR")"
expect "stdout" "" "$(cat "$OUT")"
[ ! -e "$EV" ] || fail_because "an evidence file was written for a config error"
end_case "unknown config key: exit 2, one stderr line naming file and key"

# --- a timeout: the Job Object kills the whole tree -------------------------
# cmd.exe starts ping.exe, so ping is a grandchild of run-check and shares the
# check's stdout pipe: only a tree kill (the Job Object) ends it, and only then
# do the pipes reach end-of-file. Wine processes are Linux processes, so ps sees
# them; the unusual count 97 marks ours.
new_case timeout
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["cmd"]
[[check]]
name = "slow"
run = ["cmd", "/c", "ping -n 97 127.0.0.1"]
timeout = "2s"
EOF
# Live (not zombie) processes whose command line has the marker. The bracket
# keeps grep from matching its own command line.
ping_alive() {
    # shellcheck disable=SC2009  # pgrep cannot skip zombies (wine's killed, unreaped processes)
    ps -eo stat=,args= | grep -E '^[^Z][^ ]* .*ping.* -n 9[7] 127\.0\.0\.1' | grep -c .
}
[ "$(ping_alive)" -eq 0 ] || fail_because "a ping.exe with the marker was already running before the case"
started=$(now_ms)
# In the background the function runs in a subshell: pass RC out as its status.
(run_exe --guard 60 --format json --out ev.json; exit "$RC") &
runner=$!
seen_ping=0
while kill -0 "$runner" 2>/dev/null; do
    if [ "$seen_ping" = 0 ] && [ "$(ping_alive)" -gt 0 ]; then
        seen_ping=1
        ping_seen_ms=$(($(now_ms) - started))
    fi
    sleep 0.1
done
wait "$runner"
RC=$?
elapsed=$(($(now_ms) - started))
# Wine may need a moment to reap a killed process: wait up to 5 s.
for _ in $(seq 25); do
    [ "$(ping_alive)" -eq 0 ] && break
    sleep 0.2
done
survivors=$(ping_alive)
expect "exit code" 1 "$RC"
expect "slow.status" fail "$(ev 'c["slow"]["status"]')"
expect "slow.timed_out" true "$(ev 'c["slow"]["timed_out"]')"
expect "slow.error" null "$(ev 'c["slow"]["error"]')"
expect "summary.banner" "1 of 1 checks failed: slow" "$(ev 'd["summary"]["banner"]')"
[ "$seen_ping" = 1 ] || fail_because "ping.exe was never seen running: the case proves nothing"
[ "$elapsed" -lt 20000 ] || fail_because "the run took ${elapsed} ms (ping alone would take ~96 s)"
expect "ping.exe processes left after the run" 0 "$survivors"
end_case "timeout 2s of cmd -> ping: fail, timed_out, tree killed (ping up at ${ping_seen_ms:-never} ms, run took ${elapsed} ms)"

# --- excerpts -----------------------------------------------------------------
new_case excerpt
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["cmd"]
[[check]]
name = "say"
run = ["cmd", "/c", "echo hello & echo oops 1>&2"]
EOF
run_exe --format json --out ev.json
expect "exit code" 0 "$RC"
expect "say.status" pass "$(ev 'c["say"]["status"]')"
expect_has "say.stdout_excerpt" hello "$(ev 'c["say"]["stdout_excerpt"]')"
expect_hasnt "say.stdout_excerpt" oops "$(ev 'c["say"]["stdout_excerpt"]')"
expect_has "say.stderr_excerpt" oops "$(ev 'c["say"]["stderr_excerpt"]')"
expect "summary.banner" "All checks passed!" "$(ev 'd["summary"]["banner"]')"
expect "read_only" '{"verified": true, "modified": []}' \
    "$(ev '{k: d["contracts"]["read_only"][k] for k in ("verified", "modified")}')"
end_case "stdout/stderr excerpts captured separately (cmd /c echo hello)"

# --- read-only verification ---------------------------------------------------
# Read-only verification (docs/read-only.md) with Windows paths: a file
# created by a check fails the run.
new_case read-only
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["cmd"]
[[check]]
name = "writer"
run = ["cmd", "/c", "echo x > new.txt"]
EOF
run_exe --format json --out ev.json
expect "exit code" 1 "$RC"
expect "writer.status" pass "$(ev 'c["writer"]["status"]')"
expect "summary.banner" "Workspace modified by checks" "$(ev 'd["summary"]["banner"]')"
expect "read_only.modified" '["new.txt"]' "$(ev 'd["contracts"]["read_only"]["modified"]')"
end_case "a check that creates new.txt: exit 1, Workspace modified by checks"

# --- a worktree-relative batch script ----------------------------------------
# Windows-only path: a `./` program resolved in the worktree, and a .cmd file,
# which Rust's std runs through cmd.exe.
new_case script
mkdir -p tools
printf '@echo off\r\necho script-ran in %%CD%%\r\nexit /b 4\r\n' >tools/hi.cmd
cat >checks.toml <<'EOF'
version = 1
[settings]
allow = ["./tools/hi.cmd"]
[[check]]
name = "hi"
run = ["./tools/hi.cmd"]
EOF
run_exe --format json --out ev.json
expect "exit code" 1 "$RC"
expect "hi.status" fail "$(ev 'c["hi"]["status"]')"
expect "hi.exit_code" 4 "$(ev 'c["hi"]["exit_code"]')"
expect_has "hi.stdout_excerpt" "script-ran in" "$(ev 'c["hi"]["stdout_excerpt"]')"
end_case "worktree-relative ./tools/hi.cmd runs (exit 4 -> fail)"

# --- plain paths in evidence --------------------------------------------------
# std::fs::canonicalize gives verbatim paths (\\?\C:\...) on Windows. Wine's
# cmd.exe copes with one as its working directory, real Windows' cmd.exe does
# not ("UNC paths are not supported. Defaulting to Windows directory."), so
# this case reads the paths run-check reports rather than the behaviour.
new_case plain-paths
EV=$TMP/script/ev.json
DRIVE_PATH='^[A-Za-z]:[\]'   # C:\... and not \\?\C:\...
expect_match "meta.worktree" "$DRIVE_PATH" "$(ev 'd["meta"]["worktree"]')"
expect_match "checks[hi].program" "$DRIVE_PATH" "$(ev 'c["hi"]["program"]')"
end_case "evidence paths are plain drive paths (no \\\\?\\ verbatim prefix)"

# ---------------------------------------------------------------------------
# 5. Summary
# ---------------------------------------------------------------------------
TOTAL=$((PASSED + ${#FAILED_CASES[@]}))
SECONDS_TAKEN=$(( ($(now_ms) - SCRIPT_START + 500) / 1000 ))
if [ ${#FAILED_CASES[@]} -eq 0 ]; then
    printf 'wine-smoke: %d of %d cases passed (%ss)\n' "$PASSED" "$TOTAL" "$SECONDS_TAKEN"
    exit 0
fi
FAILED_LIST=$(printf '%s, ' "${FAILED_CASES[@]}")
printf 'wine-smoke: %d of %d cases failed: %s (%ss)\n' "${#FAILED_CASES[@]}" "$TOTAL" \
    "${FAILED_LIST%, }" "$SECONDS_TAKEN"
exit 1
