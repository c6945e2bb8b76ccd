"""Tables for output that is not a terminal (a log file, CI): every column whole, no line cut.

A terminal gets rich's table, fitted to its width; a pipe or file gets a padded pipe table (markdown),
as wide as its cells, so nothing is folded into `harn… doma…`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table


def plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str = "") -> str:
    """A pipe table with every cell whole, its columns padded to their widest cell."""
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) + " |"

    lines = [title] if title else []
    lines += [line(headers), "|" + "|".join("-" * (width + 2) for width in widths) + "|"]
    lines += [line(row) for row in rows]
    return "\n".join(lines)


def print_table(
    console: Console, table: Table, headers: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    """`table` on a terminal; elsewhere the same cells as a plain, complete table."""
    if console.is_terminal:
        console.print(table)
    else:
        console.print(
            plain_table(headers, rows, str(table.title or "")), markup=False, highlight=False, soft_wrap=True
        )
