#!/usr/bin/env python3
"""The agent's wait over one session: five stops of `run-check agent hook
claude Stop` on a project of four cached checks, one input file changed
before each stop (docs/benchmarks.md, "The agent's wait").

    python3 bench/session.py --bin target/release/run-check [--baseline OLD] [--rounds N] [--seconds S]

Each check sleeps S seconds (default 1.0: a check's own work) and its
`inputs` are its own file; before stop k the file of check k mod 4 is
edited, as an agent that fixes one thing per stop would. Each binary runs
the whole session (SessionStart, then five stops) in a fresh repository,
in turn (`--rounds` times, binaries alternating), and the report gives
each stop's wall time and the session's total, medians over the rounds.
Python 3.11 standard library only; needs git and sh.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKS = 4
STOPS = 5


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def project(parent: Path, seconds: float) -> Path:
    repo = parent / "project"
    (repo / "src").mkdir(parents=True)
    lines = ['[settings]', 'allow = ["./work.sh"]', "", "[agent]", "max_chars = 1000", ""]
    for i in range(CHECKS):
        (repo / "src" / f"part{i}.txt").write_text("0\n")
        lines += [
            "[[check]]",
            f'name = "part{i}"',
            f'run = ["./work.sh", "{i}"]',
            "cache = true",
            f'inputs = ["src/part{i}.txt"]',
            'parser = "none"',
            "",
        ]
    (repo / "checks.toml").write_text("\n".join(lines))
    work = repo / "work.sh"
    work.write_text(f"#!/bin/sh\nsleep {seconds}\ncat src/part$1.txt >/dev/null\n")
    work.chmod(0o755)
    (repo / ".gitignore").write_text("ev.json\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=b@b", "-c", "user.name=b", "commit", "-q", "-m", "project")
    return repo


def hook(binary: str, event: str, repo: Path, env: dict[str, str]) -> float:
    payload = {
        "session_id": "bench",
        "cwd": str(repo),
        "hook_event_name": event,
        "stop_hook_active": False,
        "transcript_path": str(repo / "transcript.jsonl"),
    }
    started = time.monotonic()
    done = subprocess.run(
        [binary, "agent", "hook", "claude", event],
        input=json.dumps(payload).encode(),
        cwd=repo,
        env=env,
        capture_output=True,
    )
    took = time.monotonic() - started
    reply = done.stdout.decode(errors="replace").strip()
    if done.returncode != 0 or "block" in reply:
        sys.exit(f"bench: setup error: {event} did not let the agent stop: {reply} {done.stderr[-400:]!r}")
    return took


def session(binary: str, seconds: float) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="run-check-session-") as tmp:
        tmp = Path(tmp)
        repo = project(tmp, seconds)
        env = dict(os.environ)
        env.update({
            "XDG_STATE_HOME": str(tmp / "state"),
            "XDG_CACHE_HOME": str(tmp / "cache"),
        })
        env.pop("CLAUDE_PROJECT_DIR", None)
        hook(binary, "SessionStart", repo, env)
        stops = []
        for stop in range(STOPS):
            part = repo / "src" / f"part{stop % CHECKS}.txt"
            part.write_text(f"{stop + 1}\n")
            stops.append(hook(binary, "Stop", repo, env))
        return stops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    binaries = {"this build": args.bin}
    if args.baseline:
        binaries["baseline"] = args.baseline
    times: dict[str, list[list[float]]] = {name: [] for name in binaries}
    for _ in range(args.rounds):
        for name, binary in binaries.items():
            times[name].append(session(binary, args.seconds))
    load = os.getloadavg()[0]
    print(f"{CHECKS} checks of `sleep {args.seconds}`, {STOPS} stops, one input changed per stop; "
          f"medians of {args.rounds} sessions each; load average {load:.1f} at the end\n")
    print("| binary | " + " | ".join(f"stop {i + 1}" for i in range(STOPS)) + " | session total |")
    print("|---|" + "---|" * (STOPS + 1))
    for name, sessions in times.items():
        per_stop = [statistics.median(s[i] for s in sessions) for i in range(STOPS)]
        total = statistics.median(sum(s) for s in sessions)
        cells = " | ".join(f"{t:.2f} s" for t in per_stop)
        print(f"| {name} | {cells} | {total:.2f} s (min {min(sum(s) for s in sessions):.2f} s) |")


if __name__ == "__main__":
    main()
