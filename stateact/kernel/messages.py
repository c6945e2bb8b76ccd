"""Provider-neutral conversation types: messages made of content blocks."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field


class TextBlock(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ImageBlock(BaseModel):
    """An image, kept as base64 in memory; `path` names its copy on disk when logged."""

    type: Literal["image"] = "image"
    media_type: str = "image/png"
    data: str = ""
    path: str | None = None

    @classmethod
    def from_bytes(cls, raw: bytes, media_type: str = "image/png", path: str | None = None) -> ImageBlock:
        return cls(media_type=media_type, data=base64.b64encode(raw).decode("ascii"), path=path)

    def to_bytes(self) -> bytes:
        return base64.b64decode(self.data)


class ToolUseBlock(BaseModel):
    """A tool call. `raw_arguments` keeps unparseable JSON from a provider; `input` is then empty."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None


class ReasoningBlock(BaseModel):
    """A provider's reasoning (such as Anthropic thinking) that must go back to it unchanged.

    Opaque to the harness: only the provider named in `provider` reads `payload`; others skip it.
    """

    type: Literal["reasoning"] = "reasoning"
    provider: str
    payload: dict[str, Any]


class ToolResultBlock(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: list[TextBlock | ImageBlock] = Field(default_factory=list)
    is_error: bool = False

    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


ContentBlock = Annotated[
    TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock, Field(discriminator="type")
]


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: list[ContentBlock]

    @classmethod
    def user_text(cls, text: str) -> Message:
        return cls(role="user", content=[TextBlock(text=text)])

    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    def images(self) -> list[ImageBlock]:
        """Every image in the message, including those inside tool results."""
        found = [b for b in self.content if isinstance(b, ImageBlock)]
        for result in self.tool_results():
            found.extend(b for b in result.content if isinstance(b, ImageBlock))
        return found


class Usage(BaseModel):
    """Token usage of one or more model calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def prompt_tokens(self) -> int:
        """All tokens of the prompt, cached or not."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class ToolSpec(BaseModel):
    """What a model is told about a tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    native: dict[str, Any] | None = None
    """A provider-neutral request for a provider's built-in tool, e.g. `{"kind": "computer", "width": 1280,
    "height": 800}`; a provider that has one for the model sends it instead of `input_schema`."""
