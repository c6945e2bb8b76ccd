"""How a loop's history becomes a request: the context-management hook points.

`ContextManager` is the protocol the loop calls; `PassThrough` sends the whole
history unchanged. `stateact.context_policy.ContextPolicy` (built by
`build_context_manager`) is the manager of long runs: tool-output caps, image
stripping, auto-compaction and stall notes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from stateact.messages import Message

if TYPE_CHECKING:
    from stateact.loop import AgentLoop


class ContextManager(Protocol):
    def before_request(self, loop: AgentLoop) -> None:
        """May rewrite `loop.messages` for good (compaction); logs what it did."""

    def view(self, messages: list[Message]) -> list[Message]:
        """The request's messages: a transformed copy, the history untouched."""

    def on_overflow(self, loop: AgentLoop) -> bool:
        """The provider said the request was too long: make the retried one smaller (compact the
        history, or cut blocks of the view) without changing the window for later turns; True to retry."""


class PassThrough:
    """Sends the history as it is and cannot recover from an overflow."""

    def before_request(self, loop: AgentLoop) -> None:
        return None

    def view(self, messages: list[Message]) -> list[Message]:
        return messages

    def on_overflow(self, loop: AgentLoop) -> bool:
        return False
