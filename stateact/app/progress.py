"""Live progress lines for `stateact run`, fed by run-log events."""

from __future__ import annotations

import json
import threading
import time

from rich.console import Console
from rich.markup import escape

from stateact.gate.events import GateVerdict, GateViolation
from stateact.kernel import settings
from stateact.kernel.events import (
    Compaction,
    ErrorEvent,
    Event,
    Request,
    Response,
    RunEnd,
    RunStart,
    SandboxWarning,
    Stall,
    ToolCall,
    ToolResultEvent,
    UserAnswer,
)

PREVIEW_CHARS = 100
NOTEWORTHY = (ErrorEvent, GateVerdict, Compaction, Stall, GateViolation, SandboxWarning, UserAnswer)
"""Events printed whole (a line with their fields)."""


def preview(value: object, limit: int = PREVIEW_CHARS) -> str:
    """A one-line, bounded rendering of a value."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ProgressPrinter:
    """Prints one line per model turn (the role's step, and the whole run's tokens and dollars so far) and
    per tool call, and a line when a model has been thinking for `thinking_after_s` without answering."""

    def __init__(self, console: Console, thinking_after_s: float = settings.THINKING_NOTICE_S) -> None:
        self.console = console
        self.usd = 0.0
        self.tokens = 0
        self.thinking_after_s = thinking_after_s
        self._waiting: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStart) and event.display:
            self.console.print(f"display {event.display} (the sandbox's screen on this machine)")
        if isinstance(event, Request):
            self._wait(event.scope)
        elif isinstance(event, Response | RunEnd):
            self._answered(event)
        if isinstance(event, Response):
            self.usd += event.usd
            self.tokens += sum(event.usage.model_dump().values())
            self.console.print(
                f"[dim]{event.scope}[/dim] step {event.turn} · run so far: {self.tokens:,} tokens, ${self.usd:.4f}"
            )
        elif isinstance(event, ToolCall):
            self.console.print(f"  [cyan]{escape(event.name)}[/cyan] {escape(preview(event.input))}")
        elif isinstance(event, ToolResultEvent) and event.is_error:
            self.console.print(f"  [red]error[/red] {escape(preview(event.text))}")
        elif isinstance(event, NOTEWORTHY):
            self.console.print(f"[yellow]{event.kind}[/yellow] {escape(preview(event.details(), 200))}")

    def _wait(self, scope: str) -> None:
        asked = time.monotonic()
        timer = threading.Timer(self.thinking_after_s, self._still_thinking, (scope, asked))
        timer.daemon = True
        with self._lock:
            previous = self._waiting.pop(scope, None)
            self._waiting[scope] = timer
        if previous is not None:
            previous.cancel()
        timer.start()

    def _answered(self, event: Event) -> None:
        """A model answered (its scope's wait ends), or the run ended (every wait ends)."""
        with self._lock:
            if isinstance(event, RunEnd):
                timers, self._waiting = list(self._waiting.values()), {}
            else:
                timers = [t for t in [self._waiting.pop(event.scope, None)] if t is not None]
        for timer in timers:
            timer.cancel()

    def _still_thinking(self, scope: str, asked: float) -> None:
        self.console.print(
            f"[dim]{scope}[/dim] thinking… ({time.monotonic() - asked:.0f}s without an answer)"
        )
