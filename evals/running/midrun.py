"""What the harness does to a task while its agent runs: the task's scheduled changes
(evals/running/schedule.py) and its scores at step budgets (evals/running/budget_scores.py).

    watch = MidRun(schedule, scorer)            # either may be None
    execute(config, listener, sandbox, watchers=[watch.attach])
    watch.stop()

`MidRun` listens to the run's events. It counts the steps (every role's tool calls); after each tool
result it makes the changes whose step count or time has come and scores the budgets the count passed,
while the agent waits for that result. A change due after a time is made by a timer thread as soon as
it is due, whatever the agent is doing. Each is logged when it happens (`scheduled_change`,
`step_budget_score`, scope `harness`); the agent is told nothing.

On a resumed run the log tells what happened before the stop: the steps already counted, the changes
already made (not made again) and the agent's first start (a change due after a time counts from it, so
one that fell due while the run was stopped is made when it resumes).
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

from stateact.evals.running.budget_scores import BudgetScorer, is_step
from stateact.evals.running.midrun_events import ScheduledChangeMade, StepBudgetScored
from stateact.evals.running.schedule import Schedule
from stateact.kernel.events import Event, RunStart, ToolResultEvent, read_events
from stateact.kernel.runlog import EventListener, RunFolderFull, RunLog


def made_changes(run_dir: Path) -> set[str]:
    """The ids of the scheduled changes a run's log records as made."""
    events = Path(run_dir) / "events.jsonl"
    found = read_events(events) if events.is_file() else ()
    return {event.id for event in found if isinstance(event, ScheduledChangeMade)}


class MidRun:
    """The listener that makes a task's scheduled changes and scores it at step budgets."""

    def __init__(self, schedule: Schedule | None, scorer: BudgetScorer | None) -> None:
        self.schedule = schedule
        self.scorer = scorer
        self.steps = 0
        self.started_at: float | None = None
        """Epoch seconds of the agent's first start."""
        self._scored: set[int] = set()
        self._log: RunLog | None = None
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._timer: threading.Thread | None = None

    def attach(self, log: RunLog) -> EventListener:
        """Read what the log holds already (a resumed run), then listen to the run (a RunWatcher)."""
        self._log = log
        for event in read_events(log.events_path) if log.events_path.is_file() else ():
            self._count(event)
            if isinstance(event, ScheduledChangeMade) and self.schedule is not None:
                self.schedule.made.add(event.id)
            elif isinstance(event, StepBudgetScored):
                self._scored.add(event.budget)
        if self.scorer is not None:
            self._scored |= self.scorer.done()
        return self.on_event

    def _count(self, event: Event) -> None:
        if is_step(event):
            self.steps += 1
        elif isinstance(event, RunStart) and self.started_at is None:
            self.started_at = event.t

    def on_event(self, event: Event) -> None:
        self._count(event)
        if isinstance(event, RunStart):
            self._start_timer()
            self.catch_up()
        elif isinstance(event, ToolResultEvent):
            self.catch_up()

    @property
    def seconds(self) -> float:
        return time.time() - self.started_at if self.started_at is not None else 0.0

    def catch_up(self) -> None:
        """Make the changes that are due and score the budgets the step count passed."""
        if self._log is None or self._stopped.is_set():
            return
        with self._lock:
            steps, seconds = self.steps, self.seconds
            for change in self.schedule.due(steps, seconds) if self.schedule is not None else []:
                records, failed = self.schedule.make(change)
                self._log.emit(
                    ScheduledChangeMade(
                        id=change.id,
                        trigger=change.trigger,
                        at_step=steps,
                        at_seconds=round(seconds, 1),
                        steps=records,
                        failed=failed,
                    )
                )
            for budget in self.scorer.due(steps, self._scored) if self.scorer is not None else []:
                self._scored.add(budget)
                record = self.scorer.score(budget, steps)
                self._log.emit(
                    StepBudgetScored(
                        budget=budget,
                        at_step=steps,
                        score=record.get("score"),
                        skipped=record.get("skipped", ""),
                        error=record.get("error", ""),
                    )
                )

    def _start_timer(self) -> None:
        """A thread that makes each change due after a time once it is due (none without such changes)."""
        if self._timer is not None or self.schedule is None or not self.schedule.timed:
            return
        self._timer = threading.Thread(target=self._tick, name="scheduled-changes", daemon=True)
        self._timer.start()

    def _tick(self) -> None:
        for due_at in self.schedule.timed:
            if self._stopped.wait(max(0.0, due_at - self.seconds)):
                return
            with contextlib.suppress(RunFolderFull):  # the run ends on it: its own loop reports it
                self.catch_up()

    def stop(self) -> None:
        """Stop making changes (the run ended); waits for a change being made."""
        self._stopped.set()
        if self._timer is not None:
            self._timer.join()
