"""Printing plain lines (paths, commands to copy) on a terminal without wrapping them."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape


def whole_lines(console: Console) -> Callable[[str], None]:
    """A printer of plain text on `console`, each line whole: a terminal may wrap it, never the printer,
    so a command or path copied from it is intact."""

    def say(text: str) -> None:
        console.print(escape(text), soft_wrap=True)

    return say
