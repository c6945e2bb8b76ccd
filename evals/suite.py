"""A task suite: a folder of OSWorld task files (`<suite>/<domain>/<id>.json`) and their reference solutions.

A JSON file is a task when it is an object with `instruction` and `evaluator`;
reference solutions and other JSON files beside the tasks are not. A task's
reference solution (a script for the `scripted` provider) is the first file that
exists of: the task's own `solution` field (a path relative to the task file),
`<id>.solution.json` beside it, `solutions/<id>.json` beside it, and
`<suite>/solutions/<domain>/<id>.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from evals.task import TaskError

SOLUTION_SUFFIX = ".solution.json"
SOLUTIONS_DIR = "solutions"


@dataclass(frozen=True)
class SuiteTask:
    """One task file of a suite, read just enough to place its results."""

    path: Path
    task_id: str
    domain: str
    solution_field: str | None = None


def is_task_json(data: object) -> bool:
    return isinstance(data, dict) and "instruction" in data and "evaluator" in data


def discover_tasks(suite: Path) -> list[SuiteTask]:
    """Every task file under `suite`, sorted by domain and id; raises TaskError when there is none."""
    suite = Path(suite)
    if not suite.is_dir():
        raise TaskError(f"suite folder not found: {suite}")
    tasks: list[SuiteTask] = []
    for path in sorted(suite.rglob("*.json")):
        if path.name.endswith(SOLUTION_SUFFIX) or SOLUTIONS_DIR in path.relative_to(suite).parts[:-1]:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if is_task_json(data):
            task_id = str(data.get("id") or path.stem)
            tasks.append(SuiteTask(path, task_id, path.parent.name, data.get("solution")))
    if not tasks:
        raise TaskError(f"no OSWorld task files (JSON with instruction and evaluator) under {suite}")
    return sorted(tasks, key=lambda t: (t.domain, t.task_id))


def reference_solution(task: SuiteTask, suite: Path) -> Path:
    """The task's reference solution script; raises TaskError naming every place looked at."""
    folder = task.path.parent
    candidates = [folder / task.solution_field] if task.solution_field else []
    candidates += [
        folder / f"{task.task_id}{SOLUTION_SUFFIX}",
        folder / SOLUTIONS_DIR / f"{task.task_id}.json",
        Path(suite) / SOLUTIONS_DIR / task.domain / f"{task.task_id}.json",
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    raise TaskError(
        f"task {task.task_id} has no reference solution; looked at {', '.join(map(str, candidates))}"
    )
