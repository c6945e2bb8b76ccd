"""Old screenshots leave the request view; the most recent ones stay.

Images are replaced a chunk at a time: with `keep` = 3 and `chunk` = 4, between
3 and 6 images stay and the oldest 4 are replaced together, so the request's
prefix (and the provider's prompt cache) changes once every four screenshots
instead of at every one.
"""

from __future__ import annotations

from stateact import settings
from stateact.messages import ImageBlock, Message, TextBlock, ToolResultBlock

PLACEHOLDER = "[an older screenshot was removed here to save context]"


def images_to_strip(total: int, keep: int, chunk: int) -> int:
    """How many of the oldest `total` images leave the view."""
    excess = total - keep
    if excess <= 0:
        return 0
    return excess - excess % max(chunk, 1)


def _replace_images(blocks: list, budget: list[int]) -> list:
    """`blocks` with images swapped for the placeholder while `budget[0]` lasts."""
    out = []
    for block in blocks:
        if isinstance(block, ImageBlock) and budget[0] > 0:
            budget[0] -= 1
            out.append(TextBlock(text=PLACEHOLDER))
        elif isinstance(block, ToolResultBlock) and budget[0] > 0:
            out.append(block.model_copy(update={"content": _replace_images(block.content, budget)}))
        else:
            out.append(block)
    return out


def strip_old_images(
    messages: list[Message],
    keep: int = settings.CONTEXT_KEEP_IMAGES,
    chunk: int = settings.CONTEXT_IMAGE_STRIP_CHUNK,
) -> list[Message]:
    """A copy of `messages` whose oldest images are placeholders; untouched messages are shared."""
    total = sum(len(m.images()) for m in messages)
    budget = [images_to_strip(total, keep, chunk)]
    out: list[Message] = []
    for message in messages:
        if budget[0] > 0 and message.images():
            message = Message(role=message.role, content=_replace_images(message.content, budget))
        out.append(message)
    return out


__all__ = ["PLACEHOLDER", "images_to_strip", "strip_old_images"]
