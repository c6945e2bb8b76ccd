"""Workbook diff (.xlsx/.xlsm): sheets added, removed and renamed; cells changed with value, formula
(and its cached value) and number format."""

from __future__ import annotations

import io
from dataclasses import dataclass

import openpyxl

from stateact.gate.inspect.changes.model import EMPTY, Section, sections, short, value_text

RENAME_MIN_SHARED = 0.5
"""Share of equal cells above which a removed and an added sheet count as one sheet renamed."""


@dataclass(frozen=True)
class Cell:
    value: object
    """The stored content: a literal, or a formula string starting with '='."""
    cached: object
    """What the file caches for a formula (None when it caches nothing)."""
    number_format: str

    def text(self) -> str:
        if isinstance(self.value, str) and self.value.startswith("="):
            cached = value_text(self.cached) if self.cached is not None else "(no cached value)"
            return f"{short(self.value)} = {cached}"
        return value_text(self.value)


Sheets = dict[str, dict[str, Cell]]


def read_workbook(data: bytes | None) -> Sheets:
    """Every non-empty cell of every sheet, in sheet order; an absent file has no sheets."""
    if data is None:
        return {}
    formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    cached = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return {ws.title: _cells(ws, cached[ws.title]) for ws in formulas.worksheets}
    finally:
        formulas.close()
        cached.close()


def _cells(ws, cached_ws) -> dict[str, Cell]:
    values = {(c.row, c.column): c.value for row in cached_ws.iter_rows() for c in row if c.value is not None}
    cells = {}
    for row in ws.iter_rows():
        for c in row:
            if c.value is not None:
                cells[c.coordinate] = Cell(c.value, values.get((c.row, c.column)), c.number_format)
    return cells


def diff_workbooks(old: bytes | None, new: bytes | None) -> list[Section]:
    before, after = read_workbook(old), read_workbook(new)
    renamed = _renames(before, after)
    added = [s for s in after if s not in before and s not in renamed.values()]
    removed = [s for s in before if s not in after and s not in renamed]
    pairs = [(s, s) for s in after if s in before] + list(renamed.items()) + [(None, s) for s in added]
    result = sections(
        ("sheets renamed", [f"{old!r} → {new!r}" for old, new in renamed.items()]),
        ("sheets added", [f"{s!r} ({len(after[s])} cells)" for s in added]),
        ("sheets removed", [f"{s!r} (had {len(before[s])} cells)" for s in removed]),
    )
    if list(before) != list(after) and not (renamed or added or removed):
        result.append(Section("sheet order", [f"{list(before)} → {list(after)}"]))
    for old_name, new_name in pairs:
        changes = cell_changes(new_name, before.get(old_name, {}) if old_name else {}, after[new_name])
        result += sections((f"cells changed on {new_name!r}", changes))
    return result


def cell_changes(sheet: str, before: dict[str, Cell], after: dict[str, Cell]) -> list[str]:
    """`Sheet!A1: old → new` for each cell that differs, in row order."""
    lines = []
    for coordinate in sorted(before.keys() | after.keys(), key=_row_order):
        old, new = before.get(coordinate), after.get(coordinate)
        if old == new:
            continue
        old_text, new_text = (c.text() if c else EMPTY for c in (old, new))
        line = f"{sheet}!{coordinate}: {old_text} → {new_text}" if old_text != new_text else ""
        if old and new and old.number_format != new.number_format:
            change = f"number format {old.number_format!r} → {new.number_format!r}"
            line = f"{line}; {change}" if line else f"{sheet}!{coordinate} ({new_text}): {change}"
        if line:
            lines.append(line)
    return lines


def _row_order(coordinate: str) -> tuple[int, int, str]:
    letters = coordinate.rstrip("0123456789")
    return int(coordinate[len(letters) :]), len(letters), letters


def _renames(before: Sheets, after: Sheets) -> dict[str, str]:
    """Removed sheets paired with the added sheet holding most of their cells (or the only pair)."""
    gone = [s for s in before if s not in after]
    new = [s for s in after if s not in before]
    if len(gone) == len(new) == 1:
        return {gone[0]: new[0]}
    pairs = {}
    for old in gone:
        scored = [(_shared(before[old], after[s]), s) for s in new if s not in pairs.values()]
        best = max(scored, default=(0.0, ""))
        if best[0] >= RENAME_MIN_SHARED:
            pairs[old] = best[1]
    return pairs


def _shared(a: dict[str, Cell], b: dict[str, Cell]) -> float:
    if not a and not b:
        return 1.0
    return sum(1 for k, v in a.items() if b.get(k) == v) / max(len(a), len(b))
