"""The readable text of a relay request: what a person or an agent playing the model reads.

The first request of a scope shows the system prompt, the tools and every message; a later one
shows only the messages new since the previous request of that scope, then the live blocks
injected at the end (such as the plan). Tool calls are written in the relay's reply form
(`bash: ls ~`), so the transcript also shows how to answer. Images are saved as PNG files beside it.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

from PIL import Image

from stateact.kernel.context.token_counter import image_size
from stateact.kernel.messages import (
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.relay_reply import BLOCK_END, main_parameter


@dataclass
class ScopeView:
    """What the relay last showed of one scope, so the next request shows only what is new."""

    stem: str
    system: str
    system_shown_in: str
    """The request whose text shows this system prompt."""
    tools: list[ToolSpec]
    tools_shown_in: str
    history: list[Message]
    """The request's messages without its injected blocks."""


@dataclass
class Rendering:
    text: str
    view: ScopeView
    images: dict[str, bytes] = field(default_factory=dict)
    """PNG files to save beside the text, by file name."""


def render_request(request: ModelRequest, stem: str, previous: ScopeView | None) -> Rendering:
    """The text of one request; `previous` is the last request of the same scope, if any."""
    history = _history(request)
    out = _Writer(stem, {b.id: b.name for m in request.messages for b in m.tool_uses()}, request.tools)
    count = len(request.messages)
    out.line(
        f"# {stem}: a request for scope {stem.partition('-')[2]}, {count} message{'' if count == 1 else 's'}"
    )
    system_shown_in = tools_shown_in = stem
    if previous is None or previous.system != request.system:
        out.section("System prompt", request.system)
    else:
        system_shown_in = previous.system_shown_in
        out.line(f"\nSystem prompt: unchanged (see {system_shown_in}.request.txt).")
    if previous is None or previous.tools != request.tools:
        out.section("Tools", "\n".join(_tool_lines(tool) for tool in request.tools) or "(none)")
    else:
        tools_shown_in = previous.tools_shown_in
        out.line(f"Tools: unchanged (see {tools_shown_in}.request.txt).")
    start = _continues(previous.history, history) if previous else 0
    if previous is not None and start == 0:
        out.line(
            f"\nEarlier messages changed since {previous.stem} (older page views or screenshots shortened, the "
            "history compacted, or a new conversation): all of it follows."
        )
    out.section(f"New messages (since {previous.stem})" if previous and start else "Messages")
    for number, message in enumerate(history[start:], start=start + 1):
        out.message(number, message)
    injected = request.messages[-1].content[-request.injected_blocks :] if request.injected_blocks else []
    if injected:
        out.section("Live notes (refreshed on every request, not kept in the history)")
        for block in injected:
            out.block(block)
    out.line(f"\n---\n{reply_hint(stem, request.tools)}")
    view = ScopeView(stem, request.system, system_shown_in, list(request.tools), tools_shown_in, history)
    return Rendering("\n".join(out.lines) + "\n", view, out.images)


def reply_hint(stem: str, tools: list[ToolSpec]) -> str:
    """How to answer: the reply files, and the text form of a call to one of the request's own tools."""
    if not tools:
        return f"Reply: write {stem}.reply.txt (the reply's text: this request offers no tools) or {stem}.reply.json."
    return (
        f"Reply: write {stem}.reply.txt (a line `TOOL: VALUE` per call, e.g. `{_example_call(tools)}`; "
        f"`TOOL:` then lines up to `{BLOCK_END}` for several lines; other lines are text) "
        f"or {stem}.reply.json."
    )


def _example_call(tools: list[ToolSpec]) -> str:
    tool = next((tool for tool in tools if tool.name == "bash"), tools[0])
    if tool.name == "bash":
        return "bash: ls ~"
    schema = tool.input_schema
    if (parameter := main_parameter(tool)) and len(schema.get("properties", {})) == 1:
        return f"{tool.name}: {parameter.upper()}"
    keys = schema.get("required") or list(schema.get("properties", {}))[:1]
    return f"{tool.name}: {json.dumps(dict.fromkeys(keys, '…'), ensure_ascii=False)}"


def call_text(call: ToolUseBlock, tool: ToolSpec | None) -> str:
    """A tool call in the relay's text reply form."""
    parameter = main_parameter(tool) if tool else None
    value = call.input.get(parameter) if parameter else None
    if call.raw_arguments is not None:
        return f"{call.name}: (arguments that were not JSON) {call.raw_arguments}"
    if set(call.input) == {parameter} and isinstance(value, str):
        return f"{call.name}: {value}" if "\n" not in value else f"{call.name}:\n{value}\n{BLOCK_END}"
    return f"{call.name}: {json.dumps(call.input, ensure_ascii=False)}"


def _history(request: ModelRequest) -> list[Message]:
    messages = list(request.messages)
    if request.injected_blocks and messages:
        last = messages[-1]
        messages[-1] = Message(role=last.role, content=last.content[: -request.injected_blocks])
    return messages


def _continues(before: list[Message], now: list[Message]) -> int:
    """How many leading messages `now` shares with `before` (0 when it does not continue it).

    Messages are matched by role and tool call ids, so an image the context policy dropped from an
    older message does not count as a new history.
    """
    if len(now) <= len(before) or any(
        _skeleton(a) != _skeleton(b) for a, b in zip(before, now[: len(before)], strict=True)
    ):
        return 0
    return len(before)


def _skeleton(message: Message) -> tuple[str, tuple[str, ...], str]:
    ids = [b.id for b in message.tool_uses()] + [b.tool_use_id for b in message.tool_results()]
    first_text = next((b.text for b in message.content if isinstance(b, TextBlock)), "")
    return message.role, tuple(ids), first_text if not ids else ""


def _tool_lines(tool: ToolSpec) -> str:
    """A tool as the model sees it: its whole description and its input's JSON schema."""
    schema = json.dumps(tool.input_schema, ensure_ascii=False)
    return f"- {tool.name}: {tool.description.strip()}\n    input schema: {schema}"


class _Writer:
    """Collects lines and the images to save."""

    def __init__(self, stem: str, call_names: dict[str, str], tools: list[ToolSpec]) -> None:
        self.stem = stem
        self.call_names = call_names
        self.tools = {tool.name: tool for tool in tools}
        self.lines: list[str] = []
        self.images: dict[str, bytes] = {}

    def line(self, text: str) -> None:
        self.lines.append(text)

    def section(self, title: str, body: str | None = None) -> None:
        self.lines.append(f"\n==== {title} ====")
        if body is not None:
            self.lines.append(body)

    def message(self, number: int, message: Message) -> None:
        self.line(f"\n== {number}. {message.role} ==")
        for block in message.content:
            self.block(block)

    def block(self, block: TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock) -> None:
        if isinstance(block, TextBlock):
            self.line(block.text)
        elif isinstance(block, ImageBlock):
            self.line(self._image(block))
        elif isinstance(block, ToolUseBlock):
            self.line(call_text(block, self.tools.get(block.name)))
        elif isinstance(block, ReasoningBlock):
            self.line(f"[reasoning of the {block.provider} model, not shown]")
        else:
            name = self.call_names.get(block.tool_use_id, block.tool_use_id)
            self.line(f"[result of {name}{' (error)' if block.is_error else ''}]")
            for part in block.content:
                self.block(part)

    def _image(self, block: ImageBlock) -> str:
        if not block.data:
            return f"[image: not included{f', was {block.path}' if block.path else ''}]"
        width, height = image_size(block)
        name = f"{self.stem}.image-{len(self.images) + 1}.png"
        self.images[name] = _png(block)
        return f"[image: {width}x{height}, saved as {name}]"


def _png(block: ImageBlock) -> bytes:
    raw = block.to_bytes()
    if block.media_type == "image/png":
        return raw
    buffer = io.BytesIO()
    with Image.open(io.BytesIO(raw)) as image:
        image.save(buffer, format="PNG")
    return buffer.getvalue()
