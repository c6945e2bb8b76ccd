"""Tasks that serve on one loopback port never run side by side on one machine, and a taken port is a
setup error: the README's `eval run --harness A,B --workers 2` ran one web task under both harnesses
at once, and the second run's reference solution talked to the first run's site and scored 0.0."""

from __future__ import annotations

import json
import socket
from collections import deque
from pathlib import Path

import pytest

from stateact.evals.osworld.task import Task
from stateact.evals.running.engines.port_claims import PortClaims
from stateact.evals.running.jobs import SuiteJob
from stateact.evals.running.runner import run_task_file
from stateact.evals.running.suite import OFFICE_SUITE, SuiteTask, discover
from stateact.evals.running.task_ports import task_ports
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.pool import LocalSlot, VMSlot
from tests.test_eval_runner import run_cli

WEB_TASK = "web-catalog-prices"
WEB_PORT = 18431


def office_task(task_id: str) -> SuiteTask:
    return next(task for task in discover(OFFICE_SUITE, only=[task_id]))


def test_the_ports_of_a_task_are_those_its_launch_steps_serve_on():
    assert office_task(WEB_TASK).ports == {WEB_PORT}
    assert office_task("desktop-stock-keeper").ports == {18611}
    assert office_task("calc-budget-variance").ports == frozenset()
    chrome_style = Task.model_validate(
        {
            "id": "tabs",
            "instruction": "Open the report 2024 page at http://localhost:8080/q3 in the browser.",
            "config": [
                {
                    "type": "launch",
                    "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]},
                },
                {
                    "type": "launch",
                    "parameters": {"command": "socat tcp-listen:9222,fork tcp:localhost:1337"},
                },
                {"type": "download", "parameters": {"files": [{"url": "http://127.0.0.1:8000/a.csv"}]}},
                {"type": "execute", "parameters": {"command": "curl -s localhost:8001/warm --port 8002"}},
            ],
            "evaluator": {
                "func": "compare_csv",
                "expected": {"type": "cloud_file", "path": "http://localhost:8003/b"},
            },
        }
    )
    assert task_ports(chrome_style) == {1337, 9222}  # a local mirror's port is shared, not served


def test_a_queued_job_waits_while_a_running_one_on_its_network_names_its_port():
    web, stock = office_task(WEB_TASK), office_task("desktop-stock-keeper")
    jobs = [SuiteJob(web, "stateact"), SuiteJob(web, "bash-only"), SuiteJob(stock, "stateact")]
    queue = deque(enumerate(jobs))
    claims = PortClaims()
    local1, local2 = LocalSlot("local1", network_mode="host"), LocalSlot("local2", network_mode="host")
    vm = VMSlot("vm1", "http://127.0.0.1:9", reset="true")
    assert claims.take(queue, local1) == (0, jobs[0])
    assert claims.take(queue, local2) == (2, jobs[2])  # the second web job waits: its port is in use
    assert claims.take(deque([(1, jobs[1])]), vm) == (1, jobs[1])  # a VM has a network of its own
    assert claims.take(queue, local2) is None
    claims.release(jobs[0], local1)
    assert claims.take(queue, local2) == (1, jobs[1]) and not queue


def test_isolated_slots_with_networks_of_their_own_run_one_port_side_by_side():
    web = office_task(WEB_TASK)
    jobs = [SuiteJob(web, "stateact"), SuiteJob(web, "bash-only")]
    queue = deque(enumerate(jobs))
    claims = PortClaims()
    assert LocalSlot("local1").network is None and LocalSlot("none", isolation="none").network
    assert claims.take(queue, LocalSlot("local1")) == (0, jobs[0])
    assert claims.take(queue, LocalSlot("local2")) == (1, jobs[1])


def _run_span(result_dir: Path) -> tuple[float, float]:
    times = [json.loads(line)["t"] for line in (result_dir / "run" / "events.jsonl").read_text().splitlines()]
    return min(times), max(times)


@pytest.mark.apps
@pytest.mark.parametrize("network", ["own", "host"])
def test_one_fixed_port_task_under_two_harnesses_on_two_workers(built_fixtures, tmp_path, network):
    """Side by side where each sandbox has a network of its own; one after the other on the host's."""
    results = tmp_path / "results"
    harnesses = ("stateact", "no-verify")
    code, output = run_cli(
        "eval", "run", str(OFFICE_SUITE), "--harness", ",".join(harnesses), "--model", "reference",
        "--workers", "2", "--task-id", WEB_TASK, "--results", str(results), "--cache", str(built_fixtures), "--no-html",
        "--network", network,
    )  # fmt: skip
    assert code == 0, output
    folders = [results / harness / "reference" / "web" / WEB_TASK for harness in harnesses]
    assert [(folder / "result.txt").read_text().strip() for folder in folders] == ["1.0", "1.0"], output
    (first_start, first_end), (second_start, second_end) = sorted(_run_span(folder) for folder in folders)
    assert (first_end <= second_start) == (network == "host")


@pytest.mark.slow
def test_a_task_whose_port_is_served_already_fails_its_setup_with_an_error(built_fixtures, tmp_path):
    listener = socket.create_server(("127.0.0.1", WEB_PORT))
    sandbox = LocalSandbox(tmp_path / "home", display=False, isolation="bwrap", network="host")
    try:
        sandbox.start()
        outcome = run_task_file(
            office_task(WEB_TASK).path,
            sandbox,
            lambda *_: pytest.fail("the agent ran"),
            built_fixtures,
            tmp_path / "r",
        )
    finally:
        sandbox.close()
        listener.close()
    assert outcome.score is None and outcome.failure is not None
    assert outcome.failure.stage == "setup"
    assert f"port {WEB_PORT} of this task is in use on this machine already" in outcome.failure.summary
    assert not (outcome.result_dir / "result.txt").exists()
    assert not (sandbox.resolve("~/.site")).exists()  # the setup did not start
