"""`stateact show`: a readable account of a run from its folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stateact.app.progress import preview
from stateact.kernel.events import (
    Event,
    MessageEvent,
    Request,
    Response,
    ToolCall,
    ToolResultEvent,
    UserAnswer,
    UserQuestion,
    read_events,
)

RESULT_PREVIEW_CHARS = 400


def render_run(run_dir: Path, console: Console, warn: Callable[[str], None]) -> None:
    """Print the run's steps and result to `console`; `warn` is told of each damaged log line."""
    config = _read_json(run_dir / "config.json")
    result = _read_json(run_dir / "result.json")
    console.rule(f"run {run_dir.name}")
    if config:
        console.print(f"[bold]task[/bold]: {escape(config.get('instruction', ''))}")
        console.print(
            f"[bold]harness[/bold]: {config.get('harness')}   [bold]model[/bold]: {config['models']['main']}"
        )
    events = run_dir / "events.jsonl"

    def damaged(number: int) -> None:
        warn(f"{events} line {number} is not JSON (the log is damaged there); it is left out below")

    for event in read_events(events, on_damaged=damaged):
        _render_event(event, console)
    console.rule("result")
    if not result:
        console.print(
            "[yellow]no result.json: the run stopped before it ended (see the last events)[/yellow]"
        )
        return
    table = Table(show_header=False)
    for key in ("status", "infeasible", "gate_passed", "turns", "usd", "seconds", "text"):
        table.add_row(key, escape(str(result.get(key))))
    for role, spend in result.get("spend", {}).get("by_role", {}).items():
        table.add_row(escape(f"spend[{role}]"), f"{spend['turns']} turns, ${spend['usd']:.4f}")
    console.print(table)


def _render_event(event: Event, console: Console) -> None:
    seq, scope = f"[dim]{event.seq:>5}[/dim]", event.scope
    if isinstance(event, ToolCall):
        console.print(f"{seq} [cyan]{scope}[/cyan] → {event.name} {escape(preview(event.input, 300))}")
    elif isinstance(event, ToolResultEvent):
        style = "red" if event.is_error else "white"
        text = preview(event.text, RESULT_PREVIEW_CHARS)
        console.print(f"      [{style}]{escape(text)}[/{style}]")
    elif isinstance(event, MessageEvent):
        text = event.message.text() if event.message.role == "assistant" else ""
        if text.strip():
            console.print(f"{seq} [magenta]{scope}[/magenta] says: {escape(preview(text, 300))}")
    elif isinstance(event, UserQuestion):
        console.print(
            f"{seq} [cyan]{scope}[/cyan] asks the user ({event.answerer}): {escape(event.question)}"
        )
    elif isinstance(event, UserAnswer):
        answer = event.answer if event.answer is not None else f"(no answer: {event.reason})"
        console.print(f"      [green]the user answers[/green]: {escape(answer)}")
    elif not isinstance(event, Request | Response):
        detail = escape(preview(event.details(), 300))
        console.print(f"{seq} [yellow]{event.kind}[/yellow] [{scope}] {detail}")


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
