"""Per-task metrics of a suite's results folder, read from `result.txt`, `score.json` and the run folder.

A task folder is `<root>/<harness>/<model>/<domain>/<task_id>/` holding
`result.txt` (done) or `error.json` (failed outside the agent: no score), and the
harness's run folder (`result.json`, `events.jsonl`): `run/` in a suite's results, else the one
`score.json` or `error.json` names (`stateact run --task` leaves it under its runs root). Turns count model
responses: `main` is the top-level agent, scopes such as `gui#1`, `web#2` and
`gate#1` are subagent interiors. Delegations are `delegate_*` tool calls to a
tool the calling loop has; gate rounds are `gate_verdict` events.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stateact.evals.reports.trajectory import dicts
from stateact.evals.running.best_of import BEST_OF_FILE
from stateact.evals.running.results import (
    ERROR_FILE,
    RESULT_FILE,
    RUN_FOLDER,
    SCORE_FILE,
    linked_run_dir,
    read_json_object,
    read_score,
)
from stateact.evals.running.rollouts import ROLLOUTS_FOLDER
from stateact.gate.events import GateVerdict
from stateact.kernel.events import Compaction, LoopStart, Response, Stall, ToolCall, read_events
from stateact.kernel.roles import MAIN, is_numbered_scope, other_roles, role_of_scope

DELEGATION_PREFIX = "delegate_"


@dataclass
class TaskMetrics:
    """What one task under one harness achieved and cost."""

    harness: str
    model: str
    domain: str
    task_id: str
    result_dir: Path
    roles: str = ""
    """The models of the roles that had their own (`gui=SPEC; web=SPEC`), from the run's config."""
    score: float | None = 0.0
    """None when the task failed outside the agent (`failed`), as are `partial` and `binary`."""
    partial: float | None = 0.0
    binary: bool | None = False
    checkpoints_met: int = 0
    checkpoints: int = 0
    status: str = "missing"
    """The run's status (finished, budget, error...), or `error` when the job failed outside the agent."""
    failed: bool = False
    """No score: the task has error.json (setup, harness or scoring failed, not the agent)."""
    error_stage: str = ""
    """setup, agent or scoring (evals/running/failures.py) when `failed`."""
    error: str = ""
    setup_degraded: list[str] = field(default_factory=list)
    """The setup or postconfig steps that failed on a VM (the task was scored on them anyway, as on
    OSWorld): `score.json`'s `setup_degraded`."""
    main_turns: int = 0
    sub_turns: int = 0
    sub_turns_by_kind: dict[str, int] = field(default_factory=dict)
    delegations: int = 0
    delegations_by_tool: dict[str, int] = field(default_factory=dict)
    gate_rounds: int = 0
    gate_passes: int = 0
    gate_fails: int = 0
    gate_undecided: int = 0
    """Gate rounds that could not decide (`passed` None): neither a pass nor a fail."""
    gate_passed: bool | None = None
    compactions: int = 0
    stalls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    usd: float = 0.0
    usd_by_role: dict[str, float] = field(default_factory=dict)
    """Dollars spent by each role of the run (main, gui, web, gate, compactor)."""
    seconds: float = 0.0
    best_of: int = 1
    """Rollouts of a best-of-N task (evals/running/best_of.py); its score is the picked rollout's."""
    pass_at_n: bool | None = None
    """Best-of-N: some rollout met every checkpoint."""
    pick_correct: bool | None = None
    """Best-of-N: the judge picked a rollout that met every checkpoint, when one did (else None)."""

    run_dir: Path = Path()
    """The harness's run folder of the task (see the module's docstring)."""

    def row(self) -> dict[str, Any]:
        """A flat record for CSV (dicts as `key=value;...`)."""
        record = asdict(self)
        for key, value in record.items():
            if isinstance(value, dict):
                record[key] = ";".join(f"{k}={v}" for k, v in sorted(value.items()))
            elif isinstance(value, Path):
                record[key] = str(value)
        return record


def collect_metrics(root: Path) -> list[TaskMetrics]:
    """The metrics of every task folder under `root` (a results folder), sorted by harness, domain, id."""
    root = Path(root)
    metrics = [read_task_metrics(folder, root) for folder in task_folders(root)]
    return sorted(metrics, key=lambda m: (m.harness, m.model, m.domain, m.task_id))


def task_folders(root: Path) -> set[Path]:
    """The task folders of a results folder: those with `result.txt` or `error.json`, at the layout's depth."""
    root = Path(root)
    folders = {p.parent for name in (RESULT_FILE, ERROR_FILE) for p in root.rglob(name)}
    return {folder for folder in folders if _is_task_folder(folder, root)}


def _is_task_folder(folder: Path, root: Path) -> bool:
    parts = folder.relative_to(root).parts
    return len(parts) >= 4 and RUN_FOLDER not in parts and ROLLOUTS_FOLDER not in parts


def read_task_metrics(folder: Path, root: Path) -> TaskMetrics:
    """One task folder's metrics; missing or torn files leave their fields at zero."""
    harness, model, domain, task_id = folder.relative_to(root).parts[-4:]
    metrics = TaskMetrics(harness, model, domain, task_id, folder)
    if (folder / RESULT_FILE).is_file():
        record = read_json_object(folder / SCORE_FILE)
        _read_score(metrics, folder, record)
    else:
        record = read_json_object(folder / ERROR_FILE)
        metrics.status, metrics.failed = "error", True
        metrics.score = metrics.partial = metrics.binary = None
        metrics.error_stage = str(record.get("stage", ""))
        what = f"{record['what']}: " if record.get("what") else ""
        metrics.error = what + str(record.get("error", "unknown error"))
    metrics.run_dir = linked_run_dir(folder, record)
    _read_run(metrics, metrics.run_dir)
    _read_best_of(metrics, read_json_object(folder / BEST_OF_FILE))
    return metrics


def _read_best_of(metrics: TaskMetrics, record: dict[str, Any]) -> None:
    """A best-of-N task's pass@N, pick and dollars (every rollout and the judge)."""
    if not record:
        return
    metrics.best_of = int(_number(record.get("best_of"))) or 1
    pass_at_n, correct = record.get("pass_at_n"), record.get("pick_correct")
    metrics.pass_at_n = pass_at_n if isinstance(pass_at_n, bool) else None
    metrics.pick_correct = correct if isinstance(correct, bool) else None
    metrics.usd = _number(record.get("usd"))


def _number(value: Any) -> float:
    """A number read from a file another version may have written: anything else is 0."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _read_score(metrics: TaskMetrics, folder: Path, details: dict[str, Any]) -> None:
    try:
        metrics.score = read_score(folder)
    except (OSError, ValueError):
        metrics.score = 0.0
    scores = [_number(part.get("score")) for part in dicts(details.get("parts"))]
    metrics.checkpoints = len(scores)
    metrics.checkpoints_met = sum(score == 1.0 for score in scores)
    partial = details.get("partial")
    if isinstance(partial, int | float):
        metrics.partial = float(partial)
    else:  # scores written before partial credit: the mean of the checkpoints an `and` evaluated
        and_conj = details.get("conj", "and") == "and"
        metrics.partial = sum(scores) / len(scores) if scores and and_conj else metrics.score
    binary = details.get("binary")
    metrics.binary = binary if isinstance(binary, bool) else metrics.score == 1.0
    metrics.setup_degraded = [str(step) for step in details.get("setup_degraded") or []]


def role_models_text(models: dict) -> str:
    """`gui=SPEC; web=SPEC` for the roles of a run's config that had a model of their own."""
    return "; ".join(f"{role}={models[role]}" for role in other_roles() if models.get(role))


def _read_run(metrics: TaskMetrics, run_dir: Path) -> None:
    metrics.roles = role_models_text(_mapping(read_json_object(run_dir / "config.json").get("models")))
    result = read_json_object(run_dir / "result.json")
    if result:
        if metrics.status != "error":
            metrics.status = str(result.get("status", metrics.status))
        metrics.usd = _number(result.get("usd"))
        metrics.seconds = _number(result.get("seconds"))
        gate_passed = result.get("gate_passed")
        metrics.gate_passed = gate_passed if isinstance(gate_passed, bool) else None
        spend = _mapping(result.get("spend"))
        metrics.usd_by_role = {
            str(role): _number(_mapping(s).get("usd")) for role, s in _mapping(spend.get("by_role")).items()
        }
        usage = _mapping(spend.get("usage"))
        metrics.input_tokens = int(_number(usage.get("input_tokens")))
        metrics.output_tokens = int(_number(usage.get("output_tokens")))
        metrics.cached_tokens = int(_number(usage.get("cache_read_tokens")))
    events = run_dir / "events.jsonl"
    if events.is_file():
        _count_events(metrics, events)


def _count_events(metrics: TaskMetrics, events: Path) -> None:
    sub_turns: Counter[str] = Counter()
    delegations: Counter[str] = Counter()
    tools: dict[str, set[str]] = {}
    for event in read_events(events, lenient=True):  # a log from another version or a crash
        scope = event.scope
        if isinstance(event, LoopStart):
            tools[scope] = set(event.tools)
        elif isinstance(event, Response):
            if scope == MAIN:
                metrics.main_turns += 1
            elif is_numbered_scope(scope):
                sub_turns[role_of_scope(scope)] += 1
        elif isinstance(event, ToolCall) and _is_delegation(event.name, tools.get(scope)):
            delegations[event.name] += 1
        elif isinstance(event, GateVerdict):
            metrics.gate_rounds += 1
            if event.passed is None:
                metrics.gate_undecided += 1
            elif event.passed:
                metrics.gate_passes += 1
            else:
                metrics.gate_fails += 1
        elif isinstance(event, Compaction):
            metrics.compactions += 1
        elif isinstance(event, Stall):
            metrics.stalls += 1
    metrics.sub_turns = sum(sub_turns.values())
    metrics.sub_turns_by_kind = dict(sub_turns)
    metrics.delegations = sum(delegations.values())
    metrics.delegations_by_tool = dict(delegations)


def _is_delegation(name: str, loop_tools: set[str] | None) -> bool:
    """A `delegate_*` call to a tool its loop has (a variant without the subagent gets an error instead)."""
    return name.startswith(DELEGATION_PREFIX) and (loop_tools is None or name in loop_tools)
