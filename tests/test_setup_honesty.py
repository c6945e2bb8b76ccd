"""A task's setup runs as on OSWorld's VM (`shell: true` under /bin/sh), and a failed step is never
scored silently: what OSWorld tolerates (a non-zero exit, no window to activate) is recorded and the
result marked setup-degraded; a program this machine lacks is an error on a local sandbox."""

from __future__ import annotations

import json
import time
from pathlib import Path

import openpyxl
import pytest

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.setup import SetupContext, run_steps
from stateact.evals.osworld.task import Step
from stateact.evals.reports.comparison import summarize
from stateact.evals.reports.task_metrics import collect_metrics
from stateact.evals.running.runner import run_task_file
from stateact.sandbox.local import LocalSandbox
from tests.support.osworld_agent import run_scripted_task, scripted_agent
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


@pytest.mark.slow
def test_on_a_local_sandbox_a_program_not_found_is_an_error_naming_it(local, tmp_path):
    task = command_task(tmp_path / "failing.json", ["true", "no-such-tool --go"], "echo ok", "ok\n")
    outcome = finish_only(task, local, tmp_path)
    assert outcome.score is None and outcome.failure.stage == "setup"
    assert (
        "setup step 2: this machine lacks what it runs: `no-such-tool --go` exited 127"
        in outcome.failure.error
    )
    assert not (outcome.result_dir / "result.txt").exists()


@pytest.mark.slow
def test_a_grep_that_finds_nothing_is_recorded_and_the_task_scored(local, tmp_path):
    task = command_task(tmp_path / "grep.json", ["grep -q needle /etc/hostname"], "echo ok", "ok\n")
    outcome = finish_only(task, local, tmp_path)
    assert outcome.failure is None and outcome.score == 1.0
    [degraded] = json.loads((outcome.result_dir / "score.json").read_text())["setup_degraded"]
    assert degraded.startswith("execute: `grep -q needle /etc/hostname` exited 1")


def test_a_checker_that_raises_is_a_scoring_error(local, tmp_path):
    task = command_task(tmp_path / "raises.json", [], "echo ok", "ok\n")
    spec = json.loads(task.read_text())
    spec["evaluator"] = {  # a cell of a workbook that is not one: the checker crashes
        "func": "check_include_exclude",
        "result": {"type": "vm_command_line", "command": "echo ok", "shell": True},
        "expected": {"type": "rule", "rules": "not a mapping"},
    }
    task.write_text(json.dumps(spec))
    outcome = finish_only(task, local, tmp_path)
    assert outcome.score is None and outcome.failure.stage == "scoring"
    assert "metric 1 (check_include_exclude)" in outcome.failure.what
    error = json.loads((outcome.result_dir / "error.json").read_text())
    assert error["stage"] == "scoring" and not (outcome.result_dir / "result.txt").exists()


def workbook(path: Path, qty: int) -> Path:
    book = openpyxl.Workbook()
    book.active.append(["Item", "Qty"])
    book.active.append(["bolts", qty])
    book.save(path)
    return path


SAVE_AND_CLOSE = [
    "cp ~/.saved.xlsx ~/inventory.xlsx",  # the workbook as the agent saved it
    "wmctrl -c 'inventory.xlsx - LibreOffice Calc'; for i in $(seq 100); do pgrep -x soffice.bin > /dev/null || break; sleep 0.2; done",  # noqa: E501
]


@pytest.mark.apps
def test_a_task_whose_agent_saved_and_closed_the_app_is_scored(tmp_path):
    """OSWorld's postconfig activates the document's window and presses ctrl+s; the agent saved its work
    and closed Calc before it: the step finds no window, is recorded, and the work is scored."""
    workbook(tmp_path / "inventory.xlsx", 3)
    workbook(tmp_path / "saved.xlsx", 12)
    task = tmp_path / "save-and-close.json"
    window = "inventory.xlsx - LibreOffice Calc"
    task.write_text(json.dumps({
        "id": "save-and-close",
        "instruction": "Set the bolts' Qty to 12, save the workbook and close Calc.",
        "config": [
            {"type": "upload_file", "parameters": {"files": [
                {"local_path": "inventory.xlsx", "path": "/home/user/inventory.xlsx"},
                {"local_path": "saved.xlsx", "path": "/home/user/.saved.xlsx"},
            ]}},
            {"type": "open", "parameters": {"path": "/home/user/inventory.xlsx"}},
        ],
        "evaluator": {
            "postconfig": [
                {"type": "activate_window", "parameters": {"window_name": window, "strict": True}},
                {"type": "execute", "parameters": {"command": "xdotool key ctrl+s", "shell": True}},
            ],
            "func": "exact_match",
            "result": {"type": "vm_command_line", "command": "cmp -s ~/inventory.xlsx ~/.saved.xlsx && echo saved", "shell": True},  # noqa: E501
            "expected": {"type": "rule", "rules": {"expected": "saved\n"}},
        },
    }))  # fmt: skip
    with LocalSandbox(tmp_path / "home", display=True) as sandbox:
        outcome = run_scripted_task(task, sandbox, tmp_path, SAVE_AND_CLOSE, model="scripted:x")
    assert outcome.score == 1.0
    [degraded] = json.loads((outcome.result_dir / "score.json").read_text())["setup_degraded"]
    assert degraded.startswith(f"activate_window: no window {window!r}")
