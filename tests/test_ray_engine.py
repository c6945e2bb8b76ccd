"""`--engine ray` on a local Ray cluster (2 CPUs, no dashboard): the same results tree as `--engine local`,
resume, and a job whose worker is killed mid-task runs again."""

from __future__ import annotations

import os
import re
import signal
import threading
from pathlib import Path

import pytest

from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.suite_runner import run_suite
from stateact.sandbox.leftovers import REGISTRY
from tests.support.pool_suites import file_check, marker_suite, write_task
from tests.test_eval_runner import HARNESSES, SUITE, run_cli
from tests.test_osworld_layout import evaluation_examples
from tests.test_sandbox_pool import pool_file, vms  # noqa: F401  (the vms fixture)

pytestmark = pytest.mark.apps

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("--task-id", "shout", "--task-id", "notes")
"""Two tasks under two harnesses: 4 jobs over 2 slots."""
SHELL_SCRIPT = re.compile(r"cmd_[0-9a-f]+_")
"""The random part of the names of the shell tool's scripts in a run folder."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One Ray instance for the module; its workers import this checkout and keep scratch files in a
    temporary folder."""
    scratch = tmp_path_factory.mktemp("ray-scratch")
    env = {"PYTHONPATH": str(ROOT), "TMPDIR": str(scratch)}
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": env})
    try:
        yield scratch
    finally:
        ray.shutdown()


def tree(results: Path) -> dict[str, str]:
    """Each file of the harnesses' folders (random script names made equal), with the score of each task."""
    files = {}
    for path in sorted(results.rglob("*")):
        relative = path.relative_to(results)
        if path.is_file() and relative.parts[0] in HARNESSES.split(","):
            files[SHELL_SCRIPT.sub("cmd_", relative.as_posix())] = (
                path.read_text() if path.name == "result.txt" else ""
            )
    return files


def test_ray_writes_the_same_results_tree_as_local_and_resumes(cluster, tmp_path):
    trees = {}
    for engine in ("local", "ray"):
        results = tmp_path / engine
        code, output = run_cli(
            "eval", "run", str(SUITE), "--harness", HARNESSES, *TASKS, "--workers", "2",
            "--engine", engine, "--results", str(results), "--no-display", "--no-html",
        )  # fmt: skip
        assert code == 0, output
        trees[engine] = tree(results)
    assert trees["ray"] == trees["local"]
    assert sum(name.endswith("result.txt") for name in trees["ray"]) == 4
    registry = cluster / REGISTRY.name  # where live sandboxes are recorded (sandbox/leftovers.py)
    assert [
        p for p in cluster.glob("stateact-*") if p != registry
    ] == []  # the slots' scratch folders are gone
    assert list(registry.glob("*")) == []  # and every sandbox was closed

    undone = tmp_path / "ray" / "bash-only" / "reference" / "os" / "notes" / "result.txt"
    undone.unlink()
    options = SuiteOptions(
        SUITE, tuple(HARNESSES.split(",")), "reference", tmp_path / "ray", tmp_path / "ray" / "cache",
        workers=2, display=False, only=("shout", "notes"), engine="ray",
    )  # fmt: skip
    outcomes = run_suite(options)
    assert [o.job.label for o in outcomes if not o.skipped] == ["bash-only/os/notes"]
    assert undone.read_text().strip() == "0.0"
    assert tree(tmp_path / "ray") == trees["local"]


def ray_worker_of(pid: int) -> int:
    """The nearest process above `pid` that is a Ray worker (its title starts with `ray::`)."""
    while pid > 1:
        if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::"):
            return pid
        pid = int(re.search(r"^PPid:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M)[1])
    raise AssertionError("the task's shell does not run under a Ray worker")


def test_a_job_whose_worker_is_killed_mid_task_runs_again(cluster, tmp_path):
    log = tmp_path / "started.log"
    commands = [f"echo $$ >> {log}; sleep 4; printf done > /home/user/answer.txt"]
    write_task(tmp_path / "suite", "os", "slow", commands, file_check("/home/user/answer.txt", ["done"]))
    options = SuiteOptions(
        tmp_path / "suite", ("bash-only",), "reference", tmp_path / "results", tmp_path / "cache",
        workers=2, display=False, engine="ray", isolation="none",  # the shell's host pid and log are read here
    )  # fmt: skip
    outcomes = []
    runner = threading.Thread(target=lambda: outcomes.extend(run_suite(options)))
    runner.start()
    first_shell = None
    while runner.is_alive() and first_shell is None:
        lines = log.read_text().split() if log.exists() else []
        first_shell = int(lines[0]) if lines else None
        runner.join(timeout=0.1)
    assert first_shell is not None, "the task never started"
    killed = ray_worker_of(first_shell)
    os.kill(killed, signal.SIGKILL)
    runner.join()
    [outcome] = outcomes
    assert (outcome.score, outcome.error) == (1.0, "")
    shells = log.read_text().split()
    assert len(shells) == 2


def test_ray_runs_a_meta_file_of_the_osworld_layout(cluster, tmp_path):
    root = evaluation_examples(tmp_path / "evaluation_examples")
    options = SuiteOptions(
        root / "test_small.json", ("bash-only",), "reference", tmp_path / "results", tmp_path / "cache",
        display=False, engine="ray",
    )  # fmt: skip
    [outcome] = run_suite(options)
    assert (outcome.job.label, outcome.score, outcome.error) == ("bash-only/files/a-notes", 1.0, "")


def test_ray_runs_a_suite_across_a_pool_of_vms(cluster, vms, tmp_path):  # noqa: F811
    pool = pool_file(tmp_path, vms, [vm.restore for vm in vms])
    marker_suite(tmp_path / "suite", 4)
    results = tmp_path / "results"
    code, output = run_cli(
        "eval", "run", str(tmp_path / "suite"), "--harness", "bash-only", "--engine", "ray",
        "--pool", str(pool), "--results", str(results), "--no-html",
    )  # fmt: skip
    assert code == 0, output
    assert sorted(p.read_text().strip() for p in results.rglob("result.txt")) == ["1.0"] * 4
    assert "retired" not in output
    left = sorted(p.name for vm in vms for p in Path(vm.local.home).glob("left-by-*"))
    assert len(left) == 2  # both VMs ran tasks, and each kept only its last task's marker


def test_best_of_3_on_ray_judges_on_the_driver_from_the_evidence_the_workers_send(
    cluster, anthropic_server, tmp_path
):
    import json

    from tests.support.best_of_scripts import MARKER, MODEL, budget_totals, judge_turn
    from tests.test_best_of import SUITE as BEST_OF_SUITE

    router = budget_totals(1404, 1440)
    main, judge = anthropic_server(*[router] * 10), anthropic_server(judge_turn)
    options = SuiteOptions(
        BEST_OF_SUITE, ("no-verify",), f"anthropic:{MODEL}@{main.base_url}", tmp_path / "results",
        tmp_path / "cache", role_models={"judge": f"anthropic:{MODEL}@{judge.base_url}"},
        only=("calc-budget-total",), best_of=3, workers=2, display=False, engine="ray",
    )  # fmt: skip
    [outcome] = run_suite(options)
    assert (outcome.score, outcome.error) == (1.0, "")
    record = json.loads((outcome.result_dir / "best_of.json").read_text())
    assert record["by"] == "model" and record["pick_correct"] is True
    for k in (1, 2, 3):  # written by a Ray worker, read by the judge on the driver
        assert (outcome.result_dir / "rollouts" / str(k) / "evidence.json").is_file()
    assert len(judge.requests) == 1 and MARKER not in json.dumps(judge.requests[0])


def test_a_job_stopped_mid_run_starts_over_on_ray_and_says_why(cluster, tmp_path):
    import json
    from dataclasses import replace

    from stateact.evals.running.stopped_jobs import RAY_NOT_RESUMED
    from stateact.kernel.events import RunStart, read_events

    results = tmp_path / "results"
    options = SuiteOptions(
        SUITE,
        ("bash-only",),
        "reference",
        results,
        results / "cache",
        workers=1,
        display=False,
        only=("shout",),
    )
    [first] = run_suite(options)
    (first.result_dir / "result.txt").unlink()  # as if the suite had been stopped during its run
    run_result = first.result_dir / "run" / "result.json"
    run_result.write_text(json.dumps({**json.loads(run_result.read_text()), "status": "interrupted"}))

    [again] = run_suite(replace(options, engine="ray"))
    assert (again.score, again.earlier) == (first.score, RAY_NOT_RESUMED)
    starts = [e for e in read_events(again.result_dir / "run" / "events.jsonl") if isinstance(e, RunStart)]
    assert [s.resumed for s in starts] == [False], "a fresh run, written by the worker"
