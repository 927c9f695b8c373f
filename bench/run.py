#!/usr/bin/env python3
"""Benchmark of run-check's runner against the SPEC section 12 targets.

    python3 bench/run.py [--runs N] [--bin PATH]

Workloads (see bench/README.md):
  A  200 trivial checks, --jobs 1, strict mode, vs a plain shell loop of the
     same 200 commands: target ratio of medians <= 1.2x.
  B  8 checks of `sleep 1`, --jobs 8: target median within 15% of 1 s.
  C  one check printing 1 GB: target run-check peak RSS <= 16 MiB.

Prints a markdown table and writes the same to bench/RESULTS.md. Exits 0 even
when a target is missed (this is a report); exits 2 on a setup error.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS = BENCH_DIR / "RESULTS.md"

OVERHEAD_CHECKS = 200
OVERHEAD_MAX_RATIO = 1.2
PARALLEL_CHECKS = 8
PARALLEL_IDEAL_S = 1.0
PARALLEL_TOLERANCE = 0.15
MEMORY_BYTES = 1_000_000_000
MEMORY_MAX_KIB = 16 * 1024
# No single run of any workload should come near this; a hang is an error.
RUN_TIMEOUT_S = 300

PR_SET_CHILD_SUBREAPER = 36


class SetupError(Exception):
    """The benchmark could not be set up or run; exit 2 with one line."""


@dataclass
class Row:
    workload: str
    measured: str
    baseline: str
    value: str
    target: str
    passed: bool
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# setup


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark run-check's runner overhead (SPEC section 12).")
    parser.add_argument("--runs", type=int, default=10,
                        help="timed runs per workload (default 10), after one warm-up")
    parser.add_argument("--bin", type=Path, default=None,
                        help="run-check binary to measure (default: cargo build --release "
                             "in the repo root, then target/release/run-check)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def build_release() -> Path:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise SetupError("`cargo` not found on PATH; install Rust or pass --bin PATH")
    print("bench: cargo build --release ...", file=sys.stderr, flush=True)
    proc = subprocess.run([cargo, "build", "--release", "--quiet"], cwd=REPO_ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("error")]
        why = (errors or lines or ["no output"])[0].strip()
        raise SetupError(f"`cargo build --release` failed (exit {proc.returncode}): {why}")
    return REPO_ROOT / "target" / "release" / "run-check"


def check_binary(path: Path) -> Path:
    path = path.resolve()
    if not path.is_file():
        raise SetupError(f"run-check binary not found: {path}")
    if not os.access(path, os.X_OK):
        raise SetupError(f"run-check binary is not executable: {path}")
    return path


def need_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SetupError(f"`{name}` not found on PATH; the benchmark needs it")
    return found


def make_repo(parent: Path, name: str, checks_toml: str) -> Path:
    """A fresh git repository holding checks.toml, committed, like a user's
    repo; the evidence file is ignored so every run starts from the same
    clean worktree."""
    repo = parent / name
    repo.mkdir()
    (repo / "checks.toml").write_text(checks_toml)
    (repo / ".gitignore").write_text("ev.json\n")
    git = need_tool("git")
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost",
             "-c", "commit.gpgsign=false"]
    for cmd in ([git, "init", "-q"],
                [git, "add", "checks.toml", ".gitignore"],
                [git, *ident, "commit", "-q", "-m", "bench"]):
        proc = subprocess.run(cmd, cwd=repo, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            why = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            raise SetupError(f"`{' '.join(cmd[1:2])}` in {repo} failed: {why[0]}")
    return repo


def toml_str(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string here


def checks_toml(allow: list[str], checks: list[tuple[str, list[str]]]) -> str:
    out = ["version = 1", "", "[settings]",
           f"allow = [{', '.join(toml_str(a) for a in allow)}]", ""]
    for name, run in checks:
        out += ["[[check]]", f"name = {toml_str(name)}",
                f"run = [{', '.join(toml_str(a) for a in run)}]", ""]
    return "\n".join(out)


def run_check_argv(binary: Path, repo: Path, jobs: int) -> list[str]:
    return [str(binary), "--config", str(repo / "checks.toml"), "--worktree", str(repo),
            "--mode", "strict", "--jobs", str(jobs), "--format", "json",
            "--out", str(repo / "ev.json"), "--quiet"]


# --------------------------------------------------------------------------
# measuring


def timed(argv: list[str], cwd: Path, stderr_path: Path | None = None) -> tuple[float, int]:
    """Wall time of one run (spawn to reap) and its exit code."""
    err = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            code = proc.wait(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise SetupError(f"`{argv[0]}` did not finish within {RUN_TIMEOUT_S} s")
        return time.perf_counter() - start, code
    finally:
        if stderr_path:
            err.close()


def last_line(path: Path) -> str:
    try:
        lines = [l for l in path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return "(no stderr)"
    return lines[-1].strip() if lines else "(no stderr)"


def run_check_timed(argv: list[str], repo: Path, label: str) -> float:
    err = repo.parent / f"{repo.name}.stderr"
    wall, code = timed(argv, repo, err)
    if code != 0:
        raise SetupError(f"workload {label}: run-check exited {code} (expected 0 PASS): "
                         f"{last_line(err)}")
    return wall


def verify_evidence(repo: Path, label: str, expected: int) -> dict:
    try:
        doc = json.loads((repo / "ev.json").read_text())
        summary = doc["summary"]
    except (OSError, ValueError, KeyError) as err:
        raise SetupError(f"workload {label}: cannot read evidence {repo / 'ev.json'}: {err}")
    try:
        summary["_read_only_verified"] = doc["contracts"]["read_only"]["verified"]
    except (KeyError, TypeError):
        summary["_read_only_verified"] = None
    if summary.get("passed") != expected:
        raise SetupError(f"workload {label}: evidence says {summary.get('passed')} of "
                         f"{expected} checks passed")
    return summary


def spawn_detached_measure(argv: list[str], cwd: Path, stderr_path: Path) -> tuple[float, int, int]:
    """Runs argv as a *grandchild* started by a small `sh`, with this process
    as child subreaper, then wait4()s it directly: (wall s, exit code,
    ru_maxrss KiB).

    Why not wait4 on a plain Popen child: Linux's ru_maxrss for a process
    includes the RSS high-water mark of the address space it exec()'d from.
    A child forked/vforked by Python therefore reports at least Python's own
    RSS (~14 MiB here), which would swamp a 16 MiB target. A child forked by
    `sh` starts from sh's ~1 MiB instead; that floor is measured (same method
    on `true`) and reported.

    How: an outer sh forks an inner sh in the background, prints its pid and
    exits, so the inner sh is re-parented to us. The inner sh first blocks on
    a pipe only we write to, so it cannot end (and be reaped by the outer sh)
    before it is our child; then it execs argv."""
    outer = ('err=$1; shift; exec 3<&0 0</dev/null; '
             'sh -c \'read _ <&3; exec 3<&-; exec "$@" </dev/null >/dev/null 2>"$0"\' '
             '"$err" "$@" >/dev/null & echo $!')
    go_read, go_write = os.pipe()
    try:
        sh = subprocess.run(["/bin/sh", "-c", outer, "sh", str(stderr_path), *argv], cwd=cwd,
                            stdin=go_read, stdout=subprocess.PIPE, text=True,
                            timeout=RUN_TIMEOUT_S)
        os.close(go_read)
        go_read = -1
        try:
            pid = int(sh.stdout.strip())
        except ValueError:
            raise SetupError(f"could not start `{argv[0]}` via /bin/sh (got {sh.stdout!r})")
        start = time.perf_counter()
        os.write(go_write, b"go\n")
        os.close(go_write)
        go_write = -1
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    finally:
        for fd in (go_read, go_write):
            if fd >= 0:
                os.close(fd)
    return wall, os.waitstatus_to_exitcode(status), usage.ru_maxrss


def become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_strays() -> None:
    """As a subreaper we inherit any orphan; collect the ones that ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def fmt_s(x: float) -> str:
    return f"{x:.3f} s"


def progress(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# workloads


def workload_overhead(binary: Path, tmp: Path, runs: int) -> Row:
    true = need_tool("true")
    need_tool("seq")
    checks = [(f"t{i:03d}", ["true"]) for i in range(OVERHEAD_CHECKS)]
    repo = make_repo(tmp, "overhead", checks_toml(["true"], checks))
    rc_argv = run_check_argv(binary, repo, jobs=1)
    # The absolute path keeps the shell from using its `true` builtin: a
    # builtin forks and execs nothing, so it would not be the same work.
    loop_argv = ["/bin/sh", "-c", f"for i in $(seq {OVERHEAD_CHECKS}); do {true}; done"]

    progress(f"A overhead: {OVERHEAD_CHECKS} checks, warm-up + {runs} runs each")
    run_check_timed(rc_argv, repo, "A")  # warm-up
    summary = verify_evidence(repo, "A", OVERHEAD_CHECKS)
    timed(loop_argv, repo)  # warm-up
    rc_times: list[float] = []
    loop_times: list[float] = []
    for i in range(runs):
        # Alternate which goes first, so drift in machine load hits both.
        if i % 2 == 0:
            rc_times.append(run_check_timed(rc_argv, repo, "A"))
            loop_times.append(timed(loop_argv, repo)[0])
        else:
            loop_times.append(timed(loop_argv, repo)[0])
            rc_times.append(run_check_timed(rc_argv, repo, "A"))
    rc_med, loop_med = median(rc_times), median(loop_times)
    ratio = rc_med / loop_med
    per_check_ms = (rc_med - loop_med) / OVERHEAD_CHECKS * 1000

    # Diagnostic only (no target): the same run with a single check, to split
    # run-check's extra time into a fixed part and a per-check part.
    one_repo = make_repo(tmp, "overhead-1", checks_toml(["true"], checks[:1]))
    one_argv = run_check_argv(binary, one_repo, jobs=1)
    one_loop = ["/bin/sh", "-c", f"for i in $(seq 1); do {true}; done"]
    run_check_timed(one_argv, one_repo, "A (1 check)")
    one_rc = median([run_check_timed(one_argv, one_repo, "A (1 check)") for _ in range(runs)])
    one_sh = median([timed(one_loop, one_repo)[0] for _ in range(runs)])
    fixed_ms = (one_rc - one_sh) * 1000
    slope_ms = ((rc_med - one_rc) - (loop_med - one_sh)) / (OVERHEAD_CHECKS - 1) * 1000
    return Row(
        workload=f"A. {OVERHEAD_CHECKS} × `true`, `--jobs 1`, strict",
        measured=f"{fmt_s(rc_med)} (min {fmt_s(min(rc_times))})",
        baseline=f"shell loop {fmt_s(loop_med)} (min {fmt_s(min(loop_times))})",
        value=f"{ratio:.2f}×",
        target=f"≤ {OVERHEAD_MAX_RATIO:.1f}×",
        passed=ratio <= OVERHEAD_MAX_RATIO,
        notes=[f"A: extra cost per check ≈ {per_check_ms:.2f} ms "
               f"((run-check median − loop median) / {OVERHEAD_CHECKS}). Split using a "
               f"1-check run (run-check {one_rc * 1000:.1f} ms vs loop {one_sh * 1000:.1f} ms): "
               f"fixed extra ≈ {fixed_ms:.1f} ms per run, marginal extra ≈ {slope_ms:.2f} ms "
               f"per check. run-check's own summary.duration_ms on the warm-up: "
               f"{summary.get('duration_ms')} ms."]
        + ([] if summary.get("_read_only_verified") else [
            "A: the evidence says `contracts.read_only.verified` = "
            f"{json.dumps(summary.get('_read_only_verified'))}: this binary did not run the "
            "strict-mode read-only snapshots (SPEC section 5), so their cost (two `git status` "
            "plus hashing) is not in these numbers yet."]),
    )


def workload_parallel(binary: Path, tmp: Path, runs: int) -> Row:
    need_tool("sleep")
    checks = [(f"s{i}", ["sleep", "1"]) for i in range(PARALLEL_CHECKS)]
    repo = make_repo(tmp, "parallel", checks_toml(["sleep"], checks))
    argv = run_check_argv(binary, repo, jobs=PARALLEL_CHECKS)
    progress(f"B parallel: {PARALLEL_CHECKS} × sleep 1, warm-up + {runs} runs")
    run_check_timed(argv, repo, "B")
    verify_evidence(repo, "B", PARALLEL_CHECKS)
    times = [run_check_timed(argv, repo, "B") for _ in range(runs)]
    med = median(times)
    ratio = med / PARALLEL_IDEAL_S
    return Row(
        workload=f"B. {PARALLEL_CHECKS} × `sleep 1`, `--jobs {PARALLEL_CHECKS}`",
        measured=f"{fmt_s(med)} (min {fmt_s(min(times))})",
        baseline=f"ideal {fmt_s(PARALLEL_IDEAL_S)}",
        value=f"{ratio:.3f}× ({(ratio - 1) * 100:+.1f}%)",
        target=f"within ±{PARALLEL_TOLERANCE * 100:.0f}%",
        passed=abs(ratio - 1) <= PARALLEL_TOLERANCE,
    )


def workload_memory(binary: Path, tmp: Path, runs: int) -> Row:
    need_tool("head")
    sh = need_tool("sh")
    checks = [("big", ["sh", "-c", f"head -c {MEMORY_BYTES} /dev/zero"])]
    repo = make_repo(tmp, "memory", checks_toml(["sh"], checks))
    argv = run_check_argv(binary, repo, jobs=1)
    err = tmp / "memory.stderr"
    notes: list[str] = []

    progress(f"C memory: 1 check printing {MEMORY_BYTES / 1e9:g} GB, warm-up + {runs} runs")
    exact = become_subreaper()
    if exact:
        floor_kib = spawn_detached_measure([shutil.which("true") or "/bin/true"], tmp, err)[2]

        def one() -> tuple[float, int]:
            wall, code, kib = spawn_detached_measure(argv, repo, err)
            if code != 0:
                raise SetupError(f"workload C: run-check exited {code} (expected 0 PASS): "
                                 f"{last_line(err)}")
            return wall, kib
    else:
        floor_kib = None
        notes.append("C: could not become child subreaper (not Linux?); the RSS below is "
                     "wait4 on a direct child and includes this Python process's RSS, so it "
                     "is an upper bound.")

        def one() -> tuple[float, int]:
            start = time.perf_counter()
            with open(err, "wb") as errf:
                proc = subprocess.Popen(argv, cwd=repo, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=errf)
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                raise SetupError(f"workload C: run-check exited {proc.returncode}: "
                                 f"{last_line(err)}")
            kib = usage.ru_maxrss
            if sys.platform == "darwin":
                kib //= 1024  # bytes there
            return wall, kib

    one()  # warm-up
    summary = verify_evidence(repo, "C", 1)
    samples = [one() for _ in range(runs)]
    reap_strays()
    walls = [w for w, _ in samples]
    rss = [k for _, k in samples]
    peak = max(rss)
    stdout_bytes = None
    try:
        doc = json.loads((repo / "ev.json").read_text())
        stdout_bytes = doc["checks"][0].get("stdout_bytes")
    except (OSError, ValueError, KeyError, IndexError):
        pass
    mb_s = MEMORY_BYTES / median(walls) / 1e6
    notes.append(
        f"C: peak RSS is wait4's ru_maxrss of the run-check process: the max over run-check "
        f"and its reaped descendants (here `sh` and `head`, ~1 MiB each). Max over {runs} "
        f"runs {peak / 1024:.1f} MiB, median {median(rss) / 1024:.1f} MiB"
        + (f"; measurement floor (same method on `true`) {floor_kib / 1024:.1f} MiB" if floor_kib else "")
        + f". Throughput ≈ {mb_s:,.0f} MB/s; evidence stdout_bytes = {stdout_bytes}; "
        f"summary.duration_ms (last run) = {summary.get('duration_ms')}.")
    return Row(
        workload="C. 1 check printing 1 GB",
        measured=f"{fmt_s(median(walls))} (min {fmt_s(min(walls))})",
        baseline="—",
        value=f"peak RSS {peak / 1024:.1f} MiB",
        target=f"≤ {MEMORY_MAX_KIB // 1024} MiB",
        passed=peak <= MEMORY_MAX_KIB,
        notes=notes,
    )


# --------------------------------------------------------------------------
# report


def machine_lines(binary: Path) -> list[str]:
    u = platform.uname()
    lines = [f"- machine: `{u.system} {u.release} {u.machine}` ({u.node})"]
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    lines.append(f"- nproc: {usable} (logical CPUs: {os.cpu_count()})")
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                lines.append(f"- CPU: {line.split(':', 1)[1].strip()}")
                break
    except OSError:
        pass
    try:
        one, five, _ = os.getloadavg()
        lines.append(f"- load average at start: {one:.2f} (1 min), {five:.2f} (5 min)")
    except OSError:
        pass
    version = subprocess.run([str(binary), "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip()
    rev = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    lines.append(f"- binary: `{binary}` ({version or 'unknown version'}; repo HEAD {rev or '?'}, "
                 "working tree may differ)")
    lines.append(f"- python: {platform.python_version()}")
    return lines


def render(rows: list[Row], machine: list[str], runs: int, started: str, elapsed: float,
           command: str) -> str:
    out = ["# run-check benchmark results", "",
           f"`{command}` — {started}, took {elapsed:.0f} s. "
           f"Medians of {runs} timed runs after one warm-up (min in parentheses). "
           "Targets: SPEC section 12. See bench/README.md for how to read this.", "",
           "| workload | run-check (median) | baseline / ideal | ratio / value | target | result |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.workload} | {r.measured} | {r.baseline} | {r.value} | {r.target} | "
                   f"{'PASS' if r.passed else 'FAIL'} |")
    notes = [n for r in rows for n in r.notes]
    if notes:
        out += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    out += ["", "Machine:", ""] + machine
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    t0 = time.perf_counter()
    try:
        binary = check_binary(args.bin if args.bin else build_release())
        need_tool("sh")
        machine = machine_lines(binary)
        with tempfile.TemporaryDirectory(prefix="run-check-bench-") as tmp:
            tmp_path = Path(tmp)
            rows = [workload_overhead(binary, tmp_path, args.runs),
                    workload_parallel(binary, tmp_path, args.runs),
                    workload_memory(binary, tmp_path, args.runs)]
    except SetupError as err:
        print(f"bench: setup error: {err}", file=sys.stderr)
        return 2
    except subprocess.TimeoutExpired as err:
        print(f"bench: setup error: `{err.cmd[0]}` timed out after {err.timeout} s",
              file=sys.stderr)
        return 2
    command = " ".join(["python3 bench/run.py", *argv]) if argv else "python3 bench/run.py"
    report = render(rows, machine, args.runs, started, time.perf_counter() - t0, command)
    print(report, end="")
    RESULTS.write_text(report)
    progress(f"wrote {RESULTS.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
