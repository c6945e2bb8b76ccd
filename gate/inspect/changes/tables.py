"""SQLite diff: tables added and removed, columns changed, and rows added, removed and changed per table,
keyed by the primary key (or the rowid)."""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from stateact.gate.inspect.changes.model import Section, sections, value_text

Table = tuple[list[str], dict[tuple, dict[str, object]], str]
"""(columns, rows by key, key description)"""


def read_database(data: bytes | None) -> dict[str, Table]:
    if data is None:
        return {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "copy.db"
        path.write_bytes(data)
        with closing(sqlite3.connect(path)) as connection:
            names = [
                row[0]
                for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            return {name: _table(connection, name) for name in names}


def _table(connection: sqlite3.Connection, name: str) -> Table:
    quoted = '"' + name.replace('"', '""') + '"'
    info = connection.execute(f"PRAGMA table_info({quoted})").fetchall()
    columns = [row[1] for row in info]
    keys = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5] > 0]
    if keys:
        cursor = connection.execute(f"SELECT * FROM {quoted}")
        positions = [columns.index(k) for k in keys]
        rows = {tuple(r[p] for p in positions): dict(zip(columns, r, strict=True)) for r in cursor}
        return columns, rows, ", ".join(keys)
    cursor = connection.execute(f"SELECT rowid, * FROM {quoted}")
    return columns, {(r[0],): dict(zip(columns, r[1:], strict=True)) for r in cursor}, "rowid"


def diff_sqlite(old: bytes | None, new: bytes | None) -> list[Section]:
    before, after = read_database(old), read_database(new)
    result = sections(
        ("tables added", [f"{t} ({len(after[t][1])} rows)" for t in after if t not in before]),
        ("tables removed", [f"{t} (had {len(before[t][1])} rows)" for t in before if t not in after]),
    )
    for name in after:
        columns, rows, key = after[name]
        old_columns, old_rows, _ = before.get(name, (columns, {}, key))
        if old_columns != columns:
            result.append(Section(f"columns of table {name}", [f"{old_columns} → {columns}"]))
        result += sections((f"rows of table {name} (by {key})", _row_changes(name, key, old_rows, rows)))
    return result


def _row_changes(table: str, key: str, before: dict, after: dict) -> list[str]:
    lines = []
    for ident in sorted(before.keys() | after.keys(), key=_sortable):
        old, new = before.get(ident), after.get(ident)
        label = f"{table}[{key}={', '.join(map(value_text, ident))}]"
        if old is None:
            lines.append(f"added {label}: {_row_text(new)}")
        elif new is None:
            lines.append(f"removed {label}: {_row_text(old)}")
        elif old != new:
            changes = [
                f"{c}: {value_text(old.get(c))} → {value_text(new.get(c))}"
                for c in dict.fromkeys([*old, *new])
                if old.get(c) != new.get(c)
            ]
            lines.append(f"changed {label}: " + "; ".join(changes))
    return lines


def _row_text(row: dict) -> str:
    return ", ".join(f"{c}={value_text(v)}" for c, v in row.items())


def _sortable(ident: tuple) -> tuple:
    return tuple((type(v).__name__, str(v).zfill(20) if isinstance(v, int) else str(v)) for v in ident)
