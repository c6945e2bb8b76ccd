"""Checker sensitivity: does a task's evaluator notice a broken deliverable?

    report = task_sensitivity(suite_task, home, cache_dir, work_dir)

`home` holds the task's reference deliverable (the home a validation replay left, see
evals/running/validate.py). Each deliverable file the evaluator reads (a `vm_file` result getter's path, or
a home path named in a `vm_command_line` command) is mutated once per requirement kind
(evals/authoring/mutators.py), the task is re-scored on a local sandbox over that home, and the file is
restored; it keeps its timestamps throughout (checkers may compare them). A mutation is caught when
the partial score drops below the unmutated one: 1.0, or less when only checkpoints that read a
running program's state (settings.LIVE_STATE_URL; the program is gone after the replay) fail.
A file whose plain load-and-save already drops the score (the saver loses something the checker
reads) is not mutated and is listed as inconclusive.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stateact.evals import settings
from stateact.evals.authoring import mutators
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.scoring import ScoreReport, score_task
from stateact.evals.osworld.task import Getter, Task
from stateact.evals.running.runner import map_task
from stateact.evals.running.suite import SuiteTask
from stateact.sandbox.local import LocalSandbox


@dataclass(frozen=True)
class MutationOutcome:
    file: str
    kind: str
    note: str
    partial: float
    baseline: float = 1.0
    """The unmutated deliverable's partial score."""

    @property
    def caught(self) -> bool:
        return self.partial < self.baseline


@dataclass
class TaskSensitivity:
    task_id: str
    outcomes: list[MutationOutcome] = field(default_factory=list)
    skipped: str = ""
    """Why the task could not be measured (its unmutated deliverable fails a checkpoint that is not live)."""
    inconclusive: list[str] = field(default_factory=list)
    """Deliverable files not mutated: no mutator for their type, or a plain re-save drops the score."""
    live: int = 0
    """Checkpoints not re-scored: they read the state of a program that is gone after the replay."""

    @property
    def caught(self) -> int:
        return sum(outcome.caught for outcome in self.outcomes)


def _result_getters(task: Task) -> list[Getter]:
    result = task.evaluator.result
    return [g for g in (result if isinstance(result, list) else [result]) if g is not None]


def live_checkpoints(task: Task) -> set[int]:
    """Indices of the metrics whose result probe reads a running program (settings.LIVE_STATE_URL)."""
    getters = [task.evaluator.nth("result", i) for i in range(len(task.evaluator.funcs()))]
    return {
        index
        for index, getter in enumerate(getters)
        if getter is not None
        and getter.type == "vm_command_line"
        and settings.LIVE_STATE_URL in str(getter.params().get("command", ""))
    }


def deliverables(task: Task, home: str) -> list[str]:
    """The files under `home` the (path-mapped) evaluator reads as the agent's work, in first-read order."""
    pattern = re.compile(re.escape(home) + r"/[^\s'\"]+")
    found: list[str] = []
    for getter in _result_getters(task):
        params = getter.params()
        if getter.type == "vm_file":
            paths = params["path"] if params.get("multi") else [params["path"]]
        elif getter.type == "vm_command_line":
            command = params.get("command", "")
            paths = pattern.findall(command if isinstance(command, str) else " ".join(command))
        else:
            paths = []
        found.extend(p.rstrip(").,;") for p in paths)
    return list(dict.fromkeys(found))


def originals(task: Task, cache: FileCache) -> dict[str, bytes]:
    """The files the (path-mapped) task's `download` steps put in place, by path."""
    files: dict[str, bytes] = {}
    for step in task.config:
        if step.type == "download":
            for item in step.parameters.get("files", []):
                files[item["path"]] = cache.read(item["url"], Path(item["path"]).name)
    return files


def task_sensitivity(suite_task: SuiteTask, home: Path, cache_dir: Path, work_dir: Path) -> TaskSensitivity:
    """Mutate each deliverable in `home` once per requirement kind and re-score the task after each."""
    report = TaskSensitivity(suite_task.id)
    sandbox = LocalSandbox(home)
    sandbox.start()
    try:
        task, cache = map_task(suite_task.task, sandbox), FileCache(cache_dir)
        runs = itertools.count()

        def score() -> ScoreReport:
            folder = Path(work_dir) / f"score-{next(runs)}"
            folder.mkdir(parents=True)
            return score_task(task, sandbox, cache, folder, suite_task.infeasible, suite_task.path.parent)

        unmutated = score()
        failed = {i for i, part in enumerate(unmutated.parts) if part["score"] != 1.0}
        live = live_checkpoints(task)
        if failed - live:
            report.skipped = f"the unmutated deliverable scores {unmutated.partial:.2f}"
            return report
        report.live = len(failed)
        before = originals(task, cache)
        for name in deliverables(task, sandbox.home):
            _mutate_file(Path(name), before.get(name), Path(work_dir), score, report, unmutated.partial)
    finally:
        sandbox.close()
    return report


def _mutate_file(
    path: Path,
    original: bytes | None,
    work_dir: Path,
    score: Callable[[], ScoreReport],
    report: TaskSensitivity,
    baseline: float,
) -> None:
    shown = path.name
    if not path.is_file() or not mutators.supported(path):
        report.inconclusive.append(f"{shown} (no mutator)" if path.is_file() else f"{shown} (missing)")
        return
    saved, stamp = path.read_bytes(), path.stat()

    def keep_times() -> None:  # checkers may compare modification times: only the content changes
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))

    def restore() -> None:
        path.write_bytes(saved)
        keep_times()

    original_copy = None
    if original is not None:
        original_copy = work_dir / "originals" / path.name
        original_copy.parent.mkdir(parents=True, exist_ok=True)
        original_copy.write_bytes(original)
    try:
        mutators.roundtrip(path)
        keep_times()
        if score().partial != baseline:
            report.inconclusive.append(f"{shown} (a plain re-save drops the score)")
            return
        restore()
        for mutation in mutators.mutations(path, original_copy):
            mutation.apply(path)
            keep_times()
            report.outcomes.append(
                MutationOutcome(shown, mutation.kind, mutation.note, score().partial, baseline)
            )
            restore()
    finally:
        restore()
        if original_copy is not None:
            shutil.rmtree(original_copy.parent, ignore_errors=True)
