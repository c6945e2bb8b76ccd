"""README.md's commands, run exactly as written from a fresh folder, as a new user would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from stateact.models.script_expectations import exit_code
from stateact.runlog import read_events

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def readme_command(pattern: str) -> str:
    """The first indented command line of README.md that matches `pattern`."""
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("    ") and re.search(pattern, line):
            return line.strip()
    raise AssertionError(f"README.md has no command matching {pattern!r}")


def user_env() -> dict[str, str]:
    """A user's environment after set-up: the project's `stateact` first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def failed_tool_calls(events_file: Path) -> list[str]:
    """Every tool result of any agent in the run that is an error or shows a non-zero exit."""
    failed = []
    for event in read_events(events_file):
        if event["kind"] != "tool_result":
            continue
        code = exit_code(event["text"])
        if event["is_error"] or (code is not None and code != 0):
            failed.append(f"{event['scope']} {event['name']}: {event['text'][:200]}")
    return failed


def test_readme_offline_run_command_works_verbatim_from_a_fresh_folder(tmp_path):
    command = readme_command(r"stateact run .*scripted:")
    workdir = Path(re.search(r"--workdir (\S+)", command).group(1))
    shutil.rmtree(workdir, ignore_errors=True)
    fresh = tmp_path / "fresh"
    fresh.mkdir()

    done = subprocess.run(
        ["bash", "-c", command], cwd=fresh, env=user_env(), capture_output=True, text=True, timeout=180
    )

    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (fresh / "runs").iterdir()
    assert failed_tool_calls(run_dir / "events.jsonl") == []
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["gate_passed"]) == ("finished", True)
    assert (workdir / "notes" / "todo.md").read_text() == "# Todo\n\n- [ ] buy milk\n- [x] call Bob\n"


def test_readme_test_command_is_what_ci_runs():
    command = readme_command(r"pytest")
    ci_lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert command in ci_lines
