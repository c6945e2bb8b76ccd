"""`stateact run --task T.json --sandbox osworld://HOST:PORT` against the VM server test double."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.osworld_vm_server import served_vm
from tests.test_osworld_tasks import FIXTURES, cache  # noqa: F401  (the cache fixture)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
TASK = FIXTURES / "os" / "report-files.json"
SOLUTION = [
    {"tool_calls": [{"name": "bash", "input": {"command": "tr A-Z a-z < ~/input.csv > ~/report.csv"}}]},
    {
        "tool_calls": [
            {
                "name": "bash",
                "input": {"command": "printf 42 > ~/answer.txt && cp ~/notes.txt ~/notes_out.txt"},
            }
        ]
    },
    {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]},
]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stateact", "run", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "300"},
    )


def test_task_file_runs_scores_and_is_skipped_the_second_time(tmp_path, cache):  # noqa: F811
    script = tmp_path / "solution.json"
    script.write_text(json.dumps(SOLUTION))
    common = [
        "--task",
        str(TASK),
        "--model",
        f"scripted:{script}",
        "--harness",
        "bash-only",
        "--cache",
        str(cache),
        "--results",
        str(tmp_path / "results"),
        "--runs-root",
        str(tmp_path / "runs"),
    ]
    with served_vm(tmp_path / "vm-home", display=False) as (_, server, local):
        spec = f"osworld://{server.url.removeprefix('http://')}"
        done = run_cli(*common, "--sandbox", spec)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "score 1" in done.stdout
        assert (Path(local.home) / "report.csv").read_text() == "name,qty\npen,3\n"
        again = run_cli(*common, "--sandbox", spec)
    assert again.returncode == 0 and "already scored: 1" in again.stdout
    (result_txt,) = (tmp_path / "results").rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    steps = [json.loads(line) for line in (result_txt.parent / "traj.jsonl").read_text().splitlines()]
    assert [s["action"]["tool"] for s in steps] == ["bash", "bash", "finish"]
    assert steps[-1]["done"] is True


def test_unreachable_vm_and_bad_arguments_are_clear_errors(tmp_path):
    script = tmp_path / "x.json"
    script.write_text("[]")
    unreachable = run_cli(
        "do it",
        "--sandbox",
        "osworld://127.0.0.1:9",
        "--model",
        f"scripted:{script}",
        "--runs-root",
        str(tmp_path),
    )
    assert unreachable.returncode != 0
    assert "unreachable" in unreachable.stdout + unreachable.stderr
    neither = run_cli("--model", f"scripted:{script}")
    assert neither.returncode == 2 and "give an instruction or --task" in neither.stderr
    bad = run_cli("x", "--sandbox", "vm://nowhere", "--model", f"scripted:{script}")
    assert bad.returncode == 2 and "unknown sandbox" in bad.stderr
