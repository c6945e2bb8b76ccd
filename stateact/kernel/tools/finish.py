"""The `finish` tool: ends the task, but only through the finish gate when one is configured."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from pydantic import BaseModel, Field

from stateact.kernel.events import FinishCalled
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult


class GateVerdict(Protocol):
    passed: bool | None
    """None: the gate could not decide (its own failure)."""

    def report(self) -> str:
        """The verdict and its findings as text for the agent."""


class Gate(Protocol):
    """What the finish tool needs of a finish gate."""

    @property
    def exhausted(self) -> bool:
        """True once the gate has used all its rounds."""

    def review(self, infeasible_claim: str | None = None) -> GateVerdict:
        """Judge the deliverable, or with `infeasible_claim` (the agent's reason) the claim that it cannot be done."""


@dataclass(frozen=True)
class FinishClaim(LoopEnding):
    """How the main agent's `finish` ended the run: its summary, whether it declared the task
    infeasible (and the gate did not refute that), and the gate's verdict on it."""

    summary: str
    infeasible: bool = False
    gate_passed: bool | None = None
    """None: no gate reviewed it, or the gate could not decide."""


class FinishInput(BaseModel):
    summary: str = Field(
        description="What was done and where the deliverable is (the gate does not read this)."
    )
    infeasible: bool = Field(
        default=False,
        description="Set true to declare that the task cannot be done as asked; say in the summary exactly what "
        "is missing or impossible (the gate checks that claim).",
    )


class FinishTool(Tool[FinishInput]):
    name = "finish"
    description = (
        "Call when the task is complete, or with infeasible=true when it cannot be done; a gate may then "
        "review it and return findings. It is not run after a call of the same turn that failed or a claim its "
        "check refuted: read those first."
    )
    Input = FinishInput
    reports_success = True

    def __init__(
        self, context: RunContext, gate: Gate | None = None, on_verdict: Callable[[bool], None] | None = None
    ) -> None:
        self.context = context
        self.gate = gate
        self.on_verdict = on_verdict

    def run(self, params: FinishInput) -> ToolResult:
        claim = FinishClaim(summary=params.summary, infeasible=params.infeasible)
        self.context.log.emit(FinishCalled(summary=claim.summary, infeasible=claim.infeasible))
        if self.gate is None:
            return ToolResult(text="Task ended.", terminal=True, ending=claim)
        verdict = self.gate.review(infeasible_claim=params.summary if params.infeasible else None)
        claim = replace(
            claim, gate_passed=verdict.passed, infeasible=params.infeasible and verdict.passed is not False
        )
        if self.on_verdict is not None:
            self.on_verdict(verdict.passed is True)
        if verdict.passed is None and self.context.dollars_spent:
            return ToolResult.error(
                verdict.report() + "\nThe run's dollar budget ran out before the review ended; the run stops "
                "here (resume it with a larger budget to have the work reviewed)."
            )
        if verdict.passed is None:
            return ToolResult(
                text=verdict.report() + "\nThe run ends unreviewed.", terminal=True, ending=claim
            )
        if verdict.passed:
            return ToolResult(text=verdict.report(), terminal=True, ending=claim)
        if self.gate.exhausted:
            return ToolResult(
                text=verdict.report() + "\nThe gate's rounds are used up; the run ends with this verdict.",
                terminal=True,
                ending=claim,
            )
        advice = (
            "The gate does not accept that the task is infeasible: do it, then call finish again."
            if params.infeasible
            else "Fix these problems, then call finish again."
        )
        return ToolResult(text=f"{verdict.report()}\n{advice}", is_error=True)
