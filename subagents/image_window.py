"""A context policy for screenshot loops: only the most recent images go to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stateact.messages import ImageBlock, Message, TextBlock, ToolResultBlock
from subagents import settings

if TYPE_CHECKING:
    from stateact.loop import AgentLoop

PLACEHOLDER = "[older screenshot omitted]"


class RecentImages:
    """Keeps the last `keep` images of the history in the request; older ones become a short placeholder.

    The history itself is untouched (the run log keeps every screenshot). On a
    context overflow it falls back to a single image once.
    """

    def __init__(self, keep: int = settings.GUI_KEEP_SCREENSHOTS) -> None:
        if keep < 1:
            raise ValueError("keep at least one image")
        self.keep = keep

    def before_request(self, loop: AgentLoop) -> None:
        return None

    def view(self, messages: list[Message]) -> list[Message]:
        remaining = [self.keep]
        out = []
        for message in reversed(messages):
            content = _thin(message.content, remaining)
            out.append(message if content is None else Message(role=message.role, content=content))
        return out[::-1]

    def on_overflow(self, loop: AgentLoop) -> bool:
        if self.keep == 1:
            return False
        self.keep = 1
        return True


def _thin(blocks: list, remaining: list[int]) -> list | None:
    """`blocks` with images past the `remaining[0]` newest replaced (walking backwards); None if unchanged."""
    out = []
    changed = False
    for block in reversed(blocks):
        if isinstance(block, ImageBlock):
            if remaining[0] > 0:
                remaining[0] -= 1
            else:
                block, changed = TextBlock(text=PLACEHOLDER), True
        elif isinstance(block, ToolResultBlock):
            inner = _thin(block.content, remaining)
            if inner is not None:
                block, changed = block.model_copy(update={"content": inner}), True
        out.append(block)
    return out[::-1] if changed else None
