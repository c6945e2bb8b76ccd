"""Tool calls in tests: a tool invoked directly, and the calls and turns a scripted model replays."""

from __future__ import annotations

from typing import Any

from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.base import Tool, ToolResult


def invoke(tool: Tool, **arguments: Any) -> ToolResult:
    """`tool` run once on `arguments`, as the loop runs a model's call."""
    return tool.invoke(ToolUseBlock(id="call-1", name=tool.name, input=arguments))


def call(name: str, **arguments: Any) -> dict:
    """One tool call of a scripted turn."""
    return {"name": name, "input": arguments}


def turn_calling(name: str, **arguments: Any) -> dict:
    """A scripted turn making the one call `name(**arguments)`."""
    return {"tool_calls": [call(name, **arguments)]}
