"""Tool calls in tests: a tool invoked directly, the calls and turns a scripted model replays, and the\nending of a test's own `finish` tool."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult


@dataclass(frozen=True)
class Answer(LoopEnding):
    """The ending of a test's `finish` tool: the answer it was given."""

    answer: str


def invoke(tool: Tool, **arguments: Any) -> ToolResult:
    """`tool` run once on `arguments`, as the loop runs a model's call."""
    return tool.invoke(ToolUseBlock(id="call-1", name=tool.name, input=arguments))


def invoker(tools: Iterable[Tool]) -> Callable[..., ToolResult]:
    """`act(name, **arguments)`: the tool named `name` among `tools`, run once on `arguments`."""
    by_name = {tool.name: tool for tool in tools}
    return lambda name, **arguments: invoke(by_name[name], **arguments)


def call(name: str, **arguments: Any) -> dict:
    """One tool call of a scripted turn."""
    return {"name": name, "input": arguments}


def turn_calling(name: str, **arguments: Any) -> dict:
    """A scripted turn making the one call `name(**arguments)`."""
    return {"tool_calls": [call(name, **arguments)]}


def calls_in(turns: list[dict]) -> list[dict]:
    """The tool calls of scripted turns, in order."""
    return [call for turn in turns for call in turn.get("tool_calls", [])]
