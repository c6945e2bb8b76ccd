"""Validating a suite: replay every task's reference solution through the full harness and score it.

    rows = validate_suite(discover(OFFICE_SUITE), out_dir=Path("runs/validate"), workers=2)

Each task gets a fresh LocalSandbox with its own display; its setup runs, then
`stateact.run.execute` plays the reference solution (the `scripted` provider,
one script for every role) with the `stateact` harness, then the task is scored.
A task is valid when its score is 1.0 (every checkpoint met).
"""

from __future__ import annotations

import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from evals import settings
from evals.fixtures.build import build_fixtures
from evals.runner import run_task_file
from evals.suite import SuiteTask, mapped_solution
from sandbox.base import Sandbox
from sandbox.local import LocalSandbox
from stateact.config import RunConfig
from stateact.run import RunResult, execute
from stateact.runtime import RoleModels

SCRIPTED_MODEL = "scripted"
"""The model folder name of validation results."""


@dataclass
class ValidationRow:
    task_id: str
    domain: str
    score: float = 0.0
    partial: float = 0.0
    met: int = 0
    checkpoints: int = 0
    status: str = ""
    """The run's end status (finished, error, ...), or `setup-error`."""
    gate_passed: bool | None = None
    turns: int = 0
    seconds: float = 0.0
    error: str = ""
    result_dir: str = ""

    @property
    def valid(self) -> bool:
        return self.score == 1.0


def validate_task(
    task: SuiteTask, cache_dir: Path, out_dir: Path, solution: Path | None = None
) -> ValidationRow:
    """Replay one task's reference solution (or another `solution` script) on a fresh local sandbox.

    Never raises: a task that cannot be set up or run is a row with its error."""
    row = ValidationRow(task.id, task.domain, checkpoints=task.checkpoints)
    started = time.monotonic()
    sandbox = LocalSandbox(out_dir / "homes" / task.id, display=True)
    runs: list[RunResult] = []

    def run_agent(instruction: str, given: Sandbox) -> Path:
        script = mapped_solution(solution or task.solution_path, given.home, out_dir / "scripts" / f"{task.id}.json")
        config = RunConfig(
            instruction=instruction,
            models=RoleModels(main=f"scripted:{script}"),
            harness=settings.VALIDATE_HARNESS,
            runs_root=out_dir / "runs",
            run_id=task.id,
            max_turns=settings.VALIDATE_MAX_TURNS,
            max_usd=None,
            max_seconds=settings.VALIDATE_MAX_SECONDS,
            labels={"suite": "validate", "task": task.id},
        )
        runs.append(execute(config, sandbox=given))
        return Path(runs[-1].run_dir)

    try:
        sandbox.start()
        outcome = run_task_file(
            task.path,
            sandbox,
            run_agent,
            cache_dir,
            out_dir / "results",
            model=SCRIPTED_MODEL,
            harness=settings.VALIDATE_HARNESS,
        )
        row.result_dir = str(outcome.result_dir)
        if outcome.report is not None:
            row.score, row.partial = outcome.report.score, outcome.report.partial
            row.met = outcome.report.checkpoints[0]
            row.error = "; ".join(
                f"{p['func']}: {p.get('error') or p.get('inputs', [''])[0]}"
                for p in outcome.report.parts
                if p["score"] != 1.0
            )[:500]
    except Exception as exc:  # a broken task is a row in the table, not a crash of the whole validation
        row.status = "setup-error" if not runs else row.status
        row.error = f"{type(exc).__name__}: {exc}"
        (out_dir / "errors").mkdir(parents=True, exist_ok=True)
        (out_dir / "errors" / f"{task.id}.txt").write_text(traceback.format_exc(), encoding="utf-8")
    finally:
        sandbox.close()
    if runs:
        run = runs[-1]
        row.status, row.gate_passed, row.turns = run.status, run.gate_passed, run.turns
        if run.status not in ("finished",) and not row.error:
            row.error = run.text[:500]
    row.seconds = round(time.monotonic() - started, 1)
    return row


def validate_suite(
    tasks: list[SuiteTask], out_dir: Path, cache_dir: Path | None = None, workers: int = 1, on_row=None
) -> list[ValidationRow]:
    """Build the fixtures, then validate every task (`workers` at a time); rows in the tasks' order."""
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
