"""Best-of-N rollouts of one task: where they live, their budget, and the evidence each leaves.

A task run N times keeps its rollouts in `<task folder>/rollouts/<k>/` (k = 1..N), each a normal
task folder: `run/`, `result.txt` or `error.json`, `score.json`, `artifacts/`, plus `start/` (the
state the judge compares with) and `evidence.json` (what the judge sees, `gate.judge.evidence`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.gate.judge import settings as judge_settings
from stateact.gate.judge.evidence import EVIDENCE_FILE, START_FOLDER, collect_evidence, take_start
from stateact.sandbox.base import Sandbox

ROLLOUTS_FOLDER = "rollouts"


def rollout_dir(task_dir: Path, rollout: int) -> Path:
    return Path(task_dir) / ROLLOUTS_FOLDER / str(rollout)


def task_dir_of(rollout_folder: Path) -> Path:
    return Path(rollout_folder).parent.parent


def best_of_key(model_key: str, best_of: int) -> str:
    """The results folder name of a model key run best-of-N (N > 1 gets its own folder)."""
    return f"{model_key}+best{best_of}" if best_of > 1 else model_key


def judge_reserve(max_usd: float | None) -> float:
    """Dollars of a task's budget kept for the judge."""
    return (
        0.0
        if max_usd is None
        else min(judge_settings.JUDGE_MAX_USD, max_usd * judge_settings.JUDGE_BUDGET_SHARE)
    )


def rollout_budget(max_usd: float | None, best_of: int) -> float | None:
    """One rollout's dollars: an even share of the task's budget after the judge's reserve."""
    return None if max_usd is None else (max_usd - judge_reserve(max_usd)) / best_of


def run_rollout(config: RunConfig, sandbox: Sandbox, folder: Path, run: Callable[[], str | Path]) -> Path:
    """Record the start state in `folder`, `run()` the agent (it returns the run folder), then save the
    final state's evidence while the sandbox is still open; returns the run folder."""
    shutil.rmtree(Path(folder) / START_FOLDER, ignore_errors=True)
    (Path(folder) / EVIDENCE_FILE).unlink(missing_ok=True)
    Path(folder).mkdir(parents=True, exist_ok=True)
    started_at = take_start(sandbox, folder, config.instruction)
    run_dir = Path(run())
    collect_evidence(sandbox, folder, config.instruction, run_dir, started_at)
    return run_dir
