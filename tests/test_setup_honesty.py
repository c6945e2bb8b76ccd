"""A task's setup runs as on OSWorld's VM (`shell: true` under /bin/sh), and a failed step is never
scored silently: fatal on a local sandbox, recorded and marked setup-degraded on a VM."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.setup import SetupContext, run_steps
from stateact.evals.osworld.task import Step
from stateact.evals.reports.comparison import summarize
from stateact.evals.reports.task_metrics import collect_metrics
from stateact.evals.running.runner import run_task_file
from tests.support.osworld_agent import scripted_agent
from tests.support.osworld_vm_server import served_vm

IMAGE_TASKS = Path(__file__).parent / "fixtures" / "vm_image"


def finish_only(task: Path, sandbox, root: Path):
    """The task run by an agent that only calls `finish`."""
    return run_task_file(
        task, sandbox, scripted_agent(root / "runs", []), root / "cache", root / "results", model="scripted:x"
    )


def command_task(path: Path, setup: list[str], check: str, expected: str) -> Path:
    """Write a task whose setup runs `setup` (shell steps) and whose checker wants `check` to print
    `expected`; returns its path."""
    task = {
        "id": path.stem,
        "instruction": "Nothing to do.",
        "config": [{"type": "execute", "parameters": {"command": c, "shell": True}} for c in setup],
        "evaluator": {
            "func": "exact_match",
            "result": {"type": "vm_command_line", "command": check, "shell": True},
            "expected": {"type": "rule", "rules": {"expected": expected}},
        },
    }
    path.write_text(json.dumps(task))
    return path


def test_shell_steps_run_under_bin_sh(local, tmp_path):
    context = SetupContext(cache=FileCache(tmp_path))
    step = Step(type="execute", parameters={"command": "echo -e 'a\\tb'", "shell": True})
    record = run_steps([step], local, context)[0]
    assert record["output"] == "-e a\tb\n"  # dash's echo: no -e option, escapes always on
    listed = Step(type="execute", parameters={"command": ["echo", "-e", "x"]})
    assert run_steps([listed], local, context)[0]["output"] == "x\n"  # a list is a program, not sh


@pytest.mark.slow
def test_a_step_ending_in_a_background_job_returns_at_once(local, tmp_path):
    context = SetupContext(cache=FileCache(tmp_path))
    job = "echo go > go.txt && nohup sleep 30 > /dev/null 2>&1 &"
    started = time.monotonic()
    run_steps([Step(type="execute", parameters={"command": job, "shell": True})], local, context)
    assert time.monotonic() - started < 10
    assert "sleep 30" in local.run("ps -eo args").stdout


@pytest.mark.slow
def test_a_background_job_task_is_not_solved_by_finishing(local, tmp_path):
    outcome = finish_only(IMAGE_TASKS / "end-background-job.json", local, tmp_path)
    assert outcome.failure is None and outcome.score == 0.0  # the job runs, as /bin/sh ./loop_job.sh


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    with served_vm(tmp_path_factory.mktemp("vm") / "home", display=False) as parts:
        yield parts


@pytest.mark.slow
def test_on_a_vm_a_failed_step_is_recorded_and_the_result_marked_degraded(vm, tmp_path):
    sandbox, _, _ = vm
    task = command_task(tmp_path / "degraded.json", ["no-such-tool --go"], "echo ok", "ok\n")
    outcome = finish_only(task, sandbox, tmp_path)
    assert outcome.score == 1.0  # scored, as OSWorld scores it
    details = json.loads((outcome.result_dir / "score.json").read_text())
    [degraded] = details["setup_degraded"]
    assert degraded.startswith("execute: `no-such-tool --go` exited 127") and "not found" in degraded
    [metrics] = collect_metrics(tmp_path / "results")
    assert metrics.setup_degraded == [degraded]
    assert summarize("h", "m", "all", [metrics]).degraded == 1


def test_on_a_local_sandbox_a_failed_step_is_an_error_naming_it(local, tmp_path):
    task = command_task(tmp_path / "failing.json", ["true", "no-such-tool --go"], "echo ok", "ok\n")
    outcome = finish_only(task, local, tmp_path)
    assert outcome.score is None and outcome.failure.stage == "setup"
    assert "setup step 2 failed: `no-such-tool --go` exited 127" in outcome.failure.error
    assert not (outcome.result_dir / "result.txt").exists()
