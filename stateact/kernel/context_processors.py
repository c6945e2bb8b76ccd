"""The view processors of a context pipeline: deterministic rewrites of a history into a request view.

Each processor maps a message list to a copy of the same shape (block for block, so overflow cuts
can find the history block behind each view block), shares the messages it leaves untouched, and
depends only on the history, so the view of a growing history only grows at its end except where a
processor changes something in a chunk: the provider's cached prefix survives between chunks.

    CapOutputs()                        long tool results keep head and tail
    StripImages(keep=3, chunk=4)        old screenshots leave four turns' worth at a time, behind one placeholder
    StripImages.capped(2, chunk=4)      never more than two images, the older ones leaving two at a time
    CollapseObservations(mark, 2, 3)    old page observations keep only their header line
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from stateact.kernel import settings
from stateact.kernel.messages import ContentBlock, ImageBlock, Message, TextBlock, ToolResultBlock
from stateact.kernel.tools.truncate import middle_truncate

PLACEHOLDER = "[older screenshots were removed from here on to save context]"
CAP_NOTE = "shortened to save context; the full output is in the run log"
OBSERVATION_OMITTED = "(older page view omitted)"


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


def _rewrite(
    messages: list[Message], change: Callable[[ContentBlock], ContentBlock | None], role: str | None = None
) -> list[Message]:
    """`messages` with each block (inside tool results too; of `role`'s messages only, if given)
    replaced by `change(block)` unless it gives None; what nothing changed in is shared, not copied."""

    def blocks(content: list) -> list:
        out = []
        for block in content:
            new = change(block)
            if new is None and isinstance(block, ToolResultBlock):
                inner = blocks(block.content)
                if _differs(inner, block.content):
                    new = block.model_copy(update={"content": inner})
            out.append(block if new is None else new)
        return out

    result = []
    for message in messages:
        if role in (None, message.role):
            content = blocks(message.content)
            if _differs(content, message.content):
                message = Message(role=message.role, content=content)
        result.append(message)
    return result


def _differs(new: list, old: list) -> bool:
    return any(a is not b for a, b in zip(new, old, strict=True))


def _walk(messages: list[Message], role: str | None = None):
    """Every block of `messages` (of `role` only, if given), results' contents included, in order."""
    for message in messages:
        if role is not None and message.role != role:
            continue
        for block in message.content:
            yield block
            if isinstance(block, ToolResultBlock):
                yield from block.content


class CapOutputs:
    """Long tool results show their head and tail with a note; delegation reports get a tighter cap.

    The history keeps the full text (and the run log has it)."""

    @staticmethod
    def cap_for(tool_name: str | None) -> int:
        """The cap of a tool's results (the settings are read at each call)."""
        if tool_name and tool_name.startswith(settings.CONTEXT_REPORT_TOOL_PREFIXES):
            return settings.CONTEXT_REPORT_CAP_CHARS
        return settings.CONTEXT_TOOL_OUTPUT_CAP_CHARS

    def __call__(self, messages: list[Message]) -> list[Message]:
        names = {call.id: call.name for message in messages for call in message.tool_uses()}

        def cap(block: ContentBlock) -> ContentBlock | None:
            if not isinstance(block, ToolResultBlock):
                return None
            limit = self.cap_for(names.get(block.tool_use_id))
            content = [
                TextBlock(text=middle_truncate(b.text, limit, CAP_NOTE))
                if isinstance(b, TextBlock) and len(b.text) > limit
                else b
                for b in block.content
            ]
            return (
                block.model_copy(update={"content": content}) if _differs(content, block.content) else block
            )

        return _rewrite(messages, cap)


class StripImages:
    """Old images leave the view with the messages that hold them, a chunk of messages at a time: with
    `keep` = 3 and `chunk` = 4, the images of the newest 3 to 6 messages that hold any stay and those of
    the oldest 4 go together, so the prefix changes once every four turns however many screenshots a
    turn took (a breakpoint sits at the end of each turn). With `cap` set no view holds more than `cap`
    images: the oldest beyond it go too, the newest message's included. The oldest removed image becomes
    one placeholder; the others leave an empty text (which providers drop), so removed images cost
    nothing per turn."""

    def __init__(
        self,
        keep: int = settings.CONTEXT_KEEP_IMAGES,
        chunk: int = settings.CONTEXT_IMAGE_STRIP_CHUNK,
        cap: int | None = None,
    ) -> None:
        if keep < 1 or (cap is not None and cap < keep):
            raise ValueError(f"keep at least one image, and no more than the cap (keep={keep}, cap={cap})")
        self.keep = keep
        self.chunk = chunk
        self.cap = cap

    @classmethod
    def capped(cls, cap: int, chunk: int) -> StripImages:
        """At most `cap` images, the oldest leaving in chunks as large as the cap allows: with cap 6
        and chunk 4, 3 to 6 stay; with cap 2, 1 or 2 stay and they leave two at a time."""
        if cap < 1:
            raise ValueError(f"an image cap must be at least 1, got {cap}")
        chunk = min(max(chunk, 1), cap)
        return cls(keep=cap - chunk + 1, chunk=chunk, cap=cap)

    def __call__(self, messages: list[Message]) -> list[Message]:
        counts = [sum(isinstance(b, ImageBlock) for b in _walk([m])) for m in messages]
        holders = [count for count in counts if count]
        leaving = sum(holders[: chunked_excess(len(holders), self.keep, self.chunk)])
        if self.cap is not None:
            leaving = max(leaving, sum(holders) - self.cap)
        if not leaving:
            return messages
        removed = 0

        def change(block: ContentBlock) -> ContentBlock | None:
            nonlocal removed
            if removed >= leaving or not isinstance(block, ImageBlock):
                return None
            removed += 1
            return TextBlock(text=PLACEHOLDER if removed == 1 else "")

        return _rewrite(messages, change)


class CollapseObservations:
    """Older page observations (texts of user messages holding `mark`) keep their text before the
    mark and the mark's header line; the newest `keep` stay whole, and they collapse `chunk` at a time.
    The observations of the newest message always stay (a batch of actions shows every page it saw)."""

    def __init__(self, mark: str, keep: int, chunk: int) -> None:
        self.mark = mark
        self.keep = keep
        self.chunk = chunk

    def _is_observation(self, block: ContentBlock) -> bool:
        return isinstance(block, TextBlock) and self.mark in block.text

    def _collapsed(self, block: TextBlock) -> TextBlock:
        before, _, after = block.text.partition(self.mark)
        header = after.split("\n", 1)[0]
        return TextBlock(text=f"{before}{self.mark}{header}\n{OBSERVATION_OMITTED}")

    def __call__(self, messages: list[Message]) -> list[Message]:
        return _replace_oldest(
            messages, self._is_observation, self._collapsed, self.keep, self.chunk, role="user"
        )


def _replace_oldest(
    messages: list[Message],
    matches: Callable[[ContentBlock], bool],
    replace: Callable[[ContentBlock], ContentBlock],
    keep: int,
    chunk: int,
    role: str | None = None,
) -> list[Message]:
    """`messages` with their oldest matching blocks (of `role`'s messages, if given) replaced `chunk` at a
    time, so that at least `keep` of them stay whole, and every one of the newest message."""
    total = sum(matches(b) for b in _walk(messages, role))
    newest = sum(matches(b) for b in _walk(messages[-1:], role))
    budget = chunked_excess(total, max(keep, newest), chunk)
    if not budget:
        return messages

    def change(block: ContentBlock) -> ContentBlock | None:
        nonlocal budget
        if budget <= 0 or not matches(block):
            return None
        budget -= 1
        return replace(block)

    return _rewrite(messages, change, role=role)


__all__ = [
    "PLACEHOLDER",
    "CapOutputs",
    "CollapseObservations",
    "Processor",
    "StripImages",
    "chunked_excess",
    "run_processors",
]
