"""The texts the model reads about each tool, one Markdown file per tool."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent


@cache
def load_prompt(name: str) -> str:
    """The text of `prompts/<name>.md`, without surrounding whitespace."""
    return (_HERE / f"{name}.md").read_text(encoding="utf-8").strip()
