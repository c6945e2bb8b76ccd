"""Text on a terminal: plain lines (paths, commands to copy) never wrapped by us, help texts in sentences."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import typer
from rich.console import Console
from rich.markup import escape


def whole_lines(console: Console) -> Callable[[str], None]:
    """A printer of plain text on `console`, each line whole: a terminal may wrap it, never the printer,
    so a command or path copied from it is intact."""

    def say(text: str) -> None:
        console.print(escape(text), soft_wrap=True)

    return say


def sentences(text: str) -> str:
    """A docstring as help text: each paragraph one line, so the terminal wraps it, never mid-sentence."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def reflow_help(app: typer.Typer) -> None:
    """Every command of `app` (and of its groups) with its help text as `sentences`."""
    for command in app.registered_commands:
        text = command.help or inspect.getdoc(command.callback) or ""
        command.help = sentences(text)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            reflow_help(group.typer_instance)
