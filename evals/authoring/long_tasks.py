"""Building long-suite task files from a compact spec: setup steps, probe checkpoints whose expected
output is computed by running the reference deliverable through them, and the scripted solution.

    spec = TaskSpec(id=..., instruction=..., config=[...], probes=[...], reference=[...], ...)
    write_task(spec, Path("evals/suites/long"), cache_dir)

Every checkpoint is a `check_include_exclude` on a `vm_command_line` probe (a short Python program run
in the sandbox that prints one `<<repr>>` line). The expected text is the probe's output on the
reference deliverable, built locally from the fixtures: the reference scripts run in a scratch home,
the GUI apps' data files are written as the GUI steps leave them, then each probe runs there.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateact.evals.fixtures.build import build_fixtures

HOME = "/home/user"
FIXTURES = "https://fixtures.stateact.dev/office/"
PROBE_TIMEOUT_S = 60.0
"""Timeout of one probe or reference script while computing expected outputs."""
CONNECT_TRIES = 100
"""Tries (0.1 s apart) of the setup step that waits for a launched server's port."""
WINDOW_TRIES = 50
"""Tries (0.2 s apart) of the setup step that waits for a launched app's window."""

PRELUDE = (
    "import json\n"
    "def N(v):\n"
    "    if isinstance(v, bool) or v is None: return v\n"
    "    if isinstance(v, (int, float)): return round(float(v), 2)\n"
    "    if hasattr(v, 'isoformat'): return v.isoformat()[:10]\n"
    "    return str(v).strip()\n"
    "def out(v): print('<<' + repr(v) + '>>')\n"
)
"""Helpers every probe starts with: `N` normalises a cell value, `out` prints the checked value."""


# -- setup steps -----------------------------------------------------------------------------------
def shell(command: str) -> dict:
    return {"type": "execute", "parameters": {"command": command, "shell": True}}


def download(files: dict[str, str]) -> dict:
    """A download step: fixture file name -> path in the home."""
    return {
        "type": "download",
        "parameters": {"files": [{"url": FIXTURES + name, "path": path} for name, path in files.items()]},
    }


def launch(command: str) -> dict:
    return {"type": "launch", "parameters": {"command": command, "shell": True}}


def site_steps(
    port: int, archive: str = "site_www.zip", server: str = "server.py", private: str | None = None
) -> list[dict]:
    """Put the intranet site in place and serve it on `port`: `archive` holds the pages under www/ (the
    suite site's zip holds them at its top), `server` is the program (long_server.py needs server.py),
    `private` a fixture only the server reads (long_server.py --private), deleted once read."""
    programs = {"server.py": f"{HOME}/.site/server.py", server: f"{HOME}/.site/{server}"}
    unpack = "www" if archive == "site_www.zip" else "."
    files = {**programs, archive: f"{HOME}/.site/{archive}"}
    option = ""
    if private:
        files[private] = f"{HOME}/.site/{private}"
        option = f" --private {HOME}/.site/{private}"
    return [
        download(files),
        shell(f"cd {HOME}/.site && python3 -m zipfile -e {archive} {unpack}"),
        launch(
            f"python3 {HOME}/.site/{server} --port {port} --root {HOME}/.site/www --state {HOME}/.site/state.db{option}"
        ),
        shell(
            f"for i in $(seq {CONNECT_TRIES}); do python3 -c 'import socket; "
            f'socket.create_connection(("127.0.0.1", {port}), 0.2)\' 2>/dev/null && break; sleep 0.1; done'
        ),
    ]


def desk_steps(title: str, fields: tuple[str, ...], store: str, rules: str | None = None) -> list[dict]:
    """Start a Desk app that keeps its records in `store` (evals/fixtures/apps/desk.py) and wait for its
    window; `rules` names a fixture of its refusals and confirmation numbering, which the app deletes
    once read (its window appears after that)."""
    files = {"desk.py": f"{HOME}/.apps/desk.py"}
    options = ""
    if rules:
        files[rules] = f"{HOME}/.apps/{rules}"
        options = f" --rules {HOME}/.apps/{rules}"
    return [
        download(files),
        launch(
            f"python3 {HOME}/.apps/desk.py --title {shlex.quote(title)} "
            f"--fields {shlex.quote(','.join(fields))} --store {store}{options}"
        ),
        shell(
            f"for i in $(seq {WINDOW_TRIES}); do wmctrl -l | grep -q {shlex.quote(title)} && break; "
            "sleep 0.2; done; sleep 0.5"
        ),
    ]


# -- the scripted solution -------------------------------------------------------------------------
def turn(text: str, *calls: dict, expect: list[dict] | None = None) -> dict:
    entry: dict[str, Any] = {"text": text, "tool_calls": list(calls)}
    if expect:
        entry = {"expect": expect, **entry}
    return entry


def call(name: str, **args: Any) -> dict:
    return {"name": name, "input": args}


def bash(command: str) -> dict:
    return call("bash", command=command)


def python_script(code: str) -> str:
    """A bash command running `code` with python3 from a here-document."""
    return f"python3 - <<'PY'\n{code.strip()}\nPY"


def gui_entries(records: list[tuple[str, ...]]) -> list[dict]:
    """GUI turns typing each record into a Record Desk form (Tab between fields, Return to add)."""
    turns = [turn("Look at the window.", call("computer", action="screenshot"))]
    for record in records:
        actions = []
        for index, value in enumerate(record):
            actions.append(call("computer", action="type", text=value))
            actions.append(
                call("computer", action="key", text="Return" if index == len(record) - 1 else "Tab")
            )
        turns.append(turn(f"Add {record[0]}.", *actions))
    return turns


def gate_turns(command: str, requirements: list[str]) -> list[dict]:
    """The finish gate's two turns: read the deliverable, then a PASS verdict."""
    checklist = [
        {"requirement": r, "result": "pass", "evidence": "read from the saved files"} for r in requirements
    ]
    return [
        turn("I read the deliverables themselves.", call("bash", command=command)),
        turn(
            "Every requirement holds in the saved files.",
            call(
                "verdict",
                verdict="PASS",
                checklist=checklist,
                summary="The saved deliverables meet every requirement.",
            ),
            expect=[{"exit": 0}],
        ),
    ]


# -- the task --------------------------------------------------------------------------------------
@dataclass
class TaskSpec:
    id: str
    instruction: str
    config: list[dict]
    apps: list[str]
    probes: list[str]
    """Python bodies (after PRELUDE) each printing one value with `out(...)`."""
    reference: list[str]
    """Python scripts that write the reference deliverables (paths under HOME)."""
    gui_files: dict[str, Any] = field(default_factory=dict)
    """Data files the GUI steps leave (path under HOME -> JSON value), as the apps write them."""
    solution: dict[str, list[dict]] = field(default_factory=dict)
    max_steps: int | None = None
    """The task's main-agent step budget (the task file's `max_steps`), if it sets one."""
    user: dict[str, Any] | None = None
    """The persona a simulated user plays (the task file's `user`: evals/osworld/task.py UserPersona)."""


def probe_command(body: str) -> str:
    return "python3 -c " + shlex.quote(PRELUDE + body.strip())


def _materialise(spec: TaskSpec, cache: Path, home: Path) -> None:
    for step in spec.config:
        if step["type"] == "download":
            for item in step["parameters"]["files"]:
                target = Path(item["path"].replace(HOME, str(home)))
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(cache / item["url"].rsplit("/", 1)[1], target)
    for script in spec.reference:
        _run([sys.executable, "-c", script.replace(HOME, str(home))], f"{spec.id} reference script")
    for path, value in spec.gui_files.items():
        target = Path(path.replace(HOME, str(home)))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value, indent=1), encoding="utf-8")


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed: {done.stderr[-2000:]}")
    return done.stdout


def expected_outputs(spec: TaskSpec, cache: Path) -> list[str]:
    """Each probe's `<<...>>` output on the reference deliverable."""
    with tempfile.TemporaryDirectory(prefix="stateact-long-") as scratch:
        home = Path(scratch) / "home"
        _materialise(spec, cache, home)
        found = []
        for index, body in enumerate(spec.probes):
            text = _run(
                [sys.executable, "-c", (PRELUDE + body).replace(HOME, str(home))], f"{spec.id} probe {index}"
            )
            lines = [line for line in text.splitlines() if line.startswith("<<")]
            if len(lines) != 1:
                raise RuntimeError(f"{spec.id} probe {index} printed {text!r}, not one <<value>> line")
            found.append(lines[0].replace(str(home), HOME))
        return found


def task_json(spec: TaskSpec, expected: list[str]) -> dict:
    count = len(spec.probes)
    return {
        "id": spec.id,
        "snapshot": "local",
        "instruction": spec.instruction,
        "source": "stateact long suite",
        "config": [shell(f"mkdir -p {HOME}/Documents {HOME}/Downloads"), *spec.config],
        "related_apps": spec.apps,
        "evaluator": {
            "func": ["check_include_exclude"] * count,
            "result": [
                {"type": "vm_command_line", "command": probe_command(b), "shell": True} for b in spec.probes
            ],
            "expected": [{"type": "rule", "rules": {"include": [e], "exclude": []}} for e in expected],
            "options": [{}] * count,
            "conj": "and",
        },
        "proxy": False,
        "possibility_of_env_change": "low",
        **({"max_steps": spec.max_steps} if spec.max_steps else {}),
        **({"user": spec.user} if spec.user else {}),
    }


def write_task(spec: TaskSpec, suite: Path, cache: Path) -> Path:
    """Write `<suite>/<id>.json` and its `.solution.json`; returns the task file."""
    task = suite / f"{spec.id}.json"
    task.write_text(
        json.dumps(task_json(spec, expected_outputs(spec, cache)), indent=2) + "\n", encoding="utf-8"
    )
    solution = suite / f"{spec.id}.solution.json"
    solution.write_text(json.dumps({"roles": spec.solution}, indent=2) + "\n", encoding="utf-8")
    return task


def build_all(specs: list[TaskSpec], suite: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="stateact-long-cache-") as scratch:
        cache = Path(scratch)
        build_fixtures(cache)
        for spec in specs:
            print(write_task(spec, suite, cache))
