"""Qwen2.5-VL's `computer_use` function, as in Qwen's computer-use cookbook.

    {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}

Actions: key (`keys`), type (`text`), mouse_move, left_click, left_click_drag (from where the pointer
is to `coordinate`), right_click, middle_click, double_click, scroll (`pixels`: positive up, negative
down), wait (`time` seconds), terminate (`status`: success or failure). The call arrives as a
structured tool call or as `<tool_call>{...}</tool_call>` text, which the OpenAI provider recovers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stateact.kernel.messages import ToolSpec
from subagents import settings
from subagents.action_formats.native import (
    Ending,
    FormatError,
    NativeAction,
    NativeActionTool,
    computer_action,
)
from subagents.gui_actions import Point

CLICKS = ("left_click", "right_click", "middle_click", "double_click")


class QwenComputerUse(BaseModel):
    action: Literal[
        "key",
        "type",
        "mouse_move",
        "left_click",
        "left_click_drag",
        "right_click",
        "middle_click",
        "double_click",
        "scroll",
        "wait",
        "terminate",
    ] = Field(
        description="key: press the `keys` together. type: type `text`. mouse_move: move the pointer to "
        "`coordinate`. left_click, right_click, middle_click, double_click: click at `coordinate`. "
        "left_click_drag: press where the pointer is and drag to `coordinate`. scroll: turn the wheel "
        "`pixels` (positive up, negative down). wait: wait `time` seconds. terminate: end the task with "
        "`status`."
    )
    keys: list[str] | None = Field(None, description="For action=key, e.g. ['ctrl', 's'].")
    text: str | None = Field(None, description="For action=type.")
    coordinate: Point | None = Field(None, description="(x, y) in pixels from the left and top edges.")
    pixels: float | None = Field(None, description="For action=scroll.")
    time: float | None = Field(None, description="For action=wait.")
    status: Literal["success", "failure"] | None = Field(None, description="For action=terminate.")


def qwen_action(call: QwenComputerUse, pointer: list[float] | None) -> NativeAction:
    """The action a `computer_use` call stands for; `pointer` is where the last call left the pointer."""
    if call.action in CLICKS or call.action == "mouse_move":
        return computer_action(action=call.action, coordinate=call.coordinate)
    if call.action == "left_click_drag":
        if pointer is None:
            raise FormatError(
                "left_click_drag starts where the pointer is: move it there with mouse_move first"
            )
        return computer_action(action="left_click_drag", start_coordinate=pointer, coordinate=call.coordinate)
    if call.action == "key":
        keys = call.keys or (call.text or "").split()
        return computer_action(action="key", text="+".join(keys))
    if call.action == "type":
        return computer_action(action="type", text=call.text)
    if call.action == "scroll":
        if not call.pixels:
            raise FormatError("scroll needs `pixels`: positive scrolls up, negative down")
        amount = min(settings.GUI_SCROLL_MAX, max(1, round(abs(call.pixels))))
        direction = "up" if call.pixels > 0 else "down"
        return computer_action(
            action="scroll", coordinate=call.coordinate, scroll_direction=direction, scroll_amount=amount
        )
    if call.action == "wait":
        return computer_action(action="wait", duration=call.time)
    if call.status is None:
        raise FormatError("terminate needs `status`: success or failure")
    return Ending("DONE" if call.status == "success" else "FAIL", "")  # the report takes the turn's text


class QwenComputerUseTool(NativeActionTool):
    """Qwen2.5-VL's `computer_use` function, carried out by the `computer` tool."""

    name = "computer_use"
    description = (
        "Use a mouse and keyboard to interact with the computer. Every action returns a new screenshot. "
        "Look at the latest screenshot for an element's coordinates before you click it, and click the "
        "centre of buttons, links and icons. Applications may take time to respond: wait, then look again. "
        "End with terminate: status success when the screen shows the goal achieved, failure when it "
        "cannot be achieved."
    )
    Input = QwenComputerUse

    def __init__(self, computer) -> None:
        super().__init__(computer)
        self.pointer: list[float] | None = None

    def spec(self) -> ToolSpec:
        """The function schema, with the screen's resolution in the model's coordinates."""
        width, height = self.computer.screen.scaler.coordinate_space
        spec = super().spec()
        return spec.model_copy(
            update={"description": f"{spec.description} The screen's resolution is {width}x{height}."}
        )

    def parse(self, params: QwenComputerUse) -> list[NativeAction]:
        action = qwen_action(params, self.pointer)
        if params.coordinate is not None:
            self.pointer = list(params.coordinate)
        return [action]
