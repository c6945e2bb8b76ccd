"""A suite job whose earlier attempt stopped mid-run (the suite was killed, the machine rebooted, Ctrl-C):
whether its run can go on where it stopped, and if not, why it starts over.

A job's sandbox home is in a work folder of its own under `<results>/.sandboxes/`, recorded in its
run's config (`workdir`). The folder is removed when the job ends, and kept when the job stops before
its end with a run it could resume. The resume itself is `evals.running.runner.resume_task`, the
machinery of `stateact resume`, on a fresh sandbox of a local slot over the kept home
(evals/running/jobs.py).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from stateact.app.resume import ResumeError, RunState
from stateact.app.run import load_resumable
from stateact.evals.running.results import ERROR_FILE, RUN_FOLDER
from stateact.sandbox.pool import LocalSlot, Slot

ROLLOUT_NOT_RESUMED = "a best-of rollout is not resumed (its judge's evidence starts with the rollout)"
RAY_NOT_RESUMED = (
    "started over: the ray engine does not resume a stopped run (its sandbox home was on a worker)"
)
VM_NOT_RESUMED = (
    "its slot's machine is reset before every job, so the stopped run's files and programs are gone"
)


@dataclass(frozen=True)
class StoppedRun:
    """The run an earlier attempt of a job left unfinished, and whether it can go on."""

    run_dir: Path
    state: RunState | None = None
    """The run's state when it can be resumed (None: it starts over)."""
    why_not: str = ""
    """Why it starts over."""
    work_folder: Path | None = None
    """The work folder of the stopped run's sandbox home, as its config names it (None: not known)."""

    def summary(self) -> str:
        """What became of it, as the job's progress line says it."""
        if self.state is None:
            return f"started over: {self.why_not}"
        return f"resumed after turn {self.state.main_turns}"


def stopped_run(result_dir: Path, slot: Slot, sandboxes: Path, rollout: bool = False) -> StoppedRun | None:
    """The unfinished run in a job's results folder `result_dir`, to be resumed on `slot` over its home in
    `sandboxes` (the results' sandbox folders); None: there is none (a job that ended with error.json runs
    again from its start, as its error says)."""
    if not left_unfinished(result_dir):
        return None
    run_dir = Path(result_dir) / RUN_FOLDER
    if not (run_dir / "config.json").exists():
        return StoppedRun(run_dir, why_not="it stopped before its run started (during the task's setup)")
    work_folder = _recorded_work_folder(run_dir)
    try:
        state = load_resumable(run_dir)
    except (ResumeError, ValueError, OSError) as exc:  # OSError: a log that cannot be read
        return StoppedRun(run_dir, why_not=str(exc), work_folder=work_folder)
    why_not = _why_not_resumable(state, slot, sandboxes, rollout)
    return StoppedRun(run_dir, None if why_not else state, why_not, work_folder)


def left_unfinished(result_dir: Path) -> bool:
    """Whether an earlier attempt of the job stopped before its end (a run folder, no error.json; a job
    with result.txt is done and never run again)."""
    return (Path(result_dir) / RUN_FOLDER).is_dir() and not (Path(result_dir) / ERROR_FILE).exists()


def _recorded_work_folder(run_dir: Path) -> Path | None:
    """The folder holding the home its config.json names, read leniently (the config may be damaged)."""
    try:
        home = json.loads((run_dir / "config.json").read_text(encoding="utf-8")).get("workdir")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(home).parent if isinstance(home, str) and home else None


def _why_not_resumable(state: RunState, slot: Slot, sandboxes: Path, rollout: bool) -> str:
    config = state.config
    home = Path(config.workdir) if config.workdir else None
    reasons = [
        (rollout, ROLLOUT_NOT_RESUMED),
        (not isinstance(slot, LocalSlot), VM_NOT_RESUMED),
        (config.task is None, "its run is not a task file's"),
        (state.main_turns == 0, "its run stopped before the agent's first turn"),
        (home is None, "its run does not name its sandbox's home (a run of an earlier version)"),
        (home is not None and not _job_folder(home.parent, sandboxes), f"{home} is not a job's home"),
        (home is not None and not home.is_dir(), f"its sandbox's home {home} is gone"),
        (
            isinstance(slot, LocalSlot) and slot.isolation != config.isolation,
            f"it ran with isolation {config.isolation}, the slot's is {getattr(slot, 'isolation', '')}",
        ),
    ]
    return next((reason for failed, reason in reasons if failed), "")


def keep_for_resume(result_dir: Path, slot: Slot, sandboxes: Path, rollout: bool) -> bool:
    """Whether a job that stopped before its end left a run its next attempt resumes (keep its home)."""
    stopped = stopped_run(result_dir, slot, sandboxes, rollout)
    return stopped is not None and stopped.state is not None


def remove_work_folder(folder: Path | None, sandboxes: Path) -> None:
    """Remove a job's work folder, if it is one of the results' sandbox folders."""
    if folder is not None and _job_folder(folder, sandboxes):
        shutil.rmtree(folder, ignore_errors=True)


def _job_folder(folder: Path, sandboxes: Path) -> bool:
    """Whether `folder` is one of the results' sandbox folders (a damaged config may name any folder)."""
    return Path(folder).resolve().parent == Path(sandboxes).resolve()
