"""Live progress lines for `stateact run`, fed by run-log events."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from stateact.kernel.events import (
    Compaction,
    ErrorEvent,
    Event,
    GateVerdict,
    GateViolation,
    Response,
    SandboxWarning,
    Stall,
    ToolCall,
    ToolResultEvent,
)

PREVIEW_CHARS = 100
NOTEWORTHY = (ErrorEvent, GateVerdict, Compaction, Stall, GateViolation, SandboxWarning)
"""Events printed whole (a line with their fields)."""


def preview(value: object, limit: int = PREVIEW_CHARS) -> str:
    """A one-line, bounded rendering of a value."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ProgressPrinter:
    """Prints one line per model turn (the role's step, and the whole run's tokens and dollars so far) and
    per tool call."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.usd = 0.0
        self.tokens = 0

    def __call__(self, event: Event) -> None:
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
