"""Caps on tool outputs in the request view, so one result cannot flood the context.

The history keeps the full text (and the run log has it); the view shows the
head and tail of a long result with a note of what was left out. Subagent
reports get a tighter cap than other tool outputs.
"""

from __future__ import annotations

from stateact import settings
from stateact.messages import Message, TextBlock, ToolResultBlock
from stateact.tools.truncate import middle_truncate

VIEW_NOTE = "shortened to save context; the full output is in the run log"


def cap_for(tool_name: str | None) -> int:
    """The cap of a tool's results: reports of subagents are capped tighter."""
    if tool_name and tool_name.startswith(settings.CONTEXT_REPORT_TOOL_PREFIXES):
        return settings.CONTEXT_REPORT_CAP_CHARS
    return settings.CONTEXT_TOOL_OUTPUT_CAP_CHARS


def _capped(result: ToolResultBlock, cap: int) -> ToolResultBlock:
    content = [
        TextBlock(text=middle_truncate(b.text, cap, VIEW_NOTE))
        if isinstance(b, TextBlock) and len(b.text) > cap
        else b
        for b in result.content
    ]
    return result if _same(content, result.content) else result.model_copy(update={"content": content})


def _same(new: list, old: list) -> bool:
    return all(a is b for a, b in zip(new, old, strict=True))


def cap_tool_outputs(messages: list[Message]) -> list[Message]:
    """A copy of `messages` with long tool results truncated; untouched messages are shared."""
    names: dict[str, str] = {}
    out: list[Message] = []
    for message in messages:
        for call in message.tool_uses():
            names[call.id] = call.name
        results = message.tool_results()
        if results:
            content = [
                _capped(b, cap_for(names.get(b.tool_use_id))) if isinstance(b, ToolResultBlock) else b
                for b in message.content
            ]
            if not _same(content, message.content):
                message = Message(role=message.role, content=content)
        out.append(message)
    return out


__all__ = ["cap_for", "cap_tool_outputs"]
