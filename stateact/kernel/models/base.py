"""The model provider contract and its errors."""

from __future__ import annotations

import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from stateact.kernel import settings
from stateact.kernel.messages import Message, ReasoningBlock, TextBlock, ToolSpec, ToolUseBlock, Usage
from stateact.kernel.models.catalog import ModelInfo
from stateact.kernel.models.role_settings import RoleSettings, max_output_tokens, model_info


class ProviderError(RuntimeError):
    """A model call failed for good (after retries, or not retryable)."""


STATED_MAXIMUM = (
    re.compile(r"tokens? > (\d+) maximum"),
    re.compile(r"exceed context limit: \d+ \+ \d+ > (\d+)"),
    re.compile(r"maximum context length is (\d+) tokens"),
    re.compile(r"context length \((\d+) tokens\)"),
)
"""How providers state the window in a context-length error: Anthropic (prompt, and prompt plus
`max_tokens`), OpenAI and vLLM, SGLang. The one group is the window in tokens."""


def stated_maximum(message: str) -> int | None:
    """The context window a provider's error message states, if it states one."""
    for pattern in STATED_MAXIMUM:
        found = pattern.search(message)
        if found:
            return int(found.group(1))
    return None


class ContextLengthError(ProviderError):
    """The request did not fit the model's context window.

    `maximum` is the window the provider's message states, if it states one.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.maximum = stated_maximum(message)


class RetryableError(ProviderError):
    """A transient failure worth retrying (429, 5xx, overloaded, connection).

    `retry_after` is the wait in seconds the server asked for, if it said.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses below 500 that are worth retrying; every 5xx (529 overloaded included) is too."""


def status_error(vendor: str, status: int, message: str, headers: Mapping[str, str]) -> ProviderError:
    """The error for an HTTP error status: retryable (with the server's `retry-after`) or final."""
    if status in RETRYABLE_STATUS or status >= 500:
        return RetryableError(
            f"{vendor} {status}: {message}", retry_after=_seconds(headers.get("retry-after"))
        )
    return ProviderError(f"{vendor} {status}: {message}")


def api_message(exc: Exception) -> str:
    """The human part of an SDK error: the `message` of its JSON error body, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else None
        if isinstance(message, str):
            return message
    return str(exc)


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date; the backoff applies


TRUNCATED_STOP_REASONS = frozenset({"max_tokens", "length", "model_context_window_exceeded"})
"""Stop reasons (Anthropic and OpenAI) of a reply cut off before the model finished it."""


@dataclass
class ModelResponse:
    """One assistant turn."""

    content: list[TextBlock | ToolUseBlock | ReasoningBlock]
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = ""
    model: str = ""
    retried: list[str] = field(default_factory=list)
    """Transient errors retried before this reply came."""

    def message(self) -> Message:
        return Message(role="assistant", content=list(self.content) or [TextBlock(text="(empty reply)")])

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    @property
    def truncated(self) -> bool:
        """The reply was cut off by an output or window limit: its last block may be incomplete."""
        return self.stop_reason in TRUNCATED_STOP_REASONS


@dataclass
class ModelRequest:
    """Everything a provider needs for one call."""

    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    max_tokens: int = settings.MODEL_MAX_OUTPUT_TOKENS
    injected_blocks: int = 0
    """How many trailing blocks of the last message are live injections (kept out of cache prefixes)."""
    scope: str = ""
    """The loop that sends it (`main`, `gate#1`); empty for a one-off call such as a compaction."""


T = TypeVar("T")


class ModelProvider(ABC):
    """A chat model with tool use. `name` is the model id used for prices and context windows.

    `retries` and `backoff_base_s` set how a provider calling a remote API retries transient errors.
    """

    name: str
    spec: str
    retries: int = settings.MODEL_RETRIES
    backoff_base_s: float = settings.MODEL_BACKOFF_BASE_S
    options: RoleSettings = RoleSettings()
    """The role's settings (output tokens, temperature, tool choice, window, price)."""

    @property
    def info(self) -> ModelInfo:
        """Prices and context window: the catalog's, with the role's stated ones in place."""
        return model_info(self.name, self.options)

    def output_tokens(self, request: ModelRequest) -> int:
        """The output tokens to ask for in a request."""
        return max_output_tokens(self.name, self.options, request.max_tokens)

    def _configure_remote(
        self, provider: str, model: str, base_url: str | None, retries: int, backoff_s: float
    ) -> None:
        """Name, spec and retry policy of a provider calling a remote API."""
        self.name = model
        self.spec = f"{provider}:{model}" + (f"@{base_url}" if base_url else "")
        self.retries = retries
        self.backoff_base_s = backoff_s

    @abstractmethod
    def complete(self, request: ModelRequest) -> ModelResponse: ...

    def take_up(self, replies: int) -> None:
        """Go on in a resumed run whose ended loops of this role got `replies` replies. A model that
        answers from the request alone (every API model) has nothing to do; a script skips them."""
        return None

    def with_retries(self, call: Callable[[], ModelResponse]) -> ModelResponse:
        """Run one API call under this provider's retry policy; the reply lists the errors retried."""
        retried: list[str] = []

        def note(attempt: int, exc: Exception, delay: float) -> None:
            retried.append(f"{exc} (retry {attempt} after {delay:.2f}s)")

        response = with_retries(call, self.retries, self.backoff_base_s, on_retry=note)
        response.retried = retried
        return response


def with_retries(
    call: Callable[[], T],
    retries: int = settings.MODEL_RETRIES,
    base_delay: float = settings.MODEL_BACKOFF_BASE_S,
    on_retry: Callable[[int, Exception, float], None] | None = None,
) -> T:
    """Run `call`, retrying RetryableError with exponential backoff and jitter.

    A wait the server asked for (`retry_after`) is honoured up to MODEL_BACKOFF_MAX_S.
    """
    attempt = 0
    while True:
        try:
            return call()
        except RetryableError as exc:
            if attempt >= retries:
                raise ProviderError(f"{exc} (gave up after {retries} retries)") from exc
            delay = base_delay * (2**attempt) * (0.5 + random.random() / 2)
            delay = min(settings.MODEL_BACKOFF_MAX_S, max(delay, exc.retry_after or 0.0))
            if on_retry:
                on_retry(attempt + 1, exc, delay)
            time.sleep(delay)
            attempt += 1
