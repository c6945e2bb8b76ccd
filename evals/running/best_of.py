"""Best-of-N tasks: after a task's N rollouts ran (evals/running/rollouts.py), the judge picks one and the pick
becomes the task's result.

    outcomes = finish_tasks(options, rollout_outcomes)   # one outcome per (task, harness)

A task is judged once every rollout has a score (`result.txt`) or failed in the agent's run (a
provider error before the first turn: the rollout lost). A rollout that failed outside the agent
(setup, scoring, a lost sandbox) leaves the task unjudged, with `error.json`; the next invocation runs
the rollouts that are not done, then judges. Only scored rollouts are candidates (`gate.judge.judge`).

The pick becomes the result: its folder's files (run/, traj.jsonl, score.json, artifacts/, and last
result.txt) are copied into the task folder, so the task's score is the picked rollout's home as
scored. `best_of.json` beside them holds every rollout's score, success and dollars, the pick with
the judge's reasons, pass@N (some rollout succeeded), whether the pick succeeded when one could have,
and the task's dollars (every rollout plus the judge). The judgement's log is in `judge/`.
"""

from __future__ import annotations

import json
import shutil
from itertools import groupby
from pathlib import Path

from stateact.evals import settings
from stateact.evals.running.failures import AGENT, SETUP, TaskFailure
from stateact.evals.running.jobs import JobOutcome, SuiteJob, SuiteOptions, job_result_dir
from stateact.evals.running.results import (
    ERROR_FILE,
    RESULT_FILE,
    SCORE_FILE,
    is_done,
    read_score,
    write_error,
)
from stateact.evals.running.rollouts import rollout_dir
from stateact.gate.judge.evidence import EVIDENCE_FILE, START_FOLDER, load_evidence
from stateact.gate.judge.judge import ROLE as JUDGE_ROLE
from stateact.gate.judge.judge import judge_rollouts
from stateact.kernel.runtime import RoleModels

BEST_OF_FILE = "best_of.json"
JUDGE_FOLDER = "judge"
NOT_COPIED = (START_FOLDER, EVIDENCE_FILE, RESULT_FILE)
"""What of the picked rollout's folder stays there (result.txt is copied last, on its own)."""


def finish_tasks(options: SuiteOptions, outcomes: list[JobOutcome]) -> list[JobOutcome]:
    """Judge every task whose rollouts are all done; one outcome per (task, harness), in job order."""
    finished = []
    for (_, harness), group in groupby(outcomes, key=lambda o: (o.job.task.path, o.job.harness)):
        rollouts = list(group)
        job = SuiteJob(rollouts[0].job.task, harness)
        finished.append(finish_task(options, job, rollouts))
    return finished


def finish_task(options: SuiteOptions, job: SuiteJob, rollouts: list[JobOutcome]) -> JobOutcome:
    """Judge one task's rollouts and make the pick its result (or an error row when it cannot be)."""
    task_dir = job_result_dir(options, job)
    seconds = max((o.seconds for o in rollouts), default=0.0)
    if is_done(task_dir):
        return JobOutcome(job, task_dir, read_score(task_dir), skipped=True)
    folders = [rollout_dir(task_dir, k) for k in range(1, options.best_of + 1)]
    pending = [f for f in folders if not is_done(f) and _failed_stage(f) != AGENT]
    if pending:
        reasons = "; ".join(f"rollout {f.name}: {_failure_text(f)}" for f in pending)
        failure = TaskFailure(SETUP, "best-of-N rollouts", f"not every rollout ran: {reasons}")
        write_error(task_dir, failure, {"task_id": job.task.id, "harness": job.harness})
        return JobOutcome(job, task_dir, error=failure.summary, seconds=seconds)
    scored = [is_done(f) for f in folders]
    if not any(scored):
        failure = TaskFailure(AGENT, "best-of-N rollouts", "every rollout's run failed")
        write_error(task_dir, failure, {"task_id": job.task.id, "harness": job.harness})
        return JobOutcome(job, task_dir, error=failure.summary, seconds=seconds)
    spent = sum(_run_usd(f) for f in folders)
    evidence = [load_evidence(f) if ok else None for f, ok in zip(folders, scored, strict=True)]
    budget = None if options.max_usd is None else max(0.0, options.max_usd - spent)
    pick = judge_rollouts(
        job.task.task.instruction, evidence, judge_models(options), task_dir / JUDGE_FOLDER, budget
    )
    record = _record(folders, scored, pick, spent)
    (task_dir / BEST_OF_FILE).write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
    _promote(folders[pick.rollout - 1], task_dir)
    return JobOutcome(job, task_dir, read_score(task_dir), seconds=seconds)


def judge_models(options: SuiteOptions) -> RoleModels | None:
    """The judge's model (`--judge-model`, else the main model) and settings; None when there is none:
    `--model reference` plays scripts, so it needs a --judge-model."""
    spec = options.role_models.get(JUDGE_ROLE) or (
        None if options.model == settings.REFERENCE_MODEL else options.model
    )
    return None if spec is None else RoleModels(main=spec, settings=options.role_settings)


def _record(folders: list[Path], scored: list[bool], pick, spent: float) -> dict:
    rows = []
    for folder, ok in zip(folders, scored, strict=True):
        rows.append(
            {
                "rollout": int(folder.name),
                "score": read_score(folder) if ok else None,
                "success": _success(folder) if ok else False,
                "error": "" if ok else _failure_text(folder),
                "usd": _run_usd(folder),
            }
        )
    any_success = any(row["success"] for row in rows)
    return {
        "best_of": len(folders),
        "picked": pick.rollout,
        "by": pick.by,
        "reasons": pick.reasons,
        "candidates": pick.candidates,
        "passed": pick.passed,
        "rollouts": rows,
        "pass_at_n": any_success,
        "pick_correct": rows[pick.rollout - 1]["success"] if any_success else None,
        "judge_usd": pick.usd,
        "usd": round(spent + pick.usd, 6),
    }


def _promote(picked: Path, task_dir: Path) -> None:
    """The picked rollout's results become the task's: its files, then result.txt last."""
    for item in picked.iterdir():
        if item.name in NOT_COPIED:
            continue
        target = task_dir / item.name
        if target.is_dir():
            shutil.rmtree(target)
        if item.is_dir():
            shutil.copytree(item, target, symlinks=True)
        else:
            shutil.copy2(item, target)
    (task_dir / ERROR_FILE).unlink(missing_ok=True)
    shutil.copy2(picked / RESULT_FILE, task_dir / RESULT_FILE)


def _success(folder: Path) -> bool:
    """Every checkpoint met: score.json's `binary`, else a score of 1."""
    details = _json(folder / SCORE_FILE)
    binary = details.get("binary")
    return binary if isinstance(binary, bool) else read_score(folder) == 1.0


def _failed_stage(folder: Path) -> str | None:
    return _json(folder / ERROR_FILE).get("stage") if (folder / ERROR_FILE).is_file() else None


def _failure_text(folder: Path) -> str:
    record = _json(folder / ERROR_FILE)
    return str(record.get("error") or "did not run")


def _run_usd(folder: Path) -> float:
    usd = _json(folder / "run" / "result.json").get("usd", 0.0)
    return float(usd) if isinstance(usd, int | float) else 0.0


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
