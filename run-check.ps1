# run-check.ps1 - the "true entry" of run-check on Windows (PowerShell 5.1+ and 7).
#
# Finds the run-check binary and runs it with every argument unchanged; the
# script exits with the binary's exit code (0 PASS, 1 FAIL, 2 ERROR, 130).
# Lookup order:
#   1. $env:RUN_CHECK_BIN, if set (must be an existing file)
#   2. <dir of this script>\target\release\run-check.exe
#   3. run-check.exe on PATH (applications only)
#   4. in run-check's own checkout (<dir>\Cargo.toml's package is run-check):
#      cargo build --release --quiet --manifest-path <dir>\Cargo.toml, then 2.
#      Elsewhere (a copy in another project) it says how to install run-check.
# Build output goes to stderr. When nothing can be found or built it prints
# one line on stderr and exits 2.
#
# No param() block on purpose: every argument, including ones that start
# with "-" or "--", lands in $args and is passed through as is.

$ErrorActionPreference = 'Stop'

function Fail([string]$Message) {
    [Console]::Error.WriteLine("run-check.ps1: $Message")
    exit 2
}

$scriptDir = $PSScriptRoot
if (-not $scriptDir) {
    $scriptDir = Split-Path -Parent $MyInvocation.MyCommand.Path
}

# run-check.exe on Windows; plain run-check under PowerShell 7 on Linux/macOS.
$exeName = 'run-check'
if ($env:OS -eq 'Windows_NT') {
    $exeName = 'run-check.exe'
}

$bin = $null

# 1. explicit override
if ($env:RUN_CHECK_BIN) {
    if (-not (Test-Path -LiteralPath $env:RUN_CHECK_BIN -PathType Leaf)) {
        Fail "RUN_CHECK_BIN=$($env:RUN_CHECK_BIN) is not an existing file"
    }
    $bin = $env:RUN_CHECK_BIN
}

# 2. a release build next to this script
if (-not $bin) {
    $candidate = Join-Path (Join-Path (Join-Path $scriptDir 'target') 'release') $exeName
    if (Test-Path -LiteralPath $candidate -PathType Leaf) {
        $bin = $candidate
    }
}

# 3. run-check on PATH (applications only, never a script such as this one)
if (-not $bin) {
    $cmd = Get-Command $exeName -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($cmd) {
        $bin = $cmd.Path
    }
}

# 4. build it
if (-not $bin) {
    $manifest = Join-Path $scriptDir 'Cargo.toml'
    # Build only in run-check's own checkout: a copy of this script in
    # another Cargo project must not build that project, which holds no
    # run-check to find afterwards.
    $own = (Test-Path -LiteralPath $manifest -PathType Leaf) -and
        (Select-String -LiteralPath $manifest -Pattern '^name = "run-check"$' -Quiet)
    if (-not $own) {
        Fail "no run-check binary found (not $scriptDir\target\release\$exeName, not on PATH): install run-check (docs/install.md of its repository: a release's package, or cargo install --path <run-check checkout>), or set RUN_CHECK_BIN"
    }
    $cargo = Get-Command 'cargo' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if (-not $cargo) {
        Fail 'no run-check binary found and cargo is not installed (install Rust from https://rustup.rs or set RUN_CHECK_BIN)'
    }
    [Console]::Error.WriteLine('run-check.ps1: building run-check (cargo build --release) ...')
    $ErrorActionPreference = 'Continue'   # see the note before running the binary
    # cargo writes its messages to stderr; anything on stdout is sent to
    # stderr too, so that stdout carries only run-check's own output.
    & $cargo.Path build --release --quiet --manifest-path $manifest | ForEach-Object { [Console]::Error.WriteLine($_) }
    if ($LASTEXITCODE -ne 0) {
        Fail 'cargo build --release failed (see the errors above)'
    }
    $targetDir = $env:CARGO_TARGET_DIR
    if (-not $targetDir) {
        $targetDir = Join-Path $scriptDir 'target'
    }
    $bin = Join-Path (Join-Path $targetDir 'release') $exeName
    if (-not (Test-Path -LiteralPath $bin -PathType Leaf)) {
        Fail "cargo build succeeded but $bin is missing"
    }
}

# 'Continue' here: under 'Stop', Windows PowerShell 5.1 turns the first line a
# native program writes to a redirected stderr into a terminating error.
# try/catch still catches a program that cannot be started at all.
$ErrorActionPreference = 'Continue'
try {
    & $bin @args
} catch {
    Fail "cannot run ${bin}: $($_.Exception.Message)"
}
exit $LASTEXITCODE
