"""UI-TARS' text action format: `Thought: ...` then `Action: click(start_box='(x,y)')`.

UI-TARS answers in plain text, not tool calls. `UITarsModel` wraps the role's provider: it sends the
conversation as plain text and images (no tools; its own replies, `Action:` included, as it wrote them), and turns each reply's `Action:` part into one call
of the `uitars` tool, which parses and runs it. Points are given as `(x,y)`,
`<|box_start|>(x,y)<|box_end|>`, `<point>x y</point>` or a box `[x1, y1, x2, y2]` (its centre), in
the role's coordinate convention.
"""

from __future__ import annotations

import ast
import re
import uuid

from pydantic import BaseModel, Field

from stateact.kernel.messages import TextBlock, ToolUseBlock
from stateact.kernel.models.base import ModelProvider, ModelRequest, ModelResponse
from stateact.subagents.action_formats.native import (
    Ending,
    FormatError,
    NativeAction,
    NativeActionTool,
    computer_action,
    plain_messages,
)

ACTION_MARK = re.compile(r"^\s*Action\s*:", re.MULTILINE)
THOUGHT_MARK = re.compile(r"^\s*Thought\s*:\s*", re.MULTILINE)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
CLICKS = {"click": "left_click", "left_single": "left_click", "left_double": "double_click"}
CLICKS |= {"right_single": "right_click", "middle": "middle_click"}
"""UI-TARS click functions and the ComputerAction each is."""
FORMAT_HINT = (
    "Answer with `Thought: ...` and then `Action: ...`, e.g. Action: click(start_box='(120,240)'); "
    "the functions are click, left_double, right_single, drag, hotkey, type, scroll, wait, finished "
    "and call_user (and report_progress once the step budget is spent)."
)
USER_HELP = "asked for the user's help (call_user)"


def point(box: object) -> list[float]:
    """The point a UI-TARS box names: two numbers are a point, four a box whose centre is taken."""
    numbers = [float(n) for n in NUMBER.findall(str(box))]
    if len(numbers) == 2:
        return numbers
    if len(numbers) == 4:
        return [(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2]
    raise FormatError(f"{box!r} is not a point: write '(x,y)'")


def _arguments(call: ast.Call) -> tuple[str, dict[str, str]]:
    if not isinstance(call.func, ast.Name) or call.args:
        raise FormatError(f"{ast.unparse(call)!r}: write name(arg='value', ...)")
    arguments = {}
    for keyword in call.keywords:
        if keyword.arg is None or not isinstance(keyword.value, ast.Constant):
            raise FormatError(f"{ast.unparse(call)!r}: every argument is name='value'")
        arguments[keyword.arg] = str(keyword.value.value)
    return call.func.id, arguments


def _box(arguments: dict[str, str], *names: str) -> list[float] | None:
    for name in names:
        if name in arguments:
            return point(arguments[name])
    return None


def _action(name: str, arguments: dict[str, str], thought: str) -> NativeAction:
    start = _box(arguments, "start_box", "point", "start_point")
    if name in CLICKS:
        if start is None:
            raise FormatError(f"{name} needs start_box='(x,y)'")
        return computer_action(action=CLICKS[name], coordinate=start)
    if name == "drag":
        end = _box(arguments, "end_box", "end_point")
        if start is None or end is None:
            raise FormatError("drag needs start_box='(x1,y1)' and end_box='(x2,y2)'")
        return computer_action(action="left_click_drag", start_coordinate=start, coordinate=end)
    if name in ("hotkey", "press"):
        keys = arguments.get("key", arguments.get("hotkey", "")).replace("+", " ").split()
        return computer_action(action="key", text="+".join(keys))
    if name == "type":
        return computer_action(action="type", text=arguments.get("content", ""))
    if name == "scroll":
        return computer_action(
            action="scroll", coordinate=start, scroll_direction=arguments.get("direction", "").strip() or None
        )
    if name == "wait":
        return computer_action(action="wait")
    if name == "finished":
        return Ending("DONE", arguments.get("content") or thought)
    if name == "call_user":
        return Ending("FAIL", f"{USER_HELP}: {thought}" if thought else USER_HELP)
    if name == "report_progress":
        return Ending("INCOMPLETE", arguments.get("verified", ""), arguments.get("remaining", ""))
    raise FormatError(f"unknown action {name!r}")


def parse_actions(section: str, thought: str = "") -> list[NativeAction]:
    """The actions of an `Action:` section (one call a line), in order."""
    try:
        body = ast.parse(section.strip(), mode="exec").body
    except SyntaxError as exc:
        raise FormatError(f"cannot read the action {section.strip()!r} ({exc.msg}). {FORMAT_HINT}") from None
    if not body or not all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) for s in body):
        raise FormatError(f"{section.strip()!r} is not a list of actions. {FORMAT_HINT}")
    return [_action(*_arguments(s.value), thought) for s in body]  # type: ignore[attr-defined]


def split_reply(text: str) -> tuple[str, str] | None:
    """(thought, action section) of a reply, or None when it has no `Action:`."""
    marks = list(ACTION_MARK.finditer(text))
    if not marks:
        return None
    section = text[marks[-1].end() :].strip().strip("`").strip()
    thought = THOUGHT_MARK.sub("", text[: marks[-1].start()], count=1).strip()
    return thought, section


class UITarsInput(BaseModel):
    action: str = Field(description="The `Action:` part of the reply.")
    thought: str = ""


class UITarsTool(NativeActionTool):
    """Carries out the `Action:` part of a UI-TARS reply."""

    name = "uitars"
    description = "The actions of a UI-TARS reply."
    Input = UITarsInput

    def parse(self, params: UITarsInput) -> list[NativeAction]:
        return parse_actions(params.action, params.thought)


class UITarsModel(ModelProvider):
    """The role's provider, speaking UI-TARS' text format: replies become calls of the `uitars` tool."""

    def __init__(self, inner: ModelProvider) -> None:
        self.inner = inner
        self.name = inner.name
        self.spec = inner.spec
        self.options = inner.options

    def complete(self, request: ModelRequest) -> ModelResponse:
        plain = ModelRequest(
            system=request.system,
            messages=plain_messages(request.messages, lambda _: "", str),
            tools=[],
            max_tokens=request.max_tokens,
            injected_blocks=request.injected_blocks,
            scope=request.scope,
        )
        response = self.inner.complete(plain)
        text = "\n".join(b.text for b in response.content if isinstance(b, TextBlock)).strip()
        parts = split_reply(text)
        content: list = [TextBlock(text=text)] if text else []
        if parts is not None:
            thought, section = parts
            content.append(
                ToolUseBlock(
                    id=f"uitars_{uuid.uuid4().hex[:12]}",
                    name=UITarsTool.name,
                    input={"action": section, "thought": thought},
                )
            )
        response.content = content
        return response
