"""What every view processor is, and the block rewrites they share.

A processor maps a message list to a copy of the same shape (block for block, so overflow cuts can
find the history block behind each view block), shares the messages it leaves untouched, and depends
only on the history, so the view of a growing history only grows at its end except where a processor
changes something in a chunk: the provider's cached prefix survives between chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from stateact.kernel.messages import ContentBlock, Message, ToolResultBlock

BlockChange = Callable[[ContentBlock], ContentBlock | None]
"""A block's replacement, or None to leave it as it is."""


class Processor(Protocol):
    def __call__(self, messages: list[Message]) -> list[Message]:
        """The view of `messages`: a copy of the same shape; untouched messages are shared."""


def run_processors(processors: Sequence[Processor], messages: list[Message]) -> list[Message]:
    """`messages` through each processor in turn."""
    for process in processors:
        messages = process(messages)
    return messages


def chunked_excess(total: int, keep: int, chunk: int) -> int:
    """How many of the oldest `total` items leave the view: whole chunks beyond the `keep` newest."""
    excess = total - keep
    if excess <= 0:
        return 0
    return excess - excess % max(chunk, 1)


def rewrite(messages: list[Message], change: BlockChange, role: str | None = None) -> list[Message]:
    """`messages` with each block (inside tool results too; of `role`'s messages only, if given)
    replaced by `change(block)` unless it gives None; what nothing changed in is shared, not copied."""

    def blocks(content: Sequence[ContentBlock]) -> list[ContentBlock]:
        out: list[ContentBlock] = []
        for block in content:
            new = change(block)
            if new is None and isinstance(block, ToolResultBlock):
                inner = blocks(block.content)
                if differs(inner, block.content):
                    new = block.model_copy(update={"content": inner})
            out.append(block if new is None else new)
        return out

    result = []
    for message in messages:
        if role in (None, message.role):
            content = blocks(message.content)
            if differs(content, message.content):
                message = Message(role=message.role, content=content)
        result.append(message)
    return result


def differs(new: Sequence[object], old: Sequence[object]) -> bool:
    """Whether any item of `new` is not the very item of `old` at its place."""
    return any(a is not b for a, b in zip(new, old, strict=True))


def walk(messages: list[Message], role: str | None = None) -> Iterator[ContentBlock]:
    """Every block of `messages` (of `role` only, if given), results' contents included, in order."""
    for message in messages:
        if role is not None and message.role != role:
            continue
        for block in message.content:
            yield block
            if isinstance(block, ToolResultBlock):
                yield from block.content


__all__ = ["BlockChange", "Processor", "chunked_excess", "differs", "rewrite", "run_processors", "walk"]
