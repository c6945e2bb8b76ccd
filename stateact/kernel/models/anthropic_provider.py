"""Anthropic Messages API provider on the `anthropic` SDK."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import anthropic

from stateact.kernel import settings
from stateact.kernel.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from stateact.kernel.models.base import (
    ContextLengthError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RetryableError,
    api_message,
    status_error,
)
from stateact.kernel.models.catalog import lookup

PROVIDER = "anthropic"
CACHE = {"type": "ephemeral"}
MESSAGE_BREAKPOINTS = 2
"""Cache breakpoints on the latest user turns (system and tools take the other two of four)."""
EMPTY_TEXT = "(empty)"
"""Stands in for a message left without content: the API rejects blank text blocks."""


def _image(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.media_type, "data": block.data}}


def _blocks(blocks: Sequence[ContentBlock]) -> list[dict[str, Any]]:
    """Wire blocks, without the blank text blocks the API rejects (one placeholder if nothing is left)."""
    out = [_block(b) for b in blocks if not (isinstance(b, TextBlock) and not b.text.strip())]
    return out or [{"type": "text", "text": EMPTY_TEXT}]


def _block(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        return _image(block)
    if isinstance(block, ReasoningBlock):
        return dict(block.payload)
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        return {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": _blocks(block.content),
            "is_error": block.is_error,
        }
    raise TypeError(f"unknown block {block!r}")


def _message(message: Message) -> dict[str, Any]:
    """One message on the wire; reasoning from other providers is left out."""
    kept = [b for b in message.content if not isinstance(b, ReasoningBlock) or b.provider == PROVIDER]
    return {"role": message.role, "content": _blocks(kept)}


def _native_tool(spec: ToolSpec, model: str) -> tuple[dict[str, Any], str] | None:
    """Anthropic's computer-use tool for a spec that asks for it, if the model has one: (tool, beta)."""
    if not spec.native or spec.native.get("kind") != "computer":
        return None
    native = lookup(model).computer_tool
    if native is None:
        return None
    tool = {
        "type": native.type,
        "name": spec.name,
        "display_width_px": spec.native["width"],
        "display_height_px": spec.native["height"],
    }
    if native.zoom:
        tool["enable_zoom"] = True
    return tool, native.beta


def to_wire(request: ModelRequest, model: str = "") -> dict[str, Any]:
    """The keyword arguments of `messages.create` for a request, with cache breakpoints.

    Thinking blocks travel in the history as ReasoningBlocks and go back unchanged, as the API
    requires (models that think by default emit them even when not asked to). A tool asking for the
    native computer-use tool gets it when `model` has one (with its beta header); otherwise it stays a
    plain function tool.
    """
    messages = [_message(m) for m in request.messages]
    marked = 0
    for index in range(len(messages) - 1, -1, -1):
        if marked == MESSAGE_BREAKPOINTS:
            break
        if messages[index]["role"] != "user":
            continue
        content = messages[index]["content"]
        skip = request.injected_blocks if index == len(messages) - 1 else 0
        if len(content) > skip:
            content[len(content) - 1 - skip]["cache_control"] = CACHE
            marked += 1
    betas: list[str] = []
    tools = []
    for spec in request.tools:
        native = _native_tool(spec, model)
        if native is None:
            tools.append(
                {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
            )
        else:
            tools.append(native[0])
            betas.append(native[1])
    if tools:
        tools[-1]["cache_control"] = CACHE
    wire: dict[str, Any] = {"max_tokens": request.max_tokens, "messages": messages}
    if request.system.strip():
        wire["system"] = [{"type": "text", "text": request.system, "cache_control": CACHE}]
    if tools:
        wire["tools"] = tools
    if betas:
        wire["extra_headers"] = {"anthropic-beta": ",".join(sorted(set(betas)))}
    return wire


TOOL_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
"""A role's tool_choice setting in the Messages API's terms."""

CONTEXT_ERROR_SIGNS = ("prompt is too long", "context window", "too many tokens", "exceed context limit")
"""Phrases of a 400 error that mean the request did not fit the context window."""


def _is_context_error(exc: anthropic.APIStatusError) -> bool:
    """A prompt (or prompt plus `max_tokens`) over the window (400), or a request body over the size
    limit (413, many images)."""
    if exc.status_code == 413:
        return True
    text = api_message(exc).lower()
    return exc.status_code == 400 and any(sign in text for sign in CONTEXT_ERROR_SIGNS)


class AnthropicProvider(ModelProvider):
    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        retries: int = settings.MODEL_RETRIES,
        backoff_base_s: float = settings.MODEL_BACKOFF_BASE_S,
    ) -> None:
        self._configure_remote("anthropic", model, base_url, retries, backoff_base_s)
        self.client = anthropic.Anthropic(
            api_key=api_key or os.environ.get("ANTHROPIC_API_KEY") or "missing-key",
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            max_retries=0,
            timeout=settings.MODEL_REQUEST_TIMEOUT_S,
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        wire = to_wire(request, self.name)
        wire["max_tokens"] = self.output_tokens(request)
        if self.options.temperature is not None:
            wire["temperature"] = self.options.temperature
        if self.options.tool_choice is not None and "tools" in wire:
            wire["tool_choice"] = {"type": TOOL_CHOICE[self.options.tool_choice]}
        return self.with_retries(lambda: self._call(wire))

    def _call(self, wire: dict[str, Any]) -> ModelResponse:
        try:
            reply = self.client.messages.create(model=self.name, **wire)
        except anthropic.APIStatusError as exc:
            if _is_context_error(exc):
                raise ContextLengthError(f"anthropic {exc.status_code}: {api_message(exc)}") from exc
            raise status_error("anthropic", exc.status_code, api_message(exc), exc.response.headers) from exc
        except anthropic.APIConnectionError as exc:
            raise RetryableError(f"anthropic: cannot reach the API: {exc}") from exc
        except anthropic.AnthropicError as exc:
            raise ProviderError(f"anthropic: {type(exc).__name__}: {exc}") from exc
        content: list[TextBlock | ToolUseBlock | ReasoningBlock] = []
        for block in reply.content:
            if block.type == "text":
                content.append(TextBlock(text=block.text))
            elif block.type == "tool_use":
                content.append(ToolUseBlock(id=block.id, name=block.name, input=dict(block.input or {})))
            elif block.type == "thinking":
                payload = {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                content.append(ReasoningBlock(provider=PROVIDER, payload=payload))
            elif block.type == "redacted_thinking":
                payload = {"type": "redacted_thinking", "data": block.data}
                content.append(ReasoningBlock(provider=PROVIDER, payload=payload))
        usage = reply.usage
        return ModelResponse(
            content=content,
            usage=Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_read_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
                cache_write_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0,
            ),
            stop_reason=reply.stop_reason or "",
            model=reply.model,
        )


__all__ = ["AnthropicProvider", "to_wire"]
