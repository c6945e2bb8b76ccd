"""`stateact run` exit codes, each through the real command line with a scripted model.

Interrupts (130) and SIGTERM (143) are tested with the resume tests, which need a live run to stop.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.app.exit_codes import ExitCode
from stateact.gate.events import GateStart
from stateact.kernel.events import read_events

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CHECK = {"requirement": "out.txt says yes", "result": "pass", "evidence": "cat printed yes"}
FINDING = {"problem": "out.txt says no", "location": "~/out.txt", "evidence": "cat printed no"}


def finish(infeasible: bool = False, **expect) -> dict:
    turn = {"tool_calls": [{"name": "finish", "input": {"summary": "done", "infeasible": infeasible}}]}
    return {"expect": expect, **turn} if expect else turn


def verdict(passed: bool) -> dict:
    answer = (
        {"verdict": "PASS", "checklist": [CHECK]} if passed else {"verdict": "FAIL", "findings": [FINDING]}
    )
    return {"tool_calls": [{"name": "verdict", "input": answer}]}


WRITE = {"tool_calls": [{"name": "bash", "input": {"command": "echo yes > ~/out.txt"}}]}
GATE_FAILED = {"is_error": True, "contains": "out.txt says no"}

CASES = {
    "finished, gate passed": ({"main": [WRITE, finish()], "gate": [verdict(True)]}, [], ExitCode.DONE),
    "gate failed three rounds": (
        {
            "main": [WRITE, finish(), finish(**GATE_FAILED), finish(**GATE_FAILED)],
            "gate": [verdict(False)] * 3,
        },
        [],
        ExitCode.GATE_FAILED,
    ),
    "infeasible, confirmed": (
        {"main": [finish(infeasible=True)], "gate": [verdict(True)]},
        [],
        ExitCode.DONE,
    ),
    "infeasible, rejected, then done": (
        {
            "main": [finish(infeasible=True), {**WRITE, "expect": GATE_FAILED}, finish()],
            "gate": [verdict(False), verdict(True)],
        },
        [],
        ExitCode.DONE,
    ),
    "budget spent": ({"main": [WRITE] * 5}, ["--max-steps", "2"], ExitCode.BUDGET),
    "provider error": ({"main": [WRITE]}, [], ExitCode.ERROR),
    "stopped without finish": (
        {"main": [{"text": "I am done."}] * 4},
        [],
        ExitCode.STOPPED,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_run_exit_code(tmp_path, case):
    roles, options, code = CASES[case]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": roles}))
    runs = tmp_path / "runs"

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stateact",
            "run",
            "Write yes into ~/out.txt.",
            "--model",
            f"scripted:{script}",
        ]
        + ["--workdir", str(tmp_path / "home"), "--no-display", "--runs-root", str(runs), *options],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's code, not an installed copy
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == code, done.stdout + done.stderr
    (run_dir,) = runs.iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert str(run_dir) in done.stdout.replace("\n", "")
    if code == ExitCode.GATE_FAILED:
        assert result["gate_passed"] is False and "did not pass" in done.stdout
    assert result["infeasible"] is (case == "infeasible, confirmed")
    if case.startswith("infeasible"):
        events = read_events(run_dir / "events.jsonl")
        claims = [e.infeasible_claim for e in events if isinstance(e, GateStart)]
        assert claims[0] == "done" and result["gate_passed"] is True
