"""Which parts of an OSWorld task this implementation can set up and score."""

from __future__ import annotations

from stateact.evals.osworld.bridge import configured_python
from stateact.evals.osworld.getters import GETTERS
from stateact.evals.osworld.metrics import (
    INFEASIBLE,
    BridgeError,
    MetricUnsupported,
    check_metric_options,
    find_metric,
)
from stateact.evals.osworld.setup import STEP_HANDLERS
from stateact.evals.osworld.task import Step, Task


def unsupported_parts(task: Task) -> list[str]:
    """The setup steps, metrics, metric options and getters of `task` not supported here."""
    evaluator = task.evaluator
    parts = [f"setup step {t}" for t in unique(s.type for s in task_steps(task)) if t not in STEP_HANDLERS]
    funcs = evaluator.funcs()
    if not any(funcs):
        parts.append("no metric (`func` is empty; OSWorld cannot set such a task up either)")
    for index, name in enumerate(funcs):
        if not name or name == INFEASIBLE:
            continue
        try:
            found = find_metric(name)
        except BridgeError as exc:
            parts.append(f"metric {name} ({exc})")
            continue
        if found is None:
            parts.append(f"metric {name}")
            continue
        try:
            check_metric_options(name, evaluator.nth("options", index))
        except MetricUnsupported as exc:
            parts.append(f"{name} options: {exc}")
    parts += [f"getter {t}" for t in unique(g.type for g in evaluator.getters()) if t not in GETTERS]
    return unique(parts)


def unsupported_message(task: Task, unsupported: list[str]) -> str:
    """`task ID cannot be scored here, unsupported: metric X; getter Y`."""
    hint = (
        ""
        if configured_python()
        else " (metrics OSWorld has can be scored by its own functions: --osworld-python)"
    )
    return f"task {task.id} cannot be scored here, unsupported: {'; '.join(unsupported)}{hint}"


def task_steps(task: Task) -> list[Step]:
    """A task's setup steps, its postconfig steps and the steps of its scheduled changes."""
    return [
        *task.config,
        *task.evaluator.postconfig,
        *(step for change in task.schedule for step in change.steps),
    ]


def unique(items) -> list:
    """`items` without repeats, in order."""
    return list(dict.fromkeys(items))
