"""A task suite on disk: `<suite>/<domain>/<task_id>.json`, each with its reference solution beside it.

    tasks = discover(Path("evals/suites/office"))
    tasks[0].task.id, tasks[0].domain, tasks[0].solution_path, tasks[0].checkpoints

A reference solution (`<task_id>.solution.json`) is a script for the `scripted`
provider with one list of turns per role (`main`, `gui`, `web`, `gate`). Its
paths name the VM home (`/home/user`) like the task file; `mapped_solution`
rewrites them for a sandbox's home.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from evals.metrics import INFEASIBLE
from evals.osworld_layout import is_osworld_layout, meta_task_files
from evals.paths import HomeMap
from evals.task import Task, TaskError, load_task, task_domain
from evals.task_ports import task_ports

SOLUTION_SUFFIX = ".solution.json"
OFFICE_SUITE = Path(__file__).parent / "suites" / "office"
"""The suite of long-horizon office tasks shipped with stateact."""


@dataclass(frozen=True)
class SuiteTask:
    path: Path
    task: Task
    domain: str

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def solution_path(self) -> Path:
        return self.path.with_name(self.path.name.removesuffix(".json") + SOLUTION_SUFFIX)

    @property
    def checkpoints(self) -> int:
        """How many checkpoints partial credit counts (each metric of the evaluator is one)."""
        return len(self.task.evaluator.funcs())

    @property
    def infeasible(self) -> bool:
        return INFEASIBLE in self.task.evaluator.funcs()

    @property
    def ports(self) -> frozenset[int]:
        """The loopback ports the task's setup serves on (evals/task_ports.py)."""
        return task_ports(self.task)


def task_files(suite: Path) -> list[Path]:
    """The task files of a suite folder (reference solutions excluded), sorted; of OSWorld's
    `evaluation_examples` layout, the ones its meta file lists (evals/osworld_layout.py)."""
    suite = Path(suite)
    if is_osworld_layout(suite):
        return meta_task_files(suite)
    if not suite.is_dir():
        raise TaskError(f"no suite folder {suite}")
    return sorted(p for p in suite.rglob("*.json") if not p.name.endswith(SOLUTION_SUFFIX))


def discover(suite: Path, only: list[str] | None = None) -> list[SuiteTask]:
    """Load every task of a suite, or the ones whose id is in `only` (unknown ids are an error)."""
    tasks = []
    for path in task_files(suite):
        task = load_task(path)
        tasks.append(SuiteTask(path, task, task_domain(path, task)))
    if only:
        known = {t.id for t in tasks}
        missing = [i for i in only if i not in known]
        if missing:
            raise TaskError(f"no task {', '.join(missing)} in {suite}")
        tasks = [t for t in tasks if t.id in only]
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskError(f"task ids used twice in {suite}: {', '.join(duplicates)}")
    return tasks


def mapped_solution(solution: Path, home: str, target: Path) -> Path:
    """Write a solution script with `/home/user` mapped to `home`; returns `target`."""
    if not solution.is_file():
        raise TaskError(f"no reference solution {solution}")
    script = json.loads(solution.read_text(encoding="utf-8"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(HomeMap(home).apply(script), indent=1), encoding="utf-8")
    return target
