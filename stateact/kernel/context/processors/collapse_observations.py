"""Older page observations keep only their header line in the view."""

from __future__ import annotations

from collections.abc import Callable

from stateact.kernel.context.processors.base import chunked_excess, rewrite, walk
from stateact.kernel.messages import ContentBlock, Message, TextBlock

OBSERVATION_OMITTED = "(older page view omitted)"


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

    def _collapsed(self, block: ContentBlock) -> ContentBlock:
        assert isinstance(block, TextBlock)
        before, _, after = block.text.partition(self.mark)
        header = after.split("\n", 1)[0]
        return TextBlock(text=f"{before}{self.mark}{header}\n{OBSERVATION_OMITTED}")

    def __call__(self, messages: list[Message]) -> list[Message]:
        return replace_oldest(
            messages, self._is_observation, self._collapsed, self.keep, self.chunk, role="user"
        )


def replace_oldest(
    messages: list[Message],
    matches: Callable[[ContentBlock], bool],
    replace: Callable[[ContentBlock], ContentBlock],
    keep: int,
    chunk: int,
    role: str | None = None,
) -> list[Message]:
    """`messages` with their oldest matching blocks (of `role`'s messages, if given) replaced `chunk` at a
    time, so that at least `keep` of them stay whole, and every one of the newest message."""
    total = sum(matches(b) for b in walk(messages, role))
    newest = sum(matches(b) for b in walk(messages[-1:], role))
    budget = chunked_excess(total, max(keep, newest), chunk)
    if not budget:
        return messages

    def change(block: ContentBlock) -> ContentBlock | None:
        nonlocal budget
        if budget <= 0 or not matches(block):
            return None
        budget -= 1
        return replace(block)

    return rewrite(messages, change, role=role)


__all__ = ["OBSERVATION_OMITTED", "CollapseObservations"]
