"""`stateact eval run` killed mid-job, then the same command again: the stopped job's run goes on where it
stopped (its turns kept, not asked again; the agent told so) on a fresh sandbox over its home, and scores
as an unbroken job; a run folder that cannot be resumed starts over and the job's line says why."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stateact.evals.running.jobs import SANDBOXES_FOLDER
from stateact.evals.running.stopped_jobs import ROLLOUT_NOT_RESUMED, VM_NOT_RESUMED, stopped_run
from stateact.kernel.events import Response, RunResumed, RunStart, ToolCall, read_events
from stateact.sandbox.pool import LocalSlot, VMSlot
from stateact.sandbox.processes import tagged_pids

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
STEPS = {
    "count": [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo one > ~/a.txt"}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "echo two > ~/b.txt"}}]},
        {
            "delay": 2.0,  # the model's thinking time: the kill falls in it
            "tool_calls": [
                {
                    "name": "bash",
                    "input": {"command": "cat ~/a.txt ~/b.txt > ~/out.txt; echo kept >> ~/out.txt"},
                }
            ],
        },
        {"tool_calls": [{"name": "finish", "input": {"summary": "out.txt written"}}]},
    ],
    "echo": [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo one two kept > ~/out.txt"}}]},
        {"tool_calls": [{"name": "finish", "input": {"summary": "out.txt written"}}]},
    ],
}
KILLED_AFTER = 2
"""The turns of `count` done when the suite is killed."""


def suite(folder: Path) -> Path:
    """Two tasks whose reference solutions write ~/out.txt with one, two and kept."""
    root = folder / "suite"
    (root / "os").mkdir(parents=True)
    for task_id, turns in STEPS.items():
        task = {
            "id": task_id,
            "snapshot": "os",
            "instruction": "Write one, two and kept into ~/out.txt.",
            "config": [{"type": "execute", "parameters": {"command": "true", "shell": True}}],
            "related_apps": ["os"],
            "evaluator": {
                "func": "check_include_exclude",
                "result": {"type": "vm_command_line", "command": "cat /home/user/out.txt", "shell": True},
                "expected": {"type": "rule", "rules": {"include": ["one", "two", "kept"], "exclude": []}},
            },
        }
        (root / "os" / f"{task_id}.json").write_text(json.dumps(task))
        (root / "os" / f"{task_id}.solution.json").write_text(json.dumps(turns))
    (folder / "cache").mkdir()
    return root


def eval_run(folder: Path) -> subprocess.Popen:
    """`stateact eval run` on the suite, one worker, in a process group of its own."""
    args = ["eval", "run", str(folder / "suite"), "--harness", "no-verify", "--workers", "1"]
    args += ["--results", str(folder / "results"), "--cache", str(folder / "cache")]
    args += ["--no-display", "--no-html", "--no-record"]
    return subprocess.Popen(
        [sys.executable, "-m", "stateact", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "300"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def job_dir(results: Path, task_id: str) -> Path:
    (found,) = results.glob(f"no-verify/*/os/{task_id}")
    return found


def wait_for_turns(results: Path, task_id: str, turns: int, proc: subprocess.Popen) -> Path:
    """The job's run folder once its log holds `turns` main-agent tool results."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        for log in results.glob(f"no-verify/*/os/{task_id}/run/events.jsonl"):
            done = [
                e for e in read_events(log, lenient=True) if e.kind == "tool_result" and e.scope == "main"
            ]
            if len(done) >= turns:
                return log.parent
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the job never reached turn {turns}: {proc.communicate()[0]}")


def finished(proc: subprocess.Popen) -> str:
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, output
    return " ".join(output.split())


def tags_of(run_dir: Path) -> list[str]:
    return [e.sandbox_tag for e in read_events(run_dir / "events.jsonl") if isinstance(e, RunStart)]


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill -9", "ctrl-c"])
def test_a_job_stopped_mid_run_resumes_on_the_same_command_and_scores_as_unbroken(tmp_path, stop):
    suite(tmp_path)
    results = tmp_path / "results"
    proc = eval_run(tmp_path)
    run_dir = wait_for_turns(results, "count", KILLED_AFTER, proc)
    os.killpg(proc.pid, stop)
    proc.communicate(timeout=30)
    assert not (run_dir.parent / "result.txt").exists()
    assert not list(results.glob("no-verify/*/os/echo/result.txt")), "the other job had not run"

    output = finished(eval_run(tmp_path))
    assert "no-verify/os/count (" in output and f"resumed after turn {KILLED_AFTER}" in output, output
    for task_id in STEPS:
        assert float((job_dir(results, task_id) / "result.txt").read_text()) == 1.0, output
    assert (job_dir(results, "count") / "artifacts").is_dir()

    events = list(read_events(run_dir / "events.jsonl"))
    starts = [e for e in events if isinstance(e, RunStart)]
    assert [s.resumed for s in starts] == [False, True]
    (resumed,) = [e for e in events if isinstance(e, RunResumed)]
    assert resumed.turns == KILLED_AFTER
    assert "The run was stopped and has been resumed in a new sandbox" in resumed.note
    # every turn was asked of the model once: the earlier turns were kept, not asked again
    assert len([e for e in events if isinstance(e, Response) and e.scope == "main"]) == len(STEPS["count"])
    commands = [e.input.get("command") for e in events if isinstance(e, ToolCall) and e.scope == "main"]
    assert commands.count("echo one > ~/a.txt") == 1
    ended = json.loads((run_dir / "result.json").read_text())
    assert (ended["status"], ended["turns"]) == ("finished", len(STEPS["count"])), "the turns go on counting"
    assert not (results / ".sandboxes").exists(), "the resumed job's home went with its end"
    assert [pid for tag in tags_of(run_dir) for pid in tagged_pids(tag)] == []


def test_a_damaged_run_folder_starts_over_and_says_why(tmp_path):
    suite(tmp_path)
    results = tmp_path / "results"
    finished(eval_run(tmp_path))
    count = job_dir(results, "count")
    stopped = tmp_path / "stopped"  # a copy of the real run, as if it had been interrupted
    shutil.copytree(count / "run", stopped / "run", symlinks=True)
    outcome = json.loads((stopped / "run" / "result.json").read_text())
    (stopped / "run" / "result.json").write_text(json.dumps({**outcome, "status": "interrupted"}))
    sandboxes = results / SANDBOXES_FOLDER
    for slot, rollout, reason in [
        (LocalSlot("local"), False, "its sandbox's home"),  # the job's end removed it
        (LocalSlot("local"), True, ROLLOUT_NOT_RESUMED),
        (VMSlot("vm", "http://127.0.0.1:9", "true"), False, VM_NOT_RESUMED),
    ]:
        found = stopped_run(stopped, slot, sandboxes, rollout)
        assert found is not None and found.state is None and reason in found.why_not, found
        assert found.summary() == f"started over: {found.why_not}"
    for name in ("result.txt", "score.json"):
        (count / name).unlink()
    (count / "run" / "config.json").write_text("{not json")

    output = finished(eval_run(tmp_path))
    assert "no-verify/os/count (" in output and "started over:" in output, output
    assert "has no readable config.json" in output, output
    assert "done earlier no-verify/os/echo" in output, output
    assert float((count / "result.txt").read_text()) == 1.0
    starts = [e for e in read_events(count / "run" / "events.jsonl") if isinstance(e, RunStart)]
    assert [s.resumed for s in starts] == [False], "a fresh run folder"
    assert not (results / ".sandboxes").exists()
