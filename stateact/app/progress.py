"""Live progress lines for `stateact run`, fed by run-log events."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

PREVIEW_CHARS = 100


def preview(value: object, limit: int = PREVIEW_CHARS) -> str:
    """A one-line, bounded rendering of a value."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ProgressPrinter:
    """Prints one line per model turn and per tool call, with running tokens and dollars."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.usd = 0.0
        self.tokens = 0

    def __call__(self, event: dict) -> None:
        kind, scope = event["kind"], event["scope"]
        if kind == "response":
            usage = event.get("usage", {})
            self.usd += event.get("usd", 0.0)
            self.tokens += sum(usage.values())
            self.console.print(
                f"[dim]{scope}[/dim] step {event['turn']} · {self.tokens:,} tokens · ${self.usd:.4f}"
            )
        elif kind == "tool_call":
            self.console.print(f"  [cyan]{escape(event['name'])}[/cyan] {escape(preview(event['input']))}")
        elif kind == "tool_result" and event.get("is_error"):
            self.console.print(f"  [red]error[/red] {escape(preview(event['text']))}")
        elif kind in ("error", "gate_verdict", "compaction", "stall", "gate_violation", "sandbox_warning"):
            detail = {k: v for k, v in event.items() if k not in ("seq", "t", "kind", "scope")}
            self.console.print(f"[yellow]{kind}[/yellow] {escape(preview(detail, 200))}")
