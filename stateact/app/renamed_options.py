"""Options renamed so that one concept has one name across commands; the old names keep working for a
release: each is replaced by its new name before the command parses its arguments, with a one-line
deprecation warning on stderr. The old names are in no help text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import typer
from typer.core import TyperGroup

RUN_RENAMES = {"relay": {"--watch": "--follow"}}
"""Of the `stateact` commands, per command: old option name → new."""
EVAL_RENAMES = {
    "run": {"--timeout-minutes": "--max-minutes", "--task": "--task-id"},
    "validate": {"--out": "--results", "--task": "--task-id"},
    "check": {"--task": "--task-id"},
}
"""Of the `stateact eval` commands, per command: old option name → new."""


def renamed_args(args: list[str], renames: Mapping[str, str]) -> list[str]:
    """`args` with every old option name (also as `--old=VALUE`) replaced by its new one, each warned of
    once; nothing after `--` is touched."""
    out: list[str] = []
    warned: set[str] = set()
    for index, arg in enumerate(args):
        if arg == "--":
            return out + args[index:]
        name, equals, value = arg.partition("=")
        if name in renames:
            if name not in warned:
                typer.echo(f"warning: {name} is deprecated: use {renames[name]}", err=True)
                warned.add(name)
            arg = renames[name] + equals + value
        out.append(arg)
    return out


def group_with_renames(renames: Mapping[str, Mapping[str, str]]) -> type[TyperGroup]:
    """A Typer group class whose commands take their old option names as `renames` lists them."""

    class RenamingGroup(TyperGroup):
        def resolve_command(self, ctx: typer.Context, args: list[str]) -> tuple[str | None, Any, list[str]]:
            name, command, rest = super().resolve_command(ctx, args)
            return name, command, renamed_args(rest, renames.get(name or "", {}))

    return RenamingGroup
