"""What a native action format's parser yields, and the tool base that carries it out on the screen."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ValidationError

from stateact.kernel.tools.base import Tool, ToolResult
from subagents.gui_actions import ComputerAction
from subagents.gui_tools import ComputerTool

SCREEN_NOW = "The screen now:"
"""How the `computer` tool's result text ends when a screenshot follows."""


class FormatError(ValueError):
    """A reply that does not follow the format; the message tells the model how to fix it."""


@dataclass(frozen=True)
class Ending:
    """A native action that ends the loop: DONE with a summary, or FAIL with a reason. Without a text of
    its own (Qwen's `terminate` has only a status) the report takes the model's text of that turn."""

    status: Literal["DONE", "FAIL"]
    text: str

    @property
    def shown(self) -> str:
        """The tool result's text."""
        return self.text or f"Ended with status {self.status}."


NativeAction = ComputerAction | Ending


def computer_action(**fields) -> ComputerAction:
    """A ComputerAction from parsed fields; a field the action rejects is a FormatError."""
    try:
        return ComputerAction(**{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        raise FormatError("; ".join(e["msg"] for e in exc.errors())) from None


class NativeActionTool(Tool):
    """Runs the actions a native format's call stands for on the `computer` tool, in order."""

    def __init__(self, computer: ComputerTool) -> None:
        self.computer = computer

    def parse(self, params: BaseModel) -> list[NativeAction]:
        """The actions of one call; FormatError when it cannot be understood."""
        raise NotImplementedError

    def run(self, params: BaseModel) -> ToolResult:
        try:
            actions = self.parse(params)
        except FormatError as exc:
            return ToolResult.error(f"Not done: {exc}")
        result = ToolResult.error("Not done: the reply names no action.")
        reports: list[str] = []
        for action in actions:
            if isinstance(action, Ending):
                field = "summary" if action.status == "DONE" else "reason"
                return ToolResult(
                    text=action.shown, terminal=True, data={"status": action.status, field: action.text}
                )
            result = self.computer.run(action)
            reports.append(result.text.removesuffix(SCREEN_NOW).rstrip())
            if result.is_error:
                break
        if len(reports) > 1:  # every action's outcome, then the one screenshot after the last
            return replace(result, text="\n".join([*reports, SCREEN_NOW] if result.images else reports))
        return result
