"""What a native action format's parser yields, and the tool base that carries it out on the screen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ValidationError

from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.subagents.endings import SubagentClaim
from stateact.subagents.gui_actions import ComputerAction
from stateact.subagents.gui_tools import ComputerTool

SCREEN_NOW = "The screen now:"
"""How a native action's result text ends: the screenshot after the reply's last action follows."""
ERROR_PREFIX = "Error: "
"""Starts the text of a failed action's result when the conversation is sent as plain text."""


class FormatError(ValueError):
    """A reply that does not follow the format; the message tells the model how to fix it."""


@dataclass(frozen=True)
class Ending:
    """A native action that ends the loop: DONE with what was achieved, FAIL with a reason, or (once the
    step budget is spent) INCOMPLETE with what was verified and what remains. An ending without a text
    of its own gets a short account of the last step (`NativeActionTool`)."""

    status: Literal["DONE", "FAIL", "INCOMPLETE"]
    text: str
    remaining: str = ""

    def result(self, account: str) -> ToolResult:
        """The terminal tool result: its text (or `account`) as the subagent's claim."""
        text = self.text or account
        claim = SubagentClaim(status=self.status, detail=text, remaining=self.remaining)
        return ToolResult(text=text, terminal=True, ending=claim)


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
        self.last_step = ""
        """The outcome of the latest action carried out, for an ending that says nothing itself."""

    def parse(self, params: BaseModel) -> list[NativeAction]:
        """The actions of one call; FormatError when it cannot be understood."""
        raise NotImplementedError

    def account(self, ending: Ending) -> str:
        """A short account of an ending that carries no text: its status and the last step before it."""
        head = f"Ended with status {ending.status} without a description"
        return f"{head}; last step: {self.last_step}" if self.last_step else f"{head}, before any action."

    def run(self, params: BaseModel) -> ToolResult:
        try:
            actions = self.parse(params)
        except FormatError as exc:
            return ToolResult.error(f"Not done: {exc}")
        result = ToolResult.error("Not done: the reply names no action.")
        reports: list[str] = []
        self.computer.look_after = False
        try:
            for action in actions:
                if isinstance(action, Ending):
                    if action.status == "INCOMPLETE" and not self.computer.spent:
                        return ToolResult.error(
                            "Not done: report progress only once the step budget is spent."
                        )
                    return action.result(self.account(action))
                result = self.computer.run(action)
                reports.append(result.text if result.is_error else f"Done: {action.summary()}.")
                self.last_step = reports[-1]
                if result.is_error:
                    break
        finally:
            self.computer.look_after = True
        if not reports or self.computer.spent:
            return result
        outcomes = "\n".join(reports)  # every action's outcome, then the one screenshot after the last
        images = result.images or (self.computer.screen.capture(),)
        return replace(result, text=f"{outcomes} {SCREEN_NOW}", images=images)


def plain_messages(
    messages: list[Message], call_text: Callable[[ToolUseBlock], str], result_text: Callable[[str], str]
) -> list[Message]:
    """A conversation as text and images only, for a template that renders neither tool calls nor tool
    messages: an assistant turn is its text plus `call_text` of each call, a tool result is user text
    (`result_text` of it, `Error: ` first for a failed one) followed by its images."""
    return [_plain(m, call_text, result_text) for m in messages]


def _plain(
    message: Message, call_text: Callable[[ToolUseBlock], str], result_text: Callable[[str], str]
) -> Message:
    if message.role == "assistant":
        parts = [message.text(), *(call_text(call) for call in message.tool_uses())]
        text = "\n".join(p for p in parts if p.strip())
        return Message(role="assistant", content=[TextBlock(text=text or "(no reply)")])
    content: list[TextBlock | ImageBlock] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            text = block.text() or "(no output)"
            content.append(TextBlock(text=result_text(ERROR_PREFIX + text if block.is_error else text)))
            content.extend(b for b in block.content if isinstance(b, ImageBlock))
        elif isinstance(block, TextBlock | ImageBlock):
            content.append(block)
    return Message(role="user", content=content or [TextBlock(text="(nothing)")])
