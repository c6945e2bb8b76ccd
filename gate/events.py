"""The finish gate's events in a run's log (`gate_*` kinds), registered with the kernel's event table
when this module is imported (`stateact.kernel.events.register_event`).

Below the gate's reviewer (`gate.review`) and its state inspection (`gate.inspect`), so both, the
best-of-N judge and the reports may read them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from stateact.kernel.events import Event, register_event


@register_event
class GateStart(Event):
    kind: Literal["gate_start"] = "gate_start"
    round: int
    max_rounds: int = 0
    paths: list[dict[str, Any]] = Field(default_factory=list)
    task_started_at: float | None = None
    infeasible_claim: str | None = None


@register_event
class GatePregate(Event):
    kind: Literal["gate_pregate"] = "gate_pregate"
    round: int
    failed: bool = False
    notes: list[str] = Field(default_factory=list)


@register_event
class GateVerdict(Event):
    kind: Literal["gate_verdict"] = "gate_verdict"
    passed: bool | None
    """None: the gate could not decide."""
    round: int
    source: str = "model"
    summary: str = ""
    findings: list[dict[str, Any]] = Field(default_factory=list)
    checklist: list[dict[str, Any]] = Field(default_factory=list)
    violations: list[str] = Field(default_factory=list)
    rounds_used: int = 0
    exhausted: bool = False


@register_event
class GateUndecided(Event):
    kind: Literal["gate_undecided"] = "gate_undecided"
    attempts: int
    problem: str = ""


@register_event
class GateSnapshot(Event):
    kind: Literal["gate_snapshot"] = "gate_snapshot"
    store: str = ""
    files: int = 0
    copies: int = 0
    copied_bytes: int = 0
    capped: bool = False


@register_event
class GateSnapshotError(Event):
    kind: Literal["gate_snapshot_error"] = "gate_snapshot_error"
    error: str


@register_event
class GateViolation(Event):
    kind: Literal["gate_violation"] = "gate_violation"
    round: int
    changes: list[str] = Field(default_factory=list)
    restored: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    not_restored: dict[str, str] = Field(default_factory=dict)
    """Why each file could not be restored, by path."""


@register_event
class GateChanges(Event):
    """The changes since the task started as the gate saw them: counts by status, or an error."""

    kind: Literal["gate_changes"] = "gate_changes"
    error: str | None = None
    baseline_files: int = 0
    changed: int = 0
    added: int = 0
    removed: int = 0
    moved: int = 0
    chars: int = 0


@register_event
class GateBaseline(Event):
    kind: Literal["gate_baseline"] = "gate_baseline"
    folder: str
    files: int = 0
    copies: int = 0
    copied_bytes: int = 0
    without_copy: list[str] = Field(default_factory=list)
    more: int = 0
    """Files beyond the listing cap."""
    named: list[str] = Field(default_factory=list)
    seconds: float = 0.0


@register_event
class GateBaselineError(Event):
    kind: Literal["gate_baseline_error"] = "gate_baseline_error"
    error: str
