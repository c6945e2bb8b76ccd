"""Long tool results keep their head and tail in the view."""

from __future__ import annotations

from stateact.kernel import settings
from stateact.kernel.context.processors.base import differs, rewrite
from stateact.kernel.messages import ContentBlock, Message, TextBlock, ToolResultBlock
from stateact.kernel.tools.truncate import middle_truncate

CAP_NOTE = "shortened to save context; the full output is in the run log"


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
            return block.model_copy(update={"content": content}) if differs(content, block.content) else block

        return rewrite(messages, cap)


__all__ = ["CAP_NOTE", "CapOutputs"]
