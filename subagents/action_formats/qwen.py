"""Qwen2.5-VL's `computer_use` function, as in Qwen's computer-use cookbook.

    {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}

Actions: key (`keys`), type (`text`), mouse_move, left_click, left_click_drag (from where the pointer
is to `coordinate`), right_click, middle_click, double_click, scroll (`pixels`: positive up, negative
down), wait (`time` seconds), terminate (`status`: success or failure; the reply's text says what
was achieved). The call arrives as a structured tool call or as `<tool_call>{...}</tool_call>` text.

Qwen2.5-VL's chat template renders neither a request's `tools` nor an assistant's `tool_calls`. With the
role's `tools_in_prompt`, `QwenModel` does what Qwen's computer-use cookbook does: the function schemas
and the `<tool_call>` output format go into the system message, past calls go back as that text and
their results as `<tool_response>` user text, and calls are read from the reply's text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from stateact.kernel.messages import TextBlock, ToolSpec, ToolUseBlock
from stateact.kernel.models.base import ModelProvider, ModelRequest, ModelResponse
from stateact.kernel.models.openai_provider import calls_from_text
from stateact.kernel.prompts.loader import render_prompt
from stateact.subagents import settings
from stateact.subagents.action_formats.native import (
    Ending,
    FormatError,
    NativeAction,
    NativeActionTool,
    computer_action,
    plain_messages,
)
from stateact.subagents.gui_actions import Point

CLICKS = ("left_click", "right_click", "middle_click", "double_click")
TOOLS_PROMPT = Path(__file__).parent.parent / "prompts" / "qwen_tools.md"
"""Qwen's function-calling section of the system message, with `{{tools}}` for the schemas."""


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
    summary: SkipJsonSchema[str | None] = None
    """Not in the schema: the text of the reply that called terminate, filled in by `QwenModel`."""


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
    return Ending("DONE" if call.status == "success" else "FAIL", (call.summary or "").strip())


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


def tool_call_text(call: ToolUseBlock) -> str:
    """A call as Qwen writes it: `<tool_call>` around its name and arguments."""
    arguments = call.input if call.raw_arguments is None else call.raw_arguments
    return f"<tool_call>\n{json.dumps({'name': call.name, 'arguments': arguments})}\n</tool_call>"


def tool_response_text(text: str) -> str:
    """A result as Qwen's template wraps a tool message."""
    return f"<tool_response>\n{text}\n</tool_response>"


def tools_section(tools: list[ToolSpec]) -> str:
    """The system message's function-calling section for `tools`."""
    schemas = "\n".join(
        json.dumps(
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
        )
        for t in tools
    )
    return render_prompt(TOOLS_PROMPT, tools=schemas).strip()


class QwenModel(ModelProvider):
    """The role's provider, speaking Qwen2.5-VL's format: a `terminate` call carries its reply's text,
    and with `tools_in_prompt` the schemas, calls and results travel as text (the module's docstring)."""

    def __init__(self, inner: ModelProvider, *, tools_in_prompt: bool = False) -> None:
        self.inner = inner
        self.tools_in_prompt = tools_in_prompt
        self.name = inner.name
        self.spec = inner.spec
        self.options = inner.options

    def complete(self, request: ModelRequest) -> ModelResponse:
        if not self.tools_in_prompt:
            return self._with_summaries(self.inner.complete(request))
        text_request = ModelRequest(
            system=f"{request.system.rstrip()}\n\n{tools_section(request.tools)}",
            messages=plain_messages(request.messages, tool_call_text, tool_response_text),
            tools=[],
            max_tokens=request.max_tokens,
            injected_blocks=request.injected_blocks,
            scope=request.scope,
        )
        response = self.inner.complete(text_request)
        text = "\n".join(b.text for b in response.content if isinstance(b, TextBlock))
        calls, text = calls_from_text(text, {t.name for t in request.tools})
        response.content = [*([TextBlock(text=text)] if text else []), *calls]
        return self._with_summaries(response)

    @staticmethod
    def _with_summaries(response: ModelResponse) -> ModelResponse:
        """The response with its text given to each `terminate` call as what was achieved."""
        text = "\n".join(b.text for b in response.content if isinstance(b, TextBlock)).strip()
        for block in response.content:
            if (
                isinstance(block, ToolUseBlock)
                and block.name == QwenComputerUseTool.name
                and block.input.get("action") == "terminate"
                and text
            ):
                block.input.setdefault("summary", text)
        return response
