"""Metrics we do not implement, scored by OSWorld's own functions in a separate environment.

The environment is a real throwaway venv made by the test, holding a package with the layout of
OSWorld's `desktop_env.evaluators.metrics` (its `__init__` needs a library the venv lacks, as
OSWorld's does; one module imports a missing library too) and metric functions of our own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stateact.evals.osworld import bridge as osworld_bridge
from stateact.evals.osworld.scoring import check_evaluator_known
from stateact.evals.osworld.task import Task, TaskError
from stateact.evals.running.runner import run_task_file
from tests.support.osworld_agent import scripted_agent

METRICS_MODULE = """



def check_greeting(result, expected, case_sensitive=True):
    print("noise on stdout that the bridge must ignore")
    if result is None:
        return 0.0
    with open(result) as handle:
        text = handle.read().strip()
    if not case_sensitive:
        return float(text.lower() == expected["greeting"].lower())
    return float(text == expected["greeting"])


def broken(result, expected):
    raise KeyError("no such field")


def _private(result):
    return 1.0
"""


@pytest.fixture(scope="module")
def osworld_python(tmp_path_factory) -> str:
    """A venv with an OSWorld-shaped metrics package; returns its interpreter."""
    env = tmp_path_factory.mktemp("oswenv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    metrics = Path(site) / "desktop_env" / "evaluators" / "metrics"
    metrics.mkdir(parents=True)
    (metrics.parents[1] / "__init__.py").write_text("")
    (metrics.parent / "__init__.py").write_text("")
    (metrics / "__init__.py").write_text("import torch_that_is_not_installed\n")
    (metrics / "files.py").write_text(textwrap.dedent(METRICS_MODULE))
    (metrics / "heavy.py").write_text(
        "import easyocr_that_is_not_installed\n\ndef read_text(result):\n    return 1\n"
    )
    return str(python)


def _task(tmp_path: Path, func: str, options: dict | None = None) -> Path:
    task = {
        "id": f"bridge-{func}",
        "instruction": "Write a greeting into ~/hello.txt.",
        "config": [],
        "evaluator": {
            "func": func,
            "result": {"type": "vm_file", "path": "/home/user/hello.txt", "dest": "hello.txt"},
            "expected": {"type": "rule", "rules": {"greeting": "Hello, World"}},
            "options": options or {},
        },
    }
    path = tmp_path / "tasks" / "os" / f"{task['id']}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(task))
    return path


def _score(tmp_path: Path, task: Path, local, command: str) -> tuple[float, dict]:
    outcome = run_task_file(
        task,
        local,
        scripted_agent(tmp_path / "runs", [command]),
        cache_dir=tmp_path / "cache",
        results_dir=tmp_path / "results",
        model="scripted:test",
    )
    return outcome.score, json.loads((outcome.result_dir / "score.json").read_text())


def test_names_are_the_functions_of_modules_that_import(osworld_python):
    names = osworld_bridge.bridged_names(osworld_python)
    assert {"check_greeting", "broken"} <= names
    assert "_private" not in names and "read_text" not in names


@pytest.mark.slow
def test_a_bridged_metric_scores_with_osworld_options(tmp_path, local, osworld_python, monkeypatch):
    monkeypatch.setenv(osworld_bridge.PYTHON_ENV, osworld_python)
    right = "printf 'Hello, World\\n' > ~/hello.txt"
    assert _score(tmp_path / "a", _task(tmp_path / "a", "check_greeting"), local, right)[0] == 1.0
    lower = "printf 'hello, world\\n' > ~/hello.txt"
    assert _score(tmp_path / "b", _task(tmp_path / "b", "check_greeting"), local, lower)[0] == 0.0
    relaxed = _task(tmp_path / "c", "check_greeting", {"case_sensitive": False})
    assert _score(tmp_path / "c", relaxed, local, lower)[0] == 1.0
    missing, report = _score(tmp_path / "d", _task(tmp_path / "d", "check_greeting"), local, "true")
    assert missing == 0.0 and report["parts"][0]["score"] == 0.0


def test_a_metric_that_raises_in_osworld_is_a_scoring_error_not_a_zero(
    tmp_path, local, osworld_python, monkeypatch
):
    monkeypatch.setenv(osworld_bridge.PYTHON_ENV, osworld_python)
    outcome = run_task_file(
        _task(tmp_path, "broken"),
        local,
        scripted_agent(tmp_path / "runs", ["echo hi > ~/hello.txt"]),
        cache_dir=tmp_path / "cache",
        results_dir=tmp_path / "results",
        model="scripted:test",
    )
    assert outcome.score is None and outcome.failure.stage == "scoring"
    assert "OSWorld's broken raised KeyError" in outcome.failure.error
    assert not (outcome.result_dir / "result.txt").exists()
    assert "KeyError" in json.loads((outcome.result_dir / "error.json").read_text())["error"]


def test_without_the_environment_a_task_is_refused_before_it_runs(tmp_path, osworld_python, monkeypatch):
    task = Task.model_validate(json.loads(_task(tmp_path, "check_greeting").read_text()))
    monkeypatch.delenv(osworld_bridge.PYTHON_ENV, raising=False)
    with pytest.raises(TaskError, match="unsupported: metric check_greeting.*--osworld-python"):
        check_evaluator_known(task)
    monkeypatch.setenv(osworld_bridge.PYTHON_ENV, osworld_python)
    check_evaluator_known(task)
    unknown = task.model_copy(update={"evaluator": task.evaluator.model_copy(update={"func": "read_text"})})
    with pytest.raises(TaskError, match="unsupported: metric read_text"):
        check_evaluator_known(unknown)


def test_an_interpreter_without_osworld_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(osworld_bridge.PYTHON_ENV, sys.executable)
    task = Task.model_validate(json.loads(_task(tmp_path, "check_greeting").read_text()))
    with pytest.raises(TaskError, match="desktop_env is not installed"):
        check_evaluator_known(task)
    with pytest.raises(osworld_bridge.BridgeError, match="no such executable"):
        osworld_bridge.use_python(str(tmp_path / "missing" / "python"))
