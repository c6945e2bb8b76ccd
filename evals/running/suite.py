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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from stateact.evals.osworld.layout import is_osworld_layout, meta_task_files
from stateact.evals.osworld.paths import HomeMap
from stateact.evals.osworld.task import INFEASIBLE, Task, TaskError, load_task, task_domain
from stateact.evals.running.task_ports import task_ports
from stateact.kernel.users import USER_ROLE

SOLUTION_SUFFIX = ".solution.json"
OFFICE_SUITE = Path(__file__).parents[1] / "suites" / "office"
"""The suite of long-horizon office tasks shipped with stateact."""


@dataclass(frozen=True)
class SuiteTask:
    """A task file of a suite: its task, or (`task` None) why the file cannot be read."""

    path: Path
    task: Task | None
    domain: str
    problem: str = ""
    """Why the task file cannot be read (one line); empty when `task` is set."""

    @property
    def id(self) -> str:
        """The task's id; an unreadable file's name without `.json`."""
        return self.task.id if self.task is not None else self.path.name.removesuffix(".json")

    @property
    def solution_path(self) -> Path:
        return self.path.with_name(self.path.name.removesuffix(".json") + SOLUTION_SUFFIX)

    @property
    def checkpoints(self) -> int:
        """How many checkpoints partial credit counts (each metric of the evaluator is one)."""
        return len(self.task.evaluator.funcs()) if self.task is not None else 0

    @property
    def infeasible(self) -> bool:
        return self.task is not None and INFEASIBLE in self.task.evaluator.funcs()

    @property
    def ports(self) -> frozenset[int]:
        """The loopback ports the task's setup serves on (evals/running/task_ports.py)."""
        return task_ports(self.task) if self.task is not None else frozenset()


def task_files(suite: Path) -> list[Path]:
    """The task files of a suite folder (reference solutions excluded), sorted; of OSWorld's
    `evaluation_examples` layout, the ones its meta file lists (evals/osworld/layout.py)."""
    suite = Path(suite)
    if is_osworld_layout(suite):
        return meta_task_files(suite)
    if not suite.is_dir():
        raise TaskError(f"no suite folder {suite}")
    return sorted(p for p in suite.rglob("*.json") if not p.name.endswith(SOLUTION_SUFFIX))


def read_suite_task(path: Path) -> SuiteTask:
    """A suite's task file; one that cannot be read is kept with its one-line problem, so the suite's
    other tasks still run and this one becomes an error row."""
    try:
        task = load_task(path)
    except TaskError as exc:
        return SuiteTask(path, None, Path(path).resolve().parent.name, problem=str(exc))
    return SuiteTask(path, task, task_domain(path, task))


def discover(suite: Path, only: list[str] | None = None) -> list[SuiteTask]:
    """Every task of a suite, or the ones `only` names (`DOMAIN/ID` as `eval check` prints them, or a
    bare ID; an unknown one, or a bare ID that several domains use, is an error); a file that cannot be
    read is a SuiteTask with its `problem` (named by its file name). A suite without task files is a
    TaskError."""
    tasks = [read_suite_task(path) for path in task_files(suite)]
    if not tasks:
        raise TaskError(f"no task files in {suite} (a suite is <domain>/<task_id>.json files)")
    if only:
        chosen = {id(task) for name in only for task in _named_tasks(tasks, name, suite)}
        tasks = [t for t in tasks if id(t) in chosen]
    keys = Counter(f"{t.domain}/{t.id}" for t in tasks)  # OSWorld lists some ids under two domains
    duplicates = sorted(key for key, count in keys.items() if count > 1)
    if duplicates:
        raise TaskError(f"task ids used twice in one domain of {suite}: {', '.join(duplicates)}")
    return tasks


def _named_tasks(tasks: list[SuiteTask], name: str, suite: Path) -> list[SuiteTask]:
    """The tasks `name` selects: `DOMAIN/ID`, or a bare ID that only one domain uses."""
    domain, _, task_id = name.rpartition("/")
    found = [t for t in tasks if t.id == task_id and (not domain or t.domain == domain)]
    if not found:
        raise TaskError(f"no task {name} in {suite}")
    domains = sorted({t.domain for t in found})
    if len(domains) > 1:
        choices = " or ".join(f"{d}/{task_id}" for d in domains)
        raise TaskError(f"task id {task_id} is used in several domains of {suite}: give {choices}")
    return found


def mapped_solution(solution: Path, home: str, target: Path) -> Path:
    """Write a solution script with `/home/user` mapped to `home`; returns `target`."""
    if not solution.is_file():
        raise TaskError(f"no reference solution {solution}")
    script = json.loads(solution.read_text(encoding="utf-8"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(HomeMap(home).apply(script), indent=1), encoding="utf-8")
    return target


def plays_user(solution: Path) -> bool:
    """The solution scripts the replies of a simulated user (a `user` role): the task needs the user's
    answers, and its replay has them through the simulated user (`stateact.kernel.users.ModelUser`)."""
    try:
        roles = json.loads(solution.read_text(encoding="utf-8")).get("roles")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(roles, dict) and bool(roles.get(USER_ROLE))
