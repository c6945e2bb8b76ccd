"""MkDocs hooks (mkdocs.yml `hooks:`): the pages made at build time, so nothing is written twice: `cli.md`,
the command-line reference walked from the Typer app (every command, argument, option and help text as
`stateact ... --help` shows them), and `index.md`, the site's home: README.md, its `docs/` links pointing
at the site's pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]
DOCS_LINK = re.compile(r"\]\(docs/")


def commands(group: Any, path: str = "stateact") -> Iterator[tuple[str, Any]]:
    """Every command of the click `group` by its full name (`stateact eval run`), groups before their
    commands."""
    yield path, group
    for name, command in getattr(group, "commands", {}).items():
        if not command.hidden:
            yield from commands(command, f"{path} {name}")


def plain(text: str) -> str:
    """A help text as markdown that shows it as written: no HTML tags, no table cell breaks."""
    return text.replace("<", "&lt;").replace("|", "&#124;").strip()


def command_markdown(path: str, command: Any) -> str:
    """A command's section: usage, help text, then a row per argument and option as its help shows it."""
    ctx = typer.Context(command, info_name=path)
    usage = " ".join([path, *command.collect_usage_pieces(ctx)])
    heading = "#" * (2 + max(path.count(" ") - 1, 0))
    lines = [f"{heading} `{path}`", "", "```text", usage, "```", "", plain(command.help or ""), ""]
    records = [p.get_help_record(ctx) for p in command.params if not getattr(p, "hidden", False)]
    if records := [record for record in records if record]:
        lines += ["| argument or option | what it does |", "| --- | --- |"]
        lines += [f"| `{names}` | {plain(' '.join(help_text.split()))} |" for names, help_text in records]
        lines.append("")
    return "\n".join(lines)


def cli_reference(app: typer.Typer) -> str:
    """The markdown of every command of `app`."""
    intro = (
        "# Command-line reference\n\nGenerated from the `stateact` command itself at each build of these "
        "pages: what `stateact COMMAND --help` prints, for every command.\n\n"
    )
    sections = [command_markdown(path, command) for path, command in commands(typer.main.get_command(app))]
    return intro + "\n".join(sections)


def home_page() -> str:
    """README.md as the site's home: its links into `docs/` are the site's own pages."""
    return DOCS_LINK.sub("](", (REPO / "README.md").read_text(encoding="utf-8"))


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages."""
    from stateact.app.cli import app

    files.append(File.generated(config, "cli.md", content=cli_reference(app)))
    files.append(File.generated(config, "index.md", content=home_page()))
    return files
