"""Scores at step budgets (`--checkpoint-steps 150,300`): a task scored while its agent runs, when the run's
step count passes each budget, into `result_step_<N>.txt` (the score) and `result_step_<N>.json` (the
budget, the step it was scored at, the checkpoints) in the task's results folder, as OSWorld 2.0 does.

Steps are counted as OSWorld 2.0 counts them: every tool call of every role of the harness (the main
agent's, the GUI and web subagents', the finish gate's: `tool_call` events of any scope, a call the output
limit cut off and was not run excepted), so harnesses that delegate and verify are measured on the same
effort as those that do not.

Scoring mid-run must not change what the agent works on. A task says whether it may be scored mid-run
(`checkpoint_safe`); without that, it may when its postconfig has no step other than `sleep` (a
postconfig that saves, closes or activates windows, or runs commands, acts on the agent's applications).
A task that may not is recorded at each budget it passes as skipped, with the reason, and no score. A
budget the run never reached (it ended before) gets the run's final score, marked `reached: false`.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.scoring import ScoreReport, score_task
from stateact.evals.osworld.task import Task
from stateact.kernel.events import ToolCall, read_events
from stateact.sandbox.base import Sandbox

SAFE_POSTCONFIG = frozenset({"sleep"})
"""Postconfig steps that leave the machine as it is: a task with no other may be scored mid-run."""
STEP_RESULT = "result_step_{budget}"


def is_step(event: Any) -> bool:
    """Whether an event is one step as OSWorld 2.0 counts them: a tool call of any role."""
    return isinstance(event, ToolCall)


def steps_in(run_dir: Path) -> int:
    """The steps a run's log records."""
    events = Path(run_dir) / "events.jsonl"
    return sum(1 for event in read_events(events) if is_step(event)) if events.is_file() else 0


def unsafe_reason(task: Task) -> str:
    """Why the task may not be scored mid-run ('' when it may)."""
    if task.checkpoint_safe is not None:
        return (
            ""
            if task.checkpoint_safe
            else "the task says it may not be scored mid-run (checkpoint_safe: false)"
        )
    acting = sorted({step.type for step in task.evaluator.postconfig} - SAFE_POSTCONFIG)
    if acting:
        return (
            f"its postconfig acts on the applications ({', '.join(acting)}): scoring it would change the run"
        )
    return ""


def result_files(result_dir: Path, budget: int) -> tuple[Path, Path]:
    """The `result_step_N.txt` and `.json` of a budget."""
    stem = Path(result_dir) / STEP_RESULT.format(budget=budget)
    return stem.with_suffix(".txt"), stem.with_suffix(".json")


def clear_budget_results(result_dir: Path) -> None:
    """Remove an earlier attempt's budget results (a task run anew is scored anew)."""
    for path in Path(result_dir).glob(STEP_RESULT.format(budget="*") + ".*"):
        path.unlink(missing_ok=True)


def read_budget_results(result_dir: Path) -> dict[int, dict[str, Any]]:
    """A task's budget records by budget ({} when there are none; a torn one is left out)."""
    found = {}
    for path in Path(result_dir).glob(STEP_RESULT.format(budget="*") + ".json"):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and isinstance(record.get("budget"), int):
            found[record["budget"]] = record
    return found


def _write(result_dir: Path, record: dict[str, Any]) -> None:
    """The record's .json, then (for a score) its .txt; an earlier .txt of a now skipped budget goes."""
    text, data = result_files(result_dir, record["budget"])
    Path(result_dir).mkdir(parents=True, exist_ok=True)
    data.write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")
    if record.get("score") is None:
        text.unlink(missing_ok=True)
    else:
        text.write_text(f"{record['score']}\n", encoding="utf-8")


@dataclass
class BudgetScorer:
    """Scores one task (mapped onto its started sandbox) at its step budgets."""

    task: Task
    sandbox: Sandbox
    cache: FileCache
    task_dir: Path
    result_dir: Path
    budgets: tuple[int, ...]

    def done(self) -> set[int]:
        return set(read_budget_results(self.result_dir))

    def due(self, steps: int, done: set[int]) -> list[int]:
        return [budget for budget in self.budgets if budget <= steps and budget not in done]

    def score(self, budget: int, steps: int) -> dict[str, Any]:
        """Score the task now for `budget` (or record why not); the record written."""
        record: dict[str, Any] = {
            "budget": budget,
            "at_step": steps,
            "reached": True,
            "t": round(time.time(), 3),
        }
        reason = unsafe_reason(self.task)
        if reason:
            record.update(score=None, skipped=reason)
        else:
            with tempfile.TemporaryDirectory(prefix="stateact-step-score-") as work:
                try:
                    report = score_task(self.task, self.sandbox, self.cache, Path(work), False, self.task_dir)
                except Exception as exc:  # a scorer that fails mid-run is recorded, the run goes on
                    record.update(score=None, error=f"{type(exc).__name__}: {exc}")
                else:
                    record.update(report.as_dict())
        _write(self.result_dir, record)
        return record


def fill_unreached(
    result_dir: Path, budgets: tuple[int, ...], final: ScoreReport | None, score: float, steps: int
) -> None:
    """Give each budget the run did not reach (no record yet) the run's final score (and its partial
    score and checkpoints, when `final` has them)."""
    done = read_budget_results(result_dir)
    scored = final.as_dict() if final is not None else {}
    for budget in budgets:
        if budget not in done:
            _write(
                result_dir, {**scored, "budget": budget, "at_step": steps, "reached": False, "score": score}
            )
