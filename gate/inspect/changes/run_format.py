"""The explicit run formatting of a paragraph or text frame, as one short line (python-docx and python-pptx
runs share the font attributes read here)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FLAGS = ("bold", "italic", "underline")


def runs_format(runs: Iterable[Any]) -> str:
    """One summary when the runs that carry text agree ("bold, 14pt"), "mixed (…)" when they differ,
    "" when no formatting is set on them."""
    distinct = list(dict.fromkeys(run_format(run) for run in runs if run.text.strip()))
    if len(distinct) <= 1:
        return distinct[0] if distinct else ""
    return f"mixed ({'; '.join(s or 'plain' for s in distinct)})"


def run_format(run: Any) -> str:
    """What is set on one run: flags (and "not bold" when explicitly off), size, font name, RGB colour."""
    font = run.font
    parts = []
    for flag in FLAGS:
        value = getattr(font, flag)
        if value is not None:
            parts.append(flag if value else f"not {flag}")
    if font.size is not None:
        parts.append(f"{font.size.pt:g}pt")
    if font.name:
        parts.append(font.name)
    colour = _rgb(font)
    if colour:
        parts.append(f"#{colour}")
    return ", ".join(parts)


def _rgb(font: Any) -> str:
    try:
        return str(font.color.rgb or "") if font.color.type is not None else ""
    except AttributeError:  # python-pptx: a theme or preset colour has no .rgb
        return ""
