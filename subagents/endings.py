"""How every subagent ends: one `done`, `fail` and `report_progress` tool set and the claim it makes.

    tools = [*actions, *ending_tools(GUI_WORDS)]          # done and fail, in the GUI's wording
    claim = outcome.ending_as(SubagentClaim)              # DONE / FAIL / INCOMPLETE, detail, facts

The field names are the same for every subagent (`summary`, `reason`, `verified`, `remaining`,
`facts`); a subagent sets only how the tools and their fields read to its model (`EndingWords`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from stateact.kernel.messages import ToolSpec
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult

ClaimStatus = Literal["DONE", "FAIL", "INCOMPLETE"]


@dataclass(frozen=True)
class SubagentClaim(LoopEnding):
    """What a subagent says of its own work as it ends: DONE, FAIL or INCOMPLETE (its budget spent)."""

    status: ClaimStatus
    detail: str
    """DONE: what was achieved; FAIL: why not; INCOMPLETE: what was verified. '': the ending had no
    text of its own (a native action format's bare `terminate`)."""
    remaining: str = ""
    """INCOMPLETE only: what is still left to do."""
    facts: tuple[str, ...] = ()
    """The facts it was asked to bring back, as it read them."""


PROGRESS_FIELDS = {
    "verified": "What you saw is done. Nothing you did not see.",
    "remaining": "What is still left to do, and what got in the way.",
}
"""The wording of `report_progress`'s fields, unless a subagent words them its own way."""


@dataclass(frozen=True)
class EndingWords:
    """How one subagent's ending tools read to its model: each tool's description, and each field's."""

    done: str
    fail: str
    fields: Mapping[str, str]
    """A description per field name (`summary`, `reason`, `facts`, and `verified`, `remaining` over
    `PROGRESS_FIELDS`)."""
    progress: str = "Report, after the step budget is spent, what is verified done and what remains."

    def field(self, name: str) -> str | None:
        return self.fields.get(name, PROGRESS_FIELDS.get(name))


class _ClaimInput(BaseModel):
    facts: list[str] = Field(default_factory=list)


class DoneInput(_ClaimInput):
    summary: str


class FailInput(_ClaimInput):
    reason: str


class ProgressInput(_ClaimInput):
    verified: str
    remaining: str


class EndingTool(Tool):
    """A tool that ends a subagent's loop with a `SubagentClaim`, worded by the subagent's `EndingWords`."""

    status: ClassVar[ClaimStatus]
    detail_field: ClassVar[str]

    def __init__(self, words: EndingWords) -> None:
        self.words = words

    @property
    def description(self) -> str:  # type: ignore[override]
        return {"DONE": self.words.done, "FAIL": self.words.fail, "INCOMPLETE": self.words.progress}[
            self.status
        ]

    def spec(self) -> ToolSpec:
        spec = super().spec()
        properties = spec.input_schema["properties"]
        for name, prop in properties.items():
            if text := self.words.field(name):
                prop["description"] = text
        return spec

    def run(self, params: BaseModel) -> ToolResult:
        claim = SubagentClaim(
            status=self.status,
            detail=getattr(params, self.detail_field),
            remaining=getattr(params, "remaining", ""),
            facts=tuple(params.facts),  # type: ignore[attr-defined]
        )
        return ToolResult(text=claim.detail, terminal=True, ending=claim)


class DoneTool(EndingTool):
    name = "done"
    reports_success = True
    Input = DoneInput
    status = "DONE"
    detail_field = "summary"


class FailTool(EndingTool):
    name = "fail"
    Input = FailInput
    status = "FAIL"
    detail_field = "reason"


class ReportProgressTool(EndingTool):
    name = "report_progress"
    Input = ProgressInput
    status = "INCOMPLETE"
    detail_field = "verified"


def ending_tools(words: EndingWords) -> list[Tool]:
    """`done` and `fail` in a subagent's wording (`report_progress` is offered only when a budget is spent)."""
    return [DoneTool(words), FailTool(words)]
