"""Scoring a task: postconfig, then each metric on its getters' inputs, combined by `conj`.

As in OSWorld: `infeasible` scores 1 only when the agent declared the task
infeasible, and any other task scores 0 when it did. With several metrics,
`and` scores 0 when any metric scores 0 and otherwise averages; `or` stops at
the first 1 (score 1) and otherwise takes the maximum.

An `infeasible` entry in a list of metrics is one checkpoint (the agent declared
the task infeasible) beside the others (e.g. the inputs left intact).

Partial credit (OSWorld 2.0 style): with `and`, every metric is a checkpoint
and all of them are evaluated; `partial` is the mean of their scores and
`binary` is true when all of them score 1. With `or`, `partial` is the score.

Errors that are not the agent's raise ScoringError, and the task gets no score
(evals/running/failures.py): a postconfig step that cannot be done, a getter that raises
(an expected file that is neither cached nor downloadable), and a metric that
raises (a rule or option not implemented here, or any fault of the checker: OSWorld aborts the
evaluation then, and a crash is never a 0). A metric reads files the agent wrote, so each call runs in
a limited child process (evals/osworld/metric_call.py): one that passes its wall-time, CPU or memory
limit (settings.METRIC_*) is a ScoringError too, never a score. A missing agent file is a score
(`vm_file` gives None, the metric scores 0). A postconfig step that fails as OSWorld tolerates (no window to activate: the
agent closed the app) is recorded in `postconfig` and the task is scored.

Each part names its checkpoint (`name`: the metric, its rules, the file or command it reads) and
carries what the metric noted it compared (`explanation`, evals/osworld/metrics/explain.py: the cells,
paragraph or line that differ), beside readable previews of its `inputs`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.getters import GetterContext, fetch
from stateact.evals.osworld.metric_call import MetricFailed, call_metric
from stateact.evals.osworld.metrics import INFEASIBLE
from stateact.evals.osworld.setup import SetupContext, SetupError, run_steps
from stateact.evals.osworld.support import unsupported_message, unsupported_parts
from stateact.evals.osworld.task import Task, TaskError
from stateact.sandbox.base import Sandbox


class ScoringError(RuntimeError):
    """The task cannot be scored for a reason that is not the agent's; `what` names the failing part."""

    def __init__(self, what: str, message: str) -> None:
        super().__init__(message)
        self.what = what


@dataclass
class ScoreReport:
    """The task's score and how each metric contributed."""

    score: float
    parts: list[dict[str, Any]] = field(default_factory=list)
    conj: str = "and"
    postconfig: list[dict[str, Any]] = field(default_factory=list)

    @property
    def partial(self) -> float:
        """The fraction of checkpoints met: the mean score of the parts (`and`), else the score."""
        if self.conj != "and" or not self.parts:
            return self.score
        return sum(part["score"] for part in self.parts) / len(self.parts)

    @property
    def binary(self) -> bool:
        """Every checkpoint met."""
        return self.score == 1.0 and all(part["score"] == 1.0 for part in self.parts)

    @property
    def checkpoints(self) -> tuple[int, int]:
        """(met, total) checkpoints."""
        return sum(part["score"] == 1.0 for part in self.parts), len(self.parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "partial": self.partial,
            "binary": self.binary,
            "conj": self.conj,
            "parts": self.parts,
            "postconfig": self.postconfig,
        }


def check_evaluator_known(task: Task) -> None:
    """Raise TaskError before any work when the task names a setup step, a metric, a metric rule or
    option, or a getter we do not have (evals/running/check.py)."""
    unsupported = unsupported_parts(task)
    if unsupported:
        raise TaskError(unsupported_message(task, unsupported))


def score_task(
    task: Task,
    sandbox: Sandbox,
    cache: FileCache,
    work_dir: Path,
    declared_infeasible: bool,
    task_dir: Path = Path("."),
) -> ScoreReport:
    """Run the postconfig steps, then score. `task` must already be path-mapped for `sandbox`."""
    check_evaluator_known(task)
    evaluator = task.evaluator
    post = SetupContext(cache=cache, task_dir=task_dir, output_dir=Path(work_dir), stage="postconfig")
    try:
        run_steps(evaluator.postconfig, sandbox, post)
    except SetupError as exc:
        raise ScoringError("postconfig", f"{type(exc).__name__}: {exc}") from exc
    report = ScoreReport(score=0.0, conj=evaluator.conj, postconfig=post.records)
    funcs = evaluator.funcs()
    if funcs == [INFEASIBLE] or (declared_infeasible and INFEASIBLE not in funcs):
        report.score = float(funcs == [INFEASIBLE] and declared_infeasible)
        report.parts.append(_infeasible_part(declared_infeasible, report.score))
        return report
    context = GetterContext(sandbox=sandbox, cache=cache, work_dir=Path(work_dir))
    scores: list[float] = []
    for index, name in enumerate(funcs):
        if name == INFEASIBLE:
            part = _infeasible_part(declared_infeasible, float(declared_infeasible))
        else:
            part = _score_one(name, index, evaluator, context)
        report.parts.append(part)
        value = part["score"]
        if evaluator.conj == "or" and value == 1.0:
            report.score = 1.0
            return report
        scores.append(value)
    if evaluator.conj == "and":
        report.score = 0.0 if 0.0 in scores else sum(scores) / len(scores)
    else:
        report.score = max(scores)
    return report


def _infeasible_part(declared: bool, score: float) -> dict[str, Any]:
    said = "declared" if declared else "did not declare"
    return {
        "func": INFEASIBLE,
        "name": f"{INFEASIBLE}: the agent {said} the task infeasible",
        "declared": declared,
        "score": score,
    }


def _input(role: str, name: str, index: int, evaluator: Any, context: GetterContext) -> Any:
    """A metric's `result` or `expected` input; a getter that raises is a ScoringError."""
    getter = evaluator.nth(role, index)
    try:
        return fetch(getter, context)
    except Exception as exc:  # the getter could not make the input: not the agent's failure
        kind = getter.type if getter is not None else "?"
        what = f"{role} input ({kind}) of metric {index + 1} ({name})"
        raise ScoringError(what, f"{type(exc).__name__}: {exc}") from exc


def _score_one(name: str, index: int, evaluator: Any, context: GetterContext) -> dict[str, Any]:
    options = evaluator.nth("options", index) or {}
    part: dict[str, Any] = {
        "func": name,
        "name": checkpoint_name(name, options, evaluator.nth("result", index)),
        "score": 0.0,
    }
    result = _input("result", name, index, evaluator, context)
    has_expected = evaluator.nth("expected", index) is not None
    expected = _input("expected", name, index, evaluator, context)
    part["inputs"] = [preview(result), preview(expected)]
    try:
        part["score"], notes = call_metric(name, (result, expected) if has_expected else (result,), options)
    except MetricFailed as exc:
        raise ScoringError(f"metric {index + 1} ({name})", str(exc)) from exc
    if notes:
        part["explanation"] = notes
    return part


def checkpoint_name(func: str, options: dict[str, Any], result_getter: Any) -> str:
    """A checkpoint as a reader names it: the metric, its rule types, and what it reads
    (`compare_table sheet_data, check_cell on inventory.xlsx`)."""
    rules = options.get("rules") if isinstance(options, dict) else None
    kinds = list(dict.fromkeys(str(r.get("type")) for r in rules if isinstance(r, dict))) if rules else []
    name = f"{func} {', '.join(kinds)}" if kinds else func
    target = _getter_target(result_getter)
    return f"{name} on {target}" if target else name


def _getter_target(getter: Any) -> str:
    """The file, command or key a result getter reads, shortly."""
    if getter is None:
        return ""
    params = getter.params()
    for key in ("dest", "path", "command", "key", "url", "file_path"):
        value = params.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str) and value:
            text = value.rsplit("/", 1)[-1] if key in ("dest", "path", "file_path") else value
            return text if len(text) <= 60 else text[:59] + "…"
    return getter.type


def preview(value: Any, limit: int = 300) -> str:
    """A short, readable text of a metric input (file paths, command outputs, rules): a mapping as
    `key: value; ...`, a list as its items, JSON for what is nested, `(none)` for None."""
    if value is None:
        text = "(none)"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, dict):
        text = "; ".join(f"{key}: {_item(item)}" for key, item in value.items())
    elif isinstance(value, list | tuple):
        text = ", ".join(_item(item) for item in value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _item(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
