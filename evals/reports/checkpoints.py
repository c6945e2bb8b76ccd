"""A task's checkpoints on the terminal: each part of its score.json with its score, its name and what it
compared (`stateact show` on a task's results folder)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from stateact.evals.osworld.metrics.explain import checkpoint_detail, checkpoint_titles


def render_checkpoints(parts: list[dict], console: Console) -> None:
    """Each checkpoint of a task's score.json: its score, its name, and what it compared."""
    console.rule("checkpoints")
    for part, title in zip(parts, checkpoint_titles(parts), strict=True):
        score = part.get("score") if isinstance(part.get("score"), int | float) else 0.0
        colour = "green" if score == 1.0 else "red"
        console.print(f"[{colour}]{score:.2f}[/{colour}] {escape(title)}")
        for line in checkpoint_detail(part).splitlines() if score < 1.0 else []:
            console.print(f"      {escape(line)}", soft_wrap=True)
