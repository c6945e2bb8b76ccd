"""What the loop calls to turn its history into a request: the `ContextManager` protocol, what a manager
reads of its loop (`ManagedLoop`), and `PassThrough`, which sends the whole history unchanged.
`stateact.kernel.context.pipeline` holds the manager of every role's loop."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from stateact.kernel.messages import Message, Usage
from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.tools.base import Tool

Injection = Callable[[], str | None]
"""Live text appended after the latest message of every request (e.g. the plan)."""


class ManagedLoop(Protocol):
    """What a context manager reads and rewrites of the loop it serves (an `AgentLoop`)."""

    scope: str
    messages: list[Message]
    system_prompt: str

    @property
    def tools(self) -> Mapping[str, Tool[Any]]: ...

    log: RunLog
    meter: Meter


class ContextManager(Protocol):
    def before_request(self, loop: ManagedLoop) -> None:
        """May rewrite `loop.messages` for good (compaction); logs what it did."""

    def view(self, messages: list[Message]) -> list[Message]:
        """The request's messages: a transformed copy, the history untouched."""

    def notes(self) -> list[str]:
        """Texts for the end of this request, after the cache breakpoint."""

    def after_response(self, usage: Usage) -> None:
        """The provider answered the last request and reported its usage."""

    def on_overflow(self, loop: ManagedLoop, maximum: int | None = None) -> bool:
        """The provider said the request was too long (its error stating a `maximum` prompt size, or
        None): make the retried one smaller (compact the history, or cut blocks of the view) without
        changing the window for later turns; True to retry."""


class PassThrough:
    """Sends the history as it is and cannot recover from an overflow."""

    def before_request(self, loop: ManagedLoop) -> None:
        return None

    def view(self, messages: list[Message]) -> list[Message]:
        return messages

    def notes(self) -> list[str]:
        return []

    def after_response(self, usage: Usage) -> None:
        return None

    def on_overflow(self, loop: ManagedLoop, maximum: int | None = None) -> bool:
        return False


__all__ = ["ContextManager", "Injection", "ManagedLoop", "PassThrough"]
