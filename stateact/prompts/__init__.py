"""Prompt files and their rendering."""

from __future__ import annotations

from pathlib import Path

PROMPTS_DIR = Path(__file__).parent


def render_main_prompt(tool_names: set[str], home: str) -> str:
    """The main agent's system prompt for a toolset."""
    text = (PROMPTS_DIR / "main.md").read_text(encoding="utf-8")
    return text.replace("{home}", home).replace("{tools}", ", ".join(sorted(tool_names)))
