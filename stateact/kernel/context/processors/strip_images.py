"""Old images leave the view a chunk of messages at a time, behind one placeholder."""

from __future__ import annotations

from stateact.kernel import settings
from stateact.kernel.context.processors.base import chunked_excess, rewrite, walk
from stateact.kernel.messages import ContentBlock, ImageBlock, Message, TextBlock

PLACEHOLDER = "[older screenshots were removed from here on to save context]"


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
        counts = [sum(isinstance(b, ImageBlock) for b in walk([m])) for m in messages]
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

        return rewrite(messages, change)


__all__ = ["PLACEHOLDER", "StripImages"]
