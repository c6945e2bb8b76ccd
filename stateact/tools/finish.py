"""The `finish` tool: ends the task, but only through the finish gate when one is configured."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, Field

from stateact.runtime import RunContext
from stateact.tools.base import Tool, ToolResult


class GateVerdict(Protocol):
    passed: bool

    def report(self) -> str:
        """The verdict and its findings as text for the agent."""


class Gate(Protocol):
    """What the finish tool needs of a finish gate."""

    @property
    def exhausted(self) -> bool:
        """True once the gate has used all its rounds."""

    def review(self) -> GateVerdict: ...


class FinishInput(BaseModel):
    summary: str = Field(
        description="What was done and where the deliverable is (the gate does not read this)."
    )
    infeasible: bool = Field(
        default=False,
        description="Set true to declare that the task cannot be done as asked (say why in the summary).",
    )


class FinishTool(Tool[FinishInput]):
    name = "finish"
    description = (
        "Call when the task is complete, or with infeasible=true when it cannot be done. "
        "An independent gate then re-reads the saved deliverable against the task text; if it finds "
        "problems you get its findings back and continue working."
    )
    Input = FinishInput

    def __init__(
        self, context: RunContext, gate: Gate | None = None, on_verdict: Callable[[bool], None] | None = None
    ) -> None:
        self.context = context
        self.gate = gate
        self.on_verdict = on_verdict

    def run(self, params: FinishInput) -> ToolResult:
        data = {"summary": params.summary, "infeasible": params.infeasible}
        self.context.log.emit("finish_called", **data)
        if self.gate is None or params.infeasible:
            return ToolResult(text="Task ended.", terminal=True, data=data)
        verdict = self.gate.review()
        data["gate_passed"] = verdict.passed
        if self.on_verdict is not None:
            self.on_verdict(verdict.passed)
        if verdict.passed:
            return ToolResult(text=verdict.report(), terminal=True, data=data)
        if self.gate.exhausted:
            return ToolResult(
                text=verdict.report() + "\nThe gate's rounds are used up; the run ends with this verdict.",
                terminal=True,
                data=data,
            )
        return ToolResult(
            text=verdict.report() + "\nFix these problems, then call finish again.", is_error=True, data=data
        )
