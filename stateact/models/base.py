"""The model provider contract and its errors."""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from stateact import settings
from stateact.messages import Message, TextBlock, ToolSpec, ToolUseBlock, Usage


class ProviderError(RuntimeError):
    """A model call failed for good (after retries, or not retryable)."""


class ContextLengthError(ProviderError):
    """The request did not fit the model's context window."""


class RetryableError(ProviderError):
    """A transient failure worth retrying (429, 5xx, overloaded, connection)."""


@dataclass
class ModelResponse:
    """One assistant turn."""

    content: list[TextBlock | ToolUseBlock]
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = ""
    model: str = ""

    def message(self) -> Message:
        return Message(role="assistant", content=list(self.content) or [TextBlock(text="(empty reply)")])

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]


@dataclass
class ModelRequest:
    """Everything a provider needs for one call."""

    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    max_tokens: int = settings.MODEL_MAX_OUTPUT_TOKENS
    injected_blocks: int = 0
    """How many trailing blocks of the last message are live injections (kept out of cache prefixes)."""


class ModelProvider(ABC):
    """A chat model with tool use. `name` is the model id used for prices and context windows."""

    name: str
    spec: str

    @abstractmethod
    def complete(self, request: ModelRequest) -> ModelResponse: ...

    @property
    def supports_images(self) -> bool:
        return True


T = TypeVar("T")


def with_retries(
    call: Callable[[], T],
    retries: int = settings.MODEL_RETRIES,
    base_delay: float = settings.MODEL_BACKOFF_BASE_S,
    on_retry: Callable[[int, Exception, float], None] | None = None,
) -> T:
    """Run `call`, retrying RetryableError with exponential backoff and jitter."""
    attempt = 0
    while True:
        try:
            return call()
        except RetryableError as exc:
            if attempt >= retries:
                raise ProviderError(f"{exc} (gave up after {retries} retries)") from exc
            delay = min(settings.MODEL_BACKOFF_MAX_S, base_delay * (2**attempt)) * (0.5 + random.random() / 2)
            if on_retry:
                on_retry(attempt + 1, exc, delay)
            time.sleep(delay)
            attempt += 1
