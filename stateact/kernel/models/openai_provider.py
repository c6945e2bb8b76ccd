"""OpenAI Chat Completions provider on the `openai` SDK, for any compatible server (vLLM, Ollama, LM Studio).

Chat Completions has no error flag on tool messages: the content of a failed tool call's message
starts with ERROR_PREFIX instead. Tool calls a model wrote as JSON in its text are recovered as
structured calls, and that JSON leaves the text, so the call is not sent back twice.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import openai
from openai.types import CompletionUsage

from stateact.kernel import settings
from stateact.kernel.messages import (
    ContentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolResultBlock,
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
from stateact.kernel.models.role_settings import RoleSettings

ERROR_PREFIX = "Error: "
"""Starts the content of the tool message of a call whose result is an error."""
OFFICIAL_HOST = "api.openai.com"
"""The official API takes `max_completion_tokens`; compatible servers are sent the older `max_tokens`."""


def _image_part(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.media_type};base64,{block.data}"}}


def _user_parts(blocks: Sequence[ContentBlock]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": b.text} if isinstance(b, TextBlock) else _image_part(b)
        for b in blocks
        if isinstance(b, TextBlock | ImageBlock)
    ]


def _convert(message: Message) -> list[dict[str, Any]]:
    """One neutral message as one or more chat messages."""
    if message.role == "assistant":
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": b.raw_arguments or json.dumps(b.input)},
            }
            for b in message.tool_uses()
        ]
        out: dict[str, Any] = {"role": "assistant", "content": message.text() or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    converted: list[dict[str, Any]] = []
    tool_images: list[dict[str, Any]] = []
    for result in message.tool_results():
        text = result.text() or "(no output)"
        if result.is_error and not text.startswith(ERROR_PREFIX):
            text = ERROR_PREFIX + text
        converted.append({"role": "tool", "tool_call_id": result.tool_use_id, "content": text})
        images = [b for b in result.content if isinstance(b, ImageBlock)]
        if images:
            tool_images.append(
                {"type": "text", "text": f"Image(s) returned by tool call {result.tool_use_id}:"}
            )
            tool_images.extend(_image_part(b) for b in images)
    rest = _user_parts([b for b in message.content if not isinstance(b, ToolResultBlock)])
    if tool_images or rest:
        converted.append({"role": "user", "content": tool_images + rest})
    return converted


def to_wire(
    request: ModelRequest,
    official: bool = False,
    options: RoleSettings | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` for a request (`official`: api.openai.com),
    with a role's temperature and tool choice, and `max_tokens` in place of the request's."""
    messages: list[dict[str, Any]] = (
        [{"role": "system", "content": request.system}] if request.system.strip() else []
    )
    for message in request.messages:
        messages.extend(_convert(message))
    wire: dict[str, Any] = {
        "messages": messages,
        "max_completion_tokens" if official else "max_tokens": max_tokens or request.max_tokens,
    }
    if options is not None and options.temperature is not None:
        wire["temperature"] = options.temperature
    if request.tools:
        wire["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
        if options is not None and options.tool_choice is not None:
            wire["tool_choice"] = options.tool_choice
    return wire


def _json_objects(text: str) -> Iterator[tuple[dict[str, Any], int, int]]:
    """Every JSON object embedded in free text (in a code fence, a <tool_call> tag or bare), with its span."""
    decoder = json.JSONDecoder()
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            yield value, position, end
        position = text.find("{", end)


EMPTY_WRAPPERS = re.compile(r"```[a-zA-Z]*\s*```|<tool_call>\s*</tool_call>")
"""A code fence or <tool_call> tag left empty once the call inside it is taken out of the text."""


def _tool_use(call_id: str | None, name: str | None, arguments: object) -> ToolUseBlock:
    """A call from arguments sent as a JSON string (maybe malformed), an object, or nothing.

    Arguments that are not a JSON object are kept raw, so the tool answers with an error the model can fix.
    """
    call_id = call_id or f"call_{uuid.uuid4().hex[:12]}"
    if isinstance(arguments, str):
        try:
            parsed: object = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return ToolUseBlock(id=call_id, name=name or "", raw_arguments=arguments)
        arguments = parsed
    if arguments is None:
        arguments = {}
    if isinstance(arguments, dict):
        return ToolUseBlock(id=call_id, name=name or "", input=arguments)
    return ToolUseBlock(id=call_id, name=name or "", raw_arguments=json.dumps(arguments))


def calls_from_text(text: str, tool_names: set[str]) -> tuple[list[ToolUseBlock], str]:
    """Recover tool calls a model wrote as JSON in its text (common with small local models).

    An object counts when its `name` is a known tool; its `arguments` (or `parameters`) are the input.
    Returns the calls and the text without them (and without the fences or tags left empty).
    """
    calls: list[ToolUseBlock] = []
    kept: list[str] = []
    start = 0
    for data, begin, end in _json_objects(text):
        if data.get("name") in tool_names:
            arguments = data.get("arguments", data.get("parameters"))
            calls.append(_tool_use(f"call_text_{uuid.uuid4().hex[:12]}", data["name"], arguments))
            kept.append(text[start:begin])
            start = end
    kept.append(text[start:])
    return calls, EMPTY_WRAPPERS.sub("", "".join(kept)).strip()


def _is_context_error(exc: openai.APIStatusError) -> bool:
    text = api_message(exc).lower()
    return exc.status_code in (400, 413) and (
        exc.code == "context_length_exceeded" or "maximum context length" in text or "context length" in text
    )


class OpenAIProvider(ModelProvider):
    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        retries: int = settings.MODEL_RETRIES,
        backoff_base_s: float = settings.MODEL_BACKOFF_BASE_S,
    ) -> None:
        self._configure_remote("openai", model, base_url, retries, backoff_base_s)
        self.client = openai.OpenAI(
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
            base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
            max_retries=0,
            timeout=settings.MODEL_REQUEST_TIMEOUT_S,
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        official = self.client.base_url.host == OFFICIAL_HOST
        wire = to_wire(request, official, self.options, self.output_tokens(request))
        tool_names = {t.name for t in request.tools}
        return self.with_retries(lambda: self._call(wire, tool_names))

    def _call(self, wire: dict[str, Any], tool_names: set[str]) -> ModelResponse:
        try:
            reply = self.client.chat.completions.create(model=self.name, **wire)
        except openai.APIStatusError as exc:
            if _is_context_error(exc):
                raise ContextLengthError(f"openai {exc.status_code}: {api_message(exc)}") from exc
            raise status_error("openai", exc.status_code, api_message(exc), exc.response.headers) from exc
        except openai.APIConnectionError as exc:
            raise RetryableError(f"openai: cannot reach the server: {exc}") from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"openai: {type(exc).__name__}: {exc}") from exc
        if not reply.choices:
            raise RetryableError("openai-compatible server returned no choices")
        choice = reply.choices[0]
        message = choice.message
        text = message.content or ""
        calls: list[ToolUseBlock] = []
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)  # custom (non-function) tool calls are not ours
            if function is not None:
                calls.append(_tool_use(call.id, function.name, function.arguments))
        if not message.tool_calls and text:
            calls, text = calls_from_text(text, tool_names)
        content: list[TextBlock | ToolUseBlock | ReasoningBlock] = [TextBlock(text=text)] if text else []
        content.extend(calls)
        return ModelResponse(
            content=content,
            usage=_usage(reply.usage),
            stop_reason=choice.finish_reason or "",
            model=reply.model,
        )


def _usage(usage: CompletionUsage | None) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", 0) or 0) if details else 0
    return Usage(
        input_tokens=(usage.prompt_tokens or 0) - cached,
        output_tokens=usage.completion_tokens or 0,
        cache_read_tokens=cached,
    )
