"""`stateact show`: a readable account of a run from its folder."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stateact.app.progress import preview
from stateact.runlog import read_events

RESULT_PREVIEW_CHARS = 400


def render_run(run_dir: Path, console: Console) -> None:
    config = _read_json(run_dir / "config.json")
    result = _read_json(run_dir / "result.json")
    console.rule(f"run {run_dir.name}")
    if config:
        console.print(f"[bold]task[/bold]: {escape(config.get('instruction', ''))}")
        console.print(
            f"[bold]harness[/bold]: {config.get('harness')}   [bold]model[/bold]: {config['models']['main']}"
        )
    for event in read_events(run_dir / "events.jsonl"):
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


def _render_event(event: dict, console: Console) -> None:
    kind, scope = event["kind"], event["scope"]
    if kind == "tool_call":
        console.print(
            f"[dim]{event['seq']:>5}[/dim] [cyan]{scope}[/cyan] → {event['name']} {escape(preview(event['input'], 300))}"
        )
    elif kind == "tool_result":
        style = "red" if event.get("is_error") else "white"
        text = preview(event.get("text", ""), RESULT_PREVIEW_CHARS)
        console.print(f"      [{style}]{escape(text)}[/{style}]")
    elif kind == "message" and event["message"]["role"] == "assistant":
        text = " ".join(b.get("text", "") for b in event["message"]["content"] if b.get("type") == "text")
        if text.strip():
            console.print(
                f"[dim]{event['seq']:>5}[/dim] [magenta]{scope}[/magenta] says: {escape(preview(text, 300))}"
            )
    elif kind not in ("message", "request", "response", "tool_result"):
        detail = {k: v for k, v in event.items() if k not in ("seq", "t", "kind", "scope")}
        console.print(
            f"[dim]{event['seq']:>5}[/dim] [yellow]{kind}[/yellow] [{scope}] {escape(preview(detail, 300))}"
        )


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
