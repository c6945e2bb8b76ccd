"""The harness's own run (`evals.running.runner.run_task`, scripted model, bash-only variant) on an OSWorld VM
served by the test double: task setup, the agent's bash over the VM's relay shell, scoring, results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.evals.running.runner import run_task
from stateact.kernel.runtime import RoleModels
from tests.support.osworld_vm_server import served_vm
from tests.test_osworld_tasks import FIXTURES, cache  # noqa: F401  (the cache fixture)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    with served_vm(tmp_path_factory.mktemp("vm") / "home", display=False) as parts:
        yield parts


def _score(task: str, sandbox, turns: list[dict], tmp_path: Path, cache_dir: Path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    config = RunConfig(
        instruction="",
        models=RoleModels(main=f"scripted:{script}"),
        harness="bash-only",
        runs_root=tmp_path / "runs",
    )
    return run_task(
        FIXTURES / task, config, cache_dir, tmp_path / "results", sandbox=sandbox, model="scripted"
    )


def test_harness_run_on_the_vm_scores_its_work(vm, tmp_path, cache):  # noqa: F811
    sandbox = vm[0]
    turns = [
        {
            "text": "Writing the answer.",
            "tool_calls": [{"name": "bash", "input": {"command": "cd /tmp && export N=42"}}],
        },
        {"tool_calls": [{"name": "bash", "input": {"command": "printf $N > ~/answer.txt && pwd"}}]},
        {"tool_calls": [{"name": "finish", "input": {"summary": "answer.txt holds 42"}}]},
    ]
    outcome = _score("os/answer-any.json", sandbox, turns, tmp_path, cache)
    assert outcome.score == 1.0
    steps = [json.loads(line) for line in (outcome.result_dir / "traj.jsonl").read_text().splitlines()]
    assert [s["action"]["tool"] for s in steps] == ["bash", "bash", "finish"]
    assert steps[1]["info"]["result"].startswith("/tmp")  # cwd and env kept between bash calls


def test_harness_infeasible_declaration_scores(vm, tmp_path, cache):  # noqa: F811
    sandbox = vm[0]
    declare = [{"tool_calls": [{"name": "finish", "input": {"summary": "no network", "infeasible": True}}]}]
    assert _score("os/impossible.json", sandbox, declare, tmp_path / "a", cache).score == 1.0
    give_up = [{"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}]
    assert _score("os/impossible.json", sandbox, give_up, tmp_path / "b", cache).score == 0.0
