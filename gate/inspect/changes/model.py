"""What a state diff is made of, and how values are written in it."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field

from gate import settings

EMPTY = "(empty)"


@dataclass
class Section:
    """One list of a file's changes ("cells changed on Sales", "paragraphs changed", ...)."""

    title: str
    items: list[str]


@dataclass
class FileDiff:
    """How one file differs from its baseline copy."""

    path: str
    status: str
    """added | removed | changed"""
    note: str = ""
    sections: list[Section] = field(default_factory=list)


def short(text: str, limit: int = settings.GATE_DIFF_MAX_VALUE_CHARS) -> str:
    """`text` cut to `limit` characters, with an ellipsis and the full length when cut."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


def value_text(value: object) -> str:
    """A value as the gate should read it: strings quoted (so "25" differs from 25), None as (empty)."""
    if value is None or value == "":
        return EMPTY
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return short(json.dumps(value, ensure_ascii=False, default=str))


def sections(*pairs: tuple[str, list[str]]) -> list[Section]:
    """The non-empty lists, each titled with its count."""
    return [Section(f"{title} ({len(items)})", items) for title, items in pairs if items]
