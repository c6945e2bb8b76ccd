"""Making a task's scheduled changes (a task file's `schedule`, evals/osworld/task.py ScheduledChange).

A change's steps are setup steps (evals/osworld/setup.py), run in the task's sandbox through the sandbox's
own commands and file access, as its setup steps are: never as the harness's user on the agent's paths. A
step that fails is recorded, as OSWorld records a failed setup step, and the run goes on; the agent is not
told either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.setup import SetupContext, degraded_steps, run_steps
from stateact.evals.osworld.task import ScheduledChange
from stateact.sandbox.base import Sandbox


@dataclass
class Schedule:
    """A task's scheduled changes on its sandbox; `made` holds the ids of those made already (on a resumed
    run, those its log records)."""

    changes: list[ScheduledChange]
    sandbox: Sandbox
    cache: FileCache
    task_dir: Path
    made: set[str] = field(default_factory=set)

    def due(self, steps: int, seconds: float) -> list[ScheduledChange]:
        """The changes not made yet whose time has come after `steps` tool calls and `seconds`."""
        return [
            change
            for change in self.changes
            if change.id not in self.made
            and (
                (change.after_steps is not None and steps >= change.after_steps)
                or (change.after_seconds is not None and seconds >= change.after_seconds)
            )
        ]

    @property
    def timed(self) -> list[float]:
        """When the changes due after a time are due, in seconds."""
        return sorted(c.after_seconds for c in self.changes if c.after_seconds is not None)

    def make(self, change: ScheduledChange) -> tuple[list[dict], str]:
        """Run the change's steps; (their records, what failed: '' when nothing did)."""
        self.made.add(change.id)
        context = SetupContext(
            cache=self.cache, task_dir=self.task_dir, stage=f"scheduled change {change.id}"
        )
        try:
            run_steps(change.steps, self.sandbox, context)
        except (
            Exception
        ) as exc:  # any step's failure (a browser gone, a bad parameter) is the change's, not the run's
            return context.records, f"{type(exc).__name__}: {exc}"
        return context.records, "; ".join(degraded_steps(context.records))
