"""The texts the model reads about each tool, one Markdown file per tool."""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.prompts.loader import render_prompt

_HERE = Path(__file__).parent


def load_prompt(name: str, **fills: str) -> str:
    """`prompts/<name>.md` with its placeholders filled (`stateact.kernel.prompts.loader`), without
    surrounding whitespace."""
    return render_prompt(_HERE / f"{name}.md", **fills).strip()
