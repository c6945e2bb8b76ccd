"""Running a suite under several harness variants: one job per (harness, task), in parallel workers.

    options = SuiteOptions(suite, ("stateact", "bash-only"), "anthropic:MODEL", results, cache)
    outcomes = run_suite(options, on_job)

Each job gets a fresh sandbox from a pool slot (sandbox/pool.py: by default a
LocalSandbox with its own home folder and Xvfb display, isolated by bubblewrap with the suite's task
files, results and cache hidden; or an OSWorld VM reset
before the job; evals/running/engines run the slots), runs the task file's setup, the harness on the instruction (`evals.running.runner.run_task`
with the task's timeout and budgets), scoring, and writes OSWorld's results
layout `<results>/<harness>/<model>/<domain>/<task_id>/` with the run folder in
`run/` beside `result.txt`. A job whose folder has `result.txt` is skipped, so a
stopped suite resumes where it was; a job stopped mid-run continues its run (evals/running/stopped_jobs.py).
A job that fails outside the agent (bad task
file, setup error, no reference solution, an expected file that cannot be
fetched, an unsupported metric rule, a provider that failed before the first
turn) writes `error.json` instead (evals/running/failures.py), shows as an error, not a
score, in the reports, and runs again on the next invocation.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from stateact.evals import settings
from stateact.evals.running.best_of import finish_tasks
from stateact.evals.running.engines.local import run_on_threads
from stateact.evals.running.jobs import (
    SANDBOXES_FOLDER,
    JobListener,
    JobOutcome,
    RetiredListener,
    SuiteOptions,
    local_slot,
    plan_jobs,
)


def run_suite(
    options: SuiteOptions, listener: JobListener | None = None, on_retired: RetiredListener | None = None
) -> list[JobOutcome]:
    """Run every job not yet done, one per pool slot at a time, on `options.engine`; outcomes in job
    order. A job whose slot is retired runs on another slot; when none is left it is an error row.

    On Ctrl-C no new job starts and the running ones are interrupted (their runs stay resumable, unscored);
    the same call later resumes them (or starts over those whose run had no turn yet)."""
    jobs = plan_jobs(options)
    notify = listener or (lambda *_: None)
    retired = on_retired or (lambda _: None)
    slots = list(options.pool) or [local_slot(options, f"local{i}") for i in range(options.workers)]
    if options.engine == settings.ENGINE_RAY:
        from stateact.evals.running.engines.ray_engine import run_on_ray as run_jobs
    elif options.engine == settings.ENGINE_LOCAL:
        run_jobs = run_on_threads
    else:
        raise ValueError(
            f"unknown engine {options.engine!r}: use {settings.ENGINE_LOCAL} or {settings.ENGINE_RAY}"
        )
    try:
        outcomes = run_jobs(options, jobs, slots, notify, retired)
    finally:
        _remove_if_empty(Path(options.results) / SANDBOXES_FOLDER)
    if options.best_of > 1:
        return finish_tasks(options, outcomes)
    return outcomes


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()
