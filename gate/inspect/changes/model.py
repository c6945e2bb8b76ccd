"""What a state diff is made of, and how values are written in it."""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from stateact.gate import settings

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


PAIR_MIN_SIMILARITY = 0.5
"""How alike (difflib's ratio) an old and a new item must be to be read as one item edited rather than one
removed and another added."""
_PAIR_MAX_BLOCK = 80
"""Items per side of a differing block beyond which the block is not searched for pairs (all removed and added)."""


def align(before: Sequence[str], after: Sequence[str]) -> list[tuple[str, int | None, int | None]]:
    """The items of two sequences matched by content, in order: ("equal" | "changed", i, j), ("removed", i,
    None), ("added", None, j). Equal runs come from difflib's SequenceMatcher; within a differing block, old
    and new items are paired (in order, most alike first) only when they are at least PAIR_MIN_SIMILARITY
    alike, so a deleted paragraph reads as removed, not as each later paragraph edited into the next."""
    result: list[tuple[str, int | None, int | None]] = []
    matcher = SequenceMatcher(None, list(before), list(after), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            result += [("equal", i, j) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
            continue
        pairs = _pairs(before[i1:i2], after[j1:j2]) if tag == "replace" else []
        i, j = i1, j1
        for pi, pj in pairs:
            result += [("removed", k, None) for k in range(i, i1 + pi)]
            result += [("added", None, k) for k in range(j, j1 + pj)]
            result.append(("changed", i1 + pi, j1 + pj))
            i, j = i1 + pi + 1, j1 + pj + 1
        result += [("removed", k, None) for k in range(i, i2)]
        result += [("added", None, k) for k in range(j, j2)]
    return result


def _pairs(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """The order-keeping pairing of `old` and `new` items with the highest total similarity, counting only
    pairs at least PAIR_MIN_SIMILARITY alike (a dynamic programme over the two blocks)."""
    if len(old) > _PAIR_MAX_BLOCK or len(new) > _PAIR_MAX_BLOCK:
        return []
    score = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for a in range(len(old) - 1, -1, -1):
        for b in range(len(new) - 1, -1, -1):
            similarity = _similarity(old[a], new[b])
            paired = similarity + score[a + 1][b + 1] if similarity >= PAIR_MIN_SIMILARITY else -1.0
            score[a][b] = max(paired, score[a + 1][b], score[a][b + 1])
    pairs, a, b = [], 0, 0
    while a < len(old) and b < len(new):
        if score[a][b] == score[a + 1][b]:
            a += 1
        elif score[a][b] == score[a][b + 1]:
            b += 1
        else:
            pairs.append((a, b))
            a, b = a + 1, b + 1
    return pairs


def _similarity(a: str, b: str) -> float:
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < PAIR_MIN_SIMILARITY or matcher.quick_ratio() < PAIR_MIN_SIMILARITY:
        return 0.0  # cheap upper bounds first: most pairs of a block are unlike
    return matcher.ratio()
