"""Cuts of single blocks, for a request over the window that compaction cannot shrink enough.

    cuts = BlockCuts()
    cuts.cut(block, keep_chars, log)   # block: a text or image of a user message in the history
    view = cuts.apply(history)         # the history with every cut block replaced

A cut text keeps its head and tail around a note of how much was cut and the file holding the full
text; a cut image becomes a note naming its file. The history keeps the original (so nothing is
lost); only views change. Blocks are matched by identity, so a cut survives the compaction of the
turns around it, and a block inside a tool result stays in that result, so every tool_use/tool_result
pair stays valid.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from stateact.kernel.context.compaction import is_summary_block
from stateact.kernel.messages import ContentBlock, ImageBlock, Message, TextBlock, ToolResultBlock
from stateact.kernel.runlog import RunLog
from stateact.kernel.tools.truncate import middle_truncate

Block = TextBlock | ImageBlock


def user_blocks(history: list[Message], view: list[Message]) -> Iterator[tuple[Block, ContentBlock]]:
    """(history block, its view block) for each text and image of a user message, inside tool results too.

    `view` must map `history` block for block (as tool-output caps and image stripping do); the
    compaction summary is never offered.
    """
    for message, shown in zip(history, view, strict=True):
        if message.role != "user":
            continue
        for block, seen in zip(message.content, shown.content, strict=True):
            if isinstance(block, ToolResultBlock) and isinstance(seen, ToolResultBlock):
                yield from zip(block.content, seen.content, strict=True)
            elif isinstance(block, TextBlock | ImageBlock) and not is_summary_block(block):
                yield block, seen


class BlockCuts:
    """The blocks of one loop's history cut so far, and their replacements."""

    def __init__(self) -> None:
        self._cuts: dict[int, tuple[Block, Block]] = {}
        """id(original) -> (original, replacement); holding the original keeps its id unique."""

    def __bool__(self) -> bool:
        return bool(self._cuts)

    def __contains__(self, block: object) -> bool:
        return id(block) in self._cuts

    def cut(self, block: Block, keep_chars: int, log: RunLog) -> tuple[Block, Path]:
        """Replace `block` from now on: a text by its head and tail (about `keep_chars`), an image
        by a note. The full text (or the image) stays on disk; returns the replacement and that path."""
        if isinstance(block, ImageBlock):
            saved = log.run_dir / block.path if block.path else log.save_image(block.to_bytes(), "cut")
            note = f"[an image was removed here to fit the model's context window; it is saved at {saved}]"
            replacement: Block = TextBlock(text=note)
        else:
            saved = log.save_output(block.text, "cut")
            where = f"cut to fit the model's context window; the full text is in {saved}"
            replacement = TextBlock(text=middle_truncate(block.text, keep_chars, where))
        self._cuts[id(block)] = (block, replacement)
        return replacement, saved

    def apply(self, messages: list[Message]) -> list[Message]:
        """A copy of `messages` with the cut blocks replaced; untouched messages are shared."""
        if not self._cuts:
            return messages
        out: list[Message] = []
        for message in messages:
            content = [self._replaced(block) for block in message.content]
            if any(new is not old for new, old in zip(content, message.content, strict=True)):
                message = Message(role=message.role, content=content)
            out.append(message)
        return out

    def _replaced(self, block: ContentBlock) -> ContentBlock:
        if isinstance(block, ToolResultBlock):
            content = [self._replaced(inner) for inner in block.content]
            if any(new is not old for new, old in zip(content, block.content, strict=True)):
                return block.model_copy(update={"content": content})
            return block
        cut = self._cuts.get(id(block))
        return cut[1] if cut is not None else block


__all__ = ["Block", "BlockCuts", "user_blocks"]
