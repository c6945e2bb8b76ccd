"""The events the harness logs about a task's machine while its agent runs (evals/running/midrun.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stateact.kernel.events import Event, register_event

HARNESS_SCOPE = "harness"
"""The scope of the events the harness logs about the task's machine (not any agent's loop)."""


@register_event
class ScheduledChangeMade(Event):
    kind: Literal["scheduled_change"] = "scheduled_change"
    scope: str = HARNESS_SCOPE
    id: str
    trigger: str
    """When it was due (`after 40 steps`)."""
    at_step: int
    at_seconds: float
    steps: list[dict[str, Any]] = Field(default_factory=list)
    """What each of its steps did (as a setup step's record)."""
    failed: str = ""


@register_event
class StepBudgetScored(Event):
    kind: Literal["step_budget_score"] = "step_budget_score"
    scope: str = HARNESS_SCOPE
    budget: int
    at_step: int
    score: float | None = None
    skipped: str = ""
    error: str = ""
