"""Workload L: what located feedback buys an agent (bench/README.md, docs/benchmarks.md).

A held-fixed set of small projects (tasks/<name>/clean/, each with its
checks.toml) and, per project, a patch that introduces located defects
(tasks/<name>/defects.patch) with the table of their fixes
(tasks/<name>/defects.json). Three scripted agents repair the patched
project, one problem per round, each from a different input:

- hook: the `reason` of `run-check agent hook claude Stop`;
- exit: only the gate's exit code, so it must search the files itself;
- raw: the checks' own commands run directly, one after the other as a
  `check` script with `set -e` would, their output cut at 2,000 characters.

The agents are deliberately simple. A fix is applied only where the agent's
input led it: the defects table keys each fix by the locations a reader of
the tools' output would be sent to (the changed line, the assertion that
catches it, the line a type checker names), and a formatter's defect by its
file alone (formatters name no line). Each defect changes one line into
another, so a fix restores that one line from the clean project.

Python 3.11 standard library only; the tools are installed by ensure_tools()
into bench/.peers/feedback/ at pinned versions.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"

# The tools the tasks' checks run (the pins of scripts/install-test-tools.sh).
PY_TOOLS = {"ruff": "0.17.6", "mypy": "2.4.1", "pytest": "9.2.0", "black": "26.10.1"}
NPM_TOOLS = {"eslint": "10.15.0", "prettier": "3.10.1", "typescript": "5.9.3"}
# Claude Code shows a failing command's output cut; the contract
# fixes the cut at 2,000 characters (the first ones are kept).
RAW_CUT = 2000
# More rounds than any task has defects: an agent still red after this many
# is reported as not reaching green (it never is: each stuck agent stops
# earlier, when its input locates nothing it can fix).
ROUND_CAP = 12
GIT_IDENT = ["-c", "user.name=bench", "-c", "user.email=bench@localhost",
             "-c", "commit.gpgsign=false", "-c", "gc.auto=0"]
# A path with an extension, then `:line` or tsc's `(line,col)`, or nothing.
LOCATION = re.compile(r"(?P<path>/?(?:[\w.-]+/)*[\w.-]+\.(?:py|c|h|js|mjs|cjs|ts|json|toml))"
                      r"(?::(?P<line>\d+)|\((?P<tline>\d+),\d+\))?")
# eslint's stylish format: a file on a line of its own, then `  line:col  ...`.
STYLISH_ROW = re.compile(r"^\s+(?P<line>\d+):\d+\s")


class TaskError(Exception):
    """A task could not be set up; the bench reports it as a setup error."""


@dataclass
class Defect:
    kind: str
    file: str
    line: int
    at: list[str]  # "path:line", or "path" for a formatter's file-level report
    fixed: bool = False


@dataclass
class Task:
    name: str
    language: str
    clean: Path
    patch: Path
    defects: list[Defect]
    checks: list[dict]


@dataclass
class Outcome:
    agent: str
    task: str
    defects: int
    green: bool = False
    rounds: int = 0       # inputs read that led to a repair, plus the one that said green
    chars: int = 0        # characters of input read, all rounds
    files_opened: int = 0  # the exit-code agent's search
    stuck: str = ""       # why the agent stopped red
    reads: list[str] = field(default_factory=list)  # what it read, round by round
    # How many of the task's defects the first read locates: what an agent
    # that repairs everything it is shown could repair in one round.
    first_located: int = 0


def load_tasks() -> list[Task]:
    tasks = []
    for folder in sorted(p for p in TASKS_DIR.iterdir() if p.is_dir()):
        meta = json.loads((folder / "defects.json").read_text())
        config = tomllib.loads((folder / "clean" / "checks.toml").read_text())
        defects = [Defect(d["kind"], d["file"], d["line"], d["at"]) for d in meta["defects"]]
        if not 1 <= len(defects) <= 6:
            raise TaskError(f"{folder.name}: {len(defects)} defects, not 1-6")
        tasks.append(Task(folder.name, meta["language"], folder / "clean",
                          folder / "defects.patch", defects, config["check"]))
    return tasks


def run(argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None,
        timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if stdin is None else subprocess.PIPE,
                          text=True, timeout=timeout)


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *GIT_IDENT, *args], cwd=repo, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise TaskError(f"git {' '.join(args)} in {repo}: {proc.stderr.strip()}")
    return proc.stdout


def fresh_copy(task: Task, where: Path) -> Path:
    """The clean project committed in a new repository: the session's base."""
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(task.clean, where)
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "clean")
    return where


def apply_defects(task: Task, repo: Path) -> None:
    """Applies the patch and checks it changed exactly the table's lines."""
    git(repo, "apply", "--whitespace=nowarn", str(task.patch))
    changed = set()
    for path in git(repo, "diff", "--name-only").split():
        new = (repo / path).read_text().split("\n")
        old = (task.clean / path).read_text().split("\n")
        if len(new) != len(old):
            raise TaskError(f"{task.name}: the patch changes {path}'s line count")
        changed |= {(path, i + 1) for i, (a, b) in enumerate(zip(old, new)) if a != b}
    table = {(d.file, d.line) for d in task.defects}
    if changed != table:
        raise TaskError(f"{task.name}: the patch changes {sorted(changed)}, the table "
                        f"lists {sorted(table)}")


def repair(task: Task, repo: Path, defect: Defect) -> None:
    """Restores the defect's one line from the clean project."""
    path = repo / defect.file
    lines = path.read_text().split("\n")
    lines[defect.line - 1] = (task.clean / defect.file).read_text().split("\n")[defect.line - 1]
    path.write_text("\n".join(lines))
    defect.fixed = True


def relative(path: str, repo: Path) -> str:
    for root in (str(repo) + "/", os.path.realpath(repo) + "/"):
        if path.startswith(root):
            return path[len(root):]
    return path.removeprefix("./")


def locations(text: str, repo: Path) -> list[tuple[str, int | None]]:
    """Every `path:line` (or tsc's `path(line,col)`, eslint's stylish rows
    under their file, or a bare path) in the text, in reading order."""
    found = []
    current = None
    for row in text.split("\n"):
        stylish = STYLISH_ROW.match(row)
        if stylish and current:
            found.append((current, int(stylish["line"])))
            continue
        current = None
        for m in LOCATION.finditer(row):
            line = m["line"] or m["tline"]
            path = relative(m["path"], repo)
            found.append((path, int(line) if line else None))
        if row.strip().startswith("/") and len(row.split()) == 1:
            current = relative(row.strip(), repo)
    return found


def located(text: str, task: Task, repo: Path) -> int:
    """How many of the task's defects a location in the text keys."""
    keys = {path if line is None else f"{path}:{line}" for path, line in locations(text, repo)}
    return sum(1 for d in task.defects if keys.intersection(d.at))


def first_fix(text: str, task: Task, repo: Path) -> Defect | None:
    """The first location in the text that keys a fix of an open defect."""
    for path, line in locations(text, repo):
        key = path if line is None else f"{path}:{line}"
        for defect in task.defects:
            if not defect.fixed and key in defect.at:
                return defect
    return None


def reset(task: Task) -> None:
    for defect in task.defects:
        defect.fixed = False


# --------------------------------------------------------------------------
# the three agents


@dataclass
class Setting:
    binary: Path
    env: dict[str, str]
    tmp: Path


def gate_code(repo: Path, s: Setting) -> int:
    proc = run([str(s.binary), "--worktree", str(repo), "--mode", "strict", "--quiet",
                "--format", "json", "--out", os.devnull], repo, s.env)
    if proc.returncode not in (0, 1):
        raise TaskError(f"the gate of {repo.name} exited {proc.returncode}: "
                        f"{proc.stdout.strip()[-300:]}")
    return proc.returncode


def hook(repo: Path, s: Setting, event: str, session: str, **extra: object) -> dict:
    payload = json.dumps({"session_id": session, "cwd": str(repo), "hook_event_name": event,
                          "transcript_path": str(s.tmp / "transcript.jsonl"), **extra})
    env = {**s.env, "CLAUDE_PROJECT_DIR": str(repo)}
    proc = run([str(s.binary), "agent", "hook", "claude", event], repo, env, stdin=payload)
    if proc.returncode != 0:
        raise TaskError(f"agent hook claude {event} in {repo.name} exited {proc.returncode}: "
                        f"{proc.stderr.strip()[-300:]}")
    text = proc.stdout.strip()
    try:
        return json.loads(text) if text else {}
    except ValueError as err:
        raise TaskError(f"agent hook claude {event} printed no JSON: {text[:200]}") from err


def hook_agent(task: Task, s: Setting) -> Outcome:
    """Reads only the reason of each blocked stop and repairs the first
    location in it that keys an open defect's fix."""
    out = Outcome("hook", task.name, len(task.defects))
    repo = fresh_copy(task, s.tmp / f"{task.name}-hook")
    session = f"bench-{task.name}"
    hook(repo, s, "SessionStart", session, source="startup")
    apply_defects(task, repo)
    active = False
    for _ in range(ROUND_CAP):
        reply = hook(repo, s, "Stop", session, stop_hook_active=active)
        if reply.get("decision") != "block":
            out.chars += len(reply.get("systemMessage", ""))
            out.stuck = reply.get("systemMessage", "")
            break
        reason = reply.get("reason", "")
        out.chars += len(reason)
        if not out.reads:
            out.first_located = located(reason, task, repo)
        out.reads.append(reason)
        defect = first_fix(reason, task, repo)
        if defect is None:
            out.stuck = "the reason locates nothing it can fix: " + reason.split("\n")[0]
            break
        repair(task, repo, defect)
        out.rounds += 1
        active = True
    # Let go without a word to the user is FINISH: the hook's gate passed.
    out.green = not out.stuck or gate_code(repo, s) == 0
    if out.green:
        out.stuck = ""
    return out


def exit_agent(task: Task, s: Setting) -> Outcome:
    """Reads only the gate's exit code; on a failure it opens the project's
    files in a fixed order (git's sorted list), from where it last found a
    defect, and repairs the first defect of the first file that has one. It
    is granted a perfect eye: a defect is recognised as soon as its file is
    read. Its cost is what it opens."""
    out = Outcome("exit", task.name, len(task.defects))
    repo = fresh_copy(task, s.tmp / f"{task.name}-exit")
    apply_defects(task, repo)
    files = sorted(git(repo, "ls-files").split("\n")[:-1])
    cursor = 0
    for _ in range(ROUND_CAP):
        code = gate_code(repo, s)
        out.chars += len(str(code))
        if code == 0:
            out.green = True
            break
        while cursor < len(files):
            out.files_opened += 1
            out.chars += len((repo / files[cursor]).read_text())
            open_here = sorted((d for d in task.defects if not d.fixed and d.file == files[cursor]),
                               key=lambda d: d.line)
            if open_here:
                repair(task, repo, open_here[0])
                out.rounds += 1
                break
            cursor += 1
        else:
            out.stuck = "opened every file and found nothing"
            break
    return out


def raw_output(task: Task, repo: Path, s: Setting) -> tuple[str, bool]:
    """The checks' commands one after another, stopping at the first that
    fails, as a check script with `set -e` runs them: their output, and
    whether one failed."""
    text = ""
    for check in task.checks:
        proc = run(check["run"], repo / check.get("cwd", "."), s.env)
        text += proc.stdout
        if proc.returncode != 0:
            return text, True
    return text, False


def raw_agent(task: Task, s: Setting) -> Outcome:
    """Runs the tools itself and reads their output cut at RAW_CUT
    characters; repairs the first location in it that keys an open
    defect's fix."""
    out = Outcome("raw", task.name, len(task.defects))
    repo = fresh_copy(task, s.tmp / f"{task.name}-raw")
    apply_defects(task, repo)
    for _ in range(ROUND_CAP):
        text, failed = raw_output(task, repo, s)
        shown = text[:RAW_CUT]
        out.chars += len(shown)
        if not out.reads:
            out.first_located = located(shown, task, repo)
        out.reads.append(shown)
        if not failed:
            # The gate runs the same commands; it says whether they pass
            # read-only too.
            out.green = gate_code(repo, s) == 0
            break
        defect = first_fix(shown, task, repo)
        if defect is None:
            cut = " (cut)" if len(text) > RAW_CUT else ""
            out.stuck = f"the output{cut} locates nothing it can fix"
            break
        repair(task, repo, defect)
        out.rounds += 1
    return out


AGENTS = {"hook": hook_agent, "exit": exit_agent, "raw": raw_agent}


def run_all(binary: Path, env: dict[str, str], tmp: Path, jobs: int,
            progress=lambda text: None) -> tuple[list[Task], list[Outcome]]:
    """Every agent on every task, `jobs` at a time (each on its own copy of
    the task and its own repository; what is measured is rounds and
    characters, not time, so they may share the machine)."""
    tasks = load_tasks()
    tmp.mkdir(parents=True, exist_ok=True)

    def one(task: Task, name: str) -> Outcome:
        progress(f"L: {task.name} ({len(task.defects)} defects), {name} agent")
        mine = copy.deepcopy(task)
        reset(mine)
        # mypy's cache is one per agent: two mypy processes never write one.
        cache = {"MYPY_CACHE_DIR": f"{env['MYPY_CACHE_DIR']}-{name}"} \
            if "MYPY_CACHE_DIR" in env else {}
        out = AGENTS[name](mine, Setting(binary, {**env, **cache}, tmp))
        progress(f"L: {task.name}, {name} agent: {'green' if out.green else 'red'}, "
                 f"{out.rounds} rounds, {out.chars} characters")
        return out

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(one, task, name) for task in tasks for name in AGENTS]
        outcomes = [f.result() for f in futures]
    return tasks, outcomes


# --------------------------------------------------------------------------
# the tools the tasks' checks run


def ensure_tools(peers_dir: Path, progress=lambda text: None) -> list[Path]:
    """Installs the pinned Python and npm tools into peers_dir/feedback/
    (a venv, an npm prefix) unless they are there at those versions; returns
    the folders to put first on PATH. gcc, make and node are the machine's."""
    for tool in ("gcc", "make", "node", "npm"):
        if shutil.which(tool) is None:
            raise TaskError(f"`{tool}` not found on PATH (workload L's tasks need it)")
    root = peers_dir / "feedback"
    venv, npm = root / "venv", root / "npm"
    stamp = root / "versions.json"
    want = {**PY_TOOLS, **NPM_TOOLS}
    try:
        have = json.loads(stamp.read_text())
    except (OSError, ValueError):
        have = None
    if have != want:
        progress(f"L: installing {', '.join(f'{k}=={v}' for k, v in PY_TOOLS.items())} into "
                 f"{venv} and {', '.join(f'{k}@{v}' for k, v in NPM_TOOLS.items())} into {npm}")
        shutil.rmtree(root, ignore_errors=True)
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", *(f"{k}=={v}" for k, v in PY_TOOLS.items())],
            ["npm", "install", "--prefix", str(npm), "--ignore-scripts", "--no-audit",
             "--no-fund", "--silent", *(f"{k}@{v}" for k, v in NPM_TOOLS.items())],
        ]
        for argv in steps:
            proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=900)
            if proc.returncode != 0:
                tail = proc.stdout.strip().splitlines()[-1:] or ["no output"]
                raise TaskError(f"`{' '.join(argv[:3])} …` failed (exit {proc.returncode}): "
                                f"{tail[0]}")
        stamp.write_text(json.dumps(want))
    return [venv / "bin", npm / "node_modules" / ".bin"]
