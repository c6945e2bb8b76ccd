"""Replies written for the relay provider, parsed into assistant content.

Two forms:

- JSON (`.reply.json`): a list of content blocks
  `[{"type": "text", "text": ...}, {"type": "tool_use", "name": "bash", "input": {...}}]`
  (an `id` is optional), or a scripted turn `{"text": ..., "tool_calls": [{"name": ..., "input": {...}}]}`.
- Text (`.reply.txt`): a line `TOOL: VALUE` calls a tool the request offers. VALUE is a JSON
  object (the full input) when it starts like one (`{"` or `{}`), else it goes to the tool's main
  string parameter (its single required one, or its first one when none is required: `command`
  for bash). `TOOL:` alone opens a block: the lines up to a line `---` are the VALUE (for a tool
  with nothing required and no string parameter it means no input; a value holding a line `---`
  itself needs the JSON form). Every other line is the assistant's text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from stateact.kernel.messages import TextBlock, ToolSpec, ToolUseBlock
from stateact.kernel.models.scripted import turn_blocks

BLOCK_END = "---"
"""The line that closes a multi-line `TOOL:` value."""
_CALL = re.compile(r"^([A-Za-z_][\w.-]*):(.*)$")
_JSON_OBJECT = re.compile(r"^\{\s*[\"}]")


class ReplyError(ValueError):
    """A reply that cannot become an assistant turn; the message says what to fix."""


def parse_reply(
    text: str, kind: str, tools: list[ToolSpec], id_prefix: str
) -> list[TextBlock | ToolUseBlock]:
    """The content of a reply of `kind` `json` or `txt`; tool calls without an id get `{id_prefix}_{n}`."""
    by_name = {tool.name: tool for tool in tools}
    turn = _json_turn(text) if kind == "json" else _text_turn(text, by_name)
    for call in turn["tool_calls"]:
        if call["name"] not in by_name:
            raise ReplyError(
                f"unknown tool {call['name']!r}; this request offers: {', '.join(by_name) or 'none'}"
            )
    content = turn_blocks(turn, id_prefix)
    if not content:
        raise ReplyError("the reply is empty: write some text or a tool call")
    return content


def main_parameter(tool: ToolSpec) -> str | None:
    """The string parameter the text form fills: the single required one, else the first if none is."""
    properties = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    if len(required) == 1:
        return required[0] if _is_string(properties.get(required[0], {})) else None
    if not required:
        return next((name for name, schema in properties.items() if _is_string(schema)), None)
    return None


def _is_string(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" or any(s.get("type") == "string" for s in schema.get("anyOf", []))


def _json_turn(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"not valid JSON: {exc}") from None
    if isinstance(data, dict):
        calls = data.get("tool_calls", [])
        if not isinstance(calls, list):
            raise ReplyError('"tool_calls" must be a list of {"name": ..., "input": {...}}')
        for call in calls:
            _check_call(call)
        text_part = data.get("text", "")
        if not isinstance(text_part, str):
            raise ReplyError('"text" must be a string')
        return {"text": text_part, "tool_calls": calls}
    if not isinstance(data, list):
        raise ReplyError("expected a list of content blocks or an object with text and tool_calls")
    texts: list[str] = []
    calls = []
    for index, block in enumerate(data):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            _check_call(block)
            calls.append(block)
        else:
            raise ReplyError(
                f'block {index + 1}: expected {{"type": "text", "text": ...}} or '
                f'{{"type": "tool_use", "name": ..., "input": {{...}}}}, got {json.dumps(block)[:200]}'
            )
    return {"text": "\n\n".join(texts), "tool_calls": calls}


def _check_call(call: object) -> None:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise ReplyError(f"a tool call needs a name: {json.dumps(call)[:200]}")
    if not isinstance(call.get("input", {}), dict):
        raise ReplyError(f"the input of {call['name']!r} must be a JSON object")
    if not isinstance(call.get("id", ""), str):
        raise ReplyError(f"the id of {call['name']!r} must be a string")


def _text_turn(text: str, tools: dict[str, ToolSpec]) -> dict[str, Any]:
    lines = text.splitlines()
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    index = 0
    while index < len(lines):
        match = _CALL.match(lines[index])
        if not match or match.group(1) not in tools:
            texts.append(lines[index])
            index += 1
            continue
        name, value = match.group(1), match.group(2).strip()
        tool = tools[name]
        start = index + 1
        index += 1
        if not value and _takes_input(tool):
            end = next((i for i in range(index, len(lines)) if lines[i].strip() == BLOCK_END), None)
            if end is None:
                raise ReplyError(f"line {start}: `{name}:` opens a block but no line `{BLOCK_END}` closes it")
            value = "\n".join(lines[index:end])
            index = end + 1
        calls.append({"name": name, "input": _call_input(tool, value, start)})
    return {"text": "\n".join(texts).strip(), "tool_calls": calls}


def _takes_input(tool: ToolSpec) -> bool:
    """Whether `TOOL:` alone opens a block; for a tool with nothing to fill it means no input."""
    return bool(tool.input_schema.get("required")) or main_parameter(tool) is not None


def _call_input(tool: ToolSpec, value: str, line: int) -> dict[str, Any]:
    if _JSON_OBJECT.match(value):
        try:
            data: dict[str, Any] = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ReplyError(f"line {line}: the input of `{tool.name}` is not valid JSON: {exc}") from None
        return data  # an object: it starts with `{`
    parameter = main_parameter(tool)
    if parameter is not None:
        return {parameter: value}
    if not value:
        return {}
    parameters = ", ".join(tool.input_schema.get("properties", {})) or "none"
    raise ReplyError(
        f'line {line}: `{tool.name}` takes a JSON object (`{tool.name}: {{"...": ...}}`); '
        f"its parameters: {parameters}"
    )
