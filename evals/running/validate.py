"""Validating a suite: replay every task's reference solution through the full harness and score it.

    rows = validate_suite(discover(OFFICE_SUITE), out_dir=Path("runs/validate"), workers=2)

Each task gets a fresh LocalSandbox with its own display (`evals.running.runner.run_task`):
its setup runs, then `stateact.app.run.execute` plays the reference solution (the `scripted` provider,
one script for every role) with the `stateact` harness, then the task is scored.
A task is valid when its score is 1.0 (every checkpoint met), its run finished,
no agent's tool call failed and the gate, if one ran, did not fail.
"""

from __future__ import annotations

import json
import shutil
import time
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.app.variants import FULL_HARNESS
from stateact.evals import settings
from stateact.evals.fixtures.build import build_fixtures
from stateact.evals.osworld.metrics.explain import failed_checkpoints
from stateact.evals.running.results import model_key, task_result_dir
from stateact.evals.running.runner import run_task
from stateact.evals.running.suite import SuiteTask, mapped_solution, plays_user
from stateact.kernel.events import Response, ToolResultEvent, read_events
from stateact.kernel.runtime import RoleModels


@dataclass
class ValidationRow:
    task_id: str
    domain: str
    score: float = 0.0
    partial: float = 0.0
    met: int = 0
    checkpoints: int = 0
    status: str = ""
    """The run's end status (finished, error, ...), or `<stage>-error` (setup, agent, scoring) when the task
    failed outside the agent."""
    gate_passed: bool | None = None
    turns: int = 0
    seconds: float = 0.0
    tool_errors: int = 0
    """Tool calls of any agent in the run that came back as errors (a drifted solution)."""
    unplayed: dict[str, int] = field(default_factory=dict)
    """Script turns per role the run never asked for (e.g. `gate` turns when no gate ran)."""
    error: str = ""
    result_dir: str = ""

    @property
    def valid(self) -> bool:
        """Every checkpoint met by a run that finished cleanly (and, when a gate ran, passed it)."""
        return (
            self.score == 1.0
            and self.status == "finished"
            and self.tool_errors == 0
            and self.gate_passed is not False
        )


def validate_task(
    task: SuiteTask,
    cache_dir: Path,
    out_dir: Path,
    solution: Path | None = None,
    harness: str = FULL_HARNESS,
) -> ValidationRow:
    """Replay one task's reference solution (or another `solution` script) on a fresh local sandbox.

    `harness` is the variant it runs under (an ablation lacking a tool the solution uses scores lower).
    Never raises: a task that cannot be set up or run is a row with its error."""
    row = ValidationRow(task.id, task.domain, checkpoints=task.checkpoints)
    if task.problem:
        row.status, row.error = "setup-error", task.problem[:500]
        return row
    started = time.monotonic()
    solution = solution or task.solution_path
    home, run_dir, results = (
        (out_dir / "homes" / task.id).resolve(),
        out_dir / "runs" / task.id,
        out_dir / "results",
    )
    script = out_dir / "scripts" / f"{task.id}.json"
    config = validation_config(task, home, script, out_dir / "runs", harness, plays_user(solution))
    results_of_task = task_result_dir(
        results, harness, model_key(config.models.main, config.models), task.domain, task.id
    )
    for stale in (home, run_dir, results_of_task):
        shutil.rmtree(stale, ignore_errors=True)  # a validation always replays, even into a used folder
    try:
        mapped_solution(solution, config.sandbox_home(home), script)
        outcome = run_task(task.path, config, cache_dir, results, domain=task.domain)
        row.result_dir = str(outcome.result_dir)
        if outcome.failure is not None:
            row.status, row.error = f"{outcome.failure.stage}-error", outcome.failure.summary[:500]
        if outcome.report is not None:
            row.score, row.partial = outcome.report.score, outcome.report.partial
            row.met = outcome.report.checkpoints[0]
            row.error = "; ".join(failed_checkpoints(outcome.report.parts))[:500]
    except Exception as exc:  # a broken task is a row in the table, not a crash of the whole validation
        row.status = "setup-error"
        row.error = f"{type(exc).__name__}: {exc}"
        (out_dir / "errors").mkdir(parents=True, exist_ok=True)
        (out_dir / "errors" / f"{task.id}.txt").write_text(traceback.format_exc(), encoding="utf-8")
    if (run_dir / "result.json").is_file():
        _add_run_facts(row, run_dir, solution)
    row.seconds = round(time.monotonic() - started, 1)
    return row


def validation_config(
    task: SuiteTask, home: Path, script: Path, runs_root: Path, harness: str, user: bool = False
) -> RunConfig:
    """A run of `script` (every role scripted; with `user`, its `user` role is the simulated user) on a
    local sandbox with a display whose home is `home`."""
    return RunConfig(
        instruction=task.task.instruction,
        models=RoleModels(main=f"scripted:{script}", user=f"scripted:{script}" if user else None),
        harness=harness,
        workdir=home,
        display=True,
        runs_root=runs_root,
        run_id=task.id,
        max_turns=settings.VALIDATE_MAX_TURNS,
        max_usd=None,
        max_seconds=settings.VALIDATE_MAX_SECONDS,
        labels={"suite": "validate", "task": task.id},
    )


def _add_run_facts(row: ValidationRow, run_dir: Path, solution: Path) -> None:
    """The run's status, gate verdict, turns, failed tool calls and unplayed script turns."""
    run = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    row.status, row.gate_passed, row.turns = run["status"], run.get("gate_passed"), run.get("turns", 0)
    failed_calls = tool_errors(run_dir)
    row.tool_errors = len(failed_calls)
    row.unplayed = unplayed_turns(run_dir, solution)
    problems = [] if row.status == "finished" else [str(run.get("text", ""))[:300]]
    problems += failed_calls[:3] + ([row.error] if row.error else [])
    row.error = "; ".join(problems)[:500]


def unplayed_turns(run_dir: Path, solution: Path) -> dict[str, int]:
    """Turns per role of the solution script left over after the run (roles with none left omitted)."""
    played = Counter(e.role for e in read_events(run_dir / "events.jsonl") if isinstance(e, Response))
    roles = json.loads(solution.read_text(encoding="utf-8"))["roles"]
    left = {role: len(turns) - played.get(role, 0) for role, turns in roles.items()}
    return {role: count for role, count in left.items() if count > 0}


def tool_errors(run_dir: Path) -> list[str]:
    """`scope tool: message` of every tool result in the run's log that is an error."""
    found = []
    for event in read_events(run_dir / "events.jsonl"):
        if isinstance(event, ToolResultEvent) and event.is_error:
            text = event.text.strip().splitlines()
            found.append(f"{event.scope} {event.name}: {text[0][:160] if text else ''}")
    return found


def validate_suite(
    tasks: list[SuiteTask],
    out_dir: Path,
    cache_dir: Path | None = None,
    workers: int = 1,
    on_row: Callable[[ValidationRow], None] | None = None,
) -> list[ValidationRow]:
    """Build the fixtures, then validate every task (`workers` at a time); rows in the tasks' order.

    `on_row` is called with each row as soon as its task is done (progress output)."""
    out_dir = Path(out_dir)
    cache_dir = Path(cache_dir) if cache_dir is not None else out_dir / "cache"
    build_fixtures(cache_dir)

    def one(task: SuiteTask) -> ValidationRow:
        row = validate_task(task, cache_dir, out_dir)
        if on_row is not None:
            on_row(row)
        return row

    if workers <= 1:
        return [one(task) for task in tasks]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, tasks))
